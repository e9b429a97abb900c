"""The public sampling API: outputs, reproducibility, validation, documented outcomes, wide data."""
import numpy as np
import pytest
import scipy.sparse as sp

import corset.sampling as sampling
from corset import BinaryData
from corset.sampling import (CandidateGenerator, HeadSampler, NoDiscriminativeHeadError, NoNegativeRecordsError,
                             ProposalLimitError, RuleSampler, SamplingError, TailSampler, log_proposal_ratio,
                             sample_heads, sample_tails)


def small(seed=0, n=40, f=8, l=4):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, f) < rng.uniform(0.2, 0.7, size=(n, 1))
    Y = rng.rand(n, l) < 0.4
    return X, Y


# -- outputs and reproducibility -----------------------------------------------------
def test_outputs_are_sorted_tuples_of_python_ints(global_random_seed):
    X, Y = small(global_random_seed)
    tails = sample_tails(X, Y, 50, random_state=global_random_seed)
    assert len(tails) == 50
    for t in tails:
        assert isinstance(t, tuple) and len(t) >= 1 and list(t) == sorted(set(t))
        assert all(type(v) is int for v in t)
        # a tail is drawn inside one record: some record carries all of it
        assert Y[:, list(t)].all(axis=1).any()
    tail = (int(np.argmax(Y.sum(axis=0))),)
    heads = sample_heads(X, Y, tail, 50, min_head_length=2, max_head_length=3, random_state=global_random_seed)
    positives = Y[:, list(tail)].all(axis=1)
    for h in heads:
        assert isinstance(h, tuple) and 2 <= len(h) <= 3 and list(h) == sorted(set(h))
        assert all(type(v) is int for v in h)
        match = X[:, list(h)].all(axis=1)
        # discriminativity > 0: matches a positive record and misses a negative one
        assert (match & positives).any() and (~match & ~positives).any()


@pytest.mark.parametrize("method, proposal", [("cftp", "paper"), ("cftp", "boley"), ("rejection", "paper")])
def test_same_random_state_same_samples(method, proposal):
    X, Y = small(3)
    kw = dict(method=method, proposal=proposal, min_head_length=1, max_head_length=None)
    assert sample_heads(X, Y, (0,), 30, random_state=7, **kw) == sample_heads(X, Y, (0,), 30, random_state=7, **kw)
    assert sample_heads(X, Y, (0,), 30, random_state=7, **kw) != sample_heads(X, Y, (0,), 30, random_state=8, **kw)
    rules = [((0,), (1,))]
    assert sample_tails(X, Y, 30, rules=rules, random_state=5) == sample_tails(X, Y, 30, rules=rules, random_state=5)
    assert sample_tails(X, Y, 30, random_state=5) != sample_tails(X, Y, 30, random_state=6)


def test_sparse_and_dense_inputs_agree():
    X, Y = small(4)
    assert (sample_heads(sp.csr_matrix(X), sp.csc_array(Y), (1,), 20, random_state=1)
            == sample_heads(X.astype(int), Y, (1,), 20, random_state=1))
    assert sample_tails(sp.coo_matrix(X), sp.coo_matrix(Y), 20, random_state=1) == sample_tails(X, Y, 20,
                                                                                               random_state=1)


def test_rule_sampler_reuses_one_index():
    X, Y = small(5)
    sampler = RuleSampler(X, Y)
    data = sampler.data
    sampler.sample_tails(5, random_state=0)
    sampler.sample_tails(5, rules=[((0,), (0,))], random_state=0)
    h = sampler.head_sampler()
    sampler.sample_heads((0,), 3, random_state=0)
    assert sampler.data is data and sampler.head_sampler() is h
    assert sampler.sample_tails(5, rules=[((0,), (0,))], random_state=0) == sample_tails(
        X, Y, 5, rules=[((0,), (0,))], random_state=0)
    # a BinaryData is accepted as is
    assert RuleSampler(data).data is data


