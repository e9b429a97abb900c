"""Weighted record sampling kernels and the exact log-weight tables.

Chi-square tests are Bonferroni-corrected over this module (overall 1e-3).
"""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corset import BinaryData
from corset._ext import _weighted
from corset.sampling import HeadSampler
from corset.sampling._enumerate import goodness_of_fit
from corset.sampling._weights import head_counts, log_factorials, log_head_counts, scale_log_weights

SAMPLERS = ["cumulative", "alias", "sumtree"]
N_CHI2 = 8 * len(SAMPLERS) + 8
ALPHA = 1e-3 / N_CHI2


def draw(kind, weights, n, seed):
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if kind == "cumulative":
        cum, last = _weighted.cumulative(weights)
        return _weighted.draw_cumulative(cum, last, n, seed)
    if kind == "alias":
        prob, alias = _weighted.alias_table(weights)
        return _weighted.draw_alias(prob, alias, n, seed)
    return _weighted.draw_sumtree(_weighted.sumtree(weights), n, seed)


def random_weights(seed, n=40):
    rng = np.random.RandomState(seed)
    w = rng.exponential(size=n) ** 3
    w[rng.rand(n) < 0.3] = 0.0
    w[0] = 0.0
    w[-1] = 1.0
    return w


@pytest.mark.parametrize("kind", SAMPLERS)
def test_draws_follow_the_weights(global_random_seed, kind):
    w = random_weights(global_random_seed)
    idx = draw(kind, w, 50_000, global_random_seed)
    p = goodness_of_fit(idx.tolist(), dict(enumerate(w.tolist())))
    assert p > ALPHA


@pytest.mark.parametrize("kind", SAMPLERS)
def test_zero_weight_never_drawn_even_beside_huge_weights(kind):
    w = np.array([0.0, 1e300, 0.0, 1e-300, 0.0, 5e-324, 0.0])
    idx = draw(kind, w, 200_000, 1)
    assert set(np.unique(idx).tolist()) <= {1, 3, 5}
    assert np.all(idx != 0) and np.all(idx != 6)


def test_sumtree_is_a_function_of_the_current_weights(global_random_seed):
    """Updates recompute nodes from children: no residue of past weights (no deltas)."""
    rng = np.random.RandomState(global_random_seed)
    w = rng.exponential(size=37) * 10.0 ** rng.randint(-20, 20, size=37)
    tree = _weighted.sumtree(w)
    for _ in range(200):
        i = rng.randint(37)
        w[i] = 0.0 if rng.rand() < 0.3 else rng.exponential() * 10.0 ** rng.randint(-20, 20)
        _weighted.sumtree_update(tree, np.array([i], dtype=np.int32), np.array([w[i]]))
    np.testing.assert_array_equal(tree, _weighted.sumtree(w))


def test_sumtree_after_removing_a_heavy_record():
    """A 1e20 weight set back to 0 leaves the small ones their exact shares."""
    w = np.array([1e20, 1.0, 2.0, 0.0, 3.0])
    tree = _weighted.sumtree(w)
    _weighted.sumtree_update(tree, np.array([0], dtype=np.int32), np.array([0.0]))
    idx = _weighted.draw_sumtree(tree, 60_000, 5)
    assert goodness_of_fit(idx.tolist(), {0: 0.0, 1: 1.0, 2: 2.0, 3: 0.0, 4: 3.0}) > ALPHA


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.0, 0.25, 1.0, 3.0]), min_size=1, max_size=40), st.data())
def test_cumulative_search_is_the_first_sum_above_x(weights, data):
    # The draw's search, at its edges: x equal to a partial sum (a zero weight repeats it),
    # x = 0, and x at or past the total (rounding: the last record of positive weight).
    weights = np.array(weights)
    if weights.sum() == 0:
        weights[-1] = 1.0
    cum, last = _weighted.cumulative(weights)
    edges = [0.0, cum[-1], cum[-1] * 2] + [float(c) for c in cum] + [float(np.nextafter(c, -1)) for c in cum]
    xs = np.array(edges + data.draw(st.lists(st.floats(0, float(cum[-1])), max_size=10)), dtype=np.float64)
    want = np.searchsorted(cum, xs, side="right")
    want[want >= cum.size] = last
    assert _weighted.search_cumulative(cum, last, xs).tolist() == want.tolist()
    assert all(weights[i] > 0 for i in _weighted.search_cumulative(cum, last, xs[xs >= 0]))


