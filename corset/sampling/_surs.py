"""CORSET-SURS: exact tail and head sampling under the interpretable spaces (section enhanced_sampling).

Two samplers, registered with :mod:`corset.sampling` as the tail space
``"interpretable"`` and the head method ``"surs"``:

:class:`InterpretableTailSampler` (Algorithm 4, with note 13 of the paper notes)
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
    weight above it as soon as a rule is selected (note 13).

:class:`ReducedSpaceHeadSampler` (section improvements_head, "Using reduced sample space")
    Heads H ∈ S⁻_F, the probabilistic cliques of the feature graph, with
    ``min_head_length <= |H| <= max_head_length``, with probability
    proportional to discriminativity ``|D_T^+[H]| · |D_T^- \\ D_T^-[H]|``
    (eq. sampling-disc restricted to S⁻_F).  Two stages, as Algorithm 3: a
    pair (D+, D-) with weight ``w = |{S ∈ φ_F(D+) : S ⊄ D-}|`` (φ_F(D): the
    sets of S⁻_F of allowed length inside F_D) by coupling from the past from
    the bounding proposal ``w̄(D+) = |φ_F(D+)|``, uniform over D- (notes 9
    and 10: strict acceptance, zero-weight pairs never accepted); then H
    uniform over the sets of φ_F(D+) not inside D-.  Its errors are those of
    :class:`~corset.sampling.HeadSampler`, so
    :class:`~corset.sampling.CandidateGenerator` skips the same tails.

Both spaces are built from ``data`` with the clique parameters ``alpha``
(0.8), ``edge_probability`` ("symmetrised", the authors' form),
``max_size`` (no cap), ``max_sets`` (10⁶) and ``on_overflow`` ("raise"), or
taken ready-made as ``family``.  A graph too dense for the caps raises
:class:`corset.labelspace.CliqueOverflowError` with the labelspace's message
(e.g. medical's feature graph at α = 0.8 has 3.5 million cliques: pass
``max_size``, a ``max_head_length``, which also caps the clique size, or
``on_overflow="truncate"``).

The hot loops (record weights, the draw inside a record, CFTP and the head
draw) are the kernels of ``corset._ext._surs``.
"""

import numpy as np

from .._ext import _surs, _weighted
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from .._validation import check_positive_int, check_seed, draw_seeds
from ..binarydata import _Index
from ..labelspace import DEFAULT_MAX_SETS, SetFamily, contained_sets, interpretable_space
from ..rules import Coverage
from ._common import cached_per_tail, check_data, check_n, check_tail, new_tail_cache
from ._errors import NoDiscriminativeHeadError, NoNegativeRecordsError, ProposalLimitError, SamplingError
from ._heads import DEFAULT_MAX_PROPOSALS, _csr_positions, check_head_lengths
from ._protocol import HeadMethodSampler, TailSpaceSampler

#: Defaults of the clique parameters (section enhanced_sampling; PAPER-NOTES).
DEFAULT_ALPHA = 0.8
DEFAULT_EDGE_PROBABILITY = "symmetrised"

# Test-only mutations of the kernels (tests/test_sampling_surs.py).
_TAIL_MUTATIONS = {None: 0, "printed_draw": 1}
_HEAD_MUTATIONS = {None: 0, "ignore_negative": 2}

_STATUS_MESSAGES = {
    3: "a draw met a record or pair of weight 0 (internal error)",
    4: "out of memory in the CORSET-SURS kernel",
}


# -- the spaces -------------------------------------------------------------------
def _nonempty(a, dtype):
    """``a`` as a contiguous array of ``dtype``, padded to length 1 so kernels may take ``&a[0]``."""
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.size else np.zeros(1, dtype=dtype)


