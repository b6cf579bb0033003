"""Optional packages: importing them lazily, and saying how to install them into *this* interpreter.

The install command always targets the interpreter the kernel runs in:

* a conda environment (``<sys.prefix>/conda-meta`` exists): ``conda install -n <env> <pkg>``
  when the environment lives in an ``envs`` folder (or is ``base``), otherwise
  ``conda install -p "<prefix>" <pkg>``;
* a uv-made virtual environment without pip: ``uv pip install --python "<exe>" <pkg>``;
* anything else: ``"<sys.executable>" -m pip install <pkg>``.
"""

import importlib
import importlib.util
import os
import sys

from .errors import ToolError


def _quote(path):
    if not path:
        return '""'
    if any(ch in path for ch in ' \t"\'&()[]{};$`!*?<>|'):
        return '"%s"' % path.replace('"', '\\"')
    return path


def _conda_env_name(prefix):
    """The name ``conda install -n`` understands, or None when only ``-p`` will do."""
    prefix = os.path.normpath(prefix)
    parent = os.path.dirname(prefix)
    if os.path.basename(parent) == "envs":
        return os.path.basename(prefix)
    # The base (root) installation holds conda itself.
    if os.path.isdir(os.path.join(prefix, "condabin")) or os.path.exists(
        os.path.join(prefix, "conda-meta", "history")
    ) and os.path.isdir(os.path.join(prefix, "pkgs")):
        return "base"
    return None


def _is_uv_venv(prefix):
    cfg = os.path.join(prefix, "pyvenv.cfg")
    try:
        with open(cfg, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return False
    return any(line.strip().lower().startswith("uv ") or line.strip().lower().startswith("uv=")
               for line in text.splitlines())


def install_command(package, prefix=None, executable=None, has_pip=None):
    """The shell command that installs ``package`` into the running interpreter."""
    prefix = sys.prefix if prefix is None else prefix
    executable = (sys.executable or "python") if executable is None else executable
    if os.path.isdir(os.path.join(prefix, "conda-meta")):
        name = _conda_env_name(prefix)
        if name is not None:
            return "conda install -n %s %s" % (_quote(name), package)
        return "conda install -p %s %s" % (_quote(prefix), package)
    if has_pip is None:
        has_pip = importlib.util.find_spec("pip") is not None
    if not has_pip and _is_uv_venv(prefix):
        return "uv pip install --python %s %s" % (_quote(executable), package)
    return "%s -m pip install %s" % (_quote(executable), package)


def missing_package(package, purpose, module=None):
    """The :class:`ToolError` for a package this interpreter lacks."""
    command = install_command(package)
    message = (
        "%s needs the package %s, which is not installed in this interpreter (%s). "
        "Install it with:  %s  — then try again (no restart needed)."
        % (purpose, package, sys.executable or sys.prefix, command)
    )
    return ToolError(message, kind="missing_package", install=command)


def require(module, purpose, package=None):
    """Import ``module`` (lazily, at call time) or raise a missing-package :class:`ToolError`."""
    package = package or module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        # A package that is installed but fails to import (a broken binary, a version clash)
        # is reported with its own message rather than as "not installed".
        missing = getattr(exc, "name", None)
        if missing is not None and missing.split(".")[0] != module.split(".")[0] and \
                importlib.util.find_spec(module.split(".")[0]) is not None:
            raise ToolError(
                "%s needs %s, which is installed but failed to import: %s"
                % (purpose, package, exc), kind="missing_package",
                install=install_command(missing.split(".")[0]),
            )
        raise missing_package(package, purpose)


def available(module):
    """True when ``module`` can be found (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
