"""Probabilistic cliques: the interpretable item space S⁻ (section enhanced_sampling).

A set of items is *interpretable* when its items are strongly associated: it
is a clique of the co-occurrence graph whose probability of forming, when each
edge forms independently with its edge probability, is at least α.  This
module enumerates those sets depth first (in the style of Mukherjee et al.,
2015) with the compiled kernel ``corset._ext._cliques``, under explicit caps,
and holds the result as a :class:`SetFamily`.
"""
import warnings

import numpy as np
import scipy.sparse as sp

from .._ext import _cliques
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from .._validation import check_id_rows, check_positive_int
from ._graph import (CooccurrenceGraph, _canonical, _check_edge_probability, _check_probability,
                     _drop_below, _kernel_csr)

ON_OVERFLOW = ("raise", "truncate")
DEFAULT_MAX_SETS = 1_000_000


class CliqueOverflowError(RuntimeError):
    """More probabilistic cliques exist than ``max_sets`` allows."""


class CliqueTruncationWarning(UserWarning):
    """``on_overflow="truncate"`` kept only part of the probabilistic cliques."""


class SetFamily:
    """A family of item sets in CSR form (e.g. the interpretable space S⁻).

    Set ``i`` is ``ids[indptr[i]:indptr[i + 1]]``, strictly increasing item ids.
    To build one from sets in any order, use :meth:`from_sets`.

    Parameters
    ----------
    indptr : 1-D array-like of int, shape (n_sets + 1,)
        Offsets into ``ids``: starts at 0, non-decreasing, ends at ``len(ids)``.
        Equal neighbours make an empty set, which is allowed (PRETTI counts it
        as contained in every record; the samplers' spaces refuse it).
    ids : 1-D array-like of int
        The sets' item ids, each set strictly increasing, in ``[0, n_items)``.
    n_items : int >= 0
    probabilities : 1-D array-like of float in [0, 1], shape (n_sets,), optional
    truncated : bool, default=False
    complete_size : int >= 0 or None, default=None

    Attributes
    ----------
    indptr : ndarray of int64, shape (n_sets + 1,)
    ids : ndarray of int32
    n_items : int
        Size of the item universe the ids come from.
    probabilities : ndarray of float64, shape (n_sets,), or None
        Clique probability of each set, when the family comes from
        :func:`probabilistic_cliques`.
    truncated : bool
        True when ``on_overflow="truncate"`` cut the enumeration short.
    complete_size : int or None
        When truncated: every set of at most this size is present.

    Raises
    ------
    ValueError
        If ``indptr`` or ``ids`` is not a 1-D integer array (floats and
        booleans are refused, not truncated), ``indptr`` does not run from 0
        to ``len(ids)`` without falling, a set is not strictly increasing or
        holds an id outside ``[0, n_items)``, or ``probabilities`` does not
        hold one value in [0, 1] per set.  The message names the first
        offending set.
    TypeError
        If ``n_items`` or ``complete_size`` is not an integer.
    """

    def __init__(self, indptr, ids, n_items, probabilities=None, truncated=False, complete_size=None):
        # The kernels (PRETTI, the samplers) index with these arrays unchecked: an id out of range
        # or an offset past ``ids`` would read outside memory, so everything is checked here.
        n_items = check_positive_int(n_items, "n_items", minimum=0)
        indptr, ids = check_id_rows(indptr, ids, n_items, n_name="n_items")
        if probabilities is not None:
            probabilities = _check_probabilities(probabilities, indptr.shape[0] - 1)
        complete_size = check_positive_int(complete_size, "complete_size", minimum=0, allow_none=True)
        self._set(indptr, ids, n_items, probabilities, truncated, complete_size)

    @classmethod
    def _trusted(cls, indptr, ids, n_items, probabilities=None, truncated=False, complete_size=None):
        """A family from arrays the library built itself (the clique kernel, :meth:`from_sets`), unchecked.

        Those arrays are valid by construction; checking them again would cost
        as much as the clique enumeration itself on sparse graphs (several
        numpy passes over ``ids``).  Never pass user input here.
        """
        family = cls.__new__(cls)
        family._set(indptr, ids, int(n_items), probabilities, truncated, complete_size)
        return family

    def _set(self, indptr, ids, n_items, probabilities, truncated, complete_size):
        self.indptr = _frozen(indptr, PTR_DTYPE)
        self.ids = _frozen(ids, INDEX_DTYPE)
        self.n_items = n_items
        self.probabilities = None if probabilities is None else _frozen(probabilities, np.float64)
        self.truncated = bool(truncated)
        self.complete_size = complete_size

    @classmethod
    def from_sets(cls, sets, n_items):
        """Build a family from an iterable of item-id collections (kept in the given order).

        Raises
        ------
        ValueError
            If a set holds a duplicate id, an id outside ``[0, n_items)`` or a
            non-integer.
        """
        n_items = check_positive_int(n_items, "n_items", minimum=0)
        indptr = [0]
        chunks = []
        for k, s in enumerate(sets):
            arr = np.asarray(list(s) if not isinstance(s, np.ndarray) else s)
            if arr.size and (arr.ndim != 1 or arr.dtype.kind not in "iu"):
                raise ValueError(f"set {k} must be a 1-D collection of integer ids; got {arr!r}")
            arr = arr.astype(np.int64).ravel()
            if arr.size and (arr.min() < 0 or arr.max() >= n_items):
                raise ValueError(f"set {k} holds an id outside [0, {n_items}): {arr.tolist()}")
            srt = np.unique(arr)
            if srt.size != arr.size:
                raise ValueError(f"set {k} holds duplicate ids: {arr.tolist()}")
            chunks.append(srt)
            indptr.append(indptr[-1] + srt.size)
        ids = np.concatenate(chunks) if chunks else np.empty(0, dtype=np.int64)
        return cls._trusted(np.asarray(indptr, dtype=PTR_DTYPE), ids.astype(INDEX_DTYPE), n_items)

    def __len__(self):
        return self.indptr.shape[0] - 1

    def __getitem__(self, i):
        return self.ids[self.indptr[i]:self.indptr[i + 1]]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def lengths(self):
        """Size of every set (int64)."""
        return np.diff(self.indptr)

    def to_list(self):
        """The sets as a list of sorted tuples of Python ints."""
        return [tuple(int(x) for x in self[i]) for i in range(len(self))]

    def __repr__(self):
        extra = f", truncated (complete up to size {self.complete_size})" if self.truncated else ""
        return f"SetFamily(n_sets={len(self)}, n_items={self.n_items}{extra})"


