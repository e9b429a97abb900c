"""The data of the experiments: the paper's protocol on the benchmark sets, and synthetic sets.

A :class:`Split` holds one data set's training and test parts three ways:
raw (what a user holds: numeric and nominal columns), binarized by the
paper's protocol (numeric features above their training 90th percentile,
strict ">", nominal features one-hot), and numeric (raw numbers, nominal
features one-hot) for learners that bin numbers themselves, such as BOOMER.
"""
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

VALIDATION_SHARE = 0.25
"""Share of the training records held out to tune hyper-parameters (the rest trains each trial)."""
VALIDATION_SEED = 0
"""The validation split is the same for every repetition: tuning runs once per data set and method."""


@dataclass
class Split:
    """One data set's training and test parts (see the module docstring)."""

    name: str
    X_train: object              # binarized, CSR uint8
    X_test: object
    Y_train: np.ndarray          # dense uint8
    Y_test: np.ndarray
    X_train_raw: object = None   # DataFrame (or the binarized matrix for synthetic data)
    X_test_raw: object = None
    X_train_numeric: object = None   # raw numbers, nominal one-hot (for BOOMER on raw features)
    X_test_numeric: object = None
    feature_names: list = field(default_factory=list)
    label_names: list = field(default_factory=list)

    def validation(self):
        """(X_fit, Y_fit, X_val, Y_val) of the binarized training part: VALIDATION_SHARE held out, seeded."""
        n = self.X_train.shape[0]
        order = np.random.RandomState(VALIDATION_SEED).permutation(n)
        n_val = max(1, int(round(VALIDATION_SHARE * n)))
        val, fit = np.sort(order[:n_val]), np.sort(order[n_val:])
        return self.X_train[fit], self.Y_train[fit], self.X_train[val], self.Y_train[val]


def _one_hot_nominal(data):
    """A loader's X with nominal columns other than {0, 1} one-hot encoded (codes -> indicator columns)."""
    X = data.X
    wide = [j for j, kind in enumerate(data.feature_types)
            if kind == "nominal" and sorted(str(v) for v in data.categories.get(data.feature_names[j], ["0", "1"])) != ["0", "1"]]
    if not wide:
        return sp.csr_matrix(X, dtype=np.float32) if sp.issparse(X) else np.asarray(X, dtype=np.float32)
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    keep = [j for j in range(dense.shape[1]) if j not in wide]
    parts = [dense[:, keep]]
    for j in wide:
        n_values = len(data.categories[data.feature_names[j]])
        codes = dense[:, j]
        parts.append(np.stack([(codes == v) for v in range(n_values)], axis=1).astype(np.float64))
    return np.hstack(parts).astype(np.float32)


@lru_cache(maxsize=4)
def load_split(name, data_home=None):
    """The benchmark ``name`` on its official split (CAL500: the fixed split of its folder).

    Binarized with :class:`corset.preprocessing.PercentileBinarizer` fitted on
    the training part (90th percentile, strict ">", nominal one-hot), the
    paper's protocol.  Cached per process.
    """
    from sklearn.utils import Bunch

    from ..datasets import NominalCodesWarning, load_benchmark
    from ..datasets._arff import as_frames
    from ..preprocessing import PercentileBinarizer

    with warnings.catch_warnings():
        # The value indices of nominal features are turned into frames (and one-hot items) below.
        warnings.simplefilter("ignore", NominalCodesWarning)
        parts = {subset: load_benchmark(name, subset, data_home) for subset in ("train", "test")}
    frames = {subset: as_frames(Bunch(**parts[subset])) for subset in parts}
    binarizer = PercentileBinarizer().fit(frames["train"].X)
    X_train = sp.csr_matrix(binarizer.transform(frames["train"].X), dtype=np.uint8)
    X_test = sp.csr_matrix(binarizer.transform(frames["test"].X), dtype=np.uint8)
    return Split(name=parts["train"].name, X_train=X_train, X_test=X_test,
                 Y_train=np.asarray(parts["train"].Y, dtype=np.uint8), Y_test=np.asarray(parts["test"].Y, dtype=np.uint8),
                 X_train_raw=frames["train"].X, X_test_raw=frames["test"].X,
                 X_train_numeric=_one_hot_nominal(parts["train"]), X_test_numeric=_one_hot_nominal(parts["test"]),
                 feature_names=list(binarizer.get_feature_names_out()), label_names=list(parts["train"].label_names))


def synthetic_split(n_records=1000, n_features=100, n_labels=100, n_rules=None, support="uniform", noise=0.01,
                    seed=0, n_test=None):
    """A synthetic set of the paper's generator: ``n_records`` training records, then ``n_test`` test records.

    ``n_test`` defaults to ``n_records``.  Both parts come from one call of
    :func:`corset.datasets.make_rule_data` (the same generating rules).

    The data are binary, so raw, binarized and numeric coincide.
    """
    from ..datasets import make_rule_data

    n_test = n_records if n_test is None else n_test
    data = make_rule_data(n_records=n_records + n_test, n_features=n_features, n_labels=n_labels, n_rules=n_rules,
                          support=support, noise=noise, random_state=seed)
    X, Y = sp.csr_matrix(data.X, dtype=np.uint8), np.asarray(data.Y.toarray(), dtype=np.uint8)
    tr, te = slice(0, n_records), slice(n_records, n_records + n_test)
    return Split(name="synthetic", X_train=X[tr], X_test=X[te], Y_train=Y[tr], Y_test=Y[te],
                 X_train_raw=X[tr], X_test_raw=X[te], X_train_numeric=X[tr].astype(np.float32),
                 X_test_numeric=X[te].astype(np.float32),
                 feature_names=[f"x{j}" for j in range(n_features)], label_names=[f"y{k}" for k in range(n_labels)])
