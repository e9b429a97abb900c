"""Input checks of the rule and selection API: what a caller hands in is validated before compiled code runs.

Covers :class:`corset.rules.CandidatePool` (its arrays are its own and
read-only; ``from_rules`` refuses bools and floats inside a head or tail),
:meth:`corset.rules.Coverage.add` (ids in any order are sorted; a ``support``
out of range, unsorted or repeated is refused), :class:`RuleStatistics`
(boolean masks, rule indices outside ``[0, len)``),
:func:`~corset.selection.adjusted_accuracy` (integer counts that respect
``|D[R]| <= |D[H]|, |D[T]| <= |D|``) and
:func:`~corset.selection.jaccard_distance` (a rule is at distance 0 from
itself).

Where the unchecked input used to crash the process, the test never runs
the crashing call: it checks that the array cannot be changed, or replaces
the kernel with one that fails the test if it is reached.
"""
import numpy as np
import pytest

from corset.rules import CandidatePool, Coverage
from corset.rules import _coverage as coverage_module
from corset.selection import adjusted_accuracy, greedy_selection, jaccard_distance, rule_statistics


@pytest.fixture
def data(tiny_data):
    return tiny_data


@pytest.fixture
def kernel_must_not_run(monkeypatch):
    """Replace the coverage kernels with one that fails the test: the input must be refused before."""
    def reached(*args, **kwargs):
        raise AssertionError("the coverage kernel was reached with unchecked input")

    monkeypatch.setattr(coverage_module._coverage, "cover", reached)
    monkeypatch.setattr(coverage_module._coverage, "cover_by_label", reached)


# -- CandidatePool -------------------------------------------------------------

def test_pool_keeps_read_only_arrays_of_its_own():
    indptr = np.array([0, 1], dtype=np.int64)
    head = np.array([1], dtype=np.int32)
    tail = np.array([0], dtype=np.int32)
    pool = CandidatePool(indptr, head, indptr, tail, n_features=8, n_labels=4)
    for mine, theirs in zip(pool.arrays, (indptr, head, indptr, tail)):
        assert not np.shares_memory(mine, theirs)
        assert not mine.flags.writeable
    # The caller's arrays stay theirs (and writable): changing them changes nothing in the pool.
    tail[0] = -5
    head[0] = 100
    assert list(pool) == [((1,), (0,))]
    # The pool's own arrays cannot be changed behind the checks (a bad id would crash the kernels).
    with pytest.raises(ValueError):
        pool.tail_ids[0] = -5
    with pytest.raises(ValueError):
        pool.head_indptr[1] = 10**6


def test_pool_arrays_are_read_only_on_every_path():
    ok = dict(n_features=8, n_labels=4)
    pools = [CandidatePool([0, 1], [1], [0, 1], [0], **ok),
             CandidatePool.from_rules([((1, 3), (0, 2))], **ok),
             CandidatePool._from_search(np.array([0, 1]), np.array([1], dtype=np.int32),
                                        np.array([0, 1]), np.array([0], dtype=np.int32), **ok)]
    for pool in pools:
        assert all(not a.flags.writeable for a in pool.arrays)


def test_a_view_or_buffer_is_copied_too():
    ids = np.array([0, 5, 1, 7], dtype=np.int32)
    view = ids[::2]                      # not contiguous: converted, a new array
    buffer = memoryview(ids[2:3])        # contiguous: read in place by numpy
    pool = CandidatePool([0, 1, 2], view, [0, 1, 2], [0, 1], n_features=8, n_labels=4)
    assert not np.shares_memory(pool.head_ids, ids)
    pool = CandidatePool([0, 1], buffer, [0, 1], [0], n_features=8, n_labels=4)
    assert not np.shares_memory(pool.head_ids, ids)
    ids[2] = 100
    assert list(pool) == [((1,), (0,))]


def test_greedy_selection_reads_a_read_only_pool(data):
    pool = CandidatePool.from_rules([((0,), (0,)), ((1,), (1, 2)), ((2,), (1,))],
                                    n_features=data.n_features, n_labels=data.n_labels)
    result = greedy_selection(data, lambda rules: pool, n_rules=2)
    assert len(result.rules) >= 1
    assert all(rule in list(pool) for rule in result.rules)


