/* The greedy step's gain loop over a pool (used by _selection.pyx), with the
 * coverage state in label-major form and the positions of label occurrences
 * found by rank in the labels' record bitsets. */
#ifndef CORSET_GAINS_H
#define CORSET_GAINS_H

#include <Python.h>   /* Py_ssize_t */
#include <stdint.h>

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
        double gain;
        if (submodular)
            gain = 0.5 * delta_quality + lam * distance_sums[c];
        else
            gain = 0.5 * (a * (double) area) + lam * distance_sums[c];
        gains[c] = gain;
        if (eligible[c] && gain > best_gain) {
            best_gain = gain;
            chosen = c;
        }
    }
    return chosen;
}

#endif /* CORSET_GAINS_H */
