"""corset.experiments: the paper's comparison re-run, its measures, its runner (serial, joblib, Dask) and report."""
import argparse
import dataclasses
import importlib.util
import io
import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pytest
import test_selection_reference as ref

from corset.datasets import make_rule_data
from corset.experiments import (
    METHODS,
    ExperimentConfig,
    coverage_overlap,
    execute,
    f1_path,
    markdown_to_rst,
    read_rows,
    run_experiment,
    synthetic_split,
    table_markdown,
    write_report,
)
from corset.model import CorsetClassifier

DETERMINISTIC = ("part", "dataset", "method", "setting", "seed", "status", "micro_f1", "macro_f1", "sample_f1",
                 "hamming_loss", "subset_accuracy", "n_rules", "mean_rule_length", "coverage_overlap", "params")

TINY_SYNTHETIC = ExperimentConfig(parts=("synthetic",), synthetic_methods=("CORSET-GH", "corset", "BR-SVM"),
                                  noise_levels=(0.02,), sizes=(20,), supports=("skewed",), synthetic_repetitions=1,
                                  time_limit=300.0)


def _comparable(rows):
    """The deterministic columns of rows, sorted, NaN as None (NaN != NaN)."""
    def value(v):
        return None if isinstance(v, float) and np.isnan(v) else v
    rows = sorted(rows, key=lambda r: (r["method"], r["setting"], r["seed"]))
    return [[value(r[k]) for k in DETERMINISTIC] for r in rows]


