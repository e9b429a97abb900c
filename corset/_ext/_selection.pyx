"""Compiled kernels of the greedy rule selection (Algorithm 1 of the paper).

What a greedy step needs, with the pool of candidate rules held as CSR arrays
(rule -> sorted head feature ids, rule -> sorted tail label ids, rule ->
sorted record ids of its support D[R]):

* :func:`rule_supports`: D[H], D[T] counts and D[R] itself for every rule of
  a pool, once per pool, through the inverted index;
* :func:`supports`: D[keys] for a family of item sets (heads at prediction);
* :func:`greedy_gains`: the uncovered area ``|cov(R) \\ cov(ℛ)|`` (eq.
  relarea) of every candidate, read from per-occurrence coverage flags, the
  marginal gain ``½ q(R; ℛ) + λ Σ_j d(R, R_j)`` (or ``½ ΔQ + λ Σ_j d`` for
  the submodular quality of correction 1) and its arg max;
* :func:`add_distance_sums`, :func:`pairwise_distances`: Jaccard distances of
  coverages from support intersections (correction 6),
  ``|cov(R1) ∩ cov(R2)| = |D[R1] ∩ D[R2]| · |T1 ∩ T2|``, never from
  materialised coverage sets;
* :func:`coverage_positions`: the occurrence positions of a few rules' coverage,
  for evaluating the objective of a final rule set;
* :func:`default_tail_greedy`, :func:`default_tail_rows`: the default rule's
  tail, for one rule list or every prefix of one;
* :func:`tail_completion_counts`, :func:`tail_completion_greedy`: labels
  added to the selected rules' tails for training micro-F1
  (``complete_tails``): the counts the rounds start from, in one pass over
  the records, and the rounds;
* :func:`prefix_pair_counts`: the per-label true and false positives of
  every prefix of a rule list (the internal validation's held-out curves).

Label occurrence (i, k) lives at position ``y_indptr[i] + rank of k in L_i``
of the CSR of Y.  Every record of D[R] carries every label of T, so a merge
of T with L_i finds each label; the merges still stop at the end of L_i so
that inconsistent input cannot read out of bounds.

No validation happens here (corset.selection validates before calling).
"""
import numpy as np

# scipy.special.rel_entr's own C function: the very doubles of the ufunc that
# corset.selection.adjusted_accuracy calls (a libm x·log(x/y) differs from it in the last bit).
from libc.stdlib cimport calloc, free, malloc
from scipy.special.cython_special cimport rel_entr

from corset._ext._intersect cimport (GALLOP_RATIO, common_bits, gallop, intersect_count_ptr, intersect_into_ptr, popcount64, support_into_ptr,
                                     support_count_ptr)
from corset._ext._typedefs cimport index_t, ptr_t, uint8_t, uint64_t, int64_t, float64_t

cdef extern from "corset_bits.h":
    int ctz64 "corset_ctz64"(uint64_t x) noexcept nogil

cdef extern from "corset_gains.h":
    Py_ssize_t rank_gains "corset_rank_gains"(
        const ptr_t* label_indptr, const float64_t* credit, const uint64_t* label_bits,
        const index_t* ranks, Py_ssize_t n_words, const ptr_t* support_indptr, const index_t* support_ids,
        const ptr_t* tail_indptr, const index_t* tail_ids, const float64_t* accuracy,
        const float64_t* distance_sums, const uint8_t* eligible, Py_ssize_t n_candidates,
        float64_t lam, int submodular, float64_t* gains, int64_t* areas, ptr_t* base,
        const uint64_t** bits, const index_t** rank_rows) noexcept nogil
    Py_ssize_t lazy_rank_gains "corset_lazy_rank_gains"(
        const ptr_t* label_indptr, const float64_t* credit, const uint64_t* label_bits,
        const index_t* ranks, Py_ssize_t n_words, const ptr_t* support_indptr, const index_t* support_ids,
        const ptr_t* tail_indptr, const index_t* tail_ids, const float64_t* accuracy,
        const float64_t* distance_sums, const uint8_t* eligible, Py_ssize_t n_candidates,
        float64_t lam, int submodular, float64_t* gains, int64_t* areas, float64_t* q_bound,
        int64_t* area_bound, uint8_t* exact, ptr_t* base, const uint64_t** bits,
        const index_t** rank_rows) noexcept nogil


# A rule's supports come from ANDed record bitsets instead of merged id lists
# when its shortest list has at least this many ids per word of a bitset, or
# when its head's lists hold at least one id per word of every item's bitset:
# |D[H]| alone costs a merge of every head list, the bitsets a pass over the
# items' words (10^6 synthetic records: 5.1 s of supports per fit -> 2.3 s).
cdef Py_ssize_t BITS_PER_WORD_FACTOR = 2


cdef Py_ssize_t _rule_support_bits(const uint64_t* feature_bits, const uint64_t* label_bits,
                                   Py_ssize_t n_words, const index_t* head, Py_ssize_t n_head,
                                   const index_t* tail, Py_ssize_t n_tail,
                                   uint64_t* acc, int64_t* head_count, int64_t* tail_count,
                                   index_t* out, Py_ssize_t room, bint same_tail) noexcept nogil:
    """D[R] into ``out`` (ascending), |D[H]| and |D[T]|, from the items' record bitsets; returns |D[R]|.

    At most ``room`` ids are written (the shortest list: D[R] is no longer when the
    bitsets match the lists; bitsets that do not are cut, not written past the slot).
    ``acc + n_words`` holds D[T] as a bitset and ``acc[2 n_words]`` |D[T]| after the
    call: with ``same_tail`` (the previous rule's tail is this one) they are reused.
    D[H] is never stored: each word is the AND of the head's columns, read side by side.
    """
    cdef Py_ssize_t i, k, m = 0
    cdef uint64_t x
    cdef const uint64_t* col
    cdef int64_t nh = 0, nt = 0
    cdef uint64_t* tacc = acc + n_words
    if not same_tail:
        for k in range(n_words):
            tacc[k] = ~(<uint64_t> 0)
        for i in range(n_tail):
            col = label_bits + tail[i] * n_words
            for k in range(n_words):
                tacc[k] &= col[k]
        for k in range(n_words):
            nt += popcount64(tacc[k])
        acc[2 * n_words] = <uint64_t> nt
    nt = <int64_t> acc[2 * n_words]
    for k in range(n_words):
        x = ~(<uint64_t> 0)
        for i in range(n_head):
            x &= feature_bits[head[i] * n_words + k]
        nh += popcount64(x)
        x &= tacc[k]
        while x and m < room:
            out[m] = <index_t> ((k << 6) + ctz64(x))
            m += 1
            x &= x - 1
    head_count[0] = nh
    tail_count[0] = nt
    return m


# ---------------------------------------------------------------------------
# Pointer helpers: an empty memoryview has no element 0.

cdef inline const index_t* _iptr(const index_t[::1] a) noexcept nogil:
    return &a[0] if a.shape[0] > 0 else NULL


cdef inline const ptr_t* _pptr(const ptr_t[::1] a) noexcept nogil:
    return &a[0] if a.shape[0] > 0 else NULL


# ---------------------------------------------------------------------------
# Cores

cdef inline float64_t _jaccard_from_shared(int64_t size_a, int64_t size_b, int64_t shared_records,
                                           int64_t shared_labels) noexcept nogil:
    """1 - |cov(A) ∩ cov(B)| / |cov(A) ∪ cov(B)|, the coverages non-empty and their tails sharing a label."""
    cdef int64_t inter = shared_records * shared_labels
    return 1.0 - (<float64_t>inter) / (<float64_t>(size_a + size_b - inter))


cdef float64_t jaccard_distance_ptr(const index_t* support_a, Py_ssize_t n_support_a,
                                    const index_t* tail_a, Py_ssize_t n_tail_a,
                                    const index_t* support_b, Py_ssize_t n_support_b,
                                    const index_t* tail_b, Py_ssize_t n_tail_b) noexcept nogil:
    """Jaccard distance of cov(A) = D[A] x T_A and cov(B) = D[B] x T_B.

    Two empty coverages are identical sets: distance 0 (correction 5).
    One empty and one non-empty: distance 1.
    """
    cdef int64_t size_a = <int64_t>n_support_a * n_tail_a
    cdef int64_t size_b = <int64_t>n_support_b * n_tail_b
    cdef int64_t shared_labels, shared_records
    if size_a == 0 and size_b == 0:
        return 0.0
    if size_a == 0 or size_b == 0:
        return 1.0
    # The tails are short: test them first, most pairs stop here.
    shared_labels = intersect_count_ptr(tail_a, n_tail_a, tail_b, n_tail_b)
    if shared_labels == 0:
        return 1.0
    shared_records = intersect_count_ptr(support_a, n_support_a, support_b, n_support_b)
    return _jaccard_from_shared(size_a, size_b, shared_records, shared_labels)


cdef inline ptr_t _support_bound(const ptr_t* indptr, const index_t* keys, Py_ssize_t n_keys,
                                 ptr_t bound) noexcept nogil:
    """min(bound, shortest posting list among ``keys``): a bound on |D[keys]|."""
    cdef Py_ssize_t i
    cdef ptr_t length
    for i in range(n_keys):
        length = indptr[keys[i] + 1] - indptr[keys[i]]
        if length < bound:
            bound = length
    return bound


cdef ptr_t _supports_core(const ptr_t* indptr, const index_t* ids, Py_ssize_t n_records,
                          const ptr_t* key_indptr, const index_t* key_ids, Py_ssize_t n_sets,
                          ptr_t* out_indptr, index_t* out_ids,
                          index_t* work, index_t* order) noexcept nogil:
    """D[keys] of every set, compacted into ``out_ids`` (room: the sum of the bounds)."""
    cdef Py_ssize_t r, n, i
    cdef ptr_t pos = 0
    out_indptr[0] = 0
    for r in range(n_sets):
        n = support_into_ptr(indptr, ids, key_ids + key_indptr[r], key_indptr[r + 1] - key_indptr[r],
                             n_records, work, order)
        for i in range(n):
            out_ids[pos + i] = work[i]
        pos += n
        out_indptr[r + 1] = pos
    return pos


cdef inline Py_ssize_t _intersect_all_into(const ptr_t* indptr, const index_t* ids,
                                           const index_t* keys, Py_ssize_t n_keys, index_t skip,
                                           index_t* running, Py_ssize_t n) noexcept nogil:
    """running := running ∩ every posting list of ``keys`` except ``skip``; return its length."""
    cdef Py_ssize_t i
    cdef index_t key
    for i in range(n_keys):
        if n == 0:
            break
        key = keys[i]
        if key == skip:
            continue
        n = intersect_into_ptr(running, n, ids + indptr[key], indptr[key + 1] - indptr[key], running)
    return n


