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
