# Kernels of the greedy rule selection (Algorithm 1 of the paper).
#
# A rule is seen here through its support D[R] (sorted record ids) and its
# tail T (sorted label ids); its coverage cov(R) = D[R] x T (eq. coverage) is
# never materialised.  Label occurrences (i, k) are addressed by their
# position in the CSR of Y: ``y_indptr[i]`` + the rank of k among record i's
# labels, so coverage state is a flat array aligned with ``Y.indices``.
from corset._ext._typedefs cimport index_t, ptr_t, uint8_t, uint64_t, int64_t, float64_t


cdef float64_t jaccard_distance_ptr(const index_t* support_a, Py_ssize_t n_support_a,
                                    const index_t* tail_a, Py_ssize_t n_tail_a,
                                    const index_t* support_b, Py_ssize_t n_support_b,
                                    const index_t* tail_b, Py_ssize_t n_tail_b) noexcept nogil


cdef void distance_sums_core(const ptr_t* support_indptr, const index_t* support_ids,
                             const ptr_t* tail_indptr, const index_t* tail_ids,
                             const uint8_t* eligible, Py_ssize_t n_todo, const int64_t* todo,
                             const int64_t* start,
                             const ptr_t* chosen_support_indptr, const index_t* chosen_support_ids,
                             const ptr_t* chosen_tail_indptr, const index_t* chosen_tail_ids,
                             Py_ssize_t first_chosen, Py_ssize_t n_chosen, float64_t* sums,
                             uint64_t* bits, uint64_t* dense_bits, Py_ssize_t n_rw) noexcept nogil


cdef void rule_ratios(int64_t r, int64_t h, int64_t t, int64_t n_records, float64_t* precision,
                      float64_t* base_rate, float64_t* accuracy) noexcept nogil


cdef ptr_t rule_supports_bound(const ptr_t* feature_indptr, const ptr_t* label_indptr, Py_ssize_t n_records,
                               const ptr_t* head_indptr, const index_t* head_ids,
                               const ptr_t* tail_indptr, const index_t* tail_ids,
                               Py_ssize_t n_rules, Py_ssize_t* max_keys) noexcept nogil


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
                              Py_ssize_t n_words, uint64_t* acc) noexcept nogil
