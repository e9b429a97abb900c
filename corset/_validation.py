"""Input validation shared by the public entry points.

Everything a compiled kernel receives is checked here first: binary values,
2-D shapes, matching row counts, ids inside their range.  Errors name the
argument and say what was wrong; nothing is silently dropped or flipped.
"""
import functools
import numbers
import os

import numpy as np
import scipy.sparse as sp

from ._ext._typedefs import INDEX_DTYPE


def check_binary_matrix(M, name, *, allow_empty=True):
    """Return ``M`` as a canonical ``scipy.sparse.csr_array`` of dtype uint8.

    Parameters
    ----------
    M : array-like or sparse matrix of shape (n_records, n_columns)
        Values must be 0 or 1 (booleans are accepted).  A pandas DataFrame is
        read through ``numpy.asarray``.
    name : str
        The argument's name, used in error messages.
    allow_empty : bool, default=True
        Whether zero rows or zero columns are acceptable.

    Returns
    -------
    csr_array of dtype uint8, with sorted indices, no duplicates and no
    explicitly stored zeros.

    Raises
    ------
    ValueError
        If ``M`` is not 2-D, holds NaN or a value other than 0 and 1.
    """
    if sp.issparse(M):
        M = sp.csr_array(M, copy=True)
        M.sum_duplicates()
        data = M.data
    else:
        try:
            M = np.asarray(M)
        except Exception as exc:  # pragma: no cover - numpy's own message is clear
            raise ValueError(f"{name} could not be read as an array: {exc}") from exc
        if M.dtype == object:
            try:
                M = M.astype(np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name} must be a binary (0/1) matrix; it holds non-numeric values") from exc
        data = M
    if M.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_records, n_columns); got an array of shape {M.shape}")
    if not allow_empty and (M.shape[0] == 0 or M.shape[1] == 0):
        raise ValueError(f"{name} is empty: shape {M.shape}")
    if data.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a binary (0/1) matrix; got dtype {data.dtype}")
    # A dense 0/1 matrix of a common dtype: checked and converted in one compiled pass. Anything
    # else (sparse input, other dtypes, a value other than 0 and 1) goes through the checks below,
    # which name what is wrong.
    rows = None if sp.issparse(M) else _dense_binary_rows(M)
    if rows is not None:
        indptr, indices = rows
    else:
        _check_binary_values(data, name)
        if sp.issparse(M):
            M.eliminate_zeros()
            M.sort_indices()
            indices, indptr = M.indices, M.indptr
        else:
            dense = sp.csr_array(np.asarray(M != 0, dtype=np.uint8))
            dense.sort_indices()
            indices, indptr = dense.indices, dense.indptr
    # scipy needs indices and indptr of one dtype: int32 whenever the
    # non-zeros fit (the kernels' INDEX_DTYPE), int64 otherwise.
    dtype = INDEX_DTYPE if indptr[-1] < np.iinfo(INDEX_DTYPE).max else np.int64
    return sp.csr_array(
        (np.ones(indices.shape[0], dtype=np.uint8), indices.astype(dtype, copy=False),
         indptr.astype(dtype, copy=False)),
        shape=M.shape,
    )


def _check_binary_values(data, name):
    """Raise a ValueError naming ``name`` if ``data`` (values of a matrix) holds NaN, infinity or
    a value other than 0 and 1."""
    if data.dtype.kind == "f" and data.size and not np.isfinite(data).all():
        raise ValueError(f"{name} holds NaN or infinite values; it must be a binary (0/1) matrix")
    if data.size and data.dtype.kind != "b":
        bad = (data != 0) & (data != 1)
        if bad.any():
            values = np.unique(np.asarray(data[bad]).ravel())[:5]
            hint = ""
            if name == "X":
                hint = " (binarize continuous features first, e.g. with corset.preprocessing.PercentileBinarizer)"
            raise ValueError(
                f"{name} must be a binary (0/1) matrix; it holds other values, e.g. {values.tolist()}{hint}"
            )


_DENSE_KERNEL_DTYPES = {np.dtype(t): t for t in (np.uint8, np.int32, np.int64, np.float32, np.float64)}


