"""The plain Python a tool's work amounts to, for the session log and the exported notebook.

A tool that changes or reads the user's namespace or files returns, next to its text and
structured answer, the pandas/statsmodels/numpy/matplotlib code that does the same thing in a
kernel without these helpers (see :func:`plain`). The code is written by the tool itself, where
its semantics live: absolute paths, the reader options it actually used, the fit and the
diagnostics as it named them. It starts with a comment saying which tool ran; the imports it
needs are listed apart (``imports``), so an export can put them once at the top.

The payload then carries::

    "code": "<python source>", "imports": ["import pandas as pd", ...],
    "code_notes": {"tool": "<MCP tool name>", "attach": "figure"?, "clears_namespace": true?},
    "environment": {"python": {...}, "packages": {...}}
"""

import math
import sys

PANDAS = "import pandas as pd"
NUMPY = "import numpy as np"
OS = "import os"
STATSMODELS = "import statsmodels.api as sm"
DIAGNOSTIC = "from statsmodels.stats.diagnostic import acorr_breusch_godfrey, het_breuschpagan, het_white"
STATTOOLS = "from statsmodels.stats.stattools import durbin_watson, jarque_bera"
PYPLOT = "import matplotlib.pyplot as plt"


class Plain(object):
    """Code for one tool call: its source lines, the imports they need, and notes for export.

    ``attach="figure"``: the code only does the same at the end of the cell that drew the
    figure (Jupyter's inline backend closes a cell's figures when the cell ends).
    ``clears_namespace``: the code removes every user name (imports included).
    """

    def __init__(self, tool, summary, lines, imports=(), attach=None, clears_namespace=False):
        self.tool = tool
        self.summary = summary
        self.lines = list(lines)
        self.imports = list(imports)
        self.attach = attach
        self.clears_namespace = clears_namespace

    def source(self):
        return "\n".join(["# %s (Python Session tool): %s" % (self.tool, self.summary)]
                         + self.lines)

    def payload(self):
        notes = {"tool": self.tool}
        if self.attach:
            notes["attach"] = self.attach
        if self.clears_namespace:
            notes["clears_namespace"] = True
        return {"code": self.source(), "imports": self.imports, "code_notes": notes}


def plain(tool, summary, lines, imports=(), **notes):
    return Plain(tool, summary, lines, imports, **notes)


def literal(value):
    """A Python literal for a JSON-like value (what tool arguments and options are)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.generic):
        return literal(value.item())
    if isinstance(value, (list, tuple)):
        items = [literal(v) for v in value]
        if isinstance(value, tuple):
            return "(%s%s)" % (", ".join(items), "," if len(items) == 1 else "")
        return "[%s]" % ", ".join(items)
    if isinstance(value, dict):
        return "{%s}" % ", ".join("%s: %s" % (literal(k), literal(v)) for k, v in value.items())
    raise ValueError("no literal for %s" % type(value).__name__)


def name_ref(name):
    """How code names the variable ``name`` (a key of the namespace)."""
    import keyword
    if isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name):
        return name
    return "globals()[%s]" % literal(name)


def invocation(function, positional=(), keywords=None):
    """``function(a, b, key=value, ...)`` with every argument written as a literal."""
    parts = [literal(p) for p in positional]
    for key, value in (keywords or {}).items():
        parts.append("%s=%s" % (key, literal(value)))
    return "%s(%s)" % (function, ", ".join(parts))


def environment():
    """The interpreter and the main packages this kernel has imported, with their versions."""
    import platform
    packages = {}
    for module in ("numpy", "pandas", "statsmodels", "matplotlib", "scipy", "patsy",
                   "openpyxl", "xlrd", "pyarrow", "fastparquet", "pyreadstat", "seaborn",
                   "sklearn", "linearmodels", "polars"):
        loaded = sys.modules.get(module)
        version = getattr(loaded, "__version__", None) if loaded is not None else None
        if isinstance(version, str):
            packages[module] = version
    return {
        "python": {"version": platform.python_version(),
                   "implementation": platform.python_implementation(),
                   "executable": sys.executable},
        "packages": packages,
    }


def environment_tool(ns):
    """The ``environment`` tool: :func:`environment` as text and structured (for exports)."""
    env = environment()
    py = env["python"]
    text = "Python %s (%s) at %s" % (py["version"], py["implementation"], py["executable"])
    if env["packages"]:
        text += "; " + ", ".join("%s %s" % item for item in env["packages"].items())
    return text, env
