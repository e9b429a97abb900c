"""The memoised CORSET-GH searches give exactly the plain kernel's heads."""
import itertools

import numpy as np
import pytest

from corset import BinaryData
from corset._ext._gh_memo import GreedyHeadMemo
from corset.sampling._head_gh import GreedyHeadSearch


def _data(seed):
    rng = np.random.RandomState(seed)
    n, m, k = rng.randint(5, 50), rng.randint(1, 20), rng.randint(1, 5)
    X = rng.rand(n, m) < rng.uniform(0.1, 0.7)
    Y = rng.rand(n, k) < 0.4
    data = BinaryData(X, Y)
    tails = {tuple(sorted(rng.choice(k, size=rng.randint(1, k + 1), replace=False).tolist())) for _ in range(4)}
    return data, sorted(t for t in tails if data.tail_support(np.asarray(t, np.int32)).size)


def _pair(data, top_k, sorted_prefix=256, child_sorted=32, upgrade_top_k=-1, **options):
    memo = GreedyHeadSearch(data, memo=True, **options)
    memo._memo = GreedyHeadMemo(data.n_features, data.n_records, memo.gamma, top_k=top_k,
                                sorted_prefix=sorted_prefix, child_sorted=child_sorted, upgrade_top_k=upgrade_top_k)
    return memo, GreedyHeadSearch(data, memo=False, **options)


def _roles_of_root(search, root, n_records):
    """``(positives, zeros)`` as record masks: the roles of the tail slot whose tree has ``root``
    (D_T^+, roles 1 and 0, and its records of role 0), decoded from the search's roles key."""
    key = next(k for k, r in search._roots.items() if r == root)
    positives = np.zeros(n_records, dtype=bool)
    positives[np.frombuffer(key[0], dtype=np.int32)] = True
    zeros = np.zeros(n_records, dtype=bool)
    zeros[np.frombuffer(key[1], dtype=np.int32)] = True
    return positives, zeros


OPTIONS = list(itertools.product([0.5, 1.0 / 3, 0.0], [0.1, 0.0], ["difference", "positive"],
                                 ["uniform", "deterministic", "uncovered"], [(1, None), (2, 3), (1, 2)]))


@pytest.mark.parametrize("top_k, sorted_prefix, child_sorted, upgrade_top_k",
                         [(1, 1, 1, -1), (1, 1, 1, 2), (2, 3, 32, 3), (32, 256, 32, -1), (6, 2, 2, 1),
                          (1000, 256, 1, -1)])
def test_memo_matches_plain_kernel(global_random_seed, top_k, sorted_prefix, child_sorted, upgrade_top_k):
    """Many data sets, every option, tiny top_k (nodes rebuilt on demand: with a few more entries,
    then complete; or complete at once), tiny sorted prefixes of complete nodes and of children
    (choices among their unsorted entries), children that keep every entry, repeated calls."""
    rng = np.random.RandomState(global_random_seed)
    for case in range(6):
        data, tails = _data(global_random_seed * 100 + case)
        if not tails:
            continue
        for i in rng.choice(len(OPTIONS), size=12, replace=False):
            gamma, epsilon, candidates, seed, (lo, hi) = OPTIONS[i]
            memo, plain = _pair(data, top_k, sorted_prefix, child_sorted, upgrade_top_k, gamma=gamma,
                                epsilon=epsilon, candidates=candidates, seed=seed, min_head_length=lo,
                                max_head_length=hi)
            for call in range(3):  # the tree is kept and extended across calls
                batch = tails + tails[:1]
                got = memo.sample_many(batch, 5, random_state=call, n_threads=1 + call % 2)
                assert got == plain.sample_many(batch, 5, random_state=call)


def test_memo_follows_changing_roles(global_random_seed):
    """``uncovered=True``: roles change with the selected rules, so the tree is dropped."""
    data, tails = _data(global_random_seed + 7)
    if not tails:
        pytest.skip("no tail with a positive record")
    memo, plain = _pair(data, 2, seed="uniform", uncovered=True)
    rules = []
    for call in range(4):
        assert memo.sample_many(tails, 6, random_state=call) == plain.sample_many(tails, 6, random_state=call)
        rules.append(((call % data.n_features,), tails[call % len(tails)]))
        memo.update_rules(rules)
        plain.update_rules(rules)


def test_memo_cap_drops_the_tree_and_stays_exact():
    data, tails = _data(11)
    memo = GreedyHeadSearch(data, seed="uniform", memo_max_entries=1, max_head_length=3)
    plain = GreedyHeadSearch(data, seed="uniform", memo=False, max_head_length=3)
    for call in range(3):
        assert memo.sample_many(tails, 4, random_state=call) == plain.sample_many(tails, 4, random_state=call)
        assert memo._memo.n_entries == 0 and memo._roots == {}


def test_memo_is_used_on_real_sized_pools_and_counts_nodes():
    rng = np.random.RandomState(0)
    X = rng.rand(300, 60) < 0.2
    Y = (X[:, :4] | (rng.rand(300, 4) < 0.1)).astype(np.uint8)
    data = BinaryData(X, Y)
    memo = GreedyHeadSearch(data, seed="paper", max_head_length=4)
    plain = GreedyHeadSearch(data, seed="paper", max_head_length=4, memo=False)
    tails = [(0,), (1,), (2, 3), (0,)]
    for call in range(3):
        assert memo.sample_many(tails, 50, random_state=call) == plain.sample_many(tails, 50, random_state=call)
    assert memo._memo.n_nodes > 3
    # One search tree per distinct set of roles (here: per distinct tail).
    assert set(memo._roots) == {memo._cached_roles(t, None)[2] for t in [(0,), (1,), (2, 3)]}


