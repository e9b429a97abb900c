# A small, explicit-state random generator for nogil kernels.
#
# Python resolves ``random_state`` once (sklearn.utils.check_random_state) and
# hands each kernel call an explicit 64-bit seed; the kernels never touch a
# global generator.  The generator is SplitMix64 (Steele, Lea and Flood 2014),
# which passes BigCrush, needs one uint64 of state and can be seeded with any
# value, including 0.
from corset._ext._typedefs cimport uint64_t


cdef inline uint64_t rng_next(uint64_t* state) noexcept nogil:
    """Next 64 random bits."""
    state[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double rng_uniform(uint64_t* state) noexcept nogil:
    """A double uniform on [0, 1), with 53 random bits."""
    return <double>(rng_next(state) >> 11) * (1.0 / 9007199254740992.0)


cdef inline double rng_uniform_open(uint64_t* state) noexcept nogil:
    """A double uniform on (0, 1): never 0, so ``log(u)`` is finite."""
    return (<double>(rng_next(state) >> 11) + 0.5) * (1.0 / 9007199254740992.0)


cdef inline uint64_t rng_below(uint64_t* state, uint64_t n) noexcept nogil:
    """An integer uniform on {0, ..., n - 1}, n >= 1, without modulo bias.

    Lemire's multiply-and-reject method on the high 32 bits would bias for
    n > 2**32; plain rejection on the remainder is exact for every n.
    """
    cdef uint64_t limit, r
    if n <= 1:
        return 0
    # The largest multiple of n that fits in 64 bits, minus one.
    limit = (<uint64_t>0xFFFFFFFFFFFFFFFFULL) - ((<uint64_t>0xFFFFFFFFFFFFFFFFULL) % n + 1) % n
    r = rng_next(state)
    while r > limit:
        r = rng_next(state)
    return r % n


cdef inline bint rng_bit(uint64_t* state) noexcept nogil:
    """A fair coin."""
    return <bint>(rng_next(state) >> 63)
