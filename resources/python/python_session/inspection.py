"""``describe(name)``: what an object is, bounded so that no answer floods the model.

* DataFrame: shape, index, each column's dtype and missing count, memory, a numeric summary
  (count, mean, std, min, quartiles, max for up to 30 numeric columns), head and tail (5 rows,
  12 columns in the text; 30 columns in ``structured``).
* Series / Index: dtype, length, missing, summary, head and tail.
* numpy array: shape, dtype, memory, NaN count, min/mean/max, a thresholded print.
* statsmodels results: the ``.summary()`` text, model, nobs, parameters.
* functions, classes, methods, modules: signature, docstring (first 3,000 characters),
  where it is defined, and for classes and modules their public names.
* containers, strings, other objects: length, element types, a bounded preview.

``name`` is a variable name, or a path of attributes and constant subscripts (``df["price"]``,
``model.params``, ``frames[0]``). Calls and other expressions are refused, so that the tool only
looks: get_value evaluates any expression.
"""

import inspect
import sys
import types

from .errors import ToolError
from .formatting import (frame_text, human_bytes, one_line, safe_repr, shape_text, table,
                         truncate, type_name)
from .namespace import memory_size, resolve_reference
from .transport import clean_float, dumps, to_json

HEAD_ROWS = 5
DOC_LIMIT = 3000


def describe(ns, name):
    """Describe the object called ``name`` (or the value of the expression ``name``)."""
    obj = resolve_reference(ns, name, "describe_object")
    pd = sys.modules.get("pandas")
    np = sys.modules.get("numpy")
    if pd is not None and isinstance(obj, pd.DataFrame):
        text, info = _frame(obj, pd)
    elif pd is not None and isinstance(obj, (pd.Series, pd.Index)):
        text, info = _series(obj, pd)
    elif np is not None and isinstance(obj, np.ndarray):
        text, info = _array(obj, np)
    elif _is_statsmodels_results(obj):
        text, info = _results(obj)
    elif isinstance(obj, types.ModuleType):
        text, info = _module(obj)
    elif callable(obj) and (inspect.isroutine(obj) or isinstance(obj, type) or
                            isinstance(obj, (types.MethodType, types.BuiltinFunctionType))):
        text, info = _callable(obj)
    elif isinstance(obj, (str, bytes, bytearray)):
        text, info = _text(obj)
    elif isinstance(obj, (list, tuple, set, frozenset, dict, range)):
        text, info = _container(obj)
    else:
        text, info = _other(obj)
    kind = type_name(obj)
    structured = {"name": name, "type": kind}
    structured.update(info)
    return "%s: %s\n%s" % (name, kind, text), structured


# --- pandas ----------------------------------------------------------------------------------

def _index_info(index, pd):
    info = {"type": type_name(index), "length": len(index)}
    names = [n for n in index.names]
    if any(n is not None for n in names):
        info["names"] = to_json(names)[0]
    if isinstance(index, pd.RangeIndex):
        info["range"] = [int(index.start), int(index.stop), int(index.step)]
    elif len(index):
        info["first"] = to_json(index[0])[0]
        info["last"] = to_json(index[-1])[0]
        try:
            info["monotonic_increasing"] = bool(index.is_monotonic_increasing)
        except Exception:
            pass
    try:
        info["unique"] = bool(index.is_unique)
    except Exception:
        pass
    return info


def _summary(frame, pd):
    numeric = frame.select_dtypes(include="number")
    try:
        numeric = numeric.loc[:, [c for c in numeric.columns
                                  if not pd.api.types.is_bool_dtype(numeric[c])]]
    except Exception:
        pass
    if numeric.shape[1] == 0:
        return None, None
    numeric = numeric.iloc[:, :30]
    stats = numeric.describe().T
    structured = {}
    for col, row in stats.iterrows():
        structured[str(col)] = {str(k): clean_float(v) for k, v in row.items()}
    return stats, structured


