"""CorsetClassifier: fit/predict, determinism, exports, bad input and scikit-learn conformance."""
import json
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.metrics import f1_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from corset.datasets import make_rule_data
from corset.model import CorsetClassifier, Rule
from corset.preprocessing import PercentileBinarizer

# Most tests use the full tail space (Algorithm 2) and a small pool; the
# defaults and the other samplers are exercised in test_defaults_and_samplers_fit.
FAST = dict(tail_space="full", n_rules=15, n_tails=10, n_heads_per_tail=5)


@pytest.fixture(scope="module")
def synthetic():
    d = make_rule_data(n_records=300, n_features=24, n_labels=24, noise=0.01, random_state=0)
    return d.X, d.Y


def _rule_tuples(clf):
    return [(r.head, r.tail) for r in clf.rules_]


def test_fit_predict_recovers_planted_rules(synthetic):
    X, Y = synthetic
    # The paper's pool shape (500 candidates per step).
    clf = CorsetClassifier(random_state=0, **dict(FAST, n_tails=50, n_heads_per_tail=10)).fit(X, Y)
    assert 0 < len(clf.rules_) <= 15
    P = clf.predict(X)
    assert sp.issparse(P) and P.shape == Y.shape
    assert f1_score(Y.toarray(), P.toarray(), average="micro") > 0.85


@pytest.mark.parametrize("head_sampler", ["gh", "cftp"])
def test_same_seed_same_rules_any_n_jobs(synthetic, global_random_seed, head_sampler, threaded_searches):
    X, Y = synthetic
    params = dict(FAST, head_sampler=head_sampler, random_state=global_random_seed)
    a = CorsetClassifier(n_jobs=1, **params).fit(X, Y)
    b = CorsetClassifier(n_jobs=2, **params).fit(X, Y)
    assert _rule_tuples(a) == _rule_tuples(b)
    # Refitting the same object gives the same rules again.
    assert _rule_tuples(a.fit(X, Y)) == _rule_tuples(b)


def _generator_threads(monkeypatch, **params):
    """The distinct ``n_jobs`` (threads) the CandidateGenerators of a fit were given (its fold
    fits' included, when they run in this process)."""
    import corset.sampling as sampling

    seen = []
    original = sampling.CandidateGenerator

    def recording(*args, **kwargs):
        seen.append(kwargs["n_jobs"])
        return original(*args, **kwargs)

    monkeypatch.setattr(sampling, "CandidateGenerator", recording)
    d = make_rule_data(n_records=120, n_features=12, n_labels=6, noise=0.01, random_state=0)
    CorsetClassifier(random_state=0, n_rules=5, **params).fit(d.X.toarray() * 1.5, d.Y)
    assert seen
    return sorted(set(seen))


def test_n_jobs_threads(monkeypatch):
    import joblib

    from corset.sampling._candidates import _resolve_n_jobs

    # None is one thread (OpenMP's spin-waiting makes threads a risk on a busy machine);
    # k threads for the final fit when asked; negative counts from joblib's CPUs.
    assert _generator_threads(monkeypatch) == [None]
    assert _resolve_n_jobs(None) == 1
    assert _generator_threads(monkeypatch, n_jobs=3) == [3]
    monkeypatch.setattr(joblib, "cpu_count", lambda: 8)
    assert _resolve_n_jobs(-1) == 8 and _resolve_n_jobs(-2) == 7
    monkeypatch.setattr(joblib, "cpu_count", lambda: 1)
    assert _resolve_n_jobs(-3) == 1


@pytest.mark.parametrize("params", [{}, {"head_sampler": "surs", "max_head_length": 3}, {"head_sampler": "cftp"},
                                    {"quality": "submodular", "second_round": True}])
def test_defaults_and_samplers_fit(synthetic, params):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=0, n_rules=10, **params).fit(X, Y)
    assert 0 < len(clf.rules_) <= 10
    assert f1_score(Y.toarray(), clf.predict(X).toarray(), average="micro") > 0.3
    again = CorsetClassifier(random_state=0, n_rules=10, **params).fit(X, Y)
    assert _rule_tuples(again) == _rule_tuples(clf)


def test_different_seeds_may_differ(synthetic):
    X, Y = synthetic
    rule_sets = {tuple(_rule_tuples(CorsetClassifier(random_state=s, **FAST).fit(X, Y))) for s in range(4)}
    assert len(rule_sets) > 1


@given(seed=st.integers(0, 2**16), n_rules=st.integers(1, 6), min_len=st.integers(1, 2),
       extra=st.one_of(st.none(), st.integers(0, 2)), head_sampler=st.sampled_from(["gh", "cftp"]))
@settings(max_examples=25, deadline=None)
def test_budget_and_head_lengths_never_exceeded(seed, n_rules, min_len, extra, head_sampler):
    d = make_rule_data(n_records=80, n_features=12, n_labels=9, noise=0.05, random_state=seed)
    max_len = None if extra is None else min_len + extra
    clf = CorsetClassifier(n_rules=n_rules, min_head_length=min_len, max_head_length=max_len,
                           head_sampler=head_sampler, tail_space="full", n_tails=5, n_heads_per_tail=3,
                           random_state=seed).fit(d.X, d.Y)
    assert len(clf.rules_) <= n_rules
    # Only the default rule (last, at most one) has an empty head; lengths count negated literals.
    assert all(r.n_literals for r in clf.rules_[:-1])
    for r in clf.rules_:
        assert r.n_literals == 0 or r.n_literals >= min_len
        assert max_len is None or r.n_literals <= max_len


def test_proba_decision_and_predict_agree(synthetic):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=1, **FAST).fit(X, Y)
    P = clf.predict(X).toarray()
    proba = clf.predict_proba(X)
    dec = clf.decision_function(X)
    assert proba.shape == Y.shape and ((proba > 0) & (proba < 1)).all()
    assert np.array_equal(proba > 0.5, P == 1)
    assert np.array_equal(dec > 0, P == 1)


