"""The control panel's data viewer: ``data_page`` (a window of rows, sorted and filtered) and
``data_summary`` (per-column dtype, missing, min, max, mean, distinct).

They open a DataFrame, a Series, a NumPy array of one or two dimensions, a list, a tuple or a
dict, named like ``describe_object``'s ``name`` (a variable, or a path of attributes and constant
subscripts; no calls). Only the rows asked for are formatted and sent. A DataFrame, a Series and
an array are read through pandas without copying them (pandas is imported when an array is
opened, and its absence is reported with the install command); lists, tuples and dicts are read
with plain Python, so they open where pandas is not installed. A dict shows one row per item,
with ``key`` and ``value`` columns.

Sorting or filtering a large object costs one pass; the row order it gives (positions, never the
values) is kept in a small module-level cache keyed by the object's id, its shape, the session's
execution count and the request, and checked against the object itself (a weak reference) where
the object allows one, so later pages of the same view are a slice. Every cell is a display
string cut to 200 characters, or ``None`` for a missing value (NaN, NaT, None, pd.NA: the page's
``missing`` list says which). The ``str`` of each object cell is bounded in time
(:mod:`.time_limits`), and one that raises shows the error in its cell.
"""

import collections
import math
import sys
import time
import warnings
import weakref

from .errors import ToolError, describe_exception
from .formatting import one_line, type_name
from .installing import require
from .namespace import ipython, resolve_reference
from .time_limits import TimedOut, TimeLimits, quiet_output

MAX_LIMIT = 500
DEFAULT_LIMIT = 100
DEFAULT_COLUMNS = 100
MAX_COLUMNS = 200
SUMMARY_MAX_COLUMNS = 500
CELL_CHARS = 200
CELL_S = 0.1  # one object's str()
WHOLE_S = 60.0  # a page, or one sort or filter pass over the whole object
SUMMARY_COLUMN_S = 5.0
SUMMARY_S = 30.0
CACHE_ENTRIES = 6
CHUNK_ROWS = 65536  # rows formatted at a time when a filter reads a whole column
TOOL = "The data viewer"


def _cut(text):
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS - 1] + "…"


def _cell_text(value, limits):
    """The display string of one value; its own ``str`` is bounded in time and may fail."""
    kind = type(value)
    if kind is str:
        return value
    if kind is int or kind is float or kind is bool:
        return str(value)
    try:
        with limits.limit(CELL_S):
            text = str(value)
        return text if isinstance(text, str) else repr(text)
    except TimedOut:
        if limits.expired():  # the page's own time is up, not only this cell's
            raise
        return "<%s: str() took longer than %g s>" % (type_name(value), CELL_S)
    except Exception as exc:
        return one_line("<%s: str() raised %s>" % (type_name(value), describe_exception(exc)),
                        CELL_CHARS)


def _missing_kind(value):
    """"None", "NaN", "NaT" or "NA" for a missing value; None for a present one."""
    if value is None:
        return "None"
    pd = sys.modules.get("pandas")
    if pd is not None:
        if value is pd.NaT:
            return "NaT"
        if value is pd.NA:
            return "NA"
    if isinstance(value, float) and value != value:
        return "NaN"
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, (np.floating, np.datetime64, np.timedelta64)):
        try:
            if np.isnan(value):
                return "NaT" if isinstance(value, (np.datetime64, np.timedelta64)) else "NaN"
        except (TypeError, ValueError):
            pass
    return None


def _label(label):
    """A column name: MultiIndex labels joined with " / "."""
    if isinstance(label, tuple):
        return " / ".join(_label(part) for part in label)
    if isinstance(label, str):
        return label
    try:
        return str(label)
    except Exception:
        return "<%s>" % type_name(label)


# ---------------------------------------------------------------------------------------------
# pandas: DataFrame, Series, ndarray

