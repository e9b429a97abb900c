"""validated_stop: rare rules left out and the rule list cut where held-out data says so, checked by brute force."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import KFold

from corset.datasets import make_rule_data
from corset.model import CorsetClassifier, Rule
from corset.selection import default_tail
from corset.model._classifier import (AUTO_TOL_OCCURRENCES, VALIDATED_STOP_FOLDS, VALIDATION_MIN_TAILS,
                                      VALIDATION_POOL_SHARE, _better_beyond_noise, _can_still_pass, _fold_curve,
                                      _prefix_counts, _prefix_curves, _support_grid, _validated_length,
                                      _validated_support)

SMALL = dict(n_rules=80, n_tails=10, n_heads_per_tail=5)


def noisy_data(seed):
    """Rules under 15% flipped entries: the greedy's tail fits noise, which held-out records expose."""
    data = make_rule_data(n_records=400, n_features=30, n_labels=20, noise=0.15, random_state=seed)
    return sp.csr_array(data.X).toarray(), sp.csr_array(data.Y).toarray()


def brute_counts(model, X_fit, Y_fit, X, Y):
    """(tp, fp, fn) of each prefix, by predicting with a copy of the model cut to that prefix.

    The copy's default rule is chosen again by :func:`default_tail` on the
    training data, from the cut model's own training predictions.
    """
    with_head = [r for r in model.rules_ if r.n_literals]
    truth = np.asarray(Y, dtype=bool)
    out = []
    for k in range(len(with_head) + 1):
        cut = CorsetClassifier.from_dict(model.to_dict())
        cut.rules_ = with_head[:k]
        if model.default_rule:
            tail, _ = default_tail(Y_fit, cut.predict(X_fit))
            if tail:
                cut.rules_ = cut.rules_ + [Rule(head=(), tail=tail)]
        predicted = cut.predict(X).astype(bool)
        tp = int((predicted & truth).sum())
        out.append((tp, int(predicted.sum()) - tp, int(truth.sum()) - tp))
    return np.asarray(out).T


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("default_rule", [True, False])
def test_prefix_counts_are_those_of_the_cut_models(seed, default_rule):
    X, Y = noisy_data(seed)
    model = CorsetClassifier(random_state=seed, prune_redundant=False, default_rule=default_rule,
                             validated_stop=False, **SMALL).fit(X[:300], Y[:300])
    tp, fp, fn = _prefix_counts(model, X[:300], Y[:300], X[300:], Y[300:])
    expected = brute_counts(model, X[:300], Y[:300], X[300:], Y[300:])
    np.testing.assert_array_equal(np.vstack([tp, fp, fn]), expected)


def _curve(f1s, positives=100):
    """(tp, fp, fn) arrays whose micro-F1 after each prefix is ``f1s``: fn + fp = 2 tp (1 - f) / f."""
    tp = np.asarray(f1s, dtype=float) * positives
    return tp, np.zeros_like(tp), 2 * tp * (1 - np.asarray(f1s)) / np.asarray(f1s)


@pytest.mark.parametrize("gains, wins, textbook", [
    ((0.01, 0.03, 0.05), True, True),      # mean 0.03, s 0.02: beyond s·sqrt(1/3 + 1/2) = 0.018
    ((-0.01, 0.02, 0.05), False, True),    # mean 0.02, s 0.03: beyond s/sqrt(3) = 0.017, not 0.027
    ((0.03, -0.01, 0.04), False, True),    # mean 0.02, s 0.026: 0.015 and 0.024
    ((0.02, 0.02, 0.02), True, True),      # no spread: any mean gain
    ((-0.01, -0.02, 0.0), False, False),   # a loss
    ((-0.01, 0.02, 0.05, 0.02, 0.02), True, True),    # five folds: mean 0.02, s 0.021: beyond 0.014
    ((-0.02, 0.02, 0.05, 0.02, 0.0), False, True),    # mean 0.014, s 0.026: 0.012 and 0.018
])
def test_races_use_the_corrected_standard_error(gains, wins, textbook):
    """A challenger wins when its mean per-fold gain passes the standard error corrected for the folds'
    overlapping training sets, s·sqrt(1/k + 1/(k-1)) (Nadeau and Bengio), not the textbook s/sqrt(k)."""
    incumbent = [_curve([0.3, 0.5]) for _ in gains]
    challenger = [_curve([0.3, 0.5 + g]) for g in gains]
    assert _better_beyond_noise(challenger, incumbent) is wins
    # The cases sit where they say, so those with wins != textbook are decided by the correction.
    d = np.asarray(gains)
    assert bool(d.mean() > 0 and d.mean() > d.std(ddof=1) * np.sqrt(1 / d.size + 1 / (d.size - 1))) is wins
    assert bool(d.mean() > 0 and d.mean() > d.std(ddof=1) / np.sqrt(d.size)) is textbook


