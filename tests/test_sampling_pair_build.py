"""The compiled build of the paper's proposal, the bitset acceptance test and
the batched seeds of HeadSampler.sample_pairs_many: each must give exactly
what the code it replaces gave (the Python build, the merge count of
|F_{D+} ∩ F_{D-}|, one draw_seeds call per tail)."""
import itertools
import re

import numpy as np
import pytest

from corset import BinaryData
from corset._ext import _heads
from corset._validation import draw_seeds
from corset.sampling import HeadSampler, NoDiscriminativeHeadError, NoNegativeRecordsError, ProposalLimitError
from corset.sampling import _head_exact as heads_module
from corset._validation import raw_seed_halves as _raw_halves

LENGTHS = [(1, None), (1, 3), (2, None), (2, 4), (3, 3), (5, None)]


def _data(seed, n_records=40, n_features=150, n_labels=5):
    """Random data with skewed record widths, some records with no feature, features over 3 words."""
    rng = np.random.RandomState(seed)
    width = rng.choice([0.0, 0.01, 0.03, 0.1, 0.3], size=(n_records, 1))
    X = rng.rand(n_records, n_features) < width
    Y = rng.rand(n_records, n_labels) < rng.uniform(0.1, 0.6, size=(1, n_labels))
    Y[rng.randint(n_records), 0] = True  # label 0: at least one positive
    return BinaryData(X, Y)


def _all_tails(data):
    labels = range(data.n_labels)
    return [(l,) for l in labels] + list(itertools.combinations(labels, 2)) + [tuple(labels)]


def _outcome(build, tail):
    """The PairSampler of ``build(tail_array, key)``, or (error type, message)."""
    try:
        return build(np.array(tail, dtype=np.int32), tail)
    except (ValueError, RuntimeError) as exc:
        return type(exc), str(exc)


def _assert_same_proposal(got, want):
    assert type(got) is type(want)
    if not isinstance(want, _heads.PairSampler):
        assert got == want
        return
    for i in (0, 2, 3):   # positives, log proposal factors, negatives
        assert np.array_equal(np.asarray(got.arrays[i]), np.asarray(want.arrays[i])), i
        assert np.asarray(got.arrays[i]).dtype == np.asarray(want.arrays[i]).dtype
    np.testing.assert_allclose(np.asarray(got.arrays[1]), np.asarray(want.arrays[1]), rtol=1e-15, atol=0)
    assert got.arrays[4] is None and got.arrays[5] is None and want.arrays[4] is None
    assert (got.pos_last, got.neg_last, got.n_positive, got.n_negative, got.widest_positive) == (
        want.pos_last, want.neg_last, want.n_positive, want.n_negative, want.widest_positive)


@pytest.mark.parametrize("m, M", LENGTHS)
@pytest.mark.parametrize("seed", range(6))
def test_compiled_proposal_equals_python_build(seed, m, M):
    data = _data(seed)
    sampler = HeadSampler(data, min_head_length=m, max_head_length=M)
    tails = _all_tails(data)
    # One tail at a time (pair_sampler's path) and all at once (sample_pairs_many's).
    status, together = sampler._build_paper(tails)
    for tail, st, batched in zip(tails, status, together):
        want = _outcome(sampler._build_python, tail)
        _assert_same_proposal(_outcome(sampler._build, tail), want)
        if isinstance(want, _heads.PairSampler):
            assert st == _heads.BUILD_OK
            _assert_same_proposal(batched, want)
        else:
            assert batched is None and st != _heads.BUILD_OK
            error = heads_module._build_error(st, tail, m)
            assert (type(error), str(error)) == want


def _tiny(X, Y):
    return BinaryData(np.array(X, dtype=np.uint8), np.array(Y, dtype=np.uint8))


