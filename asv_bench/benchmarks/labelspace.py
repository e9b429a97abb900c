"""Benchmarks of corset.labelspace: co-occurrence graphs, probabilistic cliques, PRETTI.

Section enhanced_sampling of the paper: the interpretable space S⁻ of the
labels (and of the features, for CORSET-SURS heads) and, for every record,
the sets of S⁻ it contains.  Real data: the official training splits of
medical, enron, corel5k and bibtex through ``common.binary_benchmark``.

The ``track_`` functions report the sizes (edges, |S⁻|, contained pairs), so
a speed-up that changes the result shows up.  Cliques use α = 0.8 and the
symmetrised edge probability of the authors' code unless a parameter says
otherwise; where more than ``MAX_SETS`` sets exist (medical's and enron's
feature graphs) the enumeration is truncated, which is itself what is timed.
"""
import warnings

from corset.labelspace import (CliqueOverflowError, CliqueTruncationWarning, contained_sets, feature_graph,
                               label_graph, probabilistic_cliques)
from corset.labelspace._pretti import _naive_contained_sets

from .common import binary_benchmark

DATASETS = ["medical", "enron", "corel5k", "bibtex"]
ITEMS = ["labels", "features"]
MAX_SETS = 1_000_000


def _graph(data, items, **kwargs):
    build = label_graph if items == "labels" else feature_graph
    return build(data, **kwargs)


def _family(graph, alpha=0.8, max_sets=MAX_SETS):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CliqueTruncationWarning)
        return probabilistic_cliques(graph, alpha, max_sets=max_sets, on_overflow="truncate")


class CooccurrenceGraphs:
    """Building the co-occurrence graph from the inverted index (compiled)."""

    params = (DATASETS, ITEMS, ["symmetrised", "directed"])
    param_names = ["dataset", "items", "edge_probability"]
    timeout = 120

    def setup(self, dataset, items, edge_probability):
        self.data = binary_benchmark(dataset)

    def time_graph(self, dataset, items, edge_probability):
        _graph(self.data, items, edge_probability=edge_probability)

    def time_graph_pruned(self, dataset, items, edge_probability):
        _graph(self.data, items, edge_probability=edge_probability, min_probability=0.8)

    def peakmem_graph(self, dataset, items, edge_probability):
        _graph(self.data, items, edge_probability=edge_probability)

    def track_n_edges(self, dataset, items, edge_probability):
        return _graph(self.data, items, edge_probability=edge_probability).n_edges


class ProbabilisticCliques:
    """Depth-first enumeration of S⁻ (α-probable cliques), capped at MAX_SETS sets."""

    params = (DATASETS, ITEMS, [0.8, 0.95])
    param_names = ["dataset", "items", "alpha"]
    timeout = 300

    def setup(self, dataset, items, alpha):
        self.graph = _graph(binary_benchmark(dataset), items, min_probability=alpha)

    def time_cliques(self, dataset, items, alpha):
        _family(self.graph, alpha)

    def peakmem_cliques(self, dataset, items, alpha):
        _family(self.graph, alpha)

    def track_n_sets(self, dataset, items, alpha):
        return len(_family(self.graph, alpha))

    def track_truncated(self, dataset, items, alpha):
        return int(_family(self.graph, alpha).truncated)

    track_n_sets.unit = "sets"
    track_truncated.unit = "bool"


class CliqueOverflow:
    """A graph too dense for the caps: how long until the error (default caps)."""

    params = [["medical", "enron"]]
    param_names = ["dataset"]

    def setup(self, dataset):
        self.graph = feature_graph(binary_benchmark(dataset), min_probability=0.5)

    def time_overflow_error(self, dataset):
        try:
            probabilistic_cliques(self.graph, 0.5)
        except CliqueOverflowError:
            pass
        else:  # pragma: no cover - the benchmark's premise
            raise RuntimeError("expected an overflow")


class Pretti:
    """PRETTI: for every training record, the sets of S⁻ it contains."""

    params = (DATASETS, ITEMS)
    param_names = ["dataset", "items"]
    timeout = 300

    def setup(self, dataset, items):
        self.data = binary_benchmark(dataset)
        self.family = _family(_graph(self.data, items, min_probability=0.8))

    def time_contained_sets(self, dataset, items):
        contained_sets(self.family, self.data, items=items)

    def peakmem_contained_sets(self, dataset, items):
        contained_sets(self.family, self.data, items=items)

    def track_n_pairs(self, dataset, items):
        return int(contained_sets(self.family, self.data, items=items).ids.size)

    track_n_pairs.unit = "pairs"


class PrettiVsNaive:
    """PRETTI against checking every (record, set) pair.

    The family is the feature space S⁻_F at α = 0.8 (capped at MAX_SETS sets,
    prefix-closed as the enumeration leaves it); the records are the training
    records.  ``time_naive`` is the all-pairs check compiled (a marker array
    per record, early exit at the first missing item); ``time_naive_python``
    is the same check in pure Python (``set.issubset``) on the first
    ``N_PYTHON_RECORDS`` records only, as it would take minutes on all of
    them: multiply by n_records / N_PYTHON_RECORDS to extrapolate.
    """

    params = [["medical", "enron", "bibtex"]]
    param_names = ["dataset"]
    timeout = 600
    N_PYTHON_RECORDS = 5

    def setup(self, dataset):
        self.data = binary_benchmark(dataset)
        self.family = _family(feature_graph(self.data, min_probability=0.8))
        self.python_sets = [set(S.tolist()) for S in self.family]
        self.python_records = [set(self.data.record_features[r].tolist())
                               for r in range(min(self.N_PYTHON_RECORDS, self.data.n_records))]

    def time_pretti(self, dataset):
        contained_sets(self.family, self.data, items="features")

    def time_naive(self, dataset):
        _naive_contained_sets(self.family, self.data, items="features")

    def time_naive_python(self, dataset):
        for R in self.python_records:
            [i for i, S in enumerate(self.python_sets) if S.issubset(R)]
