"""The compiled store of a greedy run's distinct candidates (corset._ext._store.RuleStore).

Driven by random sequences of appends, gathers, bound updates, choices and
evictions, and compared after each call with a plain Python model of what it
must hold: rows in their order of storing, each registry number's slot.
"""
import doctest

import numpy as np
import pytest

from corset._ext import _store
from corset._ext._store import RuleStore

FIELDS = ("support", "tail", "head_count", "tail_count", "precision", "base_rate", "accuracy", "eligible", "sums",
          "q_bound", "area_bound")


def _csr(rows, dtype=np.int32):
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    ids = np.array([v for r in rows for v in r], dtype=dtype)
    return indptr, ids


def _random_rows(rng, numbers):
    rows = []
    for number in numbers:
        rows.append(dict(
            number=int(number),
            support=sorted(rng.choice(50, size=rng.integers(0, 6), replace=False).tolist()),
            tail=sorted(rng.choice(8, size=rng.integers(1, 4), replace=False).tolist()),
            head_count=int(rng.integers(0, 100)), tail_count=int(rng.integers(0, 100)),
            precision=float(rng.random()), base_rate=float(rng.random()), accuracy=float(rng.random()),
            eligible=int(rng.integers(0, 2)), sums=float(rng.random() * 5),
            q_bound=np.inf, area_bound=np.iinfo(np.int64).max))
    return rows


def _append(store, rows):
    support_indptr, support_ids = _csr([r["support"] for r in rows])
    tail_indptr, tail_ids = _csr([r["tail"] for r in rows])
    column = lambda name, dtype: np.array([r[name] for r in rows], dtype=dtype)  # noqa: E731
    store.append(column("number", np.int64), support_indptr, support_ids, tail_indptr, tail_ids,
                 column("head_count", np.int64), column("tail_count", np.int64), column("precision", np.float64),
                 column("base_rate", np.float64), column("accuracy", np.float64), column("eligible", np.uint8),
                 column("sums", np.float64))


def _check(store, model):
    """The store holds exactly ``model`` (a list of rows in slot order)."""
    assert store.size == len(model)
    assert store.n_support_ids == sum(len(r["support"]) for r in model)
    numbers = np.array([r["number"] for r in model] + [10_000], dtype=np.int64)
    assert store.slots(numbers).tolist() == list(range(len(model))) + [-1]
    slots = np.arange(len(model), dtype=np.int64)[::-1].copy()   # a gather in another order
    got = store.gather(slots)
    expected = [model[s] for s in slots]
    indptr, ids = got[0], got[1]
    assert [ids[indptr[i]:indptr[i + 1]].tolist() for i in range(len(slots))] == [r["support"] for r in expected]
    names = ("head_count", "tail_count", "precision", "base_rate", "accuracy", "sums", "eligible", "q_bound",
             "area_bound")
    for name, value in zip(names, got[2:]):
        assert value.tolist() == [r[name] for r in expected], name
    support_indptr, support_ids, tail_indptr, tail_ids, eligible, sums = store.arrays()
    assert [tail_ids[tail_indptr[i]:tail_indptr[i + 1]].tolist() for i in range(len(model))] == \
        [r["tail"] for r in model]
    assert [support_ids[support_indptr[i]:support_indptr[i + 1]].tolist() for i in range(len(model))] == \
        [r["support"] for r in model]
    assert eligible.tolist() == [r["eligible"] for r in model] and sums.tolist() == [r["sums"] for r in model]
    assert store.eligible_at(slots).tolist() == [r["eligible"] for r in expected]


def _distance(a, b):
    """Jaccard distance of cov(A) = D[A] x T_A and cov(B) (rows with "support" and "tail"), as the kernel
    computes it: 1 - |∩| / |∪| in doubles, 0 for two empty coverages, 1 for one."""
    size_a, size_b = len(a["support"]) * len(a["tail"]), len(b["support"]) * len(b["tail"])
    if size_a == 0 and size_b == 0:
        return 0.0
    labels = len(set(a["tail"]) & set(b["tail"]))
    if size_a == 0 or size_b == 0 or labels == 0:
        return 1.0
    inter = len(set(a["support"]) & set(b["support"])) * labels
    return 1.0 - float(inter) / float(size_a + size_b - inter)


