"""cov(ℛ): the label occurrences a rule set covers, kept once for sampling and selection.

A rule H -> T covers the occurrence (i, k) of label k in record i when it
matches the record (H ⊆ F_i and T ⊆ L_i) and k ∈ T: the D-specific coverage
of eq. covD.  Algorithm 1 and its samplers all read the coverage of the
rules selected so far: the tail samplers weigh records by their uncovered
labels (eq. wgtRD, Algorithm 4), CORSET-GH's uncovered variant looks at
uncovered occurrences, and the greedy gain counts a candidate's newly
covered occurrences (eq. relarea) and, for the submodular quality, the best
adjusted accuracy credited to each occurrence.  :class:`Coverage` holds that
state once, updated by one kernel (``corset._ext._coverage``) as rules are
selected; the samplers follow it through :meth:`Coverage.touched_records`.
"""
import numpy as np
import scipy.sparse as sp

from .._ext import _coverage
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from .._validation import check_ids
from ..binarydata import BinaryData
from ._check import _canonical_ids, check_rules

__all__ = ["Coverage", "coverage_flags", "d_specific_coverage", "marginal_coverage", "uncovered_label_counts"]


class Coverage:
    """The coverage state of a growing rule set ℛ on a :class:`~corset.BinaryData`.

    Parameters
    ----------
    data : BinaryData
        Features and labels; the state is aligned with ``data.Y``'s CSR.

    Attributes
    ----------
    covered : ndarray of uint8, shape (data.n_label_occurrences,)
        1 where a rule of ℛ covers the occurrence, aligned with
        ``data.Y.indices`` (occurrence (i, k) at ``data.Y.indptr[i]`` + the
        rank of k among record i's labels).  A view: it changes as rules are
        added.
    covered_padded : ndarray of uint8, shape (data.n_label_occurrences + 1,)
        The same flags followed by one 0, for kernels that may read one
        entry past the end.
    best_accuracy : ndarray of float64, shape (data.n_label_occurrences,)
        Per occurrence, the largest adjusted accuracy a(R) among the rules
        of ℛ covering it (0 where none does): the credit of the monotone
        submodular quality Q.
    n_uncovered : ndarray of int64, shape (data.n_records,)
        ``|U_D|`` per record: its label occurrences no rule covers.
    rules : list of (tuple, tuple)
        ℛ, in the order the rules were added.

    Examples
    --------
    >>> import numpy as np
    >>> from corset import BinaryData
    >>> from corset.rules import Coverage
    >>> data = BinaryData(np.array([[1, 0], [1, 1], [0, 1]]), np.array([[1, 1], [0, 1], [1, 0]]))
    >>> coverage = Coverage(data)
    >>> coverage.add((0,), (1,))          # matches records 0 and 1, which both carry label 1
    2
    >>> coverage.n_uncovered.tolist(), coverage.total_uncovered
    ([1, 0, 1], 2)
    >>> coverage.touched_records(0).tolist()
    [0, 1]
    """

    def __init__(self, data):
        if not isinstance(data, BinaryData):
            # Anything else fails below on a missing attribute, an error that names no argument.
            raise TypeError(f"data must be a corset.BinaryData; got {type(data).__name__} "
                            "(build one with corset.BinaryData(X, Y))")
        self.data = data
        n = data.n_label_occurrences
        self.covered_padded = np.zeros(n + 1, dtype=np.uint8)
        self.covered = self.covered_padded[:n]
        self.best_accuracy = np.zeros(n, dtype=np.float64)
        self.n_uncovered = np.asarray(data.record_n_labels, dtype=np.int64).copy()
        self.rules = []
        self._y_indptr = np.ascontiguousarray(data.Y.indptr, dtype=PTR_DTYPE)
        self._y_ids = np.ascontiguousarray(data.Y.indices, dtype=INDEX_DTYPE)
        if self._y_ids.size == 0:
            self._y_ids = np.zeros(1, dtype=INDEX_DTYPE)   # the kernel takes a non-empty view
        self._supports = []   # D[R] of each rule, in order: the records whose coverage it changed
        self._credit = None   # the label-major form of the state (label_credit), once asked for

    def __len__(self):
        return len(self.rules)

    @property
    def total_uncovered(self):
        """The number of label occurrences no rule covers."""
        return int(self.n_uncovered.sum())

    def add(self, head, tail, *, support=None, accuracy=0.0):
        """Add rule ``head -> tail`` to ℛ; return its uncovered area ``|cov(R) \\ cov(ℛ)|`` before it.

        Parameters
        ----------
        head, tail : sequence of int
            The rule: feature ids in ``[0, data.n_features)`` (the head may
            be empty) and label ids in ``[0, data.n_labels)`` (the tail may
            not), each without repeats and in any order, as in
            :func:`corset.rules.check_rules`; the rule is kept in that
            canonical form (sorted tuples).
        support : array-like of int, optional
            D[R], when the caller has it already: strictly increasing record
            ids in ``[0, data.n_records)``.  Checked for that, not recomputed:
            another set of records gives another coverage state.
        accuracy : float, default=0.0
            a(R), for :attr:`best_accuracy`.

        Raises
        ------
        ValueError
            If the head or tail holds an id out of range, a repeat or a
            non-integer, the tail is empty, or ``support`` is not a strictly
            increasing array of record ids in range.
        """
        data = self.data
        # The kernel merges the tail with each record's sorted labels: an unsorted tail would miss
        # occurrences. The rule layer accepts ids in any order and sorts them (check_rules).
        head = _canonical_ids(head, data.n_features, "head", "Coverage.add", allow_empty=True)
        tail = _canonical_ids(tail, data.n_labels, "tail", "Coverage.add")
        tail_ids = np.array(tail, dtype=INDEX_DTYPE)
        if support is None:
            support = data.rule_support(head, tail_ids)
        else:
            support = _check_support(support, data.n_records)
        return self._cover(head, tail, tail_ids, support, float(accuracy))

    def _cover(self, head, tail, tail_ids, support, accuracy):
        """:meth:`add` of a rule whose parts are known valid: ``head`` and ``tail`` canonical tuples,
        ``tail_ids`` the tail as a contiguous int32 array and ``support`` its D[R] (contiguous int32,
        strictly increasing, in range), ``accuracy`` a float.

        The greedy selection adds rules from the support kernels' output (checked when the pool
        was built), once per step: the checks of :meth:`add` would only repeat them.
        """
        area = _coverage.cover(self._y_indptr, self._y_ids, support, tail_ids, accuracy, self.covered_padded,
                               self.best_accuracy, self.n_uncovered)
        if self._credit is not None:
            labels = self.data.label_records
            _coverage.cover_by_label(labels.indptr, labels.ids, support, tail_ids, accuracy, self._credit)
        self.rules.append((head, tail))
        self._supports.append(support.copy())
        return int(area)

    def label_credit(self):
        """The state in label-major order: one float64 per label occurrence, kept up to date from now on.

        Occurrence (i, k) sits at ``data.label_records.indptr[k]`` + the rank
        of i in D[{k}]; its value is -1 while no rule covers it, else its
        :attr:`best_accuracy` (so :attr:`covered` is ``value >= 0``).  The
        greedy gains read it: the records of a label lie together there.
        A view: it changes as rules are added.
        """
        if self._credit is None:
            Y = self.data.Y
            n = self.data.n_label_occurrences
            # Record-major position of each label-major occurrence (rows sorted within each column).
            at = sp.csr_array((np.arange(n, dtype=np.int64), Y.indices, Y.indptr), shape=Y.shape).tocsc()
            at.sort_indices()
            position = at.data
            self._credit = np.where(self.covered[position] != 0, self.best_accuracy[position], -1.0)
        return self._credit

    def add_rules(self, rules, *, name="rules"):
        """Add each rule of ``rules`` (validated: an empty head is allowed); return their areas."""
        data = self.data
        rules = check_rules(rules, data.n_features, data.n_labels, name=name, allow_empty_head=True,
                            duplicates="keep")
        return [self.add(head, tail) for head, tail in rules]

    def uncovered_area(self, tail):
        """``a_ℛ(T) = Σ_D |T ∩ U_D|`` over the records D carrying ``tail`` (eq. relarea for tails), an exact int.

        ``tail``: sorted label ids (int32 array or tuple), not validated here.
        """
        tail = np.asarray(tail, dtype=INDEX_DTYPE)
        indptr, ids = self._y_indptr, self._y_ids
        total = 0
        for r in self.data.tail_support(tail):
            start, stop = indptr[r], indptr[r + 1]
            in_tail = np.isin(ids[start:stop], tail)
            total += int(np.count_nonzero(in_tail & (self.covered[start:stop] == 0)))
        return total

    def touched_records(self, start):
        """The records whose coverage rules ``start, start + 1, ...`` changed (sorted, unique int32).

        A sampler that has applied the first ``start`` rules to its weights
        updates the weights of these records to catch up.
        """
        parts = self._supports[start:]
        if not parts:
            return np.zeros(0, dtype=INDEX_DTYPE)
        if len(parts) == 1:   # one D[R]: sorted and unique already
            return parts[0].copy()
        return np.unique(np.concatenate(parts)).astype(INDEX_DTYPE)


