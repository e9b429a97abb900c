"""Inputs at the edges of what the samplers, the data layer and the clique enumeration accept.

* A tail sampler asked for no tail (``n=0``) on labels without any 1 returns
  no tail, as it does on any other data; a draw (``n > 0``) is still refused.
* A single id where a set of ids is expected (``head_support(0)``) and rules
  that are no sequence of rules (a 0-d array) are refused with an error that
  names the argument, not with Python's or numpy's own TypeError.
* A pool or a draw of more than 2**31 - 1 is refused
  before anything is allocated.  The tests never let such a request reach
  the code that allocates: the kernels (and the seed draws) are replaced by
  functions that fail the test if they are reached, so that without the
  checks the test fails instead of filling the machine's memory.
* The clique caps are named, in the overflow error and the truncation
  warning, as the caller named them.
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from corset import BinaryData
from corset.labelspace import (CliqueOverflowError, CliqueTruncationWarning, interpretable_space,
                               probabilistic_cliques)
from corset.rules import Coverage, coverage_flags, uncovered_label_counts
from corset.sampling import (CandidateGenerator, HeadSampler, InterpretableTailSampler, ReducedSpaceHeadSampler,
                             SamplingError, TailSampler, sample_tails)
from corset.sampling import _head_exact

INT32_MAX = 2**31 - 1


@pytest.fixture
def data(tiny_data):
    return tiny_data


def _unlabelled():
    return BinaryData(np.eye(5, dtype=np.uint8), np.zeros((5, 3), dtype=np.uint8))


def _sampler(space, data):
    return TailSampler(data) if space == "full" else InterpretableTailSampler(data)


@pytest.fixture
def no_allocation(monkeypatch):
    """The compiled tail draws and the head samplers' seed draws fail the test if they are reached."""
    def reached(*args, **kwargs):
        raise AssertionError("a draw sized by the request was reached: the size was not refused first")

    monkeypatch.setattr("corset._ext._tails.sample", reached)
    monkeypatch.setattr("corset._ext._surs.sample_tails", reached)
    monkeypatch.setattr(_head_exact, "draw_seeds", reached)


# -- 1. no tail asked for, on labels without a 1 ---------------------------------------------------
@pytest.mark.parametrize("space", ["full", "interpretable"])
def test_no_tail_asked_for_on_labels_without_a_one_is_no_tail(space):
    """n=0 raised "Y holds no label occurrence" although it asks for nothing."""
    assert sample_tails(np.eye(5, dtype=int), np.zeros((5, 3), dtype=int), 0, space=space, random_state=0) == []
    # The same result as the same call on data with labels: a list, and int32 records.
    expected = _sampler(space, BinaryData(np.eye(3, dtype=int), np.eye(3, dtype=int))).sample(
        0, random_state=0, return_records=True)
    tails, records = _sampler(space, _unlabelled()).sample(0, random_state=0, return_records=True)
    assert tails == expected[0] == [] and type(tails) is type(expected[0])
    assert records.shape == expected[1].shape == (0,) and records.dtype == expected[1].dtype == np.int32


@pytest.mark.parametrize("space", ["full", "interpretable"])
def test_a_tail_asked_for_on_labels_without_a_one_is_still_refused(space):
    with pytest.raises(SamplingError, match="Y holds no label occurrence"):
        sample_tails(np.eye(5, dtype=int), np.zeros((5, 3), dtype=int), 1, space=space, random_state=0)


@pytest.mark.parametrize("space", ["full", "interpretable"])
def test_no_tail_asked_for_once_everything_is_covered_is_no_tail(space, data):
    sampler = _sampler(space, data)
    sampler.add_rules([((), (0,)), ((), (1,)), ((), (2,))])
    assert sampler.sample(0, random_state=0) == []
    with pytest.raises(SamplingError, match="uncovered area 0"):
        sampler.sample(1, random_state=0)


