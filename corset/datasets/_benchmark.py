"""The seven MULAN benchmark data sets of the paper, by name, from a local data folder.

Nothing is downloaded: the files (MULAN's ARFF and XML files, one folder per
data set, with MULAN's file names: ``emotions/emotions-train.arff``,
``corel5k/Corel5k-train-sparse.arff``, ...) must already be in a data
folder, given as ``data_home`` or by the ``CORSET_DATA`` environment
variable.  Train and test are MULAN's official splits; CAL500, which has
none, is split by the fixed row lists of ``CAL500/cal500-split.json``.
"""
import json
import os
import warnings
from collections import namedtuple
from pathlib import Path

import numpy as np

from ._arff import NominalCodesWarning, as_frames, load_arff, warn_nominal_codes

_Spec = namedtuple("_Spec", "name folder full train test xml split")

_SPECS = (
    _Spec("emotions", "emotions", "emotions.arff", "emotions-train.arff", "emotions-test.arff", "emotions.xml", None),
    _Spec("birds", "birds", "birds.arff", "birds-train.arff", "birds-test.arff", "birds.xml", None),
    _Spec("medical", "medical", "medical.arff", "medical-train.arff", "medical-test.arff", "medical.xml", None),
    _Spec("enron", "enron", "enron.arff", "enron-train.arff", "enron-test.arff", "enron.xml", None),
    _Spec("CAL500", "CAL500", "cal500.arff", None, None, "cal500.xml", "cal500-split.json"),
    # Only MULAN's sparse copies of corel5k are kept (same data as the dense ones).
    _Spec("corel5k", "corel5k", "Corel5k-sparse.arff", "Corel5k-train-sparse.arff", "Corel5k-test-sparse.arff",
          "Corel5k.xml", None),
    _Spec("bibtex", "bibtex", "bibtex.arff", "bibtex-train.arff", "bibtex-test.arff", "bibtex.xml", None),
)
_BY_KEY = {spec.name.lower(): spec for spec in _SPECS}

#: Names accepted by :func:`load_benchmark` (case-insensitive).
BENCHMARK_NAMES = tuple(spec.name for spec in _SPECS)
#: Subsets accepted by :func:`load_benchmark`.
SUBSETS = ("train", "test", "full")


def get_data_home(data_home=None):
    """The folder holding the benchmark files: ``data_home``, else ``$CORSET_DATA``.

    Raises
    ------
    ValueError
        If neither is set.
    FileNotFoundError
        If the folder does not exist.
    """
    source = "data_home"
    if data_home is None:
        data_home = os.environ.get("CORSET_DATA")
        source = "the CORSET_DATA environment variable"
        if not data_home:
            raise ValueError(
                "no benchmark data folder: pass data_home=<folder> or set the CORSET_DATA environment variable "
                "to the folder holding the MULAN files (one subfolder per data set, e.g. emotions/emotions.arff)"
            )
    path = Path(os.fspath(data_home))
    if not path.is_dir():
        raise FileNotFoundError(f"benchmark data folder {path} (from {source}) does not exist")
    return path


def _spec(name):
    if not isinstance(name, str) or name.lower() not in _BY_KEY:
        raise ValueError(f"unknown benchmark data set {name!r}; valid names (case-insensitive): "
                         f"{', '.join(BENCHMARK_NAMES)}")
    return _BY_KEY[name.lower()]


def _check_subset(subset):
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {', '.join(repr(s) for s in SUBSETS)}; got {subset!r}")


def _benchmark_files(name, subset, home):
    """(arff path, xml path, split path or None) of a benchmark subset under ``home``."""
    spec = _spec(name)
    folder = home / spec.folder
    if spec.split is not None:
        return folder / spec.full, folder / spec.xml, (None if subset == "full" else folder / spec.split)
    return folder / getattr(spec, subset), folder / spec.xml, None


def _read_split(split_path, subset, n_rows):
    """Row numbers of ``subset`` from a split file {"n", "train_idx", "test_idx"}, checked."""
    if not split_path.is_file():
        raise FileNotFoundError(f"split file not found: {split_path}")
    with open(split_path, encoding="utf-8") as fh:
        split = json.load(fh)
    try:
        train = np.asarray(split["train_idx"], dtype=np.int64)
        test = np.asarray(split["test_idx"], dtype=np.int64)
        n = int(split["n"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{split_path} must hold integer lists 'train_idx', 'test_idx' and 'n': {exc}") from exc
    if n != n_rows:
        raise ValueError(f"{split_path} is a split of {n} rows, but the data file has {n_rows}")
    both = np.concatenate([train, test])
    if both.size and (both.min() < 0 or both.max() >= n_rows):
        raise ValueError(f"{split_path} holds row numbers outside [0, {n_rows})")
    if np.unique(both).size != both.size:
        raise ValueError(f"{split_path}: 'train_idx' and 'test_idx' repeat or share row numbers")
    return np.sort(train if subset == "train" else test)


def load_benchmark(name, subset="train", data_home=None, *, as_frame=False):
    """Load one of the paper's MULAN benchmark data sets from a local folder.

    Parameters
    ----------
    name : str
        One of ``emotions``, ``birds``, ``medical``, ``enron``, ``CAL500``,
        ``corel5k``, ``bibtex`` (case-insensitive).
    subset : {"train", "test", "full"}, default="train"
        MULAN's official split, or the whole file.  CAL500 has no official
        split: train and test are the rows listed in
        ``CAL500/cal500-split.json`` (335 and 167 of the 502 rows).
    data_home : str or path-like, optional
        The data folder (one subfolder per data set, e.g.
        ``emotions/emotions.arff`` and ``emotions/emotions.xml``).  Defaults
        to the ``CORSET_DATA`` environment variable.
    as_frame : bool, default=False
        ``X`` and ``Y`` as pandas DataFrames, as in :func:`load_arff`.  Without
        it, birds' nominal ``location`` is a column of value indices
        (:class:`~corset.datasets.NominalCodesWarning` says so).

    Returns
    -------
    data : sklearn.utils.Bunch
        The fields of :func:`load_arff` (``X``, ``Y``, ``feature_names``,
        ``label_names``, ``feature_types``, ``categories``, ``relation``,
        ``filename``), plus ``name`` (canonical spelling) and ``subset``.
        For a CAL500 split also ``split_file`` and ``rows``, the row numbers
        of ``cal500.arff`` that were kept.

    Raises
    ------
    ValueError
        For an unknown name or subset (the message lists the valid ones), or
        when no data folder is given and ``CORSET_DATA`` is unset.
    FileNotFoundError
        If the data folder or a file of the data set is missing.
    """
    spec = _spec(name)
    _check_subset(subset)
    home = get_data_home(data_home)
    arff_path, xml_path, split_path = _benchmark_files(spec.name, subset, home)
    with warnings.catch_warnings():
        # Said below, once, to this function's caller, and only when X stays an array.
        warnings.simplefilter("ignore", NominalCodesWarning)
        data = load_arff(arff_path, label_xml=xml_path)
    if split_path is not None:
        rows = _read_split(split_path, subset, data.X.shape[0])
        data.X = data.X[rows]
        data.Y = data.Y[rows]
        data.split_file = str(split_path)
        data.rows = rows
    data.name = spec.name
    data.subset = subset
    if as_frame:
        return as_frames(data)
    warn_nominal_codes(data)
    return data