def _passes(d):
    """The test of :func:`_better_beyond_noise` on rows of per-fold differences, written out again."""
    k = d.shape[-1]
    m = d.mean(axis=-1)
    return (m > 0) & (m > d.std(axis=-1, ddof=1) * np.sqrt(1 / k + 1 / (k - 1)))


@pytest.mark.parametrize("k, seen", [(3, 1), (3, 2), (4, 2), (4, 3), (5, 3), (5, 4)])
def test_a_challenger_is_dropped_early_only_when_no_later_folds_could_make_it_win(k, seen):
    """Brute force over the differences of the folds left (a grid on [-1, 1], fine near the gains):
    whenever some of them make the challenger better beyond noise, _can_still_pass says so; and when it
    says so, the best of the grid is within its spacing of passing."""
    rng = np.random.RandomState(k * 10 + seen)
    r = k - seen
    axis = np.unique(np.concatenate([np.linspace(-1, 1, 401), np.linspace(-0.1, 0.1, 2001)]))
    if r == 2:
        axis = np.unique(np.concatenate([np.linspace(-1, 1, 101), np.linspace(-0.1, 0.1, 201)]))
    rest = np.stack(np.meshgrid(*[axis] * r, indexing="ij"), axis=-1).reshape(-1, r)
    dropped = kept = 0
    for _ in range(150 if r == 1 else 40):
        gains = rng.normal(0.005, 0.015, size=seen)
        d = np.hstack([np.broadcast_to(gains, (rest.shape[0], seen)), rest])
        m = d.mean(axis=1)
        margin = m - d.std(axis=1, ddof=1) * np.sqrt(1 / k + 1 / (k - 1))
        can = _can_still_pass(gains, k)
        assert bool(_passes(d).any()) <= can          # never dropped when it could still win
        best = np.max(np.minimum(margin, m))   # > 0 exactly where some grid point passes
        if can:
            assert best > -1e-3   # within the grid's spacing of passing
            kept += 1
        else:
            dropped += 1
            assert best < 0
    # Both outcomes occur with one fold left.  After one fold, equal gains always pass; with two or
    # more left, differences near 1 on all of them outweigh any spread of the gains so far.
    assert kept and (dropped > 0) == (r == 1)


def test_two_folds_of_opposite_gains_end_the_race_before_the_third(monkeypatch):
    """A challenger +0.016 then -0.0115 on three folds cannot pass the test whatever the third scores
    (d1^2 + d2^2 + 6·d1·d2 < 0): it is not fitted there.  Gains of one sign go on to the third fold."""
    from corset.model import _classifier as classifier

    incumbent = [[_curve([0.3, 0.5])] for _ in range(3)]
    for gains, fitted in [((0.016, -0.0115, 0.05), [[0], [1]]), ((0.016, 0.004, -0.03), [[0], [1], [2]]),
                          ((0.016, -0.002, 0.01), [[0], [1], [2]])]:
        calls = []

        def fold_curves(self, X, candidates, Yb, folds=None, gains=gains):
            calls.append(folds)
            return {"other": [[_curve([0.3, 0.5 + gains[j]])] for j in folds]}

        monkeypatch.setattr(classifier.CorsetClassifier, "_fold_curves", fold_curves)
        other, wins = CorsetClassifier(n_jobs=1)._race(None, {}, None, incumbent)
        assert calls == fitted and len(other) == len(fitted)
        full = [[_curve([0.3, 0.5 + g])] for g in gains]
        # The choice is the one the whole race makes.
        assert wins == (len(other) == 3 and _better_beyond_noise([f[0] for f in full], [f[0] for f in incumbent]))
        assert _can_still_pass(np.asarray(gains[:2]), 3) == (len(fitted) == 3)


def test_validated_length_cuts_only_beyond_noise():
    def curve(f1s, positives=100):
        # counts with those micro-F1 values: fn + fp = 2 tp (1 - f) / f with tp = f * positives.
        tp = np.asarray(f1s) * positives
        return tp, np.zeros_like(tp), 2 * tp * (1 - np.asarray(f1s)) / np.asarray(f1s)
    # Every fold peaks at prefix 2 and loses 0.1 by the end: beyond the folds' spread, cut at 2.
    folds = [curve([0.30, 0.50, 0.60, 0.55, 0.50]), curve([0.32, 0.52, 0.62, 0.57, 0.52]),
             curve([0.31, 0.51, 0.61, 0.56, 0.51])]
    k, mean = _validated_length(folds)
    assert k == 2
    np.testing.assert_allclose(mean, [0.31, 0.51, 0.61, 0.56, 0.51])
    # The folds disagree by more than the loss: no cut.
    folds = [curve([0.30, 0.50, 0.60, 0.59]), curve([0.30, 0.40, 0.45, 0.47]), curve([0.30, 0.70, 0.75, 0.74])]
    assert _validated_length(folds)[0] is None
    # A fold that stopped early keeps its last score: no cut when the others only add.
    folds = [curve([0.3, 0.5]), curve([0.3, 0.5, 0.52, 0.53]), curve([0.3, 0.49, 0.5, 0.51])]
    k, mean = _validated_length(folds)
    assert k is None and mean.size == 4 and mean[3] == pytest.approx((0.5 + 0.53 + 0.51) / 3)
    # Ties go to the shortest prefix.
    folds = [curve([0.2, 0.6, 0.6, 0.3])] * 3
    assert _validated_length(folds)[0] == 1


