"""Small text helpers shared by the tools: type names, sizes, numbers, bounded previews, tables.

Everything here is bounded: no helper returns more characters than it is asked for, and none
calls ``repr`` on a big container without a limit.
"""

import math
import reprlib
import sys


def type_name(obj):
    """``int``, ``pandas.DataFrame``, ``numpy.ndarray``, ``statsmodels.RegressionResultsWrapper``."""
    cls = obj if isinstance(obj, type) and obj is not type else type(obj)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", None) or getattr(cls, "__name__", "?")
    if module in ("builtins", "__main__", "__builtin__"):
        return name
    top = module.split(".")[0]
    if top in ("pandas", "numpy", "statsmodels", "scipy", "matplotlib", "sklearn", "polars",
               "pyarrow", "torch", "xarray"):
        return "%s.%s" % (top, name)
    return "%s.%s" % (module, name)


def human_bytes(n, approx=False):
    if n is None:
        return ""
    prefix = "~" if approx else ""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            if unit == "B":
                return "%s%d B" % (prefix, int(value))
            return "%s%.1f %s" % (prefix, value, unit)
        value /= 1024.0
    return "%s%d B" % (prefix, n)


def fmt_num(x, digits=7):
    """A number for a human table: ``0.9954790``, ``-3482259``, ``1.234568e-05``; '' for None."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return "{:,}".format(x) if abs(x) >= 10000 else str(x)
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    ax = abs(x)
    if 1e-4 <= ax < 1e9:
        int_digits = max(1, int(math.floor(math.log10(ax))) + 1)
        decimals = max(0, digits - int_digits)
        return "%.*f" % (decimals, x)
    return "%.*e" % (digits - 1, x)


def fmt_p(p):
    if p is None:
        return ""
    try:
        p = float(p)
    except (TypeError, ValueError):
        return str(p)
    if math.isnan(p):
        return "NaN"
    return "%.4f" % p


def truncate(text, limit, what="characters"):
    """Cut ``text`` to ``limit`` characters, saying how much was left out."""
    if text is None:
        return ""
    if len(text) <= limit:
        return text
    return text[:limit] + "… [%d more %s]" % (len(text) - limit, what)


def one_line(text, limit=80):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdict = 6
_REPR.maxlevel = 2
_REPR.maxlong = 40


def bounded_repr(obj, limit=80):
    """A one-line repr of at most ``limit`` characters; raises what the object's repr raises.

    Containers, strings, numbers and bytes are cut before they are printed (reprlib), so a long
    one costs no more than a short one.
    """
    if isinstance(obj, (list, tuple, set, frozenset, dict, str, int)):
        text = _REPR.repr(obj)
    elif isinstance(obj, (bytes, bytearray)):
        text = repr(obj[:limit]) + ("…" if len(obj) > limit else "")
    else:
        text = repr(obj)
    return one_line(text, limit)


def safe_repr(obj, limit=80):
    """A one-line repr of at most ``limit`` characters that never raises."""
    try:
        return bounded_repr(obj, limit)
    except Exception as exc:  # a user's __repr__ may raise
        return one_line("<%s; repr failed: %s>" % (type_name(obj), type(exc).__name__), limit)


def table(headers, rows, align=None, max_width=40):
    """A plain monospace table; ``align`` is a string of 'l'/'r' per column."""
    rows = [["" if c is None else one_line(c, max_width) for c in row] for row in rows]
    headers = [str(h) for h in headers]
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    align = align or "l" * len(headers)

    def line(cells):
        out = []
        for i, cell in enumerate(cells):
            out.append(cell.rjust(widths[i]) if align[i] == "r" else cell.ljust(widths[i]))
        return "  ".join(out).rstrip()

    return "\n".join([line(headers)] + [line(r) for r in rows])


def shape_text(shape):
    if shape is None:
        return ""
    if len(shape) == 1:
        return "%s" % (shape[0],)
    return "×".join(str(s) for s in shape)


def frame_text(frame, max_cols=12, max_colwidth=30, limit=4000):
    """A DataFrame (already cut to a few rows) as text, bounded in columns and characters."""
    try:
        text = frame.to_string(max_cols=max_cols, max_colwidth=max_colwidth)
    except TypeError:  # very old pandas without max_colwidth
        text = frame.to_string(max_cols=max_cols)
    return truncate(text, limit)


def module_loaded(name):
    return sys.modules.get(name)
