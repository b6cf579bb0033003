"""Python Session's helpers, run inside the user's kernel.

The daemon loads this package without touching the user's namespace (it puts
``resources/python`` on ``sys.path`` for the import, then restores ``sys.path``) and calls a
tool by executing, with ``store_history=False``::

    __import__('python_session').call('<tool>', r'''<json args>''')

:func:`call` parses the arguments (a JSON object), runs the tool against the user namespace
(``get_ipython().user_ns`` in a kernel), and publishes exactly one result with
``IPython.display.display({MIME: payload}, raw=True)`` (the built-in worker's own ``display``
where it runs). It returns ``None`` (so the REPL shows
no ``Out[]``), never raises into the cell, and binds nothing in the user namespace except the
names a tool is asked to create (``load_data``'s ``name``, ``ols``'s ``name``).

The payload is strict JSON (no NaN/Infinity)::

    {"ok": true,  "text": "<readable text>", "structured": {...} | null}
    {"ok": true, ..., "code": "<plain Python>", "imports": [...], "code_notes": {...},
     "environment": {...}}   (tools that change the namespace or files; see plain_code)
    {"ok": false, "error": "<message>", "install": "<command>" | null,
     "kind": "missing_package" | "not_found" | "bad_argument" | "bad_file" | "python_error"}

Tools (the Python halves of the MCP tools; see each module for details):

================  ================================================  ===========================
tool              arguments                                         module
================  ================================================  ===========================
``value``         ``expression, max_items?``                        :mod:`.namespace`
``list_names``    —                                                 :mod:`.namespace`
``describe``      ``name``                                          :mod:`.inspection`
``load_data``     ``path, name, format?, options?``                 :mod:`.data_io`
``save_data``     ``name, path, format?``                           :mod:`.data_io`
``ols``           ``data, y, x, add_constant?, cov_type?, bg_lags?,  :mod:`.estimation`
                  hac_lags?, cov_kwds?, name?``
``save_figure``   ``path, dpi?, figure?``                           :mod:`.charts`
``reset``         —                                                 :mod:`.namespace`
``environment``   —                                                 :mod:`.plain_code`
``variables``     —                                                 :mod:`.workspace`
``data_page``     ``expression, offset?, limit?, sort?, filter?,     :mod:`.data_view`
                  columns?``
``data_summary``  ``expression, columns?``                          :mod:`.data_view`
================  ================================================  ===========================

``variables``, ``data_page`` and ``data_summary`` serve the control panel (its Variables view
and data viewer); they only read, and bound the time the user's code they call may take.

The MCP names ``get_value``, ``describe_object`` and ``reset_namespace`` are accepted as
aliases. Only the standard library is imported here; pandas, numpy, statsmodels and
matplotlib are imported by the tools that need them, when they run.
"""

import importlib
import inspect
import json
import sys
import warnings

from .errors import ToolError, describe_exception

__all__ = ["MIME", "call", "run", "TOOLS"]

MIME = "application/vnd.python-session+json"

TOOLS = {
    "value": ("namespace", "value"),
    "list_names": ("namespace", "list_names"),
    "describe": ("inspection", "describe"),
    "load_data": ("data_io", "load_data"),
    "save_data": ("data_io", "save_data"),
    "ols": ("estimation", "ols"),
    "save_figure": ("charts", "save_figure"),
    "reset": ("namespace", "reset"),
    "environment": ("plain_code", "environment_tool"),
    "variables": ("workspace", "variables"),
    "data_page": ("data_view", "data_page"),
    "data_summary": ("data_view", "data_summary"),
}
ALIASES = {"get_value": "value", "describe_object": "describe", "reset_namespace": "reset"}

# Warnings raised while a tool runs are returned with its result instead of being printed
# into the cell. Deprecation chatter from libraries calling libraries is dropped, except for
# ``value``, where it comes from the user's own expression.
_QUIET = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


def _tool_function(tool):
    name = ALIASES.get(tool, tool)
    if name not in TOOLS:
        raise ToolError("Unknown tool %r. The tools are: %s." % (tool, ", ".join(sorted(TOOLS))),
                        kind="bad_argument")
    module_name, function_name = TOOLS[name]
    module = importlib.import_module("." + module_name, __name__)
    return name, getattr(module, function_name)


def _parse_args(args):
    if args is None or args == "":
        return {}
    if isinstance(args, dict):
        return dict(args)
    if not isinstance(args, str):
        raise ToolError("The arguments must be a JSON object (got %s)." % type(args).__name__)
    try:
        parsed = json.loads(args)
    except ValueError as exc:
        raise ToolError("The arguments are not valid JSON: %s" % exc)
    if parsed is None:
        return {}
    if not isinstance(parsed, dict):
        raise ToolError("The arguments must be a JSON object, not %s." % type(parsed).__name__)
    return parsed


