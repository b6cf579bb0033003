"""Runs once at the start of every kernel Python Session launches.

It is executed in a private namespace (see app/core/kernel/kernel-process.ts),
so nothing here appears among the user's variables. What the built-in worker
does the same way (items 2, 3, 7's escaping and 11) is in python_session_common,
loaded from the file beside this one, or, on a server, from the source sent with
this file (app/core/remote/remote-kernel.ts).

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
   pipe at every execute_request, all read by one thread per stream); text
   whose cell is over is sent under that cell, which the daemon, routing by
   parent, drops. The pipes are read with an incremental, replacing UTF-8
   decoder: ipykernel's own reader decodes every 1000 bytes strictly, and one
   invalid or split character ends it for good, after which a child that
   fills the pipe blocks forever.

6. Bounded messages. ipykernel sends whatever accumulated in 0.2 s as one
   message, so one print of 50 MB, or a fast loop, makes a message of that
   size. Text is passed on in messages of about a megabyte (a long string is
   cut into pieces, many short writes are sent once they add up), and a
   runaway printer waits for the I/O thread to keep up.

7. Text that cannot be encoded. A lone surrogate ('\\ud800') in printed
   text or in an error message makes ipykernel fail to pack the message: the
   output, or the whole execute_reply, is lost and the caller waits until its
   timeout. Such characters are sent as backslash escapes instead.

8. Variable names, cheaply. Every run asks for the user's variable names,
   each with the ids of its value and its type (a user_expressions entry; see
   app/core/kernel/user-names.ts), so that a crash can say what it lost and a
   cell another client ran can be told by the names it made or rebound. IPython passes each such value through every display
   formatter, about half a millisecond per run; this one entry is answered
   directly, in the same form. Other kernels evaluate the same expression.

9. Short writes, held. ipykernel's write takes a lock, a getpid and a timer
   check, about a microsecond, so a loop of short prints ran slower than the
   I/O could carry it. The main thread's short writes are collected and handed
   to ipykernel 64 KB at a time; whatever sends the buffer (the 0.2 s timer,
   flush(), a display, the end of the cell, another thread's write, the other
   stream, a fork) hands them on first, so timing and order are as before.

10. No second copy of the output. IPython 9 keeps every character a cell
   prints in memory (its output history, for %notebook), which a long loop
   turns into gigabytes. That capture is turned off; the session log keeps
   the output, capped, with the rest in a file. exit() and quit() end the cell and keep
   the kernel (ipykernel would stop it 0.1 s later, and every variable with it).

11. Figures under any backend. Only Jupyter's inline backend displays the
   figures a cell drew; after `matplotlib.use('Agg')` (which many scripts and
   guides start with) no figure would ever come back, and `plt.show()` only
   warns. Under a non-interactive backend, `plt.show()` displays the open
   figures where it is called and the end of each cell displays the rest,
   then closes them, as the inline backend does.

12. Questions the code asks. input(), getpass.getpass() and the debugger's
   prompt go to the daemon as input requests, and the person answers them (the
   client's form, or the panel). Two replies are not answers: the person
   declined (KeyboardInterrupt, as Ctrl-C at a terminal prompt) and nobody
   could answer (EOFError, as input() with no stdin), each with the daemon's
   words. An answer is echoed after its prompt, as a terminal shows it, so the
   output reads in order; a password is echoed as dots, never as itself.

13. History that does not grow without bound. IPython binds `_i<N>` in the
   user's namespace for every cell and never lets one go (it keeps the last
   1000 outputs, `_<N>`, but every input), so a session of many thousand
   cells held them all, and every run's names scan (item 8) walked them:
   18 ms a run at 70 000 cells. The `_i<N>` of cells more than 1000 back are
   let go; `In`, `_i`, `_ii`, `_iii` and `%history` are as before. With the
   history database off (the daemon starts kernels so), IPython still queues
   every cell's source for a database write that never comes: that queue is
   emptied after each cell.
"""
import codecs
import collections
import linecache
import os
import select
import selectors
import stat
import sys
import threading
import time
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