def without_rare(model, threshold):
    """A copy of a fitted model without its rules matched by fewer than ``threshold`` training records."""
    copy = CorsetClassifier.from_dict(model.to_dict())
    copy.rules_ = [r for r in model.rules_ if r.n_literals and r.n_matched >= threshold]
    return copy


@pytest.mark.parametrize("seed", [0, 1])
def test_prefix_curves_are_those_of_the_models_without_rare_rules(seed):
    X, Y = noisy_data(seed)
    model = CorsetClassifier(random_state=seed, prune_redundant=False, validated_stop=False,
                             **SMALL).fit(X[:300], Y[:300])
    matched = sorted({r.n_matched for r in model.rules_ if r.n_literals})
    thresholds = [0, 2.5, matched[len(matched) // 2], matched[-1] + 1]   # every rule ... none
    curves = _prefix_curves(model, X[:300], Y[:300], X[300:], Y[300:], thresholds)
    for threshold, (tp, fp, fn) in zip(thresholds, curves):
        expected = brute_counts(without_rare(model, threshold), X[:300], Y[:300], X[300:], Y[300:])
        np.testing.assert_array_equal(np.vstack([tp, fp, fn]), expected)


@pytest.mark.parametrize("negations", [False, True])
def test_a_fold_fit_scores_its_rules_from_its_own_data_as_from_X(negations):
    # A fold fit keeps its records' BinaryData (its held-out stop); the curves read the rules'
    # records from it.  Without it they come from X, binarized again: the same counts.
    X, Y = noisy_data(0)
    est = CorsetClassifier(random_state=0, prune_redundant=False, validated_stop=False, negations=negations,
                           **SMALL)
    thresholds = [0, 2.5, 4]
    curves = _fold_curve(est, X[:300], Y[:300], X[300:], Y[300:], thresholds)
    assert est._held_out_patience is not None and len(est.rules_) > 2
    assert not negations or any(r.negated for r in est.rules_)
    est._held_out_patience = None
    again = _prefix_curves(est, X[:300], Y[:300], X[300:], Y[300:], thresholds)
    for got, want in zip(curves, again):
        np.testing.assert_array_equal(np.vstack(got), np.vstack(want))


def test_support_grid():
    assert _support_grid(2) == [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    assert _support_grid(1) == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]


def test_validated_support_takes_the_best_scoring_least_support():
    def curve(f1s, positives=100):
        tp = np.asarray(f1s) * positives
        return tp, np.zeros_like(tp), 2 * tp * (1 - np.asarray(f1s)) / np.asarray(f1s)
    every = [curve([0.3, 0.5, 0.52, 0.50]), curve([0.3, 0.5, 0.53, 0.51]), curve([0.3, 0.5, 0.51, 0.49])]
    frequent = [curve([0.3, 0.5, 0.55]), curve([0.3, 0.5, 0.56]), curve([0.3, 0.5, 0.54])]
    rarest_out = [curve([0.3, 0.5]), curve([0.3, 0.51]), curve([0.3, 0.49])]
    folds = [list(f) for f in zip(every, frequent, rarest_out)]
    m, k, mean, scores = _validated_support(folds, [2, 3, 4])
    assert m == 3 and k is None                         # the list without the rarest rules, kept whole
    np.testing.assert_allclose(mean, [0.3, 0.5, 0.55])
    assert scores == pytest.approx({2: 0.52, 3: 0.55, 4: 0.5})
    # A cut list competes with its cut score; equal scores go to the smallest least support.
    folds = [[curve([0.3, 0.6, 0.4])] * 2 for _ in range(3)]
    m, k, _, scores = _validated_support(folds, [2, 3])
    assert (m, k) == (2, 1) and scores == pytest.approx({2: 0.6, 3: 0.6})


@pytest.mark.parametrize("seed", [0, 2])
def test_the_fit_is_the_unvalidated_selection_without_rare_rules_cut_at_k(seed):
    """By hand: the folds and seeds, each fold's curves per least support, the choice, and the final fit."""
    X, Y = noisy_data(seed)
    model = CorsetClassifier(random_state=seed, validated_stop=True, **SMALL).fit(X, Y)
    negations = bool(model.negated_features_.size)   # chosen on the same folds (binary X, negations="auto")
    seeds = np.random.RandomState(seed).randint(np.iinfo(np.int32).max, size=VALIDATED_STOP_FOLDS + 1)
    folds = KFold(VALIDATED_STOP_FOLDS, shuffle=True, random_state=int(seeds[0])).split(X)
    grid = _support_grid(2)
    curves = []
    for (train, test), s in zip(folds, seeds[1:]):
        # A fold draws a share of the tails per step (VALIDATION_POOL_SHARE; all of SMALL's 10).
        inner = CorsetClassifier(random_state=int(s), prune_redundant=False, validated_stop=False,
                                 negations=negations, **{**SMALL, "n_tails": fold_tails(SMALL["n_tails"])})
        inner.fit(X[train], Y[train])
        # The least support m on all records is m * |train| / n on the fold's.
        curves.append([brute_counts(without_rare(inner, m * train.size / X.shape[0]), X[train], Y[train],
                                    X[test], Y[test]) for m in grid])
    m, k, mean, scores = _validated_support(curves, grid)
    np.testing.assert_allclose(model.validation_curve_, mean)
    assert (model.min_support_validated_, model.n_rules_validated_) == (m, k)
    assert model.support_scores_ == pytest.approx(scores)
    assert m > 2   # these two seeds are ones where rare rules are left out
    whole = CorsetClassifier(random_state=seed, validated_stop=False, prune_redundant=False, negations=negations,
                             **SMALL).fit(X, Y)
    # Validation does not change what the final fit draws: its selection is the unvalidated one ...
    assert model.selection_.rules == whole.selection_.rules
    # ... without the rules matched by fewer than m records, cut at k, then pruned.
    kept = [(r.head, r.tail) for r in whole.rules_ if r.n_literals and r.n_matched >= m][:k]
    heads = [(r.head, r.tail) for r in model.rules_ if r.n_literals]
    assert set(heads) <= set(kept) and len(heads) <= len(kept)
    assert all(r.n_matched >= m for r in model.rules_ if r.n_literals)
    unpruned = CorsetClassifier(random_state=seed, validated_stop=True, prune_redundant=False, negations=negations,
                                **SMALL).fit(X, Y)
    assert [(r.head, r.tail) for r in unpruned.rules_ if r.n_literals] == kept


def test_auto_validates_from_30_records_unless_switched_off():
    Xb, Yb = noisy_data(0)                                                        # binary X
    auto = CorsetClassifier(random_state=0, **SMALL).fit(Xb, Yb)
    assert auto.validation_curve_ is not None and auto.support_scores_ is not None
    assert auto.min_support_validated_ in _support_grid(2)
    few = CorsetClassifier(random_state=0, validated_stop=True).fit(Xb[:20], Yb[:20])
    assert few.validation_curve_ is None and few.min_support_validated_ is None  # below 30 records
    off = CorsetClassifier(random_state=0, validated_stop=False, **SMALL).fit(Xb, Yb)
    assert off.validation_curve_ is None and off.support_scores_ is None
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 5))
    Y = np.column_stack([X[:, 0] > 0.5, X[:, 1] + X[:, 2] > 0]).astype(np.uint8)
    numeric = CorsetClassifier(random_state=0, n_rules=20).fit(X, Y)               # cuts chosen by the folds
    assert numeric.binarizer_scores_ is not None and numeric.validation_curve_ is not None
    off = CorsetClassifier(random_state=0, n_rules=20, validated_stop=False).fit(X, Y)
    assert off.validation_curve_ is None and off.binarizer_scores_ == numeric.binarizer_scores_


