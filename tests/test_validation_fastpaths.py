"""The fast paths of validation (input already canonical, rules the library produced) give what the checked paths give.

Each fast path skips work only for input it can prove canonical; these tests
compare it with the general path on the same input, including the inputs
that look canonical but are not (booleans, numpy integers, unsorted or
repeated ids), and check that the random stream of ``draw_seeds`` is the one
of its original two ``randint`` calls.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corset import BinaryData
from corset._validation import check_ids, check_positive_int, check_seed, draw_seeds
from corset.sampling import CandidateGenerator
from corset.sampling._common import cached_per_tail, new_tail_cache
from corset.selection import RuleStatistics, check_rules, greedy_selection, rule_statistics
from corset.selection._greedy import _State


def _reference_seeds(rng, n):
    """draw_seeds as first written: two randint calls of size n."""
    hi = rng.randint(0, 2**32, size=n, dtype=np.uint64)
    lo = rng.randint(0, 2**32, size=n, dtype=np.uint64)
    return (hi << np.uint64(32)) | lo


@pytest.mark.parametrize("make", [
    lambda s: np.random.RandomState(s),
    lambda s: np.random.RandomState(np.random.PCG64(s)),
    lambda s: np.random.RandomState(np.random.Philox(s)),
], ids=["mt19937", "pcg64", "philox"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 100])
def test_draw_seeds_keeps_the_random_stream(make, n, global_random_seed):
    a, b = make(global_random_seed), make(global_random_seed)
    a.standard_normal(1)  # a cached Gaussian must survive both ways
    b.standard_normal(1)
    got, want = draw_seeds(a, n), _reference_seeds(b, n)
    assert got.dtype == want.dtype == np.uint64 and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)
    # The generators are left in the same state.
    np.testing.assert_array_equal(a.standard_normal(3), b.standard_normal(3))
    assert a.randint(2**40) == b.randint(2**40)


def test_draw_seeds_from_an_int_seed():
    np.testing.assert_array_equal(draw_seeds(5, 4), _reference_seeds(np.random.RandomState(5), 4))


def test_check_seed_returns_the_same_random_state():
    rng = np.random.RandomState(0)
    assert check_seed(rng) is rng
    assert isinstance(check_seed(3), np.random.RandomState)


def test_check_positive_int_fast_path_keeps_its_errors():
    assert check_positive_int(3, "n") == 3
    with pytest.raises(TypeError, match="n must be an integer"):
        check_positive_int(True, "n")
    with pytest.raises(ValueError, match="n must be an integer >= 1; got 0"):
        check_positive_int(0, "n")
    assert check_positive_int(np.int64(4), "n") == 4


id_lists = st.lists(st.one_of(st.integers(-2, 9), st.booleans(), st.sampled_from([1.0, 2.5, np.int64(3)])),
                    max_size=5)


@settings(max_examples=300, deadline=None)
@given(ids=id_lists)
def test_check_ids_same_result_for_tuples_lists_and_arrays(ids):
    """A tuple may take the fast path; the list with the same items takes the general path."""
    def outcome(value):
        try:
            out = check_ids(value, 8, "ids")
        except ValueError as exc:
            return "error", str(exc)
        assert out.dtype == np.int32
        return "ok", out.tolist()

    assert outcome(tuple(ids)) == outcome(list(ids))


@settings(max_examples=400, deadline=None)
@given(ids=st.lists(st.integers(-2, 9), max_size=40),
       dtype=st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64]))
def test_check_ids_same_result_for_small_and_long_arrays(ids, dtype):
    """An integer array of at most ``_SMALL_IDS`` ids may be checked in Python; any array gives what
    the list of the same ids gives (the general path), errors included."""
    if np.dtype(dtype).kind == "u":
        ids = [abs(i) for i in ids]
    ids = np.array(ids, dtype=dtype)

    def outcome(value):
        try:
            out = check_ids(value, 8, "ids")
        except ValueError as exc:
            return "error", str(exc)
        assert out.dtype == np.int32 and out is not value
        return "ok", out.tolist()

    assert outcome(ids) == outcome(ids.tolist())


@pytest.mark.parametrize("ids, message", [
    ((True,), "must hold integer ids"),
    ((0, 0), "duplicate ids"),
    ((3, 8), r"outside \[0, 8\)"),
    ((-1,), r"outside \[0, 8\)"),
])
def test_check_ids_errors_on_near_canonical_tuples(ids, message):
    with pytest.raises(ValueError, match=message):
        check_ids(ids, 8, "ids")


def test_check_ids_sorts_arrays():
    assert check_ids(np.array([5, 1, 3]), 8, "ids").tolist() == [1, 3, 5]
    assert check_ids(np.array([1, 3, 5]), 8, "ids").tolist() == [1, 3, 5]


@settings(max_examples=300, deadline=None)
@given(ids=id_lists)
def test_check_ids_orders_agree_with_sorting(ids):
    """``order="keep"`` accepts what the default accepts, in the caller's order; ``"increasing"``
    accepts only what sorting would leave unchanged.  Errors other than the order are the same."""
    def outcome(**kwargs):
        try:
            return "ok", check_ids(list(ids), 8, "ids", **kwargs).tolist()
        except ValueError as exc:
            return "error", str(exc)

    sort, keep, increasing = outcome(), outcome(order="keep"), outcome(order="increasing")
    assert sort[0] == keep[0]
    if sort[0] == "ok":
        assert sorted(keep[1]) == sort[1] and keep[1] == [int(i) for i in ids]
        assert increasing == (sort if keep[1] == sort[1] else
                              ("error", f"ids must hold strictly increasing ids (sorted, each once): {keep[1]}"))
    else:
        assert keep == sort
        assert increasing[0] == "error"


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(st.integers(-1, 9), max_size=6))
def test_check_ids_orders_take_the_same_view_of_tuples_lists_and_arrays(ids):
    """The fast paths (canonical tuples, small integer arrays) give what the list gives, for every order."""
    def outcome(value, order):
        try:
            return "ok", check_ids(value, 8, "ids", order=order).tolist()
        except ValueError as exc:
            return "error", str(exc)

    for order in ("sort", "keep", "increasing"):
        assert outcome(tuple(ids), order) == outcome(ids, order) == outcome(np.array(ids, dtype=np.int64), order)


def test_check_ids_whole_floats_and_order_are_checked():
    assert check_ids([2.0, 1.0], 8, "ids", order="keep").tolist() == [2, 1]
    with pytest.raises(ValueError, match="ids must hold integer ids; got dtype float64"):
        check_ids([2.0], 8, "ids", whole_floats=False)
    with pytest.raises(ValueError, match="ids must hold integer ids; got a boolean among"):
        check_ids([True, 2], 8, "ids")   # numpy reads the list as [1, 2]
    with pytest.raises(ValueError, match="order must be 'sort', 'keep' or 'increasing'"):
        check_ids([1], 8, "ids", order="sorted")
    with pytest.raises(ValueError, match=r"holds an id outside \[0, 8\): \[0, 1, .*, 19\] and 5 more"):
        check_ids(list(range(25)), 8, "ids")


@pytest.mark.parametrize("indptr, ids, kwargs, message", [
    ([0, 1, 1], [2], {}, None),
    ([0, 1, 1], [2], {"allow_empty": False, "row": "rule"},
     r"indptr must be increasing \(every rule non-empty\); rule 1 is empty"),
    ([0, 2, 1], [2, 3], {}, "indptr must be non-decreasing; set 1 ends before it starts"),
    ([0, 1], [2], {"n_rows": 2, "row": "rule"}, "indptr describes 1 rules; expected 2"),
    ([0, 2], [3, 9], {"n_name": "n_items"}, r"ids: set 0 holds the id 9, outside \[0, n_items\) = \[0, 5\)"),
    ([0, 2], [3, 3], {"ids_name": "head_ids"}, r"head_ids: set 0 is not strictly increasing: \[3, 3\]"),
    ([0, 1], [True], {}, "ids must hold integers"),
    ([], [], {"indptr_name": "tail_indptr", "row": "rule"}, r"tail_indptr must hold n_rules \+ 1 offsets"),
])
def test_check_id_rows(indptr, ids, kwargs, message):
    from corset._validation import check_id_rows

    if message is None:
        out = check_id_rows(indptr, ids, 5, **kwargs)
        assert [a.tolist() for a in out] == [indptr, ids] and all(a.dtype == np.int64 for a in out)
        return
    with pytest.raises(ValueError, match=message):
        check_id_rows(indptr, ids, 5, **kwargs)


def _data(seed=0, n=40, f=6, l=3):
    rng = np.random.RandomState(seed)
    return BinaryData(rng.rand(n, f) < 0.5, rng.rand(n, l) < 0.4)


# -- the samplers' checks -------------------------------------------------------------
def test_sampling_check_rules_returns_canonical_rules_themselves():
    data = _data()
    rules = [((0, 2), (1,)), ((), (0, 2))]
    out = check_selected_rules(rules, data).rules
    assert out == rules and all(a is b for a, b in zip(out, rules))
    converted = check_selected_rules([([2, 0], np.array([1])), ((np.int64(1),), (2,))], data).rules
    assert converted == [((0, 2), (1,)), ((1,), (2,))]
    assert all(type(x) is int for rule in converted for part in rule for x in part)


@pytest.mark.parametrize("rule, message", [
    (((0,), ()), r"selected_rules\[3\]: the tail is empty"),
    (((True,), (0,)), r"selected_rules\[3\]: the head must hold integer ids"),
    (((0,), (0, 7)), r"selected_rules\[3\]: the tail holds a label id outside"),
    (((1, 0, 1), (0,)), r"selected_rules\[3\]: the head holds a duplicate id"),
])
def test_sampling_check_rules_errors_name_the_position(rule, message):
    with pytest.raises(ValueError, match=message):
        check_selected_rules([rule], _data(), "selected_rules", start=3)


def check_selected_rules(rules, data, name="rules", start=0):
    """The samplers' policy of the one check_rules: empty heads allowed, repeats kept."""
    return check_rules(rules, data.n_features, data.n_labels, name=name, allow_empty_head=True,
                       duplicates="keep", start=start)