def _load_common():
    """python_session_common, which the built-in worker uses too (memory cap, figures, scrubbing).

    A kernel on a server gets its source along with this file's (COMMON_SOURCE, and nothing is
    written there); a local kernel reads the file beside this one (__file__).
    """
    name = "python_session_common"
    module = sys.modules.get(name)
    if module is not None:
        return module
    source = globals().get("COMMON_SOURCE")
    if source is None:
        filename = os.path.join(os.path.dirname(__file__), name + ".py")
        with open(filename, encoding="utf-8") as file:
            source = file.read()
    else:
        filename = "<python-session>/" + name + ".py"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    sys.modules[name] = module
    return module


_common = _load_common()


def _display_with_ipython(bundle, raw=True):
    from IPython.display import display

    display(bundle, raw=raw)


def _show_figures_under_any_backend():
    at_cell_end = _common.show_figures_under_file_backends(_display_with_ipython)
    shell = _shell()
    if shell is not None:
        shell.events.register("post_execute", at_cell_end)


def _pending_chars(stream):
    """Characters an OutStream holds unsent (0 when it is not one we can see into)."""
    try:
        buffers = getattr(stream, "_buffers", None)  # ipykernel 7: one buffer per parent
        if buffers is not None:
            return sum(buffer.tell() for buffer in list(buffers.values()))
        return stream._buffer.tell()  # ipykernel 6: one buffer
    except Exception:
        return 0


_PIECE = 1 << 20  # characters per stream message, about
_HOLD = 1 << 16  # characters of short writes held back before ipykernel's write is called
_ORIGIN = "_python_session_parent"  # on a Thread: the header of the request (cell) that started it
_FDS = {"stdout": 1, "stderr": 2}


def _shell():
    """The IPython shell this kernel runs, or None."""
    try:
        from IPython import get_ipython

        return get_ipython()
    except Exception:
        return None


def _kernel():
    return getattr(_shell(), "kernel", None)


def _tolerate_unencodable_text(kernel):
    session = getattr(kernel, "session", None)
    pack = getattr(session, "pack", None)
    if pack is None or getattr(pack, "_python_session", False):
        return

    def safe_pack(obj, _pack=pack):
        try:
            return _pack(obj)
        except ValueError:  # UnicodeEncodeError, and the packer's own retry of it
            return _pack(_common.scrub(obj))

    safe_pack._python_session = True
    session.pack = safe_pack


def _flusher(stream):
    """A flush that hands the buffer to the I/O thread without waiting for it to be sent.

    OutStream.flush waits until the I/O thread has packed and sent the message, so a
    writer flushing every megabyte would stop for each one. Here only one flush is in
    flight at a time: the writer goes on while the last piece is sent, and waits for it
    only at the next piece, which keeps messages near a piece and still makes a runaway
    printer keep pace with the I/O thread.
    """
    in_flight = [None]  # set once the flush last handed over is done
    pub = getattr(stream, "pub_thread", None)
    send = getattr(stream, "_flush", None)
    if pub is None or send is None or not hasattr(pub, "schedule"):
        return stream.flush
    timeout = getattr(stream, "flush_timeout", 10)

    def flush_soon():
        io_thread = getattr(pub, "thread", None)
        if io_thread is None or not io_thread.is_alive() or io_thread.ident == threading.get_ident():
            stream.flush()
            return
        previous = in_flight[0]
        if previous is not None:
            previous.wait(timeout)
        done = threading.Event()
        in_flight[0] = done
        pub.schedule(send)
        pub.schedule(done.set)

    return flush_soon


