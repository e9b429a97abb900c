"""Interpretable label and feature spaces (section enhanced_sampling of the paper).

CORSET-SURS samples tails (and, optionally, heads) not from every subset of
the labels (features) but from a small *interpretable space* S⁻ of strongly
associated item sets.  This subpackage builds that space and indexes it:

* :func:`label_graph`, :func:`feature_graph`, :func:`cooccurrence_graph` —
  the probabilistic co-occurrence graph of the items;
* :func:`probabilistic_cliques` — S⁻, the item sets whose clique probability
  is at least α, with caps on size and count;
* :func:`contained_sets` — PRETTI set containment: for every record, the sets
  of S⁻ it contains (line 1 of Algorithm 4);
* :func:`interpretable_space` — graph and cliques in one call.

It reads :class:`corset.BinaryData` and nothing else; the hot loops are the
kernels ``corset._ext._graph``, ``_cliques`` and ``_pretti``.
"""
from ._cliques import (DEFAULT_MAX_SETS, CliqueOverflowError, CliqueTruncationWarning, SetFamily,
                       probabilistic_cliques)
from ._graph import CooccurrenceGraph, cooccurrence_graph, feature_graph, label_graph
from ._graph import _check_probability
from ._pretti import contained_sets


def interpretable_space(data, items="labels", alpha=0.8, *, edge_probability="symmetrised",
                        max_size=None, max_sets=DEFAULT_MAX_SETS, on_overflow="raise", _parameter_names=None):
    """The interpretable space S⁻ of the labels (or features) of ``data``.

    Builds the co-occurrence graph with edges below ``alpha`` pruned (no pair
    factor below α can be part of a set of probability α, so this changes
    nothing but speed) and enumerates its probabilistic cliques.

    Parameters
    ----------
    data : corset.BinaryData
    items : {"labels", "features"}, default="labels"
    alpha : float in (0, 1], default=0.8
    edge_probability : {"symmetrised", "directed"}, default="symmetrised"
        See :func:`label_graph` and :func:`probabilistic_cliques`.
    max_size, max_sets, on_overflow, _parameter_names
        See :func:`probabilistic_cliques`.

    Returns
    -------
    SetFamily

    Raises
    ------
    CliqueOverflowError
        With ``on_overflow="raise"`` when more than ``max_sets`` sets exist.
    """
    if items not in ("labels", "features"):
        raise ValueError(f"items must be 'labels' or 'features'; got {items!r}")
    alpha = _check_probability(alpha, "alpha", allow_zero=False)
    build = label_graph if items == "labels" else feature_graph
    graph = build(data, edge_probability=edge_probability, min_probability=alpha)
    return probabilistic_cliques(graph, alpha, max_size=max_size, max_sets=max_sets,
                                 on_overflow=on_overflow, _parameter_names=_parameter_names)


__all__ = [
    "CliqueOverflowError",
    "CliqueTruncationWarning",
    "CooccurrenceGraph",
    "SetFamily",
    "contained_sets",
    "cooccurrence_graph",
    "feature_graph",
    "interpretable_space",
    "label_graph",
    "probabilistic_cliques",
]
