"""Candidate pools as arrays: RuleRegistry, pool_from_jobs, CandidatePool, and their use by the selection.

Each compiled piece is compared with a plain-Python reference on random
inputs; the array path of the candidate generator and of the greedy
selection is compared with the tuple path (same draws, same rules).
"""
import subprocess
import sys

import numpy as np
import pytest

from corset import BinaryData
from corset._ext._csr_rows import pool_from_jobs
from corset._ext._rule_registry import RuleRegistry
from corset.datasets import make_rule_data
from corset.sampling import CandidateGenerator, SamplingError
from corset.sampling._head_gh import GreedyHeadSearch
from corset.selection import CandidatePool, check_rules, greedy_selection


def _csr(parts):
    indptr = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=indptr[1:])
    ids = np.array([i for p in parts for i in p], dtype=np.int32)
    return indptr, ids


def _rows(indptr, ids):
    return [tuple(ids[indptr[i]:indptr[i + 1]].tolist()) for i in range(len(indptr) - 1)]


def _random_pool(rng, n_rules, n_features=6, n_labels=3, max_head=3):
    """Random canonical rules from small spaces, so that repeats are frequent."""
    rules = []
    for _ in range(n_rules):
        head = tuple(sorted(rng.choice(n_features, size=rng.randint(1, max_head + 1), replace=False).tolist()))
        tail = tuple(sorted(rng.choice(n_labels, size=rng.randint(1, 3), replace=False).tolist()))
        rules.append((head, tail))
    return rules


def _register(registry, rules):
    heads, tails = _csr([h for h, _ in rules]), _csr([t for _, t in rules])
    return registry.register_pool(*heads, *tails)


@pytest.mark.parametrize("seed", range(20))
def test_register_pool_matches_a_dictionary(seed):
    rng = np.random.RandomState(seed)
    registry = RuleRegistry()
    reference = {}
    chosen = set()
    for call in range(6):
        rules = _random_pool(rng, rng.randint(0, 40))
        (hp, hi, tp, ti), numbers, flags = _register(registry, rules)
        kept = list(zip(_rows(hp, hi), _rows(tp, ti)))
        n_before = len(reference)
        want_kept, want_numbers, want_flags = [], [], []
        for rule in rules:
            if rule not in reference:
                reference[rule] = len(reference)
            if rule in want_kept:
                continue
            want_kept.append(rule)
            want_numbers.append(reference[rule])
            want_flags.append((reference[rule] >= n_before) | (2 if rule in chosen else 0))
        assert kept == want_kept
        assert numbers.tolist() == want_numbers
        assert flags.tolist() == want_flags
        assert len(registry) == len(reference)
        if want_numbers:
            pick = int(rng.randint(len(want_numbers)))
            registry.mark_chosen(want_numbers[pick])
            chosen.add(want_kept[pick])


def test_register_numbers_rules_by_first_appearance():
    registry = RuleRegistry()
    rules = [((0,), (1,)), ((0, 2), (1,)), ((0,), (1,)), ((0,), (0, 1)), ((1,), (0,))]
    heads, tails = _csr([h for h, _ in rules]), _csr([t for _, t in rules])
    assert registry.register(*heads, *tails).tolist() == [0, 1, 0, 2, 3]
    # A head and a tail are not confused: ((0, 1), (2,)) differs from ((0,), (1, 2)).
    heads, tails = _csr([(0, 1), (0,)]), _csr([(2,), (1, 2)])
    assert registry.register(*heads, *tails).tolist() == [4, 5]
    registry.clear()
    assert len(registry) == 0
    heads, tails = _csr([(1,)]), _csr([(0,)])
    assert registry.register(*heads, *tails).tolist() == [0]


def test_register_pool_edge_cases():
    registry = RuleRegistry()
    empty = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    arrays, numbers, flags = registry.register_pool(*empty, *empty)
    assert numbers.size == 0 and flags.size == 0 and arrays[0].tolist() == [0]
    with pytest.raises(ValueError, match="number 0"):
        registry.mark_chosen(0)
    with pytest.raises(ValueError, match="same number of rules"):
        registry.register_pool(np.zeros(3, dtype=np.int64), np.zeros(0, dtype=np.int32), *empty)