def _check_family(family, n_items, items):
    """A user's family as a SetFamily over ``n_items`` items, with no empty and no repeated set."""
    if not isinstance(family, SetFamily):
        try:
            family = SetFamily.from_sets(family, n_items)
        except TypeError:
            raise TypeError(f"family must be a corset.labelspace.SetFamily or an iterable of {items[:-1]} "
                            f"id collections; got {type(family).__name__}") from None
    if family.n_items != n_items:
        raise ValueError(f"family is over {family.n_items} items but the data has {n_items} {items}")
    lengths = family.lengths()
    if (lengths == 0).any():
        raise ValueError(f"family holds the empty set (set {int(np.flatnonzero(lengths == 0)[0])}); "
                         f"every set of the space must hold at least one {items[:-1]}")
    seen = {}
    for i, s in enumerate(family.to_list()):
        if s in seen:
            raise ValueError(f"family lists the set {s} twice (sets {seen[s]} and {i}); each set of the "
                             "space must appear once, or it would be drawn twice as often")
        seen[s] = i
    return family


def build_space(data, items, *, alpha=None, edge_probability=None, max_size=None, max_sets=None,
                on_overflow=None, family=None):
    """The interpretable space of ``items`` ("labels" or "features") of ``data``, as a SetFamily.

    With ``family`` given, the clique parameters must be left out (they
    would have no effect); otherwise their ``None`` means the default
    (α = 0.8, symmetrised edges, no size cap, 10⁶ sets, raise on overflow).
    A family too large for the caps raises
    :class:`corset.labelspace.CliqueOverflowError`.
    """
    n_items = data.n_labels if items == "labels" else data.n_features
    given = {"alpha": alpha, "edge_probability": edge_probability, "max_size": max_size,
             "max_sets": max_sets, "on_overflow": on_overflow}
    if family is not None:
        clash = [name for name, value in given.items() if value is not None]
        if clash:
            raise ValueError(f"family is given, so the clique parameters {clash} have no effect: "
                             "leave them out, or leave out family")
        return _check_family(family, n_items, items)
    return interpretable_space(
        data, items, DEFAULT_ALPHA if alpha is None else alpha,
        edge_probability=DEFAULT_EDGE_PROBABILITY if edge_probability is None else edge_probability,
        max_size=max_size, max_sets=DEFAULT_MAX_SETS if max_sets is None else max_sets,
        on_overflow="raise" if on_overflow is None else on_overflow)


def _set_tuple(family, s):
    return tuple(family.ids[family.indptr[s]:family.indptr[s + 1]].tolist())


# -- tails (Algorithm 4) -----------------------------------------------------------
class InterpretableTailSampler(TailSpaceSampler):
    """Draw tails of S⁻ ∝ uncovered area (Algorithm 4 with note 13), updated as rules are selected.

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
    >>> from corset.sampling._surs import InterpretableTailSampler
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
                 on_overflow=None, family=None, coverage=None, _mutation=None):
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
                                   family=family)
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
        """w(D) = Σ_{S ∈ φ(D)} |S \\ cov_D(ℛ)| per record (Algorithm 4, line 2), int64 (a copy)."""
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
        total = 0
        for r in self.data.tail_support(tail):
            start, stop = self._lab_indptr[r], self._lab_indptr[r + 1]
            in_tail = np.isin(self._lab_ids[start:stop], tail)
            total += int(np.count_nonzero(in_tail & (self._covered[start:stop] == 0)))
        return total

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
            If every set of S⁻ has uncovered area 0.
        """
        n = check_n(n)
        rng = check_seed(random_state)
        self.sync()
        if self.total_weight == 0:
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


