"""Co-occurrence graphs (corset.labelspace) against a dense numpy reference."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from corset import BinaryData
from corset.labelspace import CooccurrenceGraph, cooccurrence_graph, feature_graph, label_graph


def dense_reference(M, edge_probability, min_probability):
    """(probabilities, counts) as dense arrays, diagonal and pruned edges zero."""
    M = np.asarray(M, dtype=np.int64)
    C = M.T @ M
    n = np.diag(C).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = C / n[:, None]  # p[u, v] = |D[u] ∩ D[v]| / |D[u]|
    p[~np.isfinite(p)] = 0.0
    if edge_probability == "directed":
        W = p
    else:
        W = 1.0 - (1.0 - p) * (1.0 - p.T)
    keep = (C > 0) & (W >= min_probability)
    np.fill_diagonal(keep, False)
    return np.where(keep, W, 0.0), np.where(keep, C, 0)


@st.composite
def binary_matrices(draw, max_records=30, max_items=14):
    n = draw(st.integers(0, max_records))
    m = draw(st.integers(1, max_items))
    density = draw(st.sampled_from([0.05, 0.2, 0.5, 0.9]))
    seed = draw(st.integers(0, 2**31 - 1))
    return (np.random.RandomState(seed).rand(n, m) < density).astype(np.uint8)


@given(binary_matrices(), st.sampled_from(["directed", "symmetrised"]),
       st.sampled_from([0.0, 0.25, 0.5, 0.8, 1.0]))
@settings(max_examples=200, deadline=None)
def test_graph_matches_dense_reference(M, edge_probability, min_probability):
    g = cooccurrence_graph(M, edge_probability=edge_probability, min_probability=min_probability)
    W_ref, C_ref = dense_reference(M, edge_probability, min_probability)
    assert isinstance(g, CooccurrenceGraph)
    assert g.probabilities.shape == g.counts.shape == (M.shape[1], M.shape[1])
    # Same arithmetic as the reference, so the weights agree bit for bit.
    np.testing.assert_array_equal(g.probabilities.toarray(), W_ref)
    np.testing.assert_array_equal(g.counts.toarray(), C_ref)
    # Exactly the kept edges are stored (no explicit zeros), rows sorted.
    assert g.n_edges == np.count_nonzero(C_ref)
    assert g.probabilities.has_sorted_indices
    np.testing.assert_array_equal(g.item_counts, M.sum(axis=0))
    assert g.n_records == M.shape[0]
    if edge_probability == "symmetrised":
        assert (abs(g.probabilities - g.probabilities.T) > 0).nnz == 0


@given(binary_matrices(), st.sampled_from(["directed", "symmetrised"]), st.sampled_from([0.0, 0.3, 0.8]))
@settings(max_examples=100, deadline=None)
def test_pair_factors(M, edge_probability, alpha):
    g = cooccurrence_graph(M, edge_probability=edge_probability)
    W, _ = dense_reference(M, edge_probability, 0.0)
    Q_ref = W * W.T if edge_probability == "directed" else W
    Q_ref = np.where(Q_ref >= alpha, Q_ref, 0.0)
    Q = g.pair_factors(alpha)
    np.testing.assert_array_equal(Q.toarray(), Q_ref)
    assert Q.has_sorted_indices
    assert (Q.data > 0).all()


def test_label_and_feature_graph_read_their_side():
    X = np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1], [0, 0, 0]])
    Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    data = BinaryData(X, Y)
    gl = label_graph(data, edge_probability="directed")
    gf = feature_graph(data, edge_probability="directed")
    # Labels: |D[0]| = 2, |D[1]| = 2, together in one record.
    np.testing.assert_array_equal(gl.probabilities.toarray(), [[0, 0.5], [0.5, 0]])
    np.testing.assert_array_equal(gl.counts.toarray(), [[0, 1], [1, 0]])
    # Features: p(0, 1) = 2/3 (P(f1 | f0)), p(1, 0) = 1.
    P = gf.probabilities.toarray()
    assert P[0, 1] == 2 / 3 and P[1, 0] == 1.0
    sym = feature_graph(data).probabilities.toarray()
    assert sym[0, 1] == sym[1, 0] == 1.0 - (1.0 - 2 / 3) * (1.0 - 1.0)


def test_item_that_never_occurs_is_isolated():
    M = np.array([[1, 0, 1], [1, 0, 0]])
    g = cooccurrence_graph(M)
    assert g.item_counts.tolist() == [2, 0, 1]
    assert g.probabilities[[1], :].nnz == 0 and g.probabilities[:, [1]].nnz == 0


def test_read_only_and_sparse_input():
    M = sp.random(50, 20, density=0.2, format="csr", random_state=np.random.RandomState(3))
    M.data[:] = 1
    dense = M.toarray().astype(np.uint8)
    dense.flags.writeable = False
    a = cooccurrence_graph(M)
    b = cooccurrence_graph(dense)
    np.testing.assert_array_equal(a.probabilities.toarray(), b.probabilities.toarray())


@pytest.mark.parametrize("kwargs, match", [
    ({"edge_probability": "both"}, "edge_probability"),
    ({"min_probability": 1.5}, "min_probability"),
    ({"min_probability": -0.1}, "min_probability"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cooccurrence_graph(np.eye(3), **kwargs)


def test_bad_input():
    with pytest.raises(ValueError, match="binary"):
        cooccurrence_graph(np.array([[0, 2], [1, 0]]))
    with pytest.raises(TypeError, match="BinaryData"):
        label_graph(np.eye(3))
    with pytest.raises(TypeError, match="min_probability"):
        cooccurrence_graph(np.eye(3), min_probability="high")


@pytest.mark.realdata
def test_medical_label_graph_against_scipy(data_dir):
    load_benchmark = pytest.importorskip("corset.datasets").load_benchmark
    train = load_benchmark("medical", subset="train", data_home=data_dir)
    data = BinaryData(np.zeros((train.Y.shape[0], 1)), train.Y)
    g = label_graph(data, edge_probability="directed")
    W_ref, C_ref = dense_reference(sp.csr_array(train.Y).toarray(), "directed", 0.0)
    np.testing.assert_array_equal(g.probabilities.toarray(), W_ref)
    np.testing.assert_array_equal(g.counts.toarray(), C_ref)
