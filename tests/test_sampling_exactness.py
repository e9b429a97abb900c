"""Exactness of the samplers: chi-square goodness of fit against exhaustive enumeration.

Every test draws from the compiled samplers and compares the draws with the
target distribution listed by ``corset.sampling._enumerate`` (plain Python,
sharing no code with the kernels):

* tails ∝ uncovered area (Algorithm 2), with and without selected rules;
* heads ∝ discriminativity (Algorithm 3) for both proposals, CFTP and
  rejection sampling, several head length bounds;
* the pairs (D+, D-) of CFTP ∝ w, heads counted by listing them;
* the head draw of records wider than 62 features (the log-space path);
* mutations: three test-only switches of the kernels that each break
  exactness in one known way (a head draw whose space differs from the
  weight's, a non-bounding proposal used as if it bounded, an acceptance
  test that lets a zero-weight pair through) must make the same checks fail,
  for every seed.

The threshold is Bonferroni-corrected over every chi-square test of this
module, for an overall false-alarm rate of 1e-3; seeds are fixed, so the
suite is deterministic.
"""
import numpy as np
import pytest

from corset import BinaryData
from corset.sampling import HeadSampler, TailSampler
from corset.sampling._enumerate import goodness_of_fit, head_target, pair_target, tail_target
from sampling_testdata import pick_tail, random_data
from sampling_testdata import random_rules as _random_rules

N_SEEDS = 8
TAIL_CASES = ["no rules", "rules"]
HEAD_CASES = [
    # (proposal, method, min_head_length, max_head_length)
    ("paper", "cftp", 1, None),
    ("paper", "cftp", 2, None),
    ("paper", "cftp", 1, 2),
    ("paper", "cftp", 2, 4),
    ("boley", "cftp", 1, None),
    ("boley", "cftp", 2, None),
    ("boley", "cftp", 2, 3),
    ("paper", "rejection", 2, None),
    ("plain", "cftp", 1, None),
    ("plain", "rejection", 2, 3),
]
PAIR_CASES = [
    # (proposal, method, min_head_length, max_head_length); rejection pairs seed CORSET-GH in the estimator
    ("paper", "cftp", 1, None), ("paper", "cftp", 2, None), ("boley", "cftp", 1, None), ("boley", "cftp", 2, 3),
    ("paper", "rejection", 1, None), ("paper", "rejection", 2, 4),
    ("plain", "cftp", 1, None), ("plain", "rejection", 1, None), ("plain", "cftp", 2, 3),
]
# The "plain" proposal on features with their negated literals (what it is for).
NEGATED_CASES = [("cftp", 1, None), ("rejection", 1, 3), ("cftp", 2, 3)]
WIDE_CASES = [(1, 2), (2, 3), (1, None)]

N_TESTS = N_SEEDS * (len(TAIL_CASES) + len(HEAD_CASES) + len(PAIR_CASES) + len(NEGATED_CASES) + 1) + len(WIDE_CASES)
ALPHA = 1e-3 / N_TESTS

N_SAMPLES = 20_000


def random_rules(data, seed, n_rules=3):
    """This module's rules: heads of at most 2 features."""
    return _random_rules(data, seed, n_rules, max_head_size=2)


@pytest.mark.parametrize("case", TAIL_CASES)
def test_tails_follow_uncovered_area(global_random_seed, case):
    data = random_data(global_random_seed)
    rules = random_rules(data, global_random_seed) if case == "rules" else []
    sampler = TailSampler(data, rules)
    tails = sampler.sample(N_SAMPLES, random_state=global_random_seed)
    target = tail_target(data, rules)
    p = goodness_of_fit(tails, target)
    assert p > ALPHA, f"tails deviate from the uncovered area: p = {p:.3g}"


def test_tail_rules_added_incrementally_equal_rules_at_construction(global_random_seed):
    data = random_data(global_random_seed)
    rules = random_rules(data, global_random_seed)
    a = TailSampler(data, rules)
    b = TailSampler(data)
    for rule in rules:
        b.add_rules([rule])
    np.testing.assert_array_equal(a._tree, b._tree)
    assert a.sample(200, random_state=1) == b.sample(200, random_state=1)


def check_heads(seed, m, M, **options):
    """p-value of the heads drawn for the seed's data and tail against discriminativity."""
    data = random_data(seed)
    tail = pick_tail(data, seed)
    sampler = HeadSampler(data, min_head_length=m, max_head_length=M, **options)
    heads = sampler.sample(tail, N_SAMPLES, random_state=seed)
    return goodness_of_fit(heads, head_target(data, tail, m, M))


def check_pairs(seed, m, M, **options):
    """p-value of the pairs for the seed's (smaller) data against w, heads listed."""
    data = random_data(seed, n_records=16)
    tail = pick_tail(data, seed)
    sampler = HeadSampler(data, min_head_length=m, max_head_length=M, **options)
    pos, neg = sampler.sample_pairs(tail, N_SAMPLES, random_state=seed)
    return goodness_of_fit(list(zip(pos.tolist(), neg.tolist())), pair_target(data, tail, m, M))


@pytest.mark.parametrize("proposal, method, m, M", HEAD_CASES)
def test_heads_follow_discriminativity(global_random_seed, proposal, method, m, M):
    p = check_heads(global_random_seed, m, M, method=method, proposal=proposal)
    assert p > ALPHA, f"heads deviate from discriminativity: p = {p:.3g}"


