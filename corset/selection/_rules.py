"""Support statistics of rules: what every term of the objective reads.

For a list of rules on a :class:`~corset.BinaryData` (validated by
:func:`corset.rules.check_rules`): D[H], D[T], D[R] (as a CSR of record
ids), the precision P_R, the base rate P_D and the adjusted accuracy a(R)
(eq. disc).  It only reads the data layer and calls the kernels of
``corset._ext._selection``.
"""
import numbers
import operator

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

    The counts must be non-negative integers (integral floats are read as
    integers) with ``|D[R]| <= |D[H]| <= |D|`` and ``|D[R]| <= |D[T]| <= |D|``:
    D[R] = D[H] ∩ D[T] and both are sets of records of D.

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

    Raises
    ------
    ValueError
        If a count is not a non-negative integer, or the counts break the
        relations above (naming the argument).
    """
    scalar = np.ndim(rule_count) == 0 and np.ndim(head_count) == 0 and np.ndim(tail_count) == 0
    r = _check_counts(rule_count, "rule_count")
    h = _check_counts(head_count, "head_count")
    t = _check_counts(tail_count, "tail_count")
    n = _check_counts(n_records, "n_records")
    if n.ndim:
        raise ValueError(f"n_records must be one integer (|D|); got an array of shape {n.shape}")
    n = int(n)
    try:
        shape = np.broadcast_shapes(r.shape, h.shape, t.shape)
    except ValueError:
        raise ValueError(f"rule_count, head_count and tail_count must have one shape; got {r.shape}, {h.shape} "
                         f"and {t.shape}") from None
    for small, large, what in ((r, h, "rule_count must be <= head_count (D[R] is a subset of D[H])"),
                               (r, t, "rule_count must be <= tail_count (D[R] is a subset of D[T])"),
                               (h, n, "head_count must be <= n_records (D[H] is a subset of D)"),
                               (t, n, "tail_count must be <= n_records (D[T] is a subset of D)")):
        bad = np.broadcast_to(small > large, shape)
        if bad.any():
            at = tuple(int(k) for k in np.unravel_index(int(np.argmax(bad)), shape)) if shape else ()
            where = f" at index {at[0] if len(at) == 1 else at}" if shape else ""
            raise ValueError(f"adjusted_accuracy: {what}; got {np.broadcast_to(small, shape)[at]} > "
                             f"{np.broadcast_to(large, shape)[at]}{where}")
    out = _adjusted_accuracy(r, h, t, n)
    return float(out) if scalar else out


def _check_counts(value, name):
    """``value`` (a count or an array of counts) as int64, after checking its values are integers >= 0."""
    arr = np.asarray(value)
    if arr.dtype.kind == "b" or isinstance(value, bool):
        raise ValueError(f"{name} must hold integer counts; got booleans: {value!r}")
    if arr.dtype.kind == "f":
        # An integral float is a count (check_ids reads such ids the same way); 2.5 is not.
        if arr.size and not (np.isfinite(arr).all() and (np.mod(arr, 1) == 0).all()):
            raise ValueError(f"{name} must hold integer counts; got {value!r}")
    elif arr.dtype.kind not in "iu":
        if arr.dtype == object and all(isinstance(x, numbers.Integral) and not isinstance(x, bool)
                                       for x in arr.ravel()):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(f"{name} must hold integer counts; got {value!r}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must hold counts >= 0; got {value!r}")
    return arr.astype(np.int64, copy=False)


def _adjusted_accuracy(r, h, t, n):
    """:func:`adjusted_accuracy` of int64 counts ``r``, ``h``, ``t`` and int ``n``, unchecked (an ndarray).

    For counts the kernels computed (:class:`RuleStatistics`), which hold
    the relations by construction.
    """
    positive = (h > 0) & (r * n > t * h)
    # Where the indicator is 1: |D[H]| > 0, |D| > 0 and 0 < P_D < P_R <= 1, so
    # every logarithm is finite; elsewhere a placeholder 1/2 keeps rel_entr quiet.
    p = np.where(positive, r / np.maximum(h, 1), 0.5)
    q = np.where(positive, t / max(n, 1), 0.5)
    kl = rel_entr(p, q) + rel_entr(1.0 - p, 1.0 - q)
    return np.where(positive, kl, 0.0)


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

    Rules are numbered ``0 .. len - 1``.  :meth:`rule`, :meth:`support`,
    :meth:`tail` and :meth:`subset` take those numbers only: a negative or
    larger index is an IndexError (as a row outside the CSR always was for
    :meth:`subset`), never a wrapped or empty answer.
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
        # One compiled pass: |D[R]|, |T|, |cov(R)| and, unless gathered from statistics of the
        # same rules (subset, concatenate, the candidate store: each value a function of its own
        # rule's counts only), P_R, P_D and a(R), the same doubles as _adjusted_accuracy's.  The
        # kernel's counts: D[R] ⊆ D[H], D[T] ⊆ D by construction, nothing to check.
        (self.rule_counts, self.tail_lengths, self.coverage_sizes, precision, base_rate,
         accuracy) = _selection.rule_columns(
            np.ascontiguousarray(support_indptr, dtype=PTR_DTYPE),
            np.ascontiguousarray(self.tail_indptr, dtype=PTR_DTYPE),
            np.ascontiguousarray(head_counts, dtype=np.int64), np.ascontiguousarray(tail_counts, dtype=np.int64),
            self.n_records, _derived is not None)
        if _derived is not None:
            self.precision, self.base_rate, self.accuracy = _derived
        else:
            self.precision, self.base_rate, self.accuracy = precision, base_rate, accuracy

    @property
    def rules(self):
        """The rules, as a list of (head, tail) tuples of Python ints."""
        if self._rules is None:
            self._rules = list(zip(_rows(self.head_indptr, self.head_ids), _rows(self.tail_indptr, self.tail_ids)))
        return self._rules

    def _index(self, i):
        """``i`` as an int in ``[0, len(self))``; an IndexError naming it otherwise."""
        if isinstance(i, (bool, np.bool_)):
            raise TypeError(f"rule index must be an integer; got {i!r}")
        try:
            index = operator.index(i)
        except TypeError:
            raise TypeError(f"rule index must be an integer; got {i!r}") from None
        if not 0 <= index < len(self):
            raise IndexError(f"rule index {index} is outside [0, {len(self)}): these statistics hold {len(self)} "
                             "rules (negative indices are not taken)")
        return index

    def rule(self, i):
        """Rule ``i`` as a (head, tail) tuple, without building the whole list."""
        i = self._index(i)
        if self._rules is not None:
            return self._rules[i]
        return (tuple(self.head_ids[self.head_indptr[i]:self.head_indptr[i + 1]].tolist()),
                tuple(self.tail_ids[self.tail_indptr[i]:self.tail_indptr[i + 1]].tolist()))

    def __len__(self):
        return self.support_indptr.shape[0] - 1

    def __repr__(self):
        return f"RuleStatistics(n_rules={len(self)}, n_records={self.n_records})"

    def support(self, i):
        """D[R] of rule ``i`` in ``[0, len(self))`` (sorted record ids)."""
        i = self._index(i)
        return self.support_ids[self.support_indptr[i]:self.support_indptr[i + 1]]

    def tail(self, i):
        """Tail of rule ``i`` in ``[0, len(self))`` as an int32 array."""
        i = self._index(i)
        return self.tail_ids[self.tail_indptr[i]:self.tail_indptr[i + 1]]

    def subset(self, indices):
        """The statistics of some rules, without recomputing supports.

        Parameters
        ----------
        indices : array-like of int, or of bool
            Rule numbers in ``[0, len(self))``, in the order wanted (repeats
            allowed), or a boolean mask of length ``len(self)`` selecting
            rules in their order.

        Raises
        ------
        ValueError
            For a mask of another length or indices that are not integers.
        IndexError
            For an index outside ``[0, len(self))``.
        """
        indices = self._subset_indices(indices)
        head = _gather_csr(self.head_indptr, self.head_ids, indices)
        tail = _gather_csr(self.tail_indptr, self.tail_ids, indices)
        support = _gather_csr(self.support_indptr, self.support_ids, indices)
        rules = None if self._rules is None else [self._rules[i] for i in indices]
        return RuleStatistics(rules, head + tail, support[0], support[1],
                              self.head_counts[indices], self.tail_counts[indices], self.n_records,
                              _derived=(self.precision[indices], self.base_rate[indices],
                                        self.accuracy[indices]))

    def _subset_indices(self, indices):
        """:meth:`subset`'s ``indices`` as int64 rule numbers in range (a mask turned into them)."""
        arr = np.asarray(indices)
        n = len(self)
        if arr.dtype.kind == "b":
            # A mask, not the numbers 0 and 1 (numpy would read it as such after a cast).
            if arr.ndim != 1 or arr.shape[0] != n:
                raise ValueError(f"indices: a boolean mask must have one entry per rule ({n}); got shape {arr.shape}")
            return np.flatnonzero(arr)
        if arr.size == 0:
            return np.zeros(0, dtype=np.int64)
        if arr.dtype.kind not in "iu":
            raise ValueError(f"indices must be rule numbers (integers) or a boolean mask; got dtype {arr.dtype}")
        arr = arr.reshape(-1)
        low, high = arr.min(), arr.max()
        if low < 0 or high >= n:
            raise IndexError(f"indices holds the rule index {low if low < 0 else high}, outside [0, {n}) "
                             "(negative indices are not taken)")
        return arr.astype(np.int64, copy=False)

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