def test_explain_lists_fired_rules(synthetic):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=2, **FAST).fit(X, Y)
    Xd = X.toarray()
    explanations = clf.explain(X[:20])
    P = clf.predict(X[:20]).toarray()
    for i, fired in enumerate(explanations):
        expected = [r for r in clf.rules_ if all(Xd[i, f] for f in r.head)]
        assert fired == expected
        predicted = {k for r in fired for k in r.tail}
        assert predicted == set(np.flatnonzero(P[i]).tolist())


def test_rule_model_text_and_statistics(synthetic):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=3, **FAST).fit(X, Y)
    text = str(clf)
    assert text.count("\n") == len(clf.rules_)
    r = clf.rules_[0]
    assert isinstance(r, Rule) and str(r).startswith("IF ") and " THEN " in str(r)
    assert r.head_names == tuple(f"x{f}" for f in r.head)
    Xd, Yd = X.toarray().astype(bool), Y.toarray().astype(bool)
    fires = Xd[:, list(r.head)].all(axis=1)
    carries = Yd[:, list(r.tail)].all(axis=1)
    assert r.support == fires.sum() and r.n_matched == (fires & carries).sum()
    assert r.precision == pytest.approx(r.n_matched / r.support)
    assert [x.position for x in clf.rules_] == list(range(len(clf.rules_)))


def test_json_and_pickle_round_trips(synthetic):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=4, **FAST).fit(X, Y)
    again = CorsetClassifier.from_json(clf.to_json())
    assert again.rules_ == clf.rules_
    for a, b in [(clf, again), (clf, pickle.loads(pickle.dumps(clf)))]:
        assert (a.predict(X) != b.predict(X)).nnz == 0
        assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    frame = clf.to_frame()
    assert len(frame) == len(clf.rules_)


@pytest.mark.parametrize("columns", [None, list("abc"), [0, 1, 2], [("g", "a"), ("g", "b"), ("h", "a")]])
def test_json_round_trip_keeps_whether_column_names_were_recorded(columns):
    """scikit-learn records a DataFrame's column names only when they are all strings; the loaded
    model records them exactly then, so it warns on the fitted model's inputs exactly as it does."""
    pd = pytest.importorskip("pandas")
    X = np.random.RandomState(0).rand(100, 3)
    Y = (X[:, :2] > 0.7).astype(int)
    if columns is not None:
        X = pd.DataFrame(X, columns=pd.MultiIndex.from_tuples(columns) if isinstance(columns[0], tuple)
                         else columns)
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    again = CorsetClassifier.from_json(clf.to_json())
    assert hasattr(again, "feature_names_in_") == hasattr(clf, "feature_names_in_") == (columns == list("abc"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(again.predict(X), clf.predict(X))


def test_pickle_of_another_format_version_is_refused(synthetic):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    state = clf.__getstate__()
    state["_corset_format_version"] = 999
    fresh = CorsetClassifier.__new__(CorsetClassifier)
    with pytest.raises(ValueError, match="format version 999"):
        fresh.__setstate__(state)
    bad = json.loads(clf.to_json())
    bad["format_version"] = 999
    with pytest.raises(ValueError, match="format version"):
        CorsetClassifier.from_dict(bad)


def test_dataframes_give_names_and_dense_output_follows_y():
    pd = pytest.importorskip("pandas")
    d = make_rule_data(n_records=200, n_features=12, n_labels=9, random_state=5)
    X = pd.DataFrame(d.X.toarray(), columns=[f"feat_{j}" for j in range(12)])
    Y = pd.DataFrame(d.Y.toarray(), columns=[f"lab_{k}" for k in range(9)])
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    assert all(n.startswith("feat_") for r in clf.rules_ for n in r.head_names)
    assert all(n.startswith("lab_") for r in clf.rules_ for n in r.tail_names)
    P = clf.predict(X)
    assert isinstance(P, np.ndarray) and P.shape == (200, 9) and P.dtype == Y.to_numpy().dtype
    clf2 = CorsetClassifier(random_state=0, **FAST).fit(d.X.toarray(), d.Y.toarray(),
                                                        label_names=[f"L{k}" for k in range(9)])
    assert all(n.startswith("L") for r in clf2.rules_ for n in r.tail_names)


def test_one_dimensional_binary_y():
    d = make_rule_data(n_records=200, n_features=12, n_labels=3, n_rules=3, random_state=6)
    y = np.where(d.Y.toarray()[:, 0] == 1, "yes", "no")
    clf = CorsetClassifier(random_state=0, **FAST).fit(d.X, y)
    assert list(clf.classes_) == ["no", "yes"]
    pred = clf.predict(d.X)
    assert pred.shape == (200,) and set(pred) <= {"no", "yes"}
    assert clf.predict_proba(d.X).shape == (200, 2)
    assert np.array_equal(clf.decision_function(d.X) > 0, pred == "yes")


@pytest.mark.parametrize("X, Y, match", [
    (np.array([["a", 1.0], [0.0, 1.0]], dtype=object), np.array([[1], [0]]), "pandas DataFrame"),
    (np.array([[1, 0], [0, 1], [1, 1]]), np.array([0, 1, 2]), "Only binary classification"),
    (np.array([[1, 0], [0, 1]]), np.array([[0.5], [1.0]]), "binary"),
    (np.array([[1, np.inf], [0, 1]]), np.array([[1], [0]]), "infinity"),
    (sp.csr_array(np.array([[1, np.inf], [0, 1]])), np.array([[1], [0]]), "infinity in column 'x1'"),
    (np.array([[1, 0], [0, 1], [1, 1]]), np.array([[1], [0]]), "inconsistent numbers of samples|different numbers"),
    (np.zeros((0, 3)), np.zeros((0, 1)), "0 sample"),
    (np.zeros((3, 0)), np.zeros((3, 1)), "0 feature"),
])
def test_bad_input_gets_clear_errors(X, Y, match):
    with pytest.raises(ValueError, match=match):
        CorsetClassifier(**FAST).fit(X, Y)


def test_bad_parameters_name_themselves(synthetic):
    X, Y = synthetic
    for params, match in [({"n_rules": 0}, "n_rules"), ({"lam": -1.0}, "lam"), ({"tol": 2.0}, "tol"),
                          ({"head_sampler": "x"}, "head_sampler"), ({"min_head_length": 3, "max_head_length": 2},
                                                                    "max_head_length"),
                          ({"alpha": 0.0}, "alpha"), ({"quality": "best"}, "quality")]:
        with pytest.raises((ValueError, TypeError), match=match):
            CorsetClassifier(**dict(FAST, **params)).fit(X, Y)


@pytest.mark.parametrize("binary", [False, True])
def test_predict_without_records_names_the_estimator(synthetic, binary):
    # As fit does and scikit-learn's estimators do: the error names CorsetClassifier, not the
    # binarizer inside it (numeric X) or nothing at all (binary X, which once predicted nothing).
    X, Y = synthetic
    X = X if binary else X + np.random.RandomState(0).rand(*X.shape)
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    for method in (clf.predict, clf.predict_proba, clf.decision_function):
        with pytest.raises(ValueError, match=r"0 sample\(s\).*required by CorsetClassifier"):
            method(X[:0])


def test_predict_checks_features(synthetic):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :-1])
    with pytest.raises(ValueError, match="binary"):
        clf.predict(X.toarray() * 2)


