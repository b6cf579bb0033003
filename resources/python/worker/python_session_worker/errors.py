"""Errors as Jupyter's ``error`` content: ename, evalue and a traceback IPython's way.

A frame in a cell reads ``Cell In[3], line 2, in f`` followed by the lines around it, the
failing one marked ``---->``: app/core/kernel/error-text.ts reads that to say
``Python error: NameError on line 2: ...`` (or "of cell In[2]" for a function defined earlier).
The worker's own frames are left out.
"""
import linecache
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPEATS_SHOWN = 3


class CellNames:
    """Cell file names (as compiled) and how a traceback names them: "Cell In[3]"."""

    def __init__(self):
        self.labels = {}

    def register(self, filename, label, source):
        self.labels[filename] = label
        # linecache knows the cell's source: tracebacks, inspect.getsource and pdb can show it.
        # An mtime of None keeps checkcache() from dropping the entry.
        lines = source.splitlines(True)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        linecache.cache[filename] = (len(source), None, lines, filename)


def _ours(filename):
    return bool(filename) and os.path.dirname(os.path.abspath(filename)) == _HERE


def _text(exc):
    try:
        return str(exc)
    except Exception:
        return "<the exception's str() failed>"


def _context(filename, lineno):
    lines = []
    for number in range(max(1, lineno - 2), lineno + 3):
        line = linecache.getline(filename, number)
        if not line:
            if number > lineno:
                break
            continue
        marker = "----> " if number == lineno else "      "
        lines.append("%s%d %s" % (marker, number, line.rstrip("\n")))
    return "\n".join(lines)


def _frame_entry(frame, cells):
    label = cells.labels.get(frame.filename)
    if label is not None:
        where = "%s, line %d" % (label, frame.lineno)
        if frame.name != "<module>":
            where += ", in %s" % frame.name
        context = _context(frame.filename, frame.lineno)
        return "%s\n%s\n" % (where, context) if context else where + "\n"
    entry = "File %s:%d, in %s\n" % (frame.filename, frame.lineno, frame.name)
    if frame.line:
        entry += "    %s\n" % frame.line.strip()
    return entry


def _stack_entries(stack, cells):
    entries = []
    frames = list(stack)
    while frames and _ours(frames[0].filename):
        frames.pop(0)  # the worker calling into the cell
    last, repeated = None, 0
    for frame in frames:
        key = (frame.filename, frame.lineno, frame.name)
        if key == last:
            repeated += 1
            if repeated >= _REPEATS_SHOWN:
                continue
        else:
            if repeated >= _REPEATS_SHOWN:
                entries.append("[Previous line repeated %d more times]\n" % (repeated - _REPEATS_SHOWN + 1))
            last, repeated = key, 0
        entries.append(_frame_entry(frame, cells))
    if repeated >= _REPEATS_SHOWN:
        entries.append("[Previous line repeated %d more times]\n" % (repeated - _REPEATS_SHOWN + 1))
    return entries


def _syntax_entry(exc, cells):
    """Where a SyntaxError points: the cell's line and a caret, as Python prints it."""
    filename = getattr(exc, "filename", None) or "<unknown>"
    lineno = getattr(exc, "lineno", None) or 0
    label = cells.labels.get(filename)
    where = "%s, line %d" % (label, lineno) if label else "File %s:%d" % (filename, lineno)
    text = getattr(exc, "text", None)
    if not text:
        return where + "\n"
    stripped = text.rstrip("\n")
    indent = len(stripped) - len(stripped.lstrip())
    offset = getattr(exc, "offset", None)
    caret = ""
    if offset:
        caret = "\n    " + " " * max(0, offset - 1 - indent) + "^"
    return "%s\n    %s%s\n" % (where, stripped.strip(), caret)


_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def _chain(exc):
    """The exception and its causes, first cause first, each with the sentence that leads to it."""
    links, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if exc.__cause__ is not None:
            following, sentence = exc.__cause__, _CAUSE
        elif exc.__context__ is not None and not exc.__suppress_context__:
            following, sentence = exc.__context__, _CONTEXT
        else:
            following, sentence = None, None
        links.append((exc, sentence))
        exc = following
    return reversed(links)


def describe(exc, cells, compiling=False):
    """Jupyter error content for an exception raised by (or compiling) a cell."""
    import traceback  # only when something failed: it costs milliseconds at start

    entries = []
    for error, sentence in _chain(exc):
        if sentence and entries:
            entries.append(sentence)  # between the cause, printed above, and this exception
        stack = _stack_entries(traceback.extract_tb(error.__traceback__), cells)
        if stack:
            entries.append("Traceback (most recent call last):\n")
            entries.extend(stack)
        if isinstance(error, SyntaxError):
            entries.append(_syntax_entry(error, cells))
        message = _text(error)
        if compiling and error is exc and isinstance(error, SyntaxError):
            message = error.msg or message  # the location is in the traceback already
        name = type(error).__name__
        entries.append("%s: %s" % (name, message) if message else name)
    evalue = _text(exc)
    if compiling and isinstance(exc, SyntaxError):
        evalue = (exc.msg or evalue) + _magic_hint(exc)
        entries[-1] += _magic_hint(exc)
    return {"ename": type(exc).__name__, "evalue": evalue, "traceback": entries}


def _magic_hint(exc):
    """IPython syntax (%magic, !shell, obj?) fails here: say why, once, in the message itself."""
    line = (getattr(exc, "text", None) or "").strip()
    if line.startswith(("%", "!")) or (line.endswith("?") and not line.startswith("#")):
        return (" (IPython's %magics, !shell commands and ? help need ipykernel; this session runs on "
                "Python Session's built-in worker: use plain Python, e.g. subprocess.run for a command)")
    return ""
