"""Rules as plain data and their one validation.

A rule is a pair ``(head, tail)`` of sorted tuples of Python ints: feature ids
(or literal ids, see :meth:`corset.BinaryData.with_negations`) and label ids
(section problem_formulation of the paper).  An empty head matches every
record: that is how a default rule ``IF TRUE THEN T`` is written.  A tail is
never empty (a rule with an empty tail covers nothing).

:func:`check_rules` turns user-supplied rules into that canonical form, with
a clear error for anything else, and returns a :class:`RuleSet`: the rules,
their CSR arrays, and where each came from.  Sampling, selection and
prediction all validate rules here, once; code that holds a ``RuleSet``
passes it on instead of validating again.
"""
import numbers
from collections.abc import Sequence
from itertools import chain
from operator import itemgetter

import numpy as np

from .._ext import _csr_rows
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from .._validation import _is_canonical, check_positive_int

__all__ = ["RuleSet", "check_rules"]

DUPLICATES = ("raise", "drop", "keep")


class RuleSet(Sequence):
    """Validated rules: a sequence of canonical ``(head, tail)`` tuples with their CSR arrays.

    Built by :func:`check_rules`; not meant to be built by hand.

    Attributes
    ----------
    rules : list of (tuple of int, tuple of int)
        The canonical rules, in order.
    n_features, n_labels : int
        The sizes of the spaces the ids index.
    first_index : ndarray of int64
        For each rule, its position in the sequence it was checked from (its
        first occurrence when repeats were dropped).
    arrays : tuple of ndarray
        ``(head_indptr, head_ids, tail_indptr, tail_ids)``: int64 offsets and
        int32 ids, one row per rule (computed when first read).
    """

    __slots__ = ("rules", "n_features", "n_labels", "first_index", "_arrays")

    def __init__(self, rules, n_features, n_labels, first_index, arrays=None):
        self.rules = rules
        self.n_features = n_features
        self.n_labels = n_labels
        self.first_index = first_index
        self._arrays = arrays

    @property
    def arrays(self):
        if self._arrays is None:
            self._arrays = _rules_to_csr(self.rules)
        return self._arrays

    def __len__(self):
        return len(self.rules)

    def __getitem__(self, index):
        return self.rules[index]

    def __iter__(self):
        return iter(self.rules)

    def __eq__(self, other):
        if isinstance(other, RuleSet):
            return self.rules == other.rules
        return self.rules == other

    __hash__ = None

    def __repr__(self):
        return f"RuleSet(n_rules={len(self)}, n_features={self.n_features}, n_labels={self.n_labels})"


def _is_scalar_array(value):
    """Whether ``value`` is a 0-d numpy array: it has ``__iter__``, but iterating it raises numpy's
    own TypeError ("iteration over a 0-d array"), which names no argument."""
    return isinstance(value, np.ndarray) and value.ndim == 0


def _canonical_ids(ids, n, what, where, allow_empty=False):
    """Sorted tuple of distinct ints in [0, n) from ``ids``; ``where`` names the rule in errors."""
    # Fast path: already canonical (a strictly increasing tuple of Python ints in range),
    # which is what the samplers produce.
    if type(ids) is tuple and (ids or allow_empty) and _is_canonical(ids, n):
        return ids
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__") or _is_scalar_array(ids):
        raise ValueError(f"{where}: the {what} must be a sequence of integer ids; got {ids!r}")
    values = []
    for x in ids:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
            raise ValueError(f"{where}: the {what} must hold integer ids; got {x!r} in {ids!r}")
        values.append(int(x))
    if not values:
        if allow_empty:
            return ()
        needs = "a non-empty tail" if what == "tail" else "a non-empty head and a non-empty tail"
        raise ValueError(f"{where}: the {what} is empty; a rule needs {needs}")
    values.sort()
    if values[0] < 0 or values[-1] >= n:
        kind = "feature" if what == "head" else "label"
        raise ValueError(f"{where}: the {what} holds a {kind} id outside [0, {n}): {values}")
    for a, b in zip(values, values[1:]):
        if a == b:
            raise ValueError(f"{where}: the {what} holds a duplicate id: {values}")
    return tuple(values)


