"""Tail completion (corset.selection.complete_tails, ``complete_tails`` of the estimator).

The greedy is checked round by round against a brute force that recomputes
micro-F1 from the predicted matrix for every possible addition; the
estimator's use of it against its own pieces (same heads, tails that only
grow, the default rule chosen before the completion, the folds' choice).
"""
import doctest

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import corset.selection._completion
from corset import CorsetClassifier
from corset.datasets import make_rule_data
from corset.rules._check import _rules_to_csr
from corset.selection import complete_tails
from corset.selection._default import default_tail


def micro_f1(Y, fired, tails, always=()):
    P = np.zeros(Y.shape, dtype=bool)
    P[:, list(always)] = True
    for j, tail in enumerate(tails):
        if tail:
            P[np.ix_(fired[:, j], list(tail))] = True
    tp = int((P & Y).sum())
    d = int(P.sum()) + int(Y.sum())
    return 2 * tp / d if d else 0.0


def brute_force_rounds(fired, tails, Y, always=()):
    """Each round, every (rule, label) addition scored by micro-F1 from scratch; the best (first in
    row-major order among equal ones) taken while it raises micro-F1.  Returns the rounds' pairs."""
    tails = [set(t) for t in tails]
    rounds = []
    while True:
        current = micro_f1(Y, fired, tails, always)
        best, pair = current + 1e-12, None
        for j in range(fired.shape[1]):
            for k in range(Y.shape[1]):
                if k in tails[j] or k in always:
                    continue
                tails[j].add(k)
                score = micro_f1(Y, fired, tails, always)
                tails[j].discard(k)
                if score > best + 1e-12:
                    best, pair = score, (j, k)
        if pair is None:
            return rounds, tails
        rounds.append(pair)
        tails[pair[0]].add(pair[1])


@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 16), n_rules=st.integers(0, 5),
       n_labels=st.integers(1, 5), density=st.floats(0.05, 0.95))
@settings(max_examples=400, deadline=None)
def test_rounds_match_brute_force(seed, n, n_rules, n_labels, density):
    rng = np.random.RandomState(seed)
    fired = rng.rand(n, n_rules) < rng.uniform(0.2, 0.8)
    Y = rng.rand(n, n_labels) < density
    tails = [tuple(np.flatnonzero(rng.rand(n_labels) < 0.3)) for _ in range(n_rules)]
    always = tuple(np.flatnonzero(rng.rand(n_labels) < 0.2))
    rounds, want = brute_force_rounds(fired, tails, Y, always)
    got, f1 = complete_tails(fired.astype(np.uint8), tails, Y.astype(np.uint8), always)
    assert f1 == pytest.approx(micro_f1(Y, fired, got, always), abs=1e-12)
    # Exact float ties between additions may be broken differently: the scores must agree, and
    # with no tie the tails themselves (round by round: replay the brute force's pairs).
    assert f1 == pytest.approx(micro_f1(Y, fired, want, always), abs=1e-12)
    replay = [set(t) for t in tails]
    for j, k in rounds:
        replay[j].add(k)
    assert [set(t) for t in got] == replay or f1 == pytest.approx(micro_f1(Y, fired, replay, always), abs=1e-12)
    # Every input label stays; and at the end no single addition raises micro-F1 (a local optimum).
    assert all(set(t) <= set(g) for t, g in zip(tails, got))
    assert not set(always) & {k for g, t in zip(got, tails) for k in set(g) - set(t)}
    assert brute_force_rounds(fired, got, Y, always)[0] == []


@pytest.mark.parametrize("seed", range(6))
def test_rounds_match_brute_force_with_many_labels(seed):
    """Dozens of labels: the compiled rounds keep the labels' best additions in a heap (a lazy
    greedy), rescoring stale ones; the same rounds as the brute force's, or the same micro-F1
    where exact ties between additions are broken otherwise."""
    rng = np.random.RandomState(seed)
    n, n_rules, n_labels = 50, 8, 60
    fired = rng.rand(n, n_rules) < rng.uniform(0.1, 0.5, size=n_rules)
    Y = rng.rand(n, n_labels) < rng.uniform(0.02, 0.6, size=n_labels)
    tails = [tuple(np.flatnonzero(rng.rand(n_labels) < 0.05)) for _ in range(n_rules)]
    always = tuple(np.flatnonzero(rng.rand(n_labels) < 0.03))
    rounds, want = brute_force_rounds(fired, tails, Y, always)
    got, f1 = complete_tails(fired, tails, Y, always)
    assert len(rounds) > 5
    assert f1 == pytest.approx(micro_f1(Y, fired, want, always), abs=1e-12)
    assert [set(t) for t in got] == want or f1 == pytest.approx(micro_f1(Y, fired, want, always), abs=1e-12)
    assert brute_force_rounds(fired, got, Y, always)[0] == []


