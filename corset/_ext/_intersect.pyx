"""Intersection of sorted record-id arrays, and the support of a head or tail.

The support ``D[X]`` of an item set ``X`` (a head of features or a tail of
labels, section problem_formulation of the paper) is the k-way intersection of
the posting lists of its items in the inverted index.  Lists are intersected
shortest first, so the running result only shrinks; each pairwise step is a
linear merge when both sides have similar lengths and a galloping (exponential
then binary) search of the longer side when one is at least ``GALLOP_RATIO``
times shorter, which costs O(m log(n / m)) instead of O(m + n).

Each ``def`` function is a thin entry point that takes ``const`` memoryviews
(read-only arrays work) and runs a ``noexcept nogil`` core.
"""
import numpy as np

from libc.stdint cimport int64_t

from corset._ext._typedefs cimport index_t, ptr_t, uint8_t, uint64_t


cdef Py_ssize_t intersect_count_ptr(const index_t* a, Py_ssize_t na,
                                    const index_t* b, Py_ssize_t nb) noexcept nogil:
    """|a ∩ b| without materialising it."""
    cdef Py_ssize_t i = 0, j = 0, count = 0
    if na > nb:
        a, b = b, a
        na, nb = nb, na
    if na == 0:
        return 0
    if na * GALLOP_RATIO < nb:
        for i in range(na):
            j = gallop(b, j, nb, a[i])
            if j == nb:
                break
            if b[j] == a[i]:
                count += 1
                j += 1
        return count
    while i < na and j < nb:
        if a[i] < b[j]:
            i += 1
        elif a[i] > b[j]:
            j += 1
        else:
            count += 1
            i += 1
            j += 1
    return count


cdef Py_ssize_t intersect_into_ptr(const index_t* a, Py_ssize_t na,
                                   const index_t* b, Py_ssize_t nb,
                                   index_t* out) noexcept nogil:
    """Write a ∩ b to ``out`` and return its length.

    ``out`` needs room for min(na, nb) ids and may alias ``a`` or ``b``: the
    write position never passes the read position of either side.
    """
    cdef Py_ssize_t i = 0, j = 0, k = 0
    cdef index_t v
    if na > nb:
        a, b = b, a
        na, nb = nb, na
    if na == 0:
        return 0
    if na * GALLOP_RATIO < nb:
        for i in range(na):
            v = a[i]
            j = gallop(b, j, nb, v)
            if j == nb:
                break
            if b[j] == v:
                out[k] = v
                k += 1
                j += 1
        return k
    while i < na and j < nb:
        if a[i] < b[j]:
            i += 1
        elif a[i] > b[j]:
            j += 1
        else:
            out[k] = a[i]
            k += 1
            i += 1
            j += 1
    return k


cdef inline void _order_by_length(const ptr_t* indptr, const index_t* keys,
                                  Py_ssize_t n_keys, index_t* order) noexcept nogil:
    """``order`` := ``keys`` sorted by posting-list length (insertion sort: heads are short)."""
    cdef Py_ssize_t i, j
    cdef index_t key
    cdef ptr_t length
    for i in range(n_keys):
        key = keys[i]
        length = indptr[key + 1] - indptr[key]
        j = i
        while j > 0 and indptr[order[j - 1] + 1] - indptr[order[j - 1]] > length:
            order[j] = order[j - 1]
            j -= 1
        order[j] = key


cdef Py_ssize_t support_into_ptr(const ptr_t* indptr, const index_t* ids,
                                 const index_t* keys, Py_ssize_t n_keys,
                                 Py_ssize_t n_records,
                                 index_t* out, index_t* order) noexcept nogil:
    """Write D[keys] (sorted record ids) to ``out`` and return its length.

    ``indptr``/``ids`` is an inverted index (item -> sorted record ids).  The
    empty item set is matched by every record.  ``out`` needs room for
    ``n_records`` ids (or the shortest list), ``order`` for ``n_keys`` ids.
    """
    cdef Py_ssize_t i, n, r
    cdef index_t key
    if n_keys == 0:
        for r in range(n_records):
            out[r] = <index_t>r
        return n_records
    _order_by_length(indptr, keys, n_keys, order)
    key = order[0]
    n = indptr[key + 1] - indptr[key]
    for r in range(n):
        out[r] = ids[indptr[key] + r]
    for i in range(1, n_keys):
        if n == 0:
            break
        key = order[i]
        n = intersect_into_ptr(out, n, ids + indptr[key], indptr[key + 1] - indptr[key], out)
    return n


