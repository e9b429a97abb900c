/* Bit operations shared by corset's kernels: one popcount, one count of
 * trailing zeros, and the POPCNT dispatch of the hot popcount loops.
 *
 * corset_popcount64 is the portable SWAR form.  Inlined, it beats
 * __builtin_popcountll in code compiled without the POPCNT instruction
 * (where the builtin is a call into libgcc).  In a function compiled for
 * POPCNT (CORSET_POPCNT_CLONES below, or -mpopcnt), GCC recognises the SWAR
 * idiom and emits the single POPCNT instruction: one function, the fast form
 * in both cases.  corset_prefetch: a read hint for scattered accesses.
 */
#ifndef CORSET_BITS_H
#define CORSET_BITS_H

#include <stdint.h>

static inline int corset_popcount64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int) ((x * 0x0101010101010101ULL) >> 56);
}

/* The index of the lowest set bit of x (x != 0). */
static inline int corset_ctz64(uint64_t x) {
    return __builtin_ctzll(x);
}

/* A hint that *p will be read soon (no effect on results): loops over records
 * scattered across a large data set ask for a record's data some iterations
 * before they use it. */
#if defined(__GNUC__) || defined(__clang__)
#define corset_prefetch(p) __builtin_prefetch((const void *) (p))
#else
#define corset_prefetch(p) ((void) 0)
#endif

/* A function built twice on x86-64 Linux with GCC (target_clones): with the
 * POPCNT instruction and without, the loader picking the one the CPU runs
 * (the same counts).  target_clones needs ifunc, which glibc has and musl
 * (Alpine) has not; elsewhere the function is built once, portably. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define CORSET_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define CORSET_POPCNT_CLONES
#endif

/* |x & y| over words first..last (none when last < first): the common bits of two
 * bitsets, e.g. the features two records share.  Built with CORSET_POPCNT_CLONES:
 * one POPCNT instruction per word where the CPU has it (the SWAR form inlined into
 * a caller built without it costs about twenty instructions a word). */
CORSET_POPCNT_CLONES
static inline int64_t corset_common_bits(const uint64_t *x, const uint64_t *y, int64_t first, int64_t last) {
    int64_t k = 0;
    for (int64_t w = first; w <= last; ++w) k += corset_popcount64(x[w] & y[w]);
    return k;
}

#endif /* CORSET_BITS_H */