@pytest.mark.parametrize("rule, what", [
    (((True, 2), (0,)), "head"),
    (((np.True_, 2), (0,)), "head"),
    (((1.5, 2), (0,)), "head"),
    (((1.0, 2), (0,)), "head"),
    (((1, 2), (False,)), "tail"),
    (((1, 2), ("0",)), "tail"),
])
def test_from_rules_refuses_a_bool_or_float_id(rule, what):
    with pytest.raises(ValueError, match=f"rule 1: the {what} must hold integer ids"):
        CandidatePool.from_rules([((0,), (1,)), rule], n_features=8, n_labels=4)


def test_from_rules_takes_numpy_ints_and_refuses_huge_ids():
    pool = CandidatePool.from_rules([((np.int64(1), np.int32(2)), (np.uint8(0),))], n_features=8, n_labels=4)
    assert list(pool) == [((1, 2), (0,))]
    with pytest.raises(ValueError, match="outside \\[0, 8\\)"):
        CandidatePool.from_rules([((2**70,), (0,))], n_features=8, n_labels=4)


# -- Coverage.add -------------------------------------------------------------

@pytest.mark.parametrize("support, message", [
    (np.array([10**8]), "outside \\[0, 5\\)"),
    (np.array([-1]), "outside \\[0, 5\\)"),
    (np.array([2**40]), "outside \\[0, 5\\)"),       # would wrap into range as int32
    (np.array([3, 1]), "strictly increasing"),
    (np.array([1, 1]), "strictly increasing"),
    (np.array([1.0]), "integer"),
    (np.array([True]), "integer"),
    (np.array([[0, 1]]), "1-D"),
])
def test_coverage_add_checks_the_support(data, kernel_must_not_run, support, message):
    coverage = Coverage(data)
    with pytest.raises(ValueError, match=message):
        coverage.add((0,), (0,), support=support)
    assert coverage.rules == [] and coverage.total_uncovered == data.n_label_occurrences


def test_coverage_add_checks_the_tail_even_with_a_support(data, kernel_must_not_run):
    coverage = Coverage(data)
    with pytest.raises(ValueError, match="tail holds a label id outside \\[0, 3\\)"):
        coverage.add((0,), (7,), support=np.array([0], dtype=np.int32))
    with pytest.raises(ValueError, match="tail is empty"):
        coverage.add((0,), (), support=np.array([0], dtype=np.int32))
    with pytest.raises(ValueError, match="head must hold integer ids"):
        coverage.add((True,), (0,))


def test_coverage_add_sorts_ids_given_in_any_order(data):
    ordered, shuffled = Coverage(data), Coverage(data)
    area = ordered.add((0, 2), (0, 1))
    assert area == 4                     # records 0 and 3, labels 0 and 1
    assert shuffled.add((2, 0), (1, 0)) == area
    assert shuffled.rules == ordered.rules == [((0, 2), (0, 1))]
    np.testing.assert_array_equal(shuffled.covered, ordered.covered)
    # With the support given, the unsorted tail is sorted all the same.
    given = Coverage(data)
    support = data.rule_support((0, 2), (0, 1))
    assert given.add((0, 2), np.array([1, 0]), support=support) == area
    assert given.rules == ordered.rules
    np.testing.assert_array_equal(given.covered, ordered.covered)


def test_coverage_add_takes_a_valid_support(data):
    support = data.rule_support((0,), (0,))
    with_support, without = Coverage(data), Coverage(data)
    assert with_support.add((0,), (0,), support=support.tolist()) == without.add((0,), (0,))
    np.testing.assert_array_equal(with_support.covered, without.covered)
    assert Coverage(data).add((0,), (0,), support=np.zeros(0, dtype=np.int64)) == 0


# -- RuleStatistics -----------------------------------------------------------

@pytest.fixture
def stats(data):
    rules = [((0,), (0,)), ((1,), (0,)), ((2,), (1,)), ((3,), (2,)), ((0, 2), (0, 1))]
    return rule_statistics(data, rules)


def test_subset_reads_a_boolean_mask_as_a_mask(stats):
    mask = np.array([True, False, True, False, False])
    assert stats.subset(mask).rules == [stats.rules[0], stats.rules[2]]
    assert stats.subset([False] * 5).rules == []
    np.testing.assert_array_equal(stats.subset(mask).accuracy, stats.accuracy[[0, 2]])
    with pytest.raises(ValueError, match="one entry per rule \\(5\\)"):
        stats.subset(np.array([True, False]))


