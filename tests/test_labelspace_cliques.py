"""Probabilistic clique enumeration (corset.labelspace) against brute force over all subsets."""
import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corset import BinaryData
from corset.labelspace import (CliqueOverflowError, CliqueTruncationWarning, SetFamily, cooccurrence_graph,
                               interpretable_space, label_graph, probabilistic_cliques)


def fold_probability(S, Q):
    """P(S) with the documented arithmetic: a left fold over the sorted set."""
    P = 1.0
    for j in range(1, len(S)):
        g = Q[S[0], S[j]]
        for i in range(1, j):
            g = g * Q[S[i], S[j]]
        P = P * g
    return P


def brute_force(Q, roots, alpha, max_size=None):
    """Every subset of the roots with probability >= alpha, in lexicographic order."""
    roots = sorted(roots)
    top = len(roots) if max_size is None else min(max_size, len(roots))
    out = []
    for k in range(1, top + 1):
        for S in itertools.combinations(roots, k):
            # A non-adjacent pair has factor 0, so its probability is 0 < alpha.
            P = fold_probability(S, Q)
            if P >= alpha:
                out.append((S, P))
    out.sort()
    return out


def dense_factors(M, edge_probability):
    M = np.asarray(M, dtype=np.int64)
    C = M.T @ M
    n = np.diag(C).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = C / n[:, None]
    p[~np.isfinite(p)] = 0.0
    np.fill_diagonal(p, 0.0)
    if edge_probability == "directed":
        return p * p.T  # both directions of every pair
    return 1.0 - (1.0 - p) * (1.0 - p.T)


@st.composite
def binary_matrices(draw, max_records=25, max_items=9):
    n = draw(st.integers(1, max_records))
    m = draw(st.integers(1, max_items))
    density = draw(st.sampled_from([0.1, 0.3, 0.6, 0.9]))
    seed = draw(st.integers(0, 2**31 - 1))
    return (np.random.RandomState(seed).rand(n, m) < density).astype(np.uint8)


ALPHAS = [0.05, 0.3, 0.5, 0.8, 1.0]


@given(binary_matrices(), st.sampled_from(["directed", "symmetrised"]), st.sampled_from(ALPHAS),
       st.sampled_from([None, 1, 2, 3]))
@settings(max_examples=300, deadline=None)
def test_cliques_of_cooccurrence_graph_match_brute_force(M, edge_probability, alpha, max_size):
    g = cooccurrence_graph(M, edge_probability=edge_probability)
    Q = dense_factors(M, edge_probability)
    roots = np.flatnonzero(M.sum(axis=0) > 0)
    expected = brute_force(Q, roots, alpha, max_size)
    family = probabilistic_cliques(g, alpha, max_size=max_size)
    assert isinstance(family, SetFamily) and not family.truncated
    assert family.to_list() == [S for S, _ in expected]
    # Bit-identical probabilities: same fold order as the documented one.
    assert family.probabilities.tolist() == [P for _, P in expected]
    # Pruning the graph at alpha changes nothing.
    pruned = cooccurrence_graph(M, edge_probability=edge_probability, min_probability=alpha)
    assert probabilistic_cliques(pruned, alpha, max_size=max_size).to_list() == family.to_list()


