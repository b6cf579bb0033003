"""The one exception type tools raise to report a failure to the model.

A tool raises :class:`ToolError` for every failure it can explain (a missing package, a
missing file, a bad argument, a malformed file); :func:`python_session.call` turns it into the
``{"ok": false, "error", "kind", "install"}`` payload. Anything else that escapes a tool is
reported as ``kind="python_error"`` with the exception's type and message.
"""

KINDS = ("missing_package", "not_found", "bad_argument", "bad_file", "python_error")


class ToolError(Exception):
    """A failure explained in words a language model (and a person) can act on."""

    def __init__(self, message, kind="bad_argument", install=None):
        if kind not in KINDS:
            raise ValueError("unknown error kind %r" % (kind,))
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.install = install

    def payload(self):
        return {"ok": False, "error": self.message, "kind": self.kind, "install": self.install}


def describe_exception(exc):
    """``"ZeroDivisionError: division by zero"`` — the type and message, without a traceback."""
    name = type(exc).__name__
    text = str(exc).strip()
    if not text and exc.args:
        text = repr(exc.args[0])
    return "%s: %s" % (name, text) if text else name