def test_degenerate_labels_and_single_record():
    rng = np.random.RandomState(0)
    X = (rng.rand(60, 8) < 0.4).astype(int)
    Y = np.zeros((60, 3), dtype=int)
    Y[:, 0] = X[:, 0] & X[:, 1]
    Y[:, 2] = 1  # carried by every record
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    P = clf.predict(X)
    assert not P[:, 1].any()  # label 1 never occurs: never predicted
    # Label 2 has no negative record: only tails with other labels can carry
    # it, and the default rule (predicting it everywhere is right everywhere).
    assert all(len(r.tail) > 1 for r in clf.rules_[:-1] if 2 in r.tail)
    assert clf.rules_[-1].head == () and 2 in clf.rules_[-1].tail
    assert P[:, 2].all()
    plain = CorsetClassifier(random_state=0, default_rule=False, **FAST).fit(X, Y)
    assert all(r.head and (len(r.tail) > 1 or r.tail != (2,)) for r in plain.rules_)
    # A single record: no rule can be selected; the default rule predicts its labels.
    one = CorsetClassifier(random_state=0, **FAST).fit(X[:1], Y[:1])
    assert [(r.head, r.tail) for r in one.rules_] == [((), tuple(np.flatnonzero(Y[0]).tolist()))]
    assert (one.predict(X) == Y[:1]).all()
    assert CorsetClassifier(random_state=0, default_rule=False, **FAST).fit(X[:1], Y[:1]).rules_ == []


def test_clone_pipeline_and_grid_search(synthetic):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=0, **FAST)
    assert clone(clf).get_params() == clf.get_params()
    rng = np.random.RandomState(0)
    Xc = X.toarray() + 0.1 * rng.rand(*X.shape)  # continuous: binarized inside the pipeline
    pipe = Pipeline([("binarize", PercentileBinarizer(percentile=50)), ("corset", clf)])
    pipe.fit(Xc, Y.toarray())
    assert pipe.predict(Xc).shape == Y.shape
    search = GridSearchCV(pipe, {"corset__lam": [0.1, 1.0]}, cv=2, scoring="f1_micro")
    search.fit(Xc, Y.toarray())
    assert search.best_params_["corset__lam"] in (0.1, 1.0)


# -- scikit-learn's common checks ------------------------------------------------------
# CorsetClassifier binarizes raw features itself: the bare estimator passes every common check.
_BARE_FAILURES = {}
_PIPELINE_FAILURES = {
    "check_estimators_overwrite_params": "a Pipeline fits its steps in place, so its 'steps' parameter changes",
    "check_dont_overwrite_parameters": "a Pipeline fits its steps in place, so its 'steps' parameter changes",
    # Pipeline does not pass on its first step's allow_nan tag; NaN in dense X is a missing
    # value, which PercentileBinarizer reads (infinity is refused: tested on its own).
    "check_estimators_nan_inf": "Pipeline does not carry PercentileBinarizer's allow_nan tag",
}


def _expected_failures(estimator):
    return _PIPELINE_FAILURES if isinstance(estimator, Pipeline) else _BARE_FAILURES


