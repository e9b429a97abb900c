"""Fit time, peak memory and prediction speed of the default classifier as the synthetic data grows.

Usage (from the repository root)::

    python asv_bench/scale.py                          # 10^4 ... 10^6 records, one run each
    python asv_bench/scale.py --sizes 100000 1000000 --repeats 3
    python asv_bench/scale.py --plot scale.png         # and draw the curves

The data is ``make_rule_data(n_records=N, n_features=120, n_labels=101,
random_state=0)`` (mediamill's shape), fitted by
``CorsetClassifier(random_state=0)`` with the defaults.  Every run is a fresh
child process, so that no size inherits the heap of another: the parent
reads the child's peak resident set (``ru_maxrss``) from the kernel when the
child ends.  The child reports its own ``ru_maxrss`` at two points as well:
right after the data is generated (what the data alone costs, imports
included) and right after the fit (before predicting), so that

* ``data MB`` is the peak of generating the data,
* ``fit MB`` is the peak up to the end of the fit (data included; the fit's
  own share is the difference),
* ``all MB`` is the peak of the whole child, prediction included.

``fit cpu s`` is the CPU time of the fit's process (user and system): on a
shared machine it stays near the wall time the fit would take alone, while
``fit s`` grows with the other work (the fit runs one thread by default).
``predict rec/s`` is N over the time of ``model.predict(X)`` on the training
X.  With ``--repeats`` > 1 the table shows the median of each column.
``--plot FILE`` draws fit time and peak memory (the fit's, data included, and
the data's alone) against N on log-log axes, with a line of slope 1 through
the largest size for reference: memory that grows linearly with the data
runs parallel to it.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_SIZES = [10_000, 30_000, 100_000, 300_000, 1_000_000]


def _maxrss_mb(who):
    import resource

    return resource.getrusage(who).ru_maxrss / 1024.0   # Linux: kilobytes


def _cpu_seconds():
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(n_records, n_features, n_labels, seed):
    """One run in this process: prints one JSON line."""
    import resource

    import corset
    from corset.datasets import make_rule_data
    from corset.model import CorsetClassifier

    out = {"corset": str(Path(corset.__file__).parent), "import_mb": _maxrss_mb(resource.RUSAGE_SELF)}
    start = time.perf_counter()
    data = make_rule_data(n_records=n_records, n_features=n_features, n_labels=n_labels, random_state=seed)
    out["gen_s"] = time.perf_counter() - start
    out["data_mb"] = _maxrss_mb(resource.RUSAGE_SELF)
    X, Y = data.X, data.Y
    del data
    start, cpu = time.perf_counter(), _cpu_seconds()
    model = CorsetClassifier(random_state=seed).fit(X, Y)
    out["fit_s"] = time.perf_counter() - start
    out["fit_cpu_s"] = _cpu_seconds() - cpu
    out["fit_mb"] = _maxrss_mb(resource.RUSAGE_SELF)
    out["n_rules"] = len(model.rules_)
    start = time.perf_counter()
    model.predict(X)
    out["predict_s"] = time.perf_counter() - start
    print(json.dumps(out), flush=True)


def run_child(n_records, args):
    """One fresh process for one run; its result with the peak RSS the kernel kept for it."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(n_records),
           "--n-features", str(args.n_features), "--n-labels", str(args.n_labels), "--seed", str(args.seed)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    stdout = proc.stdout.read()
    # wait4 gives the rusage of this child alone (RUSAGE_CHILDREN keeps the largest of every child so far).
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"the run with {n_records} records failed (exit code {proc.returncode})")
    out = json.loads(stdout.strip().splitlines()[-1])
    out["all_mb"] = usage.ru_maxrss / 1024.0
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=DEFAULT_SIZES, help="numbers of records")
    parser.add_argument("--repeats", type=int, default=1, help="runs per size (medians are shown)")
    parser.add_argument("--n-features", type=int, default=120)
    parser.add_argument("--n-labels", type=int, default=101)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default=None, metavar="FILE", help="draw the curves into FILE (matplotlib)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child, args.n_features, args.n_labels, args.seed)
        return 0
    print(f"make_rule_data(N, n_features={args.n_features}, n_labels={args.n_labels}, random_state={args.seed}), "
          f"CorsetClassifier(random_state={args.seed}); median of {args.repeats} run(s), each in a fresh process")
    header = (f"{'N':>9} {'gen s':>7} {'data MB':>8} {'fit s':>8} {'fit cpu s':>9} {'fit MB':>8} {'all MB':>8} "
              f"{'rules':>6} {'predict rec/s':>14}")
    print(header, flush=True)
    rows = []
    for n in args.sizes:
        runs = [run_child(n, args) for _ in range(args.repeats)]

        def med(key):
            return statistics.median(r[key] for r in runs)

        rows.append((n, med("fit_s"), med("fit_mb"), med("data_mb")))

        print(f"{n:9d} {med('gen_s'):7.2f} {med('data_mb'):8.0f} {med('fit_s'):8.2f} {med('fit_cpu_s'):9.2f} "
              f"{med('fit_mb'):8.0f} "
              f"{med('all_mb'):8.0f} {runs[0]['n_rules']:6d} {n / med('predict_s'):14,.0f}", flush=True)
    print(f"imports alone: {runs[0]['import_mb']:.0f} MB; corset from {runs[0]['corset']}")
    if args.plot:
        _plot(rows, args.plot)
    return 0


def _plot(rows, path):
    """Fit time and peak memory against the number of records, log-log, with slope-1 guides."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = [r[0] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, series, unit in ((left, [("fit", [r[1] for r in rows])], "fit time (s)"),
                             (right, [("fit, data included", [r[2] for r in rows]),
                                      ("data alone", [r[3] for r in rows])], "peak memory (MB)")):
        for label, values in series:
            ax.plot(n, values, marker="o", label=label)
        top = series[0][1][-1]
        ax.plot(n, [top * x / n[-1] for x in n], linestyle=":", color="grey", label="slope 1")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("records")
        ax.set_ylabel(unit)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"curves written to {path}")


if __name__ == "__main__":
    sys.exit(main())
