"""Prediction with a rule set: the union of the tails of the rules that fire.

Section algorithm of the paper ("Prediction"): for a record with features F,
the predicted labels are ``∪ {T : (H, T) ∈ ℛ, H ⊆ F}``.  Which rules fire is
computed through the inverted index of the records to predict (D[H] of
every head, one k-way intersection each, in compiled code), then the union
of tails is a sparse product ``fired · tails``.  Nothing here depends on how
the rules were learnt; the estimator wraps these functions.
"""
import numpy as np
import scipy.sparse as sp

from .._ext import _selection
from .._validation import check_positive_int
from ..binarydata import BinaryData
from ._check import _gather_csr, check_rules

__all__ = ["fired_rules", "predict_labels"]

# Tails are not looked at when only asking which rules fire; any label id is in range.
_ANY_LABEL = np.iinfo(np.int32).max


def _features(X):
    if isinstance(X, BinaryData):
        return X
    return BinaryData(X)


def _fired(rules, data, n_labels):
    rules = check_rules(rules, data.n_features, n_labels, name="rules", allow_empty_head=True)
    head_indptr, head_ids, tail_indptr, tail_ids = rules.arrays
    n_rules = len(rules)
    empty = np.flatnonzero(np.diff(head_indptr) == 0)
    if empty.size:
        # A rule with an empty head (a default rule) fires on every record.
        with_head = np.flatnonzero(np.diff(head_indptr) > 0)
        head_indptr, head_ids = _gather_csr(head_indptr, head_ids, with_head)
    index = data.feature_records
    support_indptr, support_ids = _selection.supports(index.indptr, index.ids, data.n_records,
                                                      head_indptr, head_ids)
    if empty.size:
        rows = np.concatenate([np.repeat(with_head, np.diff(support_indptr)),
                               np.repeat(empty, data.n_records)])
        records = np.concatenate([support_ids, np.tile(np.arange(data.n_records, dtype=support_ids.dtype),
                                                       empty.size)])
        by_rule = sp.csr_array((np.ones(rows.size, dtype=np.uint8), (rows, records)),
                               shape=(n_rules, data.n_records))
    else:
        by_rule = sp.csr_array((np.ones(support_ids.shape[0], dtype=np.uint8), support_ids, support_indptr),
                               shape=(n_rules, data.n_records))
    fired = sp.csr_array(by_rule.T.tocsr())
    fired.sort_indices()
    return fired, tail_indptr, tail_ids


def fired_rules(rules, X):
    """Which rules fire on each record: ``H ⊆ F_D``.

    Parameters
    ----------
    rules : sequence of (head, tail)
        Heads of feature ids (an empty head fires on every record); tails
        are not used (but validated as non-empty id sets).
    X : array-like or sparse matrix of shape (n_records, n_features), or BinaryData
        Binary features.

    Returns
    -------
    scipy.sparse.csr_array of uint8, shape (n_records, len(rules))
        Entry (i, j) is 1 when rule j's head is contained in record i's
        features.  Row i's column indices are the rules that fired, sorted.
    """
    data = _features(X)
    return _fired(rules, data, _ANY_LABEL)[0]


def predict_labels(rules, X, n_labels, *, dense=False):
    """The union of the tails of the rules whose head is contained in each record.

    Parameters
    ----------
    rules : sequence of (head, tail)
        Heads of feature ids in ``[0, n_features)`` (an empty head, as in a
        default rule, fires on every record), non-empty tails of label ids
        in ``[0, n_labels)``.
    X : array-like or sparse matrix of shape (n_records, n_features), or BinaryData
        Binary features (dense or sparse).
    n_labels : int
        The number of labels (columns of the output).
    dense : bool, default=False
        Return a dense uint8 ndarray instead of a CSR matrix.

    Returns
    -------
    scipy.sparse.csr_array or ndarray of uint8, shape (n_records, n_labels)

    Examples
    --------
    >>> import numpy as np
    >>> from corset.rules import predict_labels
    >>> rules = [((0,), (0,)), ((1, 2), (1, 2))]
    >>> X = np.array([[1, 0, 0], [1, 1, 1], [0, 1, 0]])
    >>> predict_labels(rules, X, n_labels=3, dense=True)
    array([[1, 0, 0],
           [1, 1, 1],
           [0, 0, 0]], dtype=uint8)
    """
    n_labels = check_positive_int(n_labels, "n_labels", minimum=0)
    data = _features(X)
    fired, tail_indptr, tail_ids = _fired(rules, data, n_labels)
    n_rules = tail_indptr.shape[0] - 1
    tails = sp.csr_array((np.ones(tail_ids.shape[0], dtype=np.int32), tail_ids, tail_indptr),
                         shape=(n_rules, n_labels))
    # int32 products: uint8 sums of many firing rules would wrap around.
    counts = sp.csr_array(fired.astype(np.int32) @ tails)
    counts.eliminate_zeros()
    counts.sort_indices()
    out = sp.csr_array((np.ones(counts.nnz, dtype=np.uint8), counts.indices.astype(np.int32), counts.indptr),
                       shape=(data.n_records, n_labels))
    return out.toarray() if dense else out
