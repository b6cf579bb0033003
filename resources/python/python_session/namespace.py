"""The user namespace: finding it, listing it, evaluating in it, clearing it.

Tools: ``value(expression)``, ``list_names()``, ``reset()``.

The namespace is ``get_ipython().user_ns`` in a kernel (``__main__.__dict__`` in a plain
interpreter) unless a test passes a dict. "User names" are the names a person would call
theirs: not ``_``-prefixed, not IPython's own (``get_ipython().user_ns_hidden``, matched by
identity as ``%who`` does), not ``In``/``Out``/``exit``/``quit``/``get_ipython``.
"""

import ast
import builtins
import keyword
import sys

from .errors import ToolError, describe_exception
from .formatting import (bounded_repr, human_bytes, one_line, safe_repr, shape_text, table,
                         type_name, truncate)
from .transport import dumps, to_json

ALWAYS_HIDDEN = frozenset(("In", "Out", "exit", "quit", "get_ipython"))
_SCALARS = frozenset((int, float, bool, complex, type(None)))
_SIZED = frozenset((str, bytes, bytearray, list, tuple, dict, set, frozenset, range))
_MISSING = object()


def ipython():
    """The running IPython shell, or None (IPython is never imported here)."""
    module = sys.modules.get("IPython")
    if module is None:
        return None
    try:
        return module.get_ipython()
    except Exception:
        return None


def user_namespace(explicit=None):
    if explicit is not None:
        return explicit
    shell = ipython()
    if shell is not None:
        return shell.user_ns
    import __main__
    return __main__.__dict__


def _hidden(ns):
    shell = ipython()
    if shell is not None and ns is shell.user_ns:
        return shell.user_ns_hidden
    return {}


def is_user_name(name, value, hidden):
    if not isinstance(name, str) or name.startswith("_"):
        return False
    if name in ALWAYS_HIDDEN:
        return False
    if name in hidden and hidden[name] is value:
        return False
    return True


def user_items(ns):
    hidden = _hidden(ns)
    return [(k, v) for k, v in list(ns.items()) if is_user_name(k, v, hidden)]


def check_identifier(name, what="name"):
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ToolError("%s must be a valid Python identifier (like df or sales_2024), got %r."
                        % (what.capitalize(), name), kind="bad_argument")
    return name


def lookup(ns, name, what="name"):
    """``ns[name]`` or a not_found :class:`ToolError` suggesting close names."""
    if not isinstance(name, str) or not name:
        raise ToolError("%s must be a non-empty string." % what.capitalize())
    value = ns.get(name, _MISSING)
    if value is _MISSING:
        raise not_found(ns, name)
    return value


def not_found(ns, name):
    import difflib
    names = [k for k, _ in user_items(ns)]
    close = difflib.get_close_matches(name, names, n=3)
    hint = " Did you mean %s?" % " or ".join(close) if close else ""
    if not close and names:
        shown = sorted(names)[:15]
        hint = " Names defined: %s%s." % (", ".join(shown), ", …" if len(names) > 15 else "")
    elif not names:
        hint = " The namespace has no user variables yet."
    return ToolError("No variable named %r in the session.%s" % (name, hint), kind="not_found")


def dataframe(ns, name, purpose):
    """The DataFrame called ``name`` (a Series is turned into one); explains anything else."""
    value = lookup(ns, name)
    pd = sys.modules.get("pandas")
    if pd is not None:
        if isinstance(value, pd.DataFrame):
            return value
        if isinstance(value, pd.Series):
            return value.to_frame(name=value.name if value.name is not None else name)
    raise ToolError("%s needs a pandas DataFrame, but %r is %s. Make one first, for example "
                    "pd.DataFrame(%s)." % (purpose, name, type_name(value), name),
                    kind="bad_argument")