def _check_support(support, n_records):
    """``support`` as a contiguous int32 array, after checking it is strictly increasing in [0, n_records).

    The kernels index the state with these record ids, and the label-major
    update gallops through them in order: they must come sorted, not be
    sorted here (D[R] as computed; floats are refused).
    """
    return check_ids(support, n_records, "support", order="increasing", whole_floats=False)


def coverage_flags(data, rules):
    """Which label occurrences the rules cover: cov(ℛ) as flags.

    Parameters
    ----------
    data : BinaryData
    rules : sequence of (head, tail)

    Returns
    -------
    ndarray of uint8, shape (data.n_label_occurrences,)
        Aligned with ``data.Y.indices``: occurrence (i, k) is at position
        ``data.Y.indptr[i]`` + the rank of k among record i's labels; 1 when
        some rule of ``rules`` matches record i and has k in its tail.
    """
    coverage = Coverage(data)
    coverage.add_rules(rules)
    return coverage.covered.copy()


def uncovered_label_counts(data, rules):
    """|U_D| per record: the labels of each record that no rule of ``rules`` covers.

    ``U_D = L_D \\ cov_D(ℛ)`` (section samp, the shortcut below eq.
    covDtail); the record weight of tail sampling (eq. wgtRD) is
    ``|U_D| · 2^(|L_D| − 1)``.  Returns int64, shape (data.n_records,).
    """
    coverage = Coverage(data)
    coverage.add_rules(rules)
    return coverage.n_uncovered.copy()