@pytest.mark.parametrize("seed", range(8))
def test_the_rounds_start_from_the_counts_of_the_predicted_matrix(seed):
    """The one pass over the records (tail_completion_counts) gives, for each rule and label, the
    records not yet predicted the label with and without it, and per label the true and predicted
    pairs, as read from the dense predicted matrix."""
    from corset._ext import _selection

    rng = np.random.RandomState(seed)
    n, n_rules, n_labels = 40, 6, 9
    fired = rng.rand(n, n_rules) < rng.uniform(0.1, 0.7, size=n_rules)
    Y = rng.rand(n, n_labels) < rng.uniform(0.05, 0.7, size=n_labels)
    tails = [sorted(np.flatnonzero(rng.rand(n_labels) < 0.3).tolist()) for _ in range(n_rules)]
    is_always = (rng.rand(n_labels) < 0.2).astype(np.uint8)
    P = np.zeros(Y.shape, dtype=bool)
    for j, tail in enumerate(tails):
        P[np.ix_(fired[:, j], tail)] = True
    P[:, is_always == 1] = False   # counted apart by the caller
    in_tail = np.zeros((n_rules, n_labels), dtype=np.uint8)
    for j, tail in enumerate(tails):
        in_tail[j, tail] = 1
    open_ = (in_tail == 0) & (is_always == 0)[None, :]
    want_a = np.where(open_, fired.T.astype(np.int64) @ (Y & ~P), 0)
    want_b = np.where(open_, fired.T.astype(np.int64) @ (~Y & ~P), 0)
    F, R, Yr = sp.csc_array(fired), sp.csr_array(fired), sp.csr_array(Y)
    _, _, t_indptr, t_ids = _rules_to_csr([((), t) for t in tails])
    a, b = np.full((n_rules, n_labels), -7, dtype=np.int64), np.full((n_rules, n_labels), -7, dtype=np.int64)
    got_in_tail = np.full((n_rules, n_labels), 9, dtype=np.uint8)
    tp, predicted = np.full(n_labels, -7, dtype=np.int64), np.full(n_labels, -7, dtype=np.int64)
    _selection.tail_completion_counts(R.indptr.astype(np.int64), R.indices.astype(np.int32),
                                      Yr.indptr.astype(np.int64), Yr.indices.astype(np.int32), t_indptr, t_ids,
                                      is_always, tp, predicted, F.indptr.astype(np.int64), a, b, got_in_tail)
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(b, want_b)
    np.testing.assert_array_equal(got_in_tail, in_tail)
    np.testing.assert_array_equal(tp, (P & Y).sum(axis=0))
    np.testing.assert_array_equal(predicted, P.sum(axis=0))


@pytest.mark.parametrize("seed", range(4))
def test_label_counts_are_those_of_the_predicted_matrix(seed):
    rng = np.random.RandomState(seed)
    fired = rng.rand(30, 5) < 0.4
    Y = rng.rand(30, 7) < 0.3
    tails = [sorted(np.flatnonzero(rng.rand(7) < 0.3).tolist()) for _ in range(5)]
    P = np.zeros(Y.shape, dtype=bool)
    for j, tail in enumerate(tails):
        P[np.ix_(fired[:, j], tail)] = True
    tp, fp = corset.selection._completion.label_counts(sp.csc_array(fired), tails, sp.csr_array(Y))
    np.testing.assert_array_equal(tp, (P & Y).sum(axis=0))
    np.testing.assert_array_equal(fp, (P & ~Y).sum(axis=0))