# X (3 features), Y (3 labels); one positive of label 0 (record 0), label 1 on every record,
# label 2 on record 3 only, labels 0 and 2 never together.
X_EDGE = [[1, 0, 0], [1, 1, 0], [1, 0, 1], [0, 0, 0], [1, 1, 1]]
Y_EDGE = [[1, 1, 0], [0, 1, 0], [0, 1, 0], [0, 1, 1], [0, 1, 0]]


@pytest.mark.parametrize("tail, m, error, message", [
    ((0, 2), 1, ValueError, r"^tail \(0, 2\) has no positive record \(no record carries all its labels\)$"),
    ((1,), 1, NoNegativeRecordsError,
     r"^tail \(1,\) is carried by every record: it has no negative record, so every head "
     r"has discriminativity 0$"),
    ((2,), 1, NoDiscriminativeHeadError, r"^tail \(2,\): no positive record has min_head_length=1 features$"),
    ((0,), 2, NoDiscriminativeHeadError, r"^tail \(0,\): no positive record has min_head_length=2 features$"),
    # Record 0's one feature lies in every other record but record 3 ... which is a negative:
    # feature 0 is outside it, so this tail has a proposal.
    ((0,), 1, None, None),
])
def test_edge_cases_and_error_messages(tail, m, error, message):
    data = _tiny(X_EDGE, Y_EDGE)
    sampler = HeadSampler(data, min_head_length=m)
    for build in (sampler._build, sampler._build_python):
        if error is None:
            ps = build(np.array(tail, dtype=np.int32), tail)
            assert ps.n_positive == 1 and ps.pos_last == 0
        else:
            with pytest.raises(error, match=message) as info:
                build(np.array(tail, dtype=np.int32), tail)
            assert type(info.value) is error
    # sample_pairs_many reports the sampling errors per tail and raises the ValueError.
    if error is ValueError:
        with pytest.raises(ValueError, match=message):
            sampler.sample_pairs_many([tail], [2], 0)
        return
    pairs, errors = sampler.sample_pairs_many([tail], [2], 0)
    if error is None:
        assert errors == [None] and pairs[0][0].tolist() == [0, 0]
    else:
        assert pairs == [None] and type(errors[0]) is error and re.match(message, str(errors[0]))


def test_every_head_inside_every_negative():
    # Positives {0}: {f0} and {f0, f1}; negatives: {f0, f1, f2} twice.  Every
    # feature of a positive lies in every negative: Z = 0.  feature_counts[f0]
    # = 4 >= 2 negatives, so the kernel must count over the positives to see it.
    data = _tiny([[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1]], [[1], [1], [0], [0]])
    for build in (HeadSampler(data)._build, HeadSampler(data)._build_python):
        with pytest.raises(NoDiscriminativeHeadError,
                           match=r"^tail \(0,\): every head of allowed length matches every negative record "
                                 r"\(discriminativity 0 everywhere\)$"):
            build(np.array([0], dtype=np.int32), (0,))
    # The same counts, but f1 is missing from one negative: f1 (count 3 >= 2) is
    # outside a negative, found only by the exact count.
    data = _tiny([[1, 0, 0], [1, 1, 0], [1, 0, 1], [1, 1, 1]], [[1], [1], [0], [0]])
    sampler = HeadSampler(data)
    _assert_same_proposal(sampler._build(np.array([0]), (0,)), sampler._build_python(np.array([0]), (0,)))
    # m = 2: only the second positive is eligible; its f1 is outside the first negative.
    sampler = HeadSampler(data, min_head_length=2)
    ps = sampler._build(np.array([0]), (0,))
    _assert_same_proposal(ps, sampler._build_python(np.array([0]), (0,)))
    assert np.asarray(ps.arrays[1]).tolist() == [0.0, 1.0] and ps.pos_last == 1
    assert np.asarray(ps.arrays[2]).tolist() == [0.0, 0.0]   # log W: -inf placeholder 0, log W_2 = log 1


