"""Output in print order, each piece with the cell that made it.

* ``sys.stdout`` and ``sys.stderr`` become :class:`OutputStream`, which files text under the
  writing thread's cell: the main thread's is the running cell; another thread's is the cell
  that was running when it (or the thread that started it) was started. Text of a cell that
  is over is still sent under that cell, and the daemon, routing by parent, drops it: late
  output never lands in the next cell.
* File descriptors 1 and 2 get a fresh pipe at every cell (:meth:`FdCapture.new_cell`), so
  what child processes and C code write is tied to the cell that started them however late
  it comes. One thread reads every pipe, with an incremental UTF-8 decoder that replaces bad
  bytes (a strict one would stop at the first, and a child filling the pipe would block).
* Order between the two: before a thread's ``write`` queues its text, whatever already sits
  in the running cell's pipes is queued first (one ``poll`` when there is none), so
  ``os.write(1, ...)`` then ``print()`` arrive in that order even though the pipe reader had
  no chance to run in between.
* A forked child (multiprocessing, ``os.fork``) has no sender thread: its streams write
  straight to its fds, which lead to the cell's pipes.
"""
import codecs
import collections
import io
import os
import select
import selectors
import threading

ORIGIN = "_python_session_parent"  # on a Thread: the header of the cell that started it
_WINDOWS = os.name == "nt"
_DRAIN_LIMIT = 1 << 20  # bytes a writer takes from the pipes before its own text, at most


class Cells:
    """Which cell is running (its request header), for everyone who needs to file output."""

    def __init__(self):
        self.current = None
        self.main_ident = threading.main_thread().ident

    def parent_here(self):
        if threading.get_ident() == self.main_ident:
            return self.current
        return getattr(threading.current_thread(), ORIGIN, None) or self.current


class FdCapture:
    """fd 1 and 2 into a pipe per cell, all read by one thread (or a thread per pipe on Windows)."""

    def __init__(self, outbox, cells):
        self.outbox = outbox
        self.cells = cells
        self.lock = threading.Lock()  # one reader of the pipes at a time, so text keeps its order
        self._current = []  # the running cell's [fd, name, parent, decoder] entries
        self._poll = None
        self._arrivals = collections.deque()
        if not _WINDOWS:
            self._selector = selectors.DefaultSelector()
            self._wake_read, self._wake_write = os.pipe()
            os.set_blocking(self._wake_write, False)
            self._selector.register(self._wake_read, selectors.EVENT_READ, None)
            threading.Thread(target=self._run, name="python-session-pipes", daemon=True).start()

    def new_cell(self, parent):
        entries = []
        for name, target in (("stdout", 1), ("stderr", 2)):
            read_end, write_end = os.pipe()
            try:
                os.dup2(write_end, target)
            finally:
                os.close(write_end)
            entries.append([read_end, name, parent, codecs.getincrementaldecoder("utf-8")("replace")])
        if _WINDOWS:
            for entry in entries:
                threading.Thread(target=self._read_blocking, args=(entry,), name="python-session-pipe", daemon=True).start()
            self._current = entries
            return
        poll = select.poll()
        for entry in entries:
            os.set_blocking(entry[0], False)
            poll.register(entry[0], select.POLLIN)
        with self.lock:
            self._current, self._poll = entries, poll
        self._arrivals.extend(entries)
        try:
            os.write(self._wake_write, b"\0")
        except BlockingIOError:
            pass  # the reader has a wake-up pending already

    def drain(self):
        """Queues what the running cell's pipes hold now, before the caller's own text."""
        if self._poll is None:
            return
        # Under the lock: a poll object refuses a second thread's poll() while one is in it
        # ("concurrent poll() invocation"), and threads print at the same time as the cell.
        with self.lock:
            poll = self._poll
            if poll is None or not poll.poll(0):
                return
            for entry in list(self._current):
                if not self._take(entry, _DRAIN_LIMIT):
                    self._forget(entry)

    def _take(self, entry, limit):
        """Reads what is there (non-blocking); False once the pipe is at its end."""
        taken = 0
        while taken < limit:
            try:
                data = os.read(entry[0], 65536)
            except BlockingIOError:
                return True
            except OSError:
                data = b""
            text = entry[3].decode(data, final=not data)
            if text:
                self.outbox.stream(entry[2], entry[1], text)
            if not data:
                return False
            taken += len(data)
        return True

    def _run(self):
        while True:
            try:
                ready = self._selector.select()
            except OSError:
                continue
            for key, _ in ready:
                if key.data is None:
                    self._take_arrivals()
                    continue
                with self.lock:
                    if self._take(key.data, _DRAIN_LIMIT):
                        continue
                    self._forget(key.data)
                self._selector.unregister(key.fd)
                os.close(key.fd)

    def _forget(self, entry):
        # A running cell's pipe at its end (user code closed fd 1 or 2): stop polling it.
        if any(e is entry for e in self._current):
            self._current = [e for e in self._current if e is not entry]
            poll = select.poll()
            for e in self._current:
                poll.register(e[0], select.POLLIN)
            self._poll = poll if self._current else None

    def _take_arrivals(self):
        try:
            os.read(self._wake_read, 4096)
        except BlockingIOError:
            pass
        while self._arrivals:
            entry = self._arrivals.popleft()
            self._selector.register(entry[0], selectors.EVENT_READ, entry)

    def _read_blocking(self, entry):
        while True:
            try:
                data = os.read(entry[0], 65536)
            except OSError:
                data = b""
            with self.lock:
                text = entry[3].decode(data, final=not data)
                if text:
                    self.outbox.stream(entry[2], entry[1], text)
            if not data:
                os.close(entry[0])
                return