def _frozen(a, dtype):
    a = np.array(a, dtype=dtype, copy=True, order="C")
    a.flags.writeable = False
    return a


def _check_probabilities(probabilities, n_sets):
    """``probabilities`` as float64 after checking there is one in [0, 1] for each of the ``n_sets`` sets."""
    try:
        p = np.asarray(probabilities, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"probabilities must be an array of floats in [0, 1]: {exc}") from None
    if p.shape != (n_sets,):
        raise ValueError(f"probabilities must hold one value per set, shape ({n_sets},); got shape {p.shape}")
    bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))  # NaN fails both comparisons
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"probabilities must lie in [0, 1]; set {k} has {float(p[k])}")
    return p


def _pair_factor_matrix(graph, alpha, edge_probability):
    """Symmetric CSR of pair factors >= alpha, and the roots (items whose singletons are kept)."""
    if isinstance(graph, CooccurrenceGraph):
        if edge_probability is not None and edge_probability != graph.edge_probability:
            raise ValueError(f"edge_probability={edge_probability!r} contradicts the graph's "
                             f"{graph.edge_probability!r}; leave it out for a CooccurrenceGraph")
        Q = graph.pair_factors(alpha)
        roots = np.flatnonzero(graph.item_counts > 0).astype(INDEX_DTYPE)
        return Q, roots
    if edge_probability is None:
        raise ValueError("edge_probability ('directed' or 'symmetrised') is required when graph is a "
                         "matrix of edge probabilities rather than a CooccurrenceGraph")
    edge_probability = _check_edge_probability(edge_probability)
    W = sp.csr_array(graph) if sp.issparse(graph) else sp.csr_array(np.asarray(graph, dtype=np.float64))
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"graph must be a square matrix of edge probabilities; got shape {W.shape}")
    W = sp.csr_array(W, dtype=np.float64)
    W.sum_duplicates()
    if W.nnz and (not np.isfinite(W.data).all() or W.data.min() < 0.0 or W.data.max() > 1.0):
        raise ValueError("graph must hold edge probabilities in [0, 1]")
    W.setdiag(0.0)
    W.eliminate_zeros()
    if edge_probability == "directed":
        Q = sp.csr_array(W.multiply(W.T))
    else:
        if (abs(W - W.T) > 0).nnz:
            raise ValueError("graph must be symmetric with edge_probability='symmetrised'")
        Q = W
    return _canonical(_drop_below(Q, alpha)), np.arange(W.shape[0], dtype=INDEX_DTYPE)


