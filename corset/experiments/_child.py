"""Run one job of an experiment in this process, fed by a parent through stdin and stdout.

``python -m corset.experiments._child`` reads a pickled ``(job, split)``
from stdin and writes the pickled row of measures to stdout.  Each fit runs
in its own process so that a time limit can stop it (the parent kills the
process) and its peak memory is its own: the resident set's high-water mark
is reset just before the fit (Linux ``/proc/self/clear_refs``) and read
after the predictions.
"""
import pickle
import sys
import traceback


def _rss_mb(field):
    """VmRSS or VmHWM of this process in MB (NaN where /proc is not there)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def _reset_peak():
    """Reset the high-water mark of the resident set to its current size; False where unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def run(job, split):
    """The row of measures of ``job`` (a dict, see :mod:`corset.experiments._runner`) on ``split``."""
    import warnings

    from ._methods import METHODS, fit_and_measure, tune

    method = METHODS[job["method"]]
    # A method's modules are imported when its estimator is made (corset's lazy ones included,
    # see _methods._import_corset), before the clock starts: a fit's time is the fit's.
    warnings.simplefilter("ignore")   # clique truncations, convergence warnings: the row says what came out
    if job["part"] == "tuning":
        params, f1, failed = tune(method, split, job["n_trials"], seed=job["seed"])
        return {"params": params, "validation_f1": f1, "failed_trials": failed}
    baseline = _rss_mb("VmRSS")
    exact_peak = _reset_peak()
    row = fit_and_measure(method, split, job["params"], job["seed"], overlap=job.get("overlap", False),
                          path=job.get("path", False))
    row["peak_mb"] = max(0.0, _rss_mb("VmHWM") - baseline) if exact_peak else float("nan")
    return row


def main():
    job, split = pickle.load(sys.stdin.buffer)
    try:
        if split is None:   # synthetic data are made here, from the job's parameters
            from ._protocol import synthetic_split

            split = synthetic_split(**{k: v for k, v in job["data"].items() if k != "kind"})
        result = {"status": "ok", **run(job, split)}
    except Exception as exc:   # noqa: BLE001 - reported in the row, not lost
        result = {"status": "error", "error": f"{type(exc).__name__}: {exc}",
                  "traceback": traceback.format_exc(limit=5)}
    sys.stdout.buffer.write(pickle.dumps(result))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
