"""The rule layer: one check_rules, RuleSet, Coverage against the record-level definition."""
import numpy as np
import pytest

from corset import BinaryData
from corset.rules import Coverage, RuleSet, check_rules, coverage_flags, d_specific_coverage, uncovered_label_counts
from corset.sampling import TailSampler
from corset.sampling import InterpretableTailSampler


def _data(seed, n=40, f=7, l=5):
    rng = np.random.RandomState(seed)
    return BinaryData((rng.rand(n, f) < 0.4).astype(np.uint8), (rng.rand(n, l) < 0.4).astype(np.uint8))


def _random_rules(rng, f, l, count, empty_heads=False):
    rules = []
    for _ in range(count):
        size = rng.randint(0 if empty_heads else 1, 3)
        head = tuple(sorted(rng.choice(f, size, replace=False).tolist()))
        tail = tuple(sorted(rng.choice(l, rng.randint(1, 3), replace=False).tolist()))
        rules.append((head, tail))
    return rules


def test_one_check_rules_policies():
    rules = [([2, 0], np.array([1])), ((0, 2), (1,)), ((), [0])]
    with pytest.raises(ValueError, match=r"rules\[2\]: the head is empty"):
        check_rules(rules, 3, 2, duplicates="drop")
    dropped = check_rules(rules, 3, 2, allow_empty_head=True, duplicates="drop")
    assert isinstance(dropped, RuleSet)
    assert dropped.rules == [((0, 2), (1,)), ((), (0,))] and dropped.first_index.tolist() == [0, 2]
    kept = check_rules(rules, 3, 2, allow_empty_head=True, duplicates="keep")
    assert kept.rules == [((0, 2), (1,)), ((0, 2), (1,)), ((), (0,))]
    with pytest.raises(ValueError, match=r"rules\[1\] repeats rules\[0\]"):
        check_rules(rules, 3, 2, allow_empty_head=True)
    with pytest.raises(ValueError, match=r"rules\[0\]: the tail is empty"):
        check_rules([((0,), ())], 3, 2, allow_empty_head=True)
    with pytest.raises(ValueError, match="duplicates must be one of"):
        check_rules([], 3, 2, duplicates="sometimes")
    # CSR arrays of rules with an empty head.
    head_indptr, head_ids, tail_indptr, tail_ids = dropped.arrays
    assert head_indptr.tolist() == [0, 2, 2] and head_ids.tolist() == [0, 2]
    assert tail_indptr.tolist() == [0, 1, 2] and tail_ids.tolist() == [1, 0]
    assert check_rules(None, 3, 2).rules == []


def test_a_rule_set_is_not_checked_twice():
    checked = check_rules([((0,), (1,)), ((1,), (0,))], 3, 2)
    assert check_rules(checked, 3, 2) is checked
    # Other sizes, or a stricter policy than the set was checked under: checked again.
    assert check_rules(checked, 4, 2) is not checked
    with_empty = check_rules([((), (1,))], 3, 2, allow_empty_head=True)
    with pytest.raises(ValueError, match="the head is empty"):
        check_rules(with_empty, 3, 2)


@pytest.mark.parametrize("seed", range(6))
def test_coverage_matches_the_record_level_definition(seed):
    data = _data(seed)
    rng = np.random.RandomState(100 + seed)
    rules = _random_rules(rng, data.n_features, data.n_labels, 8, empty_heads=True)
    X, Y = data.X.toarray(), data.Y.toarray()
    coverage = Coverage(data)
    total = 0
    for i, (head, tail) in enumerate(rules):
        area = coverage.add(head, tail)
        # Brute force: cov(ℛ) per record from eq. covD, before and after the rule.
        before = [d_specific_coverage(rules[:i], np.flatnonzero(X[r]), np.flatnonzero(Y[r]))
                  for r in range(data.n_records)]
        after = [d_specific_coverage(rules[:i + 1], np.flatnonzero(X[r]), np.flatnonzero(Y[r]))
                 for r in range(data.n_records)]
        assert area == sum(len(a) - len(b) for a, b in zip(after, before))
        total += area
    flags = coverage.covered
    expected = np.concatenate([[k in after[r] for k in np.flatnonzero(Y[r])] for r in range(data.n_records)])
    assert np.array_equal(flags.astype(bool), expected.astype(bool))
    assert coverage.n_uncovered.tolist() == [int(Y[r].sum()) - len(after[r]) for r in range(data.n_records)]
    assert total == data.n_label_occurrences - coverage.total_uncovered
    assert np.array_equal(coverage_flags(data, rules), flags)
    assert np.array_equal(uncovered_label_counts(data, rules), coverage.n_uncovered)
    # touched_records: the records each rule matched (D[R]), sorted and distinct.
    for start in (0, 3, 8):
        expected = sorted({int(r) for head, tail in rules[start:] for r in data.rule_support(head, tail)})
        assert coverage.touched_records(start).tolist() == expected


def test_best_accuracy_is_the_largest_among_covering_rules():
    data = _data(3)
    coverage = Coverage(data)
    rules = _random_rules(np.random.RandomState(0), data.n_features, data.n_labels, 6)
    accuracies = [0.3, 0.1, 0.7, 0.2, 0.5, 0.05]
    best = np.zeros(data.n_label_occurrences)
    for (head, tail), a in zip(rules, accuracies):
        single = Coverage(data)
        single.add(head, tail)
        best = np.where(single.covered == 1, np.maximum(best, a), best)
        coverage.add(head, tail, accuracy=a)
    assert np.array_equal(coverage.best_accuracy, best)


@pytest.mark.parametrize("sampler_class", [TailSampler, InterpretableTailSampler])
@pytest.mark.parametrize("seed", range(3))
def test_tail_samplers_following_a_shared_coverage_draw_as_with_their_own(sampler_class, seed):
    """Rules added to the shared coverage reach the sampler's weights before its next draw."""
    data = _data(seed, n=60)
    rules = _random_rules(np.random.RandomState(seed), data.n_features, data.n_labels, 5)
    shared = Coverage(data)
    follower = sampler_class(data, coverage=shared)
    own = sampler_class(data)
    for rule in rules:
        shared.add(*rule)
        own.add_rules([rule])
        assert follower.sample(30, random_state=seed) == own.sample(30, random_state=seed)
        assert follower.rules_ == own.rules_
    with pytest.raises(ValueError, match="same BinaryData"):
        sampler_class(_data(seed + 10, n=60), coverage=shared)


@pytest.mark.parametrize("n_features, error", [(None, TypeError), (8.5, TypeError), (-1, ValueError)])
def test_check_rules_sizes_must_be_counts(n_features, error):
    """None failed comparing an int with None; 8.5 was taken as a size."""
    with pytest.raises(error, match="n_features must be an integer >= 0"):
        check_rules([((0,), (0,))], n_features, 4)
    assert check_rules([((0,), (0,))], np.int64(8), np.int32(4)).rules == [((0,), (0,))]
