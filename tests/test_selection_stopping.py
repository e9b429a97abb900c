"""Round 1's share criterion: patience and which share is compared with τ."""
import numpy as np
import pytest

from corset import BinaryData
from corset.selection import greedy_selection


def _case(seed):
    rng = np.random.RandomState(seed)
    X = rng.rand(60, 8) < 0.45
    Y = rng.rand(60, 4) < 0.35
    data = BinaryData(X, Y)
    pool = [((f,), (k,)) for f in range(8) for k in range(4)]
    pool += [((f, g), (k,)) for f in range(8) for g in range(f + 1, 8) for k in range(4)]
    return data, pool


@pytest.mark.parametrize("patience", [1, 2, 4])
def test_patience_counts_consecutive_low_share_rules(global_random_seed, patience):
    data, pool = _case(global_random_seed)
    result = greedy_selection(data, lambda rules: pool, n_rules=60, lam=0.5, quality="submodular",
                              tol=0.0, patience=patience)
    shares = result.shares
    low = shares <= 0.0
    if result.stop_reason == "tol":
        assert low[-patience:].all()
        # No earlier run of `patience` consecutive low shares.
        run = 0
        for flag in low[:-1]:
            run = run + 1 if flag else 0
            assert run < patience
    if patience == 1:
        default = greedy_selection(data, lambda rules: pool, n_rules=60, lam=0.5, quality="submodular", tol=0.0)
        assert default.rules == result.rules


def test_pool_criterion_stops_only_when_nothing_new_is_left(global_random_seed):
    data, pool = _case(global_random_seed)
    result = greedy_selection(data, lambda rules: pool, n_rules=200, lam=0.5, quality="submodular",
                              tol=0.0, share_criterion="pool")
    chosen = greedy_selection(data, lambda rules: pool, n_rules=200, lam=0.5, quality="submodular", tol=0.0)
    assert len(result.rules) >= len(chosen.rules)
    if result.stop_reason == "tol":
        # Every label occurrence the pool can cover is covered by then.
        covered_by_pool = set()
        for head, tail in pool:
            for r in data.rule_support(head, tail):
                covered_by_pool.update((int(r), k) for k in tail)
        covered = set()
        for head, tail in result.rules:
            for r in data.rule_support(head, tail):
                covered.update((int(r), k) for k in tail)
        assert covered == covered_by_pool


def test_stopping_parameters_are_checked():
    data, pool = _case(0)
    with pytest.raises(ValueError, match="share_criterion"):
        greedy_selection(data, lambda rules: pool, share_criterion="best")
    with pytest.raises((ValueError, TypeError), match="patience"):
        greedy_selection(data, lambda rules: pool, patience=0)