cdef inline bint _same_ids(const index_t* a, Py_ssize_t na, const index_t* b, Py_ssize_t nb) noexcept nogil:
    cdef Py_ssize_t i
    if na != nb:
        return False
    for i in range(na):
        if a[i] != b[i]:
            return False
    return True


cdef ptr_t rule_supports_core(const ptr_t* feature_indptr, const index_t* feature_ids,
                              const ptr_t* label_indptr, const index_t* label_ids,
                              Py_ssize_t n_records,
                              const ptr_t* head_indptr, const index_t* head_ids,
                              const ptr_t* tail_indptr, const index_t* tail_ids,
                              Py_ssize_t n_rules,
                              ptr_t* out_indptr, index_t* out_ids,
                              int64_t* head_counts, int64_t* tail_counts,
                              index_t* work, index_t* order,
                              const uint64_t* feature_bits, const uint64_t* label_bits,
                              Py_ssize_t n_words, uint64_t* acc) noexcept nogil:
    """D[R] = D[H] ∩ D[T], |D[H]| and |D[T]| for every rule (:func:`rule_supports`' pass; exported
    in the ``.pxd`` for the candidate store's compiled code).

    With record bitsets of every feature and label (``feature_bits``,
    ``label_bits``, ``n_words`` words each; else NULL), a rule whose shortest
    list has at least ``BITS_PER_WORD_FACTOR`` ids per word, or whose head's
    lists hold at least ``n_words`` ids per item of the rule, is computed by
    ANDing words (:func:`_rule_support_bits`), the same sets; consecutive
    rules with the same tail share its AND.

    D[R] starts from the shortest posting list among the head's features and
    the tail's labels (tail lists are usually far shorter than feature
    lists), which is exactly the rule's bounded slot in ``out_ids``, and is
    intersected in place with every other list: the running result only
    shrinks, and the galloping path of ``intersect_into_ptr`` makes each
    step cost O(|running| log) against a long feature list.  D[H] itself is
    never materialised: |D[H]| and |D[T]| are counted (O(1) for one item).
    ``out_ids`` has room for the sum over rules of that shortest length; the
    running write position never passes rule r's slot.
    """
    cdef Py_ssize_t r, i, n_head, n_tail, m
    cdef const index_t* head
    cdef const index_t* tail
    cdef const index_t* start
    cdef index_t key, head_start = -1, tail_start = -1
    cdef ptr_t pos = 0, length, shortest
    cdef Py_ssize_t bits_tail = -1    # the last rule whose D[T] is in acc (-1: none)
    cdef ptr_t head_total
    cdef bint same_tail
    out_indptr[0] = 0
    for r in range(n_rules):
        n_head = head_indptr[r + 1] - head_indptr[r]
        n_tail = tail_indptr[r + 1] - tail_indptr[r]
        head = head_ids + head_indptr[r]
        tail = tail_ids + tail_indptr[r]
        # The shortest posting list of all; none shorter than |D| means the
        # running set starts as every record.
        head_start = -1
        tail_start = -1
        shortest = n_records
        head_total = 0
        for i in range(n_head):
            key = head[i]
            length = feature_indptr[key + 1] - feature_indptr[key]
            head_total += length
            if length < shortest:
                shortest = length
                head_start = key
        for i in range(n_tail):
            key = tail[i]
            length = label_indptr[key + 1] - label_indptr[key]
            if length < shortest:
                shortest = length
                tail_start = key
                head_start = -1
        if (feature_bits != NULL and n_head > 0 and n_tail > 0
                and (shortest >= BITS_PER_WORD_FACTOR * n_words
                     or head_total >= (n_head + n_tail) * n_words)):
            # Rules of one tail usually follow each other (a pool lists each tail's heads
            # together): D[T]'s bitset is kept from the last rule that made it.
            same_tail = bits_tail >= 0 and _same_ids(tail, n_tail, tail_ids + tail_indptr[bits_tail],
                                                     tail_indptr[bits_tail + 1] - tail_indptr[bits_tail])
            m = _rule_support_bits(feature_bits, label_bits, n_words, head, n_head, tail, n_tail, acc,
                                   &head_counts[r], &tail_counts[r], out_ids + pos, shortest, same_tail)
            bits_tail = r
            pos += m
            out_indptr[r + 1] = pos
            continue
        head_counts[r] = support_count_ptr(feature_indptr, feature_ids, head, n_head, n_records, work, order)
        tail_counts[r] = support_count_ptr(label_indptr, label_ids, tail, n_tail, n_records, work, order)
        if tail_start >= 0:
            start = label_ids + label_indptr[tail_start]
        elif head_start >= 0:
            start = feature_ids + feature_indptr[head_start]
        else:
            start = NULL
        if start != NULL:
            for i in range(shortest):
                out_ids[pos + i] = start[i]
        else:
            for i in range(shortest):
                out_ids[pos + i] = <index_t>i
        m = shortest
        # Tail labels first: their lists are the short ones.
        m = _intersect_all_into(label_indptr, label_ids, tail, n_tail, tail_start, out_ids + pos, m)
        m = _intersect_all_into(feature_indptr, feature_ids, head, n_head, head_start, out_ids + pos, m)
        pos += m
        out_indptr[r + 1] = pos
    return pos


cdef Py_ssize_t _greedy_gains_core(const ptr_t* y_indptr, const index_t* y_ids,
                                   const uint8_t* covered, const float64_t* best_accuracy,
                                   const ptr_t* support_indptr, const index_t* support_ids,
                                   const ptr_t* tail_indptr, const index_t* tail_ids,
                                   const float64_t* accuracy, const float64_t* distance_sums,
                                   const uint8_t* eligible, Py_ssize_t n_candidates,
                                   float64_t lam, bint submodular,
                                   float64_t* gains, int64_t* areas) noexcept nogil:
    """Gains of every candidate; the eligible one with the largest positive gain.

    Ties go to the lowest index (strict comparison).  Returns -1 when no
    eligible candidate has a gain > 0.
    """
    cdef Py_ssize_t c, s, t, n_tail, chosen = -1
    cdef ptr_t p, end, q
    cdef index_t label, record
    cdef const index_t* tail
    cdef int64_t area
    cdef float64_t a, delta_quality, gain, best_gain = 0.0
    for c in range(n_candidates):
        a = accuracy[c]
        tail = tail_ids + tail_indptr[c]
        n_tail = tail_indptr[c + 1] - tail_indptr[c]
        area = 0
        delta_quality = 0.0
        # Records ascending, labels ascending: the order of sorted((i, k)),
        # so the sum of ΔQ is reproducible by a reference implementation.
        for q in range(support_indptr[c], support_indptr[c + 1]):
            record = support_ids[q]
            p = y_indptr[record]
            end = y_indptr[record + 1]
            for t in range(n_tail):
                label = tail[t]
                while p < end and y_ids[p] < label:
                    p += 1
                if p == end:
                    break
                if y_ids[p] == label:
                    area += covered[p] == 0
                    if submodular and a > best_accuracy[p]:
                        delta_quality = delta_quality + (a - best_accuracy[p])
                    p += 1
        areas[c] = area
        if submodular:
            gain = 0.5 * delta_quality + lam * distance_sums[c]
        else:
            gain = 0.5 * (a * <float64_t>area) + lam * distance_sums[c]
        gains[c] = gain
        if eligible[c] and gain > best_gain:
            best_gain = gain
            chosen = c
    return chosen


cdef Py_ssize_t _greedy_gains_by_label_core(const ptr_t* label_indptr, const index_t* label_ids,
                                            const float64_t* credit,
                                            const ptr_t* support_indptr, const index_t* support_ids,
                                            const ptr_t* tail_indptr, const index_t* tail_ids,
                                            const float64_t* accuracy, const float64_t* distance_sums,
                                            const uint8_t* eligible, Py_ssize_t n_candidates,
                                            float64_t lam, bint submodular,
                                            float64_t* gains, int64_t* areas, ptr_t* cursor) noexcept nogil:
    """:func:`_greedy_gains_core` on the label-major state (``credit``: -1 uncovered, else the best a(R)).

    The same sums in the same order: records ascending, labels ascending
    within a record; one cursor per tail label walks that label's records
    (D[R] ⊆ D[{k}]), so every read stays inside the label's own stretch.
    """
    cdef Py_ssize_t c, t, n_tail, chosen = -1
    cdef ptr_t q, j
    cdef index_t record
    cdef const index_t* tail
    cdef int64_t area
    cdef float64_t a, b, v, delta_quality, gain, best_gain = 0.0
    for c in range(n_candidates):
        a = accuracy[c]
        tail = tail_ids + tail_indptr[c]
        n_tail = tail_indptr[c + 1] - tail_indptr[c]
        for t in range(n_tail):
            cursor[2 * t] = label_indptr[tail[t]]
            cursor[2 * t + 1] = label_indptr[tail[t] + 1]
        area = 0
        delta_quality = 0.0
        for q in range(support_indptr[c], support_indptr[c + 1]):
            record = support_ids[q]
            for t in range(n_tail):
                j = cursor[2 * t]
                if j < cursor[2 * t + 1] and label_ids[j] < record:
                    j = gallop(label_ids, j + 1, cursor[2 * t + 1], record)
                cursor[2 * t] = j
                if j == cursor[2 * t + 1] or label_ids[j] != record:
                    continue
                v = credit[j]
                if v < 0.0:
                    area += 1
                    b = 0.0
                else:
                    b = v
                if submodular and a > b:
                    delta_quality = delta_quality + (a - b)
                cursor[2 * t] = j + 1
        areas[c] = area
        if submodular:
            gain = 0.5 * delta_quality + lam * distance_sums[c]
        else:
            gain = 0.5 * (a * <float64_t>area) + lam * distance_sums[c]
        gains[c] = gain
        if eligible[c] and gain > best_gain:
            best_gain = gain
            chosen = c
    return chosen


# A candidate's |D[c] ∩ D[R_j]| is a popcount of two bitsets (distance_sums_core's dense path) when
# its records fill its words: at least DENSE_RECORDS_PER_WORD records per word of D[c]'s range (a
# word's AND and popcount cost about what two records' bit tests do), and it lacks two chosen
# rules' distances or more (its bitset, written once, serves them all).
cdef Py_ssize_t DENSE_RECORDS_PER_WORD = 2


