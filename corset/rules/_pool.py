"""Candidate pools held as arrays: what the samplers hand to the greedy selection.

Algorithm 1 draws a pool of about 500 candidate rules at every step.  The
samplers produce heads and tails as CSR arrays, and the selection's kernels
read CSR arrays; :class:`CandidatePool` carries the pool from one to the
other without a Python tuple per candidate.  It is still a sequence of
``(head, tail)`` tuples (built when an item is read), so any code written
for a list of rules accepts it.
"""
import numbers
from collections.abc import Sequence
from itertools import chain

import numpy as np

from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from .._validation import check_id_rows
from ._check import _rows

__all__ = ["CandidatePool"]


def _check_csr(indptr, ids, n, what, n_rows=None, *, owned=False):
    """``(indptr, ids)`` as read-only int64/int32 arrays, each row non-empty and strictly increasing in [0, n).

    The arrays returned belong to the pool: an input array that passes
    through unconverted is copied (unless ``owned``: arrays the library has
    just built for this pool), so the caller cannot change the checked ids
    behind the kernels' back.
    """
    checked = check_id_rows(indptr, ids, n, indptr_name=f"{what}_indptr", ids_name=f"{what}_ids", row="rule",
                            n_name="n_features" if what == "head" else "n_labels", n_rows=n_rows,
                            allow_empty=False)
    out = np.ascontiguousarray(checked[0], dtype=PTR_DTYPE), np.ascontiguousarray(checked[1], dtype=INDEX_DTYPE)
    if not owned:
        # Read again (it worked in the check) to see whether the result is still the caller's memory.
        out = tuple(_own(array, np.asarray(given), given) for array, given in zip(out, (indptr, ids)))
    return _read_only(out[0]), _read_only(out[1])


def _own(array, read, given):
    """``array`` (``read = numpy.asarray(given)``, converted), copied when it may be the caller's memory.

    A list or tuple is read into a new array, and a conversion (dtype,
    layout) makes one; anything else that passes through unconverted (an
    ndarray of the right dtype, a view, a buffer) is still the caller's and
    could change after the checks.
    """
    if type(given) in (list, tuple) or not np.may_share_memory(array, read):
        return array
    return array.copy()


def _read_only(array):
    """``array`` made read-only: a pool's ids are checked once, then only read."""
    array.flags.writeable = False
    return array


def _check_id_types(flat, parts, what):
    """Raise a ValueError unless every id of ``flat`` (the ids of ``parts``, in order) is an integer.

    numpy would read ``(True, 2)`` as ``[1, 2]`` and ``(1.5, 2)`` as floats;
    a bool is refused as :func:`corset.rules.check_rules` refuses it.
    """
    if set(map(type, flat)) <= {int}:   # the common case, without a loop in the interpreter
        return
    for x in flat:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
            rule = next(i for i, part in enumerate(parts) if any(y is x for y in part))
            raise ValueError(f"candidate pool: rule {rule}: the {what} must hold integer ids; "
                             f"got {x!r} in {parts[rule]!r}")


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
    handed to the compiled kernels as it is.  The pool keeps arrays of its
    own (an input array is copied unless converting it made a new one) and
    makes them read-only: ids changed after the checks would send the
    kernels outside the data.

    Examples
    --------
    >>> from corset.rules import CandidatePool
    >>> pool = CandidatePool([0, 1, 3], [4, 0, 2], [0, 1, 2], [1, 0], n_features=5, n_labels=2)
    >>> list(pool)
    [((4,), (1,)), ((0, 2), (0,))]
    """

    def __init__(self, head_indptr, head_ids, tail_indptr, tail_ids, *, n_features, n_labels):
        self._set_checked(head_indptr, head_ids, tail_indptr, tail_ids, n_features, n_labels, owned=False)

    def _set_checked(self, head_indptr, head_ids, tail_indptr, tail_ids, n_features, n_labels, *, owned):
        """Validate the arrays and keep them; ``owned``: the library has just built them for this pool (no copy)."""
        self.n_features = int(n_features)
        self.n_labels = int(n_labels)
        self.head_indptr, self.head_ids = _check_csr(head_indptr, head_ids, self.n_features, "head", owned=owned)
        self.tail_indptr, self.tail_ids = _check_csr(tail_indptr, tail_ids, self.n_labels, "tail",
                                                     n_rows=self.head_indptr.size - 1, owned=owned)
        self._items = None

    @classmethod
    def _from_search(cls, head_indptr, head_ids, tail_indptr, tail_ids, *, n_features, n_labels):
        """A pool built by a head sampler of corset from its compiled search's output, not checked again.

        For :meth:`corset.sampling.GreedyHeadSearch.sample_pool` only: its
        tails were validated when the search was set up, and its heads are
        what the kernel emits (non-empty rows of sorted, distinct feature ids
        of the same data, int64 offsets and int32 ids).  Everything else
        builds a pool through the checked constructor.  The arrays are new
        (the kernel's output, held by no one else): they are made read-only,
        not copied.
        """
        pool = cls.__new__(cls)
        pool.n_features = int(n_features)
        pool.n_labels = int(n_labels)
        pool.head_indptr, pool.head_ids = _read_only(head_indptr), _read_only(head_ids)
        pool.tail_indptr, pool.tail_ids = _read_only(tail_indptr), _read_only(tail_ids)
        pool._items = None
        return pool

    @classmethod
    def from_rules(cls, rules, *, n_features, n_labels):
        """A pool from a sequence of (head, tail) pairs of sorted id sequences (repeats allowed).

        Ids must be integers (Python or numpy ints); a bool or a float is
        refused, as :func:`corset.rules.check_rules` refuses it.
        """
        rules = list(rules)
        heads = [tuple(h) for h, _ in rules]
        tails = [tuple(t) for _, t in rules]

        def csr(parts, what, n):
            indptr = np.zeros(len(parts) + 1, dtype=PTR_DTYPE)
            np.cumsum(list(map(len, parts)), out=indptr[1:])
            flat = list(chain.from_iterable(parts))
            _check_id_types(flat, parts, what)
            try:
                # Integers only (checked above): a known dtype spares numpy's dtype discovery.
                ids = np.array(flat, dtype=np.int64)
            except OverflowError:
                raise ValueError(f"candidate pool: a {what} holds an id outside [0, {n})") from None
            return indptr, ids

        pool = cls.__new__(cls)
        # The arrays are built here, for this pool only: checked, not copied.
        pool._set_checked(*csr(heads, "head", n_features), *csr(tails, "tail", n_labels), n_features, n_labels,
                          owned=True)
        return pool

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