def _catch_up(store, model, chosen, slots):
    """RuleStore.catch_up, and the same on the model: each eligible row of ``slots`` adds the distances
    to the chosen rules its sum lacks, in order."""
    support_indptr, support_ids = _csr([r["support"] for r in chosen])
    tail_indptr, tail_ids = _csr([r["tail"] for r in chosen])
    store.catch_up(np.asarray(slots, dtype=np.int64), support_indptr, support_ids, tail_indptr, tail_ids)
    for s in slots:
        row = model[s]
        if row["eligible"]:
            for rule in chosen[row["summed"]:]:
                row["sums"] = row["sums"] + _distance(row, rule)
            row["summed"] = len(chosen)


@pytest.mark.parametrize("seed", range(8))
def test_store_follows_a_plain_model_through_random_calls(seed):
    rng = np.random.default_rng(seed)
    store, model, next_number = RuleStore(), [], 0
    chosen = []   # the rules whose distances catch_up adds (a list that only grows)
    _check(store, model)
    for _ in range(80):
        action = rng.choice(["append", "bounds", "chose", "keep", "sums", "catch_up"],
                            p=[0.3, 0.15, 0.15, 0.1, 0.1, 0.2])
        if action == "append":
            # New numbers, not in order, some far beyond the ones seen (the slot map grows).
            count = int(rng.integers(0, 5))
            numbers = next_number + rng.permutation(count) * int(rng.integers(1, 4))
            next_number += 4 * count + 1
            rows = _random_rows(rng, numbers)
            for row in rows:
                row["summed"] = 0   # a new row's sum holds no chosen rule's distance
            _append(store, rows)
            model += rows
        elif action == "catch_up":
            # Zero to three more chosen rules (some sharing records and labels with the rows), then a
            # pool's slots, in any order.
            chosen += _random_rows(rng, range(int(rng.integers(0, 4))))
            slots = rng.permutation(len(model))[:int(rng.integers(0, len(model) + 1))].tolist()
            _catch_up(store, model, chosen, slots)
        elif action == "bounds" and model:
            slots = rng.choice(len(model), size=rng.integers(1, len(model) + 1), replace=False).astype(np.int64)
            q, area = rng.random(slots.size), rng.integers(0, 1000, slots.size).astype(np.int64)
            store.set_bounds(slots, q, area)
            for s, qv, av in zip(slots.tolist(), q.tolist(), area.tolist()):
                model[s]["q_bound"], model[s]["area_bound"] = qv, av
        elif action == "chose" and model:
            s = int(rng.integers(len(model)))
            store.clear_eligible(model[s]["number"])
            model[s]["eligible"] = 0
        elif action == "sums" and model:
            # arrays()'s sums are the store's own: a kernel adds to them in place.
            sums = store.arrays()[-1]
            add = rng.random(len(model))
            sums += add
            for row, a in zip(model, add.tolist()):
                row["sums"] += a
        elif action == "keep":
            stored = [r["number"] for r in model]
            keep = [n for n in stored if rng.random() < 0.6] + [next_number + 7]   # one never stored
            rng.shuffle(keep)
            store.keep(np.array(keep, dtype=np.int64))
            model = [r for r in model if r["number"] in keep]
        _check(store, model)
    # Every row brought up to date: each sum holds each chosen rule's distance once (an evicted and
    # kept row kept its count).
    _catch_up(store, model, chosen, list(range(len(model))))
    _check(store, model)


