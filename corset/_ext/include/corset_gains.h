/* The greedy step's gain loop over a pool (used by _selection.pyx), with the
 * coverage state in label-major form and the positions of label occurrences
 * found by rank in the labels' record bitsets. */
#ifndef CORSET_GAINS_H
#define CORSET_GAINS_H

#include <Python.h>   /* Py_ssize_t */
#include <math.h>     /* INFINITY */
#include <stdint.h>
#include <stdlib.h>   /* malloc */

#include "corset_bits.h"

/* The same areas, gains and arg max as _greedy_gains_by_label_core (same
 * sums in the same order: records ascending, tail labels in order within a
 * record), with one difference in how occurrence (r, k) is found in label
 * k's sorted record list: its position is rank_k(r), the number of records
 * of D[{k}] before r, read from ``ranks`` (per label and word, the bits set
 * in the words before it) and one popcount of the word holding r, instead of
 * a gallop along the list.  A record whose bit is not set (or past the
 * bitsets' ``n_words`` words) is skipped, as the gallop skips a record it
 * does not find; so is a rank past the label's list (bitsets that do not
 * match the lists), so that no read leaves ``credit``.  ``base``: scratch
 * of two slots per label of the widest tail (the label's stretch of
 * ``credit``), ``bits`` and ``rank_rows`` of one.  Built with and without POPCNT (see
 * corset_bits.h). */
/* Candidate c of corset_rank_gains: writes areas[c] and gains[c] and returns
 * its quality term q, ΔQ with the submodular quality and a·area without, so
 * that gains[c] = ½q + λ·distance_sums[c].  Inlined into its callers (each
 * built with and without POPCNT). */
static inline double corset_rank_gain_one(Py_ssize_t c, const int64_t* label_indptr, const double* credit,
                                          const uint64_t* label_bits, const int32_t* ranks, Py_ssize_t n_words,
                                          const int64_t* support_indptr, const int32_t* support_ids,
                                          const int64_t* tail_indptr, const int32_t* tail_ids,
                                          const double* accuracy, const double* distance_sums,
                                          double lam, int submodular, double* gains, int64_t* areas,
                                          int64_t* base, const uint64_t** bits, const int32_t** rank_rows)
{
    const double a = accuracy[c];
    const int32_t* tail = tail_ids + tail_indptr[c];
    const Py_ssize_t n_tail = (Py_ssize_t) (tail_indptr[c + 1] - tail_indptr[c]);
    for (Py_ssize_t t = 0; t < n_tail; ++t) {
        base[2 * t] = label_indptr[tail[t]];
        base[2 * t + 1] = label_indptr[tail[t] + 1];
        bits[t] = label_bits + (Py_ssize_t) tail[t] * n_words;
        rank_rows[t] = ranks + (Py_ssize_t) tail[t] * n_words;
    }
    int64_t area = 0;
    double delta_quality = 0.0;
    for (int64_t q = support_indptr[c]; q < support_indptr[c + 1]; ++q) {
        const int32_t record = support_ids[q];
        const Py_ssize_t w = (Py_ssize_t) (record >> 6);
        if (record < 0 || w >= n_words)
            continue;
        const int s = record & 63;
        const uint64_t below = (((uint64_t) 1) << s) - 1;
        for (Py_ssize_t t = 0; t < n_tail; ++t) {
            const uint64_t word = bits[t][w];
            if (!((word >> s) & 1))
                continue;
            const int64_t j = base[2 * t] + rank_rows[t][w] + corset_popcount64(word & below);
            if (j >= base[2 * t + 1])   /* bitsets and ranks that do not match the lists */
                continue;
            const double v = credit[j];
            double b;
            if (v < 0.0) {
                area += 1;
                b = 0.0;
            } else {
                b = v;
            }
            if (submodular && a > b)
                delta_quality = delta_quality + (a - b);
        }
    }
    areas[c] = area;
    const double quality = submodular ? delta_quality : a * (double) area;
    gains[c] = 0.5 * quality + lam * distance_sums[c];
    return quality;
}

/* corset_rank_gain_one of candidate c with the arguments of the function it is used in; in the
 * lazy loop, with the candidate's new bounds and its mark. */
#define CORSET_GAIN_OF(c) \
    corset_rank_gain_one((c), label_indptr, credit, label_bits, ranks, n_words, support_indptr, support_ids, \
                         tail_indptr, tail_ids, accuracy, distance_sums, lam, submodular, gains, areas, base, \
                         bits, rank_rows)
#define CORSET_EVALUATE(c) \
    do { \
        const double quality_ = CORSET_GAIN_OF(c); \
        q_bound[c] = quality_ > 0.0 ? quality_ : 0.0; \
        area_bound[c] = areas[c]; \
        exact[c] = 1; \
    } while (0)

CORSET_POPCNT_CLONES
static Py_ssize_t corset_rank_gains(const int64_t* label_indptr, const double* credit,
                                    const uint64_t* label_bits, const int32_t* ranks, Py_ssize_t n_words,
                                    const int64_t* support_indptr, const int32_t* support_ids,
                                    const int64_t* tail_indptr, const int32_t* tail_ids,
                                    const double* accuracy, const double* distance_sums,
                                    const uint8_t* eligible, Py_ssize_t n_candidates,
                                    double lam, int submodular, double* gains, int64_t* areas,
                                    int64_t* base, const uint64_t** bits, const int32_t** rank_rows)
{
    Py_ssize_t chosen = -1;
    double best_gain = 0.0;
    for (Py_ssize_t c = 0; c < n_candidates; ++c) {
        CORSET_GAIN_OF(c);
        if (eligible[c] && gains[c] > best_gain) {
            best_gain = gains[c];
            chosen = c;
        }
    }
    return chosen;
}

