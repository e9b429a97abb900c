"""Depth-first enumeration of probabilistic cliques (the interpretable space S⁻).

Section enhanced_sampling ("Constructing S⁻") keeps the item sets of a
probabilistic graph whose clique probability is at least α, found by a
depth-first search in the style of Mukherjee et al. (2015).  Here the graph
arrives as a symmetric CSR matrix of *pair factors* q(u, v) ∈ (0, 1] (the
Python layer derives them from the edge probabilities and drops every factor
below α, since no clique can hold such a pair), and the probability of a
sorted set S = (s_1 < … < s_k) is ``Π_{i<j} q(s_i, s_j)``.

The search starts from each root (an item that occurs, so every singleton is
kept) and only extends a set with a candidate of higher id, so each set is
visited once, in lexicographic order of its sorted id tuple.  Each level keeps
its candidates c with their *gain* g_S(c) = Π_{s∈S} q(s, c); extending S by c
gives P(S ∪ {c}) = P(S) · g_S(c), and a candidate survives only while that
stays ≥ α.  Since every factor is ≤ 1 (and rounding is monotone) the
probability only falls as a set grows, so a pruned candidate can never come
back deeper in the tree: the search visits exactly the sets it emits, and its
work is bounded by the number of sets times the candidate-list length.

Floating point: P is computed as a left fold, P(s_1..s_j) = P(s_1..s_{j-1}) ·
g_j with g_j = (…(q(s_1, s_j) · q(s_2, s_j)) · …) · q(s_{j-1}, s_j); a brute
force that folds in the same order gets bit-identical values.
"""
import numpy as np

from libc.stdlib cimport free, malloc, realloc

from corset._ext._intersect cimport gallop as _gallop
from corset._ext._typedefs cimport float64_t, index_t, ptr_t

# Status codes of the core.
cdef enum:
    DONE = 0
    OVERFLOW = -1      # more than max_sets sets
    NO_MEMORY = -2


cdef struct Output:
    bint store          # false: count only
    ptr_t n_sets
    ptr_t n_ids
    ptr_t cap_sets
    ptr_t cap_ids
    ptr_t* ends         # end offset of each set in ids
    index_t* ids
    float64_t* probs


cdef int _reserve_output(Output* out, ptr_t extra_ids) noexcept nogil:
    cdef ptr_t cap
    cdef void* p
    if out.n_sets + 1 > out.cap_sets:
        cap = out.cap_sets * 2 if out.cap_sets >= 1024 else 1024
        p = realloc(out.ends, cap * sizeof(ptr_t))
        if p == NULL:
            return NO_MEMORY
        out.ends = <ptr_t*>p
        p = realloc(out.probs, cap * sizeof(float64_t))
        if p == NULL:
            return NO_MEMORY
        out.probs = <float64_t*>p
        out.cap_sets = cap
    if out.n_ids + extra_ids > out.cap_ids:
        cap = out.cap_ids * 2 if out.cap_ids >= 4096 else 4096
        while cap < out.n_ids + extra_ids:
            cap *= 2
        p = realloc(out.ids, cap * sizeof(index_t))
        if p == NULL:
            return NO_MEMORY
        out.ids = <index_t*>p
        out.cap_ids = cap
    return DONE


cdef inline int _emit(Output* out, const index_t* clique, Py_ssize_t n_prefix,
                      index_t last, float64_t prob) noexcept nogil:
    """Record the set clique[0:n_prefix] + (last,)."""
    cdef Py_ssize_t i
    if out.store:
        if _reserve_output(out, n_prefix + 1) != DONE:
            return NO_MEMORY
        for i in range(n_prefix):
            out.ids[out.n_ids + i] = clique[i]
        out.ids[out.n_ids + n_prefix] = last
        out.n_ids += n_prefix + 1
        out.ends[out.n_sets] = out.n_ids
        out.probs[out.n_sets] = prob
    out.n_sets += 1
    return DONE


cdef struct Candidates:
    index_t* ids
    float64_t* gains
    Py_ssize_t capacity


