"""CorsetClassifier with negated literals ("NOT f") and the cut to the best training micro-F1.

Every prediction, explanation and statistic is checked against a brute-force
reading of the rules: a rule fires on a record that has every feature of
``head`` and none of ``negated``.
"""
import json
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import f1_score

from corset.model import CorsetClassifier, Rule
from corset.model._classifier import AUTO_F1_PATIENCE, AUTO_NEGATION_LABEL_DENSITY

# γ fixed: these tests follow the choice of negated literals, fold fit by fold fit (gh_gamma="auto"
# would race its own challengers on the same folds; tests/test_model_gamma.py follows those).
FAST = dict(tail_space="full", n_rules=20, n_tails=10, n_heads_per_tail=5, gh_gamma=0.5)


def _dense_labels(seed, n=160, m=10, k=3):
    """Frequent labels (density about 0.4) that a negated feature explains: "NOT x0 -> y0"."""
    rng = np.random.RandomState(seed)
    X = (rng.rand(n, m) < 0.25).astype(np.uint8)
    X[:, m - 1] = 1                                   # constant 1: never negated
    X[:, m - 2] = 0                                   # constant 0: never negated
    Y = np.zeros((n, k), dtype=np.uint8)
    Y[:, 0] = (X[:, 0] == 0) & (rng.rand(n) < 0.8)
    Y[:, 1] = (X[:, 1] == 1) | (rng.rand(n) < 0.3)
    Y[:, 2] = rng.rand(n) < 0.4
    return X, Y


def _fires(X, rule):
    X = np.asarray(X)
    return X[:, list(rule.head)].all(axis=1) & (X[:, list(rule.negated)] == 0).all(axis=1)


def _brute_predict(clf, X):
    P = np.zeros((X.shape[0], clf.n_labels_), dtype=np.uint8)
    for rule in clf.rules_:
        P[np.ix_(_fires(X, rule), list(rule.tail))] = 1
    return P


@pytest.mark.parametrize("negations", ["auto", True])
def test_negated_rules_predict_and_explain_as_read(global_random_seed, negations):
    X, Y = _dense_labels(global_random_seed)
    assert Y.mean() >= AUTO_NEGATION_LABEL_DENSITY
    clf = CorsetClassifier(random_state=global_random_seed, negations=negations, **FAST).fit(X, Y)
    # Every non-constant feature has a negated literal; constant ones have none.
    assert clf.negated_features_.tolist() == list(range(X.shape[1] - 2))
    assert any(r.negated for r in clf.rules_)
    X_new, _ = _dense_labels(global_random_seed + 100)
    P = _brute_predict(clf, X_new)
    for Xe in (X_new, sp.csr_array(X_new), sp.csc_matrix(X_new)):
        assert np.array_equal(clf.predict(Xe), P)
        proba = clf.predict_proba(Xe)
        assert np.array_equal(proba > 0.5, P == 1) and np.array_equal(clf.decision_function(Xe) > 0, P == 1)
    for i, fired in enumerate(clf.explain(X_new[:20])):
        assert fired == [r for r in clf.rules_ if _fires(X_new[i:i + 1], r)[0]]
    # The statistics are those of the literals: support |D[H]| and per-label precision.
    for rule in clf.rules_:
        fires = _fires(X, rule)
        assert rule.support == fires.sum()
        assert rule.label_precision == tuple(float(Y[fires, k].sum() / max(fires.sum(), 1)) for k in rule.tail)
        assert not set(rule.head) & set(rule.negated)
        assert rule.negated_names == tuple(f"x{f}" for f in rule.negated)
    # Literals count against the head lengths.
    assert all(1 <= r.n_literals <= 3 for r in clf.rules_ if r.n_literals)


def test_negated_rules_are_readable_and_exported():
    X, Y = _dense_labels(0)
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    negated = next(r for r in clf.rules_ if r.negated)
    text = str(negated)
    assert all(f"NOT x{f}" in text for f in negated.negated) and text.startswith("IF ")
    assert str(Rule(head=(), tail=(0,), negated=(3,), negated_names=("loud",))).startswith("IF NOT loud THEN y0")
    frame = clf.to_frame()
    assert list(frame["negated"]) == [list(r.negated) for r in clf.rules_]
    assert any("NOT " in h for h in frame["head_names"])
    again = CorsetClassifier.from_json(clf.to_json())
    assert again.rules_ == clf.rules_ and np.array_equal(again.negated_features_, clf.negated_features_)
    assert np.array_equal(again.predict(X), clf.predict(X))
    assert np.array_equal(pickle.loads(pickle.dumps(clf)).predict(X), clf.predict(X))
    # A dict of format version 1 (rules without negated literals) is still read.
    plain = CorsetClassifier(random_state=0, negations=False, **FAST).fit(X, Y)
    old = json.loads(plain.to_json())
    old["format_version"] = 1
    del old["negated_features"]
    for rule in old["rules"]:
        del rule["negated"], rule["negated_names"]
    assert np.array_equal(CorsetClassifier.from_dict(old).predict(X), plain.predict(X))