def test_pair_sampler_is_cached_per_tail():
    X, Y = small(6)
    hs = HeadSampler(BinaryData(X, Y))
    assert hs.pair_sampler((0,)) is hs.pair_sampler([0])
    assert hs.pair_sampler((0,)) is not hs.pair_sampler((1,))


def test_draw_pair_returns_a_positive_and_a_negative_record():
    X, Y = small(7)
    hs = HeadSampler(BinaryData(X, Y))
    for seed in range(20):
        p, q = hs.draw_pair((2,), np.random.RandomState(seed))
        assert Y[p, 2] and not Y[q, 2]
        assert not set(np.flatnonzero(X[p])) <= set(np.flatnonzero(X[q]))   # w(p, q) > 0


# -- the paper's worked example (section samp, corrected by note 7) -------------------
def test_worked_example_of_section_samp():
    # D: F = {0, 1, 2, 3}, L = {a, b, c} = {0, 1, 2}; R3 = {2, 4} -> {a, c} does not match D.
    X = np.array([[1, 1, 1, 1, 0]])
    Y = np.array([[1, 1, 1]])
    rules = [((0, 1), (0,)), ((1, 2), (0, 1)), ((2, 4), (0, 2))]
    sampler = TailSampler(BinaryData(X, Y), rules)
    assert sampler.uncovered_area((1, 2)) == 1
    # As printed, R3 = {2, 3} -> {a, c} matches D and the weight of {b, c} is 0 (note 7).
    printed = TailSampler(BinaryData(X, Y), rules[:2] + [((2, 3), (0, 2))])
    assert printed.uncovered_area((1, 2)) == 0
    assert printed.total_uncovered == 0
    with pytest.raises(SamplingError, match="covered"):
        printed.sample(1, random_state=0)


# -- validation ---------------------------------------------------------------------
def test_argument_errors_name_the_argument():
    X, Y = small(8)
    with pytest.raises(ValueError, match="method"):
        sample_heads(X, Y, (0,), 1, method="nope")
    with pytest.raises(ValueError, match="proposal"):
        sample_heads(X, Y, (0,), 1, proposal="nope")
    with pytest.raises(ValueError, match="space"):
        sample_tails(X, Y, 1, space="nope")
    with pytest.raises(ValueError, match="max_head_length"):
        sample_heads(X, Y, (0,), 1, min_head_length=3, max_head_length=2)
    with pytest.raises(ValueError, match="min_head_length"):
        sample_heads(X, Y, (0,), 1, min_head_length=0)
    with pytest.raises(ValueError, match="tail"):
        sample_heads(X, Y, (), 1)
    with pytest.raises(ValueError, match="tail"):
        sample_heads(X, Y, (9,), 1)
    with pytest.raises(TypeError, match="tail"):
        sample_heads(X, Y, 0, 1)
    with pytest.raises(ValueError, match="n must"):
        sample_tails(X, Y, -1)
    with pytest.raises(ValueError, match="max_proposals"):
        sample_heads(X, Y, (0,), 1, max_proposals=0)
    with pytest.raises(ValueError, match=r"rules\[0\]: the tail is empty"):
        sample_tails(X, Y, 1, rules=[((0,), ())])
    with pytest.raises(ValueError, match=r"rules\[0\]"):
        sample_tails(X, Y, 1, rules=[(0,)])
    with pytest.raises(ValueError, match="X must be a binary"):
        sample_tails(X * 2.5, Y, 1)
    with pytest.raises(TypeError, match="BinaryData"):
        TailSampler(X)


def test_unknown_methods_and_spaces_name_the_registered_ones():
    X, Y = small(9)
    with pytest.raises(ValueError, match=r"method must be one of \('cftp', 'rejection', 'surs', 'gh'\)"):
        sample_heads(X, Y, (0,), 1, method="later")
    with pytest.raises(ValueError, match=r"space must be one of \('full', 'interpretable'\)"):
        sample_tails(X, Y, 1, space="later")


