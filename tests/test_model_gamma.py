"""gh_gamma="auto": CORSET-GH's γ chosen by the internal validation, up the ladder AUTO_GH_GAMMAS."""
import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.metrics import f1_score
from sklearn.utils._param_validation import InvalidParameterError

from corset.datasets import make_rule_data
from corset.model import CorsetClassifier
from corset.model import _classifier as classifier
from corset.model._classifier import AUTO_GH_GAMMAS

FAST = dict(n_rules=30, n_tails=10, n_heads_per_tail=5)


def digit_labels(n):
    """Real 8x8 digit images (scikit-learn's copy); labels that the digit determines, without noise."""
    digits = load_digits()
    y = digits.target
    Y = np.column_stack([np.isin(y, [0, 2, 4, 6, 8]), np.isin(y, [2, 3, 5, 7]), y >= 5,
                         np.isin(y, [0, 6, 8, 9])]).astype(np.uint8)
    return digits.data[:n], Y[:n], digits.data[n:], Y[n:]


def noisy_labels(seed):
    """Labels from rules with a fifth of their occurrences flipped: precise heads do not pay."""
    bunch = make_rule_data(n_records=300, n_features=30, n_labels=4, n_rules=6, noise=0.2, random_state=seed)
    return bunch.X, bunch.Y


def _gammas_searched(monkeypatch):
    """The γ of every CORSET-GH sampler built from now on, in order (the final fit's is the last)."""
    from corset.sampling import _head_gh

    seen = []
    original = _head_gh.GreedyHeadSearch.__init__

    def spy(self, data, **kwargs):
        seen.append(kwargs.get("gamma"))
        original(self, data, **kwargs)

    monkeypatch.setattr(_head_gh.GreedyHeadSearch, "__init__", spy)
    return seen


def test_noise_free_labels_climb_the_ladder_and_the_fit_uses_the_gamma_chosen(monkeypatch):
    X, Y, X_test, Y_test = digit_labels(400)
    seen = _gammas_searched(monkeypatch)
    model = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    # 2 beats 0.5 on the folds beyond noise, 8 does not beat 2 beyond noise: the climb stops there.
    assert model.gh_gamma_ == 2.0
    assert list(model.gh_gamma_scores_) == list(AUTO_GH_GAMMAS)
    assert model.gh_gamma_scores_[2.0] > model.gh_gamma_scores_[0.5]
    assert seen[-1] == 2.0 and set(seen) == set(AUTO_GH_GAMMAS)
    # On held-out digits the more precise heads predict better (0.79 against 0.75 here).
    fixed = CorsetClassifier(random_state=0, gh_gamma=0.5, **FAST).fit(X, Y)
    assert fixed.gh_gamma_ == 0.5 and fixed.gh_gamma_scores_ is None
    assert (f1_score(Y_test, model.predict(X_test), average="micro")
            > f1_score(Y_test, fixed.predict(X_test), average="micro") + 0.02)


@pytest.mark.parametrize("seed", [0, 1])
def test_auto_that_keeps_the_first_gamma_gives_the_fixed_gamma_model(seed):
    """The challengers' fold fits draw from copies of the random state: when none is taken, the
    model is the one gh_gamma=0.5 fits, rule for rule."""
    X, Y = noisy_labels(seed)
    auto = CorsetClassifier(random_state=seed, **FAST).fit(X, Y)
    fixed = CorsetClassifier(random_state=seed, gh_gamma=AUTO_GH_GAMMAS[0], **FAST).fit(X, Y)
    assert auto.gh_gamma_ == AUTO_GH_GAMMAS[0]
    assert list(auto.gh_gamma_scores_) == list(AUTO_GH_GAMMAS[:2])   # 2 lost: 8 was not fitted
    assert str(auto) == str(fixed)
    np.testing.assert_array_equal(auto.predict_proba(X), fixed.predict_proba(X))
    assert auto.n_rules_validated_ == fixed.n_rules_validated_
    assert auto.validation_curve_.tolist() == fixed.validation_curve_.tolist()


@pytest.mark.parametrize("wins, chosen", [([False], 0.5), ([True, False], 2.0), ([True, True], 8.0)])
def test_the_ladder_stops_at_the_first_challenger_not_taken(monkeypatch, wins, chosen):
    X, Y = noisy_labels(0)
    raced = []

    def race(self, X_, candidate, Yb, incumbent):
        raced.append(candidate["gh_gamma"])
        return incumbent, wins[len(raced) - 1]

    monkeypatch.setattr(classifier.CorsetClassifier, "_race", race)
    model = CorsetClassifier(random_state=0, negations=False, **FAST).fit(X, Y)
    assert raced == list(AUTO_GH_GAMMAS[1:1 + len(wins)])
    assert model.gh_gamma_ == chosen and list(model.gh_gamma_scores_) == list(AUTO_GH_GAMMAS[:1 + len(wins)])


def test_the_same_gamma_and_rules_for_any_n_jobs():
    X, Y, _, _ = digit_labels(400)
    one = CorsetClassifier(random_state=1, n_jobs=1, **FAST).fit(X, Y)
    two = CorsetClassifier(random_state=1, n_jobs=2, **FAST).fit(X, Y)
    assert one.gh_gamma_ == two.gh_gamma_ == 2.0 and one.gh_gamma_scores_ == two.gh_gamma_scores_
    assert str(one) == str(two)


def test_no_race_without_gh_or_with_too_few_records(monkeypatch):
    X, Y = noisy_labels(0)
    races = []
    original = classifier.CorsetClassifier._cross_validated_gamma

    def spy(self, *args):
        races.append(args)
        return original(self, *args)

    monkeypatch.setattr(classifier.CorsetClassifier, "_cross_validated_gamma", spy)
    surs = CorsetClassifier(random_state=0, head_sampler="surs", **FAST).fit(X, Y)
    assert surs.gh_gamma_ is None and surs.gh_gamma_scores_ is None
    few = CorsetClassifier(random_state=0, **FAST).fit(X[:20], Y[:20])
    assert few.gh_gamma_ == AUTO_GH_GAMMAS[0] and few.gh_gamma_scores_ is None
    assert races == []
    # The paper's configuration fixes γ: no race either.
    paper = CorsetClassifier.paper(random_state=0, n_rules=10).fit(X, Y)
    assert paper.gh_gamma_ == 0.5 and paper.gh_gamma_scores_ is None and races == []


def test_gh_gamma_takes_auto_or_a_number():
    X, Y = noisy_labels(0)
    with pytest.raises(InvalidParameterError, match="'gh_gamma' parameter"):
        CorsetClassifier(gh_gamma="high").fit(X, Y)
    loaded = CorsetClassifier.from_json(CorsetClassifier(random_state=0, **FAST).fit(X, Y).to_json())
    assert loaded.gh_gamma == "auto"