def test_build_falls_back_when_log_w_is_not_monotone():
    # paper_supports scales by log W at the widest positive; a table where that
    # is not the maximum is left to the Python build (never the case for a real table).
    data = _data(3)
    sampler = HeadSampler(data, max_head_length=3)
    log_w = sampler._log_w.copy()
    widths = data.record_n_features[data.tail_support((0,))]
    log_w[widths.max()] = log_w[widths.min()] - 1.0 if widths.min() < widths.max() else log_w[widths.max()]
    assert widths.min() < widths.max()
    sampler._log_w = log_w
    status, samplers = sampler._build_paper([(0,)])
    assert status == [_heads.BUILD_NOT_MONOTONE] and samplers == [None]
    _assert_same_proposal(sampler._build(np.array([0]), (0,)), sampler._build_python(np.array([0]), (0,)))
    pairs, errors = sampler.sample_pairs_many([(0,)], [20], 5)
    want = sampler.sample_pairs((0,), 20, 5)
    assert errors == [None] and all(np.array_equal(g, w) for g, w in zip(pairs[0], want))


# -- bitset acceptance ----------------------------------------------------------
def _without_bitsets(monkeypatch, data, **options):
    with monkeypatch.context() as patch:
        patch.setattr(heads_module, "_BITSET_BYTES", 0)
        return HeadSampler(data, **options)


@pytest.mark.parametrize("proposal", ["paper", "boley"])
@pytest.mark.parametrize("seed", range(4))
def test_bitset_and_merge_give_the_same_k(monkeypatch, seed, proposal):
    data = _data(seed)
    bits = HeadSampler(data, proposal=proposal, max_head_length=4)
    merge = _without_bitsets(monkeypatch, data, proposal=proposal, max_head_length=4)
    features = data.record_features
    for tail in _all_tails(data)[:6]:
        try:
            a, b = bits.pair_sampler(tail), merge.pair_sampler(tail)
        except (ValueError, RuntimeError):
            continue
        assert a.arrays[9] is not None and b.arrays[9] is None
        pos, neg = np.asarray(a.arrays[0]), np.asarray(a.arrays[3])
        for i, j in itertools.product(range(pos.size), range(neg.size)):
            got = a.log_acceptance(i, j)
            assert got == b.log_acceptance(i, j)
            # And the ratio is the one of k = |F_{D+} ∩ F_{D-}|: -inf exactly when F_{D+} ⊆ F_{D-}.
            inside = np.isin(features[pos[i]], features[neg[j]]).all()
            assert (got == -np.inf) == bool(inside)


@pytest.mark.parametrize("method", ["cftp", "rejection"])
def test_bitset_and_merge_give_the_same_pairs(monkeypatch, method):
    data = _data(11, n_records=60)
    bits = HeadSampler(data, method=method, max_head_length=3)
    merge = _without_bitsets(monkeypatch, data, method=method, max_head_length=3)
    tails = [t for t in _all_tails(data) if data.tail_support(t).size]
    got, got_errors = bits.sample_pairs_many(tails, [50] * len(tails), 3)
    want, want_errors = merge.sample_pairs_many(tails, [50] * len(tails), 3)
    assert [repr(e) for e in got_errors] == [repr(e) for e in want_errors]
    assert sum(g is not None for g in got) >= 3
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert np.array_equal(g[0], w[0]) and np.array_equal(g[1], w[1])
    assert bits.sample((0,), 40, 1) == merge.sample((0,), 40, 1)


def _wide_sparse(seed, n_records=80, n_features=4000, per_record=6, n_labels=4):
    """Text-like data: a few features per record out of thousands (63 words per record's bitset)."""
    rng = np.random.RandomState(seed)
    X = np.zeros((n_records, n_features), dtype=bool)
    for r in range(n_records):
        X[r, rng.choice(n_features, size=rng.randint(1, 2 * per_record), replace=False)] = True
    X[:, :3] |= rng.rand(n_records, 3) < 0.4   # a few frequent words, so that heads can be long
    Y = rng.rand(n_records, n_labels) < 0.3
    Y[0] = True
    return BinaryData(X, Y)


