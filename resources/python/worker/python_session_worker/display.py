"""Rich display without IPython: a value's own ``_repr_*_`` methods, and ``display()``.

``display`` is put in ``builtins`` (IPython's kernels have it there too), and this module is
what ``python_session._publish`` uses when IPython is absent:
``sys.modules['python_session_worker.display'].display(bundle, raw=True)``.
"""
import base64
import os

# The forms a value may offer, as IPython's formatters look for them (text/plain is repr).
_METHODS = (
    ("text/html", "_repr_html_"),
    ("text/markdown", "_repr_markdown_"),
    ("text/latex", "_repr_latex_"),
    ("image/svg+xml", "_repr_svg_"),
    ("image/png", "_repr_png_"),
    ("image/jpeg", "_repr_jpeg_"),
    ("application/pdf", "_repr_pdf_"),
    ("application/json", "_repr_json_"),
    ("application/javascript", "_repr_javascript_"),
)
_BINARY = {"image/png", "image/jpeg", "application/pdf"}
# One form larger than this is left out (the daemon caps text far lower; this bounds a message).
_MAX_FORM = 64 * 1024 * 1024
_MAX_PLAIN = 4 * 1024 * 1024

_publish = None  # set by the worker: publish(msg_type, content)


def set_publisher(publish):
    global _publish
    _publish = publish


def _method(obj, name):
    # Looked up on the type: a class has these as plain functions, and an object whose
    # __getattr__ answers every name (a mock, a proxy) must not be taken at its word.
    if isinstance(obj, type) or getattr(type(obj), name, None) is None:
        return None
    return getattr(obj, name, None)


def _plain(obj):
    try:
        text = repr(obj)
    except Exception as error:
        text = "<%s object; repr() failed: %s: %s>" % (type(obj).__name__, type(error).__name__, error)
    if len(text) > _MAX_PLAIN:
        half = _MAX_PLAIN // 2
        text = "%s\n[... %d characters left out ...]\n%s" % (text[:half], len(text) - 2 * half, text[-half:])
    return text


def _fits(mime, value):
    if isinstance(value, bytes):
        if mime not in _BINARY:
            value = value.decode("utf-8", "replace")
        else:
            value = base64.b64encode(value).decode("ascii")
    if isinstance(value, str) and len(value) > _MAX_FORM:
        return None
    return value


def format_value(obj, include=None, exclude=None):
    """(data, metadata) for a value, the way Jupyter shows it."""
    data, metadata = {}, {}
    bundle = _method(obj, "_repr_mimebundle_")
    if bundle is not None:
        try:
            answer = bundle(include=include, exclude=exclude)
            if isinstance(answer, tuple):
                answer, extra = answer[0], (answer[1] if len(answer) > 1 else None)
                if isinstance(extra, dict):
                    metadata.update(extra)
            if isinstance(answer, dict):
                for mime, value in answer.items():
                    value = _fits(mime, value)
                    if value is not None:
                        data[mime] = value
        except Exception:
            pass
    for mime, name in _METHODS:
        if mime in data or (include and mime not in include) or (exclude and mime in exclude):
            continue
        method = _method(obj, name)
        if method is None:
            continue
        try:
            value = method()
        except Exception:
            continue
        if isinstance(value, tuple) and len(value) == 2:
            value, extra = value
            if isinstance(extra, dict):
                metadata[mime] = extra
        value = _fits(mime, value)
        if value is not None:
            data[mime] = value
    if "text/plain" not in data:
        data["text/plain"] = _plain(obj)
    return data, metadata


class DisplayHandle:
    """What ``display(..., display_id=True)`` returns: update the output in place."""

    def __init__(self, display_id=None):
        self.display_id = display_id or os.urandom(16).hex()

    def display(self, obj, **kwargs):
        display(obj, display_id=self.display_id, **kwargs)

    def update(self, obj, **kwargs):
        display(obj, display_id=self.display_id, update=True, **kwargs)

    def __repr__(self):
        return "<DisplayHandle display_id=%s>" % self.display_id


def display(*objs, include=None, exclude=None, metadata=None, transient=None, display_id=None,
            raw=False, clear=False, update=False, **kwargs):
    """IPython.display.display's behaviour: each object as display_data (a MIME dict with raw=True)."""
    if _publish is None:
        print(*objs)
        return None
    handle = None
    if display_id is True:
        handle = DisplayHandle()
        display_id = handle.display_id
    elif display_id:
        handle = DisplayHandle(display_id)
    transient = dict(transient or {})
    if display_id:
        transient["display_id"] = display_id
    for obj in objs:
        if raw:
            data, meta = dict(obj), {}
        else:
            data, meta = format_value(obj, include, exclude)
        if metadata:
            meta.update(metadata)
        content = {"data": data, "metadata": meta, "transient": transient}
        _publish("update_display_data" if update else "display_data", content)
    return handle