def test_tails_with_the_same_positive_records_share_one_search_tree():
    rng = np.random.RandomState(1)
    X = rng.rand(200, 40) < 0.2
    base = X[:, 0] | (rng.rand(200) < 0.2)
    # Labels 0 and 1 are carried by the same records, so tails (0,), (1,) and (0, 1) have the same roles.
    Y = np.column_stack([base, base, X[:, 1] | (rng.rand(200) < 0.1)]).astype(np.uint8)
    data = BinaryData(X, Y)
    tails = [(0,), (1,), (0, 1), (2,), (1,)]
    memo = GreedyHeadSearch(data, seed="paper", max_head_length=3)
    plain = GreedyHeadSearch(data, seed="paper", max_head_length=3, memo=False)
    for call in range(3):
        assert memo.sample_many(tails, 30, random_state=call) == plain.sample_many(tails, 30, random_state=call)
    assert len(memo._roots) == 2


def test_memo_only_for_short_unnormalised_heads():
    from corset.sampling._head_gh import MEMO_MAX_HEAD_LENGTH

    data, _ = _data(3)
    assert GreedyHeadSearch(data, max_head_length=3)._memo is not None
    assert GreedyHeadSearch(data, max_head_length=MEMO_MAX_HEAD_LENGTH)._memo is not None
    assert GreedyHeadSearch(data, max_head_length=MEMO_MAX_HEAD_LENGTH + 1)._memo is None
    assert GreedyHeadSearch(data)._memo is None  # no maximum: deep searches, plain kernel
    assert GreedyHeadSearch(data, normalise=True, max_head_length=3)._memo is None
    assert GreedyHeadSearch(data, memo=False, max_head_length=3)._memo is None


def test_huge_max_head_length_in_the_memo_kernel():
    """The kernel clamps the maximum to n_features instead of allocating for it."""
    data, tails = _data(5)
    memo, plain = _pair(data, 32, seed="uniform", max_head_length=2**40)
    assert memo.sample_many(tails, 4, random_state=0) == plain.sample_many(tails, 4, random_state=0)


def test_pickled_search_starts_with_an_empty_memo():
    import pickle

    data, tails = _data(7)
    search = GreedyHeadSearch(data, seed="uniform", max_head_length=3)
    first = search.sample_many(tails, 5, random_state=0)
    assert search._memo.n_nodes > 0
    copy = pickle.loads(pickle.dumps(search))
    assert copy._memo.n_nodes == 0 and copy._roots == {}
    assert copy.sample_many(tails, 5, random_state=0) == first
    assert search.sample_many(tails, 5, random_state=0) == first


def test_pair_method_is_checked():
    data, _ = _data(3)
    with pytest.raises(ValueError, match="pair_method"):
        GreedyHeadSearch(data, seed="uniform", pair_method="bogus")


@pytest.mark.parametrize("feature_bits", [True, False], ids=["feature-bitsets", "no-feature-bitsets"])
@pytest.mark.parametrize("bits", [True, False], ids=["record-bitsets", "stamps"])
@pytest.mark.parametrize("shape", [(60, 400, 0.02), (60, 8, 0.5), (80, 64, 0.15), (150, 30, 0.6)],
                         ids=["sparse-counts", "dense-counts", "both", "popcounts"])
def test_counting_modes_and_candidate_tests_match_the_plain_kernel(global_random_seed, bits, feature_bits, shape):
    """Node builds count sparsely (fewer occurrences than features), densely, or by popcounts of
    the features' record bitsets (many more occurrences than (feature, word) pairs); a search
    tests its candidates on the records' bitsets or on stamps: every way gives the plain heads,
    with and without records of role 0 (``uncovered``)."""
    n, m, density = shape
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(n, m) < density
    X[np.arange(n), rng.randint(m, size=n)] = True   # no empty record
    Y = (rng.rand(n, 3) < 0.4).astype(np.uint8)
    data = BinaryData(X, Y)
    tails = [t for t in [(0,), (1,), (2,), (0, 1)] if data.tail_support(np.asarray(t, np.int32)).size]
    dense = sparse = popcounts = 0
    for seed, top_k, prefix, child_sorted, uncovered in [
            ("uniform", 2, 2, 32, False), ("paper", 32, 256, 32, False), ("deterministic", 1, 1, 1, False),
            ("uniform", 1000, 256, 32, True), ("paper", 1000, 256, 1, False), ("uniform", 12, 256, 3, False)]:
        memo, plain = _pair(data, top_k, prefix, child_sorted, seed=seed, max_head_length=3, uncovered=uncovered)
        if not bits:
            memo._bits = (None, 0)
        if not feature_bits:
            memo._column_bits = (None, 0)
        rules = []
        for call in range(2):
            assert memo.sample_many(tails, 8, random_state=call) == plain.sample_many(tails, 8, random_state=call)
            if uncovered:   # the next call's positives covered by these rules get role 0
                rules.append(((call % m,), tails[0]))
                memo.update_rules(rules)
                plain.update_rules(rules)
        dense += memo._memo.n_dense_counts
        popcounts += memo._memo.n_bitset_counts
        sparse += (memo._memo.n_nodes - len(memo._roots) + memo._memo.n_upgrades - memo._memo.n_dense_counts
                   - memo._memo.n_bitset_counts)
    if not feature_bits:
        assert popcounts == 0
    if shape[1] == 400:
        assert sparse > 0
    if shape[1] == 8:
        assert (popcounts if feature_bits else dense) > 0
    if shape[1] == 30 and feature_bits:
        assert popcounts > 0


