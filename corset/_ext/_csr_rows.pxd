# Rows of CSR arrays, for other modules' compiled code (the candidate store gathers a pool's rows).
from libc.stdint cimport int64_t

from corset._ext._typedefs cimport index_t, ptr_t


cdef ptr_t gather_rows_into(const ptr_t* indptr, const index_t* ids, const int64_t* rows, Py_ssize_t n_rows,
                            ptr_t* out_indptr, index_t* out_ids) noexcept nogil
