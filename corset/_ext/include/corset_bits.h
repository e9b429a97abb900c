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

/* The popcount loops over long bitsets also come built for AVX-512's
 * VPOPCNTQ, chosen at run time by corset_wide_popcount(n_words): where the
 * CPU has it, loops of at least CORSET_WIDE_WORDS words take the build with
 * 256-bit vectors (four words an instruction), and loops of at least
 * CORSET_WIDER_WORDS words the build with 512-bit vectors (eight).  Shorter
 * loops stay scalar: there the vector loop's set-up and final reduction cost
 * more than they save (measured on a loop of three popcounts a word:
 * 256-bit 1.6 times faster than scalar over 12 words, slower over 5;
 * 512-bit 1.2 times faster than 256-bit over 48 words, slower over 16).
 * The counts are integers, the same in every build.  target_clones cannot
 * express these builds (GCC 12 accepts AVX-512 only as "arch=...", which
 * is chosen by CPU model, not by feature), so the choice is an explicit,
 * predictable branch. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define CORSET_HAS_WIDE 1
#define CORSET_WIDE_TARGET __attribute__((target("avx512f,avx512vl,avx512vpopcntdq,prefer-vector-width=256")))
#define CORSET_WIDER_TARGET __attribute__((target("avx512f,avx512vl,avx512vpopcntdq,prefer-vector-width=512")))
#else
#define CORSET_HAS_WIDE 0
#endif
#define CORSET_WIDE_WORDS 8
#define CORSET_WIDER_WORDS 24
/* 0: the scalar build; 1: the 256-bit build; 2: the 512-bit build. */
static inline int corset_wide_popcount(int64_t n_words) {
#if CORSET_HAS_WIDE
    if (n_words < CORSET_WIDE_WORDS || !__builtin_cpu_supports("avx512vpopcntdq")) return 0;
    return n_words < CORSET_WIDER_WORDS ? 1 : 2;
#else
    (void) n_words;
    return 0;
#endif
}

/* The builds of a popcount loop NAME##_body (static inline, always_inline):
 * NAME##_scalar (with CORSET_POPCNT_CLONES), NAME##_wide and NAME##_wider
 * (256- and 512-bit VPOPCNTQ), and NAME, which calls the one
 * corset_wide_popcount gives for a loop over N_WORDS words.  PARAMS is the
 * parenthesised parameter list, ARGS the parenthesised argument list. */
#if CORSET_HAS_WIDE
#define CORSET_POPCOUNT_BUILDS(ret, name, params, args, n_words)             \
    CORSET_POPCNT_CLONES static ret name##_scalar params { return name##_body args; } \
    CORSET_WIDE_TARGET static ret name##_wide params { return name##_body args; }     \
    CORSET_WIDER_TARGET static ret name##_wider params { return name##_body args; }   \
    static inline ret name params {                                           \
        int level = corset_wide_popcount(n_words);                            \
        if (level == 2) return name##_wider args;                             \
        if (level == 1) return name##_wide args;                              \
        return name##_scalar args;                                            \
    }
#else
#define CORSET_POPCOUNT_BUILDS(ret, name, params, args, n_words)             \
    CORSET_POPCNT_CLONES static ret name##_scalar params { return name##_body args; } \
    static inline ret name params { return name##_scalar args; }
#endif

/* |x & y| over words first..last (none when last < first): the common bits of two
 * bitsets, e.g. the features two records share.  Built with CORSET_POPCNT_CLONES:
 * one POPCNT instruction per word where the CPU has it (the SWAR form inlined into
 * a caller built without it costs about twenty instructions a word). */
static inline __attribute__((always_inline)) int64_t corset_common_bits_body(
        const uint64_t *x, const uint64_t *y, int64_t first, int64_t last) {
    int64_t k = 0;
    for (int64_t w = first; w <= last; ++w) k += corset_popcount64(x[w] & y[w]);
    return k;
}
CORSET_POPCOUNT_BUILDS(int64_t, corset_common_bits,
                       (const uint64_t *x, const uint64_t *y, int64_t first, int64_t last),
                       (x, y, first, last), last - first + 1)

#endif /* CORSET_BITS_H */
