"""The built-in worker (resources/python/worker), driven over its real socket by a test daemon.

Standard library only, so it runs under any Python the worker supports:
``python -m unittest tests.test_worker`` from resources/python (the worker under test is the
interpreter running the tests; PYTHON_SESSION_WORKER_PYTHON names another).
"""
import hashlib
import hmac
import json
import os
import queue
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.dirname(HERE)
START = os.path.join(RESOURCES, "worker", "start.py")
PYTHON = os.environ.get("PYTHON_SESSION_WORKER_PYTHON") or sys.executable
MIME = "application/vnd.python-session+json"
WAIT = 20.0  # far above what any step needs: only a failure reaches it


def pyenv_pythons(prefixes):
    root = os.environ.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")
    try:
        versions = sorted(os.listdir(os.path.join(root, "versions")))
    except OSError:
        return []
    found = []
    for version in versions:
        python = os.path.join(root, "versions", version, "bin", "python")
        if version.startswith(prefixes) and os.path.exists(python):
            found.append((version, python))
    return found


def alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie is not alive
        with open("/proc/%d/stat" % pid) as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def wait_until(what, probe, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.02)


class Daemon:
    """The daemon's side of the protocol: listen, start the worker, sign, verify, route."""

    def __init__(self, python=PYTHON, env=None):
        self.key = secrets.token_hex(32)
        self.mac = hmac.new(self.key.encode("ascii"), digestmod=hashlib.sha256)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.listener.settimeout(WAIT)
        self.log = []
        self.proc = subprocess.Popen([python, START], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True,
                                     env=dict(os.environ, **(env or {})))
        threading.Thread(target=self._drain_log, daemon=True).start()
        start = {"port": self.listener.getsockname()[1], "key": self.key}
        self.proc.stdin.write(json.dumps(start).encode() + b"\n")
        self.proc.stdin.close()
        self.sock, _ = self.listener.accept()
        self.sock.settimeout(None)
        self.listener.close()
        self.inbox = queue.Queue()
        self.by_parent = {}
        self.replies = {}
        self.bad = 0
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.hello = self.next_unrouted()
        assert self.hello["header"]["msg_type"] == "worker_hello", self.hello

    def _drain_log(self):
        for line in self.proc.stdout:
            self.log.append(line.decode("utf-8", "replace"))

    def sign(self, body):
        mac = self.mac.copy()
        mac.update(body)
        return mac.hexdigest().encode()

    def _read(self):
        stream = self.sock.makefile("rb")
        for line in stream:
            signature, _, body = line.rstrip(b"\n").partition(b" ")
            if not hmac.compare_digest(self.sign(body), signature):
                self.bad += 1
                continue
            message = json.loads(body)
            parent = message["parent_header"].get("msg_id")
            with self.lock:
                if message["channel"] in ("shell", "control", "hb") and parent:
                    self.replies[parent] = message
                elif parent:
                    self.by_parent.setdefault(parent, []).append(message)
                else:
                    self.inbox.put(message)
                self.lock.notify_all()
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    closed = False

    def next_unrouted(self):
        return self.inbox.get(timeout=WAIT)

    def line(self, channel, msg_type, content, key=None):
        message = {"channel": channel, "parent_header": {}, "metadata": {}, "content": content,
                   "header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": "test",
                              "username": "test", "date": "", "version": "5.3"}}
        body = json.dumps(message).encode()
        signature = self.sign(body) if key is None else hmac.new(key, body, hashlib.sha256).hexdigest().encode()
        return message["header"]["msg_id"], signature + b" " + body + b"\n"

    def send(self, channel, msg_type, content):
        msg_id, line = self.line(channel, msg_type, content)
        self.sock.sendall(line)
        return msg_id

    def reply(self, msg_id, timeout=WAIT):
        with self.lock:
            if not self.lock.wait_for(lambda: msg_id in self.replies or self.closed, timeout):
                raise AssertionError("no reply to %s; worker log: %s" % (msg_id, "".join(self.log)))
            return self.replies.get(msg_id)

    def until_idle(self, msg_id, timeout=WAIT):
        def idle():
            return any(m["header"]["msg_type"] == "status" and m["content"]["execution_state"] == "idle"
                       for m in self.by_parent.get(msg_id, []))
        with self.lock:
            if not self.lock.wait_for(lambda: idle() or self.closed, timeout):
                raise AssertionError("no idle for %s; worker log: %s" % (msg_id, "".join(self.log)))
            return list(self.by_parent.get(msg_id, []))

    def execute(self, code, **options):
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                   "allow_stdin": False, "stop_on_error": False}
        content.update(options)
        msg_id = self.send("shell", "execute_request", content)
        reply = self.reply(msg_id)
        return Run(reply, self.until_idle(msg_id))

    def start_execute(self, code):
        return self.send("shell", "execute_request", {"code": code, "silent": False, "store_history": True,
                                                      "user_expressions": {}, "allow_stdin": False})

    def finish(self, msg_id):
        return Run(self.reply(msg_id), self.until_idle(msg_id))

    def stream_has(self, msg_id, text):
        with self.lock:
            return any(m["header"]["msg_type"] == "stream" and text in m["content"]["text"]
                       for m in self.by_parent.get(msg_id, []))

    def hang_up(self):
        # shutdown, not just close: the reader's makefile() keeps the descriptor open.
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def close(self):
        try:
            self.hang_up()
        except OSError:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait(WAIT)
        self.proc.stdout.close()