def test_record_bitsets_are_checked_against_the_data(monkeypatch):
    """Bitsets give the stamps' heads; bitsets too small for the data are refused before
    anything is added to the memo."""
    from corset._ext import _heads
    from corset._ext._gh_memo import greedy_heads_memo

    rng = np.random.RandomState(0)
    data = BinaryData(rng.rand(30, 100) < 0.3, rng.rand(30, 2) < 0.5)   # 2 words per record
    tails = [(0,), (1,)]
    search = GreedyHeadSearch(data, seed="uniform", max_head_length=3)
    bits, n_words = search._record_bits()
    assert n_words == 2
    np.testing.assert_array_equal(
        bits, _heads.feature_bitsets(data.record_features.indptr, data.record_features.ids, n_words))
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        lists.append(kwargs)
        return greedy_heads_memo(*args, **kwargs)

    lists = []
    import corset.sampling._head_gh as gh_module
    monkeypatch.setattr(gh_module._gh_memo, "greedy_heads_memo", spy)
    expected = search.sample_many(tails, 3, random_state=0)
    monkeypatch.undo()
    args = list(calls[0][:-4])
    feature_bits, n_record_words = calls[0][-2:]
    assert n_record_words == 1
    np.testing.assert_array_equal(
        feature_bits, _heads.feature_bitsets(data.feature_records.indptr, data.feature_records.ids, 1))

    def run(*extra):
        memo = args[0] = GreedyHeadMemo(data.n_features, data.n_records, 0.5)
        args[9] = np.full_like(args[9], -1)   # roots: none built in this memo
        return memo, greedy_heads_memo(*args, *extra)

    same = run(bits, n_words)[1]
    assert all(np.array_equal(a, b) for a, b in zip(same, run()[1]))   # with and without bitsets
    assert all(np.array_equal(a, b) for a, b in zip(same, run(None, 0, feature_bits, 1)[1]))
    # The slots' records of role 1 or 0 as lists (roots and role bitsets made from them): the same.
    slots = {k: lists[0][k] for k in ("slot_indptr", "slot_ids")}
    roles = args[7]
    np.testing.assert_array_equal(slots["slot_ids"], np.concatenate([np.flatnonzero(r != 2) for r in roles]))
    with_lists = greedy_heads_memo(*run()[0:1], *args[1:9], np.full_like(args[9], -1), *args[10:],
                                   None, 0, feature_bits, 1, **slots)
    assert all(np.array_equal(a, b) for a, b in zip(same, with_lists))
    indptr, ids = slots["slot_indptr"], slots["slot_ids"]
    unsorted = ids.copy()
    unsorted[[0, 1]] = unsorted[[1, 0]]
    # Slot 0's list with one of its negatives added, in order.
    negative = int(np.flatnonzero(roles[0] == 2)[0])
    with_negative = np.r_[np.sort(np.r_[ids[:indptr[1]], negative]), ids[indptr[1]:]].astype(np.int32)
    shifted = indptr + np.r_[0, np.ones(indptr.size - 1, dtype=np.int64)]
    for bad_indptr, bad_ids, message in [(indptr, unsorted, "not sorted"), (shifted, with_negative, "a negative"),
                                         (indptr[:-1], ids, "one row per slot")]:
        with pytest.raises(ValueError, match=message):
            greedy_heads_memo(GreedyHeadMemo(data.n_features, data.n_records, 0.5), *args[1:9],
                              np.full_like(args[9], -1), *args[10:], slot_indptr=bad_indptr, slot_ids=bad_ids)
    for extra in [(bits[:-1], n_words), (bits, 1), (bits, 0)]:
        with pytest.raises(ValueError, match="record_bits is too small"):
            run(*extra)
        assert args[0].n_nodes == 0 and args[0].n_entries == 0 and (args[9] == -1).all()
    # Root ids of another memo are refused, not read out of bounds.
    memo, _ = run()
    stale = list(args)
    stale[0] = GreedyHeadMemo(data.n_features, data.n_records, 0.5)
    stale[9] = np.full_like(args[9], memo.n_nodes + 5)
    with pytest.raises(ValueError, match="not a root node"):
        greedy_heads_memo(*stale)
    child = next(n for n in range(memo.n_nodes) if n not in set(args[9].tolist()))
    stale[0], stale[9] = memo, np.full_like(args[9], child)
    with pytest.raises(ValueError, match="not a root node"):
        greedy_heads_memo(*stale)
    for extra in [(feature_bits[:-1], 1), (feature_bits, 0)]:
        with pytest.raises(ValueError, match="feature_bits is too small"):
            run(None, 0, *extra)
        assert args[0].n_nodes == 0 and args[0].n_entries == 0 and (args[9] == -1).all()
    assert expected == search.sample_many(tails, 3, random_state=0)


def test_small_feature_spaces_keep_every_entry():
    """With at most MEMO_COMPLETE_FEATURES features a node keeps every entry: none is rebuilt."""
    from corset.sampling._head_gh import MEMO_COMPLETE_FEATURES

    rng = np.random.RandomState(1)
    for m, complete in [(40, True), (MEMO_COMPLETE_FEATURES + 40, False)]:
        data = BinaryData(rng.rand(80, m) < 0.5, rng.rand(80, 2) < 0.5)
        search = GreedyHeadSearch(data, seed="uniform", max_head_length=3)
        assert (search._memo.top_k == m) == complete
        search.sample_many([(0,), (1,)], 20, random_state=0)
        if complete:
            assert search._memo.n_upgrades == 0


def test_bitsets_and_stamps_build_the_same_trees(global_random_seed):
    """The step limit min(max_length, |F_{D+} \\ F_{D-}|) computed on bitsets equals the stamps'
    one: the same searches stop at the same step, so the same nodes get built.  Dense records
    make |F_{D+} \\ F_{D-}| (about 4) the binding limit, below max_head_length.  Without feature
    bitsets, so that no last step is made without its node (that needs both)."""
    rng = np.random.RandomState(global_random_seed)
    data = BinaryData(rng.rand(60, 40) < 0.9, (rng.rand(60, 2) < 0.5).astype(np.uint8))
    tails = [t for t in [(0,), (1,)] if data.tail_support(np.asarray(t, np.int32)).size]
    trees = []
    for bits in (True, False):
        memo = GreedyHeadSearch(data, seed="uniform", max_head_length=10, gamma=1.0, epsilon=0.0)
        memo._column_bits = (None, 0)
        if not bits:
            memo._bits = (None, 0)
        heads = [memo.sample_many(tails, 20, random_state=call) for call in range(2)]
        trees.append((heads, memo._memo.n_nodes, memo._memo.n_upgrades, memo._memo.n_entries))
    assert trees[0] == trees[1]