def test_auto_first_guess_is_the_label_density():
    """Below 30 records no folds are fitted: "auto" is the first guess, negated literals for dense labels."""
    X, Y = _dense_labels(1, n=28)
    rng = np.random.RandomState(1)
    sparse_labels = (rng.rand(*Y.shape) < 0.1).astype(np.uint8)
    assert sparse_labels.mean() < AUTO_NEGATION_LABEL_DENSITY <= Y.mean()
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, sparse_labels)
    assert clf.negated_features_.size == 0 and not any(r.negated for r in clf.rules_)
    assert clf.selection_.f1_path is None and clf.negations_scores_ is None   # f1_patience="auto": off
    dense = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    assert dense.negated_features_.size == X.shape[1] - 2 and dense.negations_scores_ is None
    forced = CorsetClassifier(random_state=0, negations=True, **FAST).fit(X, sparse_labels)
    assert forced.negated_features_.size == X.shape[1] - 2
    assert forced.selection_.f1_path is not None
    off = CorsetClassifier(random_state=0, negations=False, **FAST).fit(X, Y)
    assert off.negated_features_.size == 0 and not any(r.negated for r in off.rules_)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("labels", ["dense", "sparse"])
@pytest.mark.parametrize("validated_stop", [True, False])
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_auto_on_binary_data_keeps_the_first_guess_unless_the_folds_say_otherwise(monkeypatch, seed, labels,
                                                                                 validated_stop, n_jobs):
    """Binary X: the first guess (the label density) on every fold, the other choice raced on the same
    folds: dropped after the first fold where its running mean gain is not positive, taken only when it
    survives every fold and is better beyond noise; the same choice for any n_jobs."""
    from corset.model import _classifier as classifier

    X, Y = _dense_labels(seed)
    if labels == "sparse":
        Y = (np.random.RandomState(seed).rand(*Y.shape) < 0.1).astype(np.uint8)
        Y[:, 0] = (X[:, 0] == 0) & (X[:, 2] == 1)   # explained by a negated feature and x2
    guess = bool(Y.mean() >= AUTO_NEGATION_LABEL_DENSITY)
    calls = []
    original = classifier.CorsetClassifier._fold_curves

    def spy(self, X_, candidates, Yb, folds=None):
        calls.append(({name: c["negations"] for name, c in candidates.items()}, folds))
        return original(self, X_, candidates, Yb, folds)

    monkeypatch.setattr(classifier.CorsetClassifier, "_fold_curves", spy)
    clf = CorsetClassifier(random_state=seed, validated_stop=validated_stop, n_jobs=n_jobs, **FAST).fit(X, Y)
    assert calls[0] == ({"first": guess}, None)
    assert all(c == {"other": not guess} for c, _ in calls[1:])
    # By hand: both choices on all folds (a fold's split and seed do not depend on the others fitted),
    # each fold's micro-F1 from the held-out predictions of the fold's model.
    est = CorsetClassifier(random_state=seed, validated_stop=validated_stop, **FAST)
    first, other = (original(est, X, {0: dict(binarizer="auto", negations=c)}, Y)[0] for c in (guess, not guess))
    gains = classifier._fold_micro_f1(classifier._every_rule(other)) - \
        classifier._fold_micro_f1(classifier._every_rule(first))
    raced = next((j + 1 for j in range(gains.size)
                  if gains[:j + 1].mean() <= 0 or not classifier._can_still_pass(gains[:j + 1], gains.size)),
                 gains.size)
    # One fold at a time, in order, up to the fold that dropped it; with two workers, two at a time.
    batches = [[j] for j in range(raced)] if n_jobs is None else [[0, 1]] + ([[2]] if raced == 3 else [])
    assert [f for _, f in calls[1:]] == batches
    # Beyond noise: the standard error corrected for the folds' overlapping training sets (Nadeau-Bengio).
    k = gains.size
    switch = raced == k and gains.mean() > gains.std(ddof=1) * np.sqrt(1 / k + 1 / (k - 1))
    assert bool(clf.negated_features_.size) == (guess != switch)
    assert clf.negations_scores_ == {guess: classifier._pooled_micro_f1(classifier._every_rule(first)),
                                     not guess: classifier._pooled_micro_f1(classifier._every_rule(other[:raced]))}
    assert (clf.validation_curve_ is not None) == validated_stop


