"""Weighted record sampling: static (cumulative or alias) and dynamic (sum tree).

The first stage of the two-stage samplers of section samp draws a record (or
a record of a pair) with probability proportional to a weight.  Weights reach
2^|L_D| and 2^|D+|, so the caller scales them by a common factor first
(``corset.sampling._weights.scale_log_weights``): every weight handed to these
kernels is a finite double >= 0 and the largest is 1 (or an exact power of
two).  Guarantees, for weights w_i with total W:

* a record of weight 0 is never drawn (each draw routes around zero mass
  explicitly, not by the luck of rounding);
* ``cumulative_draw``: the partial sums are accumulated with a compensated
  (TwoSum) accumulator, so each stored partial sum is within one rounding
  (relative 2^-53) of the exact one; the probability of drawing record i
  then differs from w_i / W by at most about 2^-51 (two endpoints, the
  product u * W, and the 2^-53 grid of the uniform);
* ``sumtree_draw``: descends the tree with a fresh uniform per level and goes
  left with probability fl(u * S) < L, so each level's branch probability
  has a relative error of at most about 2^-52 and the probability of record
  i a relative error of at most (depth + 1) * 2^-52 (depth = log2 of the
  number of records), plus the 2^-53 grid of each uniform;
* ``alias_draw``: exact in exact arithmetic; in floating point each table
  entry carries the rounding of Vose's construction (O(n) roundings in the
  worst case).  It is kept for the benchmark that chose the static sampler.

The sum tree's internal nodes are recomputed from their children on every
update (never updated by adding a delta), so no rounding error accumulates
over a run of updates: the tree is a function of the current weights only,
and a record whose weight returns to 0 has exactly 0 mass.
"""
import numpy as np

from corset._ext._typedefs cimport index_t, uint64_t
from corset._ext._random cimport rng_below, rng_uniform


# -- static: cumulative weights + binary search -----------------------------
cdef Py_ssize_t cumulative_fill(const double* weights, Py_ssize_t n,
                                double* cumulative) noexcept nogil:
    """Fill inclusive partial sums; return the last index of positive weight (-1 if none).

    A running (hi, lo) pair holds the exact partial sum to about 2^-106
    (Knuth's TwoSum); each stored value is its rounding.  The stored sums are
    forced non-decreasing, and a zero weight repeats the previous value
    exactly, which is what keeps zero-weight records out of every draw.
    """
    cdef double hi = 0.0, lo = 0.0, t, w, value, previous = 0.0
    cdef Py_ssize_t i, last = -1
    for i in range(n):
        w = weights[i]
        if w > 0.0:
            t = hi + w
            if hi >= w:
                lo += (hi - t) + w
            else:
                lo += (w - t) + hi
            hi = t
            value = hi + lo
            if value < previous:
                value = previous
            last = i
        else:
            value = previous
        cumulative[i] = value
        previous = value
    return last


# cumulative_draw is inline, in _weighted.pxd: the head samplers draw from it in their hot loops.


# -- static: Vose's alias method ---------------------------------------------
cdef int alias_fill(const double* weights, Py_ssize_t n, double* prob,
                    index_t* alias, index_t* work) noexcept nogil:
    """Vose's alias table; ``work`` holds n ids.  Returns -1 if the total is 0.

    Small entries are stacked from the front of ``work``, large ones from the
    back.  A zero-weight entry keeps probability 0 and an alias of positive
    weight, even when rounding leaves it unpaired at the end.
    """
    cdef double total = 0.0
    cdef Py_ssize_t i, n_small = 0, n_large = 0, s, l, any_positive = -1
    for i in range(n):
        total += weights[i]
        if weights[i] > 0.0:
            any_positive = i
    if any_positive < 0:
        return -1
    for i in range(n):
        # w / total first: n / total overflows when the total is subnormal.
        prob[i] = (weights[i] / total) * n
        alias[i] = <index_t>i
        if prob[i] < 1.0:
            work[n_small] = <index_t>i
            n_small += 1
        else:
            work[n - 1 - n_large] = <index_t>i
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        s = work[n_small]
        l = work[n - n_large]
        n_large -= 1
        alias[s] = <index_t>l
        prob[l] = (prob[l] + prob[s]) - 1.0
        if prob[l] < 1.0:
            work[n_small] = <index_t>l
            n_small += 1
        else:
            n_large += 1
            work[n - n_large] = <index_t>l
    while n_large > 0:
        n_large -= 1
        prob[work[n - 1 - n_large]] = 1.0
    while n_small > 0:
        # Left over only through rounding: a positive weight keeps its slot.
        n_small -= 1
        s = work[n_small]
        if weights[s] > 0.0:
            prob[s] = 1.0
        else:
            prob[s] = 0.0
            alias[s] = <index_t>any_positive
    return 0


cdef Py_ssize_t alias_draw(const double* prob, const index_t* alias, Py_ssize_t n,
                           uint64_t* state) noexcept nogil:
    cdef Py_ssize_t i = <Py_ssize_t>rng_below(state, <uint64_t>n)
    if rng_uniform(state) < prob[i]:
        return i
    return alias[i]


# -- dynamic: sum tree --------------------------------------------------------
cdef void sumtree_fill(double* tree, Py_ssize_t size) noexcept nogil:
    """Recompute every internal node from the leaves tree[size:2 size]."""
    cdef Py_ssize_t v
    tree[0] = 0.0
    for v in range(size - 1, 0, -1):
        tree[v] = tree[2 * v] + tree[2 * v + 1]