class _FrameTable:
    """A DataFrame (a Series or an array seen as one) read through pandas, without a copy."""

    def __init__(self, frame, pd, np):
        self.frame = frame
        self.pd = pd
        self.np = np
        self.n_rows = int(frame.shape[0])
        self.n_columns = int(frame.shape[1])
        self._dtypes = None

    def column_name(self, pos):
        return _label(self.frame.columns[pos])

    def column_dtype(self, pos):
        if self._dtypes is None:
            self._dtypes = list(self.frame.dtypes)
        return str(self._dtypes[pos])

    def column(self, pos):
        return self.frame.iloc[:, pos]

    def index_names(self):
        return ["" if n is None else _label(n) for n in self.frame.index.names]

    def strings(self, series, limits):
        """(display strings, missing kinds) of a Series' values; a missing one's string is None."""
        np = self.np
        missing = series.isna().to_numpy(dtype=bool)
        values = None
        dtype_kind = getattr(series.dtype, "kind", "O")
        if dtype_kind in "mM":
            # One Timestamp at a time, so a value reads the same on every page: pandas drops
            # "00:00:00" from a whole array of midnights, which a page may happen to be.
            texts = [None if gap else str(v) for v, gap in zip(series.tolist(), missing)]
        elif series.dtype != object:
            try:
                texts = series.astype(str).tolist()
            except Exception:  # a category whose str raises, an odd extension type
                texts = None
        else:
            texts = None
        if texts is None:
            values = series.tolist()
            texts = [_cell_text(v, limits) for v in values]
        kinds = None
        if missing.any():
            kinds = [None] * len(texts)
            raw = values if values is not None else None
            for i in np.flatnonzero(missing).tolist():
                texts[i] = None
                if dtype_kind in "mM":
                    kinds[i] = "NaT"
                elif dtype_kind == "f" or dtype_kind == "c":
                    kinds[i] = "NaN"
                else:
                    if raw is None:
                        raw = series.tolist()
                    kinds[i] = _missing_kind(raw[i]) or "NaN"
        return texts, kinds

    def page(self, rows, cols, limits):
        """(index rows, cell rows, missing markers) for row positions ``rows`` and columns ``cols``."""
        sub = self.frame.iloc[rows, cols]
        n = sub.shape[0]
        cells = [[None] * len(cols) for _ in range(n)]
        marks = []
        for j in range(len(cols)):
            texts, kinds = self.strings(sub.iloc[:, j], limits)
            for i in range(n):
                text = texts[i]
                if text is not None:
                    cells[i][j] = _cut(text)
                elif kinds is not None and kinds[i] is not None:
                    marks.append([i, j, kinds[i]])
        index = sub.index
        levels = [index.get_level_values(k) for k in range(index.nlevels)] \
            if index.nlevels > 1 else [index]
        index_rows = [[] for _ in range(n)]
        for level in levels:
            texts, kinds = self.strings(self.pd.Series(level, copy=False), limits)
            for i in range(n):
                index_rows[i].append(_cut(texts[i]) if texts[i] is not None else kinds[i])
        return index_rows, cells, marks

    def sort_order(self, keys, limits):
        """Row positions in the order of ``keys`` ([(column, ascending)]), missing values last."""
        np = self.np
        notes = []
        if len(keys) == 1:
            return self._order(self.column(keys[0][0]), keys[0][1], limits, notes)[0], notes
        ranks = []
        for pos, ascending in keys:
            order, starts = self._order(self.column(pos), ascending, limits, notes, True)
            rank = np.empty(self.n_rows, dtype=np.int64)
            rank[order] = np.cumsum(starts)  # equal values share a rank, for the next key
            ranks.append(rank)
        return np.lexsort(ranks[::-1]), notes  # lexsort's last key is the first

    def _order(self, series, ascending, limits, notes, groups=False):
        """One column's stable order: numbers, times and categories by NumPy, the rest by
        Python's sort (strings compare fast there); values that do not compare, as text.

        Returns (positions, starts): with ``groups``, ``starts`` marks where each run of equal
        values begins in that order (the missing values are one run, last); otherwise None."""
        np = self.np
        pd = self.pd
        missing = series.isna().to_numpy(dtype=bool)
        present = np.flatnonzero(~missing)
        dtype = series.dtype
        kind = getattr(dtype, "kind", "O")
        keys = None
        if isinstance(dtype, pd.CategoricalDtype):
            keys = series.cat.codes.to_numpy()[present]
        elif kind in "biuf":
            keys = series.to_numpy()[present]
        elif kind in "mM":
            unit = "datetime64[ns]" if kind == "M" else "timedelta64[ns]"
            keys = series.to_numpy(dtype=unit)[present]
        if keys is not None:
            if ascending:
                order = np.argsort(keys, kind="stable")
            else:  # stable and descending: sort the reversed keys, then reverse back
                order = (len(keys) - 1 - np.argsort(keys[::-1], kind="stable"))[::-1]
            ordered = keys[order]
            differs = (ordered[1:] != ordered[:-1]) if groups else None
        else:
            values = series.to_numpy(dtype=object)[present].tolist()
            try:
                order = sorted(range(len(values)), key=values.__getitem__,
                               reverse=not ascending)
            except TypeError:
                texts = [v if type(v) is str else _cell_text(v, limits) for v in values]
                values = texts
                order = sorted(range(len(texts)), key=texts.__getitem__, reverse=not ascending)
                notes.append("Sorted %s as text: its values do not compare (numbers and "
                             "strings, say)." % _label(series.name))
            differs = np.fromiter((values[a] != values[b] for a, b in zip(order[1:], order)),
                                  dtype=bool, count=max(0, len(order) - 1)) if groups else None
            order = np.asarray(order, dtype=np.int64)
        positions = np.concatenate([present[order], np.flatnonzero(missing)])
        if not groups:
            return positions, None
        starts = np.zeros(len(positions), dtype=bool)
        if len(order):
            starts[0] = True
            starts[1:len(order)] = differs
        if len(order) < len(positions):
            starts[len(order)] = True
        return positions, starts

    def match(self, needle, cols, limits):
        """A boolean array: the rows where any of ``cols`` contains ``needle`` (lower case)."""
        np = self.np
        mask = np.zeros(self.n_rows, dtype=bool)
        for pos in cols:
            series = self.column(pos)
            if not _may_contain(series.dtype, needle, self.pd):
                continue
            mask |= self._contains(series, needle, limits)
        return mask

    def _contains(self, series, needle, limits):
        """Where one column's display text contains ``needle``, a chunk of rows at a time."""
        np = self.np
        n = len(series)
        missing = series.isna().to_numpy(dtype=bool)
        dtype = series.dtype
        kind = getattr(dtype, "kind", "O")
        if isinstance(dtype, self.pd.CategoricalDtype):
            kind = "O"
        values = series.to_numpy() if kind in "iufbM" else None
        found = np.zeros(n, dtype=bool)
        for at in range(0, n, CHUNK_ROWS):
            if kind in "iub" or (kind == "f" and dtype.itemsize == 8):
                texts = list(map(str, values[at:at + CHUNK_ROWS].tolist()))
            elif kind == "M" and not getattr(dtype, "tz", None):
                texts = np.datetime_as_string(values[at:at + CHUNK_ROWS], unit="s").tolist()
                texts = [t.replace("T", " ") for t in texts]
            elif dtype == object:
                texts = [v if type(v) is str else _cell_text(v, limits)
                         for v in series.iloc[at:at + CHUNK_ROWS].tolist()]
            else:
                texts, _ = self.strings(series.iloc[at:at + CHUNK_ROWS], limits)
            found[at:at + len(texts)] = _rows_containing(np, texts, needle)
        return found & ~missing

    def summary(self, pos, limits):
        pd = self.pd
        series = self.column(pos)
        out = {"missing": int(series.isna().sum()), "min": None, "max": None, "mean": None,
               "distinct": None}
        is_bool = pd.api.types.is_bool_dtype(series.dtype)
        if pd.api.types.is_numeric_dtype(series.dtype) and not is_bool:
            try:
                out["mean"] = _finite(series.mean())
            except (TypeError, ValueError):
                pass
        present = series.dropna() if series.dtype == object else series
        for name in ("min", "max"):
            try:
                value = getattr(present, name)()
            except (TypeError, ValueError):
                continue
            if _missing_kind(value) is None:
                out[name] = _cut(_cell_text(value, limits))
        try:
            out["distinct"] = int(series.nunique(dropna=True))
        except TypeError:  # unhashable values (lists, dicts)
            pass
        return out


