"""Jobs of an experiment, run in parallel with joblib (locally or on Dask), recorded row by row in a CSV.

An experiment is a list of independent jobs: one method fitted once on one
data set with one seed (or one random search).  Each job runs in a child
process (:mod:`corset.experiments._child`) so that a per-job time limit can
stop it and its peak memory is its own.  Rows are appended to ``runs.csv``
as jobs finish; a rerun skips every job that already has a row, so a run
that outlasts one sitting resumes where it stopped.
"""
import csv
import json
import math
import os
import pickle
import subprocess
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

COLUMNS = ["part", "dataset", "method", "setting", "seed", "status", "micro_f1", "macro_f1", "sample_f1",
           "hamming_loss", "subset_accuracy", "n_rules", "mean_rule_length", "coverage_overlap", "fit_s",
           "predict_s", "peak_mb", "validation_f1", "failed_trials", "params", "path", "versions", "error"]
"""The columns of ``runs.csv``; ``params``, ``path`` and ``versions`` hold JSON."""

NUMERIC = {"micro_f1", "macro_f1", "sample_f1", "hamming_loss", "subset_accuracy", "n_rules", "mean_rule_length",
           "coverage_overlap", "fit_s", "predict_s", "peak_mb", "validation_f1", "failed_trials"}

SIX = ("corel5k", "bibtex", "enron", "medical", "birds", "emotions")


PART_METHODS = {"table": "methods", "raw": "raw_methods", "path": "path_methods",
                "synthetic": "synthetic_methods", "scale": "scale_methods"}
"""Each part of the experiment that has a list of learners: the field of :class:`ExperimentConfig` holding it."""
OVERLAP_METHOD = "CORSET-SURS"
"""The overlap part's one learner (coverage overlap against λ, the paper's Fig. 5)."""
PARTS = ("table", "raw", "path", "synthetic", "overlap", "scale")
"""Every part of an experiment, in the order it runs them."""


@dataclass(frozen=True)
class ExperimentConfig:
    """What an experiment runs (see :data:`QUICK` and :data:`FULL`).

    Parts: ``"table"`` (the paper's Table 2: every method on the binarized
    benchmark sets, the paper's CORSET tuned first), ``"raw"`` (corset's
    defaults and BOOMER on raw features), ``"path"`` (micro-F1 against the
    number of rules on one data set, Fig. 2), ``"synthetic"`` (Fig. 4),
    ``"overlap"`` (coverage overlap against λ, Fig. 5) and ``"scale"`` (fit
    time against the number of records): ``PARTS``.

    Raises
    ------
    ValueError
        A part that is not in ``PARTS``, or a data set (``datasets``,
        ``overlap_datasets``, ``path_dataset``) that is not one of the
        benchmark names (``corset.datasets.BENCHMARK_NAMES``, any case).
    """

    datasets: tuple = ("emotions", "birds", "medical", "enron", "CAL500", "corel5k", "bibtex")
    methods: tuple = ("CORSET-SURS", "CORSET-GH", "corset", "SeCo", "BOOMER(10)", "BOOMER(100)", "BOOMER(1000)",
                      "BOOMER(early stop)", "BR-SVM")
    raw_methods: tuple = ("corset (raw)", "BOOMER(1000, raw)")
    repetitions: int = 10
    n_trials: int = 30
    parts: tuple = PARTS
    path_dataset: str = "bibtex"
    path_methods: tuple = ("CORSET-GH", "corset", "BOOMER(1000)")
    overlap_datasets: tuple = SIX
    lambdas: tuple = (0.01, 0.1, 1.0, 10.0, 100.0)
    synthetic_methods: tuple = ("CORSET-GH", "corset", "BOOMER(10)", "BOOMER(100)", "BOOMER(1000)")
    noise_levels: tuple = (0.0, 0.01, 0.02, 0.05, 0.1)
    sizes: tuple = (44, 67, 100, 150, 225)   # 100 · 1.5^k, k = -2 .. 2
    supports: tuple = ("uniform", "skewed")
    synthetic_repetitions: int = 3
    scale_records: tuple = (1_000, 10_000, 100_000, 1_000_000)
    scale_methods: tuple = ("corset", "BOOMER(1000)")
    time_limit: float = 1800.0

    def __post_init__(self):
        # A misspelt part or data set would otherwise run nothing, or fail hours into a run.
        from ..datasets import BENCHMARK_NAMES

        unknown = [p for p in self.parts if p not in PARTS]
        if unknown:
            raise ValueError(f"unknown part(s) {unknown}; choose among {list(PARTS)}")
        known = {name.lower() for name in BENCHMARK_NAMES}
        for field in ("datasets", "overlap_datasets"):
            unknown = [d for d in getattr(self, field) if not isinstance(d, str) or d.lower() not in known]
            if unknown:
                raise ValueError(f"unknown data set(s) {unknown} in {field}; choose among {list(BENCHMARK_NAMES)}")
        if not isinstance(self.path_dataset, str) or self.path_dataset.lower() not in known:
            raise ValueError(f"unknown data set {self.path_dataset!r} in path_dataset; "
                             f"choose among {list(BENCHMARK_NAMES)}")

    def methods_of(self, part):
        """The learners ``part`` runs (the overlap part: ``OVERLAP_METHOD`` alone)."""
        if part == "overlap":
            return (OVERLAP_METHOD,)
        return getattr(self, PART_METHODS[part])

    def with_methods(self, available):
        """This configuration with only the methods in ``available`` (e.g. those whose package is
        installed); the overlap part goes when its one learner does."""
        def keep(names):
            return tuple(m for m in names if m in available)
        parts = self.parts if OVERLAP_METHOD in available else tuple(p for p in self.parts if p != "overlap")
        return replace(self, parts=parts, **{field: keep(getattr(self, field)) for field in PART_METHODS.values()})


