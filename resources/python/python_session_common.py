"""What both kinds of kernel Python Session starts do the same way.

Used by resources/python/kernel_startup.py (in ipykernel kernels, here and on a server) and by
the built-in worker (resources/python/worker). Standard library only, and nothing is imported at
module level that a plain interpreter does not already have loaded: the worker's start time
counts every import.

* The memory cap (:func:`cap_memory`).
* matplotlib figures: the figure closed last is kept for ``save_figure``
  (:func:`remember_closed_figures`), and under a backend that draws only to files ``plt.show()``
  and the end of each cell display the open figures as PNG, then close them, as Jupyter's
  inline backend does (:func:`show_figures_under_file_backends`).
* Text UTF-8 cannot carry, made safe for the wire (:func:`scrub`).
"""
import os
import sys
import types

# matplotlib's backends that draw only to files, by their lower-case names (as
# matplotlib.rcsetup.non_interactive_bk listed them until 3.9 deprecated the list).
FILE_BACKENDS = frozenset({"agg", "cairo", "pdf", "pgf", "ps", "svg", "template"})
FIGURES_MODULE = "_python_session_figures"  # sys.modules entry whose .last is the figure closed last

_INF = float("inf")


def cap_memory():
    """With PYTHON_SESSION_MEMORY_LIMIT (bytes), caps the data segment (Linux's RLIMIT_DATA).

    On Linux that counts malloc'd and anonymous mmap'd memory, so a runaway allocation raises
    MemoryError in the user's cell instead of waking the out-of-memory killer for the whole
    machine. The variable is removed, so processes the user starts are not capped by it.
    """
    limit = os.environ.pop("PYTHON_SESSION_MEMORY_LIMIT", None)
    if not limit or not sys.platform.startswith("linux"):
        return
    try:
        import resource

        limit = int(limit)
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ValueError, OSError, ImportError):
        pass


def scrub(value, finite=False):
    """``value`` with characters UTF-8 cannot encode (lone surrogates) as backslash escapes.

    Walks dicts, lists and tuples (a tuple comes back as a list, as JSON has it). With
    ``finite``, NaN and infinities become None too, for a JSON encoder that refuses them.
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if finite and isinstance(value, float) and (value != value or value in (_INF, -_INF)):
        return None
    if isinstance(value, dict):
        return {scrub(k, finite): scrub(v, finite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, finite) for v in value]
    return value


def after_import(name, fn):
    """Calls fn(module) once module `name` has been imported (now, if it already is)."""
    if name in sys.modules:
        fn(sys.modules[name])
        return

    # A finder needs only find_spec; importlib.abc would cost the worker tens of milliseconds at start.
    class WatchImport:
        def find_spec(self, fullname, path, target=None):
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            import importlib.util

            spec = importlib.util.find_spec(fullname)
            if spec is None or spec.loader is None:
                return spec
            execute = spec.loader.exec_module

            def exec_and_call(module):
                execute(module)
                try:
                    fn(module)
                except Exception:
                    pass  # an unexpected version of the module: the extra just doesn't apply

            spec.loader.exec_module = exec_and_call
            return spec

    sys.meta_path.insert(0, WatchImport())


def remember_closed_figures():
    """Keeps the figure closed last in ``sys.modules[FIGURES_MODULE].last``.

    Jupyter's inline backend closes a cell's figures once it has shown them (and so does
    :func:`show_open_figures`), so ``save_figure`` after a plotting call would find none.
    When matplotlib's figure registry is imported, its close functions are wrapped to keep a
    reference to the figure being closed (only the last).
    """
    memory = types.ModuleType(FIGURES_MODULE)
    memory.last = None
    sys.modules.setdefault(FIGURES_MODULE, memory)
    after_import("matplotlib._pylab_helpers", _keep_closed)


def _keep_closed(helpers):
    memory = sys.modules[FIGURES_MODULE]
    gcf = helpers.Gcf
    if getattr(gcf, "_python_session_wrapped", False):
        return
    destroy, destroy_all = gcf.destroy.__func__, gcf.destroy_all.__func__

    def keep(manager):
        figure = getattr(getattr(manager, "canvas", None), "figure", None)
        if figure is not None:
            memory.last = figure

    def destroy_and_keep(cls, num):
        keep(num if hasattr(num, "canvas") else cls.figs.get(num))
        return destroy(cls, num)

    def destroy_all_and_keep(cls):
        keep(cls.get_active())
        return destroy_all(cls)

    gcf.destroy = classmethod(destroy_and_keep)
    gcf.destroy_all = classmethod(destroy_all_and_keep)
    gcf._python_session_wrapped = True


def draws_to_files():
    """True when matplotlib is loaded and its backend draws only to files (Agg, PDF, SVG…)."""
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is None:
        return False
    try:
        return str(matplotlib.get_backend()).lower() in FILE_BACKENDS
    except Exception:
        return False


def show_open_figures(display):
    """Displays every open figure as a PNG through ``display(bundle, raw=True)``, then closes them."""
    helpers = sys.modules.get("matplotlib._pylab_helpers")
    if helpers is None:
        return
    managers = list(helpers.Gcf.get_all_fig_managers())
    if not managers:
        return
    import base64
    import io

    for manager in managers:
        figure = manager.canvas.figure
        buffer = io.BytesIO()
        try:
            figure.savefig(buffer, format="png", bbox_inches="tight")
        except Exception as error:
            sys.stderr.write("Figure %s could not be drawn: %s\n" % (manager.num, error))
            continue
        display({"image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
                 "text/plain": repr(figure)}, raw=True)
    helpers.Gcf.destroy_all()


def show_figures_under_file_backends(display):
    """Makes figures come back under a backend that draws only to files; returns the cell-end step.

    After ``matplotlib.use('Agg')`` (which many scripts start with) no figure would ever be
    shown and ``plt.show()`` only warns. Once pyplot is imported, its ``show()`` displays the
    open figures where it is called; the function returned displays the rest and is to be
    called at the end of each cell. Under any other backend both leave matplotlib alone.
    """

    def wrap_show(pyplot):
        show = pyplot.show
        if getattr(show, "_python_session", False):
            return

        def show_here(*args, **kwargs):
            if not draws_to_files():
                return show(*args, **kwargs)
            show_open_figures(display)

        show_here._python_session = True
        show_here.__doc__ = show.__doc__
        pyplot.show = show_here

    after_import("matplotlib.pyplot", wrap_show)

    def at_cell_end():
        if "matplotlib.pyplot" in sys.modules and draws_to_files():
            show_open_figures(display)

    return at_cell_end


NOT_ANSWERS = "\x00python-session:"  # app/core/kernel/messaging/input-replies.ts


def answer_to_question(answer, prompt, password, write):
    """The line the person sent for a question the code asked, echoed after its prompt (a
    password as dots) with `write`; or, for the daemon's replies that are not answers, the
    exception the code gets: KeyboardInterrupt (declined) or EOFError (nobody could answer)."""
    if isinstance(answer, str) and answer.startswith(NOT_ANSWERS):
        kind, _, words = answer[len(NOT_ANSWERS):].partition(":")
        if kind == "declined":
            raise KeyboardInterrupt(words)
        raise EOFError(words)
    write("%s%s\n" % (prompt, "\u00b7" * 8 if password else answer))
    return answer
