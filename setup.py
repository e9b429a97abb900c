"""Build the compiled kernels of corset (every ``corset/_ext/*.pyx``).

Compiler directives are set here once, for every module.  Two environment
switches:

``CORSET_DEBUG=1``
    turns bounds, wraparound and initialisation checks back on (a debug
    build for hunting out-of-bounds accesses in the kernels).
``CORSET_BUILD_ONLY=_mod1,_mod2``
    a developer convenience for ``python setup.py build_ext --inplace``:
    compile only the named modules of ``corset/_ext``.
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("CORSET_DEBUG", "0") not in ("", "0")

COMPILER_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": False,
    "cdivision": True,
    "embedsignature": True,
}


# Modules that use C++ containers (libcpp): compiled as C++.
CPP_MODULES = {"_gh_memo", "_rule_registry"}


def _extensions():
    only = {m.strip() for m in os.environ.get("CORSET_BUILD_ONLY", "").split(",") if m.strip()}
    extensions = []
    for path in sorted(glob.glob(os.path.join("corset", "_ext", "*.pyx"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if only and name not in only:
            continue
        extensions.append(
            Extension(
                f"corset._ext.{name}",
                [path],
                # corset/_ext/include: the C and C++ helpers the kernels include (corset_bits.h, ...).
                include_dirs=[np.get_include(), os.path.join("corset", "_ext", "include")],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                # OpenMP: prange loops over independent jobs (pools of candidates).
                # -ffp-contract=off: no fused multiply-adds behind the code's back (e.g. with
                # CFLAGS=-march=native), so that a value computed in two places (the memoised and
                # the plain head searches, table and direct acceptance terms) is the same double.
                extra_compile_args=(["-O3"] if not DEBUG else ["-O0", "-g"]) + ["-fopenmp", "-ffp-contract=off"],
                extra_link_args=["-fopenmp"],
                language="c++" if name in CPP_MODULES else "c",
            )
        )
    return extensions


def _directives_changed():
    """Whether the debug switch differs from the last build's.

    cythonize regenerates a .c file only when its .pyx is newer; the
    directives (bounds checks on or off) are not part of that check, so a
    change of ``CORSET_DEBUG`` forces a full regeneration.
    """
    stamp = os.path.join("build", "corset-directives.txt")
    state = repr(sorted(COMPILER_DIRECTIVES.items()))
    try:
        with open(stamp) as f:
            changed = f.read() != state
    except OSError:
        changed = True
    os.makedirs("build", exist_ok=True)
    with open(stamp, "w") as f:
        f.write(state)
    return changed


setup(
    ext_modules=cythonize(
        _extensions(),
        compiler_directives=COMPILER_DIRECTIVES,
        force=_directives_changed(),
        include_path=["."],
        # Parallel cythonisation does not help on two cores and makes errors harder to read.
        nthreads=0,
    ),
)
