"""The default rule's tail (corset.selection.default_tail) against a brute-force greedy."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score

from corset.selection import default_tail


def micro_f1(Y, P):
    """Micro-F1 over all (record, label) cells; scikit-learn's for 2+ labels (a single column
    is read as a binary target there, so micro-averaging would count the negative class too)."""
    if Y.shape[1] >= 2:
        return f1_score(Y, P, average="micro", zero_division=0)
    tp, fp, fn = int((Y & P).sum()), int((~Y & P).sum()), int((Y & ~P).sum())
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0


def brute_force_greedy(Y, P):
    """Add, one at a time, the label whose all-ones column gives the best micro-F1."""
    P = P.copy()
    chosen = []
    current = micro_f1(Y, P)
    while len(chosen) < Y.shape[1]:
        scores = []
        for k in range(Y.shape[1]):
            if k in chosen:
                scores.append(-np.inf)
                continue
            Q = P.copy()
            Q[:, k] = 1
            scores.append(micro_f1(Y, Q))
        k = int(np.argmax(scores))  # first maximum: the smaller label id
        if not scores[k] > current + 1e-12:
            break
        chosen.append(k)
        P[:, k] = 1
        current = scores[k]
    return tuple(sorted(chosen)), current


@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 30), k=st.integers(1, 7),
       density=st.floats(0.05, 0.95))
@settings(max_examples=300, deadline=None)
def test_matches_brute_force_greedy(seed, n, k, density):
    rng = np.random.RandomState(seed)
    Y = rng.rand(n, k) < density
    P = rng.rand(n, k) < rng.uniform(0, 0.6)
    tail, f1 = default_tail(Y, P)
    want, want_f1 = brute_force_greedy(Y, P)
    assert f1 == pytest.approx(want_f1, abs=1e-12)
    # Exact float ties between labels can only differ in which is taken first.
    if tail != want:
        Q = P.copy()
        Q[:, list(tail)] = 1
        assert micro_f1(Y, Q) == pytest.approx(want_f1, abs=1e-12)


def test_examples_and_edge_cases():
    Y = np.array([[1, 1, 0], [1, 0, 0], [1, 0, 1], [0, 0, 0]])
    assert default_tail(Y, np.zeros_like(Y)) == ((0,), pytest.approx(2 / 3))
    # Everything already predicted right: nothing to add.
    assert default_tail(Y, Y)[0] == ()
    # No label at all: micro-F1 stays 0, nothing is added.
    Z = np.zeros((3, 2), dtype=int)
    assert default_tail(Z, Z) == ((), 0.0)
    with pytest.raises(ValueError, match="predicted must have shape"):
        default_tail(Y, np.zeros((4, 2)))


def numpy_rounds(count, tp, fp, n):
    """The greedy rounds as numpy passes over the labels (the compiled kernel's reference)."""
    count = np.asarray(count, dtype=np.int64)
    tp, fp = np.array(tp, dtype=np.int64), np.array(fp, dtype=np.int64)
    fn = count - tp
    TP, FP, FN = int(tp.sum()), int(fp.sum()), int(fn.sum())

    def f1(tp_, fp_, fn_):
        denominator = 2 * tp_ + fp_ + fn_
        return np.where(denominator > 0, 2 * tp_ / np.maximum(denominator, 1), 0.0)

    current = float(f1(TP, FP, FN))
    chosen = np.zeros(count.size, dtype=bool)
    while not chosen.all():
        d_tp, d_fp, d_fn = count - tp, (n - count) - fp, -fn
        score = f1(TP + d_tp, FP + d_fp, FN + d_fn)
        score[chosen] = -np.inf
        k = int(np.argmax(score))
        if not score[k] > current:
            break
        chosen[k] = True
        TP, FP, FN = TP + int(d_tp[k]), FP + int(d_fp[k]), FN + int(d_fn[k])
        tp[k], fp[k], fn[k] = count[k], n - count[k], 0
        current = float(score[k])
    return tuple(int(k) for k in np.flatnonzero(chosen)), current


@pytest.mark.parametrize("Y, predicted, message", [
    (np.full((2, 2), 0.5), np.zeros((2, 2)), "Y must be a binary"),
    (np.ones((2, 2)), np.full((2, 2), 2), "predicted must be a binary"),
    (sp.csr_array((np.ones(2), np.array([1, 1]), np.array([0, 2, 2])), shape=(2, 2)), np.zeros((2, 2)),
     "Y must be a binary"),   # one entry stored twice: 2
    (np.ones(3), np.ones(3), "Y must be 2-D"),
])
def test_values_other_than_0_and_1_are_refused_by_name(Y, predicted, message):
    with pytest.raises(ValueError, match=message):
        default_tail(Y, predicted)


@pytest.mark.parametrize("seed", range(300))
def test_compiled_rounds_equal_the_numpy_rounds(seed):
    """Same tail and the same float, ties included (small counts make equal scores common)."""
    from corset.selection._default import default_tail_from_counts

    rng = np.random.RandomState(seed)
    n = int(rng.randint(1, 40))
    n_labels = int(rng.randint(1, 60))
    count = rng.randint(0, n + 1, size=n_labels)
    tp = (count * rng.uniform(0, 1, n_labels) ** 2).astype(np.int64)
    fp = ((n - count) * rng.uniform(0, 0.5, n_labels) ** 2).astype(np.int64)
    if seed % 3 == 0:   # repeated labels: exact ties between ids
        count, tp, fp = (np.tile(a[:5], 4) for a in (count, tp, fp))
    before = (count.copy(), tp.copy(), fp.copy())
    got = default_tail_from_counts(count, tp, fp, n)
    assert got == numpy_rounds(count, tp, fp, n)
    for a, b in zip(before, (count, tp, fp)):
        np.testing.assert_array_equal(a, b)   # the caller's arrays are not modified


@pytest.mark.parametrize("seed", range(12))
def test_many_rounds_over_a_large_label_space_equal_the_numpy_rounds(seed):
    """Hundreds of labels, each on a few percent of the records, and a rule list that predicts
    little: the default tail takes many of them, round after round, as the first prefixes of the
    internal validation do on a large label space.  The compiled rounds leave a label out of
    later scans once its score falls below the current micro-F1; they must take the same labels
    in the same order, with the same floats, as the numpy rounds that scan every label."""
    from corset.selection._default import default_tail_from_counts

    rng = np.random.RandomState(seed)
    n, n_labels = int(rng.randint(100, 400)), int(rng.randint(200, 500))
    count = np.maximum(1, (n * rng.uniform(0.002, 0.12, n_labels))).astype(np.int64)
    tp = (count * rng.uniform(0, 0.3, n_labels) * (rng.rand(n_labels) < 0.2)).astype(np.int64)
    fp = ((n - count) * rng.uniform(0, 0.02, n_labels)).astype(np.int64)
    if seed % 3 == 0:   # repeated labels: exact ties between ids, among many rounds
        count, tp, fp = (np.tile(a[:40], n_labels // 40) for a in (count, tp, fp))
    tail, score = default_tail_from_counts(count, tp, fp, n)
    assert (tail, score) == numpy_rounds(count, tp, fp, n)
    assert len(tail) >= 10   # many rounds: the case the live labels are for


def test_rounds_past_exact_doubles_scan_every_label():
    """With more (record, label) cells than 2**50 the rounds scan every label (their fallback),
    and give the numpy rounds' labels and float."""
    from corset.selection._default import default_tail_from_counts

    rng = np.random.RandomState(0)
    n_labels = 50
    n = 2 ** 50 // n_labels + 1
    count = rng.randint(1, 10 ** 6, n_labels).astype(np.int64)
    tp = (count * rng.uniform(0, 0.5, n_labels)).astype(np.int64)
    fp = rng.randint(0, 10 ** 6, n_labels).astype(np.int64)
    assert default_tail_from_counts(count, tp, fp, n) == numpy_rounds(count, tp, fp, n)


@pytest.mark.parametrize("seed", range(20))
def test_rows_of_rounds_equal_the_rounds_row_by_row(seed):
    """``default_tail_rows`` (every prefix of a rule list in one call) gives each row the tail and
    the float of the numpy rounds on that row alone, ties included; rows may share no state."""
    from corset._ext import _selection

    rng = np.random.RandomState(seed)
    n = int(rng.randint(1, 40))
    n_labels = int(rng.randint(1, 60))
    n_rows = int(rng.randint(1, 12))
    count = rng.randint(0, n + 1, size=n_labels).astype(np.int64)
    if seed % 3 == 0:   # repeated labels: exact ties between ids
        count = np.tile(count[:5], 4)
        n_labels = count.size
    tp = (count * rng.uniform(0, 1, (n_rows, n_labels)) ** 2).astype(np.int64)
    fp = ((n - count) * rng.uniform(0, 0.5, (n_rows, n_labels)) ** 2).astype(np.int64)
    chosen = np.zeros((n_rows, n_labels), dtype=np.uint8)
    expected = [numpy_rounds(count, tp[i], fp[i], n) for i in range(n_rows)]
    scores = _selection.default_tail_rows(count, tp.copy(), fp.copy(), n, chosen)
    assert [tuple(np.flatnonzero(row).tolist()) for row in chosen] == [tail for tail, _ in expected]
    assert scores.tolist() == [score for _, score in expected]
    with pytest.raises(ValueError, match="same rows"):
        _selection.default_tail_rows(count, tp, fp[:0], n, chosen)


@pytest.mark.parametrize("seed", range(30))
def test_held_out_micro_f1_is_the_python_count_with_the_default_rule(seed):
    # The compiled score of the internal validation's held-out stop against the computation it
    # replaced: default_tail_from_counts on the fit counts, then the held-out (TP, FP, FN) with the
    # default rule's labels predicted for every held-out record; the same double.
    from corset._ext._selection import held_out_micro_f1
    from corset.selection._default import default_tail_from_counts

    rng = np.random.default_rng(seed)
    n_labels = int(rng.integers(0, 8))
    fit_n, held_n = int(rng.integers(1, 60)), int(rng.integers(0, 40))

    def counts(n):
        count = rng.integers(0, n + 1, n_labels)
        tp = np.minimum(count, rng.integers(0, n + 1, n_labels))
        predicted = tp + rng.integers(0, n - count + 1)   # false positives among the records without k
        return count.astype(np.int64), tp.astype(np.int64), predicted.astype(np.int64)

    (fc, ft, fp), (hc, ht, hp) = counts(fit_n), counts(held_n)
    for with_default in (False, True):
        default = default_tail_from_counts(fc, ft, fp - ft, fit_n)[0] if with_default else ()
        TP, FP = int(ht.sum()), int((hp - ht).sum())
        for k in default:
            TP += int(hc[k] - ht[k])
            FP += int((held_n - hc[k]) - (hp[k] - ht[k]))
        FN = int(hc.sum()) - TP
        want = 2.0 * TP / (2 * TP + FP + FN) if 2 * TP + FP + FN > 0 else 0.0
        assert held_out_micro_f1(fc, ft, fp, fit_n, hc, ht, hp, held_n, with_default) == want
    with pytest.raises(ValueError, match="one entry per label"):
        held_out_micro_f1(fc, ft, fp, fit_n, hc[:0], ht, hp, held_n, True) if n_labels else \
            held_out_micro_f1(fc, ft, fp, fit_n, np.zeros(1, dtype=np.int64), ht, hp, held_n, True)