def _cap_names(parameter_names):
    """``(max_sets, max_size)``'s names in the caller's own terms: ``parameter_names`` maps
    "max_sets" and "max_size" to them, for a caller that passes its own parameters on under these
    names (CorsetClassifier's max_cliques and max_clique_size arrive here as max_sets and
    max_size); None keeps both."""
    names = {"max_sets": "max_sets", "max_size": "max_size"}
    if parameter_names is not None:
        unknown = set(parameter_names) - set(names)
        if unknown or not all(isinstance(v, str) and v for v in parameter_names.values()):
            raise ValueError("_parameter_names must map 'max_sets' and 'max_size' to non-empty names; "
                             f"got {parameter_names!r}")
        names.update(parameter_names)
    return names["max_sets"], names["max_size"]


def probabilistic_cliques(graph, alpha=0.8, *, max_size=None, max_sets=DEFAULT_MAX_SETS,
                          on_overflow="raise", edge_probability=None, _parameter_names=None):
    """The item sets whose clique probability is at least ``alpha`` (the space S⁻).

    Section enhanced_sampling, "Constructing S⁻": each edge {u, v} of the
    co-occurrence graph forms with its probability; a set S is kept when
    the probability that all its pairs form is ``P(S) = Π_{u<v in S} q(u, v) ≥ α``,
    where the pair factor is

    * ``q(u, v) = p(u, v) · p(v, u)`` for directed edge probabilities (the
      graph is directed, so both edges of every pair must form: the product
      runs over *ordered* pairs);
    * ``q(u, v) = 1 − (1 − p(u, v))(1 − p(v, u))`` for symmetrised ones (the
      product runs over *unordered* pairs, each counted once).

    Every singleton of an item that occurs is kept (its probability is the
    empty product, 1).  The enumeration is depth first and extends a set only
    with adjacent items of higher id, so each set is produced once; since each
    factor is at most 1, ``P`` only falls as a set grows and a branch is
    abandoned as soon as it drops below α.

    Parameters
    ----------
    graph : CooccurrenceGraph or square matrix of edge probabilities
        A matrix (dense or sparse, values in [0, 1], diagonal ignored) needs
        ``edge_probability``; every node of a matrix counts as occurring.
    alpha : float in (0, 1], default=0.8
    max_size : int >= 1 or None, default=None
        Largest set size enumerated (None: no cap).
    max_sets : int >= 1, default=1_000_000
        Largest number of sets (singletons included).  The search stops as
        soon as it would exceed this, so a graph too dense for the caps costs
        at most about ``max_sets`` steps, never an exhaustive enumeration.
    on_overflow : {"raise", "truncate"}, default="raise"
        What happens when more than ``max_sets`` sets exist.  ``"raise"``:
        :class:`CliqueOverflowError`.  ``"truncate"``: keep every set of size
        at most s, where s is the largest size for which that fits in
        ``max_sets``, then fill up to ``max_sets`` with the lexicographically
        smallest sets of size s + 1; a :class:`CliqueTruncationWarning` is
        issued and the family has ``truncated=True``, ``complete_size=s``.
    edge_probability : {"directed", "symmetrised"}, optional
        Only for a matrix ``graph`` (a CooccurrenceGraph knows its own).
    _parameter_names : dict, optional
        For callers that take the caps under other names: ``{"max_sets":
        name, "max_size": name}`` (either key may be left out), the names
        the errors and the warning then give them.

    Returns
    -------
    SetFamily
        The sets in lexicographic order of their sorted id tuples, with their
        probabilities.  ``P`` is computed as a left fold over the sorted set,
        ``P(s_1..s_j) = P(s_1..s_{j-1}) · (q(s_1, s_j) · … · q(s_{j-1}, s_j))``.

    Raises
    ------
    CliqueOverflowError
        With ``on_overflow="raise"``, when more than ``max_sets`` sets exist.
    """
    alpha = _check_probability(alpha, "alpha", allow_zero=False)
    # The caps are named as the caller named them: a user of CorsetClassifier set max_cliques,
    # not max_sets, and is told so.
    sets_name, size_name = _cap_names(_parameter_names)
    max_sets = check_positive_int(max_sets, sets_name)
    max_size = check_positive_int(max_size, size_name, allow_none=True)
    if on_overflow not in ON_OVERFLOW:
        raise ValueError(f"on_overflow must be one of {ON_OVERFLOW}; got {on_overflow!r}")
    Q, roots = _pair_factor_matrix(graph, alpha, edge_probability)
    n_items = Q.shape[0]
    # A clique cannot outgrow 1 + the largest degree.
    degree_bound = int(np.diff(Q.indptr).max()) + 1 if n_items else 1
    size_cap = degree_bound if max_size is None else min(max_size, degree_bound)

    q_indptr, q_indices, q_factors = _kernel_csr(Q)

    def run(size, quota, store):
        return _cliques.enumerate_cliques(q_indptr, q_indices, q_factors, roots, alpha,
                                          size, max_sets, quota, store)

    status, n_sets, indptr, ids, probs = run(size_cap, -1, True)
    if status == 0:
        return SetFamily._trusted(indptr, ids, n_items, probs)
    message = (f"more than {sets_name}={max_sets} item sets have clique probability >= alpha={alpha} "
               f"({size_name}={max_size}); the graph is too dense for these caps")
    if on_overflow == "raise":
        raise CliqueOverflowError(
            message + f": raise alpha, lower {size_name}, raise {sets_name}, or pass "
            "on_overflow='truncate' to keep the smallest sets")
    # Largest size whose sets all fit; each counting pass stops after max_sets sets.
    complete_size, complete_count = 0, 0
    for size in range(1, size_cap + 1):
        status, count, _, _, _ = run(size, -1, False)
        if status != 0:
            break
        complete_size, complete_count = size, count
    status, n_sets, indptr, ids, probs = run(complete_size + 1, max_sets - complete_count, True)
    if status != 0 or n_sets != max_sets:  # pragma: no cover - the counting passes guarantee it
        raise RuntimeError(f"internal error in the truncated clique enumeration: status {status}, "
                           f"{n_sets} sets for {sets_name}={max_sets}")
    warnings.warn(CliqueTruncationWarning(
        message + f"; kept every set of size <= {complete_size} ({complete_count} sets) and the "
        f"{max_sets - complete_count} lexicographically smallest of size {complete_size + 1}"),
        stacklevel=2)
    return SetFamily._trusted(indptr, ids, n_items, probs, truncated=True, complete_size=complete_size)
