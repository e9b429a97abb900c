"""Median fit time of the default CorsetClassifier on the seven shared sets, for before/after comparisons.

Usage (from the repository root)::

    python asv_bench/time_fits.py --repeats 7                 # the installed corset
    /path/to/other/venv/bin/python asv_bench/time_fits.py     # another build, same matrices

The binarized training matrices are read from the cache of
``asv_bench/same_rules.py`` (``--cache``, written there on first use), so two
builds are timed on identical input.  Each fit is single-threaded (``n_jobs=1``), seed 0;
the table gives the median and the minimum over ``--repeats`` fits, with the
number of rules.  Run two builds alternately, several times, and compare
medians: a single run on a shared machine is noisy.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from same_rules import DATASETS, _binarized  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default="/tmp/corset-same-rules")
    args = parser.parse_args(argv)
    import corset
    from corset.model import CorsetClassifier

    print(f"corset from {Path(corset.__file__).parent}")
    print(f"{'dataset':10} {'median s':>9} {'min s':>9} {'rules':>6}")
    for name in args.datasets:
        X, Y = _binarized(name, args.cache)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            model = CorsetClassifier(random_state=args.seed, n_jobs=1).fit(X, Y)
            times.append(time.perf_counter() - start)
        print(f"{name:10} {statistics.median(times):9.4f} {min(times):9.4f} {len(model.rules_):6d}", flush=True)


if __name__ == "__main__":
    main()