def _rows_containing(np, texts, needle):
    """A boolean array: which of ``texts`` (None for none) contain ``needle``, ignoring case.

    The texts are joined and searched as one string, so the loop runs per match in C rather
    than per row in Python; a needle holding the separator is searched row by row.
    """
    if "\n" in needle:
        return np.fromiter((t is not None and needle in t.lower() for t in texts), dtype=bool,
                           count=len(texts))
    texts = ["" if t is None else t for t in texts]
    joined = "\n".join(texts).lower()
    found = np.zeros(len(texts), dtype=bool)
    if needle not in joined:
        return found
    ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1)
    starts = []
    at = joined.find(needle)
    while at >= 0:
        starts.append(at)
        at = joined.find(needle, at + 1)
    found[np.searchsorted(ends, np.asarray(starts, dtype=np.int64), side="right")] = True
    return found


def _may_contain(dtype, needle, pd):
    """False when no value of this numeric or boolean dtype can print as text containing needle."""
    try:
        if pd.api.types.is_bool_dtype(dtype):
            return needle in "true" or needle in "false"
        if getattr(dtype, "kind", "O") in "mM" and not getattr(dtype, "tz", None):
            return all(ch in "0123456789-: ." for ch in needle)
        if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype):
            return all(ch in "0123456789.-+einf" for ch in needle)
    except Exception:
        pass
    return True


