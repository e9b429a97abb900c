"""BinaryData holds one copy of the records' feature ids, and never writes to or shares the user's arrays.

The layer's ``record_features`` is the CSR of its own ``X``: the column ids
are stored once (``X.indices``), read-only.  The estimator hands it matrices
that :func:`corset._validation.check_binary_matrix` already returned
(``_from_checked`` / ``_checked_with_negations``), which it takes over
without a second check and copy; the result must equal the public, checking
constructors' in every array.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from corset import BinaryData, CorsetClassifier
from corset._validation import check_binary_matrix


def _arrays(data):
    """Every array of a layer, by name."""
    return {
        "X.indptr": data.X.indptr, "X.indices": data.X.indices, "X.data": data.X.data,
        "Y.indptr": data.Y.indptr, "Y.indices": data.Y.indices, "Y.data": data.Y.data,
        "record_features.indptr": data.record_features.indptr, "record_features.ids": data.record_features.ids,
        "record_labels.indptr": data.record_labels.indptr, "record_labels.ids": data.record_labels.ids,
        "feature_records.indptr": data.feature_records.indptr, "feature_records.ids": data.feature_records.ids,
        "label_records.indptr": data.label_records.indptr, "label_records.ids": data.label_records.ids,
        "feature_counts": data.feature_counts, "label_counts": data.label_counts,
        "record_n_features": data.record_n_features, "record_n_labels": data.record_n_labels,
        "negated_features": data.negated_features,
    }


def _layers(X, Y, negated):
    """The layers of (X, Y) the public constructors build, with and without negated literals."""
    yield BinaryData(X, Y)
    yield BinaryData.with_negations(X, Y, negated)
    yield BinaryData.with_negations(X, Y, negated).take_records(np.arange(0, X.shape[0], 2))


@pytest.mark.parametrize("kind", ["dense", "bool", "csr", "csc"])
def test_record_features_are_the_column_ids_of_x(global_random_seed, kind):
    rng = np.random.RandomState(global_random_seed)
    dense = rng.rand(30, 8) < 0.4
    X = {"dense": dense.astype(np.float64), "bool": dense, "csr": sp.csr_array(dense.astype(np.uint8)),
         "csc": sp.csc_matrix(dense.astype(np.int64))}[kind]
    Y = rng.rand(30, 3) < 0.5
    for data in _layers(X, Y, [5, 0, 2]):
        assert np.shares_memory(data.record_features.ids, data.X.indices)
        assert not data.record_features.ids.flags.writeable and not data.X.indices.flags.writeable
        for r in range(data.n_records):
            np.testing.assert_array_equal(data.record_features[r], np.flatnonzero(data.X.toarray()[r]))


@pytest.mark.parametrize("kind", ["csr", "csr_int64", "csc", "coo", "dense_uint8", "dense_int32"])
def test_the_users_matrices_stay_writable_unshared_and_unchanged(kind):
    rng = np.random.RandomState(0)
    dense = (rng.rand(25, 6) < 0.5).astype(np.uint8)
    X = {"csr": sp.csr_array(dense), "csr_int64": sp.csr_matrix(dense.astype(np.int64)),
         "csc": sp.csc_array(dense), "coo": sp.coo_array(dense), "dense_uint8": dense.copy(),
         "dense_int32": dense.astype(np.int32)}[kind]
    Y = sp.csr_array((rng.rand(25, 2) < 0.5).astype(np.uint8))
    def parts(M):
        if not sp.issparse(M):
            return (M,)
        return (M.data, *M.coords) if M.format == "coo" else (M.data, M.indices, M.indptr)

    user = [a for M in (X, Y) for a in parts(M)]
    before = [a.copy() for a in user]
    for data in _layers(X, Y, [1, 4]):
        for a, b in zip(user, before):
            assert a.flags.writeable
            np.testing.assert_array_equal(a, b)
            for name, mine in _arrays(data).items():
                assert not np.shares_memory(a, mine), name


@pytest.mark.parametrize("negated", [[], [3], [6, 0, 2, 5]])
def test_a_checked_matrix_is_taken_over_and_gives_the_same_layer(global_random_seed, negated):
    rng = np.random.RandomState(global_random_seed)
    dense = rng.rand(40, 7) < rng.choice([0.1, 0.5, 0.9])
    Y = rng.rand(40, 4) < 0.4
    expected = BinaryData.with_negations(dense, Y, negated)
    Xc = check_binary_matrix(dense, "X")
    data = BinaryData._checked_with_negations(Xc, Y, negated)
    for name, a in _arrays(expected).items():
        b = _arrays(data)[name]
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert data.n_base_features == expected.n_base_features == 7
    if not negated:
        assert data.X is Xc   # no copy: the checked matrix is the layer's X
    plain = BinaryData._from_checked(check_binary_matrix(dense, "X"), None)
    assert plain.n_labels == 0 and plain.Y.shape == (40, 0)
    for name, a in _arrays(BinaryData(dense)).items():
        np.testing.assert_array_equal(a, _arrays(plain)[name], err_msg=name)


def test_checked_labels_are_still_checked():
    Xc = check_binary_matrix(np.eye(4), "X")
    with pytest.raises(ValueError, match="Y must be a binary"):
        BinaryData._checked_with_negations(Xc, np.full((4, 1), 2), [])
    with pytest.raises(ValueError, match="same number of records"):
        BinaryData._checked_with_negations(Xc, np.ones((3, 1)), [0])


def test_predict_leaves_the_users_matrix_alone_and_agrees_with_a_copy():
    """Prediction takes over its own binarized copy of X: the user's matrix stays writable and the
    labels are those of a fresh copy."""
    rng = np.random.RandomState(0)
    X = sp.csr_array((rng.rand(200, 12) < 0.3).astype(np.uint8))
    Y = (rng.rand(200, 3) < 0.4).astype(np.uint8)
    Y[:, 0] |= X.toarray()[:, 0]
    model = CorsetClassifier(random_state=0, n_rules=12, negations=True).fit(X, Y)
    P = model.predict(X)
    assert X.indices.flags.writeable and X.data.flags.writeable
    np.testing.assert_array_equal(P, model.predict(X.copy()))
    np.testing.assert_array_equal(model.predict(X.toarray()), P)
