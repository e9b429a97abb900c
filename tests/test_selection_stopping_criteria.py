"""Stopping criteria as objects in the one greedy loop of every entry point."""
import numpy as np
import pytest

from corset import BinaryData
from corset.datasets import make_rule_data
from corset.sampling import CandidateGenerator
from corset.selection import (
    BestTrainingF1,
    RuleBudget,
    ShareTolerance,
    StoppingCriterion,
    greedy_selection,
    select_rules,
)


def _pool_data(seed):
    data = make_rule_data(n_records=200, n_features=15, n_labels=5, random_state=seed)
    rng = np.random.RandomState(seed)
    pool = [(tuple(sorted(rng.choice(15, rng.randint(1, 3), replace=False).tolist())),
             tuple(sorted(rng.choice(5, rng.randint(1, 3), replace=False).tolist()))) for _ in range(150)]
    return data.X, data.Y, pool


class StopAfter(StoppingCriterion):
    """Stops after ``n`` rules were added and keeps ``keep`` of them; records the hooks called."""

    reason = "custom"

    def __init__(self, n, keep=None):
        self.n, self.keep, self.calls = n, keep, []

    def start(self, data):
        self.calls = [("start", data.n_records)]

    def before_step(self, n_selected):
        self.calls.append(("before_step", n_selected))
        return False

    def before_adding(self, step):
        self.calls.append(("before_adding", step.n_selected))
        return None

    def after_adding(self, step):
        self.calls.append(("after_adding", step.n_selected, step.rule))
        return step.n_selected + 1 >= self.n

    def n_rules_to_keep(self, n_selected):
        return n_selected if self.keep is None else self.keep


@pytest.mark.parametrize("seed", range(4))
def test_custom_criterion_stops_and_keeps_a_prefix(seed):
    X, Y, pool = _pool_data(seed)
    full = select_rules(X, Y, pool, n_rules=10, lam=0.3, tol=None)
    assert len(full) >= 4
    stop = StopAfter(4, keep=3)
    result = select_rules(X, Y, pool, n_rules=10, lam=0.3, tol=None, stopping_criteria=stop)
    assert result.stop_reason == "custom"
    # The greedy is sequential: the kept prefix is the prefix of the longer run.
    assert result.rules == full.rules[:3]
    kinds = [c[0] for c in stop.calls]
    assert kinds[0] == "start"
    # Each step: before_step, before_adding, after_adding; the fourth rule ends the run.
    assert kinds[1:] == ["before_step", "before_adding", "after_adding"] * 4
    assert [c[2] for c in stop.calls if c[0] == "after_adding"] == full.rules[:4]


def test_budget_is_a_criterion_object():
    X, Y, pool = _pool_data(0)
    a = select_rules(X, Y, pool, n_rules=50, lam=0.3, tol=None, stopping_criteria=[RuleBudget(5)])
    b = select_rules(X, Y, pool, n_rules=5, lam=0.3, tol=None)
    assert a.rules == b.rules and a.stop_reason == b.stop_reason == "budget"


@pytest.mark.parametrize("seed", range(3))
def test_select_rules_share_criterion_and_patience(seed):
    """select_rules now has the share criterion and patience of greedy_selection."""
    X, Y, pool = _pool_data(seed)
    base = select_rules(X, Y, pool, n_rules=40, lam=0.5, tol=None)
    shares = base.shares
    tol = float(np.quantile(shares, 0.5))
    # Reference: the first position where `patience` consecutive chosen shares are <= tol.
    for patience in (1, 2, 3):
        run, expected = 0, len(base)
        for i, share in enumerate(shares):
            run = run + 1 if share <= tol else 0
            if run >= patience:
                expected = i + 1
                break
        result = select_rules(X, Y, pool, n_rules=40, lam=0.5, tol=tol, patience=patience)
        assert len(result) == expected
        assert result.rules == base.rules[:expected]
    # "pool": a rule with a small share no longer stops while another candidate covers more.
    chosen = select_rules(X, Y, pool, n_rules=40, lam=0.5, tol=tol, share_criterion="chosen")
    by_pool = select_rules(X, Y, pool, n_rules=40, lam=0.5, tol=tol, share_criterion="pool")
    assert len(by_pool) >= len(chosen)