cdef int _reserve_candidates(Candidates* cand, Py_ssize_t need) noexcept nogil:
    cdef Py_ssize_t cap = cand.capacity
    cdef void* p
    if need <= cap:
        return DONE
    if cap < 1024:
        cap = 1024
    while cap < need:
        cap *= 2
    p = realloc(cand.ids, cap * sizeof(index_t))
    if p == NULL:
        return NO_MEMORY
    cand.ids = <index_t*>p
    p = realloc(cand.gains, cap * sizeof(float64_t))
    if p == NULL:
        return NO_MEMORY
    cand.gains = <float64_t*>p
    cand.capacity = cap
    return DONE


cdef int _enumerate(const ptr_t* indptr, const index_t* indices, const float64_t* factors,
                    const index_t* roots, Py_ssize_t n_roots,
                    float64_t alpha, Py_ssize_t max_size, ptr_t max_sets, ptr_t top_quota,
                    index_t* clique, float64_t* prob, Py_ssize_t* start, Py_ssize_t* length,
                    Py_ssize_t* pos, Candidates* cand, Output* out) noexcept nogil:
    """The depth-first search; see the module docstring.

    ``max_size`` >= 1 caps the set size.  ``top_quota`` >= 0 caps the number
    of sets *of size max_size* (then smaller sets are still all emitted);
    -1 means no such cap.  Returns OVERFLOW as soon as more than ``max_sets``
    sets would be emitted.  The work arrays ``clique``, ``prob``, ``start``,
    ``length`` and ``pos`` have room for ``max_size`` entries.
    """
    cdef Py_ssize_t ri, d, i, j, k, row_end, size
    cdef index_t root, c, c2
    cdef float64_t p_new, g2
    cdef ptr_t quota = top_quota
    for ri in range(n_roots):
        root = roots[ri]
        if max_size == 1 and quota == 0:
            break
        if out.n_sets >= max_sets:
            return OVERFLOW
        if _emit(out, clique, 0, root, 1.0) != DONE:
            return NO_MEMORY
        if max_size == 1:
            if quota > 0:
                quota -= 1
            continue
        if max_size == 2 and quota == 0:
            continue
        # Level 0: the neighbours of the root with a higher id (q >= alpha by construction).
        clique[0] = root
        prob[0] = 1.0
        k = _gallop(indices, indptr[root], indptr[root + 1], root + 1)
        row_end = indptr[root + 1]
        if _reserve_candidates(cand, row_end - k) != DONE:
            return NO_MEMORY
        length[0] = 0
        start[0] = 0
        for i in range(k, row_end):
            if factors[i] >= alpha:
                cand.ids[length[0]] = indices[i]
                cand.gains[length[0]] = factors[i]
                length[0] += 1
        pos[0] = 0
        d = 0
        while d >= 0:
            if pos[d] == length[d]:
                d -= 1
                continue
            i = start[d] + pos[d]
            pos[d] += 1
            c = cand.ids[i]
            p_new = prob[d] * cand.gains[i]
            size = d + 2
            if size == max_size and quota == 0:
                # The quota of largest sets is spent: this level has nothing left to give.
                pos[d] = length[d]
                continue
            if out.n_sets >= max_sets:
                return OVERFLOW
            if _emit(out, clique, d + 1, c, p_new) != DONE:
                return NO_MEMORY
            if size == max_size:
                if quota > 0:
                    quota -= 1
                continue
            if size + 1 == max_size and quota == 0:
                continue
            # Level d + 1: the later candidates of this level adjacent to c.
            if _reserve_candidates(cand, start[d] + length[d] + (length[d] - pos[d])) != DONE:
                return NO_MEMORY
            start[d + 1] = start[d] + length[d]
            length[d + 1] = 0
            k = _gallop(indices, indptr[c], indptr[c + 1], c + 1)
            row_end = indptr[c + 1]
            for j in range(i + 1, start[d] + length[d]):
                c2 = cand.ids[j]
                k = _gallop(indices, k, row_end, c2)
                if k == row_end:
                    break
                if indices[k] != c2:
                    continue
                g2 = cand.gains[j] * factors[k]
                if p_new * g2 >= alpha:
                    cand.ids[start[d + 1] + length[d + 1]] = c2
                    cand.gains[start[d + 1] + length[d + 1]] = g2
                    length[d + 1] += 1
            if length[d + 1] > 0:
                d += 1
                clique[d] = c
                prob[d] = p_new
                pos[d] = 0
    return DONE


