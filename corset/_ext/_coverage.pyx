"""The coverage kernel: apply one selected rule to the coverage state cov(ℛ).

State, owned by :class:`corset.rules.Coverage` and read by the tail samplers
and the greedy selection alike:

``covered``
    one flag per label occurrence, aligned with the CSR ids of the label
    matrix: 1 when a selected rule covers the occurrence (i, k) in the sense
    of the D-specific coverage (eq. covD): the rule's head is in F_i, its
    tail in L_i, and k is in its tail;
``best_accuracy``
    per occurrence, the largest adjusted accuracy a(R) among the selected
    rules covering it (the monotone submodular quality Q);
``n_uncovered``
    |U_D| per record: its label occurrences no selected rule covers (the
    record weights of tail sampling, eq. wgtRD, are built from it).
"""
from corset._ext._intersect cimport gallop
from corset._ext._typedefs cimport float64_t, index_t, int64_t, ptr_t, uint8_t


cdef int64_t _cover_core(const ptr_t* y_indptr, const index_t* y_ids,
                         const index_t* support, Py_ssize_t n_support,
                         const index_t* tail, Py_ssize_t n_tail, float64_t accuracy,
                         uint8_t* covered, float64_t* best_accuracy, int64_t* n_uncovered) noexcept nogil:
    """Flag the occurrences of ``tail`` in the records of ``support``; return how many were new.

    The labels of a record and the tail are both sorted: one merge per
    record finds the occurrences.
    """
    cdef Py_ssize_t s, t
    cdef ptr_t p, end
    cdef index_t r
    cdef int64_t new = 0
    for s in range(n_support):
        r = support[s]
        p = y_indptr[r]
        end = y_indptr[r + 1]
        t = 0
        while p < end and t < n_tail:
            if y_ids[p] < tail[t]:
                p += 1
            elif y_ids[p] > tail[t]:
                t += 1
            else:
                if covered[p] == 0:
                    covered[p] = 1
                    n_uncovered[r] -= 1
                    new += 1
                if accuracy > best_accuracy[p]:
                    best_accuracy[p] = accuracy
                p += 1
                t += 1
    return new


def cover(const ptr_t[::1] y_indptr, const index_t[::1] y_ids, const index_t[::1] support,
          const index_t[::1] tail, float64_t accuracy, uint8_t[::1] covered, float64_t[::1] best_accuracy,
          int64_t[::1] n_uncovered):
    """Apply one selected rule (its D[R] and tail) to the coverage state; return |cov(R) \\ cov(ℛ)|.

    ``covered`` and ``best_accuracy`` have one entry per label occurrence
    (at least ``y_indptr[-1]``), ``n_uncovered`` one per record.
    """
    cdef int64_t new
    if support.shape[0] == 0 or tail.shape[0] == 0:
        return 0
    with nogil:
        new = _cover_core(&y_indptr[0], &y_ids[0], &support[0], support.shape[0], &tail[0], tail.shape[0],
                          accuracy, &covered[0], &best_accuracy[0], &n_uncovered[0])
    return new


cdef void _cover_by_label_core(const ptr_t* label_indptr, const index_t* label_ids,
                               const index_t* support, Py_ssize_t n_support,
                               const index_t* tail, Py_ssize_t n_tail, float64_t accuracy,
                               float64_t* credit) noexcept nogil:
    cdef Py_ssize_t s, t, j, end
    cdef float64_t v
    for t in range(n_tail):
        j = label_indptr[tail[t]]
        end = label_indptr[tail[t] + 1]
        for s in range(n_support):
            j = gallop(label_ids, j, end, support[s])
            if j == end:
                break
            if label_ids[j] != support[s]:
                continue
            v = credit[j]
            if v < 0.0:
                credit[j] = accuracy if accuracy > 0.0 else 0.0
            elif accuracy > v:
                credit[j] = accuracy
            j += 1


def cover_by_label(const ptr_t[::1] label_indptr, const index_t[::1] label_ids, const index_t[::1] support,
                   const index_t[::1] tail, float64_t accuracy, float64_t[::1] credit):
    """:func:`cover` on the label-major form of the state: one ``credit`` per label occurrence.

    Occurrence (i, k) sits at ``label_indptr[k]`` + the rank of i in D[{k}]
    (the inverted index of the labels: ``label_ids``), and its credit is -1
    while no rule covers it, else the largest a(R) among the rules covering
    it (0 at least): ``covered`` and ``best_accuracy`` of :func:`cover` in
    one number, laid out so that the records of a label lie together.
    """
    if support.shape[0] == 0 or tail.shape[0] == 0:
        return
    with nogil:
        _cover_by_label_core(&label_indptr[0], &label_ids[0], &support[0], support.shape[0], &tail[0],
                             tail.shape[0], accuracy, &credit[0])
