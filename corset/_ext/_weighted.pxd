# Weighted record sampling: the first stage of every two-stage sampler.
#
# Weights are non-negative, finite doubles, already scaled by a common factor
# by the caller (log-weights minus their maximum, exponentiated; or exact
# powers of two shifted by a common exponent).  A record of weight 0 is never
# drawn, by construction of each draw, not by luck of rounding.
#
# Three structures, all pure kernels (``noexcept nogil``, no allocation):
#
# * cumulative weights (compensated summation) and binary search: the static
#   sampler used by the proposals of head sampling (one 53-bit uniform per draw);
# * Vose's alias table: the O(1) static alternative, kept for the benchmark
#   that decided between the two (asv_bench/benchmarks/sampling.py);
# * a sum tree (a complete binary tree whose internal nodes are recomputed
#   from their children on every update): the dynamic sampler of tail
#   sampling, whose weights change as rules are selected.
from corset._ext._random cimport rng_uniform
from corset._ext._typedefs cimport index_t, uint64_t

# -- static: cumulative weights + binary search -----------------------------
cdef Py_ssize_t cumulative_fill(const double* weights, Py_ssize_t n,
                                double* cumulative) noexcept nogil


cdef inline Py_ssize_t cumulative_search(const double* cumulative, Py_ssize_t n,
                                         Py_ssize_t last_positive, double x) noexcept nogil:
    """The first i with c_i > x (``last_positive`` when there is none), for n >= 1.

    Without branches on the data (each halving step a conditional move): the
    draws of every proposal of head sampling go through it.
    """
    cdef Py_ssize_t base = 0, length = n, half
    # Invariant: the first i with c_i > x lies in [base, base + length].
    while length > 1:
        half = length >> 1
        base = base + half if cumulative[base + half] <= x else base
        length -= half
    base += cumulative[base] <= x
    if base >= n:
        return last_positive
    return base


cdef inline Py_ssize_t cumulative_draw(const double* cumulative, Py_ssize_t n,
                                       Py_ssize_t last_positive, uint64_t* state) noexcept nogil:
    """Record i with probability (c_i - c_{i-1}) / c_{n-1}: the first i with c_i > u * c_{n-1}.

    ``last_positive`` (from ``cumulative_fill``) catches the rounding case
    u * total >= total.  The caller guarantees a positive total (so n >= 1).
    """
    return cumulative_search(cumulative, n, last_positive, rng_uniform(state) * cumulative[n - 1])

# -- static: Vose's alias method ---------------------------------------------
cdef int alias_fill(const double* weights, Py_ssize_t n, double* prob,
                    index_t* alias, index_t* work) noexcept nogil
cdef Py_ssize_t alias_draw(const double* prob, const index_t* alias, Py_ssize_t n,
                           uint64_t* state) noexcept nogil

# -- dynamic: sum tree --------------------------------------------------------
# ``tree`` has 2 * size doubles, size a power of two >= the number of leaves;
# leaf i lives at tree[size + i], node v = tree[2v] + tree[2v + 1], root tree[1].
cdef void sumtree_fill(double* tree, Py_ssize_t size) noexcept nogil
cdef void sumtree_set(double* tree, Py_ssize_t size, Py_ssize_t i, double weight) noexcept nogil
cdef Py_ssize_t sumtree_draw(const double* tree, Py_ssize_t size, uint64_t* state) noexcept nogil
