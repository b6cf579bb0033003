"""Bounds on the user's code that a read-only tool calls: a ``repr``, a ``__getattr__``, a cell's ``str``.

The panel's Variables view and data viewer call such code for every name or cell they show, and
one of them may hang or print. :class:`TimeLimits` gives a whole call an overall deadline and each
piece of user code a smaller one; :func:`quiet_output` keeps what that code prints out of the
call's output.

The limits interrupt with ``SIGALRM`` (``signal.setitimer``), which exists on POSIX and reaches
only the main thread, where kernels and the worker run their cells. Elsewhere (Windows, or a call
off the main thread) nothing can interrupt a hang: the overall deadline is still checked between
pieces, so a slow listing stops early, but one piece that never returns is not cut short. A timer
the user's own code had set is put back when the call ends, less the time the call took.
"""

import contextlib
import io
import signal
import threading
import time


class TimedOut(BaseException):
    """Raised inside the user's code when its time is up.

    A BaseException, like KeyboardInterrupt, so that a ``try/except Exception`` in the code that
    hangs does not swallow it and go on hanging.
    """


class TimeLimits:
    """``with TimeLimits(3.0) as limits: ... with limits.limit(0.25): user_code()``.

    One periodic timer ticks every ``TICK_S`` while the limits are in force, and a tick that finds
    the running piece past its time raises :class:`TimedOut` in it: two system calls per listing
    instead of two per piece, so thousands of small pieces cost nothing extra.
    """

    TICK_S = 0.02

    def __init__(self, overall_s):
        self.overall_s = overall_s
        self.deadline = time.monotonic() + overall_s
        self._piece_deadline = None  # set while a piece runs
        self._can_interrupt = hasattr(signal, "setitimer") and \
            threading.current_thread() is threading.main_thread()
        self._old_handler = None
        self._old_timer = (0.0, 0.0)
        self._entered = 0.0

    @property
    def interrupts(self):
        """True when a piece of code that hangs is cut short (see the module's docstring)."""
        return self._can_interrupt

    def __enter__(self):
        if self._can_interrupt:
            try:
                self._old_handler = signal.signal(signal.SIGALRM, self._on_alarm)
                self._old_timer = signal.setitimer(signal.ITIMER_REAL, self.TICK_S, self.TICK_S)
                self._entered = time.monotonic()
            except (ValueError, OSError):
                self._can_interrupt = False
        return self

    def __exit__(self, *exc):
        self._piece_deadline = None
        if self._can_interrupt:
            signal.setitimer(signal.ITIMER_REAL, 0)
            old = self._old_handler
            signal.signal(signal.SIGALRM, signal.SIG_DFL if old is None else old)
            delay, interval = self._old_timer
            if delay > 0:
                left = max(0.001, delay - (time.monotonic() - self._entered))
                signal.setitimer(signal.ITIMER_REAL, left, interval)
        return False

    def remaining(self):
        """Seconds left for the code running now: its piece's, or the whole call's."""
        piece = self._piece_deadline
        ceiling = self.deadline if piece is None else min(piece, self.deadline)
        return ceiling - time.monotonic()

    def expired(self):
        return self.remaining() <= 0

    def limit(self, seconds):
        """A context manager: run the block for at most ``seconds``, and never past the time
        left to the piece it runs in (pieces nest) or to the whole call."""
        return _Piece(self, seconds)

    def _on_alarm(self, signum, frame):
        deadline = self._piece_deadline
        if deadline is not None and time.monotonic() >= deadline:
            self._piece_deadline = None  # raised once; the piece's exit puts back the outer one
            raise TimedOut()


class _Piece:
    __slots__ = ("limits", "seconds", "outer")

    def __init__(self, limits, seconds):
        self.limits = limits
        self.seconds = seconds
        self.outer = None

    def __enter__(self):
        limits = self.limits
        now = time.monotonic()
        self.outer = limits._piece_deadline
        ceiling = limits.deadline if self.outer is None else min(self.outer, limits.deadline)
        if now >= ceiling:
            raise TimedOut()
        limits._piece_deadline = min(now + self.seconds, ceiling)

    def __exit__(self, *exc):
        self.limits._piece_deadline = self.outer
        return False


class _Discard(io.TextIOBase):
    """A text stream that drops what is written to it (and never grows)."""

    def writable(self):
        return True

    def write(self, text):
        return len(text) if isinstance(text, str) else 0


@contextlib.contextmanager
def quiet_output():
    """What Python code prints inside the block goes nowhere (a ``__getattr__`` that prints)."""
    sink = _Discard()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield
