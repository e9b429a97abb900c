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