@pytest.mark.parametrize("seed", range(6))
def test_catch_up_counts_dense_supports_by_popcount_to_the_same_sums(seed):
    """Rules whose records fill their words (catch_up's dense path: D[c] and D[R_j] as bitsets,
    |D[c] ∩ D[R_j]| a popcount over their common words) get the same sums, bit for bit, as the
    plain model's distances and as add_distance_sums (which counts from the record lists).

    Supports over 700 records (11 words), dense, narrow, offset or empty; rows lacking one
    chosen rule's distance (record lists) or many (bitsets); caught up in several calls."""
    from corset._ext._selection import add_distance_sums

    rng = np.random.default_rng(seed)

    def rows(numbers):
        out = []
        for number in numbers:
            kind = rng.integers(4)
            if kind == 0:     # dense over every word
                support = sorted(rng.choice(700, size=int(rng.integers(100, 600)), replace=False).tolist())
            elif kind == 1:   # dense over a few words, anywhere
                first = int(rng.integers(0, 600))
                support = sorted(rng.choice(np.arange(first, first + 100), size=int(rng.integers(20, 90)),
                                            replace=False).tolist())
            elif kind == 2:   # sparse
                support = sorted(rng.choice(700, size=int(rng.integers(1, 8)), replace=False).tolist())
            else:
                support = [] if rng.random() < 0.5 else [int(rng.integers(700))]
            tail = sorted(rng.choice(5, size=int(rng.integers(0 if rng.random() < 0.1 else 1, 4)),
                                     replace=False).tolist())
            out.append(dict(number=int(number), support=support, tail=tail, head_count=1, tail_count=1,
                            precision=0.5, base_rate=0.5, accuracy=0.5, eligible=int(rng.random() < 0.9),
                            sums=float(rng.random()), q_bound=np.inf, area_bound=np.iinfo(np.int64).max,
                            summed=0))
        return out

    store, model, chosen = RuleStore(), [], []
    for step in range(6):
        new = rows(range(len(model), len(model) + 15))
        _append(store, new)
        model += new
        chosen += rows(range(int(rng.integers(1, 6))))
        slots = rng.permutation(len(model))[:int(rng.integers(1, len(model) + 1))].tolist()
        _catch_up(store, model, chosen, slots)
        _check(store, model)
    _catch_up(store, model, chosen, list(range(len(model))))
    _check(store, model)
    # add_distance_sums from zero over every chosen rule: the same doubles as the store's, less
    # the starting sums (added first there, so compare each row's sum built the same way).
    fresh = rows(range(20))
    support_indptr, support_ids = _csr([r["support"] for r in fresh])
    tail_indptr, tail_ids = _csr([r["tail"] for r in fresh])
    eligible = np.array([r["eligible"] for r in fresh], dtype=np.uint8)
    sums = np.array([r["sums"] for r in fresh])
    chosen_csr = _csr([r["support"] for r in chosen]) + _csr([r["tail"] for r in chosen])
    add_distance_sums(support_indptr, support_ids, tail_indptr, tail_ids, eligible, *chosen_csr, sums)
    twin = RuleStore()
    _append(twin, fresh)
    twin.catch_up(np.arange(20, dtype=np.int64), *chosen_csr)
    assert twin.arrays()[-1].tolist() == sums.tolist()


def test_store_refuses_what_it_cannot_hold():
    store = RuleStore()
    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    rows = _random_rows(np.random.default_rng(0), [3, 1])
    for row in rows:
        row["eligible"] = 1   # catch_up below updates eligible rows only
    _append(store, rows)
    with pytest.raises(ValueError, match="stored already"):
        _append(store, _random_rows(np.random.default_rng(1), [1]))
    assert store.size == 2
    with pytest.raises(IndexError, match="outside"):
        store.gather(i64(2))
    with pytest.raises(IndexError, match="outside"):
        store.set_bounds(i64(-1), np.zeros(1), i64(0))
    with pytest.raises(ValueError, match="one bound"):
        store.set_bounds(i64(0, 1), np.zeros(1), i64(0))
    with pytest.raises(IndexError, match="negative"):
        store.slots(i64(-4))
    with pytest.raises(KeyError, match="not stored"):
        store.clear_eligible(2)
    support_indptr, support_ids = _csr([[1]])
    with pytest.raises(ValueError, match="head_counts must have 1"):
        store.append(i64(9), support_indptr, support_ids, support_indptr, support_ids, i64(), i64(1),
                     np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1, dtype=np.uint8), np.zeros(1))
    chosen = _csr([[1, 2], [3]]), _csr([[0], [1, 2]])
    store.catch_up(i64(0, 1), *chosen[0], *chosen[1])
    with pytest.raises(ValueError, match="more than the 1 given"):
        store.catch_up(i64(0, 1), *_csr([[1, 2]]), *_csr([[0]]))
    with pytest.raises(ValueError, match="same number of rules"):
        store.catch_up(i64(0), *_csr([[1, 2]]), *chosen[1])
    with pytest.raises(ValueError, match="outside their ids"):
        store.catch_up(i64(0), i64(0, 5), support_ids, *_csr([[0]]))
    with pytest.raises(IndexError, match="outside"):
        store.catch_up(i64(7), *chosen[0], *chosen[1])
    for row in rows:
        if row["eligible"]:
            row["sums"] = row["sums"] + _distance(row, {"support": [1, 2], "tail": [0]}) + \
                _distance(row, {"support": [3], "tail": [1, 2]})
    with pytest.raises(ValueError, match="whole CSRs"):
        store.append(i64(9), i64(0, 2), support_ids, support_indptr, support_ids, i64(1), i64(1),
                     np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1, dtype=np.uint8), np.zeros(1))
    _check(store, rows)