def resolve_reference(ns, name, tool):
    """The value ``name`` names: a variable, or a path of attributes and constant subscripts
    (``df["price"]``, ``model.params``, ``frames[0]``). Calls and operators are refused, so that a
    tool which only looks never runs arbitrary code; ``tool`` names the tool in that message."""
    if not isinstance(name, str) or not name.strip():
        raise ToolError("name must be a non-empty string (a variable name or an expression).")
    name = name.strip()
    if name.isidentifier():
        value = ns.get(name, _MISSING)
        if value is _MISSING:
            value = getattr(builtins, name, _MISSING)
        if value is _MISSING:
            raise not_found(ns, name)
        return value
    if not is_reference(name):
        raise ToolError("%s takes a variable name or a path such as df.columns or "
                        "df[\"price\"], not an expression with calls or operators; run it with "
                        "run_python, or bind it to a name first." % tool)
    return _evaluate(ns, name)


def is_reference(source):
    """True for a name followed by attributes and constant subscripts: nothing that calls code."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return True  # _evaluate explains the syntax error

    def constant(n):
        if isinstance(n, ast.Constant):
            return True
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return constant(n.operand)
        if isinstance(n, ast.Tuple):
            return all(constant(e) for e in n.elts)
        if isinstance(n, ast.Slice):
            return all(p is None or constant(p) for p in (n.lower, n.upper, n.step))
        if type(n).__name__ == "Index":  # Python 3.8 wraps subscripts
            return constant(n.value)
        return False

    while True:
        if isinstance(node, ast.Name):
            return True
        if isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Subscript) and constant(node.slice):
            node = node.value
        else:
            return False


# ---------------------------------------------------------------------------------------------
# value

def _evaluate(ns, expression):
    if not isinstance(expression, str) or not expression.strip():
        raise ToolError("expression must be a non-empty string of Python code.")
    source = expression.strip()
    try:
        code = compile(source, "<get_value>", "eval")
    except SyntaxError as exc:
        try:
            compile(source, "<get_value>", "exec")
        except SyntaxError:
            raise ToolError("The expression is not valid Python: %s (line %s, column %s)."
                            % (exc.msg, exc.lineno, exc.offset))
        raise ToolError("get_value takes one expression, and this is a statement; run "
                        "statements with run_python, then ask for the value.")
    had_builtins = "__builtins__" in ns
    try:
        return eval(code, ns)
    except NameError as exc:
        raise ToolError("%s (evaluating %s)" % (describe_exception(exc), one_line(source, 120)),
                        kind="not_found")
    except Exception as exc:
        raise ToolError("Python error: %s (evaluating %s)"
                        % (describe_exception(exc), one_line(source, 120)), kind="python_error")
    finally:
        if not had_builtins:
            ns.pop("__builtins__", None)  # eval() adds it to a plain dict


def value(ns, expression, max_items=None):
    """Evaluate ``expression`` in the user namespace and return it as JSON.

    structured: ``{"value": <JSON>, "type": "<python type>", "notes": [...]}``; ``max_items``
    (default 1000, at most 100000) caps each list, array, mapping and the rows of a frame.
    """
    if max_items is not None:
        if isinstance(max_items, bool) or not isinstance(max_items, int) or \
                not 1 <= max_items <= 100000:
            raise ToolError("max_items must be a whole number from 1 to 100000.")
    obj = _evaluate(ns, expression)
    caps = {}
    if max_items:
        caps = {"max_items": max_items, "max_nodes": max(50000, max_items * 50)}
    converted, notes = to_json(obj, **caps)
    kind = type_name(obj)
    shape = _shape(obj)
    text = "%s%s = %s" % (kind, " (%s)" % shape_text(shape) if shape else "",
                          dumps(converted, limit=3000))
    if notes:
        text += "\nNotes:\n" + "\n".join("- " + n for n in notes)
    return text, {"value": converted, "type": kind, "shape": list(shape) if shape else None,
                  "notes": notes}


# ---------------------------------------------------------------------------------------------
# sizes and previews

def _shape(obj):
    shape = getattr(obj, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(s, int) for s in shape):
        return shape if shape else None
    if isinstance(obj, (list, tuple, dict, set, frozenset, str, bytes, bytearray, range)):
        try:
            return (len(obj),)
        except Exception:
            return None
    return None


def memory_size(obj, deep_rows=1_000_000):
    """``(bytes, approximate)``: pandas and numpy exactly, containers by bounded sampling.

    A pandas object's strings are measured one by one (``deep``) up to ``deep_rows`` rows;
    longer ones count their pointers only, and the size says it is approximate.
    """
    if type(obj) in _SCALARS:
        return sys.getsizeof(obj), False
    pd = sys.modules.get("pandas")
    np = sys.modules.get("numpy")
    try:
        if pd is not None and isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
            deep = len(obj) <= deep_rows
            usage = obj.memory_usage(deep=deep)
            total = int(usage.sum()) if hasattr(usage, "sum") else int(usage)
            return total, not deep
        if np is not None and isinstance(obj, np.ndarray):
            return int(obj.nbytes) + sys.getsizeof(np.empty(0)), False
        if isinstance(obj, (str, bytes, bytearray, int, float, bool, complex)) or obj is None:
            return sys.getsizeof(obj), False
        if isinstance(obj, (list, tuple, set, frozenset, dict)):
            total = sys.getsizeof(obj)
            items = list(obj.items()) if isinstance(obj, dict) else obj
            n = len(items)
            sample = 0
            count = 0
            for item in items:
                if count >= 200:
                    break
                if isinstance(item, tuple) and isinstance(obj, dict):
                    sample += sys.getsizeof(item[0]) + sys.getsizeof(item[1])
                else:
                    sample += sys.getsizeof(item)
                count += 1
            if count:
                total += int(sample * (n / count))
            return total, True
        model = getattr(obj, "model", None)  # statsmodels results hold their data
        if model is not None and type(obj).__module__.startswith("statsmodels"):
            total = sys.getsizeof(obj)
            for attr in ("exog", "endog"):
                total += int(getattr(getattr(model, attr, None), "nbytes", 0) or 0)
            return total, True
        return sys.getsizeof(obj), True
    except Exception:
        return None, True


def preview(obj, limit=60):
    """A one-line glimpse: columns of a frame, head of a series, the repr of a scalar."""
    try:
        return strict_preview(obj, limit)
    except Exception:
        return safe_repr(obj, limit)


def strict_preview(obj, limit=60):
    """:func:`preview`, but what the object's own code raises (its repr, say) is raised."""
    import types
    kind = type(obj)
    if kind in _SCALARS and (kind is not int or obj.bit_length() < 4096):
        return one_line(repr(obj), limit)
    if kind is str and len(obj) <= limit:
        return one_line(repr(obj), limit)
    pd = sys.modules.get("pandas")
    np = sys.modules.get("numpy")
    if pd is not None and isinstance(obj, pd.DataFrame):
        cols = [str(c) for c in obj.columns[:12]]
        more = ", …" if obj.shape[1] > 12 else ""
        return one_line("columns: " + ", ".join(cols) + more, limit)
    if pd is not None and isinstance(obj, (pd.Series, pd.Index)):
        head = obj.iloc[:6] if isinstance(obj, pd.Series) else obj[:6]
        items = [safe_repr(v, 20) for v in head.tolist()]
        return one_line("[" + ", ".join(items) + (", …" if len(obj) > 6 else "") + "]", limit)
    if np is not None and isinstance(obj, np.ndarray):
        items = ", ".join(safe_repr(v, 20) for v in obj.flat[:6].tolist())  # no copy of the array
        return one_line("[" + items + (", …" if obj.size > 6 else "") + "]", limit)
    if isinstance(obj, types.ModuleType):
        return one_line("module %s" % obj.__name__, limit)
    if callable(obj) and hasattr(obj, "__name__"):
        import inspect
        try:
            return one_line("%s%s" % (obj.__name__, inspect.signature(obj)), limit)
        except (TypeError, ValueError):
            return one_line(str(obj.__name__), limit)
    return bounded_repr(obj, limit)


