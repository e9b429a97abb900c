"""Wide sparse data: text-like counts over tens of thousands of columns.

Word counts or tf-idf values of a text collection (rcv1, EUR-Lex) have tens
of thousands of columns and a few dozen values per row.  Synthetic, so that
it runs without the benchmark files: 2,000 rows x 47,236 columns (rcv1's
vocabulary), about 75 values per row, 101 labels, each label on about 3%
of the rows (``_data``).

* ``time_binarize`` / ``peakmem_binarize``: ``PercentileBinarizer`` with
  presence literals and five cuts of the non-zero values (what the
  estimator's cross-validation tries on sparse numeric X), fit and transform;
* ``time_fit_p90`` / ``peakmem_fit_p90``: the default classifier with the
  binarizer fixed (presence and the 90th percentile of the non-zero values,
  86,354 items): the greedy selection on wide data, where the head searches'
  root nodes used to hold every item;
* ``track_n_items_p90``: that binarization's number of items;
* ``time_fit_auto`` / ``peakmem_fit_auto``: the default classifier as a
  user runs it, ``binarizer="auto"``: both binarizations fitted on all of
  X, raced on folds (each fold fit binarizes its training part again), the
  winner taken over by the final fit.  The five-cut binarization has
  243,000 items here.
"""
from .common import SEED, WholeFitTiming

N_RECORDS, N_FEATURES, N_LABELS = 2000, 47236, 101


def _data():
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.RandomState(SEED)
    X = sp.random(N_RECORDS, N_FEATURES, density=0.0016, random_state=rng, format="csr",
                  data_rvs=lambda k: rng.uniform(0.01, 0.3, k))
    W = sp.random(N_FEATURES, N_LABELS, density=0.002, random_state=rng, format="csr")
    scores = (X @ W).toarray()
    Y = (scores > np.quantile(scores, 1 - 3.0 / N_LABELS, axis=0)).astype(np.uint8)
    return sp.csr_array(X), Y


class WideSparse(WholeFitTiming):
    """Binarization and fit on text-like sparse data."""

    timeout = 600

    def setup_cache(self):
        return _data()

    def setup(self, data):
        self.X, self.Y = data

    def _binarizer(self, percentile):
        from corset.preprocessing import PercentileBinarizer

        return PercentileBinarizer(percentile=percentile, zeros="presence")

    def time_binarize(self, data):
        self._binarizer((10, 30, 50, 70, 90)).fit_transform(self.X)

    def peakmem_binarize(self, data):
        self._binarizer((10, 30, 50, 70, 90)).fit_transform(self.X)

    def time_fit_p90(self, data):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED, binarizer=self._binarizer(90)).fit(self.X, self.Y)

    def peakmem_fit_p90(self, data):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED, binarizer=self._binarizer(90)).fit(self.X, self.Y)

    def track_n_items_p90(self, data):
        return self._binarizer(90).fit_transform(self.X).shape[1]

    track_n_items_p90.unit = "items"

    def time_fit_auto(self, data):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED).fit(self.X, self.Y)

    def peakmem_fit_auto(self, data):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED).fit(self.X, self.Y)