cdef inline bint _dense_candidate(const index_t* sc, Py_ssize_t n_sc, Py_ssize_t n_missing) noexcept nogil:
    return n_missing >= 2 and n_sc > 0 and ((sc[n_sc - 1] >> 6) - (sc[0] >> 6) + 1) * DENSE_RECORDS_PER_WORD <= n_sc


cdef inline bint _decided_by_labels(int64_t size_c, int64_t size_j, const index_t* tc, Py_ssize_t n_tc,
                                    const index_t* tj, Py_ssize_t n_tj, float64_t* distance,
                                    int64_t* shared_labels) noexcept nogil:
    # The cases of jaccard_distance_ptr before the records, in its order: True with the distance
    # when the coverages' sizes or tails decide it, else False with the shared labels (> 0).
    if size_c == 0 and size_j == 0:
        distance[0] = 0.0       # added as before (-0.0 + 0.0 is +0.0)
        return True
    if size_c == 0 or size_j == 0:
        distance[0] = 1.0
        return True
    shared_labels[0] = intersect_count_ptr(tc, n_tc, tj, n_tj)
    if shared_labels[0] == 0:
        distance[0] = 1.0
        return True
    return False


cdef inline void _set_bits(uint64_t* bits, const index_t* ids, Py_ssize_t n, bint value) noexcept nogil:
    # Set (value True) or clear the bits of ids in bits; clearing leaves their words zero.
    cdef Py_ssize_t p
    if value:
        for p in range(n):
            bits[ids[p] >> 6] |= (<uint64_t> 1) << (ids[p] & 63)
    else:
        for p in range(n):
            bits[ids[p] >> 6] = 0


cdef void distance_sums_core(const ptr_t* support_indptr, const index_t* support_ids,
                             const ptr_t* tail_indptr, const index_t* tail_ids,
                             const uint8_t* eligible, Py_ssize_t n_todo, const int64_t* todo,
                             const int64_t* start,
                             const ptr_t* chosen_support_indptr, const index_t* chosen_support_ids,
                             const ptr_t* chosen_tail_indptr, const index_t* chosen_tail_ids,
                             Py_ssize_t first_chosen, Py_ssize_t n_chosen, float64_t* sums,
                             uint64_t* bits, uint64_t* dense_bits, Py_ssize_t n_rw) noexcept nogil:
    """sums[c] += d(c, chosen j) for j = start[c], ..., n_chosen - 1 in order, for every eligible c.

    The candidates c are ``todo[0 .. n_todo)`` (rows of the candidate CSR),
    or every row ``0 .. n_todo)`` when ``todo`` is NULL; ``start[c]`` is the
    first chosen rule c's sum lacks (``first_chosen`` for all when ``start``
    is NULL; every start is at least ``first_chosen``).

    The chosen rules are taken one at a time (each sum still receives its
    distances in the order of j, so the same floating-point values): D[R_j]
    is written once into ``bits`` (zeroed words covering every record id of
    the candidates and of the chosen rules, left zeroed on return), when
    the first candidate that shares a label with R_j needs it, and
    |D[c] ∩ D[R_j]| is a bit test per record of D[c] instead of a merge of
    both lists, unless D[R_j] is so much shorter that galloping through
    D[c] is cheaper.

    With ``dense_bits`` (or NULL): ``n_chosen - first_chosen + 1`` rows of
    ``n_rw`` zeroed words, each covering every record id, left zeroed on
    return.  A candidate whose records fill its words and that lacks two
    distances or more (:func:`_dense_candidate`) is then taken first, on
    its own: D[c] is written into the last row, each chosen rule's D[R_j]
    into its row when first needed, and |D[c] ∩ D[R_j]| is a popcount of
    the two over their common words.  Its sum receives the same distances
    in the same order.
    """
    cdef Py_ssize_t c, j, p, t
    cdef const index_t* sj
    cdef const index_t* tj
    cdef const index_t* sc
    cdef Py_ssize_t n_sj, n_tj, n_sc, n_tc, j0, lo, hi
    cdef Py_ssize_t n_rows = n_chosen - first_chosen
    cdef int64_t size_c, size_j, shared_labels, shared_records
    cdef float64_t distance
    cdef bint written
    cdef uint8_t* ready = NULL
    cdef uint64_t* cbits
    cdef uint64_t* row
    if dense_bits != NULL and n_rows > 0:
        ready = <uint8_t*> calloc(n_rows, 1)   # NULL (no memory): every candidate by the path below
    if ready != NULL:
        cbits = dense_bits + n_rows * n_rw
        for t in range(n_todo):
            c = todo[t] if todo != NULL else t
            j0 = start[c] if start != NULL else first_chosen
            sc = support_ids + support_indptr[c]
            n_sc = support_indptr[c + 1] - support_indptr[c]
            if not eligible[c] or not _dense_candidate(sc, n_sc, n_chosen - j0):
                continue
            n_tc = tail_indptr[c + 1] - tail_indptr[c]
            size_c = <int64_t>n_sc * n_tc
            _set_bits(cbits, sc, n_sc, True)
            for j in range(j0, n_chosen):
                sj = chosen_support_ids + chosen_support_indptr[j]
                n_sj = chosen_support_indptr[j + 1] - chosen_support_indptr[j]
                tj = chosen_tail_ids + chosen_tail_indptr[j]
                n_tj = chosen_tail_indptr[j + 1] - chosen_tail_indptr[j]
                size_j = <int64_t>n_sj * n_tj
                if _decided_by_labels(size_c, size_j, tail_ids + tail_indptr[c], n_tc, tj, n_tj, &distance,
                                      &shared_labels):
                    sums[c] = sums[c] + distance
                    continue
                row = dense_bits + (j - first_chosen) * n_rw
                if not ready[j - first_chosen]:
                    _set_bits(row, sj, n_sj, True)
                    ready[j - first_chosen] = 1
                lo = max(sc[0] >> 6, sj[0] >> 6)
                hi = min(sc[n_sc - 1] >> 6, sj[n_sj - 1] >> 6)
                shared_records = common_bits(cbits, row, lo, hi)   # 0 over no common word (lo > hi)
                sums[c] = sums[c] + _jaccard_from_shared(size_c, size_j, shared_records, shared_labels)
            _set_bits(cbits, sc, n_sc, False)
        for j in range(first_chosen, n_chosen):
            if ready[j - first_chosen]:
                _set_bits(dense_bits + (j - first_chosen) * n_rw,
                          chosen_support_ids + chosen_support_indptr[j],
                          chosen_support_indptr[j + 1] - chosen_support_indptr[j], False)
    for j in range(first_chosen, n_chosen):
        sj = chosen_support_ids + chosen_support_indptr[j]
        n_sj = chosen_support_indptr[j + 1] - chosen_support_indptr[j]
        tj = chosen_tail_ids + chosen_tail_indptr[j]
        n_tj = chosen_tail_indptr[j + 1] - chosen_tail_indptr[j]
        size_j = <int64_t>n_sj * n_tj
        # D[R_j] goes into the bitset when a first candidate needs it: most chosen rules share
        # no label with any candidate of a pool's new rules (10^6 synthetic records: 46% of the
        # bits were ever read).
        written = False
        for t in range(n_todo):
            c = todo[t] if todo != NULL else t
            if not eligible[c] or (start != NULL and start[c] > j):
                continue
            sc = support_ids + support_indptr[c]
            n_sc = support_indptr[c + 1] - support_indptr[c]
            if ready != NULL and _dense_candidate(sc, n_sc, n_chosen - (start[c] if start != NULL
                                                                         else first_chosen)):
                continue   # taken above
            n_tc = tail_indptr[c + 1] - tail_indptr[c]
            size_c = <int64_t>n_sc * n_tc
            if _decided_by_labels(size_c, size_j, tail_ids + tail_indptr[c], n_tc, tj, n_tj, &distance,
                                  &shared_labels):
                sums[c] = sums[c] + distance
                continue
            if n_sj * GALLOP_RATIO < n_sc:
                shared_records = intersect_count_ptr(sc, n_sc, sj, n_sj)
            else:
                if not written:
                    _set_bits(bits, sj, n_sj, True)
                    written = True
                shared_records = 0
                for p in range(n_sc):
                    shared_records += (bits[sc[p] >> 6] >> (sc[p] & 63)) & 1
            sums[c] = sums[c] + _jaccard_from_shared(size_c, size_j, shared_records, shared_labels)
        if written:
            _set_bits(bits, sj, n_sj, False)
    free(ready)


