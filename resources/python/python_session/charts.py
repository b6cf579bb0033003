"""``save_figure(path, dpi=None, figure=None)``: write a matplotlib figure to PNG, SVG or PDF.

Which figure: the one named by ``figure`` (a variable holding a Figure or an Axes); else
pyplot's current figure when one is open; else, when exactly one Figure (or Axes) is held by a
user variable, that one. Jupyter's inline backend closes pyplot figures once a cell has shown
them, so a figure drawn in an earlier call is found only through a variable such as
``fig, ax = plt.subplots()``.

The format comes from the extension (``.png``, ``.svg``, ``.pdf``; anything else is refused).
``dpi`` defaults to the figure's own. The figure is saved with ``bbox_inches="tight"``, as the
notebook shows it. Missing folders are created; an existing file is replaced only when it is an
image of the same format. matplotlib is never imported here: with no matplotlib in the session
there is nothing to save, and the answer says so.
"""

import os
import struct
import sys

from .data_io import write_atomically
from .errors import ToolError
from .formats import check_overwrite, resolve_path
from .formatting import human_bytes, type_name
from .installing import available, missing_package
from .namespace import lookup, user_items
from .plain_code import OS, PYPLOT, invocation, name_ref, plain

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
LABELS = {"png": "a PNG image", "svg": "an SVG image", "pdf": "a PDF document"}


def _figure_of(obj, figure_cls):
    if isinstance(obj, figure_cls):
        return obj
    fig = getattr(obj, "figure", None) if type(obj).__module__.startswith("matplotlib") else None
    if isinstance(fig, figure_cls):
        return fig
    return None


def _png_size(path):
    try:
        with open(path, "rb") as handle:
            head = handle.read(24)
        if head[:8] == b"\x89PNG\r\n\x1a\n":
            return list(struct.unpack(">II", head[16:24]))
    except OSError:
        pass
    return None


def _choose(ns, figure, mpl):
    import matplotlib.figure
    figure_cls = matplotlib.figure.Figure
    if figure is not None:
        if not isinstance(figure, str):
            raise ToolError("figure must be the name of a variable holding a Figure or Axes.")
        fig = _figure_of(lookup(ns, figure), figure_cls)
        if fig is None:
            raise ToolError("%r is %s, not a matplotlib Figure or Axes."
                            % (figure, type_name(ns[figure])))
        return fig, "the figure in %s" % figure
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None and plt.get_fignums():
        fig = plt.gcf()
        return fig, "the current pyplot figure (number %s)" % fig.number
    # The inline backend closed the cell's figures after showing them; kernel_startup.py
    # keeps the last one closed so "plot, then save_figure" works as people expect.
    memory = sys.modules.get("_python_session_figures")
    last = getattr(memory, "last", None)
    if isinstance(last, figure_cls):
        return last, "the last figure drawn (already shown, kept for saving)"
    found = {}
    for name, obj in user_items(ns):
        fig = _figure_of(obj, figure_cls)
        if fig is not None:
            found.setdefault(id(fig), (name, fig))
    if len(found) == 1:
        name, fig = list(found.values())[0]
        return fig, "the figure in %s (no pyplot figure was open)" % name
    if len(found) > 1:
        names = ", ".join(sorted(n for n, _ in found.values()))
        raise ToolError("No pyplot figure is open, and several variables hold figures (%s); "
                        "say which with figure=<name>." % names, kind="not_found")
    raise ToolError("No figure is open. Jupyter's inline backend closes figures once a cell "
                    "has shown them: draw and save in the same run_python call (plt.savefig), "
                    "or keep the figure in a variable (fig, ax = plt.subplots()) and save it "
                    "by name.", kind="not_found")


