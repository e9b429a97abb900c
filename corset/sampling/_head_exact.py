"""Head sampling by discriminativity (Algorithm 3 of the paper).

For a tail T, a head H with min_head_length <= |H| <= max_head_length is
drawn with probability proportional to its discriminativity (eq.
sampling-disc), q_disc(H; T) = |D_T^+[H]| * |D_T^- \\ D_T^-[H]|.  Two stages
(correction 9): a pair (D+, D-) of a positive and a negative
record with weight

    w(D+, D-) = sum_{j=m..M} [C(|D+|, j) - C(|D+ ∩ D-|, j)],

the number of heads of allowed length in F_{D+} but not in F_{D-} (for m = 2
and no maximum this is the paper's eq. weights_discr, 2^a - 2^k - (a - k));
then a head uniform over those heads.  The pair is drawn by coupling from
the past (``method="cftp"``, Algorithm 3) or plain rejection sampling
(``method="rejection"``) from a proposal that bounds w:

``proposal="paper"``
    w̄(D+) = sum_{j=m..M} C(|D+|, j), uniform over D-: the paper's proposal
    (section head-sampling), extended to the length bounds.  w̄ - w counts
    the allowed heads inside F_{D+} ∩ F_{D-}, so w̄ >= w (correction 10).
``proposal="boley"``
    Boley et al.'s proposal in its corrected form (correction 11):
    sqrt(w1(D+) w2(D-)) with w1(D+) = sum_{j=m..M} C(|D+|, j) and
    w2(D-) = sum_{j=m..M} [C(|F|, j) - C(|D-|, j)]; w <= min(w1, w2) <=
    sqrt(w1 w2).  (As printed, w2 can be negative and sqrt(w1 w2) < w.)
``proposal="plain"``
    Beyond the paper, for records that share most of their features, such
    as features with their negated literals: w̄(D+, D-) = (W_a - W_{a-1})
    (|P+| + |P-|), with W_n = sum_{j=m..M} C(n, j), a = |F_{D+}| and P the
    record's plain features (all of them without negated literals).  W is
    convex (W_n - W_{n-1} = sum_{j=m..M} C(n-1, j-1) grows with n), so with
    d = |F_{D+} \\ F_{D-}| = a - k, w = W_a - W_{a-d} <= d (W_a - W_{a-1});
    and a literal of D+ missing from D- is a plain feature of D+ or the
    negation of a plain feature of D-, so d <= |P+| + |P-|.  D+ is drawn
    ∝ (W_a - W_{a-1}) (|D_T^-| |P+| + sum |P-|), then D- uniformly or ∝ |P-|
    in the proportions of D+'s two terms.  Two records that share all but a
    few literals get w̄ close to w, where the paper's W_a is many times w.

Outcomes the paper leaves open, as decided here:

* a tail with no negative record raises :class:`NoNegativeRecordsError`
  (every head has discriminativity 0);
* a tail with no positive record raises ``ValueError``;
* a tail for which every allowed head has discriminativity 0 (no positive
  record with m features, or every such record inside every negative one)
  raises :class:`NoDiscriminativeHeadError` before any proposal is drawn;
* ``max_proposals`` proposals without an accepted pair raise
  :class:`ProposalLimitError`.

The proposal of each tail (its cumulative weights) is built once and cached.
The paper's proposal is built in compiled code, many tails per call
(``corset._ext._heads.paper_supports`` and ``paper_samplers``): the same
arrays, bit for bit, as the Python build kept for Boley et al.'s proposal and
the test mutations.  The acceptance test counts k = |F_{D+} ∩ F_{D-}| on
per-record feature bitsets when they fit in ``_BITSET_BYTES``; that changes
no draw (k is the same integer).
"""
import itertools

import numpy as np

from .._ext import _heads, _weighted
from ..binarydata import _lists_cheaper
from .._validation import (
    _is_canonical,
    check_positive_int,
    check_seed,
    draw_seeds,
    raw_seed_halves,
)
from ..rules._check import _rows
from ._common import (cached_per_key, cached_per_tail, check_data, check_n, check_tail, new_tail_cache,
                      plain_feature_counts)
from ._errors import (
    NoDiscriminativeHeadError,
    NoNegativeRecordsError,
    ProposalLimitError,
    SamplingError,
)
from ._protocol import HeadMethodSampler
from ._weights import (
    head_counts,
    log_factorials,
    log_head_count_steps,
    log_head_counts,
    log_of,
    scale_log_weights,
)