class Run:
    def __init__(self, reply, messages):
        self.reply = reply["content"]
        self.messages = [m for m in messages if m["header"]["msg_type"] != "status"]
        self.types = [m["header"]["msg_type"] for m in self.messages]
        # A stream may leave in several messages (the sender takes what has piled up), so
        # order checks compare kinds with consecutive stream messages counted once.
        self.kinds = [t for i, t in enumerate(self.types) if t != "stream" or i == 0 or self.types[i - 1] != "stream"]

    def text(self, name=None):
        return "".join(m["content"]["text"] for m in self.messages
                       if m["header"]["msg_type"] == "stream" and (name is None or m["content"]["name"] == name))

    def streams(self):
        """(name, text) runs, consecutive pieces of one stream joined."""
        runs, joinable = [], False
        for m in self.messages:
            if m["header"]["msg_type"] != "stream":
                joinable = False
                continue
            name, text = m["content"]["name"], m["content"]["text"]
            if joinable and runs[-1][0] == name:
                runs[-1] = (name, runs[-1][1] + text)
            else:
                runs.append((name, text))
            joinable = True
        return runs

    def of(self, msg_type):
        return [m["content"] for m in self.messages if m["header"]["msg_type"] == msg_type]

    def result(self):
        results = self.of("execute_result")
        return results[0]["data"] if results else None


class WorkerTestCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.close()

    def run_ok(self, code, **options):
        run = self.daemon.execute(code, **options)
        self.assertEqual(run.reply["status"], "ok", run.of("error"))
        return run


class Handshake(WorkerTestCase):
    def test_hello_and_kernel_info(self):
        self.assertEqual(self.daemon.hello["content"]["pid"], self.daemon.proc.pid)
        msg_id = self.daemon.send("shell", "kernel_info_request", {})
        info = self.daemon.reply(msg_id)["content"]
        self.assertEqual(info["status"], "ok")
        self.assertEqual(info["language_info"]["name"], "python")
        self.assertEqual(info["language_info"]["version"], "%d.%d.%d" % sys.version_info[:3])
        self.assertEqual(info["python_session"]["engine"], "worker")
        states = [m["content"]["execution_state"] for m in self.daemon.until_idle(msg_id)]
        self.assertEqual(states, ["busy", "idle"])

    def test_the_key_is_not_on_the_command_line_or_in_the_environment(self):
        pid = self.daemon.proc.pid
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmdline = f.read()
            with open("/proc/%d/environ" % pid, "rb") as f:
                environ = f.read()
        except OSError:
            self.skipTest("no /proc here")
        self.assertNotIn(self.daemon.key.encode(), cmdline)
        self.assertNotIn(self.daemon.key.encode(), environ)


