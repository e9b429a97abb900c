"""CORSET-SURS: sampling under the interpretable spaces (Algorithm 4 and its head counterpart), the kernels.

Both samplers work on a family S⁻ of item sets (CSR ``set_indptr``/``set_ids``,
strictly increasing ids in each set) and on PRETTI's map from every record to
the sorted ids of the sets it contains, φ(D) = {S ∈ S⁻ : S ⊆ D}
(``rs_indptr``/``rs_ids``; line 1 of Algorithm 4).  Every count below is an
exact integer; doubles hold them exactly (they stay far below 2^53).

Tails (Algorithm 4 with correction 13).  Target: a tail T ∈ S⁻
with probability ∝ its uncovered area a(T) = Σ_{D : T ⊆ L_D} |T ∩ U_D|, U_D
the labels of D no selected rule covers (eq. covD).  A record D is drawn with
weight w(D) = Σ_{S ∈ φ(D)} |S ∩ U_D| (a sum tree, ``_weighted``), then
T ∈ φ(D) with probability |T ∩ U_D| / w(D): their product, summed over the
records containing T, is a(T).  The last line of Algorithm 4 as printed draws
T ∝ |T|, which is a different law once rules are selected (the test-only
mutation MUTATION_PRINTED_TAIL_DRAW reproduces it).

Heads (CORSET-SURS, section improvements_head).  Target: for a tail with
positive records D_T^+ and negative records D_T^-, a head H ∈ S⁻_F with
m <= |H| <= M with probability ∝ discriminativity |D^+[H]| · |D^- \\ D^-[H]|.
Here φ holds only the sets of allowed length.  Pair stage: (D+, D-) with
weight

    w(D+, D-) = |{S ∈ φ(D+) : S ⊄ D-}| = |φ(D+)| - |φ(D+) ∩ φ(D-)|

(a set of φ(D+) lies inside D- exactly when it is also in φ(D-)), whose sum
over the pairs holding H is H's discriminativity; head stage: H uniform over
φ(D+) \\ φ(D-).  The pair is drawn by coupling from the past as in
Algorithm 3, with the proposal w̄(D+, D-) = |φ(D+)| (∝ over D_T^+, uniform
over D_T^-), which bounds w: the ratio r = w / w̄ lies in [0, 1], so the
empty state ⊥ (ratio 1) is the hardest to leave, a proposal accepted from ⊥
is accepted from every state and all chains coalesce there (correction 10).  As in
``_heads``: the acceptance test is strict (u in (0, 1), u < r), so a pair of
weight 0 is never accepted; every time step draws from its own generator
state keyed by (seed, t), so a restart from further in the past re-uses the
randomness of the steps already simulated; a restart examines only its new
steps from ⊥ (the old ones were seen to reject from ⊥).

Every function here is a pure kernel (``noexcept nogil``, errors returned as
SURS_* codes, raised by ``corset.sampling._tail_interpretable`` and ``corset.sampling._head_surs``); the ``def`` entry points
allocate the outputs and release the GIL around the loops.  Arrays handed in
are never empty (the Python layer pads them), so ``&a[0]`` is always valid.
"""
import numpy as np

from libc.stdlib cimport calloc, free

from corset._ext._typedefs cimport index_t, int64_t, ptr_t, uint8_t, uint64_t
from corset._ext._random cimport rng_below, rng_next, rng_uniform_open
from corset._ext._intersect cimport intersect_count_ptr
from corset._ext._weighted cimport cumulative_draw, sumtree_draw

cdef enum:
    SURS_OK = 0
    SURS_PROPOSAL_LIMIT = 1     # max_proposals proposals examined without acceptance
    SURS_EMPTY_DRAW = 3         # a draw met a record or pair of weight 0 (unreachable unless mutated)
    SURS_NO_MEMORY = 4

# Test-only mutations (tests/test_sampling_surs.py): each breaks exactness in
# one known way that the chi-square tests must detect.
cdef enum:
    MUTATION_NONE = 0
    MUTATION_PRINTED_TAIL_DRAW = 1   # Algorithm 4's last line as printed: T ∈ φ(D) ∝ |T|
    MUTATION_IGNORE_NEGATIVE = 2     # the head uniform over φ(D+), sets inside D- included


