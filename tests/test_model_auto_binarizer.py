"""binarizer="auto" on numeric X: the cuts chosen by cross-validation, checked against a hand-made one."""
import numpy as np
import pytest
from sklearn.metrics import f1_score
from sklearn.model_selection import KFold

from corset.datasets import make_rule_data
from corset.model import CorsetClassifier
from corset.model._classifier import (AUTO_BINARIZER_FOLDS, AUTO_BINARIZER_PERCENTILES, AUTO_NEGATION_LABEL_DENSITY,
                                      AUTO_TOL_OCCURRENCES, _can_still_pass)
from corset.preprocessing import PercentileBinarizer


def numeric_data(seed, n=240):
    """Labels from rules on thresholds of continuous features: the cut matters."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 6))
    Y = np.column_stack([(X[:, 0] > 0.3) & (X[:, 1] < 0.5), X[:, 2] > -0.8, (X[:, 3] > 1.0) | (X[:, 4] < -1.2)])
    flip = rng.rand(*Y.shape) < 0.05
    return X, (Y ^ flip).astype(np.uint8)


def absence_data(seed, n=240):
    """Sparse labels carried by low values: only negated literals of the cuts can say "x below t"."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 6))
    Y = np.column_stack([X[:, 0] < -1.0, X[:, 1] < -1.2, (X[:, 2] < -0.9) & (X[:, 3] < 0.5)])
    return X, Y.astype(np.uint8)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("make", [numeric_data, absence_data])   # dense labels: negations kept; sparse: some flip
def test_scores_are_the_cross_validated_micro_f1_of_each_candidate(seed, make):
    X, Y = make(seed)
    # No cut: compared whole; γ fixed, as the fold fits of the cuts fix it (raced after them).
    params = dict(n_rules=20, n_tails=10, n_heads_per_tail=5, validated_stop=False, gh_gamma=0.5)
    model = CorsetClassifier(random_state=seed, **params).fit(X, Y)
    # By hand: the folds and seeds come from (a copy of) RandomState(seed), drawn in this order.
    seeds = np.random.RandomState(seed).randint(np.iinfo(np.int32).max, size=AUTO_BINARIZER_FOLDS + 1)
    folds = list(KFold(AUTO_BINARIZER_FOLDS, shuffle=True, random_state=int(seeds[0])).split(X))
    guess = Y.mean() >= AUTO_NEGATION_LABEL_DENSITY   # negations' first guess: the label density

    def cross_validated(percentile, negations, per_fold=False, n_folds=AUTO_BINARIZER_FOLDS):
        truth, predicted = [], []
        for (train, test), s in zip(folds, seeds[1:]):
            # τ="auto" counts 3 new label occurrences of all records: 3 · |train| / n of a fold's.
            tol = AUTO_TOL_OCCURRENCES * train.size / X.shape[0] / Y[train].sum()
            inner = CorsetClassifier(random_state=int(s), binarizer=PercentileBinarizer(percentile),
                                     negations=negations, tol=tol, **params)
            predicted.append(inner.fit(X[train], Y[train]).predict(X[test]))
            truth.append(Y[test])
        pooled = f1_score(np.vstack(truth[:n_folds]), np.vstack(predicted[:n_folds]), average="micro")
        if per_fold:
            return pooled, np.array([f1_score(t, p, average="micro", zero_division=0)
                                     for t, p in zip(truth, predicted)])
        return pooled

    # The single cut on every fold; the five cuts raced against it: dropped after the first fold where
    # their running mean gain is not positive or the folds left cannot make them pass, taken only when
    # they survive every fold and gain beyond noise (the standard error corrected for the folds'
    # overlapping training sets, Nadeau-Bengio).
    def raced(challenger, incumbent):
        gain = challenger - incumbent
        k = gain.size
        n_folds = next((j + 1 for j in range(k)
                        if gain[:j + 1].mean() <= 0 or not _can_still_pass(gain[:j + 1], k)), k)
        wins = n_folds == k and gain.mean() > max(0.0, gain.std(ddof=1) * np.sqrt(1 / k + 1 / (k - 1)))
        return n_folds, wins

    (single, five), (p_single, p_five) = AUTO_BINARIZER_PERCENTILES, AUTO_BINARIZER_PERCENTILES.values()
    _, single_folds = cross_validated(p_single, guess, per_fold=True)
    _, five_folds = cross_validated(p_five, guess, per_fold=True)
    n_five, five_wins = raced(five_folds, single_folds)
    expected = {single: cross_validated(p_single, guess), five: cross_validated(p_five, guess, n_folds=n_five)}
    assert model.binarizer_scores_ == pytest.approx(expected, abs=1e-12)
    best = five if five_wins else single
    assert model.features_.binarizer_.percentile == AUTO_BINARIZER_PERCENTILES[best]
    # The winning cuts with the other choice of negated literals, raced on the same folds.
    _, incumbent = cross_validated(AUTO_BINARIZER_PERCENTILES[best], guess, per_fold=True)
    _, challenger = cross_validated(AUTO_BINARIZER_PERCENTILES[best], not guess, per_fold=True)
    n_other, switch = raced(challenger, incumbent)
    assert model.negations_scores_ == pytest.approx(
        {guess: cross_validated(AUTO_BINARIZER_PERCENTILES[best], guess),
         not guess: cross_validated(AUTO_BINARIZER_PERCENTILES[best], not guess, n_folds=n_other)}, abs=1e-12)
    negations = (not guess) if switch else guess
    assert bool(model.negated_features_.size) == negations
    # The final fit is the fit with the chosen binarizer and negations: validation does not change what it draws.
    chosen = CorsetClassifier(random_state=seed, binarizer=PercentileBinarizer(AUTO_BINARIZER_PERCENTILES[best]),
                              **{**params, "negations": negations}).fit(X, Y)
    assert [(r.head, r.negated, r.tail) for r in model.rules_] == [(r.head, r.negated, r.tail) for r in chosen.rules_]
    assert model.feature_names_ == chosen.feature_names_