cdef Py_ssize_t support_count_ptr(const ptr_t* indptr, const index_t* ids,
                                  const index_t* keys, Py_ssize_t n_keys,
                                  Py_ssize_t n_records,
                                  index_t* work, index_t* order) noexcept nogil:
    """|D[keys]|; the last pairwise step only counts (no write)."""
    cdef Py_ssize_t i, n, r
    cdef index_t key, last
    if n_keys == 0:
        return n_records
    if n_keys == 1:
        return indptr[keys[0] + 1] - indptr[keys[0]]
    _order_by_length(indptr, keys, n_keys, order)
    key = order[0]
    n = indptr[key + 1] - indptr[key]
    for r in range(n):
        work[r] = ids[indptr[key] + r]
    for i in range(1, n_keys - 1):
        if n == 0:
            return 0
        key = order[i]
        n = intersect_into_ptr(work, n, ids + indptr[key], indptr[key + 1] - indptr[key], work)
    last = order[n_keys - 1]
    return intersect_count_ptr(work, n, ids + indptr[last], indptr[last + 1] - indptr[last])


cdef Py_ssize_t count_marked_ptr(const index_t* records, Py_ssize_t n,
                                 const uint8_t* mask) noexcept nogil:
    """How many of ``records`` have a non-zero ``mask`` entry."""
    cdef Py_ssize_t i, count = 0
    for i in range(n):
        count += mask[records[i]] != 0
    return count


# ---------------------------------------------------------------------------
# Python entry points.  They assume validated input: sorted, duplicate-free
# int32 ids, keys inside the index, a mask as long as there are records.

cdef inline const index_t* _ptr(const index_t[::1] a) noexcept nogil:
    return &a[0] if a.shape[0] > 0 else NULL


def intersect_count(const index_t[::1] a, const index_t[::1] b):
    """Return |a ∩ b| for strictly increasing int32 arrays (nothing materialised)."""
    cdef Py_ssize_t result
    with nogil:
        result = intersect_count_ptr(_ptr(a), a.shape[0], _ptr(b), b.shape[0])
    return result


def intersect(const index_t[::1] a, const index_t[::1] b):
    """Return a ∩ b (sorted int32 array) for strictly increasing int32 arrays."""
    out = np.empty(min(a.shape[0], b.shape[0]), dtype=np.int32)
    cdef index_t[::1] view = out
    cdef Py_ssize_t n
    if view.shape[0] == 0:
        return out
    with nogil:
        n = intersect_into_ptr(_ptr(a), a.shape[0], _ptr(b), b.shape[0], &view[0])
    return out[:n].copy()


def support(const ptr_t[::1] indptr, const index_t[::1] ids,
            const index_t[::1] keys, Py_ssize_t n_records):
    """Return D[keys]: the sorted ids of the records holding every item in ``keys``.

    ``indptr``/``ids`` is an inverted index (CSC of the record-item matrix).
    The empty item set returns every record.
    """
    cdef Py_ssize_t n_keys = keys.shape[0], n
    out = np.empty(n_records, dtype=np.int32)
    order = np.empty(max(n_keys, 1), dtype=np.int32)
    cdef index_t[::1] out_view = out
    cdef index_t[::1] order_view = order
    if n_records == 0:
        return out
    with nogil:
        n = support_into_ptr(&indptr[0], _ptr(ids), _ptr(keys), n_keys, n_records,
                             &out_view[0], &order_view[0])
    return out[:n].copy()


def support_count(const ptr_t[::1] indptr, const index_t[::1] ids,
                  const index_t[::1] keys, Py_ssize_t n_records):
    """Return |D[keys]| (see :func:`support`)."""
    cdef Py_ssize_t n_keys = keys.shape[0], n
    work = np.empty(max(n_records, 1), dtype=np.int32)
    order = np.empty(max(n_keys, 1), dtype=np.int32)
    cdef index_t[::1] work_view = work
    cdef index_t[::1] order_view = order
    with nogil:
        n = support_count_ptr(&indptr[0], _ptr(ids), _ptr(keys), n_keys, n_records,
                              &work_view[0], &order_view[0])
    return n


def split_count(const index_t[::1] records, const uint8_t[::1] positive):
    """Return (positives, negatives) among ``records`` under the 0/1 mask ``positive``."""
    cdef Py_ssize_t n = records.shape[0], n_pos
    if n == 0:
        return 0, 0
    with nogil:
        n_pos = count_marked_ptr(&records[0], n, &positive[0])
    return n_pos, n - n_pos


