# Helpers shared by the two batch drivers of CORSET-GH (the plain kernel in
# _gh.pyx and the memoised one in _gh_memo.pyx): inline, no state.
from corset._ext._typedefs cimport index_t, ptr_t


cdef inline void job_candidate_offsets(const index_t[::1] job_tail, const index_t[::1] job_pos,
                                       const ptr_t[::1] r_indptr, const ptr_t[::1] cand_indptr,
                                       ptr_t[::1] off) noexcept nogil:
    """off[j + 1] - off[j]: room for job j's candidates, the features of its seed
    record D+ (``job_pos[j] >= 0``) or its tail's candidate list otherwise."""
    cdef Py_ssize_t j
    off[0] = 0
    for j in range(job_tail.shape[0]):
        if job_pos[j] >= 0:
            off[j + 1] = off[j] + (r_indptr[job_pos[j] + 1] - r_indptr[job_pos[j]])
        else:
            off[j + 1] = off[j] + (cand_indptr[job_tail[j] + 1] - cand_indptr[job_tail[j]])


cdef inline void copy_sorted(const index_t* src, Py_ssize_t n, index_t* dst) noexcept nogil:
    """dst[:n] = sorted(src[:n]): insertion sort while copying (heads are short)."""
    cdef Py_ssize_t c, k
    cdef index_t v
    for c in range(n):
        v = src[c]
        k = c
        while k > 0 and dst[k - 1] > v:
            dst[k] = dst[k - 1]
            k -= 1
        dst[k] = v


cdef inline int check_negations(const index_t[::1] negated, const ptr_t[::1] r_plain_end,
                                 const ptr_t[::1] r_indptr, const index_t[::1] r_ids,
                                 Py_ssize_t n_features, Py_ssize_t n_records) except -1:
    """The negated literals' description must fit the data: ids of plain features, and each record's
    plain features ending where its first negated literal starts (rows are sorted, as everywhere in
    the data layer: the two ids around the split are checked)."""
    cdef Py_ssize_t n_plain = n_features - negated.shape[0], i, r
    if n_plain < 0:
        raise ValueError(f"negated: {negated.shape[0]} negated literals for {n_features} features")
    if r_plain_end is None or r_plain_end.shape[0] != n_records:
        raise ValueError(f"r_plain_end must hold one entry per record ({n_records})")
    for i in range(negated.shape[0]):
        if negated[i] < 0 or negated[i] >= n_plain:
            raise ValueError(f"negated[{i}] = {negated[i]} is not a plain feature id in [0, {n_plain})")
    for r in range(n_records):
        if r_plain_end[r] < r_indptr[r] or r_plain_end[r] > r_indptr[r + 1]:
            raise ValueError(f"r_plain_end[{r}] lies outside record {r}'s row")
        if ((r_plain_end[r] > r_indptr[r] and r_ids[r_plain_end[r] - 1] >= n_plain)
                or (r_plain_end[r] < r_indptr[r + 1] and r_ids[r_plain_end[r]] < n_plain)):
            raise ValueError(f"r_plain_end[{r}] does not split record {r}'s plain features from its "
                             "negated literals")
    return 0