def test_a_dataframe_of_sparse_columns_gives_the_rules_of_its_matrix():
    """The folds of a binary DataFrame read its numbers converted once: the same rules as from the matrix."""
    pd = pytest.importorskip("pandas")
    X, Y = noisy_data(1)
    frame = pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(X), columns=[f"w{j}" for j in range(X.shape[1])])
    a = CorsetClassifier(random_state=1, **SMALL).fit(frame, Y)
    b = CorsetClassifier(random_state=1, **SMALL).fit(sp.csr_array(X), Y)
    assert a.validation_curve_ is not None
    assert [(r.head, r.tail) for r in a.rules_] == [(r.head, r.tail) for r in b.rules_]
    assert a.rules_[0].head_names[0].startswith("w")


def test_the_cut_does_not_depend_on_n_jobs_and_survives_export(threaded_searches):
    X, Y = noisy_data(0)
    one = CorsetClassifier(random_state=0, validated_stop=True, n_jobs=1, **SMALL).fit(X, Y)
    two = CorsetClassifier(random_state=0, validated_stop=True, n_jobs=2, **SMALL).fit(X, Y)
    assert one.validation_curve_ is not None
    assert (one.n_rules_validated_, one.min_support_validated_) == (two.n_rules_validated_,
                                                                    two.min_support_validated_)
    assert [(r.head, r.tail) for r in one.rules_] == [(r.head, r.tail) for r in two.rules_]
    back = CorsetClassifier.from_json(one.to_json())
    np.testing.assert_array_equal(back.predict(X), one.predict(X))
    assert back.get_params()["validated_stop"] is True


