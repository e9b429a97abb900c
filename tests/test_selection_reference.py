"""Slow, obviously correct pure-Python reference of CORSET's objective and greedy.

Coverage sets are materialised as Python sets of (record, label) pairs; every
term is its textbook definition (section problem_formulation of the paper,
with the corrections of docs/corrections.rst).  The other test_selection_* modules import this
one; the tests below check the reference itself on hand-computed values.
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


# -- data ------------------------------------------------------------------

class RefData:
    """Records as Python sets: ``features[i]`` (F_D) and ``labels[i]`` (L_D)."""

    def __init__(self, X, Y):
        X = np.asarray(X)
        Y = np.asarray(Y)
        self.features = [set(np.flatnonzero(row).tolist()) for row in X]
        self.labels = [set(np.flatnonzero(row).tolist()) for row in Y]
        self.n = len(self.features)
        self.n_occurrences = sum(len(s) for s in self.labels)


def support(sets, items):
    return {i for i, s in enumerate(sets) if set(items) <= s}


def head_support(data, rule):
    return support(data.features, rule[0])


def tail_support(data, rule):
    return support(data.labels, rule[1])


def rule_support(data, rule):
    return head_support(data, rule) & tail_support(data, rule)


def coverage(data, rule):
    """cov(R) = {(i, k) : R matches record i, k in T} (eq. coverage)."""
    return {(i, k) for i in rule_support(data, rule) for k in rule[1]}


def accuracy(data, rule):
    """a(R) = I(P_R > P_D) KL(Bern(P_R) || Bern(P_D)); 0 when D[H] is empty."""
    h = len(head_support(data, rule))
    if h == 0:
        return 0.0
    p = len(rule_support(data, rule)) / h
    q = len(tail_support(data, rule)) / data.n
    if not p > q:
        return 0.0
    kl = p * math.log(p / q)
    if p < 1:
        kl += (1 - p) * math.log((1 - p) / (1 - q))
    return kl


def distance(cov_a, cov_b):
    """Jaccard distance; two empty sets are identical (distance 0)."""
    union = cov_a | cov_b
    if not union:
        return 0.0
    return 1 - len(cov_a & cov_b) / len(union)


def abstract_objective(coverages, accuracies, lam, quality):
    """f of eq. obj (unordered pairs) or f_Q of note 1, from coverage sets and accuracies."""
    n = len(coverages)
    if quality == "paper":
        q = 0.0
        for i in range(n):
            others = set().union(*(coverages[j] for j in range(n) if j != i))
            q += accuracies[i] * len(coverages[i] - others)
    else:
        best = {}
        for cov, a in zip(coverages, accuracies):
            for occ in cov:
                best[occ] = max(best.get(occ, 0.0), a)
        q = sum(best.values())
    d = sum(distance(coverages[i], coverages[j]) for i in range(n) for j in range(i + 1, n))
    return q + lam * d


def objective(data, rules, lam, quality):
    return abstract_objective([coverage(data, r) for r in rules], [accuracy(data, r) for r in rules], lam, quality)


def canonical(rule):
    return tuple(sorted(rule[0])), tuple(sorted(rule[1]))


def dedup(pool):
    out = []
    for rule in map(canonical, pool):
        if rule not in out:
            out.append(rule)
    return out


# -- greedy ----------------------------------------------------------------

def greedy_step(data, pool, chosen, covered, best, lam, quality, allow_empty):
    """Gains of every candidate of ``pool`` against the chosen rules; the arg max (lowest index on ties)."""
    chosen_covs = [coverage(data, r) for r in chosen]
    gains, areas = [], []
    for rule in pool:
        cov = coverage(data, rule)
        a = accuracy(data, rule)
        area = len(cov - covered)
        if quality == "paper":
            quality_gain = 0.5 * (a * area)
        else:
            dq = 0.0
            for occ in sorted(cov):
                if a > best.get(occ, 0.0):
                    dq = dq + (a - best.get(occ, 0.0))
            quality_gain = 0.5 * dq
        s = 0.0
        for other in chosen_covs:
            s = s + distance(cov, other)
        gains.append(quality_gain + lam * s)
        areas.append(area)
    pick, pick_gain = -1, 0.0
    for i, rule in enumerate(pool):
        if rule in chosen or (not allow_empty and not coverage(data, rule)):
            continue
        if gains[i] > pick_gain:
            pick, pick_gain = i, gains[i]
    if pick < 0 and not chosen and lam > 0:
        # First step, every gain 0: take the first eligible candidate (see corset.selection._greedy).
        for i, rule in enumerate(pool):
            if allow_empty or coverage(data, rule):
                return i, gains, areas
    return pick, gains, areas


def greedy(data, generator, budget, lam, quality, tol, keep_stopping_rule=True, allow_empty=False):
    """Round 1 of Algorithm 1 with a candidate generator.

    Returns (rules, gains, areas, shares, stop_reason, union of pools, per-step gain vectors).
    """
    chosen, gains_out, areas_out, shares = [], [], [], []
    covered, best = set(), {}
    union, trace = [], []
    reason = "budget"
    while len(chosen) < budget:
        pool = dedup(generator(list(chosen)))
        for rule in pool:
            if rule not in union:
                union.append(rule)
        if not pool:
            reason = "empty_pool"
            break
        pick, gains, areas = greedy_step(data, pool, chosen, covered, best, lam, quality, allow_empty)
        trace.append((pool, gains, pick))
        if pick < 0:
            reason = "no_gain"
            break
        share = areas[pick] / data.n_occurrences if data.n_occurrences else 0.0
        stop = tol is not None and share <= tol
        if stop and not keep_stopping_rule:
            reason = "tol"
            break
        rule = pool[pick]
        chosen.append(rule)
        gains_out.append(gains[pick])
        areas_out.append(areas[pick])
        shares.append(share)
        a = accuracy(data, rule)
        for occ in coverage(data, rule):
            covered.add(occ)
            best[occ] = max(best.get(occ, 0.0), a)
        if stop:
            reason = "tol"
            break
    return chosen, gains_out, areas_out, shares, reason, union, trace


def brute_force_optimum(coverages, accuracies, k, lam, quality):
    """max f over the subsets of at most k candidates."""
    best = 0.0
    n = len(coverages)
    for size in range(1, min(k, n) + 1):
        for subset in itertools.combinations(range(n), size):
            value = abstract_objective([coverages[i] for i in subset], [accuracies[i] for i in subset], lam, quality)
            best = max(best, value)
    return best


# -- Hypothesis strategies shared by the selection tests ---------------------

@st.composite
def binary_data(draw, max_records=10, max_features=6, max_labels=4, min_records=1):
    """(X, Y) uint8; sometimes a label carried by every record, sometimes dense rows."""
    n = draw(st.integers(min_records, max_records))
    m = draw(st.integers(1, max_features))
    n_labels = draw(st.integers(1, max_labels))
    X = draw(hnp.arrays(np.bool_, (n, m))).astype(np.uint8)
    Y = draw(hnp.arrays(np.bool_, (n, n_labels))).astype(np.uint8)
    if n and draw(st.booleans()):
        Y[:, draw(st.integers(0, n_labels - 1))] = 1  # a tail that covers every record: P_D = 1
    return X, Y


@st.composite
def rules_on(draw, X, Y, min_size=0, max_size=8):
    """Rules mixing random heads/tails (often empty support) and rules read off a record (non-empty support)."""
    n, m = X.shape
    n_labels = Y.shape[1]
    count = draw(st.integers(min_size, max_size))
    out = []
    for _ in range(count):
        record = draw(st.integers(0, n - 1)) if n else None
        feats = np.flatnonzero(X[record]).tolist() if record is not None else []
        labs = np.flatnonzero(Y[record]).tolist() if record is not None else []
        if feats and labs and draw(st.booleans()):
            head = draw(st.sets(st.sampled_from(feats), min_size=1, max_size=3))
            tail = draw(st.sets(st.sampled_from(labs), min_size=1, max_size=2))
        else:
            head = draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=3))
            tail = draw(st.sets(st.integers(0, n_labels - 1), min_size=1, max_size=2))
        out.append((tuple(sorted(head)), tuple(sorted(tail))))
    return out


def record_rules(rng, X, Y, count, max_head=3, max_tail=2):
    """``count`` rules read off random records (non-empty coverage), from a numpy RandomState."""
    rows = [i for i in range(X.shape[0]) if X[i].any() and Y[i].any()]
    out = []
    for _ in range(count):
        i = rows[rng.randint(len(rows))]
        feats = np.flatnonzero(X[i])
        labs = np.flatnonzero(Y[i])
        head = rng.choice(feats, size=rng.randint(1, min(max_head, feats.size) + 1), replace=False)
        tail = rng.choice(labs, size=rng.randint(1, min(max_tail, labs.size) + 1), replace=False)
        out.append((tuple(sorted(head.tolist())), tuple(sorted(tail.tolist()))))
    return out


# -- the reference against hand-computed values ------------------------------

def test_reference_hand_example():
    X = [[1, 0], [1, 1], [0, 1], [0, 0]]
    Y = [[1, 0], [1, 1], [0, 1], [1, 0]]
    data = RefData(X, Y)
    rule = ((0,), (0,))
    assert rule_support(data, rule) == {0, 1}
    assert coverage(data, rule) == {(0, 0), (1, 0)}
    # P_R = 1, P_D = 3/4: KL(Bern(1) || Bern(3/4)) = log(4/3).
    assert accuracy(data, rule) == pytest.approx(math.log(4 / 3), rel=1e-15)
    # Head {1} -> tail {0}: P_R = 1/2 < 3/4, accuracy 0.
    assert accuracy(data, ((1,), (0,))) == 0.0
    assert distance({(0, 0), (1, 0)}, {(1, 0), (1, 1)}) == pytest.approx(1 - 1 / 3)
    assert distance(set(), set()) == 0.0
    assert distance(set(), {(0, 0)}) == 1.0


def test_reference_objective_note1_counterexample():
    # The non-monotone quality (docs/corrections.rst): cov(A) = {x, y}, a = 1; cov(B) = {x, y, z}, a = 0.1; cov(C) = {w}, a = 0.01.
    A, B, C = {"x", "y"}, {"x", "y", "z"}, {"w"}
    for quality, expected_ab, expected_ac in (("paper", 0.1, 2.01), ("submodular", 2.1, 2.01)):
        assert abstract_objective([A, B], [1, 0.1], 0, quality) == pytest.approx(expected_ab)
        assert abstract_objective([A, C], [1, 0.01], 0, quality) == pytest.approx(expected_ac)
    # The paper's f is not monotone: adding B to {A} lowers it from 2 to 0.1.
    assert abstract_objective([A], [1], 0, "paper") == 2
    assert abstract_objective([A, B], [1, 0.1], 0, "paper") < abstract_objective([A], [1], 0, "paper")