@pytest.mark.parametrize("seed", range(10))
def test_pool_from_jobs_matches_python(seed):
    rng = np.random.RandomState(seed)
    n = int(rng.randint(1, 5))
    tails = [tuple(sorted(rng.choice(5, size=rng.randint(1, 3), replace=False).tolist())) for _ in range(7)]
    n_jobs = n * len(tails) + 3
    heads = [() if rng.rand() < 0.3 else tuple(sorted(rng.choice(9, size=rng.randint(1, 4), replace=False).tolist()))
             for _ in range(n_jobs)]
    first_job = np.array([-1 if rng.rand() < 0.2 else int(rng.randint(0, n_jobs - n + 1)) for _ in tails],
                         dtype=np.int64)
    hp, hi, tp, ti = pool_from_jobs(*_csr(heads), first_job, n, *_csr(tails))
    want = [(heads[j], tails[o]) for o in range(len(tails)) if first_job[o] >= 0
            for j in range(first_job[o], first_job[o] + n) if heads[j]]
    assert list(zip(_rows(hp, hi), _rows(tp, ti))) == want


def test_candidate_pool_validates_its_arrays():
    ok = dict(n_features=5, n_labels=2)
    pool = CandidatePool([0, 1, 3], [4, 0, 2], [0, 1, 2], [1, 0], **ok)
    assert list(pool) == [((4,), (1,)), ((0, 2), (0,))]
    assert pool[1] == ((0, 2), (0,)) and len(pool) == 2
    assert list(CandidatePool.from_rules(list(pool), **ok)) == list(pool)
    cases = [
        (([0, 1], [5], [0, 1], [0]), "head_ids: rule 0 holds the id 5, outside \\[0, n_features\\) = \\[0, 5\\)"),
        (([0, 1], [-1], [0, 1], [0]), "outside"),
        (([0, 2], [3, 1], [0, 1], [0]), "strictly increasing"),
        (([0, 2], [1, 1], [0, 1], [0]), "strictly increasing"),
        (([0, 0], [], [0, 1], [0]), "non-empty"),
        (([0, 1], [1], [0, 0], []), "non-empty"),
        (([0, 1], [1], [0, 1, 2], [0, 1]), "describes 2 rules; expected 1"),
        (([0, 1], [1.5], [0, 1], [0]), "integers"),
        (([0, 1], [2**40], [0, 1], [0]), "outside"),
        (([1, 2], [1, 2], [0, 1], [0]), "head_indptr must start at 0"),
    ]
    for arrays, message in cases:
        with pytest.raises(ValueError, match=message):
            CandidatePool(*arrays, **ok)


def test_greedy_selection_rejects_a_pool_for_other_data():
    data = BinaryData(np.eye(4, dtype=np.uint8), np.eye(4, dtype=np.uint8)[:, :2])
    pool = CandidatePool([0, 1], [0], [0, 1], [0], n_features=5, n_labels=2)
    with pytest.raises(ValueError, match="built for 5 features"):
        greedy_selection(data, lambda rules: pool, n_rules=2)


@pytest.fixture(scope="module")
def synthetic():
    d = make_rule_data(n_records=300, n_features=30, n_labels=8, random_state=0)
    return BinaryData(d.X, d.Y)


def _pool_by_tuples(gen, selected):
    """The generator's pool built the way it was before pools became arrays: tuples from sample_many/sample."""
    gen._apply(selected)
    gen._head_sampler.follow_coverage(gen.coverage)
    tails = gen._tail_sampler.sample(gen.n_tails, gen._rng)
    if hasattr(gen._head_sampler, "sample_many"):
        batches, errors = gen._head_sampler.sample_many(tails, gen.n_heads_per_tail, gen._rng)
    else:
        batches, errors = [], []
        for tail in tails:
            try:
                batches.append(gen._head_sampler.sample(tail, gen.n_heads_per_tail, gen._rng))
                errors.append(None)
            except SamplingError as exc:
                batches.append([])
                errors.append(exc)
    return [(h, tuple(tail)) for tail, heads, error in zip(tails, batches, errors) if error is None for h in heads]


