"""CORSET-GH (Algorithm 5): heads per second and the diversity of its heads per seed distribution."""
import numpy as np

from corset.sampling import TailSampler
from corset.sampling._head_gh import GreedyHeadSearch

from .common import SEED, binary_benchmark


class GreedyHeads:
    """Heads per second: one pool of 50 tails (Algorithm 2) × 10 heads per tail.

    ``memo``: through the per-tail search trees of ``corset._ext._gh_memo``
    (the default) or the plain kernel.  The trees persist across asv's
    repeated calls, as they do across the steps of a fit; ``setup`` runs the
    same tails once with other seed pairs, so that even a single timed call
    (``--quick``) measures a fit's steady state rather than the building of
    the trees from nothing.
    Heads of at most 3 features, as in the estimator (the memo is used only
    for bounded heads).
    """

    params = (["bibtex", "corel5k", "enron"], ["paper", "uniform", "uncovered", "deterministic"], [True, False])
    param_names = ["dataset", "seed", "memo"]
    timeout = 300

    def setup(self, dataset, seed, memo):
        self.data = binary_benchmark(dataset)
        self.tails = TailSampler(self.data).sample(50, SEED)
        self.search = GreedyHeadSearch(self.data, seed=seed, memo=memo, max_head_length=3)
        assert (self.search._memo is not None) == memo
        # Warm the per-tail caches and the trees with other seed pairs of the same
        # tails (as earlier steps of a fit would): timed calls still meet new pairs.
        self.search.sample_many(self.tails, 10, SEED + 1)

    def time_pool_50_tails_x10(self, dataset, seed, memo):
        self.search.sample_many(self.tails, 10, SEED)

    def track_heads_per_second(self, dataset, seed, memo):
        import time

        start = time.perf_counter()
        heads, _ = self.search.sample_many(self.tails, 10, SEED)
        elapsed = time.perf_counter() - start
        return sum(len(h) for h in heads) / elapsed

    track_heads_per_second.unit = "heads/s"


class DistinctHeads:
    """Distinct heads in 1,000 draws for the same single-label tail (note 15: the paper's seed pair is nearly fixed)."""

    params = (["bibtex", "corel5k"], ["paper", "uniform", "uncovered", "deterministic"], ["frequent", "median"])
    param_names = ["dataset", "seed", "tail"]
    timeout = 300

    def setup(self, dataset, seed, tail):
        data = binary_benchmark(dataset)
        # A single-label tail: the most frequent label with negatives, or the
        # label of median frequency among those occurring at least 10 times.
        counts = np.asarray(data.label_counts)
        if tail == "frequent":
            label = int(np.argmax(np.where(counts < data.n_records, counts, -1)))
        else:
            ok = np.flatnonzero(counts >= 10)
            label = int(ok[np.argsort(counts[ok], kind="stable")[ok.size // 2]])
        self.tail = (label,)
        self.search = GreedyHeadSearch(data, seed=seed)

    def track_distinct_heads_in_1000(self, dataset, seed, tail):
        heads, _ = self.search.sample_many([self.tail], 1000, SEED)
        return len(set(heads[0]))

    track_distinct_heads_in_1000.unit = "heads"


class NegatedLiterals:
    """CORSET-GH and rule supports on emotions' features with their negated literals (143 literals).

    The data of a default fit on emotions (``BinaryData.with_negations``):
    every record holds half the literals, so the trees' nodes are counted by
    popcounts of per-feature record bitsets where that is cheaper, and rule
    supports come from ANDed bitsets.  ``time_gh_pool_fresh``: one pool of 50
    tails × 10 heads on a fresh memo (the node builds of a fit's first
    step); ``time_rule_supports``: D[R] of 5,000 rules of up to 3 literals,
    with the bitsets (``bits=True``) or by merging id lists.
    """

    params = [True, False]
    param_names = ["bits"]
    timeout = 300

    def setup(self, bits):
        from corset import BinaryData
        from corset._ext import _selection
        from corset.model import CorsetClassifier
        from corset.selection import check_rules

        from .common import binarized_benchmark

        X, Y, _, _ = binarized_benchmark("emotions")
        base = BinaryData(X, Y)
        negated = CorsetClassifier._negated_features(base.X, True)   # as a fit chooses them
        self.data = data = BinaryData.with_negations(base.X, base.Y, negated)
        self.tails = TailSampler(data).sample(50, SEED)
        rng = np.random.RandomState(SEED)
        rules = {(tuple(sorted(rng.choice(data.n_features, size=rng.randint(1, 4), replace=False).tolist())),
                  (int(rng.randint(data.n_labels)),)) for _ in range(5000)}
        self.arrays = check_rules(sorted(rules), data.n_features, data.n_labels).arrays
        f, lab = data.feature_records, data.label_records
        self.index = (f.indptr, f.ids, lab.indptr, lab.ids, data.n_records)
        self.bits = data.column_bitsets() if bits else ()
        self.rule_supports = _selection.rule_supports

    def time_gh_pool_fresh(self, bits):
        search = GreedyHeadSearch(self.data, max_head_length=3)
        if not bits:
            search._column_bits = (None, 0)
        search.sample_many(self.tails, 10, SEED)

    def time_rule_supports(self, bits):
        self.rule_supports(*self.index, *self.arrays, *self.bits)


class SparseNegatedLiterals:
    """Negated literals of sparse data: building them, and the plain kernel's unbounded searches.

    Synthetic (runs without the data files): 2,000 records × 1,000 features
    at 2% density with one label, every feature negated, so that a record
    holds about 980 negated literals and 20 features, and a label
    unrelated to them.
    ``time_``/``peakmem_with_negations``: ``BinaryData.with_negations``
    (the literals' rows and inverted index); ``time_unbounded_pool``: one
    pool of 10 tails × 50 heads with no maximum head length (the plain
    kernel, which counts a negated literal as its feature's complement).
    """

    timeout = 300

    def setup(self):
        import scipy.sparse as sp

        from corset import BinaryData

        rng = np.random.RandomState(SEED)
        self.X = sp.random(2000, 1000, density=0.02, format="csr", random_state=rng, dtype=np.float64)
        self.X.data[:] = 1
        self.Y = rng.rand(2000, 1) < 0.3   # unrelated to X: searches go deep before a head is pure
        self.negated = np.arange(1000)
        self.data = BinaryData.with_negations(self.X, self.Y, self.negated)
        self.tails = [(0,)] * 10

    def time_with_negations(self):
        from corset import BinaryData

        BinaryData.with_negations(self.X, self.Y, self.negated)

    def peakmem_with_negations(self):
        from corset import BinaryData

        BinaryData.with_negations(self.X, self.Y, self.negated)

    def time_unbounded_pool(self):
        GreedyHeadSearch(self.data, seed="uniform", max_head_length=None).sample_many(self.tails, 50, SEED)
