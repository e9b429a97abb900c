"""Prediction with a rule set (union of the tails of the rules that fire) against a Python reference."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from corset import BinaryData
from corset.selection import fired_rules, predict_labels


@st.composite
def model_and_records(draw):
    n = draw(st.integers(0, 12))
    m = draw(st.integers(1, 7))
    n_labels = draw(st.integers(1, 5))
    X = draw(hnp.arrays(np.bool_, (n, m))).astype(np.uint8)
    heads = draw(st.lists(st.sets(st.integers(0, m - 1), min_size=1, max_size=3), max_size=8))
    rules = []
    for head in heads:
        tail = draw(st.sets(st.integers(0, n_labels - 1), min_size=1, max_size=3))
        rule = (tuple(sorted(head)), tuple(sorted(tail)))
        if rule not in rules:
            rules.append(rule)
    return X, rules, n_labels


def reference_prediction(X, rules, n_labels):
    out = np.zeros((X.shape[0], n_labels), dtype=np.uint8)
    fired = np.zeros((X.shape[0], len(rules)), dtype=np.uint8)
    for i, row in enumerate(X):
        features = set(np.flatnonzero(row).tolist())
        for j, (head, tail) in enumerate(rules):
            if set(head) <= features:
                fired[i, j] = 1
                out[i, list(tail)] = 1
    return out, fired


@given(model_and_records(), st.sampled_from(["dense", "csr", "csc", "binarydata"]))
@settings(max_examples=100, deadline=None)
def test_prediction_matches_reference(case, kind):
    X, rules, n_labels = case
    expected, expected_fired = reference_prediction(X, rules, n_labels)
    inputs = {"dense": X, "csr": sp.csr_array(X), "csc": sp.csc_matrix(X), "binarydata": BinaryData(X)}
    given_X = inputs[kind]
    predicted = predict_labels(rules, given_X, n_labels)
    assert sp.issparse(predicted) and predicted.format == "csr" and predicted.dtype == np.uint8
    assert predicted.shape == (X.shape[0], n_labels)
    np.testing.assert_array_equal(predicted.toarray(), expected)
    assert (predicted.data == 1).all() and predicted.has_sorted_indices
    dense = predict_labels(rules, given_X, n_labels, dense=True)
    assert isinstance(dense, np.ndarray) and dense.dtype == np.uint8
    np.testing.assert_array_equal(dense, expected)
    fired = fired_rules(rules, given_X)
    assert fired.format == "csr" and fired.shape == (X.shape[0], len(rules))
    np.testing.assert_array_equal(fired.toarray(), expected_fired)


def test_many_rules_firing_do_not_wrap_around():
    # 300 rules predicting the same label on one record: a uint8 sum would wrap to 44.
    X = np.ones((1, 300), dtype=np.uint8)
    rules = [((f,), (0,)) for f in range(256)] + [((f,), (1,)) for f in range(256, 300)]
    predicted = predict_labels(rules, X, 2, dense=True)
    assert predicted.tolist() == [[1, 1]]
    assert fired_rules(rules, X).sum() == 300


def test_empty_rule_set_and_empty_input():
    X = np.eye(3, dtype=np.uint8)
    assert predict_labels([], X, 4).nnz == 0
    assert predict_labels([], X, 4).shape == (3, 4)
    assert fired_rules([], X).shape == (3, 0)
    empty = np.zeros((0, 3), dtype=np.uint8)
    assert predict_labels([((0,), (1,))], empty, 2).shape == (0, 2)


def test_prediction_errors():
    X = np.eye(3, dtype=np.uint8)
    with pytest.raises(ValueError, match=r"rules\[0\]: the head holds a feature id outside \[0, 3\)"):
        predict_labels([((5,), (0,))], X, 2)
    with pytest.raises(ValueError, match=r"rules\[0\]: the tail holds a label id outside \[0, 2\)"):
        predict_labels([((0,), (2,))], X, 2)
    with pytest.raises(ValueError, match=r"rules\[0\]: the tail is empty"):
        fired_rules([((0,), ())], X)
    with pytest.raises(ValueError, match="X must be a binary"):
        predict_labels([((0,), (0,))], X * 3, 2)
    with pytest.raises(TypeError, match="n_labels must be an integer"):
        predict_labels([((0,), (0,))], X, 2.5)


def test_an_empty_head_fires_on_every_record():
    """A default rule IF TRUE THEN T: its tail is predicted for every record."""
    X = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]], dtype=np.uint8)
    rules = [((0,), (0,)), ((), (2,)), ((1, 2), (1,))]
    fired = fired_rules(rules, X).toarray()
    assert fired.tolist() == [[1, 1, 0], [0, 1, 1], [0, 1, 0]]
    Y = predict_labels(rules, X, 3, dense=True)
    assert Y.tolist() == [[1, 0, 1], [0, 1, 1], [0, 0, 1]]
    # The same predictions as the rules with a head plus the default tail added by hand.
    without = predict_labels([rules[0], rules[2]], X, 3, dense=True)
    without[:, 2] = 1
    assert np.array_equal(Y, without)