def d_specific_coverage(rules, record_features, record_labels):
    """D-specific coverage cov_D(ℛ) of a rule set on one record (eqs. covD, covDset).

    ``cov_D(R) = L_D ∩ T`` if R matches D (H ⊆ F_D and T ⊆ L_D), else ∅;
    ``cov_D(ℛ)`` is the union over ℛ.  Items may be any hashable ids (the
    paper's example uses letters for labels).

    Parameters
    ----------
    rules : iterable of (head, tail)
        Pass ``[rule]`` for a single rule.
    record_features, record_labels : iterable
        F_D and L_D.

    Returns
    -------
    frozenset

    Examples
    --------
    The example of section samp, corrected: as printed, R3 = {2, 3} -> {a, c}
    matches D (its head is in F_D and its tail in L_D), so cov_D(R3) = {a, c},
    not ∅; with the head {2, 4}, which does not match D, the text's figures
    hold:

    >>> D = ({0, 1, 2, 3}, {"a", "b", "c"})
    >>> R = [({0, 1}, {"a"}), ({1, 2}, {"a", "b"}), ({2, 4}, {"a", "c"})]
    >>> [sorted(d_specific_coverage([r], *D)) for r in R]
    [['a'], ['a', 'b'], []]
    """
    features = frozenset(record_features)
    labels = frozenset(record_labels)
    covered = set()
    for head, tail in rules:
        tail = frozenset(tail)
        if frozenset(head) <= features and tail <= labels:
            covered |= labels & tail
    return frozenset(covered)


def marginal_coverage(tail, rules, record_features, record_labels):
    """Marginal coverage ``(L_D ∩ T) \\ cov_D(ℛ)`` of a tail on one record (eq. covDtail).

    Its size is the tail's weight on the record, ``w(T, D)`` (eq. wgtR-tail).

    Examples
    --------
    >>> D = ({0, 1, 2, 3}, {"a", "b", "c"})
    >>> R = [({0, 1}, {"a"}), ({1, 2}, {"a", "b"}), ({2, 4}, {"a", "c"})]
    >>> sorted(marginal_coverage({"b", "c"}, R, *D))
    ['c']

    With the printed R3 = {2, 3} -> {a, c}, which does match D, c is covered
    and the weight is 0, not the paper's 1:

    >>> R[2] = ({2, 3}, {"a", "c"})
    >>> len(marginal_coverage({"b", "c"}, R, *D))
    0
    """
    labels = frozenset(record_labels)
    return (labels & frozenset(tail)) - d_specific_coverage(rules, record_features, labels)
