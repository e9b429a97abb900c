"""The interpretable spaces of CORSET-SURS (section enhanced_sampling): S⁻ of labels, S⁻_F of features.

The tail space ``"interpretable"`` (:mod:`corset.sampling._tail_interpretable`)
draws tails from S⁻, the probabilistic cliques of the label graph; the head
method ``"surs"`` (:mod:`corset.sampling._head_surs`) draws heads from S⁻_F,
those of the feature graph.  This module builds either space as a
:class:`corset.labelspace.SetFamily` and holds what both samplers share.

Both spaces are built from ``data`` with the clique parameters ``alpha``
(0.8), ``edge_probability`` ("symmetrised", the authors' form),
``max_size`` (no cap), ``max_sets`` (10⁶) and ``on_overflow`` ("raise"), or
taken ready-made as ``family``.  A graph too dense for the caps raises
:class:`corset.labelspace.CliqueOverflowError` with the labelspace's message
(e.g. medical's feature graph at α = 0.8 has 3.5 million cliques: pass
``max_size``, a ``max_head_length``, which also caps the clique size, or
``on_overflow="truncate"``).
"""

import numpy as np

from ..labelspace import DEFAULT_MAX_SETS, SetFamily, interpretable_space

#: Defaults of the clique parameters (section enhanced_sampling; α = 0.8 for both graphs, as the authors ran it).
DEFAULT_ALPHA = 0.8
DEFAULT_EDGE_PROBABILITY = "symmetrised"


_STATUS_MESSAGES = {
    3: "a draw met a record or pair of weight 0 (internal error)",
    4: "out of memory in the CORSET-SURS kernel",
}


# -- the spaces -------------------------------------------------------------------
def _nonempty(a, dtype):
    """``a`` as a contiguous array of ``dtype``, padded to length 1 so kernels may take ``&a[0]``."""
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.size else np.zeros(1, dtype=dtype)


def _check_family(family, n_items, items):
    """A user's family as a SetFamily over ``n_items`` items, with no empty and no repeated set."""
    if not isinstance(family, SetFamily):
        try:
            family = SetFamily.from_sets(family, n_items)
        except TypeError:
            raise TypeError(f"family must be a corset.labelspace.SetFamily or an iterable of {items[:-1]} "
                            f"id collections; got {type(family).__name__}") from None
    if family.n_items != n_items:
        raise ValueError(f"family is over {family.n_items} items but the data has {n_items} {items}")
    lengths = family.lengths()
    if (lengths == 0).any():
        raise ValueError(f"family holds the empty set (set {int(np.flatnonzero(lengths == 0)[0])}); "
                         f"every set of the space must hold at least one {items[:-1]}")
    seen = {}
    for i, s in enumerate(family.to_list()):
        if s in seen:
            raise ValueError(f"family lists the set {s} twice (sets {seen[s]} and {i}); each set of the "
                             "space must appear once, or it would be drawn twice as often")
        seen[s] = i
    return family


def build_space(data, items, *, alpha=None, edge_probability=None, max_size=None, max_sets=None,
                on_overflow=None, family=None, _parameter_names=None):
    """The interpretable space of ``items`` ("labels" or "features") of ``data``, as a SetFamily.

    With ``family`` given, the clique parameters must be left out (they
    would have no effect); otherwise their ``None`` means the default
    (α = 0.8, symmetrised edges, no size cap, 10⁶ sets, raise on overflow).
    A family too large for the caps raises
    :class:`corset.labelspace.CliqueOverflowError`.  ``_parameter_names``:
    how the caller names the caps in messages (see
    :func:`corset.labelspace.probabilistic_cliques`).
    """
    n_items = data.n_labels if items == "labels" else data.n_features
    given = {"alpha": alpha, "edge_probability": edge_probability, "max_size": max_size,
             "max_sets": max_sets, "on_overflow": on_overflow}
    if family is not None:
        clash = [name for name, value in given.items() if value is not None]
        if clash:
            raise ValueError(f"family is given, so the clique parameters {clash} have no effect: "
                             "leave them out, or leave out family")
        return _check_family(family, n_items, items)
    return interpretable_space(
        data, items, DEFAULT_ALPHA if alpha is None else alpha,
        edge_probability=DEFAULT_EDGE_PROBABILITY if edge_probability is None else edge_probability,
        max_size=max_size, max_sets=DEFAULT_MAX_SETS if max_sets is None else max_sets,
        on_overflow="raise" if on_overflow is None else on_overflow,
        _parameter_names=_default_named(_parameter_names, max_sets))


def _default_named(parameter_names, max_sets):
    """``parameter_names`` for the enumeration's messages; a caller's cap on sets left at None is
    the default one (the caller did not set the number shown)."""
    if parameter_names is None or max_sets is not None:
        return parameter_names
    return {**parameter_names, "max_sets": f"the default {parameter_names.get('max_sets', 'max_sets')}"}


def _set_tuple(family, s):
    return tuple(family.ids[family.indptr[s]:family.indptr[s + 1]].tolist())
