"""Lazy evaluation of the greedy gains (Minoux's accelerated greedy): the same choices as the full loop."""
import numpy as np
import pytest

from corset import BinaryData, CorsetClassifier
from corset._ext import _selection
from corset.datasets import make_rule_data
from corset.rules import Coverage
from corset.sampling import CandidateGenerator
from corset.selection import RuleBudget, StoppingCriterion, greedy_selection, rule_statistics
from corset.selection import _greedy

QUALITIES = ["paper", "submodular"]


def _case(seed, n_records, density, n_rules=80):
    """Data whose features 8-11 copy features 0-3 (rules with equal supports: exact ties), and a pool."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n_records, 8) < density
    X = np.hstack([X, X[:, :4]])
    Y = rng.rand(n_records, 5) < rng.uniform(0.05, 0.7, size=5)
    data = BinaryData(X, Y)
    pool = sorted({(tuple(sorted(rng.choice(12, size=rng.randint(1, 3), replace=False).tolist())),
                    tuple(sorted(rng.choice(5, size=rng.randint(1, 4), replace=False).tolist())))
                   for _ in range(n_rules)})
    return rng, data, pool, rule_statistics(data, pool)


def _full(data, stats, coverage, sums, eligible, lam, submodular):
    _, label_bits, n_words = data.column_bitsets()
    gains = np.zeros(len(stats))
    areas = np.zeros(len(stats), dtype=np.int64)
    best = _selection.greedy_gains_by_label(
        data.label_records.indptr, data.label_records.ids, coverage.label_credit(), stats.support_indptr,
        stats.support_ids, stats.tail_indptr, stats.tail_ids, stats.accuracy, sums, eligible, lam, submodular,
        gains, areas, label_bits, data.label_ranks(), n_words)
    return areas, gains, best


def _lazy(data, stats, coverage, sums, eligible, lam, submodular, q_bound, area_bound):
    _, label_bits, n_words = data.column_bitsets()
    gains = np.zeros(len(stats))
    areas = np.zeros(len(stats), dtype=np.int64)
    exact = np.zeros(len(stats), dtype=np.uint8)
    best = _selection.lazy_greedy_gains_by_label(
        data.label_records.indptr, coverage.label_credit(), stats.support_indptr, stats.support_ids,
        stats.tail_indptr, stats.tail_ids, stats.accuracy, sums, eligible, lam, submodular, gains, areas,
        q_bound, area_bound, exact, label_bits, data.label_ranks(), n_words)
    return areas, gains, best, exact.astype(bool)


def _instances(monkeypatch, cls):
    """The list every new instance of ``cls`` is appended to, for the rest of the test."""
    made = []
    original = cls.__init__

    def record(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(cls, "__init__", record)
    return made


@pytest.mark.parametrize("quality", QUALITIES)
@pytest.mark.parametrize("lam", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("n_records, density", [(60, 0.5), (300, 0.3), (700, 0.8)])
def test_lazy_gains_pick_what_the_full_loop_picks_at_every_step(global_random_seed, n_records, density, lam,
                                                                quality):
    # Algorithm 1 on a fixed pool, with bounds kept across steps as the selection keeps them:
    # the same pick at every step (ties included: copied features give equal gains), exact
    # values bit for bit where the kernel evaluated, bounds no smaller than the values elsewhere.
    rng, data, pool, stats = _case(global_random_seed, n_records, density)
    submodular = quality == "submodular"
    coverage = Coverage(data)
    sums = np.zeros(len(stats))
    eligible = np.ones(len(stats), dtype=np.uint8)
    eligible[rng.rand(len(stats)) < 0.1] = 0
    q_bound = np.full(len(stats), np.inf)
    area_bound = np.full(len(stats), np.iinfo(np.int64).max, dtype=np.int64)
    n_skipped = 0
    for _ in range(len(stats)):
        areas, gains, best = _full(data, stats, coverage, sums, eligible, lam, submodular)
        lazy_areas, lazy_gains, lazy_best, exact = _lazy(data, stats, coverage, sums, eligible, lam, submodular,
                                                        q_bound, area_bound)
        assert lazy_best == best
        assert lazy_areas[exact].tolist() == areas[exact].tolist()
        assert lazy_gains[exact].tobytes() == gains[exact].tobytes()
        rest = (eligible == 1) & ~exact
        assert (lazy_areas[rest] >= areas[rest]).all() and (lazy_gains[rest] >= gains[rest]).all()
        assert (area_bound[exact] == areas[exact]).all()
        n_skipped += int(rest.sum())
        if best < 0:
            break
        coverage.add(*pool[best], support=stats.support(best), accuracy=float(stats.accuracy[best]))
        eligible[best] = 0
        sums += rng.uniform(0, 1, size=sums.size)   # the diversity sums only grow
    assert n_skipped > 0   # the bounds spared evaluations


def test_lazy_gains_break_ties_as_the_full_loop():
    # Two rules with the same support and tail (copied feature) tie exactly; the later one is
    # evaluated first (larger bound): the pick is still the lower index, as in the full loop.
    X = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1], [1, 1, 0]], dtype=bool)
    Y = np.array([[1], [1], [0], [0]], dtype=bool)
    data = BinaryData(X, Y)
    pool = [((0,), (0,)), ((1,), (0,)), ((2,), (0,))]
    stats = rule_statistics(data, pool)
    coverage = Coverage(data)
    sums = np.zeros(3)
    eligible = np.ones(3, dtype=np.uint8)
    areas, gains, best = _full(data, stats, coverage, sums, eligible, 0.0, True)
    assert best == 0 and gains[0] == gains[1] > 0
    q_bound = np.array([gains[0] * 2, gains[0] * 4, np.inf])   # rule 1's bound is the largest
    area_bound = np.array([areas[0], areas[1] + 1, 0], dtype=np.int64)
    _, lazy_gains, lazy_best, exact = _lazy(data, stats, coverage, sums, eligible, 0.0, True, q_bound, area_bound)
    assert lazy_best == 0 and exact.tolist() == [True, True, True]
    # A bound equal to the best gain at a higher index is not evaluated; at a lower index it is.
    q_bound = np.array([2 * gains[0], 2 * gains[0], 0.0])
    _, _, lazy_best, exact = _lazy(data, stats, coverage, sums, eligible, 0.0, True, q_bound.copy(),
                                   area_bound.copy())
    assert lazy_best == 0 and exact.tolist() == [True, False, False]
    q_bound = np.array([np.inf, 2 * gains[0], 0.0])
    eligible = np.array([0, 1, 1], dtype=np.uint8)
    _, _, lazy_best, exact = _lazy(data, stats, coverage, sums, eligible, 0.0, True, q_bound, area_bound.copy())
    assert lazy_best == 1 and not exact[0]   # ineligible: never evaluated


def test_lazy_gains_check_their_arrays():
    _, data, pool, stats = _case(0, 100, 0.5, n_rules=10)
    coverage = Coverage(data)
    n = len(stats)
    args = dict(sums=np.zeros(n), eligible=np.ones(n, dtype=np.uint8), lam=0.1, submodular=True,
                q_bound=np.full(n, np.inf), area_bound=np.zeros(n, dtype=np.int64))
    with pytest.raises(ValueError, match="q_bound holds"):
        _lazy(data, stats, coverage, **{**args, "q_bound": np.full(n - 1, np.inf)})
    with pytest.raises(ValueError, match="eligible holds"):
        _lazy(data, stats, coverage, **{**args, "eligible": np.ones(n + 1, dtype=np.uint8)})
    _, label_bits, n_words = data.column_bitsets()
    with pytest.raises(ValueError, match="label occurrences"):
        _selection.lazy_greedy_gains_by_label(
            data.label_records.indptr, coverage.label_credit()[:-1], stats.support_indptr, stats.support_ids,
            stats.tail_indptr, stats.tail_ids, stats.accuracy, args["sums"], args["eligible"], 0.1, True,
            np.zeros(n), np.zeros(n, dtype=np.int64), args["q_bound"], args["area_bound"],
            np.zeros(n, dtype=np.uint8), label_bits, data.label_ranks(), n_words)
    with pytest.raises(ValueError, match="too small"):
        _selection.lazy_greedy_gains_by_label(
            data.label_records.indptr, coverage.label_credit(), stats.support_indptr, stats.support_ids,
            stats.tail_indptr, stats.tail_ids, stats.accuracy, args["sums"], args["eligible"], 0.1, True,
            np.zeros(n), np.zeros(n, dtype=np.int64), args["q_bound"], args["area_bound"],
            np.zeros(n, dtype=np.uint8), label_bits[:-1], data.label_ranks(), n_words)


class _PoolShares(StoppingCriterion):
    """Reads every step's largest share among the pool, before and after its rule is added (the
    step's own: exact even when the gains were lazy)."""

    def start(self, data):
        self.shares = []

    def before_adding(self, step):
        self.shares.append(step.pool_share)
        return None

    def after_adding(self, step):
        self.shares.append(step.pool_share)
        return False