def test_negations_are_chosen_by_validation_only_when_auto():
    X, Y = numeric_data(0)
    fixed = CorsetClassifier(random_state=0, n_rules=15, negations=False).fit(X, Y)
    assert fixed.negations_scores_ is None and fixed.negated_features_.size == 0
    assert fixed.binarizer_scores_ is not None
    few = CorsetClassifier(random_state=0, n_rules=5).fit(*numeric_data(0, n=20))
    assert few.negations_scores_ is None


def test_binary_data_is_not_validated():
    data = make_rule_data(n_records=200, n_features=12, n_labels=5, random_state=0)
    auto = CorsetClassifier(random_state=0, n_rules=15).fit(data.X, data.Y)
    passthrough = CorsetClassifier(random_state=0, n_rules=15, binarizer="passthrough").fit(data.X, data.Y)
    assert auto.binarizer_scores_ is None and auto.features_.binarizer_ is None
    assert [(r.head, r.tail) for r in auto.rules_] == [(r.head, r.tail) for r in passthrough.rules_]


def test_few_records_take_the_papers_single_cut_and_bad_values_keep_their_message():
    X, Y = numeric_data(0, n=20)
    model = CorsetClassifier(random_state=0, n_rules=5).fit(X, Y)
    assert model.binarizer_scores_ is None and model.features_.binarizer_.percentile == 90
    X[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinity in column 'x2'"):
        CorsetClassifier(random_state=0).fit(X, Y)
    X[3, 2] = np.nan   # a missing value: the few records still take the single cut
    model = CorsetClassifier(random_state=0, n_rules=5).fit(X, Y)
    assert model.binarizer_scores_ is None and model.features_.binarizer_.missing_counts_[2] == 1


def test_the_choice_does_not_depend_on_n_jobs(threaded_searches):
    X, Y = numeric_data(4)
    one = CorsetClassifier(random_state=3, n_rules=15, n_jobs=1).fit(X, Y)
    two = CorsetClassifier(random_state=3, n_rules=15, n_jobs=2).fit(X, Y)
    assert one.binarizer_scores_ == two.binarizer_scores_
    assert [(r.head, r.tail) for r in one.rules_] == [(r.head, r.tail) for r in two.rules_]


def test_nominal_data_fit_one_binarizer_candidate(monkeypatch):
    # Every column nominal (a genbase-like YES/NO table): the percentiles cut nothing, so the
    # five cuts are not raced against the single cut (the same items, the same model).
    import pandas as pd

    import corset.model._classifier as classifier

    rng = np.random.RandomState(0)
    present = rng.rand(300, 12) < 0.2
    X = pd.DataFrame(np.where(present, "YES", "NO"), columns=[f"PS{j}" for j in range(12)])
    Y = np.column_stack([present[:, j] | (rng.rand(300) < 0.05) for j in range(4)]).astype(np.uint8)
    fitted_cuts = []
    original = classifier._fold_curve

    def spy(estimator, *args, **kwargs):
        fitted_cuts.append(np.atleast_1d(estimator.binarizer.percentile).size)
        return original(estimator, *args, **kwargs)

    monkeypatch.setattr(classifier, "_fold_curve", spy)
    model = CorsetClassifier(random_state=0, n_rules=15).fit(X, Y)
    assert fitted_cuts and set(fitted_cuts) == {1}
    assert model.binarizer_scores_ is None
    forced = CorsetClassifier(random_state=0, n_rules=15, binarizer=PercentileBinarizer()).fit(X, Y)
    assert [(r.head, r.tail) for r in model.rules_] == [(r.head, r.tail) for r in forced.rules_]
    assert str(model.rules_[0]).startswith("IF PS")


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_final_fit_takes_over_the_chosen_cuts_as_a_refit_would_make_them(seed, sparse):
    """The choice of cuts fits each candidate on all of X; the final fit keeps the winner's fit
    instead of refitting it: the same thresholds, names and items as a fresh fit of that binarizer."""
    import scipy.sparse as sp
    from sklearn.base import clone

    X, Y = numeric_data(seed)
    if sparse:
        X = sp.csr_array(np.where(X > 0, np.round(X * 3), 0.0))   # counts: zeros are absence
    model = CorsetClassifier(random_state=seed, n_rules=10, n_tails=10, n_heads_per_tail=5).fit(X, Y)
    taken = model.features_.binarizer_
    chosen = [name for name, p in AUTO_BINARIZER_PERCENTILES.items()
              if tuple(np.atleast_1d(p)) == tuple(np.atleast_1d(taken.percentile))]
    assert chosen and set(model.binarizer_scores_) == set(AUTO_BINARIZER_PERCENTILES)
    fresh = clone(taken).fit(X)
    assert taken is not fresh and taken.to_dict() == fresh.to_dict()
    assert model.feature_names_ == fresh.get_feature_names_out().tolist()
    dense = lambda M: M.toarray() if sp.issparse(M) else np.asarray(M)   # noqa: E731
    np.testing.assert_array_equal(dense(model.features_.transform(X)), dense(fresh.transform(X)))