# -- 2. a single id where a set of ids is expected; rules that are no sequence ----------------------
@pytest.mark.parametrize("call, message", [
    (lambda d: d.head_support(0), r"head must be a sequence of feature ids, e\.g\. \(0,\); got the integer 0"),
    (lambda d: d.head_support(np.int64(2)), r"head must be a sequence of feature ids, e\.g\. \(2,\)"),
    (lambda d: d.head_support(None), "head must be a sequence of feature ids; got NoneType None"),
    (lambda d: d.head_support(1.5), "head must be a sequence of feature ids; got float 1.5"),
    (lambda d: d.tail_support(1), r"tail must be a sequence of label ids, e\.g\. \(1,\); got the integer 1"),
    (lambda d: d.rule_support(0, (1,)), "head must be a sequence of feature ids"),
    (lambda d: d.rule_support((0,), 1), "tail must be a sequence of label ids"),
    (lambda d: d.positive_mask(2), "tail must be a sequence of label ids"),
])
def test_binarydata_refuses_a_single_id_naming_the_argument(data, call, message):
    # A TypeError, as check_tail and the samplers raise for the same mistake.
    with pytest.raises(TypeError, match=message):
        call(data)


def test_binarydata_still_takes_sets_of_ids(data):
    assert data.head_support((0,)).tolist() == data.head_support(np.array([0])).tolist() == [0, 1, 3]
    assert data.rule_support([0, 2], {1}).tolist() == [0, 3]
    with pytest.raises(ValueError, match="head must be a 1-D sequence of ids"):
        data.head_support(np.array(0))


def test_negated_features_refuse_a_single_id_a_set_and_huge_floats():
    X = np.array([[1, 0], [0, 1]])
    with pytest.raises(TypeError, match=r"negated must be a sequence of feature ids, e\.g\. \(1,\)"):
        BinaryData.with_negations(X, X, 1)
    with pytest.raises(TypeError, match="negated must be an ordered sequence of feature ids"):
        BinaryData.with_negations(X, X, {1, 0})     # the order of negated is their columns'
    # The range is checked on the floats: 1e20 was shown cast to int64, wrapped negative.
    with pytest.raises(ValueError, match=r"negated holds an id outside \[0, 2\): \[1e\+20\]"):
        BinaryData.with_negations(X, X, [1e20])


@pytest.mark.parametrize("support, error, message", [
    (2, TypeError, r"support must be a sequence of ids, e\.g\. \(2,\); got the integer 2"),
    (np.int64(2), TypeError, r"support must be a sequence of ids, e\.g\. \(2,\)"),
    (np.empty((0, 3), dtype=np.int64), ValueError, r"support must be a 1-D sequence of ids; got shape \(0, 3\)"),
])
def test_coverage_support_that_is_no_list_of_ids_is_refused(data, support, error, message):
    with pytest.raises(error, match=message):
        Coverage(data).add((0,), (0,), support=support)


@pytest.mark.parametrize("rules, message", [
    (np.array(5), r"rules must be a sequence of \(head, tail\) pairs; got array\(5\)"),
    ([(np.array(0), (1,))], r"rules\[0\]: the head must be a sequence of integer ids; got array\(0\)"),
    ([((0,), np.array(1))], r"rules\[0\]: the tail must be a sequence of integer ids; got array\(1\)"),
    (np.array([[0, 1]]), r"rules\[0\]: the head must be a sequence of integer ids"),
    (np.array([0, 1]), r"rules\[0\] must be a \(head, tail\) pair"),
])
def test_coverage_flags_refuses_rules_of_the_wrong_shape(data, rules, message):
    with pytest.raises(ValueError, match=message):
        coverage_flags(data, rules)
    with pytest.raises(ValueError, match=message):
        uncovered_label_counts(data, rules)


def test_coverage_takes_a_binarydata_only(data):
    for call in (Coverage, lambda d: coverage_flags(d, []), lambda d: uncovered_label_counts(d, [])):
        with pytest.raises(TypeError, match="data must be a corset.BinaryData; got ndarray"):
            call(data.X.toarray())
    assert coverage_flags(data, np.array([[(0,), (1,)]], dtype=object)).tolist() == coverage_flags(
        data, [((0,), (1,))]).tolist()


# -- 3. sizes past 2**31 - 1, refused before anything is allocated -------------------
@pytest.mark.parametrize("n_tails, n_heads_per_tail", [(2**31, 1), (1, 2**31), (2**16, 2**16), (2**31, 10)])
def test_a_pool_past_the_int32_range_is_refused(data, n_tails, n_heads_per_tail):
    # Nothing is drawn at construction: without the check, this would build the generator.
    with pytest.raises(ValueError, match=rf"n_tails \* n_heads_per_tail must be at most {INT32_MAX} .*"
                                         rf"got n_tails={n_tails} \* n_heads_per_tail={n_heads_per_tail} = "
                                         rf"{n_tails * n_heads_per_tail}"):
        CandidateGenerator(data, n_tails=n_tails, n_heads_per_tail=n_heads_per_tail)


