"""Head sampling by discriminativity (Algorithm 3 of the paper): the kernels.

Target.  For a tail T with positive records D_T^+ and negative records
D_T^-, a head H of length in [m, M] is drawn with probability proportional
to its discriminativity (eq. sampling-disc), |D^+[H]| * |D^- \\ D^-[H]|.
Two-stage form (correction 9): a pair (D+, D-) ∈ D_T^+ × D_T^-
with weight

    w(D+, D-) = sum_{j=m..M} [C(|D+|, j) - C(|D+ ∩ D-|, j)] = W_a - W_k,

the number of heads H ⊆ F_{D+} of allowed length with H ⊄ F_{D-}
(a = |F_{D+}|, k = |F_{D+} ∩ F_{D-}|, W_n = sum_{j=m..M} C(n, j)); then H
uniform over those heads.

Pair stage.  Coupling from the past (Algorithm 3) for the independent
Metropolis-Hastings chain with proposal q(D+, D-) ∝ w̄(D+, D-) and
acceptance min(1, r(y) / r(x)), r = w / w̄.  Both proposals offered bound
the target, w̄ >= w (corrections 10 and 11), so r <= 1 and the empty state ⊥
(ratio w̄/w := 1, the largest) is the state from which moves are hardest to
accept: a proposal accepted from ⊥ is accepted from every state, all chains
coalesce there, and CFTP's output is exact.  Started from ⊥, the first
acceptance is a rejection-sampling draw (exactly ∝ w) and the MH steps
after it preserve w.

* The acceptance test is strict, log(u) < log r(y) - log r(x) with u in
  (0, 1): a zero-weight pair (log r = -inf) is never accepted (correction 10).
* Every time step t draws its proposal and uniform from its own generator
  state, derived from the call's seed and t, so doubling T re-uses the
  randomness of the steps already simulated, as CFTP requires.  A restart
  examines only its new (older) steps from ⊥: the old steps were already seen
  to reject from ⊥, so the chain would reach them in state ⊥ and fail again.
  That shortcut gives exactly the output of the full re-simulation.
* k = |F_{D+} ∩ F_{D-}| is counted on per-record feature bitsets (AND and
  popcount over the words both records span) when the sampler has them,
  else by merging the two sorted feature lists: the same integer either way.
* Log space throughout (correction 12): log r(y) = (log W_a - log q+(D+))
  + log1p(-exp(log W_k - log W_a)) - log q-(D-); no product of weights is
  ever formed.  The tables log W_n are computed from exact integers.

Head stage.  Given the pair, with d = a - k features of D+ outside D-:
j ~ C(a, j) - C(k, j) on [m, min(M, a)], then the number i >= 1 of features
taken from F_{D+} \\ F_{D-} ~ C(d, i) C(k, j - i) (Vandermonde: these sum to
C(a, j) - C(k, j)), then uniform i- and (j - i)-subsets by selection sampling
(which emits them in sorted order).  For a <= 62 the weights are exact
uint64 integers and the draws exact; beyond, they are computed from log n!
(relative error about 1e-13, far below what any test can see).  With m <= 1
and no effective maximum, the faster draw of Algorithm 3's last line (H1 a
non-empty uniform subset of F_{D+} \\ F_{D-}, H2 a uniform subset of the
intersection) is the same distribution and is used.
"""
import numpy as np

from corset._ext._intersect import bitsets as _intersect_bitsets

cimport numpy as cnp
from libc.math cimport INFINITY, exp, log, log1p
from libc.stdlib cimport calloc, free, malloc

from corset._ext._typedefs cimport index_t, int64_t, ptr_t, uint8_t, uint64_t
from corset._ext._random cimport rng_below, rng_bit, rng_next, rng_uniform, rng_uniform_open
from corset._ext._intersect cimport common_bits, intersect_count_ptr, support_into_ptr
from corset._ext._weighted cimport cumulative_draw, cumulative_fill

# Proposal ratios above this (in log) are not rounding but a proposal that
# does not bound the target.
cdef double BOUND_TOLERANCE = 1e-9

# C(n, j) for n <= 62 is below 2^62, and so is every sum of such terms used
# below: exact uint64 arithmetic.
cdef enum:
    EXACT_MAX = 62
cdef uint64_t _binom[63][63]


cdef void _fill_binomials() noexcept:
    cdef Py_ssize_t n, j
    for n in range(EXACT_MAX + 1):
        for j in range(EXACT_MAX + 1):
            _binom[n][j] = 0
        _binom[n][0] = 1
        for j in range(1, n + 1):
            _binom[n][j] = _binom[n - 1][j - 1] + _binom[n - 1][j]


_fill_binomials()
cnp.import_array()


# -- pair stage ---------------------------------------------------------------
cdef inline uint64_t _step_state(uint64_t seed, int64_t t) noexcept nogil:
    """The generator state of time step t: a SplitMix64 output keyed by (seed, t).

    seed ^ t*K is distinct for every t (K odd), and SplitMix64's output
    function is a bijection, so every step starts from its own state.
    """
    cdef uint64_t s = seed ^ (<uint64_t>t * <uint64_t>0xD1B54A32D192ED03ULL)
    return rng_next(&s)


cdef inline void _propose(const PairProposal* p, uint64_t* state,
                          Py_ssize_t* i_pos, Py_ssize_t* i_neg) noexcept nogil:
    i_pos[0] = cumulative_draw(p.pos_cumulative, p.n_pos, p.pos_last, state)
    if p.pos_uniform != NULL:
        # The "plain" proposal: D- uniform or ∝ |P-|, as D+'s share of each in its bound says.
        if rng_uniform_open(state) <= p.pos_uniform[i_pos[0]]:
            i_neg[0] = <Py_ssize_t>rng_below(state, <uint64_t>p.n_neg)
        else:
            i_neg[0] = cumulative_draw(p.neg_cumulative, p.n_neg, p.neg_last, state)
    elif p.neg_cumulative == NULL:
        i_neg[0] = <Py_ssize_t>rng_below(state, <uint64_t>p.n_neg)
    else:
        i_neg[0] = cumulative_draw(p.neg_cumulative, p.n_neg, p.neg_last, state)


