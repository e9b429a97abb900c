"""make_rule_data: the paper's generator -- planted rules hold, the noise share, seeding, uniformity, errors."""
import math

import numpy as np
import pytest
from scipy.stats import chisquare

from corset import BinaryData
from corset.datasets import make_rule_data

# Bonferroni over the chi-square tests of this module: overall alpha 1e-3.
N_CHI2_TESTS = 3
ALPHA = 1e-3 / N_CHI2_TESTS


@pytest.mark.parametrize("support", ["uniform", "skewed"])
def test_planted_rules_hold_on_noiseless_data(global_random_seed, support):
    data = make_rule_data(n_records=400, n_features=40, n_labels=30, support=support, noise=0.0,
                          random_state=global_random_seed)
    bd = BinaryData(data.X, data.Y)
    assert len(data.rules) == 10  # floor(min(40, 30) / 3)
    for (head, tail), records in zip(data.rules, data.supports):
        assert len(head) == len(tail) == 3
        assert list(head) == sorted(head) and list(tail) == sorted(tail)
        # Heads and tails fit as disjoint blocks, so a record holds a head
        # exactly on the rule's support (precision and recall 1) ...
        np.testing.assert_array_equal(bd.head_support(np.array(head)), records)
        # ... and every record there carries the tail.
        np.testing.assert_array_equal(bd.rule_support(np.array(head), np.array(tail)), records)
    heads = [f for h, _ in data.rules for f in h]
    tails = [k for _, t in data.rules for k in t]
    assert len(set(heads)) == len(heads) and len(set(tails)) == len(tails)
    # Nothing but the planted entries.
    planted_x = {(int(i), f) for (h, _), s in zip(data.rules, data.supports) for i in s for f in h}
    assert set(zip(*map(lambda a: a.tolist(), data.X.nonzero()))) == planted_x


def test_overlapping_rules_when_items_do_not_fit(global_random_seed):
    # 12 rules x 4 items > 30 features: heads share features (documented).
    data = make_rule_data(n_records=300, n_features=30, n_labels=20, n_rules=12, rule_length=4, noise=0.0,
                          random_state=global_random_seed)
    bd = BinaryData(data.X, data.Y)
    heads = [h for h, _ in data.rules]
    assert len(set(heads)) == len(heads)  # distinct heads
    for (head, tail), records in zip(data.rules, data.supports):
        assert len(head) == len(tail) == 4
        # Every record of the support matches the rule (it may match elsewhere too).
        assert np.isin(records, bd.rule_support(np.array(head), np.array(tail))).all()


def test_noise_flips_the_exact_share(global_random_seed):
    noise = 0.05
    clean = make_rule_data(n_records=500, n_features=60, n_labels=45, noise=0.0, random_state=global_random_seed)
    noisy = make_rule_data(n_records=500, n_features=60, n_labels=45, noise=noise, random_state=global_random_seed)
    assert clean.rules == noisy.rules  # the noise is drawn last
    for a, b, n_cols in ((clean.X, noisy.X, 60), (clean.Y, noisy.Y, 45)):
        n_entries = 500 * n_cols
        flipped = a != b
        assert flipped.nnz == round(noise * n_entries)
        # Flips hit ones and zeros in proportion: 1 -> 0 flips are
        # hypergeometric with mean n_flips * density; allow 6 sigma.
        ones_lost = (a.multiply(flipped)).nnz
        density = a.nnz / n_entries
        n_flips = flipped.nnz
        sd = math.sqrt(n_flips * density * (1 - density))
        assert abs(ones_lost - n_flips * density) < 6 * sd + 1


def test_same_seed_same_data_and_no_global_state():
    state = np.random.get_state()[1].copy()
    a = make_rule_data(n_records=200, n_features=30, n_labels=30, random_state=7)
    b = make_rule_data(n_records=200, n_features=30, n_labels=30, random_state=np.random.RandomState(7))
    c = make_rule_data(n_records=200, n_features=30, n_labels=30, random_state=8)
    np.testing.assert_array_equal(np.random.get_state()[1], state)
    assert (a.X != b.X).nnz == 0 and (a.Y != b.Y).nnz == 0 and a.rules == b.rules
    assert all(np.array_equal(s, t) for s, t in zip(a.supports, b.supports))
    assert a.rules != c.rules or (a.X != c.X).nnz > 0


def test_output_types_and_names():
    data = make_rule_data(n_records=50, n_features=12, n_labels=9, random_state=0)
    for M, n_cols in ((data.X, 12), (data.Y, 9)):
        assert M.format == "csr" and M.dtype == np.uint8 and M.shape == (50, n_cols)
        assert M.has_sorted_indices and set(np.unique(M.data)) <= {1}
    assert data.feature_names[:2] == ["f0", "f1"] and len(data.feature_names) == 12
    assert data.label_names[-1] == "l8"
    assert all(isinstance(f, int) for h, t in data.rules for f in h + t)
    assert all(s.dtype == np.int32 and np.all(np.diff(s) > 0) for s in data.supports)


