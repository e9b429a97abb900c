"""CORSET-SURS: sampling under the interpretable spaces (Algorithm 4 and the reduced head space).

Exactness by chi-square against exhaustive enumeration (``corset.sampling._enumerate``,
plain Python, sharing no code with the kernels), restricted to the space:

* tails T ∈ S⁻ ∝ uncovered area, with and without selected rules, for the
  clique space of the label graph and for arbitrary (non-clique) families;
* heads H ∈ S⁻_F of allowed length ∝ discriminativity, min_head_length 1
  and 2, with and without a maximum;
* the CFTP pairs (D+, D-) ∝ w(D+, D-), the sets of φ_F(D+) not inside D-
  counted by listing;
* mutations: the tail draw of Algorithm 4 as printed (T ∝ |T|, note 13) and
  a head draw that ignores D- must fail the same checks, for every seed.

The threshold is Bonferroni-corrected over every chi-square test of this
module that is expected to pass, for an overall false-alarm rate of 1e-3;
seeds are fixed, so the suite is deterministic.
"""
import itertools

import numpy as np
import pytest

from corset import BinaryData
from corset.labelspace import CliqueOverflowError, SetFamily, interpretable_space
from corset.sampling import (CandidateGenerator, NoDiscriminativeHeadError, NoNegativeRecordsError,
                             ProposalLimitError, RuleSampler, SamplingError, sample_heads, sample_tails)
from corset.sampling._enumerate import goodness_of_fit, head_target, tail_target
from corset.sampling import make_head_sampler, make_tail_sampler
from corset.sampling import InterpretableTailSampler, ReducedSpaceHeadSampler
from sampling_testdata import pick_tail, random_data
from sampling_testdata import random_rules as _random_rules

N_SEEDS = 8
LABEL_ALPHA = 0.5      # on the random data below: S⁻ has sets of 1 to 3 labels
FEATURE_ALPHA = 0.6    # S⁻_F has sets of 1 to 4 features
SPACES = ["cliques", "random family"]
TAIL_CASES = [(space, rules) for space in SPACES for rules in (False, True)]
HEAD_CASES = [(space, m, M) for space in SPACES for m, M in [(1, None), (2, None), (1, 2)]]
PAIR_CASES = [(1, None), (2, 3)]

N_TESTS = N_SEEDS * (len(TAIL_CASES) + len(HEAD_CASES) + len(PAIR_CASES)) + 1
ALPHA = 1e-3 / N_TESTS

N_SAMPLES = 20_000


def random_rules(data, seed, n_rules=4):
    """This module's rules: heads of at most 1 feature."""
    return _random_rules(data, seed, n_rules, max_head_size=1)


def random_family(seed, n_items, n_sets, max_size):
    """Distinct non-empty item sets in random order (not cliques of anything)."""
    rng = np.random.RandomState(3000 + seed)
    sets = {}
    while len(sets) < n_sets:
        size = rng.randint(1, max_size + 1)
        sets.setdefault(tuple(sorted(rng.choice(n_items, size, replace=False).tolist())), None)
    return SetFamily.from_sets(list(sets), n_items)


def tail_sampler(seed, space, rules=(), **options):
    data = random_data(seed)
    if space == "cliques":
        return InterpretableTailSampler(data, rules, alpha=LABEL_ALPHA, **options)
    return InterpretableTailSampler(data, rules, family=random_family(seed, data.n_labels, 12, 3), **options)


def head_sampler(seed, space, m, M, n_records=30, **options):
    data = random_data(seed, n_records=n_records)
    if space == "cliques":
        return ReducedSpaceHeadSampler(data, min_head_length=m, max_head_length=M, alpha=FEATURE_ALPHA,
                                       **options)
    return ReducedSpaceHeadSampler(data, min_head_length=m, max_head_length=M,
                                   family=random_family(seed, data.n_features, 25, 4), **options)


def restricted(target, family):
    """The enumerated target restricted to the sets of ``family``."""
    sets = set(family.to_list())
    return {k: v for k, v in target.items() if k in sets}