class _Bytes:
    """``sys.stdout.buffer``: bytes written there join the text stream."""

    def __init__(self, stream):
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def write(self, data):
        self._stream.write(self._decoder.decode(bytes(data)))
        return len(data)

    def flush(self):
        self._stream.flush()

    def fileno(self):
        return self._stream.fileno()


class OutputStream(io.TextIOBase):
    """sys.stdout / sys.stderr: text to the outbox under the writing thread's cell."""

    direct = False  # set in a forked child: write straight to the fd

    def __init__(self, name, fd, outbox, cells, capture):
        super().__init__()
        self._kind = name
        self._fd = fd
        self._outbox = outbox
        self._cells = cells
        self._capture = capture
        self.buffer = _Bytes(self)

    @property
    def name(self):
        return "<%s>" % self._kind

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "backslashreplace"

    def write(self, text):
        if type(text) is not str:
            if not isinstance(text, str):
                raise TypeError("write() argument must be str, not %s" % type(text).__name__)
            text = str(text)
        if not text:
            return 0
        if OutputStream.direct:
            os.write(self._fd, text.encode("utf-8", "backslashreplace"))
            return len(text)
        self._capture.drain()
        self._outbox.stream(self._cells.parent_here(), self._kind, text)
        return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        # Text is queued as it is written; a flush only brings the pipes' text along.
        if not OutputStream.direct:
            self._capture.drain()

    def fileno(self):
        return self._fd

    def isatty(self):
        return False

    def readable(self):
        return False

    def writable(self):
        return True

    def seekable(self):
        return False

    def close(self):
        pass  # user code closing sys.stdout must not end the worker's output


def install(outbox, cells):
    """Replaces sys.stdout/sys.stderr, tags threads with their cell; returns the FdCapture."""
    import sys

    capture = FdCapture(outbox, cells)
    sys.stdout = OutputStream("stdout", 1, outbox, cells, capture)
    sys.stderr = OutputStream("stderr", 2, outbox, cells, capture)
    start = threading.Thread.start

    def start_in_its_cell(self, *args, **kwargs):
        if getattr(self, ORIGIN, None) is None:
            here = cells.parent_here()
            if here is not None:
                setattr(self, ORIGIN, here)
        return start(self, *args, **kwargs)

    threading.Thread.start = start_in_its_cell
    if hasattr(os, "register_at_fork"):

        def in_child():
            OutputStream.direct = True

        os.register_at_fork(after_in_child=in_child)
    return capture
