"""The samplers on real data: enron's widest training record (875 features), no overflow or NaN."""
import numpy as np
import pytest

from corset import BinaryData
from corset.sampling import HeadSampler, ProposalLimitError, TailSampler, log_proposal_ratio


@pytest.fixture(scope="module")
def enron(data_dir):
    from corset.datasets import load_benchmark

    bunch = load_benchmark("enron", subset="train", data_home=data_dir)
    return BinaryData(bunch.X, bunch.Y)


@pytest.mark.realdata
def test_enron_widest_record(enron):
    widest = int(np.argmax(enron.record_n_features))
    assert enron.record_n_features[widest] == 875
    for label in enron.record_labels[widest].tolist():
        tail = (label,)
        for m, M in [(1, None), (2, None), (2, 6)]:
            sampler = HeadSampler(enron, min_head_length=m, max_head_length=M)
            ps = sampler.pair_sampler(tail)
            i = int(np.searchsorted(enron.tail_support(tail), widest))
            ratios = np.array([ps.log_acceptance(i, j) for j in range(ps.n_negative)])
            assert not np.isnan(ratios).any() and (ratios <= 1e-12).all()
            heads = sampler.sample(tail, 20, random_state=0)
            assert all(m <= len(h) <= (M or 875) for h in heads)
            assert np.isfinite(log_proposal_ratio(enron, tail, min_head_length=m, max_head_length=M))
        # Boley et al.'s proposal: about 10^19 proposals per head here; a clear error, no NaN.
        log_ratio = log_proposal_ratio(enron, tail, proposal="boley")
        assert np.isfinite(log_ratio) and log_ratio / np.log(10) > 10
        with pytest.raises(ProposalLimitError):
            HeadSampler(enron, proposal="boley", max_proposals=10_000).sample(tail, 1, random_state=0)


@pytest.mark.realdata
def test_enron_tails(enron):
    sampler = TailSampler(enron)
    tails, records = sampler.sample(500, random_state=0, return_records=True)
    assert all(set(t) <= set(enron.record_labels[r].tolist()) for t, r in zip(tails, records))
    assert np.all(np.isfinite(sampler._tree))