@pytest.mark.parametrize("head_method", ["gh", "cftp"])
@pytest.mark.parametrize("space", ["full", "interpretable"])
def test_candidate_pool_equals_the_tuple_pool(synthetic, head_method, space):
    options = dict(n_tails=12, n_heads_per_tail=4, head_method=head_method, space=space, max_head_length=3,
                   on_proposal_limit="skip")
    reference = CandidateGenerator(synthetic, random_state=5, **options)
    as_pool = CandidateGenerator(synthetic, random_state=5, **options)
    as_list = CandidateGenerator(synthetic, random_state=5, **options)
    chosen = []
    for _ in range(4):
        want = _pool_by_tuples(reference, chosen)
        pool = as_pool.candidate_pool(chosen)
        assert isinstance(pool, CandidatePool)
        assert list(pool) == want
        assert as_list(chosen) == list(dict.fromkeys(want))
        chosen = chosen + [want[len(want) // 2]]


@pytest.mark.parametrize("seed", range(4))
def test_gh_sample_pool_equals_sample_many(synthetic, seed):
    rng = np.random.RandomState(seed)
    # Tails carried by some record (a tail without positive record is an argument error).
    carried = [tuple(synthetic.record_labels[i].tolist()) for i in range(synthetic.n_records)]
    tails = [carried[i][:rng.randint(1, 3)] for i in rng.randint(synthetic.n_records, size=40) if carried[i]][:15]
    options = dict(max_head_length=3, seed="paper", pair_method="rejection")
    heads, errors = GreedyHeadSearch(synthetic, **options).sample_many(tails, 6, random_state=seed)
    pool, pool_errors = GreedyHeadSearch(synthetic, **options).sample_pool(tails, 6, random_state=seed)
    arrays = pool.arrays
    assert [type(e) for e in pool_errors] == [type(e) for e in errors]
    hp, hi, tp, ti = arrays
    assert list(zip(_rows(hp, hi), _rows(tp, ti))) == [(h, t) for t, hs in zip(tails, heads) for h in hs]


@pytest.mark.parametrize("second_round", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_greedy_selection_array_path_equals_tuple_path(synthetic, seed, second_round):
    options = dict(n_tails=10, n_heads_per_tail=5, head_method="gh", space="interpretable", max_head_length=3,
                   on_proposal_limit="skip")
    arrays_gen = CandidateGenerator(synthetic, random_state=seed, **options)
    tuples_gen = CandidateGenerator(synthetic, random_state=seed, **options)
    common = dict(n_rules=12, lam=0.1, quality="submodular", tol=None, second_round=second_round)
    by_arrays = greedy_selection(synthetic, arrays_gen, **common)
    by_tuples = greedy_selection(synthetic, lambda rules: tuples_gen(rules), **common)
    assert by_arrays.rules == by_tuples.rules
    assert by_arrays.n_candidates == by_tuples.n_candidates
    assert by_arrays.objective == by_tuples.objective


@pytest.mark.parametrize("store_bytes, evicted, dropped", [
    (4_000, True, True),      # a pool too large on its own: dropped after a first eviction
    (8_000, True, False),     # evicted many times (more than 10), never dropped
    (16_000, True, False),
    (None, False, False),     # the default: everything kept
])
@pytest.mark.parametrize("options", [dict(lam=0.1, quality="submodular", min_support=2),
                                     dict(lam=1.0, quality="paper", second_round=True),
                                     dict(lam=0.0, quality="submodular")])
def test_candidate_store_gives_the_same_selection(synthetic, monkeypatch, store_bytes, evicted, dropped, options):
    """Statistics and distance sums kept per distinct rule, evicted when the store is full (and
    computed again, distance sums included, when an evicted rule comes back), or dropped mid-run,
    change nothing: the same rules, gains and areas as computing every pool afresh."""
    import corset.selection._greedy as greedy

    stores = []

    class Recorded(greedy._CandidateStore):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.chosen_numbers, self.returned = [], []
            stores.append(self)

        def pool(self, state, arrays, numbers, flags):
            # Chosen rules evicted since, stored again (their eligibility must stay cleared).
            if self.active:
                missing = numbers[self.rules.slots(numbers) < 0]
                self.returned += [n for n in missing.tolist() if n in self.chosen_numbers]
            return super().pool(state, arrays, numbers, flags)

        def chose(self, state, number):
            self.chosen_numbers.append(number)
            super().chose(state, number)

    def run(bytes_):
        monkeypatch.setattr(greedy, "_CandidateStore", Recorded)
        if bytes_ is not None:
            monkeypatch.setattr(greedy, "_STORE_BYTES", bytes_)
        gen = CandidateGenerator(synthetic, n_tails=10, n_heads_per_tail=5, head_method="gh",
                                 space="interpretable", max_head_length=3, on_proposal_limit="skip", random_state=4)
        result = greedy_selection(synthetic, gen, n_rules=20, tol=None, **options)
        monkeypatch.undo()
        return result

    reference = run(0)   # the store is never used: every pool computed afresh
    assert [s.active for s in stores] == [False]
    stores.clear()
    got = run(store_bytes)
    assert got.rules == reference.rules
    np.testing.assert_array_equal(got.gains, reference.gains)
    np.testing.assert_array_equal(got.areas, reference.areas)
    assert got.objective == reference.objective and got.n_candidates == reference.n_candidates
    store = stores[0]
    assert [s.active for s in stores] == [not dropped]
    assert (store.n_evictions > (10 if store_bytes == 8_000 else 0)) == evicted
    if store.active:
        slots = store.rules.slots(np.asarray(store.chosen_numbers, dtype=np.int64))
        assert not store.rules.eligible_at(slots[slots >= 0]).any()
        if store_bytes == 8_000:
            assert store.returned   # the check above read chosen rules evicted and stored again


def test_candidate_pool_tails_are_canonical_whatever_the_tail_sampler_returns(synthetic, monkeypatch):
    """The GH pool is not checked again after its search: its tails are made canonical before it."""
    gen = CandidateGenerator(synthetic, n_tails=5, n_heads_per_tail=2, head_method="gh", max_head_length=3,
                             on_proposal_limit="skip", random_state=0)
    pool = gen.candidate_pool([])
    tail = pool[0][1]
    if len(tail) < 2:
        carried = [tuple(synthetic.record_labels[i].tolist()) for i in range(synthetic.n_records)]
        tail = next(t for t in carried if len(t) >= 2)[:2]
    monkeypatch.setattr(gen._tail_sampler, "sample", lambda n, rng: [tuple(reversed(tail)), list(tail)])
    pool = gen.candidate_pool([])
    assert all(t == tuple(sorted(tail)) for _, t in pool)
    monkeypatch.setattr(gen._tail_sampler, "sample", lambda n, rng: [(synthetic.n_labels,)])
    with pytest.raises(ValueError, match="tail holds an id outside"):
        gen.candidate_pool([])


@pytest.mark.parametrize("seed", range(5))
def test_gather_rows_matches_numpy(seed):
    from corset._ext._csr_rows import gather_rows

    rng = np.random.RandomState(seed)
    rows_in = [tuple(rng.randint(0, 50, size=rng.randint(0, 5)).tolist()) for _ in range(30)]
    indptr, ids = _csr(rows_in)
    picks = rng.randint(0, len(rows_in), size=40).astype(np.int64)
    out_indptr, out_ids = gather_rows(indptr, ids, picks)
    assert _rows(out_indptr, out_ids) == [rows_in[i] for i in picks]
    assert out_indptr.dtype == np.int64 and out_ids.dtype == np.int32
    empty = gather_rows(indptr, ids, np.zeros(0, dtype=np.int64))
    assert empty[0].tolist() == [0] and empty[1].size == 0
    for bad in (-1, len(rows_in)):
        with pytest.raises(IndexError, match="outside a CSR"):
            gather_rows(indptr, ids, np.array([0, bad], dtype=np.int64))


@pytest.mark.parametrize("by_tail", [False, True])
@pytest.mark.parametrize("n_records, density", [(50, 0.8), (300, 0.5), (700, 0.05), (130, 0.3)])
def test_rule_supports_from_bitsets_equal_merged_lists(global_random_seed, n_records, density, by_tail):
    """D[R], |D[H]| and |D[T]| from ANDed record bitsets (rules with long lists) equal the merged
    id lists' and a brute force, for rules of every length, in one pool with rules of both kinds;
    ``by_tail``: rules of one tail in a row, as in a sampled pool (they share the tail's AND)."""
    from corset._ext import _selection

    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(n_records, 12) < density
    X[:, 0] = rng.rand(n_records) < 0.02        # short lists: merged even with bitsets
    Y = rng.rand(n_records, 5) < 0.6
    data = BinaryData(X, Y)
    rules = {(tuple(sorted(rng.choice(12, size=rng.randint(1, 5), replace=False).tolist())),
              tuple(sorted(rng.choice(5, size=rng.randint(1, 3), replace=False).tolist()))) for _ in range(60)}
    rules = sorted(rules, key=lambda rule: rule[::-1] if by_tail else rule)
    arrays = check_rules(rules, 12, 5).arrays
    f, lab = data.feature_records, data.label_records
    plain = _selection.rule_supports(f.indptr, f.ids, lab.indptr, lab.ids, data.n_records, *arrays)
    feature_bits, label_bits, n_words = data.column_bitsets()
    assert n_words == -(-n_records // 64)
    bits = _selection.rule_supports(f.indptr, f.ids, lab.indptr, lab.ids, data.n_records, *arrays,
                                    feature_bits, label_bits, n_words)
    for a, b in zip(plain, bits):
        np.testing.assert_array_equal(a, b)
    indptr, ids, head_counts, tail_counts = bits
    for r, (head, tail) in enumerate(rules):
        fires = X[:, list(head)].all(axis=1)
        carries = Y[:, list(tail)].all(axis=1)
        assert head_counts[r] == fires.sum() and tail_counts[r] == carries.sum()
        np.testing.assert_array_equal(ids[indptr[r]:indptr[r + 1]], np.flatnonzero(fires & carries))
    with pytest.raises(ValueError, match="both"):
        _selection.rule_supports(f.indptr, f.ids, lab.indptr, lab.ids, data.n_records, *arrays, feature_bits)
    with pytest.raises(ValueError, match="too small"):
        _selection.rule_supports(f.indptr, f.ids, lab.indptr, lab.ids, data.n_records, *arrays,
                                 feature_bits[:-1], label_bits, n_words)


def test_column_bitsets_are_built_once_and_capped(monkeypatch):
    import corset.binarydata as binarydata

    rng = np.random.RandomState(0)
    data = BinaryData(rng.rand(100, 7) < 0.5, rng.rand(100, 3) < 0.5)
    first = data.column_bitsets()
    assert data.column_bitsets() is first and not first[0].flags.writeable
    bits = first[0].reshape(7, 2)
    for j in range(7):
        ids = np.flatnonzero(np.unpackbits(bits[j].view(np.uint8), bitorder="little"))
        np.testing.assert_array_equal(ids, data.feature_records[j])
    monkeypatch.setattr(binarydata, "BITSET_BYTES", 8)
    assert BinaryData(data.X, data.Y).column_bitsets() == (None, None, 0)


def _boundary_family(rng, n_ids):
    """Every split of one random id sequence into a non-empty head and tail: the rules share their
    concatenated ids and differ only by where the head ends ((1, 2), (3,)) vs ((1,), (2, 3))."""
    ids = tuple(sorted(rng.choice(n_ids, size=rng.randint(2, 6), replace=False).tolist()))
    return [(ids[:k], ids[k:]) for k in range(1, len(ids))]


def _universe(rng, n_distinct):
    """At least ``n_distinct`` distinct rules in random order, and the boundary families among them.

    Random rules, boundary families (:func:`_boundary_family`), and a family with an empty head or tail."""
    family = [((), (1, 2)), ((1,), (2,)), ((1, 2), ())]
    rules, families = dict.fromkeys(family + [((), ())]), [family]
    while len(rules) < n_distinct:
        if rng.rand() < 0.3:
            family = _boundary_family(rng, 12)
            families.append(family)
            rules.update(dict.fromkeys(family))
        else:
            head = tuple(sorted(rng.choice(400, size=rng.randint(1, 5), replace=False).tolist()))
            tail = tuple(sorted(rng.choice(20, size=rng.randint(1, 4), replace=False).tolist()))
            rules[(head, tail)] = None
    rules = list(rules)
    rng.shuffle(rules)
    return rules, families


@pytest.mark.parametrize("seed", range(16))
def test_registry_matches_a_dictionary_reference(seed):
    """register and register_pool against a dict keyed by (head, tail): numbers, kept rules, flags.

    Pools mix new rules with old ones (repeats across pools), repeat rules within the pool, hold
    whole boundary families (rules whose concatenated ids collide across the head/tail boundary),
    and alternate with empty batches; three seeds reach 50,000 distinct rules (the table's slots
    are rehashed many times, its arena reallocated)."""
    rng = np.random.RandomState(seed)
    big = seed < 3
    universe, families = _universe(rng, 50_000 if big else 2_000)
    registry = RuleRegistry()
    reference = {}
    chosen = set()
    empty = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    frontier = 0  # rules universe[:frontier] have been offered so far
    while frontier < len(universe):
        if rng.rand() < 0.1:  # empty batches change nothing
            assert registry.register(*empty, *empty).size == 0
            arrays, numbers, flags = registry.register_pool(*empty, *empty)
            assert numbers.size == flags.size == 0 and arrays[0].tolist() == [0] and arrays[2].tolist() == [0]
            assert len(registry) == len(reference)
            continue
        size = int(rng.randint(1, 600 if big else 80))
        new = universe[frontier:frontier + int(rng.randint(0, size + 1))]
        frontier += len(new)
        rules = new + [universe[i] for i in rng.randint(0, frontier, size=size)] if frontier else []
        rules += [rules[i] for i in rng.randint(0, len(rules), size=len(rules) // 4)] if rules else []
        if rng.rand() < 0.3:
            rules += families[rng.randint(len(families))]
        rng.shuffle(rules)
        heads, tails = _csr([h for h, _ in rules]), _csr([t for _, t in rules])
        n_before = len(reference)
        if rng.rand() < 0.2:
            got = registry.register(*heads, *tails)
            assert got.tolist() == [reference.setdefault(rule, len(reference)) for rule in rules]
        else:
            (hp, hi, tp, ti), numbers, flags = registry.register_pool(*heads, *tails)
            want_kept = list(dict.fromkeys(rules))
            want_numbers = [reference.setdefault(rule, len(reference)) for rule in want_kept]
            assert list(zip(_rows(hp, hi), _rows(tp, ti))) == want_kept
            assert numbers.tolist() == want_numbers
            assert flags.tolist() == [(n >= n_before) | (2 if n in chosen else 0) for n in want_numbers]
            if numbers.size and rng.rand() < 0.5:
                pick = int(numbers[rng.randint(numbers.size)])
                registry.mark_chosen(pick)
                chosen.add(pick)
        assert len(registry) == len(reference)
    # Every rule reads back from its number, and registering everything again adds nothing.
    by_number = list(reference)
    assert len(by_number) == len(universe)
    probe = rng.choice(len(by_number), size=min(len(by_number), 3000), replace=False)
    assert [registry._rule(int(n)) for n in probe] == [by_number[n] for n in probe]
    heads, tails = _csr([h for h, _ in by_number]), _csr([t for _, t in by_number])
    assert registry.register(*heads, *tails).tolist() == list(range(len(by_number)))
    assert len(registry) == len(by_number)


def test_registry_clear_then_reuse():
    rng = np.random.RandomState(7)
    registry = RuleRegistry()
    first = _universe(rng, 5_000)[0][:5_000]
    heads, tails = _csr([h for h, _ in first]), _csr([t for _, t in first])
    assert registry.register(*heads, *tails).tolist() == list(range(5_000))
    registry.mark_chosen(3)
    registry.mark_chosen(4_999)
    registry.clear()
    assert len(registry) == 0
    with pytest.raises(ValueError, match="number 0"):
        registry.mark_chosen(0)
    # Numbering starts again at 0, the chosen marks are gone, and the table grows again from nothing.
    second = _universe(np.random.RandomState(8), 20_000)[0][:20_000]
    pool = [second[i] for i in rng.randint(0, len(second), size=60_000)] + second
    (hp, hi, tp, ti), numbers, flags = _register(registry, pool)
    kept = list(dict.fromkeys(pool))
    assert list(zip(_rows(hp, hi), _rows(tp, ti))) == kept
    assert numbers.tolist() == list(range(len(kept)))
    assert flags.tolist() == [1] * len(kept)
    assert len(registry) == len(kept) == 20_000
    assert [registry._rule(n) for n in (0, 3, 4_999, 19_999)] == [kept[0], kept[3], kept[4_999], kept[19_999]]
    # A rule of the first life is a stranger now unless the second one met it.
    in_second = set(second)
    rule = next(r for r in first if r not in in_second)
    _, numbers, flags = _register(registry, [rule, kept[3]])
    assert numbers.tolist() == [20_000, 3] and flags.tolist() == [1, 0]
    registry.clear()
    registry.clear()  # clearing an empty registry is fine
    assert _register(registry, [rule, rule])[1].tolist() == [0]


def test_registry_chosen_flags():
    registry = RuleRegistry()
    a, b, c, d = ((0,), (1,)), ((0, 1), (2,)), ((0,), (1, 2)), ((5,), (0,))
    # Registered through register(): not new in a later pool (bit 0 clear).
    heads, tails = _csr([a[0]]), _csr([a[1]])
    assert registry.register(*heads, *tails).tolist() == [0]
    _, numbers, flags = _register(registry, [b, a, b, c])
    assert numbers.tolist() == [1, 0, 2] and flags.tolist() == [1, 0, 1]
    registry.mark_chosen(2)
    registry.mark_chosen(2)  # twice: same as once
    registry.mark_chosen(0)
    for bad in (-1, 3, 2**40):
        with pytest.raises(ValueError, match=f"no rule has number {bad}"):
            registry.mark_chosen(bad)
    # Chosen marks persist from pool to pool, on the first occurrence of the rule in the pool.
    for d_flag in (1, 0):  # d is new in the first of these two pools only
        _, numbers, flags = _register(registry, [c, d, a, c, b, a])
        assert numbers.tolist() == [2, 3, 0, 1] and flags.tolist() == [2, d_flag, 2, 0]
    registry.mark_chosen(3)
    _, numbers, flags = _register(registry, [d, b])
    assert numbers.tolist() == [3, 1] and flags.tolist() == [2, 0]
    # Rules with the same concatenated ids are different rules: only c = ((0,), (1, 2)) is chosen.
    _, numbers, flags = _register(registry, [((0, 1), (2,)), ((0,), (1, 2)), ((0, 1, 2), ())])
    assert numbers.tolist() == [1, 2, 4] and flags.tolist() == [0, 2, 1]


_OOM_SCRIPT = r"""
import resource, sys
import subprocess
import sys

import numpy as np
from corset._ext._rule_registry import RuleRegistry

method, headroom_mb = sys.argv[1], int(sys.argv[2])
n = 1_000_000
hp = np.arange(n + 1, dtype=np.int64)
hi = np.arange(n, dtype=np.int32)
tp = np.arange(n + 1, dtype=np.int64)
ti = np.zeros(n, dtype=np.int32)
registry = RuleRegistry()
registry.register(hp[:1001], hi[:1000], tp[:1001], ti[:1000])
call = registry.register if method == "register" else registry.register_pool
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
with open("/proc/self/status") as f:
    vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
limit = vm + headroom_mb * 2**20
if hard != resource.RLIM_INFINITY and hard < limit:
    print("skip: hard RLIMIT_AS too low")
    sys.exit(0)
resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
try:
    call(hp, hi, tp, ti)
    raised = False
except MemoryError:
    raised = True
resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
k = len(registry)
assert raised, "no MemoryError"
assert 1000 < k < n, k          # the table ran out part-way through the batch
assert registry._rule(k - 1) == ((k - 1,), (0,))
if method == "register":
    assert registry.register(hp, hi, tp, ti).tolist() == list(range(n))
else:
    _, numbers, flags = registry.register_pool(hp, hi, tp, ti)
    assert numbers.tolist() == list(range(n))
    assert (flags[:k] == 0).all() and (flags[k:] == 1).all()
assert len(registry) == n
print("ok", k)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc/self/status")
@pytest.mark.parametrize("method, headroom_mb", [("register", 30), ("register_pool", 50)])
def test_registry_out_of_memory_keeps_it_consistent(method, headroom_mb, tmp_path):
    """Out of memory part-way through a batch: MemoryError, the rules registered so far keep their
    numbers, and the registry goes on working once memory is back."""
    # Run outside the source tree, so that the child imports the installed (compiled) package
    # as the tests do, not the source folder.
    proc = subprocess.run([sys.executable, "-c", _OOM_SCRIPT, method, str(headroom_mb)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    if proc.stdout.startswith("skip"):
        pytest.skip(proc.stdout.strip())
    assert proc.stdout.startswith("ok")
