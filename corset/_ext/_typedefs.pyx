"""NumPy dtypes matching the C types of ``_typedefs.pxd``."""
import numpy as np

INDEX_DTYPE = np.int32  # index_t
PTR_DTYPE = np.int64    # ptr_t
