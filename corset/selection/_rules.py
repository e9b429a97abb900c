"""Support statistics of rules: what every term of the objective reads.

For a list of rules on a :class:`~corset.BinaryData` (validated by
:func:`corset.rules.check_rules`): D[H], D[T], D[R] (as a CSR of record
ids), the precision P_R, the base rate P_D and the adjusted accuracy a(R)
(eq. disc).  It only reads the data layer and calls the kernels of
``corset._ext._selection``.
"""
import numpy as np
from scipy.special import rel_entr

from .._ext import _selection
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from ..rules import check_rules
from ..rules._check import _gather_csr, _rows

__all__ = ["adjusted_accuracy", "rule_statistics", "RuleStatistics"]


def adjusted_accuracy(rule_count, head_count, tail_count, n_records):
    """Adjusted accuracy a(R) = I(P_R > P_D) · KL(Bern(P_R) ‖ Bern(P_D)) (eq. disc).

    Parameters
    ----------
    rule_count, head_count, tail_count : int or array of int
        |D[R]|, |D[H]| and |D[T]|.
    n_records : int
        |D|.

    Returns
    -------
    float or ndarray of float64
        In nats (natural logarithm).  Never NaN:

        * the indicator ``P_R > P_D`` is evaluated exactly on integers,
          ``|D[R]|·|D| > |D[T]|·|D[H]|``;
        * ``|D[H]| = 0`` (P_R undefined, correction 5): a(R) = 0;
        * ``P_D = 1`` (a tail carried by every record): the indicator is 0,
          so a(R) = 0;
        * ``P_R = 1``: the term ``0·log 0`` is 0 (``scipy.special.rel_entr``).
    """
    scalar = np.ndim(rule_count) == 0 and np.ndim(head_count) == 0 and np.ndim(tail_count) == 0
    r = np.asarray(rule_count, dtype=np.int64)
    h = np.asarray(head_count, dtype=np.int64)
    t = np.asarray(tail_count, dtype=np.int64)
    n = int(n_records)
    positive = (h > 0) & (r * n > t * h)
    # Where the indicator is 1: |D[H]| > 0, |D| > 0 and 0 < P_D < P_R <= 1, so
    # every logarithm is finite; elsewhere a placeholder 1/2 keeps rel_entr quiet.
    p = np.where(positive, r / np.maximum(h, 1), 0.5)
    q = np.where(positive, t / max(n, 1), 0.5)
    kl = rel_entr(p, q) + rel_entr(1.0 - p, 1.0 - q)
    out = np.where(positive, kl, 0.0)
    return float(out) if scalar else out