def allowed_sets(family, m, M):
    return [s for s in family.to_list() if m <= len(s) <= (M or len(s))]


# -- exactness --------------------------------------------------------------------------
def check_tails(seed, space, with_rules, mutation=None):
    data = random_data(seed)
    rules = random_rules(data, seed) if with_rules else []
    sampler = tail_sampler(seed, space, rules, _mutation=mutation)
    tails = sampler.sample(N_SAMPLES, random_state=seed)
    return goodness_of_fit(tails, restricted(tail_target(data, rules), sampler.family_))


@pytest.mark.parametrize("space, with_rules", TAIL_CASES)
def test_tails_follow_uncovered_area_in_the_space(global_random_seed, space, with_rules):
    p = check_tails(global_random_seed, space, with_rules)
    assert p > ALPHA, f"tails deviate from the uncovered area restricted to S⁻: p = {p:.3g}"


def check_heads(seed, space, m, M, mutation=None):
    sampler = head_sampler(seed, space, m, M, _mutation=mutation)
    data = sampler.data
    tail = pick_tail(data, seed)
    heads = sampler.sample(tail, N_SAMPLES, random_state=seed)
    target = head_target(data, tail, m, M)
    return goodness_of_fit(heads, {h: target[h] for h in allowed_sets(sampler.family_, m, M)})


@pytest.mark.parametrize("space, m, M", HEAD_CASES)
def test_heads_follow_discriminativity_in_the_space(global_random_seed, space, m, M):
    p = check_heads(global_random_seed, space, m, M)
    assert p > ALPHA, f"heads deviate from discriminativity restricted to S⁻_F: p = {p:.3g}"


def pair_target(sampler, tail, m, M):
    """{(D+, D-): number of allowed sets inside F_{D+} and not inside F_{D-}}, by listing."""
    data = sampler.data
    sets = [set(s) for s in allowed_sets(sampler.family_, m, M)]
    features = [set(data.record_features[r].tolist()) for r in range(data.n_records)]
    positive = set(data.tail_support(tail).tolist())
    target = {}
    for p in sorted(positive):
        for q in sorted(set(range(data.n_records)) - positive):
            target[(p, q)] = sum(1 for s in sets if s <= features[p] and not s <= features[q])
    return target


@pytest.mark.parametrize("m, M", PAIR_CASES)
def test_cftp_pairs_follow_w(global_random_seed, m, M):
    sampler = head_sampler(global_random_seed, "cliques", m, M, n_records=16)
    tail = pick_tail(sampler.data, global_random_seed)
    pos, neg = sampler.sample_pairs(tail, N_SAMPLES, random_state=global_random_seed)
    p = goodness_of_fit(list(zip(pos.tolist(), neg.tolist())), pair_target(sampler, tail, m, M))
    assert p > ALPHA, f"CFTP pairs deviate from w: p = {p:.3g}"


def test_printed_tail_draw_fails_the_exactness_check(global_random_seed):
    """Algorithm 4's last line as printed (T ∝ |T|) is wrong once rules are selected (note 13)."""
    p = check_tails(global_random_seed, "cliques", True, mutation="printed_draw")
    assert p < ALPHA, f"the printed draw T ∝ |T| went unnoticed: p = {p:.3g}"


def test_printed_tail_draw_is_right_without_rules():
    """Without selected rules |T \\ cov_D| = |T|: the mutation changes nothing (the test above is specific)."""
    p = check_tails(0, "cliques", False, mutation="printed_draw")
    assert p > ALPHA


def test_head_draw_ignoring_negatives_fails_the_exactness_check(global_random_seed):
    p = check_heads(global_random_seed, "cliques", 1, None, mutation="ignore_negative")
    assert p < ALPHA, f"a head draw ignoring D- went unnoticed: p = {p:.3g}"


