"""The asv suite imports against this corset: its modules reach internal names that can move.

asv discovers the suite by importing every module of ``asv_bench/benchmarks``;
one failing import hides the whole suite.  The selection benchmark's own
step helper is also run on a small case.
"""
import importlib
import re
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "asv_bench"
MODULES = sorted(p.stem for p in (BENCH / "benchmarks").glob("*.py") if p.stem != "__init__")


@pytest.fixture
def suite(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    return lambda name: importlib.import_module(f"benchmarks.{name}")


@pytest.mark.parametrize("name", MODULES)
def test_every_benchmark_module_imports(suite, name):
    suite(name)


def test_the_selection_benchmarks_greedy_state_and_step(suite):
    from corset import BinaryData
    from corset.datasets import make_rule_data
    from corset.selection import rule_statistics, select_rules

    selection = suite("selection")
    synthetic = make_rule_data(n_records=200, n_features=20, n_labels=12, random_state=0)
    data = BinaryData(synthetic.X, synthetic.Y)
    X, Y = data.X, data.Y
    pool = selection.record_pool(X, Y, 300, 0)
    stats = rule_statistics(data, pool, deduplicate=True)
    state = selection.selected_state(data, stats, 5, 1.0, True)
    expected = select_rules(data, None, pool, n_rules=5, lam=1.0, quality="submodular", tol=None)
    assert list(state.rules) == list(expected.rules)
    assert len(selection.selected_state(data, stats, 0, 1.0, True)) == 0
    areas, gains, best = selection.fresh_pool_step(data, state, stats, 1.0, True)
    assert areas.shape == gains.shape == (len(stats),) and 0 <= best < len(stats)
    assert np.isfinite(gains).all()


# Classes whose setup alone takes more than a few seconds (10^6 records; a 31,000-record fit).
HEAVY = {"SyntheticMillion", "SyntheticDenseNumeric"}


def _classes():
    """``(module, class name)`` of every asv class but the HEAVY ones, read from the files (no import
    while tests are collected)."""
    found = []
    for module in MODULES:
        for line in (BENCH / "benchmarks" / f"{module}.py").read_text().splitlines():
            match = re.match(r"class (\w+)", line)
            if match and match.group(1) not in HEAVY:
                found.append((module, match.group(1)))
    return found


@pytest.mark.realdata
@pytest.mark.parametrize("module, name", _classes())
def test_every_benchmark_sets_up_with_its_first_parameters(suite, module, name, data_dir, monkeypatch):
    """asv calls setup_cache and setup before timing: each class's, with its first parameters, runs."""
    import itertools

    monkeypatch.setenv("CORSET_DATA", str(data_dir))
    cls = getattr(suite(module), name)
    params = getattr(cls, "params", None)
    if params is None:
        first = ()
    elif isinstance(params, list) and params and not isinstance(params[0], (list, tuple)):
        first = (params[0],)
    else:
        first = next(itertools.product(*params))
    bench = cls()
    args = (bench.setup_cache(),) if hasattr(bench, "setup_cache") else ()
    if hasattr(bench, "setup"):
        try:
            bench.setup(*args, *first)
        except NotImplementedError as exc:   # asv's "skipped" (e.g. a dataset whose tail space overflows)
            pytest.skip(str(exc))


SCRIPTS = sorted(p.name for p in BENCH.glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_script_answers_help(script):
    # A script run with --help prints its usage and runs nothing (no data set named "--help").
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: " + script)


def test_compare_boomer_reads_ones_own_files(tmp_path, monkeypatch):
    """``compare_boomer.py --files``: corset reads the files as the command line does (the identifier
    left out, the test file's columns by name), BOOMER gets numbers (nominal one-hot on the training
    categories, dates as seconds)."""
    pd = pytest.importorskip("pandas")
    monkeypatch.syspath_prepend(str(BENCH))
    import compare_boomer

    rng = np.random.RandomState(0)
    n = 60
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "x": rng.normal(size=n),
                          "colour": rng.choice(["red", "blue"], n),
                          "day": pd.date_range("2021-06-01", periods=n, freq="D").strftime("%Y-%m-%d"),
                          "A": rng.randint(0, 2, n), "B": rng.randint(0, 2, n)})
    frame.iloc[:40].to_csv(tmp_path / "train.csv", index=False)
    test = frame.iloc[40:].copy()
    test.loc[test.index[0], "colour"] = "green"   # unseen in training: no one-hot column set
    test[test.columns[::-1]].to_csv(tmp_path / "test.csv", index=False)
    X_train, X_test, B_train, B_test, Y_train, Y_test = compare_boomer.file_benchmark(
        tmp_path / "train.csv", tmp_path / "test.csv", labels=["A", "B"])
    assert list(X_train.columns) == list(X_test.columns) == ["x", "colour", "day"]
    assert B_train.shape == (40, 4) and B_test.shape == (20, 4)   # x, day, colour=blue, colour=red
    np.testing.assert_array_equal(B_test[0, 2:], [0, 0])
    np.testing.assert_allclose(B_train[:, 0], frame["x"].iloc[:40])
    assert np.all(np.diff(B_train[:, 1]) == 86400)
    np.testing.assert_array_equal(Y_test, frame[["A", "B"]].iloc[40:].to_numpy())


