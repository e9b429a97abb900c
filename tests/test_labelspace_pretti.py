"""PRETTI set containment (corset.labelspace.contained_sets) against the naive all-pairs check."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corset import BinaryData
from corset.labelspace import SetFamily, contained_sets, interpretable_space
from corset.labelspace._pretti import _naive_contained_sets


def naive(family, records):
    """For every record, the ids of the sets it contains: every pair checked (the reference)."""
    return [[i for i, S in enumerate(family) if set(S) <= R] for R in records]


def as_matrix(records, n_items):
    M = np.zeros((len(records), n_items), dtype=np.uint8)
    for r, R in enumerate(records):
        M[r, sorted(R)] = 1
    return M


def rows(index):
    return [index[r].tolist() for r in range(len(index))]


@st.composite
def families_and_records(draw):
    n_items = draw(st.integers(1, 12))
    item_sets = st.sets(st.integers(0, n_items - 1), max_size=n_items)
    records = draw(st.lists(item_sets, max_size=25))
    family = draw(st.lists(item_sets, max_size=30))
    # Duplicates and the empty set on purpose.
    if family and draw(st.booleans()):
        family += draw(st.lists(st.sampled_from(family), max_size=5))
    if draw(st.booleans()):
        family.insert(draw(st.integers(0, len(family))), set())
    order = draw(st.permutations(range(len(family))))
    return n_items, [family[i] for i in order], records


@given(families_and_records(), st.sampled_from(["frequency", "id"]))
@settings(max_examples=400, deadline=None)
def test_pretti_matches_naive(case, item_order):
    n_items, family, records = case
    M = as_matrix(records, n_items)
    expected = naive(family, records)
    record_sets, set_records = contained_sets(family, M, item_order=item_order, return_set_records=True)
    assert rows(record_sets) == expected
    assert record_sets.indptr.dtype == np.int64 and record_sets.ids.dtype == np.int32
    # The transpose: D[S] for every set.
    assert rows(set_records) == [[r for r, R in enumerate(records) if set(S) <= R] for S in family]
    # The benchmark-only compiled naive check agrees too.
    assert rows(_naive_contained_sets(family, M)) == expected


def test_empty_set_is_in_every_record_and_duplicates_keep_both_ids():
    records = [{0, 1}, set(), {2}]
    family = [{1}, set(), {1}, {0, 1}, {0, 1}]
    got = rows(contained_sets(family, as_matrix(records, 3)))
    assert got == [[0, 1, 2, 3, 4], [1], [1]]


def test_binarydata_labels_and_features():
    X = np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]])
    Y = np.array([[1, 0], [1, 1], [0, 1]])
    data = BinaryData(X, Y)
    assert rows(contained_sets([[0], [0, 1], [1]], data)) == [[0], [0, 1, 2], [2]]
    assert rows(contained_sets([[0, 1], [1, 2]], data, items="features")) == [[0], [1], [0, 1]]


def test_set_family_input_and_records_without_sets():
    family = SetFamily.from_sets([[2], [0, 2]], n_items=3)
    record_sets = contained_sets(family, np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0]]))
    assert rows(record_sets) == [[0, 1], [], []]


def test_no_records_and_no_sets():
    assert len(contained_sets([[0]], np.zeros((0, 2)))) == 0
    assert rows(contained_sets([], np.eye(2))) == [[], []]


def test_bad_input():
    M = np.eye(3)
    with pytest.raises(ValueError, match="duplicate"):
        contained_sets([[1, 1]], M)
    with pytest.raises(ValueError, match="outside"):
        contained_sets([[3]], M)
    with pytest.raises(ValueError, match="records have only 3 items"):
        contained_sets(SetFamily.from_sets([[4]], n_items=5), M)
    with pytest.raises(ValueError, match="items"):
        contained_sets([[0]], BinaryData(M, M), items="tails")
    with pytest.raises(ValueError, match="item_order"):
        contained_sets([[0]], M, item_order="random")
    with pytest.raises(ValueError, match="binary"):
        contained_sets([[0]], 2 * M)


@pytest.mark.realdata
def test_medical_labels_and_features(data_dir):
    load_benchmark = pytest.importorskip("corset.datasets").load_benchmark
    train = load_benchmark("medical", subset="train", data_home=data_dir)
    data = BinaryData(train.X, train.Y)
    for items, alpha in [("labels", 0.5), ("features", 1.0)]:
        family = interpretable_space(data, items, alpha, max_size=4)
        got = contained_sets(family, data, items=items)
        ref = _naive_contained_sets(family, data, items=items)
        np.testing.assert_array_equal(got.indptr, ref.indptr)
        np.testing.assert_array_equal(got.ids, ref.ids)