class _CellPipeReader:
    """One thread that reads every cell's pipe for one stream (fd 1 or fd 2).

    A pipe per cell keeps what a cell's child processes print with that cell, however
    late they print it; one reader for all of them, woken through a pipe of its own,
    keeps a new cell from paying for a thread start (most of a millisecond).
    """

    def __init__(self, stream, adopt, start_thread):
        self.stream = stream
        self.adopt = adopt
        self.selector = selectors.DefaultSelector()
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_write, False)
        self.selector.register(self.wake_read, selectors.EVENT_READ, None)
        self.arrivals = collections.deque()
        self.progress = threading.Condition()
        self.passing = False  # a read is on its way to the stream
        thread = threading.Thread(target=self.run, name="python-session-" + stream.name, daemon=True)
        start_thread(thread)

    def add(self, fd, header):
        self.arrivals.append((fd, header))
        try:
            os.write(self.wake_write, b"\0")
        except BlockingIOError:
            pass  # the reader has wake-ups pending already

    def run(self):
        me = threading.current_thread()
        while True:
            try:
                ready = self.selector.select()
            except OSError:
                continue  # EINTR on an old Python; nothing is lost
            for key, _ in ready:
                if key.data is None:
                    self.take_arrivals()
                else:
                    self.pass_on(me, key)

    def take_arrivals(self):
        try:
            os.read(self.wake_read, 4096)
        except BlockingIOError:
            pass
        while self.arrivals:
            fd, header = self.arrivals.popleft()
            decoder = codecs.getincrementaldecoder("utf-8")("replace")
            self.selector.register(fd, selectors.EVENT_READ, (header, decoder))

    def drain(self, fd, limit=0.5):
        """Waits until what the pipe holds now has reached the stream (at most `limit` s).

        At the end of a cell: a child that printed and exited has its text in the pipe, and
        unless it is passed on before the cell's reply it would arrive after the cell's idle.
        """
        deadline = time.monotonic() + limit
        with self.progress:
            while True:
                try:
                    pending = bool(select.select([fd], [], [], 0)[0])
                except (OSError, ValueError):
                    return  # closed: all it held was passed on
                left = deadline - time.monotonic()
                if (not pending and not self.passing) or left <= 0:
                    return
                self.progress.wait(left)

    def pass_on(self, me, key):
        header, decoder = key.data
        with self.progress:
            self.passing = True
        try:
            self.pass_on_read(me, key, header, decoder)
        finally:
            with self.progress:
                self.passing = False
                self.progress.notify_all()

    def pass_on_read(self, me, key, header, decoder):
        try:
            data = os.read(key.fd, 65536)
        except OSError:
            data = b""
        text = decoder.decode(data, final=not data)
        if text:
            # Sent as the cell's own text while it runs, under that cell once it is over.
            setattr(me, _ORIGIN, header)
            self.adopt(header)
            try:
                self.stream.write(text)
            except Exception:
                pass
        if not data:
            self.selector.unregister(key.fd)
            os.close(key.fd)


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


def _streams_to_route():
    """sys.stdout and sys.stderr, by name, where they are ipykernel OutStreams not yet routed."""
    streams = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if type(stream).__name__ == "OutStream" and not getattr(stream, "_python_session_routed", False):
            streams[name] = stream
    return streams


def _current_id(stream):
    """The msg_id of the request the stream files text under now."""
    return (stream.parent_header or {}).get("msg_id")


def _send_under(stream, text, header):
    # Straight to the I/O thread (thread-safe), under the given cell's header.
    stream.session.send(stream.pub_thread, "stream", content={"name": stream.name, "text": text}, parent=header, ident=stream.topic)


def _adopter(mode, streams):
    """adopt(header): ipykernel 7 buffers the calling thread's text and sends it under that cell."""

    def adopt(header):
        if mode == "per-thread":
            for stream in streams.values():
                try:
                    stream.set_thread_parent(header)
                except Exception:
                    pass

    return adopt


class _CellPipes:
    """fd 1 and 2 into a fresh pipe at every execute_request, one reader thread per stream."""

    def __init__(self, adopt, start_thread):
        self.adopt = adopt
        self.start_thread = start_thread
        self.readers = {}  # stream name -> its _CellPipeReader
        self.current = {}  # stream name -> the read end of the current cell's pipe

    def new_pipe(self, stream, header):
        # fd 1/2 now lead to a pipe of this cell's: children started from now on write there.
        reader = self.readers.get(stream.name)
        if reader is None:
            reader = self.readers[stream.name] = _CellPipeReader(stream, self.adopt, self.start_thread)
        read_end, write_end = os.pipe()
        try:
            os.dup2(write_end, _FDS[stream.name])
        finally:
            os.close(write_end)
        reader.add(read_end, header)
        self.current[stream.name] = read_end

    def drain(self):
        """At the end of a cell: what its pipes hold reaches the stream before the reply."""
        for name, fd in list(self.current.items()):
            self.readers[name].drain(fd)