cdef inline Py_ssize_t _common_features(const PairProposal* p, index_t r_pos, ptr_t s_pos, Py_ssize_t a,
                                        index_t r_neg, ptr_t s_neg, Py_ssize_t b) noexcept nogil:
    """k = |F_{D+} ∩ F_{D-}|: popcount of the AND of the two bitsets, or a merge of the sorted lists."""
    cdef const uint64_t* x
    cdef const uint64_t* y
    cdef Py_ssize_t lo, hi
    if p.feature_bits == NULL:
        return intersect_count_ptr(p.feature_ids + s_pos, a, p.feature_ids + s_neg, b)
    if a == 0 or b == 0:
        return 0
    # A common feature lies in a word both records' (sorted) features span.
    lo = p.feature_ids[s_pos] if p.feature_ids[s_pos] > p.feature_ids[s_neg] else p.feature_ids[s_neg]
    hi = (p.feature_ids[s_pos + a - 1] if p.feature_ids[s_pos + a - 1] < p.feature_ids[s_neg + b - 1]
          else p.feature_ids[s_neg + b - 1])
    x = p.feature_bits + <Py_ssize_t>r_pos * p.n_words
    y = p.feature_bits + <Py_ssize_t>r_neg * p.n_words
    return common_bits(x, y, lo >> 6, hi >> 6)


cdef inline double _log_gap(const double* log_w, Py_ssize_t a, Py_ssize_t k) noexcept nogil:
    """log1p(-W_k / W_a) = log1p(-exp(log W_k - log W_a)), for k < a."""
    return log1p(-exp(log_w[k] - log_w[a]))


def log_gap_table(const double[::1] log_w, const int64_t[::1] sizes):
    """``(log_gap, gap_offset)``: :func:`_log_gap` for every record size a in ``sizes`` and k < a.

    ``log_gap[gap_offset[a] + k]`` = log1p(-exp(log W_k - log W_a)) for 0 <= k < a,
    computed by the acceptance ratio's own expression (the same doubles);
    ``gap_offset`` has one entry per size 0..len(log_w) - 1, -1 for sizes not in
    ``sizes`` (and for sizes of weight 0, never accepted).  Every seed-pair
    proposal of CORSET-GH needs this term, with k = |F_{D+} ∩ F_{D-}| and
    a = |F_{D+}|; reading it saves a log1p and an exp per proposal.
    """
    cdef Py_ssize_t n = log_w.shape[0], i, a, k, total = 0
    offsets = np.full(max(n, 1), -1, dtype=np.int64)
    cdef int64_t[::1] off = offsets
    for i in range(sizes.shape[0]):
        a = sizes[i]
        if 0 < a < n and off[a] < 0 and log_w[a] > -INFINITY:
            off[a] = total
            total += a
    table = np.empty(max(total, 1), dtype=np.float64)
    cdef double[::1] t = table
    with nogil:
        for a in range(n):
            if off[a] >= 0:
                for k in range(a):
                    t[off[a] + k] = _log_gap(&log_w[0], a, k)
    return table, offsets


cdef double log_acceptance(const PairProposal* p, Py_ssize_t i_pos, Py_ssize_t i_neg) noexcept nogil:
    """log r = log(w(D+, D-) / w̄(D+, D-)); -inf for a pair of weight 0."""
    cdef index_t r_pos = p.pos_records[i_pos], r_neg = neg_record(p, i_neg)
    cdef ptr_t s_pos = p.feature_indptr[r_pos], s_neg = p.feature_indptr[r_neg]
    cdef Py_ssize_t a = p.feature_indptr[r_pos + 1] - s_pos
    cdef Py_ssize_t b = p.feature_indptr[r_neg + 1] - s_neg
    cdef Py_ssize_t k = _common_features(p, r_pos, s_pos, a, r_neg, s_neg, b)
    cdef double log_ratio, log_proposal
    if k >= a:
        # F_{D+} ⊆ F_{D-}: every head of D+ also matches D-, w = 0.
        if p.mutation == MUTATION_ZERO_WEIGHT:
            return 0.0
        return -INFINITY
    # log(W_a - W_k) - log q+ - log q-, with log(W_a - W_k) = log W_a + log1p(-W_k / W_a),
    # the last term read from the table when it has this record size.
    if p.pos_log_proposal != NULL:
        log_proposal = p.pos_log_proposal[i_pos]
    else:
        log_proposal = p.log_w[a] if p.log_w[a] != -INFINITY else 0.0
    if p.log_gap != NULL and p.gap_offset[a] >= 0:
        log_ratio = (p.log_w[a] - log_proposal) + p.log_gap[p.gap_offset[a] + k]
    else:
        log_ratio = (p.log_w[a] - log_proposal) + _log_gap(p.log_w, a, k)
    if p.pos_uniform != NULL:
        # w̄ = (W_a - W_{a-1}) (|P+| + |P-|): positive here, since D+ and D- differ (k < a).
        log_ratio -= log(p.pos_plain[i_pos] + p.neg_plain[i_neg])
    elif p.neg_log_proposal != NULL:
        log_ratio -= p.neg_log_proposal[i_neg]
    return log_ratio


