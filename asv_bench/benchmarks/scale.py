"""The scale targets: the default classifier on 10^6 synthetic records.

``make_rule_data(n_records=10**6, n_features=120, n_labels=101,
random_state=0)`` (mediamill's shape, about 4.2 million feature and 4.0
million label occurrences), fitted by ``CorsetClassifier(random_state=0)``:

* ``time_fit`` / ``peakmem_fit``: one fit (target: at most 10 s and 1 GB);
* ``time_predict`` / ``peakmem_predict``: ``predict`` on the 10^6 training
  records with the model fitted in ``setup_cache`` (target: at least 10^6
  records per second);
* ``track_n_rules``: that model's size, and ``track_heldout_micro_f1``: its
  micro-F1 on 10^5 other records of the same generating rules
  (``make_rule_data`` draws the rules from the seed before the records),
  so that speed work cannot silently change what is learnt or lower its
  accuracy.

``SyntheticDenseNumeric``: the same on dense continuous features, where the
five cuts and their negated literals give each record hundreds of literals,
so that the binary data layer is most of a fit's memory: 31,000 training
records of 120 features and 101 labels (mediamill's training size), drawn
from 12 latent factors (``_dense_numeric``), with the same benchmarks
(predict on the training records; held-out micro-F1 on 13,277 other records).

``setup`` generates the data (a few seconds, not timed).  asv's ``peakmem_``
is the peak resident set of the benchmark's process, so it includes the data
(about 420 MB with the imports, see ``asv_bench/scale.py``, which prints the
data's share apart) and, for ``peakmem_predict``, the fitted model.
"""
from .common import SEED, WholeFitTiming

N_RECORDS = 10**6


N_HELD_OUT = 10**5


def _data(n_records=N_RECORDS):
    from corset.datasets import make_rule_data

    data = make_rule_data(n_records=n_records, n_features=120, n_labels=101, random_state=SEED)
    return data.X, data.Y


class SyntheticMillion(WholeFitTiming):
    """Fit and predict of the default classifier on 10^6 synthetic records."""

    # Generous: a fit took over 30 s before the scale work, and a shared machine is slower.
    timeout = 1800
    repeat = (1, 3, 120.0)   # up to three samples: each is a fit of 10^6 records

    def setup_cache(self):
        from corset.model import CorsetClassifier

        from sklearn.metrics import f1_score

        X, Y = _data()
        model = CorsetClassifier(random_state=SEED).fit(X, Y)
        del X, Y
        X_held_out, Y_held_out = _data(N_HELD_OUT)
        f1 = f1_score(Y_held_out, model.predict(X_held_out), average="micro")
        return {"model": model, "n_rules": len(model.rules_), "heldout_micro_f1": float(f1)}

    def setup(self, cache):
        self.X, self.Y = _data()

    def time_fit(self, cache):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED).fit(self.X, self.Y)

    def peakmem_fit(self, cache):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED).fit(self.X, self.Y)

    def time_predict(self, cache):
        cache["model"].predict(self.X)

    def peakmem_predict(self, cache):
        cache["model"].predict(self.X)

    def track_n_rules(self, cache):
        return cache["n_rules"]

    track_n_rules.unit = "rules"

    def track_heldout_micro_f1(self, cache):
        return cache["heldout_micro_f1"]

    track_heldout_micro_f1.unit = "micro-F1"


N_DENSE_TRAIN, N_DENSE_HELD_OUT = 31_000, 13_277


def _dense_numeric(n_records, seed=SEED):
    """Dense continuous X (120 features from 12 latent factors plus noise) and 101 labels of
    decreasing frequency (30% of the records down to 1 in 800), each a noisy threshold of the factors."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_features, n_labels, n_factors = 120, 101, 12
    mixing, weights = rng.normal(size=(n_factors, n_features)), rng.normal(size=(n_factors, n_labels))
    Z = rng.normal(size=(n_records, n_factors))
    X = Z @ mixing + 0.5 * rng.normal(size=(n_records, n_features))
    scores = Z @ weights + rng.normal(size=(n_records, n_labels))
    share = 0.3 * np.arange(1, n_labels + 1) ** -1.2
    Y = (scores > np.quantile(scores, 1 - share, axis=0).diagonal()).astype(np.uint8)
    return X, Y


class SyntheticDenseNumeric(SyntheticMillion):
    """Fit and predict of the default classifier on dense continuous features (five cuts, negated
    literals); the benchmarks and their settings are SyntheticMillion's."""

    def setup_cache(self):
        from corset.model import CorsetClassifier

        from sklearn.metrics import f1_score

        X, Y = _dense_numeric(N_DENSE_TRAIN + N_DENSE_HELD_OUT)
        model = CorsetClassifier(random_state=SEED).fit(X[:N_DENSE_TRAIN], Y[:N_DENSE_TRAIN])
        f1 = f1_score(Y[N_DENSE_TRAIN:], model.predict(X[N_DENSE_TRAIN:]), average="micro")
        return {"model": model, "n_rules": len(model.rules_), "heldout_micro_f1": float(f1)}

    def setup(self, cache):
        X, Y = _dense_numeric(N_DENSE_TRAIN + N_DENSE_HELD_OUT)
        self.X, self.Y = X[:N_DENSE_TRAIN].copy(), Y[:N_DENSE_TRAIN].copy()