def test_tail_cache_needs_a_canonical_tail_for_the_fast_lookup():
    data = _data()
    cache = new_tail_cache()
    built = []

    def build(tail, key):
        built.append((tail.dtype, tail.tolist(), key))
        return object()

    first = cached_per_tail(cache, 4, data, (0, 2), build)
    assert cached_per_tail(cache, 4, data, (0, 2), build) is first
    assert cached_per_tail(cache, 4, data, [2, 0], build) is first
    assert cached_per_tail(cache, 4, data, np.array([0, 2]), build) is first
    assert built == [(np.dtype(np.int32), [0, 2], (0, 2))]
    cached_per_tail(cache, 4, data, (1,), build)
    # (True,) equals (1,) as a dict key, but it is not a tail.
    with pytest.raises(ValueError, match="must hold integer ids"):
        cached_per_tail(cache, 4, data, (True,), build)


def test_candidate_generator_same_pools_for_equal_rules_of_any_form():
    """Equal rules in another form give the same pools."""
    data = _data(1, n=60, f=8, l=4)
    a = CandidateGenerator(data, n_tails=8, n_heads_per_tail=3, random_state=0)
    b = CandidateGenerator(data, n_tails=8, n_heads_per_tail=3, random_state=0)
    chosen = []
    for _ in range(4):
        pool_a = a(chosen)
        pool_b = b([(list(h), np.array(t)) for h, t in chosen])
        assert pool_a == pool_b
        if not pool_a:
            break
        chosen = chosen + [pool_a[0]]
    assert len(chosen) == 4
    assert a(chosen) == b([(list(h), np.array(t)) for h, t in chosen])
    assert b._tail_sampler.rules_ == a._tail_sampler.rules_ == chosen
    # A rule that is not canonical is still rejected, after a prefix of the generator's own rules.
    with pytest.raises(ValueError, match=r"selected_rules\[1\]: the tail holds a label id outside"):
        a(chosen[:1] + [((0,), (9,))])