def test_skewed_support_sizes_follow_the_power_law():
    n_records, n_rules = 2000, 12
    data = make_rule_data(n_records=n_records, n_features=40, n_labels=40, n_rules=n_rules, support="skewed",
                          random_state=3)
    sizes = sorted((len(s) for s in data.supports), reverse=True)
    harmonic = sum(1 / k for k in range(1, n_rules + 1))
    assert sizes == [max(1, math.floor(n_records / k / harmonic + 0.5)) for k in range(1, n_rules + 1)]


def test_uniform_support_sizes_in_range(global_random_seed):
    n_records, n_rules = 1000, 10
    data = make_rule_data(n_records=n_records, n_features=30, n_labels=30, random_state=global_random_seed)
    sizes = np.array([len(s) for s in data.supports])
    assert np.all(sizes >= math.floor(0.5 / n_rules * n_records)) and np.all(sizes <= math.ceil(1.5 / n_rules * n_records))


def test_mediamill_size():
    data = make_rule_data(n_records=43_907, n_features=120, n_labels=101, random_state=0)
    assert data.X.shape == (43_907, 120) and data.Y.shape == (43_907, 101)
    assert len(data.rules) == 33


# --- uniformity (chi-square, exhaustive targets) ---------------------------------

def test_flip_positions_are_uniform():
    # 4 records x 3 features: every entry is flipped with the same
    # probability, so flip counts over seeds are uniform over the 12 entries.
    counts = np.zeros(12)
    n_seeds = 1500
    for seed in range(n_seeds):
        data = make_rule_data(n_records=4, n_features=3, n_labels=3, n_rules=1, rule_length=1, noise=0.25,
                              random_state=seed)
        clean = np.zeros((4, 3), dtype=np.uint8)  # the planted entries, from the ground truth
        clean[np.ix_(data.supports[0], data.rules[0][0])] = 1
        r, c = np.nonzero(clean != data.X.toarray())
        np.add.at(counts, r * 3 + c, 1)
    assert counts.sum() == 3 * n_seeds
    assert chisquare(counts).pvalue > ALPHA


def test_support_records_are_uniform():
    # A rule's support of size k is a uniformly random k-subset: each record is
    # in it equally often.
    counts = np.zeros(7)
    for seed in range(1500):
        data = make_rule_data(n_records=7, n_features=3, n_labels=3, n_rules=1, rule_length=1, noise=0.0,
                              random_state=seed)
        counts[data.supports[0]] += 1
    assert chisquare(counts).pvalue > ALPHA


def test_small_share_sampler_is_uniform_over_subsets():
    # The fast path (share below 1/4) draws the first distinct values of a
    # uniform stream: all C(9, 2) = 36 subsets equally likely.
    from itertools import combinations

    from corset.datasets._synthetic import _sample_ids

    index = {pair: i for i, pair in enumerate(combinations(range(9), 2))}
    counts = np.zeros(len(index))
    rng = np.random.RandomState(0)
    for _ in range(7200):
        counts[index[tuple(sorted(_sample_ids(rng, 9, 2).tolist()))]] += 1
    assert chisquare(counts).pvalue > ALPHA


# --- parameter errors ------------------------------------------------------------

@pytest.mark.parametrize("kwargs,error,match", [
    ({"n_records": 0}, ValueError, "n_records"),
    ({"n_records": 10.0}, TypeError, "n_records"),
    ({"n_features": -1}, ValueError, "n_features"),
    ({"n_labels": "5"}, TypeError, "n_labels"),
    ({"n_rules": 0}, ValueError, "n_rules"),
    ({"n_features": 2, "n_labels": 10}, ValueError, r"n_rules defaults to floor\(min\(n_features, n_labels\) / 3\)"),
    ({"rule_length": 0}, ValueError, "rule_length"),
    ({"n_labels": 5, "n_rules": 1, "rule_length": 6}, ValueError, r"rule_length must be at most .* = 5"),
    ({"n_features": 4, "n_rules": 7, "rule_length": 2}, ValueError, "distinct heads"),
    ({"support": "zipf"}, ValueError, "support must be one of 'uniform', 'skewed'"),
    ({"noise": -0.1}, ValueError, "noise"),
    ({"noise": 1.5}, ValueError, "noise"),
    ({"noise": float("nan")}, ValueError, "noise"),
    ({"noise": "0.1"}, ValueError, "noise"),
    ({"random_state": "seed"}, ValueError, "seed"),
])
def test_parameter_errors(kwargs, error, match):
    params = {"n_records": 20, "n_features": 10, "n_labels": 10}
    params.update(kwargs)
    with pytest.raises(error, match=match):
        make_rule_data(**params)


@pytest.mark.parametrize("size", [0, 1, 2, 50, 5000])
def test_sorted_unique_is_numpy_unique(size):
    from corset.datasets._synthetic import _sorted_unique

    rng = np.random.default_rng(size)
    ids = rng.integers(0, max(1, size // 3), size=size, dtype=np.int64)
    out = _sorted_unique(ids)
    np.testing.assert_array_equal(out, np.unique(ids))
    assert out.dtype == np.int64
