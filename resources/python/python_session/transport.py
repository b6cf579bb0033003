"""Python values → strict JSON (RFC 8259: no NaN, no Infinity), faithfully and within bounds.

:func:`to_json` returns ``(value, notes)``. The conversions:

===========================  ================================================================
Python / numpy / pandas      JSON
===========================  ================================================================
None, bool, str              themselves (strings longer than the cap are cut, with a note)
int                          number; beyond ±2**53 a decimal *string* (JavaScript keeps every
                             digit), with a note
float, numpy floating        number written with ``repr`` (round-trips exactly); NaN, inf and
                             -inf become null and the note lists where
complex                      ``{"real": x, "imag": y}``
decimal.Decimal              number when its digits round-trip through a double, else a string
fractions.Fraction           number when exact, else ``"n/d"``
datetime / date / time       ISO 8601 string (pandas Timestamp keeps its nanoseconds)
timedelta, numpy/pandas      ISO 8601 duration, pandas style: ``P1DT2H3M4.5S`` (``-P…`` when
timedelta                    negative)
bytes, bytearray             ``{"base64": …, "utf8": …}`` (``utf8`` only when it decodes)
list, tuple, range           array (capped at ``max_items``, with a note)
set, frozenset               array, sorted when the items can be sorted
dict / Mapping               object; keys that are not strings become strings (with a note), or
                             an array of ``[key, value]`` pairs if that would merge keys
dataclass, namedtuple        object of its fields
enum member                  ``"Class.NAME"``
numpy ndarray                nested arrays (capped per axis and in total)
pandas DataFrame             ``{"columns", "index", "data": [[row]…], "dtypes"}``
pandas Series                ``{"name", "index", "values", "dtype"}``
pandas Index                 array of labels
pandas Categorical           ``{"categories", "ordered", "values"}``
NaT, pd.NA                   null
anything else                its ``repr`` (bounded), with a note
===========================  ================================================================

Cycles become ``"<cycle: list>"``, depth beyond ``max_depth`` becomes ``"<list at depth
limit>"``, and every cap that bites adds a note, so the reader always knows what is missing.
"""

import base64
import collections.abc
import dataclasses
import datetime
import decimal
import enum
import fractions
import math
import sys

from .formatting import safe_repr, type_name

MAX_SAFE_INT = 2 ** 53

DEFAULTS = {
    "max_depth": 20,
    "max_items": 1000,
    "max_nodes": 50000,
    "max_string": 20000,
}


def _np():
    return sys.modules.get("numpy")


def _pd():
    return sys.modules.get("pandas")


def iso_duration(total_ns):
    """ISO 8601 duration from a whole number of nanoseconds, in pandas' ``isoformat`` style."""
    sign = "-" if total_ns < 0 else ""
    total_ns = abs(int(total_ns))
    days, rem = divmod(total_ns, 86400 * 10 ** 9)
    hours, rem = divmod(rem, 3600 * 10 ** 9)
    minutes, rem = divmod(rem, 60 * 10 ** 9)
    seconds, frac = divmod(rem, 10 ** 9)
    sec = str(seconds)
    if frac:
        sec += "." + ("%09d" % frac).rstrip("0")
    return "%sP%dDT%dH%dM%sS" % (sign, days, hours, minutes, sec)


def _timedelta_ns(td):
    """Nanoseconds in a datetime.timedelta (pandas Timedelta keeps its own nanoseconds)."""
    pd = _pd()
    if pd is not None and isinstance(td, pd.Timedelta):
        return int(td.value)
    return ((td.days * 86400 + td.seconds) * 10 ** 6 + td.microseconds) * 1000