def test_subset_refuses_indices_outside_the_rules(stats):
    assert stats.subset([4, 0, 4]).rules == [stats.rules[4], stats.rules[0], stats.rules[4]]
    assert stats.subset([]).rules == []
    with pytest.raises(IndexError, match="rule index -1"):
        stats.subset([-1])
    with pytest.raises(IndexError, match="rule index 5"):
        stats.subset([0, 5])
    with pytest.raises(ValueError, match="integers"):
        stats.subset([1.5])


@pytest.mark.parametrize("method", ["support", "tail", "rule"])
def test_a_rule_index_outside_the_rules_is_an_index_error(stats, method):
    for bad in (-1, -5, 5, 100):
        with pytest.raises(IndexError, match=f"rule index {bad} is outside \\[0, 5\\)"):
            getattr(stats, method)(bad)
    with pytest.raises(TypeError, match="rule index must be an integer"):
        getattr(stats, method)(1.0)
    # np.int64 indices (an arg max) are rule numbers like any other.
    assert np.asarray(getattr(stats, method)(np.int64(4)), dtype=object).size > 0


def test_rule_index_check_holds_without_the_rule_tuples(stats):
    lazy = stats.subset(np.arange(5))
    lazy._rules = None                   # the tuples built from the arrays, as for a pool
    assert lazy.rule(4) == stats.rules[4]
    with pytest.raises(IndexError, match="rule index -1"):
        lazy.rule(-1)


# -- adjusted_accuracy -----------------------------------------------------------

@pytest.mark.parametrize("args, name", [
    ((2.5, 5, 10, 40), "rule_count"),
    ((2, 5.5, 10, 40), "head_count"),
    ((2, 5, float("nan"), 40), "tail_count"),
    ((2, 5, 10, 40.5), "n_records"),
    ((True, 5, 10, 40), "rule_count"),
    ((-1, 5, 10, 40), "rule_count"),
    ((2, -5, 10, 40), "head_count"),
    ((2, 5, 10, -1), "n_records"),
    (("2", 5, 10, 40), "rule_count"),
])
def test_adjusted_accuracy_refuses_a_count_that_is_not_one(args, name):
    with pytest.raises(ValueError, match=name):
        adjusted_accuracy(*args)


@pytest.mark.parametrize("args, message", [
    ((6, 5, 10, 40), "rule_count must be <= head_count"),
    ((6, 10, 5, 40), "rule_count must be <= tail_count"),
    ((2, 50, 10, 40), "head_count must be <= n_records"),
    ((2, 5, 50, 40), "tail_count must be <= n_records"),
])
def test_adjusted_accuracy_refuses_counts_no_rule_has(args, message):
    with pytest.raises(ValueError, match=message):
        adjusted_accuracy(*args)


def test_adjusted_accuracy_checks_every_entry_of_an_array():
    good = adjusted_accuracy(np.array([2, 3]), np.array([5, 3]), np.array([10, 10]), 40)
    assert good.shape == (2,) and np.isfinite(good).all()
    with pytest.raises(ValueError, match="rule_count must be <= head_count.*6 > 5 at index 1"):
        adjusted_accuracy(np.array([2, 6]), np.array([5, 5]), 10, 40)
    with pytest.raises(ValueError, match="n_records must be one integer"):
        adjusted_accuracy(2, 5, 10, np.array([40, 40]))
    # Integral floats are counts, read as the integers they are.
    assert adjusted_accuracy(2.0, 5.0, 10.0, 40.0) == adjusted_accuracy(2, 5, 10, 40)


# -- jaccard_distance -------------------------------------------------------------

def test_a_rule_is_at_distance_zero_from_itself(data):
    rule = ((0,), (0,))
    assert jaccard_distance(data, rule, rule) == 0.0
    assert jaccard_distance(data, ((0, 2), (0, 1)), ((2, 0), (1, 0))) == 0.0
    empty = ((0, 1, 2, 3), (0,))         # matches no record: an empty coverage
    assert rule_statistics(data, [empty]).rule_counts[0] == 0
    assert jaccard_distance(data, empty, empty) == 0.0
    assert jaccard_distance(data, rule, empty) == 1.0