def test_a_pool_at_the_int32_range_is_accepted(data, monkeypatch):
    from corset import _validation

    monkeypatch.setattr(_validation, "physical_memory", lambda: 2**40)   # a machine it fits on
    generate = CandidateGenerator(data, n_tails=INT32_MAX, n_heads_per_tail=1)   # never called
    assert generate.pool_shape == (INT32_MAX, 1)


@pytest.mark.parametrize("space", ["full", "interpretable"])
def test_a_tail_draw_past_the_int32_range_is_refused(data, space, no_allocation):
    sampler = _sampler(space, data)
    with pytest.raises(ValueError, match=rf"n must be at most {INT32_MAX} .*; got {2**31}"):
        sampler.sample(2**31, random_state=0)


def test_a_head_draw_past_the_int32_range_is_refused(data, no_allocation):
    with pytest.raises(ValueError, match=rf"n must be at most {INT32_MAX}"):
        HeadSampler(data).sample((0,), 2**31, random_state=0)


def test_requests_past_this_machines_memory_are_refused(data, monkeypatch, no_allocation):
    """Below 2**31 - 1 but past the memory (memory is overcommitted: the request would not fail at
    once, it would fill memory until killed): refused from a lower bound of its size."""
    from corset import _validation

    monkeypatch.setattr(_validation, "physical_memory", lambda: 2**20)   # a machine of 1 MiB
    with pytest.raises(ValueError, match=r"a pool of n_tails=50000 \* n_heads_per_tail=10 candidates would "
                                         r"take at least 11\.4 MiB of memory, more than this machine's 1\.0 MiB"):
        CandidateGenerator(data, n_tails=50_000, n_heads_per_tail=10)
    CandidateGenerator(data, n_tails=4_000, n_heads_per_tail=10)   # 960,000 bytes: accepted
    for sampler in (_sampler("full", data), _sampler("interpretable", data)):
        with pytest.raises(ValueError, match=r"n=100000 draws would take at least"):
            sampler.sample(100_000, random_state=0)
    with pytest.raises(ValueError, match=r"n=100000 draws would take at least"):
        HeadSampler(data).sample((0,), 100_000, random_state=0)
    assert _validation.physical_memory() == 2**20
    monkeypatch.undo()
    real = _validation.physical_memory()
    assert real is None or real > 2**20


@pytest.mark.parametrize("tail_space", ["full", "interpretable"])
def test_the_classifier_refuses_n_tails_past_the_int32_range(tail_space, no_allocation):
    from corset import CorsetClassifier

    rng = np.random.RandomState(0)
    X, Y = rng.rand(30, 3), (rng.rand(30, 2) < 0.5).astype(int)
    with pytest.raises(ValueError, match=r"n_tails \* n_heads_per_tail must be at most .*n_tails=2147483648"):
        CorsetClassifier(n_tails=2**31, tail_space=tail_space, random_state=0).fit(X, Y)


# -- 4. the clique caps named as the caller named them ----------------------------------------------
ESTIMATOR_NAMES = {"max_sets": "max_cliques", "max_size": "max_clique_size"}


def _truncation_messages(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, CliqueTruncationWarning)]


def test_probabilistic_cliques_names_the_callers_caps():
    W = np.ones((6, 6))
    messages = _truncation_messages(lambda: probabilistic_cliques(
        W, 0.5, max_sets=10, max_size=4, on_overflow="truncate", edge_probability="symmetrised",
        _parameter_names=ESTIMATOR_NAMES))
    assert len(messages) == 1
    assert "more than max_cliques=10 item sets" in messages[0] and "(max_clique_size=4)" in messages[0]
    assert "max_sets" not in messages[0] and "max_size" not in messages[0]
    with pytest.raises(CliqueOverflowError, match=r"max_cliques=10 .*max_clique_size=4.*lower max_clique_size, "
                                                  r"raise max_cliques") as raised:
        probabilistic_cliques(W, 0.5, max_sets=10, max_size=4, edge_probability="symmetrised",
                              _parameter_names=ESTIMATOR_NAMES)
    assert "max_sets" not in str(raised.value)
    with pytest.raises(ValueError, match="max_cliques must be an integer >= 1; got 0"):
        probabilistic_cliques(W, 0.5, max_sets=0, edge_probability="symmetrised", _parameter_names=ESTIMATOR_NAMES)
    with pytest.raises(ValueError, match="_parameter_names must map 'max_sets' and 'max_size'"):
        probabilistic_cliques(W, 0.5, edge_probability="symmetrised", _parameter_names={"alpha": "a"})