class _FirstLabelTails(sampling.TailSpaceSampler):
    """A toy tail space: the single-label tails of labels some uncovered occurrence carries."""

    def __init__(self, data, rules=(), *, coverage=None, bad=False):
        from corset.rules import Coverage

        self.data = data
        self.coverage = coverage if coverage is not None else Coverage(data)
        self.bad = bad
        self.synced = 0
        if rules:
            self.add_rules(rules)

    def sync(self):
        self.synced = len(self.coverage)

    def sample(self, n, random_state=None):
        self.sync()
        if self.bad:
            return [(self.data.n_labels,)] * n   # out of range: the generator must catch it
        ids = self.data.Y.indices[self.coverage.covered == 0]
        if ids.size == 0:
            raise sampling.SamplingError("all covered")
        rng = np.random.RandomState(random_state.randint(2**31) if hasattr(random_state, "randint")
                                    else random_state)
        return [(int(k),) for k in rng.choice(ids, n)]


class _FirstFeatureHeads(sampling.HeadMethodSampler):
    """A toy head method: the single features of the tail's first positive record."""

    def __init__(self, data, *, proposal="paper", min_head_length=1, max_head_length=None):
        self.data = data
        self.followed = None

    def follow_coverage(self, coverage):
        self.followed = coverage

    def sample(self, tail, n, random_state=None):
        records = self.data.tail_support(np.asarray(tail, dtype=np.int32))
        features = self.data.X.indices[self.data.X.indptr[records[0]]:self.data.X.indptr[records[0] + 1]]
        return [(int(f),) for f in features[:n]]


def test_registered_samplers_serve_the_generator_and_the_selection(monkeypatch):
    from corset.selection import greedy_selection

    monkeypatch.setattr(sampling._registry, "TAIL_SPACES", dict(sampling.TAIL_SPACES))
    monkeypatch.setattr(sampling._registry, "HEAD_METHODS", dict(sampling.HEAD_METHODS))
    monkeypatch.setattr(sampling._candidates, "TAIL_SPACES", sampling._registry.TAIL_SPACES)
    sampling._registry.register_tail_space("toy", _FirstLabelTails)
    sampling._registry.register_head_method("toy", _FirstFeatureHeads)
    with pytest.raises(ValueError, match="registered already"):
        sampling._registry.register_head_method("toy", _FirstFeatureHeads)
    with pytest.raises(TypeError, match="must subclass HeadMethodSampler"):
        sampling._registry.register_head_method("other", _FirstLabelTails)
    X, Y = small(9)
    data = BinaryData(X, Y)
    generator = CandidateGenerator(data, n_tails=5, n_heads_per_tail=3, head_method="toy", space="toy",
                                   random_state=0)
    result = greedy_selection(data, generator, n_rules=4, lam=0.1, tol=None)
    assert 1 <= len(result.rules) <= 4
    assert all(len(h) == 1 and len(t) == 1 for h, t in result.rules)
    # The samplers followed the selection's own coverage.
    assert generator._head_sampler.followed is generator.coverage
    assert generator._tail_sampler.synced == len(generator.coverage) - 1
    assert generator.coverage.rules == result.rules[:len(generator.coverage.rules)]
    # Tails of a space from outside corset are checked before the head samplers see them.
    bad = CandidateGenerator(data, n_tails=2, head_method="toy", space="toy", tail_options={"bad": True},
                             random_state=0)
    with pytest.raises(ValueError, match="tail"):
        bad([])


# -- documented outcomes ------------------------------------------------------------
def test_tail_without_negative_records():
    X, Y = small(10)
    Y[:, 0] = True
    with pytest.raises(NoNegativeRecordsError, match="every record"):
        sample_heads(X, Y, (0,), 1)
    with pytest.raises(NoNegativeRecordsError):
        log_proposal_ratio(BinaryData(X, Y), (0,))


def test_tail_without_positive_records():
    X, Y = small(11)
    Y[:, 0] = False
    with pytest.raises(ValueError, match="no positive record"):
        sample_heads(X, Y, (0,), 1)