def _finite(value):
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


# ---------------------------------------------------------------------------------------------
# plain Python: list, tuple, dict

class _PlainTable:
    """A list or tuple (one ``value`` column) or a dict (``key`` and ``value``), read in Python."""

    def __init__(self, obj):
        self.obj = obj
        self.is_dict = isinstance(obj, dict)
        self.n_rows = len(obj)
        self.n_columns = 2 if self.is_dict else 1
        self._items = None
        self._dtypes = {}

    def items(self):
        if self._items is None:
            self._items = list(self.obj.items()) if self.is_dict else self.obj
        return self._items

    def value(self, item, pos):
        return item[pos] if self.is_dict else item

    def column_name(self, pos):
        return ("key", "value")[pos] if self.is_dict else "value"

    def column_dtype(self, pos):
        if pos not in self._dtypes:
            seen = []
            for i, item in enumerate(self.items()):
                if i >= 1000:
                    break
                name = type_name(self.value(item, pos))
                if name not in seen:
                    seen.append(name)
            self._dtypes[pos] = seen[0] if len(seen) == 1 else "object"
        return self._dtypes[pos]

    def index_names(self):
        return [""]

    def page(self, rows, cols, limits):
        items = self.items()
        index_rows, cells, marks = [], [], []
        for i, position in enumerate(rows):
            item = items[position]
            index_rows.append([str(position)])
            row = []
            for j, pos in enumerate(cols):
                value = self.value(item, pos)
                kind = _missing_kind(value)
                if kind is not None:
                    row.append(None)
                    marks.append([i, j, kind])
                else:
                    row.append(_cut(_cell_text(value, limits)))
            cells.append(row)
        return index_rows, cells, marks

    def sort_order(self, keys, limits):
        items = self.items()
        order = list(range(self.n_rows))
        notes = []
        for pos, ascending in reversed(keys):  # stable sorts, the last key first
            values = [self.value(item, pos) for item in items]
            present = [i for i in order if _missing_kind(values[i]) is None]
            absent = [i for i in order if _missing_kind(values[i]) is not None]
            try:
                present.sort(key=values.__getitem__, reverse=not ascending)
            except TypeError:
                texts = {i: _cell_text(values[i], limits) for i in present}
                present.sort(key=texts.__getitem__, reverse=not ascending)
                notes.append("Sorted %s as text: its values do not compare (numbers and "
                             "strings, say)." % self.column_name(pos))
            order = present + absent
        return order, notes

    def match(self, needle, cols, limits):
        mask = []
        for item in self.items():
            hit = False
            for pos in cols:
                value = self.value(item, pos)
                if _missing_kind(value) is None and needle in _cell_text(value, limits).lower():
                    hit = True
                    break
            mask.append(hit)
        return mask

    def summary(self, pos, limits):
        values = [self.value(item, pos) for item in self.items()]
        present = [v for v in values if _missing_kind(v) is None]
        out = {"missing": len(values) - len(present), "min": None, "max": None, "mean": None,
               "distinct": None}
        if present:
            try:
                out["min"] = _cut(_cell_text(min(present), limits))
                out["max"] = _cut(_cell_text(max(present), limits))
            except TypeError:
                pass
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
                out["mean"] = _finite(math.fsum(present) / len(present))
        try:
            out["distinct"] = len(set(present))
        except TypeError:
            pass
        return out