def _held_text(stream, write, single):
    """Short writes held back, and release(), which hands them to ipykernel's buffer in one write.

    Returns (held, parent, release): the writer appends text to `held` and, under ipykernel 7,
    sets parent[0] to the parent header the held text was written under.
    """
    held = collections.deque()
    parent = [{}]
    release_lock = threading.Lock()

    def release():
        # Held text goes into ipykernel's buffer, in order, from whichever thread asks.
        if not held:
            return
        with release_lock:
            parts = []
            take = held.popleft
            try:
                while True:
                    parts.append(take())
            except IndexError:
                pass
            if parts:
                text = "".join(parts)
                if single:
                    write(text)
                else:
                    with stream._buffer_lock:
                        stream._buffers[frozenset(parent[0].items())].write(text)

    return held, parent, release


def _release_before_sending(stream, release):
    # Whatever sends the buffer (the 0.2 s timer, flush(), the end of a cell) sends held text too.
    for method in ("_flush", "flush"):
        original = getattr(stream, method)

        def releasing(*args, _original=original, **kwargs):
            release()
            return _original(*args, **kwargs)

        setattr(stream, method, releasing)


def _routed_writers(streams, mode):
    """A write for each stream, the hot path of every print, and what else needs to reach them.

    Returns (writers, releases, holders): stream name -> its write; stream name -> its
    release() of held text; and the stop_holding() of every writer (for a forked child).
    """
    single = mode == "single"
    main_thread = threading.main_thread().ident
    get_ident = threading.get_ident
    current_thread = threading.current_thread
    quarter = _PIECE // 4
    last_written = None  # the stream written most recently: print order costs a flush only on a switch
    releases = {}  # stream name -> its writer's release(): held text into ipykernel's buffer
    holders = []  # writers that hold text back (turned off in a forked child)

    def routed_writer(stream, other):
        # ipykernel's own write, not whatever the attribute holds now: IPython 9 swaps in a
        # wrapper for the length of each cell (its output history), this one included.
        write = type(stream).write.__get__(stream)
        # Only the main thread's short writes are held. ipykernel 6 files text under the one
        # current parent, so any thread may hand it on; ipykernel 7 files it under the writing
        # thread's parent, so held text goes straight into the buffer of the parent it was
        # written under.
        holding = mode is not None and all(hasattr(stream, a) for a in ("_flush", "_schedule_flush", "flush", "_buffer_lock"))
        holding = holding and (single or isinstance(getattr(stream, "_buffers", None), dict))
        check_thread = single or holding
        held, held_parent, release = _held_text(stream, write, single)
        held_chars = 0
        unchecked = 0  # characters written since the buffer's size was last looked at

        if holding:
            _release_before_sending(stream, release)
            schedule_flush = stream._schedule_flush

        flush_soon = _flusher(stream)

        def stop_holding():
            nonlocal holding
            holding = False
            held.clear()  # the parent process sends what it held

        def switch():
            nonlocal last_written
            last_written = stream
            # Print order: what the other stream holds goes first (never while holding a lock).
            if other is not None:
                releases[other.name]()
                if _pending_chars(other):
                    other.flush()

        def write_under(piece, origin):
            # Text from a thread whose cell is over goes out under that cell (ipykernel 6).
            with stream._buffer_lock:  # no set_parent between the check and the append
                mine = origin.get("msg_id") == _current_id(stream)
                if mine:
                    write(piece)
            if not mine:
                _send_under(stream, piece, origin)

        def write_slowly(text):
            # Another thread's text, or one longer than a piece.
            if type(text) is not str:
                return write(text)  # ipykernel's own error for what is not text
            release()  # what the main thread printed before goes first
            origin = getattr(current_thread(), _ORIGIN, None) if single else None
            for i in range(0, len(text), _PIECE):
                piece = text[i : i + _PIECE]
                if origin is None:
                    write(piece)
                else:
                    write_under(piece, origin)
                if _pending_chars(stream) >= _PIECE:
                    stream.flush()  # one long string: each piece is its own message
            return len(text)

        def routed_write(text):
            # Runs for every print: the common case (the main thread, a short string,
            # the same stream as last time) is kept to a few comparisons.
            nonlocal unchecked, held_chars, last_written
            if last_written is not stream:
                switch()
            try:
                size = len(text)
            except TypeError:
                return write(text)  # ipykernel's own error for what is not text
            if size > _PIECE or (check_thread and get_ident() != main_thread) or type(text) is not str:
                return write_slowly(text)
            if holding:
                # ipykernel's write costs about a microsecond (a lock, a getpid, a timer
                # check); a loop of short prints is held here and handed on in one write.
                if not held and not single:
                    held_parent[0] = stream.parent_header
                held.append(text)
                held_chars += size
                if held_chars >= _HOLD:
                    held_chars = 0
                    release()
                    if _pending_chars(stream) >= _PIECE:
                        flush_soon()
                elif len(held) == 1:
                    schedule_flush()  # held text is sent within the usual 0.2 s
                return size
            write(text)
            # A message holds about a piece at most: the buffer is looked at once a quarter
            # piece has been written, not at every write.
            unchecked += size
            if unchecked >= quarter:
                unchecked = 0
                if _pending_chars(stream) >= _PIECE:
                    flush_soon()
            return size

        routed_write._python_session_original = write
        releases[stream.name] = release
        holders.append(stop_holding)
        return routed_write

    writers = {}
    for name, stream in streams.items():
        writers[name] = routed_writer(stream, streams.get("stderr" if name == "stdout" else "stdout"))
    return writers, releases, holders