def test_compare_boomer_refuses_what_corset_refuses_in_ones_own_files(tmp_path, monkeypatch):
    """Labels are checked as corset checks them before both learners get one 0/1 matrix (-1/+1 used to
    become 255, a missing label 0), and a test column that does not read as the training one is named."""
    pd = pytest.importorskip("pandas")
    monkeypatch.syspath_prepend(str(BENCH))
    import compare_boomer

    frame = pd.DataFrame({"x": np.arange(40.0), "A": [0, 1] * 20, "B": [1, 0, 0, 1] * 10})
    frame.to_csv(tmp_path / "train.csv", index=False)
    frame.assign(A=2 * frame.A - 1, B=2 * frame.B - 1).to_csv(tmp_path / "signs.csv", index=False)
    frame.assign(A=frame.A.where(frame.index != 3)).to_csv(tmp_path / "missing.csv", index=False)
    frame.astype({"x": object}).assign(x=["?"] + list(frame.x[1:])).to_csv(tmp_path / "question.csv", index=False)
    for train, test, message in [("signs.csv", "train.csv", "signs.csv: Y holds -1 and 1"),
                                 ("missing.csv", "train.csv", "missing.csv: Input y contains NaN: a missing label"),
                                 ("train.csv", "question.csv",
                                  "question.csv: column 'x' holds values that are not numbers, unlike")]:
        with pytest.raises(ValueError, match=re.escape(message)):
            compare_boomer.file_benchmark(tmp_path / train, tmp_path / test, labels=["A", "B"])


def test_compare_boomer_reads_a_nominal_test_column_of_numbers_as_text(tmp_path, monkeypatch):
    """A nominal training column ("a", "b", "1", "2") whose test copy holds numbers only (pandas reads
    1.0): BOOMER's one-hot columns of "1" and "2" are set, not left at zero; a missing interpreter is
    named."""
    pd = pytest.importorskip("pandas")
    monkeypatch.syspath_prepend(str(BENCH))
    import compare_boomer

    pd.DataFrame({"c": ["a", "b", "1", "2"] * 10, "A": [0, 1] * 20}).to_csv(tmp_path / "train.csv", index=False)
    pd.DataFrame({"c": [1, 2] * 5, "A": [0, 1] * 5}).to_csv(tmp_path / "test.csv", index=False)
    _, _, B_train, B_test, Y_train, Y_test = compare_boomer.file_benchmark(tmp_path / "train.csv",
                                                                          tmp_path / "test.csv", labels=["A"])
    assert B_train.shape == (40, 4) and B_test.shape == (10, 4)   # c=1, c=2, c=a, c=b
    np.testing.assert_array_equal(B_test[:2], [[1, 0, 0, 0], [0, 1, 0, 0]])
    with pytest.raises(ValueError, match="--boomer-python /nonexistent/python: No such file or directory"):
        compare_boomer.boomer_in_child("/nonexistent/python", B_train, Y_train, B_test, Y_test, 1, 0)


def test_compare_boomer_hands_boomer_the_binarized_matrices_as_csr(monkeypatch):
    """The paper's protocol: BOOMER reads the binary matrices in CSR, as in ``corset.experiments``,
    even where the binarization left them dense (a set of numeric features only): on a dense array
    BOOMER's fit is several times slower, which made its time look worse than it is."""
    sp = pytest.importorskip("scipy.sparse")
    monkeypatch.syspath_prepend(str(BENCH))
    import compare_boomer

    rng = np.random.RandomState(0)
    X = (rng.rand(80, 6) > 0.8).astype(np.uint8)
    Y = np.c_[X[:, 0] | X[:, 1], X[:, 2]]
    monkeypatch.setattr(compare_boomer, "binarized_benchmark", lambda name: (X[:60], Y[:60], X[60:], Y[60:]))
    given = {}

    def child(python, B_train, Y_train, B_test, Y_test, repeats, seed, default_threads=False):
        given.update(train=B_train, test=B_test)
        return [1.0] * repeats, 0.5, "0.15.6"

    monkeypatch.setattr(compare_boomer, "boomer_in_child", child)
    row = compare_boomer.compare("tiny", repeats=1, seed=0, boomer_python="python3.12")
    assert row[0] == "tiny" and float(row[2]) == 1.0
    for name, rows in (("train", slice(0, 60)), ("test", slice(60, 80))):
        assert sp.issparse(given[name]) and given[name].format == "csr"
        np.testing.assert_array_equal(given[name].toarray(), X[rows])


def test_fit_costs_parts_add_up(monkeypatch):
    """fit_costs.py wraps internal functions (a renamed one fails here, not silently): on a small
    synthetic fit its parts are all seen, add up to the fit, and the wrappers are taken off again."""
    from corset.datasets import make_rule_data
    from corset.selection import _greedy

    monkeypatch.syspath_prepend(str(BENCH))
    fit_costs = importlib.import_module("fit_costs")
    data = make_rule_data(n_records=300, n_features=20, n_labels=6, random_state=0)
    step = _greedy._GeneratedPools.step
    measured = fit_costs.costs(data.X, data.Y, 0, 1)
    assert _greedy._GeneratedPools.step is step
    assert measured["fit"] > 0 and measured["steps"] > 0 and measured["ms_per_step"] > 0 and measured["rules"] > 0
    assert 0 < measured["folds"] < 1   # the internal validation ran (300 records)
    shares = measured["shares"]
    assert list(shares) == ["search", "pairs", "heads other", "tails", "selection", "outside"]
    assert all(shares[part] > 0 for part in ("search", "pairs", "tails", "selection", "outside"))
    assert sum(shares.values()) == pytest.approx(1.0)
    cells = fit_costs.row("synthetic", measured)
    assert len(cells) == 12 and cells[0] == "synthetic" and cells[-1] == measured["rules"]
