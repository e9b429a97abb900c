"""BinaryData.with_negations: features followed by the negated literals of some of them."""
import re

import numpy as np
import pytest
import scipy.sparse as sp

from corset import BinaryData
from corset.binarydata import with_negated_columns


def test_with_negations_appends_the_complements(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(40, 9) < 0.3
    Y = rng.rand(40, 2) < 0.5
    negated = rng.permutation(9)[:5].tolist()
    data = BinaryData.with_negations(sp.csc_matrix(X), Y, negated)
    assert data.n_features == 14 and data.n_base_features == 9
    assert data.negated_features.tolist() == negated and not data.negated_features.flags.writeable
    expected = np.hstack([X, ~X[:, negated]])
    np.testing.assert_array_equal(data.X.toarray(), expected)
    for j in range(14):   # the inverted index of the literals
        np.testing.assert_array_equal(data.feature_records[j], np.flatnonzero(expected[:, j]))
    plain = BinaryData(X, Y)
    assert plain.n_base_features == 9 and plain.negated_features.size == 0
    assert with_negated_columns(plain.X, []) is plain.X


@pytest.mark.parametrize("negated, message", [([0, 0], "negated holds duplicate ids: [0, 0]"),
                                              ([9], "negated holds an id outside [0, 9): [9]"),
                                              ([-1], "negated holds an id outside [0, 9): [-1]")])
def test_with_negations_refuses_bad_feature_ids(negated, message):
    X = np.eye(9, dtype=np.uint8)
    with pytest.raises(ValueError, match=re.escape(message)):
        BinaryData.with_negations(X, np.ones((9, 1)), negated)


@pytest.mark.parametrize("shape", [(0, 5), (1, 1), (30, 12), (7, 40)])
def test_negated_columns_match_a_dense_complement(global_random_seed, shape):
    """The compiled row pass gives ``[X, 1 - X[:, negated]]`` exactly: sorted canonical rows, any
    order of ``negated``, empty and full rows, uint8 values."""
    from corset._validation import check_binary_matrix

    rng = np.random.RandomState(global_random_seed)
    n, m = shape
    dense = rng.rand(n, m) < rng.choice([0.0, 0.3, 0.9, 1.0])
    X = check_binary_matrix(sp.csr_array(dense), "X")
    for k in sorted({1, m // 2, m}):
        negated = rng.choice(m, k, replace=False)
        out = with_negated_columns(X, negated)
        assert out.shape == (n, m + k) and out.dtype == np.uint8 and out.has_canonical_format
        expected = np.hstack([dense, ~dense[:, negated]])
        np.testing.assert_array_equal(out.toarray(), expected)
        # BinaryData builds the literals' inverted index from the plain one (complements).
        data = BinaryData.with_negations(X, np.zeros((n, 1)), negated)
        np.testing.assert_array_equal(data.X.toarray(), expected)
        for j in range(m + k):
            np.testing.assert_array_equal(data.feature_records[j], np.flatnonzero(expected[:, j]))
            assert data.feature_counts[j] == expected[:, j].sum()
        for r in range(n):
            np.testing.assert_array_equal(data.record_features[r], np.flatnonzero(expected[r]))


def test_take_records_keeps_the_literals_and_labels(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(50, 7) < 0.4
    Y = rng.rand(50, 3) < 0.5
    data = BinaryData.with_negations(X, Y, [4, 1])
    records = np.sort(rng.choice(50, 17, replace=False))
    part = data.take_records(records)
    expected = BinaryData.with_negations(X[records], Y[records], [4, 1])
    assert part.n_records == 17 and part.n_base_features == 7
    assert part.negated_features.tolist() == [4, 1]
    np.testing.assert_array_equal(part.X.toarray(), expected.X.toarray())
    np.testing.assert_array_equal(part.Y.toarray(), expected.Y.toarray())
    for j in range(part.n_features):
        np.testing.assert_array_equal(part.feature_records[j], expected.feature_records[j])
    for k in range(3):
        np.testing.assert_array_equal(part.label_records[k], expected.label_records[k])
    assert part.take_records([]).n_records == 0


@pytest.mark.parametrize("records", [[3, 3], [5, 2], [-1, 2], [2, 50], [[1, 2]], [0.5, 1.0]])
def test_take_records_refuses_bad_record_ids(records):
    data = BinaryData(np.eye(50, 4, dtype=np.uint8), np.ones((50, 1)))
    with pytest.raises(ValueError, match="records must"):
        data.take_records(records)


@pytest.mark.parametrize("negated, message", [([1.5], "negated must hold integer ids"),
                                              ([True], "negated must hold integer ids"),
                                              (["a"], "negated must hold integer ids"),
                                              ([-1], "negated holds an id outside [0, 4)"),
                                              ([4], "negated holds an id outside [0, 4)")])
def test_negated_ids_that_are_not_feature_ids_are_refused(negated, message):
    """[1.5] and [True] were read as feature 1; with_negated_columns (predict's path) crashed on -1."""
    X = np.eye(4, dtype=int)
    with pytest.raises(ValueError, match=re.escape(message)):
        BinaryData.with_negations(X, X[:, :2], negated)
    with pytest.raises(ValueError, match=re.escape(message)):
        with_negated_columns(sp.csr_array(X.astype(np.uint8)), negated)
    assert BinaryData.with_negations(X, X[:, :2], [1.0]).negated_features.tolist() == [1]
