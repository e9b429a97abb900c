"""PRETTI set containment: for every record, the sets of a family it contains.

Line 1 of Algorithm 4 needs φ(D) = {S ∈ S⁻ : S ⊆ L_D} for every record D.
PRETTI (Jampani and Pudi, 2005) answers this set-containment join with a
prefix tree over the family and the inverted index of the records: walking
the tree depth first, the records that contain the prefix ending at a node
are the records of its parent intersected with the posting list of the
node's item, so every shared prefix is intersected once, and the sets ending
at a node are contained in exactly the records of that node.

The tree is not materialised.  Each set's items are mapped to ranks (the
caller orders items, e.g. rarest first so that the lists shrink fast), and
the sets are sorted lexicographically by their rank sequences; visiting them
in that order *is* the depth-first walk of the tree, the nodes on the current
path are a stack of record lists, and the longest common prefix with the
previous set says how much of the stack to keep.  Posting lists of the first
level are read in place; deeper levels are intersected with the kernels of
``corset._ext._intersect``.

The empty set is contained in every record.  Duplicate sets are reported
under each of their ids.

``naive_containment`` checks every (record, set) pair; it is the reference
for benchmarks only.
"""
import numpy as np

from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcpy

from corset._ext._intersect cimport intersect_into_ptr
from corset._ext._typedefs cimport index_t, ptr_t, uint8_t

cdef enum:
    DONE = 0
    NO_MEMORY = -2


cdef int _cmp_index(const void* a, const void* b) noexcept nogil:
    cdef index_t x = (<const index_t*>a)[0]
    cdef index_t y = (<const index_t*>b)[0]
    return (x > y) - (x < y)


cdef inline int _compare_sets(const ptr_t* indptr, const index_t* seq,
                              index_t a, index_t b) noexcept nogil:
    """Lexicographic order of two rank sequences; a proper prefix comes first."""
    cdef ptr_t i = indptr[a], ia = indptr[a + 1], j = indptr[b], jb = indptr[b + 1]
    while i < ia and j < jb:
        if seq[i] != seq[j]:
            return -1 if seq[i] < seq[j] else 1
        i += 1
        j += 1
    if i < ia:
        return 1
    if j < jb:
        return -1
    return 0


cdef void _sort_sets(const ptr_t* indptr, const index_t* seq, index_t* order,
                     index_t* tmp, Py_ssize_t n) noexcept nogil:
    """Stable bottom-up merge sort of ``order`` by rank sequence (ties keep id order)."""
    cdef Py_ssize_t width = 1, lo, mid, hi, i, j, k
    cdef index_t* src = order
    cdef index_t* dst = tmp
    cdef index_t* swap
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if _compare_sets(indptr, seq, src[j], src[i]) < 0:
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
            lo = hi
        swap = src
        src = dst
        dst = swap
        width *= 2
    if src != order:
        memcpy(order, src, n * sizeof(index_t))


cdef struct Pairs:
    index_t* ids
    ptr_t size
    ptr_t capacity


cdef inline int _reserve(Pairs* p, ptr_t extra) noexcept nogil:
    cdef ptr_t cap = p.capacity
    cdef void* q
    if p.size + extra <= cap:
        return DONE
    if cap < 4096:
        cap = 4096
    while cap < p.size + extra:
        cap *= 2
    q = realloc(p.ids, cap * sizeof(index_t))
    if q == NULL:
        return NO_MEMORY
    p.ids = <index_t*>q
    p.capacity = cap
    return DONE