cdef void sumtree_set(double* tree, Py_ssize_t size, Py_ssize_t i, double weight) noexcept nogil:
    """Set leaf i and recompute its ancestors from their children (no deltas)."""
    cdef Py_ssize_t v = size + i
    tree[v] = weight
    v >>= 1
    while v >= 1:
        tree[v] = tree[2 * v] + tree[2 * v + 1]
        v >>= 1


cdef Py_ssize_t sumtree_draw(const double* tree, Py_ssize_t size, uint64_t* state) noexcept nogil:
    """A leaf with probability proportional to its weight; the root must be positive.

    One fresh uniform per level: the branch probability L / (L + R) is then
    realised with a relative error of about 2^-52 at every level, however
    small the branch is relative to the whole tree.  An empty side is never
    entered.
    """
    cdef Py_ssize_t v = 1
    cdef double left, right
    while v < size:
        left = tree[2 * v]
        right = tree[2 * v + 1]
        if right <= 0.0:
            v = 2 * v
        elif left <= 0.0:
            v = 2 * v + 1
        elif rng_uniform(state) * (left + right) < left:
            v = 2 * v
        else:
            v = 2 * v + 1
    return v - size


# -- Python entry points (tests, benchmarks, the pure-Python layer) ----------
def cumulative(const double[::1] weights):
    """(partial sums, last index of positive weight) of ``weights`` (see ``cumulative_fill``)."""
    cdef Py_ssize_t n = weights.shape[0], last = -1
    out = np.zeros(n, dtype=np.float64)
    cdef double[::1] view = out
    if n > 0:
        with nogil:
            last = cumulative_fill(&weights[0], n, &view[0])
    return out, last


def draw_cumulative(const double[::1] cum, Py_ssize_t last_positive, Py_ssize_t n_draws, uint64_t seed):
    """``n_draws`` record indices from partial sums ``cum`` (total must be positive)."""
    cdef uint64_t state = seed
    cdef Py_ssize_t n = cum.shape[0], i
    out = np.empty(n_draws, dtype=np.int64)
    cdef long long[::1] view = out
    with nogil:
        for i in range(n_draws):
            view[i] = cumulative_draw(&cum[0], n, last_positive, &state)
    return out


def search_cumulative(const double[::1] cum, Py_ssize_t last_positive, const double[::1] xs):
    """For each x of ``xs``, the record ``draw_cumulative`` gives when u * total is x (tests)."""
    cdef Py_ssize_t n = cum.shape[0], i
    if n == 0:
        raise ValueError("search_cumulative: no partial sums")
    out = np.empty(xs.shape[0], dtype=np.int64)
    cdef long long[::1] view = out
    with nogil:
        for i in range(xs.shape[0]):
            view[i] = cumulative_search(&cum[0], n, last_positive, xs[i])
    return out


def alias_table(const double[::1] weights):
    """(prob, alias) of Vose's method; raises ValueError if every weight is 0."""
    cdef Py_ssize_t n = weights.shape[0]
    cdef int status = -1
    prob = np.zeros(n, dtype=np.float64)
    alias = np.zeros(n, dtype=np.int32)
    work = np.zeros(n, dtype=np.int32)
    cdef double[::1] p = prob
    cdef index_t[::1] a = alias
    cdef index_t[::1] w = work
    if n > 0:
        with nogil:
            status = alias_fill(&weights[0], n, &p[0], &a[0], &w[0])
    if status != 0:
        raise ValueError("weights must have a positive total")
    return prob, alias


def draw_alias(const double[::1] prob, const index_t[::1] alias, Py_ssize_t n_draws, uint64_t seed):
    """``n_draws`` record indices from an alias table."""
    cdef uint64_t state = seed
    cdef Py_ssize_t n = prob.shape[0], i
    out = np.empty(n_draws, dtype=np.int64)
    cdef long long[::1] view = out
    with nogil:
        for i in range(n_draws):
            view[i] = alias_draw(&prob[0], &alias[0], n, &state)
    return out


def tree_size(Py_ssize_t n_leaves):
    """The number of leaves of the sum tree holding ``n_leaves`` weights (a power of two)."""
    cdef Py_ssize_t size = 1
    while size < n_leaves:
        size <<= 1
    return size


def sumtree(const double[::1] weights):
    """A sum tree (array of 2 * size doubles) over ``weights``."""
    cdef Py_ssize_t n = weights.shape[0], size = tree_size(n), i
    tree = np.zeros(2 * size, dtype=np.float64)
    cdef double[::1] view = tree
    with nogil:
        for i in range(n):
            view[size + i] = weights[i]
        sumtree_fill(&view[0], size)
    return tree


def sumtree_update(double[::1] tree, const index_t[::1] leaves, const double[::1] weights):
    """Set ``tree``'s leaves ``leaves[j]`` to ``weights[j]`` in place."""
    cdef Py_ssize_t size = tree.shape[0] // 2, j
    with nogil:
        for j in range(leaves.shape[0]):
            sumtree_set(&tree[0], size, leaves[j], weights[j])


def draw_sumtree(const double[::1] tree, Py_ssize_t n_draws, uint64_t seed):
    """``n_draws`` leaf indices from a sum tree (its root must be positive)."""
    cdef uint64_t state = seed
    cdef Py_ssize_t size = tree.shape[0] // 2, i
    out = np.empty(n_draws, dtype=np.int64)
    cdef long long[::1] view = out
    with nogil:
        for i in range(n_draws):
            view[i] = sumtree_draw(&tree[0], size, &state)
    return out
