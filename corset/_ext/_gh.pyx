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
The loop runs while candidates remain (correction 14: the printed ``|H| < |F'|``
stops early) and stops early once |D[H]| < epsilon · |D_T^+|.  The best
prefix of the visited heads is returned.

Ties are broken towards the smaller feature id (candidates are scanned in
increasing order and a later candidate must be strictly better).
"""
import numpy as np

from corset._ext._typedefs cimport index_t, ptr_t, uint8_t
from corset._ext._intersect cimport GALLOP_RATIO, gallop as _gallop, intersect_into_ptr


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


cdef inline void _tally(index_t slot, uint8_t rr, Py_ssize_t* pos_count, Py_ssize_t* neg_count) noexcept nogil:
    """Count a record of role ``rr`` (1 positive, 2 negative) for the candidate in ``slot`` (-1: none)."""
    if slot >= 0:
        if rr == 1:
            pos_count[slot] += 1
        else:
            neg_count[slot] += 1


cdef Py_ssize_t greedy_head_search_ptr(
        const ptr_t* indptr, const index_t* ids,
        const index_t* candidates, Py_ssize_t n_candidates,
        const uint8_t* role, Py_ssize_t n_positive,
        double gamma, double epsilon, bint normalise,
        Py_ssize_t min_length, Py_ssize_t max_length,
        index_t* visited, double* scores, uint8_t* used,
        index_t* support, Py_ssize_t* n_visited_out,
        const ptr_t* r_indptr, const index_t* r_ids, index_t* cand_pos,
        Py_ssize_t* pos_count, Py_ssize_t* neg_count, int mode,
        const index_t* first_pos, const index_t* first_neg,
        Py_ssize_t n_plain, const index_t* negated, const ptr_t* r_plain_end,
        index_t* comp_pos) noexcept nogil:
    """Algorithm 5 on explicit inputs; returns the length of the best prefix.

    Head-length bounds: the search stops once ``max_length`` features are
    chosen, the epsilon stop applies only from ``min_length`` features on, and
    the best prefix is taken among those of at least ``min_length`` features
    (0 is returned when the search could not reach ``min_length``).

    ``visited`` (room n_candidates) receives the features in the order the
    search added them and ``scores`` the value phi of each visited prefix;
    ``used`` is a zeroed flag array of n_candidates; ``support`` needs room for
    the longest posting list among the candidates.

    Two ways to count, per candidate h, the positives and negatives of
    D[H] ∩ D[{h}], with identical results: intersect D[H] with each posting
    list, or scan the features of each record of D[H] once (``r_indptr``,
    ``r_ids``: record -> features; ``cand_pos``: feature -> candidate slot or
    -1, all -1 on entry and on exit; ``pos_count``/``neg_count``: n_candidates
    counters).  Once D[H] is small the scan costs far less than one
    intersection per remaining candidate.  ``mode``: 0 chooses by cost, 1
    always intersects, 2 scans whenever D[H] is materialised (``r_indptr``
    NULL: always intersect).  ``first_pos``/``first_neg`` (per feature:
    positives and negatives of D[{h}], the same for every search of a tail),
    when not NULL, give the first step's counts without touching the index.

    Negated literals (``negated`` not NULL): the feature ``n_plain + i`` is
    "NOT negated[i]", and a record's plain features end at ``r_plain_end``
    in its sorted row.  The scan then reads only the plain features and
    counts a negated candidate as its feature's complement in D[H]
    (``comp_pos``: plain feature -> slot of its negated candidate or -1, all
    -1 on entry and on exit): a record holds nearly every negated literal,
    so scanning them would cost far more than the counts they give.
    """
    cdef Py_ssize_t step, c, best_c, n_support = 0, pos, neg, n_visited = 0
    cdef Py_ssize_t best_prefix = 0, best_pos = 0
    cdef double best_allowed = 0.0
    cdef bint full = True        # D[∅]: every record; never materialised
    cdef double phi = 0.0, value, gain, best_gain, best_value = 0.0
    cdef index_t h, f
    cdef ptr_t length, p
    cdef const index_t* plist
    cdef bint scan
    cdef Py_ssize_t scan_cost, n_unused, r, h_pos, h_neg
    cdef uint8_t rr
    cdef bint complements = negated != NULL and r_plain_end != NULL and r_indptr != NULL
    cdef const ptr_t* r_end = r_plain_end if complements else (r_indptr + 1 if r_indptr != NULL else NULL)

    if r_indptr != NULL:
        for c in range(n_candidates):
            h = candidates[c]
            if complements and h >= n_plain:
                comp_pos[negated[h - n_plain]] = <index_t>c
            else:
                cand_pos[h] = <index_t>c

    for step in range(min(n_candidates, max_length)):
        best_c = -1
        best_gain = 0.0
        scan = False
        if not full and r_indptr != NULL and mode != 1:
            if mode == 2:
                scan = True
            else:
                scan_cost = 0
                for r in range(n_support):
                    scan_cost += r_end[support[r]] - r_indptr[support[r]]
                n_unused = n_candidates - step
                scan = scan_cost < n_unused * (n_support + 8)
        if scan:
            for c in range(n_candidates):
                pos_count[c] = 0
                neg_count[c] = 0
            h_pos = 0
            h_neg = 0
            for r in range(n_support):
                rr = role[support[r]]
                if rr == 0:
                    continue
                h_pos += rr == 1
                h_neg += rr == 2
                for p in range(r_indptr[support[r]], r_end[support[r]]):
                    _tally(cand_pos[r_ids[p]], rr, pos_count, neg_count)
                    if complements:
                        # f's counts in the slot of "NOT f", turned into their complement below.
                        _tally(comp_pos[r_ids[p]], rr, pos_count, neg_count)
            if complements:
                for c in range(n_candidates):
                    if candidates[c] >= n_plain:
                        pos_count[c] = h_pos - pos_count[c]
                        neg_count[c] = h_neg - neg_count[c]
        for c in range(n_candidates):
            if used[c]:
                continue
            h = candidates[c]
            plist = ids + indptr[h]
            length = indptr[h + 1] - indptr[h]
            if scan:
                pos = pos_count[c]
                neg = neg_count[c]
            elif full and first_pos != NULL:
                pos = first_pos[h]
                neg = first_neg[h]
            elif full:
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
                best_pos = pos
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
        if n_visited >= min_length:
            if n_visited == min_length or phi > best_allowed:
                best_allowed = phi
            if n_support < epsilon * <double>n_positive:
                break
            # Pruning that leaves the result unchanged: a longer head keeps at
            # most the positives of D[H] (phi <= best_pos), so once the best
            # allowed prefix reaches that bound no later prefix can beat it.
            if best_allowed >= <double>best_pos:
                break

    if r_indptr != NULL:
        for c in range(n_candidates):
            h = candidates[c]
            if complements and h >= n_plain:
                comp_pos[negated[h - n_plain]] = -1
            else:
                cand_pos[h] = -1

    # Best prefix of allowed length: the first index of the maximum score.
    for c in range(min_length - 1 if min_length > 0 else 0, n_visited):
        if best_prefix == 0 or scores[c] > scores[best_prefix - 1]:
            best_prefix = c + 1
    n_visited_out[0] = n_visited
    return best_prefix


def greedy_head_search(const ptr_t[::1] indptr, const index_t[::1] ids,
                       const index_t[::1] candidates, const uint8_t[::1] role,
                       Py_ssize_t n_positive, double gamma, double epsilon,
                       bint normalise, Py_ssize_t min_length=1, Py_ssize_t max_length=-1,
                       const ptr_t[::1] r_indptr=None, const index_t[::1] r_ids=None, int mode=0):
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
    cand_pos = np.full(max(indptr.shape[0] - 1, 1), -1, dtype=np.int32)
    counts = np.zeros((2, n_c), dtype=np.intp)
    cdef index_t[::1] cand_pos_v = cand_pos
    cdef Py_ssize_t[:, ::1] counts_v = counts
    cdef const ptr_t* r_indptr_p = NULL
    cdef const index_t* r_ids_p = NULL
    if r_indptr is not None:
        r_indptr_p = &r_indptr[0]
        r_ids_p = &r_ids[0] if r_ids.shape[0] > 0 else NULL
    with nogil:
        best = greedy_head_search_ptr(&indptr[0], ids_ptr, &candidates[0], n_c,
                                      &role[0], n_positive, gamma, epsilon, normalise,
                                      min_length, max_length,
                                      &visited_v[0], &scores_v[0], &used_v[0],
                                      &support_v[0], &n_visited,
                                      r_indptr_p, r_ids_p, &cand_pos_v[0],
                                      &counts_v[0, 0], &counts_v[1, 0], mode, NULL, NULL,
                                      0, NULL, NULL, NULL)
    return visited[:best].copy(), visited[:n_visited].copy(), scores[:n_visited].copy()


# ---------------------------------------------------------------------------
# Many searches in one call (a pool of candidate heads), in parallel threads.

from cython.parallel cimport prange
from libc.stdlib cimport free, malloc
from libc.string cimport memset


cdef Py_ssize_t _difference(const index_t* a, Py_ssize_t na, const index_t* b, Py_ssize_t nb,
                            index_t* out) noexcept nogil:
    """a \\ b for sorted id arrays; returns the length written to ``out``."""
    cdef Py_ssize_t i = 0, j = 0, k = 0
    while i < na:
        if j >= nb or a[i] < b[j]:
            out[k] = a[i]
            k += 1
            i += 1
        elif a[i] > b[j]:
            j += 1
        else:
            i += 1
            j += 1
    return k


cdef int _one_job(const ptr_t* f_indptr, const index_t* f_ids,
                  const ptr_t* r_indptr, const index_t* r_ids,
                  const index_t* cand_in, Py_ssize_t n_cand_in,
                  Py_ssize_t neg, bint difference,
                  const uint8_t* role, Py_ssize_t n_positive, Py_ssize_t n_records,
                  double gamma, double epsilon, bint normalise,
                  Py_ssize_t min_length, Py_ssize_t max_length, Py_ssize_t n_features,
                  const index_t* first_pos, const index_t* first_neg,
                  Py_ssize_t n_plain, const index_t* negated, const ptr_t* r_plain_end,
                  index_t* head_out, Py_ssize_t* head_length) noexcept nogil:
    """One search; -1 on allocation failure.  ``head_out`` has room for n_cand_in ids."""
    cdef Py_ssize_t n_c, n_visited = 0, best, size = n_cand_in if n_cand_in > 0 else 1
    cdef index_t* cand = <index_t*> malloc(size * sizeof(index_t))
    cdef index_t* visited = <index_t*> malloc(size * sizeof(index_t))
    cdef double* scores = <double*> malloc(size * sizeof(double))
    cdef uint8_t* used = <uint8_t*> malloc(size * sizeof(uint8_t))
    cdef index_t* support = <index_t*> malloc((n_records if n_records > 0 else 1) * sizeof(index_t))
    # cand_pos, then (negated literals) comp_pos: n_features slots each.
    cdef index_t* cand_pos = <index_t*> malloc((2 * n_features if n_features > 0 else 1) * sizeof(index_t))
    cdef index_t* comp_pos = cand_pos + n_features
    cdef Py_ssize_t* counts = <Py_ssize_t*> malloc(2 * size * sizeof(Py_ssize_t))
    cdef Py_ssize_t i
    if (cand == NULL or visited == NULL or scores == NULL or used == NULL or support == NULL
            or cand_pos == NULL or counts == NULL):
        free(cand); free(visited); free(scores); free(used); free(support); free(cand_pos); free(counts)
        return -1
    for i in range(2 * n_features):
        cand_pos[i] = -1
    if difference and neg >= 0:
        n_c = _difference(cand_in, n_cand_in, r_ids + r_indptr[neg], r_indptr[neg + 1] - r_indptr[neg], cand)
    else:
        for n_visited in range(n_cand_in):
            cand[n_visited] = cand_in[n_visited]
        n_c = n_cand_in
        n_visited = 0
    memset(used, 0, size)
    best = greedy_head_search_ptr(f_indptr, f_ids, cand, n_c, role, n_positive, gamma, epsilon,
                                  normalise, min_length, max_length if max_length >= 0 else n_c,
                                  visited, scores, used, support, &n_visited,
                                  r_indptr, r_ids, cand_pos, counts, counts + size, 0,
                                  first_pos, first_neg, n_plain, negated, r_plain_end, comp_pos)
    for n_c in range(best):
        head_out[n_c] = visited[n_c]
    head_length[0] = best
    free(cand); free(visited); free(scores); free(used); free(support); free(cand_pos); free(counts)
    return 0


def greedy_heads(const ptr_t[::1] f_indptr, const index_t[::1] f_ids,
                 const ptr_t[::1] r_indptr, const index_t[::1] r_ids,
                 const ptr_t[::1] cand_indptr, const index_t[::1] cand_ids,
                 const uint8_t[:, ::1] roles, const ptr_t[::1] n_positive,
                 const index_t[:, :, ::1] first_counts,
                 const index_t[::1] job_tail, const index_t[::1] job_pos, const index_t[::1] job_neg,
                 double gamma, double epsilon, bint normalise, bint difference,
                 Py_ssize_t min_length, Py_ssize_t max_length, int n_threads,
                 const index_t[::1] negated=None, const ptr_t[::1] r_plain_end=None):
    """Run Algorithm 5 for a batch of jobs; return the heads as CSR ``(indptr, ids)``.

    Job j searches for tail ``job_tail[j]`` (row of ``roles`` and entry of
    ``n_positive``) from the seed pair ``(job_pos[j], job_neg[j])``: the
    candidates are the features of record ``job_pos[j]`` (``r_indptr``/``r_ids``:
    record -> sorted features), minus those of ``job_neg[j]`` when
    ``difference`` and ``job_neg[j] >= 0``.  ``job_pos[j] < 0`` takes the
    candidates of the tail from ``cand_indptr``/``cand_ids`` instead (the
    deterministic input).  A job with no head gets an empty row.  Jobs are
    independent and deterministic, so the result does not depend on
    ``n_threads``.  ``first_counts[0, t, h]`` and ``first_counts[1, t, h]``
    are the positives and negatives of D[{h}] for tail slot t.

    ``negated`` and ``r_plain_end`` (both or neither): the last
    ``len(negated)`` features are the negated literals "NOT negated[i]",
    and ``r_plain_end[r]`` is where record r's plain features end in its
    sorted row; the searches then count a negated literal as its feature's
    complement instead of scanning it (the same heads).
    """
    cdef Py_ssize_t n_jobs = job_tail.shape[0], j, n_records = roles.shape[1]
    cdef Py_ssize_t n_features = f_indptr.shape[0] - 1
    cdef Py_ssize_t total = 0
    cdef int failed = 0, status
    offsets = np.zeros(n_jobs + 1, dtype=np.int64)
    cdef ptr_t[::1] off = offsets
    lengths = np.zeros(max(n_jobs, 1), dtype=np.intp)
    cdef Py_ssize_t[::1] length_v = lengths
    job_candidate_offsets(job_tail, job_pos, r_indptr, cand_indptr, off)
    buffer = np.empty(max(off[n_jobs], 1), dtype=np.int32)
    cdef index_t[::1] buf = buffer
    cdef const index_t* f_ids_p = &f_ids[0] if f_ids.shape[0] > 0 else NULL
    cdef const index_t* r_ids_p = &r_ids[0] if r_ids.shape[0] > 0 else NULL
    cdef const index_t* c_ids_p = &cand_ids[0] if cand_ids.shape[0] > 0 else NULL
    cdef Py_ssize_t n_plain = n_features
    cdef const index_t* negated_p = NULL
    cdef const ptr_t* plain_end_p = NULL
    if (negated is None) != (r_plain_end is None):
        raise ValueError("negated and r_plain_end go together")
    if negated is not None and negated.shape[0] > 0:
        check_negations(negated, r_plain_end, r_indptr, r_ids, n_features, n_records)
        n_plain = n_features - negated.shape[0]
        negated_p = &negated[0]
        plain_end_p = &r_plain_end[0]
    if n_jobs == 0:
        return np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int32)
    for j in prange(n_jobs, nogil=True, schedule="dynamic", num_threads=max(n_threads, 1)):
        if job_pos[j] >= 0:
            status = _one_job(&f_indptr[0], f_ids_p, &r_indptr[0], r_ids_p,
                              r_ids_p + r_indptr[job_pos[j]], r_indptr[job_pos[j] + 1] - r_indptr[job_pos[j]],
                              job_neg[j], difference, &roles[job_tail[j], 0], n_positive[job_tail[j]],
                              n_records, gamma, epsilon, normalise, min_length, max_length,
                              n_features, &first_counts[0, job_tail[j], 0], &first_counts[1, job_tail[j], 0],
                              n_plain, negated_p, plain_end_p, &buf[0] + off[j], &length_v[j])
        else:
            status = _one_job(&f_indptr[0], f_ids_p, &r_indptr[0], r_ids_p,
                              c_ids_p + cand_indptr[job_tail[j]],
                              cand_indptr[job_tail[j] + 1] - cand_indptr[job_tail[j]],
                              -1, False, &roles[job_tail[j], 0], n_positive[job_tail[j]],
                              n_records, gamma, epsilon, normalise, min_length, max_length,
                              n_features, &first_counts[0, job_tail[j], 0], &first_counts[1, job_tail[j], 0],
                              n_plain, negated_p, plain_end_p, &buf[0] + off[j], &length_v[j])
        # An in-place operator makes ``failed`` a reduction over the threads.
        failed += status != 0
    if failed:
        raise MemoryError("greedy_heads: could not allocate the search workspace")
    # Compact the per-job buffers into a CSR of sorted heads.
    indptr = np.zeros(n_jobs + 1, dtype=np.int64)
    cdef ptr_t[::1] indptr_v = indptr
    for j in range(n_jobs):
        indptr_v[j + 1] = indptr_v[j] + length_v[j]
    ids = np.empty(indptr_v[n_jobs], dtype=np.int32)
    cdef index_t[::1] ids_v = ids
    with nogil:
        for j in range(n_jobs):
            if length_v[j]:
                copy_sorted(&buf[off[j]], length_v[j], &ids_v[indptr_v[j]])
    return indptr, ids
