"""Tail sampling by uncovered area (Algorithm 2 of the paper): the kernels.

State, owned by :class:`corset.rules.Coverage` and ``corset.sampling._tail_full.TailSampler``:

``covered``
    one flag per label occurrence (aligned with the CSR ``ids`` of the label
    matrix): 1 when a selected rule covers that occurrence (i, k) in the sense
    of the D-specific coverage (eq. covD): the rule's head is in F_i, its tail
    in L_i, and k is in its tail.
``n_uncovered``
    |U_D| per record: its label occurrences no selected rule covers.
``tree``
    a sum tree (``_weighted``) over the record weights of eq. wgtRD,
    |U_D| * 2^(|L_D| - 1), scaled by the common factor 2^-E.

A draw picks a record D from the tree, then a tail inside D by correction 8
(see the documentation's corrections of the paper): one label u uniform over U_D, plus every other label of L_D
independently with probability 1/2.  A tail T ⊆ L_D comes out with
probability |T ∩ U_D| / (|U_D| 2^(|L_D| - 1)), which times the record weight
gives |T ∩ U_D|: summed over the records, the uncovered area of T (eq. relarea
generalised to tails, section sampling_objective).
"""
import numpy as np

from corset._ext._typedefs cimport index_t, int64_t, ptr_t, uint8_t, uint64_t
from corset._ext._random cimport rng_below, rng_bit
from corset._ext._weighted cimport sumtree_draw


cdef Py_ssize_t draw_tail(const ptr_t* indptr, const index_t* ids, const uint8_t* covered,
                          const int64_t* n_uncovered, index_t record, uint64_t* state,
                          index_t* out) noexcept nogil:
    """A tail inside ``record`` (correction 8): u uniform over U_D, other labels w.p. 1/2.

    Writes the sorted labels to ``out`` and returns how many.
    """
    cdef Py_ssize_t p, k = 0
    cdef int64_t target = <int64_t>rng_below(state, <uint64_t>n_uncovered[record])
    cdef int64_t seen = 0
    cdef bint chosen
    for p in range(indptr[record], indptr[record + 1]):
        chosen = False
        if not covered[p]:
            if seen == target:
                chosen = True
            seen += 1
        if not chosen:
            chosen = rng_bit(state)
        if chosen:
            out[k] = ids[p]
            k += 1
    return k


def sample(const double[::1] tree, const ptr_t[::1] indptr, const index_t[::1] ids,
           const uint8_t[::1] covered, const int64_t[::1] n_uncovered,
           Py_ssize_t n, uint64_t seed):
    """``n`` tails by Algorithm 2, flattened: (records, out_indptr, out_ids).

    The caller guarantees a positive total weight (root of ``tree``).
    """
    cdef uint64_t state = seed
    cdef Py_ssize_t size = tree.shape[0] // 2, i, k, filled = 0, widest = 0, r
    for r in range(indptr.shape[0] - 1):
        if indptr[r + 1] - indptr[r] > widest:
            widest = indptr[r + 1] - indptr[r]
    records = np.empty(n, dtype=np.int32)
    out_indptr = np.zeros(n + 1, dtype=np.int64)
    out_ids = np.empty(max(n * widest, 1), dtype=np.int32)
    cdef index_t[::1] rec = records
    cdef int64_t[::1] optr = out_indptr
    cdef index_t[::1] oids = out_ids
    cdef index_t record
    with nogil:
        for i in range(n):
            record = <index_t>sumtree_draw(&tree[0], size, &state)
            rec[i] = record
            k = draw_tail(&indptr[0], &ids[0], &covered[0], &n_uncovered[0], record, &state,
                          &oids[filled])
            filled += k
            optr[i + 1] = filled
    return records, out_indptr, out_ids[:filled]