# -- weights and updates ----------------------------------------------------------------
def test_record_weights_are_algorithm_4_line_2(global_random_seed):
    data = random_data(global_random_seed)
    rules = random_rules(data, global_random_seed)
    sampler = tail_sampler(global_random_seed, "cliques", rules)
    uncovered = [set(np.flatnonzero(data.Y.toarray()[i]).tolist()) for i in range(data.n_records)]
    X = data.X.toarray().astype(bool)
    Y = data.Y.toarray().astype(bool)
    for head, tail in rules:
        for i in range(data.n_records):
            if X[i, list(head)].all() and Y[i, list(tail)].all():
                uncovered[i] -= set(tail)
    expected = []
    for i in range(data.n_records):
        labels = set(np.flatnonzero(Y[i]).tolist())
        expected.append(sum(len(set(s) & uncovered[i]) for s in sampler.family_.to_list() if set(s) <= labels))
    np.testing.assert_array_equal(sampler.record_weights, expected)
    assert sampler.total_weight == sum(expected)
    for s in sampler.family_.to_list():
        assert sampler.uncovered_area(s) == tail_target(data, rules)[s]


def test_rules_added_incrementally_equal_rules_at_construction(global_random_seed):
    data = random_data(global_random_seed)
    rules = random_rules(data, global_random_seed)
    a = InterpretableTailSampler(data, rules, alpha=LABEL_ALPHA)
    b = InterpretableTailSampler(data, alpha=LABEL_ALPHA)
    before = b.record_weights
    for rule in rules:
        matched = data.rule_support(*rule)
        previous = b.record_weights
        b.add_rules([rule])
        unchanged = np.setdiff1d(np.arange(data.n_records), matched)
        np.testing.assert_array_equal(b.record_weights[unchanged], previous[unchanged])
    np.testing.assert_array_equal(a.record_weights, b.record_weights)
    np.testing.assert_array_equal(a._tree, b._tree)
    assert (b.record_weights <= before).all()
    assert b.rules_ == a.rules_ == [(tuple(h), tuple(t)) for h, t in rules]
    assert a.sample(300, random_state=1) == b.sample(300, random_state=1)


def test_same_seed_same_samples():
    data = random_data(3)
    tails = InterpretableTailSampler(data, alpha=LABEL_ALPHA)
    assert tails.sample(200, random_state=5) == tails.sample(200, random_state=5)
    assert tails.sample(200, random_state=5) != tails.sample(200, random_state=6)
    heads = ReducedSpaceHeadSampler(data, alpha=FEATURE_ALPHA)
    tail = pick_tail(data, 3)
    assert heads.sample(tail, 200, random_state=5) == heads.sample(tail, 200, random_state=5)
    other = ReducedSpaceHeadSampler(data, alpha=FEATURE_ALPHA)
    assert other.sample(tail, 200, random_state=5) == heads.sample(tail, 200, random_state=5)


def test_samples_lie_in_the_space_and_in_their_record():
    data = random_data(4)
    sampler = InterpretableTailSampler(data, alpha=0.8, edge_probability="directed")
    assert sampler.family_.to_list() == interpretable_space(data, "labels", 0.8,
                                                            edge_probability="directed").to_list()
    tails, records = sampler.sample(500, random_state=0, return_records=True)
    space = set(sampler.family_.to_list())
    for t, r in zip(tails, records):
        assert t in space and set(t) <= set(data.record_labels[r].tolist())
    heads = ReducedSpaceHeadSampler(data, min_head_length=2, max_head_length=3, alpha=FEATURE_ALPHA)
    assert heads.family_.lengths().max() <= 3            # max_head_length caps the clique search
    tail = pick_tail(data, 4)
    out = heads.sample(tail, 300, random_state=0)
    assert set(out) <= set(heads.family_.to_list()) and all(2 <= len(h) <= 3 for h in out)


