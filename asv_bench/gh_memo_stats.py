"""How CORSET-GH's search trees behave in default fits: nodes, entries, completions, time.

Usage (from the repository root)::

    python asv_bench/gh_memo_stats.py                      # emotions medical enron CAL500 corel5k bibtex
    python asv_bench/gh_memo_stats.py --datasets enron --seed 1

For each dataset, fits ``CorsetClassifier(random_state=seed)`` on the
official training split (binarized as in the paper's protocol), times every
call of ``corset._ext._gh_memo.greedy_heads_memo`` (the GH searches of the
fit), and prints the size of the memo at the end of the fit: nodes, stored
entries (24 bytes each), nodes completed because their truncated list
held none of a search's candidates, and searches whose last step was made
without its node (dense records).
"""
import argparse
import sys
import time
from pathlib import Path

try:
    import corset  # noqa: F401
except ImportError:  # run from a source checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks.common import binarized_benchmark  # noqa: E402

DEFAULT_DATASETS = ["emotions", "medical", "enron", "CAL500", "corel5k", "bibtex"]


def stats(name, seed):
    from corset import CorsetClassifier
    from corset.sampling import _head_gh as _gh

    X, Y, _, _ = binarized_benchmark(name)
    kernel = _gh._gh_memo.greedy_heads_memo
    record = {"time": 0.0, "calls": 0, "jobs": 0, "memo": None}

    def timed(memo, *args, **kwargs):
        start = time.perf_counter()
        out = kernel(memo, *args, **kwargs)
        record["time"] += time.perf_counter() - start
        record["calls"] += 1
        record["jobs"] += len(args[11])  # job_neg: one entry per search
        record["memo"] = memo
        return out

    _gh._gh_memo.greedy_heads_memo = timed
    try:
        start = time.perf_counter()
        model = CorsetClassifier(random_state=seed).fit(X, Y)
        fit = time.perf_counter() - start
    finally:
        _gh._gh_memo.greedy_heads_memo = kernel
    memo = record["memo"]
    return [name, f"{fit:.2f}", f"{record['time']:.2f}", record["calls"], record["jobs"],
            memo.n_nodes if memo else 0, memo.n_entries if memo else 0, memo.n_upgrades if memo else 0,
            memo.n_direct_steps if memo else 0, len(model.rules_)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DEFAULT_DATASETS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    header = ["dataset", "fit s", "GH s", "calls", "searches", "nodes", "entries", "completed", "direct",
              "rules"]
    print("  ".join(f"{h:>9}" for h in header))
    for name in args.datasets:
        print("  ".join(f"{v:>9}" for v in stats(name, args.seed)), flush=True)


if __name__ == "__main__":
    main()