# ---------------------------------------------------------------------------------------------
# opening an object

def _open(obj, expression):
    """(table, kind, shape) for a viewable object; a bad_argument ToolError for anything else."""
    if isinstance(obj, dict):
        return _PlainTable(obj), "dict", [len(obj)]
    if isinstance(obj, (list, tuple)):
        return _PlainTable(obj), "tuple" if isinstance(obj, tuple) else "list", [len(obj)]
    pd = sys.modules.get("pandas")
    np = sys.modules.get("numpy")
    if pd is not None and isinstance(obj, pd.DataFrame):
        return _FrameTable(obj, pd, np), "DataFrame", list(obj.shape)
    if pd is not None and isinstance(obj, pd.Series):
        name = obj.name if obj.name is not None else "value"
        return _FrameTable(obj.to_frame(name=name), pd, np), "Series", [len(obj)]
    if np is not None and isinstance(obj, np.ndarray):
        if not 1 <= obj.ndim <= 2:
            raise ToolError("%s shows arrays of one or two dimensions; %s has %d (shape %s). "
                            "Open a slice of it, like %s[0]."
                            % (TOOL, expression, obj.ndim, tuple(obj.shape), expression),
                            kind="bad_argument")
        pd = require("pandas", "%s, for NumPy arrays," % TOOL)
        if obj.ndim == 1:
            frame = pd.Series(obj, copy=False).to_frame(name="value")
        else:
            frame = pd.DataFrame(obj, copy=False)
        return _FrameTable(frame, pd, np), "ndarray", list(obj.shape)
    raise ToolError("%s opens DataFrames, Series, NumPy arrays (1-D or 2-D), lists, tuples and "
                    "dicts; %s is %s." % (TOOL, expression, type_name(obj)), kind="bad_argument")


# ---------------------------------------------------------------------------------------------
# the row-order cache

_orders = collections.OrderedDict()


def _generation():
    """The session's execution count: a cell run since a view was cached may have changed it."""
    shell = ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None


def _cached(obj, table, what, compute):
    """``compute()`` once per object, shape, execution count and ``what``; a few kept at a time."""
    generation = _generation()
    for stale in [k for k in _orders if k[3] != generation]:
        del _orders[stale]  # a cell has run since: those orders may no longer hold
    key = (id(obj), table.n_rows, table.n_columns, generation, what)
    entry = _orders.get(key)
    if entry is not None:
        ref, value = entry
        if ref is None or ref() is obj:
            _orders.move_to_end(key)
            return value
        del _orders[key]
    value = compute()
    try:
        ref = weakref.ref(obj)
    except TypeError:  # lists, dicts and tuples take no weak reference: id and length must do
        ref = None
    _orders[key] = (ref, value)
    while len(_orders) > CACHE_ENTRIES:
        _orders.popitem(last=False)
    return value


def forget_views():
    """Drop every cached row order (tests, and a namespace reset)."""
    _orders.clear()


# ---------------------------------------------------------------------------------------------
# arguments