def test_rebuilt_nodes_keep_their_better_part_then_every_entry(global_random_seed):
    """A truncated node that does not decide a step is rebuilt with its best ``upgrade_top_k``
    entries, and complete only when those do not decide either: the heads are the plain kernel's,
    both kinds of rebuild happen, and a node rebuilt once holds the first ``upgrade_top_k``
    entries of its complete list (same order, same counts)."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(120, 40) < rng.uniform(0.05, 0.3)
    Y = rng.rand(120, 3) < 0.4
    data = BinaryData.with_negations(X, Y, np.arange(40))
    tails = [t for t in [(0,), (1,), (2,), (0, 1)] if data.tail_support(np.asarray(t, np.int32)).size]
    memo, plain = _pair(data, 1, 256, 1, 3, seed="uniform", max_head_length=4, gamma=0.5, epsilon=0.0)
    complete, _ = _pair(data, data.n_features, 256, 256, seed="uniform", max_head_length=4, gamma=0.5,
                        epsilon=0.0)
    for search in (memo, complete):
        search._bits = (None, 0)   # no direct last steps: every undecided step rebuilds its node
    for call in range(2):
        expected = plain.sample_many(tails, 20, random_state=call)
        assert memo.sample_many(tails, 20, random_state=call) == expected
        assert complete.sample_many(tails, 20, random_state=call) == expected
    m = memo._memo
    assert m.upgrade_top_k == 3
    assert 0 < m.n_complete_upgrades < m.n_upgrades
    # Every node of the truncated tree is in the complete one (same paths): compare entries.
    full = {complete._memo.path(i): i for i in range(complete._memo.n_nodes)}
    partial = 0
    for node in range(m.n_nodes):
        features, gains, n_pos, n_support = m.entries(node)
        if features.size != 3:
            continue
        partial += 1
        ref = complete._memo.entries(full[m.path(node)])
        order = np.lexsort((ref[0], -ref[1]))[:3]
        for got, want in zip((features, gains, n_pos, n_support), ref):
            np.testing.assert_array_equal(got, want[order])
    assert partial > 0


def test_upgrade_top_k_defaults_to_half_the_features_and_survives_copies():
    import copy

    memo = GreedyHeadMemo(101, 10, 0.5, top_k=2)
    assert memo.upgrade_top_k == 50
    assert GreedyHeadMemo(101, 10, 0.5, top_k=2, upgrade_top_k=-7).upgrade_top_k == 50   # any negative
    assert GreedyHeadMemo(101, 10, 0.5, top_k=60).upgrade_top_k == 60   # at least top_k
    assert GreedyHeadMemo(101, 10, 0.5, top_k=2, upgrade_top_k=10**9).upgrade_top_k == 101
    assert copy.copy(GreedyHeadMemo(101, 10, 0.5, top_k=2, upgrade_top_k=7)).upgrade_top_k == 7


def test_huge_top_k_and_sorted_prefix_are_clamped():
    """A memo keeps at most n_features entries per node, so larger values change nothing."""
    data, tails = _data(5)
    memo, plain = _pair(data, 2**61, 2**62, seed="uniform", max_head_length=3)
    assert memo._memo.top_k == memo._memo.sorted_prefix == max(data.n_features, 1)
    assert memo.sample_many(tails, 6, random_state=0) == plain.sample_many(tails, 6, random_state=0)


def test_deterministic_seeds_use_no_bitsets():
    data, _ = _data(3)
    assert GreedyHeadSearch(data, seed="deterministic", max_head_length=3)._record_bits() == (None, 0)


def test_large_nodes_get_blocks_of_their_own():
    """Roots of about 17,000 entries (over a quarter of a 65,536-entry block): once the open
    block cannot hold one, it gets a block of its own; the heads stay the plain kernel's."""
    rng = np.random.RandomState(0)
    n, m = 40, 20000
    X = np.zeros((n, m), dtype=bool)
    for r in range(n):
        X[r, rng.choice(m, size=1000, replace=False)] = True
    Y = (rng.rand(n, 6) < 0.5).astype(np.uint8)
    data = BinaryData(X, Y)
    tails = [(k,) for k in range(6) if data.tail_support(np.asarray([k], np.int32)).size]
    memo, plain = _pair(data, 32, seed="uniform", max_head_length=2)
    assert memo.sample_many(tails, 3, random_state=0) == plain.sample_many(tails, 3, random_state=0)
    assert len(memo._roots) >= 4 and memo._memo.n_entries > 4 * 16384


@pytest.mark.parametrize("top_k", [1000, 8])
@pytest.mark.parametrize("n_features, density, negated", [(40, None, False), (400, 0.02, False),
                                                          (40, None, True), (400, 0.02, True)])
