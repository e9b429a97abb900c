"""Co-occurrence graphs of labels and of features (section enhanced_sampling).

The interpretable space S⁻ is built from a graph whose nodes are items
(labels, or features for CORSET-SURS's head space) and whose edges join items
that occur together in at least one record.  This module builds that graph
from the inverted index of :class:`corset.BinaryData` with the compiled kernel
``corset._ext._graph``, and derives the *pair factors* that the clique search
of :mod:`corset.labelspace._cliques` multiplies.
"""
import numbers

import numpy as np
import scipy.sparse as sp

from .._ext import _graph
from .._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from .._validation import check_binary_matrix
from ..binarydata import BinaryData

EDGE_PROBABILITIES = ("directed", "symmetrised")


def _check_edge_probability(edge_probability):
    if edge_probability not in EDGE_PROBABILITIES:
        raise ValueError(
            f"edge_probability must be one of {EDGE_PROBABILITIES}; got {edge_probability!r}"
        )
    return edge_probability


def _check_probability(value, name, *, allow_zero=True):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise TypeError(f"{name} must be a real number in {'[0' if allow_zero else '(0'}, 1]; got {value!r}")
    value = float(value)
    low_ok = value >= 0.0 if allow_zero else value > 0.0
    if not low_ok or value > 1.0:
        raise ValueError(f"{name} must lie in {'[0' if allow_zero else '(0'}, 1]; got {value}")
    return value


class CooccurrenceGraph:
    """The probabilistic co-occurrence graph of a set of items.

    Nodes are items (labels or features); ``(u, v)`` is an edge when
    ``D[{u}] ∩ D[{v}] ≠ ∅`` (and its weight is at least ``min_probability``).
    Build it with :func:`label_graph`, :func:`feature_graph` or
    :func:`cooccurrence_graph`.

    Attributes
    ----------
    probabilities : scipy.sparse.csr_array of float64, shape (n_items, n_items)
        Edge weights, no diagonal.  With ``edge_probability="directed"`` the
        entry ``(u, v)`` is the paper's ``p(u, v) = |D[u] ∩ D[v]| / |D[u]|``,
        the probability of v given u (the matrix is not symmetric); with
        ``"symmetrised"`` it is ``1 − (1 − p(u, v)) (1 − p(v, u))``, the
        probability that at least one of the two directed edges forms (the
        form of the authors' code; symmetric).
    counts : scipy.sparse.csr_array of int64, same sparsity as ``probabilities``
        ``|D[u] ∩ D[v]|``, the number of records holding both items.
    item_counts : ndarray of int64, shape (n_items,)
        ``|D[u]|``.
    edge_probability : {"directed", "symmetrised"}
    min_probability : float
        Edges with a smaller weight were left out.
    n_records : int
    """

    def __init__(self, probabilities, counts, item_counts, edge_probability, min_probability, n_records):
        self.probabilities = probabilities
        self.counts = counts
        self.item_counts = item_counts
        self.edge_probability = edge_probability
        self.min_probability = min_probability
        self.n_records = n_records

    @property
    def n_items(self):
        """Number of nodes (items, occurring or not)."""
        return self.item_counts.shape[0]

    @property
    def n_edges(self):
        """Number of stored edges (ordered pairs: each undirected edge counts twice)."""
        return self.probabilities.nnz

    def __repr__(self):
        return (f"CooccurrenceGraph(n_items={self.n_items}, n_edges={self.n_edges}, "
                f"edge_probability={self.edge_probability!r}, min_probability={self.min_probability})")

    def pair_factors(self, alpha=0.0):
        """The factor ``q(u, v)`` that the pair {u, v} contributes to a clique's probability.

        With directed edge probabilities both directions of a pair enter the
        clique probability, ``q(u, v) = p(u, v) · p(v, u)``; with symmetrised
        ones the pair enters once, ``q(u, v) = 1 − (1 − p(u, v))(1 − p(v, u))``.
        So the probability of a set S is ``Π_{u<v in S} q(u, v)`` either way.

        Parameters
        ----------
        alpha : float in [0, 1], default=0.0
            Factors below ``alpha`` are dropped: no set holding such a pair can
            reach probability ``alpha``.

        Returns
        -------
        scipy.sparse.csr_array of float64, symmetric, sorted indices, no
        diagonal, only factors > 0 and >= ``alpha``.
        """
        alpha = _check_probability(alpha, "alpha")
        W = self.probabilities
        if self.edge_probability == "directed":
            # Elementwise: an edge missing in either direction gives no factor.
            Q = sp.csr_array(W.multiply(W.T))
        else:
            Q = W.copy()
        return _canonical(_drop_below(Q, alpha))


