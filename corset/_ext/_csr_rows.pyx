"""Rows of CSR arrays: gathering rows, and assembling a candidate pool from per-search heads.

Plain C loops over the int64 offsets and int32 ids that every kernel of
corset exchanges; the rule layer (:mod:`corset.rules`) and CORSET-GH's pool
(:mod:`corset.sampling._head_gh`) call them instead of a dozen numpy calls.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.string cimport memset

from corset._ext._typedefs cimport index_t, ptr_t


def pool_from_jobs(const ptr_t[::1] job_indptr, const index_t[::1] job_ids, const int64_t[::1] first_job,
                   Py_ssize_t n_per_tail, const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids):
    """A candidate pool from per-search heads: the rules (head of each search, its tail).

    Parameters
    ----------
    job_indptr, job_ids : ndarray
        The head found by each search (job), as a CSR (empty: no head).
    first_job : ndarray of int64
        For each sampled tail (row of ``tail_indptr``), its first job: its
        searches are jobs ``first_job[o] .. first_job[o] + n_per_tail - 1``;
        -1 for a tail without searches.  Checked by the caller to lie in range.
    n_per_tail : int
    tail_indptr, tail_ids : ndarray
        The sampled tails as a CSR.

    Returns
    -------
    head_indptr, head_ids, tail_indptr, tail_ids : ndarray
        The pool, tail by tail and search by search, searches without a head
        left out.
    """
    cdef Py_ssize_t n_tails = first_job.shape[0], o, j, r = 0, h = 0, t = 0
    cdef ptr_t p
    cdef Py_ssize_t n_rules = 0, n_head_ids = 0, n_tail_ids = 0
    for o in range(n_tails):
        if first_job[o] < 0:
            continue
        for j in range(first_job[o], first_job[o] + n_per_tail):
            if job_indptr[j + 1] > job_indptr[j]:
                n_rules += 1
                n_head_ids += job_indptr[j + 1] - job_indptr[j]
                n_tail_ids += tail_indptr[o + 1] - tail_indptr[o]
    out_hp = np.zeros(n_rules + 1, dtype=np.int64)
    out_hi = np.empty(n_head_ids, dtype=np.int32)
    out_tp = np.zeros(n_rules + 1, dtype=np.int64)
    out_ti = np.empty(n_tail_ids, dtype=np.int32)
    cdef int64_t[::1] hp = out_hp, tp = out_tp
    cdef int32_t[::1] hi = out_hi, ti = out_ti
    with nogil:
        for o in range(n_tails):
            if first_job[o] < 0:
                continue
            for j in range(first_job[o], first_job[o] + n_per_tail):
                if job_indptr[j + 1] == job_indptr[j]:
                    continue
                for p in range(job_indptr[j], job_indptr[j + 1]):
                    hi[h] = job_ids[p]
                    h += 1
                for p in range(tail_indptr[o], tail_indptr[o + 1]):
                    ti[t] = tail_ids[p]
                    t += 1
                r += 1
                hp[r] = h
                tp[r] = t
    return out_hp, out_hi, out_tp, out_ti


def gather_rows(const ptr_t[::1] indptr, const index_t[::1] ids, const int64_t[::1] rows):
    """Rows ``rows`` of a CSR ``(indptr, ids)``, in that order, as a new CSR (int64 offsets, int32 ids).

    Raises IndexError for a row outside the CSR.
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, n_out = rows.shape[0], i, total = 0
    cdef int64_t row
    for i in range(n_out):
        row = rows[i]
        if row < 0 or row >= n_rows:
            raise IndexError(f"row {row} outside a CSR of {n_rows} rows")
        total += indptr[row + 1] - indptr[row]
    out_indptr = np.zeros(n_out + 1, dtype=np.int64)
    out_ids = np.empty(total, dtype=np.int32)
    cdef int64_t[::1] oi = out_indptr
    cdef int32_t[::1] od = out_ids
    if n_out:
        with nogil:
            gather_rows_into(&indptr[0], &ids[0] if ids.shape[0] else NULL, &rows[0], n_out, &oi[0],
                             &od[0] if total else NULL)
    return out_indptr, out_ids


cdef ptr_t gather_rows_into(const ptr_t* indptr, const index_t* ids, const int64_t* rows, Py_ssize_t n_rows,
                            ptr_t* out_indptr, index_t* out_ids) noexcept nogil:
    """:func:`gather_rows`' copy, for rows already checked: rows ``rows[0 .. n_rows)`` of ``(indptr,
    ids)`` into ``out_indptr`` (n_rows + 1 offsets from 0) and ``out_ids`` (room for their ids);
    returns how many ids were written."""
    cdef Py_ssize_t i
    cdef ptr_t p, pos = 0
    out_indptr[0] = 0
    for i in range(n_rows):
        for p in range(indptr[rows[i]], indptr[rows[i] + 1]):
            out_ids[pos] = ids[p]
            pos += 1
        out_indptr[i + 1] = pos
    return pos