def save_figure(ns, path, dpi=None, figure=None):
    """Save a figure; structured: ``{"path", "format", "bytes", "dpi", "pixels", "source",
    "replaced"}``."""
    abspath = resolve_path(path)
    ext = os.path.splitext(abspath)[1].lower()
    fmt = FORMATS.get(ext)
    if fmt is None:
        raise ToolError("save_figure writes PNG, SVG or PDF, chosen by the extension; %s has %s. "
                        "Use .png, .svg or .pdf." % (abspath, repr(ext) if ext else
                                                     "no extension"))
    if dpi is not None:
        if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not 1 <= dpi <= 2400:
            raise ToolError("dpi must be a number from 1 to 2400, got %r." % (dpi,))
    mpl = sys.modules.get("matplotlib")
    if mpl is None:
        if not available("matplotlib"):
            raise missing_package("matplotlib", "Plotting")
        raise ToolError("No figure to save: matplotlib has not been imported in this session, "
                        "so nothing has been plotted yet.", kind="not_found")
    fig, source = _choose(ns, figure, mpl)
    replacing = check_overwrite(abspath, fmt, LABELS[fmt])
    kwargs = {"format": fmt, "bbox_inches": "tight"}
    if dpi is not None:
        kwargs["dpi"] = dpi
    try:
        created = write_atomically(abspath, lambda tmp: fig.savefig(tmp, **kwargs))
    except OSError as exc:
        raise ToolError("Could not write %s: %s" % (abspath, exc.strerror or exc))
    size = os.path.getsize(abspath)
    used_dpi = float(dpi) if dpi is not None else float(fig.dpi)
    pixels = _png_size(abspath) if fmt == "png" else None
    structured = {"path": abspath, "format": fmt, "bytes": size, "dpi": used_dpi,
                  "pixels": pixels, "source": source, "replaced": replacing,
                  "created_folders": created}
    text = "Saved %s to %s (%s, %s%s)." % (source, abspath, fmt.upper(), human_bytes(size),
                                         ", %d×%d px at %g dpi" % (pixels[0], pixels[1], used_dpi)
                                         if pixels else "")
    if replacing:
        text += " It replaced the image that was there."
    return text, structured, _save_code(ns, fig, figure, abspath, kwargs, source)


def _holding(ns, fig):
    """A variable expression that reaches ``fig``: a Figure, an Axes, or a sequence of Axes."""
    import matplotlib.figure
    figure_cls = matplotlib.figure.Figure
    found = []
    for name, obj in user_items(ns):
        if name.startswith("_"):
            continue
        ref = name_ref(name)
        if obj is fig:
            found.append((0, ref))
        elif _figure_of(obj, figure_cls) is fig:
            found.append((1, ref + ".figure"))
        else:
            first = _first_item(obj)
            if first is not None and _figure_of(first, figure_cls) is fig:
                found.append((2, "%s.flat[0].figure" % ref if hasattr(obj, "flat") else
                              "%s[0].figure" % ref))
    return min(found)[1] if found else None


def _first_item(obj):
    """The first element of an array or a list/tuple of Axes (plt.subplots(2) gives one)."""
    try:
        if type(obj).__module__ == "numpy" and getattr(obj, "size", 0):
            return obj.flat[0]
        if isinstance(obj, (list, tuple)) and obj:
            return obj[0]
    except Exception:
        pass
    return None


def _save_code(ns, fig, figure, abspath, kwargs, source):
    """``<figure>.savefig(path, ...)``, reaching the figure the way a plain kernel can."""
    attach = None
    if figure is not None:
        target = name_ref(figure) if isinstance(lookup(ns, figure), type(fig)) else \
            name_ref(figure) + ".figure"
    else:
        target = _holding(ns, fig)
        if target is None:
            # No variable holds it: pyplot's current figure, which a plain Jupyter kernel still
            # has only inside the cell that drew it (its inline backend closes figures after).
            target = "plt.gcf()"
            plt = sys.modules.get("matplotlib.pyplot")
            if not (plt is not None and plt.get_fignums() and plt.gcf() is fig):
                attach = "figure"
    lines = [invocation("os.makedirs", [os.path.dirname(abspath)], {"exist_ok": True}),
             "%s.%s" % (target, invocation("savefig", [abspath], kwargs))]
    imports = [OS, PYPLOT] if target == "plt.gcf()" else [OS]
    what = "the figure the cell drew" if attach else source
    summary = "%s saved to %s" % (what, abspath)
    return plain("save_figure", summary, lines, imports, attach=attach)
