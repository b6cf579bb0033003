"""Says which BLAS and LAPACK numpy runs on in this environment, and checks it with --expect.

Read from this process's own memory map after numpy (and scipy, statsmodels' other way into
LAPACK) have done some linear algebra, so it reports what the dynamic loader really chose under
the current LD_LIBRARY_PATH and OPENBLAS_* variables, not what the alternatives system says.
For OpenBLAS it also asks the library which processor kernel it picked (openblas_get_corename).
Linux only: elsewhere it says so and exits 0.

  python3 .ci/blas-in-use.py [--expect openblas|reference] [--expect-core Haswell]
"""

import argparse
import ctypes
import os
import sys


def loaded_libraries():
    """Paths of the mapped shared libraries whose names say BLAS or LAPACK (libblas.so.3 ...)."""
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            name = os.path.basename(path)
            # numpy's lapack_lite and scipy's _fblas wrappers are not libraries of their own.
            if path.startswith("/") and name.startswith("lib") and ("blas" in name or "lapack" in name):
                paths.add(path)
    return sorted(paths)


def openblas_core(path):
    """The kernel OpenBLAS chose (Haswell, SkylakeX, ...), or None if the library will not say."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for symbol in ("openblas_get_corename", "scipy_openblas_get_corename64_",
                   "scipy_openblas_get_corename"):
        fn = getattr(lib, symbol, None)
        if fn is not None:
            fn.restype = ctypes.c_char_p
            return fn().decode()
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--expect", choices=("openblas", "reference"))
    parser.add_argument("--expect-core", help="OpenBLAS kernel name, compared case-insensitively")
    args = parser.parse_args()
    if not os.path.exists("/proc/self/maps"):
        print("BLAS in use: unknown (no /proc/self/maps on this system)")
        return 0

    import numpy as np
    a = np.arange(64.0 * 64).reshape(64, 64) % 7
    a @ a
    np.linalg.svd(a)
    try:
        import scipy.linalg
        scipy.linalg.lstsq(a, a[:, 0])
    except ImportError:
        pass

    libraries = loaded_libraries()
    openblas = [p for p in libraries if "openblas" in os.path.basename(p)]
    reference_blas = [p for p in libraries if os.path.basename(p).startswith("libblas.so")
                      and os.path.basename(os.path.dirname(p)) == "blas"]
    if openblas:
        kind = "openblas"
        core = openblas_core(openblas[0])
        summary = "OpenBLAS, kernel %s" % (core or "not reported")
    elif reference_blas:
        kind, core = "reference", None
        summary = "reference BLAS (Netlib, Debian's libblas3)"
    else:
        kind, core = "other", None
        summary = "neither OpenBLAS nor the reference BLAS"
    settings = ", ".join("%s=%s" % (k, v) for k, v in sorted(os.environ.items())
                         if k.startswith("OPENBLAS_")) or "no OPENBLAS_* variables"
    print("BLAS in use: %s; numpy %s (%s); %s" % (summary, np.__version__, sys.executable, settings))
    for path in libraries:
        print("  mapped: %s" % os.path.realpath(path))

    problems = []
    if args.expect and kind != args.expect:
        problems.append("expected %s, found %s" % (args.expect, kind))
    if args.expect_core and (core or "").lower() != args.expect_core.lower():
        problems.append("expected OpenBLAS kernel %s, found %s" % (args.expect_core, core))
    for problem in problems:
        print("BLAS check failed: %s" % problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
