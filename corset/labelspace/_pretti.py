"""Which sets of S⁻ each record contains: PRETTI set containment (Algorithm 4, line 1).

Tail sampling under the interpretable space (Algorithm 4) first computes, for
every record D, ``φ(D) = {S ∈ S⁻ : S ⊆ L_D}``.  Checking every (record, set)
pair takes hours on real data; PRETTI (Jampani and Pudi, 2005), a prefix tree
over the family walked against the inverted index of the records, brings it to
seconds.  The walk runs in ``corset._ext._pretti``.
"""
import numpy as np

from .._ext import _pretti
from .._ext._typedefs import INDEX_DTYPE
from .._validation import check_binary_matrix
from ..binarydata import BinaryData, _Index
from ._cliques import SetFamily

ITEMS = ("labels", "features")
ITEM_ORDERS = ("id", "frequency")


def _record_index(data, items):
    """(item -> records index, record -> items index, n_records, n_items) of ``data``."""
    if isinstance(data, BinaryData):
        if items not in ITEMS:
            raise ValueError(f"items must be one of {ITEMS}; got {items!r}")
        if items == "labels":
            return data.label_records, data.record_labels, data.n_records, data.n_labels
        return data.feature_records, data.record_features, data.n_records, data.n_features
    M = check_binary_matrix(data, "data")
    bd = BinaryData(M)
    return bd.feature_records, bd.record_features, bd.n_records, bd.n_features


def _check_family(family, n_items):
    if not isinstance(family, SetFamily):
        family = SetFamily.from_sets(family, n_items)
    if family.ids.size and int(family.ids.max()) >= n_items:
        raise ValueError(f"family holds item id {int(family.ids.max())} but the records have only "
                         f"{n_items} items")
    if len(family) >= np.iinfo(INDEX_DTYPE).max:
        raise ValueError(f"family has {len(family)} sets; set ids must fit in int32")
    return family


def contained_sets(family, data, *, items="labels", item_order="id", return_set_records=False):
    """For every record, the ids of the sets of ``family`` it contains (PRETTI).

    Line 1 of Algorithm 4: ``φ(D) = {S ∈ S⁻ : S ⊆ L_D}``, computed with the
    PRETTI algorithm of Jampani and Pudi (2005): a depth-first walk of the
    prefix tree of the family that intersects, at every tree node, its
    parent's record list with the posting list of the node's item.

    The empty set is contained in every record.  A set that appears several
    times in the family is reported under each of its ids.

    Parameters
    ----------
    family : SetFamily or iterable of iterables of item ids
        The sets (e.g. from :func:`probabilistic_cliques`).  Items within a
        set must be distinct.
    data : corset.BinaryData or binary matrix of shape (n_records, n_items)
        The records.  For a ``BinaryData``, ``items`` says whether the sets
        are label sets or feature sets.
    items : {"labels", "features"}, default="labels"
    item_order : {"id", "frequency"}, default="id"
        The item order of the prefix tree: by id, or rarest item first (the
        record lists shrink fastest).  It changes the running time only.  On
        clique families (already in lexicographic id order) "id" was as fast
        or faster on the benchmarks (enron's feature cliques: 0.70 s against
        1.28 s); "frequency" may pay off on families in no particular order.
    return_set_records : bool, default=False
        Also return, for every set S, the sorted ids of the records holding
        it (``D[S]``).

    Returns
    -------
    record_sets : _Index
        CSR map (``indptr`` int64, ``ids`` int32) from record id to the sorted
        ids of the sets it contains; ``record_sets[r]`` is the array for r.
    set_records : _Index
        Only with ``return_set_records``: set id -> sorted record ids.

    Raises
    ------
    ValueError
        If a set has duplicate or out-of-range ids, or ``items`` /
        ``item_order`` is not one of the allowed values.
    """
    if item_order not in ITEM_ORDERS:
        raise ValueError(f"item_order must be one of {ITEM_ORDERS}; got {item_order!r}")
    item_index, _, n_records, n_items = _record_index(data, items)
    family = _check_family(family, n_items)
    if item_order == "frequency":
        item_of_rank = np.argsort(np.diff(item_index.indptr), kind="stable").astype(INDEX_DTYPE)
    else:
        item_of_rank = np.arange(n_items, dtype=INDEX_DTYPE)
    item_rank = np.empty(n_items, dtype=INDEX_DTYPE)
    item_rank[item_of_rank] = np.arange(n_items, dtype=INDEX_DTYPE)
    record_indptr, record_ids, set_indptr, set_ids = _pretti.pretti(
        family.indptr, family.ids, item_rank, item_of_rank, item_index.indptr, item_index.ids,
        n_records, return_set_records)
    record_sets = _Index(record_indptr, record_ids)
    if return_set_records:
        return record_sets, _Index(set_indptr, set_ids)
    return record_sets


def _naive_contained_sets(family, data, *, items="labels"):
    """Benchmark reference: check every (record, set) pair (same output as contained_sets)."""
    item_index, record_index, n_records, n_items = _record_index(data, items)
    family = _check_family(family, n_items)
    indptr, ids = _pretti.naive_containment(family.indptr, family.ids, record_index.indptr,
                                            record_index.ids, n_items)
    return _Index(indptr, ids)