def test_store_docstring_examples():
    assert doctest.testmod(_store, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0


def _pool(rng, n_features, n_labels, n_rules):
    """A random pool as CSRs (heads of 1 to 3 features, tails of 1 to 3 labels), with some rules twice."""
    heads = [sorted(rng.choice(n_features, size=rng.integers(1, min(3, n_features) + 1), replace=False).tolist())
             for _ in range(n_rules)]
    tails = [sorted(rng.choice(n_labels, size=rng.integers(1, min(3, n_labels) + 1), replace=False).tolist())
             for _ in range(n_rules)]
    for i in range(1, n_rules, 7):
        heads[i], tails[i] = heads[i - 1], tails[i - 1]
    return (*_csr(heads), *_csr(tails))


@pytest.mark.parametrize("density", [0.05, 0.3, 0.8])
@pytest.mark.parametrize("seed", range(4))
def test_add_rows_stores_the_statistics_the_selection_computes(seed, density):
    # add_rows against append of what _CandidateStore computed before it: rule_supports and
    # rule_columns (RuleStatistics), _base_eligibility, and rules chosen already kept out; the same
    # values bit for bit, on sparse and dense data (whose supports come from bitsets).
    import scipy.sparse as sp

    from corset import BinaryData
    from corset.rules._check import _gather_csr
    from corset.selection._greedy import _base_eligibility
    from corset.selection._rules import _statistics_from_csr

    rng = np.random.default_rng(seed)
    n_records, n_features, n_labels = int(rng.integers(1, 200)), 12, 6
    X = sp.csr_matrix((rng.random((n_records, n_features)) < density).astype(np.uint8))
    Y = sp.csr_matrix((rng.random((n_records, n_labels)) < density).astype(np.uint8))
    data = BinaryData(X, Y)
    f_idx, l_idx = data.feature_records, data.label_records
    store, reference = RuleStore(), RuleStore()
    store.bind_data(f_idx.indptr, f_idx.ids, l_idx.indptr, l_idx.ids, data.n_records, *data.column_bitsets())
    numbers_seen = 0
    for step in range(6):
        n_rules = int(rng.integers(0, 30))
        arrays = _pool(rng, n_features, n_labels, n_rules)
        numbers = numbers_seen + rng.permutation(n_rules).astype(np.int64)
        numbers_seen += n_rules
        flags = rng.integers(0, 4, n_rules).astype(np.uint8)
        rows = np.sort(rng.choice(n_rules, size=rng.integers(0, n_rules + 1), replace=False)).astype(np.int64)
        allow_empty, min_support = bool(rng.integers(0, 2)), int(rng.integers(1, 4))
        assert store.add_rows(numbers, flags, rows, *arrays, allow_empty, min_support, 10**9)
        stats = _statistics_from_csr(data, None, (*_gather_csr(*arrays[:2], rows), *_gather_csr(*arrays[2:], rows)))
        eligible = _base_eligibility(stats, allow_empty, min_support)
        eligible[(flags[rows] & 2) != 0] = 0
        reference.append(numbers[rows], stats.support_indptr, stats.support_ids, stats.tail_indptr, stats.tail_ids,
                         stats.head_counts, stats.tail_counts, stats.precision, stats.base_rate, stats.accuracy,
                         eligible, np.zeros(len(stats)))
        assert store.size == reference.size and store.n_support_ids == reference.n_support_ids
        every = np.arange(store.size, dtype=np.int64)
        for got, want in zip(store.gather(every), reference.gather(every)):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        for got, want in zip(store.arrays(), reference.arrays()):
            assert got.tobytes() == want.tobytes()
        probe = np.arange(numbers_seen + 3, dtype=np.int64)
        assert store.slots(probe).tolist() == reference.slots(probe).tolist()


def test_add_rows_refuses_and_stores_nothing_past_its_budget():
    import scipy.sparse as sp

    from corset import BinaryData

    X = sp.csr_matrix(np.ones((5, 3), dtype=np.uint8))
    Y = sp.csr_matrix(np.ones((5, 2), dtype=np.uint8))
    data = BinaryData(X, Y)
    f_idx, l_idx = data.feature_records, data.label_records
    store = RuleStore()
    arrays = _pool(np.random.default_rng(0), 3, 2, 4)
    numbers, flags, rows = np.arange(4, dtype=np.int64), np.zeros(4, dtype=np.uint8), np.arange(4, dtype=np.int64)
    with pytest.raises(RuntimeError, match="bind_data first"):
        store.add_rows(numbers, flags, rows, *arrays, False, 1, 100)
    store.bind_data(f_idx.indptr, f_idx.ids, l_idx.indptr, l_idx.ids, data.n_records)
    # Every rule matches the 5 records: 20 support ids.
    assert not store.add_rows(numbers, flags, rows, *arrays, False, 1, 19)
    assert store.size == 0 and store.n_support_ids == 0
    assert store.add_rows(numbers, flags, rows[:2], *arrays, False, 1, 10)
    assert store.size == 2 and store.n_support_ids == 10
    with pytest.raises(ValueError, match="stored already"):
        store.add_rows(numbers, flags, rows[1:3], *arrays, False, 1, 100)
    with pytest.raises(IndexError, match="outside the pool"):
        store.add_rows(numbers, flags, np.array([4], dtype=np.int64), *arrays, False, 1, 100)
    bad = (arrays[0], np.full_like(arrays[1], 3), *arrays[2:])
    with pytest.raises(ValueError, match="feature id 3"):
        store.add_rows(numbers, flags, rows[2:], *bad, False, 1, 100)
    head_indptr = arrays[0].copy()
    head_indptr[2] = head_indptr[1] - 1   # rule 1 ends before it starts
    with pytest.raises(ValueError, match="offsets of rule 1 decrease"):
        store.add_rows(numbers, flags, rows[1:2], head_indptr, *arrays[1:], False, 1, 100)
    with pytest.raises(ValueError, match="flags and offsets"):
        store.add_rows(numbers, flags[:3], rows[2:], *arrays, False, 1, 100)
    assert store.size == 2
    with pytest.raises(ValueError, match="both feature_bits and label_bits"):
        store.bind_data(f_idx.indptr, f_idx.ids, l_idx.indptr, l_idx.ids, data.n_records,
                        data.column_bitsets()[0], None, 1)


@pytest.mark.parametrize("seed", range(4))
def test_read_pool_is_add_rows_catch_up_and_gather(seed):
    # A step's one call against the calls it replaces, on a twin store: the same slots, the same
    # gathered rows (distance sums caught up to the chosen rules), and None with nothing stored
    # past the budget.
    import scipy.sparse as sp

    from corset import BinaryData

    rng = np.random.default_rng(seed)
    n_records, n_features, n_labels = int(rng.integers(5, 120)), 10, 5
    X = sp.csr_matrix((rng.random((n_records, n_features)) < 0.3).astype(np.uint8))
    Y = sp.csr_matrix((rng.random((n_records, n_labels)) < 0.4).astype(np.uint8))
    data = BinaryData(X, Y)
    f_idx, l_idx = data.feature_records, data.label_records
    stores = RuleStore(), RuleStore()
    for store in stores:
        store.bind_data(f_idx.indptr, f_idx.ids, l_idx.indptr, l_idx.ids, data.n_records, *data.column_bitsets())
    chosen = []
    next_number = 0
    for step in range(6):
        n_rules = int(rng.integers(1, 25))
        # Rules seen before come back (their numbers), new ones get new numbers.
        numbers = np.where(rng.random(n_rules) < 0.4, rng.integers(0, max(next_number, 1), n_rules),
                           next_number + np.arange(n_rules)).astype(np.int64)
        numbers = np.unique(numbers)[rng.permutation(np.unique(numbers).size)][:n_rules]
        arrays = _pool(rng, n_features, n_labels, numbers.size)
        next_number += n_rules
        flags = rng.integers(0, 4, numbers.size).astype(np.uint8)
        csr = _csr([r["support"] for r in chosen]) + _csr([r["tail"] for r in chosen]) if chosen else ()
        store, twin = stores
        got = store.read_pool(numbers, flags, *arrays, False, 2, 10**9, *csr)
        slots = twin.slots(numbers)
        missing = np.flatnonzero(slots < 0)
        stored = twin.slots(numbers)   # what a returning rule holds: its own row, not the pool's
        assert twin.add_rows(numbers, flags, missing, *arrays, False, 2, 10**9)
        slots = twin.slots(numbers)
        if csr:
            twin.catch_up(slots, *csr)
        want = twin.gather(slots)
        assert got[0].tolist() == slots.tolist() and (stored[stored >= 0] == slots[stored >= 0]).all()
        for a, b in zip(got[1], want):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
        chosen += _random_rows(rng, range(int(rng.integers(0, 3))))
    size = stores[0].size
    arrays = _pool(rng, n_features, n_labels, 3)
    fresh = np.arange(next_number, next_number + 3, dtype=np.int64)
    budget = stores[0].n_support_ids - 1   # already passed: no new rule fits, not even an empty D[R]
    assert stores[0].read_pool(fresh, np.zeros(3, dtype=np.uint8), *arrays, True, 1, budget) is None
    assert stores[0].size == size and stores[0].slots(fresh).tolist() == [-1, -1, -1]