@parametrize_with_checks(
    [make_pipeline(PercentileBinarizer(), CorsetClassifier(random_state=0, **FAST)),
     CorsetClassifier(random_state=0, **FAST)],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_auto_tolerance_is_three_new_occurrences(synthetic):
    from corset import BinaryData
    from corset.model._classifier import AUTO_TOL_OCCURRENCES

    X, Y = synthetic
    data = BinaryData(X, Y)
    assert CorsetClassifier._resolve_tol("auto", data) == pytest.approx(AUTO_TOL_OCCURRENCES / Y.nnz)
    assert CorsetClassifier._resolve_tol(0.02, data) == 0.02
    # Without the cut back to the best training micro-F1, the last rule is the one that stopped it.
    clf = CorsetClassifier(random_state=0, **dict(FAST, tol="auto", n_rules=150, f1_patience=None)).fit(X, Y)
    if clf.selection_.stop_reason == "tol":
        # Stopped because no candidate of the last pool covered more than 3 new occurrences.
        assert clf.selection_.areas[-1] <= AUTO_TOL_OCCURRENCES
    with pytest.raises(TypeError, match="tol"):
        CorsetClassifier(**dict(FAST, tol="sometimes")).fit(X, Y)


def _frequent_label_data(seed=0):
    rng = np.random.RandomState(seed)
    X = (rng.rand(200, 10) < 0.3).astype(np.uint8)
    Y = np.zeros((200, 4), dtype=np.uint8)
    Y[:, 0] = rng.rand(200) < 0.9            # carried by almost everybody
    Y[:, 1] = X[:, 0] & X[:, 1]              # a rule's label
    Y[:, 2] = X[:, 2] & (rng.rand(200) < 0.9)
    Y[:, 3] = rng.rand(200) < 0.05           # rare noise
    return X, Y


def test_a_default_rule_of_several_labels_prints_their_precisions():
    """Its precision (every label at once) is about 0 on data where few records carry all its
    labels: the printed rule shows the range of its labels' precisions instead."""
    from corset.model._export import format_rule

    names = ("a", "b", "c")
    default = Rule(head=(), tail=(0, 1, 2), tail_names=names, support=60, precision=0.0,
                   label_precision=(0.33, 0.42, 0.4))
    assert format_rule(default) == "IF TRUE THEN a, b, c  (support 60, label precision 0.33 to 0.42)"
    # One label: its precision is the label's.  A rule with a head: the paper's precision.
    one = Rule(head=(), tail=(0,), tail_names=names[:1], support=60, precision=0.4, label_precision=(0.4,))
    assert format_rule(one) == "IF TRUE THEN a  (support 60, precision 0.40)"
    ruled = Rule(head=(1,), head_names=("f",), tail=(0, 1), tail_names=names[:2], support=9, precision=0.0,
                 label_precision=(0.5, 0.5))
    assert format_rule(ruled) == "IF f THEN a, b  (support 9, precision 0.00)"
    # A rule read from an older export, without label precisions: as before.
    bare = Rule(head=(), tail=(0, 1), tail_names=names[:2], support=60, precision=0.0)
    assert format_rule(bare) == "IF TRUE THEN a, b  (support 60, precision 0.00)"


def test_default_rule_predicts_frequent_labels_everywhere():
    X, Y = _frequent_label_data()
    clf = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    default = clf.rules_[-1]
    assert default.head == () and 0 in default.tail and 3 not in default.tail
    assert [r.n_literals == 0 for r in clf.rules_].count(True) == 1
    assert default.position == len(clf.rules_) - 1
    assert default.support == 200 and default.label_precision[default.tail.index(0)] == pytest.approx(Y[:, 0].mean())
    assert str(default).startswith("IF TRUE THEN y0")
    P = clf.predict(X)
    assert P[:, 0].all()
    # Consistent scores, explanations and exports with the default rule in the model.
    proba = clf.predict_proba(X)
    assert np.array_equal(proba > 0.5, P == 1) and np.array_equal(clf.decision_function(X) > 0, P == 1)
    assert all(fired[-1] is default for fired in clf.explain(X[:5]))
    again = CorsetClassifier.from_json(clf.to_json())
    assert np.array_equal(again.predict(X), P)
    assert np.array_equal(pickle.loads(pickle.dumps(clf)).predict(X), P)
    # Without it, the frequent label is left to rules (whose adjusted accuracy
    # favours rarer labels), and the training micro-F1 is lower.
    plain = CorsetClassifier(random_state=0, default_rule=False, **FAST).fit(X, Y)
    assert all(r.n_literals for r in plain.rules_)
    assert f1_score(Y, P, average="micro") > f1_score(Y, plain.predict(X), average="micro")


@pytest.mark.parametrize("negations", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_default_rule_is_default_tail_of_the_rules_predictions(seed, negations):
    """The default rule's tail is :func:`corset.selection.default_tail` of the training labels and
    the other rules' predictions (made here from each rule's literals), and its uncovered area
    counts the occurrences of its labels that those rules leave unpredicted."""
    from corset.selection import default_tail

    X, Y = _frequent_label_data(seed)
    Y[:, 3] = X[:, 4] & (np.random.RandomState(seed).rand(200) < 0.7)   # a rule's label, or a default's
    # The whole selection (no validated cut, which can end the list before its first negated literal).
    clf = CorsetClassifier(random_state=seed, negations=negations, validated_stop=False, **FAST).fit(X, Y)
    assert negations == any(r.negated for r in clf.rules_)
    default = clf.rules_[-1] if clf.rules_[-1].n_literals == 0 else None
    predicted = np.zeros(Y.shape, dtype=bool)
    for rule in clf.rules_[:-1] if default else clf.rules_:
        fires = np.all(X[:, list(rule.head)] == 1, axis=1) & np.all(X[:, list(rule.negated)] == 0, axis=1)
        predicted[np.ix_(fires, rule.tail)] = True
    tail = default_tail(Y, predicted)[0]
    assert (default.tail if default else ()) == tail   # none when no label raises micro-F1
    if default:
        assert default.uncovered_area == int((Y[:, list(tail)].astype(bool) & ~predicted[:, list(tail)]).sum())


def test_default_rule_counts_against_the_budget():
    X, Y = _frequent_label_data(1)
    for n_rules in (1, 2, 3):
        clf = CorsetClassifier(random_state=0, validated_stop=False, **dict(FAST, n_rules=n_rules)).fit(X, Y)
        assert len(clf.rules_) <= n_rules
        if n_rules == 1:
            # No room for both: the selection keeps its one rule, no default rule.
            assert len(clf.selection_.rules) <= 1 and all(r.head for r in clf.rules_)
        else:
            # The selection got n_rules - 1; the default rule comes last.
            assert len(clf.selection_.rules) <= n_rules - 1 and clf.rules_[-1].head == ()
    with pytest.raises(TypeError, match="default_rule"):
        CorsetClassifier(default_rule="yes").fit(X, Y)


def test_label_precision_of_every_rule_by_brute_force():
    """label_precision[j] = |D[H] ∩ D[{k_j}]| / |D[H]|, including labels no record of D[H] carries."""
    from corset import BinaryData

    rng = np.random.RandomState(3)
    X = (rng.rand(120, 12) < 0.3).astype(np.uint8)
    Y = ((X[:, :4] | (rng.rand(120, 4) < 0.15)) & (rng.rand(120, 4) < 0.9)).astype(np.uint8)
    for negations in (False, True):
        clf = CorsetClassifier(n_rules=20, random_state=0, negations=negations, validated_stop=False).fit(X, Y)
        assert negations == any(r.negated for r in clf.rules_)
        for rule in clf.rules_:
            matched = np.all(X[:, list(rule.head)] == 1, axis=1) & np.all(X[:, list(rule.negated)] == 0, axis=1)
            expected = tuple(float(Y[matched, k].sum() / max(matched.sum(), 1)) for k in rule.tail)
            assert rule.label_precision == expected
            assert rule.support == matched.sum()
    # A label carried by no record of D[H]: count 0.
    data = BinaryData(np.array([[1, 0], [1, 1], [0, 1]]), np.array([[1, 0], [1, 0], [0, 1]]))
    assert CorsetClassifier._head_label_counts(data, [((0,), (0, 1)), ((1,), (1,))]) == [(2, 0), (1,)]


def test_parameters_are_keyword_only_and_declared_once():
    import inspect

    signature = inspect.signature(CorsetClassifier)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in signature.parameters.values())
    assert set(CorsetClassifier._parameter_constraints) == set(signature.parameters)
    with pytest.raises(TypeError):
        CorsetClassifier(150)   # positional


def test_the_docstring_documents_every_parameter_in_signature_order():
    import inspect
    import re

    doc = CorsetClassifier.__doc__
    section = doc[doc.index("Parameters\n"):doc.index("Attributes\n")]
    documented = [name for entry in re.findall(r"^    (\w+(?:, \w+)*) : ", section, flags=re.M)
                  for name in entry.split(", ")]
    assert documented == list(inspect.signature(CorsetClassifier).parameters)
    assert documented == list(CorsetClassifier._parameter_constraints)
    # Each entry opens with its group's caption.
    captions = re.findall(r"^    \w+(?:, \w+)* : .*\n        \*\*([^*.(]+)", section, flags=re.M)
    assert set(captions) >= {"Selection", "Stopping", "CORSET-GH options", "Interpretable spaces",
                             "Beyond the paper", "Execution"}


@pytest.mark.parametrize("params, match", [
    ({"gh_gamma": -0.5}, r"'gh_gamma' parameter .*\[0(\.0)?, inf\)"),
    ({"gh_epsilon": 1.5}, r"'gh_epsilon' parameter .*\[0(\.0)?, 1(\.0)?\]"),
    ({"head_sampler": "greedy"}, r"'head_sampler' parameter .*\['cftp', 'gh', 'rejection', 'surs'\]"),
    ({"tail_space": "all"}, r"'tail_space' parameter .*\['full', 'interpretable'\]"),
    ({"min_head_length": 3, "max_head_length": 2}, "'max_head_length' parameter .*min_head_length"),
    ({"n_jobs": 0}, r"'n_jobs' parameter .*\(-inf, -1\].*\[1, inf\) or None. Got 0"),
    ({"n_jobs": 1.5}, "'n_jobs' parameter"),
    ({"negations": "sometimes"}, "'negations' parameter"),
    ({"n_tails": True}, "'n_tails' parameter .*a number, not a bool. Got True"),
    ({"max_candidate_records": True}, "'max_candidate_records' parameter .*not a bool"),
    ({"lam": False}, "'lam' parameter .*not a bool"),
    ({"n_jobs": True}, "'n_jobs' parameter .*not a bool"),
])
def test_parameter_errors_name_the_parameter_and_the_range(synthetic, params, match):
    X, Y = synthetic
    with pytest.raises(ValueError, match=match):
        CorsetClassifier(**dict(FAST, **params)).fit(X, Y)


def test_grid_search_reaches_the_gh_parameters(synthetic):
    X, Y = synthetic
    search = GridSearchCV(CorsetClassifier(random_state=0, **FAST), {"gh_gamma": [0.2, 0.8]}, cv=2,
                          scoring="f1_micro").fit(X.toarray(), Y.toarray())
    assert search.best_params_["gh_gamma"] in (0.2, 0.8)


def test_a_model_saved_with_the_old_gh_names_loads(synthetic):
    X, Y = synthetic
    clf = CorsetClassifier(random_state=0, gh_gamma=0.7, **FAST).fit(X, Y)
    d = json.loads(clf.to_json())
    d["format_version"] = 2
    d["params"]["gamma"] = d["params"].pop("gh_gamma")
    d["params"]["epsilon"] = d["params"].pop("gh_epsilon")
    loaded = CorsetClassifier.from_dict(d)
    assert loaded.gh_gamma == 0.7 and loaded.gh_epsilon == 0.1
    assert "gamma" not in loaded.get_params() and "epsilon" not in loaded.get_params()
    assert (loaded.predict(X) != clf.predict(X)).nnz == 0
    # A pickle keeps parameters as attributes under their old names: refused, with the way out.
    state = clf.__getstate__()
    state["gamma"], state["epsilon"] = state.pop("gh_gamma"), state.pop("gh_epsilon")
    state["_corset_format_version"] = 2
    with pytest.raises(ValueError, match=r"format version 2.*to_json"):
        CorsetClassifier.__new__(CorsetClassifier).__setstate__(state)


def _literals(rule):
    return set(rule.head) | {("not", f) for f in rule.negated}


def _needless_labels(rule, others):
    """The labels of ``rule`` that a rule of ``others`` firing wherever it does also predicts."""
    return {t for t in rule.tail
            if any(_literals(o) <= _literals(rule) and t in o.tail for o in others)}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("negations", [False, True])
def test_pruning_redundant_rules_changes_no_prediction(seed, negations):
    data = make_rule_data(n_records=600, n_features=25, n_labels=20, noise=0.02, random_state=seed)
    rng = np.random.default_rng(seed)
    # Three labels on most records besides the planted ones: the default rule predicts them
    # everywhere, and the rules that predict nothing else change no prediction.
    X, Y = data.X.toarray(), np.hstack([data.Y.toarray(), rng.random((600, 3)) < 0.8]).astype(int)
    params = dict(random_state=seed, negations=negations)
    pruned = CorsetClassifier(**params).fit(X[:400], Y[:400])
    full = CorsetClassifier(**params, prune_redundant=False).fit(X[:400], Y[:400])
    # The same predictions on the data and on any records: random ones, dense and sparse.
    for Z in (X, rng.integers(0, 2, size=(500, X.shape[1])), (rng.random((500, X.shape[1])) < 0.1).astype(int)):
        np.testing.assert_array_equal(pruned.predict(Z), full.predict(Z))
    assert [r.position for r in pruned.rules_] == list(range(len(pruned.rules_)))
    kept, everything = pruned.rules_, full.rules_
    assert [(r.head, r.negated, r.tail) for r in kept] == \
        [(r.head, r.negated, r.tail) for r in everything if (r.head, r.negated, r.tail) in
         {(k.head, k.negated, k.tail) for k in kept}]   # kept in selection order, default rule last
    # No kept rule changes no prediction: some label of it is predicted by no other kept rule
    # that fires wherever it does (the default rule, no literal, fires everywhere).
    for j, rule in enumerate(kept):
        if rule.n_literals:
            assert _needless_labels(rule, kept[:j] + kept[j + 1:]) != set(rule.tail), rule
    # Every dropped rule changes no prediction given the kept ones.
    kept_keys = {(k.head, k.negated, k.tail) for k in kept}
    for rule in everything:
        if (rule.head, rule.negated, rule.tail) not in kept_keys:
            assert _needless_labels(rule, kept) == set(rule.tail), rule


def _rule(head, tail, negated=()):
    return Rule(head=tuple(head), tail=tuple(tail), negated=tuple(negated))


def test_a_rule_whose_labels_other_rules_share_between_them_is_dropped():
    from corset.model._classifier import _needed_rules

    def _kept(rules, default=None):
        return [rules[j] for j in _needed_rules(rules, default)]

    a, b = _rule([1], [0]), _rule([2], [1])
    both = _rule([1, 2], [0, 1])          # a and b fire wherever it does, and predict 0 and 1
    half = _rule([1, 3], [0, 2])          # label 2: no other rule
    negated = _rule([2], [1, 2], negated=[5])   # b fires wherever it does, label 2 too needs it
    kept = _kept([a, b, both, half, negated])
    assert [(r.head, r.tail) for r in kept] == [((1,), (0,)), ((2,), (1,)), ((1, 3), (0, 2)), ((2,), (1, 2))]
    # A rule predicting only labels of the default rule changes no prediction; the default never goes.
    default = _rule([], [2])
    assert [(r.head, r.tail) for r in _kept([a, b, both, half, negated], default)] == \
        [((1,), (0,)), ((2,), (1,))]
    # The rule with a negated literal is not more general than one without it.
    assert len(_kept([_rule([2], [1], negated=[5]), _rule([2, 5], [1])])) == 2
    # The same literals and a tail within the other's: that rule goes, whichever came first.
    c, d = _rule([4], [3]), _rule([4], [3, 4])
    assert [(r.head, r.tail) for r in _kept([d, c])] == [((4,), (3, 4))]
    assert [(r.head, r.tail) for r in _kept([c, d])] == [((4,), (3, 4))]
    # Examined one at a time: x and y stand for each other, and only the later goes.
    x, y = Rule(head=(6,), tail=(0,), gain=1.0), Rule(head=(6,), tail=(0,), gain=2.0)
    assert [r.gain for r in _kept([x, y])] == [1.0]
    # With the literals' meanings: feature 0 is x>5, 1 is x>2, 2 is x<=7 (column 0); 3 and 4 are
    # colour=red and colour=blue (column 1).
    inf = np.inf
    meanings = {0: ("cut", 0, 5.0, inf), 1: ("cut", 0, 2.0, inf), 2: ("cut", 0, -inf, 7.0),
                ("not", 0): ("cut", 0, -inf, 5.0), ("not", 1): ("cut", 0, -inf, 2.0), ("not", 2): ("cut", 0, 7.0, inf),
                3: ("eq", 1, 0), 4: ("eq", 1, 1), ("not", 3): ("ne", 1, 0), ("not", 4): ("ne", 1, 1)}
    above2, above5 = _rule([1], [0]), _rule([0], [0])        # x>5 implies x>2
    assert _needed_rules([above2, above5], meanings=meanings) == [0]
    assert _needed_rules([above5, above2], meanings=meanings) == [1]   # the narrower goes, in either order
    assert _needed_rules([above2, above5]) == [0, 1]        # as sets of literals, no implication
    assert _needed_rules([above2, _rule([0], [1])], meanings=meanings) == [0, 1]   # another label
    # x>2 AND x<=5 implies x<=7; NOT x>2 implies NOT x>5; colour=red implies NOT colour=blue.
    assert _needed_rules([_rule([2], [1]), _rule([1], [1], negated=[0])], meanings=meanings) == [0]
    assert _needed_rules([_rule([], [2], negated=[0]), _rule([], [2], negated=[1])], meanings=meanings) == [0]
    assert _needed_rules([_rule([], [3], negated=[4]), _rule([3], [3])], meanings=meanings) == [0]
    assert _needed_rules([_rule([4], [3]), _rule([], [3], negated=[4])], meanings=meanings) == [0, 1]


@pytest.mark.parametrize("binarizer", [
    dict(percentile=(10, 30, 50, 70, 90)),
    dict(percentile=(25, 50, 75), direction="both"),
    dict(percentile=(20, 60), direction="both", inclusive=True),
    dict(percentile=90),
    dict(percentile=(30, 70), zeros="presence"),
])
def test_literal_implications_hold_on_every_record(binarizer):
    """Every implication the pruning reads from the binarizer, between two literals (plain or
    negated) or from two literals of a head to a third, holds on records it never saw: values
    inside and outside the training range, the training cuts themselves, unseen nominal values."""
    import pandas as pd

    from corset.model._classifier import _head_context, _implied

    rng = np.random.default_rng(0)
    train = pd.DataFrame({"a": rng.normal(size=200), "b": rng.integers(-3, 4, size=200).astype(float),
                          "c": np.where(rng.random(200) < 0.6, 0.0, rng.exponential(size=200)),
                          "colour": rng.choice(["red", "green", "blue"], size=200)})
    pb = PercentileBinarizer(**binarizer).fit(train)
    th = pb.thresholds_   # one per column (NaN: not cut), or a list of each column's cuts (None: not cut)
    cuts = th[~np.isnan(th)] if isinstance(th, np.ndarray) else np.concatenate([c for c in th if c is not None])
    n = 3000
    test = pd.DataFrame({"a": np.concatenate([rng.normal(scale=3, size=n - 100), rng.choice(cuts, 100)]),
                         "b": rng.integers(-6, 7, size=n).astype(float),
                         "c": np.where(rng.random(n) < 0.5, 0.0, rng.normal(scale=2, size=n)),
                         "colour": rng.choice(["red", "green", "blue", "grey"], size=n)})
    found, meanings, literals = _check_implications(pb, np.asarray(pb.transform(test), dtype=bool))
    assert found > 0
    # A column's literals imply nothing about another column's.
    context = _head_context((0,), meanings)
    assert not any(_implied(b, context, meanings) for b in literals
                   if meanings.get(b) is not None and meanings[b][1] != meanings[0][1])
    # Sparse numeric input (negative values, zeros, a column with no entry in training), which the
    # binarizer transforms by another path: the same check.
    values = train[["a", "b", "c"]].to_numpy().copy()
    values[:, 1] = 0.0
    spb = PercentileBinarizer(**binarizer).fit(sp.csr_matrix(values))
    fresh = sp.csr_matrix(test[["a", "b", "c"]].to_numpy())
    _check_implications(spb, sp.csr_matrix(spb.transform(fresh)).toarray().astype(bool))


def _check_implications(binarizer, Z):
    """Assert that every implication read from ``binarizer``, from a head of one or two literals to
    another literal, holds on the records of its output ``Z`` (bool); ``(how many were checked,
    the meanings, the literals)``."""
    import itertools

    from corset.model._classifier import _head_context, _implied, _literal_meanings

    meanings = _literal_meanings(binarizer, range(Z.shape[1]))
    literals = [f for f in range(Z.shape[1])] + [("not", f) for f in range(Z.shape[1])]

    def truth(literal):
        return ~Z[:, literal[1]] if isinstance(literal, tuple) else Z[:, literal]

    found = 0
    for head in itertools.chain(((a,) for a in literals), itertools.combinations(literals, 2)):
        context = _head_context(head, meanings)
        holds = np.logical_and.reduce([truth(a) for a in head])
        for b in literals:
            if b not in head and _implied(b, context, meanings):
                found += 1
                assert not (holds & ~truth(b)).any(), (head, b)
    return found, meanings, literals


@pytest.mark.parametrize("seed", range(3))
def test_pruning_reads_implied_literals_of_cuts_and_keeps_predictions(seed):
    """Numeric and nominal X, five cuts, negated literals: pruning with implications keeps every
    prediction on new raw records, and keeps no more rules than comparing literals as sets."""
    import pandas as pd

    from corset.model._classifier import _needed_rules

    rng = np.random.default_rng(seed)
    n = 500
    X = pd.DataFrame({f"x{i}": rng.normal(size=n) for i in range(6)})
    X["colour"] = rng.choice(["red", "green", "blue"], size=n)
    Y = np.column_stack([X.x0 > 0.5, (X.x1 > -0.3) & (X.colour == "red"), X.x2 + X.x3 > 1,
                         (X.x0 > 1.2) | (X.x4 < -1), rng.random(n) < 0.7]).astype(int)
    Y ^= (rng.random(Y.shape) < 0.03)
    params = dict(random_state=seed, binarizer=PercentileBinarizer((10, 30, 50, 70, 90)), negations=True,
                  validated_stop=False)
    pruned = CorsetClassifier(**params).fit(X[:300], Y[:300])
    full = CorsetClassifier(**params, prune_redundant=False).fit(X[:300], Y[:300])
    cuts = np.concatenate([c for c in pruned.features_.binarizer_.thresholds_ if c is not None])
    new = pd.DataFrame({f"x{i}": np.where(rng.random(2000) < 0.3, rng.choice(cuts, 2000),
                                          rng.normal(scale=2, size=2000)) for i in range(6)})
    new["colour"] = rng.choice(["red", "green", "blue", "grey"], size=2000)
    for Z in (X, new):
        np.testing.assert_array_equal(pruned.predict(Z), full.predict(Z))
    rules = full.rules_[:-1] if full.rules_ and not full.rules_[-1].n_literals else full.rules_
    default = full.rules_[-1] if len(rules) < len(full.rules_) else None
    as_sets = _needed_rules(rules, default)
    # The implications leave out rules that comparing literals as sets keeps (20 rules: 11 or 12
    # kept, against 14 or 15).
    assert len(pruned.rules_) - (default is not None) < len(as_sets)


def test_candidates_from_a_subset_of_records_are_scored_on_all_of_them(global_random_seed, threaded_searches):
    # max_candidate_records below the training size: the samplers draw from a subset, the
    # selection's areas and the rules' statistics read every training record.
    from corset import BinaryData
    from corset.selection import uncovered_area

    d = make_rule_data(n_records=400, n_features=20, n_labels=10, noise=0.01, random_state=global_random_seed)
    X, Y = d.X, d.Y
    params = dict(FAST, random_state=global_random_seed, validated_stop=False, prune_redundant=False)
    capped = CorsetClassifier(max_candidate_records=150, **params).fit(X, Y)
    assert 150 <= capped.n_candidate_records_ <= 150 + 10
    data = BinaryData.with_negations(capped._check_X(X), Y, capped.negated_features_)
    chosen = list(capped.selection_.rules)
    assert chosen
    for i, rule in enumerate(chosen):   # each area counted on all 400 records, as it was chosen
        assert capped.selection_.areas[i] == uncovered_area(data, rule, chosen[:i])
    Xd, Yd = np.asarray(sp.csr_array(X).todense()).astype(bool), np.asarray(sp.csr_array(Y).todense()).astype(bool)
    for rule in capped.rules_:
        fires = Xd[:, list(rule.head)].all(axis=1)
        assert rule.support == fires.sum()
        assert rule.n_matched == (fires & Yd[:, list(rule.tail)].all(axis=1)).sum()
    # Threads change nothing; a cap at or above the training size changes nothing.
    again = CorsetClassifier(max_candidate_records=150, n_jobs=2, **params).fit(X, Y)
    assert _rule_tuples(again) == _rule_tuples(capped)
    everything = CorsetClassifier(max_candidate_records=None, **params).fit(X, Y)
    assert everything.n_candidate_records_ == 400
    assert _rule_tuples(everything) != _rule_tuples(capped)   # the cap took effect
    assert _rule_tuples(CorsetClassifier(max_candidate_records=400, **params).fit(X, Y)) == _rule_tuples(everything)
    assert CorsetClassifier.paper().max_candidate_records is None


def test_models_saved_before_the_candidate_cap_refit_on_every_record(synthetic):
    X, Y = synthetic
    model = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    d = model.to_dict()
    assert CorsetClassifier.from_dict(d).max_candidate_records == 100_000
    del d["params"]["max_candidate_records"]
    assert CorsetClassifier.from_dict(d).max_candidate_records is None
    state = model.__getstate__()
    del state["max_candidate_records"]
    old = CorsetClassifier.__new__(CorsetClassifier)
    old.__setstate__(state)
    assert old.get_params()["max_candidate_records"] is None
    assert (old.predict(X) != model.predict(X)).nnz == 0


def test_verbose_shows_the_validation_and_the_selection(capsys):
    """The fold fits are most of a validated fit's time: with verbose they have a progress bar
    (named by what they validate), and so does the final selection; without, nothing is printed."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 4))
    Y = (X[:, :2] > 0).astype(int)
    CorsetClassifier(random_state=0, verbose=1, **FAST).fit(X, Y)
    err = capsys.readouterr().err
    assert "internal validation (cut at p90" in err and "/3 " in err
    assert "selecting rules" in err
    quiet = CorsetClassifier(random_state=0, **FAST).fit(X, Y)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
    # The bars change nothing.
    loud = CorsetClassifier(random_state=0, verbose=1, **FAST).fit(X, Y)
    assert [str(r) for r in loud.rules_] == [str(r) for r in quiet.rules_]


def test_validation_description_names_what_the_folds_try():
    from corset.model._classifier import _validation_description

    assert _validation_description({"p90": dict(binarizer=PercentileBinarizer(), negations=False)}) == (
        "internal validation (cut at p90)")
    five = PercentileBinarizer(percentile=(10, 30, 50, 70, 90))
    assert _validation_description({"other": dict(binarizer=five, negations=True)}) == (
        "internal validation (5 cuts, NOT literals)")
    assert _validation_description({"given": dict(binarizer="auto", negations=False)}) == "internal validation"
    assert _validation_description({"given": dict(binarizer="auto", negations=True)}) == (
        "internal validation (NOT literals)")


def test_a_named_series_of_zeros_and_ones_names_its_label():
    """A 1-D y of 0/1 or booleans is named by its Series' name ("THEN churned", not "THEN 1"); class
    values that are words name the label themselves; an unnamed y keeps the positive class."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = pd.DataFrame({"a": rng.rand(100)})
    for y, name in [(pd.Series((X.a > .5).astype(int), name="churned"), "churned"),
                    (pd.Series(X.a > .5, name="churned"), "churned"),
                    (pd.Series(np.where(X.a > .5, "spam", "ham"), name="kind"), "spam"),
                    ((X.a > .5).astype(int).to_numpy(), "1")]:
        model = CorsetClassifier(random_state=0, **FAST).fit(X, y)
        assert model.label_names_ == [name]
        assert np.array_equal(model.predict(X), CorsetClassifier.from_json(model.to_json()).predict(X))
