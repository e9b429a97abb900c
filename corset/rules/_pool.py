"""Candidate pools held as arrays: what the samplers hand to the greedy selection.

Algorithm 1 draws a pool of about 500 candidate rules at every step.  The
samplers produce heads and tails as CSR arrays, and the selection's kernels
read CSR arrays; :class:`CandidatePool` carries the pool from one to the
other without a Python tuple per candidate.  It is still a sequence of
``(head, tail)`` tuples (built when an item is read), so any code written
for a list of rules accepts it.
"""
from collections.abc import Sequence
from itertools import chain

import numpy as np

from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from ._check import _rows

__all__ = ["CandidatePool"]


def _check_csr(indptr, ids, n, what, n_rows=None):
    """``(indptr, ids)`` as int64/int32 arrays, each row non-empty and strictly increasing in [0, n)."""
    indptr = np.asarray(indptr)
    if indptr.size and not np.issubdtype(indptr.dtype, np.integer):
        raise ValueError(f"candidate pool: {what}_indptr must hold integers; got dtype {indptr.dtype}")
    indptr = np.ascontiguousarray(indptr, dtype=PTR_DTYPE)
    ids = np.asarray(ids)
    if ids.size and not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"candidate pool: {what} ids must be integers; got dtype {ids.dtype}")
    if indptr.ndim != 1 or indptr.size == 0 or ids.ndim != 1:
        raise ValueError(f"candidate pool: {what}_indptr must be a non-empty 1-D array and {what}_ids 1-D")
    if n_rows is not None and indptr.size != n_rows + 1:
        raise ValueError(f"candidate pool: {what}_indptr describes {indptr.size - 1} rules; expected {n_rows}")
    lengths = np.diff(indptr)
    if indptr[0] != 0 or indptr[-1] != ids.size or (lengths <= 0).any():
        raise ValueError(f"candidate pool: every {what} must be non-empty and {what}_indptr must run "
                         f"from 0 to len({what}_ids) = {ids.size}")
    # Range first, on the caller's dtype: a wider id must not wrap into range.
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise ValueError(f"candidate pool: a {what} holds an id outside [0, {n})")
    ids = np.ascontiguousarray(ids, dtype=INDEX_DTYPE)
    if ids.size > lengths.size:
        increasing = ids[1:] > ids[:-1]
        increasing[indptr[1:-1] - 1] = True  # comparisons across two rows do not count
        if not increasing.all():
            raise ValueError(f"candidate pool: the ids of a {what} must be strictly increasing")
    return indptr, ids


class CandidatePool(Sequence):
    """A candidate pool as two CSR arrays: heads (feature ids) and tails (label ids).

    Parameters
    ----------
    head_indptr, head_ids : array-like
        Row i is the head of candidate i: sorted, distinct feature ids in
        ``[0, n_features)``, non-empty.
    tail_indptr, tail_ids : array-like
        Row i is its tail: sorted, distinct label ids in ``[0, n_labels)``,
        non-empty.
    n_features, n_labels : int
        The sizes of the spaces the ids index (checked against the data by
        :func:`corset.selection.greedy_selection`).

    The pool may hold a rule more than once (the selection keeps the first
    occurrence).  Items are ``(head, tail)`` tuples of Python ints, built on
    access.  The arrays are validated here, with numpy, so a pool can be
    handed to the compiled kernels as it is.

    Examples
    --------
    >>> from corset.rules import CandidatePool
    >>> pool = CandidatePool([0, 1, 3], [4, 0, 2], [0, 1, 2], [1, 0], n_features=5, n_labels=2)
    >>> list(pool)
    [((4,), (1,)), ((0, 2), (0,))]
    """

    def __init__(self, head_indptr, head_ids, tail_indptr, tail_ids, *, n_features, n_labels):
        self.n_features = int(n_features)
        self.n_labels = int(n_labels)
        self.head_indptr, self.head_ids = _check_csr(head_indptr, head_ids, self.n_features, "head")
        self.tail_indptr, self.tail_ids = _check_csr(tail_indptr, tail_ids, self.n_labels, "tail",
                                                     n_rows=self.head_indptr.size - 1)
        self._items = None

    @classmethod
    def _from_search(cls, head_indptr, head_ids, tail_indptr, tail_ids, *, n_features, n_labels):
        """A pool built by a head sampler of corset from its compiled search's output, not checked again.

        For :meth:`corset.sampling.GreedyHeadSearch.sample_pool` only: its
        tails were validated when the search was set up, and its heads are
        what the kernel emits (non-empty rows of sorted, distinct feature ids
        of the same data, int64 offsets and int32 ids).  Everything else
        builds a pool through the checked constructor.
        """
        pool = cls.__new__(cls)
        pool.n_features = int(n_features)
        pool.n_labels = int(n_labels)
        pool.head_indptr, pool.head_ids = head_indptr, head_ids
        pool.tail_indptr, pool.tail_ids = tail_indptr, tail_ids
        pool._items = None
        return pool

    @classmethod
    def from_rules(cls, rules, *, n_features, n_labels):
        """A pool from a sequence of (head, tail) pairs of sorted id sequences (repeats allowed)."""
        rules = list(rules)
        heads = [tuple(h) for h, _ in rules]
        tails = [tuple(t) for _, t in rules]

        def csr(parts):
            indptr = np.zeros(len(parts) + 1, dtype=PTR_DTYPE)
            np.cumsum(list(map(len, parts)), out=indptr[1:])
            ids = np.array(list(chain.from_iterable(parts)))
            return indptr, (ids if ids.size else np.zeros(0, dtype=INDEX_DTYPE))

        return cls(*csr(heads), *csr(tails), n_features=n_features, n_labels=n_labels)

    @property
    def arrays(self):
        """``(head_indptr, head_ids, tail_indptr, tail_ids)``: int64 offsets, int32 ids."""
        return self.head_indptr, self.head_ids, self.tail_indptr, self.tail_ids

    def __len__(self):
        return self.head_indptr.size - 1

    def _list(self):
        if self._items is None:
            heads = _rows(self.head_indptr, self.head_ids)
            tails = _rows(self.tail_indptr, self.tail_ids)
            self._items = list(zip(heads, tails))
        return self._items

    def __getitem__(self, index):
        return self._list()[index]

    def __iter__(self):
        return iter(self._list())

    def __repr__(self):
        return f"CandidatePool(n_candidates={len(self)}, n_features={self.n_features}, n_labels={self.n_labels})"