def test_probabilistic_cliques_names_its_own_caps_by_default():
    messages = _truncation_messages(lambda: probabilistic_cliques(
        np.ones((6, 6)), 0.5, max_sets=10, on_overflow="truncate", edge_probability="symmetrised"))
    assert len(messages) == 1 and "more than max_sets=10 item sets" in messages[0] and "(max_size=None)" in messages[0]


def test_interpretable_space_passes_the_names_on():
    data = BinaryData(np.eye(4, dtype=int), np.ones((4, 5), dtype=int))   # every label set is a clique
    messages = _truncation_messages(lambda: interpretable_space(
        data, "labels", max_sets=7, on_overflow="truncate", _parameter_names={"max_sets": "max_cliques"}))
    assert len(messages) == 1 and "more than max_cliques=7 item sets" in messages[0]
    assert "(max_size=None)" in messages[0]   # a name not given keeps its own
    own = _truncation_messages(lambda: interpretable_space(data, "labels", max_sets=7, on_overflow="truncate"))
    assert len(own) == 1 and "more than max_sets=7 item sets" in own[0]


def test_the_samplers_name_their_own_max_sets():
    """The samplers take the cap as ``max_sets``: their warnings say so."""
    data = BinaryData(np.ones((4, 5), dtype=int), np.ones((4, 5), dtype=int))
    for build in (lambda: InterpretableTailSampler(data, max_sets=7, on_overflow="truncate"),
                  lambda: ReducedSpaceHeadSampler(data, max_sets=7, on_overflow="truncate")):
        messages = _truncation_messages(build)
        assert len(messages) == 1 and "more than max_sets=7 item sets" in messages[0]


@pytest.mark.parametrize("head_sampler", ["gh", "surs"])
def test_the_classifier_names_max_cliques(head_sampler):
    from corset import CorsetClassifier

    rng = np.random.RandomState(0)
    X = (rng.rand(40, 4) < 0.5).astype(int)
    Y = np.column_stack([X[:, 0]] * 4)   # four labels that always occur together: 15 cliques
    messages = _truncation_messages(lambda: CorsetClassifier(
        random_state=0, n_rules=2, max_cliques=5, head_sampler=head_sampler).fit(X, Y))
    assert messages and all("max_cliques=5" in m and "max_sets" not in m for m in messages)


@pytest.mark.parametrize("params, named", [
    ({"max_cliques": 5}, "(max_head_length=3)"),                        # surs caps cliques at the head length
    ({"max_cliques": 5, "max_head_length": 2}, "(max_head_length=2)"),
    ({"max_cliques": 5, "max_clique_size": 2}, "(max_clique_size=2)"),
])
def test_the_surs_warning_names_the_size_cap_it_used(params, named):
    from corset import CorsetClassifier

    rng = np.random.RandomState(0)
    X = np.column_stack([(rng.rand(40) < 0.5).astype(int)] * 6)   # six features always together
    Y = (rng.rand(40, 3) < 0.4).astype(int)
    messages = _truncation_messages(lambda: CorsetClassifier(
        random_state=0, n_rules=3, head_sampler="surs", **params).fit(X, Y))
    assert messages and all(named in m and "max_cliques=5" in m for m in messages)


def test_a_default_cap_is_named_as_the_default(monkeypatch):
    import corset.sampling._spaces as spaces

    rng = np.random.RandomState(0)
    data = BinaryData((rng.rand(30, 3) < 0.5).astype(int), np.ones((30, 8), dtype=int))
    monkeypatch.setattr(spaces, "DEFAULT_MAX_SETS", 10)   # eight labels always together pass it
    names = {"max_sets": "max_cliques", "max_size": "max_clique_size"}
    with pytest.warns(CliqueTruncationWarning, match="more than the default max_cliques=10 item sets"):
        spaces.build_space(data, "labels", on_overflow="truncate", _parameter_names=names)
    with pytest.warns(CliqueTruncationWarning, match="more than max_cliques=10 item sets"):
        spaces.build_space(data, "labels", max_sets=10, on_overflow="truncate", _parameter_names=names)