def test_rounds_exactly_on_a_case_without_ties():
    # Rule 0 fires on records 0-5, rule 1 on 4-9; label 1 is carried by 0-4 and 8, label 2 by 6-9.
    fired = np.zeros((10, 2), dtype=bool)
    fired[:6, 0] = fired[4:, 1] = True
    Y = np.zeros((10, 3), dtype=bool)
    Y[:, 0] = True
    Y[[0, 1, 2, 3, 4, 8], 1] = True
    Y[6:, 2] = True
    rounds, want = brute_force_rounds(fired, [(0,), (0,)], Y)
    assert rounds == [(0, 1), (1, 2)]   # the larger rise first
    got, _ = complete_tails(fired, [(0,), (0,)], Y)
    assert got == ((0, 1), (0, 2)) == tuple(tuple(sorted(t)) for t in want)


def test_the_condition_is_precision_above_half_of_micro_f1():
    # One rule on 10 records predicting label 0 (all true): F = 2·10/(20 + 10 others) = 2/3 before.
    # Label 1 on its records: F/2 = 1/3, so 4 of 10 carriers is a rise and 3 of 10 is not.
    for carriers, added in ((4, True), (3, False)):
        Y = np.zeros((20, 2), dtype=bool)
        Y[:10, 0] = True
        Y[10:20, 1] = True
        Y[:carriers, 1] = True
        Y[10:10 + carriers, 1] = False   # the label's count stays 10
        fired = np.zeros((20, 1), dtype=bool)
        fired[:10] = True
        got, _ = complete_tails(fired, [(0,)], Y)
        assert (got == ((0, 1),)) is added


def test_accepts_sparse_input_and_gives_the_same():
    rng = np.random.RandomState(3)
    fired = rng.rand(40, 6) < 0.3
    Y = rng.rand(40, 5) < 0.4
    tails = [(0,), (1, 2), (), (4,), (3,), (0, 4)]
    assert (complete_tails(sp.csr_array(fired.astype(np.uint8)), tails, sp.csc_array(Y.astype(np.uint8)))
            == complete_tails(fired.astype(int), tails, Y.astype(int)))


@pytest.mark.parametrize("args, message", [
    ((np.ones((3, 1)), [(0,)], np.ones((4, 2))), "same number of records"),
    ((np.ones((3, 2)), [(0,)], np.ones((3, 2))), "one entry per rule"),
    ((np.ones((3, 1)), [(2,)], np.ones((3, 2))), r"tails\[0\] must hold label ids"),
    ((np.ones((3, 1)), [(-1,)], np.ones((3, 2))), r"tails\[0\] must hold label ids"),
    ((np.full((3, 1), 2), [(0,)], np.ones((3, 2))), "fired must be a binary"),
    ((np.ones((3, 1)), [(0,)], np.full((3, 2), 0.5)), "Y must be a binary"),
])
def test_bad_input_is_named(args, message):
    with pytest.raises(ValueError, match=message):
        complete_tails(*args)


def test_a_sparse_entry_stored_twice_is_its_sum_and_refused():
    """scipy reads an entry stored twice as the sum of its copies: a Y whose stored 1s add up to 2
    is no more binary than a dense 2."""
    Y = sp.csr_array((np.ones(3, dtype=np.int64), np.array([0, 1, 1]), np.array([0, 3, 3])), shape=(2, 2))
    assert Y.toarray()[0, 1] == 2
    with pytest.raises(ValueError, match="Y must be a binary"):
        complete_tails(np.ones((2, 1)), [(0,)], Y)


def test_bad_always_is_named():
    with pytest.raises(ValueError, match="always must hold label ids"):
        complete_tails(np.ones((3, 1)), [(0,)], np.ones((3, 2)), always=(5,))


def test_documented_example():
    assert doctest.testmod(corset.selection._completion).failed == 0


# -- the estimator -----------------------------------------------------------------------------

def _data(seed=0, n=600):
    data = make_rule_data(n_records=n, n_features=30, n_labels=12, noise=0.05, random_state=seed)
    return data.X, data.Y