def test_entries_of_every_node_match_a_brute_force_count(global_random_seed, n_features, density, negated, top_k):
    """Each node H keeps, for every feature h of D[H] outside H (of a root: of the tail's positive
    records), |D[H+h]|, |D[H+h] ∩ D_T^+| and the gain phi(H+h) - phi(H) (phi of a root: 0), whatever
    the counting mode (sparse, dense, popcounts); the best 32 come first, in order.  With negated
    literals (of a random half of the features), whose entries node builds make from their
    features' counts, the same holds of every literal, on sparse records also when "NOT f" holds
    on no record of D[H].  A node truncated to its ``top_k`` best
    (top_k 8), or rebuilt with its ``upgrade_top_k`` best, keeps exactly the best 8 (or
    ``upgrade_top_k``) of those entries, in order; every node counts its entries, and is complete
    only when it keeps them all."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(150, n_features) < (density or rng.uniform(0.05, 0.6))
    Y = rng.rand(150, 2) < 0.4
    if negated and density:
        # Sparse records where each odd feature copies the even one before it: D[H] of a head with
        # an even feature has its copy on every record, whose negated literal holds on none.
        X[:, 1::2] = X[:, 0::2]
    if negated:
        data = BinaryData.with_negations(X, Y, np.sort(rng.choice(n_features, n_features // 2, replace=False)))
        X = data.X.toarray().astype(bool)   # the literals
    else:
        data = BinaryData(X, Y)
    gamma = 0.5
    search = GreedyHeadSearch(data, seed="uniform", max_head_length=4, gamma=gamma)
    search._memo = GreedyHeadMemo(data.n_features, data.n_records, gamma, top_k=top_k)
    tails = [(0,), (1,)]
    search.sample_many(tails, 40, random_state=0)
    memo = search._memo
    tail_of_root = {search._roots[search._cached_roles(t, None)[2]]: t[0] for t in tails}
    assert memo.n_nodes > len(tail_of_root)
    n_truncated = 0
    for node in range(memo.n_nodes):
        root, head = memo.path(node)
        positive = Y[:, tail_of_root[root]]
        in_head = X[:, list(head)].all(axis=1)
        # phi(H); a root's is taken as 0 (every first feature is compared by phi({h}) alone).
        phi = positive[in_head].sum() - gamma * (~positive[in_head]).sum() if head else 0.0
        expected = {}
        # A root holds the features of the tail's positive records (the only ones a search can choose
        # there: its candidates come from its seed record D+); a deeper node every feature of D[H].
        reach = X[in_head & positive] if not head else X[in_head]
        for h in np.flatnonzero(reach.any(axis=0)):
            if h in head:
                continue
            rows = in_head & X[:, h]
            value = positive[rows].sum() - gamma * (~positive[rows]).sum()
            expected[int(h)] = (value - phi, int(positive[rows].sum()), int(rows.sum()))
        features, gains, n_pos, n_support = memo.entries(node)
        got = {int(f): (g, int(p), int(n)) for f, g, p, n in zip(features, gains, n_pos, n_support)}
        if head:
            # A built node counts its entries, kept or not (with negated literals, those of "NOT f"
            # for f on none of D[H]'s records without making them), and is complete exactly when
            # it keeps them all.
            assert memo.counted(node) == (len(expected), len(features) == len(expected))
        if head and len(features) in (top_k, memo.upgrade_top_k) and len(features) < len(expected):
            # Truncated (not completed since; or rebuilt with its better half): the best top_k
            # (upgrade_top_k) in the node's order, decreasing gain then increasing id, the gain
            # ordered by the value from the exact counts.
            best = sorted(expected, key=lambda h: (-(expected[h][1] - gamma * (expected[h][2] - expected[h][1])), h))
            expected = {h: expected[h] for h in best[:len(features)]}
            n_truncated += 1
        assert got.keys() == expected.keys()
        for h, (g, p, n) in expected.items():
            assert got[h][1:] == (p, n) and got[h][0] == pytest.approx(g)
        top = min(32, len(gains))
        assert all((gains[i], -features[i]) >= (gains[i + 1], -features[i + 1]) for i in range(top - 1))
    assert (n_truncated > 0) == (top_k == 8)
    builds = memo.n_nodes - len(tail_of_root)
    if negated:   # counted as complements: which mode depends on the plain features only
        assert builds > 0
    elif n_features == 40:
        assert memo.n_bitset_counts + memo.n_dense_counts > 0
    else:   # fewer occurrences than features: counted on first touch
        assert builds - memo.n_bitset_counts - memo.n_dense_counts > 0


def test_every_node_is_built_once_across_many_calls(global_random_seed):
    """The child table finds every node it stored (through its growths, across calls):
    no head of a tree is ever built twice, and a repeated batch builds nothing."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(300, 60) < 0.2
    Y = rng.rand(300, 10) < 0.5
    data = BinaryData(X, Y)
    # Every label and pair of labels: about a hundred trees.
    tails = [t for r in (1, 2) for t in itertools.combinations(range(10), r)
             if data.tail_support(np.asarray(t, np.int32)).size]
    search = GreedyHeadSearch(data, seed="uniform", max_head_length=5)
    for step in range(3):
        search.sample_many(tails, 30, random_state=step)
    memo = search._memo
    paths = [memo.path(node) for node in range(memo.n_nodes)]
    assert memo.n_nodes > 2000   # several growths of the table (it starts with 64 slots)
    assert len(set(paths)) == len(paths)
    before = memo.n_nodes
    search.sample_many(tails, 30, random_state=1)
    assert memo.n_nodes == before


@pytest.mark.parametrize("max_head_length", [2, 3, 4])
@pytest.mark.parametrize("seed, candidates", [("uniform", "difference"), ("paper", "difference"),
                                              ("uniform", "positive"), ("deterministic", "difference")])
def test_last_steps_without_nodes_match_plain_kernel(global_random_seed, max_head_length, seed, candidates):
    direct = _check_direct_last_steps(global_random_seed, seed, candidates, max_head_length, gamma=0.5,
                                      epsilon=0.0, min_head_length=1, top_k=None)
    if seed == "deterministic":
        assert direct == 0       # no seed record: no candidates' bitset
    elif candidates == "difference":
        assert direct > 0        # F_{D+} minus F_{D-}: a few of the 80 literals
    else:
        assert direct == 0       # F_{D+}: 40 literals, too many for a direct last step


@pytest.mark.parametrize("gamma, epsilon, min_head_length, max_head_length, top_k", [
    (0.0, 0.0, 1, 3, None), (1.0, 0.1, 1, 3, None), (1.0 / 3, 0.3, 2, 3, None), (0.5, 0.1, 3, 4, None),
    (2.0, 0.0, 2, 4, 1), (0.5, 0.0, 1, 3, 1)])