cdef void _pairwise_distances_core(const ptr_t* support_indptr, const index_t* support_ids,
                                   const ptr_t* tail_indptr, const index_t* tail_ids,
                                   Py_ssize_t n_rules, float64_t* out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef float64_t d
    for i in range(n_rules):
        out[i * n_rules + i] = 0.0
        for j in range(i + 1, n_rules):
            d = jaccard_distance_ptr(
                support_ids + support_indptr[i], support_indptr[i + 1] - support_indptr[i],
                tail_ids + tail_indptr[i], tail_indptr[i + 1] - tail_indptr[i],
                support_ids + support_indptr[j], support_indptr[j + 1] - support_indptr[j],
                tail_ids + tail_indptr[j], tail_indptr[j + 1] - tail_indptr[j])
            out[i * n_rules + j] = d
            out[j * n_rules + i] = d


cdef void _coverage_positions_core(const ptr_t* y_indptr, const index_t* y_ids,
                                   const ptr_t* support_indptr, const index_t* support_ids,
                                   const ptr_t* tail_indptr, const index_t* tail_ids,
                                   Py_ssize_t n_rules, const ptr_t* out_indptr,
                                   int64_t* out_positions) noexcept nogil:
    cdef Py_ssize_t r, t, n_tail
    cdef ptr_t q, p, end, k
    cdef index_t label
    cdef const index_t* tail
    for r in range(n_rules):
        k = out_indptr[r]
        tail = tail_ids + tail_indptr[r]
        n_tail = tail_indptr[r + 1] - tail_indptr[r]
        for q in range(support_indptr[r], support_indptr[r + 1]):
            p = y_indptr[support_ids[q]]
            end = y_indptr[support_ids[q] + 1]
            for t in range(n_tail):
                label = tail[t]
                while p < end and y_ids[p] < label:
                    p += 1
                if p == end:
                    break
                if y_ids[p] == label:
                    out_positions[k] = p
                    k += 1
                    p += 1
        # Inconsistent input (a record of D[R] without a label of T) would
        # leave slots unwritten: mark them so the caller can detect it.
        while k < out_indptr[r + 1]:
            out_positions[k] = -1
            k += 1


# ---------------------------------------------------------------------------
# Python entry points (validated input only; see corset.selection).

def supports(const ptr_t[::1] indptr, const index_t[::1] ids, Py_ssize_t n_records,
             const ptr_t[::1] key_indptr, const index_t[::1] key_ids):
    """D[keys] for every item set of a CSR family (e.g. the heads of a rule set).

    ``indptr``/``ids`` is an inverted index (item -> sorted record ids).
    Returns ``(support_indptr, support_ids)``: int64 offsets and sorted int32
    record ids, one list per set.  The empty set is supported by every record.
    """
    cdef Py_ssize_t n_sets = key_indptr.shape[0] - 1, r, max_keys = 1
    cdef ptr_t total = 0, pos
    out_indptr = np.zeros(n_sets + 1, dtype=np.int64)
    cdef ptr_t[::1] out_indptr_view = out_indptr
    for r in range(n_sets):
        max_keys = max(max_keys, key_indptr[r + 1] - key_indptr[r])
        total += _support_bound(&indptr[0], _iptr(key_ids) + key_indptr[r],
                                key_indptr[r + 1] - key_indptr[r], n_records)
    out_ids = np.empty(max(total, 1), dtype=np.int32)
    work = np.empty(max(n_records, 1), dtype=np.int32)
    order = np.empty(max_keys, dtype=np.int32)
    cdef index_t[::1] out_view = out_ids, work_view = work, order_view = order
    if n_sets == 0:
        return out_indptr, out_ids[:0].copy()
    with nogil:
        pos = _supports_core(&indptr[0], _iptr(ids), n_records, &key_indptr[0], _iptr(key_ids), n_sets,
                             &out_indptr_view[0], &out_view[0], &work_view[0], &order_view[0])
    return out_indptr, out_ids[:pos].copy()


def rule_supports(const ptr_t[::1] feature_indptr, const index_t[::1] feature_ids,
                  const ptr_t[::1] label_indptr, const index_t[::1] label_ids,
                  Py_ssize_t n_records,
                  const ptr_t[::1] head_indptr, const index_t[::1] head_ids,
                  const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids,
                  const uint64_t[::1] feature_bits=None, const uint64_t[::1] label_bits=None,
                  Py_ssize_t n_words=0):
    """Support statistics of a pool of rules, in one pass.

    Returns ``(support_indptr, support_ids, head_counts, tail_counts)``:
    D[R] = D[H] ∩ D[T] of every rule as a CSR of sorted record ids, |D[H]|
    and |D[T]| (int64).  ``feature_bits`` and ``label_bits`` (optional, both
    or neither; as :meth:`corset.BinaryData.column_bitsets` gives them):
    record bitsets of ``n_words`` words per feature and per label, used for
    the rules whose lists are long (the same results).
    """
    cdef Py_ssize_t n_rules = head_indptr.shape[0] - 1, max_keys = 1
    cdef ptr_t total, pos
    cdef const index_t* heads = _iptr(head_ids)
    cdef const index_t* tails = _iptr(tail_ids)
    total = rule_supports_bound(&feature_indptr[0], &label_indptr[0], n_records, &head_indptr[0], heads,
                                &tail_indptr[0], tails, n_rules, &max_keys)
    out_indptr = np.zeros(n_rules + 1, dtype=np.int64)
    out_ids = np.empty(max(total, 1), dtype=np.int32)
    head_counts = np.zeros(n_rules, dtype=np.int64)
    tail_counts = np.zeros(n_rules, dtype=np.int64)
    work = np.empty(max(n_records, 1), dtype=np.int32)
    order = np.empty(max_keys, dtype=np.int32)
    cdef const uint64_t* fbits = NULL
    cdef const uint64_t* lbits = NULL
    if (feature_bits is None) != (label_bits is None):
        raise ValueError("rule_supports: pass both feature_bits and label_bits, or neither")
    if feature_bits is not None:
        n_items_f = feature_indptr.shape[0] - 1
        n_items_l = label_indptr.shape[0] - 1
        if (n_words < 1 or n_words * 64 < n_records or feature_bits.shape[0] < n_items_f * n_words
                or label_bits.shape[0] < n_items_l * n_words):
            raise ValueError(f"rule_supports: bitsets too small for {n_items_f} features, {n_items_l} labels "
                             f"and {n_records} records with n_words={n_words}")
        if n_items_f > 0 and n_items_l > 0 and n_records > 0:
            fbits = &feature_bits[0]
            lbits = &label_bits[0]
    acc = np.empty(2 * max(n_words, 1) + 1, dtype=np.uint64)   # D[T] as bits, then |D[T]|
    cdef uint64_t[::1] acc_view = acc
    cdef ptr_t[::1] out_indptr_view = out_indptr
    cdef index_t[::1] out_view = out_ids, work_view = work, order_view = order
    cdef int64_t[::1] head_counts_view = head_counts, tail_counts_view = tail_counts
    if n_rules == 0:
        return out_indptr, out_ids[:0].copy(), head_counts, tail_counts
    with nogil:
        pos = rule_supports_core(&feature_indptr[0], _iptr(feature_ids), &label_indptr[0], _iptr(label_ids),
                                  n_records, &head_indptr[0], heads, &tail_indptr[0], tails, n_rules,
                                  &out_indptr_view[0], &out_view[0],
                                  &head_counts_view[0], &tail_counts_view[0],
                                  &work_view[0], &order_view[0], fbits, lbits, n_words, &acc_view[0])
    return out_indptr, out_ids[:pos].copy(), head_counts, tail_counts


cdef void rule_ratios(int64_t r, int64_t h, int64_t t, int64_t n_records, float64_t* precision,
                      float64_t* base_rate, float64_t* accuracy) noexcept nogil:
    """P_R, P_D and a(R) (eq. disc) of one rule from |D[R]| = r, |D[H]| = h, |D[T]| = t and |D|.

    :func:`rule_columns`' arithmetic, shared with the candidate store
    (:meth:`corset._ext._store.RuleStore.add_rows`) so that both give the
    same doubles: P_R = r/h (0 where h = 0), P_D = t/|D| (0 for no records),
    a(R) = I(P_R > P_D)·(rel_entr(P_R, P_D) + rel_entr(1 - P_R, 1 - P_D)),
    the indicator tested on integers.
    """
    cdef float64_t p, q
    precision[0] = <float64_t> r / <float64_t> h if h > 0 else 0.0
    base_rate[0] = <float64_t> t / <float64_t> n_records if n_records > 0 else 0.0
    accuracy[0] = 0.0
    if h > 0 and r * n_records > t * h:
        p = <float64_t> r / <float64_t> h
        q = <float64_t> t / <float64_t> n_records
        accuracy[0] = rel_entr(p, q) + rel_entr(1.0 - p, 1.0 - q)


cdef ptr_t rule_supports_bound(const ptr_t* feature_indptr, const ptr_t* label_indptr, Py_ssize_t n_records,
                               const ptr_t* head_indptr, const index_t* head_ids,
                               const ptr_t* tail_indptr, const index_t* tail_ids,
                               Py_ssize_t n_rules, Py_ssize_t* max_keys) noexcept nogil:
    """Room for :func:`rule_supports_core`'s ``out_ids``: the sum over rules of their shortest posting list
    (also the most items of one rule's head or tail, in ``max_keys``, at least 1)."""
    cdef Py_ssize_t r
    cdef ptr_t total = 0, bound
    max_keys[0] = 1
    for r in range(n_rules):
        max_keys[0] = max(max_keys[0], head_indptr[r + 1] - head_indptr[r], tail_indptr[r + 1] - tail_indptr[r])
        bound = _support_bound(feature_indptr, head_ids + head_indptr[r], head_indptr[r + 1] - head_indptr[r],
                               n_records)
        total += _support_bound(label_indptr, tail_ids + tail_indptr[r], tail_indptr[r + 1] - tail_indptr[r], bound)
    return total


def rule_columns(const ptr_t[::1] support_indptr, const ptr_t[::1] tail_indptr, const int64_t[::1] head_counts,
                 const int64_t[::1] tail_counts, int64_t n_records, bint counts_only=False):
    """The columns of :class:`corset.selection.RuleStatistics` from D[R]'s offsets, T's offsets, |D[H]|, |D[T]|.

    Returns ``(rule_counts, tail_lengths, coverage_sizes, precision, base_rate, accuracy)``:
    |D[R]|, |T|, |cov(R)| = |D[R]|·|T| (int64), and P_R = |D[R]|/|D[H]| (0 where
    D[H] is empty), P_D = |D[T]|/|D| (0 for no records) and a(R) (eq. disc,
    float64; None with ``counts_only``).  a(R) is
    ``I(P_R > P_D) · (rel_entr(P_R, P_D) + rel_entr(1 - P_R, 1 - P_D))``, the
    indicator tested on integers (|D[R]|·|D| > |D[T]|·|D[H]|), with the same
    operations in the same order, and scipy's own ``rel_entr``, as the numpy
    expression of ``corset.selection._rules._adjusted_accuracy``: the same
    doubles.  The
    counts must hold D[R] ⊆ D[H] and D[R] ⊆ D[T] ⊆ D (as the support kernels
    give them); under the indicator, then, 0 < P_D < P_R <= 1.
    """
    cdef Py_ssize_t n = support_indptr.shape[0] - 1, i
    if n < 0 or tail_indptr.shape[0] != n + 1 or head_counts.shape[0] != n or tail_counts.shape[0] != n:
        raise ValueError("rule_columns: one offset more than rules, and one count per rule")
    rule_counts = np.empty(n, dtype=np.int64)
    tail_lengths = np.empty(n, dtype=np.int64)
    coverage_sizes = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] rc = rule_counts, tl = tail_lengths, cs = coverage_sizes
    with nogil:
        for i in range(n):
            rc[i] = support_indptr[i + 1] - support_indptr[i]
            tl[i] = tail_indptr[i + 1] - tail_indptr[i]
            cs[i] = rc[i] * tl[i]
    if counts_only:
        return rule_counts, tail_lengths, coverage_sizes, None, None, None
    precision = np.zeros(n, dtype=np.float64)
    base_rate = np.zeros(n, dtype=np.float64)
    accuracy = np.zeros(n, dtype=np.float64)
    cdef float64_t[::1] pr = precision, br = base_rate, ac = accuracy
    with nogil:
        for i in range(n):
            rule_ratios(rc[i], head_counts[i], tail_counts[i], n_records, &pr[i], &br[i], &ac[i])
    return rule_counts, tail_lengths, coverage_sizes, precision, base_rate, accuracy