def test_share_tolerance_drops_the_stopping_rule_when_asked():
    X, Y, pool = _pool_data(1)
    kept = select_rules(X, Y, pool, n_rules=40, lam=0.5, tol=0.0)
    dropped = select_rules(X, Y, pool, n_rules=40, lam=0.5, tol=0.0, keep_stopping_rule=False)
    assert kept.stop_reason == dropped.stop_reason == "tol"
    assert dropped.rules == kept.rules[:-1]


def test_best_training_f1_matches_f1_patience():
    X, Y, pool = _pool_data(2)
    a = select_rules(X, Y, pool, n_rules=40, lam=0.5, tol=None, f1_patience=2)
    b = select_rules(X, Y, pool, n_rules=40, lam=0.5, tol=None, stopping_criteria=[BestTrainingF1(2)])
    assert a.rules == b.rules and a.stop_reason == b.stop_reason
    assert np.array_equal(a.f1_path, b.f1_path)
    best = int(np.argmax(a.f1_path)) + 1
    assert len(a) == best


def test_criteria_in_greedy_selection_with_a_generator():
    data = make_rule_data(n_records=300, n_features=20, n_labels=6, random_state=3)
    bd = BinaryData(data.X, data.Y)
    make = lambda: CandidateGenerator(bd, n_tails=10, n_heads_per_tail=3, random_state=0)  # noqa: E731
    full = greedy_selection(bd, make(), n_rules=8, lam=0.2, tol=None)
    stop = StopAfter(3)
    short = greedy_selection(bd, make(), n_rules=8, lam=0.2, tol=None, stopping_criteria=stop)
    assert short.stop_reason == "custom" and short.rules == full.rules[:3]


def test_bad_criteria_are_rejected():
    X, Y, pool = _pool_data(0)
    with pytest.raises(TypeError, match="stopping_criteria"):
        select_rules(X, Y, pool, stopping_criteria=["budget"])
    with pytest.raises(ValueError, match="tol"):
        ShareTolerance(None)
    with pytest.raises(ValueError, match="share_criterion"):
        ShareTolerance(0.1, share_criterion="best")


def test_best_held_out_f1_keeps_the_prefix_best_on_the_held_out_records():
    from corset.selection import BestHeldOutF1, MicroF1Path

    data = make_rule_data(n_records=400, n_features=15, n_labels=5, noise=0.05, random_state=4)
    X, Y = data.X, data.Y
    train, held = BinaryData(X[:250], Y[:250]), BinaryData(X[250:], Y[250:])
    rng = np.random.RandomState(4)
    pool = [(tuple(sorted(rng.choice(15, rng.randint(1, 3), replace=False).tolist())),
             tuple(sorted(rng.choice(5, rng.randint(1, 3), replace=False).tolist()))) for _ in range(200)]
    full = select_rules(train, None, pool, n_rules=40, lam=0.3, tol=None)
    # Reference: the held-out micro-F1 of every prefix of the longer run, and where patience 3 stops.
    path = MicroF1Path(held)
    scores = [path.add(*rule) for rule in full.rules]
    best, since, stop = 0.0, 0, len(scores)
    best_size = 0
    for i, score in enumerate(scores):
        if score > best:
            best, best_size, since = score, i + 1, 0
        else:
            since += 1
        if since >= 3:
            stop = i + 1
            break
    criterion = BestHeldOutF1(held, 3)
    result = select_rules(train, None, pool, n_rules=40, lam=0.3, tol=None, stopping_criteria=criterion)
    assert result.rules == full.rules[:best_size]
    assert len(criterion.scores) == stop and np.allclose(criterion.scores, scores[:stop])
    if stop < len(scores):
        assert result.stop_reason == "validation"
    with pytest.raises(ValueError, match="validation_data has"):
        select_rules(train, None, pool, stopping_criteria=BestHeldOutF1(BinaryData(X[:, :3], Y), 3))
