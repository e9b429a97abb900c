"""Benchmarks of the intersection kernels and of building the data layer."""
import numpy as np

from corset import BinaryData
from corset._ext import _intersect

from .common import SEED, binarized_benchmark, binary_benchmark


class Intersect:
    """Pairwise intersection of sorted id lists: merge vs galloping regimes."""

    params = ([1_000, 100_000], [1, 16, 256])
    param_names = ["n_long", "ratio"]

    def setup(self, n_long, ratio):
        rng = np.random.RandomState(SEED)
        universe = 4 * n_long
        self.b = np.sort(rng.choice(universe, n_long, replace=False)).astype(np.int32)
        n_short = max(1, n_long // ratio)
        self.a = np.sort(rng.choice(universe, n_short, replace=False)).astype(np.int32)

    def time_intersect_count(self, n_long, ratio):
        _intersect.intersect_count(self.a, self.b)

    def time_intersect(self, n_long, ratio):
        _intersect.intersect(self.a, self.b)


class HeadSupport:
    """k-way support of random heads drawn from bibtex's records."""

    params = [[1, 2, 4]]
    param_names = ["head_length"]

    def setup(self, head_length):
        self.data = binary_benchmark("bibtex")
        rng = np.random.RandomState(SEED)
        wide = np.flatnonzero(self.data.record_n_features >= head_length)
        self.heads = []
        for r in rng.choice(wide, 200):
            feats = self.data.record_features[r]
            self.heads.append(np.sort(rng.choice(feats, head_length, replace=False)).astype(np.int32))
        idx = self.data.feature_records
        self.indptr, self.ids = idx.indptr, idx.ids

    def time_support_200_heads(self, head_length):
        n = self.data.n_records
        for h in self.heads:
            _intersect.support(self.indptr, self.ids, h, n)

    def time_support_count_200_heads(self, head_length):
        n = self.data.n_records
        for h in self.heads:
            _intersect.support_count(self.indptr, self.ids, h, n)


class BuildDataLayer:
    """Building the CSR + inverted index of a benchmark's training split."""

    params = [["bibtex", "corel5k", "enron"]]
    param_names = ["dataset"]
    timeout = 120

    def setup(self, dataset):
        self.X, self.Y, _, _ = binarized_benchmark(dataset)

    def time_build(self, dataset):
        BinaryData(self.X, self.Y)

    def peakmem_build(self, dataset):
        BinaryData(self.X, self.Y)
