"""Argument checks shared by the samplers (run before any compiled code), their per-tail cache, and
the records' plain-feature counts."""
from collections import OrderedDict

import numpy as np

from .._ext._typedefs import INDEX_DTYPE
from .._validation import _is_canonical, check_fits_memory, check_ids, check_positive_int
from ..binarydata import BinaryData


def check_data(data, name="data"):
    """``data`` must be a :class:`~corset.BinaryData` with labels."""
    if not isinstance(data, BinaryData):
        raise TypeError(f"{name} must be a corset.BinaryData; got {type(data).__name__} "
                        "(build one with corset.BinaryData(X, Y))")
    return data


def check_tail(tail, data, name="tail"):
    """A tail as a sorted, non-empty int32 array of label ids."""
    return check_ids(tail, data.n_labels, name, allow_empty=False, what="label ids")


def plain_feature_counts(data):
    """|P_D| of every record of ``data`` (int64): its features that are not negated literals (every
    feature of data without them).  The "plain" pair proposal weighs records by it, and the GH
    searches find where a record's plain features end in its sorted row from it."""
    negated = getattr(data, "negated_features", None)
    n_plain = data.n_features - (0 if negated is None else negated.size)
    if n_plain < data.n_features:
        # The plain features' posting lists: a record holds few of them (it holds nearly
        # every negated literal, whose ids come after them).
        index = data.feature_records
        ids = np.asarray(index.ids)[:int(index.indptr[n_plain])]
        return np.bincount(ids, minlength=data.n_records).astype(np.int64)
    return np.asarray(data.record_n_features, dtype=np.int64)


#: The most draws one call may ask for (2**31 - 1, the largest int32 id).  The samplers allocate
#: their output for every draw before the first one: a request past any machine's memory is
#: refused here instead of filling memory until the process is killed; a smaller one past this
#: machine's memory by :func:`check_fits_memory`.
MAX_DRAWS = int(np.iinfo(INDEX_DTYPE).max)

#: The least memory a draw takes in a sampler's output: its record (int32), its offset (int64)
#: and one id (int32).  A lower bound: a request refused by it could never have been served.
DRAW_BYTES = 16


def check_n(n, name="n"):
    """A number of samples: an integer in [0, MAX_DRAWS] whose draws fit in memory."""
    n = check_positive_int(n, name, minimum=0)
    if n > MAX_DRAWS:
        raise ValueError(f"{name} must be at most {MAX_DRAWS} draws per call; got {n}")
    check_fits_memory(n, DRAW_BYTES, f"{name}={n} draws")
    return n


def no_draws(return_records):
    """What a tail sampler's ``sample(0, ...)`` returns when every tail has weight 0: no tail (and,
    with ``return_records``, no record, int32 as the kernels' records).  Drawing nothing needs
    no positive weight, so it is not the error that a draw would be."""
    if return_records:
        return [], np.empty(0, dtype=INDEX_DTYPE)
    return []


def cached_per_tail(cache, size, data, tail, build):
    """The value ``build(tail, key)`` for ``tail``, kept in the LRU ``cache`` of ``size`` entries.

    ``tail`` is validated first (:func:`check_tail`); ``key`` is its tuple of
    label ids.  The head samplers keep their per-tail proposals here.
    """
    if type(tail) is tuple and tail and _is_canonical(tail, data.n_labels):
        # A canonical tail is its own key: a hit needs no validation and no array.
        return cached_per_key(cache, size, tail, build)
    tail = check_tail(tail, data)
    return cached_per_key(cache, size, tuple(tail.tolist()), build, tail)


def cached_per_key(cache, size, key, build, tail=None):
    """:func:`cached_per_tail` for a tail already canonical, ``key`` (its tuple of label ids).

    On a miss, ``build(tail, key)`` is called with ``tail`` (default: ``key``
    as an int32 array), kept, and the least recently used entry dropped past
    ``size``; an exception of ``build`` leaves the cache unchanged.
    """
    value = cache.get(key)
    if value is not None:
        cache.move_to_end(key)
        return value
    value = build(np.array(key, dtype=INDEX_DTYPE) if tail is None else tail, key)
    cache[key] = value
    if len(cache) > size:
        cache.popitem(last=False)
    return value


def new_tail_cache():
    """An empty cache for :func:`cached_per_tail`."""
    return OrderedDict()