@pytest.mark.parametrize("proposal, method, m, M", PAIR_CASES)
def test_pairs_follow_w(global_random_seed, proposal, method, m, M):
    p = check_pairs(global_random_seed, m, M, proposal=proposal, method=method)
    assert p > ALPHA, f"{method} pairs deviate from w: p = {p:.3g}"


def negated_data(seed, n_records=16, n_plain=5):
    """``random_data``'s kind of records over 5 features, with the negated literals of every one."""
    rng = np.random.RandomState(2000 + seed)
    X = rng.rand(n_records, n_plain) < rng.uniform(0.15, 0.8, size=(n_records, 1))
    X[0], X[1] = True, False   # no feature constant
    Y = rng.rand(n_records, 3) < rng.uniform(0.2, 0.7, size=(n_records, 1))
    return BinaryData.with_negations(X.astype(np.uint8), Y.astype(np.uint8), np.arange(n_plain))


@pytest.mark.parametrize("method, m, M", NEGATED_CASES)
def test_plain_proposal_pairs_follow_w_with_negated_literals(global_random_seed, method, m, M):
    data = negated_data(global_random_seed)
    tail = pick_tail(data, global_random_seed)
    sampler = HeadSampler(data, min_head_length=m, max_head_length=M, proposal="plain", method=method)
    pos, neg = sampler.sample_pairs(tail, N_SAMPLES, random_state=global_random_seed)
    p = goodness_of_fit(list(zip(pos.tolist(), neg.tolist())), pair_target(data, tail, m, M))
    assert p > ALPHA, f"plain-proposal pairs deviate from w: p = {p:.3g}"


def test_an_understated_plain_bound_fails_the_checks(global_random_seed, monkeypatch):
    # Teeth: plain feature counts one too small make w̄ < w for some pairs; the kernel's bound
    # check refuses them (SamplingError), or the pairs drawn deviate from w.
    from corset.sampling import SamplingError

    data = negated_data(global_random_seed)
    tail = pick_tail(data, global_random_seed)
    sampler = HeadSampler(data, proposal="plain", method="rejection")
    counts = sampler._plain_counts()
    monkeypatch.setattr(sampler, "_plain", np.maximum(counts - 1, 0))
    try:
        pos, neg = sampler.sample_pairs(tail, N_SAMPLES, random_state=global_random_seed)
    except SamplingError:
        return
    p = goodness_of_fit(list(zip(pos.tolist(), neg.tolist())), pair_target(data, tail, 1, None))
    assert p < ALPHA


MUTATIONS = [
    # (mutation, min_head_length): the printed draw allows |H| = 1, so it is
    # wrong exactly when the weight excludes single features (m = 2).
    ("printed_draw", 2),
    ("non_bounding", 1),
    ("zero_weight", 1),
]


@pytest.mark.parametrize("mutation, m", MUTATIONS)
def test_mutations_fail_the_exactness_checks(global_random_seed, mutation, m):
    """The checks above have teeth: each mutated kernel fails them, for every seed."""
    p_heads = check_heads(global_random_seed, m, None, _mutation=mutation)
    p_pairs = check_pairs(global_random_seed, m, None, _mutation=mutation)
    assert min(p_heads, p_pairs) < ALPHA, (
        f"mutation {mutation!r} went unnoticed: p(heads) = {p_heads:.3g}, p(pairs) = {p_pairs:.3g}")


def wide_data():
    """Three positive records of 66-70 features, three negatives inside the same 70."""
    rng = np.random.RandomState(7)
    X = np.zeros((6, 70), dtype=bool)
    for r, width in enumerate([70, 68, 66]):
        X[r, rng.choice(70, width, replace=False)] = True
    for r, width in zip(range(3, 6), [65, 60, 3]):
        X[r, rng.choice(70, width, replace=False)] = True
    Y = np.array([[1], [1], [1], [0], [0], [0]])
    return BinaryData(X, Y)


@pytest.mark.parametrize("m, M", WIDE_CASES)
def test_heads_of_wide_records(m, M):
    """Records wider than 62 features take the log-space head draw (or the fast draw)."""
    data = wide_data()
    if M is None:
        # No maximum: too many heads to list; check the pair stage and head lengths instead.
        sampler = HeadSampler(data, min_head_length=m, max_head_length=M)
        heads = sampler.sample((0,), 2000, random_state=3)
        assert all(len(h) >= m for h in heads)
        pos, neg = sampler.sample_pairs((0,), 4000, random_state=3)
        target = {}
        proposal = sampler.pair_sampler((0,))
        # w = 2^a - 2^k exactly for m = 1: compare the pair law with exact integers.
        for p in range(3):
            for q in range(3):
                a = data.record_features[p].size
                k = np.intersect1d(data.record_features[p], data.record_features[3 + q]).size
                target[(p, 3 + q)] = 2 ** a - 2 ** k
        pval = goodness_of_fit(list(zip(pos.tolist(), neg.tolist())), target)
        assert proposal.n_positive == 3
        assert pval > ALPHA
        return
    sampler = HeadSampler(data, min_head_length=m, max_head_length=M)
    n = 60_000 if M == 3 else 10_000
    heads = sampler.sample((0,), n, random_state=11)
    p = goodness_of_fit(heads, head_target(data, (0,), m, M))
    assert p > ALPHA, f"heads of wide records deviate: p = {p:.3g}"
