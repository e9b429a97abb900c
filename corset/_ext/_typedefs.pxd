# Fixed-width types shared by every kernel of corset._ext.
#
# Ids of records, features and labels are stored as int32 (the dtype of
# scipy.sparse indices; persisted and pickled arrays keep it), CSR offsets as
# int64 so that a data set with more than 2**31 non-zeros still works.  Loop
# counters are Py_ssize_t.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

ctypedef int32_t index_t     # a record, feature or label id
ctypedef int64_t ptr_t       # an offset into a CSR/CSC ids array
ctypedef double float64_t
