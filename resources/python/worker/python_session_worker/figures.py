"""matplotlib figures as images, as Jupyter's inline backend shows them.

The worker runs matplotlib under Agg unless the person chose a backend (MPLBACKEND). Under a
backend that draws only to files, ``plt.show()`` displays the open figures as PNG where it is
called, and the end of each cell displays the rest; both then close them. The figure closed
last is kept in ``sys.modules['_python_session_figures'].last`` for ``save_figure`` (as
resources/python/kernel_startup.py does in ipykernel kernels). Nothing is imported here
until user code imports matplotlib.
"""
import os
import sys
import types

# Backends that draw only to files, by their lower-case names.
_FILE_BACKENDS = {"agg", "cairo", "pdf", "pgf", "ps", "svg", "template"}


def _after_import(name, fn):
    """Calls fn(module) once module `name` has been imported (now, if it already is)."""
    if name in sys.modules:
        fn(sys.modules[name])
        return

    # A finder needs only find_spec; importlib.abc would cost tens of milliseconds at every start.
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
                    pass  # an unexpected version of matplotlib: the extra just doesn't apply

            spec.loader.exec_module = exec_and_call
            return spec

    sys.meta_path.insert(0, WatchImport())


def _draws_to_files():
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is None:
        return False
    try:
        return str(matplotlib.get_backend()).lower() in _FILE_BACKENDS
    except Exception:
        return False


def _remember_closed(helpers):
    memory = sys.modules["_python_session_figures"]
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


class Figures:
    def __init__(self, display):
        self._display = display

    def install(self):
        os.environ.setdefault("MPLBACKEND", "Agg")
        memory = types.ModuleType("_python_session_figures")
        memory.last = None
        sys.modules.setdefault("_python_session_figures", memory)
        _after_import("matplotlib._pylab_helpers", _remember_closed)
        _after_import("matplotlib.pyplot", self._wrap_show)

    def _wrap_show(self, pyplot):
        show = pyplot.show
        if getattr(show, "_python_session", False):
            return

        def show_here(*args, **kwargs):
            if not _draws_to_files():
                return show(*args, **kwargs)
            self.show_open()

        show_here._python_session = True
        show_here.__doc__ = show.__doc__
        pyplot.show = show_here

    def at_cell_end(self):
        if "matplotlib.pyplot" in sys.modules and _draws_to_files():
            self.show_open()

    def show_open(self):
        """Displays every open figure as a PNG, then closes them."""
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
            self._display({"image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
                           "text/plain": repr(figure)}, raw=True)
        helpers.Gcf.destroy_all()