def test_bad_value_names_the_parameter():
    X, Y = noisy_data(0)
    with pytest.raises(ValueError, match="validated_stop"):
        CorsetClassifier(validated_stop="yes").fit(X, Y)


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_a_validated_cut_known_before_the_fit_stops_the_selection_there(seed):
    """Without the F1 stop (no negated literals here), the selection runs only to the validated k: the
    same rules as the whole selection cut at k, and as the unvalidated fit with a budget of k + 1."""
    X, Y = noisy_data(seed)
    # min_support=16: on these data the folds keep every selected rule (the grid's first least support)
    # and cut the list; with rarer rules left out, k would count the others and the selection runs on.
    params = dict(SMALL, negations=False, min_support=16)
    model = CorsetClassifier(random_state=seed, validated_stop=True, **params).fit(X, Y)
    k = model.n_rules_validated_
    whole = CorsetClassifier(random_state=seed, validated_stop=False, prune_redundant=False, **params).fit(X, Y)
    assert k is not None and model.min_support_validated_ == 16
    assert model.selection_.rules == whole.selection_.rules[:max(k, 1)]
    cut = CorsetClassifier(random_state=seed, validated_stop=False, **{**params, "n_rules": k + 1}).fit(X, Y)
    assert [(r.head, r.negated, r.tail) for r in model.rules_] == [(r.head, r.negated, r.tail) for r in cut.rules_]


def test_with_rare_rules_left_out_the_selection_stops_at_the_kth_rule_kept():
    """Seed 2 without negated literals: the folds leave out rules matched by fewer than 8 records and cut
    after 37 of the others; the selection stops at its 37th rule matched by 8 or more records."""
    X, Y = noisy_data(2)
    params = dict(SMALL, negations=False, prune_redundant=False)
    model = CorsetClassifier(random_state=2, validated_stop=True, **params).fit(X, Y)
    m, k = model.min_support_validated_, model.n_rules_validated_
    assert (m, k) == (8, 37)
    assert model.selection_.stop_reason == "validated"
    whole = CorsetClassifier(random_state=2, validated_stop=False, **params).fit(X, Y)
    frequent = [j for j, r in enumerate(whole.rules_) if r.n_literals and r.n_matched >= m]
    assert model.selection_.rules == whole.selection_.rules[:frequent[k - 1] + 1]
    assert [(r.head, r.tail) for r in model.rules_ if r.n_literals] == \
           [(whole.rules_[j].head, whole.rules_[j].tail) for j in frequent[:k]]


def fold_tails(n_tails):
    return min(n_tails, max(VALIDATION_MIN_TAILS, round(n_tails * VALIDATION_POOL_SHARE)))


@pytest.mark.parametrize("tol", ["auto", 0.01, None])
def test_fold_fits_count_the_auto_tolerance_on_their_share_of_the_records(monkeypatch, tol):
    """tol="auto" stops once no candidate covers more than 3 new label occurrences of the n records:
    a fold fit stops at 3 · |train| / n of its own (its path runs as far as the final fit's, as a least
    support is scaled).  A share τ of ||L|| is a share on a fold too, and None stays None."""
    from corset.model import _classifier as classifier

    X, Y = noisy_data(1)
    seen = []
    original = classifier._fold_curve

    def spy(estimator, X_train, Y_train, *args):
        seen.append((estimator.tol, X_train.shape[0], int(Y_train.sum()), estimator))
        return original(estimator, X_train, Y_train, *args)

    monkeypatch.setattr(classifier, "_fold_curve", spy)
    # A budget long enough for the folds to stop by τ (or their held-out score) first.
    model = CorsetClassifier(random_state=0, tol=tol, validated_stop=True, negations=False,
                             **dict(SMALL, n_rules=400)).fit(X, Y)
    n = X.shape[0]
    assert len(seen) >= VALIDATED_STOP_FOLDS and model.tol == tol   # the γ race may add one
    for fold_tol, n_train, occurrences, estimator in seen:
        if tol == "auto":
            assert fold_tol == pytest.approx(AUTO_TOL_OCCURRENCES * n_train / n / occurrences)
            assert fold_tol * occurrences == pytest.approx(2.0, abs=0.02)   # two thirds of 3
            # The fold's selection stopped where no candidate covered more new occurrences than that.
            if estimator.selection_.stop_reason == "tol":
                assert estimator.selection_.areas[-1] <= AUTO_TOL_OCCURRENCES * n_train / n + 1e-9
        else:
            assert fold_tol == tol
    if tol is not None:
        assert any(e.selection_.stop_reason == "tol" for *_, e in seen)