def _small_model(seed=0):
    data = make_rule_data(n_records=200, n_features=12, n_labels=6, noise=0.03, random_state=seed)
    X, Y = data.X.toarray(), data.Y.toarray()
    return CorsetClassifier(random_state=seed, n_rules=12, negations=True).fit(X, Y), X, Y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_coverage_overlap_matches_the_jaccard_of_reference_coverages(seed):
    model, X, Y = _small_model(seed)
    data = ref.RefData(np.hstack([X, 1 - X]), Y)   # negated literals as extra columns
    p = X.shape[1]
    rules = [(tuple(r.head) + tuple(p + f for f in r.negated), r.tail) for r in model.rules_ if r.n_literals]
    assert len(rules) >= 2
    covs = [ref.coverage(data, r) for r in rules]
    pairs = [1 - ref.distance(a, b) for a, b in itertools.combinations(covs, 2)]
    assert coverage_overlap(model, X, Y) == pytest.approx(np.mean(pairs), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_f1_path_is_the_micro_f1_of_each_prefix_of_the_rules(seed):
    from sklearn.metrics import f1_score

    model, X, Y = _small_model(seed)
    path = f1_path(model, X, Y)
    assert [k for k, _ in path] == list(range(1, len(model.rules_) + 1))
    for k, f1 in path:
        pred = np.zeros_like(Y)
        for r in model.rules_[:k]:
            fires = X[:, list(r.head)].all(axis=1) & (X[:, list(r.negated)] == 0).all(axis=1)
            pred[np.ix_(fires, list(r.tail))] = 1
        assert f1 == pytest.approx(f1_score(Y, pred, average="micro", zero_division=0), abs=1e-12)
    assert path[-1][1] == pytest.approx(f1_score(Y, model.predict(X), average="micro"), abs=1e-12)


def test_tuning_keeps_the_best_prefix_of_the_best_trial():
    from corset.experiments import tune

    split = synthetic_split(n_records=150, n_features=15, n_labels=8, noise=0.02, seed=3)
    params, f1, failed = tune(METHODS["CORSET-GH"], split, n_trials=3, seed=0)
    assert failed == 0 and 1 <= params["n_rules"] <= 150 and 0.01 <= params["lam"] <= 100
    # Refitting the best trial on the fitting part reaches that validation F1 at that number of rules.
    from sklearn.metrics import f1_score

    from corset.experiments._methods import TUNING_POOL

    X_fit, Y_fit, X_val, Y_val = split.validation()
    model = METHODS["CORSET-GH"].make({**params, **TUNING_POOL}, 0).fit(X_fit, Y_fit)
    assert len(model.rules_) == params["n_rules"]
    assert f1 == pytest.approx(f1_score(Y_val, model.predict(X_val), average="micro"), abs=1e-12)


def test_a_run_past_its_time_limit_or_failing_is_a_row_saying_so(tmp_path):
    job = {"part": "synthetic", "dataset": "synthetic", "method": "corset", "setting": "", "seed": 0,
           "params": {}, "data": {"kind": "synthetic", "n_records": 50, "n_features": 10, "n_labels": 5}}
    row = execute(job, time_limit=0.001)
    assert row["status"] == "timeout" and "time limit" in row["error"]
    row = execute({**job, "params": {"n_rules": -3}}, time_limit=300)
    assert row["status"] == "error" and "n_rules" in row["error"]
    row = execute({**job, "data": {"kind": "benchmark", "name": "no-such-set"}}, data_home=tmp_path)
    assert row["status"] == "error" and "no-such-set" in row["error"]
    ok = execute(job, time_limit=300)
    assert ok["status"] == "ok" and 0 <= ok["micro_f1"] <= 1 and ok["fit_s"] > 0
    assert json.loads(ok["versions"])["corset"]


def test_serial_and_joblib_runs_give_the_same_rows_and_resume(tmp_path):
    serial = run_experiment(TINY_SYNTHETIC, tmp_path / "serial", progress=False)
    assert len(serial) == 6 and {r["status"] for r in serial} == {"ok"}
    again = run_experiment(TINY_SYNTHETIC, tmp_path / "serial", progress=False)
    assert len(again) == 6, "a rerun skips finished runs"
    parallel = run_experiment(TINY_SYNTHETIC, tmp_path / "parallel", n_jobs=2, progress=False)
    assert _comparable(serial) == _comparable(parallel)


def test_dask_local_cluster_gives_the_same_rows_as_the_serial_run(tmp_path):
    distributed = pytest.importorskip("distributed", reason="the Dask test needs the dask extra")
    serial = run_experiment(TINY_SYNTHETIC, tmp_path / "serial", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        on_dask = run_experiment(TINY_SYNTHETIC, tmp_path / "dask", scheduler=cl.scheduler_address, progress=False)
    assert _comparable(serial) == _comparable(on_dask)


def test_markdown_tables_become_csv_tables():
    text = "Intro with `code`.\n\n| data | F1 \"x\" |\n|---|---|\n| emotions | 0.53 [0.54] |\n\nAfter.\n"
    assert markdown_to_rst(text) == (
        "Intro with ``code``.\n\n.. csv-table::\n   :header: \"data\", \"F1 \"\"x\"\"\"\n\n"
        "   \"emotions\", \"0.53 [0.54]\"\n\n\nAfter.\n")


def test_tables_keep_their_order_when_rows_are_run_again():
    # runs.csv holds rows in the order they ran: rows run again later (appended) must not move
    # the table's columns or rows, which follow the experiment's own order.
    def row(dataset, method, f1):
        return {"part": "table", "dataset": dataset, "method": method, "status": "ok", "micro_f1": f1,
                "n_rules": 10.0, "fit_s": 0.1, **{k: math.nan for k in ("macro_f1", "sample_f1", "hamming_loss",
                                                                         "mean_rule_length", "coverage_overlap",
                                                                         "peak_mb")}}
    rows = [row("birds", "BR-SVM", 0.4), row("emotions", "my learner", 0.3), row("emotions", "corset", 0.6),
            row("emotions", "BR-SVM", 0.5), row("birds", "corset", 0.45)]
    lines = table_markdown(rows).splitlines()
    assert lines[2] == "| data | corset | BR-SVM | my learner |"
    assert lines[4].startswith("| emotions | 0.60 |") and lines[5].startswith("| birds | 0.45 | 0.40")


def test_report_writes_tables_and_figures(tmp_path):
    pytest.importorskip("matplotlib")
    rows = run_experiment(dataclasses.replace(TINY_SYNTHETIC, parts=("synthetic", "scale"),
                                              scale_records=(200, 400), scale_methods=("corset",)),
                          tmp_path, progress=False)
    fake = [{**r, "part": "table", "dataset": "emotions"} for r in rows if r["part"] == "synthetic"]
    text = table_markdown(fake)
    assert "| emotions |" in text and "[0.54]" in text   # the paper's CORSET-GH figure beside ours
    written = {p.name for p in write_report(rows + fake, tmp_path)}
    assert {"table.md", "table.rst", "synthetic.png", "fit_time_vs_records.png"} <= written
    rst = (tmp_path / "table.rst").read_text()
    assert ".. csv-table::" in rst and '"emotions"' in rst and "[0.54]" in rst and "|" not in rst
    for name in ("synthetic.png", "fit_time_vs_records.png"):
        assert (tmp_path / name).stat().st_size > 5000


def _experiment_options(**given):
    options = dict(quick=False, datasets=None, parts=None, methods=None, repetitions=None, n_trials=None,
                   time_limit=None)
    return argparse.Namespace(**{**options, **given})


def test_experiment_methods_choose_each_parts_learners():
    from corset.cli import CommandError, _experiment_config, _split_outside_parentheses
    from corset.experiments import FULL, METHODS

    # A comma inside parentheses belongs to the name (BOOMER(1000, raw) is one method).
    assert _split_outside_parentheses("corset, BOOMER(1000, raw),,f(a,(b,c)),y") == (
        "corset", "BOOMER(1000, raw)", "f(a,(b,c))", "y")
    out = io.StringIO()
    config = _experiment_config(_experiment_options(methods="corset,BOOMER(1000, raw)"), set(METHODS), out)
    assert config.methods == ("corset",) and config.raw_methods == ("BOOMER(1000, raw)",)
    assert config.path_methods == config.synthetic_methods == config.scale_methods == ("corset",)
    assert "overlap" not in config.parts and "part 'overlap' runs none" in out.getvalue()
    # Without --methods every installed method of every part runs; the others are named.
    out = io.StringIO()
    config = _experiment_config(_experiment_options(parts="table,raw"), set(METHODS) - {"SeCo"}, out)
    assert config.methods == tuple(m for m in FULL.methods if m != "SeCo") and config.raw_methods == FULL.raw_methods
    assert "left out: SeCo" in out.getvalue() and "runs none" not in out.getvalue()
    out = io.StringIO()
    config = _experiment_config(_experiment_options(methods="corset (raw)", parts="table,raw"), set(METHODS), out)
    assert config.methods == () and config.raw_methods == ("corset (raw)",)
    assert "part 'table' runs none" in out.getvalue()
    with pytest.raises(CommandError, match=r"unknown method\(s\) \['BOOMER\(1000'"):
        _experiment_config(_experiment_options(methods="BOOMER(1000"), set(METHODS), out)
    # A misspelt part or data set is an error naming it, not a run of nothing (or a failure hours in).
    with pytest.raises(CommandError, match=r"unknown part\(s\) \['tabel'\]; choose among \['table'"):
        _experiment_config(_experiment_options(parts="raw,tabel"), set(METHODS), out)
    with pytest.raises(CommandError, match=r"unknown data set\(s\) \['emotion'\] in datasets"):
        _experiment_config(_experiment_options(datasets="emotion"), set(METHODS), out)
    assert _experiment_config(_experiment_options(datasets="EMOTIONS"), set(METHODS), out).datasets == ("EMOTIONS",)


def test_experiment_config_names_what_it_does_not_know():
    with pytest.raises(ValueError, match=r"unknown part\(s\) \['fig2'\]"):
        ExperimentConfig(parts=("table", "fig2"))
    with pytest.raises(ValueError, match=r"unknown data set\(s\) \['yeast'\] in overlap_datasets"):
        ExperimentConfig(overlap_datasets=("emotions", "yeast"))
    with pytest.raises(ValueError, match=r"unknown data set 'scene' in path_dataset"):
        ExperimentConfig(path_dataset="scene")


@pytest.mark.realdata
def test_benchmark_run_from_the_command_line(tmp_path, data_dir):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "corset.cli", "experiment", "--datasets", "emotions", "--parts", "table,raw",
           "--methods", "CORSET-GH,corset,BR-SVM,corset (raw)", "--repetitions", "1", "--n-trials", "2", "--quiet",
           "--data-home", str(data_dir), "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = read_rows(out / "runs.csv")
    assert {(r["part"], r["method"]) for r in rows} >= {("tuning", "CORSET-GH"), ("table", "corset"),
                                                        ("table", "BR-SVM"), ("raw", "corset (raw)")}
    assert {r["method"] for r in rows} <= {"CORSET-GH", "corset", "BR-SVM", "corset (raw)"}   # only those named
    assert all(r["status"] == "ok" for r in rows)
    table = (out / "table.md").read_text()
    assert table.startswith("Produced by `corset experiment --datasets emotions") and "| emotions |" in table
    corset_row = next(r for r in rows if r["part"] == "table" and r["method"] == "corset")
    assert corset_row["micro_f1"] > 0.5 and corset_row["n_rules"] <= 150
    bad = subprocess.run(cmd[:-2] + ["--methods", "NoSuchLearner", "--out", str(out)], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert bad.returncode == 2 and "NoSuchLearner" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.realdata
@pytest.mark.slow
def test_quick_experiment(tmp_path, data_dir):
    if importlib.util.find_spec("mlrl") is None:
        pytest.skip("corset experiment --quick compares with BOOMER and SeCo: install the bench extra")
    out = tmp_path / "quick"
    done = subprocess.run([sys.executable, "-m", "corset.cli", "experiment", "--quick", "--quiet", "--n-jobs", "2",
                           "--data-home", str(data_dir), "--out", str(out)], capture_output=True, text=True,
                          timeout=1800, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = read_rows(out / "runs.csv")
    methods = {r["method"] for r in rows if r["part"] == "table"}
    assert {"CORSET-SURS", "CORSET-GH", "corset", "BOOMER(1000)", "SeCo", "BR-SVM"} <= methods
    assert {r["dataset"] for r in rows} == {"emotions", "medical"}
    assert all(r["status"] == "ok" for r in rows), [r["error"] for r in rows if r["status"] != "ok"]
    assert (out / "table.md").exists() and (out / "raw.md").exists()


@pytest.mark.parametrize("name", ["CORSET-SURS", "CORSET-GH", "corset", "corset (raw)"])
def test_every_corset_run_is_one_thread(name):
    # Runs go side by side in processes: each on one thread, as the baselines (not OpenMP's
    # default, which n_jobs=None would take).
    assert METHODS[name].make({}, 0).n_jobs == 1
    assert METHODS[name].make({"lam": 2.0}, 0).n_jobs == 1


@pytest.mark.parametrize("name", ["corset", "corset (raw)", "CORSET-GH", "CORSET-SURS"])
def test_a_corset_run_imports_nothing_while_timed(name, tmp_path):
    # Each run is a fresh process: the modules corset imports on first use are imported when
    # its estimator is made, as BOOMER's are, so that the fit's clock counts the fit alone.
    script = f"""
import sys
import numpy as np
from corset.experiments import METHODS
rng = np.random.default_rng(0)
X = rng.random((60, 5))
Y = (rng.random((60, 3)) < 0.4).astype(int)
model = METHODS[{name!r}].make({{"n_rules": 5}}, 0)
before = set(sys.modules)
model.fit(X, Y)
model.predict(X)
print(sorted(m for m in set(sys.modules) - before if m.split(".")[0] in ("corset", "sklearn", "scipy")))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