cdef int cftp_pair(const PairProposal* p, uint64_t seed, Py_ssize_t* i_pos, Py_ssize_t* i_neg,
                   PairStats* stats) noexcept nogil:
    """One pair (D+, D-) ∝ w by coupling from the past (Algorithm 3).

    Time steps t = T, ..., 0 with T = 4, 8, 16, ... (the paper's 2^i, i >= 2).
    Returns HEADS_OK, or HEADS_PROPOSAL_LIMIT once ``max_proposals`` proposals
    were examined without coalescence, or HEADS_NOT_BOUNDING.
    """
    cdef int64_t T = 4, lowest_new = 0, t, s, trials = 0
    cdef uint64_t state
    cdef Py_ssize_t y_pos, y_neg, x_pos, x_neg
    cdef double lr_y, lr_x
    cdef bint check = p.mutation != MUTATION_NON_BOUNDING
    while True:
        # The steps new to this run, T down to lowest_new (oldest first),
        # from the state ⊥ (ratio 1).
        t = T
        while t >= lowest_new:
            state = _step_state(seed, t)
            _propose(p, &state, &y_pos, &y_neg)
            lr_y = log_acceptance(p, y_pos, y_neg)
            trials += 1
            if check and lr_y > BOUND_TOLERANCE:
                return HEADS_NOT_BOUNDING
            if log(rng_uniform_open(&state)) < lr_y:
                # Coalescence at step t: every chain is at y.  Run the MH
                # chain to time 0 with the same steps' randomness.
                x_pos = y_pos
                x_neg = y_neg
                lr_x = lr_y
                for s in range(t - 1, -1, -1):
                    state = _step_state(seed, s)
                    _propose(p, &state, &y_pos, &y_neg)
                    lr_y = log_acceptance(p, y_pos, y_neg)
                    if check and lr_y > BOUND_TOLERANCE:
                        return HEADS_NOT_BOUNDING
                    if log(rng_uniform_open(&state)) < lr_y - lr_x:
                        x_pos = y_pos
                        x_neg = y_neg
                        lr_x = lr_y
                i_pos[0] = x_pos
                i_neg[0] = x_neg
                stats.n_trials = trials
                stats.n_steps = T + 1
                return HEADS_OK
            if trials >= p.max_proposals:
                stats.n_trials = trials
                stats.n_steps = T + 1
                return HEADS_PROPOSAL_LIMIT
            t -= 1
        # Restart from twice as far in the past; steps <= T keep their randomness.
        lowest_new = T + 1
        T *= 2


cdef int rejection_pair(const PairProposal* p, uint64_t seed, Py_ssize_t* i_pos, Py_ssize_t* i_neg,
                        PairStats* stats) noexcept nogil:
    """One pair ∝ w by plain rejection sampling from the bounding proposal."""
    cdef uint64_t state = seed
    cdef int64_t trials = 0
    cdef Py_ssize_t y_pos, y_neg
    cdef double lr_y
    cdef bint check = p.mutation != MUTATION_NON_BOUNDING
    while trials < p.max_proposals:
        _propose(p, &state, &y_pos, &y_neg)
        lr_y = log_acceptance(p, y_pos, y_neg)
        trials += 1
        if check and lr_y > BOUND_TOLERANCE:
            return HEADS_NOT_BOUNDING
        if log(rng_uniform_open(&state)) < lr_y:
            i_pos[0] = y_pos
            i_neg[0] = y_neg
            stats.n_trials = trials
            stats.n_steps = trials
            return HEADS_OK
    stats.n_trials = trials
    stats.n_steps = trials
    return HEADS_PROPOSAL_LIMIT


# -- head stage ---------------------------------------------------------------
cdef inline double _log_binomial(const double* lf, Py_ssize_t n, Py_ssize_t r) noexcept nogil:
    if r < 0 or r > n:
        return -INFINITY
    return lf[n] - lf[r] - lf[n - r]


cdef Py_ssize_t _draw_log_weighted(const double* log_weights, Py_ssize_t n, double* scratch,
                                   uint64_t* state) noexcept nogil:
    """An index ∝ exp(log_weights) (max-shifted); -1 if every weight is 0."""
    cdef double top = -INFINITY, total = 0.0, x
    cdef Py_ssize_t i, last = -1
    for i in range(n):
        if log_weights[i] > top:
            top = log_weights[i]
    if top == -INFINITY:
        return -1
    for i in range(n):
        scratch[i] = exp(log_weights[i] - top) if log_weights[i] > -INFINITY else 0.0
        total += scratch[i]
        if scratch[i] > 0.0:
            last = i
    x = rng_uniform(state) * total
    for i in range(n):
        if scratch[i] > 0.0:
            if x < scratch[i]:
                return i
            x -= scratch[i]
    return last