@pytest.mark.parametrize("n_tails, expected", [(50, 10), (80, 16), (12, 10), (10, 10), (3, 3)])
def test_fold_fits_draw_a_share_of_the_pool_and_the_final_fit_all_of_it(monkeypatch, n_tails, expected):
    """Every fold fit of the internal validation (cuts, negations, validated stop) draws
    VALIDATION_POOL_SHARE of the tails per step, at least VALIDATION_MIN_TAILS (all of a smaller
    n_tails); the final fit draws n_tails."""
    from corset.model import _classifier as classifier
    from corset.sampling import CandidateGenerator

    X, Y = noisy_data(0)
    X = X * np.random.RandomState(0).rand(*X.shape)   # numeric: the cuts are raced too
    seen, drawn = [], []
    original = classifier._fold_curve

    def spy(estimator, *args):
        seen.append(estimator.n_tails)
        return original(estimator, *args)

    pool = CandidateGenerator.candidate_pool

    def count(self, *args, **kwargs):
        drawn.append(self.n_tails)
        return pool(self, *args, **kwargs)

    monkeypatch.setattr(classifier, "_fold_curve", spy)
    monkeypatch.setattr(CandidateGenerator, "candidate_pool", count)
    model = CorsetClassifier(random_state=0, n_tails=n_tails, n_rules=20, n_heads_per_tail=5).fit(X, Y)
    assert expected == fold_tails(n_tails)
    assert len(seen) >= 2 * VALIDATED_STOP_FOLDS and set(seen) == {expected}
    # The folds' pools first (a share of the tails), then the final fit's (n_tails tails each).
    assert model.n_tails == n_tails and drawn[-1] == n_tails and set(drawn) == {expected, n_tails}
    final = drawn.index(n_tails) if expected != n_tails else len(drawn) - 1
    assert set(drawn[final:]) == {n_tails} and set(drawn[:final]) <= {expected}


def test_large_data_is_validated_on_a_subsample(monkeypatch):
    """Past VALIDATION_MAX_RECORDS the folds split a random subsample of that size (the same one
    for every candidate and any n_jobs), and the least supports are scaled to its share."""
    from corset.model import _classifier as classifier

    X, Y = noisy_data(0)
    monkeypatch.setattr(classifier, "VALIDATION_MAX_RECORDS", 90)
    seen = []
    original = classifier._fold_curve

    def spy(estimator, X_train, Y_train, X_test, Y_test, min_matched, completion=False):
        seen.append((X_train.shape[0], X_test.shape[0], list(min_matched)))
        return original(estimator, X_train, Y_train, X_test, Y_test, min_matched, completion)

    monkeypatch.setattr(classifier, "_fold_curve", spy)
    model = CorsetClassifier(random_state=0, negations=False, gh_gamma=0.5, **SMALL).fit(X, Y)
    assert [(a, b) for a, b, _ in seen] == [(60, 30)] * VALIDATED_STOP_FOLDS
    grid = _support_grid(2)
    assert seen[0][2] == pytest.approx([m * 60 / X.shape[0] for m in grid])
    assert model.validation_curve_ is not None
    again = CorsetClassifier(random_state=0, negations=False, gh_gamma=0.5, **SMALL).fit(X, Y)
    assert [(r.head, r.tail) for r in again.rules_] == [(r.head, r.tail) for r in model.rules_]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("negations", [False, True])
def test_a_fold_stops_after_its_patience_with_the_prefix_of_its_whole_path(seed, negations, monkeypatch):
    """A fold's selection stops at the first k rules where its held-out micro-F1 (every rule, with
    the default rule, as its curve gives it) has not risen for max(patience, factor × best) rules;
    its curves are then the first entries of the unstopped fold's (the greedy is sequential)."""
    from corset.model import _classifier as C

    patience, factor = 4, 1
    monkeypatch.setattr(C, "VALIDATION_PATIENCE", patience)
    monkeypatch.setattr(C, "VALIDATION_PATIENCE_FACTOR", factor)
    X, Y = noisy_data(seed)
    train, test = np.arange(260), np.arange(260, 400)
    params = dict(random_state=seed, prune_redundant=False, validated_stop=False, negations=negations,
                  f1_patience=None, **SMALL)
    whole = CorsetClassifier(**params).fit(X[train], Y[train])
    expected = _prefix_curves(whole, X[train], Y[train], X[test], Y[test], [0, 3])
    f1 = C._micro_f1(*expected[0])
    best, stop = 0, None
    for k in range(1, f1.size):
        if f1[k] > f1[best]:
            best = k
        if k - best >= max(patience, factor * best):
            stop = k
            break
    inner = CorsetClassifier(**params)
    curves = C._fold_curve(inner, X[train], Y[train], X[test], Y[test], [0, 3])
    # The criterion's scores are the fold's curve (every rule), and it stopped where the rule says.
    criterion = inner._held_out_patience
    assert criterion.stopped == (stop is not None)
    np.testing.assert_allclose(criterion.scores, f1[:len(criterion.scores)], rtol=0, atol=1e-12)
    n = f1.size if stop is None else stop + 1
    assert len(criterion.scores) == n
    assert inner.selection_.rules == whole.selection_.rules[:n - 1]
    for j, threshold in enumerate([0, 3]):
        kept = sum(1 for r in inner.rules_ if r.n_literals and r.n_matched >= threshold)
        for got, full in zip(curves[j], expected[j]):
            np.testing.assert_array_equal(got, full[:kept + 1])