def test_bitsets_only_where_they_pay():
    """Records far sparser than their bitset's words get none (the id lists are read instead);
    dense records keep theirs."""
    wide, dense = _wide_sparse(0), _data(0)
    assert not heads_module._bitsets_pay(wide, -(-wide.n_features // 64))
    assert HeadSampler(wide, max_head_length=3)._bits() is None
    assert heads_module._bitsets_pay(dense, -(-dense.n_features // 64))
    assert HeadSampler(dense, max_head_length=3)._bits() is not None


@pytest.mark.parametrize("seed", range(3))
def test_sparse_records_without_bitsets_give_the_same_draws(monkeypatch, seed):
    """The pairs and GH heads drawn on wide sparse data are those of the same samplers given the
    bitsets anyway: the guard changes which reads count k and F', never a draw."""
    from corset.sampling import GreedyHeadSearch

    data = _wide_sparse(seed)
    tails = [t for t in _all_tails(data) if data.tail_support(t).size][:8]
    plain = HeadSampler(data, max_head_length=3)
    search = GreedyHeadSearch(data, max_head_length=3)
    assert plain._bits() is None and search._record_bits() == (None, 0)
    want_pairs = plain.sample_pairs_many(tails, [30] * len(tails), seed)
    want_heads = search.sample_many(tails, 5, random_state=seed)
    with monkeypatch.context() as patch:
        patch.setattr(heads_module, "_bitsets_pay", lambda data, n_words: True)
        forced = HeadSampler(data, max_head_length=3)
        forced_search = GreedyHeadSearch(data, max_head_length=3)
        assert forced._bits() is not None and forced_search._record_bits()[0] is not None
        got_pairs = forced.sample_pairs_many(tails, [30] * len(tails), seed)
        got_heads = forced_search.sample_many(tails, 5, random_state=seed)
    assert [repr(e) for e in got_pairs[1]] == [repr(e) for e in want_pairs[1]]
    assert sum(g is not None for g in got_pairs[0]) >= 3
    for g, w in zip(got_pairs[0], want_pairs[0]):
        assert (g is None) == (w is None)
        if g is not None:
            assert np.array_equal(g[0], w[0]) and np.array_equal(g[1], w[1])
    assert got_heads[0] == want_heads[0] and sum(map(len, got_heads[0])) > 0


def test_feature_bitsets():
    data = _data(2)
    n_words = 3
    bits = _heads.feature_bitsets(data.record_features.indptr, data.record_features.ids, n_words)
    bits = bits.reshape(data.n_records, n_words)
    for r in range(data.n_records):
        members = [f for f in range(n_words * 64) if (int(bits[r, f >> 6]) >> (f & 63)) & 1]
        assert members == data.record_features[r].tolist()


# -- seeds: one read of the generator for every tail ---------------------------------
def _generators():
    return [("MT19937", lambda: np.random.RandomState(8)),
            ("PCG64", lambda: np.random.RandomState(np.random.PCG64(3)))]


@pytest.mark.parametrize("name, make", _generators())
def test_batched_seeds_equal_per_tail_draws(name, make):
    counts = [3, 0, 1, 8, 2, 5]
    one, many = make(), make()
    assert type(one._bit_generator).__name__ == name
    raw = _raw_halves(one, 2 * sum(counts))
    want = np.concatenate([draw_seeds(many, n) for n in counts])
    # Tail i's seeds: its n_i high halves at raw[2 o_i:2 o_i + n_i], its low halves after them.
    offsets = np.concatenate(([0], np.cumsum(counts)))
    got = np.concatenate([(raw[2 * o:2 * o + n] << np.uint64(32)) | raw[2 * o + n:2 * o + 2 * n]
                          for o, n in zip(offsets[:-1].tolist(), counts)])
    assert np.array_equal(got, want)
    assert one.randint(0, 2**31, size=4).tolist() == many.randint(0, 2**31, size=4).tolist()
    # The kernel makes the same seeds from the raw halves: the same pairs.
    data = _data(5, n_records=50)
    sampler = HeadSampler(data, method="rejection", max_head_length=3)
    samplers = [sampler.pair_sampler((0,)), sampler.pair_sampler((1,))] * 3
    indptr = offsets.astype(np.int64)
    a = _heads.sample_pairs_batch(samplers, indptr, raw, 1, True)
    b = _heads.sample_pairs_batch(samplers, indptr, want, 1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def _one_tail_at_a_time(sampler, tails, counts, rng):
    """sample_pairs_many as it was: pair_sampler and draw_seeds tail by tail."""
    out = []
    for tail, n in zip(tails, counts):
        try:
            ps = sampler.pair_sampler(tail)
        except (NoNegativeRecordsError, NoDiscriminativeHeadError) as exc:
            out.append(repr(exc))
            continue
        seeds = draw_seeds(rng, n)
        status, _, pos, neg, _, _, _, _ = _heads.sample(ps, seeds, heads_module.METHODS[sampler.method], False,
                                                        1, 10**9, np.zeros(1), 0)
        if status == 1:
            out.append("limit")
        else:
            out.append((np.asarray(ps.arrays[0])[pos].tolist(), np.asarray(ps.arrays[3])[neg].tolist()))
    return out


@pytest.mark.parametrize("name, make", _generators())
@pytest.mark.parametrize("proposal", ["paper", "boley"])
def test_same_pairs_generator_state_and_cache_as_one_tail_at_a_time(name, make, proposal):
    data = _data(7, n_records=50, n_features=12)
    options = dict(proposal=proposal, method="rejection", max_head_length=3, cache_size=4, max_proposals=10**5)
    tails = [t for t in _all_tails(data) if data.tail_support(t).size]
    rng = np.random.RandomState(0)
    batches = [[tails[i] for i in rng.choice(len(tails), 9)] for _ in range(6)]
    batches.append([tails[0], [int(tails[1][0])], np.array(tails[2]), tails[0]])   # non-tuple tails
    batched, looped = HeadSampler(data, **options), HeadSampler(data, **options)
    rng_batched, rng_looped = make(), make()
    for tails_i in batches:
        counts = [int(c) for c in rng.randint(0, 6, size=len(tails_i))]
        pairs, errors = batched.sample_pairs_many(tails_i, counts, rng_batched)
        got = ["limit" if isinstance(e, ProposalLimitError) else repr(e) if e is not None
               else (p[0].tolist(), p[1].tolist()) for p, e in zip(pairs, errors)]
        assert got == _one_tail_at_a_time(looped, tails_i, counts, rng_looped)
        assert list(batched._cache) == list(looped._cache)
        assert rng_batched.randint(0, 2**31) == rng_looped.randint(0, 2**31)


@pytest.mark.parametrize("bad_at, bad", [(2, "no positive"), (3, "count"), (1, "tail")])
def test_an_error_stops_where_the_loop_would(bad_at, bad):
    data = _data(9, n_records=30)
    tails = [(0,), (1,), (2,), (0, 1)]
    counts = [2, 3, 1, 4]
    if bad == "no positive":
        # Labels 5 and 6: records 0 and 1, no record in common.
        data = BinaryData(data.X, np.hstack([data.Y.toarray(), np.eye(30, 2, dtype=np.uint8)]))
        tails[bad_at] = (5, 6)
        error, message = ValueError, "has no positive record"
    elif bad == "count":
        counts[bad_at] = -1
        error, message = ValueError, "n must be an integer >= 0"
    else:
        tails[bad_at] = (0, 99)
        error, message = ValueError, "outside"
    batched, looped = HeadSampler(data, max_head_length=3), HeadSampler(data, max_head_length=3)
    rng_batched, rng_looped = np.random.RandomState(1), np.random.RandomState(1)
    with pytest.raises(error, match=message):
        batched.sample_pairs_many(tails, counts, rng_batched)
    # The loop: the tails before the bad one done, then the error (check_n comes first).
    _one_tail_at_a_time(looped, tails[:bad_at], counts[:bad_at], rng_looped)
    if bad != "count":
        with pytest.raises(error, match=message):
            _one_tail_at_a_time(looped, tails[bad_at:], counts[bad_at:], rng_looped)
    assert list(batched._cache) == list(looped._cache) == [tuple(t) for t in tails[:bad_at]]
    assert rng_batched.randint(0, 2**31) == rng_looped.randint(0, 2**31)


@pytest.mark.parametrize("negations", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_plain_proposal_from_the_compiled_build_equals_its_python_build(seed, negations):
    # The "plain" proposal made from the compiled paper build and made by the Python build: the
    # same records, factors, cumulative weights and mixing shares (or the same error).
    from corset import BinaryData

    data = _data(seed)
    if negations:
        X = np.asarray(data.X.toarray() if hasattr(data.X, "toarray") else data.X, dtype=np.uint8)
        counts = X.sum(axis=0)
        data = BinaryData.with_negations(X, data.Y, np.flatnonzero((counts > 0) & (counts < X.shape[0])))
    sampler = HeadSampler(data, proposal="plain", max_head_length=3)
    for tail in _all_tails(data):
        want = _outcome(sampler._build_python, tail)
        got = _outcome(sampler._build, tail)
        assert type(got) is type(want)
        if not isinstance(want, _heads.PairSampler):
            assert got == want
            continue
        for i in (0, 2, 3, 4):   # positives, log factors, negatives, cumulative |P-|
            np.testing.assert_array_equal(np.asarray(got.arrays[i]), np.asarray(want.arrays[i]))
        np.testing.assert_allclose(np.asarray(got.arrays[1]), np.asarray(want.arrays[1]), rtol=1e-15, atol=0)
        for g, w in zip(got.arrays[10], want.arrays[10]):   # pos_uniform, pos_plain, neg_plain
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        assert (got.pos_last, got.neg_last) == (want.pos_last, want.neg_last)


@pytest.mark.parametrize("max_proposals", [1, 3, 10_000])
@pytest.mark.parametrize("seed", range(3))
def test_flat_pairs_are_the_tails_pairs_one_after_another(seed, max_proposals):
    # CORSET-GH's set-up reads every tail's pairs as one array (_flat): the same pairs, tail after
    # tail, with a tail whose draws failed (max_proposals reached) left out, and the same errors.
    data = _data(seed, n_records=60)
    sampler = HeadSampler(data, method="rejection", max_head_length=3, max_proposals=max_proposals)
    tails = [t for t in _all_tails(data) if data.tail_support(t).size]
    counts = [int(c) for c in np.random.default_rng(seed).integers(0, 6, len(tails))]
    pairs, errors = sampler.sample_pairs_many(tails, counts, seed)
    (n_pairs, pos, neg), flat_errors = HeadSampler(data, method="rejection", max_head_length=3,
                                                   max_proposals=max_proposals).sample_pairs_many(
        tails, counts, seed, _flat=True)
    assert [repr(e) for e in flat_errors] == [repr(e) for e in errors]
    assert n_pairs == [0 if p is None else p[0].size for p in pairs]
    kept = [p for p in pairs if p is not None]
    assert pos.tolist() == [int(r) for p in kept for r in p[0]]
    assert neg.tolist() == [int(r) for p in kept for r in p[1]]
    if max_proposals == 1 and seed > 0:   # a failed tail between tails with pairs (seed 0 has none)
        assert any(e is not None for e in errors) and any(p is not None and p[0].size for p in pairs)