def test_last_steps_without_nodes_under_every_option(global_random_seed, gamma, epsilon, min_head_length,
                                                     max_head_length, top_k):
    """Gains of other scales, epsilon pruning, minimum head lengths, and trees truncated to one
    entry per node (completed on demand) next to direct last steps."""
    direct = _check_direct_last_steps(global_random_seed, "uniform", "difference", max_head_length, gamma=gamma,
                                      epsilon=epsilon, min_head_length=min_head_length, top_k=top_k)
    # With gamma = 0 a first feature's value is its positives: the exact pruning ends every
    # search there, before any last step.
    assert (direct > 0) == (gamma > 0)


def _check_direct_last_steps(random_seed, seed, candidates, max_head_length, *, gamma, epsilon,
                             min_head_length, top_k):
    """Dense records (features with their negated literals: every record holds half of the
    literals) and many literals: searches whose last step has few candidates make it without
    the node (``n_direct_steps``), and the heads are the plain kernel's."""
    rng = np.random.RandomState(random_seed)
    X = rng.rand(120, 40) < rng.uniform(0.05, 0.3)
    Y = rng.rand(120, 3) < 0.4
    data = BinaryData.with_negations(X, Y, np.arange(40))
    tails = [(k,) for k in range(3) if data.tail_support(np.asarray([k], np.int32)).size] + [(0, 1)]
    tails = [t for t in tails if data.tail_support(np.asarray(t, np.int32)).size]
    options = dict(seed=seed, candidates=candidates, max_head_length=max_head_length, gamma=gamma,
                   epsilon=epsilon, min_head_length=min_head_length)
    memo = GreedyHeadSearch(data, memo=True, **options)
    if top_k is not None:
        memo._memo = GreedyHeadMemo(data.n_features, data.n_records, gamma, top_k=top_k, sorted_prefix=1,
                                    child_sorted=1)
    plain = GreedyHeadSearch(data, memo=False, **options)
    for call in range(3):
        got = memo.sample_many(tails, 30, random_state=call, n_threads=1 + call % 2)
        assert got == plain.sample_many(tails, 30, random_state=call)
    return memo._memo.n_direct_steps


def test_last_steps_without_nodes_count_records_of_role_zero(global_random_seed):
    """``uncovered=True``: positives whose tail labels are all covered get role 0 (counted in
    the support only); direct last steps count them as the nodes do."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(120, 40) < rng.uniform(0.05, 0.3)
    Y = rng.rand(120, 3) < 0.5
    data = BinaryData.with_negations(X, Y, np.arange(40))
    tails = [t for t in [(0,), (1,), (0, 1)] if data.tail_support(np.asarray(t, np.int32)).size]
    options = dict(seed="uniform", uncovered=True, max_head_length=3, gamma=0.5, epsilon=0.0)
    memo = GreedyHeadSearch(data, memo=True, **options)
    plain = GreedyHeadSearch(data, memo=False, **options)
    rules = []
    direct = 0
    for call in range(4):
        assert memo.sample_many(tails, 30, random_state=call) == plain.sample_many(tails, 30, random_state=call)
        direct += memo._memo.n_direct_steps
        rules.append(((int(rng.randint(data.n_features)),), tails[call % len(tails)]))
        memo.update_rules(rules)   # new roles: the memo is cleared
        plain.update_rules(rules)
    assert direct > 0


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 63, 64, 65, 200, 1001])
def test_role_bitsets_flag_exactly_the_roles_1_and_0(n):
    from corset._ext._gh_memo import role_bitsets

    rng = np.random.RandomState(n)
    for values in ([0, 1, 2], [2], [1], [0], list(range(256))):
        role = rng.choice(values, size=n).astype(np.uint8)
        if n > 20:
            role[:16] = 2   # whole words of negatives
        positives, others = role_bitsets(role)
        unpacked = np.unpackbits(np.stack([positives, others]).view(np.uint8), axis=1, bitorder="little")[:, :n]
        assert unpacked[0].tolist() == (role == 1).astype(np.uint8).tolist()
        assert unpacked[1].tolist() == (role == 0).astype(np.uint8).tolist()


@pytest.mark.parametrize("shape", [(60, 400, 0.02), (60, 8, 0.5), (80, 64, 0.15), (150, 30, 0.6)],
                         ids=["sparse-counts", "dense-counts", "both", "popcounts"])
@pytest.mark.parametrize("feature_bits", [True, False], ids=["feature-bitsets", "no-feature-bitsets"])
def test_negated_literals_counted_as_complements_give_the_plain_heads(global_random_seed, shape, feature_bits):
    """Node builds scan only the plain features of the records and count "NOT f" as D[H]'s counts
    minus f's: the heads are the plain kernel's and the memo's without the complements, for every
    counting mode, with negated literals of some features only, and with records of role 0."""
    import corset.sampling._head_gh as gh_module

    n, m, density = shape
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(n, m) < density
    X[np.arange(n), rng.randint(m, size=n)] = True
    Y = (rng.rand(n, 3) < 0.4).astype(np.uint8)
    negated = np.sort(rng.choice(m, size=max(1, 2 * m // 3), replace=False))
    data = BinaryData.with_negations(X, Y, negated)
    tails = [t for t in [(0,), (1,), (2,), (0, 1)] if data.tail_support(np.asarray(t, np.int32)).size]
    seen = []
    kernel = gh_module._gh_memo.greedy_heads_memo

    def spy(*args, **kwargs):
        seen.append(kwargs.get("negated") is not None)
        return kernel(*args, **kwargs)

    for seed, top_k, uncovered, max_length in [("uniform", 2, False, 3), ("paper", 32, False, 2),
                                              ("deterministic", 1, False, 3), ("uniform", 1000, True, 3)]:
        memo, plain = _pair(data, top_k, seed=seed, max_head_length=max_length, uncovered=uncovered)
        without = GreedyHeadSearch(data, memo=True, seed=seed, max_head_length=max_length, uncovered=uncovered)
        without._negations = lambda: {}
        if not feature_bits:
            memo._column_bits = without._column_bits = (None, 0)
        rules = []
        for call in range(2):
            gh_module._gh_memo.greedy_heads_memo = spy
            try:
                got = memo.sample_many(tails, 8, random_state=call)
            finally:
                gh_module._gh_memo.greedy_heads_memo = kernel
            assert got == plain.sample_many(tails, 8, random_state=call)
            assert got == without.sample_many(tails, 8, random_state=call)
            if uncovered:
                rules.append(((call % m,), tails[0]))
                for search in (memo, plain, without):
                    search.update_rules(rules)
    assert seen and all(seen)


def test_a_wrong_split_of_plain_and_negated_literals_is_refused():
    from corset._ext._gh_memo import greedy_heads_memo

    rng = np.random.RandomState(0)
    data = BinaryData.with_negations(rng.rand(20, 6) < 0.4, rng.rand(20, 1) < 0.5, np.arange(6))
    search = GreedyHeadSearch(data, seed="uniform", max_head_length=3)
    calls = []

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return greedy_heads_memo(*args, **kwargs)

    import corset.sampling._head_gh as gh_module
    gh_module._gh_memo.greedy_heads_memo = spy
    try:
        search.sample_many([(0,)], 2, random_state=0)
    finally:
        gh_module._gh_memo.greedy_heads_memo = greedy_heads_memo
    args, kwargs = calls[0]
    fresh = GreedyHeadMemo(data.n_features, data.n_records, search.gamma)
    args = (fresh,) + args[1:]
    args[9][:] = -1   # roots: built again
    end = kwargs["r_plain_end"].copy()
    end[3] += 1       # record 3's first negated literal counted as plain
    with pytest.raises(ValueError, match="r_plain_end\\[3\\]"):
        greedy_heads_memo(*args, **{**kwargs, "r_plain_end": end})
    with pytest.raises(ValueError, match="negated\\[0\\]"):
        greedy_heads_memo(*args, **{**kwargs, "negated": np.full(6, 7, dtype=np.int32)})
    with pytest.raises(ValueError, match="one entry per record"):
        greedy_heads_memo(*args, **{**kwargs, "r_plain_end": end[:5]})


@pytest.mark.parametrize("max_head_length", [3, 5])
def test_truncated_nodes_choose_directly_instead_of_completing(global_random_seed, max_head_length):
    """Dense records (features with their negated literals) and few candidates: a search whose
    truncated node holds none of its candidates counts its own candidates on D[H]'s bitset instead
    of having the node completed; the heads are the plain kernel's, with fewer completions than
    when the searches have no candidate bitsets."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(150, 60) < rng.uniform(0.05, 0.3)
    Y = rng.rand(150, 3) < 0.4
    data = BinaryData.with_negations(X, Y, np.arange(60))
    tails = [t for t in [(0,), (1,), (2,), (0, 1)] if data.tail_support(np.asarray(t, np.int32)).size]
    upgrades = {}
    for bits in (True, False):
        memo, plain = _pair(data, 2, 2, 1, seed="uniform", max_head_length=max_head_length, gamma=0.5,
                            epsilon=0.0)
        if not bits:
            memo._bits = (None, 0)
        for call in range(2):
            assert memo.sample_many(tails, 20, random_state=call) == plain.sample_many(tails, 20, random_state=call)
        upgrades[bits] = memo._memo.n_upgrades
    assert upgrades[True] < upgrades[False]


