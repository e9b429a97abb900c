"""End-to-end benchmarks from raw features: the estimator as a new user runs it.

``load_benchmark(..., as_frame=True)`` gives raw features (numeric columns,
nominal ones as Categorical, sparse files as sparse DataFrames); the default
``CorsetClassifier`` binarizes them itself.  On emotions (numeric), birds
(numeric and nominal), medical and enron (sparse, binary):

* ``time_fit_raw`` / ``peakmem_fit_raw``: one fit on the training split,
  binarization included;
* ``track_test_micro_f1_raw`` / ``track_n_rules_raw``: test micro-F1 and the
  number of rules of that model, so that speed work cannot silently cost
  accuracy or conciseness.
"""
from .common import SEED, WholeFitTiming, require_data

DATASETS = ["emotions", "birds", "medical", "enron"]


def _load(name):
    from corset.datasets import load_benchmark

    home = require_data()
    return (load_benchmark(name, "train", data_home=home, as_frame=True),
            load_benchmark(name, "test", data_home=home, as_frame=True))


class RawDataBenchmarks(WholeFitTiming):
    """Fit from raw features, its peak memory, and the quality it reaches."""

    params = DATASETS
    param_names = ["dataset"]
    timeout = 1800

    def setup_cache(self):
        from sklearn.metrics import f1_score

        from corset.model import CorsetClassifier

        require_data()
        cache = {}
        for name in DATASETS:
            try:
                train, test = _load(name)
            except (FileNotFoundError, OSError):
                cache[name] = None
                continue
            model = CorsetClassifier(random_state=SEED).fit(train.X, train.Y)
            cache[name] = {"f1": float(f1_score(test.Y, model.predict(test.X), average="micro", zero_division=0)),
                           "n_rules": len(model.rules_)}
        return cache

    def setup(self, cache, name):
        if cache.get(name) is None:
            raise NotImplementedError(f"{name}: data not found")
        self.train, _ = _load(name)

    def time_fit_raw(self, cache, name):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED).fit(self.train.X, self.train.Y)

    def peakmem_fit_raw(self, cache, name):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED).fit(self.train.X, self.train.Y)

    def track_test_micro_f1_raw(self, cache, name):
        return cache[name]["f1"]

    track_test_micro_f1_raw.unit = "micro-F1"

    def track_n_rules_raw(self, cache, name):
        return cache[name]["n_rules"]

    track_n_rules_raw.unit = "rules"
