"""Fit time and quality of the default CorsetClassifier against BOOMER(1,000).

Usage (from the repository root)::

    python asv_bench/compare_boomer.py                              # emotions, medical, enron
    python asv_bench/compare_boomer.py --datasets bibtex --repeats 1
    python asv_bench/compare_boomer.py --datasets emotions birds --seed 1
    python asv_bench/compare_boomer.py --boomer-python /path/to/py312-venv/bin/python
    python asv_bench/compare_boomer.py --raw --boomer-python /path/to/py312-venv/bin/python   # end to end

With ``--boomer-python``, BOOMER runs in that interpreter
(``boomer_child.py``; mlrl-boomer 0.15.6 needs Python >= 3.12, while
corset keeps supporting 3.11): corset's ``--repeats`` fits are timed here,
then BOOMER's in the child on the same matrices (saved to a temporary
``.npz``), data set by data set, so both blocks run in the same minute.

Dataset by dataset, the official training split is binarized as in the
paper's protocol (``common.binarized_benchmark``: numeric features 1
strictly above their training 90th percentile, nominal ones one-hot), and
both learners are fitted on the same binary matrices (BOOMER's in CSR, as
in ``corset.experiments``: on a dense array its fit is several times
slower), alternately (corset, BOOMER, corset, BOOMER, ...) so that a slow
spell of the machine hits both:

* corset: ``CorsetClassifier(random_state=seed, n_jobs=1)`` (one thread,
  as its default ``n_jobs=None``), every other parameter at its default;
* BOOMER: ``mlrl.boosting.BoomerClassifier`` (mlrl-boomer 0.15.6 on Python
  >= 3.12, 0.12.3 on 3.11: the ``bench`` extra installs the newest that fits) with
  ``max_rules=1000`` (the paper's baseline; the count includes BOOMER's
  default rule), ``parallel_rule_refinement="false"`` and
  ``parallel_statistic_update="false"`` (its fit on one thread), and
  ``random_state=seed + 1`` (BOOMER wants a seed >= 1; seed 0 gives its
  default, 1); every other parameter at its default, as in the paper's comparison.

With ``--raw``, the comparison is end to end from raw features instead:
corset fits the raw training features with its defaults (binarization and
its cross-validated choices included), BOOMER the raw numbers with nominal
features one-hot (it bins numeric features itself), as
``corset.experiments.load_split`` gives them (``X_train_raw`` and
``X_train_numeric``); loading is not timed.

Only ``fit`` is timed (wall clock, ``time.perf_counter``); the table gives the
median over ``--repeats`` fits, their ratio corset/BOOMER (the issue's speed
target is a ratio <= 1), and the test micro-F1 of each learner's last fit on
the official test split, with corset's number of rules.  Both learners are
deterministic for a fixed seed, so the last fit stands for all of them.

With ``--files TRAIN TEST`` the comparison runs end to end on one's own
data instead (as ``--raw``): the files are read as ``corset fit`` and
``corset evaluate`` read them (``--labels`` for a CSV file's label
columns, ``--label-xml`` or ``--n-labels`` for an ARFF file's); corset
fits the features with its defaults, BOOMER their numbers (nominal columns
one-hot, dates as seconds)::

    python asv_bench/compare_boomer.py --files train.csv test.csv --labels A,B,C \\
        --boomer-python /path/to/py312-venv/bin/python

With ``--default-threads`` both learners keep their default threading
instead, as a user who sets nothing gets them: corset ``n_jobs=None`` (one
thread), BOOMER its parallel rule refinement and statistic update (both
multi-threaded by default).

BOOMER's prediction is left multi-threaded (its default): in 0.12.3,
``parallel_prediction="false"`` (and ``"true{num_preferred_threads=1}"``)
corrupts the heap during ``predict`` ("free(): invalid next size") on this
machine.  Prediction is not timed here.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

try:
    import corset  # noqa: F401
except ImportError:  # run from a source checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks.common import SEED, binarized_benchmark, data_home  # noqa: E402

DEFAULT_DATASETS = ["emotions", "medical", "enron"]
BOOMER_RULES = 1000
COLUMNS = ["dataset", "corset fit s", "boomer fit s", "ratio c/b", "corset F1", "rules", "boomer F1"]
WIDTHS = [10, 12, 12, 9, 9, 5, 9]


def micro_f1(Y_true, Y_pred):
    from sklearn.metrics import f1_score

    return float(f1_score(Y_true, Y_pred, average="micro", zero_division=0))


def make_corset(seed, default_threads=False):
    from corset.model import CorsetClassifier

    # One thread, as BOOMER below; or the default (also one thread).
    return CorsetClassifier(random_state=seed, n_jobs=None if default_threads else 1)


def make_boomer(seed, default_threads=False):
    from mlrl.boosting import BoomerClassifier

    single = {} if default_threads else dict(parallel_rule_refinement="false", parallel_statistic_update="false")
    return BoomerClassifier(max_rules=BOOMER_RULES, random_state=seed + 1, **single)


def timed_fit(estimator, X, Y):
    start = time.perf_counter()
    estimator.fit(X, Y)
    return time.perf_counter() - start


def boomer_in_child(python, X_train, Y_train, X_test, Y_test, repeats, seed, default_threads=False):
    """(fit times, test micro-F1, version) of BOOMER fitted by ``python`` on the same matrices."""
    import json
    import subprocess
    import tempfile

    import numpy as np
    import scipy.sparse as sp

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "matrices.npz"
        Y = dict(ytr=sp.csr_array(Y_train).toarray(), yte=sp.csr_array(Y_test).toarray())
        if sp.issparse(X_train):
            Xtr, Xte = sp.csr_matrix(X_train), sp.csr_matrix(X_test)
            np.savez(path, xtr_data=Xtr.data, xtr_indices=Xtr.indices, xtr_indptr=Xtr.indptr,
                     xtr_shape=np.array(Xtr.shape), xte_data=Xte.data, xte_indices=Xte.indices,
                     xte_indptr=Xte.indptr, xte_shape=np.array(Xte.shape), **Y)
        else:   # dense raw numbers stay dense, as BOOMER gets them in the experiments
            np.savez(path, xtr=np.asarray(X_train), xte=np.asarray(X_test), **Y)
        child = Path(__file__).resolve().parent / "boomer_child.py"
        try:
            done = subprocess.run([python, str(child), str(path), str(repeats), str(seed)]
                                  + (["--default-threads"] if default_threads else []), capture_output=True,
                                  text=True)
        except OSError as exc:   # no such interpreter
            raise ValueError(f"--boomer-python {python}: {exc.strerror}") from None
        if done.returncode != 0:   # BOOMER's own message, not only the exit status
            last = (done.stderr.strip().splitlines() or ["(nothing on standard error)"])[-1]
            raise ValueError(f"BOOMER's fit in {python} ended with status {done.returncode}: {last}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["times"], result["f1"], result["version"]


def raw_benchmark(name):
    """(corset's X_train, X_test, BOOMER's X_train, X_test, Y_train, Y_test) from raw features."""
    from corset.experiments import load_split

    split = load_split(name, data_home())
    return (split.X_train_raw, split.X_test_raw, split.X_train_numeric, split.X_test_numeric,
            split.Y_train, split.Y_test)


def file_benchmark(train, test, labels=None, label_xml=None, n_labels=None):
    """(corset's X_train, X_test, BOOMER's X_train, X_test, Y_train, Y_test) of one's own files.

    Read as ``corset fit`` and ``corset evaluate`` read them (ARFF, CSV with
    ``labels``, svmlight; identifier columns left out of training X, and the
    test file's columns taken by the training names).  BOOMER gets the
    numbers: numeric columns as they are, nominal ones one-hot (categories
    of the training file; a test value unseen there sets none), dates as
    seconds.
    """
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp
    from sklearn.preprocessing import OneHotEncoder

    from corset.cli import _read_data
    from corset.model._features import _nominal_dtype, _temporal_kind, _temporal_seconds

    from corset.model import CorsetClassifier

    X_train, Y_train, _, label_names = _read_data(train, label_xml=label_xml, n_labels=n_labels, labels=labels)
    if Y_train is None:
        raise ValueError(f"{train}: no label columns found")
    frame = isinstance(X_train, pd.DataFrame)
    X_test, Y_test, _, _ = _read_data(test, label_xml=label_xml, n_labels=n_labels, label_names=label_names,
                                      n_features=X_train.shape[1], labels_required=True,
                                      features=([str(c) for c in X_train.columns], True) if frame else None)
    if Y_test is None:
        raise ValueError(f"{test}: the training file's label columns are not all in it")
    # corset's own checks of the labels (0/1, none missing), then one 0/1 matrix for both learners.
    checked = []
    for path, Y in ((train, Y_train), (test, Y_test)):
        try:
            checked.append(CorsetClassifier()._validate_y(Y, None)[0].toarray().astype(np.uint8))
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    Y_train, Y_test = checked
    if not frame:
        return X_train, X_test, X_train, X_test, Y_train, Y_test

    # Each column's kind as in the training file: the test file's must read the same way.
    kinds = {}
    for name in X_train.columns:
        dtype = X_train[name].dtype
        kinds[name] = _temporal_kind(dtype) or ("nominal" if _nominal_dtype(dtype) else "number")

    def numbers(X, path, encoder=None):
        parts, nominal = [], [name for name in X.columns if kinds[name] == "nominal"]
        for name in X.columns:
            column, kind = X[name], kinds[name]
            if kind == "nominal":
                continue
            if kind == "number" and _temporal_kind(column.dtype) is not None:
                raise ValueError(f"{path}: column {name!r} holds dates or durations, unlike {train}'s numbers")
            if kind in ("datetime", "timedelta"):
                if _temporal_kind(column.dtype) != kind:
                    raise ValueError(f"{path}: column {name!r} holds values that are not {kind}s, unlike {train}'s")
                parts.append(_temporal_seconds(column, kind, name)[:, None])
                continue
            try:
                parts.append(pd.to_numeric(column, errors="raise").to_numpy(dtype=np.float64)[:, None])
            except (TypeError, ValueError):
                raise ValueError(f"{path}: column {name!r} holds values that are not numbers, unlike {train}'s") \
                    from None
        if nominal:
            # As text, the way the training file wrote them: a test column of numbers only (pandas
            # reads it as floats, 1.0) must give "1", as the training column's "1" did.
            text = X[nominal].apply(lambda c: c.map(lambda v: str(int(v)) if isinstance(v, float) and v.is_integer()
                                                   else str(v)))
            if encoder is None:
                encoder = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(text)
            parts.append(encoder.transform(text))
        return np.hstack(parts) if parts else np.zeros((len(X), 0)), encoder

    B_train, encoder = numbers(X_train, train)
    B_test, _ = numbers(X_test, test, encoder)
    return X_train, X_test, B_train, B_test, Y_train, Y_test


def compare(name, repeats, seed, boomer_python=None, raw=False, default_threads=False, matrices=None):
    """One row of the table: fits alternately, medians, ratio, test micro-F1.

    ``matrices``: :func:`file_benchmark`'s, for one's own files (``name`` only labels the row).
    """
    if matrices is not None:
        X_train, X_test, B_train, B_test, Y_train, Y_test = matrices
    elif raw:
        X_train, X_test, B_train, B_test, Y_train, Y_test = raw_benchmark(name)
    else:
        import scipy.sparse as sp

        X_train, Y_train, X_test, Y_test = binarized_benchmark(name)
        # BOOMER gets the binary matrices as CSR, as in corset.experiments: binarized_benchmark
        # leaves a set with numeric features only (emotions) a dense array, on which BOOMER
        # 0.15.6's fit took 3-4 times as long as on the same matrix in CSR.
        B_train, B_test = sp.csr_matrix(X_train), sp.csr_matrix(X_test)
    if boomer_python is not None:
        corset_times, corset_model = [], None
        for _ in range(repeats):
            corset_model = make_corset(seed, default_threads)
            corset_times.append(timed_fit(corset_model, X_train, Y_train))
        boomer_times, boomer_f1, _ = boomer_in_child(boomer_python, B_train, Y_train, B_test, Y_test, repeats,
                                                     seed, default_threads)
        corset_s, boomer_s = statistics.median(corset_times), statistics.median(boomer_times)
        return [name, f"{corset_s:.3f}", f"{boomer_s:.3f}", f"{corset_s / boomer_s:.2f}",
                f"{micro_f1(Y_test, corset_model.predict(X_test)):.3f}", str(len(corset_model.rules_)),
                f"{boomer_f1:.3f}"]
    corset_times, boomer_times = [], []
    corset_model = boomer_model = None
    for _ in range(repeats):
        corset_model = make_corset(seed, default_threads)
        corset_times.append(timed_fit(corset_model, X_train, Y_train))
        boomer_model = make_boomer(seed, default_threads)
        boomer_times.append(timed_fit(boomer_model, B_train, Y_train))
    corset_s = statistics.median(corset_times)
    boomer_s = statistics.median(boomer_times)
    return [name, f"{corset_s:.3f}", f"{boomer_s:.3f}", f"{corset_s / boomer_s:.2f}",
            f"{micro_f1(Y_test, corset_model.predict(X_test)):.3f}", str(len(corset_model.rules_)),
            f"{micro_f1(Y_test, boomer_model.predict(B_test)):.3f}"]


def format_row(cells):
    return "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, WIDTHS)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=None, metavar="NAME",
                        help=f"benchmark names (folders of the data directory); default: {DEFAULT_DATASETS}")
    parser.add_argument("--repeats", type=int, default=3,
                        help="fits of each learner per dataset, alternating; default: %(default)s")
    parser.add_argument("--seed", type=int, default=SEED,
                        help="random_state of corset (BOOMER gets seed + 1); default: %(default)s")
    parser.add_argument("--raw", action="store_true",
                        help="end to end from raw features (corset's defaults on raw X, BOOMER on raw numbers)")
    parser.add_argument("--default-threads", action="store_true",
                        help="both learners at their default threading (corset n_jobs=None, BOOMER's parallel "
                             "defaults) instead of one thread each")
    parser.add_argument("--boomer-python", metavar="PATH", default=None,
                        help="run BOOMER in this interpreter (e.g. a Python 3.12 venv with mlrl-boomer 0.15.6)")
    parser.add_argument("--files", nargs=2, metavar=("TRAIN", "TEST"), default=None,
                        help="one's own data instead of the benchmarks (ARFF, CSV or svmlight, read as 'corset "
                             "fit' and 'corset evaluate' read them), end to end from its features")
    labelled = parser.add_mutually_exclusive_group()
    labelled.add_argument("--label-xml", metavar="FILE", help="with --files: MULAN XML naming an ARFF file's labels")
    labelled.add_argument("--n-labels", type=int, metavar="N",
                          help="with --files: an ARFF file's first N attributes are labels (-N: the last N)")
    parser.add_argument("--labels", metavar="COL,...", help="with --files: a CSV file's label columns")
    args = parser.parse_args(argv)
    if args.files is None and (args.labels or args.label_xml or args.n_labels is not None):
        parser.error("--labels, --label-xml and --n-labels go with --files")
    if args.files is not None and args.datasets is not None:
        parser.error("give --files or --datasets, not both")
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1; got {args.repeats}")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0; got {args.seed}")
    try:
        if args.boomer_python is None:
            import mlrl.boosting  # noqa: F401
    except ImportError as exc:
        print(f"compare_boomer: BOOMER is not installed ({exc}).\n"
              "Install the benchmark extra (mlrl-boomer 0.15.6 on Python >= 3.12, 0.12.3 on 3.11): "
              "pip install .[bench], or pass --boomer-python with a Python 3.12 venv holding mlrl-boomer 0.15.6",
              file=sys.stderr)
        return 2
    matrices = None
    if args.files is not None:
        from corset.cli import CommandError, _split_names

        try:
            matrices = file_benchmark(*args.files, labels=_split_names(args.labels) if args.labels else None,
                                      label_xml=args.label_xml, n_labels=args.n_labels)
        except (CommandError, ValueError) as exc:
            print(f"compare_boomer: {exc}", file=sys.stderr)
            return 2
    elif data_home() is None:
        print("compare_boomer: benchmark data folder not found; set CORSET_DATA", file=sys.stderr)
        return 2

    print(f"seed {args.seed}, {args.repeats} alternating fit(s) per learner, median wall time; "
          f"BOOMER max_rules={BOOMER_RULES}, "
          + ("both at their default threading; " if args.default_threads else "single-threaded fits; ")
          + ("raw features (corset binarizes, BOOMER bins)" if args.raw or matrices is not None
             else "the same binarized matrices"))
    print(format_row(COLUMNS))
    print(format_row(["-" * w for w in WIDTHS]))
    if matrices is not None:
        try:
            row = compare(Path(args.files[0]).stem[:WIDTHS[0]], args.repeats, args.seed, args.boomer_python,
                          default_threads=args.default_threads, matrices=matrices)
        except ValueError as exc:   # what corset or BOOMER refused in one's own data
            print(f"compare_boomer: {exc}", file=sys.stderr)
            return 2
        print(format_row(row), flush=True)
        return 0
    for name in args.datasets or DEFAULT_DATASETS:
        # A row as soon as it is ready: slow datasets show progress.
        print(format_row(compare(name, args.repeats, args.seed, args.boomer_python, raw=args.raw,
                                 default_threads=args.default_threads)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