def test_some_folds_stop_early_and_the_choice_uses_what_they_followed(monkeypatch):
    """With a short patience the folds stop early, the fit still validates (from the shorter
    curves), and the default patience stops none of these 80-rule folds early that a long one would
    not: its result is the unstopped validation's whenever no fold stopped."""
    from corset.model import _classifier as C

    X, Y = noisy_data(1)
    stopped = []
    original = C._fold_curve

    def recording(estimator, *args, **kwargs):
        out = original(estimator, *args, **kwargs)
        stopped.append(estimator._held_out_patience.stopped)
        return out

    monkeypatch.setattr(C, "_fold_curve", recording)
    default = CorsetClassifier(random_state=1, **SMALL).fit(X, Y)
    stopped_by_default = any(stopped)
    monkeypatch.setattr(C, "VALIDATION_PATIENCE", 10 ** 6)
    stopped.clear()
    unstopped = CorsetClassifier(random_state=1, **SMALL).fit(X, Y)
    assert not any(stopped)
    if not stopped_by_default:
        assert default.rules_ == unstopped.rules_
    monkeypatch.setattr(C, "VALIDATION_PATIENCE", 2)
    monkeypatch.setattr(C, "VALIDATION_PATIENCE_FACTOR", 1)
    stopped.clear()
    short = CorsetClassifier(random_state=1, **SMALL).fit(X, Y)
    assert any(stopped) and short.validation_curve_ is not None
    assert short.validation_curve_.size <= unstopped.validation_curve_.size


@pytest.mark.parametrize("negations", [False, True])
def test_a_folds_curves_from_its_own_records_equal_those_from_x(negations):
    """A fold fit scores its prefixes on the BinaryData its selection read (training and held-out
    records, negated literals included); the curves are those computed from X again."""
    from corset.model import _classifier as C

    X, Y = noisy_data(3)
    train, test = np.arange(260), np.arange(260, 400)
    inner = CorsetClassifier(random_state=3, prune_redundant=False, validated_stop=False, negations=negations,
                             **SMALL)
    grid = [0, 2, 5]
    curves = C._fold_curve(inner, X[train], Y[train], X[test], Y[test], grid)
    assert inner._held_out_patience.fit_path.data.n_records == train.size
    assert negations == bool(inner.negated_features_.size)
    assert any(r.negated for r in inner.rules_) or not negations
    inner._held_out_patience = None   # the path that binarizes X again
    again = _prefix_curves(inner, X[train], Y[train], X[test], Y[test], grid)
    for got, want in zip(curves, again):
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", [0, 1])
def test_budget_limited_says_when_the_budget_ended_a_rising_selection(seed):
    """``budget_limited_``: True exactly when the selection stopped at the budget while the
    validation curve is highest at its last rule; a tight budget on data with ten generating rules
    is such a case, the default budget (the selection stops by τ first) is not, nor a selection
    that ran out of candidates with its curve still rising; without validation it is None."""
    data = make_rule_data(n_records=600, n_features=60, n_labels=30, random_state=seed)
    seen = {}
    for n_rules in (4, 8, 150):
        model = CorsetClassifier(random_state=seed, n_rules=n_rules).fit(data.X, data.Y)
        curve = model.validation_curve_
        rising = (model.selection_.stop_reason == "budget" and model.n_rules_validated_ is None
                  and int(np.argmax(curve)) == curve.size - 1)
        assert model.budget_limited_ is rising
        seen[n_rules] = model.budget_limited_
    assert seen[4] is True and seen[150] is False
    off = CorsetClassifier(random_state=seed, n_rules=4, validated_stop=False).fit(data.X, data.Y)
    assert off.budget_limited_ is None
    # Noiseless rules: the selection ends when no candidate is left, its curve still highest at
    # its last rule; the data, not the budget, ended it.
    clean = make_rule_data(n_records=400, n_features=30, n_labels=15, noise=0.0, random_state=seed)
    model = CorsetClassifier(random_state=seed).fit(clean.X, clean.Y)
    assert model.selection_.stop_reason != "budget"
    assert int(np.argmax(model.validation_curve_)) == model.validation_curve_.size - 1
    assert model.budget_limited_ is False