def bitsets(const ptr_t[::1] indptr, const index_t[::1] ids, Py_ssize_t n_words):
    """Every row of a CSR of sorted ids as a bitset of ``n_words`` uint64 words, rows one after another.

    Bit ``i & 63`` of word ``i >> 6`` of row r is set iff id i is in row r;
    ``n_words`` must be at least ceil((largest id + 1) / 64).  For the
    record -> features index this is F_D per record; for the feature ->
    records index, D[{f}] per feature.
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, r
    cdef ptr_t j
    out = np.zeros(max(n_rows * n_words, 1), dtype=np.uint64)
    cdef uint64_t[::1] bits = out
    with nogil:
        for r in range(n_rows):
            for j in range(indptr[r], indptr[r + 1]):
                bits[r * n_words + (ids[j] >> 6)] |= (<uint64_t>1) << (ids[j] & 63)
    return out


def bitset_ranks(const uint64_t[::1] bits, Py_ssize_t n_rows, Py_ssize_t n_words):
    """Per row and word of :func:`bitsets`' output, the number of bits set in the row's words before it.

    int32, laid out as ``bits`` (row r's word w at ``r * n_words + w``): the
    rank of id i in row r, its position in the row's sorted ids, is
    ``ranks[r * n_words + (i >> 6)]`` plus the bits of word ``i >> 6``
    below bit ``i & 63``.  Rows must hold fewer than 2^31 ids.
    """
    if n_rows < 0 or n_words < 0 or bits.shape[0] < n_rows * n_words:
        raise ValueError(f"bitset_ranks: {bits.shape[0]} words for {n_rows} rows of {n_words} words")
    out = np.zeros(max(n_rows * n_words, 1), dtype=np.int32)
    cdef index_t[::1] ranks = out
    cdef Py_ssize_t r, w
    cdef index_t seen
    with nogil:
        for r in range(n_rows):
            seen = 0
            for w in range(n_words):
                ranks[r * n_words + w] = seen
                seen += popcount64(bits[r * n_words + w])
    return out


def add_predictions(uint8_t[:, ::1] predicted, const index_t[::1] rows, const index_t[::1] tail,
                    const ptr_t[::1] label_indptr, const index_t[::1] label_ids,
                    int64_t[::1] label_tp, int64_t[::1] label_predicted):
    """Predict every label of ``tail`` for the records ``rows``; returns (new pairs, new true pairs).

    The step of :meth:`corset.selection.MicroF1Path.add`: ``predicted[k, r]``
    flags the (record, label) pairs predicted so far; for each label k of
    ``tail``, the records of ``rows`` (sorted) not yet flagged are flagged,
    counted into ``label_predicted[k]``, and those carrying k (in its sorted
    list ``label_ids[label_indptr[k]:label_indptr[k + 1]]``) into
    ``label_tp[k]``.  Ids outside ``predicted`` raise ``ValueError``.
    """
    cdef Py_ssize_t n_labels = predicted.shape[0], n_records = predicted.shape[1]
    cdef Py_ssize_t n_rows = rows.shape[0], i, t, n_new
    cdef index_t k, r
    cdef int64_t total_new = 0, total_hits = 0, hits
    if label_indptr.shape[0] != n_labels + 1 or label_tp.shape[0] != n_labels or label_predicted.shape[0] != n_labels:
        raise ValueError("add_predictions: label arrays do not match predicted's rows")
    for t in range(tail.shape[0]):
        if tail[t] < 0 or tail[t] >= n_labels:
            raise ValueError(f"add_predictions: label {tail[t]} outside [0, {n_labels})")
    for i in range(n_rows):
        if rows[i] < 0 or rows[i] >= n_records:
            raise ValueError(f"add_predictions: record {rows[i]} outside [0, {n_records})")
    if n_labels and (label_indptr[0] < 0 or label_indptr[n_labels] > label_ids.shape[0]):
        raise ValueError("add_predictions: label_indptr points outside label_ids")
    scratch = np.empty(max(n_rows, 1), dtype=np.int32)
    cdef index_t[::1] new = scratch
    with nogil:
        for t in range(tail.shape[0]):
            k = tail[t]
            n_new = 0
            for i in range(n_rows):
                r = rows[i]
                if predicted[k, r] == 0:
                    predicted[k, r] = 1
                    new[n_new] = r
                    n_new += 1
            if n_new:
                hits = intersect_count_ptr(&new[0], n_new, &label_ids[0] + label_indptr[k],
                                           label_indptr[k + 1] - label_indptr[k])
                label_predicted[k] += n_new
                label_tp[k] += hits
                total_new += n_new
                total_hits += hits
    return int(total_new), int(total_hits)
