"""Every term of CORSET's objective against the pure-Python reference (test_selection_reference)."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import test_selection_reference as ref
from corset import BinaryData
from corset.selection import (
    adjusted_accuracy,
    check_rules,
    coverage_flags,
    d_specific_coverage,
    jaccard_distance,
    marginal_coverage,
    objective,
    objective_terms,
    pairwise_distances,
    rule_quality,
    rule_statistics,
    submodular_quality,
    uncovered_area,
    uncovered_label_counts,
)


@st.composite
def data_and_rules(draw, min_rules=0, max_rules=8):
    X, Y = draw(ref.binary_data())
    rules = ref.dedup(draw(ref.rules_on(X, Y, min_size=min_rules, max_size=max_rules)))
    assume(len(rules) >= min_rules)
    return X, Y, rules


# The edge cases spelled out: label 0 is carried by every record (P_D = 1), rule 1 has
# P_R = 1 > P_D, rule 2's head matches no record (empty D[H]), rule 3's tail no record.
EDGE_X = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 1], [1, 0, 0, 1]], dtype=np.uint8)
EDGE_Y = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [1, 0, 0]], dtype=np.uint8)
EDGE_RULES = [((0,), (0,)), ((1,), (1,)), ((2,), (0,)), ((0,), (2,)), ((0, 1), (0, 1))]


@given(data_and_rules())
@example((EDGE_X, EDGE_Y, EDGE_RULES))
@settings(max_examples=100, deadline=None)
def test_rule_statistics_match_reference(case):
    X, Y, rules = case
    data = BinaryData(X, Y)
    reference = ref.RefData(X, Y)
    stats = rule_statistics(data, rules)
    assert stats.rules == rules
    for i, rule in enumerate(rules):
        head = ref.head_support(reference, rule)
        tail = ref.tail_support(reference, rule)
        assert stats.support(i).tolist() == sorted(ref.rule_support(reference, rule))
        assert stats.head_counts[i] == len(head)
        assert stats.tail_counts[i] == len(tail)
        assert stats.coverage_sizes[i] == len(ref.coverage(reference, rule))
        assert stats.precision[i] == (len(head & tail) / len(head) if head else 0.0)
        assert stats.base_rate[i] == len(tail) / reference.n
        expected = ref.accuracy(reference, rule)
        assert stats.accuracy[i] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert np.isfinite(stats.accuracy).all()
    assert (stats.accuracy >= 0).all()


def test_adjusted_accuracy_edge_cases():
    n = 10
    # |D[H]| = 0: P_R undefined -> 0 (note 5).
    assert adjusted_accuracy(0, 0, 4, n) == 0.0
    # P_D = 1: a tail carried by every record; the indicator is 0 even when P_R = 1.
    assert adjusted_accuracy(3, 3, 10, n) == 0.0
    # P_R = 1 > P_D: the (1 - p) log((1 - p)/(1 - q)) term is 0 log 0 = 0.
    assert adjusted_accuracy(2, 2, 5, n) == pytest.approx(math.log(2.0))
    # P_R = P_D exactly (2/4 = 5/10): the indicator is evaluated on integers and is 0.
    assert adjusted_accuracy(2, 4, 5, n) == 0.0
    # P_R < P_D: 0.
    assert adjusted_accuracy(1, 4, 5, n) == 0.0
    # A tail with no positive records: |D[R]| = 0 -> 0.
    assert adjusted_accuracy(0, 5, 0, n) == 0.0
    # No records at all.
    assert adjusted_accuracy(0, 0, 0, 0) == 0.0
    # Vectorised: no NaN, no warning.
    with np.errstate(all="raise"):
        values = adjusted_accuracy(np.array([0, 3, 2, 2, 1, 0]), np.array([0, 3, 2, 4, 4, 5]),
                                   np.array([4, 10, 5, 5, 5, 0]), n)
    assert np.isfinite(values).all()
    assert values.tolist() == pytest.approx([0, 0, math.log(2.0), 0, 0, 0])
    # An interior value against the closed form.
    p, q = 3 / 4, 3 / 10
    expected = p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))
    assert adjusted_accuracy(3, 4, 3, n) == pytest.approx(expected, rel=1e-14)


@given(data_and_rules(min_rules=1), st.data())
@settings(max_examples=80, deadline=None)
def test_uncovered_area_and_quality_match_reference(case, draw):
    X, Y, rules = case
    data = BinaryData(X, Y)
    reference = ref.RefData(X, Y)
    rule = rules[0]
    others = [r for r in rules[1:] if draw.draw(st.booleans())]
    covered = set().union(*(ref.coverage(reference, r) for r in others))
    area = len(ref.coverage(reference, rule) - covered)
    assert uncovered_area(data, rule, others) == area
    assert rule_quality(data, rule, others) == pytest.approx(area * ref.accuracy(reference, rule), rel=1e-12,
                                                             abs=1e-15)
    # With the rule itself among the selected ones, nothing is left uncovered.
    assert uncovered_area(data, rule, others + [rule]) == 0


@given(data_and_rules(min_rules=2))
@settings(max_examples=80, deadline=None)
def test_jaccard_distance_matches_reference(case):
    X, Y, rules = case
    data = BinaryData(X, Y)
    reference = ref.RefData(X, Y)
    covs = [ref.coverage(reference, r) for r in rules]
    matrix = pairwise_distances(data, rules)
    assert matrix.shape == (len(rules), len(rules))
    for i in range(len(rules)):
        assert matrix[i, i] == 0.0
        for j in range(len(rules)):
            assert matrix[i, j] == ref.distance(covs[i], covs[j])
    assert jaccard_distance(data, rules[0], rules[1]) == ref.distance(covs[0], covs[1])
    # A metric: the triangle inequality on every triple.
    n = len(rules)
    for i in range(n):
        for j in range(n):
            assert (matrix[i, j] <= matrix[i, :] + matrix[:, j] + 1e-12).all()


def test_distance_of_empty_coverages():
    X = np.array([[1, 0], [0, 1]])
    Y = np.array([[1, 0], [0, 1]])
    data = BinaryData(X, Y)
    empty_a, empty_b, full = ((0,), (1,)), ((1,), (0,)), ((0,), (0,))
    assert rule_statistics(data, [empty_a, empty_b]).coverage_sizes.tolist() == [0, 0]
    assert jaccard_distance(data, empty_a, empty_b) == 0.0   # identical (empty) sets
    assert jaccard_distance(data, empty_a, full) == 1.0
    assert jaccard_distance(data, full, ((0,), (0, 1))) == 1.0  # D[R] of the second is empty


@given(data_and_rules(), st.floats(0, 5), st.sampled_from(["paper", "submodular"]))
@example((EDGE_X, EDGE_Y, EDGE_RULES), 0.5, "paper")
@example((EDGE_X, EDGE_Y, EDGE_RULES), 0.5, "submodular")
@settings(max_examples=100, deadline=None)
def test_objective_matches_reference(case, lam, quality):
    X, Y, rules = case
    data = BinaryData(X, Y)
    reference = ref.RefData(X, Y)
    expected = ref.objective(reference, rules, lam, quality)
    assert objective(data, rules, lam=lam, quality=quality) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    q_term, d_term = objective_terms(data, rules, quality=quality)
    assert q_term + lam * d_term == pytest.approx(expected, rel=1e-12, abs=1e-12)
    if quality == "submodular":
        assert submodular_quality(data, rules) == pytest.approx(ref.objective(reference, rules, 0, quality),
                                                                 rel=1e-12, abs=1e-12)


def test_objective_quality_is_against_the_other_rules():
    # Note 4: a rule's quality is measured against the OTHER rules, not a set containing itself.
    X = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    Y = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    data = BinaryData(X, Y)
    a = ((0,), (0,))
    b = ((1,), (1,))
    single = objective(data, [a], lam=0)
    assert single == pytest.approx(2 * math.log(2.0))  # P_R = 1, P_D = 1/2, area 2
    both = objective(data, [a, b], lam=0.0)
    assert both == pytest.approx(2 * math.log(2.0) + math.log(4.0))
    # Diversity over unordered pairs (note 2): one pair, distance 1.
    assert objective(data, [a, b], lam=1.0) - both == pytest.approx(1.0)
    assert objective(data, [], lam=1.0) == 0.0


@given(data_and_rules())
@settings(max_examples=80, deadline=None)
def test_coverage_flags_match_record_level_coverage(case):
    # cov(ℛ) as flags over occurrences, against eq. covDset record by record.
    X, Y, rules = case
    data = BinaryData(X, Y)
    flags = coverage_flags(data, rules)
    assert flags.dtype == np.uint8 and flags.shape == (int(Y.sum()),)
    counts = uncovered_label_counts(data, rules)
    for i in range(X.shape[0]):
        labels = data.record_labels[i].tolist()
        start = data.Y.indptr[i]
        covered = {k for r, k in enumerate(labels) if flags[start + r]}
        features = set(np.flatnonzero(X[i]).tolist())
        assert covered == d_specific_coverage(rules, features, set(labels))
        assert counts[i] == len(set(labels) - covered)
    # And against the materialised union of coverages.
    reference = ref.RefData(X, Y)
    union = set().union(*(ref.coverage(reference, r) for r in rules)) if rules else set()
    assert int(flags.sum()) == len(union)


def test_d_specific_coverage_example_of_section_samp_corrected():
    # Section samp, corrected as docs/corrections.rst says.
    features, labels = {0, 1, 2, 3}, {"a", "b", "c"}
    r1 = ({0, 1}, {"a"})
    r2 = ({1, 2}, {"a", "b"})
    r3 = ({2, 4}, {"a", "c"})          # head does not match D
    r3_printed = ({2, 3}, {"a", "c"})  # head and tail match D
    assert [d_specific_coverage([r], features, labels) for r in (r1, r2, r3)] == [{"a"}, {"a", "b"}, set()]
    assert marginal_coverage({"b", "c"}, [r1, r2, r3], features, labels) == {"c"}
    assert len(marginal_coverage({"b", "c"}, [r1, r2, r3], features, labels)) == 1
    # The printed R3 matches D: cov_D(R3) = {a, c}, not the empty set, and the weight is 0.
    assert d_specific_coverage([r3_printed], features, labels) == {"a", "c"}
    assert marginal_coverage({"b", "c"}, [r1, r2, r3_printed], features, labels) == set()
    # U_D: the record's labels left uncovered.
    assert labels - d_specific_coverage([r1, r2, r3], features, labels) == {"c"}


def test_d_specific_coverage_example_on_binary_data():
    # The same example as a one-record data set (labels a, b, c -> 0, 1, 2) plus a
    # second record so that R3's head {2, 4} has support; the flags agree.
    X = np.array([[1, 1, 1, 1, 0], [0, 0, 1, 0, 1]])
    Y = np.array([[1, 1, 1], [1, 0, 1]])
    data = BinaryData(X, Y)
    rules = [((0, 1), (0,)), ((1, 2), (0, 1)), ((2, 4), (0, 2))]
    flags = coverage_flags(data, rules)
    assert flags[:3].tolist() == [1, 1, 0]          # record 0: a, b covered, c not
    assert uncovered_label_counts(data, rules).tolist() == [1, 0]
    printed = [((0, 1), (0,)), ((1, 2), (0, 1)), ((2, 3), (0, 2))]
    assert coverage_flags(data, printed)[:3].tolist() == [1, 1, 1]
    assert uncovered_label_counts(data, printed).tolist() == [0, 2]


def test_statistics_on_sparse_input_and_subsets():
    rng = np.random.RandomState(0)
    X = (rng.rand(30, 8) < 0.4).astype(np.uint8)
    Y = (rng.rand(30, 4) < 0.4).astype(np.uint8)
    rules = ref.record_rules(rng, X, Y, 20)
    rules = ref.dedup(rules)
    dense = rule_statistics(BinaryData(X, Y), rules)
    sparse = rule_statistics(BinaryData(sp.csr_matrix(X), sp.csc_array(Y)), rules)
    assert dense.support_ids.tolist() == sparse.support_ids.tolist()
    np.testing.assert_array_equal(dense.accuracy, sparse.accuracy)
    part = dense.subset([3, 0, 5])
    assert part.rules == [rules[3], rules[0], rules[5]]
    for k, i in enumerate([3, 0, 5]):
        assert part.support(k).tolist() == dense.support(i).tolist()
        assert part.tail(k).tolist() == dense.tail(i).tolist()
    assert part.accuracy.tolist() == dense.accuracy[[3, 0, 5]].tolist()


@pytest.mark.parametrize("rules, message", [
    ([((), (0,))], r"rules\[0\]: the head is empty"),
    ([((0,), ())], r"rules\[0\]: the tail is empty"),
    ([((0, 7), (0,))], r"head holds a feature id outside \[0, 3\)"),
    ([((0,), (5,))], r"tail holds a label id outside \[0, 2\)"),
    ([((0, 0), (0,))], r"head holds a duplicate id"),
    ([((0.5,), (0,))], r"head must hold integer ids"),
    ([((True,), (0,))], r"head must hold integer ids"),
    ([((0,), "1")], r"tail must be a sequence of integer ids"),
    ([((0,), (0,)), ((0,), (0,))], r"rules\[1\] repeats rules\[0\]"),
    ([(0, 1, 2)], r"rules\[0\] must be a \(head, tail\) pair"),
    ([5], r"rules\[0\] must be a \(head, tail\) pair"),
])
def test_check_rules_errors(rules, message):
    with pytest.raises(ValueError, match=message):
        check_rules(rules, 3, 2)


def test_check_rules_canonical_form_and_dedup():
    rules = [([2, 0], np.array([1])), ((0, 2), (1,)), ((np.int64(1),), [0])]
    checked = check_rules(rules, 3, 2, duplicates="drop")
    canonical, arrays, first = checked.rules, checked.arrays, checked.first_index
    assert canonical == [((0, 2), (1,)), ((1,), (0,))]
    assert all(type(x) is int for rule in canonical for part in rule for x in part)
    assert first.tolist() == [0, 2]
    head_indptr, head_ids, tail_indptr, tail_ids = arrays
    assert head_indptr.tolist() == [0, 2, 3] and head_ids.tolist() == [0, 2, 1]
    assert tail_indptr.tolist() == [0, 1, 2] and tail_ids.tolist() == [1, 0]


def test_objective_argument_errors():
    data = BinaryData(np.eye(2, dtype=np.uint8), np.eye(2, dtype=np.uint8))
    with pytest.raises(ValueError, match="quality must be one of"):
        objective(data, [], quality="nope")
    with pytest.raises(ValueError, match="lam must be a finite number >= 0"):
        objective(data, [], lam=-1)
    with pytest.raises(ValueError, match="rules\\[1\\] repeats"):
        objective(data, [((0,), (0,)), ((0,), (0,))])


def test_edge_case_statistics():
    stats = rule_statistics(BinaryData(EDGE_X, EDGE_Y), EDGE_RULES)
    assert stats.base_rate[0] == 1.0 and stats.accuracy[0] == 0.0            # P_D = 1
    assert stats.precision[1] == 1.0 and stats.accuracy[1] == pytest.approx(math.log(2.0))  # P_R = 1, P_D = 1/2
    assert stats.head_counts[2] == 0 and stats.accuracy[2] == 0.0            # empty D[H]
    assert stats.tail_counts[3] == 0 and stats.coverage_sizes[3] == 0 and stats.accuracy[3] == 0.0


def test_documented_examples():
    import doctest
    from pathlib import Path

    import corset.rules._coverage
    import corset.rules._predict
    import corset.selection._greedy
    import corset.selection._objective

    for module in (corset.selection._greedy, corset.selection._objective, corset.rules._predict,
                   corset.rules._coverage):
        assert doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0
    page = Path(__file__).resolve().parent.parent / "docs" / "selection.rst"
    if page.exists():
        assert doctest.testfile(str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_submodular_term_from_a_coverage_is_the_same_number(seed):
    # objective_terms(best_accuracy=Coverage.best_accuracy of the same rules) sums Q from
    # the coverage instead of materialising it again: the same float.
    from corset.datasets import make_rule_data
    from corset.rules import Coverage
    from corset.selection import objective_terms, rule_statistics

    data_ = make_rule_data(n_records=500, n_features=30, n_labels=12, random_state=seed)
    data = BinaryData(data_.X, data_.Y)
    rng = np.random.RandomState(seed)
    rules = {(tuple(sorted(rng.choice(30, rng.randint(1, 3), replace=False).tolist())),
              tuple(sorted(rng.choice(12, rng.randint(1, 3), replace=False).tolist()))) for _ in range(40)}
    rules = sorted(rules)
    stats = rule_statistics(data, rules)
    coverage = Coverage(data)
    for i, rule in enumerate(rules):
        coverage.add(*rule, support=stats.support(i), accuracy=float(stats.accuracy[i]))
    assert (objective_terms(data, rules, quality="submodular", best_accuracy=coverage.best_accuracy)
            == objective_terms(data, rules, quality="submodular"))


@pytest.mark.parametrize("seed", range(6))
def test_compiled_columns_are_the_doubles_of_adjusted_accuracy(seed):
    # RuleStatistics takes P_R, P_D and a(R) from one compiled pass (_selection.rule_columns); the
    # greedy's ties depend on the last bit, so they must be adjusted_accuracy's own numbers: scipy's
    # rel_entr, not a libm x·log(x/y) (which differs in the last bit, e.g. at P_R = 0.6, P_D = 0.4).
    from corset._ext import _selection
    from corset.selection._rules import _adjusted_accuracy

    rng = np.random.default_rng(seed)
    for n in (1, 7, 60, 1000, 10**6):
        m = 4000
        t, h = rng.integers(0, n + 1, m), rng.integers(0, n + 1, m)
        r = np.minimum(rng.integers(0, n + 1, m), np.minimum(t, h))
        r[::3] = np.minimum(t, h)[::3]   # P_R = 1 where the head lies inside the tail
        support_indptr = np.concatenate([[0], np.cumsum(r)]).astype(np.int64)
        tail_lengths = rng.integers(1, 4, m)
        tail_indptr = np.concatenate([[0], np.cumsum(tail_lengths)]).astype(np.int64)
        counts, lengths, sizes, precision, base_rate, accuracy = _selection.rule_columns(
            support_indptr, tail_indptr, h.astype(np.int64), t.astype(np.int64), n)
        assert counts.tolist() == r.tolist() and lengths.tolist() == tail_lengths.tolist()
        assert sizes.tolist() == (r * tail_lengths).tolist()
        expected = _adjusted_accuracy(r, h, t, n)
        assert accuracy.tobytes() == expected.tobytes()
        assert precision.tobytes() == np.divide(r, h, out=np.zeros(m), where=h > 0).tobytes()
        assert base_rate.tobytes() == (t / n).tobytes()
    assert _selection.rule_columns(np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64),
                                   np.zeros(0, np.int64), 0)[5].size == 0
    assert _selection.rule_columns(np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros(2, np.int64),
                                   np.zeros(2, np.int64), 0)[4].tolist() == [0.0, 0.0]