def test_cumulative_sums_are_compensated():
    """1 + 1e-16 repeated: a naive running sum never moves, the stored sums do."""
    w = np.array([1.0] + [1e-16] * 10_000)
    cum, last = _weighted.cumulative(w)
    assert last == w.size - 1
    exact = Fraction(1) + 10_000 * Fraction(1e-16)
    assert abs(Fraction(cum[-1]) - exact) <= Fraction(cum[-1]) * Fraction(2) ** -52
    assert np.all(np.diff(cum) >= 0)


@given(st.lists(st.floats(0, 1e6, allow_nan=False, allow_infinity=False), min_size=1, max_size=60))
@settings(max_examples=200, deadline=None)
def test_alias_table_reproduces_the_weights(weights):
    w = np.array(weights)
    if w.sum() == 0:
        with pytest.raises(ValueError):
            _weighted.alias_table(w)
        return
    prob, alias = _weighted.alias_table(w)
    n = w.size
    mass = prob / n
    np.add.at(mass, alias, (1 - prob) / n)
    np.testing.assert_allclose(mass, w / w.sum(), rtol=1e-9, atol=1e-12)
    assert np.all(mass[w == 0] == 0)


def test_scale_log_weights():
    w, shift = scale_log_weights([0.0, -700.0, -800.0, -np.inf, 2000.0])
    assert shift == 2000.0 and w[-1] == 1.0
    assert np.all(np.isfinite(w)) and w[3] == 0.0
    w, shift = scale_log_weights([-np.inf, -np.inf])
    assert shift == -np.inf and np.all(w == 0)
    for bad in ([np.nan], [np.inf]):
        with pytest.raises(ValueError, match="log-weights"):
            scale_log_weights(bad)


@given(st.integers(0, 40), st.integers(1, 6), st.one_of(st.none(), st.integers(1, 12)))
@settings(max_examples=200, deadline=None)
def test_head_counts_match_binomial_sums(n_max, m, M):
    if M is not None and M < m:
        M = m
    W = head_counts(n_max, m, M)
    for n in range(n_max + 1):
        top = n if M is None else min(M, n)
        assert W[n] == sum(math.comb(n, j) for j in range(m, top + 1))


def test_log_tables_finite_for_wide_records():
    for m, M in [(1, None), (2, None), (3, 10)]:
        lw = log_head_counts(2500, m, M)
        assert np.all(np.isfinite(lw[m:])) and np.all(lw[:m] == -np.inf)
        assert abs(lw[2000] - math.log(sum(math.comb(2000, j) for j in range(m, (M or 2000) + 1)))) < 1e-9
    assert np.all(np.isfinite(log_factorials(3000)))


def test_acceptance_ratio_precision_against_exact_integers(global_random_seed):
    """log(w / w̄) of the kernel vs the exact ratio from integers, on records up to 300 features."""
    rng = np.random.RandomState(global_random_seed)
    n_features = 300
    X = np.zeros((12, n_features), dtype=bool)
    for r in range(12):
        X[r, rng.choice(n_features, rng.randint(1, n_features), replace=False)] = True
    Y = np.zeros((12, 1), dtype=bool)
    Y[:6] = True
    data = BinaryData(X, Y)
    for m, M in [(1, None), (2, None), (2, 5), (4, 4)]:
        sampler = HeadSampler(data, min_head_length=m, max_head_length=M).pair_sampler((0,))
        W = head_counts(n_features, m, M)
        for i in range(6):
            for j in range(6):
                a = int(X[i].sum())
                k = int((X[i] & X[6 + j]).sum())
                exact = Fraction(W[a] - W[k], W[a])
                got = sampler.log_acceptance(i, j)
                if exact == 0:
                    assert got == -np.inf
                else:
                    assert abs(math.exp(got) / float(exact) - 1) < 1e-11