# -- negated literals past this machine's memory ---------------------------------------------------
def _wide_text(n_records=400, n_features=2_000, per_record=3, seed=0):
    """Sparse word presence: each record holds a few of many features (nearly every negation)."""
    rng = np.random.default_rng(seed)
    cols = np.sort(rng.choice(n_features, size=(n_records, per_record), replace=True), axis=1)
    X = sp.csr_array((np.ones(cols.size, dtype=np.uint8), cols.ravel(),
                      np.arange(0, cols.size + 1, per_record)), shape=(n_records, n_features))
    X.sum_duplicates()
    X.data[:] = 1
    Y = (rng.random((n_records, 3)) < 0.3).astype(np.uint8)
    return X, Y


def test_negated_literals_past_this_machines_memory_are_refused(monkeypatch):
    """"NOT f" holds on every record without f: on wide sparse X the literals occur records x features
    times.  Built, they would fill memory until the process is killed; they are refused first,
    from a lower bound of their size, naming the argument that asked for them."""
    from corset import _validation
    from corset._ext import _csr_rows

    X, Y = _wide_text()
    negated = np.arange(X.shape[1])
    occurrences = X.shape[0] * X.shape[1] - X.nnz   # 400 x 2,000 minus the features' own entries
    built = BinaryData.with_negations(X, Y, negated)   # this machine: accepted
    assert built.n_features == 2 * X.shape[1]
    assert int(np.diff(built.feature_records.indptr)[X.shape[1]:].sum()) == occurrences

    def reached(*args, **kwargs):
        raise AssertionError("the negated literals were built: their size was not refused first")

    monkeypatch.setattr(_validation, "physical_memory", lambda: 2**20)   # a machine of 1 MiB
    monkeypatch.setattr(_csr_rows, "complement_columns", reached)
    monkeypatch.setattr(_csr_rows, "with_negated_columns", reached)
    size = occurrences * 9 / 2**20
    with pytest.raises(ValueError, match=rf"^negated: the negated literals of 2000 features \({occurrences:,} "
                                         rf"occurrences on 400 records\) would take at least {size:.1f} MiB of "
                                         r"memory, more than this machine's 1\.0 MiB$"):
        BinaryData.with_negations(X, Y, negated)
    from corset import CorsetClassifier

    with pytest.raises(ValueError, match=r"^negations=True: the negated literals of \d+ features"):
        CorsetClassifier(negations=True, n_rules=3, validated_stop=False, random_state=0).fit(X, Y)


def test_negated_literals_past_the_int32_range_count_scipys_int64_ids(monkeypatch):
    """Past 2**31 - 1 entries scipy holds the rows' ids as int64 beside the layer's int32 copy:
    17 bytes an occurrence, not 9, so 50,000 x 50,000 negations (2.5e9) need at least 39.6 GiB."""
    from corset import _validation
    from corset.binarydata import _check_negations_fit

    n = 50_000
    X = sp.csr_array((np.ones(n, dtype=np.uint8), np.arange(n, dtype=np.int32), np.arange(n + 1)), shape=(n, n))
    negated = np.arange(n, dtype=np.int64)
    occurrences = n * n - n
    assert occurrences > np.iinfo(np.int32).max
    monkeypatch.setattr(_validation, "physical_memory", lambda: 30 * 2**30)   # fits at 9 bytes each, not 17
    with pytest.raises(ValueError, match=rf"^X: the negated literals of 50000 features \({occurrences:,} occurrences "
                                         rf"on 50000 records\) would take at least {occurrences * 17 / 2**30:.1f} GiB"):
        _check_negations_fit(X, negated, "X")
    monkeypatch.setattr(_validation, "physical_memory", lambda: 2**40)
    _check_negations_fit(X, negated, "X")   # accepted on a machine of 1 TiB
    monkeypatch.setattr(_validation, "physical_memory", lambda: 2**20)
    _check_negations_fit(X[:, :0], negated[:0], "X")   # no negated literal: nothing to check