def check_rules(rules, n_features, n_labels, *, name="rules", allow_empty_head=False, duplicates="raise",
                start=0):
    """Validate rules; return them as a :class:`RuleSet`.

    Parameters
    ----------
    rules : iterable of (head, tail), RuleSet or None
        Heads are sequences of feature ids in ``[0, n_features)``, tails
        sequences of label ids in ``[0, n_labels)``; without duplicate ids,
        in any order.  None is an empty rule set.
    n_features, n_labels : int
        Sizes of the feature and label spaces.
    name : str
        The argument's name, used in error messages.
    allow_empty_head : bool, default=False
        Whether a head may be empty (a rule that fires on every record, such
        as a default rule).  Tails are never empty.
    duplicates : {"raise", "drop", "keep"}, default="raise"
        A rule that occurs twice: an error, dropped (the first occurrence is
        kept, in first-seen order), or kept.
    start : int, default=0
        The index of ``rules[0]`` in the caller's list, for error messages
        when a caller checks only a suffix.

    Returns
    -------
    RuleSet
        A rule already in canonical form (what the library produces) is kept
        as the same tuple object.  A ``RuleSet`` for the same sizes, checked
        under rules at least as strict, is returned as it is.

    Raises
    ------
    ValueError
        If a rule is not a (head, tail) pair, a head (unless allowed) or tail
        is empty, holds a non-integer, a duplicate or an id out of range, or
        (with ``duplicates="raise"``) a rule occurs twice.
    """
    if duplicates not in DUPLICATES:
        raise ValueError(f"duplicates must be one of {DUPLICATES}; got {duplicates!r}")
    if type(n_features) is not int or type(n_labels) is not int or n_features < 0 or n_labels < 0:
        # numpy integers are sizes too; None or 8.5 are not (they failed in a comparison, or passed).
        n_features = check_positive_int(n_features, "n_features", minimum=0)
        n_labels = check_positive_int(n_labels, "n_labels", minimum=0)
    if rules is None:
        return RuleSet([], n_features, n_labels, np.zeros(0, dtype=np.int64))
    if isinstance(rules, RuleSet) and (rules.n_features, rules.n_labels) == (n_features, n_labels) and start == 0:
        if (allow_empty_head or all(h for h, _ in rules.rules)) and (
                duplicates == "keep" or len(set(rules.rules)) == len(rules.rules)):
            return rules
    if isinstance(rules, (str, bytes)) or not hasattr(rules, "__iter__") or _is_scalar_array(rules):
        raise ValueError(f"{name} must be a sequence of (head, tail) pairs; got {rules!r}")
    if type(rules) is list:
        fast = _canonical_list(rules, n_features, n_labels, distinct=duplicates != "keep")
        if fast is not None:
            canonical, arrays = fast
            return RuleSet(canonical, n_features, n_labels, np.arange(len(canonical), dtype=np.int64),
                           arrays)
    seen = {}
    canonical = []
    first_index = []
    for i, rule in enumerate(rules, start):
        if (type(rule) is tuple and len(rule) == 2 and _is_canonical(rule[0], n_features)
                and _is_canonical(rule[1], n_labels) and (rule[0] or allow_empty_head) and rule[1]):
            # Already canonical (what the samplers produce): the rule is its own key.
            key = rule
        else:
            where = f"{name}[{i}]"
            try:
                head, tail = rule
            except (TypeError, ValueError):
                raise ValueError(f"{where} must be a (head, tail) pair of id sequences; got {rule!r}") from None
            key = (_canonical_ids(head, n_features, "head", where, allow_empty=allow_empty_head),
                   _canonical_ids(tail, n_labels, "tail", where))
        if duplicates != "keep":
            if key in seen:
                if duplicates == "drop":
                    continue
                raise ValueError(f"{name}[{i}] repeats {name}[{seen[key]}]: {key}; a rule set holds each rule "
                                 "once")
            seen[key] = i
        canonical.append(key)
        first_index.append(i - start)
    return RuleSet(canonical, n_features, n_labels, np.asarray(first_index, dtype=np.int64))