def test_auto_on_binary_data_fits_no_negated_literals_past_the_bound(monkeypatch):
    from corset.model import _classifier as classifier

    X, Y = _dense_labels(0)
    seen = []
    original = classifier.CorsetClassifier._fold_curves
    monkeypatch.setattr(classifier.CorsetClassifier, "_fold_curves",
                        lambda self, X_, c, Yb, folds=None: seen.append(c) or original(self, X_, c, Yb, folds))
    monkeypatch.setattr(classifier, "AUTO_NEGATION_MAX_ENTRIES", 10)
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    assert clf.negated_features_.size == 0 and clf.negations_scores_ is None
    assert [c["given"]["negations"] for c in seen] == [False]


def test_auto_f1_patience_cuts_to_the_best_training_f1(global_random_seed):
    X, Y = _dense_labels(global_random_seed)
    # Without validated_stop, which would leave out rare rules and cut the list after the F1 stop.
    params = dict(FAST, n_rules=60, random_state=global_random_seed, prune_redundant=False, validated_stop=False)
    cut = CorsetClassifier(default_rule=False, **params).fit(X, Y)
    path = cut.selection_.f1_path
    assert path is not None and len(cut.rules_) == int(np.argmax(path)) + 1
    assert cut.selection_.stop_reason != "f1" or len(path) - len(cut.rules_) == AUTO_F1_PATIENCE
    assert f1_score(Y, cut.predict(X), average="micro") == pytest.approx(path.max())
    full = CorsetClassifier(default_rule=False, f1_patience=None, **params).fit(X, Y)
    assert [(r.head, r.negated, r.tail) for r in full.rules_[:len(cut.rules_)]] == \
           [(r.head, r.negated, r.tail) for r in cut.rules_]
    assert f1_score(Y, cut.predict(X), average="micro") >= f1_score(Y, full.predict(X), average="micro")


def test_negations_are_deterministic_for_any_n_jobs(global_random_seed, threaded_searches):
    X, Y = _dense_labels(global_random_seed)
    params = dict(FAST, random_state=global_random_seed, negations=True)
    a = CorsetClassifier(n_jobs=1, **params).fit(X, Y)
    b = CorsetClassifier(n_jobs=2, **params).fit(sp.csr_array(X), Y)
    assert a.rules_ == b.rules_


@pytest.mark.parametrize("kwargs, error, match", [
    ({"negations": "sometimes"}, ValueError, "negations"),
    ({"negations": None}, ValueError, "negations"),
    ({"f1_patience": 0}, ValueError, "f1_patience"),
    ({"f1_patience": "never"}, ValueError, "f1_patience"),
    ({"f1_patience": 2.5}, TypeError, "f1_patience"),
])
def test_parameters_are_checked(kwargs, error, match):
    X, Y = _dense_labels(0)
    with pytest.raises(error, match=match):
        CorsetClassifier(**kwargs).fit(X, Y)


@pytest.mark.parametrize("name, text", [
    ("Flux>0.012", "Flux<=0.012"), ("Flux>=0.012", "Flux<0.012"), ("Flux>-1.5e-05", "Flux<=-1.5e-05"),
    ("x>=.5", "x<.5"), ("a>b>0.5", "a>b<=0.5"), ("location=17", "location!=17"),
    ("x3", "NOT x3"), ("a>b", "NOT a>b"), ("a==b", "NOT a==b"), ("m>0.5 (dB)", "NOT m>0.5 (dB)"),
])
def test_negated_literals_print_as_the_opposite_comparison(name, text):
    from corset.model._export import negated_text

    assert negated_text(name) == text
    rule = Rule(head=(0,), tail=(0,), head_names=("loud",), negated=(3,), negated_names=(name,))
    assert str(rule).startswith(f"IF loud AND {text} THEN y0")
    assert rule.negated_names == (name,)