def _train_f1(model, X, Y):
    from sklearn.metrics import f1_score

    return f1_score(Y, model.predict(X), average="micro")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_true_keeps_the_heads_and_grows_the_tails(seed):
    X, Y = _data(seed)
    params = dict(random_state=seed, validated_stop=False, prune_redundant=False, default_rule=False, n_rules=20)
    plain = CorsetClassifier(complete_tails=False, **params).fit(X, Y)
    completed = CorsetClassifier(complete_tails=True, **params).fit(X, Y)
    assert completed.complete_tails_ and not plain.complete_tails_
    assert [r.head for r in completed.rules_] == [r.head for r in plain.rules_]
    assert all(set(p.tail) <= set(c.tail) for p, c in zip(plain.rules_, completed.rules_))
    assert _train_f1(completed, X, Y) >= _train_f1(plain, X, Y)
    # The completed list is a local optimum of training micro-F1 (no single addition raises it).
    fired = completed._fired(completed._check_X(X)).toarray().astype(bool)
    tails = [r.tail for r in completed.rules_]
    assert complete_tails(fired, tails, Y)[0] == tuple(tails)
    # Each rule's statistics are of its completed tail.
    for rule in completed.rules_:
        assert len(rule.label_precision) == len(rule.tail) == len(rule.tail_names)


def test_the_default_rule_is_chosen_before_the_completion():
    X, Y = _data(4)
    params = dict(random_state=0, validated_stop=False, prune_redundant=False, n_rules=20)
    plain = CorsetClassifier(complete_tails=False, **params).fit(X, Y)
    completed = CorsetClassifier(complete_tails=True, **params).fit(X, Y)
    rules = [r for r in plain.rules_ if r.n_literals]
    fired = plain._fired(plain._check_X(X)).toarray().astype(bool)[:, :len(rules)]
    P = np.zeros(Y.shape, dtype=bool)
    for j, rule in enumerate(rules):
        P[np.ix_(fired[:, j], list(rule.tail))] = True
    first, _ = default_tail(Y, P)
    default = [r.tail for r in completed.rules_ if not r.n_literals]
    assert default == ([first] if first else [])
    want, _ = complete_tails(fired, [r.tail for r in rules], Y, always=first)
    assert tuple(r.tail for r in completed.rules_ if r.n_literals) == want


def test_auto_is_decided_on_the_folds_and_does_not_depend_on_n_jobs():
    X, Y = _data(5, n=900)
    one = CorsetClassifier(random_state=0, n_jobs=1).fit(X, Y)
    two = CorsetClassifier(random_state=0, n_jobs=2).fit(X, Y)
    assert set(one.complete_tails_scores_) == {False, True}
    assert one.complete_tails_ == two.complete_tails_
    assert one.complete_tails_scores_ == two.complete_tails_scores_
    assert [(r.head, r.tail) for r in one.rules_] == [(r.head, r.tail) for r in two.rules_]
    never = CorsetClassifier(random_state=0, validated_stop=False).fit(X, Y)
    assert never.complete_tails_ is False and never.complete_tails_scores_ is None


def test_the_folds_score_what_their_curves_score_without_completion(monkeypatch):
    """The held-out counts the choice compares, without completion, are the validated stop's
    curves at the validated cut (the same rules, default rule and records)."""
    import corset.model._classifier as C

    seen = []
    original = C._validated_completion
    monkeypatch.setattr(C, "_validated_completion", lambda curves, index, k: seen.append((curves, index, k))
                        or original(curves, index, k))
    X, Y = _data(6, n=900)
    CorsetClassifier(random_state=1).fit(X, Y)
    curves, index, k = seen[-1]
    for fold in curves:
        tp, fp, fn = fold[index]
        at = -1 if k is None else min(k, len(tp) - 1)
        got = fold.rules.counts(fold.rules.thresholds[index], k, False)
        assert [int(c[0]) for c in got] == [int(tp[at]), int(fp[at]), int(fn[at])]


def test_the_paper_preset_does_not_complete():
    assert CorsetClassifier.paper().complete_tails is False
    X, Y = _data(7)
    model = CorsetClassifier.paper(random_state=0, n_rules=10).fit(X, Y)
    assert model.complete_tails_ is False and model.complete_tails_scores_ is None


def test_bad_value_is_named():
    X, Y = _data(0, n=60)
    with pytest.raises(ValueError, match="complete_tails"):
        CorsetClassifier(complete_tails="yes").fit(X, Y)