def _route_new_parents(stream, writer, release, single, pipes):
    """Wraps set_parent: at each new request, our write back in place, held and buffered text
    sent under the request before, and (with `pipes`) a fresh pipe on fd 1/2 for an execute."""
    set_parent = stream.set_parent

    def routed_set_parent(parent):
        # IPython 9 puts back, after each cell, the write it found when the cell began;
        # this file runs inside such a cell (exec_lines), so at the first request the
        # plain method is back in place of ours.
        current = vars(stream).get("write")
        if current is None or getattr(current, "__func__", None) is type(stream).write:
            stream.write = writer
        release()  # held text belongs to the request before
        if single:
            with stream._buffer_lock:
                previous = stream.parent_header
                pending = stream._flush_buffer()  # written under the request before: send it under that one
                set_parent(parent)
            if pending:
                _send_under(stream, pending, previous)
        else:
            set_parent(parent)
        header = stream.parent_header
        if pipes is not None and header.get("msg_type") == "execute_request":
            try:
                pipes.new_pipe(stream, header)
            except Exception:
                pass

    stream.set_parent = routed_set_parent


def _release_before_fork(streams, releases, holders):
    def before_fork():
        # Sent before the child exists: it would print ahead of it, or print it twice.
        for stream in streams.values():
            releases[stream.name]()
            if _pending_chars(stream):
                stream.flush()

    # A forked child writes straight through: it has no I/O thread of its own to send held text.
    os.register_at_fork(before=before_fork, after_in_child=lambda: [stop() for stop in holders])


def _tag_threads_with_their_cell(streams, mode, adopt, start_thread):
    """Thread.start records the cell (request header) a new thread belongs to: its starter's, or the current one."""

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


def _route_output():
    """Items 4, 5, 6 and 9 of this file's docstring, on ipykernel's stdout and stderr."""
    streams = _streams_to_route()
    if not streams:
        return
    kernel = _kernel()
    if kernel is not None:
        _tolerate_unencodable_text(kernel)
    mode = _routing_mode(kernel, streams)
    start_thread = threading.Thread.start
    adopt = _adopter(mode, streams)
    pipes = _CellPipes(adopt, start_thread)
    writers, releases, holders = _routed_writers(streams, mode)

    for name, stream in streams.items():
        stream.write = writers[name]
        if mode is not None:
            captures_fds = getattr(stream, "_fid", None) is not None
            _route_new_parents(stream, writers[name], releases[name], mode == "single", pipes if captures_fds else None)
        stream._python_session_routed = True

    shell = _shell()
    if mode is not None and shell is not None:
        # Before ipykernel flushes the cell's streams and replies.
        shell.events.register("post_execute", pipes.drain)
    if holders and hasattr(os, "register_at_fork"):
        _release_before_fork(streams, releases, holders)
    if mode is not None:
        _tag_threads_with_their_cell(streams, mode, adopt, start_thread)


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