class Converter:
    """One conversion: holds the caps, the running count of values, and the notes."""

    def __init__(self, max_depth=None, max_items=None, max_nodes=None, max_string=None):
        self.max_depth = max_depth or DEFAULTS["max_depth"]
        self.max_items = max_items or DEFAULTS["max_items"]
        self.max_nodes = max_nodes or DEFAULTS["max_nodes"]
        self.max_string = max_string or DEFAULTS["max_string"]
        self.nodes = 0
        self.nonfinite = {"NaN": [], "inf": [], "-inf": []}
        self.nonfinite_count = {"NaN": 0, "inf": 0, "-inf": 0}
        self.notes = []
        self._note_keys = set()
        self._active = set()

    # -- notes -------------------------------------------------------------------------------
    def note(self, text, key=None):
        key = key or text
        if key in self._note_keys:
            return
        self._note_keys.add(key)
        self.notes.append(text)

    def _nonfinite(self, x, path):
        kind = "NaN" if x != x else ("inf" if x > 0 else "-inf")
        self.nonfinite_count[kind] += 1
        if len(self.nonfinite[kind]) < 10:
            self.nonfinite[kind].append(path)
        return None

    def add_nonfinite(self, kind, count, paths):
        self.nonfinite_count[kind] += count
        room = 10 - len(self.nonfinite[kind])
        if room > 0:
            self.nonfinite[kind].extend(paths[:room])

    def final_notes(self):
        out = []
        for kind in ("NaN", "inf", "-inf"):
            n = self.nonfinite_count[kind]
            if n:
                where = ", ".join(self.nonfinite[kind])
                more = " …" if n > len(self.nonfinite[kind]) else ""
                out.append("%d %s value%s became null (JSON has no %s): at %s%s"
                           % (n, kind, "" if n == 1 else "s", kind, where, more))
        return out + self.notes

    # -- scalars -----------------------------------------------------------------------------
    def _int(self, x, path):
        if -MAX_SAFE_INT <= x <= MAX_SAFE_INT:
            return x
        self.note("integers beyond ±2**53 are given as decimal strings, so no digit is lost "
                  "(first at %s)" % path, key="bigint")
        try:
            return str(x)
        except ValueError:  # more digits than sys.int_info allows to print
            return "<int of %d bits>" % x.bit_length()

    def _float(self, x, path):
        if math.isfinite(x):
            return x
        return self._nonfinite(x, path)

    def _string(self, s, path):
        if len(s) > self.max_string:
            self.note("%s: string cut to %d of %d characters" % (path, self.max_string, len(s)))
            return s[: self.max_string]
        return s

    def _decimal(self, d, path):
        if not d.is_finite():
            if d.is_nan():
                return self._nonfinite(float("nan"), path)
            return self._nonfinite(float(d), path)
        f = float(d)
        if math.isfinite(f) and decimal.Decimal(repr(f)) == d:
            return f
        self.note("Decimal values whose digits a double cannot hold are given as strings "
                  "(first at %s)" % path, key="decimal")
        return str(d)

    def _fraction(self, q, path):
        f = float(q)
        if fractions.Fraction(f) == q:
            return f
        self.note("Fractions that a double cannot hold exactly are given as \"n/d\" strings "
                  "(first at %s)" % path, key="fraction")
        return "%d/%d" % (q.numerator, q.denominator)

    def _bytes(self, b, path):
        b = bytes(b)
        cut = False
        if len(b) > self.max_string:
            self.note("%s: bytes cut to %d of %d" % (path, self.max_string, len(b)))
            b = b[: self.max_string]
            cut = True
        out = {"base64": base64.b64encode(b).decode("ascii")}
        try:
            out["utf8"] = b.decode("utf-8")
        except UnicodeDecodeError:
            if cut:  # the cut may have split a character
                try:
                    out["utf8"] = b[:-3].decode("utf-8") if len(b) > 3 else None
                except UnicodeDecodeError:
                    pass
        if out.get("utf8") is None:
            out.pop("utf8", None)
        return out

    # -- the dispatcher ----------------------------------------------------------------------
    def convert(self, obj, path="$", depth=0):
        self.nodes += 1
        if obj is None or isinstance(obj, bool):
            return obj
        if isinstance(obj, str):
            return self._string(str(obj), path)
        if isinstance(obj, int) and not isinstance(obj, enum.Enum):
            return self._int(int(obj), path)
        if isinstance(obj, float):
            return self._float(float(obj), path)

        np = _np()
        pd = _pd()
        if np is not None and isinstance(obj, np.generic):
            return self._numpy_scalar(obj, path)
        if pd is not None:
            if obj is pd.NaT or obj is getattr(pd, "NA", object()):
                return None
        if isinstance(obj, datetime.datetime):
            return obj.isoformat()
        if isinstance(obj, (datetime.date, datetime.time)):
            return obj.isoformat()
        if isinstance(obj, datetime.timedelta):
            return iso_duration(_timedelta_ns(obj))
        if isinstance(obj, complex):
            return {"real": self._float(obj.real, path + ".real"),
                    "imag": self._float(obj.imag, path + ".imag")}
        if isinstance(obj, decimal.Decimal):
            return self._decimal(obj, path)
        if isinstance(obj, fractions.Fraction):
            return self._fraction(obj, path)
        if isinstance(obj, (bytes, bytearray, memoryview)):
            return self._bytes(obj, path)
        if isinstance(obj, enum.Enum):
            return "%s.%s" % (type(obj).__name__, obj.name)

        if depth >= self.max_depth:
            self.note("nesting deeper than %d levels is cut (first at %s)"
                      % (self.max_depth, path), key="depth")
            return "<%s at depth limit>" % type_name(obj)

        if np is not None and isinstance(obj, np.ndarray):
            return self._ndarray(obj, path)
        if pd is not None:
            special = self._pandas(obj, path, depth, pd)
            if special is not _NOT_PANDAS:
                return special

        oid = id(obj)
        if oid in self._active:
            self.note("a container that holds itself is shown as \"<cycle: …>\" (at %s)" % path,
                      key="cycle")
            return "<cycle: %s>" % type_name(obj)
        self._active.add(oid)
        try:
            return self._container(obj, path, depth)
        finally:
            self._active.discard(oid)

    def _container(self, obj, path, depth):
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # namedtuple
            return self._mapping(dict(zip(obj._fields, obj)), path, depth)
        if isinstance(obj, (list, tuple, range, collections.deque)):
            return self._sequence(obj, path, depth)
        if isinstance(obj, (set, frozenset)):
            items = list(obj)
            try:
                items.sort()
            except TypeError:
                pass
            return self._sequence(items, path, depth)
        if isinstance(obj, collections.abc.Mapping):
            return self._mapping(obj, path, depth)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            fields = {}
            for field in dataclasses.fields(obj):
                fields[field.name] = getattr(obj, field.name, None)
            return self._mapping(fields, path, depth)
        if hasattr(obj, "__fspath__") or type_name(obj) in ("uuid.UUID",):
            return str(obj)
        self.note("values JSON cannot hold are given as their repr (first: %s at %s)"
                  % (type_name(obj), path), key="repr")
        return safe_repr(obj, 500)

    def _budget_left(self):
        return self.max_nodes - self.nodes

    def _sequence(self, seq, path, depth):
        n = len(seq)
        limit = min(n, self.max_items)
        out = []
        for i in range(limit):
            if self.nodes >= self.max_nodes:
                limit = i
                break
            out.append(self.convert(seq[i], "%s[%d]" % (path, i), depth + 1))
        if limit < n:
            self.note("%s: showing the first %d of %d items" % (path, limit, n))
        return out

    def _mapping(self, mapping, path, depth):
        keys = list(mapping.keys())
        n = len(keys)
        limit = min(n, self.max_items)
        str_keys = []
        converted_keys = False
        for key in keys[:limit]:
            if isinstance(key, str):
                str_keys.append(key)
            else:
                converted_keys = True
                str_keys.append(self._key_text(key))
        if converted_keys and len(set(str_keys)) < len(str_keys):
            # Turning keys into strings would merge some: keep them apart as pairs.
            pairs = []
            for i, key in enumerate(keys[:limit]):
                if self.nodes >= self.max_nodes:
                    limit = i
                    break
                sub = "%s[%d]" % (path, i)
                pairs.append([self.convert(key, sub + "[0]", depth + 1),
                              self.convert(mapping[key], sub + "[1]", depth + 1)])
            self.note("%s: a mapping whose keys would collide as strings is given as "
                      "[key, value] pairs" % path)
            if limit < n:
                self.note("%s: showing the first %d of %d items" % (path, limit, n))
            return pairs
        if converted_keys:
            self.note("keys that are not strings became strings (first at %s)" % path,
                      key="keys")
        out = {}
        for i, key in enumerate(keys[:limit]):
            if self.nodes >= self.max_nodes:
                limit = i
                break
            text = str_keys[i]
            out[text] = self.convert(mapping[key], _child_path(path, text), depth + 1)
        if limit < n:
            self.note("%s: showing the first %d of %d items" % (path, limit, n))
        return out

    def _key_text(self, key):
        if isinstance(key, float) and math.isfinite(key):
            return repr(key)
        value = self.convert(key, "<key>", self.max_depth - 1)
        if isinstance(value, str):
            return value
        if value is None:
            return "null" if key is None else str(key)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return repr(value)
        return safe_repr(key, 200)

    # -- numpy ---------------------------------------------------------------------------------
    def _numpy_scalar(self, x, path):
        np = _np()
        if isinstance(x, np.bool_):
            return bool(x)
        if isinstance(x, np.datetime64):
            if np.isnat(x):
                return None
            return str(np.datetime_as_string(x, unit="auto"))
        if isinstance(x, np.timedelta64):  # a subclass of np.signedinteger: test it first
            if np.isnat(x):
                return None
            return self._timedelta64(x)
        if isinstance(x, np.integer):
            return self._int(int(x), path)
        if isinstance(x, np.floating):
            if x.dtype.itemsize > 8:
                self.note("long double values are given at double precision (first at %s)"
                          % path, key="longdouble")
            return self._float(float(x), path)
        if isinstance(x, np.complexfloating):
            return {"real": self._float(float(x.real), path + ".real"),
                    "imag": self._float(float(x.imag), path + ".imag")}
        if isinstance(x, np.str_):
            return self._string(str(x), path)
        if isinstance(x, np.bytes_):
            return self._bytes(bytes(x), path)
        if isinstance(x, np.void):
            return self._string(safe_repr(x, 500), path)
        return self.convert(x.item(), path)

    def _timedelta64(self, x):
        np = _np()
        unit = np.datetime_data(x.dtype)[0]
        if unit in ("Y", "M", "generic"):
            return str(x)
        return iso_duration(int(x.astype("timedelta64[ns]").astype("int64")))

    def _ndarray(self, arr, path):
        np = _np()
        if arr.ndim == 0:
            return self.convert(arr[()], path)
        original = arr.shape
        # Cap each axis at max_items, then the first axis so the total fits the node budget.
        index = tuple(slice(0, min(n, self.max_items)) for n in arr.shape)
        arr = arr[index]
        per_row = int(np.prod(arr.shape[1:])) if arr.ndim > 1 else 1
        room = max(1, self._budget_left())
        if arr.size > room:
            arr = arr[: max(1, room // max(1, per_row))]
        if arr.shape != original:
            self.note("%s: array of shape %s cut to %s" % (path, tuple(original), tuple(arr.shape)))
        self.nodes += int(arr.size)
        kind = arr.dtype.kind
        if kind == "f":
            if arr.dtype.itemsize > 8:
                self.note("long double values are given at double precision (first at %s)"
                          % path, key="longdouble")
            arr = arr.astype(np.float64)
            finite = np.isfinite(arr)
            if not finite.all():
                for label, mask in (("NaN", np.isnan(arr)), ("inf", np.isposinf(arr)),
                                    ("-inf", np.isneginf(arr))):
                    count = int(mask.sum())
                    if count:
                        where = np.argwhere(mask)[:10]
                        paths = [path + "".join("[%d]" % i for i in pos) for pos in where]
                        self.add_nonfinite(label, count, paths)
                obj = arr.astype(object)
                obj[~finite] = None
                return obj.tolist()
            return arr.tolist()
        if kind == "b":
            return arr.tolist()
        if kind in "iu":
            if arr.size and (int(arr.max()) > MAX_SAFE_INT or int(arr.min()) < -MAX_SAFE_INT):
                return self._each(arr, path)
            return arr.tolist()
        if kind == "M":
            return datetime_strings(arr)
        return self._each(arr, path)

    def _each(self, arr, path):
        """Element by element (object, complex, timedelta, string, long double arrays)."""
        self.nodes -= int(arr.size)  # convert() counts each element itself

        def walk(a, p):
            if a.ndim == 1:
                return [self.convert(a[i], "%s[%d]" % (p, i), 1) for i in range(a.shape[0])]
            return [walk(a[i], "%s[%d]" % (p, i)) for i in range(a.shape[0])]

        return walk(arr, path)

    # -- pandas --------------------------------------------------------------------------------
    def _pandas(self, obj, path, depth, pd):
        if isinstance(obj, pd.DataFrame):
            return self._frame(obj, path)
        if isinstance(obj, pd.Series):
            values, index = self._series_parts(obj, path)
            out = {"name": self.convert(obj.name, path + ".name", depth + 1),
                   "dtype": str(obj.dtype), "index": index, "values": values}
            return out
        if isinstance(obj, pd.Index):
            n = len(obj)
            limit = min(n, self.max_items, max(1, self._budget_left()))
            if limit < n:
                self.note("%s: showing the first %d of %d index labels" % (path, limit, n))
            return self._labels(obj[:limit], path)
        if isinstance(obj, pd.Categorical):
            n = len(obj)
            limit = min(n, self.max_items, max(1, self._budget_left()))
            if limit < n:
                self.note("%s: showing the first %d of %d values" % (path, limit, n))
            return {"categories": self._labels(obj.categories, path + ".categories"),
                    "ordered": bool(obj.ordered),
                    "values": self._column(pd.Series(obj[:limit]), path + ".values")}
        if isinstance(obj, pd.Timedelta):
            return iso_duration(int(obj.value))
        if isinstance(obj, pd.Timestamp):
            return obj.isoformat()
        if isinstance(obj, (pd.Period, pd.Interval)):
            return str(obj)
        if hasattr(pd, "api") and isinstance(obj, pd.api.extensions.ExtensionArray):
            return self._column(pd.Series(obj), path)
        return _NOT_PANDAS

    def _labels(self, index, path):
        pd = _pd()
        if isinstance(index, pd.MultiIndex):
            return [self.convert(list(t), "%s[%d]" % (path, i), 1)
                    for i, t in enumerate(index)]
        return self._column(pd.Series(index, copy=False), path)

    def _series_parts(self, series, path):
        n = len(series)
        limit = min(n, self.max_items, max(1, self._budget_left() // 2))
        if limit < n:
            self.note("%s: showing the first %d of %d values" % (path, limit, n))
            series = series.iloc[:limit]
        return self._column(series, path + ".values"), self._labels(series.index, path + ".index")

    def _frame(self, frame, path):
        nrows, ncols = frame.shape
        ncols_out = min(ncols, 200, self.max_items)
        budget = max(1, self._budget_left())
        nrows_out = min(nrows, self.max_items, max(1, budget // max(1, ncols_out + 1)))
        part = frame.iloc[:nrows_out, :ncols_out]
        if nrows_out < nrows:
            self.note("%s: showing the first %d of %d rows" % (path, nrows_out, nrows))
        if ncols_out < ncols:
            self.note("%s: showing the first %d of %d columns" % (path, ncols_out, ncols))
        columns = []
        for j in range(part.shape[1]):
            columns.append(self._column(part.iloc[:, j], None, row_path="%s.data" % path,
                                        col=j, col_label=part.columns[j]))
        data = [list(row) for row in zip(*columns)] if columns else [[] for _ in range(len(part))]
        out = {
            "columns": self._labels(part.columns, path + ".columns"),
            "index": self._labels(part.index, path + ".index"),
            "data": data,
            "dtypes": [str(t) for t in part.dtypes],
        }
        names = [n for n in part.index.names]
        if any(n is not None for n in names):
            out["index_names"] = self.convert(names, path + ".index_names", 1)
        return out

    def _column(self, series, path, row_path=None, col=None, col_label=None):
        """A pandas Series' values as a list, vectorised for the common dtypes."""
        np = _np()
        pd = _pd()
        dtype = series.dtype
        self.nodes += len(series)

        def where(i):
            if row_path is not None:
                return "%s[%d][%d] (column %s)" % (row_path, i, col, _label(col_label))
            return "%s[%d]" % (path, i)

        kind = getattr(dtype, "kind", "O")
        is_numpy = isinstance(dtype, np.dtype)
        if is_numpy and kind == "f":
            arr = series.to_numpy()
            finite = np.isfinite(arr)
            if finite.all():
                return arr.astype(np.float64).tolist()
            for label, mask in (("NaN", np.isnan(arr)), ("inf", np.isposinf(arr)),
                                ("-inf", np.isneginf(arr))):
                count = int(mask.sum())
                if count:
                    idx = np.flatnonzero(mask)[:10]
                    self.add_nonfinite(label, count, [where(int(i)) for i in idx])
            obj = arr.astype(np.float64).astype(object)
            obj[~finite] = None
            return obj.tolist()
        if is_numpy and kind == "b":
            return series.to_numpy().tolist()
        if is_numpy and kind in "iu":
            arr = series.to_numpy()
            if len(arr) and (int(arr.max()) > MAX_SAFE_INT or int(arr.min()) < -MAX_SAFE_INT):
                return [self._int(int(v), where(i)) for i, v in enumerate(arr)]
            return arr.tolist()
        if isinstance(dtype, pd.CategoricalDtype):
            cats = self._labels(dtype.categories, (path or row_path) + ".categories")
            codes = series.cat.codes.to_numpy()
            return [cats[c] if c >= 0 else None for c in codes.tolist()]
        if kind == "M":
            if is_numpy:
                return datetime_strings(series.to_numpy())
            return [None if v is pd.NaT else v.isoformat() for v in series]
        if kind == "m":
            vals = series.to_numpy()
            nat = np.isnat(vals)
            ints = vals.astype("timedelta64[ns]").astype("int64")
            return [None if nat[i] else iso_duration(int(ints[i])) for i in range(len(vals))]
        # object, strings, nullable extension types, periods, intervals…
        self.nodes -= len(series)
        if isinstance(dtype, pd.StringDtype):  # missing strings are missing, not NaN numbers
            values = series.to_numpy(dtype=object, na_value=None)
        else:
            values = series.to_numpy(dtype=object) if not is_numpy else series.to_numpy()
        return [self.convert(v, where(i), 1) for i, v in enumerate(values)]


_PER_SECOND = {"s": 1, "ms": 10 ** 3, "us": 10 ** 6, "ns": 10 ** 9}


def datetime_strings(arr):
    """ISO strings for a numpy datetime64 array, one precision for all (None for NaT).

    Dates only when every value is at midnight, else seconds, milli-, micro- or nanoseconds:
    the coarsest unit that shows every value exactly.
    """
    np = _np()
    arr = np.asarray(arr)
    nat = np.isnat(arr)
    unit = np.datetime_data(arr.dtype)[0]
    if unit in _PER_SECOND or unit in ("m", "h"):
        per_second = _PER_SECOND.get(unit)
        ticks = arr.view("int64")[~nat]
        chosen = unit
        if per_second is None:  # minutes or hours
            chosen = "D" if not ((ticks % (1440 if unit == "m" else 24)) != 0).any() else "m"
        else:
            day = 86400 * per_second
            if not (ticks % day).any():
                chosen = "D"
            else:
                for candidate in ("s", "ms", "us", "ns"):
                    step = per_second // _PER_SECOND[candidate] if \
                        _PER_SECOND[candidate] <= per_second else None
                    if step and not (ticks % step).any():
                        chosen = candidate
                        break
        text = np.datetime_as_string(arr, unit=chosen)
    else:
        text = np.datetime_as_string(arr, unit="auto")
    out = text.astype(object)
    out[nat] = None
    return out.tolist()


_NOT_PANDAS = object()


def _label(label):
    return repr(label) if isinstance(label, str) else safe_repr(label, 40)


def _child_path(path, key):
    if key.isidentifier():
        return "%s.%s" % (path, key)
    return "%s[%s]" % (path, _json_quote(key))


def _json_quote(text):
    import json
    return json.dumps(text, ensure_ascii=False)


def to_json(obj, **caps):
    """``(value, notes)``: ``obj`` as strict JSON data, and the notes on what was changed."""
    conv = Converter(**caps)
    value = conv.convert(obj)
    return value, conv.final_notes()


def dumps(value, limit=None):
    """Strict JSON text (raises on NaN); cut to ``limit`` characters when given."""
    import json
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "… [%d more characters]" % (len(text) - limit)
    return text


def clean_float(x):
    """A float for a structured result: None for NaN/inf/None, a Python float otherwise."""
    if x is None:
        return None
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None