class Namespace(WorkerTestCase):
    def test_state_persists_and_the_last_expression_is_shown(self):
        self.run_ok("x = 40")
        run = self.run_ok("x + 2")
        self.assertEqual(run.result()["text/plain"], "42")
        self.assertEqual(run.of("execute_result")[0]["execution_count"], run.reply["execution_count"])
        self.assertEqual(self.run_ok("_").result()["text/plain"], "42", "_ is the last value shown")

    def test_the_namespace_is_main(self):
        run = self.run_ok("import __main__\n__main__.__dict__ is globals(), __name__")
        self.assertEqual(run.result()["text/plain"], "(True, '__main__')")

    def test_the_namespace_starts_empty(self):
        daemon = Daemon()
        try:
            run = daemon.execute("sorted(n for n in globals() if not n.startswith('__'))")
            self.assertEqual(run.result()["text/plain"], "[]")
        finally:
            daemon.close()

    def test_a_trailing_semicolon_or_none_or_a_statement_shows_nothing(self):
        for code in ("1 + 1;", "None", "y = 3", "1 + 1;  # quiet"):
            self.assertIsNone(self.run_ok(code).result(), code)

    def test_rich_forms_come_from_the_value_itself(self):
        run = self.run_ok(
            "class Rich:\n"
            "    def _repr_html_(self): return '<b>rich</b>'\n"
            "    def _repr_png_(self): return b'\\x89PNG'\n"
            "    def _repr_markdown_(self): return None\n"
            "    def __repr__(self): return 'Rich()'\n"
            "Rich()")
        data = run.result()
        self.assertEqual(data["text/html"], "<b>rich</b>")
        self.assertEqual(data["image/png"], "iVBORw==")
        self.assertEqual(data["text/plain"], "Rich()")
        self.assertNotIn("text/markdown", data)

    def test_display_is_a_builtin_and_keeps_print_order(self):
        run = self.run_ok("print('a')\ndisplay({'text/plain': 'b', 'text/html': '<i>b</i>'}, raw=True)\nprint('c')\n'd'")
        self.assertEqual(run.streams(), [("stdout", "a\n"), ("stdout", "c\n")])
        self.assertEqual(run.kinds, ["execute_input", "stream", "display_data", "stream", "execute_result"])
        self.assertEqual(run.of("display_data")[0]["data"]["text/html"], "<i>b</i>")

    def test_the_helpers_find_user_variables_and_publish_through_the_worker(self):
        code = ("import sys\nsys.path.insert(0, %r)\nimport python_session\nsys.path.pop(0)\n"
                "python_session.call('list_names', '{}')" % RESOURCES)
        self.run_ok("helper_visible = [1, 2, 3]")
        run = self.run_ok(code, store_history=False)
        bundles = [d["data"] for d in run.of("display_data") if MIME in d["data"]]
        self.assertEqual(len(bundles), 1, run.messages)
        payload = bundles[0][MIME]
        self.assertTrue(payload["ok"], payload)
        self.assertIn("helper_visible", payload["text"])

    def test_user_expressions_and_the_names_entry(self):
        self.run_ok("visible_name = 1\n_hidden_name = 2")
        run = self.run_ok("pass", user_expressions={"__python_session_names__": "ignored", "double": "visible_name * 2",
                                                   "broken": "no_such_name"})
        answers = run.reply["user_expressions"]
        names = answers["__python_session_names__"]
        self.assertEqual(names["status"], "ok")
        listed = [item.split(":")[0] for item in eval(names["data"]["text/plain"]).split(" ")]
        self.assertIn("visible_name", listed)
        self.assertNotIn("_hidden_name", listed)
        self.assertEqual(answers["double"], {"status": "ok", "data": {"text/plain": "2"}, "metadata": {}})
        self.assertEqual(answers["broken"]["status"], "error")
        self.assertEqual(answers["broken"]["ename"], "NameError")

    def test_store_history_false_neither_counts_nor_sets_underscore(self):
        before = self.run_ok("'kept'").reply["execution_count"]
        run = self.run_ok("'not kept'", store_history=False)
        self.assertEqual(run.reply["execution_count"], before)
        self.assertEqual(self.run_ok("_").result()["text/plain"], "'kept'")

    def test_top_level_await(self):
        run = self.run_ok("import asyncio\nasync def f():\n    await asyncio.sleep(0)\n    return 7\nawait f()")
        self.assertEqual(run.result()["text/plain"], "7")

    def test_future_imports_hold_for_later_cells(self):
        self.run_ok("from __future__ import annotations")
        run = self.run_ok("def f(x: undefined_type) -> None: pass\nf.__annotations__['x']")
        self.assertEqual(run.result()["text/plain"], "'undefined_type'")

    def test_system_exit_ends_the_cell_not_the_worker(self):
        run = self.daemon.execute("import sys; sys.exit(3)")
        self.assertEqual(run.reply["status"], "error")
        self.assertEqual(run.reply["ename"], "SystemExit")
        self.assertEqual(self.run_ok("'alive'").result()["text/plain"], "'alive'")


