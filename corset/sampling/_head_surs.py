"""The head method ``"surs"``: CORSET-SURS's heads in the reduced feature space (section enhanced_sampling).

:class:`ReducedSpaceHeadSampler` (section improvements_head, "Using reduced sample space")
    Heads H ∈ S⁻_F, the probabilistic cliques of the feature graph, with
    ``min_head_length <= |H| <= max_head_length``, with probability
    proportional to discriminativity ``|D_T^+[H]| · |D_T^- \\ D_T^-[H]|``
    (eq. sampling-disc restricted to S⁻_F).  Two stages, as Algorithm 3: a
    pair (D+, D-) with weight ``w = |{S ∈ φ_F(D+) : S ⊄ D-}|`` (φ_F(D): the
    sets of S⁻_F of allowed length inside F_D) by coupling from the past from
    the bounding proposal ``w̄(D+) = |φ_F(D+)|``, uniform over D- (corrections 9 and 10: strict acceptance, zero-weight pairs never accepted); then H
    uniform over the sets of φ_F(D+) not inside D-.  Its errors are those of
    :class:`~corset.sampling.HeadSampler`, so
    :class:`~corset.sampling.CandidateGenerator` skips the same tails.

The space S⁻_F is built by :func:`corset.sampling._spaces.build_space`; the
hot loops (CFTP and the head draw) are kernels of ``corset._ext._surs``.
"""

import numpy as np

from .._ext import _surs, _weighted
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from .._validation import check_positive_int, check_seed, draw_seeds
from ..binarydata import _Index
from ..labelspace import contained_sets
from ._common import cached_per_tail, check_data, check_n, check_tail, new_tail_cache
from ._errors import NoDiscriminativeHeadError, NoNegativeRecordsError, ProposalLimitError, SamplingError
from ._head_exact import DEFAULT_MAX_PROPOSALS, _csr_positions, check_head_lengths
from ._protocol import HeadMethodSampler
from ._spaces import _STATUS_MESSAGES, _nonempty, _set_tuple, build_space

# Test-only mutation of the kernel (tests/test_sampling_surs.py).
_HEAD_MUTATIONS = {None: 0, "ignore_negative": 2}


# -- heads (reduced feature space) -----------------------------------------------
class ReducedSpaceHeadSampler(HeadMethodSampler):
    """Draw heads of S⁻_F ∝ discriminativity for given tails (CORSET-SURS, exact).

    Parameters
    ----------
    data : BinaryData
    proposal : {"paper"}, default="paper"
        The bounding proposal ``w̄(D+) = |φ_F(D+)|``, uniform over D- (the
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
    >>> from corset.sampling import ReducedSpaceHeadSampler
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
                 max_proposals=DEFAULT_MAX_PROPOSALS, cache_size=256, _mutation=None, _parameter_names=None):
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
        max_size = check_positive_int(max_size, (_parameter_names or {}).get("max_size", "max_size"), allow_none=True)
        clique_size = max_size
        if family is None and self.max_head_length is not None:
            clique_size = self.max_head_length if max_size is None else min(max_size, self.max_head_length)
            if clique_size != max_size:
                # The cap the enumeration sees is the head length bound: its messages name that.
                _parameter_names = {**(_parameter_names or {}), "max_size": "max_head_length"}
        self.family_ = build_space(data, "features", alpha=alpha, edge_probability=edge_probability,
                                   max_size=clique_size, max_sets=max_sets, on_overflow=on_overflow,
                                   family=family, _parameter_names=_parameter_names)
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
        """``n`` pairs (D+, D-) ∝ ``w(D+, D-) = |{S ∈ φ_F(D+) : S ⊄ F_{D-}}|``, as two int arrays of record ids."""
        pos, neg, _ = self._run(tail, n, random_state, False)
        return pos, neg