def test_a_validated_cut_or_a_flat_end_is_not_a_budget_limit():
    """A selection cut at the validated k (its budget set to k), or one that used its whole budget
    while the held-out score had stopped rising (highest before the last rule, within noise of it:
    the list is kept whole), is not budget-limited."""
    cut = flat = 0
    for seed in range(5):   # seeds 1 and 2 are cut, 3 and 4 flat
        data = make_rule_data(n_records=400, n_features=30, n_labels=20, noise=0.15, random_state=seed)
        model = CorsetClassifier(random_state=seed, n_rules=6, n_tails=10, n_heads_per_tail=5).fit(data.X, data.Y)
        curve = model.validation_curve_
        if int(np.argmax(curve)) < curve.size - 1:
            assert model.budget_limited_ is False
            cut += model.n_rules_validated_ is not None
            flat += model.n_rules_validated_ is None and model.selection_.stop_reason == "budget"
        else:
            assert model.budget_limited_ is (model.selection_.stop_reason == "budget")
    assert cut and flat


def test_validated_horizon_needs_every_fold_stopped_by_its_held_out_score():
    from corset.model._classifier import _FoldCurves, _validated_horizon

    def fold(stopped, n):
        out = _FoldCurves([(np.zeros(n + 1), np.zeros(n + 1), np.zeros(n + 1))])
        out.held_out_stop, out.n_selected = stopped, n
        return out

    assert _validated_horizon([fold(True, 8), fold(True, 41), fold(True, 3)]) == 41
    assert _validated_horizon([fold(True, 8), fold(False, 79), fold(True, 3)]) is None
    assert _validated_horizon([[(np.zeros(3),) * 3]] * 3) is None   # curves that do not say how they stopped


@pytest.mark.parametrize("seed, horizon", [(3, True), (0, False)])
def test_a_list_kept_whole_is_selected_no_further_than_the_folds_followed(monkeypatch, seed, horizon):
    """A short patience stops the folds early.  Seed 3: every fold is stopped by its held-out score and
    the list is kept whole, so the final selection is the unvalidated one cut after as many rules as the
    longest fold selected.  Seed 0: a fold runs to the budget, and the selection runs to it too."""
    from corset.model import _classifier as C

    monkeypatch.setattr(C, "VALIDATION_PATIENCE", 3)
    monkeypatch.setattr(C, "VALIDATION_PATIENCE_FACTOR", 1)
    folds = []
    original = C._fold_curve

    def recording(estimator, *args, **kwargs):
        out = original(estimator, *args, **kwargs)
        folds.append((estimator.selection_.stop_reason, len(estimator.selection_.rules)))
        return out

    monkeypatch.setattr(C, "_fold_curve", recording)
    X, Y = noisy_data(seed)
    params = dict(SMALL, negations=False, gh_gamma=0.5, prune_redundant=False)
    model = CorsetClassifier(random_state=seed, validated_stop=True, **params).fit(X, Y)
    whole = CorsetClassifier(random_state=seed, validated_stop=False, **params).fit(X, Y)
    assert len(folds) == VALIDATED_STOP_FOLDS and model.n_rules_validated_ is None
    assert all(reason == "validation" for reason, _ in folds) == horizon
    longest = max(n for _, n in folds)
    stopped = [n for reason, n in folds if reason == "validation"]
    assert stopped and len(whole.selection_.rules) > max(stopped)   # a horizon of those folds would cut it
    if horizon:
        assert model.selection_.stop_reason == "validated"
        assert model.selection_.rules == whole.selection_.rules[:longest]
    else:
        assert model.selection_.rules == whole.selection_.rules
    m = model.min_support_validated_
    assert [(r.head, r.tail) for r in model.rules_ if r.n_literals] == \
           [(r.head, r.tail) for r in whole.rules_[:len(model.selection_.rules)] if r.n_literals and r.n_matched >= m]


@pytest.mark.parametrize("seed", [0, 4])
def test_a_list_kept_whole_runs_on_past_the_rules_the_folds_scored(seed):
    """The validated list kept whole though the folds' mean held-out curve ends below its best
    (not beyond noise): the final fit is not bounded by the folds' lengths, and keeps the rules its
    path on all the records finds past them, up to its own stop."""
    X, Y = noisy_data(seed)
    params = dict(SMALL, negations=False, gh_gamma=0.5, prune_redundant=False)
    model = CorsetClassifier(random_state=seed, **params).fit(X, Y)
    curve = model.validation_curve_
    assert model.n_rules_validated_ is None and curve[-1] < curve.max()
    kept = [r for r in model.rules_ if r.n_literals]
    assert model.selection_.stop_reason != "validated" and len(kept) > curve.size - 1
