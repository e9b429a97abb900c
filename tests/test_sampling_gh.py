"""CORSET-GH (Algorithm 5) against a slow pure-Python reference."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corset import BinaryData
from corset._ext import _gh
from corset.sampling._head_gh import GreedyHeadSearch
from corset.selection import coverage_flags


def reference_search(X, role, candidates, n_positive, gamma, epsilon, normalise, min_length=1, max_length=None):
    """Algorithm 5 with Python sets: loop while candidates remain, best prefix of allowed length."""
    n = X.shape[0]
    support = set(range(n))
    remaining = sorted(candidates)
    head, scores = [], []
    phi = 0.0
    while remaining and (max_length is None or len(head) < max_length):
        best = None
        for h in remaining:  # increasing id: ties go to the smaller id
            s = support & set(np.flatnonzero(X[:, h]).tolist())
            value = sum(role[r] == 1 for r in s) - gamma * sum(role[r] == 2 for r in s)
            gain = value - phi
            if normalise:
                size = int(X[:, h].sum())
                gain = gain / size if size else 0.0
            if best is None or gain > best[0]:
                best = (gain, h, value, s)
        _, h, value, s = best
        head.append(h)
        scores.append(value)
        phi = value
        support = s
        remaining.remove(h)
        if len(head) >= min_length and len(support) < epsilon * n_positive:
            break
    lo = min_length - 1
    best_prefix = lo + int(np.argmax(scores[lo:])) + 1 if len(scores) >= min_length else 0
    return head[:best_prefix], head, scores


@st.composite
def search_case(draw):
    n = draw(st.integers(1, 25))
    m = draw(st.integers(1, 10))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.RandomState(seed)
    X = rng.rand(n, m) < draw(st.floats(0.1, 0.9))
    role = rng.randint(0, 3, size=n).astype(np.uint8)
    candidates = sorted(draw(st.sets(st.integers(0, m - 1), max_size=m)))
    gamma = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))
    epsilon = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    normalise = draw(st.booleans())
    min_length = draw(st.integers(1, 3))
    max_length = draw(st.one_of(st.none(), st.integers(min_length, 4)))
    return X, role, candidates, gamma, epsilon, normalise, min_length, max_length


@given(search_case())
@settings(max_examples=400, deadline=None)
def test_kernel_matches_reference(case):
    X, role, candidates, gamma, epsilon, normalise, min_length, max_length = case
    data = BinaryData(X)
    n_pos = int((role == 1).sum())
    idx = data.feature_records
    ref_head, ref_visited, ref_scores = reference_search(X, role, candidates, n_pos, gamma, epsilon, normalise,
                                                         min_length, max_length)
    rec = data.record_features
    # Counting by intersections only, by record scans whenever possible, and by cost.
    results = [_gh.greedy_head_search(
        idx.indptr, idx.ids, np.array(candidates, dtype=np.int32), role, n_pos, gamma, epsilon, normalise,
        min_length, -1 if max_length is None else max_length, rec.indptr, rec.ids, mode)
        for mode in (1, 2, 0)]
    for other in results[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(results[0], other))
    head, visited, scores = results[0]
    # The kernel may stop early once no longer prefix can beat the best one
    # (phi <= positives kept); what it visits is a prefix of the reference.
    assert visited.tolist() == ref_visited[:len(visited)]
    assert np.allclose(scores, ref_scores[:len(scores)])
    assert head.tolist() == ref_head
    # The returned head's phi is at least that of every prefix of allowed length visited.
    if len(head):
        assert min_length <= len(head) <= (max_length or len(head))
        assert scores[len(head) - 1] >= max(ref_scores[min_length - 1:])
    else:
        assert len(visited) < min_length


def _toy(seed, n=30, m=8, L=3):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, m) < 0.5
    Y = rng.rand(n, L) < 0.4
    Y[0, 0] = True
    Y[1, 0] = False
    return X, Y


@pytest.mark.parametrize("seed_kind", ["uniform", "uncovered", "deterministic"])
@pytest.mark.parametrize("candidates", ["difference", "positive"])
@pytest.mark.parametrize("normalise", [False, True])
def test_wrapper_variants_match_reference(global_random_seed, seed_kind, candidates, normalise):
    X, Y = _toy(global_random_seed)
    data = BinaryData(X, Y)
    tail = (0,)
    search = GreedyHeadSearch(data, gamma=0.5, epsilon=0.1, candidates=candidates, seed=seed_kind,
                              normalise=normalise)
    rng = np.random.RandomState(global_random_seed)
    pos, neg = search.draw_pairs(tail, 1, rng)
    pos, neg = pos[0], neg[0]
    head = search.search(tail, pos, neg)
    positives = set(np.flatnonzero(Y[:, 0]).tolist())
    role = np.array([1 if r in positives else 2 for r in range(X.shape[0])], dtype=np.uint8)
    if pos is None:
        cand = sorted({f for r in positives for f in np.flatnonzero(X[r]).tolist()})
    else:
        assert pos in positives and neg not in positives
        cand = set(np.flatnonzero(X[pos]).tolist())
        if candidates == "difference":
            cand -= set(np.flatnonzero(X[neg]).tolist())
        cand = sorted(cand)
    ref_head, _, _ = reference_search(X, role, cand, len(positives), 0.5, 0.1, normalise)
    assert head == (tuple(sorted(ref_head)) if cand else None)


def test_uncovered_variant_drops_covered_positives():
    X, Y = _toy(3)
    data = BinaryData(X, Y)
    tail = (0,)
    rule_head = tuple(np.flatnonzero(X[0]).tolist()[:1])
    rules = [(rule_head, tail)]
    covered = coverage_flags(data, rules).astype(bool)
    search = GreedyHeadSearch(data, seed="uniform", uncovered=True)
    role, positives = search.roles(tail, covered)
    matched = set(data.rule_support(rule_head, tail).tolist())
    for r in positives:
        assert role[r] == (0 if r in matched else 1)
    assert (role[np.setdiff1d(np.arange(data.n_records), positives)] == 2).all()


def test_no_negatives_and_empty_candidates():
    X = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=np.uint8)
    Y = np.ones((3, 1), dtype=np.uint8)  # every record is positive: no D−
    data = BinaryData(X, Y)
    search = GreedyHeadSearch(data, seed="uniform")
    pos, neg = search.draw_pairs((0,), 1, np.random.RandomState(0))
    pos, neg = pos[0], neg[0]
    assert neg is None
    head = search.search((0,), pos, neg)
    assert head is not None and len(head) == 1  # phi only falls as the head grows
    # D+ ⊆ D−: no candidate feature, no head.
    X2 = np.array([[1, 0], [1, 1]], dtype=np.uint8)
    Y2 = np.array([[1], [0]], dtype=np.uint8)
    data2 = BinaryData(X2, Y2)
    assert GreedyHeadSearch(data2, seed="uniform").search((0,), 0, 1) is None


def test_epsilon_one_stops_after_first_feature():
    X, Y = _toy(5)
    data = BinaryData(X, Y)
    search = GreedyHeadSearch(data, seed="deterministic", epsilon=1.0, gamma=0.0)
    idx = data.feature_records
    role, positives = search.roles((0,))
    cand = np.arange(X.shape[1], dtype=np.int32)
    _, visited, _ = _gh.greedy_head_search(idx.indptr, idx.ids, cand, role, positives.size, 0.0, 1.0, False)
    assert len(visited) >= 1
    # With epsilon = 1 the search stops as soon as the support is below |D_T^+|.
    supports = [len(data.head_support(visited[:i + 1])) for i in range(len(visited))]
    assert all(s >= positives.size for s in supports[:-1])


def test_parameter_errors():
    data = BinaryData(*_toy(0))
    with pytest.raises(ValueError, match="gamma"):
        GreedyHeadSearch(data, gamma=-1, seed="uniform")
    with pytest.raises(ValueError, match="epsilon"):
        GreedyHeadSearch(data, epsilon=2, seed="uniform")
    with pytest.raises(ValueError, match="seed"):
        GreedyHeadSearch(data, seed="bogus")
    with pytest.raises(ValueError, match="candidates"):
        GreedyHeadSearch(data, candidates="all")
    with pytest.raises(ValueError, match="min_head_length"):
        GreedyHeadSearch(data, min_head_length=0)


def test_paper_seed_uses_cftp_pairs_and_respects_lengths(global_random_seed):
    X, Y = _toy(global_random_seed, n=40, m=10)
    data = BinaryData(X, Y)
    search = GreedyHeadSearch(data, seed="paper", min_head_length=2, max_head_length=3)
    pos, neg = search.draw_pairs((0,), 20, global_random_seed)
    positives = set(np.flatnonzero(Y[:, 0]).tolist())
    assert all(p in positives for p in pos) and all(q not in positives for q in neg)
    heads = search.sample((0,), 20, global_random_seed)
    assert all(2 <= len(h) <= 3 for h in heads)
    # Same seed, same heads.
    assert heads == search.sample((0,), 20, global_random_seed)


def test_plugs_into_public_entry_point_and_generator():
    from corset.sampling import CandidateGenerator, sample_heads

    X, Y = _toy(1, n=40, m=10)
    heads = sample_heads(X, Y, (0,), 5, method="gh", random_state=0)
    assert heads and all(isinstance(h, tuple) for h in heads)
    data = BinaryData(X, Y)
    generate = CandidateGenerator(data, n_tails=4, n_heads_per_tail=3, head_method="gh", random_state=0,
                                  head_options={"seed": "uncovered", "uncovered": True})
    pool = generate([])
    assert pool
    assert generate([pool[0]])  # the uncovered variant receives the selected rules


@pytest.mark.parametrize("threshold, expected", [(1e-12, [1, 2, 2, 2]), (float("inf"), [1, 1, 1, 1])])
def test_generator_threads_the_searches_once_they_take_long_enough(monkeypatch, threshold, expected):
    # The first pool's searches run on one thread; the next ones on n_jobs threads when the last
    # took at least THREADED_SEARCH_MIN_SECONDS of one thread's work.  The pools are the same.
    import corset.sampling._candidates as candidates
    from corset.sampling import CandidateGenerator

    X, Y = _toy(2, n=60, m=10)
    data = BinaryData(X, Y)

    def pools(n_jobs):
        seen = []
        generate = CandidateGenerator(data, n_tails=5, n_heads_per_tail=4, head_method="gh", random_state=3,
                                      n_jobs=n_jobs)
        original = generate._head_sampler.sample_pool

        def recording(*args, n_threads, **kwargs):
            seen.append(n_threads)
            return original(*args, n_threads=n_threads, **kwargs)

        generate._head_sampler.sample_pool = recording
        out, chosen = [], []
        for _ in range(4):
            pool = generate(chosen)
            out.append(pool)
            chosen.append(pool[0])
        return out, seen

    monkeypatch.setattr(candidates, "THREADED_SEARCH_MIN_SECONDS", threshold)
    threaded, seen = pools(2)
    assert seen == expected
    single, seen_single = pools(1)
    assert seen_single == [1, 1, 1, 1]
    assert threaded == single


@pytest.mark.parametrize("seed_kind", ["paper", "uniform", "uncovered", "deterministic"])
def test_batch_matches_one_by_one_and_threads(global_random_seed, seed_kind):
    X, Y = _toy(global_random_seed, n=40, m=10)
    Y[:, 1] = 1  # a tail with no negative record for the non-CFTP seeds
    data = BinaryData(X, Y)
    search = GreedyHeadSearch(data, seed=seed_kind, uncovered=True, max_head_length=3)
    search.update_rules([((0,), (0,))])
    tails = [(0,), (2,)] + ([] if seed_kind == "paper" else [(1,)])
    tails = [t for t in tails if data.tail_support(t).size]
    batch, errors = search.sample_many(tails, 6, global_random_seed, n_threads=1)
    assert errors == [None] * len(tails)
    assert (batch, errors) == search.sample_many(tails, 6, global_random_seed, n_threads=2)
    # The same pairs searched one by one give the same heads: pairs are drawn
    # once per distinct tail, n per occurrence, in first-seen order.
    rng = np.random.RandomState(global_random_seed)
    for tail, heads in zip(tails, batch):
        pos, neg = search.draw_pairs(tail, 6, rng, search._covered)
        expected = []
        for p, q in zip(pos, neg):
            head = search.search(tail, p, q, covered=search._covered)
            if head is not None:
                expected.append(head)
        assert heads == expected


def test_batch_with_repeated_tails():
    X, Y = _toy(3, n=40, m=10)
    data = BinaryData(X, Y)
    search = GreedyHeadSearch(data, seed="uniform")
    tails = [(0,), (2,), (0,)]
    batch, _ = search.sample_many(tails, 4, 0)
    rng = np.random.RandomState(0)
    pos, neg = search.draw_pairs((0,), 8, rng)
    heads0 = [search.search((0,), p, q) for p, q in zip(pos, neg)]
    assert batch[0] == [h for h in heads0[:4] if h is not None]
    assert batch[2] == [h for h in heads0[4:] if h is not None]


def test_rejection_pairs_seed_the_searches(global_random_seed):
    """``pair_method="rejection"`` draws the pairs with HeadSampler's rejection sampler."""
    from corset.sampling import HeadSampler

    X, Y = _toy(global_random_seed, n=40, m=10)
    data = BinaryData(X, Y)
    search = GreedyHeadSearch(data, pair_method="rejection", max_head_length=3)
    pairs = search.draw_pairs((0,), 20, global_random_seed)
    direct = HeadSampler(data, method="rejection", max_head_length=3).sample_pairs((0,), 20, global_random_seed)
    assert pairs == (direct[0].tolist(), direct[1].tolist())


