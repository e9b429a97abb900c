"""CORSET-GH (Algorithm 5) against a slow pure-Python reference."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corset import BinaryData
from corset._ext import _gh
from corset.sampling._gh import GreedyHeadSearch, covered_occurrences


def reference_search(X, role, candidates, n_positive, gamma, epsilon, normalise):
    """Algorithm 5 with Python sets: loop while candidates remain, best prefix."""
    n = X.shape[0]
    support = set(range(n))
    remaining = sorted(candidates)
    head, scores = [], []
    phi = 0.0
    while remaining:
        best = None
        for h in remaining:  # increasing id: ties go to the smaller id
            s = support & set(np.flatnonzero(X[:, h]).tolist())
            value = sum(role[r] == 1 for r in s) - gamma * sum(role[r] == 2 for r in s)
            gain = value - phi
            if normalise:
                size = int(X[:, h].sum())
                gain = gain / size if size else 0.0
            if best is None or gain > best[0]:
                best = (gain, h, value, s)
        _, h, value, s = best
        head.append(h)
        scores.append(value)
        phi = value
        support = s
        remaining.remove(h)
        if len(support) < epsilon * n_positive:
            break
    best_prefix = int(np.argmax(scores)) + 1 if scores else 0
    return head[:best_prefix], head, scores


@st.composite
def search_case(draw):
    n = draw(st.integers(1, 25))
    m = draw(st.integers(1, 10))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.RandomState(seed)
    X = rng.rand(n, m) < draw(st.floats(0.1, 0.9))
    role = rng.randint(0, 3, size=n).astype(np.uint8)
    candidates = sorted(draw(st.sets(st.integers(0, m - 1), max_size=m)))
    gamma = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))
    epsilon = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    normalise = draw(st.booleans())
    return X, role, candidates, gamma, epsilon, normalise


@given(search_case())
@settings(max_examples=400, deadline=None)
def test_kernel_matches_reference(case):
    X, role, candidates, gamma, epsilon, normalise = case
    data = BinaryData(X)
    n_pos = int((role == 1).sum())
    idx = data.feature_records
    head, visited, scores = _gh.greedy_head_search(
        idx.indptr, idx.ids, np.array(candidates, dtype=np.int32), role, n_pos, gamma, epsilon, normalise)
    ref_head, ref_visited, ref_scores = reference_search(X, role, candidates, n_pos, gamma, epsilon, normalise)
    assert visited.tolist() == ref_visited
    assert np.allclose(scores, ref_scores)
    assert head.tolist() == ref_head
    # The returned head's phi is at least that of every prefix visited.
    if len(scores):
        assert scores[len(head) - 1] >= scores.max()


def _toy(seed, n=30, m=8, L=3):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, m) < 0.5
    Y = rng.rand(n, L) < 0.4
    Y[0, 0] = True
    Y[1, 0] = False
    return X, Y


@pytest.mark.parametrize("seed_kind", ["uniform", "uncovered", "deterministic"])
@pytest.mark.parametrize("candidates", ["difference", "positive"])
@pytest.mark.parametrize("normalise", [False, True])
def test_wrapper_variants_match_reference(global_random_seed, seed_kind, candidates, normalise):
    X, Y = _toy(global_random_seed)
    data = BinaryData(X, Y)
    tail = (0,)
    search = GreedyHeadSearch(data, gamma=0.5, epsilon=0.1, candidates=candidates, seed=seed_kind,
                              normalise=normalise)
    rng = np.random.RandomState(global_random_seed)
    pos, neg = search.draw_pair(tail, rng)
    head = search.search(tail, pos, neg)
    positives = set(np.flatnonzero(Y[:, 0]).tolist())
    role = np.array([1 if r in positives else 2 for r in range(X.shape[0])], dtype=np.uint8)
    if pos is None:
        cand = sorted({f for r in positives for f in np.flatnonzero(X[r]).tolist()})
    else:
        assert pos in positives and neg not in positives
        cand = set(np.flatnonzero(X[pos]).tolist())
        if candidates == "difference":
            cand -= set(np.flatnonzero(X[neg]).tolist())
        cand = sorted(cand)
    ref_head, _, _ = reference_search(X, role, cand, len(positives), 0.5, 0.1, normalise)
    assert head == (tuple(sorted(ref_head)) if cand else None)


def test_uncovered_variant_drops_covered_positives():
    X, Y = _toy(3)
    data = BinaryData(X, Y)
    tail = (0,)
    rule_head = tuple(np.flatnonzero(X[0]).tolist()[:1])
    rules = [(rule_head, tail)]
    covered = covered_occurrences(data, rules)
    search = GreedyHeadSearch(data, seed="uniform", uncovered=True)
    role, positives = search.roles(tail, covered)
    matched = set(data.rule_support(rule_head, tail).tolist())
    for r in positives:
        assert role[r] == (0 if r in matched else 1)
    assert (role[np.setdiff1d(np.arange(data.n_records), positives)] == 2).all()


def test_no_negatives_and_empty_candidates():
    X = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=np.uint8)
    Y = np.ones((3, 1), dtype=np.uint8)  # every record is positive: no D−
    data = BinaryData(X, Y)
    search = GreedyHeadSearch(data, seed="uniform")
    pos, neg = search.draw_pair((0,), np.random.RandomState(0))
    assert neg is None
    head = search.search((0,), pos, neg)
    assert head is not None and len(head) == 1  # phi only falls as the head grows
    # D+ ⊆ D−: no candidate feature, no head.
    X2 = np.array([[1, 0], [1, 1]], dtype=np.uint8)
    Y2 = np.array([[1], [0]], dtype=np.uint8)
    data2 = BinaryData(X2, Y2)
    assert GreedyHeadSearch(data2, seed="uniform").search((0,), 0, 1) is None


def test_epsilon_one_stops_after_first_feature():
    X, Y = _toy(5)
    data = BinaryData(X, Y)
    search = GreedyHeadSearch(data, seed="deterministic", epsilon=1.0, gamma=0.0)
    idx = data.feature_records
    role, positives = search.roles((0,))
    cand = np.arange(X.shape[1], dtype=np.int32)
    _, visited, _ = _gh.greedy_head_search(idx.indptr, idx.ids, cand, role, positives.size, 0.0, 1.0, False)
    assert len(visited) >= 1
    # With epsilon = 1 the search stops as soon as the support is below |D_T^+|.
    supports = [len(data.head_support(visited[:i + 1])) for i in range(len(visited))]
    assert all(s >= positives.size for s in supports[:-1])


def test_parameter_errors():
    data = BinaryData(*_toy(0))
    with pytest.raises(ValueError, match="gamma"):
        GreedyHeadSearch(data, gamma=-1, seed="uniform")
    with pytest.raises(ValueError, match="epsilon"):
        GreedyHeadSearch(data, epsilon=2, seed="uniform")
    with pytest.raises(ValueError, match="seed"):
        GreedyHeadSearch(data, seed="bogus")
    with pytest.raises(ValueError, match="pair_sampler"):
        GreedyHeadSearch(data, seed="paper")