# -- tails ----------------------------------------------------------------------
cdef inline void _mark_uncovered(const ptr_t* lab_indptr, const index_t* lab_ids,
                                 const uint8_t* covered, index_t r, uint8_t* mark) noexcept nogil:
    """mark[k] = 1 for the labels k of U_D (record r's uncovered labels)."""
    cdef ptr_t p
    for p in range(lab_indptr[r], lab_indptr[r + 1]):
        if not covered[p]:
            mark[lab_ids[p]] = 1


cdef inline void _unmark(const ptr_t* lab_indptr, const index_t* lab_ids, index_t r,
                         uint8_t* mark) noexcept nogil:
    cdef ptr_t p
    for p in range(lab_indptr[r], lab_indptr[r + 1]):
        mark[lab_ids[p]] = 0


cdef inline int64_t _set_weight(const ptr_t* set_indptr, const index_t* set_ids, index_t s,
                                const uint8_t* mark, bint whole_set) noexcept nogil:
    """|S ∩ U_D| for the marked U_D (or |S| with ``whole_set``: the printed draw)."""
    cdef ptr_t q
    cdef int64_t count = 0
    if whole_set:
        return set_indptr[s + 1] - set_indptr[s]
    for q in range(set_indptr[s], set_indptr[s + 1]):
        count += mark[set_ids[q]]
    return count


cdef int64_t record_weight(const ptr_t* lab_indptr, const index_t* lab_ids, const uint8_t* covered,
                           const ptr_t* rs_indptr, const index_t* rs_ids,
                           const ptr_t* set_indptr, const index_t* set_ids,
                           index_t r, uint8_t* mark) noexcept nogil:
    """w(D) = Σ_{S ∈ φ(D)} |S \\ cov_D(ℛ)| = Σ_{S ∈ φ(D)} |S ∩ U_D| (Algorithm 4, line 2).

    ``mark`` is an all-zero scratch of one byte per label; it is left all zero.
    """
    cdef ptr_t j
    cdef int64_t total = 0
    _mark_uncovered(lab_indptr, lab_ids, covered, r, mark)
    for j in range(rs_indptr[r], rs_indptr[r + 1]):
        total += _set_weight(set_indptr, set_ids, rs_ids[j], mark, False)
    _unmark(lab_indptr, lab_ids, r, mark)
    return total


cdef index_t draw_tail_set(const ptr_t* lab_indptr, const index_t* lab_ids, const uint8_t* covered,
                           const ptr_t* rs_indptr, const index_t* rs_ids,
                           const ptr_t* set_indptr, const index_t* set_ids,
                           index_t r, uint64_t* state, uint8_t* mark, int mutation) noexcept nogil:
    """A set T ∈ φ(D) drawn ∝ |T ∩ U_D| (correction 13), by an exact integer draw; -1 if w(D) = 0."""
    cdef ptr_t j
    cdef int64_t total = 0, target, v
    cdef bint whole_set = mutation == MUTATION_PRINTED_TAIL_DRAW
    cdef index_t chosen = -1
    _mark_uncovered(lab_indptr, lab_ids, covered, r, mark)
    for j in range(rs_indptr[r], rs_indptr[r + 1]):
        total += _set_weight(set_indptr, set_ids, rs_ids[j], mark, whole_set)
    if total > 0:
        target = <int64_t>rng_below(state, <uint64_t>total)
        for j in range(rs_indptr[r], rs_indptr[r + 1]):
            v = _set_weight(set_indptr, set_ids, rs_ids[j], mark, whole_set)
            if target < v:
                chosen = rs_ids[j]
                break
            target -= v
    _unmark(lab_indptr, lab_ids, r, mark)
    return chosen


cdef extern from "corset_bits.h":
    void prefetch "corset_prefetch"(const void* p) noexcept nogil

# How many records ahead tail_weights asks for a record's rows (corset_prefetch).
cdef Py_ssize_t PREFETCH_AHEAD = 16