cdef int _pretti(const ptr_t* set_indptr, const index_t* ranked, Py_ssize_t n_sets,
                 const index_t* order, const index_t* item_of_rank,
                 const ptr_t* item_indptr, const index_t* item_records,
                 Py_ssize_t n_records, Py_ssize_t max_posting,
                 const index_t** level_list, Py_ssize_t* level_len, index_t* level_buffer,
                 ptr_t* set_start, ptr_t* set_len, Pairs* pairs) noexcept nogil:
    """Walk the implicit prefix tree; append each set's records to ``pairs``.

    ``level_list[k]``/``level_len[k]`` is the record list of the path's node at
    depth k (k >= 1).  Depth 1 points into the inverted index, depth k >= 2
    into ``level_buffer`` at (k - 2) * max_posting.
    """
    cdef Py_ssize_t t, k, lcp, depth = 0, length, r
    cdef ptr_t prev_begin = 0, begin, n
    cdef index_t s, item
    cdef const index_t* posting
    cdef ptr_t n_posting
    cdef index_t* dest
    for t in range(n_sets):
        s = order[t]
        begin = set_indptr[s]
        length = set_indptr[s + 1] - begin
        # The path to keep: the common prefix with the previous set.
        lcp = 0
        while lcp < depth and lcp < length and ranked[prev_begin + lcp] == ranked[begin + lcp]:
            lcp += 1
        for k in range(lcp, length):
            item = item_of_rank[ranked[begin + k]]
            posting = item_records + item_indptr[item]
            n_posting = item_indptr[item + 1] - item_indptr[item]
            if k == 0:
                level_list[1] = posting
                level_len[1] = n_posting
            else:
                dest = level_buffer + (k - 1) * max_posting
                if level_len[k] == 0:
                    level_len[k + 1] = 0
                else:
                    level_len[k + 1] = intersect_into_ptr(level_list[k], level_len[k],
                                                          posting, n_posting, dest)
                level_list[k + 1] = dest
        depth = length
        prev_begin = begin
        n = n_records if length == 0 else level_len[length]
        if _reserve(pairs, n) != DONE:
            return NO_MEMORY
        set_start[s] = pairs.size
        set_len[s] = n
        if length == 0:
            for r in range(n_records):
                pairs.ids[pairs.size + r] = <index_t>r
        else:
            memcpy(pairs.ids + pairs.size, level_list[length], n * sizeof(index_t))
        pairs.size += n
    return DONE


