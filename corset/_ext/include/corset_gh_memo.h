/* CORSET-GH's search tree: entries, their order and selection, the popcount loops of a node build, and the child table (C++; used by _gh_memo.pyx). */
#ifndef CORSET_GH_MEMO_H
#define CORSET_GH_MEMO_H

#include <Python.h>   /* Py_ssize_t */
#include <stdint.h>
#include <algorithm>
#include <vector>

#include "corset_bits.h"
/* 24 bytes: phi(H + h) itself is not stored but recomputed from n_pos and
   n_neg by the same expression that made it (the same double). */
struct corset_gh_entry {
    double gain;        /* phi(H + h) - phi(H) */
    int32_t feature;    /* h */
    int32_t n_pos;      /* |D[H + h] & D_T^+| */
    int32_t n_support;  /* |D[H + h]|, every record whatever its role */
    int32_t n_neg;      /* |D[H + h] & D_T^-| */
};
/* Decreasing gain, then increasing feature id: the plain search's tie rule. */
static inline bool corset_gh_before(const corset_gh_entry& a, const corset_gh_entry& b) {
    if (a.gain != b.gain) return a.gain > b.gain;
    return a.feature < b.feature;
}
/* The same order as a function object, so that the sorts inline it. */
struct corset_gh_order {
    bool operator()(const corset_gh_entry& a, const corset_gh_entry& b) const {
        return corset_gh_before(a, b);
    }
};
/* The k first entries in order into first[0..k): a selection, then a sort of
   those k.  The order is total (feature ids differ), so these k entries are
   the same as a full sort's. */
static inline void corset_gh_top(corset_gh_entry* first, Py_ssize_t k, Py_ssize_t n) {
    if (k < n)
        std::nth_element(first, first + k, first + n, corset_gh_order());
    std::sort(first, first + k, corset_gh_order());
}
/* Offer e to the k best entries seen so far, heap[0..*n): a heap whose front is
   the worst of them (the last in order). */
static inline void corset_gh_offer(corset_gh_entry* heap, Py_ssize_t* n, Py_ssize_t k,
                                   const corset_gh_entry& e) {
    if (*n < k) {
        heap[(*n)++] = e;
        std::push_heap(heap, heap + *n, corset_gh_order());
    } else if (corset_gh_before(e, heap[0])) {
        std::pop_heap(heap, heap + k, corset_gh_order());
        heap[k - 1] = e;
        std::push_heap(heap, heap + k, corset_gh_order());
    }
}
/* The k best entries into first[0..k), in no order. */
static inline void corset_gh_partition(corset_gh_entry* first, Py_ssize_t k, Py_ssize_t n) {
    if (k < n)
        std::nth_element(first, first + k, first + n, corset_gh_order());
}
static inline void corset_gh_sort(corset_gh_entry* first, Py_ssize_t n) {
    std::sort(first, first + n, corset_gh_order());
}
/* Increasing feature id: the order of a node's entries past its sorted prefix when
   there are many (corset_gh_find looks a feature up among them). */
struct corset_gh_by_feature {
    bool operator()(const corset_gh_entry& a, const corset_gh_entry& b) const {
        return a.feature < b.feature;
    }
};
static inline void corset_gh_sort_by_feature(corset_gh_entry* first, Py_ssize_t n) {
    std::sort(first, first + n, corset_gh_by_feature());
}
/* The position of feature f among first[0..n), sorted by feature id; -1 when absent.
   *from: where to start, every feature before it being < f (0: anywhere); on return, the
   first position whose feature is >= f, so that increasing features are looked up in
   one pass: a galloping search from *from, whose steps grow with the distance covered. */
static inline Py_ssize_t corset_gh_find(const corset_gh_entry* first, Py_ssize_t n, int32_t f,
                                        Py_ssize_t* from) {
    Py_ssize_t lo = *from, step = 1, hi;
    while (lo + step < n && first[lo + step].feature < f) {
        lo += step;
        step <<= 1;
    }
    hi = lo + step < n ? lo + step : n;   /* first[hi].feature >= f, or hi == n */
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (first[mid].feature < f) lo = mid + 1; else hi = mid;
    }
    *from = lo;
    return (lo < n && first[lo].feature == f) ? lo : -1;
}
/* D[H] as a bitset: the AND of the path's feature bitsets (n_rw words each)
   into dh[0..n_rw); its first and last non-zero words into *lo and *hi.
   Returns |D[H]| (0: *lo > *hi). */
