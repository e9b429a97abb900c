# Head sampling by discriminativity (Algorithm 3 of the paper): the kernels.
#
# The contract for other kernels (the greedy head search of CORSET-GH seeds
# itself with a pair drawn here):
#
#   from corset._ext._heads cimport PairSampler, PairStats, cftp_pair, HEADS_OK
#   cdef PairSampler ps = <built in Python by corset.sampling.HeadSampler.pair_sampler(tail)>
#   cdef Py_ssize_t i_pos, i_neg
#   cdef PairStats stats
#   with nogil:
#       status = cftp_pair(&ps.c, seed, &i_pos, &i_neg, &stats)
#   # status == HEADS_OK: D+ = ps.c.pos_records[i_pos], D- = neg_record(&ps.c, i_neg),
#   # drawn with probability exactly proportional to w(D+, D-) (correction 9).
#
# Every function here is a pure kernel: ``noexcept nogil``, no allocation,
# errors returned as a status code (HEADS_*), raised by the Python layer.
from corset._ext._typedefs cimport index_t, int64_t, ptr_t, uint8_t, uint64_t

cdef enum:
    HEADS_OK = 0
    HEADS_PROPOSAL_LIMIT = 1    # max_proposals proposals examined without acceptance
    HEADS_NOT_BOUNDING = 2      # a proposal weight below the target weight (a bug upstream)
    HEADS_NO_HEAD = 3           # the head draw met a pair of weight 0 (unreachable unless mutated)
    HEADS_NO_MEMORY = 4

# Test-only mutations (tests/test_sampling_mutations.py): each breaks exactness
# in one way the chi-square tests must detect.  MUTATION_NONE in production.
cdef enum:
    MUTATION_NONE = 0
    MUTATION_PRINTED_DRAW = 1   # the head draw of Algorithm 3 as printed, whatever the length bounds
    MUTATION_NON_BOUNDING = 2   # skip the bound check (the caller passes a non-bounding proposal)
    MUTATION_ZERO_WEIGHT = 3    # a zero-weight pair gets acceptance ratio 1 (the ⊥ convention)

ctypedef struct PairProposal:
    # Proposal over the positive records D_T^+ (static cumulative weights).
    const index_t* pos_records          # record ids of D_T^+
    const double* pos_cumulative        # partial sums of the scaled proposal weights
    const double* pos_log_proposal      # unscaled log proposal factor of each positive record;
                                        # NULL: log W_a of its size a (-inf: 0), the paper's proposal
    Py_ssize_t n_pos
    Py_ssize_t pos_last                 # last index of positive proposal weight
    # Proposal over the negative records D_T^-; NULL arrays mean uniform with factor 1.
    # neg_records NULL: D_T^- is every record not in pos_records (then sorted), not
    # stored (n_records - |D_T^+| ids per tail); neg_record() finds the i-th one.
    const index_t* neg_records
    const double* neg_cumulative
    const double* neg_log_proposal
    Py_ssize_t n_neg
    Py_ssize_t neg_last
    # Record -> sorted feature ids (F_D).
    const ptr_t* feature_indptr
    const index_t* feature_ids
    # The same sets as bitsets, n_words uint64 words per record (bit f of word
    # f >> 6 set iff f ∈ F_D), for k = |F_{D+} ∩ F_{D-}| by AND and popcount;
    # NULL: k by merging the sorted lists.  Either way the same integer k.
    const uint64_t* feature_bits
    Py_ssize_t n_words
    # log W_n for n = 0..len-1, W_n = sum_{j=m..M} C(n, j): the number of heads of
    # allowed length inside a set of n features (-inf when W_n = 0).
    const double* log_w
    # Optional (NULL: computed): log1p(-exp(log W_k - log W_a)) for 0 <= k < a at
    # log_gap[gap_offset[a] + k], for the record sizes a with gap_offset[a] >= 0
    # (``log_gap_table``: the same doubles as computing them).
    const double* log_gap
    const int64_t* gap_offset
    int64_t max_proposals
    int mutation
    # The "plain" proposal (pos_uniform not NULL; NULL for the product proposals above):
    # w(D+, D-) <= (W_a - W_{a-1}) (|P+| + |P-|), P the records' plain features (those that
    # are not negated literals).  D+ is drawn from pos_cumulative (pos_log_proposal: log(W_a -
    # W_{a-1})), then D- uniformly with probability pos_uniform[i_pos], else from
    # neg_cumulative (weights |P-|); pos_plain and neg_plain hold |P+| and |P-|.
    const double* pos_uniform
    const double* pos_plain
    const double* neg_plain

ctypedef struct PairStats:
    int64_t n_trials    # proposals examined from the empty state until the first acceptance
    int64_t n_steps     # time steps of the final CFTP run (its T + 1); rejection: n_trials

ctypedef struct HeadSpace:
    int64_t min_length
    int64_t max_length
    const double* log_factorial        # log n! for n = 0..n_log_factorial-1
    Py_ssize_t n_log_factorial
    int mutation

cdef inline index_t neg_record(const PairProposal* p, Py_ssize_t i) noexcept nogil:
    """Record id of negative i: ``neg_records[i]``, or without that array the i-th record
    (from 0, ascending) not in the sorted ``pos_records``: i + #{j : pos_records[j] - j <= i}."""
    cdef Py_ssize_t base = 0, length = p.n_pos, half
    if p.neg_records != NULL:
        return p.neg_records[i]
    if length == 0:
        return <index_t>i
    # #{j : pos_records[j] - j <= i}, a non-decreasing key: the search without branches on the
    # data (each halving step a conditional move).
    while length > 1:
        half = length >> 1
        base = base + half if p.pos_records[base + half] - (base + half) <= i else base
        length -= half
    base += p.pos_records[base] - base <= i
    return <index_t>(i + base)


cdef double log_acceptance(const PairProposal* p, Py_ssize_t i_pos, Py_ssize_t i_neg) noexcept nogil
cdef int cftp_pair(const PairProposal* p, uint64_t seed, Py_ssize_t* i_pos, Py_ssize_t* i_neg,
                   PairStats* stats) noexcept nogil
cdef int rejection_pair(const PairProposal* p, uint64_t seed, Py_ssize_t* i_pos, Py_ssize_t* i_neg,
                        PairStats* stats) noexcept nogil
cdef Py_ssize_t draw_head(const index_t* pos_features, Py_ssize_t a,
                          const index_t* neg_features, Py_ssize_t b,
                          const HeadSpace* space, uint64_t* state,
                          uint8_t* flags, double* work, index_t* out) noexcept nogil

cdef class PairSampler:
    cdef PairProposal c
    cdef object _arrays             # the arrays behind c's pointers, kept alive (see .arrays)
    cdef readonly Py_ssize_t widest_positive   # max |F_D| over D_T^+