@st.composite
def weight_matrices(draw, max_items=8):
    """Edge probabilities on a coarse grid, so that products hit alpha exactly."""
    n = draw(st.integers(1, max_items))
    grid = draw(st.sampled_from([[0.0, 0.5, 1.0], [0.0, 0.8, 0.9, 1.0], [0.0, 0.25, 0.5, 0.75, 1.0]]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.RandomState(seed)
    return np.asarray(grid)[rng.randint(len(grid), size=(n, n))]


@given(weight_matrices(), st.sampled_from(["directed", "symmetrised"]),
       st.sampled_from([0.25, 0.5, 0.64, 0.72, 0.8, 0.9, 1.0]))
@settings(max_examples=300, deadline=None)
def test_cliques_of_weight_matrix_match_brute_force(W, edge_probability, alpha):
    W = W.copy()
    np.fill_diagonal(W, 0.0)
    if edge_probability == "symmetrised":
        W = np.triu(W) + np.triu(W).T
        Q = W
    else:
        Q = W * W.T
    expected = brute_force(Q, range(W.shape[0]), alpha)
    family = probabilistic_cliques(W, alpha, edge_probability=edge_probability)
    assert family.to_list() == [S for S, _ in expected]
    assert family.probabilities.tolist() == [P for _, P in expected]


def test_directed_uses_both_directions():
    # p(0,1) = 1, p(1,0) = 0.5: directed factor 0.5, symmetrised factor 1.
    M = np.array([[1, 1], [0, 1]])
    assert probabilistic_cliques(cooccurrence_graph(M, edge_probability="directed"), 0.6).to_list() == [(0,), (1,)]
    assert probabilistic_cliques(cooccurrence_graph(M, edge_probability="directed"), 0.5).to_list() == [
        (0,), (0, 1), (1,)]
    assert probabilistic_cliques(cooccurrence_graph(M), 1.0).to_list() == [(0,), (0, 1), (1,)]


def test_every_occurring_singleton_is_kept():
    # Item 1 never occurs; items 0 and 2 never co-occur.
    M = np.array([[1, 0, 0], [0, 0, 1]])
    family = probabilistic_cliques(cooccurrence_graph(M), 1.0)
    assert family.to_list() == [(0,), (2,)]
    assert family.probabilities.tolist() == [1.0, 1.0]


def complete_graph(n, weight=1.0):
    W = np.full((n, n), weight)
    np.fill_diagonal(W, 0.0)
    return W


def test_overflow_raises_fast_with_a_clear_message():
    # 2**60 - 1 cliques: the search must stop right after max_sets of them.
    W = complete_graph(60)
    with pytest.raises(CliqueOverflowError, match=r"max_sets=10000.*alpha=0\.8.*max_size=None"):
        probabilistic_cliques(W, 0.8, max_sets=10_000, edge_probability="symmetrised")
    with pytest.raises(CliqueOverflowError, match=r"max_size=5"):
        probabilistic_cliques(W, 0.8, max_size=5, max_sets=10_000, edge_probability="symmetrised")


def test_max_sets_exactly_reached_is_no_overflow():
    W = complete_graph(4)  # 15 non-empty subsets
    family = probabilistic_cliques(W, 1.0, max_sets=15, edge_probability="directed")
    assert len(family) == 15
    with pytest.raises(CliqueOverflowError):
        probabilistic_cliques(W, 1.0, max_sets=14, edge_probability="directed")


def truncation_reference(all_sets, max_sets):
    by_size = {}
    for S in all_sets:
        by_size.setdefault(len(S), []).append(S)
    kept, complete = [], 0
    for k in sorted(by_size):
        if len(kept) + len(by_size[k]) <= max_sets:
            kept += by_size[k]
            complete = k
        else:
            kept += sorted(by_size[k])[:max_sets - len(kept)]
            break
    return sorted(kept), complete


@given(weight_matrices(max_items=8), st.sampled_from([0.25, 0.5, 0.8]), st.integers(1, 60),
       st.sampled_from([None, 2, 3]))
@settings(max_examples=200, deadline=None)
def test_truncate_keeps_smallest_sets_then_lexicographic(W, alpha, max_sets, max_size):
    W = np.triu(W, 1) + np.triu(W, 1).T
    full = probabilistic_cliques(W, alpha, max_size=max_size, edge_probability="symmetrised", max_sets=10**6)
    all_sets = full.to_list()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        family = probabilistic_cliques(W, alpha, max_size=max_size, max_sets=max_sets,
                                       on_overflow="truncate", edge_probability="symmetrised")
    if len(all_sets) <= max_sets:
        assert family.to_list() == all_sets and not family.truncated
        assert not [w for w in caught if issubclass(w.category, CliqueTruncationWarning)]
        return
    expected, complete = truncation_reference(all_sets, max_sets)
    assert family.truncated and family.complete_size == complete
    assert len(family) == max_sets
    assert family.to_list() == expected
    index = {S: P for S, P in zip(all_sets, full.probabilities.tolist())}
    assert family.probabilities.tolist() == [index[S] for S in expected]
    assert [w for w in caught if issubclass(w.category, CliqueTruncationWarning)]


def test_truncate_on_a_dense_graph_is_bounded():
    W = complete_graph(60)
    with pytest.warns(CliqueTruncationWarning, match="size <= 2"):
        family = probabilistic_cliques(W, 0.5, max_sets=5_000, on_overflow="truncate",
                                       edge_probability="symmetrised")
    sizes = family.lengths()
    assert len(family) == 5_000
    # 60 singletons + 1770 pairs complete, then the first 3170 triples in lexicographic order.
    assert (sizes == 1).sum() == 60 and (sizes == 2).sum() == 1770 and (sizes == 3).sum() == 3170
    assert family.complete_size == 2
    assert family.to_list() == sorted(family.to_list())


def test_truncate_when_singletons_alone_overflow():
    with pytest.warns(CliqueTruncationWarning):
        family = probabilistic_cliques(np.zeros((10, 10)), 0.5, max_sets=4, on_overflow="truncate",
                                       edge_probability="directed")
    assert family.to_list() == [(0,), (1,), (2,), (3,)]
    assert family.complete_size == 0


def test_interpretable_space_of_labels():
    Y = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [0, 1, 1, 0]])
    data = BinaryData(np.zeros((4, 1)), Y)
    family = interpretable_space(data, "labels", 0.8)
    expected = probabilistic_cliques(label_graph(data), 0.8)
    # {1, 2}: p(1, 2) = 1/3, p(2, 1) = 1/2, symmetrised 2/3 < 0.8.
    assert family.to_list() == expected.to_list() == [(0,), (0, 1), (1,), (2,)]
    assert family.n_items == 4


