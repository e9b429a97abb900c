"""Benchmarks of the data sets: loading bibtex (liac-arff parsing) and the synthetic generator at mediamill size.

The data folder is ``$CORSET_DATA``, else ``../shared/data`` beside the
repository (``common.data_home``, an absolute path derived from this file,
since asv runs the benchmarks from its own checkout); when it is absent the
loading benchmarks raise ``NotImplementedError``, which asv reports as skipped.
"""
from corset.datasets import load_benchmark, make_rule_data

from .common import SEED, require_data


class LoadBibtex:
    """``load_benchmark("bibtex", "train")``: 4,880 sparse records, 1,836 features, 159 labels."""

    timeout = 180

    def setup(self):
        self.data_home = require_data()

    def time_load_bibtex_train(self):
        load_benchmark("bibtex", "train", data_home=self.data_home)

    def peakmem_load_bibtex_train(self):
        load_benchmark("bibtex", "train", data_home=self.data_home)


class MakeRuleDataMediamill:
    """``make_rule_data`` at mediamill's size: 43,907 records, 120 features, 101 labels, 33 rules."""

    params = (["uniform", "skewed"], [0.01, 0.1])
    param_names = ["support", "noise"]

    def time_make_rule_data(self, support, noise):
        make_rule_data(n_records=43_907, n_features=120, n_labels=101, support=support, noise=noise,
                       random_state=SEED)

    def peakmem_make_rule_data(self, support, noise):
        make_rule_data(n_records=43_907, n_features=120, n_labels=101, support=support, noise=noise,
                       random_state=SEED)

    def track_label_cardinality(self, support, noise):
        data = make_rule_data(n_records=43_907, n_features=120, n_labels=101, support=support, noise=noise,
                              random_state=SEED)
        return data.Y.nnz / data.Y.shape[0]

    track_label_cardinality.unit = "labels per record"
