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