def _frame(df, pd):
    rows, cols = df.shape
    size, approx = memory_size(df)
    missing = df.isna().sum()
    columns = []
    for i, col in enumerate(df.columns[:500]):
        columns.append({"name": to_json(col)[0], "dtype": str(df.dtypes.iloc[i]),
                        "missing": int(missing.iloc[i])})
    info = {
        "shape": [rows, cols],
        "memory_bytes": size,
        "memory_approximate": approx,
        "index": _index_info(df.index, pd),
        "columns": columns,
        "missing_total": int(missing.sum()),
    }
    if cols > 500:
        info["columns_note"] = "first 500 of %d columns listed" % cols
    stats, structured_stats = _summary(df, pd)
    if structured_stats:
        info["numeric_summary"] = structured_stats
    head = df.iloc[:HEAD_ROWS, :30]
    tail = df.iloc[max(HEAD_ROWS, rows - HEAD_ROWS):, :30]
    info["head"] = to_json(head, max_items=30)[0]
    info["tail"] = to_json(tail, max_items=30)[0] if len(tail) else None

    lines = ["%d rows × %d columns, %s in memory" % (rows, cols, human_bytes(size, approx))]
    idx = info["index"]
    lines.append("index: %s%s" % (idx["type"], ", range %s..%s" % (idx["range"][0], idx["range"][1])
                                  if "range" in idx else
                                  (", %s … %s" % (one_line(idx.get("first"), 30),
                                                  one_line(idx.get("last"), 30))
                                   if "first" in idx else "")))
    col_rows = [[str(c["name"]), c["dtype"],
                 "%d (%.1f%%)" % (c["missing"], 100.0 * c["missing"] / rows) if rows else "0"]
                for c in columns[:60]]
    lines.append(table(["column", "dtype", "missing"], col_rows, align="llr"))
    if cols > 60:
        lines.append("… and %d more columns" % (cols - 60))
    if stats is not None:
        lines.append("\nNumeric summary:")
        lines.append(frame_text(stats, max_cols=8, limit=4000))
    if rows:
        lines.append("\nHead:")
        lines.append(frame_text(df.head(HEAD_ROWS)))
        if rows > HEAD_ROWS:
            lines.append("Tail:")
            lines.append(frame_text(df.iloc[max(HEAD_ROWS, rows - HEAD_ROWS):]))
    return "\n".join(lines), info


def _series(obj, pd):
    is_index = isinstance(obj, pd.Index)
    series = pd.Series(obj) if is_index else obj
    n = len(series)
    size, approx = memory_size(obj)
    missing = int(series.isna().sum())
    info = {"length": n, "dtype": str(series.dtype), "missing": missing,
            "memory_bytes": size, "memory_approximate": approx,
            "name": to_json(obj.name)[0]}
    if not is_index:
        info["index"] = _index_info(obj.index, pd)
    lines = ["length %d, dtype %s, %d missing, %s in memory"
             % (n, series.dtype, missing, human_bytes(size, approx))]
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series) and n:
        stats = series.describe()
        info["summary"] = {str(k): clean_float(v) for k, v in stats.items()}
        lines.append("summary: " + ", ".join("%s %s" % (k, safe_repr(v, 24))
                                              for k, v in info["summary"].items()))
    else:
        try:
            uniq = int(series.nunique(dropna=True))
            info["unique"] = uniq
            lines.append("%d distinct values" % uniq)
            top = series.value_counts(dropna=True).head(5)
            info["most_common"] = [[to_json(k)[0], int(v)] for k, v in top.items()]
        except TypeError:
            pass
    info["head"] = to_json(obj[:HEAD_ROWS])[0]
    info["tail"] = to_json(obj[max(HEAD_ROWS, n - HEAD_ROWS):])[0] if n > HEAD_ROWS else None
    if n:
        lines.append("head:\n" + truncate(series.head(HEAD_ROWS).to_string(), 2000))
        if n > HEAD_ROWS:
            lines.append("tail:\n" + truncate(
                series.iloc[max(HEAD_ROWS, n - HEAD_ROWS):].to_string(), 2000))
    return "\n".join(lines), info


# --- numpy -----------------------------------------------------------------------------------

def _array(arr, np):
    info = {"shape": list(arr.shape), "dtype": str(arr.dtype), "size": int(arr.size),
            "memory_bytes": int(arr.nbytes)}
    lines = ["shape %s, dtype %s, %s" % (shape_text(arr.shape) or "()", arr.dtype,
                                         human_bytes(arr.nbytes))]
    if arr.size and arr.dtype.kind in "fiu":
        if arr.dtype.kind == "f":
            nan = int(np.isnan(arr).sum())
            info["nan"] = nan
            finite = arr[np.isfinite(arr)]
        else:
            nan = 0
            finite = arr
        if finite.size:
            info["min"] = clean_float(finite.min())
            info["max"] = clean_float(finite.max())
            info["mean"] = clean_float(finite.astype(np.float64).mean())
            lines.append("min %s, mean %s, max %s%s"
                         % (safe_repr(info["min"]), safe_repr(info["mean"]),
                            safe_repr(info["max"]), ", %d NaN" % nan if nan else ""))
    text = np.array2string(arr, threshold=60, edgeitems=3, max_line_width=120)
    lines.append(truncate(text, 3000))
    info["preview"] = to_json(arr, max_items=10)[0]
    return "\n".join(lines), info


# --- statsmodels -----------------------------------------------------------------------------

def _is_statsmodels_results(obj):
    module = type(obj).__module__ or ""
    return module.startswith("statsmodels") and hasattr(obj, "summary") and \
        hasattr(obj, "params")