def greedy_gains(const ptr_t[::1] y_indptr, const index_t[::1] y_ids,
                 const uint8_t[::1] covered, const float64_t[::1] best_accuracy,
                 const ptr_t[::1] support_indptr, const index_t[::1] support_ids,
                 const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids,
                 const float64_t[::1] accuracy, const float64_t[::1] distance_sums,
                 const uint8_t[::1] eligible, float64_t lam, bint submodular,
                 float64_t[::1] gains, int64_t[::1] areas):
    """One greedy step over a pool (Algorithm 1, the arg max line).

    Writes every candidate's uncovered area (eq. relarea) to ``areas`` and its
    marginal gain to ``gains``: ``½ a(R)·area + λ·distance_sums`` for the
    paper's quality, ``½ ΔQ + λ·distance_sums`` for the submodular one, with
    ΔQ = Σ over cov(R) of max(0, a(R) − best_accuracy).  Returns the index of
    the eligible candidate with the largest gain > 0 (lowest index on ties),
    or -1.
    """
    cdef Py_ssize_t n_candidates = accuracy.shape[0], chosen
    if n_candidates == 0:
        return -1
    with nogil:
        chosen = _greedy_gains_core(&y_indptr[0], _iptr(y_ids), &covered[0] if covered.shape[0] else NULL,
                                    &best_accuracy[0] if best_accuracy.shape[0] else NULL,
                                    &support_indptr[0], _iptr(support_ids), &tail_indptr[0], _iptr(tail_ids),
                                    &accuracy[0], &distance_sums[0], &eligible[0], n_candidates,
                                    lam, submodular, &gains[0], &areas[0])
    return chosen


cdef tuple _tail_scratch(const ptr_t[::1] tail_indptr, Py_ssize_t n_candidates):
    """Scratch of the label-major gain loops for the widest tail: ``(cursor, rows, widest)``, two
    int64 slots per tail label, and per tail slot its label's bitset row then its ranks row."""
    cdef Py_ssize_t c, widest = 1
    for c in range(n_candidates):
        widest = max(widest, tail_indptr[c + 1] - tail_indptr[c])
    return np.empty(2 * widest, dtype=np.int64), np.empty(2 * widest, dtype=np.uintp), widest


def greedy_gains_by_label(const ptr_t[::1] label_indptr, const index_t[::1] label_ids,
                          const float64_t[::1] credit,
                          const ptr_t[::1] support_indptr, const index_t[::1] support_ids,
                          const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids,
                          const float64_t[::1] accuracy, const float64_t[::1] distance_sums,
                          const uint8_t[::1] eligible, float64_t lam, bint submodular,
                          float64_t[::1] gains, int64_t[::1] areas,
                          const uint64_t[::1] label_bits=None, const index_t[::1] label_ranks=None,
                          Py_ssize_t n_words=0):
    """:func:`greedy_gains` with the coverage state in label-major form, the same results.

    ``label_indptr``/``label_ids``: label -> sorted records (D[{k}]);
    ``credit``: per occurrence in that order, -1 when no selected rule covers
    it, else the largest a(R) among those that do (see
    ``corset._ext._coverage.cover_by_label``).  The records of each label
    lie together, so a candidate's reads stay in the stretches of its tail's
    labels instead of visiting every record's row of Y.

    With ``label_bits`` and ``label_ranks`` (both or neither): D[{k}] of
    every label as a bitset of ``n_words`` words (as
    :meth:`corset.BinaryData.column_bitsets` gives them) and, per label and
    word, the number of bits set in the label's words before it
    (:func:`corset._ext._intersect.bitset_ranks`).  The position of
    occurrence (r, k) in label k's list is then its rank, one popcount
    away, instead of a gallop along the list: the same results, about twice
    as fast on large data.
    """
    cdef Py_ssize_t n_candidates = accuracy.shape[0], chosen, c, widest
    cdef Py_ssize_t n_labels = label_indptr.shape[0] - 1
    if n_candidates == 0:
        return -1
    if credit.shape[0] != label_indptr[n_labels]:
        raise ValueError(f"greedy_gains_by_label: credit holds {credit.shape[0]} values for "
                         f"{label_indptr[n_labels]} label occurrences")
    if (label_bits is None) != (label_ranks is None):
        raise ValueError("greedy_gains_by_label: pass both label_bits and label_ranks, or neither")
    if label_bits is not None and (n_words < 1 or label_bits.shape[0] < n_labels * n_words
                                   or label_ranks.shape[0] < n_labels * n_words):
        raise ValueError(f"greedy_gains_by_label: bitsets and ranks too small for {n_labels} labels "
                         f"with n_words={n_words}")
    cursor, rows, widest = _tail_scratch(tail_indptr, n_candidates)
    cdef ptr_t[::1] cursor_v = cursor
    cdef size_t[::1] rows_v = rows
    if label_bits is not None and n_labels > 0 and credit.shape[0] > 0:
        with nogil:
            chosen = rank_gains(&label_indptr[0], &credit[0], &label_bits[0], _iptr(label_ranks), n_words,
                                &support_indptr[0], _iptr(support_ids), &tail_indptr[0], _iptr(tail_ids),
                                &accuracy[0], &distance_sums[0], &eligible[0], n_candidates, lam, submodular,
                                &gains[0], &areas[0], &cursor_v[0], <const uint64_t**> &rows_v[0],
                                <const index_t**> &rows_v[widest])
        return chosen
    with nogil:
        chosen = _greedy_gains_by_label_core(&label_indptr[0], _iptr(label_ids),
                                             &credit[0] if credit.shape[0] else NULL,
                                             &support_indptr[0], _iptr(support_ids), &tail_indptr[0],
                                             _iptr(tail_ids), &accuracy[0], &distance_sums[0], &eligible[0],
                                             n_candidates, lam, submodular, &gains[0], &areas[0],
                                             &cursor_v[0])
    return chosen



def lazy_greedy_gains_by_label(const ptr_t[::1] label_indptr, const float64_t[::1] credit,
                               const ptr_t[::1] support_indptr, const index_t[::1] support_ids,
                               const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids,
                               const float64_t[::1] accuracy, const float64_t[::1] distance_sums,
                               const uint8_t[::1] eligible, float64_t lam, bint submodular,
                               float64_t[::1] gains, int64_t[::1] areas, float64_t[::1] q_bound,
                               int64_t[::1] area_bound, uint8_t[::1] exact,
                               const uint64_t[::1] label_bits, const index_t[::1] label_ranks,
                               Py_ssize_t n_words):
    """The arg max of :func:`greedy_gains_by_label` (with bitsets and ranks), evaluating lazily.

    Minoux's accelerated greedy: ``q_bound`` and ``area_bound`` hold each
    candidate's quality term (ΔQ, or a·area without the submodular quality;
    kept as max(q, 0), since a(R) can round to a tiny negative value) and
    area from an earlier evaluation under a coverage contained in the
    current one (``inf`` for a candidate never evaluated).  Neither can have
    grown since, so ``½·q_bound + λ·distance_sums`` bounds the gain from
    above, and a candidate is evaluated only while its bound can still reach
    the best gain found (the waiting candidates in a heap of their bounds;
    ties going to the lowest index, as in the full loop).  The data must hold at
    least one label occurrence.  Returns the same index as :func:`greedy_gains_by_label` (-1: no
    eligible candidate with a positive gain).  On return, for each evaluated
    candidate (``exact`` 1): its exact area and gain in ``areas`` and
    ``gains``, and its new bounds; for the others (``exact`` 0): their
    bounds in ``areas`` and ``gains``.  Ineligible candidates are never
    evaluated; a candidate whose ``q_bound`` is ``inf`` and that is eligible
    always is (how a caller completes the exact areas of chosen ones).
    """
    cdef Py_ssize_t n_candidates = accuracy.shape[0], chosen, c, widest
    cdef Py_ssize_t n_labels = label_indptr.shape[0] - 1
    # Checked on the typed views (a tuple of them would build a Python object per view).
    if support_indptr.shape[0] != n_candidates + 1:
        raise ValueError(f"lazy_greedy_gains_by_label: support_indptr must hold {n_candidates + 1} offsets")
    if tail_indptr.shape[0] != n_candidates + 1:
        raise ValueError(f"lazy_greedy_gains_by_label: tail_indptr must hold {n_candidates + 1} offsets")
    for name, size in (("distance_sums", distance_sums.shape[0]), ("eligible", eligible.shape[0]),
                       ("gains", gains.shape[0]), ("areas", areas.shape[0]), ("q_bound", q_bound.shape[0]),
                       ("area_bound", area_bound.shape[0]), ("exact", exact.shape[0])):
        if size != n_candidates:
            raise ValueError(f"lazy_greedy_gains_by_label: {name} holds {size} values for {n_candidates} candidates")
    if n_candidates == 0:
        return -1
    if credit.shape[0] != label_indptr[n_labels]:
        raise ValueError(f"lazy_greedy_gains_by_label: credit holds {credit.shape[0]} values for "
                         f"{label_indptr[n_labels]} label occurrences")
    if credit.shape[0] == 0:
        raise ValueError("lazy_greedy_gains_by_label: no label occurrence (every gain is λ·Σd: use "
                         "greedy_gains_by_label)")
    if n_words < 1 or label_bits.shape[0] < n_labels * n_words or label_ranks.shape[0] < n_labels * n_words:
        raise ValueError(f"lazy_greedy_gains_by_label: bitsets and ranks too small for {n_labels} labels "
                         f"with n_words={n_words}")
    cursor, rows, widest = _tail_scratch(tail_indptr, n_candidates)
    cdef ptr_t[::1] cursor_v = cursor
    cdef size_t[::1] rows_v = rows
    with nogil:
        chosen = lazy_rank_gains(&label_indptr[0], &credit[0], &label_bits[0], _iptr(label_ranks), n_words,
                                 &support_indptr[0], _iptr(support_ids), &tail_indptr[0], _iptr(tail_ids),
                                 &accuracy[0], &distance_sums[0], &eligible[0], n_candidates, lam, submodular,
                                 &gains[0], &areas[0], &q_bound[0], &area_bound[0], &exact[0], &cursor_v[0],
                                 <const uint64_t**> &rows_v[0], <const index_t**> &rows_v[widest])
    if chosen == -2:
        raise MemoryError("lazy_greedy_gains_by_label: no memory for the candidates' bounds")
    return chosen

