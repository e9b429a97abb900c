"""Co-occurrence graph of items (labels or features) from the inverted index.

For items u, v of a record-item matrix, ``|D[u] ∩ D[v]|`` is the number of
records holding both (section enhanced_sampling, "Constructing S⁻").  The
kernel builds every row u of the co-occurrence matrix at once by walking the
records of ``D[u]`` and their item lists and accumulating into a dense counter
over items (a sparse product Yᵀ·Y row by row), so the work is
``Σ_records |items(r)|²`` and the memory one counter plus the output.  The edge
weight is computed in the same pass:

* ``directed``:    p(u, v) = |D[u] ∩ D[v]| / |D[u]|  (the paper's form);
* ``symmetrised``: 1 − (1 − p(u, v)) (1 − p(v, u))   (the authors' code).

Edges with a weight below ``min_probability`` are left out.  The diagonal
(u = v) is never stored.
"""
import numpy as np

from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memset

from corset._ext._typedefs cimport float64_t, index_t, ptr_t


cdef int _cmp_index(const void* a, const void* b) noexcept nogil:
    cdef index_t x = (<const index_t*>a)[0]
    cdef index_t y = (<const index_t*>b)[0]
    return (x > y) - (x < y)


cdef struct EdgeBuffer:
    index_t* cols
    ptr_t* counts
    float64_t* weights
    Py_ssize_t size
    Py_ssize_t capacity


cdef int _reserve(EdgeBuffer* buf, Py_ssize_t extra) noexcept nogil:
    """Make room for ``extra`` more edges; 0 on success, -1 when out of memory."""
    cdef Py_ssize_t need = buf.size + extra, cap = buf.capacity
    cdef void* p
    if need <= cap:
        return 0
    if cap < 1024:
        cap = 1024
    while cap < need:
        cap *= 2
    p = realloc(buf.cols, cap * sizeof(index_t))
    if p == NULL:
        return -1
    buf.cols = <index_t*>p
    p = realloc(buf.counts, cap * sizeof(ptr_t))
    if p == NULL:
        return -1
    buf.counts = <ptr_t*>p
    p = realloc(buf.weights, cap * sizeof(float64_t))
    if p == NULL:
        return -1
    buf.weights = <float64_t*>p
    buf.capacity = cap
    return 0


cdef int _cooccurrence(const ptr_t* item_indptr, const index_t* item_records,
                       const ptr_t* record_indptr, const index_t* record_items,
                       Py_ssize_t n_items, bint directed, float64_t min_probability,
                       ptr_t* counter, index_t* touched,
                       ptr_t* out_indptr, EdgeBuffer* buf) noexcept nogil:
    """Fill ``out_indptr`` and ``buf`` with the edges of every row; -1 when out of memory.

    ``counter`` (n_items, zeroed) is left zeroed; ``touched`` has room for n_items ids.
    """
    cdef Py_ssize_t u, v, k, n_touched
    cdef ptr_t a, b, c, n_u
    cdef index_t r
    cdef float64_t p_uv, p_vu, w
    out_indptr[0] = 0
    for u in range(n_items):
        n_u = item_indptr[u + 1] - item_indptr[u]
        n_touched = 0
        for a in range(item_indptr[u], item_indptr[u + 1]):
            r = item_records[a]
            for b in range(record_indptr[r], record_indptr[r + 1]):
                v = record_items[b]
                if counter[v] == 0:
                    touched[n_touched] = <index_t>v
                    n_touched += 1
                counter[v] += 1
        # Columns of a CSR row must be sorted: a short row is sorted, a long one
        # (over 1/16 of the items) re-read in order from the counter, which is cheaper.
        if n_touched * 16 > n_items:
            n_touched = 0
            for v in range(n_items):
                if counter[v] != 0:
                    touched[n_touched] = <index_t>v
                    n_touched += 1
        else:
            qsort(touched, n_touched, sizeof(index_t), _cmp_index)
        if _reserve(buf, n_touched) != 0:
            return -1
        for k in range(n_touched):
            v = touched[k]
            c = counter[v]
            counter[v] = 0
            if v == u:
                continue
            p_uv = <float64_t>c / <float64_t>n_u
            if directed:
                w = p_uv
            else:
                p_vu = <float64_t>c / <float64_t>(item_indptr[v + 1] - item_indptr[v])
                w = 1.0 - (1.0 - p_uv) * (1.0 - p_vu)
            if w < min_probability:
                continue
            buf.cols[buf.size] = <index_t>v
            buf.counts[buf.size] = c
            buf.weights[buf.size] = w
            buf.size += 1
        out_indptr[u + 1] = buf.size
    return 0


def cooccurrence_edges(const ptr_t[::1] item_indptr, const index_t[::1] item_records,
                       const ptr_t[::1] record_indptr, const index_t[::1] record_items,
                       bint directed, double min_probability):
    """Edges of the co-occurrence graph as CSR arrays.

    Parameters
    ----------
    item_indptr, item_records : the inverted index (item -> sorted record ids).
    record_indptr, record_items : record -> sorted item ids (the transpose).
    directed : bool
        Weight p(u, v) when true, 1 − (1 − p(u, v))(1 − p(v, u)) otherwise.
    min_probability : float
        Edges with a smaller weight are not stored.

    Returns
    -------
    indptr : int64 (n_items + 1,)
    indices : int32 (n_edges,)  sorted within each row, no diagonal
    counts : int64 (n_edges,)   |D[u] ∩ D[v]|
    weights : float64 (n_edges,)
    """
    cdef Py_ssize_t n_items = item_indptr.shape[0] - 1
    cdef EdgeBuffer buf
    cdef int status = 0
    cdef ptr_t* counter = <ptr_t*>malloc(max(n_items, 1) * sizeof(ptr_t))
    cdef index_t* touched = <index_t*>malloc(max(n_items, 1) * sizeof(index_t))
    indptr = np.zeros(n_items + 1, dtype=np.int64)
    cdef ptr_t[::1] indptr_view = indptr
    buf.cols = NULL
    buf.counts = NULL
    buf.weights = NULL
    buf.size = 0
    buf.capacity = 0
    try:
        if counter == NULL or touched == NULL:
            raise MemoryError("cannot allocate the co-occurrence counter")
        memset(counter, 0, max(n_items, 1) * sizeof(ptr_t))
        if n_items > 0 and item_records.shape[0] > 0:
            with nogil:
                status = _cooccurrence(&item_indptr[0], &item_records[0],
                                       &record_indptr[0], &record_items[0],
                                       n_items, directed, min_probability,
                                       counter, touched, &indptr_view[0], &buf)
        if status != 0:
            raise MemoryError("out of memory while building the co-occurrence graph")
        n = buf.size
        indices = np.empty(n, dtype=np.int32)
        counts = np.empty(n, dtype=np.int64)
        weights = np.empty(n, dtype=np.float64)
        if n > 0:
            indices[:] = <index_t[:n]>buf.cols
            counts[:] = <ptr_t[:n]>buf.counts
            weights[:] = <float64_t[:n]>buf.weights
        return indptr, indices, counts, weights
    finally:
        free(counter)
        free(touched)
        free(buf.cols)
        free(buf.counts)
        free(buf.weights)
