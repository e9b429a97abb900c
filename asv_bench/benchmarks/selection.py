"""Benchmarks of the greedy rule selection (Algorithm 1) on bibtex's training split.

Candidate rules are read off actual records (head: a random 1-3-subset of a
record's features, tail: a random 1-2-subset of its labels), so every
support is non-empty, as with the real samplers.

* ``GreedyStep``: one round-1 step over a fresh pool of 500 candidates, with
  0, 50 or 149 rules already selected (the step's distance part grows with
  |ℛ|), split into the pool statistics (D[R] per candidate) and the gains.
* ``SelectFromPool``: selecting 150 rules from a fixed pool of 5,000
  candidates (``select_rules``), for both qualities.
"""
import numpy as np
import scipy.sparse as sp

from corset import BinaryData
from corset._ext import _selection
from corset.selection import rule_statistics, select_rules
from corset.selection._greedy import _base_eligibility, _FixedPool, _greedy, _State
from corset.selection._objective import _areas
from corset.selection._stopping import RuleBudget

from .common import SEED, require_data

LAM = 1.0


def _bibtex_matrices():
    """(X, Y) of bibtex's training split as CSR uint8."""
    try:
        from .common import binary_benchmark

        data = binary_benchmark("bibtex")
        return data.X, data.Y
    except ImportError:
        # The loaders (corset.datasets) are not available: read the ARFF directly.
        import arff

        path = require_data() / "bibtex" / "bibtex-train.arff"
        with open(path) as handle:
            coo = arff.load(handle, return_type=arff.COO)
        values, (rows, cols) = coo["data"][0], coo["data"][1:]
        n_attributes = len(coo["attributes"])
        M = sp.csr_array((np.asarray(values, dtype=np.float64), (rows, cols)),
                         shape=(max(rows) + 1, n_attributes))
        M = (M != 0).astype(np.uint8)
        return sp.csr_array(M[:, :n_attributes - 159]), sp.csr_array(M[:, n_attributes - 159:])


def fresh_pool_step(data, state, stats, lam, submodular):
    """What a round-1 step does with a fresh pool's statistics: eligibility, the distance sums to the
    chosen rules, then the gains and their arg max (as ``_GeneratedPools.step`` without its store)."""
    eligible = _base_eligibility(stats, False)
    sums = np.zeros(len(stats), dtype=np.float64)
    if lam > 0 and len(state):
        _selection.add_distance_sums(stats.support_indptr, stats.support_ids, stats.tail_indptr, stats.tail_ids,
                                     eligible, *state.chosen_csr(), sums)
    return _areas(data, stats, state.covered, state.best_accuracy, lam, sums, submodular, eligible,
                  coverage=state.coverage)


def selected_state(data, stats, n_selected, lam, submodular):
    """The state of a greedy run that selected ``n_selected`` rules from ``stats`` (a fixed pool)."""
    if n_selected == 0:
        return _State(data)
    source = _FixedPool(data, stats, lam, submodular, False, 1)
    state, _ = _greedy(data, source, [RuleBudget(n_selected)], round_number=1, callback=None)
    return state


def record_pool(X, Y, n, seed):
    """``n`` rules read off random records with at least one feature and one label."""
    rng = np.random.RandomState(seed)
    rows = np.flatnonzero((np.diff(X.indptr) > 0) & (np.diff(Y.indptr) > 0))
    pool = []
    for i in rng.choice(rows, size=n):
        features = X.indices[X.indptr[i]:X.indptr[i + 1]]
        labels = Y.indices[Y.indptr[i]:Y.indptr[i + 1]]
        head = rng.choice(features, size=rng.randint(1, min(3, features.size) + 1), replace=False)
        tail = rng.choice(labels, size=rng.randint(1, min(2, labels.size) + 1), replace=False)
        pool.append((tuple(sorted(head.tolist())), tuple(sorted(tail.tolist()))))
    return pool


class GreedyStep:
    """One greedy step over a fresh pool of 500 candidates (bibtex train)."""

    params = ([0, 50, 149], ["paper", "submodular"])
    param_names = ["n_selected", "quality"]
    timeout = 300

    def setup_cache(self):
        X, Y = _bibtex_matrices()
        return X, Y, record_pool(X, Y, 5_000, SEED), record_pool(X, Y, 500, SEED + 1)

    def setup(self, cache, n_selected, quality):
        X, Y, big_pool, pool = cache
        self.data = BinaryData(X, Y)
        self.submodular = quality == "submodular"
        big = rule_statistics(self.data, big_pool, deduplicate=True)
        # A realistic state: the rules a selection of n_selected would hold.
        self.state = selected_state(self.data, big, n_selected, LAM, self.submodular)
        self.pool = pool
        self.stats = rule_statistics(self.data, pool, deduplicate=True)

    def time_step(self, cache, n_selected, quality):
        """Validation + pool statistics + distances + gains: what a round-1 step costs."""
        stats = rule_statistics(self.data, self.pool, deduplicate=True)
        fresh_pool_step(self.data, self.state, stats, LAM, self.submodular)

    def time_pool_statistics(self, cache, n_selected, quality):
        rule_statistics(self.data, self.pool, deduplicate=True)

    def time_gains(self, cache, n_selected, quality):
        fresh_pool_step(self.data, self.state, self.stats, LAM, self.submodular)


class SelectFromPool:
    """Selecting 150 rules from a fixed pool of 5,000 candidates (bibtex train)."""

    params = (["paper", "submodular"],)
    param_names = ["quality"]
    timeout = 600

    def setup_cache(self):
        X, Y = _bibtex_matrices()
        return X, Y, record_pool(X, Y, 5_000, SEED)

    def setup(self, cache, quality):
        X, Y, pool = cache
        self.data = BinaryData(X, Y)
        self.pool = pool

    def _select(self, quality):
        return select_rules(self.data, None, self.pool, n_rules=150, lam=LAM, quality=quality, tol=None)

    def time_select(self, cache, quality):
        self._select(quality)

    def peakmem_select(self, cache, quality):
        self._select(quality)

    def track_objective(self, cache, quality):
        return self._select(quality).objective

    track_objective.unit = "f"

    def track_covered_share(self, cache, quality):
        """Share of bibtex's label occurrences covered by the 150 rules."""
        return float(self._select(quality).shares.sum())

    track_covered_share.unit = "share"