def _whole(value, what, low, high=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < low or \
            (high is not None and value > high):
        raise ToolError("%s must be a whole number%s." % (
            what, " from %d to %d" % (low, high) if high is not None else " of at least %d" % low),
            kind="bad_argument")
    return value


def _column_position(table, name, names):
    if not isinstance(name, str):
        raise ToolError("A column is named by a string, got %r." % (name,), kind="bad_argument")
    if name in names:
        return names.index(name)
    import difflib
    close = difflib.get_close_matches(name, names, n=3)
    hint = " Did you mean %s?" % " or ".join(repr(c) for c in close) if close else \
        " The columns are: %s%s." % (", ".join(repr(c) for c in names[:20]),
                                     ", …" if len(names) > 20 else "")
    raise ToolError("No column named %r.%s" % (name, hint), kind="bad_argument")


def _sort_keys(sort, table, names):
    if sort is None or sort == []:
        return []
    if not isinstance(sort, list):
        raise ToolError("sort must be a list like [{\"column\": \"price\", \"ascending\": true}].",
                        kind="bad_argument")
    keys = []
    for spec in sort:
        if not isinstance(spec, dict) or "column" not in spec:
            raise ToolError("Each sort entry is {\"column\": name, \"ascending\": true|false}.",
                            kind="bad_argument")
        ascending = spec.get("ascending", True)
        if not isinstance(ascending, bool):
            raise ToolError("ascending must be true or false.", kind="bad_argument")
        keys.append((_column_position(table, spec["column"], names), ascending))
    return keys


def _column_window(columns, table):
    if columns is None:
        return 0, min(table.n_columns, DEFAULT_COLUMNS)
    if not isinstance(columns, dict):
        raise ToolError("columns must be {\"start\": n, \"count\": n} or null.",
                        kind="bad_argument")
    start = _whole(columns.get("start", 0), "columns.start", 0)
    count = _whole(columns.get("count", DEFAULT_COLUMNS), "columns.count", 0, MAX_COLUMNS)
    start = min(start, table.n_columns)
    return start, min(count, table.n_columns - start)


def _filter_spec(spec, table, names, window):
    """(needle in lower case, column positions) or None for no filter."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ToolError("filter must be {\"text\": \"…\", \"column\": name or null} or null.",
                        kind="bad_argument")
    text = spec.get("text")
    if text is None or text == "":
        return None
    if not isinstance(text, str):
        raise ToolError("filter.text must be a string.", kind="bad_argument")
    column = spec.get("column")
    if column is None:
        return text.lower(), list(window)
    return text.lower(), [_column_position(table, column, names)]


# ---------------------------------------------------------------------------------------------
# the tools

def data_page(ns, expression, offset=0, limit=DEFAULT_LIMIT, sort=None, filter=None,
              columns=None):
    """One page of a DataFrame, Series, array, list, tuple or dict, sorted and filtered.

    ``offset``/``limit`` (at most 500) pick rows of the sorted, filtered view; ``sort`` is
    ``[{"column", "ascending"}]``; ``filter`` is ``{"text", "column"}`` (a case-insensitive
    substring; ``column`` null searches the columns in view); ``columns`` is ``{"start",
    "count"}`` (at most 200; the first 100 when null).

    structured: ``{kind, type, shape, total_rows, filtered_rows, offset, columns: [{name, dtype,
    position}], total_columns, index_names, index: [[str]], rows: [[str | null]], missing:
    [[row, column, "NaN" | "NaT" | "None" | "NA"]], notes, elapsed_ms}``.
    """
    started = time.monotonic()
    offset = _whole(offset, "offset", 0)
    limit = _whole(limit, "limit", 0, MAX_LIMIT)
    obj = resolve_reference(ns, expression, TOOL)
    notes = []
    with quiet_output(), warnings.catch_warnings(), TimeLimits(WHOLE_S) as limits:
        warnings.simplefilter("ignore")
        table, kind, shape = _open(obj, expression)
        names = [table.column_name(pos) for pos in range(table.n_columns)]
        keys = _sort_keys(sort, table, names)
        start, count = _column_window(columns, table)
        window = range(start, start + count)
        wanted = _filter_spec(filter, table, names, window)
        try:
            with limits.limit(WHOLE_S):
                order = None
                if keys:
                    order, sort_notes = _cached(obj, table, ("sort", tuple(keys)),
                                                lambda: table.sort_order(keys, limits))
                    notes.extend(sort_notes)
                if wanted is not None:
                    mask = _cached(obj, table, ("filter", wanted[0], tuple(wanted[1])),
                                   lambda: table.match(wanted[0], wanted[1], limits))
                    order = _cached(obj, table, ("view", tuple(keys), wanted[0], tuple(wanted[1])),
                                    lambda: _select(table, order, mask))
                filtered = table.n_rows if order is None else len(order)
                end = min(filtered, offset + limit)
                if order is None:
                    rows = slice(offset, max(offset, end)) if isinstance(table, _FrameTable) \
                        else range(offset, max(offset, end))
                else:
                    rows = order[offset:max(offset, end)]
                index, cells, marks = table.page(rows, list(window), limits)
        except TimedOut:
            raise ToolError("%s gave up on %s after %g s: sorting, filtering or showing it took "
                            "too long (an object whose str() hangs?)."
                            % (TOOL, expression, WHOLE_S), kind="python_error")
    structured = {
        "kind": kind,
        "type": type_name(obj),
        "shape": shape,
        "total_rows": table.n_rows,
        "filtered_rows": filtered,
        "offset": offset,
        "columns": [{"name": names[pos], "dtype": table.column_dtype(pos), "position": pos}
                    for pos in window],
        "total_columns": table.n_columns,
        "index_names": table.index_names(),
        "index": index,
        "rows": cells,
        "missing": marks,
        "notes": notes,
        "elapsed_ms": round((time.monotonic() - started) * 1000.0, 1),
    }
    shown = "rows %d–%d of %d" % (offset, offset + len(cells) - 1, filtered) if cells else \
        "no rows at offset %d of %d" % (offset, filtered)
    if filtered != table.n_rows:
        shown += " matching %r (of %d)" % (wanted[0], table.n_rows)
    if keys:
        shown += ", sorted by " + ", ".join("%s%s" % (names[p], "" if a else " descending")
                                            for p, a in keys)
    text = "%s (%s %s): %s; columns %d–%d of %d" % (
        expression, kind, "×".join(str(s) for s in shape), shown, start,
        start + count - 1, table.n_columns)
    if notes:
        text += "\n" + "\n".join(notes)
    return text, structured


def _select(table, order, mask):
    """The positions of the rows the mask keeps, in the sorted order if there is one."""
    if isinstance(table, _FrameTable):
        np = table.np
        return np.flatnonzero(mask) if order is None else order[mask[order]]
    if order is None:
        return [i for i, keep in enumerate(mask) if keep]
    return [i for i in order if mask[i]]


def data_summary(ns, expression, columns=None):
    """Per column: dtype, missing count, min, max, mean (numbers) and distinct count.

    ``columns`` names the columns (all, up to 500, when null). structured: ``{"columns":
    [{name, dtype, missing, min, max, mean, distinct, error}], "total_columns": n}``; ``min`` and
    ``max`` are display strings; ``mean`` is null for non-numbers; ``distinct`` is null where the
    values are unhashable; ``error`` says why a column's figures are missing.
    """
    obj = resolve_reference(ns, expression, TOOL)
    out = []
    with quiet_output(), warnings.catch_warnings(), TimeLimits(SUMMARY_S) as limits:
        warnings.simplefilter("ignore")
        table, kind, shape = _open(obj, expression)
        names = [table.column_name(pos) for pos in range(table.n_columns)]
        if columns is None:
            positions = list(range(min(table.n_columns, SUMMARY_MAX_COLUMNS)))
        elif isinstance(columns, list):
            positions = [_column_position(table, name, names) for name in columns]
        else:
            raise ToolError("columns must be a list of column names, or null for all.",
                            kind="bad_argument")
        for pos in positions:
            row = {"name": names[pos], "dtype": table.column_dtype(pos), "missing": None,
                   "min": None, "max": None, "mean": None, "distinct": None, "error": None}
            try:
                with limits.limit(SUMMARY_COLUMN_S):
                    row.update(table.summary(pos, limits))
            except TimedOut:
                row["error"] = "took longer than %g s" % SUMMARY_COLUMN_S if \
                    not limits.expired() else "not computed: the summary's %g s ran out" % \
                    SUMMARY_S
            except Exception as exc:
                row["error"] = one_line(describe_exception(exc), 200)
            out.append(row)
    lines = ["%s: %d column%s summarised" % (expression, len(out), "" if len(out) == 1 else "s")]
    for row in out[:30]:
        lines.append("%s (%s): %s missing, min %s, max %s, mean %s, %s distinct" % (
            row["name"], row["dtype"], row["missing"], row["min"], row["max"], row["mean"],
            row["distinct"]))
    return "\n".join(lines), {"columns": out, "total_columns": table.n_columns, "kind": kind,
                              "shape": shape}