def _bind(name, fn, args):
    params = list(inspect.signature(fn).parameters.values())[1:]  # the first is the namespace
    accepted = {p.name: p for p in params}
    unknown = [k for k in args if k not in accepted]
    if unknown:
        import difflib
        hints = []
        for key in unknown:
            close = difflib.get_close_matches(key, list(accepted), n=1)
            hints.append("%r%s" % (key, " (did you mean %r?)" % close[0] if close else ""))
        raise ToolError("%s got unknown argument%s %s. It takes: %s."
                        % (name, "" if len(unknown) == 1 else "s", ", ".join(hints),
                           ", ".join(accepted) or "no arguments"))
    kwargs = {}
    for key, value in args.items():
        if value is None and accepted[key].default is not inspect.Parameter.empty:
            continue  # null means "use the default"
        kwargs[key] = value
    missing = [p.name for p in params
               if p.default is inspect.Parameter.empty and kwargs.get(p.name) is None]
    if missing:
        raise ToolError("%s needs the argument%s: %s."
                        % (name, "" if len(missing) == 1 else "s", ", ".join(missing)))
    return kwargs


def _warning_texts(caught, keep_quiet):
    texts = []
    for item in caught:
        if not keep_quiet and issubclass(item.category, _QUIET):
            continue
        text = "%s: %s" % (item.category.__name__, item.message)
        if text not in texts:
            texts.append(text)
    return texts[:10]


def _strict(payload):
    """The payload as it will travel: strict JSON. Repairs (never drops) a stray NaN."""
    try:
        json.dumps(payload, allow_nan=False)
        return payload
    except (TypeError, ValueError):
        from .transport import to_json
        structured, notes = to_json(payload.get("structured"))
        payload = dict(payload, structured=structured)
        if notes:
            payload["text"] = "%s\nNotes: %s" % (payload.get("text", ""), "; ".join(notes))
        json.dumps(payload, allow_nan=False)
        return payload


def run(tool, args=None, namespace=None):
    """Run one tool and return its payload (a dict); never raises."""
    try:
        name, fn = _tool_function(tool)
        kwargs = _bind(name, fn, _parse_args(args))
        from .namespace import user_namespace
        ns = user_namespace(namespace)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            answer = fn(ns, **kwargs)
        text, structured = answer[0], answer[1]
        warned = _warning_texts(caught, keep_quiet=(name == "value"))
        if warned:
            text = "%s\nWarnings:\n%s" % (text, "\n".join("- " + w for w in warned))
            if isinstance(structured, dict):
                structured = dict(structured, warnings=warned)
        payload = {"ok": True, "text": text, "structured": structured}
        if len(answer) > 2 and answer[2] is not None:
            # The plain code that does what the tool did, for the session log (see plain_code).
            from .plain_code import environment
            payload.update(answer[2].payload())
            payload["environment"] = environment()
    except ToolError as exc:
        payload = exc.payload()
    except KeyboardInterrupt:
        payload = {"ok": False, "error": "Interrupted before the tool finished; nothing was "
                   "changed by it.", "kind": "python_error", "install": None}
    except SystemExit as exc:
        payload = {"ok": False, "error": "The code called exit(%s); the session is still "
                   "running." % ("" if exc.code is None else repr(exc.code)),
                   "kind": "python_error", "install": None}
    except Exception as exc:  # a bug in a library or in a tool: report it, never raise
        payload = {"ok": False, "error": describe_exception(exc), "kind": "python_error",
                   "install": None}
    try:
        return _strict(payload)
    except Exception as exc:
        return {"ok": False, "error": "The result could not be written as JSON: %s"
                % describe_exception(exc), "kind": "python_error", "install": None}


def _publish(payload):
    # Python Session's built-in worker (no IPython there, or an IPython without a shell).
    worker = sys.modules.get("python_session_worker.display")
    if worker is not None:
        worker.display({MIME: payload}, raw=True)
        return
    if "IPython" in sys.modules:
        try:
            from IPython.display import display
            display({MIME: payload}, raw=True)
            return
        except Exception:
            pass
    sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")


def call(tool, args=None, namespace=None, publish=None):
    """Run ``tool`` with ``args`` (a JSON object as text, or a dict) and publish one result.

    ``namespace`` (a dict) replaces the user namespace and ``publish`` (a callable taking the
    payload dict) replaces the IPython display, for tests. Returns ``None``.
    """
    payload = run(tool, args, namespace)
    try:
        (publish or _publish)(payload)
    except Exception:
        pass
    return None