def _dense_binary_rows(M):
    """``(indptr, indices)`` of dense ``M`` in one compiled pass (:func:`corset._ext._csr_rows.dense_binary_rows`),
    or None: a dtype the kernel does not take, or a value other than 0 and 1 (the caller's checks name it)."""
    dtype = np.dtype(np.uint8) if M.dtype == np.bool_ else M.dtype
    if dtype not in _DENSE_KERNEL_DTYPES or M.shape[1] > np.iinfo(INDEX_DTYPE).max:
        return None
    from ._ext import _csr_rows

    values = M.view(np.uint8) if M.dtype == np.bool_ else M
    return _csr_rows.dense_binary_rows(np.ascontiguousarray(values))


def _is_canonical(ids, n):
    """Whether ``ids`` is a tuple of Python ints, strictly increasing, inside [0, n).

    The form the library itself produces (rules, tails); such input needs no
    conversion, so validating it costs one pass in Python and no numpy call.
    Booleans are not ints here (``type(True) is bool``), as in :func:`check_ids`.
    """
    if type(ids) is not tuple:
        return False
    previous = -1
    for x in ids:
        if type(x) is not int or x <= previous:
            return False
        previous = x
    return previous < n


#: Id arrays up to this long are checked in Python (see :func:`check_ids`).
_SMALL_IDS = 32


def check_ids(ids, n, name, *, allow_empty=True, order="sort", whole_floats=True, what="ids"):
    """Return ``ids`` as a duplicate-free int32 array of ids in [0, n).

    Raises ``ValueError`` naming ``name`` for an id out of range, a duplicate,
    a non-integer or (unless ``allow_empty``) an empty set, and ``TypeError``
    for something that is no sequence at all (a single id, None); ``what``
    ("feature ids", "label ids") says in that message what is expected.
    Whole numbers written as floats (``1.0``) are ids unless ``whole_floats``
    is False; booleans never are.

    ``order``: ``"sort"`` returns the ids sorted; ``"keep"`` returns them in
    the caller's order (where the order means something, such as the columns
    of negated literals); ``"increasing"`` requires them strictly increasing
    already (a set the caller must pass sorted) and says so otherwise.
    """
    if order not in ("sort", "keep", "increasing"):
        raise ValueError(f"order must be 'sort', 'keep' or 'increasing'; got {order!r}")
    if type(ids) is tuple and ids and _is_canonical(ids, n):
        # Already sorted, distinct and in range: the conversion is all that is left.
        return np.array(ids, dtype=INDEX_DTYPE)
    if (type(ids) is np.ndarray and ids.ndim == 1 and 0 < ids.size <= _SMALL_IDS and ids.dtype.kind in "iu"
            and _is_canonical(tuple(ids.tolist()), n)):
        # A rule's head or tail already checked (a few ids): one pass in Python costs less than
        # the min, max and order tests below, each a numpy call of several microseconds.
        return ids.astype(INDEX_DTYPE)
    if not isinstance(ids, np.ndarray):
        if not hasattr(ids, "__iter__"):
            # A single id (head_support(0) meant as head_support((0,))), None or a float: list()
            # would raise its own TypeError, which names no argument.
            if isinstance(ids, numbers.Integral) and not isinstance(ids, (bool, np.bool_)):
                raise TypeError(f"{name} must be a sequence of {what}, e.g. ({int(ids)},); got the integer {int(ids)}")
            raise TypeError(f"{name} must be a sequence of {what}; got {type(ids).__name__} {ids!r}")
        if order == "keep" and isinstance(ids, (set, frozenset)):
            raise TypeError(f"{name} must be an ordered sequence of {what} (their order is kept); got a set")
        ids = list(ids)
        if any(isinstance(i, (bool, np.bool_)) for i in ids):
            # numpy would read [True, 2] as the ids 1 and 2.
            raise ValueError(f"{name} must hold integer ids; got a boolean among {ids}")
    arr = np.asarray(ids)
    if arr.ndim != 1 and (arr.size or isinstance(ids, np.ndarray)):
        # An array's shape is checked even when empty (a (0, 3) support is no list of ids).
        raise ValueError(f"{name} must be a 1-D sequence of ids; got shape {arr.shape}")
    if arr.size == 0:
        if not allow_empty:
            raise ValueError(f"{name} is empty")
        return np.empty(0, dtype=INDEX_DTYPE)
    if arr.dtype.kind not in "iu" and not (whole_floats and arr.dtype.kind == "f"
                                           and np.all(np.mod(arr, 1) == 0)):
        raise ValueError(f"{name} must hold integer ids; got dtype {arr.dtype}")
    # Range first, on the caller's dtype: a float or a wider id must not wrap into range.
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"{name} holds an id outside [0, {n}): {_shown(arr)}")
    if arr.max() > np.iinfo(INDEX_DTYPE).max:
        raise ValueError(f"{name} holds {_shown(arr[arr > np.iinfo(INDEX_DTYPE).max])}: ids must fit in int32")
    if arr.dtype.kind == "f":
        arr = arr.astype(np.int64)
    if arr.size == 1 or bool(np.all(arr[1:] > arr[:-1])):
        # Strictly increasing: np.unique would return it unchanged.
        return arr.astype(INDEX_DTYPE)
    if order == "increasing":
        raise ValueError(f"{name} must hold strictly increasing ids (sorted, each once): {_shown(arr)}")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} holds duplicate ids: {_shown(arr)}")
    return arr.astype(INDEX_DTYPE) if order == "keep" else np.sort(arr).astype(INDEX_DTYPE)


