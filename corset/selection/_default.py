"""The default rule: labels predicted for every record, chosen for micro-F1.

CORSET's objective never selects a rule with an empty head: its precision is
the label set's base rate, so its adjusted accuracy (eq. disc) is 0.  On data
sets where some labels are carried by a large share of the records (CAL500:
one label on 88% of the songs, 39 labels above 20%), predicting those labels
for everybody is worth more micro-F1 than any rule set of rare-label rules;
BOOMER starts every model with such a default rule.  :func:`default_tail`
picks that rule's tail after the selection, given what the selected rules
already predict on the training data.
"""
import numpy as np
import scipy.sparse as sp

from .._ext import _selection
from .._validation import check_binary_matrix

__all__ = ["default_tail", "default_tail_from_counts"]


def _as_bool_csc(M, name, shape=None):
    # Checked as every binary matrix of the library is (0/1 values, an entry stored twice is its sum).
    M = sp.csc_array(check_binary_matrix(M, name), dtype=bool)   # sorted indices, as its CSR's
    if shape is not None and M.shape != shape:
        raise ValueError(f"{name} must have shape {shape}; got {M.shape}")
    return M


def default_tail(Y, predicted):
    """Labels whose prediction for every record raises the training micro-F1 most, greedily.

    Starting from the predictions ``predicted`` of a rule set on the training
    records, repeatedly add to the default tail the label whose prediction
    for every record gives the largest micro-F1 (eq. ``2TP / (2TP + FP +
    FN)`` summed over labels), while that raises micro-F1.  Predicting label
    k for everybody sets its true positives to its count c_k, its false
    positives to n - c_k and its false negatives to 0, so each round is one
    vectorised pass over the labels.  Ties go to the smaller label id.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_records, n_labels)
        Binary training labels.
    predicted : array-like or sparse matrix of shape (n_records, n_labels)
        Binary predictions of the selected rules on the same records.

    Returns
    -------
    tail : tuple of int
        Sorted label ids (empty when no label raises micro-F1).
    f1 : float
        Training micro-F1 of ``predicted`` with the default rule added.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 0, 0], [1, 0, 1], [0, 0, 0]])
    >>> default_tail(Y, np.zeros_like(Y))   # label 0 is carried by 3 of 4 records
    ((0,), 0.6666666666666666)
    """
    Yb = _as_bool_csc(Y, "Y")
    Pb = _as_bool_csc(predicted, "predicted", Yb.shape)
    count = np.diff(Yb.indptr).astype(np.int64)
    tp = np.diff(sp.csc_array(Yb.multiply(Pb)).indptr).astype(np.int64)
    fp = np.diff(Pb.indptr).astype(np.int64) - tp
    return default_tail_from_counts(count, tp, fp, Yb.shape[0])


def default_tail_from_counts(count, tp, fp, n):
    """:func:`default_tail` from per-label counts: each label's records, true and false positives.

    ``count[k]`` records carry label k, of which the rules predict it on
    ``tp[k]``; they predict it on ``fp[k]`` records without it; n records in
    all.  Returns ``(tail, f1)`` as :func:`default_tail` does (the arrays
    are not modified).
    """
    count = np.ascontiguousarray(count, dtype=np.int64)
    tp, fp = np.array(tp, dtype=np.int64), np.array(fp, dtype=np.int64)   # copies: the kernel updates them
    if not (count.ndim == tp.ndim == fp.ndim == 1 and count.size == tp.size == fp.size):
        raise ValueError(f"count, tp and fp must be 1-D with one entry per label; got shapes {count.shape}, "
                         f"{tp.shape} and {fp.shape}")
    chosen = np.zeros(count.size, dtype=np.uint8)
    # The rounds in compiled code: the validated stop asks for a default rule after every prefix of
    # every fold's rule list (thousands of calls on a data set of many labels).
    current = _selection.default_tail_greedy(count, tp, fp, int(n), chosen)
    return tuple(int(k) for k in np.flatnonzero(chosen)), current