cdef Py_ssize_t draw_head(const index_t* pos_features, Py_ssize_t a,
                          const index_t* neg_features, Py_ssize_t b,
                          const HeadSpace* space, uint64_t* state,
                          uint8_t* flags, double* work, index_t* out) noexcept nogil:
    """A head uniform over {H ⊆ F_{D+} : m <= |H| <= M, H ⊄ F_{D-}}, sorted, into ``out``.

    ``flags`` needs ``a`` bytes, ``work`` 2 * (a + 1) doubles, ``out`` min(M, a)
    ids.  Returns the head's length, or -1 for a pair with no such head.
    """
    cdef Py_ssize_t p, q = 0, k = 0, d, j, i, lo_i, hi_i, n_out = 0, jj, n_j
    cdef int64_t m = space.min_length if space.min_length > 1 else 1
    cdef int64_t M = space.max_length if space.max_length < a else a
    cdef uint64_t total, r, v
    cdef int64_t need_d, rem_d, need_k, rem_k
    cdef bint any_chosen
    # flags bit 0: the feature is also in D-; bit 1: chosen.
    for p in range(a):
        while q < b and neg_features[q] < pos_features[p]:
            q += 1
        flags[p] = 1 if (q < b and neg_features[q] == pos_features[p]) else 0
        k += flags[p]
    d = a - k
    if d == 0:
        if space.mutation != MUTATION_ZERO_WEIGHT:
            return -1
        # Mutated run only: a zero-weight pair was accepted; draw ignoring D-.
        for p in range(a):
            flags[p] = 0
        k = 0
        d = a
    if M < m:
        return -1

    if space.mutation == MUTATION_PRINTED_DRAW or (m <= 1 and M >= a):
        # Algorithm 3, last line: H1 uniform non-empty ⊆ F_{D+} \ F_{D-}, H2 uniform ⊆ intersection.
        any_chosen = False
        while not any_chosen:
            for p in range(a):
                if not (flags[p] & 1):
                    if rng_bit(state):
                        flags[p] |= 2
                        any_chosen = True
                    else:
                        flags[p] &= 1
        for p in range(a):
            if (flags[p] & 1) and rng_bit(state):
                flags[p] |= 2
        for p in range(a):
            if flags[p] & 2:
                out[n_out] = pos_features[p]
                n_out += 1
        return n_out

    # General bounds: j ∝ C(a, j) - C(k, j), then i ∝ C(d, i) C(k, j - i), i >= 1.
    n_j = M - m + 1
    if a <= EXACT_MAX:
        total = 0
        for j in range(m, M + 1):
            total += _binom[a][j] - _binom[k][j]
        r = rng_below(state, total)
        j = M
        for jj in range(m, M + 1):
            v = _binom[a][jj] - _binom[k][jj]
            if r < v:
                j = jj
                break
            r -= v
        lo_i = j - k if j - k > 1 else 1
        hi_i = j if j < d else d
        total = 0
        for i in range(lo_i, hi_i + 1):
            total += _binom[d][i] * _binom[k][j - i]
        r = rng_below(state, total)
        i = hi_i
        for jj in range(lo_i, hi_i + 1):
            v = _binom[d][jj] * _binom[k][j - jj]
            if r < v:
                i = jj
                break
            r -= v
    else:
        for jj in range(n_j):
            j = m + jj
            work[jj] = _log_binomial(space.log_factorial, a, j)
            if j <= k:
                work[jj] += log1p(-exp(_log_binomial(space.log_factorial, k, j) - work[jj]))
        jj = _draw_log_weighted(work, n_j, work + n_j, state)
        if jj < 0:
            return -1
        j = m + jj
        lo_i = j - k if j - k > 1 else 1
        hi_i = j if j < d else d
        for jj in range(hi_i - lo_i + 1):
            i = lo_i + jj
            work[jj] = (_log_binomial(space.log_factorial, d, i)
                        + _log_binomial(space.log_factorial, k, j - i))
        jj = _draw_log_weighted(work, hi_i - lo_i + 1, work + (hi_i - lo_i + 1), state)
        if jj < 0:
            return -1
        i = lo_i + jj

    # Selection sampling (Knuth's Algorithm S) on each side, in feature order.
    need_d = i
    rem_d = d
    need_k = j - i
    rem_k = k
    for p in range(a):
        if flags[p] & 1:
            if need_k > 0 and <int64_t>rng_below(state, <uint64_t>rem_k) < need_k:
                out[n_out] = pos_features[p]
                n_out += 1
                need_k -= 1
            rem_k -= 1
        else:
            if need_d > 0 and <int64_t>rng_below(state, <uint64_t>rem_d) < need_d:
                out[n_out] = pos_features[p]
                n_out += 1
                need_d -= 1
            rem_d -= 1
    return n_out


# -- Python-facing objects and entry points -----------------------------------
cdef class PairSampler:
    """The proposal of Algorithm 3 for one tail, ready for nogil kernels.

    Built by ``corset.sampling.HeadSampler.pair_sampler``; the
    arguments are validated there.  Holds references to every array its C
    struct points into.
    """

    def __init__(self, const index_t[::1] pos_records, const double[::1] pos_cumulative,
                 const double[::1] pos_log_proposal, Py_ssize_t pos_last,
                 const index_t[::1] neg_records, neg_cumulative, neg_log_proposal,
                 Py_ssize_t neg_last,
                 const ptr_t[::1] feature_indptr, const index_t[::1] feature_ids,
                 const double[::1] log_w, int64_t max_proposals, int mutation=MUTATION_NONE,
                 feature_bits=None, Py_ssize_t n_words=0, plain=None):
        cdef const double[::1] nc
        cdef const double[::1] nl
        cdef const uint64_t[::1] bits
        cdef const double[::1] pu
        cdef const double[::1] pp
        cdef const double[::1] np_
        cdef Py_ssize_t j, widest = 0
        self._arrays = (pos_records, pos_cumulative, pos_log_proposal, neg_records,
                       neg_cumulative, neg_log_proposal, feature_indptr, feature_ids, log_w,
                       feature_bits, plain)
        self.c.pos_uniform = NULL
        self.c.pos_plain = NULL
        self.c.neg_plain = NULL
        if plain is not None:
            # The "plain" proposal: (pos_uniform, pos_plain, neg_plain), with neg_cumulative the
            # cumulative |P-| (see PairProposal).
            pu, pp, np_ = plain
            if pu.shape[0] != pos_records.shape[0] or pp.shape[0] != pos_records.shape[0] \
                    or np_.shape[0] != neg_records.shape[0] or neg_cumulative is None:
                raise ValueError("PairSampler: the plain proposal needs one value per record and neg_cumulative")
            self.c.pos_uniform = &pu[0]
            self.c.pos_plain = &pp[0]
            self.c.neg_plain = &np_[0]
        self.c.pos_records = &pos_records[0]
        self.c.pos_cumulative = &pos_cumulative[0]
        self.c.pos_log_proposal = &pos_log_proposal[0]
        self.c.n_pos = pos_records.shape[0]
        self.c.pos_last = pos_last
        self.c.neg_records = &neg_records[0]
        self.c.n_neg = neg_records.shape[0]
        self.c.neg_last = neg_last
        self.c.neg_cumulative = NULL
        self.c.neg_log_proposal = NULL
        if neg_cumulative is not None:
            nc = neg_cumulative
            self.c.neg_cumulative = &nc[0]
        if neg_log_proposal is not None:
            nl = neg_log_proposal
            self.c.neg_log_proposal = &nl[0]
        self.c.feature_indptr = &feature_indptr[0]
        self.c.feature_ids = &feature_ids[0] if feature_ids.shape[0] > 0 else NULL
        self.c.log_w = &log_w[0]
        self.c.log_gap = NULL
        self.c.gap_offset = NULL
        self.c.max_proposals = max_proposals
        self.c.mutation = mutation
        self.c.feature_bits = NULL
        self.c.n_words = n_words
        if feature_bits is not None:
            bits = feature_bits
            self.c.feature_bits = &bits[0]
        for j in range(pos_records.shape[0]):
            widest = max(widest, feature_indptr[pos_records[j] + 1] - feature_indptr[pos_records[j]])
        self.widest_positive = widest

    @property
    def arrays(self):
        """``(pos_records, pos_cumulative, pos_log_proposal, neg_records, neg_cumulative,
        neg_log_proposal, feature_indptr, feature_ids, log_w, feature_bits, ...)``: the arrays
        behind the proposal.  The compiled paper build stores neither D_T^- nor the log
        proposal factors: they are made on demand here (the records outside
        ``pos_records``, ascending; log W_a of each positive record's size a).
        """
        arrays = self._arrays
        if arrays[2] is None:
            # log W_a of each positive record's size a, 0 where W_a = 0 (never drawn).
            sizes = np.diff(np.asarray(arrays[6]))[np.asarray(arrays[0])]
            log_w = np.asarray(arrays[8])[sizes]
            arrays = arrays[:2] + (np.where(log_w != -np.inf, log_w, 0.0),) + arrays[3:]
        if arrays[3] is None:
            keep = np.ones(self.c.n_pos + self.c.n_neg, dtype=bool)
            keep[np.asarray(arrays[0])] = False
            arrays = arrays[:3] + (np.flatnonzero(keep).astype(np.int32),) + arrays[4:]
        return arrays

    @property
    def n_positive(self):
        return self.c.n_pos

    @property
    def n_negative(self):
        return self.c.n_neg

    @property
    def pos_last(self):
        """The last index of positive proposal weight among D_T^+."""
        return self.c.pos_last

    @property
    def neg_last(self):
        """The last index of positive proposal weight among D_T^- (n_negative - 1 if uniform)."""
        return self.c.neg_last

    def log_acceptance(self, Py_ssize_t i_pos, Py_ssize_t i_neg):
        """log(w / w̄) of the pair (positive index, negative index): for tests."""
        return log_acceptance(&self.c, i_pos, i_neg)


