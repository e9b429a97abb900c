"""greedy_selection's min_support: the same selection as on the pool without the small rules."""
import numpy as np
import pytest

from corset import BinaryData
from corset.selection import greedy_selection, rule_statistics


def _pool(rng, data, size=40):
    pool = set()
    while len(pool) < size:
        head = tuple(sorted(rng.choice(data.n_features, size=rng.randint(1, 3), replace=False).tolist()))
        tail = tuple(sorted(rng.choice(data.n_labels, size=rng.randint(1, 3), replace=False).tolist()))
        pool.add((head, tail))
    return sorted(pool)


@pytest.mark.parametrize("min_support", [2, 3, 5])
@pytest.mark.parametrize("share_criterion", ["chosen", "pool"])
def test_same_as_filtered_pool(global_random_seed, min_support, share_criterion):
    rng = np.random.RandomState(global_random_seed)
    data = BinaryData(rng.rand(60, 8) < 0.35, rng.rand(60, 4) < 0.4)
    pool = _pool(rng, data)
    counts = rule_statistics(data, pool).rule_counts
    assert (counts < min_support).any() and (counts >= min_support).any()  # both kinds present
    kept = [r for r, c in zip(pool, counts) if c >= min_support]
    options = dict(n_rules=8, lam=0.3, quality="submodular", tol=0.01, share_criterion=share_criterion)
    got = greedy_selection(data, lambda rules: pool, min_support=min_support, **options)
    want = greedy_selection(data, lambda rules: kept, **options)
    assert got.rules == want.rules and np.allclose(got.gains, want.gains)
    assert got.rules and all(c >= min_support for r, c in zip(pool, counts) if r in got.rules)


def test_min_support_is_checked():
    data = BinaryData(np.eye(4, dtype=np.uint8), np.eye(4, dtype=np.uint8))
    with pytest.raises(ValueError, match="min_support"):
        greedy_selection(data, lambda rules: [((0,), (0,))], min_support=0)


@pytest.mark.parametrize("min_support", [2, 4])
def test_select_rules_min_support_matches_filtered_pool(global_random_seed, min_support):
    from corset.selection import select_rules

    rng = np.random.RandomState(global_random_seed + 50)
    X, Y = rng.rand(60, 8) < 0.35, rng.rand(60, 4) < 0.4
    data = BinaryData(X, Y)
    pool = _pool(rng, data)
    counts = rule_statistics(data, pool).rule_counts
    kept = [r for r, c in zip(pool, counts) if c >= min_support]
    options = dict(n_rules=6, lam=0.3, quality="submodular", tol=None)
    assert select_rules(X, Y, pool, min_support=min_support, **options).rules == select_rules(X, Y, kept, **options).rules
