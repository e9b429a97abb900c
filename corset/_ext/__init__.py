"""Compiled kernels of corset (Cython, typed memoryviews, ``nogil`` cores).

Only the pure-Python subpackages of corset import from here.  The kernels do
no validation of their own: callers hand them C-contiguous arrays of the
dtypes fixed in :mod:`corset._ext._typedefs` (``INDEX_DTYPE`` for record,
feature and label ids, ``PTR_DTYPE`` for CSR offsets).
"""