# -- public entry points ------------------------------------------------------------------
def test_public_entry_points():
    rng = np.random.RandomState(0)
    X = rng.rand(40, 6) < 0.5
    Y = rng.rand(40, 4) < 0.5
    tails = sample_tails(X, Y, 50, space="interpretable", random_state=1)
    assert tails == sample_tails(X, Y, 50, space="interpretable", random_state=1)
    space = set(interpretable_space(BinaryData(X, Y), "labels").to_list())
    assert set(tails) <= space
    tails_r = sample_tails(X, Y, 50, rules=[((0,), (1,))], space="interpretable", random_state=1)
    assert set(tails_r) <= space
    heads = sample_heads(X, Y, (0,), 30, method="surs", min_head_length=1, max_head_length=2,
                         random_state=2, alpha=0.5)
    fspace = set(interpretable_space(BinaryData(X, Y), "features", 0.5, max_size=2).to_list())
    assert set(heads) <= fspace and heads == sample_heads(
        X, Y, (0,), 30, method="surs", max_head_length=2, random_state=2, alpha=0.5)
    sampler = RuleSampler(X, Y)
    assert sampler.sample_tails(50, space="interpretable", random_state=1) == tails
    assert isinstance(make_tail_sampler(sampler.data, space="interpretable"), InterpretableTailSampler)
    assert isinstance(make_head_sampler(sampler.data, method="surs", max_head_length=2), ReducedSpaceHeadSampler)


def test_candidate_generator_with_both_spaces():
    data = random_data(5, n_records=60)
    generate = CandidateGenerator(data, n_tails=8, n_heads_per_tail=3, space="interpretable",
                                  head_method="surs", head_options={"alpha": FEATURE_ALPHA}, random_state=0)
    pool = generate([])
    assert pool and all(isinstance(h, tuple) and isinstance(t, tuple) for h, t in pool)
    label_space = set(interpretable_space(data, "labels").to_list())
    feature_space = set(interpretable_space(data, "features", FEATURE_ALPHA).to_list())
    assert all(t in label_space and h in feature_space for h, t in pool)
    pool2 = generate(pool[:2])
    assert generate._tail_sampler.rules_ == pool[:2]
    assert all(t in label_space for _, t in pool2)
    again = CandidateGenerator(data, n_tails=8, n_heads_per_tail=3, space="interpretable",
                               head_method="surs", head_options={"alpha": FEATURE_ALPHA}, random_state=0)
    assert again([]) == pool


def test_candidate_generator_skips_tails_as_for_the_full_space():
    X = np.array([[1, 0], [1, 1], [0, 1], [1, 0]])
    Y = np.array([[1, 1], [1, 0], [1, 1], [1, 0]])     # label 0 is carried by every record
    generate = CandidateGenerator(BinaryData(X, Y), n_tails=20, n_heads_per_tail=2, space="interpretable",
                                  head_method="surs", random_state=0)
    generate([])
    assert any(reason == "no negative record" for _, reason in generate.skipped_tails_)


# -- documented outcomes and errors ----------------------------------------------------------
def small():
    X = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1], [1, 1, 0], [0, 0, 0]])
    Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [0, 1]])
    return BinaryData(X, Y)


def test_head_errors_match_head_sampler():
    data = small()
    family = [(0,), (1,), (0, 1), (2,)]
    with pytest.raises(ValueError, match="no positive record"):
        ReducedSpaceHeadSampler(BinaryData(data.X, np.zeros((5, 1)))).sample((0,), 1)
    with pytest.raises(NoNegativeRecordsError, match="every record"):
        ReducedSpaceHeadSampler(BinaryData(data.X, np.ones((5, 1)))).sample((0,), 1)
    with pytest.raises(NoDiscriminativeHeadError, match="no positive record contains"):
        ReducedSpaceHeadSampler(data, min_head_length=3, family=family).sample((0,), 1)
    # Every allowed set inside the positive record lies inside every negative record.
    X = np.array([[1, 1], [1, 1], [1, 1]])
    Y = np.array([[1], [0], [0]])
    with pytest.raises(NoDiscriminativeHeadError, match="every set"):
        ReducedSpaceHeadSampler(BinaryData(X, Y)).sample((0,), 1)
    assert ReducedSpaceHeadSampler(data, family=family).sample((0,), 5, random_state=0)