def test_every_head_with_zero_discriminativity():
    # Positives have one feature: no head of length 2.
    X = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 1], [1, 1, 0]])
    Y = np.array([[1], [1], [0], [0]])
    with pytest.raises(NoDiscriminativeHeadError, match="min_head_length=2"):
        sample_heads(X, Y, (0,), 1, min_head_length=2)
    # Positives inside every negative: every head matches every negative.
    X = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 0]])
    with pytest.raises(NoDiscriminativeHeadError, match="every negative"):
        sample_heads(X, Y, (0,), 1)
    # With one negative not containing a positive, heads exist.
    X[3] = [0, 1, 0]
    assert sample_heads(X, Y, (0,), 5, random_state=0)


def test_proposal_limit_raises_a_clear_error():
    rng = np.random.RandomState(0)
    X = rng.rand(20, 60) < 0.1           # sparse records, many features: Boley's w2 ~ 2^60 >> w
    Y = np.zeros((20, 1), dtype=bool)
    Y[:2] = True
    with pytest.raises(ProposalLimitError, match="max_proposals=50"):
        sample_heads(X, Y, (0,), 3, proposal="boley", max_proposals=50, random_state=0)
    assert log_proposal_ratio(BinaryData(X, Y), (0,), proposal="boley") / np.log(10) > 6


# -- no overflow on wide records ----------------------------------------------------------
def wide_records(n_features=2000, seed=0, first_width=2000):
    rng = np.random.RandomState(seed)
    X = np.zeros((8, n_features), dtype=bool)
    X[0, :first_width] = True                              # |D+| = 2000
    X[1, rng.choice(n_features, 1500, replace=False)] = True
    X[2, rng.choice(n_features, 1990, replace=False)] = True
    X[3, :] = True
    X[3, 5] = False                                        # a negative missing one feature
    X[4:, :] = rng.rand(4, n_features) < 0.5
    Y = np.array([[1], [1], [0], [0], [1], [0], [0], [1]])
    return BinaryData(X, Y)


@pytest.mark.parametrize("method, proposal, m, M", [("cftp", "paper", 1, None), ("cftp", "paper", 2, None),
                                                      ("cftp", "paper", 3, 8), ("rejection", "paper", 1, 40),
                                                      ("cftp", "boley", 1, None), ("cftp", "boley", 2, 9),
                                                      ("cftp", "plain", 1, None), ("rejection", "plain", 2, 9)])
def test_no_overflow_with_2000_features(method, proposal, m, M):
    # For Boley's proposal a narrow first positive makes Z̄/Z astronomically large.
    data = wide_records(first_width=2000 if proposal == "paper" else 10)
    sampler = HeadSampler(data, method=method, proposal=proposal, min_head_length=m, max_head_length=M,
                          max_proposals=20_000)
    ps = sampler.pair_sampler((0,))
    ratios = np.array([[ps.log_acceptance(i, j) for j in range(ps.n_negative)] for i in range(ps.n_positive)])
    assert not np.isnan(ratios).any() and not np.isposinf(ratios).any()
    assert (ratios <= 1e-12).all()
    log_ratio = log_proposal_ratio(data, (0,), proposal=proposal, min_head_length=m, max_head_length=M)
    assert np.isfinite(log_ratio) and log_ratio >= -1e-9
    if proposal == "boley" and M is None:
        # Z̄/Z is astronomically large: the limit is reached, with a clear error, not a NaN.
        assert log_ratio / np.log(10) > 30
        with pytest.raises(ProposalLimitError):
            sampler.sample((0,), 1, random_state=0)
        return
    heads = sampler.sample((0,), 30, random_state=1)
    positives = data.tail_support((0,))
    for h in heads:
        assert m <= len(h) <= (M or 2000)
        assert any(set(h) <= set(data.record_features[p].tolist()) for p in positives)


