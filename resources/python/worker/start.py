# Python Session's built-in worker: runs user code in interpreters that lack ipykernel.
#
# This file must stay parseable by every Python a person may point us at (2.7 included), so
# that an interpreter too old to run the worker says so instead of failing on syntax: no
# f-strings, no print(), nothing past Python 2.6's grammar. The worker itself is the
# python_session_worker package beside this file; see its __init__ for the protocol.
import sys

SUPPORTED = "CPython 3.8 to 3.13"

if sys.version_info < (3, 8):
    version = "%d.%d.%d" % tuple(sys.version_info[:3])
    sys.stderr.write(
        "python-session-worker: unsupported Python %s at %s. Python Session runs code in %s; "
        "choose one of those.\n" % (version, sys.executable, SUPPORTED)
    )
    sys.exit(3)

# The worker's folder, and the one above it with python_session_common (what the worker shares
# with kernel_startup.py), are on sys.path only while the worker is imported, where user code
# would import from them; a REPL's '' (the working directory) takes their place.
import os

_here = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == _here:
    sys.path[0] = _here
else:
    sys.path.insert(0, _here)
sys.path.insert(1, os.path.dirname(_here))
from python_session_worker.main import run  # noqa: E402

del sys.path[1]
sys.path[0] = ""
del _here
sys.exit(run())