class Errors(WorkerTestCase):
    def test_the_error_names_the_cell_line_after_what_was_printed(self):
        run = self.daemon.execute("print('before')\nundefined_name")
        self.assertEqual(run.reply["status"], "error")
        self.assertEqual(run.kinds, ["execute_input", "stream", "error"])
        self.assertEqual(run.text("stdout"), "before\n")
        error = run.of("error")[0]
        self.assertEqual((error["ename"], error["evalue"]), ("NameError", "name 'undefined_name' is not defined"))
        count = run.reply["execution_count"]
        joined = "".join(error["traceback"])
        self.assertIn("Cell In[%d], line 2\n" % count, joined)
        self.assertIn("----> 2 undefined_name", joined)
        self.assertNotIn("python_session_worker", joined, "the worker's own frames are left out")
        self.assertEqual(run.reply["ename"], "NameError")

    def test_a_function_from_an_earlier_cell_is_named_by_its_cell(self):
        define = self.run_ok("def reciprocal(v):\n    return 1 / v\n")
        run = self.daemon.execute("y = 1\nreciprocal(0)")
        joined = "".join(run.of("error")[0]["traceback"])
        self.assertIn("Cell In[%d], line 2\n" % run.reply["execution_count"], joined)
        self.assertIn("Cell In[%d], line 2, in reciprocal" % define.reply["execution_count"], joined)

    def test_syntax_errors_name_the_line_and_keep_the_message_short(self):
        run = self.daemon.execute("x = 1\nx = = 2")
        error = run.of("error")[0]
        self.assertEqual(error["ename"], "SyntaxError")
        self.assertEqual(error["evalue"], "invalid syntax")
        self.assertIn("Cell In[%d], line 2\n" % run.reply["execution_count"], "".join(error["traceback"]))

    def test_ipython_syntax_is_explained(self):
        for code in ("%timeit 1 + 1", "!ls", "len?"):
            error = self.daemon.execute(code).of("error")[0]
            self.assertEqual(error["ename"], "SyntaxError", code)
            self.assertIn("need ipykernel", error["evalue"], code)

    def test_python_s_own_sigint_handler_is_replaced_by_the_worker_s_after_the_cell(self):
        # Python's handler raises anywhere, so a SIGINT as the worker sends a reply would cut it short.
        self.run_ok("import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)")
        run = self.run_ok("signal.getsignal(signal.SIGINT) is signal.default_int_handler")
        self.assertEqual(run.result()["text/plain"], "False")
        os.killpg(self.daemon.proc.pid, signal.SIGINT)
        self.assertEqual(self.run_ok("'answered'").result()["text/plain"], "'answered'")

    def test_chained_exceptions_show_both(self):
        run = self.daemon.execute("try:\n    1/0\nexcept Exception as e:\n    raise ValueError('outer') from e")
        joined = "".join(run.of("error")[0]["traceback"])
        self.assertLess(joined.index("ZeroDivisionError"), joined.index("direct cause"))
        self.assertLess(joined.index("direct cause"), joined.index("ValueError: outer"))

    def test_deep_recursion_is_folded(self):
        run = self.daemon.execute("def down(n): return down(n + 1)\ndown(0)")
        error = run.of("error")[0]
        self.assertEqual(error["ename"], "RecursionError")
        self.assertLess(len(error["traceback"]), 20)
        self.assertIn("more times", "".join(error["traceback"]))