def sample(PairSampler sampler, const uint64_t[::1] seeds, int method, bint draw_heads,
           int64_t min_length, int64_t max_length, const double[::1] log_factorial,
           int mutation=MUTATION_NONE):
    """One pair (and head) per seed.  ``method``: 0 CFTP, 1 rejection sampling.

    Returns ``(status, failed_at, pos_index, neg_index, n_trials, n_steps,
    head_indptr, head_ids)``: indices into the sampler's positive and
    negative records; the heads flattened (empty unless ``draw_heads``).
    ``status`` is a HEADS_* code for the draw ``failed_at`` (-1 if none).
    """
    cdef Py_ssize_t n = seeds.shape[0], h, length, filled = 0, failed_at = -1
    cdef Py_ssize_t widest = sampler.widest_positive
    cdef Py_ssize_t cap = widest if max_length > widest else max_length
    cdef int status = HEADS_OK
    cdef PairStats stats
    cdef HeadSpace space
    cdef uint64_t state
    cdef Py_ssize_t i_pos = 0, i_neg = 0
    cdef index_t r_pos, r_neg
    cdef const PairProposal* p = &sampler.c
    pos_index = np.zeros(n, dtype=np.int64)
    neg_index = np.zeros(n, dtype=np.int64)
    n_trials = np.zeros(n, dtype=np.int64)
    n_steps = np.zeros(n, dtype=np.int64)
    head_indptr = np.zeros(n + 1, dtype=np.int64)
    head_ids = np.zeros(max(n * cap, 1) if draw_heads else 1, dtype=np.int32)
    cdef long long[::1] vpos = pos_index
    cdef long long[::1] vneg = neg_index
    cdef long long[::1] vtrials = n_trials
    cdef long long[::1] vsteps = n_steps
    cdef long long[::1] vind = head_indptr
    cdef index_t[::1] vids = head_ids
    cdef uint8_t* flags = NULL
    cdef double* work = NULL
    space.min_length = min_length
    space.max_length = max_length
    space.log_factorial = &log_factorial[0]
    space.n_log_factorial = log_factorial.shape[0]
    space.mutation = mutation
    with nogil:
        flags = <uint8_t*>malloc((widest + 1) * sizeof(uint8_t))
        work = <double*>malloc(2 * (widest + 2) * sizeof(double))
        if flags == NULL or work == NULL:
            status = HEADS_NO_MEMORY
        h = 0
        while status == HEADS_OK and h < n:
            if method == 0:
                status = cftp_pair(p, seeds[h], &i_pos, &i_neg, &stats)
            else:
                status = rejection_pair(p, seeds[h], &i_pos, &i_neg, &stats)
            if status != HEADS_OK:
                failed_at = h
                break
            vpos[h] = i_pos
            vneg[h] = i_neg
            vtrials[h] = stats.n_trials
            vsteps[h] = stats.n_steps
            if draw_heads:
                # The head's randomness: a stream of its own, keyed by the seed.
                state = seeds[h] ^ <uint64_t>0xA0761D6478BD642FULL
                r_pos = p.pos_records[i_pos]
                r_neg = neg_record(p, i_neg)
                length = draw_head(p.feature_ids + p.feature_indptr[r_pos],
                                   p.feature_indptr[r_pos + 1] - p.feature_indptr[r_pos],
                                   p.feature_ids + p.feature_indptr[r_neg],
                                   p.feature_indptr[r_neg + 1] - p.feature_indptr[r_neg],
                                   &space, &state, flags, work, &vids[filled])
                if length < 0:
                    status = HEADS_NO_HEAD
                    failed_at = h
                    break
                filled += length
            vind[h + 1] = filled
            h += 1
        free(flags)
        free(work)
    return status, failed_at, pos_index, neg_index, n_trials, n_steps, head_indptr, head_ids[:filled]


