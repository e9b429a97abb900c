"""Tail completion: labels added to the selected rules' tails where they raise training micro-F1.

A rule's tail comes from the tail sampler, which draws it from the labels of
one record (or a clique of the label graph): the head H may match records
that carry a label k no rule predicts there, often enough that predicting k on
D[H] would raise micro-F1.  :func:`complete_tails` adds such labels to the
tails greedily; it is the choice of the default rule's tail
(:func:`~corset.selection.default_tail`) made for every selected head
instead of the empty one.

Adding label k to the tail of the rule with head H newly predicts k on the
records of D[H] on which no rule predicts it yet; with ``a`` of them carrying
k and ``b`` not, micro-F1 ``F = 2TP / (2TP + FP + FN)`` rises exactly when
``a / (a + b) > F / 2`` (``(2(TP + a)) / (D + a + b) > 2TP / D`` with
``D = 2TP + FP + FN``): the bound below which a calibrated classifier should
not predict a label (Lipton, Elkan and Naryanaswamy 2014, "Optimal
thresholding of classifiers to maximize F1 measure").  On the training
records such precisions are optimistic for small ``a``: the estimator lets
its internal validation decide whether to complete (``complete_tails="auto"``).
"""
import numpy as np
import scipy.sparse as sp

from .._ext import _selection
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from ..rules._check import _rules_to_csr
from ._default import _as_bool_csc

__all__ = ["complete_tails"]


def complete_tails(fired, tails, Y, always=()):
    """Add labels to rule tails greedily while each addition raises training micro-F1.

    The rule list predicts the union of the tails of the rules that fire.
    Each round adds the (rule, label) pair whose addition raises micro-F1
    the most, until no addition raises it; ties go to the first rule, then
    the smallest label id.  A label is added to a rule only where that rule
    newly predicts it on some records (see the module's docstring for the
    condition ``a / (a + b) > F / 2``).

    Parameters
    ----------
    fired : array-like or sparse matrix of shape (n_records, n_rules)
        Binary: which rule fires on which record (the records of its head).
    tails : sequence of sequences of int
        Each rule's tail, label ids in ``[0, n_labels)``.
    Y : array-like or sparse matrix of shape (n_records, n_labels)
        Binary training labels.
    always : sequence of int, default=()
        Labels predicted on every record (a default rule's tail): no rule
        gets them, and they count in micro-F1.  The estimator chooses its
        default rule before completing the tails: a frequent label is then
        predicted for everybody, not added to the tails of the many heads
        where it is common.

    Returns
    -------
    tails : tuple of tuple of int
        The completed tails, each sorted; each contains its input tail.
    f1 : float
        The training micro-F1 of the rule list with the completed tails
        (and the labels ``always``).

    Examples
    --------
    >>> import numpy as np
    >>> fired = np.array([[1], [1], [1], [0]])          # one rule, on the first three records
    >>> Y = np.array([[1, 1], [1, 1], [1, 0], [0, 0]])
    >>> complete_tails(fired, [(0,)], Y)   # label 1 on 2 of its 3 records: 2/3 > F/2
    (((0, 1),), 0.9090909090909091)
    """
    F = _as_bool_csc(fired, "fired")
    Yb = _as_bool_csc(Y, "Y")
    if F.shape[0] != Yb.shape[0]:
        raise ValueError(f"fired and Y must have the same number of records (rows); got {F.shape[0]} and "
                         f"{Yb.shape[0]}")
    tails = list(tails)
    if len(tails) != F.shape[1]:
        raise ValueError(f"tails must have one entry per rule (column of fired): {F.shape[1]}; got {len(tails)}")
    checked = []
    for j, tail in enumerate(tails):
        tail = np.asarray(tail).ravel()
        if tail.size and (tail.dtype.kind not in "iu" or tail.min() < 0 or tail.max() >= Yb.shape[1]):
            raise ValueError(f"tails[{j}] must hold label ids in [0, {Yb.shape[1]}); got {tails[j]!r}")
        checked.append(tuple(sorted({int(k) for k in tail})))
    always = np.asarray(always).ravel()
    if always.size and (always.dtype.kind not in "iu" or always.min() < 0 or always.max() >= Yb.shape[1]):
        raise ValueError(f"always must hold label ids in [0, {Yb.shape[1]}); got {always!r}")
    return _complete(F, checked, sp.csr_array(Yb), tuple(int(k) for k in always))


def _complete(F, tails, Y, always=()):
    """:func:`complete_tails` on checked input: ``F`` boolean CSC (records × rules) with sorted
    indices, ``tails`` sorted tuples, ``Y`` boolean CSR (records × labels), ``always`` label ids."""
    rows = sp.csr_array(F)   # the rules firing on each record
    Yc = sp.csc_array(Y)
    return _complete_indexed(F.indptr, F.indices, rows.indptr, rows.indices, Y.indptr, Y.indices, Yc.indptr,
                            Yc.indices, tails, always)


