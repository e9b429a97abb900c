"""Shared helpers of the asv benchmarks: where the data is, loading it once, and how whole fits are timed.

The MULAN files are read from ``$CORSET_DATA`` or, failing that, from
``../shared/data`` beside the repository this file was taken from.  When the
folder is absent, benchmarks that need it raise ``NotImplementedError``,
which asv reports as "skipped".
"""
import functools
import os
from pathlib import Path

SEED = 0


class WholeFitTiming:
    """asv's settings for benchmarks whose every sample is one whole fit or prediction (seconds each):
    one call per sample, up to five samples within a minute, no warm-up.  A suite sets its own
    ``timeout`` (and ``repeat`` where its samples are longer)."""

    number = 1
    repeat = (1, 5, 60.0)
    rounds = 1
    warmup_time = 0


def data_home():
    """The benchmark data folder, or ``None`` when it cannot be found."""
    env = os.environ.get("CORSET_DATA")
    candidates = [Path(env)] if env else []
    here = Path(__file__).resolve()
    # benchmarks/ -> asv_bench/ -> repository -> its parent, where shared/ lives.
    candidates += [parent / "shared" / "data" for parent in here.parents]
    for path in candidates:
        if path.is_dir():
            return path
    return None


def require_data():
    path = data_home()
    if path is None:
        raise NotImplementedError("benchmark data folder not found (set CORSET_DATA)")
    return path


@functools.lru_cache(maxsize=None)
def raw_benchmark(name, subset="train"):
    """The loader's Bunch for a benchmark file (cached per process)."""
    from corset.datasets import load_benchmark

    return load_benchmark(name, subset=subset, data_home=require_data())


@functools.lru_cache(maxsize=None)
def binarized_benchmark(name):
    """(X_train, Y_train, X_test, Y_test) binary, binarized as in the paper's protocol.

    Numeric features: 1 strictly above their 90th percentile on the training
    split (``PercentileBinarizer`` fitted on train only); nominal ones one-hot.
    """
    import warnings

    from corset.datasets import NominalCodesWarning
    from corset.preprocessing import PercentileBinarizer

    # The binarizer is told which columns hold nominal value indices (feature_types and
    # categories), so the loader's warning about reading them as numbers does not apply.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NominalCodesWarning)
        train = raw_benchmark(name, "train")
        test = raw_benchmark(name, "test")
    binarizer = PercentileBinarizer(
        feature_types=train.feature_types,
        categories=[train.categories.get(name) for name in train.feature_names],
    )
    X_train = binarizer.fit_transform(train.X)
    X_test = binarizer.transform(test.X)
    return X_train, train.Y, X_test, test.Y


@functools.lru_cache(maxsize=None)
def binary_benchmark(name, subset="train"):
    """The :class:`corset.BinaryData` of a benchmark split (cached per process)."""
    from corset import BinaryData

    X_train, Y_train, X_test, Y_test = binarized_benchmark(name)
    if subset == "train":
        return BinaryData(X_train, Y_train)
    if subset == "test":
        return BinaryData(X_test, Y_test)
    raise ValueError(f"subset must be 'train' or 'test'; got {subset!r}")