# -- the selection's checks -----------------------------------------------------------
rule_items = st.tuples(
    st.one_of(st.tuples(*[st.integers(0, 5)] * 2), st.tuples(st.integers(0, 7)), st.just(()),
              st.lists(st.integers(0, 5), max_size=2), st.tuples(st.booleans())),
    st.one_of(st.tuples(st.integers(0, 2)), st.tuples(st.integers(0, 2), st.integers(0, 2)),
              st.tuples(st.sampled_from([np.int64(1), 1.0])), st.just(())),
)


@settings(max_examples=300, deadline=None)
@given(rules=st.lists(rule_items, max_size=6), deduplicate=st.booleans())
def test_selection_check_rules_list_fast_path_matches_the_checked_path(rules, deduplicate):
    """A list may take the vectorised path; an iterator over it takes the rule-by-rule path."""
    def outcome(value):
        try:
            checked = check_rules(value, 6, 3, duplicates="drop" if deduplicate else "raise")
            canonical, arrays, first = checked.rules, checked.arrays, checked.first_index
        except ValueError as exc:
            return "error", str(exc)
        for rule in canonical:
            assert all(type(x) is int for part in rule for x in part)
        assert arrays[0].dtype == arrays[2].dtype == np.int64
        assert arrays[1].dtype == arrays[3].dtype == np.int32
        return "ok", canonical, [a.tolist() for a in arrays], first.tolist()

    assert outcome(list(rules)) == outcome(iter(rules))


