"""Tail sampling by uncovered area (Algorithm 2 of the paper).

A tail T is drawn with probability proportional to its uncovered area with
respect to the selected rules ℛ (eq. relarea generalised to tails, section
sampling_objective):

    a_ℛ(T) = sum over records D with T ⊆ L_D of |T ∩ U_D|,

where U_D = L_D \\ cov_D(ℛ) are the record's label occurrences no selected
rule covers, and a rule H -> T' covers (D, k) when H ⊆ F_D, T' ⊆ L_D and
k ∈ T' (the D-specific coverage of eq. covD).  Two stages: a record D with
weight |U_D| 2^(|L_D| - 1) (eq. wgtRD), then a tail inside D by correction 8 (one label uniform over U_D, every other label of L_D with
probability 1/2).

The record weights live in a dynamic sampler (a sum tree, ``_ext._weighted``)
updated when rules are selected.  The weights are exact: |U_D| * 2^(|L_D| - 1 - E)
with E the largest exponent |L_D| - 1 among records with uncovered labels,
formed with ``ldexp`` (no rounding); the tree is rebuilt when E changes, so
the heaviest record always has a weight near 1 and no weight overflows.
A record would only lose weight to underflow if its label count were more
than about 1,000 below the largest, and its probability would then be below
2^-1000.
"""
import numpy as np

from .._ext import _tails, _weighted
from .._validation import check_seed, draw_seeds
from ..rules import Coverage
from ..rules._check import _rows
from ._common import check_data, check_n, check_tail, no_draws
from ._errors import SamplingError
from ._protocol import TailSpaceSampler


class TailSampler(TailSpaceSampler):
    """Draw tails ∝ uncovered area (Algorithm 2), with weights updated as rules are selected.

    Parameters
    ----------
    data : BinaryData
        Built once from (X, Y); the sampler keeps a reference, never a copy.
    rules : sequence of (head, tail), default=()
        Rules already selected; their coverage is removed from the weights.
    coverage : corset.rules.Coverage, optional
        The coverage state to follow (the greedy selection's, when the
        sampler serves it); by default a new one of its own.  The sampler
        reads it and catches up with rules added to it before each draw.

    Attributes
    ----------
    rules_ : list of (tuple, tuple)
        The rules whose coverage has been applied, in order.

    Examples
    --------
    >>> import numpy as np
    >>> from corset import BinaryData
    >>> from corset.sampling import TailSampler
    >>> X = np.array([[1, 0], [1, 1], [0, 1]])
    >>> Y = np.array([[1, 1], [0, 1], [1, 0]])
    >>> sampler = TailSampler(BinaryData(X, Y))
    >>> tails = sampler.sample(5, random_state=0)
    >>> all(isinstance(t, tuple) and len(t) >= 1 for t in tails)
    True
    >>> sampler.uncovered_area((0, 1))
    2
    >>> sampler.add_rules([((0,), (1,))])   # covers label 1 of records 0 and 1
    >>> sampler.uncovered_area((0, 1))
    1
    """

    def __init__(self, data, rules=(), *, coverage=None):
        self.data = check_data(data)
        labels = data.record_labels
        self._indptr = labels.indptr
        self._ids = labels.ids
        self._n_labels = np.asarray(data.record_n_labels, dtype=np.int64)
        if coverage is None:
            coverage = Coverage(data)
        elif coverage.data is not data:
            raise ValueError("coverage must be a corset.rules.Coverage of the same BinaryData as the sampler")
        self.coverage = coverage
        self._size = _weighted.tree_size(max(data.n_records, 1))
        self._applied = len(coverage)   # rules of the coverage reflected in the weights
        self._rebuild()
        if rules:
            self.add_rules(rules)

    @property
    def _covered(self):
        return self.coverage.covered

    @property
    def _n_uncovered(self):
        return self.coverage.n_uncovered

    # -- weights -------------------------------------------------------------
    def _max_exponent(self):
        live = self._n_uncovered > 0
        return int(self._n_labels[live].max()) - 1 if live.any() else None

    def _scaled_weights(self, records):
        """|U_D| * 2^(|L_D| - 1 - E) for ``records`` (exact, see the module docstring)."""
        u = self._n_uncovered[records]
        if self._exponent is None:
            return np.zeros(u.shape, dtype=np.float64)
        return np.ldexp(u.astype(np.float64), (self._n_labels[records] - 1 - self._exponent).astype(np.int32))

    def _rebuild(self):
        self._exponent = self._max_exponent()
        weights = self._scaled_weights(np.arange(self.data.n_records))
        self._tree = _weighted.sumtree(np.ascontiguousarray(weights))

    def sync(self):
        """Bring the weights up to date with rules added to :attr:`coverage` since the last call.

        Only the records those rules match change weight.  Called by
        :meth:`sample`; the coverage may be shared with the greedy selection,
        which adds the rules.
        """
        if self._applied == len(self.coverage):
            return
        records = self.coverage.touched_records(self._applied)
        self._applied = len(self.coverage)
        if self._max_exponent() != self._exponent:
            self._rebuild()
        else:
            _weighted.sumtree_update(self._tree, records, self._scaled_weights(records))

    @property
    def n_uncovered(self):
        """``|U_D|`` per record (a copy)."""
        return self._n_uncovered.copy()

    @property
    def covered(self):
        """Covered flags (bool) over the label occurrences of ``data.Y`` in CSR order (a copy)."""
        return self._covered.astype(bool)

    def record_log2_weights(self):
        """log2 of each record's weight ``|U_D| 2^(|L_D| - 1)`` (eq. wgtRD); -inf for weight 0."""
        with np.errstate(divide="ignore"):
            return np.log2(self._n_uncovered.astype(np.float64)) + (self._n_labels - 1)

    def uncovered_area(self, tail):
        """a_ℛ(T): the target weight of ``tail`` (an exact int)."""
        return self.coverage.uncovered_area(check_tail(tail, self.data))

    @property
    def total_uncovered(self):
        """The number of label occurrences no selected rule covers."""
        return int(self._n_uncovered.sum())

    # -- drawing -------------------------------------------------------------
    def sample(self, n, random_state=None, *, return_records=False):
        """``n`` tails ∝ uncovered area, as sorted tuples of label ids.

        Parameters
        ----------
        n : int >= 0
        random_state : None, int or RandomState
            Same value (an int), same tails.
        return_records : bool, default=False
            Also return the record each tail was drawn from (first stage).

        Raises
        ------
        SamplingError
            If ``n > 0`` and every tail has weight 0 (every label occurrence
            is covered, or Y holds none); ``n = 0`` then returns no tail.
        """
        n = check_n(n)
        rng = check_seed(random_state)
        self.sync()
        if self.total_uncovered == 0:
            if n == 0:   # nothing asked for: an empty result, not the error of a draw
                return no_draws(return_records)
            if self.data.n_label_occurrences == 0:   # not the rules' doing: nothing to cover
                raise SamplingError("Y holds no label occurrence: every tail has uncovered area 0")
            raise SamplingError("every label occurrence is covered by the selected rules: "
                                "every tail has uncovered area 0")
        seed = draw_seeds(rng, 1)[0]
        records, indptr, ids = _tails.sample(self._tree, self._indptr, self._ids, self._covered,
                                             self._n_uncovered, n, seed)
        tails = _rows(indptr, ids)
        if return_records:
            return tails, records
        return tails