@pytest.mark.parametrize("shape", [(40, 6, 0.5), (60, 30, 0.1), (30, 12, 0.8)], ids=["small", "sparse", "dense"])
@pytest.mark.parametrize("normalise", [False, True])
@pytest.mark.parametrize("max_length", [None, 2])
def test_batch_counts_negated_literals_as_complements(global_random_seed, shape, normalise, max_length):
    """With ``negated`` and ``r_plain_end``, the batch kernel scans only the records' plain features
    and counts "NOT f" as D[H]'s counts minus f's: the heads of the Python reference on the whole
    literal matrix, and of the kernel without the complements, for seed pairs and the
    deterministic input, records of role 0 included, some features negated only."""
    n, m, density = shape
    rng = np.random.RandomState(global_random_seed)
    X = rng.rand(n, m) < density
    negated = np.sort(rng.choice(m, size=max(1, 2 * m // 3), replace=False))
    data = BinaryData.with_negations(X, rng.rand(n, 1) < 0.5, negated)
    literals = data.X.toarray().astype(bool)
    assert literals.shape[1] == m + negated.size
    kwargs = GreedyHeadSearch(data, seed="uniform")._negations()
    f_idx, r_idx = data.feature_records, data.record_features
    roles = rng.randint(0, 3, size=(2, n)).astype(np.uint8)
    n_positive = (roles == 1).sum(axis=1).astype(np.int64)
    first = np.stack([np.stack([literals[roles[t] == k].sum(axis=0) for t in range(2)]) for k in (1, 2)])
    # The wrapper's first-step counts (negated literals as complements) are these.
    assert np.array_equal(GreedyHeadSearch(data, seed="uniform", memo=False)._first_counts(roles), first)
    cand_lists = [np.flatnonzero(literals[roles[t] == 1].any(axis=0)).astype(np.int32) for t in range(2)]
    cand_indptr = np.array([0, cand_lists[0].size, cand_lists[0].size + cand_lists[1].size], dtype=np.int64)
    n_jobs = 12
    job_tail = rng.randint(0, 2, size=n_jobs).astype(np.int32)
    job_pos = rng.randint(0, n, size=n_jobs).astype(np.int32)
    job_neg = rng.randint(-1, n, size=n_jobs).astype(np.int32)
    job_pos[:3] = -1   # the deterministic input: the tail's candidate list
    args = (f_idx.indptr, f_idx.ids, r_idx.indptr, r_idx.ids, cand_indptr, np.concatenate(cand_lists),
            roles, n_positive, first.astype(np.int32), job_tail, job_pos, job_neg, 0.5, 0.1, normalise, True, 1,
            -1 if max_length is None else max_length, 1)
    indptr, ids = _gh.greedy_heads(*args, **kwargs)
    plain = _gh.greedy_heads(*args)
    assert np.array_equal(indptr, plain[0]) and np.array_equal(ids, plain[1])
    for j in range(n_jobs):
        t = job_tail[j]
        if job_pos[j] < 0:
            cand = cand_lists[t].tolist()
        else:
            cand = set(np.flatnonzero(literals[job_pos[j]]).tolist())
            if job_neg[j] >= 0:
                cand -= set(np.flatnonzero(literals[job_neg[j]]).tolist())
            cand = sorted(cand)
        ref_head, _, _ = reference_search(literals, roles[t], cand, int(n_positive[t]), 0.5, 0.1, normalise,
                                          1, max_length)
        assert ids[indptr[j]:indptr[j + 1]].tolist() == sorted(ref_head)


def test_batch_refuses_half_a_description_of_negated_literals():
    rng = np.random.RandomState(0)
    data = BinaryData.with_negations(rng.rand(10, 4) < 0.5, rng.rand(10, 1) < 0.5, np.arange(4))
    kwargs = GreedyHeadSearch(data, seed="uniform")._negations()
    f_idx, r_idx = data.feature_records, data.record_features
    roles = np.ones((1, 10), dtype=np.uint8)
    args = (f_idx.indptr, f_idx.ids, r_idx.indptr, r_idx.ids, np.zeros(2, np.int64), np.zeros(0, np.int32),
            roles, np.array([10]), np.zeros((2, 1, 8), np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32),
            np.full(1, -1, np.int32), 0.5, 0.1, False, True, 1, 3, 1)
    with pytest.raises(ValueError, match="go together"):
        _gh.greedy_heads(*args, negated=kwargs["negated"])
    end = kwargs["r_plain_end"].copy()
    end[2] += 1
    with pytest.raises(ValueError, match="r_plain_end\\[2\\]"):
        _gh.greedy_heads(*args, negated=kwargs["negated"], r_plain_end=end)


@pytest.mark.parametrize("tail", ["01", [1.9], [True]])
def test_gh_tails_that_are_not_ids_are_refused(tail):
    """As the other head methods do: "01" was read as the tail (0, 1), [1.9] as (1,), [True] as (1,)."""
    rng = np.random.RandomState(0)
    data = BinaryData(rng.rand(60, 8) < 0.4, rng.rand(60, 3) < 0.4)
    with pytest.raises(ValueError, match="tail must hold integer ids"):
        GreedyHeadSearch(data).sample_many([tail], 2, random_state=0)


def test_gh_threads_beyond_the_cpus_give_the_same_heads(tmp_path):
    """n_threads past the CPUs (100,000 made OpenMP crash the process) runs on the CPUs there are,
    with the heads of one thread; numpy integers are thread counts and n_jobs like ints."""
    import subprocess
    import sys

    from corset.sampling import CandidateGenerator

    code = """
import numpy as np
from corset import BinaryData
from corset.sampling._head_gh import GreedyHeadSearch
rng = np.random.RandomState(0)
data = BinaryData(rng.rand(60, 8) < 0.4, rng.rand(60, 3) < 0.4)
many = GreedyHeadSearch(data).sample_many([(0,), (1, 2)], 5, random_state=0, n_threads=100000)
one = GreedyHeadSearch(data).sample_many([(0,), (1, 2)], 5, random_state=0, n_threads=np.int64(1))
assert many == one, (many, one)
print("same")
"""
    # Run outside the source tree: the child imports the installed package, as the other tests do.
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "same", run.stderr
    rng = np.random.RandomState(0)
    data = BinaryData(rng.rand(60, 8) < 0.4, rng.rand(60, 3) < 0.4)
    assert CandidateGenerator(data, head_method="gh", n_jobs=np.int64(2)).n_jobs == 2
    with pytest.raises(TypeError, match="n_threads must be an integer >= 1"):
        GreedyHeadSearch(data).sample_many([(0,)], 2, random_state=0, n_threads=2.0)


def test_gh_counts_and_seed_records_that_are_not_ones_are_refused():
    """n=True was taken as 1, n=2.0 and n=-2 failed inside numpy, a positive_record of 1000 raised a
    bare IndexError; each now names its argument."""
    rng = np.random.RandomState(0)
    data = BinaryData(rng.rand(60, 8) < 0.4, rng.rand(60, 3) < 0.4)
    search = GreedyHeadSearch(data, seed="uniform")
    for n, error in ((True, TypeError), (2.0, TypeError), (-2, ValueError)):
        with pytest.raises(error, match="n must be an integer >= 0"):
            search.sample_many([(0,)], n, random_state=0)
    assert search.sample_many([(0,)], 0, random_state=0)[0] == [[]]
    with pytest.raises(ValueError, match=r"positive_record must be a record id in \[0, 60\); got 1000"):
        search.search((0,), positive_record=1000)
    with pytest.raises(ValueError, match="negative_record must be an integer >= 0"):
        search.search((0,), positive_record=1, negative_record=-1)