def _csr_if_canonical(parts, n):
    """(indptr, ids) of ``parts`` if every part is a non-empty, strictly increasing tuple of ints in [0, n).

    None otherwise.  The per-item work is C iteration (``map``, ``chain``,
    ``min``/``max``) and one numpy comparison, no loop in the interpreter.
    """
    if set(map(type, parts)) != {tuple}:
        return None
    lengths = list(map(len, parts))
    if 0 in lengths:
        return None
    flat = list(chain.from_iterable(parts))
    if set(map(type, flat)) != {int}:  # bool, float, numpy ints: the checked path converts or rejects them
        return None
    if min(flat) < 0 or max(flat) >= n:
        return None
    indptr = np.zeros(len(parts) + 1, dtype=PTR_DTYPE)
    np.cumsum(lengths, out=indptr[1:])
    ids = np.array(flat, dtype=INDEX_DTYPE)
    if len(flat) > len(parts):  # some part has two ids or more: are they increasing?
        increasing = ids[1:] > ids[:-1]
        increasing[indptr[1:-1] - 1] = True  # comparisons across two parts do not count
        if not increasing.all():
            return None
    return indptr, ids


def _canonical_list(rules, n_features, n_labels, distinct=True):
    """``(rules, arrays)`` when ``rules`` is a list of canonical rules (distinct ones if ``distinct``), else None.

    The form the samplers produce, recognised without a Python loop; for
    anything else the caller takes the checked path, which canonicalises or
    raises the documented error.  The result is the same either way.
    """
    if not rules or set(map(type, rules)) != {tuple} or set(map(len, rules)) != {2}:
        return None
    heads = _csr_if_canonical(list(map(itemgetter(0), rules)), n_features)
    if heads is None:
        return None
    tails = _csr_if_canonical(list(map(itemgetter(1), rules)), n_labels)
    if tails is None or (distinct and len(set(rules)) != len(rules)):
        return None
    return list(rules), heads + tails


def _rules_to_csr(canonical):
    n = len(canonical)
    head_lengths = np.fromiter((len(h) for h, _ in canonical), dtype=PTR_DTYPE, count=n)
    tail_lengths = np.fromiter((len(t) for _, t in canonical), dtype=PTR_DTYPE, count=n)
    head_indptr = np.zeros(n + 1, dtype=PTR_DTYPE)
    tail_indptr = np.zeros(n + 1, dtype=PTR_DTYPE)
    np.cumsum(head_lengths, out=head_indptr[1:])
    np.cumsum(tail_lengths, out=tail_indptr[1:])
    head_ids = np.fromiter((f for h, _ in canonical for f in h), dtype=INDEX_DTYPE, count=int(head_indptr[-1]))
    tail_ids = np.fromiter((k for _, t in canonical for k in t), dtype=INDEX_DTYPE, count=int(tail_indptr[-1]))
    return head_indptr, head_ids, tail_indptr, tail_ids


def _rows(indptr, ids):
    """The rows of a CSR ``(indptr, ids)`` as tuples of Python ints."""
    values = ids.tolist()
    bounds = indptr.tolist()
    return [tuple(values[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


def _gather_csr(indptr, ids, rows):
    """Rows ``rows`` of a CSR (indptr, ids), as a new (indptr, ids)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if ids.dtype == INDEX_DTYPE and indptr.dtype == PTR_DTYPE:
        # The library's own CSR arrays: one compiled pass (about ten numpy calls otherwise).
        return _csr_rows.gather_rows(indptr, ids, rows)
    starts = indptr[rows]
    lengths = indptr[rows + 1] - starts
    new_indptr = np.zeros(rows.shape[0] + 1, dtype=PTR_DTYPE)
    np.cumsum(lengths, out=new_indptr[1:])
    # Position of every gathered element in the old ids array.
    offsets = np.arange(int(new_indptr[-1]), dtype=np.int64) - np.repeat(new_indptr[:-1] - starts, lengths)
    return new_indptr, np.ascontiguousarray(ids[offsets], dtype=ids.dtype)