def _dtypes_summary(frame):
    counts = {}
    for dtype in frame.dtypes:
        key = str(dtype)
        counts[key] = counts.get(key, 0) + 1
    return ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def facts(obj, preview_limit=60, strict=False, deep_rows=1_000_000):
    """What list_names and the panel's Variables view show of one value.

    ``{"shape": [..] | None, "length": n | None, "dtypes": str | None, "size": bytes | None,
    "size_approximate": bool, "preview": str}``: ``shape`` for objects that have one (frames,
    arrays), ``length`` for other sized containers. With ``strict``, an exception from the
    object's own code (its repr, its ``shape``) is raised instead of being shown in the preview.
    """
    import types
    pd = sys.modules.get("pandas")
    size, approx = memory_size(obj, deep_rows)
    dtypes = None
    if type(obj) in _SCALARS:  # the common case, without looking for attributes it lacks
        shape, has_shape = None, False
    elif type(obj) in _SIZED:
        shape, has_shape = (len(obj),), False
    else:
        shape = _shape(obj)
        has_shape = shape is not None and getattr(obj, "shape", None) is not None
        if pd is not None and isinstance(obj, pd.DataFrame):
            dtypes = _dtypes_summary(obj)
        elif not isinstance(obj, (types.ModuleType, type)) and \
                getattr(obj, "dtype", None) is not None:
            dtypes = str(obj.dtype)
    return {
        "shape": list(shape) if has_shape else None,
        "length": shape[0] if shape and not has_shape else None,
        "dtypes": dtypes,
        "size": size,
        "size_approximate": approx,
        "preview": (strict_preview if strict else preview)(obj, preview_limit),
    }