def test_proposal_limit():
    # Positive {0, 1}; negatives {0, 1} (w = 0) and {} (w = 3): each proposal accepted w.p. 1/2.
    X = np.array([[1, 1], [1, 1], [0, 0]])
    Y = np.array([[1], [0], [0]])
    sampler = ReducedSpaceHeadSampler(BinaryData(X, Y), max_proposals=1, family=[(0,), (1,), (0, 1)])
    with pytest.raises(ProposalLimitError, match="max_proposals=1"):
        sampler.sample((0,), 50, random_state=0)
    ok = ReducedSpaceHeadSampler(BinaryData(X, Y), family=[(0,), (1,), (0, 1)])
    heads = ok.sample((0,), 2000, random_state=0)
    assert set(heads) == {(0,), (1,), (0, 1)}
    assert 1.5 < ok.last_stats_["n_trials"].mean() < 2.5      # Z̄/Z = 2


def test_everything_covered():
    data = small()
    sampler = InterpretableTailSampler(data)
    sampler.add_rules([((), (0, 1)), ((), (0,)), ((), (1,))])
    assert sampler.total_weight == 0
    with pytest.raises(SamplingError, match="uncovered area 0"):
        sampler.sample(1, random_state=0)
    generate = CandidateGenerator(data, n_tails=3, space="interpretable", head_method="surs")
    assert generate([((), (0,)), ((), (1,))]) == [] and generate.exhausted_


def test_bad_arguments():
    data = small()
    with pytest.raises(ValueError, match="family is given"):
        InterpretableTailSampler(data, family=[(0,)], alpha=0.5)
    with pytest.raises(ValueError, match="empty set"):
        InterpretableTailSampler(data, family=[(0,), ()])
    with pytest.raises(ValueError, match="twice"):
        ReducedSpaceHeadSampler(data, family=[(0,), (1, 2), (2, 1)])
    with pytest.raises(ValueError, match="over 5 items"):
        InterpretableTailSampler(data, family=SetFamily.from_sets([(0,)], 5))
    with pytest.raises(ValueError, match="outside"):
        InterpretableTailSampler(data, family=[(0, 2)])
    with pytest.raises(ValueError, match="proposal must be 'paper'"):
        ReducedSpaceHeadSampler(data, proposal="boley")
    with pytest.raises(ValueError, match="alpha"):
        InterpretableTailSampler(data, alpha=0.0)
    with pytest.raises(ValueError, match="max_head_length"):
        ReducedSpaceHeadSampler(data, min_head_length=3, max_head_length=2)
    with pytest.raises(TypeError, match="BinaryData"):
        InterpretableTailSampler(data.X)
    with pytest.raises(ValueError, match=r"rules\[0\]: the tail is empty"):
        InterpretableTailSampler(data, [((0,), ())])


def test_too_dense_for_the_caps_raises_the_labelspace_error():
    rng = np.random.RandomState(0)
    data = BinaryData(rng.rand(50, 12) < 0.9, rng.rand(50, 3) < 0.5)
    with pytest.raises(CliqueOverflowError, match="max_sets=20"):
        ReducedSpaceHeadSampler(data, max_sets=20)
    with pytest.raises(CliqueOverflowError, match="max_sets=2"):
        InterpretableTailSampler(data, alpha=0.1, max_sets=2)


# -- real data --------------------------------------------------------------------------------
@pytest.mark.realdata
def test_medical(data_dir):
    from corset.datasets import load_benchmark

    bunch = load_benchmark("medical", subset="train", data_home=data_dir)
    data = BinaryData(bunch.X, bunch.Y)
    tails = InterpretableTailSampler(data)
    assert len(tails.family_) == 50                       # docs/labelspace.rst
    drawn, records = tails.sample(2000, random_state=0, return_records=True)
    assert all(set(t) <= set(data.record_labels[r].tolist()) for t, r in zip(drawn, records))
    heads = ReducedSpaceHeadSampler(data, min_head_length=1, max_head_length=3)
    generate = CandidateGenerator(data, n_tails=20, n_heads_per_tail=5, space="interpretable",
                                  head_method="surs", max_head_length=3, random_state=0)
    pool = generate([])
    assert len(pool) > 20
    assert all(1 <= len(h) <= 3 for h, _ in pool)
    out = heads.sample(drawn[0], 100, random_state=0)
    assert all(data.rule_support(h, drawn[0]).size > 0 for h in out)