class _LateShares(_PoolShares):
    """Reads the pool share only once the step's rule is added."""

    def before_adding(self, step):
        return None


def _selections(data, lazy, monkeypatch, read_shares=True, reader_type=_PoolShares, **kwargs):
    monkeypatch.setattr(_greedy._GeneratedPools, "lazy", lazy)
    generator = CandidateGenerator(data, n_tails=kwargs.pop("n_tails", 20), n_heads_per_tail=5, random_state=3)
    reader = reader_type()
    result = greedy_selection(data, generator, stopping_criteria=[reader] if read_shares else None, **kwargs)
    return result, reader.shares if read_shares else None


@pytest.mark.parametrize("kwargs", [
    dict(n_rules=40),
    dict(n_rules=60, tol=0.002, share_criterion="pool", patience=2),
    dict(n_rules=60, tol=0.01, share_criterion="chosen", lam=0.0),
    dict(n_rules=30, quality="paper", lam=0.5),
    dict(n_rules=50, min_support=5, tol=0.001, share_criterion="pool"),
])
def test_lazy_selection_is_the_full_selection(monkeypatch, kwargs):
    # Whole selections, lazy or not: the same rules, gains, areas, shares, stop and pool shares.
    bunch = make_rule_data(n_records=600, n_features=30, n_labels=12, random_state=1)
    data = BinaryData(bunch.X, bunch.Y)
    full, full_shares = _selections(data, False, monkeypatch, **dict(kwargs))
    lazy, lazy_shares = _selections(data, True, monkeypatch, **dict(kwargs))
    assert lazy.rules == full.rules and len(full.rules) > 3
    assert np.asarray(lazy.gains).tobytes() == np.asarray(full.gains).tobytes()
    assert np.asarray(lazy.areas).tolist() == np.asarray(full.areas).tolist()
    assert np.asarray(lazy.shares).tobytes() == np.asarray(full.shares).tobytes()
    assert lazy.stop_reason == full.stop_reason
    assert lazy_shares == full_shares