def _shown(arr, limit=20):
    """The ids of ``arr`` for an error message: all of them, or the first ``limit`` and a count."""
    if arr.size <= limit:
        return str(arr.tolist())
    return f"{arr[:limit].tolist()} and {arr.size - limit} more"


def integer_array(values, name, what):
    """``values`` as a 1-D int64 array; ``what`` says in errors what the entries are.

    Floats (even whole ones) and booleans are refused rather than truncated or
    read as 0/1.
    """
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of {what}; it could not be read as one: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of {what}; got an array of shape {arr.shape}")
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers ({what}); got dtype {arr.dtype}")
    if arr.dtype == np.uint64 and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds {int(arr.max())}, beyond the int64 range")
    return arr.astype(np.int64, copy=False)


def check_id_rows(indptr, ids, n, *, indptr_name="indptr", ids_name="ids", row="set", n_name="n", n_rows=None,
                  allow_empty=True):
    """``(indptr, ids)`` as int64 arrays, after checking they are a CSR of rows of distinct ids in [0, n).

    Each row (a set of items, a rule's head or tail) is ``ids[indptr[k]:indptr[k + 1]]``
    and must be strictly increasing.  Every test is a vectorised pass over
    the arrays; errors name the argument (``indptr_name``, ``ids_name``) and
    the first offending row (``row`` k), and the bound as ``n_name``.  ``n_rows``: the number of rows
    required (None: any); ``allow_empty``: whether a row may hold no id.
    Ids must fit in int32, the kernels' id type.
    """
    indptr = integer_array(indptr, indptr_name, f"offsets (n_{row}s + 1 of them)")
    ids = integer_array(ids, ids_name, "ids")
    if indptr.size == 0:
        raise ValueError(f"{indptr_name} must hold n_{row}s + 1 offsets, starting at 0; got an empty array "
                         f"(no {row}s: [0])")
    if indptr[0] != 0:
        raise ValueError(f"{indptr_name} must start at 0; got {indptr_name}[0] = {int(indptr[0])}")
    if n_rows is not None and indptr.size != n_rows + 1:
        raise ValueError(f"{indptr_name} describes {indptr.size - 1} {row}s; expected {n_rows}")
    falls = np.flatnonzero(indptr[1:] < indptr[:-1] if allow_empty else indptr[1:] <= indptr[:-1])
    if falls.size:
        k = int(falls[0])
        what = "ends before it starts" if indptr[k + 1] < indptr[k] else "is empty"
        raise ValueError(f"{indptr_name} must be {'non-decreasing' if allow_empty else 'increasing (every ' + row + ' non-empty)'}; "
                         f"{row} {k} {what} ({indptr_name}[{k}] = {int(indptr[k])}, "
                         f"{indptr_name}[{k + 1}] = {int(indptr[k + 1])})")
    if indptr[-1] != ids.size:
        raise ValueError(f"{indptr_name} must end at len({ids_name}) = {ids.size}; "
                         f"got {indptr_name}[-1] = {int(indptr[-1])}")
    if ids.size:
        outside = np.flatnonzero((ids < 0) | (ids >= n))
        if outside.size:
            i = int(outside[0])
            raise ValueError(f"{ids_name}: {row} {_row_of(indptr, i)} holds the id {int(ids[i])}, "
                             f"outside [0, {n_name}) = [0, {n})")
        if ids.max() > np.iinfo(INDEX_DTYPE).max:
            raise ValueError(f"{ids_name} holds {int(ids.max())}; ids must fit in int32")
        increasing = ids[1:] > ids[:-1]
        # A comparison across two rows (last id of one, first of the next) does not count.
        starts = indptr[1:-1]
        increasing[starts[(starts > 0) & (starts < ids.size)] - 1] = True
        unordered = np.flatnonzero(~increasing)
        if unordered.size:
            k = _row_of(indptr, int(unordered[0]) + 1)
            raise ValueError(f"{ids_name}: {row} {k} is not strictly increasing: "
                             f"{ids[indptr[k]:indptr[k + 1]].tolist()} (each {row}'s ids must be sorted "
                             "and distinct)")
    return indptr, ids