QUICK = ExperimentConfig(datasets=("emotions", "medical"), repetitions=2, n_trials=4, parts=("table", "raw"),
                         time_limit=600.0)
"""``corset experiment --quick``: emotions and medical, two repetitions, four tuning trials."""
FULL = ExperimentConfig()
"""``corset experiment``: the whole comparison (hours on one machine; resumable)."""


def job_key(job):
    return "|".join(str(job[k]) for k in ("part", "dataset", "method", "setting", "seed"))


def _job(part, dataset, method, seed, setting="", data=None, **extra):
    return {"part": part, "dataset": dataset, "method": method, "setting": setting, "seed": seed,
            "data": data or {"kind": "benchmark", "name": dataset}, "params": {}, **extra}


def tuning_jobs(config):
    """One random search per data set and tuned method (on the validation split, seed 0)."""
    from ._methods import METHODS

    tuned = sorted({m for m in config.methods + (config.path_methods if "path" in config.parts else ())
                    if METHODS[m].tuned})
    datasets = list(config.datasets) if "table" in config.parts else []
    if "path" in config.parts and config.path_dataset not in datasets:
        datasets.append(config.path_dataset)
    return [_job("tuning", d, m, 0, n_trials=config.n_trials) for d in datasets for m in tuned]


def evaluation_jobs(config, tuned_params):
    """Every fit of the experiment; tuned methods take their parameters from ``tuned_params[(dataset, method)]``."""
    from ._methods import METHODS

    jobs = []

    def params_of(dataset, method):
        return tuned_params.get((dataset, method)) if METHODS[method].tuned else {}

    seeds = range(config.repetitions)
    if "table" in config.parts:
        jobs += [_job("table", d, m, s, params=params_of(d, m), overlap=True)
                 for d in config.datasets for m in config.methods for s in seeds]
    if "raw" in config.parts:
        jobs += [_job("raw", d, m, s) for d in config.datasets for m in config.raw_methods for s in seeds]
    if "path" in config.parts:
        d = config.path_dataset
        jobs += [_job("path", d, m, 0, params=params_of(d, m), path=True) for m in config.path_methods]
    if "synthetic" in config.parts:
        for s in range(config.synthetic_repetitions):
            for noise in config.noise_levels:
                data = {"kind": "synthetic", "n_rules": 10, "noise": noise, "seed": s}
                jobs += [_job("synthetic", "synthetic", m, s, f"noise={noise}", data)
                         for m in config.synthetic_methods]
            for support in config.supports:
                for size in config.sizes:
                    data = {"kind": "synthetic", "n_features": size, "n_labels": size, "support": support, "seed": s}
                    jobs += [_job("synthetic", "synthetic", m, s, f"{support},size={size}", data)
                             for m in config.synthetic_methods]
    if "overlap" in config.parts:
        jobs += [_job("overlap", d, OVERLAP_METHOD, 0, f"lam={lam}", params={"lam": lam}, overlap=True)
                 for d in config.overlap_datasets for lam in config.lambdas]
    if "scale" in config.parts:
        for n in config.scale_records:
            data = {"kind": "synthetic", "n_records": n, "n_test": 10_000, "n_features": 120, "n_labels": 101,
                    "seed": 0}
            jobs += [_job("scale", "synthetic", m, 0, f"n={n}", data) for m in config.scale_methods]
    return jobs


@cache
def _versions():
    from ._methods import installed_versions

    return json.dumps(installed_versions(), sort_keys=True)


def _split_for(job, data_home):
    """The benchmark split a job reads (loaded once per worker process); synthetic data are made by the child."""
    from ._protocol import load_split

    return load_split(job["data"]["name"], data_home) if job["data"]["kind"] == "benchmark" else None


