"""The connection to the daemon: signed lines of JSON, verified before they are read.

Every message the worker sends goes through :class:`Outbox`, one queue drained by one
thread, so stream text, displays, replies and status messages leave in the order they were
made whichever thread made them; only the heartbeat's answer goes straight out.
"""
import hashlib
import hmac
import json
import os
import threading
import time

import python_session_common as common

PROTOCOL_VERSION = "5.3"
SESSION = os.urandom(16).hex()
# A line from the daemon carries at most this much (code to run can be large; nothing else is).
LINE_LIMIT = 256 * 1024 * 1024
# Stream text per message, about: bounded messages keep the daemon's reads small.
PIECE = 1 << 20
# Characters queued before a writer waits for the connection to catch up (a runaway printer).
BACKLOG = 8 << 20
# How long text waits for more before it is sent.
_GATHER_S = 0.002

try:
    USER = os.environ.get("USER") or os.environ.get("USERNAME") or "python-session"
except Exception:
    USER = "python-session"


def header(msg_type):
    # os.urandom and time, not uuid and datetime: those two imports cost a fifth of a start.
    now = time.time()
    return {
        "msg_id": os.urandom(16).hex(),
        "msg_type": msg_type,
        "session": SESSION,
        "username": USER,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + ".%06dZ" % int(now % 1 * 1e6),
        "version": PROTOCOL_VERSION,
    }


class Channel:
    """One TCP connection; sign() and verify() over the exact JSON bytes."""

    def __init__(self, sock, key):
        self.sock = sock
        self._mac = hmac.new(key, digestmod=hashlib.sha256)
        self._send_lock = threading.Lock()
        self._reader = sock.makefile("rb")
        self.bad_signatures = 0
        self.malformed = 0
        self.closed = False

    def sign(self, body):
        mac = self._mac.copy()
        mac.update(body)
        return mac.hexdigest().encode("ascii")

    def encode(self, channel, msg_type, content, parent=None, metadata=None):
        message = {
            "channel": channel,
            "header": header(msg_type),
            "parent_header": parent or {},
            "metadata": metadata or {},
            "content": content,
        }
        try:
            body = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        except (ValueError, TypeError):
            body = json.dumps(common.scrub(message, finite=True), ensure_ascii=False, separators=(",", ":"), default=repr).encode("utf-8")
        return b"".join((self.sign(body), b" ", body, b"\n"))

    def send_line(self, line):
        with self._send_lock:
            self.sock.sendall(line)

    def receive(self):
        """The next verified message as a dict, or None once the daemon has gone."""
        while True:
            try:
                line = self._reader.readline(LINE_LIMIT)
            except (OSError, ValueError):
                return None
            if not line:
                return None
            if not line.endswith(b"\n"):
                self.malformed += 1
                self._skip_rest_of_line()
                continue
            signature, space, body = line[:-1].partition(b" ")
            # Verify before parsing: nothing in a line that fails is ever read.
            if not space or not hmac.compare_digest(self.sign(body), signature):
                self.bad_signatures += 1
                continue
            try:
                message = json.loads(body.decode("utf-8"))
            except ValueError:
                self.malformed += 1
                continue
            if not (isinstance(message, dict) and isinstance(message.get("header"), dict)
                    and isinstance(message["header"].get("msg_type"), str)):
                self.malformed += 1
                continue
            for part in ("parent_header", "metadata", "content"):
                if not isinstance(message.get(part), dict):
                    message[part] = {}
            return message

    def _skip_rest_of_line(self):
        while True:
            chunk = self._reader.readline(LINE_LIMIT)
            if not chunk or chunk.endswith(b"\n"):
                return


_STREAM, _MESSAGE = "stream", "message"


class Outbox:
    """Everything the worker sends, in order, from one thread.

    Writers only append (consecutive text of one stream and one cell joins the last entry),
    so a loop of prints costs a lock and an append each; the sender takes what has piled up
    while it was sending, which keeps messages few and large under load and immediate
    otherwise. A writer that gets ``BACKLOG`` characters ahead waits.
    """

    def __init__(self, channel):
        self.channel = channel
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        self._empty = threading.Condition(self._lock)
        self._items = []
        self._chars = 0
        self._sending = False
        self._wake = threading.Event()
        self._urgent = threading.Event()  # something other than text is queued
        self.broken = False
        thread = threading.Thread(target=self._run, name="python-session-sender", daemon=True)
        thread.start()

    def stream(self, parent, name, text):
        with self._lock:
            items = self._items
            last = items[-1] if items else None
            if last is not None and last[0] is _STREAM and last[1] is parent and last[2] == name:
                last[3].append(text)
            else:
                items.append((_STREAM, parent, name, [text]))
            self._chars += len(text)
            over = self._chars > BACKLOG
        if not self._wake.is_set():
            self._wake.set()
        if over:
            with self._room:
                while self._chars > BACKLOG and not self.broken:
                    self._room.wait(1.0)

    def message(self, channel, msg_type, content, parent=None, metadata=None):
        with self._lock:
            self._items.append((_MESSAGE, parent, (channel, msg_type, content, parent, metadata), None))
            self._urgent.set()
        if not self._wake.is_set():
            self._wake.set()

    def wait_until_sent(self, timeout=5.0):
        """Blocks until everything queued so far is on the wire (or the connection broke)."""
        with self._empty:
            self._empty.wait_for(lambda: self.broken or (not self._items and not self._sending), timeout)

    def _run(self):
        channel = self.channel
        while True:
            self._wake.wait()
            self._wake.clear()
            if not self._urgent.is_set():
                # Text alone waits a moment for more: a loop of prints then travels in a few
                # large messages, and the writer is not slowed by this thread taking the GIL at
                # every write. A reply or a display ends the wait.
                self._urgent.wait(_GATHER_S)
            with self._lock:
                self._urgent.clear()
                items, self._items = self._items, []
                self._sending = bool(items)
            sent = 0
            try:
                for kind, parent, what, parts in items:
                    if kind is _MESSAGE:
                        channel.send_line(channel.encode(*what))
                        continue
                    text = "".join(parts)
                    sent += len(text)
                    if parent is None:
                        continue  # written outside any cell: nobody is waiting for it
                    for i in range(0, len(text), PIECE):
                        piece = text[i:i + PIECE]
                        channel.send_line(channel.encode("iopub", "stream", {"name": what, "text": piece}, parent))
            except OSError:
                self.broken = True  # the daemon is gone; the reader thread ends the process
            with self._lock:
                self._chars = max(0, self._chars - sent)
                self._sending = False
                self._room.notify_all()
                if not self._items:
                    self._empty.notify_all()
            if self.broken:
                with self._lock:
                    self._items = []
                    self._empty.notify_all()
                return