def _row_of(indptr, position):
    """The row whose slice of ``ids`` holds ``position`` (the last one, when empty rows share the offset)."""
    return int(np.searchsorted(indptr, position, side="right")) - 1


def check_seed(random_state):
    """Resolve ``random_state`` once into a numpy ``Generator``-independent RandomState.

    Thin wrapper over :func:`sklearn.utils.check_random_state`: it never seeds
    a global generator.
    """
    if type(random_state) is np.random.RandomState:
        # The common case inside the library (a generator resolved once per
        # fit), checked without sklearn's chain of isinstance tests.
        return random_state
    from sklearn.utils import check_random_state

    if isinstance(random_state, np.random.Generator):
        # scikit-learn's convention, which the library follows: a RandomState (or a seed) resolved once.
        raise ValueError("random_state must be None, an int in [0, 2**32 - 1] or a numpy RandomState; got a numpy "
                         "Generator (pass e.g. np.random.RandomState(generator.integers(2**32)) instead)")
    try:
        return check_random_state(random_state)
    except ValueError as exc:
        raise ValueError(f"random_state: {exc}") from None


def draw_seeds(random_state, n):
    """Draw ``n`` independent uint64 seeds for compiled kernels from a RandomState."""
    halves = raw_seed_halves(check_seed(random_state), 2 * n)
    # The n high halves, then the n low halves.
    return (halves[:n] << np.uint64(32)) | halves[n:]


def raw_seed_halves(rng, count):
    """``count`` 32-bit values of ``rng`` (uint64): the stream :func:`draw_seeds` reads its seeds' halves from.

    The values ``rng.randint(0, 2**32, size=count, dtype=np.uint64)`` would
    draw.  randint over [0, 2^32) takes exactly one 32-bit output of the bit
    generator per value (no rejection), so reading in one call or piece by
    piece gives the same values in the same order; for the default MT19937
    the raw outputs are those 32-bit values, read without randint's fixed
    cost (about 10 µs a call).
    """
    if type(getattr(rng, "_bit_generator", None)) is np.random.MT19937:
        return rng._bit_generator.random_raw(count)
    return rng.randint(0, 2**32, size=count, dtype=np.uint64)


def check_positive_int(value, name, *, minimum=1, allow_none=False):
    """Return ``value`` as an int >= ``minimum``; the error names the parameter."""
    if type(value) is int and value >= minimum:
        return value
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value}")
    return int(value)


def is_missing(value):
    """Is one value of an object column missing: None, NaN, NaT or pandas' NA (without importing pandas)?"""
    return (value is None or type(value).__name__ in ("NAType", "NaTType")
            or (isinstance(value, float) and value != value))


def check_unique_names(names, name, item):
    """Raise when ``names`` (strings) holds a name twice: rules, exports and ``rules_by_label``
    would then not say which ``item`` they mean."""
    seen = set()
    for n in names:
        if n in seen:
            count = sum(1 for m in names if m == n)
            raise ValueError(f"{name}: the name {n!r} appears {count} times; each {item} needs a name of its own")
        seen.add(n)


@functools.lru_cache(maxsize=1)
def physical_memory():
    """This machine's physical memory in bytes, or None where the system does not say (asked
    once: every draw's check reads it)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):   # not POSIX, or the names are unknown
        return None


def check_fits_memory(count, bytes_each, what):
    """Refuse ``count`` items of at least ``bytes_each`` bytes each when they exceed this machine's
    physical memory.  Memory is handed out lazily (overcommitted), so such a request would not
    fail at once: it would fill memory until the process is killed."""
    total = physical_memory()
    if total is not None and count * bytes_each > total:
        raise ValueError(f"{what} would take at least {_size(count * bytes_each)} of memory, more than "
                         f"this machine's {_size(total)}")


def _size(n_bytes):
    return f"{n_bytes / 2**30:.1f} GiB" if n_bytes >= 2**30 else f"{n_bytes / 2**20:.1f} MiB"


def counted(n, word):
    """``"1 rule"``, ``"2 rules"``: a count and its noun, for messages."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
