"""``f1_patience``: the training micro-F1 path of a selection, its stop, and the cut to the best prefix.

Every figure is checked against a brute force: the rule set's predictions
(the union of the tails of the rules whose head a record contains) scored by
scikit-learn's ``f1_score``.
"""
import numpy as np
import pytest
from sklearn.metrics import f1_score

from corset import BinaryData
from corset.selection import MicroF1Path, greedy_selection, select_rules


def _case(seed, n=70, m=9, k=4):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, m) < 0.4
    Y = (rng.rand(n, k) < 0.3) | (X[:, :k] & (rng.rand(n, k) < 0.7))
    data = BinaryData(X, Y)
    pool = [((f,), (j,)) for f in range(m) for j in range(k)]
    pool += [((f, g), (j,)) for f in range(m) for g in range(f + 1, m) for j in range(k)]
    pool += [((f,), (0, 1)) for f in range(m)]
    return X, Y.astype(np.uint8), data, pool


def _brute_f1(X, Y, rules):
    """Training micro-F1 of a rule set: scikit-learn on the union of the firing rules' tails."""
    P = np.zeros(Y.shape, dtype=np.uint8)
    for head, tail in rules:
        fires = X[:, list(head)].all(axis=1)
        P[np.ix_(fires, list(tail))] = 1
    return f1_score(Y, P, average="micro", zero_division=0)


def test_micro_f1_path_matches_sklearn(global_random_seed):
    X, Y, data, pool = _case(global_random_seed)
    rng = np.random.RandomState(global_random_seed)
    rules = [pool[i] for i in rng.choice(len(pool), size=25, replace=False)]
    path = MicroF1Path(data)
    for m in range(1, len(rules) + 1):
        assert path.add(*rules[m - 1]) == pytest.approx(_brute_f1(X, Y, rules[:m]), abs=1e-12)
        # Per label: the predicted pairs of the rule set, and the true ones among them.
        P = np.zeros(Y.shape, dtype=bool)
        for head, tail in rules[:m]:
            P[np.ix_(X[:, list(head)].all(axis=1), list(tail))] = True
        np.testing.assert_array_equal(path.label_predicted, P.sum(axis=0))
        np.testing.assert_array_equal(path.label_tp, (P & (Y == 1)).sum(axis=0))
    scores = np.asarray(path.scores)
    assert path.best_size == int(np.argmax(scores)) + 1          # the first maximum
    assert path.best_score == scores.max()
    assert path.since_best == len(rules) - path.best_size


def test_micro_f1_path_of_rules_predicting_no_true_label():
    X = np.array([[1, 0], [0, 1], [1, 1]])
    Y = np.array([[0], [1], [1]])
    path = MicroF1Path(BinaryData(X, Y))
    assert path.add((0,), (0,)) == pytest.approx(2 * 1 / (2 + 2))   # fires on records 0 and 2
    path = MicroF1Path(BinaryData(X, np.array([[1], [0], [0]])))
    assert path.add((1,), (0,)) == 0.0 and path.best_size == 0 and path.since_best == 1


def test_add_predictions_refuses_ids_outside_the_flags():
    """The compiled step of MicroF1Path.add checks its ids before writing a flag."""
    from corset._ext import _intersect

    data = BinaryData(np.array([[1, 0], [0, 1], [1, 1]]), np.array([[0, 1], [1, 1], [1, 0]]))
    labels = data.label_records
    args = lambda rows, tail: (np.zeros((2, 3), dtype=np.uint8), np.asarray(rows, dtype=np.int32),
                               np.asarray(tail, dtype=np.int32), labels.indptr, labels.ids,
                               np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64))
    assert _intersect.add_predictions(*args([0, 2], [0, 1])) == (4, 2)
    for rows, tail, message in [([0, 3], [0], "record 3"), ([-1], [0], "record -1"), ([0], [2], "label 2")]:
        with pytest.raises(ValueError, match=message):
            _intersect.add_predictions(*args(rows, tail))


@pytest.mark.parametrize("patience", [1, 3, 8])
@pytest.mark.parametrize("quality", ["submodular", "paper"])
def test_fixed_pool_run_is_cut_to_its_best_training_f1_prefix(global_random_seed, patience, quality):
    """The cut run is the plain run's prefix up to the first maximum of the brute-force micro-F1
    path, computed until ``patience`` rules in a row set no new maximum."""
    X, Y, data, pool = _case(global_random_seed)
    plain = select_rules(data, None, pool, n_rules=40, lam=0.3, quality=quality, tol=None)
    cut = select_rules(data, None, pool, n_rules=40, lam=0.3, quality=quality, tol=None, f1_patience=patience)
    scores = [_brute_f1(X, Y, plain.rules[:m]) for m in range(1, len(plain.rules) + 1)]
    best, best_size, seen = 0.0, 0, 0
    for m, score in enumerate(scores, 1):
        seen = m
        if score > best:
            best, best_size = score, m
        elif m - best_size >= patience:
            break
    assert cut.rules == plain.rules[:best_size]
    np.testing.assert_allclose(cut.f1_path, scores[:seen], atol=1e-12)
    np.testing.assert_array_equal(cut.gains, plain.gains[:best_size])
    np.testing.assert_array_equal(cut.areas, plain.areas[:best_size])
    np.testing.assert_array_equal(cut.candidate_indices, plain.candidate_indices[:best_size])
    assert cut.stop_reason == ("f1" if seen < len(plain.rules) else plain.stop_reason)
    # The objective is that of the cut rule set, as a plain run with that budget gives it.
    if best_size:
        short = select_rules(data, None, pool, n_rules=best_size, lam=0.3, quality=quality, tol=None)
        assert short.rules == cut.rules
        assert cut.objective == pytest.approx(short.objective, rel=1e-12)
    assert plain.f1_path is None


@pytest.mark.parametrize("second_round", [False, True])
def test_fresh_pools_run_is_cut_and_round_two_gets_its_size(global_random_seed, second_round):
    X, Y, data, pool = _case(global_random_seed + 11)
    rng = np.random.RandomState(global_random_seed)
    pools = [[pool[i] for i in rng.choice(len(pool), size=40, replace=False)] for _ in range(60)]

    def generator(rules):
        return pools[len(rules)]

    options = dict(n_rules=50, lam=0.2, quality="submodular", tol=None, second_round=second_round)
    plain = greedy_selection(data, generator, **options)
    cut = greedy_selection(data, generator, f1_patience=4, **options)
    round1 = cut.round_rules[1]
    assert round1 == plain.round_rules[1][:len(round1)]
    scores = [_brute_f1(X, Y, plain.round_rules[1][:m]) for m in range(1, len(cut.f1_path) + 1)]
    np.testing.assert_allclose(cut.f1_path, scores, atol=1e-12)
    assert len(round1) == int(np.argmax(scores)) + 1
    if cut.stop_reason == "f1":
        assert len(cut.f1_path) - len(round1) == 4
    if second_round:
        assert len(cut.round_rules[2]) <= len(round1)


def test_f1_patience_is_checked():
    _, _, data, pool = _case(0)
    for bad, error in [(0, ValueError), (-2, ValueError), (1.5, TypeError), ("auto", TypeError)]:
        with pytest.raises(error, match="f1_patience"):
            select_rules(data, None, pool, f1_patience=bad)
        with pytest.raises(error, match="f1_patience"):
            greedy_selection(data, lambda rules: pool, f1_patience=bad)