class RuleStatistics:
    """Support statistics of a list of rules on a :class:`~corset.BinaryData`.

    Built by :func:`rule_statistics`, one kernel pass over the inverted index.

    Attributes
    ----------
    rules : list of (tuple of int, tuple of int)
        The canonical rules, in order.
    head_indptr, head_ids, tail_indptr, tail_ids : ndarray
        The heads and tails as CSR (int64 offsets, int32 ids).
    support_indptr, support_ids : ndarray
        D[R] = D[H] ∩ D[T] of every rule as a CSR of sorted record ids.
    head_counts, tail_counts, rule_counts : ndarray of int64
        |D[H]|, |D[T]|, |D[R]|.
    tail_lengths : ndarray of int64
        |T|.
    coverage_sizes : ndarray of int64
        |cov(R)| = |D[R]|·|T| (eq. coverage).
    precision : ndarray of float64
        P_R = |D[R]| / |D[H]|; 0 where D[H] is empty (undefined in the paper).
    base_rate : ndarray of float64
        P_D = |D[T]| / |D| (0 for an empty data set).
    accuracy : ndarray of float64
        a(R), see :func:`adjusted_accuracy`.
    """

    def __init__(self, rules, arrays, support_indptr, support_ids, head_counts, tail_counts, n_records,
                 *, _derived=None):
        # ``rules=None``: the tuples are built from the CSR arrays when first
        # read (a pool of hundreds of candidates needs only the chosen one).
        self._rules = None if rules is None else list(rules)
        self.head_indptr, self.head_ids, self.tail_indptr, self.tail_ids = arrays
        self.support_indptr = support_indptr
        self.support_ids = support_ids
        self.head_counts = head_counts
        self.tail_counts = tail_counts
        self.n_records = int(n_records)
        self.rule_counts = np.diff(support_indptr)
        self.tail_lengths = np.diff(self.tail_indptr)
        self.coverage_sizes = self.rule_counts * self.tail_lengths
        if _derived is not None:
            # Gathered from statistics of the same rules (subset, concatenate):
            # each value is a function of its own rule's counts only.
            self.precision, self.base_rate, self.accuracy = _derived
            return
        self.precision = np.divide(self.rule_counts, head_counts, out=np.zeros(len(self)),
                                   where=head_counts > 0)
        self.base_rate = (tail_counts / self.n_records) if self.n_records else np.zeros(len(self))
        self.accuracy = adjusted_accuracy(self.rule_counts, head_counts, tail_counts, self.n_records)

    @property
    def rules(self):
        """The rules, as a list of (head, tail) tuples of Python ints."""
        if self._rules is None:
            self._rules = list(zip(_rows(self.head_indptr, self.head_ids), _rows(self.tail_indptr, self.tail_ids)))
        return self._rules

    def rule(self, i):
        """Rule ``i`` as a (head, tail) tuple, without building the whole list."""
        if self._rules is not None:
            return self._rules[i]
        return (tuple(self.head_ids[self.head_indptr[i]:self.head_indptr[i + 1]].tolist()),
                tuple(self.tail_ids[self.tail_indptr[i]:self.tail_indptr[i + 1]].tolist()))

    def __len__(self):
        return self.support_indptr.shape[0] - 1

    def __repr__(self):
        return f"RuleStatistics(n_rules={len(self)}, n_records={self.n_records})"

    def support(self, i):
        """D[R] of rule ``i`` (sorted record ids)."""
        return self.support_ids[self.support_indptr[i]:self.support_indptr[i + 1]]

    def tail(self, i):
        """Tail of rule ``i`` as an int32 array."""
        return self.tail_ids[self.tail_indptr[i]:self.tail_indptr[i + 1]]

    def subset(self, indices):
        """The statistics of rules ``indices`` (in that order), without recomputing supports."""
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        head = _gather_csr(self.head_indptr, self.head_ids, indices)
        tail = _gather_csr(self.tail_indptr, self.tail_ids, indices)
        support = _gather_csr(self.support_indptr, self.support_ids, indices)
        rules = None if self._rules is None else [self._rules[i] for i in indices]
        return RuleStatistics(rules, head + tail, support[0], support[1],
                              self.head_counts[indices], self.tail_counts[indices], self.n_records,
                              _derived=(self.precision[indices], self.base_rate[indices],
                                        self.accuracy[indices]))

    @classmethod
    def concatenate(cls, parts):
        """Statistics of the rules of ``parts`` (RuleStatistics on the same data), in order."""
        parts = list(parts)
        if not parts:
            raise ValueError("concatenate needs at least one RuleStatistics")

        def cat(indptrs, idss, dtype):
            lengths = np.concatenate([np.diff(p) for p in indptrs]).astype(PTR_DTYPE)
            indptr = np.zeros(lengths.shape[0] + 1, dtype=PTR_DTYPE)
            np.cumsum(lengths, out=indptr[1:])
            return indptr, np.concatenate(idss).astype(dtype, copy=False)

        head = cat([p.head_indptr for p in parts], [p.head_ids for p in parts], INDEX_DTYPE)
        tail = cat([p.tail_indptr for p in parts], [p.tail_ids for p in parts], INDEX_DTYPE)
        support = cat([p.support_indptr for p in parts], [p.support_ids for p in parts], INDEX_DTYPE)
        known = all(p._rules is not None for p in parts)
        return cls([r for p in parts for r in p._rules] if known else None, head + tail, support[0], support[1],
                   np.concatenate([p.head_counts for p in parts]),
                   np.concatenate([p.tail_counts for p in parts]), parts[0].n_records,
                   _derived=tuple(np.concatenate([getattr(p, attr) for p in parts])
                                  for attr in ("precision", "base_rate", "accuracy")))


def _statistics_from_csr(data, canonical, arrays):
    head_indptr, head_ids, tail_indptr, tail_ids = arrays
    f_idx = data.feature_records
    l_idx = data.label_records
    support_indptr, support_ids, head_counts, tail_counts = _selection.rule_supports(
        f_idx.indptr, f_idx.ids, l_idx.indptr, l_idx.ids, data.n_records,
        head_indptr, head_ids, tail_indptr, tail_ids, *data.column_bitsets())
    return RuleStatistics(canonical, arrays, support_indptr, support_ids, head_counts, tail_counts,
                          data.n_records)


def rule_statistics(data, rules, *, name="rules", deduplicate=False):
    """Support statistics of ``rules`` on ``data``.

    Parameters
    ----------
    data : BinaryData
        Features and labels (``Y`` required).
    rules : iterable of (head, tail)
        See :func:`corset.rules.check_rules` (heads non-empty).
    name : str
        Argument name for error messages.
    deduplicate : bool, default=False
        Drop repeated rules (first-seen order) instead of raising.

    Returns
    -------
    RuleStatistics
    """
    rules = check_rules(rules, data.n_features, data.n_labels, name=name,
                        duplicates="drop" if deduplicate else "raise")
    return _statistics_from_csr(data, rules.rules, rules.arrays)