def test_tail_weights_of_records_with_thousands_of_labels():
    Y = np.zeros((4, 2000), dtype=bool)
    Y[0] = True                   # weight 2000 * 2^1999: beyond a double
    Y[1, :1100] = True            # 1100 * 2^1099
    Y[2, :3] = True               # 3 * 2^2: about 2^-2000 of the first, below a double's range
    Y[3, :1] = True               # 1
    X = np.eye(4, dtype=bool)     # head (r,) matches record r only
    sampler = TailSampler(BinaryData(X, Y))
    assert np.all(np.isfinite(sampler._tree)) and sampler._tree[1] > 0
    assert sampler.record_log2_weights()[0] == pytest.approx(np.log2(2000) + 1999)
    _, records = sampler.sample(200, random_state=0, return_records=True)
    assert set(records.tolist()) == {0}
    # Covering the heavy records rescales the weights: the light ones are not lost.
    sampler.add_rules([((0,), tuple(range(2000)))])
    _, records = sampler.sample(200, random_state=0, return_records=True)
    assert set(records.tolist()) == {1}
    sampler.add_rules([((1,), tuple(range(1100)))])
    assert np.all(np.isfinite(sampler._tree))
    tails, records = sampler.sample(13_000, random_state=0, return_records=True)
    counts = np.bincount(records, minlength=4)
    assert counts[0] == counts[1] == 0
    assert 0.9 < counts[2] / (12 * counts[3]) < 1.1      # weights 3 * 2^2 and 1 * 2^0
    assert all(set(t) <= {0, 1, 2} for t in tails)


# -- candidate generation -------------------------------------------------------------
def test_candidate_generator_pool_and_updates():
    X, Y = small(12, n=60, f=8, l=4)
    data = BinaryData(X, Y)
    gen = CandidateGenerator(data, n_tails=10, n_heads_per_tail=3, random_state=0, min_head_length=1)
    assert gen.pool_shape == (10, 3)
    pool = gen([])
    assert 0 < len(pool) <= 30 and len(set(pool)) == len(pool)
    for head, tail in pool:
        assert head and tail
    again = CandidateGenerator(data, n_tails=10, n_heads_per_tail=3, random_state=0, min_head_length=1)
    assert again([]) == pool
    # Selected rules are applied once, incrementally.
    gen([pool[0]])
    assert gen._tail_sampler.rules_ == [pool[0]]
    gen([pool[0], pool[1]])
    assert gen._tail_sampler.rules_ == [pool[0], pool[1]]
    reference = TailSampler(data, [pool[0], pool[1]])
    np.testing.assert_array_equal(gen._tail_sampler._tree, reference._tree)
    # Going back on a rule rebuilds the coverage from the given list.
    gen([pool[1]])
    assert gen._tail_sampler.rules_ == [pool[1]]
    # Without deduplication the pool has exactly n_tails * n_heads_per_tail rules.
    full = CandidateGenerator(data, n_tails=10, n_heads_per_tail=3, deduplicate=False, random_state=0)
    assert len(full([])) == 30


def test_candidate_generator_skips_tails_without_negatives_and_stops_when_covered():
    X, Y = small(13, n=30, l=3)
    Y[:, 0] = True
    gen = CandidateGenerator(BinaryData(X, Y), n_tails=30, n_heads_per_tail=1, random_state=0)
    pool = gen([])
    assert all(tail != (0,) for _, tail in pool)
    assert ((0,), "no negative record") in gen.skipped_tails_
    everything = [((), (0, 1, 2))] + [((), (k,)) for k in range(3)]
    assert gen(everything) == [] and gen.exhausted_