@pytest.mark.parametrize("negated", [False, True])
@pytest.mark.parametrize("uncovered", [False, True])
def test_heads_counted_from_cooccurrence_rows_match_the_plain_kernel(global_random_seed, negated, uncovered):
    """Nodes {h} of dense plain features are counted from h's co-occurrence row (|D[h] ∩ D[g]| for
    every g, kept across tails and calls) and the records of D[h] of role 1 or 0 only: the heads are
    the plain kernel's, with records of role 0 (``uncovered``) and with negated literals, and the
    entries of every such node are the brute-force counts."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(300, 30) < rng.uniform(0.2, 0.5)
    Y = rng.rand(300, 4) < 0.3
    data = (BinaryData.with_negations(X, Y, np.sort(rng.choice(30, 20, replace=False))) if negated
            else BinaryData(X, Y))
    tails = [(0,), (1,), (2, 3)]
    memo, plain = _pair(data, 32, seed="uniform", max_head_length=3, uncovered=uncovered, gamma=0.5)
    rules = []
    for call in range(3):
        assert memo.sample_many(tails, 20, random_state=call) == plain.sample_many(tails, 20, random_state=call)
        if uncovered:   # the next call's positives covered by these rules get role 0
            rules.append(((call,), tails[call]))
            memo.update_rules(rules)
            plain.update_rules(rules)
    assert memo._memo.n_cooccurrence_counts > 0
    # Every node {h} against a brute-force count, on the last call's roles.
    literals = data.X.toarray().astype(bool)
    tree = memo._memo
    for node in range(tree.n_nodes):
        root, head = tree.path(node)
        if len(head) != 1:
            continue
        positives, zeros = _roles_of_root(memo, root, data.n_records)
        in_head = literals[:, head[0]]
        features, gains, n_pos, n_support = tree.entries(node)
        for f, p, n in zip(features, n_pos, n_support):
            rows = in_head & literals[:, f]
            assert (p, n) == ((rows & positives & ~zeros).sum(), rows.sum())


@pytest.mark.parametrize("negated", [False, True])
@pytest.mark.parametrize("uncovered", [False, True])
def test_nodes_counted_without_reading_their_negatives_match_brute_force(global_random_seed, negated, uncovered):
    """A node whose negatives hold more feature occurrences than there are (feature, word) pairs
    takes |D[H+h]| by popcounts and scans only D[H]'s records of role 1 or 0 (``n_split_counts``):
    the heads are the plain kernel's, with records of role 0 and with negated literals, and every
    entry of every node below the roots is the brute-force count."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(1500, 60) < 0.3
    Y = rng.rand(1500, 3) < 0.06
    data = (BinaryData.with_negations(X, Y, np.sort(rng.choice(60, 30, replace=False))) if negated
            else BinaryData(X, Y))
    literals = data.X.toarray().astype(bool)
    tails = [(0,), (1,), (2,)]
    memo, plain = _pair(data, 32, seed="uniform", max_head_length=3, uncovered=uncovered, gamma=0.5)
    rules, checked = [], 0
    for call in range(3):
        assert memo.sample_many(tails, 20, random_state=call) == plain.sample_many(tails, 20, random_state=call)
        tree = memo._memo
        for node in range(tree.n_nodes):
            root, head = tree.path(node)
            if not head:
                continue
            positives, zeros = _roles_of_root(memo, root, data.n_records)
            in_head = literals[:, list(head)].all(axis=1)
            features, gains, n_pos, n_support = tree.entries(node)
            for f, p, n in zip(features, n_pos, n_support):
                rows = in_head & literals[:, f]
                assert (p, n) == ((rows & positives & ~zeros).sum(), rows.sum())
                checked += 1
        if uncovered:   # the next call's positives covered by these rules get role 0
            rules.append(((call,), tails[call]))
            memo.update_rules(rules)
            plain.update_rules(rules)
    assert memo._memo.n_split_counts > 0 and checked > 0