def sample_pairs_batch(list samplers, const int64_t[::1] seed_indptr, const uint64_t[::1] seeds, int method,
                       bint raw_halves=False):
    """Pairs (D+, D-) for several tails in one call: sampler i gets the seeds
    ``seeds[seed_indptr[i]:seed_indptr[i + 1]]``, one pair each (``method``:
    0 CFTP, 1 rejection sampling), the same pairs as :func:`sample` would draw.

    With ``raw_halves``, ``seeds`` holds 2 * seed_indptr[-1] raw 32-bit values
    (one draw of the caller's generator) and sampler i's seeds are made as
    ``corset._validation.draw_seeds`` makes n_i = seed_indptr[i + 1] -
    seed_indptr[i] seeds from its own 2 n_i values, which are
    ``seeds[2 seed_indptr[i]:2 seed_indptr[i + 1]]``: the n_i high halves,
    then the n_i low halves.  So one draw serves every tail, and the seeds
    are those of one ``draw_seeds`` call per tail.

    Returns ``(status, pos_records, neg_records)``: per sampler a HEADS_*
    code (its pairs are meaningless unless HEADS_OK), and per seed the
    record ids of D+ and D-.
    """
    cdef Py_ssize_t n_samplers = len(samplers), i, h
    cdef Py_ssize_t i_pos = 0, i_neg = 0
    cdef PairStats stats
    cdef PairSampler sampler
    cdef int st
    cdef uint64_t seed
    cdef Py_ssize_t n_seeds = seed_indptr[n_samplers]
    for i in range(n_samplers):
        if not isinstance(samplers[i], PairSampler):
            raise TypeError(f"samplers[{i}] is not a PairSampler")
    cdef const PairProposal** proposals = <const PairProposal**> malloc(max(n_samplers, 1) * sizeof(PairProposal*))
    if proposals == NULL:
        raise MemoryError("sample_pairs_batch: could not allocate")
    for i in range(n_samplers):
        sampler = samplers[i]
        proposals[i] = &sampler.c
    status = np.zeros(n_samplers, dtype=np.int32)
    pos_records = np.zeros(n_seeds, dtype=np.int32)
    neg_records = np.zeros(n_seeds, dtype=np.int32)
    cdef int[::1] vstatus = status
    cdef index_t[::1] vpos = pos_records
    cdef index_t[::1] vneg = neg_records
    with nogil:
        for i in range(n_samplers):
            for h in range(seed_indptr[i], seed_indptr[i + 1]):
                if raw_halves:
                    # Seed j of sampler i: high half at 2 o_i + j = o_i + h, low
                    # half at 2 o_i + n_i + j = o_{i+1} + h (o_i = seed_indptr[i]).
                    seed = (seeds[seed_indptr[i] + h] << 32) | seeds[seed_indptr[i + 1] + h]
                else:
                    seed = seeds[h]
                if method == 0:
                    st = cftp_pair(proposals[i], seed, &i_pos, &i_neg, &stats)
                else:
                    st = rejection_pair(proposals[i], seed, &i_pos, &i_neg, &stats)
                if st != HEADS_OK:
                    vstatus[i] = st
                    break
                vpos[h] = proposals[i].pos_records[i_pos]
                vneg[h] = neg_record(proposals[i], i_neg)
    free(proposals)
    return status, pos_records, neg_records


# -- the paper's proposal, built in compiled code ------------------------------
# ``HeadSampler`` builds the proposal of proposal="paper" (no test mutation)
# here, many tails per call, in two steps: ``paper_supports`` finds D_T^+ and
# the widest positive record of every tail and runs the checks that decide
# whether the tail has a proposal; the Python layer then supplies the scaled
# weights (see ``paper_samplers``) and ``paper_samplers`` makes the samplers.
# The result is the proposal the Python build (``HeadSampler._build_python``)
# makes, array for array, bit for bit.

cdef enum:
    BUILD_OK_ = 0
    BUILD_NO_POSITIVE_ = 1     # D_T^+ is empty
    BUILD_NO_NEGATIVE_ = 2     # D_T^- is empty
    BUILD_NO_ELIGIBLE_ = 3     # no positive record has min_head_length features
    BUILD_ALL_INSIDE_ = 4      # every allowed head of every positive matches every negative
    BUILD_NOT_MONOTONE_ = 5    # max log W_a over D_T^+ not at the widest record: build in Python

BUILD_OK = BUILD_OK_
BUILD_NO_POSITIVE = BUILD_NO_POSITIVE_
BUILD_NO_NEGATIVE = BUILD_NO_NEGATIVE_
BUILD_NO_ELIGIBLE = BUILD_NO_ELIGIBLE_
BUILD_ALL_INSIDE = BUILD_ALL_INSIDE_
BUILD_NOT_MONOTONE = BUILD_NOT_MONOTONE_


# F_D of every record as a bitset (the generic kernel of corset._ext._intersect).
feature_bitsets = _intersect_bitsets


cdef bint _some_feature_outside(const index_t* positives, Py_ssize_t n_pos,
                                const ptr_t* feature_indptr, const index_t* feature_ids,
                                const int64_t* feature_counts, const int64_t* positive_counts,
                                const double* log_w, Py_ssize_t n_neg) noexcept nogil:
    """Whether a feature of an eligible positive record (log W_a > -inf) lies outside some negative.

    A feature f lies in every negative iff its count among the negatives,
    feature_counts[f] - positive_counts[f], equals n_neg.  With
    ``positive_counts`` NULL the count among the positives is taken as 0:
    then True is certain (feature_counts[f] < n_neg bounds the count among
    the negatives) and False inconclusive.
    """
    cdef Py_ssize_t i
    cdef ptr_t j
    cdef index_t r, f
    cdef int64_t among_negatives
    for i in range(n_pos):
        r = positives[i]
        if log_w[feature_indptr[r + 1] - feature_indptr[r]] == -INFINITY:
            continue
        for j in range(feature_indptr[r], feature_indptr[r + 1]):
            f = feature_ids[j]
            among_negatives = feature_counts[f]
            if positive_counts != NULL:
                among_negatives -= positive_counts[f]
            if among_negatives < n_neg:
                return True
    return False