def _results(res):
    info = {}
    try:
        info["model"] = type_name(res.model)
        info["nobs"] = clean_float(getattr(res, "nobs", None))
        params, _ = to_json(res.params)
        info["params"] = params
    except Exception:
        pass
    try:
        summary = res.summary()
        text = summary.as_text() if hasattr(summary, "as_text") else str(summary)
    except Exception as exc:
        text = "(summary() failed: %s)" % one_line(exc, 200)
    info["summary"] = truncate(text, 12000)
    return info["summary"], info


# --- callables and modules -------------------------------------------------------------------

def _signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return None


def _doc(obj):
    doc = inspect.getdoc(obj)
    return truncate(doc, DOC_LIMIT) if doc else None


def _where(obj):
    try:
        path = inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (TypeError, OSError):
        path = None
    try:
        line = inspect.getsourcelines(obj)[1] if path else None
    except (TypeError, OSError):
        line = None
    return path, line


def _callable(obj):
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", type_name(obj))
    sig = _signature(obj)
    doc = _doc(obj)
    path, line = _where(obj)
    info = {"signature": sig, "doc": doc, "module": getattr(obj, "__module__", None),
            "file": path, "line": line}
    lines = ["%s%s" % (name, sig or "(…)")]
    if path:
        lines.append("defined in %s%s" % (path, ":%d" % line if line else ""))
    if isinstance(obj, type):
        public = [n for n in dir(obj) if not n.startswith("_")]
        info["attributes"] = public[:80]
        lines.append("public attributes (%d): %s" % (len(public), ", ".join(public[:40]) +
                                                      (", …" if len(public) > 40 else "")))
        info["bases"] = [type_name(b) for b in obj.__mro__[1:]]
    lines.append(doc or "(no docstring)")
    return "\n".join(lines), info


def _module(mod):
    public = [n for n in dir(mod) if not n.startswith("_")]
    info = {"module": mod.__name__, "file": getattr(mod, "__file__", None),
            "version": str(getattr(mod, "__version__", "")) or None,
            "doc": _doc(mod), "attributes": public[:200], "attribute_count": len(public)}
    lines = ["module %s%s" % (mod.__name__, " %s" % info["version"] if info["version"] else "")]
    if info["file"]:
        lines.append("file: %s" % info["file"])
    lines.append("%d public names: %s" % (len(public), ", ".join(public[:40]) +
                                          (", …" if len(public) > 40 else "")))
    if info["doc"]:
        lines.append(truncate(info["doc"], 1500))
    return "\n".join(lines), info


# --- plain objects ---------------------------------------------------------------------------

def _text(obj):
    n = len(obj)
    info = {"length": n}
    if isinstance(obj, str):
        info["lines"] = obj.count("\n") + 1 if obj else 0
        info["preview"] = obj[:2000]
        text = "%d characters, %d lines\n%s" % (n, info["lines"], truncate(obj, 2000))
    else:
        info["preview"] = to_json(bytes(obj[:2000]))[0]
        text = "%d bytes\n%s" % (n, safe_repr(bytes(obj[:400]), 600))
    return text, info


def _container(obj):
    n = len(obj)
    items = list(obj.values()) if isinstance(obj, dict) else obj
    counts = {}
    for i, item in enumerate(items):
        if i >= 1000:
            break
        key = type_name(item)
        counts[key] = counts.get(key, 0) + 1
    info = {"length": n, "element_types": counts}
    if isinstance(obj, dict):
        key_types = {}
        for i, key in enumerate(obj):
            if i >= 1000:
                break
            key_types[type_name(key)] = key_types.get(type_name(key), 0) + 1
        info["key_types"] = key_types
    value, notes = to_json(obj, max_items=20, max_depth=4, max_nodes=400)
    info["preview"] = value
    info["notes"] = notes
    what = "values" if isinstance(obj, dict) else "elements"
    size, approx = memory_size(obj)
    info["memory_bytes"] = size
    lines = ["%d items, %s in memory; %s: %s" % (n, human_bytes(size, approx), what,
                                                  ", ".join("%d %s" % (v, k)
                                                            for k, v in counts.items()))]
    lines.append(dumps(value, limit=2000))
    return "\n".join(lines), info


def _other(obj):
    size, approx = memory_size(obj)
    public = []
    try:
        public = [n for n in dir(obj) if not n.startswith("_")]
    except Exception:
        pass
    value, notes = to_json(obj, max_items=20, max_depth=4, max_nodes=400)
    info = {"repr": safe_repr(obj, 500), "value": value, "attributes": public[:80],
            "memory_bytes": size, "doc": _doc(type(obj)) if type(obj).__module__ not in
            ("builtins",) else None}
    lines = [info["repr"]]
    if public:
        lines.append("public attributes (%d): %s" % (len(public), ", ".join(public[:40]) +
                                                      (", …" if len(public) > 40 else "")))
    if info["doc"]:
        lines.append(truncate(info["doc"], 1000))
    return "\n".join(lines), info
