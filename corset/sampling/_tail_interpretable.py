"""The tail space ``"interpretable"``: CORSET-SURS's tails (Algorithm 4, section enhanced_sampling).

:class:`InterpretableTailSampler` (Algorithm 4, with correction 13)
    Tails T ∈ S⁻, the probabilistic cliques of the label graph
    (:func:`corset.labelspace.interpretable_space`), with probability
    proportional to their uncovered area
    ``a(T) = Σ_{D : T ⊆ L_D} |T \\ cov_D(ℛ)|`` (eq. relarea for tails,
    coverage of eq. covD).  PRETTI gives every record its sets
    φ(D) = {S ∈ S⁻ : S ⊆ L_D}; a record is drawn with weight
    ``w(D) = Σ_{S ∈ φ(D)} |S \\ cov_D(ℛ)|`` from a sum tree updated as rules
    are selected (only the records a new rule matches change), then
    T ∈ φ(D) with probability ``|T \\ cov_D(ℛ)| / w(D)``.  The last line of
    Algorithm 4 as printed draws T ∝ |T|, which disagrees with the record
    weight above it as soon as a rule is selected (correction 13).

The space S⁻ is built by :func:`corset.sampling._spaces.build_space`; the hot
loops (record weights, the draw inside a record) are kernels of
``corset._ext._surs``.
"""

import numpy as np

from .._ext import _surs, _weighted
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from .._validation import check_seed, draw_seeds
from ..labelspace import contained_sets
from ..rules import Coverage
from ._common import check_data, check_n, check_tail, no_draws
from ._errors import SamplingError
from ._protocol import TailSpaceSampler
from ._spaces import _STATUS_MESSAGES, _nonempty, _set_tuple, build_space

# Test-only mutation of the kernel (tests/test_sampling_surs.py).
_TAIL_MUTATIONS = {None: 0, "printed_draw": 1}