def with_negated_columns(const ptr_t[::1] indptr, const index_t[::1] ids, Py_ssize_t n_columns,
                         const int64_t[::1] negated):
    """The rows of ``[X, 1 - X[:, negated]]`` from X's CSR (sorted rows, ids < ``n_columns``).

    Row r keeps X's ids, then holds ``n_columns + i`` for every i with
    ``negated[i]`` not in X's row r (increasing i: the row stays sorted).
    ``negated`` holds distinct ids in [0, n_columns) (checked by the caller).

    Returns
    -------
    indptr : ndarray of int64
    ids : ndarray of int32
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, k = negated.shape[0], r, i, n_out = 0
    cdef ptr_t p, q
    slot_arr = np.full(max(n_columns, 1), -1, dtype=np.int64)
    present_arr = np.zeros(max(k, 1), dtype=np.uint8)
    cdef int64_t[::1] slot = slot_arr
    cdef unsigned char[::1] present = present_arr
    for i in range(k):
        slot[negated[i]] = i
    out_indptr = np.zeros(n_rows + 1, dtype=np.int64)
    cdef ptr_t[::1] out_p = out_indptr
    with nogil:
        for r in range(n_rows):
            n_out += indptr[r + 1] - indptr[r] + k
            for p in range(indptr[r], indptr[r + 1]):
                n_out -= slot[ids[p]] >= 0
            out_p[r + 1] = n_out
    out_ids = np.empty(n_out, dtype=np.int32)
    cdef index_t[::1] out = out_ids
    with nogil:
        for r in range(n_rows):
            q = out_p[r]
            for p in range(indptr[r], indptr[r + 1]):
                out[q] = ids[p]
                q += 1
                if slot[ids[p]] >= 0:
                    present[slot[ids[p]]] = 1
            for i in range(k):
                if present[i]:
                    present[i] = 0
                else:
                    out[q] = <index_t> (n_columns + i)
                    q += 1
    return out_indptr, out_ids


def complement_columns(const ptr_t[::1] indptr, const index_t[::1] ids, const int64_t[::1] columns,
                       Py_ssize_t n_rows):
    """For each of ``columns``, the sorted rows of [0, n_rows) missing from its sorted list.

    ``indptr``/``ids``: a column -> sorted rows index (CSC); ``columns``
    holds column ids of it (checked by the caller).  The inverted index of
    the negated literals ``1 - X[:, columns]``.

    Returns
    -------
    indptr : ndarray of int64
    ids : ndarray of int32
    """
    cdef Py_ssize_t k = columns.shape[0], i, r, n_out = 0
    cdef ptr_t p, end, q
    out_indptr = np.zeros(k + 1, dtype=np.int64)
    cdef ptr_t[::1] out_p = out_indptr
    for i in range(k):
        n_out += n_rows - (indptr[columns[i] + 1] - indptr[columns[i]])
        out_p[i + 1] = n_out
    out_ids = np.empty(n_out, dtype=np.int32)
    cdef index_t[::1] out = out_ids
    with nogil:
        for i in range(k):
            p = indptr[columns[i]]
            end = indptr[columns[i] + 1]
            q = out_p[i]
            for r in range(n_rows):
                if p < end and ids[p] == r:
                    p += 1
                else:
                    out[q] = <index_t> r
                    q += 1
    return out_indptr, out_ids


ctypedef fused dense_t:
    uint8_t
    int32_t
    int64_t
    float
    double


def dense_binary_rows(const dense_t[:, ::1] M):
    """A dense 0/1 matrix as CSR arrays, in two passes over its rows; None if a value is not 0 or 1.

    The conversion of :func:`corset._validation.check_binary_matrix` for a
    C-contiguous array (scipy goes through a COO copy, several times
    slower).  NaN is neither 0 nor 1.  The caller reports a bad value
    (returning None leaves the message to its own checks).

    Returns
    -------
    indptr : ndarray of int64
    indices : ndarray of int32
        The columns holding 1 in each row, increasing.
    """
    cdef Py_ssize_t n_rows = M.shape[0], n_cols = M.shape[1], i, j
    cdef ptr_t q, n_nonzero = 0
    cdef bint bad = False
    cdef dense_t v
    out_indptr = np.zeros(n_rows + 1, dtype=np.int64)
    cdef ptr_t[::1] indptr = out_indptr
    with nogil:
        for i in range(n_rows):
            for j in range(n_cols):
                v = M[i, j]
                if v == 1:
                    n_nonzero += 1
                elif v != 0:
                    bad = True
            indptr[i + 1] = n_nonzero
            if bad:
                break
    if bad:
        return None
    out_indices = np.empty(n_nonzero, dtype=np.int32)
    cdef index_t[::1] indices = out_indices
    with nogil:
        for i in range(n_rows):
            q = indptr[i]
            for j in range(n_cols):
                if M[i, j] == 1:
                    indices[q] = <index_t> j
                    q += 1
    return out_indptr, out_indices


def fill_role_rows(uint8_t[:, ::1] rows, const ptr_t[::1] indptr, const index_t[::1] ids):
    """Row t of ``rows``: 2 everywhere, then 1 at the columns ``ids[indptr[t]:indptr[t + 1]]``.

    CORSET-GH's role rows (2 negative, 1 positive) of its tail slots in one
    call, from the slots' positive records as a CSR.  Raises ``ValueError``
    for a column outside the rows (nothing is written past them).
    """
    cdef Py_ssize_t n_rows = rows.shape[0], n_cols = rows.shape[1], t
    cdef ptr_t p
    if indptr.shape[0] != n_rows + 1:
        raise ValueError(f"fill_role_rows: {indptr.shape[0] - 1} slots for {n_rows} rows")
    if n_rows and (indptr[0] < 0 or indptr[n_rows] > ids.shape[0]):
        raise ValueError("fill_role_rows: indptr points outside ids")
    for t in range(n_rows):
        if indptr[t + 1] < indptr[t]:
            raise ValueError("fill_role_rows: indptr decreases")
    for p in range(ids.shape[0]):
        if ids[p] < 0 or ids[p] >= n_cols:
            raise ValueError(f"fill_role_rows: column {ids[p]} outside [0, {n_cols})")
    with nogil:
        for t in range(n_rows):
            if n_cols > 0:
                memset(&rows[t, 0], 2, n_cols)
            for p in range(indptr[t], indptr[t + 1]):
                rows[t, ids[p]] = 1