def execute(job, data_home=None, time_limit=None):
    """Run one job in a child process; its row (``COLUMNS``), whatever happened.

    A job that outlasts ``time_limit`` seconds is killed and reported with
    status ``"timeout"``; one that raises, with status ``"error"`` and the
    exception.
    """
    row = {k: job[k] for k in ("part", "dataset", "method", "setting", "seed")}
    row["params"] = json.dumps(job.get("params") or {}, sort_keys=True)
    row["versions"] = _versions()
    try:
        split = _split_for(job, data_home)
    except (OSError, ValueError) as exc:
        return {**row, "status": "error", "error": f"{type(exc).__name__}: {exc}"}
    # One thread per job, as in the paper's comparison (BLAS and OpenMP alike).
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    # The child imports the corset this process runs, not whatever ``corset`` folder the working
    # directory holds (a source checkout without its compiled kernels): -P keeps the working
    # directory off sys.path, and this corset's parent folder goes first on PYTHONPATH.
    package_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p)
    payload = pickle.dumps(({k: v for k, v in job.items()}, split), protocol=pickle.HIGHEST_PROTOCOL)
    try:
        done = subprocess.run([sys.executable, "-P", "-m", "corset.experiments._child"], input=payload,
                              capture_output=True, timeout=time_limit, env=env, check=False)
    except subprocess.TimeoutExpired:
        return {**row, "status": "timeout", "error": f"stopped after the time limit of {time_limit:g} s"}
    try:
        result = pickle.loads(done.stdout)
    except Exception:   # noqa: BLE001 - the child died (killed, out of memory...): say how
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        return {**row, "status": "error", "error": f"child exited with status {done.returncode}: {' / '.join(tail)}"}
    result.pop("traceback", None)
    if "params" in result:   # a random search: its result is the best parameters
        result["params"] = json.dumps(result["params"], sort_keys=True)
    if "path" in result:
        result["path"] = json.dumps(result["path"])
    return {**row, **result}


def read_rows(path):
    """The rows of a ``runs.csv``, numbers as floats (NaN where empty)."""
    path = Path(path)
    if not path.exists():
        return []
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for k in NUMERIC:
            value = row.get(k, "")
            row[k] = float(value) if value not in ("", None) else math.nan
        row["seed"] = int(row["seed"])
    return rows


def _append(path, rows):
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow(row)


def _run(jobs, csv_path, data_home, time_limit, n_jobs, progress, desc):
    """Run ``jobs`` with joblib (whatever backend is configured), appending each row as it comes."""
    from joblib import Parallel, delayed

    if not jobs:
        return
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(jobs), desc=desc, unit="run")
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    try:
        for row in parallel(delayed(execute)(job, data_home, time_limit) for job in jobs):
            _append(csv_path, [row])
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


def _tuned_params(rows):
    out = {}
    for row in rows:
        if row["part"] == "tuning" and row["status"] == "ok":
            params = json.loads(row["params"]) if row["params"] else None
            if params:
                out[(row["dataset"], row["method"])] = params
    return out


def run_experiment(config, out_dir, *, data_home=None, n_jobs=1, scheduler=None, progress=True):
    """Run (or resume) an experiment; its rows, with ``runs.csv`` in ``out_dir``.

    Parameters
    ----------
    config : ExperimentConfig
    out_dir : path-like
        Where ``runs.csv`` is written (appended to: finished jobs are skipped).
    data_home : path-like, optional
        The benchmark data folder (default: ``CORSET_DATA``).
    n_jobs : int, default=1
        Jobs run at the same time (joblib's convention: -1 is every core).
    scheduler : str or dask.distributed.Client, optional
        A Dask scheduler's address (or a client): the jobs go to its workers
        through joblib's Dask backend (needs the ``dask`` extra).
    progress : bool, default=True
        A progress bar per phase.

    Returns
    -------
    list of dict
        Every row of ``runs.csv`` (this run's and earlier ones).
    """
    from joblib import parallel_config

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "runs.csv"
    backend = {}
    client = None
    if scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError as exc:
            raise ImportError("scheduler= needs dask.distributed: pip install 'corset[dask]'") from exc
        client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
        backend = {"backend": "dask"}
        n_jobs = -1
    try:
        with parallel_config(**backend):
            done = {job_key(r) for r in read_rows(csv_path)}
            todo = [j for j in tuning_jobs(config) if job_key(j) not in done]
            _run(todo, csv_path, data_home, config.time_limit * max(1, config.n_trials), n_jobs, progress, "tuning")
            rows = read_rows(csv_path)
            done = {job_key(r) for r in rows}
            tuned = _tuned_params(rows)
            jobs = [j for j in evaluation_jobs(config, tuned) if job_key(j) not in done]
            missing = [j for j in jobs if j["params"] is None]
            _append(csv_path, [{**{k: j[k] for k in ("part", "dataset", "method", "setting", "seed")},
                                "status": "skipped", "error": "no tuned parameters (every trial failed)"}
                               for j in missing])
            _run([j for j in jobs if j["params"] is not None], csv_path, data_home, config.time_limit, n_jobs,
                 progress, "runs")
    finally:
        if client is not None and client is not scheduler:
            client.close()
    return read_rows(csv_path)