def test_binarizer_names_of_negated_literals_are_comparisons():
    """Through a Pipeline with PercentileBinarizer (pandas output keeps the names), every negated
    literal of the printed rule set reads as a "<=" comparison of its feature."""
    pd = pytest.importorskip("pandas")
    from sklearn.pipeline import make_pipeline

    from corset.preprocessing import PercentileBinarizer

    rng = np.random.RandomState(0)
    X = pd.DataFrame(rng.rand(300, 6), columns=[f"c{j}" for j in range(6)])
    Y = np.column_stack([(X["c0"] < 0.6) | (rng.rand(300) < 0.1), X["c1"] < 0.5]).astype(np.uint8)
    model = make_pipeline(PercentileBinarizer().set_output(transform="pandas"),
                          CorsetClassifier(random_state=0, negations=True, n_rules=10))
    model.fit(X, Y)
    negated = [r for r in model[-1].rules_ if r.negated]
    assert negated
    for rule in negated:
        for name in rule.negated_names:
            assert name.startswith("c") and ">" in name
            assert name.replace(">", "<=") in str(rule) and f"NOT {name}" not in str(rule)


def test_auto_negations_stay_off_past_the_occurrence_budget(monkeypatch):
    """negations="auto" never adds more negated-literal occurrences than AUTO_NEGATION_MAX_ENTRIES
    (wide sparse data): binary X with dense labels, and numeric X whose cuts are cross-validated."""
    import corset.model._classifier as classifier

    X, Y = _dense_labels(0)
    varying = X[:, :-2]
    occurrences = int((varying == 0).sum())   # NOT f holds where f does not: the budget's count
    assert CorsetClassifier(random_state=0, **FAST).fit(X, Y).negated_features_.size == X.shape[1] - 2
    monkeypatch.setattr(classifier, "AUTO_NEGATION_MAX_ENTRIES", occurrences)
    assert CorsetClassifier(random_state=0, **FAST).fit(X, Y).negated_features_.size == X.shape[1] - 2
    monkeypatch.setattr(classifier, "AUTO_NEGATION_MAX_ENTRIES", occurrences - 1)
    model = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    assert model.negated_features_.size == 0 and all(not r.negated for r in model.rules_)
    # An explicit True is the user's choice: kept.
    assert CorsetClassifier(random_state=0, negations=True, **FAST).fit(X, Y).negated_features_.size > 0

    # Numeric X: the cut candidates are fitted without negations and the other choice is not tried.
    rng = np.random.RandomState(1)
    Xn = rng.normal(size=(120, 4))
    Yn = np.column_stack([Xn[:, 0] < 0.3, Xn[:, 1] > -0.5, rng.rand(120) < 0.5]).astype(np.uint8)
    monkeypatch.setattr(classifier, "AUTO_NEGATION_MAX_ENTRIES", 10)
    seen = []
    original = classifier.CorsetClassifier._fold_curves

    def spy(self, X, candidates, Yb, folds=None):
        seen.extend(c["negations"] for c in candidates.values())
        return original(self, X, candidates, Yb, folds)

    monkeypatch.setattr(classifier.CorsetClassifier, "_fold_curves", spy)
    model = CorsetClassifier(random_state=0, **FAST).fit(Xn, Yn)
    assert model.negated_features_.size == 0 and model.negations_scores_ is None
    assert seen and not any(seen)
    assert model.binarizer_scores_ is not None   # the cuts were still cross-validated


@pytest.mark.parametrize("seed", range(5))
def test_negation_occurrences_from_rates_equal_those_of_the_binary_matrix(seed):
    """The cut candidates are measured by their fitted positive rates, binary X by its matrix: one count."""
    from corset.model._classifier import (AUTO_BINARIZER_PERCENTILES, CorsetClassifier as C,
                                          _negation_occurrences)
    from corset.preprocessing import PercentileBinarizer

    rng = np.random.RandomState(seed)
    X = np.column_stack([rng.normal(size=90), rng.poisson(0.5, 90), np.ones(90), rng.randint(0, 3, 90)]).astype(float)
    for percentile in AUTO_BINARIZER_PERCENTILES.values():
        b = PercentileBinarizer(percentile=percentile).fit(X)
        Xb = sp.csr_array(b.transform(X))
        counts = np.bincount(Xb.indices, minlength=Xb.shape[1])
        expected = int(sum(90 - c for c in counts if 0 < c < 90))
        assert _negation_occurrences(np.rint(b.positive_rate_ * 90), 90) == expected
        assert C._negations_in_budget(Xb) == (expected <= 20_000_000)