class Output(WorkerTestCase):
    def test_print_order_across_streams_threads_children_and_fd_writes(self):
        run = self.run_ok(
            "import os, subprocess, sys, threading\n"
            "print('one')\n"
            "sys.stderr.write('two\\n')\n"
            "os.write(1, b'three\\n')\n"
            "print('four')\n"
            "t = threading.Thread(target=lambda: print('five')); t.start(); t.join()\n"
            "subprocess.run([sys.executable, '-c', 'print(\"six\")'])\n"
            "os.write(2, b'seven\\n')\n"
            "print('eight')")
        self.assertEqual(run.streams(), [("stdout", "one\n"), ("stderr", "two\n"), ("stdout", "three\nfour\nfive\nsix\n"),
                                         ("stderr", "seven\n"), ("stdout", "eight\n")])

    def test_a_forked_child_prints_in_its_place_once(self):
        if not hasattr(os, "fork"):
            self.skipTest("no fork here")
        run = self.run_ok(
            "import os, sys, warnings\nwarnings.simplefilter('ignore', DeprecationWarning)\nprint('before')\npid = os.fork()\n"
            "if pid == 0:\n    print('child'); sys.stdout.flush(); os._exit(0)\nos.waitpid(pid, 0)\nprint('after')")
        self.assertEqual(run.text(), "before\nchild\nafter\n")

    def test_late_thread_output_goes_to_its_own_cell(self):
        first = self.daemon.start_execute(
            "import threading\ngo = threading.Event()\n"
            "t = threading.Thread(target=lambda: (go.wait(), print('late from the first cell')))\nt.start()")
        self.daemon.finish(first)
        second = self.daemon.start_execute("go.set(); t.join()\nprint('second')")
        run = self.daemon.finish(second)
        self.assertEqual(run.text(), "second\n")
        wait_until("the late text under the first cell", lambda: self.daemon.stream_has(first, "late from the first cell"))

    def test_a_child_process_that_outlives_its_cell_stays_with_it(self):
        first = self.daemon.start_execute(
            "import subprocess, sys\nchild = subprocess.Popen([sys.executable, '-c', "
            "'import sys; sys.stdin.read(); print(\"late child\")'], stdin=subprocess.PIPE)")
        self.daemon.finish(first)
        second = self.daemon.execute("child.stdin.close(); child.wait()\nprint('second')")
        self.assertEqual(second.text(), "second\n")
        wait_until("the child's text under the first cell", lambda: self.daemon.stream_has(first, "late child"))

    def test_a_loop_of_prints_arrives_whole_and_in_order(self):
        run = self.run_ok("for i in range(20000): print(i)")
        self.assertEqual(run.text(), "".join("%d\n" % i for i in range(20000)))
        self.assertLess(len(run.of("stream")), 2000, "short prints travel together")

    def test_one_huge_print_is_cut_into_bounded_messages(self):
        run = self.run_ok("print('x' * 3_000_000)")
        pieces = [len(s["text"]) for s in run.of("stream")]
        self.assertEqual(sum(pieces), 3_000_001)
        self.assertLessEqual(max(pieces), 1 << 20)

    def test_lone_surrogates_and_invalid_bytes_are_made_safe(self):
        run = self.run_ok("import os\nprint('a\\ud800b')\nos.write(1, b'c\\xffd\\n')")
        self.assertEqual(run.text(), "a\\ud800b\nc\ufffdd\n")
        error = self.daemon.execute("raise ValueError('\\udcff')").of("error")[0]
        self.assertEqual(error["evalue"], "\\udcff")

    def test_stdin_is_closed(self):
        run = self.daemon.execute("import os, sys\nprint(repr(os.read(0, 10)), repr(sys.stdin.read()))\ninput('name? ')")
        self.assertEqual(run.text(), "b'' ''\n")
        self.assertEqual(run.reply["ename"], "EOFError")


class Interrupts(WorkerTestCase):
    def interrupt_during(self, code, how):
        msg_id = self.daemon.start_execute("print('entered', flush=True)\n" + code)
        wait_until("the cell to be in user code", lambda: self.daemon.stream_has(msg_id, "entered"))
        how()
        return self.daemon.finish(msg_id)

    def test_sigint_to_the_group_interrupts_a_busy_loop_and_a_sleep(self):
        self.run_ok("survives = 40")
        for code in ("while True: pass", "import time; time.sleep(60)"):
            run = self.interrupt_during(code, lambda: os.killpg(self.daemon.proc.pid, signal.SIGINT))
            self.assertEqual(run.reply["ename"], "KeyboardInterrupt", code)
        self.assertEqual(self.run_ok("survives").result()["text/plain"], "40")

    def test_interrupt_request_interrupts_a_sleep(self):
        def request():
            reply = self.daemon.reply(self.daemon.send("control", "interrupt_request", {}))
            self.assertEqual(reply["content"]["status"], "ok")
        run = self.interrupt_during("import time; time.sleep(60)", request)
        self.assertEqual(run.reply["ename"], "KeyboardInterrupt")

    def test_sigint_between_cells_is_ignored(self):
        os.killpg(self.daemon.proc.pid, signal.SIGINT)
        self.assertEqual(self.run_ok("'still here'").result()["text/plain"], "'still here'")