def _drop_below(Q, alpha):
    Q = sp.csr_array(Q)
    keep = (Q.data > 0.0) & (Q.data >= alpha)
    if not keep.all():
        Q = sp.coo_array(Q)
        Q = sp.csr_array((Q.data[keep], (Q.row[keep], Q.col[keep])), shape=Q.shape)
    return Q


def _canonical(Q):
    Q = sp.csr_array(Q, dtype=np.float64)
    Q.sum_duplicates()
    Q.sort_indices()
    return Q


def _kernel_csr(Q):
    """``(indptr, indices, data)`` of a CSR matrix in the dtypes the kernels take."""
    return (np.ascontiguousarray(Q.indptr, dtype=PTR_DTYPE),
            np.ascontiguousarray(Q.indices, dtype=INDEX_DTYPE),
            np.ascontiguousarray(Q.data, dtype=np.float64))


def _graph_from_index(item_index, record_index, n_records, edge_probability, min_probability):
    edge_probability = _check_edge_probability(edge_probability)
    min_probability = _check_probability(min_probability, "min_probability")
    n_items = len(item_index)
    indptr, indices, counts, weights = _graph.cooccurrence_edges(
        item_index.indptr, item_index.ids, record_index.indptr, record_index.ids,
        edge_probability == "directed", min_probability,
    )
    shape = (n_items, n_items)
    probabilities = sp.csr_array((weights, indices, indptr), shape=shape)
    counts = sp.csr_array((counts, indices.copy(), indptr.copy()), shape=shape)
    item_counts = np.diff(item_index.indptr).astype(np.int64)
    return CooccurrenceGraph(probabilities, counts, item_counts, edge_probability, min_probability, n_records)


def _check_data(data, name="data"):
    if not isinstance(data, BinaryData):
        raise TypeError(f"{name} must be a corset.BinaryData; got {type(data).__name__} "
                        "(use cooccurrence_graph for a plain binary matrix)")
    return data


def label_graph(data, *, edge_probability="symmetrised", min_probability=0.0):
    """The co-occurrence graph of the labels of ``data`` (section enhanced_sampling).

    Parameters
    ----------
    data : corset.BinaryData
    edge_probability : {"symmetrised", "directed"}, default="symmetrised"
        ``"directed"``: the paper's ``p(u, v) = |D[u] ∩ D[v]| / |D[u]|``.
        ``"symmetrised"``: ``1 − (1 − p(u, v))(1 − p(v, u))``, the form the
        authors' code ran (and with which the paper's results were obtained).
    min_probability : float in [0, 1], default=0.0
        Leave out edges whose weight is below this (0 keeps every pair that
        co-occurs at least once).

    Returns
    -------
    CooccurrenceGraph
    """
    data = _check_data(data)
    return _graph_from_index(data.label_records, data.record_labels, data.n_records,
                             edge_probability, min_probability)


def feature_graph(data, *, edge_probability="symmetrised", min_probability=0.0):
    """The co-occurrence graph of the features of ``data``; see :func:`label_graph`."""
    data = _check_data(data)
    return _graph_from_index(data.feature_records, data.record_features, data.n_records,
                             edge_probability, min_probability)


def cooccurrence_graph(M, *, edge_probability="symmetrised", min_probability=0.0):
    """The co-occurrence graph of the columns of a binary matrix.

    Parameters
    ----------
    M : array-like or sparse matrix of shape (n_records, n_items)
        Binary (0/1): ``M[r, u] = 1`` when record r holds item u.
    edge_probability, min_probability
        See :func:`label_graph`.

    Returns
    -------
    CooccurrenceGraph
    """
    data = BinaryData(check_binary_matrix(M, "M"))
    return feature_graph(data, edge_probability=edge_probability, min_probability=min_probability)
