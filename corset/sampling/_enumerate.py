"""Target distributions of the samplers by exhaustive enumeration, and a goodness-of-fit test.

Slow, plain-Python references for small data (about 10 features and 8
labels): the exactness tests of the samplers compare their draws with these
targets.  They share no code with the samplers: coverage is recomputed with
Python sets, head counts by listing the heads.
"""
import itertools
from collections import Counter

import numpy as np


def _dense(M):
    return np.asarray(M.toarray() if hasattr(M, "toarray") else M).astype(bool)


def uncovered_sets(data, rules=()):
    """U_D per record (a list of sets): labels of D no rule covers (eq. covD)."""
    X, Y = _dense(data.X), _dense(data.Y)
    uncovered = [set(np.flatnonzero(Y[i]).tolist()) for i in range(X.shape[0])]
    for head, tail in rules:
        for i in range(X.shape[0]):
            if all(X[i, h] for h in head) and all(Y[i, t] for t in tail):
                uncovered[i] -= set(tail)
    return uncovered


def tail_target(data, rules=()):
    """{tail: uncovered area} over every non-empty label set (eq. relarea for tails)."""
    Y = _dense(data.Y)
    uncovered = uncovered_sets(data, rules)
    labels = [set(np.flatnonzero(Y[i]).tolist()) for i in range(Y.shape[0])]
    target = {}
    for size in range(1, Y.shape[1] + 1):
        for tail in itertools.combinations(range(Y.shape[1]), size):
            t = set(tail)
            target[tail] = sum(len(t & u) for L, u in zip(labels, uncovered) if t <= L)
    return target


def head_target(data, tail, min_head_length=1, max_head_length=None):
    """{head: discriminativity} over every head of allowed length (eq. sampling-disc)."""
    X, Y = _dense(data.X), _dense(data.Y)
    positive = Y[:, list(tail)].all(axis=1)
    top = X.shape[1] if max_head_length is None else min(max_head_length, X.shape[1])
    target = {}
    for size in range(max(min_head_length, 1), top + 1):
        for head in itertools.combinations(range(X.shape[1]), size):
            match = X[:, list(head)].all(axis=1)
            target[head] = int((match & positive).sum()) * int((~match & ~positive).sum())
    return target


def pair_target(data, tail, min_head_length=1, max_head_length=None):
    """{(D+, D-): w} by listing, for each pair, the heads H ⊆ F_{D+} of allowed length with H ⊄ F_{D-}."""
    X, Y = _dense(data.X), _dense(data.Y)
    positive = Y[:, list(tail)].all(axis=1)
    target = {}
    for p in np.flatnonzero(positive):
        fp = np.flatnonzero(X[p]).tolist()
        top = len(fp) if max_head_length is None else min(max_head_length, len(fp))
        heads = [set(h) for size in range(max(min_head_length, 1), top + 1)
                 for h in itertools.combinations(fp, size)]
        for q in np.flatnonzero(~positive):
            fq = set(np.flatnonzero(X[q]).tolist())
            target[(int(p), int(q))] = sum(1 for h in heads if not h <= fq)
    return target


def goodness_of_fit(samples, target, min_expected=5.0):
    """p-value of Pearson's chi-square test of ``samples`` against ``target`` weights.

    Outcomes whose expected count is below ``min_expected`` are pooled into
    one cell.  A sample outside the target's support (weight 0 or unknown)
    gives p = 0: the sampler is wrong.
    """
    from scipy.stats import chisquare

    n = len(samples)
    counts = Counter(samples)
    total = float(sum(target.values()))
    if n == 0 or total <= 0:
        raise ValueError("need samples and a target with positive total weight")
    if any(target.get(o, 0) <= 0 for o in counts):
        return 0.0
    expected = {o: n * w / total for o, w in target.items() if w > 0}
    big = sorted((o for o, e in expected.items() if e >= min_expected), key=lambda o: expected[o])
    small = [o for o, e in expected.items() if e < min_expected]
    f_exp = [expected[o] for o in big]
    f_obs = [counts.get(o, 0) for o in big]
    if small:
        pooled_exp = sum(expected[o] for o in small)
        pooled_obs = sum(counts.get(o, 0) for o in small)
        if pooled_exp < min_expected and f_exp:
            # Fold the pool into the smallest regular cell.
            f_exp[0] += pooled_exp
            f_obs[0] += pooled_obs
        else:
            f_exp.append(pooled_exp)
            f_obs.append(pooled_obs)
    if len(f_exp) < 2:
        return 1.0
    f_exp = np.asarray(f_exp)
    f_exp *= n / f_exp.sum()   # guard the float sum against tiny drift
    return float(chisquare(f_obs, f_exp).pvalue)
