"""The training values on either side of each threshold of a numeric column.

:class:`corset.preprocessing.PercentileBinarizer` prints a threshold as the
shortest number that splits the training values as the threshold does; that
number lies between the greatest training value on the threshold's false
side and the least on its true side.  One pass over each column finds both
for all of its thresholds at once (a binary search among the thresholds per
value), where numpy would take two passes over the column per threshold.
"""
import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int64_t


def cut_neighbours(const double[:, :] values, const double[:, :] levels, bint inclusive, Py_ssize_t n_zeros):
    """``(below, above, holding)``: for each threshold, the nearest training values on its two sides,
    and how many values it holds on.

    Parameters
    ----------
    values : ndarray of float64, shape (n, b)
        A block of b columns of training values (finite; any strides).
    levels : ndarray of float64, shape (m, b)
        Each column's thresholds, sorted in increasing order (ties allowed).
    inclusive : bool
        A threshold t holds on the values ``v >= t``; otherwise on ``v > t``.
    n_zeros : int
        Every column also holds this many zeros (a sparse column's implicit
        zeros, which ``values`` leaves out).

    Returns
    -------
    below, above : ndarray of float64, shape (m, b)
        ``above[q, c]``: the least value of column c on which threshold
        ``levels[q, c]`` holds (+inf when none); ``below[q, c]``: the greatest
        on which it does not (-inf when none).  Checked by the caller: the
        shapes agree.
    holding : ndarray of int64, shape (m, b)
        The number of the column's values (zeros included) the threshold holds on.
    """
    cdef Py_ssize_t n = values.shape[0], b = values.shape[1], m = levels.shape[0]
    cdef Py_ssize_t c, i, q
    cdef double best
    cdef int64_t total
    below_out = np.empty((m, b), dtype=np.float64)
    above_out = np.empty((m, b), dtype=np.float64)
    holding_out = np.empty((m, b), dtype=np.int64)
    counts = np.zeros((b, m + 1), dtype=np.int64)
    # Per column, its bucket p (the values with p thresholds below them, or at most them with
    # inclusive): the least and greatest value.  Buckets are ordered as their values are.
    smallest = np.full((b, m + 1), np.inf)
    largest = np.full((b, m + 1), -np.inf)
    by_column = np.ascontiguousarray(np.asarray(levels).T)   # each column's thresholds side by side
    cdef double[:, ::1] below = below_out, above = above_out
    cdef double[:, ::1] small = smallest, large = largest
    cdef int64_t[:, ::1] count = counts, holding = holding_out
    cdef const double[:, ::1] lev = by_column
    # Along the block's memory: row by row for a C-ordered block, column by column otherwise.
    cdef bint by_rows = values.strides[1] <= values.strides[0]
    with nogil:
        if by_rows:
            for i in range(n):
                for c in range(b):
                    _bucket(values[i, c], 1, &lev[c, 0], m, inclusive, &small[c, 0], &large[c, 0], &count[c, 0])
        else:
            for c in range(b):
                for i in range(n):
                    _bucket(values[i, c], 1, &lev[c, 0], m, inclusive, &small[c, 0], &large[c, 0], &count[c, 0])
        if n_zeros > 0:
            for c in range(b):
                _bucket(0.0, n_zeros, &lev[c, 0], m, inclusive, &small[c, 0], &large[c, 0], &count[c, 0])
        for c in range(b):
            # Threshold q holds on the buckets after q and not on those up to q.
            best = -INFINITY
            for q in range(m):
                if large[c, q] > best:
                    best = large[c, q]
                below[q, c] = best
            best = INFINITY
            total = 0
            for q in range(m - 1, -1, -1):
                if small[c, q + 1] < best:
                    best = small[c, q + 1]
                above[q, c] = best
                total += count[c, q + 1]
                holding[q, c] = total
    return below_out, above_out, holding_out


cdef inline void _bucket(double v, int64_t times, const double* levels, Py_ssize_t m, bint inclusive,
                         double* small, double* large, int64_t* count) noexcept nogil:
    """Put value ``v`` of a column (``times`` times) in its bucket: after the thresholds below it
    (">": t < v; ">=": t <= v).  A column has a few thresholds: counted, without branches, up to 16; by
    bisection beyond."""
    cdef Py_ssize_t p = 0, q, hi, mid
    if m <= 16:
        if inclusive:
            for q in range(m):
                p += levels[q] <= v
        else:
            for q in range(m):
                p += levels[q] < v
    else:
        hi = m
        while p < hi:
            mid = (p + hi) // 2
            if levels[mid] < v or (inclusive and levels[mid] == v):
                p = mid + 1
            else:
                hi = mid
    count[p] += times
    if v < small[p]:
        small[p] = v
    if v > large[p]:
        large[p] = v