@pytest.mark.parametrize("negated", [False, True], ids=["plain", "negated"])
def test_long_record_bitsets_give_the_plain_heads(global_random_seed, negated):
    """Over 1,700 records, D[H]'s bitset spans up to 27 words, past CORSET_WIDE_WORDS (8) and
    CORSET_WIDER_WORDS (24): node builds by popcounts and direct last steps take the 256- and
    512-bit AVX-512 builds of their loops where this CPU has VPOPCNTQ (the scalar one elsewhere),
    and the heads are still the plain kernel's."""
    from corset._ext._gh_memo import uses_wide_popcount

    rng = np.random.RandomState(global_random_seed)
    n, m = 1700, 30
    assert uses_wide_popcount(n // 64) == uses_wide_popcount(10**6)
    X = rng.rand(n, m) < rng.uniform(0.2, 0.6, size=m)
    Y = rng.rand(n, 3) < 0.4
    data = BinaryData.with_negations(X, Y, np.arange(m)) if negated else BinaryData(X, Y)
    tails = [t for t in [(0,), (1,), (2,), (0, 1)] if data.tail_support(np.asarray(t, np.int32)).size]
    memo, plain = _pair(data, 4, 4, 2, seed="uniform", max_head_length=3)
    for call in range(2):
        assert memo.sample_many(tails, 30, random_state=call) == plain.sample_many(tails, 30, random_state=call)
    assert memo._memo.n_bitset_counts + memo._memo.n_direct_steps > 0


@pytest.mark.parametrize("bits", [True, False], ids=["record-bitsets", "stamps"])
@pytest.mark.parametrize("sorted_prefix", [1, 8, 256])
def test_candidates_looked_up_past_the_sorted_prefix_give_the_plain_heads(global_random_seed, bits, sorted_prefix):
    """Wide sparse records (a few features each of thousands): a root holds every feature of its
    tail's positive records, and a search whose candidates are not among the sorted prefix looks
    them up among the others, stored by feature id, instead of scanning them
    (``n_lookup_steps``).  Every option gives the plain kernel's heads, ties included (few
    distinct gains), and the entries past a root's prefix are in increasing feature id."""
    rng = np.random.RandomState(global_random_seed)
    n, m = 400, 3000
    X = np.zeros((n, m), dtype=bool)
    topics = rng.randint(4, size=n)
    for i in range(n):
        # Topic words (shared, so that heads have support) and a few rare ones.
        X[i, rng.choice(60, 6, replace=False) + 60 * topics[i]] = True
        X[i, rng.randint(240, m, size=4)] = True
    Y = np.column_stack([topics == k for k in range(3)] + [rng.rand(n) < 0.3]).astype(np.uint8)
    data = BinaryData(X, Y)
    tails = [(0,), (1,), (2,), (3,), (0, 3)]
    lookups = 0
    for seed, gamma, uncovered, candidates in [("uniform", 0.5, False, "difference"), ("paper", 1.0, False, "difference"),
                                               ("uniform", 0.0, True, "positive"), ("deterministic", 0.5, False,
                                                                                    "difference")]:
        memo, plain = _pair(data, 4, sorted_prefix, 2, seed=seed, gamma=gamma, max_head_length=3,
                            uncovered=uncovered, candidates=candidates)
        if not bits:
            memo._bits = (None, 0)
        rules = []
        for call in range(3):
            got = memo.sample_many(tails, 10, random_state=call, n_threads=1 + call % 2)
            assert got == plain.sample_many(tails, 10, random_state=call)
            if uncovered:
                rules.append(((topics.argmax() * 60,), tails[call]))
                memo.update_rules(rules)
                plain.update_rules(rules)
        tree = memo._memo
        lookups += tree.n_lookup_steps
        mean_length = data.X.nnz / n
        for root in set(memo._roots.values()):
            features = tree.entries(root)[0]
            rest = features[min(sorted_prefix, features.size):]
            # Well past the size where looking a record's features up costs less than a scan.
            if rest.size >= 64 and rest.size > 4 * mean_length * np.ceil(np.log2(rest.size)):
                assert np.all(np.diff(rest) > 0)
    if sorted_prefix < 256:   # with the default prefix, the searches here find candidates in it
        assert lookups > 0