@pytest.mark.parametrize("quality", QUALITIES)
@pytest.mark.parametrize("seed, tol", [(0, 0.01), (0, 0.05), (1, 0.005)])
def test_pool_share_tolerance_stops_where_the_full_loop_stops(monkeypatch, seed, tol, quality):
    # The pool criterion of τ alone reads the shares (no other reader completes them): it
    # evaluates the candidates whose bound passes τ, and stops where the full loop stops
    # (taking the bounds for the shares, these cases stop earlier).
    bunch = make_rule_data(n_records=800, n_features=12, n_labels=5, random_state=seed)
    data = BinaryData(bunch.X, bunch.Y)
    kwargs = dict(read_shares=False, n_rules=60, lam=0.0, quality=quality, tol=tol, share_criterion="pool")
    full = _selections(data, False, monkeypatch, **kwargs)[0]
    lazy = _selections(data, True, monkeypatch, **kwargs)[0]
    assert full.stop_reason == "tol" and lazy.stop_reason == "tol"
    assert lazy.rules == full.rules


@pytest.mark.parametrize("quality", QUALITIES)
@pytest.mark.parametrize("seed", [0, 3, 5])
def test_pool_share_read_after_adding_is_the_steps_own(monkeypatch, seed, quality):
    # A criterion of the user's that reads the pool share only after the rule was added: the
    # share is completed before the rule changes the coverage (completed after it, these cases
    # differ from the full loop's shares).
    bunch = make_rule_data(n_records=800, n_features=12, n_labels=5, random_state=seed)
    data = BinaryData(bunch.X, bunch.Y)
    kwargs = dict(reader_type=_LateShares, n_rules=30, lam=0.0, quality=quality)
    full = _selections(data, False, monkeypatch, **kwargs)[1]
    lazy = _selections(data, True, monkeypatch, **kwargs)[1]
    assert lazy == full and len(full) > 5


