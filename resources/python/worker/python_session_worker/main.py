"""The worker: read the start line, connect, answer requests until told to stop or orphaned.

Threads: the main thread runs cells (signals reach it, so an interrupt lands in user code);
a reader thread verifies what the daemon sends and answers what must not wait for a cell
(kernel_info, interrupt, shutdown, heartbeat); a sender thread writes everything else, in
order (channel.Outbox); a pipe reader turns fd 1 and 2 into stream text (streams.FdCapture).
"""
import builtins
import faulthandler
import json
import os
import queue
import signal
import socket
import sys
import threading
import types

import python_session_common as common

from . import display, errors, streams
from .cells import Interrupts, Runner, ends_with_semicolon
from .channel import PROTOCOL_VERSION, Channel, Outbox

VERSION = "1"
NAMES_KEY = "__python_session_names__"  # see app/core/kernel/user-names.ts
_SHUTDOWN = object()
_POSIX = os.name == "posix"


def _read_start_line():
    """{"port", "key"} from stdin, which is then closed: user code gets no stdin."""
    data = b""
    while not data.endswith(b"\n") and len(data) < 4096:
        chunk = os.read(0, 4096 - len(data))
        if not chunk:
            break
        data += chunk
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    try:
        start = json.loads(data.decode("utf-8"))
        return int(start["port"]), str(start["key"]).encode("ascii")
    except (ValueError, KeyError, TypeError, UnicodeError):
        return None


def _no_input(prompt=""):
    raise EOFError("input() cannot be answered here: nobody is asked for this request. Put the value in the code instead.")


def _end_process_group(code=1):
    """The daemon is gone: end everything user code started too, then this process."""
    if _POSIX:
        try:
            if os.getpgrp() == os.getpid():  # never the group of whoever started us by hand
                os.killpg(os.getpid(), signal.SIGKILL)
        except OSError:
            pass
    os._exit(code)


def _fresh_main():
    """A new, empty __main__: the user's namespace, where the helpers look for it."""
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    return main.__dict__


