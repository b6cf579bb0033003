"""Runs once at the start of every kernel Python Session launches.

It is executed in a private namespace (see app/core/kernel/kernel-process.ts),
so nothing here appears among the user's variables.

1. Lifeline. The daemon gives the kernel one end of a socket pair as file
   descriptor PYTHON_SESSION_LIFELINE_FD. A thread blocks reading it; end of
   file means the daemon is gone (even killed with SIGKILL), and the kernel
   ends its whole process group so no orphan keeps running. ipykernel's own
   parent poller only notices re-parenting to PID 1, which a container's
   subreaper or a desktop session manager defeats.

2. Memory cap. With PYTHON_SESSION_MEMORY_LIMIT (bytes) set, the kernel's
   data segment (which on Linux counts malloc'd and anonymous mmap'd memory)
   is capped, so a runaway allocation raises MemoryError in the user's cell
   instead of waking the out-of-memory killer for the whole machine.

3. The last figure. Jupyter's inline backend closes a cell's figures once it
   has shown them, so `save_figure` after a plotting call would find none.
   When matplotlib's figure registry is first imported we wrap its close
   functions to keep a reference to the figure being closed (only the last).

4. Print order. ipykernel buffers stdout and stderr separately and flushes
   them on a timer, so a warning written after a print can arrive first.
   Before writing to one stream we flush the other if it holds text.

5. Output belongs to the cell that made it. ipykernel 6 sends all stream text
   under the parent of the latest request (ipykernel 7 keeps a parent per
   thread, but a thread user code starts has none), so a thread, or a child
   process, that prints after its cell ended would have its text shown as the
   next cell's. Threads remember the cell that started them, and each cell's
   child processes write into a pipe of that cell's own (fd 1 and 2 get a fresh
   pipe at every execute_request); text whose cell is over is sent under that
   cell, which the daemon, routing by parent, drops. The pipes are read with an
   incremental, replacing UTF-8 decoder: ipykernel's own reader decodes every
   1000 bytes strictly, and one invalid or split character ends it for good,
   after which a child that fills the pipe blocks forever.

6. Bounded messages. ipykernel sends whatever accumulated in 0.2 s as one
   message, so one print of 50 MB, or a fast loop, makes a message of that
   size. Text is passed on in pieces of at most a megabyte, flushing between
   them, which also makes a runaway printer wait for the I/O thread.

7. Text that cannot be encoded. A lone surrogate ('\\ud800') in printed
   text or in an error message makes ipykernel fail to pack the message: the
   output, or the whole execute_reply, is lost and the caller waits until its
   timeout. Such characters are sent as backslash escapes instead.
"""
import codecs
import importlib.abc
import importlib.util
import os
import stat
import sys
import threading
import types


def _start_lifeline():
    fd = os.environ.pop("PYTHON_SESSION_LIFELINE_FD", None)
    if os.name != "posix" or not fd:
        return
    fd = int(fd)
    try:
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return
    except OSError:
        return

    def wait_for_owner():
        try:
            while os.read(fd, 4096):
                pass
        except OSError:
            return  # user code closed the descriptor; the parent poller still stands
        os.killpg(os.getpgrp(), 9)

    threading.Thread(target=wait_for_owner, name="python-session-lifeline", daemon=True).start()


def _cap_memory():
    limit = os.environ.pop("PYTHON_SESSION_MEMORY_LIMIT", None)
    if not limit or not sys.platform.startswith("linux"):
        return
    try:
        import resource

        limit = int(limit)
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ValueError, OSError, ImportError):
        pass