cdef int _paper_support(const ptr_t* label_indptr, const index_t* label_ids,
                        const index_t* tail, Py_ssize_t n_keys, Py_ssize_t n_records,
                        const ptr_t* feature_indptr, const index_t* feature_ids,
                        const int64_t* feature_counts, const double* log_w,
                        index_t* positives, Py_ssize_t* n_positive, int64_t* widest,
                        index_t* order, int64_t* positive_counts) noexcept nogil:
    """D_T^+ into ``positives``, the widest |F_D| over it, and the BUILD_* status of the tail.

    The checks, in the order of the Python build: a positive record, a
    negative record, a positive record with log W_a > -inf (eligible), and a
    feature of an eligible positive outside some negative (else every head
    of allowed length matches every negative: Z = 0).  ``positive_counts``
    is zero on entry and on return (n_features entries).
    """
    cdef Py_ssize_t n_pos, n_neg, i, a, wide = 0
    cdef ptr_t j
    cdef double shift = -INFINITY
    cdef bint outside
    n_pos = support_into_ptr(label_indptr, label_ids, tail, n_keys, n_records, positives, order)
    n_positive[0] = n_pos
    widest[0] = 0
    if n_pos == 0:
        return BUILD_NO_POSITIVE_
    n_neg = n_records - n_pos
    if n_neg == 0:
        return BUILD_NO_NEGATIVE_
    for i in range(n_pos):
        a = feature_indptr[positives[i] + 1] - feature_indptr[positives[i]]
        if a > wide:
            wide = a
        if log_w[a] > shift:
            shift = log_w[a]
    widest[0] = wide
    if shift == -INFINITY:
        return BUILD_NO_ELIGIBLE_
    # Sparse features settle this at the first feature; only otherwise are
    # the features of D_T^+ counted.
    outside = _some_feature_outside(positives, n_pos, feature_indptr, feature_ids, feature_counts,
                                    NULL, log_w, n_neg)
    if not outside:
        for i in range(n_pos):
            for j in range(feature_indptr[positives[i]], feature_indptr[positives[i] + 1]):
                positive_counts[feature_ids[j]] += 1
        outside = _some_feature_outside(positives, n_pos, feature_indptr, feature_ids, feature_counts,
                                        positive_counts, log_w, n_neg)
        for i in range(n_pos):
            for j in range(feature_indptr[positives[i]], feature_indptr[positives[i] + 1]):
                positive_counts[feature_ids[j]] = 0
    if not outside:
        return BUILD_ALL_INSIDE_
    # The weights are scaled by the largest finite log W_a, which the caller
    # takes at the widest record (log W_n is non-decreasing in n).
    if log_w[wide] != shift:
        return BUILD_NOT_MONOTONE_
    return BUILD_OK_


def paper_supports(const ptr_t[::1] label_indptr, const index_t[::1] label_ids,
                   const int64_t[::1] tail_indptr, const index_t[::1] tail_ids,
                   const ptr_t[::1] feature_indptr, const index_t[::1] feature_ids,
                   const int64_t[::1] feature_counts, const double[::1] log_w):
    """Step 1 of the compiled build of the paper's proposal, for tails
    ``tail_ids[tail_indptr[t]:tail_indptr[t + 1]]`` (sorted, non-empty).

    ``label_indptr``/``label_ids`` is the inverted label index, the
    ``feature_*`` arrays the record -> features CSR (``feature_ids`` at
    least one entry long), ``feature_counts`` |D[{f}]| per feature and
    ``log_w`` log W_n for n = 0..|F|.

    Returns ``(status, pos_indptr, pos_ids, widest)``: per tail a BUILD_*
    code, D_T^+ as ``pos_ids[pos_indptr[t]:pos_indptr[t + 1]]`` (empty
    unless BUILD_OK or BUILD_NOT_MONOTONE) and max |F_D| over D_T^+.
    """
    cdef Py_ssize_t n_tails = tail_indptr.shape[0] - 1, n_records = feature_indptr.shape[0] - 1
    cdef Py_ssize_t n_features = feature_counts.shape[0], t, i, room = 0, widest_tail = 1
    cdef Py_ssize_t shortest, length, n_pos = 0
    cdef int st
    cdef bint no_memory = False
    cdef index_t* order = NULL
    cdef int64_t* positive_counts = NULL
    # Room for D_T^+ of every tail: at most its shortest posting list.
    for t in range(n_tails):
        shortest = n_records
        for i in range(tail_indptr[t], tail_indptr[t + 1]):
            length = label_indptr[tail_ids[i] + 1] - label_indptr[tail_ids[i]]
            if length < shortest:
                shortest = length
        room += shortest
        widest_tail = max(widest_tail, tail_indptr[t + 1] - tail_indptr[t])
    status = np.zeros(n_tails, dtype=np.int32)
    pos_indptr = np.zeros(n_tails + 1, dtype=np.int64)
    pos_ids = np.empty(room + 1, dtype=np.int32)   # + 1: the address past the last D_T^+ stays in bounds
    widest = np.zeros(n_tails, dtype=np.int64)
    cdef int[::1] vstatus = status
    cdef int64_t[::1] vptr = pos_indptr
    cdef index_t[::1] vids = pos_ids
    cdef int64_t[::1] vwidest = widest
    cdef const index_t* labels = &label_ids[0] if label_ids.shape[0] > 0 else NULL
    with nogil:
        order = <index_t*>malloc(widest_tail * sizeof(index_t))
        positive_counts = <int64_t*>calloc(max(n_features, 1), sizeof(int64_t))
        if order == NULL or positive_counts == NULL:
            no_memory = True
        else:
            for t in range(n_tails):
                # Written from the end of the previous tail's D_T^+, within the room
                # of this and later tails.
                st = _paper_support(&label_indptr[0], labels, &tail_ids[tail_indptr[t]],
                                    tail_indptr[t + 1] - tail_indptr[t], n_records,
                                    &feature_indptr[0], &feature_ids[0], &feature_counts[0], &log_w[0],
                                    &vids[vptr[t]], &n_pos, &vwidest[t], order, positive_counts)
                vstatus[t] = st
                vptr[t + 1] = vptr[t] + (n_pos if st == BUILD_OK_ or st == BUILD_NOT_MONOTONE_ else 0)
        free(order)
        free(positive_counts)
    if no_memory:
        raise MemoryError("paper_supports: could not allocate")
    return status, pos_indptr, pos_ids, widest