/* An unevaluated candidate of corset_lazy_rank_gains and its gain bound; the
 * candidates wait in a binary heap, the largest bound on top (ties: the lower
 * index). */
typedef struct {
    double bound;
    Py_ssize_t index;
} corset_bound_item;

static inline int corset_bound_before(const corset_bound_item* a, const corset_bound_item* b)
{
    return a->bound > b->bound || (a->bound == b->bound && a->index < b->index);
}

static void corset_bound_sift_down(corset_bound_item* heap, Py_ssize_t n, Py_ssize_t i)
{
    for (;;) {
        Py_ssize_t top = i;
        const Py_ssize_t left = 2 * i + 1, right = left + 1;
        if (left < n && corset_bound_before(&heap[left], &heap[top]))
            top = left;
        if (right < n && corset_bound_before(&heap[right], &heap[top]))
            top = right;
        if (top == i)
            return;
        const corset_bound_item item = heap[i];
        heap[i] = heap[top];
        heap[top] = item;
        i = top;
    }
}

/* corset_rank_gains evaluated lazily (Minoux's accelerated greedy): the same
 * arg max, with the eligible candidates evaluated only while one of them may
 * still beat the best gain found.
 *
 * ``q_bound`` and ``area_bound`` hold, per candidate, an upper bound of its
 * quality term and its area from an earlier evaluation under a coverage that
 * the current one contains (INFINITY: none yet).  As the coverage grows,
 * each occurrence's term of q, (a - b)+ or 1, can only shrink, and so can q
 * (a sum in the same order of terms that are each no larger: IEEE rounding
 * is monotone), and a·area with it when a >= 0; a(R) computed as a KL
 * divergence can round to a tiny negative value, so the bound kept is
 * max(q, 0).  ½·q_bound + λ·distance_sums[c], with the current distance
 * sums, then bounds the gain from above.  Candidates without a bound are
 * evaluated first, in order; then the unevaluated one with the largest bound
 * (ties: the lowest index), from a heap built once (the bounds of the
 * others do not change), until that bound is below the best gain, or equal
 * to it with a higher index than the best (which keeps the tie with the
 * lowest index, as the full loop does).  An evaluated candidate gets its
 * exact area, gain and new bounds and ``exact[c] = 1``; the others keep
 * their bounds in ``areas`` and ``gains``, with ``exact[c] = 0``.
 * Ineligible candidates are not evaluated.  Returns -2 when the heap cannot
 * be allocated. */
CORSET_POPCNT_CLONES
static Py_ssize_t corset_lazy_rank_gains(const int64_t* label_indptr, const double* credit,
                                         const uint64_t* label_bits, const int32_t* ranks, Py_ssize_t n_words,
                                         const int64_t* support_indptr, const int32_t* support_ids,
                                         const int64_t* tail_indptr, const int32_t* tail_ids,
                                         const double* accuracy, const double* distance_sums,
                                         const uint8_t* eligible, Py_ssize_t n_candidates,
                                         double lam, int submodular, double* gains, int64_t* areas,
                                         double* q_bound, int64_t* area_bound, uint8_t* exact,
                                         int64_t* base, const uint64_t** bits, const int32_t** rank_rows)
{
    Py_ssize_t chosen = -1, n_waiting = 0;
    double best_gain = 0.0;
    for (Py_ssize_t c = 0; c < n_candidates; ++c) {
        exact[c] = 0;
        if (eligible[c] && q_bound[c] == INFINITY) {
            CORSET_EVALUATE(c);
            if (gains[c] > best_gain) {
                best_gain = gains[c];
                chosen = c;
            }
        } else {
            gains[c] = 0.5 * q_bound[c] + lam * distance_sums[c];
            areas[c] = area_bound[c];
            n_waiting += eligible[c] != 0;
        }
    }
    if (n_waiting == 0)
        return chosen;
    corset_bound_item* heap = (corset_bound_item*) malloc((size_t) n_waiting * sizeof(corset_bound_item));
    if (heap == NULL)
        return -2;
    Py_ssize_t n_heap = 0;
    for (Py_ssize_t c = 0; c < n_candidates; ++c)
        if (eligible[c] && !exact[c]) {
            heap[n_heap].bound = gains[c];
            heap[n_heap].index = c;
            ++n_heap;
        }
    for (Py_ssize_t i = n_heap / 2 - 1; i >= 0; --i)
        corset_bound_sift_down(heap, n_heap, i);
    while (n_heap > 0) {
        const Py_ssize_t next = heap[0].index;
        const double bound = heap[0].bound;
        if (bound < best_gain || (bound == best_gain && (chosen < 0 || next > chosen)))
            break;
        CORSET_EVALUATE(next);
        if (gains[next] > best_gain || (gains[next] == best_gain && chosen >= 0 && next < chosen)) {
            best_gain = gains[next];
            chosen = next;
        }
        heap[0] = heap[--n_heap];
        corset_bound_sift_down(heap, n_heap, 0);
    }
    free(heap);
    return chosen;
}

#undef CORSET_GAIN_OF
#undef CORSET_EVALUATE

#endif /* CORSET_GAINS_H */
