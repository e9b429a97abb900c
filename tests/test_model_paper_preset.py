"""CorsetClassifier.paper(): Algorithm 1 as the paper's experiments run it, checked step by step.

The candidate pools the estimator draws are recorded and replayed into the
pure-Python reference greedy of test_selection_reference (the paper's
quality q(R; ℛ), round 1, a budget and no τ): every rule the preset selects
must be the reference's choice from the same pool, and its predictions the
union of the tails of the rules that fire.
"""
import numpy as np
import pytest
import test_selection_reference as ref

from corset.datasets import make_rule_data
from corset.model import PAPER_PRESET, CorsetClassifier
from corset.preprocessing import PercentileBinarizer
from corset.sampling import CandidateGenerator


@pytest.fixture
def recorded_pools(monkeypatch):
    """Every pool the estimator's generator returns, keyed by the number of rules selected before it."""
    pools = {}
    original = CandidateGenerator.candidate_pool

    def recording(self, selected_rules=(), *, coverage=None):
        pool = original(self, selected_rules, coverage=coverage)
        step = len(coverage.rules) if coverage is not None else len(selected_rules)
        assert step not in pools, "one pool per step in round 1"
        pools[step] = [(tuple(h), tuple(t)) for h, t in pool]
        return pool

    monkeypatch.setattr(CandidateGenerator, "candidate_pool", recording)
    return pools


@pytest.mark.parametrize("head_sampler", ["gh", "surs"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paper_preset_replays_algorithm_1_step_by_step(recorded_pools, head_sampler, seed):
    data = make_rule_data(n_records=80, n_features=10, n_labels=6, noise=0.05, random_state=seed)
    X, Y = data.X.toarray(), data.Y.toarray()
    model = CorsetClassifier.paper(n_rules=8, n_tails=6, n_heads_per_tail=3, head_sampler=head_sampler,
                                   random_state=seed).fit(X, Y)
    assert model.selection_.selected_round == 1 and 2 not in model.selection_.objectives
    assert model.negated_features_.size == 0
    reference = ref.RefData(X, Y)
    chosen, gains, _, _, reason, _, _ = ref.greedy(
        reference, lambda chosen: recorded_pools[len(chosen)], 8, PAPER_PRESET["lam"], "paper", None)
    assert model.selection_.rules == chosen
    np.testing.assert_allclose(model.selection_.gains, gains, rtol=0, atol=1e-9)
    assert model.selection_.stop_reason == reason
    # The budget, not a share threshold, stops it (or an exhausted pool); no rule is added or dropped after.
    assert reason in {"budget", "no_gain", "empty_pool"}
    assert [(r.head, r.tail) for r in model.rules_] == chosen
    assert all(r.head for r in model.rules_), "no default rule"
    f = ref.objective(reference, chosen, PAPER_PRESET["lam"], "paper")
    assert model.selection_.objective == pytest.approx(f, rel=1e-9, abs=1e-9)
    # Predictions: the union of the tails of the rules whose head the record contains.
    expected = np.zeros_like(Y)
    for head, tail in chosen:
        fires = X[:, list(head)].all(axis=1)
        expected[np.ix_(fires, list(tail))] = 1
    np.testing.assert_array_equal(model.predict(X), expected)


def test_paper_preset_heads_are_unbounded_and_rules_may_rest_on_one_record():
    model = CorsetClassifier.paper()
    assert model.max_head_length is None and model.min_support == 1 and model.tol is None
    assert model.quality == "paper" and not model.second_round and model.n_rules == 150
    assert model.negations is False and model.f1_patience is None
    assert model.default_rule is False and model.prune_redundant is False
    assert model.n_tails * model.n_heads_per_tail == 500


def test_paper_preset_overrides_and_errors():
    model = CorsetClassifier.paper(head_sampler="surs", lam=0.5)
    assert model.head_sampler == "surs" and model.lam == 0.5 and model.quality == "paper"
    params = CorsetClassifier.paper().get_params(deep=False)
    binarizer = params.pop("binarizer")
    expected = {**CorsetClassifier().get_params(deep=False), **PAPER_PRESET}
    expected.pop("binarizer")
    assert params == expected
    # The paper's protocol: one cut at the training 90th percentile, strict ">", zeros included; a fresh copy.
    assert binarizer.get_params() == PercentileBinarizer().get_params()
    assert binarizer is not PAPER_PRESET["binarizer"]
    with pytest.raises(TypeError, match="'lamda'"):
        CorsetClassifier.paper(lamda=1.0)
