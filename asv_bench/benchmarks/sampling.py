"""Benchmarks of the exact samplers: record draws, tails (Algorithm 2), heads (Algorithm 3), pools.

Rates: ``time_tails`` draws ``N_TAILS`` tails, ``time_heads`` draws
``N_HEADS_PER_TAIL`` heads for each of ``N_HEAD_TAILS`` tails (themselves
drawn by the tail sampler), so tails/s = N_TAILS / time and heads/s =
N_HEAD_TAILS * N_HEADS_PER_TAIL / time.  ``track_proposals_per_head`` is the
measured mean number of proposals examined per head (an estimate of Z̄/Z).
"""
import numpy as np

from corset._ext import _weighted
from corset.sampling import CandidateGenerator, HeadSampler, TailSampler

from .common import SEED, binary_benchmark

N_TAILS = 10_000
N_HEAD_TAILS = 20
N_HEADS_PER_TAIL = 50


class WeightedDraw:
    """Static (cumulative + binary search, alias) and dynamic (sum tree) record draws.

    The benchmark behind the choice of the static sampler (docs/sampling.rst).
    """

    params = ([100, 5_000, 100_000], ["cumulative", "alias", "sumtree"])
    param_names = ["n_records", "sampler"]

    def setup(self, n_records, sampler):
        rng = np.random.RandomState(SEED)
        self.weights = rng.exponential(size=n_records) ** 3
        self.build = {"cumulative": _weighted.cumulative, "alias": _weighted.alias_table,
                      "sumtree": _weighted.sumtree}[sampler]
        self.table = self.build(self.weights)
        self.leaves = rng.randint(n_records, size=1_000).astype(np.int32)
        self.new_weights = rng.exponential(size=1_000)

    def time_build(self, n_records, sampler):
        self.build(self.weights)

    def time_draw_100k(self, n_records, sampler):
        if self.build is _weighted.cumulative:
            _weighted.draw_cumulative(self.table[0], self.table[1], 100_000, SEED)
        elif self.build is _weighted.alias_table:
            _weighted.draw_alias(self.table[0], self.table[1], 100_000, SEED)
        else:
            _weighted.draw_sumtree(self.table, 100_000, SEED)

    def time_update_1k(self, n_records, sampler):
        # Only the sum tree updates in place; the static samplers rebuild.
        if self.build is _weighted.sumtree:
            _weighted.sumtree_update(self.table, self.leaves, self.new_weights)
        else:
            self.build(self.weights)


class Tails:
    """Tail sampling by uncovered area: draws, and the weight update after a selected rule."""

    params = [["bibtex", "corel5k"]]
    param_names = ["dataset"]
    timeout = 300

    def setup(self, dataset):
        self.data = binary_benchmark(dataset)
        self.sampler = TailSampler(self.data)
        tails = self.sampler.sample(50, random_state=SEED)
        self.rules = [((), t) for t in tails]

    def time_tails(self, dataset):
        self.sampler.sample(N_TAILS, random_state=SEED)

    def time_build(self, dataset):
        TailSampler(self.data)

    def time_add_50_rules(self, dataset):
        TailSampler(self.data).add_rules(self.rules)


class Heads:
    """Head sampling by CFTP with the paper's proposal, for tails drawn by Algorithm 2."""

    params = (["bibtex", "corel5k"], ["cftp", "rejection"], [1, 2])
    param_names = ["dataset", "method", "min_head_length"]
    timeout = 600

    def setup(self, dataset, method, min_head_length):
        self.data = binary_benchmark(dataset)
        tails = TailSampler(self.data).sample(4 * N_HEAD_TAILS, random_state=SEED)
        self.sampler = HeadSampler(self.data, method=method, min_head_length=min_head_length)
        self.tails = []
        for tail in tails:
            try:
                self.sampler.pair_sampler(tail)     # warm the per-tail proposal cache
            except ValueError:                      # no negative record / no head of this length
                continue
            self.tails.append(tail)
            if len(self.tails) == N_HEAD_TAILS:
                break

    def time_heads(self, dataset, method, min_head_length):
        for i, tail in enumerate(self.tails):
            self.sampler.sample(tail, N_HEADS_PER_TAIL, random_state=i)

    def time_build_proposals(self, dataset, method, min_head_length):
        sampler = HeadSampler(self.data, method=method, min_head_length=min_head_length)
        for tail in self.tails:
            sampler.pair_sampler(tail)

    def track_proposals_per_head(self, dataset, method, min_head_length):
        trials = []
        for i, tail in enumerate(self.tails):
            self.sampler.sample(tail, N_HEADS_PER_TAIL, random_state=i)
            trials.append(self.sampler.last_stats_["n_trials"])
        return float(np.mean(np.concatenate(trials)))


class CandidatePool:
    """One call of GenCandRules: 100 tails x 10 heads, the paper's pool shape in its experiments."""

    params = [["bibtex", "corel5k"]]
    param_names = ["dataset"]
    timeout = 600

    def setup(self, dataset):
        self.data = binary_benchmark(dataset)

    def time_pool(self, dataset):
        CandidateGenerator(self.data, n_tails=100, n_heads_per_tail=10, random_state=SEED)([])

    def peakmem_pool(self, dataset):
        CandidateGenerator(self.data, n_tails=100, n_heads_per_tail=10, random_state=SEED)([])