cdef Py_ssize_t _fill_paper(const index_t* positives, Py_ssize_t n_pos,
                            const ptr_t* feature_indptr, const double* scaled,
                            index_t* pos_records, double* pos_cumulative) noexcept nogil:
    """The arrays of one proposal; returns pos_last.  ``pos_cumulative`` first holds the weights.

    Neither D_T^- nor the log proposal factors are stored: the records outside
    the sorted ``pos_records`` (``neg_record``), and log W_a of a record's size a.
    """
    cdef Py_ssize_t i, a
    for i in range(n_pos):
        pos_records[i] = positives[i]
        a = feature_indptr[positives[i] + 1] - feature_indptr[positives[i]]
        pos_cumulative[i] = scaled[a]
    # In place: cumulative_fill reads weight i before it writes sum i.
    return cumulative_fill(pos_cumulative, n_pos, pos_cumulative)


def paper_samplers(const int[::1] status, const int64_t[::1] pos_indptr, const index_t[::1] pos_ids,
                   const int64_t[::1] widest, list scaled_rows, feature_indptr, feature_ids, log_w,
                   feature_bits, Py_ssize_t n_words, int64_t max_proposals, log_gap=None, gap_offset=None):
    """Step 2: a :class:`PairSampler` per tail of status BUILD_OK (None for the others).

    ``scaled_rows[n]`` (for every n in ``widest`` of a BUILD_OK tail) holds
    exp(log W_a - log W_n) for a = 0..n, the scaled weight
    (``corset.sampling._weights.scale_log_weights``) of a record with a
    features in a tail whose widest positive record has n features.
    ``feature_indptr``, ``feature_ids``, ``log_w`` and ``feature_bits`` (or
    None) are those the samplers point into, and so are ``log_gap`` and
    ``gap_offset`` (:func:`log_gap_table` of ``log_w``; None: the samplers
    compute that term).
    """
    cdef Py_ssize_t n_tails = status.shape[0], t, n_pos, n_neg
    cdef const double[::1] vgap
    cdef const int64_t[::1] voff
    cdef const double* gap = NULL
    cdef const int64_t* gap_off = NULL
    if log_gap is not None:
        vgap = log_gap
        voff = gap_offset
        if voff.shape[0] != len(log_w):
            raise ValueError("paper_samplers: gap_offset must have one entry per size of log_w")
        gap = &vgap[0]
        gap_off = &voff[0]
    cdef const ptr_t[::1] vindptr = feature_indptr
    cdef const index_t[::1] vfeatures = feature_ids
    cdef const double[::1] vlog_w = log_w
    cdef Py_ssize_t n_records = vindptr.shape[0] - 1
    cdef const uint64_t[::1] vbits
    cdef const uint64_t* bits = NULL
    cdef cnp.ndarray row, pos_records, pos_cumulative
    cdef cnp.npy_intp n_pos_dim
    cdef PairSampler ps
    if feature_bits is not None:
        vbits = feature_bits
        bits = &vbits[0]
    out = [None] * n_tails
    for t in range(n_tails):
        if status[t] != BUILD_OK_:
            continue
        n_pos = pos_indptr[t + 1] - pos_indptr[t]
        n_neg = n_records - n_pos
        # C-API allocations: a Python-level np.empty and a memoryview per
        # array cost more than building the arrays.
        n_pos_dim = n_pos
        row = scaled_rows[widest[t]]
        pos_records = cnp.PyArray_EMPTY(1, &n_pos_dim, cnp.NPY_INT32, 0)
        pos_cumulative = cnp.PyArray_EMPTY(1, &n_pos_dim, cnp.NPY_FLOAT64, 0)
        ps = PairSampler.__new__(PairSampler)
        ps.c.pos_records = <const index_t*>cnp.PyArray_DATA(pos_records)
        ps.c.pos_cumulative = <const double*>cnp.PyArray_DATA(pos_cumulative)
        ps.c.pos_log_proposal = NULL    # log W_a of each record's size a (see log_acceptance)
        # D_T^- is every other record: not stored (n_records - n_pos ids per tail), see neg_record.
        ps.c.neg_records = NULL
        with nogil:
            ps.c.pos_last = _fill_paper(&pos_ids[pos_indptr[t]], n_pos, &vindptr[0],
                                        <const double*>cnp.PyArray_DATA(row), <index_t*>ps.c.pos_records,
                                        <double*>ps.c.pos_cumulative)
        ps._arrays = (pos_records, pos_cumulative, None, None, None, None,
                     feature_indptr, feature_ids, log_w, feature_bits, log_gap, gap_offset)
        ps.c.n_pos = n_pos
        ps.c.neg_cumulative = NULL
        ps.c.neg_log_proposal = NULL
        ps.c.n_neg = n_neg
        ps.c.neg_last = n_neg - 1
        ps.c.feature_indptr = &vindptr[0]
        ps.c.feature_ids = &vfeatures[0]
        ps.c.feature_bits = bits
        ps.c.n_words = n_words
        ps.c.log_w = &vlog_w[0]
        ps.c.log_gap = gap
        ps.c.gap_offset = gap_off
        ps.c.max_proposals = max_proposals
        ps.c.mutation = MUTATION_NONE
        ps.c.pos_uniform = NULL
        ps.c.pos_plain = NULL
        ps.c.neg_plain = NULL
        ps.widest_positive = widest[t]
        out[t] = ps
    return out