def test_statistics_gathered_equal_statistics_recomputed():
    data = _data(2, n=50, f=6, l=3)
    rules = [((0,), (1,)), ((1, 2), (0,)), ((3,), (0, 2)), ((4,), (2,)), ((0, 5), (1, 2))]
    stats = rule_statistics(data, rules)
    parts = [stats.subset([3, 1]), stats.subset([0]), stats.subset([4, 2])]
    joined = RuleStatistics.concatenate(parts)
    fresh = rule_statistics(data, [rules[i] for i in (3, 1, 0, 4, 2)])
    assert joined.rules == fresh.rules
    for attr in ("head_indptr", "head_ids", "tail_indptr", "tail_ids", "support_indptr", "support_ids",
                 "head_counts", "tail_counts", "rule_counts", "coverage_sizes", "precision", "base_rate",
                 "accuracy"):
        np.testing.assert_array_equal(getattr(joined, attr), getattr(fresh, attr), err_msg=attr)


def test_chosen_statistics_grow_incrementally():
    """The chosen rules' statistics, kept as copies per rule, equal a subset of the pool's."""
    data = _data(3, n=50, f=6, l=3)
    rules = [((0,), (1,)), ((1, 2), (0,)), ((3,), (0, 2)), ((4,), (2,))]
    stats = rule_statistics(data, rules)
    state = _State(data)
    picked = []
    for k, index in enumerate([2, 0, 3, 1]):
        area = _selection_area(data, state, stats, index)
        state.add(stats, index, 1.0, area)
        picked.append(index)
        if k == 1:
            state.chosen()  # cached here, then rebuilt with the new rules
        chosen = state.chosen()
        again = stats.subset(picked)
        assert chosen.rules == again.rules == [rules[i] for i in picked]
        for name in ("head_indptr", "head_ids", "tail_indptr", "tail_ids", "support_indptr", "support_ids",
                     "head_counts", "tail_counts", "rule_counts", "precision", "base_rate", "accuracy"):
            np.testing.assert_array_equal(getattr(chosen, name), getattr(again, name), err_msg=name)
            assert getattr(chosen, name).dtype == getattr(again, name).dtype, name
        csr = state.chosen_csr()
        for got, want in zip(csr, (again.support_indptr, again.support_ids, again.tail_indptr, again.tail_ids)):
            np.testing.assert_array_equal(got, want)
        # From ``start`` on: the offsets of the last rule, into the ids of all chosen rules.
        s_ptr, s_ids, t_ptr, t_ids = state.chosen_csr(len(state) - 1)
        assert s_ptr.shape == t_ptr.shape == (2,)
        np.testing.assert_array_equal(s_ids[s_ptr[0]:s_ptr[1]], stats.support(index))
        np.testing.assert_array_equal(t_ids[t_ptr[0]:t_ptr[1]], stats.tail(index))


def _selection_area(data, state, stats, index):
    from corset.selection._objective import _areas

    areas, _, _ = _areas(data, stats, state.covered, state.best_accuracy)
    return int(areas[index])


def test_greedy_selection_with_a_generator_is_unchanged_by_rule_forms():
    """A generator returning rules in canonical form or as lists selects the same rules."""
    data = _data(4, n=60, f=8, l=4)

    def run(as_lists):
        gen = CandidateGenerator(data, n_tails=8, n_heads_per_tail=3, random_state=1)
        if as_lists:
            return greedy_selection(data, lambda rules: [(list(h), list(t)) for h, t in gen(rules)], n_rules=6)
        return greedy_selection(data, gen, n_rules=6)

    assert run(False).rules == run(True).rules


def _scipy_csr(M):
    """Dense 0/1 ``M`` through scipy's own conversion: the reference of the compiled one."""
    import scipy.sparse as sp

    return sp.csr_array(np.asarray(np.asarray(M) != 0, dtype=np.uint8))


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64, np.float32, np.float64, bool,
                                   np.int8, np.uint16, np.float16])
@pytest.mark.parametrize("order", ["C", "F"])
def test_dense_binary_matrix_same_csr_as_scipy(dtype, order):
    from corset._validation import check_binary_matrix

    rng = np.random.RandomState(0)
    for shape in [(0, 4), (4, 0), (1, 1), (7, 5), (150, 67), (40, 300)]:
        for density in (0.0, 0.3, 1.0):
            M = np.asarray((rng.rand(*shape) < density).astype(dtype), order=order)
            got, want = check_binary_matrix(M, "X"), _scipy_csr(M)
            assert got.shape == want.shape and got.dtype == np.uint8
            assert got.has_sorted_indices and got.has_canonical_format
            np.testing.assert_array_equal(got.indptr, want.indptr)
            np.testing.assert_array_equal(got.indices, want.indices)
            assert (got.data == 1).all()