def test_generator_keeps_its_tail_sampler_for_an_empty_coverage_handed_over():
    # A selection hands its own (empty) coverage to a generator made before it: the
    # interpretable tail sampler takes it over instead of building the space again, and
    # draws the pools a fresh generator draws; a coverage holding rules gets a new sampler.
    from corset.datasets import make_rule_data
    from corset.rules import Coverage
    from corset.sampling import CandidateGenerator

    synthetic = make_rule_data(n_records=400, n_features=20, n_labels=9, random_state=3)
    data = BinaryData(synthetic.X, synthetic.Y)
    options = dict(n_tails=6, n_heads_per_tail=3, head_method="gh", space="interpretable", max_head_length=3,
                   on_proposal_limit="skip")
    handed = CandidateGenerator(data, random_state=5, **options)
    sampler = handed._tail_sampler
    coverage = Coverage(data)
    first = handed.candidate_pool([], coverage=coverage)
    assert handed._tail_sampler is sampler and sampler.coverage is coverage
    fresh = CandidateGenerator(data, random_state=5, **options)
    assert list(first) == list(fresh.candidate_pool([]))
    other = Coverage(data)
    other.add(*list(first)[0])
    handed.candidate_pool([], coverage=other)
    assert handed._tail_sampler is not sampler and handed._tail_sampler.coverage is other


@pytest.mark.parametrize("head_method", ["gh", "cftp"])
def test_generator_on_a_subset_of_records_draws_what_a_generator_of_that_subset_draws(global_random_seed,
                                                                                      head_method):
    # max_records: the records are drawn first from the generator's random state, then every pool
    # is the pool of a generator built on those records alone; the rules keep the data's ids.
    from corset.datasets import make_rule_data

    synthetic = make_rule_data(n_records=300, n_features=16, n_labels=8, random_state=global_random_seed)
    data = BinaryData.with_negations(synthetic.X, synthetic.Y, [0, 3])
    options = dict(n_tails=8, n_heads_per_tail=3, head_method=head_method, space="full", max_head_length=3,
                   on_proposal_limit="skip")
    import copy

    gen = CandidateGenerator(data, random_state=global_random_seed, max_records=120, **options)
    after_draw = copy.deepcopy(gen._rng)   # the generator's random state once its subset is drawn
    records = gen.records_
    uniform = np.random.RandomState(global_random_seed).choice(300, 120, replace=False)
    assert np.isin(uniform, records).all() and records.size - 120 <= data.n_labels
    reference = CandidateGenerator(data.take_records(records), random_state=after_draw, **options)
    assert gen.coverage.data.n_records == records.size and gen.data is data
    first = gen([])
    assert first == reference([]) and first
    selected = [first[0], first[-1]]
    assert gen(selected) == reference(selected)
    # Under the selection, the generator keeps its subset's coverage of the selected rules.
    from corset.rules import Coverage

    coverage = Coverage(data)
    for rule in selected:
        coverage.add(*rule)
    pool = gen.candidate_pool(selected, coverage=coverage)
    assert list(pool) == list(reference.candidate_pool(selected))
    assert gen.coverage.rules == selected and gen.coverage is not coverage


def test_generator_below_max_records_draws_the_same_pools():
    X, Y = small(14, n=60, f=8, l=4)
    data = BinaryData(X, Y)
    plain = CandidateGenerator(data, n_tails=10, n_heads_per_tail=3, random_state=0)
    capped = CandidateGenerator(data, n_tails=10, n_heads_per_tail=3, random_state=0, max_records=60)
    assert capped.records_ is None
    first = plain([])
    assert capped([]) == first
    assert capped(first[:1]) == plain(first[:1])
    with pytest.raises(ValueError, match="max_records"):
        CandidateGenerator(data, max_records=0)