def test_lazy_selection_spares_evaluations_and_completes_pool_shares(monkeypatch):
    # The steps evaluate a part of the pool only, and reading pool_share completes exactly the
    # candidates whose bound passes the largest exact area.
    bunch = make_rule_data(n_records=800, n_features=20, n_labels=6, random_state=2)
    data = BinaryData(bunch.X, bunch.Y)
    seen = _instances(monkeypatch, _greedy._LazyAreas)
    _selections(data, True, monkeypatch, read_shares=False, n_rules=40, lam=0.0)
    partial = [step for step in seen if not step.exact[step.eligible == 1].all()]
    assert len(partial) > len(seen) // 2
    step = partial[-1]
    eligible = step.eligible == 1
    largest = step.areas[eligible & step.exact].max()
    step.complete(step.areas > largest)
    assert step.areas[eligible & ~step.exact].max(initial=-1) <= largest


def test_estimator_rules_do_not_depend_on_lazy_gains(monkeypatch):
    bunch = make_rule_data(n_records=500, n_features=25, n_labels=8, random_state=4)
    fits = []
    for lazy in (False, True):
        monkeypatch.setattr(_greedy._GeneratedPools, "lazy", lazy)
        fits.append(CorsetClassifier(random_state=0, negations=True).fit(bunch.X, bunch.Y).rules_)
    assert fits[0] == fits[1]


@pytest.mark.parametrize("quality", QUALITIES)
@pytest.mark.parametrize("kwargs", [dict(lam=0.0), dict(lam=0.5, tol=0.01), dict(lam=0.1, tol=None, second=True)])
def test_lazy_fixed_pool_is_the_full_one(monkeypatch, quality, kwargs):
    # select_rules on a fixed pool, and round 2 over the union of round 1's pools: the same
    # rules, gains, areas and stop, lazily or not.
    from corset.selection import select_rules

    kwargs = dict(kwargs)
    second = kwargs.pop("second", False)
    bunch = make_rule_data(n_records=500, n_features=20, n_labels=8, random_state=7)
    data = BinaryData(bunch.X, bunch.Y)
    X, Y = (np.asarray(M.todense() if hasattr(M, "todense") else M) for M in (bunch.X, bunch.Y))
    rng = np.random.RandomState(0)
    pool = []
    for r in rng.choice(data.n_records, size=400):
        features = np.flatnonzero(X[r])
        labels = np.flatnonzero(Y[r])
        if features.size and labels.size:
            pool.append((tuple(sorted(rng.choice(features, size=min(2, features.size), replace=False).tolist())),
                         tuple(sorted(rng.choice(labels, size=1).tolist()))))
    results = []
    for lazy in (False, True):
        monkeypatch.setattr(_greedy._FixedPool, "lazy", lazy)
        monkeypatch.setattr(_greedy._GeneratedPools, "lazy", lazy)
        if second:
            generator = CandidateGenerator(data, n_tails=10, n_heads_per_tail=5, random_state=1)
            result = greedy_selection(data, generator, n_rules=20, quality=quality, second_round=True, **kwargs)
            results.append((result.round_rules, result.selected_round, result.stop_reason))
        else:
            result = select_rules(X, Y, pool, n_rules=40, quality=quality, **kwargs)
            results.append((result.rules, np.asarray(result.gains).tobytes(), np.asarray(result.areas).tolist(),
                            result.stop_reason))
    assert results[0] == results[1]
    assert len(results[0][0][1] if second else results[0][0]) > 3


def test_lazy_bounds_hold_when_an_accuracy_rounds_below_zero(monkeypatch):
    # a(R) as a KL divergence rounds to -2.4e-17 for rule 0 here (P_R barely above P_D): its
    # a·area then grows as its area shrinks, so its bound is max(q, 0), and the lazy pick after
    # rule 1 (which covers rule 0's occurrences) is still the full loop's.
    from corset.selection import select_rules

    n, t, r, h0, h2 = 20000, 8419, 5397, 12821, 14821
    X = np.zeros((n, 3), dtype=bool)
    Y = np.zeros((n, 2), dtype=bool)
    Y[:t, 0] = True
    Y[::7, 1] = True
    X[:r, 0] = X[t:t + h0 - r, 0] = True
    X[:t, 1] = True
    X[:r, 2] = X[t:t + h2 - r, 2] = True
    data = BinaryData(X, Y)
    pool = [((0,), (0,)), ((1,), (0,)), ((2,), (0,))]
    assert rule_statistics(data, pool).accuracy[0] < 0
    for quality in QUALITIES:
        results = []
        for lazy in (False, True):
            monkeypatch.setattr(_greedy._FixedPool, "lazy", lazy)
            result = select_rules(data, None, pool, n_rules=3, lam=1.0, quality=quality)
            results.append((result.rules, np.asarray(result.gains).tobytes(), result.stop_reason))
        assert results[0] == results[1]
        assert results[0][0] == [((1,), (0,)), ((0,), (0,))]


