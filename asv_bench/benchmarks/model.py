"""Benchmarks of the estimator users import: ``CorsetClassifier`` end to end.

On emotions, medical, enron and bibtex (official splits, binarized as in the
paper's protocol by ``common.binarized_benchmark``), with the default
parameters and ``random_state=0``:

* ``time_fit`` / ``peakmem_fit``: one fit on the training split;
* ``time_predict``: predicting the test split with the fitted model;
* ``track_test_micro_f1`` / ``track_n_rules``: the quality of that model, so
  that speed work cannot silently cost accuracy or conciseness.

Each dataset is fitted once in ``setup_cache`` (the fitted models, their test
micro-F1 and sizes are pickled by asv and shared by every benchmark of the
class); the ``track_`` functions only read them.  The defaults are used as
they are.
"""
from .common import SEED, WholeFitTiming, binarized_benchmark, require_data

DATASETS = ["emotions", "medical", "enron", "bibtex"]


def _micro_f1(Y_true, Y_pred):
    from sklearn.metrics import f1_score

    return float(f1_score(Y_true, Y_pred, average="micro", zero_division=0))


def fit_default(X, Y):
    """``(model, kwargs)``: the default classifier fitted on (X, Y), seed ``SEED``."""
    from corset.model import CorsetClassifier

    kwargs = {"random_state": SEED}
    return CorsetClassifier(**kwargs).fit(X, Y), kwargs


class CorsetClassifierBenchmarks(WholeFitTiming):
    """Fit, predict, peak memory and quality of the default classifier."""

    params = DATASETS
    param_names = ["dataset"]
    # setup_cache fits all four datasets (a few seconds in all); each timed
    # fit is one call, a few samples.
    timeout = 1800

    def setup_cache(self):
        require_data()
        cache = {}
        for name in DATASETS:
            try:
                X_train, Y_train, X_test, Y_test = binarized_benchmark(name)
            except (FileNotFoundError, OSError):
                cache[name] = None  # this dataset's folder is missing: skipped below
                continue
            model, kwargs = fit_default(X_train, Y_train)
            cache[name] = {
                "kwargs": kwargs,
                "model": model,
                "test_micro_f1": _micro_f1(Y_test, model.predict(X_test)),
                "n_rules": len(model.rules_),
            }
        return cache

    def setup(self, cache, dataset):
        entry = cache[dataset]
        if entry is None:
            raise NotImplementedError(f"data for {dataset!r} not found")
        self.entry = entry
        self.X_train, self.Y_train, self.X_test, self.Y_test = binarized_benchmark(dataset)

    def time_fit(self, cache, dataset):
        from corset.model import CorsetClassifier

        CorsetClassifier(**self.entry["kwargs"]).fit(self.X_train, self.Y_train)

    def peakmem_fit(self, cache, dataset):
        from corset.model import CorsetClassifier

        CorsetClassifier(**self.entry["kwargs"]).fit(self.X_train, self.Y_train)

    def time_predict(self, cache, dataset):
        self.entry["model"].predict(self.X_test)

    # Prediction is fast: let asv choose the number of calls per sample.
    time_predict.number = 0
    time_predict.repeat = 0
    time_predict.warmup_time = -1

    def track_test_micro_f1(self, cache, dataset):
        return cache[dataset]["test_micro_f1"]

    track_test_micro_f1.unit = "micro-F1"

    def track_n_rules(self, cache, dataset):
        return cache[dataset]["n_rules"]

    track_n_rules.unit = "rules"