def test_dense_binary_matrix_of_a_strided_view():
    from corset._validation import check_binary_matrix

    M = (np.arange(60).reshape(6, 10) % 3 == 0).astype(np.uint8)
    view = M[::2, 1::3]
    np.testing.assert_array_equal(check_binary_matrix(view, "X").toarray(), view)


@pytest.mark.parametrize("bad, message", [
    (np.array([[0, 1], [2, 1]], dtype=np.int64), r"other values, e.g. \[2\]"),
    (np.array([[0, 1], [1, 255]], dtype=np.uint8), r"other values, e.g. \[255\]"),
    (np.array([[0.0, 1.0], [0.5, 1.0]]), r"other values, e.g. \[0.5\]"),
    (np.array([[0.0, np.nan]], dtype=np.float32), "NaN or infinite"),
    (np.array([[1.0], [np.inf]]), "NaN or infinite"),
    (np.array([[-1, 0]], dtype=np.int32), r"other values, e.g. \[-1\]"),
])
def test_dense_binary_matrix_errors_as_before(bad, message):
    """The compiled conversion leaves every refusal, and its message, to the checks."""
    from corset._validation import check_binary_matrix

    with pytest.raises(ValueError, match=message):
        check_binary_matrix(bad, "X")


def test_fill_role_rows_matches_numpy_and_refuses_bad_columns():
    from corset._ext import _csr_rows

    rows = np.full((3, 6), 7, dtype=np.uint8)
    indptr = np.array([0, 2, 2, 5], dtype=np.int64)
    ids = np.array([1, 4, 0, 2, 5], dtype=np.int32)
    _csr_rows.fill_role_rows(rows, indptr, ids)
    want = np.full((3, 6), 2, dtype=np.uint8)
    want[0, [1, 4]] = 1
    want[2, [0, 2, 5]] = 1
    np.testing.assert_array_equal(rows, want)
    for bad_indptr, bad_ids, message in [
        (indptr, np.array([1, 4, 0, 2, 6], dtype=np.int32), "outside"),
        (indptr, np.array([1, 4, 0, -1, 5], dtype=np.int32), "outside"),
        (np.array([0, 2, 5], dtype=np.int64), ids, "slots"),
        (np.array([0, 3, 2, 5], dtype=np.int64), ids, "decreases"),
        (np.array([0, 2, 2, 6], dtype=np.int64), ids, "outside ids"),
    ]:
        with pytest.raises(ValueError, match=message):
            _csr_rows.fill_role_rows(rows, bad_indptr, bad_ids)


def test_gh_pairs_of_canonical_tails_same_as_checked_tails(global_random_seed):
    """The seed pairs drawn for CORSET-GH's canonical tails (no re-validation) equal those of the checked path."""
    from corset.datasets import make_rule_data
    from corset.sampling._head_exact import HeadSampler

    made = make_rule_data(120, 15, 9, random_state=global_random_seed)
    data = BinaryData(made.X, made.Y)
    Y = np.asarray(made.Y.todense()) if hasattr(made.Y, "todense") else np.asarray(made.Y)
    tails = [(int(t),) for t in np.flatnonzero(data.label_counts > 0)[:5]]
    tails += [tuple(int(k) for k in np.flatnonzero(Y[i])) for i in range(3) if Y[i].sum() > 1]
    tails = list(dict.fromkeys(tails))
    counts = [3 + i for i in range(len(tails))]
    a, b = HeadSampler(data, cache_size=2), HeadSampler(data, cache_size=2)
    pairs_a, errors_a = a.sample_pairs_many(tails, counts, np.random.RandomState(global_random_seed))
    pairs_b, errors_b = b.sample_pairs_many(tails, counts, np.random.RandomState(global_random_seed),
                                            _canonical=True)
    assert [type(e) for e in errors_a] == [type(e) for e in errors_b]
    for pa, pb in zip(pairs_a, pairs_b):
        assert (pa is None) == (pb is None)
        if pa is not None:
            np.testing.assert_array_equal(pa[0], pb[0])
            np.testing.assert_array_equal(pa[1], pb[1])
    assert list(a._cache) == list(b._cache)