CORSET_POPCNT_CLONES
static Py_ssize_t corset_gh_and_columns(const uint64_t* feature_bits, Py_ssize_t n_rw,
                                        const int32_t* path, Py_ssize_t n_path, uint64_t* dh,
                                        Py_ssize_t* lo, Py_ssize_t* hi) {
    Py_ssize_t n = 0;
    *lo = n_rw;
    *hi = -1;
    for (Py_ssize_t k = 0; k < n_rw; ++k) {
        uint64_t x = feature_bits[(Py_ssize_t) path[0] * n_rw + k];
        for (Py_ssize_t i = 1; i < n_path; ++i)
            x &= feature_bits[(Py_ssize_t) path[i] * n_rw + k];
        dh[k] = x;
        if (x) {
            n += corset_popcount64(x);
            if (*lo > k) *lo = k;
            *hi = k;
        }
    }
    return n;
}
/* The number of bits set in x[0..n). */
CORSET_POPCNT_CLONES
static Py_ssize_t corset_gh_popcount(const uint64_t* x, Py_ssize_t n) {
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; ++i) k += corset_popcount64(x[i]);
    return k;
}
/* |col & dh|, and into *pos and *other |col & dpos| and |col & doth|, over words lo..hi
   (the wide build over many words: corset_wide_popcount). */
static inline __attribute__((always_inline)) int64_t corset_gh_counts_body(
        const uint64_t* col, const uint64_t* dh, const uint64_t* dpos, const uint64_t* doth,
        Py_ssize_t lo, Py_ssize_t hi, int64_t* pos, int64_t* other) {
    int64_t all = 0, p = 0, o = 0;
    for (Py_ssize_t k = lo; k <= hi; ++k) {
        all += corset_popcount64(col[k] & dh[k]);
        p += corset_popcount64(col[k] & dpos[k]);
        o += corset_popcount64(col[k] & doth[k]);
    }
    *pos = p;
    *other = o;
    return all;
}
CORSET_POPCOUNT_BUILDS(int64_t, corset_gh_counts,
                       (const uint64_t* col, const uint64_t* dh, const uint64_t* dpos, const uint64_t* doth,
                        Py_ssize_t lo, Py_ssize_t hi, int64_t* pos, int64_t* other),
                       (col, dh, dpos, doth, lo, hi, pos, other), hi - lo + 1)
/* The popcount loop of a node build, for every feature f: |D[f] & D[H]|,
   |D[f] & D[H] & D_T^+| and |D[f] & D[H] & role 0| over words lo..hi;
   features with a record in D[H] and not on the path are written to
   touched[] in increasing id order.  Returns how many.  With dpos NULL,
   only |D[f] & D[H]| (n_pos and n_other untouched): a node build that
   scans D[H]'s positive and role-0 records itself.  Like every
   popcount loop here, built with CORSET_POPCNT_CLONES (corset_bits.h): with
   the POPCNT instruction where the CPU has it, the same counts without; and
   over many words, with AVX-512's VPOPCNTQ where the CPU has that
   (corset_wide_popcount). */