def test_subset_of_records_holds_every_label(global_random_seed):
    # Labels too rare for a uniform subset each get one of their records, drawn from the random
    # state: every label of the data can still be in a tail.
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(400, 10) < 0.4
    Y = np.zeros((400, 4), dtype=bool)
    Y[:, 0] = rng.rand(400) < 0.5
    Y[123, 1] = True                       # one record
    Y[[7, 350], 2] = True                  # two records; label 3 has none
    data = BinaryData(X, Y)
    gen = CandidateGenerator(data, n_tails=5, n_heads_per_tail=2, random_state=global_random_seed,
                             max_records=50)
    records = gen.records_
    assert records.dtype == np.int64 and np.all(np.diff(records) > 0)
    assert 50 <= records.size <= 52 and 123 in records and ({7, 350} & set(records.tolist()))
    held = gen.coverage.data.label_counts
    assert held[1] == 1 and held[2] >= 1 and held[3] == 0 and held[0] > 0
    again = CandidateGenerator(data, n_tails=5, n_heads_per_tail=2, random_state=global_random_seed,
                               max_records=50)
    np.testing.assert_array_equal(again.records_, records)
    assert again([]) == gen([])
    # Where the uniform draw holds neither of label 2's records, which one joins is drawn too.
    missed = [s for s in range(200)
              if not np.isin([7, 350], np.random.RandomState(s).choice(400, 50, replace=False)).any()]
    picks = [np.intersect1d(CandidateGenerator(data, random_state=s, max_records=50).records_, [7, 350])
             for s in missed]
    assert len(missed) > 100 and all(p.size == 1 for p in picks)
    assert 0.3 < np.mean([p[0] == 7 for p in picks]) < 0.7


def test_generator_leaves_a_used_up_subset_for_every_record():
    # Once every occurrence of the subset is covered, the selection still has uncovered ones
    # elsewhere: the generator draws from every record instead of returning an empty pool.
    from corset.datasets import make_rule_data
    from corset.selection import greedy_selection

    synthetic = make_rule_data(n_records=3000, n_features=30, n_labels=15, noise=0.05, random_state=0)
    data = BinaryData(synthetic.X, synthetic.Y)
    options = dict(n_tails=10, n_heads_per_tail=5, head_method="gh", space="full", max_head_length=3,
                   on_proposal_limit="skip", random_state=0)
    gen = CandidateGenerator(data, max_records=50, **options)
    assert gen.records_ is not None
    result = greedy_selection(data, gen, n_rules=150, tol=None)
    assert gen.records_ is None and gen.coverage.data is data    # switched to every record
    assert len(result.rules) == 150 and not gen.exhausted_
    # The rules chosen before the switch are those a generator that never switches chooses.
    stuck = CandidateGenerator(data, max_records=50, **options)
    stuck._use_every_record = lambda: None
    short = greedy_selection(data, stuck, n_rules=150, tol=None)
    assert 0 < len(short.rules) < 150 and stuck.exhausted_
    assert list(result.rules[:len(short.rules)]) == list(short.rules)



@pytest.mark.parametrize("proposal", ["paper", "plain"])
def test_proposal_ratio_predicts_the_trials_with_negated_literals(proposal):
    # log(Z̄/Z) of each proposal against the mean number of rejection trials per pair, on
    # features with their negated literals (where the "plain" proposal's bound is tight).
    rng = np.random.RandomState(5)
    X = (rng.rand(300, 40) < 0.08).astype(np.uint8)
    X[0], X[1] = 1, 0
    Y = ((X[:, :3].sum(axis=1) > 0) | (rng.rand(300) < 0.1)).astype(np.uint8)[:, None]
    data = BinaryData.with_negations(X, Y, np.arange(40))
    sampler = HeadSampler(data, method="rejection", proposal=proposal, max_head_length=3)
    sampler.sample_pairs((0,), 20_000, random_state=0)
    expected = np.exp(log_proposal_ratio(data, (0,), proposal=proposal, max_head_length=3))
    trials = sampler.last_stats_["n_trials"]
    assert abs(trials.mean() - expected) < 4 * trials.std() / np.sqrt(trials.size) + 1e-9
    if proposal == "plain":
        assert expected < 0.5 * np.exp(log_proposal_ratio(data, (0,), proposal="paper", max_head_length=3))