def _remember_closed_figures():
    memory = types.ModuleType("_python_session_figures")
    memory.last = None
    sys.modules.setdefault("_python_session_figures", memory)
    memory = sys.modules["_python_session_figures"]

    def wrap(helpers):
        gcf = helpers.Gcf
        if getattr(gcf, "_python_session_wrapped", False):
            return
        destroy, destroy_all = gcf.destroy.__func__, gcf.destroy_all.__func__

        def keep(manager):
            figure = getattr(getattr(manager, "canvas", None), "figure", None)
            if figure is not None:
                memory.last = figure

        def destroy_and_keep(cls, num):
            manager = num if hasattr(num, "canvas") else cls.figs.get(num)
            keep(manager)
            return destroy(cls, num)

        def destroy_all_and_keep(cls):
            keep(cls.get_active())
            return destroy_all(cls)

        gcf.destroy = classmethod(destroy_and_keep)
        gcf.destroy_all = classmethod(destroy_all_and_keep)
        gcf._python_session_wrapped = True

    name = "matplotlib._pylab_helpers"
    if name in sys.modules:
        wrap(sys.modules[name])
        return

    class WatchFigureRegistry(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            if spec is None or spec.loader is None:
                return spec
            execute = spec.loader.exec_module

            def exec_and_wrap(module):
                execute(module)
                try:
                    wrap(module)
                except Exception:
                    pass  # an unexpected matplotlib: saving earlier figures just won't work

            spec.loader.exec_module = exec_and_wrap
            return spec

    sys.meta_path.insert(0, WatchFigureRegistry())


def _pending_chars(stream):
    """Characters an OutStream holds unsent (0 when it is not one we can see into)."""
    try:
        buffers = getattr(stream, "_buffers", None)  # ipykernel 7: one buffer per parent
        if buffers is not None:
            return sum(buffer.tell() for buffer in list(buffers.values()))
        return stream._buffer.tell()  # ipykernel 6: one buffer
    except Exception:
        return 0


_PIECE = 1 << 20  # characters per stream message, at most (plus one write's worth)
_ORIGIN = "_python_session_parent"  # on a Thread: the header of the request (cell) that started it
_FDS = {"stdout": 1, "stderr": 2}


def _kernel():
    try:
        from IPython import get_ipython

        return getattr(get_ipython(), "kernel", None)
    except Exception:
        return None


def _scrub(value):
    """Replaces characters UTF-8 cannot encode (lone surrogates) by backslash escapes."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(v) for v in value]
    return value


def _tolerate_unencodable_text(kernel):
    session = getattr(kernel, "session", None)
    pack = getattr(session, "pack", None)
    if pack is None or getattr(pack, "_python_session", False):
        return

    def safe_pack(obj, _pack=pack):
        try:
            return _pack(obj)
        except ValueError:  # UnicodeEncodeError, and the packer's own retry of it
            return _pack(_scrub(obj))

    safe_pack._python_session = True
    session.pack = safe_pack


def _routing_mode(kernel, streams):
    """How stream text can be tied to the cell it belongs to, in this ipykernel."""
    if kernel is None:
        return None
    values = list(streams.values())
    # ipykernel 7: a parent per thread (a context variable) and a buffer per parent.
    if all(hasattr(s, "set_thread_parent") and hasattr(s, "_buffers") for s in values):
        return "per-thread"
    # ipykernel 6: one parent for everyone, one buffer under a lock.
    if all("parent_header" in vars(s) and hasattr(s, "_buffer_lock") and hasattr(s, "_flush_buffer") for s in values):
        return "single"
    return None


def _route_output():
    streams = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if type(stream).__name__ == "OutStream" and not getattr(stream, "_python_session_routed", False):
            streams[name] = stream
    if not streams:
        return
    kernel = _kernel()
    if kernel is not None:
        _tolerate_unencodable_text(kernel)
    mode = _routing_mode(kernel, streams)
    single = mode == "single"
    start_thread = threading.Thread.start

    def current_id(stream):
        return (stream.parent_header or {}).get("msg_id")

    def send_under(stream, text, header):
        # Straight to the I/O thread (thread-safe), under the given cell's header.
        stream.session.send(stream.pub_thread, "stream", content={"name": stream.name, "text": text}, parent=header, ident=stream.topic)

    def adopt(header):
        # ipykernel 7: this thread's text is buffered and sent under its own cell.
        if mode == "per-thread":
            for stream in streams.values():
                try:
                    stream.set_thread_parent(header)
                except Exception:
                    pass

    def pump(fd, stream, header):
        adopt(header)
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        try:
            while True:
                data = os.read(fd, 65536)
                text = decoder.decode(data, final=not data)
                if text:
                    stream.write(text)
                if not data:
                    break
        except Exception:
            pass
        finally:
            try:
                os.close(fd)
            except OSError:
                pass

    def new_pipe(stream, header):
        # fd 1/2 now lead to a pipe of this cell's: children started from now on write there.
        read_end, write_end = os.pipe()
        try:
            os.dup2(write_end, _FDS[stream.name])
        finally:
            os.close(write_end)
        reader = threading.Thread(target=pump, args=(read_end, stream, header), name="python-session-" + stream.name, daemon=True)
        setattr(reader, _ORIGIN, header)
        start_thread(reader)

    for name, stream in streams.items():
        other = streams.get("stderr" if name == "stdout" else "stdout")
        write = stream.write
        captures_fds = mode is not None and getattr(stream, "_fid", None) is not None

        def flush_other(_other=other):
            # Print order: what the other stream holds goes first (never while holding a lock).
            if _other is not None and _pending_chars(_other):
                _other.flush()

        def routed_write(text, _write=write, _self=stream, _flush_other=flush_other):
            if not isinstance(text, str) or len(text) <= _PIECE:
                pieces = (text,)
            else:
                pieces = [text[i : i + _PIECE] for i in range(0, len(text), _PIECE)]
            origin = getattr(threading.current_thread(), _ORIGIN, None) if single else None
            for piece in pieces:
                _flush_other()
                if origin is None:
                    _write(piece)
                else:
                    with _self._buffer_lock:  # no set_parent between the check and the append
                        mine = origin.get("msg_id") == current_id(_self)
                        if mine:
                            _write(piece)
                    if not mine:
                        send_under(_self, piece, origin)
                        continue
                if _pending_chars(_self) >= _PIECE:
                    _self.flush()
            return len(text) if isinstance(text, str) else None

        stream.write = routed_write

        if mode is not None:
            set_parent = stream.set_parent

            def routed_set_parent(parent, _set=set_parent, _self=stream, _captures=captures_fds):
                if single:
                    with _self._buffer_lock:
                        previous = _self.parent_header
                        pending = _self._flush_buffer()  # written under the request before: send it under that one
                        _set(parent)
                    if pending:
                        send_under(_self, pending, previous)
                else:
                    _set(parent)
                header = _self.parent_header
                if _captures and header.get("msg_type") == "execute_request":
                    try:
                        new_pipe(_self, header)
                    except Exception:
                        pass

            stream.set_parent = routed_set_parent
        stream._python_session_routed = True

    if mode is not None:

        def start(self, *args, **kwargs):
            if getattr(self, _ORIGIN, None) is None:
                here = getattr(threading.current_thread(), _ORIGIN, None)
                if here is None:
                    header = streams.get("stdout", next(iter(streams.values()))).parent_header
                    here = dict(header) if header and header.get("msg_id") else None
                if here is not None:
                    setattr(self, _ORIGIN, here)
                    if mode == "per-thread":
                        run = self.run

                        def run_in_its_cell(_run=run, _here=here):
                            adopt(_here)
                            return _run()

                        self.run = run_in_its_cell
            return start_thread(self, *args, **kwargs)

        threading.Thread.start = start


def _quiet_interrupt_artifact():
    # An interrupt that lands in ipykernel 6's own code around a cell abandons the cell's
    # coroutine, and Python then warns about it on the cell's stderr. The warning is about
    # ipykernel's internals, not the user's code; only this one message is silenced.
    import warnings

    warnings.filterwarnings(
        "ignore",
        message=r"coroutine 'InteractiveShell\.run_cell_async' was never awaited",
        category=RuntimeWarning,
    )


_start_lifeline()
_cap_memory()
_remember_closed_figures()
_quiet_interrupt_artifact()
_route_output()
