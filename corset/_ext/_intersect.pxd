# Intersection of sorted id arrays: the support computations of corset.
#
# Every record-id list here is strictly increasing (a posting list of the
# inverted index, or the result of intersecting such lists).  The cores are
# pure kernels: ``noexcept nogil``, no allocation, no validation.
from corset._ext._typedefs cimport index_t, int64_t, ptr_t, uint8_t, uint64_t

# Below this length ratio the linear merge is used, above it galloping.
cdef enum:
    GALLOP_RATIO = 16

cdef inline Py_ssize_t gallop(const index_t* b, Py_ssize_t lo, Py_ssize_t nb,
                              index_t target) noexcept nogil:
    """The first position p >= lo with b[p] >= target (nb if none): an
    exponential probe from ``lo``, then a binary search."""
    cdef Py_ssize_t step = 1, hi = lo, mid
    while hi < nb and b[hi] < target:
        lo = hi + 1
        hi += step
        step <<= 1
    if hi > nb:
        hi = nb
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        if b[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef extern from "corset_bits.h":
    # The one popcount of the kernels (see the header for why its SWAR form is fast everywhere).
    int popcount64 "corset_popcount64"(uint64_t x) noexcept nogil
    int64_t _common_bits "corset_common_bits"(const uint64_t* x, const uint64_t* y, int64_t first,
                                              int64_t last) noexcept nogil


cdef inline Py_ssize_t common_bits(const uint64_t* x, const uint64_t* y,
                                   Py_ssize_t first_word, Py_ssize_t last_word) noexcept nogil:
    """|x ∩ y| for two bitsets whose common bits all lie in words first_word..last_word."""
    return <Py_ssize_t> _common_bits(x, y, first_word, last_word)


cdef Py_ssize_t intersect_count_ptr(const index_t* a, Py_ssize_t na,
                                    const index_t* b, Py_ssize_t nb) noexcept nogil

cdef Py_ssize_t intersect_into_ptr(const index_t* a, Py_ssize_t na,
                                   const index_t* b, Py_ssize_t nb,
                                   index_t* out) noexcept nogil

cdef Py_ssize_t support_into_ptr(const ptr_t* indptr, const index_t* ids,
                                 const index_t* keys, Py_ssize_t n_keys,
                                 Py_ssize_t n_records,
                                 index_t* out, index_t* order) noexcept nogil

cdef Py_ssize_t support_count_ptr(const ptr_t* indptr, const index_t* ids,
                                  const index_t* keys, Py_ssize_t n_keys,
                                  Py_ssize_t n_records,
                                  index_t* work, index_t* order) noexcept nogil

cdef Py_ssize_t count_marked_ptr(const index_t* records, Py_ssize_t n,
                                 const uint8_t* mask) noexcept nogil
