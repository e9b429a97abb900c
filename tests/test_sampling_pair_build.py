"""The bitset acceptance test of HeadSampler's pair stage: it must count
k = |F_{D+} ∩ F_{D-}| exactly as the merge of the sorted feature lists does."""
import itertools

import numpy as np
import pytest

from corset import BinaryData
from corset._ext import _heads
from corset.sampling import HeadSampler
from corset.sampling import _heads as heads_module


def _data(seed, n_records=40, n_features=150, n_labels=5):
    """Random data with skewed record widths, some records with no feature, features over 3 words."""
    rng = np.random.RandomState(seed)
    width = rng.choice([0.0, 0.01, 0.03, 0.1, 0.3], size=(n_records, 1))
    X = rng.rand(n_records, n_features) < width
    Y = rng.rand(n_records, n_labels) < rng.uniform(0.1, 0.6, size=(1, n_labels))
    Y[rng.randint(n_records), 0] = True  # label 0: at least one positive
    return BinaryData(X, Y)


def _all_tails(data):
    labels = range(data.n_labels)
    return [(l,) for l in labels] + list(itertools.combinations(labels, 2)) + [tuple(labels)]


# -- bitset acceptance ----------------------------------------------------------
def _without_bitsets(monkeypatch, data, **options):
    with monkeypatch.context() as patch:
        patch.setattr(heads_module, "_BITSET_BYTES", 0)
        return HeadSampler(data, **options)


@pytest.mark.parametrize("proposal", ["paper", "boley"])
@pytest.mark.parametrize("seed", range(4))
def test_bitset_and_merge_give_the_same_k(monkeypatch, seed, proposal):
    data = _data(seed)
    bits = HeadSampler(data, proposal=proposal, max_head_length=4)
    merge = _without_bitsets(monkeypatch, data, proposal=proposal, max_head_length=4)
    features = data.record_features
    for tail in _all_tails(data)[:6]:
        try:
            a, b = bits.pair_sampler(tail), merge.pair_sampler(tail)
        except (ValueError, RuntimeError):
            continue
        assert a.arrays[9] is not None and b.arrays[9] is None
        pos, neg = np.asarray(a.arrays[0]), np.asarray(a.arrays[3])
        for i, j in itertools.product(range(pos.size), range(neg.size)):
            got = a.log_acceptance(i, j)
            assert got == b.log_acceptance(i, j)
            # And the ratio is the one of k = |F_{D+} ∩ F_{D-}|: -inf exactly when F_{D+} ⊆ F_{D-}.
            inside = np.isin(features[pos[i]], features[neg[j]]).all()
            assert (got == -np.inf) == bool(inside)


@pytest.mark.parametrize("method", ["cftp", "rejection"])
def test_bitset_and_merge_give_the_same_pairs(monkeypatch, method):
    data = _data(11, n_records=60)
    bits = HeadSampler(data, method=method, max_head_length=3)
    merge = _without_bitsets(monkeypatch, data, method=method, max_head_length=3)
    tails = [t for t in _all_tails(data) if data.tail_support(t).size]
    got, got_errors = bits.sample_pairs_many(tails, [50] * len(tails), 3)
    want, want_errors = merge.sample_pairs_many(tails, [50] * len(tails), 3)
    assert [repr(e) for e in got_errors] == [repr(e) for e in want_errors]
    assert sum(g is not None for g in got) >= 3
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert np.array_equal(g[0], w[0]) and np.array_equal(g[1], w[1])
    assert bits.sample((0,), 40, 1) == merge.sample((0,), 40, 1)


def test_feature_bitsets():
    data = _data(2)
    n_words = 3
    bits = _heads.feature_bitsets(data.record_features.indptr, data.record_features.ids, n_words)
    bits = bits.reshape(data.n_records, n_words)
    for r in range(data.n_records):
        members = [f for f in range(n_words * 64) if (int(bits[r, f >> 6]) >> (f & 63)) & 1]
        assert members == data.record_features[r].tolist()