PROPOSALS = ("paper", "boley", "plain")
METHODS = {"cftp": 0, "rejection": 1}

#: Default cap on the proposals examined for one pair.  With the paper's
#: proposal Z̄/Z is about 1 on every benchmark tail (docs/sampling.rst);
#: Boley et al.'s needs 10^6 to 10^271 and hits this cap.
DEFAULT_MAX_PROPOSALS = 10_000_000

# Test-only mutations of the kernels, which the exactness tests check they detect.
_MUTATIONS = {None: 0, "printed_draw": 1, "non_bounding": 2, "zero_weight": 3}

_STATUS_MESSAGES = {
    2: "a proposal weight fell below the target weight (the proposal does not bound w)",
    3: "the head draw met a pair of weight 0",
    4: "out of memory in the head-sampling kernel",
}


#: ``max_length`` for the kernel when heads have no maximum length.
_NO_MAXIMUM = int(np.iinfo(np.int64).max)


_CACHE_BYTES = 64 * 2**20
"""Memory for the per-tail proposals kept by default (see ``HeadSampler``'s ``cache_size``)."""

_BITSET_BYTES = 64 * 2**20
"""Largest per-record feature bitset table (n_records * ceil(n_features / 64) words) a sampler builds."""

_GAP_TABLE_ENTRIES = 2**20
"""Largest table of log1p(-W_k / W_a), per record size a and k < a, a sampler builds (8 MB)."""


def _bitsets_pay(data, n_words):
    """Are per-record feature bitsets of ``n_words`` words worth building for ``data``?

    Only when the table fits in ``_BITSET_BYTES`` and a record's bitset holds
    no more words than two records of average size hold features: the
    bitsets' users (k = |F_{D+} ∩ F_{D-}| in the acceptance test, a GH
    search's candidates F_{D+} \\ F_{D-}) AND the two records' words where
    the id lists would be merged or stamped, entry by entry.  On wide sparse
    data (text with tens of thousands of columns, a few dozen per record) the
    lists are the cheaper read and the table is nearly all zeros.  Either
    way gives the same integers, so the same draws.
    """
    return (data.n_records * n_words * 8 <= _BITSET_BYTES
            and not _lists_cheaper(n_words, data.record_features.ids.size, data.n_records))


def _csr_positions(indptr, rows):
    """Positions in a CSR ``ids`` array of the entries of ``rows`` (concatenated)."""
    starts = indptr[rows]
    lengths = indptr[np.asarray(rows) + 1] - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return offsets + np.arange(total)


def _build_error(status, key, min_head_length):
    """The error of a tail whose proposal cannot be built (a ``_heads.BUILD_*`` status)."""
    if status == _heads.BUILD_NO_POSITIVE:
        return ValueError(f"tail {key} has no positive record (no record carries all its labels)")
    if status == _heads.BUILD_NO_NEGATIVE:
        return NoNegativeRecordsError(
            f"tail {key} is carried by every record: it has no negative record, so every head "
            "has discriminativity 0")
    if status == _heads.BUILD_NO_ELIGIBLE:
        return NoDiscriminativeHeadError(
            f"tail {key}: no positive record has min_head_length={min_head_length} features")
    if status == _heads.BUILD_ALL_INSIDE:
        return NoDiscriminativeHeadError(
            f"tail {key}: every head of allowed length matches every negative record "
            "(discriminativity 0 everywhere)")
    raise AssertionError(f"no error for build status {status}")


INT32_MAX = int(np.iinfo(np.int32).max)


def check_head_lengths(min_head_length, max_head_length):
    """Validate the head length bounds; returns (m, M or None)."""
    m = check_positive_int(min_head_length, "min_head_length", minimum=1)
    M = check_positive_int(max_head_length, "max_head_length", minimum=1, allow_none=True)
    if M is not None and M < m:
        raise ValueError(f"max_head_length ({M}) must be >= min_head_length ({m})")
    # No head is longer than the features (int32 ids): a larger bound is that bound, and the compiled
    # samplers take it as a C integer (10**30 raised OverflowError there).
    return min(m, INT32_MAX), (None if M is None else min(M, INT32_MAX))