# -- heads (reduced feature space) -----------------------------------------------
class ReducedSpaceHeadSampler(HeadMethodSampler):
    """Draw heads of S⁻_F ∝ discriminativity for given tails (CORSET-SURS, exact).

    Parameters
    ----------
    data : BinaryData
    proposal : {"paper"}, default="paper"
        The bounding proposal w̄(D+) = |φ_F(D+)|, uniform over D- (the
        paper's proposal carried to the reduced space); the only one offered.
    min_head_length, max_head_length : int, default=1 and None
        Heads are the sets of S⁻_F with between ``min_head_length`` and
        ``max_head_length`` features.  ``max_head_length`` also caps the
        clique size of S⁻_F (longer sets could never be heads).
    alpha, edge_probability, max_size, max_sets, on_overflow, family
        The space S⁻_F of feature sets, as for :class:`InterpretableTailSampler`
        but over the feature graph.
    max_proposals : int, default=10_000_000
        Proposals examined for one pair before :class:`ProposalLimitError`.
    cache_size : int, default=256
        Number of tails whose proposal is kept.

    Attributes
    ----------
    family_ : SetFamily
        S⁻_F (every length; heads use those of allowed length).
    record_sets_ : corset.binarydata._Index
        φ_F(D): record id -> sorted ids of the sets of S⁻_F of allowed length inside F_D.
    last_stats_ : dict
        For the last call: ``n_trials`` (proposals until the first acceptance,
        per sample; its mean estimates Z̄/Z) and ``n_steps`` (T + 1 of the
        final CFTP run), int64 arrays.

    Raises
    ------
    corset.labelspace.CliqueOverflowError
        More than ``max_sets`` sets (with ``on_overflow="raise"``).

    Examples
    --------
    >>> import numpy as np
    >>> from corset import BinaryData
    >>> from corset.sampling._surs import ReducedSpaceHeadSampler
    >>> X = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1], [1, 0, 1]])
    >>> Y = np.array([[1], [1], [0], [0]])
    >>> sampler = ReducedSpaceHeadSampler(BinaryData(X, Y), alpha=0.7)
    >>> sampler.family_.to_list()
    [(0,), (0, 1), (0, 2), (1,), (2,)]
    >>> heads = sampler.sample((0,), 50, random_state=0)
    >>> sorted(set(heads))   # (2,) lies inside both negative records: discriminativity 0
    [(0,), (0, 1), (0, 2), (1,)]
    """

    def __init__(self, data, *, proposal="paper", min_head_length=1, max_head_length=None, alpha=None,
                 edge_probability=None, max_size=None, max_sets=None, on_overflow=None, family=None,
                 max_proposals=DEFAULT_MAX_PROPOSALS, cache_size=256, _mutation=None):
        self.data = check_data(data)
        if proposal != "paper":
            raise ValueError(f"proposal must be 'paper' for the reduced feature space (w̄(D+) = |φ_F(D+)|, "
                             f"uniform over D-); got {proposal!r}")
        if _mutation not in _HEAD_MUTATIONS:
            raise ValueError(f"unknown mutation {_mutation!r}")
        self.proposal = proposal
        self._mutation = _HEAD_MUTATIONS[_mutation]
        self.min_head_length, self.max_head_length = check_head_lengths(min_head_length, max_head_length)
        self.max_proposals = check_positive_int(max_proposals, "max_proposals", minimum=1)
        self.cache_size = check_positive_int(cache_size, "cache_size", minimum=1)
        max_size = check_positive_int(max_size, "max_size", allow_none=True)
        clique_size = max_size
        if family is None and self.max_head_length is not None:
            clique_size = self.max_head_length if max_size is None else min(max_size, self.max_head_length)
        self.family_ = build_space(data, "features", alpha=alpha, edge_probability=edge_probability,
                                   max_size=clique_size, max_sets=max_sets, on_overflow=on_overflow,
                                   family=family)
        lengths = self.family_.lengths()
        allowed = lengths >= self.min_head_length
        if self.max_head_length is not None:
            allowed &= lengths <= self.max_head_length
        phi = contained_sets(self.family_, data, items="features")
        keep = allowed[phi.ids]
        kept_before = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
        indptr = kept_before[phi.indptr].astype(PTR_DTYPE)
        ids = np.ascontiguousarray(phi.ids[keep], dtype=INDEX_DTYPE)
        self.record_sets_ = _Index(indptr, ids)
        self._rs_indptr = indptr
        self._rs_ids = _nonempty(ids, INDEX_DTYPE)
        self._count = np.diff(indptr).astype(np.int64)
        self._set_indptr = np.ascontiguousarray(self.family_.indptr, dtype=PTR_DTYPE)
        self._set_ids = _nonempty(self.family_.ids, INDEX_DTYPE)
        self._cache = new_tail_cache()
        self.last_stats_ = None

    # -- the proposal of one tail ---------------------------------------------
    def _proposal(self, tail):
        return cached_per_tail(self._cache, self.cache_size, self.data, tail, self._build)

    def _build(self, tail, key):
        data = self.data
        positives = np.ascontiguousarray(data.tail_support(tail), dtype=INDEX_DTYPE)
        if positives.size == 0:
            raise ValueError(f"tail {key} has no positive record (no record carries all its labels)")
        is_positive = np.zeros(data.n_records, dtype=bool)
        is_positive[positives] = True
        negatives = np.flatnonzero(~is_positive).astype(INDEX_DTYPE)
        if negatives.size == 0:
            raise NoNegativeRecordsError(
                f"tail {key} is carried by every record: it has no negative record, so every head "
                "has discriminativity 0")
        count = np.ascontiguousarray(self._count[positives])
        if not count.any():
            raise NoDiscriminativeHeadError(
                f"tail {key}: no positive record contains a set of the reduced feature space with "
                f"{self.min_head_length} to {self.max_head_length or 'any number of'} features")
        # Z = 0 iff every allowed set inside a positive record lies inside every negative one.
        features = data.record_features
        negative_counts = data.feature_counts - np.bincount(
            features.ids[_csr_positions(features.indptr, positives)], minlength=data.n_features)
        in_every_negative = _nonempty((negative_counts == negatives.size).astype(np.uint8), np.uint8)
        if not _surs.any_discriminative(self._rs_indptr, self._rs_ids, self._set_indptr, self._set_ids,
                                        positives, in_every_negative):
            raise NoDiscriminativeHeadError(
                f"tail {key}: every set of the reduced feature space of allowed length inside a positive "
                "record lies inside every negative record (discriminativity 0 everywhere)")
        cumulative, last = _weighted.cumulative(count.astype(np.float64))
        return positives, cumulative, count, last, negatives

    # -- drawing ---------------------------------------------------------------
    def _run(self, tail, n, random_state, draw_heads):
        n = check_n(n)
        rng = check_seed(random_state)
        positives, cumulative, count, last, negatives = self._proposal(tail)
        seeds = np.ascontiguousarray(draw_seeds(rng, n), dtype=np.uint64)
        status, failed_at, pos, neg, trials, steps, sets = _surs.sample_heads(
            positives, cumulative, count, last, negatives, self._rs_indptr, self._rs_ids, seeds,
            self.max_proposals, draw_heads, self._mutation)
        self.last_stats_ = {"n_trials": trials, "n_steps": steps}
        if status == 1:
            raise ProposalLimitError(
                f"tail {tuple(check_tail(tail, self.data).tolist())}: no pair accepted after "
                f"max_proposals={self.max_proposals} proposals (sample {failed_at} of {n})")
        if status != 0:
            raise SamplingError(_STATUS_MESSAGES.get(status, f"head-sampling kernel status {status}"))
        return positives[pos], negatives[neg], sets

    def sample(self, tail, n, random_state=None):
        """``n`` heads of S⁻_F for ``tail``, ∝ discriminativity, as sorted tuples of feature ids.

        Same ``random_state`` (an int), same heads.

        Raises
        ------
        NoNegativeRecordsError
            The tail is carried by every record.
        NoDiscriminativeHeadError
            Every allowed head has discriminativity 0.
        ProposalLimitError
            ``max_proposals`` proposals without an accepted pair.
        """
        _, _, sets = self._run(tail, n, random_state, True)
        return [_set_tuple(self.family_, s) for s in sets.tolist()]

    def sample_pairs(self, tail, n, random_state=None):
        """``n`` pairs (D+, D-) ∝ w(D+, D-) = |{S ∈ φ_F(D+) : S ⊄ F_{D-}}|, as two int arrays of record ids."""
        pos, neg, _ = self._run(tail, n, random_state, False)
        return pos, neg