def entry(name, obj):
    """One row of list_names."""
    found = facts(obj)
    row = {
        "name": name,
        "type": type_name(obj),
        "shape": found["shape"],
        "len": found["length"],
        "memory_bytes": found["size"],
        "memory_approximate": found["size_approximate"],
        "preview": found["preview"],
    }
    if found["dtypes"] is not None:
        row["dtypes"] = found["dtypes"]
    return row


def list_names(ns):
    """The user's variables, with type, shape or length, dtypes, memory and a preview.

    structured: ``{"variables": [{name, type, shape, len, dtypes?, memory_bytes,
    memory_approximate, preview}], "modules": [{name, module}], "count": n}``. Modules imported
    by the user are listed apart; names starting with ``_`` and IPython's own are skipped.
    """
    import types
    variables = []
    modules = []
    for name, obj in sorted(user_items(ns), key=lambda kv: kv[0].lower()):
        if isinstance(obj, types.ModuleType):
            modules.append({"name": name, "module": obj.__name__})
            continue
        if obj is builtins:
            continue
        variables.append(entry(name, obj))
    shown = variables[:300]
    if not variables:
        text = "No user variables."
    else:
        rows = []
        for v in shown:
            dims = shape_text(v["shape"]) if v["shape"] else ("len %d" % v["len"]
                                                             if v["len"] is not None else "")
            rows.append([v["name"], v["type"], dims, v.get("dtypes", ""),
                         human_bytes(v["memory_bytes"], v["memory_approximate"]), v["preview"]])
        text = table(["name", "type", "shape/len", "dtypes", "size", "preview"], rows,
                     align="llllrl")
        if len(variables) > len(shown):
            text += "\n… and %d more" % (len(variables) - len(shown))
    if modules:
        text += "\nModules: " + ", ".join(
            m["name"] if m["name"] == m["module"] else "%s (%s)" % (m["name"], m["module"])
            for m in modules)
    return truncate(text, 20000), {"variables": variables, "modules": modules,
                                   "count": len(variables)}


# ---------------------------------------------------------------------------------------------
# reset

def reset(ns):
    """Remove every user name (like ``%reset -f``); the helpers stay loaded.

    structured: ``{"removed": n, "names": [...]}`` (``names`` capped at 200).
    """
    before = [k for k, _ in user_items(ns)]
    shell = ipython()
    if shell is not None and ns is shell.user_ns:
        shell.reset(new_session=False)
    else:
        for key in list(ns.keys()):
            if not (key.startswith("__") and key.endswith("__")):
                del ns[key]
    import gc
    gc.collect()
    after = set(k for k, _ in user_items(ns))
    removed = [k for k in before if k not in after]
    text = "Removed %d name%s from the session." % (len(removed), "" if len(removed) == 1 else "s")
    if removed:
        text += " (" + ", ".join(removed[:30]) + (", …" if len(removed) > 30 else "") + ")"
    from .plain_code import plain
    code = plain("reset_namespace", "every variable removed, imports included",
                 ["%reset -f"], clears_namespace=True)
    return text, {"removed": len(removed), "names": removed[:200]}, code