def add_distance_sums(const ptr_t[::1] support_indptr, const index_t[::1] support_ids,
                      const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids,
                      const uint8_t[::1] eligible,
                      const ptr_t[::1] chosen_support_indptr, const index_t[::1] chosen_support_ids,
                      const ptr_t[::1] chosen_tail_indptr, const index_t[::1] chosen_tail_ids,
                      float64_t[::1] sums):
    """``sums[c] += Σ_j d(c, R_j)`` over the chosen rules j (in order), eligible c only.

    With one chosen rule this is the incremental update of a fixed pool's
    diversity sums after a selection: one pass over the pool.  Every row of
    the supports must be sorted (as everywhere in this module): the bitset of
    a chosen support is sized from each row's last id.
    """
    cdef Py_ssize_t n_candidates = sums.shape[0]
    cdef Py_ssize_t n_chosen = chosen_support_indptr.shape[0] - 1
    if n_candidates == 0 or n_chosen <= 0:
        return
    # Room for every record id of both sides (lists are sorted: the last id is the largest).
    cdef index_t top = max(_last_id(support_indptr, support_ids, n_candidates),
                           _last_id(chosen_support_indptr, chosen_support_ids, n_chosen))
    bits = np.zeros(top // 64 + 1, dtype=np.uint64)
    cdef uint64_t[::1] bits_v = bits
    with nogil:
        distance_sums_core(&support_indptr[0], _iptr(support_ids), &tail_indptr[0], _iptr(tail_ids),
                           &eligible[0], n_candidates, NULL, NULL,
                           &chosen_support_indptr[0], _iptr(chosen_support_ids),
                           &chosen_tail_indptr[0], _iptr(chosen_tail_ids), 0, n_chosen, &sums[0], &bits_v[0],
                           NULL, 0)


cdef index_t _last_id(const ptr_t[::1] indptr, const index_t[::1] ids, Py_ssize_t n_rows):
    """The largest id of a CSR whose rows are sorted (0 when it has none)."""
    cdef Py_ssize_t r
    cdef index_t top = 0
    with nogil:
        for r in range(n_rows):
            if indptr[r + 1] > indptr[r] and ids[indptr[r + 1] - 1] > top:
                top = ids[indptr[r + 1] - 1]
    return top


def pairwise_distances(const ptr_t[::1] support_indptr, const index_t[::1] support_ids,
                       const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids):
    """The symmetric matrix of Jaccard distances between the coverages of a rule set."""
    cdef Py_ssize_t n_rules = support_indptr.shape[0] - 1
    out = np.zeros((n_rules, n_rules), dtype=np.float64)
    cdef float64_t[:, ::1] view = out
    if n_rules == 0:
        return out
    with nogil:
        _pairwise_distances_core(&support_indptr[0], _iptr(support_ids), &tail_indptr[0], _iptr(tail_ids),
                                 n_rules, &view[0, 0])
    return out


def coverage_positions(const ptr_t[::1] y_indptr, const index_t[::1] y_ids,
                       const ptr_t[::1] support_indptr, const index_t[::1] support_ids,
                       const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids):
    """cov(R) of each rule as occurrence positions in the CSR of Y (CSR: indptr, int64 positions).

    Only for small rule sets (evaluating the objective of a selection): the
    output has |D[R]|·|T| entries per rule.  A position of -1 flags a record
    of D[R] that lacks a label of T (inconsistent input).
    """
    cdef Py_ssize_t n_rules = support_indptr.shape[0] - 1
    sizes = np.diff(np.asarray(support_indptr)) * np.diff(np.asarray(tail_indptr))
    out_indptr = np.zeros(n_rules + 1, dtype=np.int64)
    np.cumsum(sizes, out=out_indptr[1:])
    out = np.empty(max(int(out_indptr[n_rules]), 1), dtype=np.int64)
    cdef ptr_t[::1] indptr_view = out_indptr
    cdef int64_t[::1] out_view = out
    if n_rules == 0:
        return out_indptr, out[:0].copy()
    with nogil:
        _coverage_positions_core(&y_indptr[0], _iptr(y_ids), &support_indptr[0], _iptr(support_ids),
                                 &tail_indptr[0], _iptr(tail_ids), n_rules, &indptr_view[0], &out_view[0])
    return out_indptr, out[:indptr_view[n_rules]]


cdef inline double _micro_f1(int64_t tp, int64_t fp, int64_t fn) noexcept nogil:
    # 2 tp / (2 tp + fp + fn), 0 when nothing is predicted or true (as numpy divides: two doubles).
    cdef int64_t denominator = 2 * tp + fp + fn
    if denominator <= 0:
        return 0.0
    return <double>(2 * tp) / <double>denominator


# Below this many (record, label) cells every count of a default tail's rounds, and twice it,
# is an exact double: each score is then the correctly rounded quotient of two exact integers.
cdef double EXACT_CELLS = 2.0 ** 50


cdef double _default_tail_core(const int64_t* count, int64_t* tp, int64_t* fp, Py_ssize_t n_labels,
                               int64_t n_records, uint8_t* chosen) noexcept nogil:
    # The rounds of default_tail_greedy on one row of counts (documented there).  A round scans
    # only the labels still "live": a label whose score falls below the current micro-F1 can never
    # be taken later, so it leaves the scan.  Its score is below the current one exactly when its
    # precision over all records, (count - tp) / (n_records - tp - fp) of what it would add, is
    # below half the current micro-F1, and the current micro-F1 only rises from round to round,
    # with the label's own counts fixed until it is taken.  The scores are correctly rounded
    # quotients of exact integers (EXACT_CELLS), so a computed score below the computed current
    # one is below it exactly too; and a label whose score is not above the current one is never
    # the label a round takes.  So the rounds take the same labels, in the same order, with the
    # same floats as a scan of every label; on a large label space with few rules (the first
    # prefixes of the internal validation) there are hundreds of rounds, most over few labels.
    cdef Py_ssize_t k, j, m, best, n_live = 0
    cdef int64_t TP = 0, FP = 0, FN = 0, d_tp, d_fp
    cdef double current, score, best_score
    cdef index_t* live = NULL
    for k in range(n_labels):
        TP += tp[k]
        FP += fp[k]
        FN += count[k] - tp[k]
    current = _micro_f1(TP, FP, FN)
    if <double> n_records * <double> n_labels < EXACT_CELLS:
        live = <index_t*> malloc(n_labels * sizeof(index_t))
    if live == NULL:   # no memory (or counts past exact doubles): every round scans every label
        n_live = n_labels
    else:
        for k in range(n_labels):
            if not chosen[k]:
                live[n_live] = k
                n_live += 1
    while n_live > 0:
        best = -1
        best_score = 0.0
        m = 0
        for j in range(n_live):
            k = live[j] if live != NULL else j
            if chosen[k]:
                continue
            # The label's false negatives become true positives; its negatives, false positives.
            d_tp = count[k] - tp[k]
            d_fp = (n_records - count[k]) - fp[k]
            score = _micro_f1(TP + d_tp, FP + d_fp, FN - d_tp)
            if best < 0 or score > best_score:
                best = k
                best_score = score
            if live != NULL and not score < current:
                live[m] = k   # in increasing label order: ties still go to the smallest id
                m += 1
        if live != NULL:
            n_live = m
        if best < 0 or not best_score > current:
            break
        chosen[best] = 1   # a live label taken is skipped by the chosen test from now on
        d_tp = count[best] - tp[best]
        d_fp = (n_records - count[best]) - fp[best]
        TP += d_tp
        FP += d_fp
        FN -= d_tp
        tp[best] = count[best]
        fp[best] = n_records - count[best]
        current = best_score
    free(live)
    return current


def default_tail_greedy(const int64_t[::1] count, int64_t[::1] tp, int64_t[::1] fp, int64_t n_records,
                        uint8_t[::1] chosen):
    """The greedy rounds of the default rule's tail; returns the training micro-F1 after them.

    Round after round, label k predicted for every record turns its counts
    into ``tp = count[k]``, ``fp = n_records - count[k]``, no false
    negative; the label whose change gives the highest micro-F1 (the
    smallest id among equal ones) is taken while it raises micro-F1.  Taken
    labels get ``chosen[k] = 1`` and their ``tp``, ``fp`` updated in place.
    The labels and the float are those of the numpy rounds that
    :func:`corset.selection.default_tail_from_counts` made, one pass over
    every label per round, with the same arithmetic (each score a quotient
    of two doubles holding exact integers); a round here passes only over
    the labels that can still be taken (a label's score is the mediant of
    the current micro-F1 and twice its precision over all records, so once
    below the current micro-F1 it stays below).
    """
    cdef Py_ssize_t n_labels = count.shape[0]
    cdef double current
    if tp.shape[0] != n_labels or fp.shape[0] != n_labels or chosen.shape[0] != n_labels:
        raise ValueError("count, tp, fp and chosen must have one entry per label")
    if n_labels == 0:
        return _micro_f1(0, 0, 0)
    with nogil:
        current = _default_tail_core(&count[0], &tp[0], &fp[0], n_labels, n_records, &chosen[0])
    return current


def default_tail_rows(const int64_t[::1] count, int64_t[:, ::1] tp, int64_t[:, ::1] fp, int64_t n_records,
                      uint8_t[:, ::1] chosen):
    """:func:`default_tail_greedy` for each row of ``tp``, ``fp`` and ``chosen`` (one call for many
    rule lists on the same records, such as every prefix of one); returns each row's micro-F1."""
    cdef Py_ssize_t n_labels = count.shape[0], n_rows = tp.shape[0], i
    if (tp.shape[1] != n_labels or fp.shape[1] != n_labels or chosen.shape[1] != n_labels
            or fp.shape[0] != n_rows or chosen.shape[0] != n_rows):
        raise ValueError("tp, fp and chosen must have the same rows, each with one entry per label")
    out = np.zeros(n_rows, dtype=np.float64)
    cdef double[::1] out_v = out
    if n_labels == 0 or n_rows == 0:
        return out
    with nogil:
        for i in range(n_rows):
            out_v[i] = _default_tail_core(&count[0], &tp[i, 0], &fp[i, 0], n_labels, n_records, &chosen[i, 0])
    return out


def tail_completion_counts(const ptr_t[::1] r_indptr, const index_t[::1] r_ids,
                           const ptr_t[::1] yr_indptr, const index_t[::1] yr_ids,
                           const ptr_t[::1] t_indptr, const index_t[::1] t_ids,
                           const uint8_t[::1] always, int64_t[::1] label_tp, int64_t[::1] label_predicted,
                           const ptr_t[::1] f_indptr=None, int64_t[:, ::1] a=None, int64_t[:, ::1] b=None,
                           uint8_t[:, ::1] in_tail=None):
    """The counts :func:`tail_completion_greedy` starts from, in one pass over the records.

    ``r_*``: each record's firing rules; ``yr_*``: each record's labels;
    ``t_*``: each rule's tail; ``always[k]``: label k is predicted on every
    record (a default rule's tail), counted apart by the caller.  Fills, per
    label, the true and predicted pairs of the rule list (``always`` left
    out).  With ``a`` (then ``b``, ``in_tail`` and ``f_indptr``, the rules'
    record counts: ``f_indptr[j + 1] - f_indptr[j]`` records fire rule j),
    also ``a[j, k]`` and ``b[j, k]``, the records of rule j on which no rule
    predicts k, with and without k (0 where k is in rule j's tail or
    ``always``), and ``in_tail``; without, only the per-label pairs.  The record
    P_i of the labels predicted on record i is the union of its rules'
    tails: a[j, k] counts the records of rule j with k in L_i \\ P_i, b[j, k]
    is |D[H_j]| minus those with k in P_i and minus a[j, k].  No (records ×
    labels) matrix is built: the work is Σ_i |rules of i| · (|L_i| + |P_i|).
    """
    cdef Py_ssize_t n_records = r_indptr.shape[0] - 1
    cdef Py_ssize_t n_rules = t_indptr.shape[0] - 1, n_labels = label_tp.shape[0]
    cdef bint pairs = a is not None
    if (yr_indptr.shape[0] != n_records + 1 or always.shape[0] != n_labels
            or label_predicted.shape[0] != n_labels):
        raise ValueError("tail_completion_counts: inconsistent shapes")
    if pairs and (b is None or in_tail is None or f_indptr is None or a.shape[0] != n_rules
                  or a.shape[1] != n_labels or b.shape[0] != n_rules or b.shape[1] != n_labels
                  or in_tail.shape[0] != n_rules or in_tail.shape[1] != n_labels
                  or f_indptr.shape[0] != n_rules + 1):
        raise ValueError("tail_completion_counts: inconsistent shapes")
    cdef int64_t* stamp = <int64_t*> malloc((n_labels + 1) * sizeof(int64_t))
    cdef index_t* predicted = <index_t*> malloc((n_labels + 1) * sizeof(index_t))
    cdef Py_ssize_t i, j, k, m, n_predicted
    cdef ptr_t p, q
    try:
        if stamp == NULL or predicted == NULL:
            raise MemoryError()
        with nogil:
            for k in range(n_labels):
                stamp[k] = -1
                label_tp[k] = 0
                label_predicted[k] = 0
            for j in range(n_rules if pairs else 0):
                for k in range(n_labels):
                    a[j, k] = 0
                    b[j, k] = 0   # first the records of rule j predicted k, then b itself
                    in_tail[j, k] = 0
                for p in range(t_indptr[j], t_indptr[j + 1]):
                    in_tail[j, t_ids[p]] = 1
            for i in range(n_records):
                # P_i: the labels of record i's rules' tails, stamped i (always: counted apart).
                n_predicted = 0
                for p in range(r_indptr[i], r_indptr[i + 1]):
                    j = r_ids[p]
                    for q in range(t_indptr[j], t_indptr[j + 1]):
                        k = t_ids[q]
                        if stamp[k] != i and not always[k]:
                            stamp[k] = i
                            predicted[n_predicted] = <index_t> k
                            n_predicted += 1
                for m in range(n_predicted):
                    label_predicted[predicted[m]] += 1
                for q in range(yr_indptr[i], yr_indptr[i + 1]):
                    k = yr_ids[q]
                    if stamp[k] == i:
                        label_tp[k] += 1
                if not pairs:
                    continue
                for p in range(r_indptr[i], r_indptr[i + 1]):
                    j = r_ids[p]
                    for q in range(yr_indptr[i], yr_indptr[i + 1]):
                        k = yr_ids[q]
                        if stamp[k] != i and not always[k]:
                            a[j, k] += 1
                    for m in range(n_predicted):
                        b[j, predicted[m]] += 1
            for j in range(n_rules if pairs else 0):
                for k in range(n_labels):
                    if in_tail[j, k] or always[k]:
                        a[j, k] = 0
                        b[j, k] = 0
                    else:
                        b[j, k] = (f_indptr[j + 1] - f_indptr[j]) - b[j, k] - a[j, k]
    finally:
        free(stamp)
        free(predicted)


def tail_completion_greedy(const ptr_t[::1] f_indptr, const index_t[::1] f_ids,
                           const ptr_t[::1] r_indptr, const index_t[::1] r_ids,
                           const ptr_t[::1] y_indptr, const index_t[::1] y_ids,
                           uint8_t[:, ::1] in_tail, int64_t[:, ::1] a, int64_t[:, ::1] b,
                           int64_t tp, int64_t fp, int64_t total,
                           index_t[::1] added_rule, index_t[::1] added_label):
    """The greedy rounds of :func:`corset.selection.complete_tails`; returns ``(n_added, tp, fp)``.

    ``f_*``: each rule's records (sorted), ``r_*``: each record's rules,
    ``y_*``: each label's records (sorted); ``in_tail[j, k]``: label k is in
    rule j's tail (updated in place); ``a[j, k]``, ``b[j, k]``: the records
    of rule j on which no rule predicts k yet, with and without k (0 where
    k is in the tail or predicted everywhere; updated in place); ``tp``,
    ``fp``: the rule list's true and false positive pairs, ``total`` the
    label occurrences.  Each round takes the (rule, label) whose addition
    gives the highest micro-F1 (the first in row-major order among equal
    ones) while it raises micro-F1 by more than 1e-12, and writes it to
    ``added_rule``, ``added_label`` (room for every pair).  Only label k's
    counts change in a round: the records newly predicted k are taken off
    ``a[:, k]`` or ``b[:, k]`` of every rule that fires on them.
    """
    cdef Py_ssize_t n_rules = a.shape[0], n_labels = a.shape[1]
    cdef Py_ssize_t n_records = r_indptr.shape[0] - 1
    if (b.shape[0] != n_rules or b.shape[1] != n_labels or in_tail.shape[0] != n_rules
            or in_tail.shape[1] != n_labels or f_indptr.shape[0] != n_rules + 1
            or y_indptr.shape[0] != n_labels + 1 or added_rule.shape[0] < n_rules * n_labels
            or added_label.shape[0] < n_rules * n_labels):
        raise ValueError("tail_completion_greedy: inconsistent shapes")
    if n_rules == 0 or n_labels == 0 or total <= 0:
        return 0, tp, fp
    cdef uint8_t* predicted = <uint8_t*> calloc(n_records + 1, 1)
    cdef uint8_t* carried = <uint8_t*> calloc(n_records + 1, 1)
    # The rounds' workspaces (see _completion_rounds); free(NULL) does nothing.
    cdef double* col_gain = <double*> malloc(n_labels * sizeof(double))
    cdef Py_ssize_t* col_rule = <Py_ssize_t*> malloc(n_labels * sizeof(Py_ssize_t))
    cdef int64_t* stamp = <int64_t*> malloc(n_labels * sizeof(int64_t))
    cdef Py_ssize_t* heap = <Py_ssize_t*> malloc(n_labels * sizeof(Py_ssize_t))
    try:
        if (predicted == NULL or carried == NULL or col_gain == NULL or col_rule == NULL or stamp == NULL
                or heap == NULL):
            raise MemoryError()
        return _completion_rounds(f_indptr, f_ids, r_indptr, r_ids, y_indptr, y_ids, in_tail, a, b, tp, fp,
                                  total, added_rule, added_label, predicted, carried, col_gain, col_rule,
                                  stamp, heap)
    finally:
        free(predicted)
        free(carried)
        free(col_gain)
        free(col_rule)
        free(stamp)
        free(heap)


cdef tuple _completion_rounds(const ptr_t[::1] f_indptr, const index_t[::1] f_ids,
                              const ptr_t[::1] r_indptr, const index_t[::1] r_ids,
                              const ptr_t[::1] y_indptr, const index_t[::1] y_ids,
                              uint8_t[:, ::1] in_tail, int64_t[:, ::1] a, int64_t[:, ::1] b,
                              int64_t tp, int64_t fp, int64_t total,
                              index_t[::1] added_rule, index_t[::1] added_label,
                              uint8_t* predicted, uint8_t* carried, double* col_gain, Py_ssize_t* col_rule,
                              int64_t* stamp, Py_ssize_t* heap):
    """The rounds of :func:`tail_completion_greedy` in the workspaces it allocated: per record,
    ``predicted`` and ``carried`` (zero); per label, its best rule's gain and rule as of round
    ``stamp[k]`` (gain <= 0: none); ``heap``, the labels with a positive gain, the best first
    (:func:`_label_before`)."""
    cdef Py_ssize_t n_rules = a.shape[0], n_labels = a.shape[1]
    cdef Py_ssize_t n_added = 0, k, bj, bk, r, n_heap = 0
    cdef ptr_t p, q
    cdef int64_t d, n_pos, n_neg, round_ = 0
    with nogil:
        d = 2 * tp + fp + (total - tp)
        for k in range(n_labels):
            _rescore_label(a, b, k, n_rules, tp, d, col_gain, col_rule, stamp, 0, heap, &n_heap)
        while True:
            # Lazy greedy: a label's gain with its counts unchanged only falls as micro-F1 rises
            # (the gain is (2a - F(a + b)) / (D + a + b), and F and D only grow), so a stale
            # best is a bound: the label with the highest bound is rescored until it is current.
            # A label whose gain falls to 0 leaves the heap for good (only the label added in a
            # round has its counts changed, and it is rescored then).
            bk = -1
            while n_heap > 0:
                bk = heap[0]
                if stamp[bk] == round_:
                    break
                _heap_pop(heap, &n_heap, col_gain, col_rule)
                _rescore_label(a, b, bk, n_rules, tp, d, col_gain, col_rule, stamp, round_, heap, &n_heap)
                bk = -1
            if bk < 0 or not col_gain[bk] > 1e-12:
                break
            _heap_pop(heap, &n_heap, col_gain, col_rule)
            bj = col_rule[bk]
            # Label bk's predicted records (the rules with bk in their tail) and its carriers.
            _mark_label(in_tail, f_indptr, f_ids, y_indptr, y_ids, bk, predicted, carried, 1)
            n_pos = 0
            n_neg = 0
            for p in range(f_indptr[bj], f_indptr[bj + 1]):
                r = f_ids[p]
                if predicted[r]:
                    continue
                if carried[r]:
                    n_pos += 1
                    for q in range(r_indptr[r], r_indptr[r + 1]):
                        a[r_ids[q], bk] -= 1
                else:
                    n_neg += 1
                    for q in range(r_indptr[r], r_indptr[r + 1]):
                        b[r_ids[q], bk] -= 1
            _mark_label(in_tail, f_indptr, f_ids, y_indptr, y_ids, bk, predicted, carried, 0)
            tp += n_pos
            fp += n_neg
            in_tail[bj, bk] = 1
            a[bj, bk] = 0
            b[bj, bk] = 0
            added_rule[n_added] = <index_t> bj
            added_label[n_added] = <index_t> bk
            n_added += 1
            round_ += 1
            d = 2 * tp + fp + (total - tp)
            # Label bk's counts changed: its best is rescored now (it may have risen).
            _rescore_label(a, b, bk, n_rules, tp, d, col_gain, col_rule, stamp, round_, heap, &n_heap)
    return n_added, tp, fp


cdef inline void _rescore_label(int64_t[:, ::1] a, int64_t[:, ::1] b, Py_ssize_t k, Py_ssize_t n_rules,
                                int64_t tp, int64_t d, double* gain, Py_ssize_t* rule, int64_t* stamp,
                                int64_t round_, Py_ssize_t* heap, Py_ssize_t* n_heap) noexcept nogil:
    # Label k (not in the heap) scored as of round round_, and back into the heap if it can still gain.
    _completion_column(a, b, k, n_rules, tp, d, &gain[k], &rule[k])
    stamp[k] = round_
    if gain[k] > 0:
        _heap_push(heap, n_heap, k, gain, rule)


cdef inline bint _label_before(Py_ssize_t x, Py_ssize_t y, const double* gain, const Py_ssize_t* rule) noexcept nogil:
    """Label x's best addition is taken before y's: a higher gain, then a smaller rule, then a
    smaller label (the row-major order of the pairs among equal gains)."""
    if gain[x] != gain[y]:
        return gain[x] > gain[y]
    if rule[x] != rule[y]:
        return rule[x] < rule[y]
    return x < y


cdef inline void _heap_push(Py_ssize_t* heap, Py_ssize_t* n, Py_ssize_t k, const double* gain,
                            const Py_ssize_t* rule) noexcept nogil:
    # Label k into the binary heap heap[0..n) whose front is the first by _label_before.
    cdef Py_ssize_t i = n[0], parent
    n[0] += 1
    while i > 0:
        parent = (i - 1) // 2
        if not _label_before(k, heap[parent], gain, rule):
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = k


cdef inline void _heap_pop(Py_ssize_t* heap, Py_ssize_t* n, const double* gain, const Py_ssize_t* rule) noexcept nogil:
    # Drop the front of the heap (its keys must be those it was pushed with).
    cdef Py_ssize_t i = 0, child, last
    n[0] -= 1
    if n[0] == 0:
        return
    last = heap[n[0]]
    while True:
        child = 2 * i + 1
        if child >= n[0]:
            break
        if child + 1 < n[0] and _label_before(heap[child + 1], heap[child], gain, rule):
            child += 1
        if not _label_before(heap[child], last, gain, rule):
            break
        heap[i] = heap[child]
        i = child
    heap[i] = last


cdef inline void _mark_label(const uint8_t[:, ::1] in_tail, const ptr_t[::1] f_indptr, const index_t[::1] f_ids,
                             const ptr_t[::1] y_indptr, const index_t[::1] y_ids, Py_ssize_t k,
                             uint8_t* predicted, uint8_t* carried, uint8_t value) noexcept nogil:
    """Set ``value`` on label k's predicted records (those of the rules with k in their tail) and
    on its carriers."""
    cdef Py_ssize_t j
    cdef ptr_t p
    for j in range(in_tail.shape[0]):
        if in_tail[j, k]:
            for p in range(f_indptr[j], f_indptr[j + 1]):
                predicted[f_ids[p]] = value
    for p in range(y_indptr[k], y_indptr[k + 1]):
        carried[y_ids[p]] = value


cdef inline void _completion_column(int64_t[:, ::1] a, int64_t[:, ::1] b, Py_ssize_t k, Py_ssize_t n_rules,
                                    int64_t tp, int64_t d, double* gain, Py_ssize_t* rule) noexcept nogil:
    """Label k's best addition at (tp, d): the rise of micro-F1 and the first rule giving it (gain
    0 when none rises)."""
    cdef double current = 2.0 * tp / d, g
    cdef int64_t av
    cdef Py_ssize_t j
    gain[0] = 0.0
    rule[0] = -1
    for j in range(n_rules):
        av = a[j, k]
        if av > 0:
            g = 2.0 * (tp + av) / (d + av + b[j, k]) - current
            if g > gain[0]:
                gain[0] = g
                rule[0] = j


def held_out_micro_f1(const int64_t[::1] fit_count, const int64_t[::1] fit_tp, const int64_t[::1] fit_predicted,
                      int64_t fit_records, const int64_t[::1] held_count, const int64_t[::1] held_tp,
                      const int64_t[::1] held_predicted, int64_t held_records, bint default_rule):
    """Held-out micro-F1 of a rule list from its per-label counts, with the default rule chosen on the fit's.

    ``*_count``: each label's records, ``*_tp`` and ``*_predicted``: the
    list's true and all predicted (record, label) pairs per label, on the
    records it was fitted on and on held-out ones.  With ``default_rule``,
    the default rule's tail is :func:`default_tail_greedy`'s on the fit
    counts (``corset.selection.default_tail_from_counts``), and its labels
    are predicted for every held-out record.  Returns ``2 TP / (2 TP + FP +
    FN)`` on the held-out records (0 when nothing is predicted or true): the
    integers and the double of the Python computation it replaces (a step
    of the internal validation's held-out stop).
    """
    cdef Py_ssize_t n_labels = fit_count.shape[0], k
    if (fit_tp.shape[0] != n_labels or fit_predicted.shape[0] != n_labels or held_count.shape[0] != n_labels
            or held_tp.shape[0] != n_labels or held_predicted.shape[0] != n_labels):
        raise ValueError("held_out_micro_f1: every count needs one entry per label")
    cdef int64_t TP = 0, FP = 0, FN = 0
    if n_labels == 0:
        return _micro_f1(0, 0, 0)
    scratch = np.empty(2 * n_labels, dtype=np.int64)
    chosen = np.zeros(n_labels, dtype=np.uint8)
    cdef int64_t[::1] work = scratch
    cdef uint8_t[::1] ch = chosen
    with nogil:
        if default_rule:
            for k in range(n_labels):
                work[k] = fit_tp[k]
                work[n_labels + k] = fit_predicted[k] - fit_tp[k]
            _default_tail_core(&fit_count[0], &work[0], &work[n_labels], n_labels, fit_records, &ch[0])
        for k in range(n_labels):
            TP += held_tp[k]
            FP += held_predicted[k] - held_tp[k]
            FN += held_count[k]
        for k in range(n_labels):
            if ch[k]:   # the default rule predicts k for every held-out record
                TP += held_count[k] - held_tp[k]
                FP += (held_records - held_count[k]) - (held_predicted[k] - held_tp[k])
        FN -= TP
    return _micro_f1(TP, FP, FN)


def prefix_pair_counts(const ptr_t[::1] fired_indptr, const index_t[::1] fired_ids,
                       const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids,
                       const uint8_t[:, ::1] truth, const int64_t[::1] kept):
    """Per-label true and false positives of every prefix of the rule list ``kept``.

    Rule j fires on the records ``fired_ids[fired_indptr[j]:fired_indptr[j + 1]]``
    and predicts the labels ``tail_ids[tail_indptr[j]:tail_indptr[j + 1]]``; a
    rule list predicts the union of the tails of the rules that fire, so a
    (record, label) pair counts once, for the first rule of ``kept`` that
    predicts it: a true positive where ``truth[record, label]`` is set, else a
    false positive.  Returns ``(tp, fp)``, each (len(kept) + 1, n_labels)
    int64, row k counting the first k rules of ``kept``: one pass over the
    kept rules' pairs, with a byte per (record, label) marking those
    predicted already.  Ids out of range raise ValueError.
    """
    cdef Py_ssize_t n_records = truth.shape[0], n_labels = truth.shape[1], m = kept.shape[0]
    cdef Py_ssize_t n_rules = fired_indptr.shape[0] - 1, i, k, bad = 0
    cdef ptr_t p, q
    cdef int64_t j
    cdef index_t r, label
    if n_rules < 0 or tail_indptr.shape[0] != n_rules + 1:
        raise ValueError("fired_indptr and tail_indptr must have one entry per rule, plus one")
    tp = np.zeros((m + 1, n_labels), dtype=np.int64)
    fp = np.zeros((m + 1, n_labels), dtype=np.int64)
    if m == 0 or n_labels == 0 or n_records == 0:
        for i in range(m):
            if kept[i] < 0 or kept[i] >= n_rules:
                raise ValueError(f"kept: rule {kept[i]} out of range for {n_rules} rules")
        return tp, fp
    predicted = np.zeros(n_records * n_labels, dtype=np.uint8)
    cdef int64_t[:, ::1] tp_v = tp, fp_v = fp
    cdef uint8_t[::1] seen = predicted
    with nogil:
        for i in range(m):
            j = kept[i]
            if j < 0 or j >= n_rules:
                bad = 1
                break
            for q in range(tail_indptr[j], tail_indptr[j + 1]):
                label = tail_ids[q]
                if label < 0 or label >= n_labels:
                    bad = 2
                    break
                for p in range(fired_indptr[j], fired_indptr[j + 1]):
                    r = fired_ids[p]
                    if r < 0 or r >= n_records:
                        bad = 3
                        break
                    if not seen[<Py_ssize_t> r * n_labels + label]:
                        seen[<Py_ssize_t> r * n_labels + label] = 1
                        if truth[r, label]:
                            tp_v[i + 1, label] += 1
                        else:
                            fp_v[i + 1, label] += 1
                if bad:
                    break
            if bad:
                break
        if not bad:
            for i in range(1, m + 1):
                for k in range(n_labels):
                    tp_v[i, k] += tp_v[i - 1, k]
                    fp_v[i, k] += fp_v[i - 1, k]
    if bad == 1:
        raise ValueError(f"kept: a rule out of range for {n_rules} rules")
    if bad == 2:
        raise ValueError(f"tail_ids: a label out of range for {n_labels} labels")
    if bad == 3:
        raise ValueError(f"fired_ids: a record out of range for {n_records} records")
    return tp, fp