static inline __attribute__((always_inline)) Py_ssize_t corset_gh_count_features_body(const uint64_t* feature_bits, Py_ssize_t n_features,
                                           Py_ssize_t n_rw, const uint64_t* dh, const uint64_t* dpos,
                                           const uint64_t* doth, int any_other, Py_ssize_t lo,
                                           Py_ssize_t hi, const int32_t* path, Py_ssize_t n_path,
                                           int32_t* n_all, int32_t* n_pos, int32_t* n_other,
                                           int32_t* touched) {
    Py_ssize_t n_touched = 0;
    for (Py_ssize_t f = 0; f < n_features; ++f) {
        const uint64_t* col = feature_bits + f * n_rw;
        int64_t all = 0, pos = 0, other = 0;
        for (Py_ssize_t k = lo; k <= hi; ++k)
            all += corset_popcount64(col[k] & dh[k]);
        if (all == 0) continue;
        int on_path = 0;
        for (Py_ssize_t k = 0; k < n_path; ++k)
            if (path[k] == (int32_t) f) { on_path = 1; break; }
        if (on_path) continue;
        n_all[f] = (int32_t) all;
        touched[n_touched++] = (int32_t) f;
        if (dpos == NULL) continue;
        for (Py_ssize_t k = lo; k <= hi; ++k)
            pos += corset_popcount64(col[k] & dpos[k]);
        if (any_other)
            for (Py_ssize_t k = lo; k <= hi; ++k)
                other += corset_popcount64(col[k] & doth[k]);
        n_pos[f] = (int32_t) pos;
        n_other[f] = (int32_t) other;
    }
    return n_touched;
}
CORSET_POPCOUNT_BUILDS(Py_ssize_t, corset_gh_count_features,
                       (const uint64_t* feature_bits, Py_ssize_t n_features, Py_ssize_t n_rw, const uint64_t* dh,
                        const uint64_t* dpos, const uint64_t* doth, int any_other, Py_ssize_t lo, Py_ssize_t hi,
                        const int32_t* path, Py_ssize_t n_path, int32_t* n_all, int32_t* n_pos,
                        int32_t* n_other, int32_t* touched),
                       (feature_bits, n_features, n_rw, dh, dpos, doth, any_other, lo, hi, path, n_path, n_all,
                        n_pos, n_other, touched), hi - lo + 1)
/* uint64 key -> int64 value, open addressing with linear probing in one
   array of slots (Fibonacci hashing of the key's bits).  Replaces
   std::unordered_map, whose find chases a bucket then a node (two
   dependent cache misses) after a modulo by a prime.  Keys are child keys
   (node << 32 | feature as uint32); all ones never occurs (node ids are
   below 2^31), so it marks an empty slot.  At most half full. */
struct corset_gh_slot { uint64_t key; int64_t value; };
struct corset_gh_keymap {
    std::vector<corset_gh_slot> slots;
    size_t count = 0;
    int shift = 64;
    static const uint64_t EMPTY = ~(uint64_t) 0;
    inline size_t home(uint64_t key) const {
        return (size_t) ((key * 0x9E3779B97F4A7C15ULL) >> shift);
    }
    /* The value of key, or -1. */
    inline int64_t find(uint64_t key) const {
        if (count == 0) return -1;
        const size_t mask = slots.size() - 1;
        for (size_t i = home(key);; i = (i + 1) & mask) {
            const corset_gh_slot& s = slots[i];
            if (s.key == key) return s.value;
            if (s.key == EMPTY) return -1;
        }
    }
    /* Set key's value (added when absent).  May throw std::bad_alloc, leaving the map as it was. */
    void set(uint64_t key, int64_t value) {
        if (2 * (count + 1) > slots.size()) grow();
        const size_t mask = slots.size() - 1;
        for (size_t i = home(key);; i = (i + 1) & mask) {
            corset_gh_slot& s = slots[i];
            if (s.key == key) { s.value = value; return; }
            if (s.key == EMPTY) { s.key = key; s.value = value; ++count; return; }
        }
    }
    void grow() {
        size_t size = slots.empty() ? 64 : 2 * slots.size();
        std::vector<corset_gh_slot> old(size, corset_gh_slot{EMPTY, -1});
        old.swap(slots);   /* slots: the new, empty array; old: the entries */
        int bits = 0;
        while (((size_t) 1 << bits) < size) ++bits;
        shift = 64 - bits;
        const size_t mask = size - 1;
        for (const corset_gh_slot& s : old) {
            if (s.key == EMPTY) continue;
            size_t i = home(s.key);
            while (slots[i].key != EMPTY) i = (i + 1) & mask;
            slots[i] = s;
        }
    }
    /* Forget every key, keeping the capacity (cheap for a small map cleared often). */
    void reset() {
        if (count) std::fill(slots.begin(), slots.end(), corset_gh_slot{EMPTY, -1});
        count = 0;
    }
    void release() { std::vector<corset_gh_slot>().swap(slots); count = 0; shift = 64; }
};

#endif /* CORSET_GH_MEMO_H */