class Security(unittest.TestCase):
    def test_a_forged_message_is_dropped_and_counted(self):
        daemon = Daemon()
        try:
            marker = os.path.join(tempfile.mkdtemp(), "forged")
            code = "open(%r, 'w').close()" % marker
            for key in (b"wrong key", b""):
                _, line = daemon.line("shell", "execute_request", {"code": code}, key=key)
                daemon.sock.sendall(line)
            daemon.sock.sendall(b"not a signed line at all\n")
            info = daemon.reply(daemon.send("shell", "kernel_info_request", {}))["content"]["python_session"]
            self.assertEqual(info["bad_signatures"], 3)
            self.assertFalse(os.path.exists(marker), "a forged request must never run")
            self.assertEqual(daemon.bad, 0)
        finally:
            daemon.close()


class Lifetime(unittest.TestCase):
    def test_when_the_daemon_goes_the_worker_ends_its_group(self):
        daemon = Daemon()
        run = daemon.execute("import subprocess\nchild = subprocess.Popen(['sleep', '300'])\nchild.pid")
        child = int(run.result()["text/plain"])
        daemon.hang_up()
        wait_until("the worker to exit", lambda: daemon.proc.poll() is not None)
        wait_until("its child to go with it", lambda: not alive(child))
        daemon.close()

    def test_shutdown_request_is_answered_and_the_worker_exits(self):
        daemon = Daemon()
        daemon.execute("import atexit\natexit.register(lambda: print('atexit ran'))")
        reply = daemon.reply(daemon.send("control", "shutdown_request", {"restart": False}))
        self.assertEqual(reply["content"], {"status": "ok", "restart": False})
        self.assertEqual(daemon.proc.wait(WAIT), 0)
        daemon.close()

    def test_os_exit_ends_the_process_and_the_connection(self):
        daemon = Daemon()
        daemon.start_execute("import os; os._exit(7)")
        self.assertEqual(daemon.proc.wait(WAIT), 7)
        with daemon.lock:
            self.assertTrue(daemon.lock.wait_for(lambda: daemon.closed, WAIT))
        daemon.close()

    def test_a_segfault_leaves_its_stack_in_the_log(self):
        daemon = Daemon()
        daemon.start_execute("import ctypes\nctypes.string_at(0)")
        self.assertEqual(daemon.proc.wait(WAIT), -signal.SIGSEGV)
        daemon.close()
        self.assertIn("Segmentation fault", "".join(daemon.log))


def _has_matplotlib():
    return subprocess.run([PYTHON, "-c", "import matplotlib"], stderr=subprocess.DEVNULL).returncode == 0


@unittest.skipUnless(_has_matplotlib(), "matplotlib is not installed in %s" % PYTHON)
class Figures(WorkerTestCase):
    def test_show_and_the_end_of_a_cell_display_figures_and_keep_the_last(self):
        run = self.run_ok("import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\nprint('between')\nplt.figure(); plt.plot([3])")
        self.assertEqual([t for t in run.kinds if t != "execute_result"], ["execute_input", "display_data", "stream", "display_data"])
        for shown in run.of("display_data"):
            self.assertTrue(shown["data"]["image/png"].startswith("iVBOR"))
        self.assertEqual(self.run_ok("plt.get_fignums()").result()["text/plain"], "[]")
        kept = self.run_ok("import sys\nsys.modules['_python_session_figures'].last is not None")
        self.assertEqual(kept.result()["text/plain"], "True")
        self.assertEqual(self.run_ok("import matplotlib\nmatplotlib.get_backend()").result()["text/plain"].lower(), "'agg'")


class OldPythons(unittest.TestCase):
    def test_pythons_older_than_3_8_are_told_which_versions_work(self):
        found = pyenv_pythons(("2.", "3.6", "3.7"))
        if not found:
            self.skipTest("no Python 2.x, 3.6 or 3.7 under pyenv here")
        for version, python in found:
            run = subprocess.run([python, START], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, timeout=WAIT)
            self.assertEqual(run.returncode, 3, version)
            message = run.stderr.decode()
            self.assertIn("3.8 to 3.13", message, version)
            self.assertIn(version.split("-")[0][:3], message)


if __name__ == "__main__":
    unittest.main()
