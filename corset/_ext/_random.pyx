"""Python shims over the inline generator of ``_random.pxd``, for tests.

They let tests pin the generator's exact outputs and check its uniformity
without going through a sampler.
"""
import numpy as np

from corset._ext._typedefs cimport uint64_t


def splitmix64(uint64_t seed, Py_ssize_t n):
    """The first ``n`` outputs of SplitMix64 seeded with ``seed`` (uint64 array)."""
    cdef uint64_t state = seed
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] view = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(n):
            view[i] = rng_next(&state)
    return out


def uniform(uint64_t seed, Py_ssize_t n):
    """``n`` doubles uniform on [0, 1)."""
    cdef uint64_t state = seed
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] view = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(n):
            view[i] = rng_uniform(&state)
    return out


def below(uint64_t seed, uint64_t bound, Py_ssize_t n):
    """``n`` integers uniform on {0, ..., bound - 1} (bound >= 1)."""
    cdef uint64_t state = seed
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] view = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(n):
            view[i] = rng_below(&state, bound)
    return out