@pytest.mark.parametrize("kwargs, error, match", [
    ({"alpha": 0.0}, ValueError, "alpha"),
    ({"alpha": 1.2}, ValueError, "alpha"),
    ({"alpha": float("nan")}, TypeError, "alpha"),
    ({"max_sets": 0}, ValueError, "max_sets"),
    ({"max_size": 0}, ValueError, "max_size"),
    ({"max_size": 2.5}, TypeError, "max_size"),
    ({"on_overflow": "ignore"}, ValueError, "on_overflow"),
])
def test_bad_parameters(kwargs, error, match):
    g = cooccurrence_graph(np.eye(3))
    with pytest.raises(error, match=match):
        probabilistic_cliques(g, **kwargs)


def test_bad_matrix_graphs():
    with pytest.raises(ValueError, match="edge_probability"):
        probabilistic_cliques(np.eye(3), 0.5)
    with pytest.raises(ValueError, match="square"):
        probabilistic_cliques(np.ones((2, 3)), 0.5, edge_probability="directed")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        probabilistic_cliques(np.full((2, 2), 2.0), 0.5, edge_probability="directed")
    with pytest.raises(ValueError, match="symmetric"):
        probabilistic_cliques(np.array([[0, 1.0], [0.5, 0]]), 0.5, edge_probability="symmetrised")
    with pytest.raises(ValueError, match="contradicts"):
        probabilistic_cliques(cooccurrence_graph(np.eye(3)), 0.5, edge_probability="directed")


def test_set_family_from_sets():
    family = SetFamily.from_sets([[3, 1], [], (2,)], n_items=4)
    assert family.to_list() == [(1, 3), (), (2,)]
    assert family.lengths().tolist() == [2, 0, 1]
    with pytest.raises(ValueError, match="duplicate"):
        SetFamily.from_sets([[1, 1]], n_items=4)
    with pytest.raises(ValueError, match="outside"):
        SetFamily.from_sets([[4]], n_items=4)
    with pytest.raises(ValueError, match="integer"):
        SetFamily.from_sets([[0.5]], n_items=4)