def pretti(const ptr_t[::1] set_indptr, const index_t[::1] set_ids,
           const index_t[::1] item_rank, const index_t[::1] item_of_rank,
           const ptr_t[::1] item_indptr, const index_t[::1] item_records,
           Py_ssize_t n_records, bint return_set_records=False):
    """For every record, the ids of the sets it contains (PRETTI).

    Parameters
    ----------
    set_indptr, set_ids : the family, CSR of duplicate-free item ids per set.
    item_rank, item_of_rank : a permutation of the items (the tree's item
        order) and its inverse.
    item_indptr, item_records : the inverted index, item -> sorted record ids.
    n_records : int
    return_set_records : bool
        Also return, for every set, the sorted ids of the records containing it.

    Returns
    -------
    record_indptr : int64 (n_records + 1,)
    record_sets : int32, sorted set ids within each record
    set_records_indptr, set_records : int64 (n_sets + 1,), int32, or None
    """
    cdef Py_ssize_t n_sets = set_indptr.shape[0] - 1
    cdef ptr_t n_ids = set_ids.shape[0]
    cdef Py_ssize_t n_items = item_rank.shape[0]
    cdef Py_ssize_t s, k, max_len = 0, max_posting = 0, r
    cdef ptr_t a, total
    cdef int status = DONE
    cdef Pairs pairs
    pairs.ids = NULL
    pairs.size = 0
    pairs.capacity = 0
    for s in range(n_sets):
        max_len = max(max_len, set_indptr[s + 1] - set_indptr[s])
    for k in range(n_items):
        max_posting = max(max_posting, item_indptr[k + 1] - item_indptr[k])

    ranked = np.empty(max(n_ids, 1), dtype=np.int32)
    order = np.arange(n_sets, dtype=np.int32)
    tmp = np.empty(max(n_sets, 1), dtype=np.int32)
    level_buffer = np.empty(max((max_len - 1) * max_posting, 1), dtype=np.int32)
    set_start = np.zeros(max(n_sets, 1), dtype=np.int64)
    set_len_buffer = np.zeros(max(n_sets, 1), dtype=np.int64)
    cdef index_t[::1] ranked_v = ranked
    cdef index_t[::1] order_v = order
    cdef index_t[::1] tmp_v = tmp
    cdef index_t[::1] buffer_v = level_buffer
    cdef ptr_t[::1] start_v = set_start
    cdef ptr_t[::1] len_v = set_len_buffer
    cdef const index_t** level_list = <const index_t**>malloc((max_len + 1) * sizeof(index_t*))
    cdef Py_ssize_t* level_len = <Py_ssize_t*>malloc((max_len + 1) * sizeof(Py_ssize_t))
    cdef const index_t* records_p = &item_records[0] if item_records.shape[0] > 0 else NULL
    cdef ptr_t[::1] rec_indptr_v, cursor_v, set_rec_indptr_v
    cdef index_t[::1] rec_sets_v, set_rec_v
    try:
        if level_list == NULL or level_len == NULL:
            raise MemoryError("cannot allocate the PRETTI path stack")
        if n_sets > 0:
            with nogil:
                for a in range(n_ids):
                    ranked_v[a] = item_rank[set_ids[a]]
                for s in range(n_sets):
                    # Empty and single-item sets need no sorting (and an empty last
                    # set would index one past the end).
                    if set_indptr[s + 1] - set_indptr[s] > 1:
                        qsort(&ranked_v[set_indptr[s]], set_indptr[s + 1] - set_indptr[s],
                              sizeof(index_t), _cmp_index)
                _sort_sets(&set_indptr[0], &ranked_v[0], &order_v[0], &tmp_v[0], n_sets)
                status = _pretti(&set_indptr[0], &ranked_v[0], n_sets, &order_v[0],
                                 &item_of_rank[0] if n_items > 0 else NULL,
                                 &item_indptr[0], records_p, n_records, max_posting,
                                 level_list, level_len, &buffer_v[0],
                                 &start_v[0], &len_v[0], &pairs)
        if status != DONE:
            raise MemoryError("out of memory while listing the sets contained in each record")
        total = pairs.size
        record_indptr = np.zeros(n_records + 1, dtype=np.int64)
        record_sets = np.empty(total, dtype=np.int32)
        cursor = np.zeros(max(n_records, 1), dtype=np.int64)
        set_records_indptr = np.zeros(n_sets + 1, dtype=np.int64)
        set_records = np.empty(total if return_set_records else 0, dtype=np.int32)
        if return_set_records:
            np.cumsum(set_len_buffer[:n_sets], out=set_records_indptr[1:])
        if total > 0:
            rec_indptr_v = record_indptr
            rec_sets_v = record_sets
            cursor_v = cursor
            with nogil:
                _transpose(&start_v[0], &len_v[0], n_sets, pairs.ids, total, n_records,
                           &rec_indptr_v[0], &rec_sets_v[0], &cursor_v[0])
            if return_set_records:
                set_rec_indptr_v = set_records_indptr
                set_rec_v = set_records
                with nogil:
                    _gather(&start_v[0], &len_v[0], n_sets, pairs.ids,
                            &set_rec_indptr_v[0], &set_rec_v[0])
        if not return_set_records:
            return record_indptr, record_sets, None, None
        return record_indptr, record_sets, set_records_indptr, set_records
    finally:
        free(level_list)
        free(level_len)
        free(pairs.ids)