def _complete_indexed(f_indptr, f_ids, r_indptr, r_ids, yr_indptr, yr_ids, yc_indptr, yc_ids, tails, always=()):
    """:func:`complete_tails` on the index arrays of checked input, no matrix built or copied.

    ``f_*``: each rule's records (CSC of ``fired``), ``r_*``: each
    record's rules (its CSR); ``yr_*``: each record's labels (CSR of Y),
    ``yc_*``: each label's records (its CSC); ``tails`` sorted tuples,
    ``always`` label ids.  The counts the greedy rounds start from come from
    one pass over the records (:func:`corset._ext._selection.tail_completion_counts`):
    on a million records no (records × labels) matrix of predictions exists.
    """
    n_records, n_rules, n_labels = len(r_indptr) - 1, len(f_indptr) - 1, len(yc_indptr) - 1
    tails = [set(t) for t in tails]
    total = int(yr_indptr[-1] - yr_indptr[0])
    if n_rules == 0 or n_labels == 0 or total == 0:
        label_counts = np.diff(np.asarray(yc_indptr, dtype=np.int64))
        labels = sorted(set(always))
        tp = int(label_counts[labels].sum())
        return tuple(tuple(sorted(t)) for t in tails), _f1(tp, n_records * len(labels) - tp, total)
    _, _, t_indptr, t_ids = _rules_to_csr([((), sorted(t)) for t in tails])
    always = np.asarray(sorted(set(always)), dtype=np.int64)
    is_always = np.zeros(n_labels, dtype=np.uint8)
    is_always[always] = 1
    f_indptr, f_ids, r_indptr, r_ids = _ptr(f_indptr), _idx(f_ids), _ptr(r_indptr), _idx(r_ids)
    yc_indptr, yc_ids = _ptr(yc_indptr), _idx(yc_ids)
    # a[j, k], b[j, k]: the records of rule j not yet predicted k, with and without k.
    a = np.empty((n_rules, n_labels), dtype=np.int64)
    b = np.empty((n_rules, n_labels), dtype=np.int64)
    in_tail = np.empty((n_rules, n_labels), dtype=np.uint8)
    label_tp = np.empty(n_labels, dtype=np.int64)
    label_predicted = np.empty(n_labels, dtype=np.int64)
    _selection.tail_completion_counts(r_indptr, r_ids, _ptr(yr_indptr), _idx(yr_ids), t_indptr, t_ids, is_always,
                                      label_tp, label_predicted, f_indptr, a, b, in_tail)
    if always.size:   # the default rule's labels, predicted on every record: no rule adds them
        label_tp[always], label_predicted[always] = np.diff(yc_indptr)[always], n_records
    tp = int(label_tp.sum())
    fp = int(label_predicted.sum()) - tp
    # The rounds in compiled code (a lazy greedy over the labels' best rules).
    added_rule = np.empty(n_rules * n_labels, dtype=np.int32)
    added_label = np.empty(n_rules * n_labels, dtype=np.int32)
    n_added, tp, fp = _selection.tail_completion_greedy(f_indptr, f_ids, r_indptr, r_ids, yc_indptr, yc_ids,
                                                        in_tail, a, b, tp, fp, total, added_rule, added_label)
    for j, k in zip(added_rule[:n_added].tolist(), added_label[:n_added].tolist()):
        tails[j].add(k)
    return tuple(tuple(sorted(t)) for t in tails), _f1(tp, fp, total)


def _ptr(v):
    return np.ascontiguousarray(v, dtype=PTR_DTYPE)


def _idx(v):
    return np.ascontiguousarray(v, dtype=INDEX_DTYPE)


def label_counts(fired, tails, Y):
    """Per label, the (true, false) positives of the rule list that predicts the union of
    ``tails`` (sorted label ids) where their rules fire (``fired``: records × rules), against the
    boolean labels ``Y`` (records × labels, CSR); two int64 arrays.  The pass of
    :func:`corset._ext._selection.tail_completion_counts` over the records: no predicted matrix."""
    rows = sp.csr_array(fired)
    n_labels = Y.shape[1]
    _, _, t_indptr, t_ids = _rules_to_csr([((), tail) for tail in tails])
    tp, predicted = np.empty(n_labels, dtype=np.int64), np.empty(n_labels, dtype=np.int64)
    _selection.tail_completion_counts(_ptr(rows.indptr), _idx(rows.indices), _ptr(Y.indptr), _idx(Y.indices),
                                      t_indptr, t_ids, np.zeros(n_labels, dtype=np.uint8), tp, predicted)
    return tp, predicted - tp


def _f1(tp, fp, total):
    d = 2 * tp + fp + (total - tp)
    return 2.0 * tp / d if d else 0.0
