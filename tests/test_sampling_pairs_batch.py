"""HeadSampler.sample_pairs_many: the pairs of sample_pairs, tail by tail, in one call."""
import numpy as np
import pytest

from corset import BinaryData
from corset.sampling import HeadSampler, NoNegativeRecordsError, ProposalLimitError


def _data(seed):
    rng = np.random.RandomState(seed)
    X = rng.rand(40, 9) < rng.uniform(0.2, 0.7, size=(40, 1))
    Y = rng.rand(40, 4) < 0.4
    Y[:, 3] = True  # a label carried by every record: no negative record
    return BinaryData(X, Y)


@pytest.mark.parametrize("method", ["cftp", "rejection"])
def test_same_pairs_as_one_tail_at_a_time(global_random_seed, method):
    data = _data(global_random_seed)
    tails = [t for t in [(0,), (1,), (3,), (0, 1), (2,)] if data.tail_support(t).size]
    counts = [5, 0, 3, 7, 4][:len(tails)]
    sampler = HeadSampler(data, method=method, max_head_length=3)
    pairs, errors = sampler.sample_pairs_many(tails, counts, global_random_seed)
    rng = np.random.RandomState(global_random_seed)
    for tail, n, got, error in zip(tails, counts, pairs, errors):
        if tail == (3,):
            assert isinstance(error, NoNegativeRecordsError) and got is None
            continue
        assert error is None
        want = sampler.sample_pairs(tail, n, rng)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_proposal_limit_is_reported_per_tail():
    rng = np.random.RandomState(0)
    X = rng.rand(60, 30) < 0.5
    Y = rng.rand(60, 2) < 0.5
    data = BinaryData(X, Y)
    sampler = HeadSampler(data, method="rejection", max_proposals=1)
    pairs, errors = sampler.sample_pairs_many([(0,), (1,)], [200, 200], 0)
    assert any(isinstance(e, ProposalLimitError) for e in errors)
    assert all((p is None) == (e is not None) for p, e in zip(pairs, errors))


def test_log_gap_table_holds_the_acceptance_terms_bit_for_bit():
    """Every entry is log1p(-exp(log W_k - log W_a)) as the C library computes it (Python's
    math module calls the same functions), for the listed sizes a only."""
    import math

    from corset._ext import _heads
    from corset.sampling._weights import log_head_counts

    for m, M in [(1, 3), (2, 5), (1, None), (3, 3)]:
        log_w = log_head_counts(60, m, M)
        sizes = np.array([0, 1, 2, 5, 17, 17, 40, 60], dtype=np.int64)
        table, offset = _heads.log_gap_table(log_w, sizes)
        assert offset.shape == log_w.shape
        for a in range(log_w.shape[0]):
            listed = a in sizes.tolist() and a > 0 and np.isfinite(log_w[a])
            assert (offset[a] >= 0) == listed
            if listed:
                for k in range(a):
                    expected = math.log1p(-math.exp(log_w[k] - log_w[a]))
                    assert table[offset[a] + k] == expected or (math.isinf(expected) and
                                                                table[offset[a] + k] == expected)


@pytest.mark.parametrize("method", ["cftp", "rejection"])
def test_pairs_are_the_same_with_and_without_the_gap_table(global_random_seed, method):
    data = _data(global_random_seed)
    tails = [t for t in [(0,), (1,), (0, 1), (2,)] if data.tail_support(t).size]
    counts = [40] * len(tails)
    with_table = HeadSampler(data, method=method, max_head_length=3)
    without = HeadSampler(data, method=method, max_head_length=3)
    without._gap = (None, None)
    got, errors = with_table.sample_pairs_many(tails, counts, global_random_seed)
    want, want_errors = without.sample_pairs_many(tails, counts, global_random_seed)
    assert with_table._gap[0] is not None
    for g, w, e, f in zip(got, want, errors, want_errors):
        assert type(e) is type(f)
        if g is not None:
            assert np.array_equal(g[0], w[0]) and np.array_equal(g[1], w[1])