cdef void _transpose(const ptr_t* set_start, const ptr_t* set_len, Py_ssize_t n_sets,
                     const index_t* pairs, ptr_t n_pairs, Py_ssize_t n_records,
                     ptr_t* record_indptr, index_t* record_sets, ptr_t* cursor) noexcept nogil:
    """Record-major CSR from the set-major lists; set ids come out sorted per record.

    ``record_indptr`` (n_records + 1) must be zeroed.
    """
    cdef Py_ssize_t s, r
    cdef ptr_t a
    for a in range(n_pairs):
        record_indptr[pairs[a] + 1] += 1
    for r in range(n_records):
        record_indptr[r + 1] += record_indptr[r]
        cursor[r] = record_indptr[r]
    # Sets in increasing id order, so each record's row comes out sorted.
    for s in range(n_sets):
        for a in range(set_start[s], set_start[s] + set_len[s]):
            r = pairs[a]
            record_sets[cursor[r]] = <index_t>s
            cursor[r] += 1


cdef void _gather(const ptr_t* set_start, const ptr_t* set_len, Py_ssize_t n_sets,
                  const index_t* pairs, const ptr_t* out_indptr, index_t* out) noexcept nogil:
    """Copy each set's record list into set-id order."""
    cdef Py_ssize_t s
    for s in range(n_sets):
        if set_len[s] > 0:
            memcpy(out + out_indptr[s], pairs + set_start[s], set_len[s] * sizeof(index_t))


cdef int _naive(const ptr_t* set_indptr, const index_t* set_ids, Py_ssize_t n_sets,
                const ptr_t* record_indptr, const index_t* record_items, Py_ssize_t n_records,
                uint8_t* mark, ptr_t* out_indptr, Pairs* pairs) noexcept nogil:
    cdef Py_ssize_t r, s
    cdef ptr_t a
    cdef bint contained
    out_indptr[0] = 0
    for r in range(n_records):
        for a in range(record_indptr[r], record_indptr[r + 1]):
            mark[record_items[a]] = 1
        for s in range(n_sets):
            contained = True
            for a in range(set_indptr[s], set_indptr[s + 1]):
                if not mark[set_ids[a]]:
                    contained = False
                    break
            if contained:
                if _reserve(pairs, 1) != DONE:
                    return NO_MEMORY
                pairs.ids[pairs.size] = <index_t>s
                pairs.size += 1
        for a in range(record_indptr[r], record_indptr[r + 1]):
            mark[record_items[a]] = 0
        out_indptr[r + 1] = pairs.size
    return DONE


def naive_containment(const ptr_t[::1] set_indptr, const index_t[::1] set_ids,
                      const ptr_t[::1] record_indptr, const index_t[::1] record_items,
                      Py_ssize_t n_items):
    """Benchmark reference: test every (record, set) pair with a marker array.

    Same output as the first two arrays of :func:`pretti`.
    """
    cdef Py_ssize_t n_sets = set_indptr.shape[0] - 1
    cdef Py_ssize_t n_records = record_indptr.shape[0] - 1
    cdef int status
    cdef Pairs pairs
    pairs.ids = NULL
    pairs.size = 0
    pairs.capacity = 0
    mark = np.zeros(max(n_items, 1), dtype=np.uint8)
    indptr = np.zeros(n_records + 1, dtype=np.int64)
    cdef uint8_t[::1] mark_v = mark
    cdef ptr_t[::1] indptr_v = indptr
    cdef const index_t* set_ids_p = &set_ids[0] if set_ids.shape[0] > 0 else NULL
    cdef const index_t* items_p = &record_items[0] if record_items.shape[0] > 0 else NULL
    try:
        with nogil:
            status = _naive(&set_indptr[0], set_ids_p, n_sets, &record_indptr[0], items_p,
                            n_records, &mark_v[0], &indptr_v[0], &pairs)
        if status != DONE:
            raise MemoryError("out of memory in the naive containment check")
        ids = np.empty(pairs.size, dtype=np.int32)
        if pairs.size > 0:
            ids[:] = <index_t[:pairs.size]>pairs.ids
        return indptr, ids
    finally:
        free(pairs.ids)