_NAMES_KEY = "__python_session_names__"  # the user_expressions key of app/core/kernel/user-names.ts


def _answer_names_directly():
    shell = _shell()
    evaluate = getattr(shell, "user_expressions", None)
    if evaluate is None or getattr(evaluate, "_python_session", False):
        return

    def user_expressions(expressions):
        if _NAMES_KEY not in expressions:
            return evaluate(expressions)
        others = {key: value for key, value in expressions.items() if key != _NAMES_KEY}
        answers = evaluate(others) if others else {}
        hidden = shell.user_ns_hidden
        # Each name with the ids of its value and of the value's type: a rebound name shows.
        names = ["%s:%x:%x" % (name, id(value), id(type(value))) for name, value in list(shell.user_ns.items())
                 if name[:1] != "_" and name not in hidden][:500]
        answers[_NAMES_KEY] = {"status": "ok", "data": {"text/plain": repr(" ".join(names))}, "metadata": {}}
        return answers

    user_expressions._python_session = True
    shell.user_expressions = user_expressions


def _keep_kernel_on_exit():
    # ipykernel's exit() stops the kernel's event loop 0.1 s later, so a model's stray exit() or
    # quit() at the end of a script would cost every variable (and race the next call). Jupyter's
    # own exit(keep_kernel=True) is made the rule: the cell ends, the kernel stays.
    shell = _shell()
    ask_exit = getattr(shell, "ask_exit", None)
    if ask_exit is None or getattr(ask_exit, "_python_session", False):
        return

    def ask_exit_keeping_kernel():
        shell.keepkernel_on_exit = True
        return ask_exit()

    ask_exit_keeping_kernel._python_session = True
    shell.ask_exit = ask_exit_keeping_kernel


def _no_output_history():
    shell = _shell()
    if not callable(getattr(shell, "_tee", None)):
        return
    import contextlib

    shell._tee = lambda channel: contextlib.nullcontext()


def _questions_to_the_person():
    kernel = _kernel()
    if kernel is None or getattr(getattr(kernel, "raw_input", None), "_python_session", False):
        return

    def asking(ask, password):
        def ask_the_person(prompt="", *args, **kwargs):
            return _common.answer_to_question(ask(prompt, *args, **kwargs), prompt, password, sys.stdout.write)

        ask_the_person._python_session = True
        return ask_the_person

    # ipykernel puts these in builtins.input and getpass.getpass at every request that allows
    # stdin, looking them up on the kernel, so the instance's attributes are what code calls.
    for name, password in (("raw_input", False), ("getpass", True)):
        ask = getattr(kernel, name, None)
        if callable(ask):
            setattr(kernel, name, asking(ask, password))


_INPUTS_KEPT = 1000  # as IPython's own cache of outputs (InteractiveShell.cache_size)


def _bounded_history():
    shell = _shell()
    history = getattr(shell, "history_manager", None)
    if history is None or not hasattr(shell, "events"):
        return
    user_ns = shell.user_ns
    state = {"kept_from": 1}

    def let_go_of_old_inputs():
        oldest = getattr(shell, "execution_count", 0) - _INPUTS_KEPT
        for n in range(state["kept_from"], oldest):
            user_ns.pop("_i%d" % n, None)
        state["kept_from"] = max(state["kept_from"], oldest)
        if getattr(history, "enabled", True):
            return
        for queued, lock in (("db_input_cache", "db_input_cache_lock"), ("db_output_cache", "db_output_cache_lock")):
            cache, guard = getattr(history, queued, None), getattr(history, lock, None)
            if isinstance(cache, list) and guard is not None:
                with guard:
                    del cache[:]

    shell.events.register("post_execute", let_go_of_old_inputs)


_start_lifeline()
_common.cap_memory()
_common.remember_closed_figures()
_show_figures_under_any_backend()
_quiet_interrupt_artifact()
_route_output()
_answer_names_directly()
_keep_kernel_on_exit()
_no_output_history()
_questions_to_the_person()
_bounded_history()