def tail_weights(const ptr_t[::1] lab_indptr, const index_t[::1] lab_ids, const uint8_t[::1] covered,
                 const ptr_t[::1] rs_indptr, const index_t[::1] rs_ids,
                 const ptr_t[::1] set_indptr, const index_t[::1] set_ids,
                 const index_t[::1] records, Py_ssize_t n_labels):
    """w(D) (Algorithm 4, line 2) of every record in ``records``, as int64."""
    cdef Py_ssize_t n = records.shape[0], i
    out = np.zeros(n, dtype=np.int64)
    cdef int64_t[::1] view = out
    cdef uint8_t* mark
    if n == 0:
        return out
    cdef int status = SURS_OK
    with nogil:
        mark = <uint8_t*>calloc(n_labels + 1, sizeof(uint8_t))
        if mark == NULL:
            status = SURS_NO_MEMORY
        else:
            for i in range(n):
                # Records scattered over a large data set: ask for their rows ahead.
                if i + PREFETCH_AHEAD < n:
                    prefetch(&lab_indptr[records[i + PREFETCH_AHEAD]])
                    prefetch(&rs_indptr[records[i + PREFETCH_AHEAD]])
                if i + PREFETCH_AHEAD // 2 < n:
                    prefetch(&lab_ids[lab_indptr[records[i + PREFETCH_AHEAD // 2]]])
                    prefetch(&covered[lab_indptr[records[i + PREFETCH_AHEAD // 2]]])
                    prefetch(&rs_ids[rs_indptr[records[i + PREFETCH_AHEAD // 2]]])
                view[i] = record_weight(&lab_indptr[0], &lab_ids[0], &covered[0], &rs_indptr[0],
                                        &rs_ids[0], &set_indptr[0], &set_ids[0], records[i], mark)
            free(mark)
    if status != SURS_OK:
        raise MemoryError("tail_weights: no memory for a label scratch array")
    return out


def sample_tails(const double[::1] tree,
                 const ptr_t[::1] lab_indptr, const index_t[::1] lab_ids, const uint8_t[::1] covered,
                 const ptr_t[::1] rs_indptr, const index_t[::1] rs_ids,
                 const ptr_t[::1] set_indptr, const index_t[::1] set_ids,
                 Py_ssize_t n_labels, Py_ssize_t n, uint64_t seed, int mutation=MUTATION_NONE):
    """``n`` draws of Algorithm 4: (status, records, set ids).

    The caller guarantees a positive total weight (the root of ``tree``).
    ``status`` is SURS_EMPTY_DRAW if a drawn record had no set to offer
    (unreachable: the tree holds w(D)), SURS_NO_MEMORY, or SURS_OK.
    """
    cdef uint64_t state = seed
    cdef Py_ssize_t size = tree.shape[0] // 2, i
    cdef int status = SURS_OK
    records = np.zeros(n, dtype=np.int32)
    sets = np.zeros(n, dtype=np.int32)
    cdef index_t[::1] rec = records
    cdef index_t[::1] out = sets
    cdef index_t r, s
    cdef uint8_t* mark
    if n == 0:
        return status, records, sets
    with nogil:
        mark = <uint8_t*>calloc(n_labels + 1, sizeof(uint8_t))
        if mark == NULL:
            status = SURS_NO_MEMORY
        else:
            for i in range(n):
                r = <index_t>sumtree_draw(&tree[0], size, &state)
                s = draw_tail_set(&lab_indptr[0], &lab_ids[0], &covered[0], &rs_indptr[0], &rs_ids[0],
                                  &set_indptr[0], &set_ids[0], r, &state, mark, mutation)
                if s < 0:
                    status = SURS_EMPTY_DRAW
                    break
                rec[i] = r
                out[i] = s
            free(mark)
    return status, records, sets


# -- heads ----------------------------------------------------------------------
ctypedef struct SursPairs:
    # Proposal over D_T^+: static cumulative weights of w̄(D+) = |φ(D+)|.
    const index_t* pos_records
    const double* pos_cumulative
    const int64_t* pos_count             # |φ(D+)| of each positive record
    Py_ssize_t n_pos
    Py_ssize_t pos_last
    # D_T^-, uniform.
    const index_t* neg_records
    Py_ssize_t n_neg
    # Record -> sorted ids of the sets of allowed length it contains.
    const ptr_t* rs_indptr
    const index_t* rs_ids
    int64_t max_proposals


cdef inline uint64_t _step_state(uint64_t seed, int64_t t) noexcept nogil:
    """The generator state of time step t (same construction as ``_heads``).

    seed ^ t*K is distinct for every t (K odd) and SplitMix64's output
    function is a bijection, so every step starts from its own state.
    """
    cdef uint64_t s = seed ^ (<uint64_t>t * <uint64_t>0xD1B54A32D192ED03ULL)
    return rng_next(&s)


cdef inline int64_t pair_weight(const SursPairs* p, Py_ssize_t i_pos, Py_ssize_t i_neg) noexcept nogil:
    """w(D+, D-) = |φ(D+)| - |φ(D+) ∩ φ(D-)|: the allowed sets of D+ not inside D-."""
    cdef index_t r_pos = p.pos_records[i_pos], r_neg = p.neg_records[i_neg]
    cdef ptr_t s_pos = p.rs_indptr[r_pos], s_neg = p.rs_indptr[r_neg]
    cdef Py_ssize_t a = p.rs_indptr[r_pos + 1] - s_pos
    cdef Py_ssize_t b = p.rs_indptr[r_neg + 1] - s_neg
    return a - intersect_count_ptr(p.rs_ids + s_pos, a, p.rs_ids + s_neg, b)


cdef inline double _ratio(const SursPairs* p, Py_ssize_t i_pos, Py_ssize_t i_neg) noexcept nogil:
    """r = w / w̄ in [0, 1] (w̄ = |φ(D+)| >= 1 for every proposable D+)."""
    return <double>pair_weight(p, i_pos, i_neg) / <double>p.pos_count[i_pos]


cdef inline void _propose(const SursPairs* p, uint64_t* state,
                          Py_ssize_t* i_pos, Py_ssize_t* i_neg) noexcept nogil:
    i_pos[0] = cumulative_draw(p.pos_cumulative, p.n_pos, p.pos_last, state)
    i_neg[0] = <Py_ssize_t>rng_below(state, <uint64_t>p.n_neg)


cdef int cftp_pair(const SursPairs* p, uint64_t seed, Py_ssize_t* i_pos, Py_ssize_t* i_neg,
                   int64_t* n_trials, int64_t* n_steps) noexcept nogil:
    """One pair (D+, D-) ∝ w by coupling from the past (Algorithm 3, proposal w̄ = |φ(D+)|).

    Time steps t = T, ..., 0 with T = 4, 8, 16, ...  Returns SURS_OK or
    SURS_PROPOSAL_LIMIT.
    """
    cdef int64_t T = 4, lowest_new = 0, t, s, trials = 0
    cdef uint64_t state
    cdef Py_ssize_t y_pos, y_neg, x_pos, x_neg
    cdef double r_y, r_x
    while True:
        t = T
        while t >= lowest_new:
            state = _step_state(seed, t)
            _propose(p, &state, &y_pos, &y_neg)
            r_y = _ratio(p, y_pos, y_neg)
            trials += 1
            # From ⊥ (ratio 1): accept with probability r; strict, so r = 0 never passes.
            if rng_uniform_open(&state) < r_y:
                x_pos = y_pos
                x_neg = y_neg
                r_x = r_y
                for s in range(t - 1, -1, -1):
                    state = _step_state(seed, s)
                    _propose(p, &state, &y_pos, &y_neg)
                    r_y = _ratio(p, y_pos, y_neg)
                    # Independent Metropolis-Hastings: accept with min(1, r(y) / r(x)), r(x) > 0.
                    if rng_uniform_open(&state) < r_y / r_x:
                        x_pos = y_pos
                        x_neg = y_neg
                        r_x = r_y
                i_pos[0] = x_pos
                i_neg[0] = x_neg
                n_trials[0] = trials
                n_steps[0] = T + 1
                return SURS_OK
            if trials >= p.max_proposals:
                n_trials[0] = trials
                n_steps[0] = T + 1
                return SURS_PROPOSAL_LIMIT
            t -= 1
        lowest_new = T + 1
        T *= 2


cdef index_t draw_head_set(const SursPairs* p, Py_ssize_t i_pos, Py_ssize_t i_neg,
                           uint64_t* state, int mutation) noexcept nogil:
    """A set uniform over φ(D+) \\ φ(D-) (the allowed sets of D+ not inside D-); -1 if none.

    The r-th element of the sorted difference, r uniform below w(D+, D-):
    one exact integer draw and one merge, no rejection loop.
    """
    cdef index_t r_pos = p.pos_records[i_pos], r_neg = p.neg_records[i_neg]
    cdef const index_t* a = p.rs_ids + p.rs_indptr[r_pos]
    cdef const index_t* b = p.rs_ids + p.rs_indptr[r_neg]
    cdef Py_ssize_t na = p.rs_indptr[r_pos + 1] - p.rs_indptr[r_pos]
    cdef Py_ssize_t nb = p.rs_indptr[r_neg + 1] - p.rs_indptr[r_neg]
    cdef Py_ssize_t i, q = 0
    cdef int64_t w, target
    if mutation == MUTATION_IGNORE_NEGATIVE:
        if na == 0:
            return -1
        return a[rng_below(state, <uint64_t>na)]
    w = na - intersect_count_ptr(a, na, b, nb)
    if w <= 0:
        return -1
    target = <int64_t>rng_below(state, <uint64_t>w)
    for i in range(na):
        while q < nb and b[q] < a[i]:
            q += 1
        if q < nb and b[q] == a[i]:
            continue
        if target == 0:
            return a[i]
        target -= 1
    return -1   # unreachable: w counts exactly these elements


def sample_heads(const index_t[::1] pos_records, const double[::1] pos_cumulative,
                 const int64_t[::1] pos_count, Py_ssize_t pos_last,
                 const index_t[::1] neg_records,
                 const ptr_t[::1] rs_indptr, const index_t[::1] rs_ids,
                 const uint64_t[::1] seeds, int64_t max_proposals, bint draw_heads,
                 int mutation=MUTATION_NONE):
    """One pair (and head set) per seed.

    Returns ``(status, failed_at, pos_index, neg_index, n_trials, n_steps,
    head_sets)``: indices into ``pos_records`` and ``neg_records``, and the
    head's set id (-1 unless ``draw_heads``).  ``status`` is a SURS_* code
    for the draw ``failed_at`` (-1 if none).
    """
    cdef Py_ssize_t n = seeds.shape[0], h, failed_at = -1
    cdef int status = SURS_OK
    cdef SursPairs p
    cdef uint64_t state
    cdef Py_ssize_t i_pos = 0, i_neg = 0
    cdef int64_t trials = 0, steps = 0
    cdef index_t s
    pos_index = np.zeros(n, dtype=np.int64)
    neg_index = np.zeros(n, dtype=np.int64)
    n_trials = np.zeros(n, dtype=np.int64)
    n_steps = np.zeros(n, dtype=np.int64)
    head_sets = np.full(n, -1, dtype=np.int32)
    cdef int64_t[::1] vpos = pos_index
    cdef int64_t[::1] vneg = neg_index
    cdef int64_t[::1] vtrials = n_trials
    cdef int64_t[::1] vsteps = n_steps
    cdef index_t[::1] vsets = head_sets
    if n == 0:
        return status, failed_at, pos_index, neg_index, n_trials, n_steps, head_sets
    p.pos_records = &pos_records[0]
    p.pos_cumulative = &pos_cumulative[0]
    p.pos_count = &pos_count[0]
    p.n_pos = pos_records.shape[0]
    p.pos_last = pos_last
    p.neg_records = &neg_records[0]
    p.n_neg = neg_records.shape[0]
    p.rs_indptr = &rs_indptr[0]
    p.rs_ids = &rs_ids[0]
    p.max_proposals = max_proposals
    with nogil:
        for h in range(n):
            status = cftp_pair(&p, seeds[h], &i_pos, &i_neg, &trials, &steps)
            if status != SURS_OK:
                failed_at = h
                break
            vpos[h] = i_pos
            vneg[h] = i_neg
            vtrials[h] = trials
            vsteps[h] = steps
            if draw_heads:
                # The head's randomness: a stream of its own, keyed by the seed.
                state = seeds[h] ^ <uint64_t>0xA0761D6478BD642FULL
                s = draw_head_set(&p, i_pos, i_neg, &state, mutation)
                if s < 0:
                    status = SURS_EMPTY_DRAW
                    failed_at = h
                    break
                vsets[h] = s
    return status, failed_at, pos_index, neg_index, n_trials, n_steps, head_sets


def any_discriminative(const ptr_t[::1] rs_indptr, const index_t[::1] rs_ids,
                       const ptr_t[::1] set_indptr, const index_t[::1] set_ids,
                       const index_t[::1] positives, const uint8_t[::1] in_every_negative):
    """Whether some pair has w > 0: a set of some φ(D+) holds a feature missing from some negative.

    Z = Σ w = 0 exactly when every allowed set contained in a positive record
    lies inside every negative record.  Stops at the first witness.
    """
    cdef Py_ssize_t i, n = positives.shape[0]
    cdef ptr_t j, q
    cdef index_t r, s
    cdef bint found = False
    with nogil:
        for i in range(n):
            r = positives[i]
            for j in range(rs_indptr[r], rs_indptr[r + 1]):
                s = rs_ids[j]
                for q in range(set_indptr[s], set_indptr[s + 1]):
                    if not in_every_negative[set_ids[q]]:
                        found = True
                        break
                if found:
                    break
            if found:
                break
    return found
