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

``WideBinary`` is binary word presence with many more records, the shape of
tmc2007 (28,596 reports x 49,060 words, 22 labels): 20,000 records x 49,060
words, about 60 words per record drawn from its topics, 22 labels
(``_topic_data``).  A head search's root there holds thousands of features
(every word of its tail's positive records) and a search a few dozen
candidates, seldom among the root's best:

* ``time_fit`` / ``peakmem_fit``: the default classifier, end to end;
* ``track_micro_f1``: its micro-F1 on 5,000 further records of the same
  topics.
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


TOPIC_RECORDS, TOPIC_TEST, TOPIC_WORDS, TOPIC_LABELS, N_TOPICS = 20000, 5000, 49060, 22, 50


def _topic_data():
    """Binary words and labels from latent topics (a throwaway model of a text collection): each
    record mixes one to three of ``N_TOPICS`` topics; its words (60 on average) are drawn from the
    mean of their word distributions (sparse Dirichlet draws), its labels (two on average) from
    the mean of their label distributions, half topic-specific, half a Zipf law over all labels."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.RandomState(SEED)
    n = TOPIC_RECORDS + TOPIC_TEST
    topic_words = rng.dirichlet(np.full(TOPIC_WORDS, 0.05), size=N_TOPICS)
    zipf = 1.0 / np.arange(1, TOPIC_LABELS + 1) ** 0.8
    topic_labels = 0.5 * rng.dirichlet(np.full(TOPIC_LABELS, 0.02), size=N_TOPICS) + 0.5 * zipf / zipf.sum()
    rows, words, label_rows, labels = [], [], [], []
    for i in range(n):
        z = rng.choice(N_TOPICS, size=rng.randint(1, 4), replace=False)
        w = np.unique(rng.choice(TOPIC_WORDS, size=rng.poisson(60) + 1, p=topic_words[z].mean(axis=0)))
        k = np.unique(rng.choice(TOPIC_LABELS, size=max(1, rng.poisson(2)), p=topic_labels[z].mean(axis=0)))
        rows.append(np.full(w.size, i))
        words.append(w)
        label_rows.append(np.full(k.size, i))
        labels.append(k)
    rows, words = np.concatenate(rows), np.concatenate(words)
    X = sp.csr_array((np.ones(rows.size, dtype=np.uint8), (rows, words)), shape=(n, TOPIC_WORDS))
    label_rows, labels = np.concatenate(label_rows), np.concatenate(labels)
    Y = sp.csr_array((np.ones(labels.size, dtype=np.uint8), (label_rows, labels)), shape=(n, TOPIC_LABELS)).toarray()
    return X[:TOPIC_RECORDS], Y[:TOPIC_RECORDS], X[TOPIC_RECORDS:], Y[TOPIC_RECORDS:]


class WideBinary(WholeFitTiming):
    """The default fit on binary word presence, tmc2007's shape."""

    timeout = 600

    def setup_cache(self):
        return _topic_data()

    def setup(self, data):
        self.X, self.Y, self.X_test, self.Y_test = data

    def _fit(self):
        from corset.model import CorsetClassifier

        return CorsetClassifier(random_state=SEED).fit(self.X, self.Y)

    def time_fit(self, data):
        self._fit()

    def peakmem_fit(self, data):
        self._fit()

    def track_micro_f1(self, data):
        from sklearn.metrics import f1_score

        return f1_score(self.Y_test, self._fit().predict(self.X_test), average="micro")

    track_micro_f1.unit = "micro-F1"