def test_plain_proposal_when_no_negative_record_has_a_plain_feature():
    # Σ|P-| = 0: D- is drawn uniformly only.  Records 0-1 hold f0, records 2-3 only NOT f0.
    X = np.array([[1], [1], [0], [0]], dtype=np.uint8)
    Y = np.array([[1], [1], [0], [0]], dtype=np.uint8)
    data = BinaryData.with_negations(X, Y, [0])
    for method in ("cftp", "rejection"):
        sampler = HeadSampler(data, proposal="plain", method=method)
        pos, neg = sampler.sample_pairs((0,), 200, random_state=0)
        assert set(pos.tolist()) <= {0, 1} and set(neg.tolist()) <= {2, 3} and len(set(neg.tolist())) == 2
    assert np.isfinite(log_proposal_ratio(data, (0,), proposal="plain"))


@pytest.mark.parametrize("proposal", ["paper", "boley", "plain"])
def test_proposal_ratio_is_infinite_when_no_pair_has_weight(proposal):
    # Every record holds only NOT f0: Z = 0 (and Z̄ = 0 for "plain"), the ratio is inf, not NaN.
    X = np.zeros((4, 1), dtype=np.uint8)
    Y = np.array([[1], [1], [0], [0]], dtype=np.uint8)
    data = BinaryData.with_negations(X, Y, [0]) if proposal == "plain" else BinaryData(
        np.ones((4, 1), dtype=np.uint8), Y)
    assert log_proposal_ratio(data, (0,), proposal=proposal) == np.inf


@pytest.mark.parametrize("random_state, message", [(np.random.default_rng(0), "got a numpy Generator"),
                                                   (-1, "random_state: Seed must be between")])
def test_sampler_random_states_that_are_not_seeds_say_random_state(random_state, message):
    """numpy's Generator and out-of-range seeds: the message names random_state (it quoted numpy)."""
    from corset.sampling import sample_tails

    rng = np.random.RandomState(0)
    with pytest.raises(ValueError, match=message):
        sample_tails(rng.rand(30, 5) < 0.4, rng.rand(30, 3) < 0.4, 4, random_state=random_state)


@pytest.mark.parametrize("method", ["cftp", "rejection", "surs", "gh"])
def test_a_head_length_bound_beyond_any_head_is_no_bound(method):
    """max_head_length=10**30 raised OverflowError in the compiled samplers; no head is that long, so it
    draws as max_head_length=None does (the same heads for a seed)."""
    from corset.sampling import sample_heads

    rng = np.random.RandomState(0)
    X, Y = rng.rand(40, 6) < 0.4, rng.rand(40, 3) < 0.5
    huge = sample_heads(X, Y, (0,), 5, method=method, max_head_length=10**30, random_state=0)
    assert huge == sample_heads(X, Y, (0,), 5, method=method, max_head_length=None, random_state=0)


def test_seed_pairs_need_one_count_per_tail():
    """sample_pairs_many([(0,), (1,)], [2]) returned None for the second tail with no error."""
    from corset.sampling._head_exact import HeadSampler
    from corset import BinaryData

    rng = np.random.RandomState(0)
    data = BinaryData(rng.rand(40, 6) < 0.4, rng.rand(40, 3) < 0.5)
    with pytest.raises(ValueError, match=r"counts must hold one count per tail \(2\); got 1"):
        HeadSampler(data).sample_pairs_many([(0,), (1,)], [2], random_state=0)
    pairs, errors = HeadSampler(data).sample_pairs_many([(0,), (1,)], [2, 3], random_state=0)
    assert [len(p[0]) for p in pairs] == [2, 3] and errors == [None, None]


@pytest.mark.parametrize("space", ["full", "interpretable"])
def test_tails_of_a_y_without_labels_say_so(space):
    """The message spoke of "the selected rules" when no rule was passed and Y held no 1."""
    from corset.sampling import SamplingError, sample_tails

    with pytest.raises(SamplingError, match="Y holds no label occurrence"):
        sample_tails(np.eye(5, dtype=int), np.zeros((5, 3), dtype=int), 2, space=space, random_state=0)