# -- tails (Algorithm 4) -----------------------------------------------------------
class InterpretableTailSampler(TailSpaceSampler):
    """Draw tails of S⁻ ∝ uncovered area (Algorithm 4 with correction 13), updated as rules are selected.

    Parameters
    ----------
    data : BinaryData
    rules : sequence of (head, tail), default=()
        Rules already selected; their coverage (eq. covD) is removed.
    alpha : float in (0, 1], default=None (0.8)
        Clique-probability threshold of S⁻ (:func:`corset.labelspace.probabilistic_cliques`).
    edge_probability : {"symmetrised", "directed"}, default=None ("symmetrised")
    max_size : int or None, default=None
        Largest set of S⁻ (None: no cap).
    max_sets : int, default=None (1,000,000)
        Largest number of sets of S⁻.
    on_overflow : {"raise", "truncate"}, default=None ("raise")
        See :func:`corset.labelspace.probabilistic_cliques`.
    family : SetFamily or iterable of label-id collections, optional
        A ready-made S⁻ (no empty or repeated set); then leave the clique
        parameters out.
    coverage : corset.rules.Coverage, optional
        The coverage state to follow (the greedy selection's, when the
        sampler serves it); by default a new one of its own.

    Attributes
    ----------
    family_ : SetFamily
        S⁻.
    record_sets_ : corset.binarydata._Index
        φ(D): record id -> sorted ids of the sets of S⁻ inside L_D (PRETTI).
    rules_ : list of (tuple, tuple)
        The rules whose coverage has been applied, in order.

    Raises
    ------
    corset.labelspace.CliqueOverflowError
        More than ``max_sets`` sets (with ``on_overflow="raise"``).

    Examples
    --------
    >>> import numpy as np
    >>> from corset import BinaryData
    >>> from corset.sampling import InterpretableTailSampler
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [1, 1]])
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [1, 1, 1]])
    >>> sampler = InterpretableTailSampler(BinaryData(X, Y))
    >>> sampler.family_.to_list()
    [(0,), (0, 1), (1,), (2,)]
    >>> sampler.uncovered_area((0, 1)), sampler.uncovered_area((0, 2))   # (0, 2) is not in S⁻
    (6, 0)
    >>> sampler.add_rules([((0,), (0, 1))])   # covers labels 0 and 1 of records 0, 1 and 3
    >>> sampler.uncovered_area((0, 1))
    0
    >>> sorted(set(sampler.sample(20, random_state=0)))
    [(2,)]
    """

    def __init__(self, data, rules=(), *, alpha=None, edge_probability=None, max_size=None, max_sets=None,
                 on_overflow=None, family=None, coverage=None, _mutation=None, _parameter_names=None):
        self.data = check_data(data)
        if coverage is None:
            coverage = Coverage(data)
        elif coverage.data is not data:
            raise ValueError("coverage must be a corset.rules.Coverage of the same BinaryData as the sampler")
        self.coverage = coverage
        if _mutation not in _TAIL_MUTATIONS:
            raise ValueError(f"unknown mutation {_mutation!r}")
        self._mutation = _TAIL_MUTATIONS[_mutation]
        self.family_ = build_space(data, "labels", alpha=alpha, edge_probability=edge_probability,
                                   max_size=max_size, max_sets=max_sets, on_overflow=on_overflow,
                                   family=family, _parameter_names=_parameter_names)
        self.record_sets_ = contained_sets(self.family_, data, items="labels")
        labels = data.record_labels
        self._lab_indptr = np.ascontiguousarray(labels.indptr, dtype=PTR_DTYPE)
        self._lab_ids = _nonempty(labels.ids, INDEX_DTYPE)
        self._rs_indptr = np.ascontiguousarray(self.record_sets_.indptr, dtype=PTR_DTYPE)
        self._rs_ids = _nonempty(self.record_sets_.ids, INDEX_DTYPE)
        self._set_indptr = np.ascontiguousarray(self.family_.indptr, dtype=PTR_DTYPE)
        self._set_ids = _nonempty(self.family_.ids, INDEX_DTYPE)
        # One flag per label occurrence (CSR order of data.Y), plus a pad: the coverage's.
        self._covered = coverage.covered_padded
        self._set_index = None
        self._set_tuples = {}
        self._applied = len(coverage)   # rules of the coverage reflected in the weights
        self._weights = self._record_weights(np.arange(data.n_records, dtype=INDEX_DTYPE))
        # w(D) are integers far below 2^53: exact as doubles, and so are their sums.
        self._tree = _weighted.sumtree(np.ascontiguousarray(self._weights, dtype=np.float64)
                                       if data.n_records else np.zeros(1))
        if rules:
            self.add_rules(rules)

    def _adopt_coverage(self, coverage):
        """Follow ``coverage`` from now on when it and the current coverage hold no rule; True if so.

        The weights of an empty coverage are those already computed: nothing
        to rebuild (a generator made before the selection that then hands
        its own coverage over).  False, and nothing changed, otherwise.
        """
        if coverage.data is not self.data or len(coverage) or len(self.coverage) or self._applied:
            return False
        self.coverage = coverage
        self._covered = coverage.covered_padded
        return True

    def _record_weights(self, records):
        return _surs.tail_weights(self._lab_indptr, self._lab_ids, self._covered, self._rs_indptr,
                                  self._rs_ids, self._set_indptr, self._set_ids,
                                  np.ascontiguousarray(records, dtype=INDEX_DTYPE), self.data.n_labels)

    def sync(self):
        """Bring the weights up to date with rules added to :attr:`coverage` since the last call."""
        if self._applied == len(self.coverage):
            return
        records = self.coverage.touched_records(self._applied)
        self._applied = len(self.coverage)
        if records.size:
            self._weights[records] = self._record_weights(records)
            _weighted.sumtree_update(self._tree, records, self._weights[records].astype(np.float64))

    @property
    def record_weights(self):
        """``w(D) = Σ_{S ∈ φ(D)} |S \\ cov_D(ℛ)|`` per record (Algorithm 4, line 2), int64 (a copy)."""
        return self._weights.copy()

    @property
    def total_weight(self):
        """Σ_D w(D) = Σ_{T ∈ S⁻} a(T), an exact int."""
        return int(self._weights.sum())

    def uncovered_area(self, tail):
        """The target weight of ``tail``: its uncovered area if it is in S⁻, else 0 (an exact int)."""
        tail = check_tail(tail, self.data)
        if self._set_index is None:
            self._set_index = {s: i for i, s in enumerate(self.family_.to_list())}
        if tuple(tail.tolist()) not in self._set_index:
            return 0
        return self.coverage.uncovered_area(tail)

    def sample(self, n, random_state=None, *, return_records=False):
        """``n`` tails of S⁻ ∝ uncovered area, as sorted tuples of label ids.

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
            If ``n > 0`` and every set of S⁻ has uncovered area 0; ``n = 0``
            then returns no tail.
        """
        n = check_n(n)
        rng = check_seed(random_state)
        self.sync()
        if self.total_weight == 0:
            if n == 0:   # nothing asked for: an empty result, not the error of a draw
                return no_draws(return_records)
            if self.data.n_label_occurrences == 0:   # not the rules' doing: nothing to cover
                raise SamplingError("Y holds no label occurrence: every tail has uncovered area 0")
            raise SamplingError("every set of the interpretable label space has uncovered area 0: "
                                "the selected rules cover every label occurrence inside its sets")
        seed = draw_seeds(rng, 1)[0]
        status, records, sets = _surs.sample_tails(
            self._tree, self._lab_indptr, self._lab_ids, self._covered, self._rs_indptr, self._rs_ids,
            self._set_indptr, self._set_ids, self.data.n_labels, n, seed, self._mutation)
        if status != 0:
            raise SamplingError(_STATUS_MESSAGES.get(status, f"tail-sampling kernel status {status}"))
        # A set drawn before is the same tuple object (tails repeat from step to step).
        known = self._set_tuples
        tails = [known[s] if s in known else known.setdefault(s, _set_tuple(self.family_, s))
                 for s in sets.tolist()]
        if return_records:
            return tails, records
        return tails
