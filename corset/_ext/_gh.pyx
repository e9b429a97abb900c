"""Greedy head search over the inverted index (CORSET-GH, Algorithm 5).

Given candidate features F' (sorted ids) and a role per record with respect
to a tail T (1: positive record counted, 2: negative record, 0: neither), the
search adds, one at a time, the feature h of F' maximising the marginal gain
of the modified discriminativity (eq. modified-discriminativity)

    phi(H) = |D[H] ∩ D_T^+| - gamma · |D[H] ∩ D_T^-|,

optionally divided by |D[{h}]| (the authors' normalised variant).  The
support D[H] is kept as a sorted record-id list and intersected with the
posting list of each candidate; the positive and negative counts of
``D[H] ∩ D[{h}]`` are taken in the same merge, without materialising it.
The loop runs while candidates remain (note 14: the printed ``|H| < |F'|``
stops early) and stops early once |D[H]| < epsilon · |D_T^+|.  The best
prefix of the visited heads is returned.

Ties are broken towards the smaller feature id (candidates are scanned in
increasing order and a later candidate must be strictly better).
"""
import numpy as np

from corset._ext._typedefs cimport index_t, ptr_t, uint8_t
from corset._ext._intersect cimport GALLOP_RATIO, intersect_into_ptr


cdef inline Py_ssize_t _gallop(const index_t* b, Py_ssize_t lo, Py_ssize_t nb,
                               index_t target) noexcept nogil:
    cdef Py_ssize_t step = 1, hi = lo, mid
    while hi < nb and b[hi] < target:
        lo = hi + 1
        hi += step
        step <<= 1
    if hi > nb:
        hi = nb
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        if b[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void _split_count(const index_t* a, Py_ssize_t na,
                              const index_t* b, Py_ssize_t nb,
                              const uint8_t* role,
                              Py_ssize_t* n_pos, Py_ssize_t* n_neg) noexcept nogil:
    """Counts of role-1 and role-2 records in a ∩ b (merge or galloping)."""
    cdef Py_ssize_t i = 0, j = 0, pos = 0, neg = 0
    cdef index_t v
    cdef uint8_t r
    if na > nb:
        a, b = b, a
        na, nb = nb, na
    if na > 0:
        if na * GALLOP_RATIO < nb:
            for i in range(na):
                v = a[i]
                j = _gallop(b, j, nb, v)
                if j == nb:
                    break
                if b[j] == v:
                    r = role[v]
                    pos += r == 1
                    neg += r == 2
                    j += 1
        else:
            while i < na and j < nb:
                if a[i] < b[j]:
                    i += 1
                elif a[i] > b[j]:
                    j += 1
                else:
                    r = role[a[i]]
                    pos += r == 1
                    neg += r == 2
                    i += 1
                    j += 1
    n_pos[0] = pos
    n_neg[0] = neg


cdef Py_ssize_t greedy_head_search_ptr(
        const ptr_t* indptr, const index_t* ids,
        const index_t* candidates, Py_ssize_t n_candidates,
        const uint8_t* role, Py_ssize_t n_positive,
        double gamma, double epsilon, bint normalise,
        Py_ssize_t min_length, Py_ssize_t max_length,
        index_t* visited, double* scores, uint8_t* used,
        index_t* support, Py_ssize_t* n_visited_out) noexcept nogil:
    """Algorithm 5 on explicit inputs; returns the length of the best prefix.

    Head-length bounds: the search stops once ``max_length`` features are
    chosen, the epsilon stop applies only from ``min_length`` features on, and
    the best prefix is taken among those of at least ``min_length`` features
    (0 is returned when the search could not reach ``min_length``).

    ``visited`` (room n_candidates) receives the features in the order the
    search added them and ``scores`` the value phi of each visited prefix;
    ``used`` is a zeroed flag array of n_candidates; ``support`` needs room for
    the longest posting list among the candidates.
    """
    cdef Py_ssize_t step, c, best_c, n_support = 0, pos, neg, n_visited = 0
    cdef Py_ssize_t best_prefix = 0
    cdef bint full = True        # D[∅]: every record; never materialised
    cdef double phi = 0.0, value, gain, best_gain, best_value = 0.0
    cdef index_t h
    cdef ptr_t length
    cdef const index_t* plist

    for step in range(min(n_candidates, max_length)):
        best_c = -1
        best_gain = 0.0
        for c in range(n_candidates):
            if used[c]:
                continue
            h = candidates[c]
            plist = ids + indptr[h]
            length = indptr[h + 1] - indptr[h]
            if full:
                _split_count(plist, length, plist, length, role, &pos, &neg)
            else:
                _split_count(support, n_support, plist, length, role, &pos, &neg)
            value = <double>pos - gamma * <double>neg
            gain = value - phi
            if normalise:
                gain = gain / <double>length if length > 0 else 0.0
            if best_c < 0 or gain > best_gain:
                best_c = c
                best_gain = gain
                best_value = value
        if best_c < 0:
            break
        used[best_c] = 1
        h = candidates[best_c]
        plist = ids + indptr[h]
        length = indptr[h + 1] - indptr[h]
        if full:
            for c in range(length):
                support[c] = plist[c]
            n_support = length
            full = False
        else:
            n_support = intersect_into_ptr(support, n_support, plist, length, support)
        phi = best_value
        visited[n_visited] = h
        scores[n_visited] = phi
        n_visited += 1
        if n_visited >= min_length and n_support < epsilon * <double>n_positive:
            break

    # Best prefix of allowed length: the first index of the maximum score.
    for c in range(min_length - 1 if min_length > 0 else 0, n_visited):
        if best_prefix == 0 or scores[c] > scores[best_prefix - 1]:
            best_prefix = c + 1
    n_visited_out[0] = n_visited
    return best_prefix


def greedy_head_search(const ptr_t[::1] indptr, const index_t[::1] ids,
                       const index_t[::1] candidates, const uint8_t[::1] role,
                       Py_ssize_t n_positive, double gamma, double epsilon,
                       bint normalise, Py_ssize_t min_length=1, Py_ssize_t max_length=-1):
    """Run Algorithm 5 once; return ``(head, visited, scores)``.

    ``head`` is the best prefix of ``visited`` with between ``min_length`` and
    ``max_length`` features (``max_length < 0``: no maximum), in visiting
    order, not sorted; empty when no prefix is long enough.  ``scores[i]`` is
    phi of the first ``i + 1`` visited features.
    Inputs are assumed valid: sorted unique candidates inside the index, a
    role per record in {0, 1, 2}.
    """
    cdef Py_ssize_t n_c = candidates.shape[0], best, n_visited = 0, max_len = 1, c
    if max_length < 0:
        max_length = n_c
    for c in range(n_c):
        max_len = max(max_len, indptr[candidates[c] + 1] - indptr[candidates[c]])
    visited = np.empty(max(n_c, 1), dtype=np.int32)
    scores = np.empty(max(n_c, 1), dtype=np.float64)
    used = np.zeros(max(n_c, 1), dtype=np.uint8)
    support = np.empty(max_len, dtype=np.int32)
    cdef index_t[::1] visited_v = visited
    cdef double[::1] scores_v = scores
    cdef uint8_t[::1] used_v = used
    cdef index_t[::1] support_v = support
    if n_c == 0:
        return visited[:0], visited[:0].copy(), scores[:0]
    # An index with no entries at all still has valid (empty) posting lists.
    cdef const index_t* ids_ptr = &ids[0] if ids.shape[0] > 0 else NULL
    with nogil:
        best = greedy_head_search_ptr(&indptr[0], ids_ptr, &candidates[0], n_c,
                                      &role[0], n_positive, gamma, epsilon, normalise,
                                      min_length, max_length,
                                      &visited_v[0], &scores_v[0], &used_v[0],
                                      &support_v[0], &n_visited)
    return visited[:best].copy(), visited[:n_visited].copy(), scores[:n_visited].copy()
