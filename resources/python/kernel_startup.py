"""Runs once at the start of every kernel Python Session launches.

It is executed in a private namespace (see app/core/kernel/kernel-process.ts),
so nothing here appears among the user's variables.

1. Lifeline. The daemon gives the kernel one end of a socket pair as file
   descriptor PYTHON_SESSION_LIFELINE_FD. A thread blocks reading it; end of
   file means the daemon is gone (even killed with SIGKILL), and the kernel
   ends its whole process group so no orphan keeps running. ipykernel's own
   parent poller only notices re-parenting to PID 1, which a container's
   subreaper or a desktop session manager defeats.

2. Memory cap. With PYTHON_SESSION_MEMORY_LIMIT (bytes) set, the kernel's
   data segment (which on Linux counts malloc'd and anonymous mmap'd memory)
   is capped, so a runaway allocation raises MemoryError in the user's cell
   instead of waking the out-of-memory killer for the whole machine.

3. The last figure. Jupyter's inline backend closes a cell's figures once it
   has shown them, so `save_figure` after a plotting call would find none.
   When matplotlib's figure registry is first imported we wrap its close
   functions to keep a reference to the figure being closed (only the last).

4. Print order. ipykernel buffers stdout and stderr separately and flushes
   them on a timer, so a warning written after a print can arrive first.
   Before writing to one stream we flush the other if it holds text.
"""
import importlib.abc
import importlib.util
import os
import stat
import sys
import threading
import types


def _start_lifeline():
    fd = os.environ.pop("PYTHON_SESSION_LIFELINE_FD", None)
    if os.name != "posix" or not fd:
        return
    fd = int(fd)
    try:
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return
    except OSError:
        return

    def wait_for_owner():
        try:
            while os.read(fd, 4096):
                pass
        except OSError:
            return  # user code closed the descriptor; the parent poller still stands
        os.killpg(os.getpgrp(), 9)

    threading.Thread(target=wait_for_owner, name="python-session-lifeline", daemon=True).start()


def _cap_memory():
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


def _remember_closed_figures():
    memory = types.ModuleType("_python_session_figures")
    memory.last = None
    sys.modules.setdefault("_python_session_figures", memory)
    memory = sys.modules["_python_session_figures"]

    def wrap(helpers):
        gcf = helpers.Gcf
        if getattr(gcf, "_python_session_wrapped", False):
            return
        destroy, destroy_all = gcf.destroy.__func__, gcf.destroy_all.__func__

        def keep(manager):
            figure = getattr(getattr(manager, "canvas", None), "figure", None)
            if figure is not None:
                memory.last = figure

        def destroy_and_keep(cls, num):
            manager = num if hasattr(num, "canvas") else cls.figs.get(num)
            keep(manager)
            return destroy(cls, num)

        def destroy_all_and_keep(cls):
            keep(cls.get_active())
            return destroy_all(cls)

        gcf.destroy = classmethod(destroy_and_keep)
        gcf.destroy_all = classmethod(destroy_all_and_keep)
        gcf._python_session_wrapped = True

    name = "matplotlib._pylab_helpers"
    if name in sys.modules:
        wrap(sys.modules[name])
        return

    class WatchFigureRegistry(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            if spec is None or spec.loader is None:
                return spec
            execute = spec.loader.exec_module

            def exec_and_wrap(module):
                execute(module)
                try:
                    wrap(module)
                except Exception:
                    pass  # an unexpected matplotlib: saving earlier figures just won't work

            spec.loader.exec_module = exec_and_wrap
            return spec

    sys.meta_path.insert(0, WatchFigureRegistry())


def _has_pending_text(stream):
    buffer = getattr(stream, "_buffer", None)
    try:
        return buffer is not None and buffer.tell() > 0
    except Exception:
        return True


def _keep_print_order():
    for name, other_name in (("stdout", "stderr"), ("stderr", "stdout")):
        stream = getattr(sys, name)
        if type(stream).__name__ != "OutStream":
            continue
        write = stream.write

        def ordered_write(text, _write=write, _other=other_name, _self=stream):
            other = getattr(sys, _other)
            if other is not _self and _has_pending_text(other):
                other.flush()
            return _write(text)

        stream.write = ordered_write


_start_lifeline()
_cap_memory()
_remember_closed_figures()
_keep_print_order()
