"""``variables()``: the control panel's Variables view, one row per name in the user namespace.

It only reads. It runs with ``store_history=False`` and returns ``None`` like every tool, so
``execution_count``, ``_``/``__``/``Out`` and the history stay as they were; it binds nothing and
imports nothing the user has not (pandas and numpy are looked up in ``sys.modules``).

Each name's facts (type, shape or length, dtypes, size, preview) come from
:func:`.namespace.facts`, the code ``list_names`` uses, called under a time limit per name and one
for the whole listing (:mod:`.time_limits`), with what the user's code prints thrown away. A repr
that raises, or that takes too long, gives a row with ``error`` set instead of failing the list.
"""

import builtins
import functools
import inspect
import sys
import time
import types
import warnings

from .errors import describe_exception
from .formatting import one_line, type_name
from .namespace import facts, user_items
from .time_limits import TimedOut, TimeLimits, quiet_output

PER_NAME_S = 0.25
OVERALL_S = 3.0
MAX_NAMES = 10000
PREVIEW_CHARS = 120
DTYPES_CHARS = 80
# pandas objects with more rows than this are sized without measuring each string (approximate).
DEEP_SIZE_ROWS = 100_000

_DATA_TYPES = (type(None), bool, int, float, complex, str, bytes, bytearray, memoryview, list,
               tuple, dict, set, frozenset, range, slice)
_SCALARS = frozenset((type(None), bool, int, float, complex, str, bytes, list, tuple, dict))
_DATA_MODULES = frozenset(("pandas", "numpy", "polars", "pyarrow", "xarray", "torch", "datetime",
                           "decimal", "fractions", "collections", "array", "uuid", "pathlib",
                           "scipy", "dask", "jax", "tensorflow"))


def kind_of(obj):
    """``module``, ``class``, ``function``, ``data`` (values a person inspects) or ``other``."""
    if type(obj) in _SCALARS:
        return "data"
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "class"
    if inspect.isroutine(obj) or isinstance(obj, functools.partial) or \
            type(obj).__name__ == "ufunc":
        return "function"
    if isinstance(obj, _DATA_TYPES):
        return "data"
    module = (getattr(type(obj), "__module__", "") or "").split(".")[0]
    return "data" if module in _DATA_MODULES else "other"


def viewable(obj):
    """True for what the data viewer opens: DataFrame, Series, ndarray up to 2-D, list, tuple, dict."""
    if isinstance(obj, (list, tuple, dict)):
        return True
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(obj, (pd.DataFrame, pd.Series)):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(obj, np.ndarray) and 1 <= obj.ndim <= 2


def _plain_row(name, obj):
    """The row of a plain number or short string: no user code runs, so no limit is needed."""
    return {"name": name, "type": type(obj).__name__, "kind": "data", "shape": None,
            "length": len(obj) if type(obj) is str else None, "dtypes": None,
            "size_bytes": sys.getsizeof(obj), "size_approximate": False,
            "preview": one_line(repr(obj), PREVIEW_CHARS), "viewable": False, "error": None}


_PLAIN = frozenset((int, float, bool, type(None)))


def _row(name, obj, limits):
    kind = type(obj)
    if (kind in _PLAIN and (kind is not int or obj.bit_length() < 4096)) or \
            (kind is str and len(obj) <= PREVIEW_CHARS):
        return _plain_row(name, obj)
    return _inspected_row(name, obj, limits)


def _inspected_row(name, obj, limits):
    row = {"name": name, "type": type_name(obj), "kind": "other", "shape": None, "length": None,
           "dtypes": None, "size_bytes": None, "size_approximate": False, "preview": "",
           "viewable": False, "error": None}
    try:
        with limits.limit(PER_NAME_S):
            row["kind"] = kind_of(obj)
            row["viewable"] = viewable(obj)
            found = facts(obj, PREVIEW_CHARS, strict=True, deep_rows=DEEP_SIZE_ROWS)
    except TimedOut:
        if limits.expired():
            row["error"] = ("not inspected: the listing's %g s were used up by the names before it"
                            % limits.overall_s)
        else:
            row["error"] = ("timed out after %g s (its repr, size or attributes took too long)"
                            % PER_NAME_S)
        return row
    except Exception as exc:  # the object's own code raised: its repr, its shape, its __len__
        row["error"] = one_line("raised %s" % describe_exception(exc), PREVIEW_CHARS)
        return row
    row["shape"] = found["shape"]
    row["length"] = found["length"]
    row["dtypes"] = one_line(found["dtypes"], DTYPES_CHARS) if found["dtypes"] else None
    row["size_bytes"] = found["size"]
    row["size_approximate"] = bool(found["size_approximate"])
    row["preview"] = found["preview"]
    return row


def variables(ns):
    """Every user name with its type, kind, shape or length, dtypes, size and a one-line preview.

    structured: ``{"names": [{name, type, kind, shape, length, dtypes, size_bytes,
    size_approximate, preview, viewable, error}], "count": n, "truncated": bool,
    "elapsed_ms": ms}``, sorted by name (case-insensitive). ``count`` is the number of user
    names; at most 10,000 rows are listed (``truncated`` says when more were left out).
    """
    started = time.monotonic()
    items = [(k, v) for k, v in user_items(ns) if v is not builtins]
    items.sort(key=lambda kv: kv[0].lower())
    shown = items[:MAX_NAMES]
    rows = []
    with quiet_output(), warnings.catch_warnings(), TimeLimits(OVERALL_S) as limits:
        warnings.simplefilter("ignore")
        for name, obj in shown:
            rows.append(_row(name, obj, limits))
    kinds = {}
    for row in rows:
        kinds[row["kind"]] = kinds.get(row["kind"], 0) + 1
    errors = sum(1 for row in rows if row["error"])
    parts = ["%d %s" % (kinds[k], k) for k in ("data", "other", "function", "class", "module")
             if kinds.get(k)]
    text = "%d name%s%s" % (len(items), "" if len(items) == 1 else "s",
                            " (%s)" % ", ".join(parts) if parts else "")
    if errors:
        text += "; %d could not be shown" % errors
    if len(items) > len(shown):
        text += "; the first %d listed" % len(shown)
    return text, {"names": rows, "count": len(items), "truncated": len(items) > len(shown),
                  "elapsed_ms": round((time.monotonic() - started) * 1000.0, 1)}