class Worker:
    def __init__(self, channel, log):
        self.channel = channel
        self.log = log
        self.outbox = Outbox(channel)
        self.cells = streams.Cells()
        self.cell_names = errors.CellNames()
        self.interrupts = Interrupts()
        self.namespace = _fresh_main()
        self.runner = Runner(self.namespace, self.interrupts)
        self.requests = queue.SimpleQueue()
        self.answers = queue.SimpleQueue()
        self.execution_count = 0
        self.shutting_down = False
        self.capture = streams.install(self.outbox, self.cells)
        display.set_publisher(self._publish_display)
        builtins.display = display.display
        builtins.input = _no_input
        # No inline backend here: matplotlib draws to files unless the person chose a backend,
        # and figures come back as images (python_session_common).
        os.environ.setdefault("MPLBACKEND", "Agg")
        common.remember_closed_figures()
        self.figures_at_cell_end = common.show_figures_under_file_backends(display.display)
        self.interrupts.install()

    # ---- sending ----

    def _publish_display(self, msg_type, content):
        self.capture.drain()  # what the pipes hold was printed before this
        self.outbox.message("iopub", msg_type, content, self.cells.parent_here())

    def _reply(self, request, msg_type, content):
        self.outbox.message(request.get("channel") or "shell", msg_type, content, request["header"])

    def _status(self, state, parent):
        self.outbox.message("iopub", "status", {"execution_state": state}, parent)

    # ---- the reader thread ----

    def read(self):
        channel = self.channel
        while True:
            request = channel.receive()
            if request is None:
                break
            try:
                self._dispatch(request)
            except Exception:
                self._note("a request could not be handled")
        if self.shutting_down:
            threading.Event().wait(2.0)  # the main thread is on its way out
        _end_process_group()

    def _dispatch(self, request):
        kind = request["header"]["msg_type"]
        if request.get("channel") == "hb":
            self.channel.send_line(self.channel.encode("hb", "pong", {}, request["header"]))
        elif kind == "kernel_info_request":
            self._status("busy", request["header"])
            self._reply(request, "kernel_info_reply", self._kernel_info())
            self._status("idle", request["header"])
        elif kind == "interrupt_request":
            self._reply(request, "interrupt_reply", {"status": "ok"})
            self.interrupts.interrupt_main()
        elif kind == "shutdown_request":
            restart = bool(request["content"].get("restart", False))
            self._reply(request, "shutdown_reply", {"status": "ok", "restart": restart})
            self.shutting_down = True
            self.requests.put(_SHUTDOWN)
            # A cell that is still running has a moment to be interrupted; then the group goes.
            timer = threading.Timer(3.0, _end_process_group, (0,))
            timer.daemon = True
            timer.start()
        elif kind == "execute_request":
            self.requests.put(request)
        elif kind == "input_reply" and request.get("channel") == "stdin":
            self.answers.put(request["content"].get("value"))
        else:
            self._status("busy", request["header"])
            self._reply(request, kind.replace("_request", "_reply"), {
                "status": "error", "ename": "NotImplementedError",
                "evalue": "%s is not supported by Python Session's built-in worker" % kind, "traceback": []})
            self._status("idle", request["header"])

    def _kernel_info(self):
        version = sys.version.split()[0]
        return {
            "status": "ok",
            "protocol_version": PROTOCOL_VERSION,
            "implementation": "python-session-worker",
            "implementation_version": VERSION,
            "language_info": {
                "name": "python",
                "version": version,
                "mimetype": "text/x-python",
                "file_extension": ".py",
                "pygments_lexer": "python3",
                "codemirror_mode": {"name": "python", "version": 3},
                "nbconvert_exporter": "python",
            },
            "banner": "Python %s (Python Session's built-in worker)" % version,
            "help_links": [],
            "python_session": {
                "engine": "worker",
                "pid": os.getpid(),
                "bad_signatures": self.channel.bad_signatures,
                "malformed": self.channel.malformed,
            },
        }

    # ---- the main thread ----

    def serve(self):
        self.outbox.message("control", "worker_hello", {"pid": os.getpid(), "version": sys.version.split()[0]})
        threading.Thread(target=self.read, name="python-session-reader", daemon=True).start()
        while True:
            try:
                request = self.requests.get()
                if request is _SHUTDOWN:
                    break
                self._execute(request)
            except KeyboardInterrupt:
                continue  # a SIGINT handler of the user's own, raising between cells
            except Exception:
                self._note("a cell could not be run")
        self._exit()

    def _exit(self):
        try:
            import atexit

            atexit._run_exitfuncs()  # the user's atexit handlers, as at a normal exit
        except BaseException:
            pass
        self.outbox.wait_until_sent(2.0)
        os._exit(0)

    def _execute(self, request):
        parent = request["header"]
        content = request["content"]
        code = content.get("code")
        code = code if isinstance(code, str) else ""
        silent = bool(content.get("silent", False))
        store = bool(content.get("store_history", True)) and not silent
        interrupts = self.interrupts
        interrupts.pending = False
        interrupts.in_cell = True
        self._status("busy", parent)
        if store:
            self.execution_count += 1
        count = self.execution_count
        self.capture.new_cell(parent)
        self.cells.current = parent
        self._forward_input(parent, bool(content.get("allow_stdin", False)) and not silent)
        self.outbox.message("iopub", "execute_input", {"code": code, "execution_count": count}, parent)
        if store:
            filename = "<cell-%d>" % count
            self.cell_names.register(filename, "Cell In[%d]" % count, code)
        else:
            filename = "<python-session-call>"
        value, error, compiling = self.runner.run(code, filename, interactive=not silent)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            interrupts.install()  # raising between cells would cut a reply short; ours raises in user code alike
        if error is None and value is not Runner.NOTHING and value is not None and not silent \
                and not ends_with_semicolon(code):
            error = self._show_result(value, count, store, parent)
        failure = {}
        if error is not None:
            failure = errors.describe(error, self.cell_names, compiling)
            self.capture.drain()
            self.outbox.message("iopub", "error", failure, parent)
        self._as_user_code(self.figures_at_cell_end)
        expressions = self._user_expressions(content.get("user_expressions") or {})
        self.capture.drain()
        reply = {"status": "error" if failure else "ok", "execution_count": count,
                 "user_expressions": expressions, "payload": []}
        reply.update(failure)
        self.outbox.message("shell", "execute_reply", reply, parent)
        interrupts.in_cell = False
        interrupts.pending = False
        self.cells.current = None
        self._status("idle", parent)

    def _forward_input(self, parent, allowed):
        """input() and getpass.getpass() ask the daemon (which asks the person) for a cell that allows it."""
        import getpass

        if not allowed:
            builtins.input = _no_input
            getpass.getpass = _no_input
            return
        builtins.input = lambda prompt="": self._ask(parent, prompt, False)
        getpass.getpass = lambda prompt="Password: ", stream=None: self._ask(parent, prompt, True)

    def _ask(self, parent, prompt, password):
        prompt = str(prompt)
        # One question at a time, from this thread: an answer left from an earlier one (its code was
        # interrupted as the answer came) is not this one's.
        while not self.answers.empty():
            self.answers.get()
        self.capture.drain()  # what the code printed before it asked comes first
        self.outbox.message("stdin", "input_request", {"prompt": prompt, "password": password}, parent)
        while True:
            try:
                # A short wait at a time: an interrupt raises here between waits.
                answer = self.answers.get(timeout=0.2)
            except queue.Empty:
                continue
            return common.answer_to_question(answer if isinstance(answer, str) else "", prompt, password, sys.stdout.write)

    def _as_user_code(self, fn, *args):
        """Runs fn with interrupts armed; returns (result, exception)."""
        try:
            self.interrupts.arm()
            return fn(*args), None
        except BaseException as error:
            return None, error
        finally:
            self.interrupts.disarm()

    def _show_result(self, value, count, store, parent):
        formatted, error = self._as_user_code(display.format_value, value)
        if error is not None:
            return error
        data, metadata = formatted
        if store:
            ns = self.namespace
            ns["___"], ns["__"], ns["_"] = ns.get("__", ""), ns.get("_", ""), value
        self.capture.drain()
        self.outbox.message("iopub", "execute_result",
                            {"execution_count": count, "data": data, "metadata": metadata}, parent)
        return None

    def _user_expressions(self, expressions):
        answers = {}
        for key, expression in expressions.items():
            if key == NAMES_KEY:
                # Each name with the ids of its value and of the value's type: a rebound name shows.
                names = ["%s:%x:%x" % (n, id(v), id(type(v))) for n, v in list(self.namespace.items())
                         if isinstance(n, str) and n[:1] != "_"][:500]
                answers[key] = {"status": "ok", "data": {"text/plain": repr(" ".join(names))}, "metadata": {}}
                continue
            text, error = self._as_user_code(lambda: repr(eval(str(expression), self.namespace)))
            if error is None:
                answers[key] = {"status": "ok", "data": {"text/plain": text}, "metadata": {}}
            else:
                answers[key] = dict(errors.describe(error, self.cell_names), status="error")
        return answers

    def _note(self, what):
        try:
            import traceback

            self.log.write("python-session-worker: %s:\n%s" % (what, traceback.format_exc()))
            self.log.flush()
        except Exception:
            pass


def run():
    start = _read_start_line()
    if start is None:
        sys.stderr.write("python-session-worker: expected a start line on stdin; this is started by Python Session.\n")
        return 2
    port, key = start
    # The worker's own diagnostics (and a fatal error's stack) go to the daemon's log for it,
    # the stderr it was started with; fd 2 itself becomes each cell's.
    log = open(os.dup(2), "w", encoding="utf-8", errors="backslashreplace")
    faulthandler.enable(file=log, all_threads=True)
    common.cap_memory()  # as kernel_startup.py does for ipykernel
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    except OSError as error:
        sys.stderr.write("python-session-worker: cannot reach Python Session at 127.0.0.1:%d: %s\n" % (port, error))
        return 2
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sys.argv = [""]
    worker = Worker(Channel(sock, key), log)
    worker.serve()
    return 0