class _LateBudget(RuleBudget):
    """A subclass of a library criterion that reads the pool share after adding."""

    def __init__(self, n_rules):
        super().__init__(n_rules)
        self.shares = []

    def after_adding(self, step):
        self.shares.append(step.pool_share)
        return super().after_adding(step)


@pytest.mark.parametrize("seed", [0, 3, 5])
def test_a_subclass_of_a_library_criterion_reads_the_steps_own_share(monkeypatch, seed):
    bunch = make_rule_data(n_records=800, n_features=12, n_labels=5, random_state=seed)
    data = BinaryData(bunch.X, bunch.Y)
    shares = []
    for lazy in (False, True):
        monkeypatch.setattr(_greedy._GeneratedPools, "lazy", lazy)
        reader = _LateBudget(30)
        generator = CandidateGenerator(data, n_tails=20, n_heads_per_tail=5, random_state=3)
        greedy_selection(data, generator, n_rules=30, lam=0.0, stopping_criteria=[reader])
        shares.append(reader.shares)
    assert shares[0] == shares[1] and len(shares[0]) > 5


@pytest.mark.parametrize("store_bytes", [20_000, 40_000, 120_000])
@pytest.mark.parametrize("quality", QUALITIES)
def test_lazy_selection_survives_store_evictions(monkeypatch, store_bytes, quality):
    # A small candidate store evicts (and, past its size, drops) rules: bounds leave and come
    # back with their rules, and the selections stay the full loop's, round 2 included.
    stores = _instances(monkeypatch, _greedy._CandidateStore)
    monkeypatch.setattr(_greedy, "_STORE_BYTES", store_bytes)
    bunch = make_rule_data(n_records=700, n_features=25, n_labels=8, random_state=1)
    data = BinaryData(bunch.X, bunch.Y)
    results = []
    for lazy in (False, True):
        monkeypatch.setattr(_greedy._GeneratedPools, "lazy", lazy)
        monkeypatch.setattr(_greedy._FixedPool, "lazy", lazy)
        generator = CandidateGenerator(data, n_tails=15, n_heads_per_tail=6, random_state=1)
        reader = _PoolShares()
        result = greedy_selection(data, generator, n_rules=60, lam=0.5, quality=quality, second_round=True,
                                  tol=0.003, share_criterion="pool", patience=2, stopping_criteria=[reader])
        results.append((result.round_rules, np.asarray(result.gains).tobytes(), result.stop_reason, reader.shares))
    assert results[0] == results[1]
    assert all(store.n_evictions > 0 or not store.active for store in stores)


def test_lazy_selection_without_label_bitsets_runs_the_full_loop(monkeypatch):
    import corset.binarydata as binarydata

    monkeypatch.setattr(binarydata, "BITSET_BYTES", 8)
    bunch = make_rule_data(n_records=600, n_features=20, n_labels=6, random_state=0)
    data = BinaryData(bunch.X, bunch.Y)
    assert data.column_bitsets()[1] is None
    results = []
    for lazy in (False, True):
        result = _selections(data, lazy, monkeypatch, n_rules=30, tol=0.003, share_criterion="pool")
        results.append((result[0].rules, result[0].stop_reason, result[1]))
    assert results[0] == results[1] and len(results[0][0]) > 3


def test_lazy_fixed_pool_of_many_candidates_is_the_full_one(monkeypatch):
    # A pool of 20,000 candidates (the heap of bounds, many evaluations skipped per step).
    from corset.selection import select_rules

    rng = np.random.RandomState(0)
    X = rng.rand(400, 40) < 0.3
    Y = rng.rand(400, 6) < 0.3
    pool = sorted({(tuple(sorted(rng.choice(40, size=rng.randint(1, 4), replace=False).tolist())),
                    tuple(sorted(rng.choice(6, size=rng.randint(1, 3), replace=False).tolist())))
                   for _ in range(25_000)})
    assert len(pool) > 15_000
    results = []
    for lazy in (False, True):
        monkeypatch.setattr(_greedy._FixedPool, "lazy", lazy)
        result = select_rules(X, Y, pool, n_rules=40, lam=0.2, tol=None)
        results.append((result.rules, np.asarray(result.gains).tobytes(), np.asarray(result.areas).tolist()))
    assert results[0] == results[1]