class HeadSampler(HeadMethodSampler):
    """Draw heads ∝ discriminativity for given tails (Algorithm 3).

    Parameters
    ----------
    data : BinaryData
    method : {"cftp", "rejection"}, default="cftp"
        Coupling from the past as in Algorithm 3, or plain rejection sampling
        from the same (bounding) proposal.  Both are exact.
    proposal : {"paper", "boley", "plain"}, default="paper"
        See the module docstring.
    min_head_length, max_head_length : int, default=1 and None
        Heads have between ``min_head_length`` and ``max_head_length``
        features (None: no maximum).  The weights, the proposal and the draw
        are derived for these bounds.
    max_proposals : int, default=10_000_000
        Proposals examined for one pair before :class:`ProposalLimitError`.
    cache_size : int or None, default=None
        Number of tails whose proposal is kept (least recently used dropped
        first).  None: as many as fit in about 64 MB (a proposal holds a few
        arrays over the records, about 32 bytes per record), at least 256;
        label spaces with thousands of tails (CAL500) otherwise rebuild
        proposals over and over.

    Attributes
    ----------
    last_stats_ : dict
        For the last call: ``n_trials`` (proposals examined until the first
        acceptance, per sample; its mean estimates Z̄/Z) and ``n_steps``
        (CFTP: T + 1 of the final run), int64 arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from corset import BinaryData
    >>> from corset.sampling import HeadSampler
    >>> X = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 1]])
    >>> Y = np.array([[1], [1], [0], [0]])
    >>> sampler = HeadSampler(BinaryData(X, Y), min_head_length=1, max_head_length=2)
    >>> heads = sampler.sample((0,), 4, random_state=0)
    >>> all(1 <= len(h) <= 2 for h in heads)
    True
    """

    def __init__(self, data, *, method="cftp", proposal="paper", min_head_length=1,
                 max_head_length=None, max_proposals=DEFAULT_MAX_PROPOSALS, cache_size=None,
                 _mutation=None):
        self.data = check_data(data)
        if method not in METHODS:
            raise ValueError(f"method must be one of {tuple(METHODS)}; got {method!r}")
        if proposal not in PROPOSALS:
            raise ValueError(f"proposal must be one of {PROPOSALS}; got {proposal!r}")
        if _mutation not in _MUTATIONS:
            raise ValueError(f"unknown mutation {_mutation!r}")
        self.method = method
        self.proposal = proposal
        self.min_head_length, self.max_head_length = check_head_lengths(min_head_length, max_head_length)
        self.max_proposals = check_positive_int(max_proposals, "max_proposals", minimum=1)
        if cache_size is None:
            cache_size = max(256, _CACHE_BYTES // (32 * max(self.data.n_records, 1)))
        self.cache_size = check_positive_int(cache_size, "cache_size", minimum=1)
        self._mutation = _mutation
        self._cache = new_tail_cache()
        self.last_stats_ = None
        # Heads are drawn inside a record's features, so W_n is read for n up to the widest record
        # (a record's size, or that of two records' common features), not up to |F|: the exact
        # table costs O(n^2) bit operations, seconds for 10^5 items with unbounded heads.
        widths = np.asarray(data.record_n_features)
        n_max = int(widths.max()) if widths.size else 0
        self._log_w = log_head_counts(n_max, self.min_head_length, self.max_head_length)
        self._log_factorial = log_factorials(max(n_max, 1))
        self._feature_indptr = data.record_features.indptr
        self._feature_ids = data.record_features.ids
        if self._feature_ids.size == 0:
            self._feature_ids = np.zeros(1, dtype=np.int32)  # a valid pointer; never read
        # The compiled build: the paper's proposal, unmutated (the "plain" proposal is made from it).
        self._compiled = proposal in ("paper", "plain") and _mutation is None
        # Row n: the scaled weights exp(log W_a - log W_n), a = 0..n (see _heads.paper_samplers),
        # made for the widths n of the widest positive records met (at most max |F_D| rows).
        self._scaled_rows = [None] * (n_max + 1)
        self._feature_bits = None
        self._gap = None
        self._n_words = max(1, -(-data.n_features // 64))   # a record's features as a bitset of |F| bits
        self._use_bits = _bitsets_pay(data, self._n_words)

    def _gap_table(self):
        """``(log_gap, gap_offset)`` of ``_heads.log_gap_table`` for the data's record sizes (built once).

        ``(None, None)`` past ``_GAP_TABLE_ENTRIES`` doubles (the kernels then
        compute the term).
        """
        if self._gap is None:
            sizes = np.unique(np.asarray(self.data.record_n_features, dtype=np.int64))
            if int(sizes.sum()) <= _GAP_TABLE_ENTRIES:
                self._gap = _heads.log_gap_table(self._log_w, sizes)
            else:
                self._gap = (None, None)
        return self._gap

    def _bits(self):
        """The per-record feature bitsets (built on first use), or None when they would not fit."""
        if self._feature_bits is None and self._use_bits:
            self._feature_bits = _heads.feature_bitsets(self._feature_indptr, self._feature_ids, self._n_words)
        return self._feature_bits

    # -- the proposal of one tail ---------------------------------------------
    def pair_sampler(self, tail):
        """The proposal of Algorithm 3 for ``tail``, as a ``corset._ext._heads.PairSampler``.

        Other kernels cimport ``cftp_pair`` and draw seed pairs from it (see
        ``corset/_ext/_heads.pxd``).  Raises the errors listed in the module
        docstring.
        """
        return cached_per_tail(self._cache, self.cache_size, self.data, tail, self._build)

    def _build(self, tail, key):
        if not self._compiled:
            return self._build_python(tail, key)
        status, samplers = self._build_paper([key])
        if status[0] == _heads.BUILD_OK:
            return samplers[0]
        if status[0] == _heads.BUILD_NOT_MONOTONE:
            return self._build_python(tail, key)
        raise _build_error(status[0], key, self.min_head_length)

    def release_caches(self):
        """Drop the cached proposals (rebuilt on use: the same draws)."""
        self._cache = new_tail_cache()

    def _build_paper(self, keys):
        """The paper's proposals of the tails ``keys`` (sorted tuples), compiled, in two calls.

        Returns ``(status, samplers)``: per tail a ``_heads.BUILD_*`` code and
        its ``PairSampler`` (None unless BUILD_OK).
        """
        data = self.data
        tail_indptr = np.fromiter(itertools.accumulate(map(len, keys), initial=0), dtype=np.int64,
                                  count=len(keys) + 1)
        tail_ids = np.fromiter(itertools.chain.from_iterable(keys), dtype=np.int32, count=int(tail_indptr[-1]))
        labels = data.label_records
        status, pos_indptr, pos_ids, widest = _heads.paper_supports(
            labels.indptr, labels.ids, tail_indptr, tail_ids, self._feature_indptr, self._feature_ids,
            data.feature_counts, self._log_w)
        rows = self._scaled_rows
        log_w = self._log_w
        for n in set(widest[status == _heads.BUILD_OK].tolist()):
            if rows[n] is None:
                # As scale_log_weights computes them: exp(log w - max log w), the
                # maximum being log W_n (checked by paper_supports).
                with np.errstate(under="ignore"):
                    rows[n] = np.exp(log_w[:n + 1] - float(log_w[n]))
        samplers = _heads.paper_samplers(status, pos_indptr, pos_ids, widest, rows, self._feature_indptr,
                                         self._feature_ids, log_w, self._bits(), self._n_words,
                                         self.max_proposals, *self._gap_table())
        if self.proposal == "plain":
            samplers = [None if sampler is None else self._plain_from_paper(sampler) for sampler in samplers]
        return status.tolist(), samplers

    def _plain_from_paper(self, paper):
        """The "plain" proposal of a tail from its compiled paper proposal (same positive records,
        checked by the same build)."""
        arrays = paper.arrays   # the negatives made on demand: the records outside the positives
        positives, negatives = np.asarray(arrays[0]), np.asarray(arrays[3])
        a = np.asarray(self.data.record_n_features, dtype=np.int64)[positives]
        log_step, draw_log_weight, plain, neg_cumulative, neg_last = self._plain_proposal(a, positives, negatives)
        pos_weights, _ = scale_log_weights(draw_log_weight)
        pos_cumulative, pos_last = _weighted.cumulative(pos_weights)
        sampler = _heads.PairSampler(
            positives, pos_cumulative, np.where(np.isfinite(log_step), log_step, 0.0), pos_last,
            negatives, neg_cumulative, None, neg_last, self._feature_indptr, self._feature_ids, self._log_w,
            self.max_proposals, _MUTATIONS[None], self._bits(), self._n_words, plain=plain)
        return sampler

    def _build_python(self, tail, key):
        """The proposal of ``tail`` built with numpy: every proposal, every mutation."""
        data = self.data
        m, M = self.min_head_length, self.max_head_length
        positives = np.ascontiguousarray(data.tail_support(tail), dtype=np.int32)
        if positives.size == 0:
            raise _build_error(_heads.BUILD_NO_POSITIVE, key, m)
        is_positive = np.zeros(data.n_records, dtype=bool)
        is_positive[positives] = True
        negatives = np.flatnonzero(~is_positive).astype(np.int32)
        if negatives.size == 0:
            raise _build_error(_heads.BUILD_NO_NEGATIVE, key, m)
        a = np.asarray(data.record_n_features, dtype=np.int64)[positives]
        log_w1 = self._log_w[a]
        eligible = np.isfinite(log_w1)
        if not eligible.any():
            raise _build_error(_heads.BUILD_NO_ELIGIBLE, key, m)
        # Z = 0 iff the features of every eligible positive record lie in every negative one.
        # Feature counts over the negatives, from the (usually few) positives.
        features = data.record_features
        negative_counts = data.feature_counts - np.bincount(
            features.ids[_csr_positions(features.indptr, positives)], minlength=data.n_features)
        outside_every_negative = negative_counts < negatives.size
        if not outside_every_negative[features.ids[_csr_positions(features.indptr, positives[eligible])]].any():
            raise _build_error(_heads.BUILD_ALL_INSIDE, key, m)

        neg_cumulative = neg_log_proposal = plain = draw_log_weight = None
        neg_last = negatives.size - 1
        if self._mutation != "non_bounding" and self.proposal == "plain":
            pos_log_proposal, draw_log_weight, plain, neg_cumulative, neg_last = self._plain_proposal(
                a, positives, negatives)
        elif self._mutation == "non_bounding":
            # Test-only: w̄ = 1 for every pair, used as if it bounded w.
            pos_log_proposal = np.zeros(positives.size)
        elif self.proposal == "paper":
            pos_log_proposal = log_w1
        else:
            pos_log_proposal = 0.5 * log_w1
            neg_log_proposal = self._boley_negative_log_weights(negatives)
            neg_weights, _ = scale_log_weights(neg_log_proposal)
            neg_cumulative, neg_last = _weighted.cumulative(neg_weights)
            neg_log_proposal = np.where(np.isfinite(neg_log_proposal), neg_log_proposal, 0.0)
        pos_weights, _ = scale_log_weights(pos_log_proposal if draw_log_weight is None else draw_log_weight)
        pos_cumulative, pos_last = _weighted.cumulative(pos_weights)
        # Records of proposal weight 0 are never drawn; a finite placeholder keeps
        # their (unused) log factor out of any arithmetic.
        pos_log_proposal = np.ascontiguousarray(np.where(np.isfinite(pos_log_proposal), pos_log_proposal, 0.0))
        return _heads.PairSampler(
            positives, pos_cumulative, pos_log_proposal, pos_last,
            negatives, neg_cumulative, neg_log_proposal, neg_last,
            self._feature_indptr, self._feature_ids, self._log_w,
            self.max_proposals, _MUTATIONS[self._mutation], self._bits(), self._n_words, plain=plain)

    def _plain_counts(self):
        """|P_D| of every record as float64 (:func:`plain_feature_counts`, built once)."""
        if getattr(self, "_plain", None) is None:
            self._plain = plain_feature_counts(self.data).astype(np.float64)
        return self._plain

    def _plain_proposal(self, a, positives, negatives):
        """The "plain" proposal of one tail (see the module docstring): ``(pos_log_proposal,
        draw_log_weight, (pos_uniform, pos_plain, neg_plain), neg_cumulative, neg_last)``.

        ``pos_log_proposal``: log(W_a - W_{a-1}) per positive record, the factor the kernel
        reads; ``draw_log_weight``: the log weight D+ is drawn with, that factor times D+'s
        mass over the negative records, |D_T^-| |P+| + sum |P-|.
        """
        plain = self._plain_counts()
        pos_plain = np.ascontiguousarray(plain[positives])
        neg_plain = np.ascontiguousarray(plain[negatives])
        log_step = log_head_count_steps(self._log_w, a)   # -inf where W_a = 0: never drawn
        n_neg, total = float(negatives.size), float(neg_plain.sum())
        mass = n_neg * pos_plain + total
        with np.errstate(divide="ignore"):
            pos_log_weight = log_step + np.log(mass)
        pos_uniform = np.divide(n_neg * pos_plain, mass, out=np.ones_like(mass), where=mass > 0)
        if total > 0:
            neg_cumulative, neg_last = _weighted.cumulative(neg_plain)
        else:   # no negative record has a plain feature: the uniform branch only (pos_uniform is 1)
            neg_cumulative, neg_last = _weighted.cumulative(np.ones(negatives.size))[0], negatives.size - 1
        return log_step, pos_log_weight, (pos_uniform, pos_plain, neg_plain), neg_cumulative, neg_last

    def _boley_negative_log_weights(self, negatives):
        """½ log w2(D-) = ½ log sum_{j=m..M} [C(|F|, j) - C(|D-|, j)], from exact integers."""
        W = head_counts(self.data.n_features, self.min_head_length, self.max_head_length)
        total = W[self.data.n_features]
        b = np.asarray(self.data.record_n_features, dtype=np.int64)[negatives]
        values = {int(v): 0.5 * log_of(total - W[int(v)]) for v in np.unique(b)}
        return np.array([values[int(v)] for v in b], dtype=np.float64)

    # -- drawing ---------------------------------------------------------------
    def _run(self, tail, n, random_state, draw_heads):
        n = check_n(n)
        rng = check_seed(random_state)
        sampler = self.pair_sampler(tail)
        seeds = draw_seeds(rng, n)  # a fresh, contiguous uint64 array
        status, failed_at, pos, neg, trials, steps, indptr, ids = _heads.sample(
            sampler, seeds, METHODS[self.method], draw_heads, self.min_head_length,
            _NO_MAXIMUM if self.max_head_length is None else self.max_head_length,
            self._log_factorial, _MUTATIONS[self._mutation])
        self.last_stats_ = {"n_trials": trials, "n_steps": steps}
        if status == 1:
            raise ProposalLimitError(
                f"tail {tuple(check_tail(tail, self.data).tolist())}: no pair accepted after "
                f"max_proposals={self.max_proposals} proposals (sample {failed_at} of {n}, "
                f"proposal={self.proposal!r}); the expected number is Z̄/Z, see "
                "corset.sampling.log_proposal_ratio")
        if status != 0:
            raise SamplingError(_STATUS_MESSAGES.get(status, f"head-sampling kernel status {status}"))
        return sampler, pos, neg, indptr, ids

    def sample(self, tail, n, random_state=None):
        """``n`` heads for ``tail``, ∝ discriminativity, as sorted tuples of feature ids.

        Same ``random_state`` (an int), same heads.
        """
        _, _, _, indptr, ids = self._run(tail, n, random_state, True)
        return _rows(indptr, ids)

    def sample_pairs(self, tail, n, random_state=None):
        """``n`` pairs (D+, D-) ∝ w (correction 9), as two int arrays of record ids."""
        sampler, pos, neg, _, _ = self._run(tail, n, random_state, False)
        records = sampler.arrays
        return np.asarray(records[0])[pos], np.asarray(records[3])[neg]

    def sample_pairs_many(self, tails, counts, random_state=None, *, _canonical=False, _flat=False):
        """``counts[i]`` pairs ∝ w for each tail of ``tails``, in one compiled call.

        The same pairs as calling :meth:`sample_pairs` tail by tail with the
        same ``random_state`` (seeds are drawn tail by tail; a tail whose
        proposal cannot be built draws none), and the same state of
        ``random_state`` and of the proposal cache afterwards, also when an
        argument error or a tail with no positive record (``ValueError``)
        stops the call: the tails before it are then done as that loop would
        have done them.  The missing proposals are built together
        (:meth:`_build_paper`) and the seeds of all the tails drawn at once.

        Returns
        -------
        pairs : list of (ndarray, ndarray) or None
            Per tail, the record ids of D+ and D- (int32), or None on error.
        errors : list of (SamplingError or None)
            Per tail, the error of its proposal or of its draws
            (:class:`ProposalLimitError` when ``max_proposals`` was reached).
        """
        # ``_flat`` (CORSET-GH's set-up, which reads every pair in one array): ``pairs`` is then
        # ``(n_pairs, pos, neg)``, each tail's number of pairs (0 on error) and every pair, tail
        # after tail, as the batch kernel wrote them.
        rng = check_seed(random_state)
        data = self.data
        n_labels = data.n_labels
        if not _canonical and len(counts) != len(tails):
            # zip() would leave the tails past the counts without pairs and without an error.
            raise ValueError(f"counts must hold one count per tail ({len(tails)}); got {len(counts)}")
        errors = [None] * len(tails)
        # Arguments first, in order; the first bad one stops the loop there.  ``_canonical``: the
        # caller's tails are distinct canonical tuples and its counts ints >= 0 (CORSET-GH's own).
        keys, ns = [], []
        stop = None
        if _canonical:
            keys, ns = list(tails), list(counts)
        else:
            for tail, n in zip(tails, counts):
                try:
                    if type(n) is not int or n < 0:
                        n = check_n(n)
                    if not (type(tail) is tuple and tail and _is_canonical(tail, n_labels)):
                        tail = tuple(check_tail(tail, data).tolist())
                except (TypeError, ValueError) as exc:
                    stop = exc
                    break
                keys.append(tail)
                ns.append(n)
        # Every proposal the loop would build, built at once.  The cached ones
        # are held too: the loop's own insertions may evict one before its turn.
        cache = self._cache
        known, missing = {}, []
        for key in keys:
            if key not in known:
                value = cache.get(key)
                known[key] = value
                if value is None:
                    missing.append(key)
        if missing:
            # A BUILD_* status where the build failed (the error is made at the tail's turn).
            status, built = self._build_paper(missing) if self._compiled else ([None] * len(missing),) * 2
            for key, st, sampler in zip(missing, status, built):
                if st == _heads.BUILD_OK:
                    known[key] = sampler
                elif st is None or st == _heads.BUILD_NOT_MONOTONE:
                    try:
                        known[key] = self._build_python(np.array(key, dtype=np.int32), key)
                    except (SamplingError, ValueError) as exc:
                        known[key] = exc
                else:
                    known[key] = st
        # The loop's cache updates, in order, through the same LRU helper; a
        # miss takes the proposal built above.
        def prebuilt(tail, key):
            value = known[key]
            if type(value) is _heads.PairSampler:
                return value
            raise value if isinstance(value, Exception) else _build_error(value, key, self.min_head_length)

        samplers, slots, seed_counts = [], [], []
        for i, key in enumerate(keys):
            try:   # every key is canonical here
                sampler = cached_per_key(cache, self.cache_size, key, prebuilt)
            except SamplingError as exc:
                errors[i] = exc
                continue
            except ValueError as exc:   # a tail with no positive record stops the loop
                stop = exc
                break
            samplers.append(sampler)
            slots.append(i)
            seed_counts.append(ns[i])
        # Every seed from one read of the generator (the halves draw_seeds would read, tail by tail).
        indptr = np.fromiter(itertools.accumulate(seed_counts, initial=0), dtype=np.int64,
                             count=len(seed_counts) + 1)
        raw = raw_seed_halves(rng, 2 * int(indptr[-1]))
        if stop is not None:
            raise stop
        status, pos, neg = _heads.sample_pairs_batch(samplers, indptr, raw, METHODS[self.method], True)
        pairs = [None] * len(tails)
        bounds = indptr.tolist()
        status = status.tolist()
        if _flat:
            n_pairs = [0] * len(tails)
            for k, i in enumerate(slots):
                if status[k] == 0:
                    n_pairs[i] = bounds[k + 1] - bounds[k]
            pos, neg = pos[:bounds[-1]], neg[:bounds[-1]]
            if any(status):   # a tail's draws failed: its pairs are left out
                keep = np.repeat(np.asarray(status) == 0, np.diff(indptr))
                pos, neg = pos[keep], neg[keep]
            pairs = (n_pairs, pos, neg)
        for k, i in enumerate(slots):
            if status[k] == 0:
                if not _flat:
                    pairs[i] = (pos[bounds[k]:bounds[k + 1]], neg[bounds[k]:bounds[k + 1]])
            elif status[k] == 1:
                errors[i] = ProposalLimitError(
                    f"tail {tuple(check_tail(tails[i], self.data).tolist())}: no pair accepted after "
                    f"max_proposals={self.max_proposals} proposals (proposal={self.proposal!r}); the "
                    "expected number is Z̄/Z, see corset.sampling.log_proposal_ratio")
            else:
                errors[i] = SamplingError(_STATUS_MESSAGES.get(status[k], f"head-sampling kernel status {status[k]}"))
        return pairs, errors

    def draw_pair(self, tail, random_state=None):
        """One pair (D+, D-) ∝ w, as two record ids: the seed pair of CORSET-GH."""
        pos, neg = self.sample_pairs(tail, 1, random_state)
        return int(pos[0]), int(neg[0])