def enumerate_cliques(const ptr_t[::1] indptr, const index_t[::1] indices,
                      const float64_t[::1] factors, const index_t[::1] roots,
                      double alpha, Py_ssize_t max_size, ptr_t max_sets,
                      ptr_t top_quota=-1, bint store=True):
    """Enumerate the sets of probability >= alpha of a graph of pair factors.

    Parameters
    ----------
    indptr, indices, factors : symmetric CSR of pair factors q(u, v), sorted rows,
        no diagonal.
    roots : sorted int32 ids of the items whose singletons are kept (and from
        which the search starts).
    alpha : float in (0, 1]
    max_size : int >= 1
    max_sets : int >= 0
    top_quota : int, default -1
        At most this many sets of size ``max_size`` (-1: no such cap).
    store : bool, default True
        False counts the sets without storing them.

    Returns
    -------
    status : 0, or -1 when more than ``max_sets`` sets exist (the arrays then
        hold the first ``max_sets``)
    n_sets : int
    set_indptr : int64 (n_sets + 1,) or None when not stored
    set_ids : int32, or None
    probabilities : float64 (n_sets,), or None
    """
    cdef Py_ssize_t depth = max(max_size, 1)
    cdef Output out
    cdef Candidates cand
    cdef int status = DONE
    cdef index_t* clique = <index_t*>malloc(depth * sizeof(index_t))
    cdef float64_t* prob = <float64_t*>malloc(depth * sizeof(float64_t))
    cdef Py_ssize_t* start = <Py_ssize_t*>malloc(depth * sizeof(Py_ssize_t))
    cdef Py_ssize_t* length = <Py_ssize_t*>malloc(depth * sizeof(Py_ssize_t))
    cdef Py_ssize_t* pos = <Py_ssize_t*>malloc(depth * sizeof(Py_ssize_t))
    cdef Py_ssize_t n_roots = roots.shape[0]
    cdef const ptr_t* indptr_p = &indptr[0]
    cdef const index_t* indices_p = &indices[0] if indices.shape[0] > 0 else NULL
    cdef const float64_t* factors_p = &factors[0] if factors.shape[0] > 0 else NULL
    cdef const index_t* roots_p = &roots[0] if n_roots > 0 else NULL
    out.store = store
    out.n_sets = 0
    out.n_ids = 0
    out.cap_sets = 0
    out.cap_ids = 0
    out.ends = NULL
    out.ids = NULL
    out.probs = NULL
    cand.ids = NULL
    cand.gains = NULL
    cand.capacity = 0
    try:
        if clique == NULL or prob == NULL or start == NULL or length == NULL or pos == NULL:
            raise MemoryError("cannot allocate the clique search stack")
        with nogil:
            status = _enumerate(indptr_p, indices_p, factors_p, roots_p, n_roots,
                                alpha, max_size, max_sets, top_quota,
                                clique, prob, start, length, pos, &cand, &out)
        if status == NO_MEMORY:
            raise MemoryError("out of memory while enumerating probabilistic cliques")
        n_sets = out.n_sets
        if not store:
            return status, n_sets, None, None, None
        set_indptr = np.zeros(n_sets + 1, dtype=np.int64)
        set_ids = np.empty(out.n_ids, dtype=np.int32)
        probabilities = np.empty(n_sets, dtype=np.float64)
        if n_sets > 0:
            set_indptr[1:] = <ptr_t[:n_sets]>out.ends
            probabilities[:] = <float64_t[:n_sets]>out.probs
            set_ids[:] = <index_t[:out.n_ids]>out.ids
        return status, n_sets, set_indptr, set_ids, probabilities
    finally:
        free(clique)
        free(prob)
        free(start)
        free(length)
        free(pos)
        free(out.ends)
        free(out.ids)
        free(out.probs)
        free(cand.ids)
        free(cand.gains)
