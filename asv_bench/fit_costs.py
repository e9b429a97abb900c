"""Where a default fit's time goes: internal validation, greedy steps, and the parts of a step.

Usage (from the repository root)::

    python asv_bench/fit_costs.py                          # emotions medical enron CAL500
    python asv_bench/fit_costs.py --raw --datasets birds bibtex --repeats 3

For each data set, fits ``CorsetClassifier(random_state=seed, n_jobs=1)`` on
the official training split (binarized as in the paper's protocol, or from
raw features with ``--raw``) and times, with wall-clock wrappers around the
library's own functions (``cProfile`` would inflate the Python parts several
times over):

* ``fit s``: the whole fit (median over ``--repeats``; the other columns are
  summed over the repeats and given as shares of their summed fit time);
* ``folds``: the internal validation's fold fits and their held-out curves
  (one thread: with ``n_jobs`` they would run in other processes);
* ``steps``: greedy steps of Algorithm 1 per fit, fold fits included, and
  ``ms/step``: the time inside the greedy loops over those steps;
* inside the loops: ``search`` (CORSET-GH's compiled searches,
  ``GreedyHeadSearch.search_seconds_``), ``pairs`` (their seed pairs,
  ``HeadSampler.sample_pairs_many``), ``heads other`` (the rest of the head
  sampling: set-up and the pool's arrays), ``tails`` (the tail draws) and
  ``selection`` (the rest of a step: candidate store, gains, choice,
  coverage update, stopping criteria);
* ``outside``: everything outside the greedy loops (binarization, data
  layers, fold splits, prefix curves, the rules' statistics).

The columns ``search`` to ``outside`` add up to 100%.  The wrappers cost a few
microseconds per call; the fit times are a little above unwrapped ones.
"""
import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path

try:
    import corset  # noqa: F401
except ImportError:  # run from a source checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks.common import binarized_benchmark, data_home  # noqa: E402

DEFAULT_DATASETS = ["emotions", "medical", "enron", "CAL500"]
TIMED = ("folds", "loops", "pool", "tails", "pairs", "search")


@contextlib.contextmanager
def timed_parts(totals, counts):
    """Wrap the functions whose time is reported; ``totals[part]`` sums their wall time."""
    import corset.model._classifier as classifier
    import corset.sampling._candidates as candidates
    import corset.sampling._head_exact as head_exact
    import corset.sampling._head_gh as head_gh
    import corset.selection._greedy as greedy

    patched = []

    def wrap(owner, name, part=None, after=None):
        # ``part``: where the call's wall time goes (None: not timed); ``after``: called with its arguments.
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                if part is not None:
                    totals[part] += time.perf_counter() - start
                if after is not None:
                    after(*args)

        patched.append((owner, name, original))
        setattr(owner, name, timed)

    def count_step(*args):
        counts["steps"] += 1

    def add_search(search, *args):
        totals["search"] += search.search_seconds_

    wrap(classifier, "_fold_curve", "folds")
    wrap(greedy, "_greedy", "loops")
    wrap(greedy._GeneratedPools, "step", after=count_step)
    wrap(candidates.CandidateGenerator, "candidate_pool", "pool")
    wrap(candidates.CandidateGenerator, "_draw_tails", "tails")
    wrap(head_exact.HeadSampler, "sample_pairs_many", "pairs")
    wrap(head_gh.GreedyHeadSearch, "_run_searches", after=add_search)   # the kernel's own time
    try:
        yield
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)


def training_data(name, raw):
    """The official training split of ``name``: raw features, or binarized as in the paper's protocol."""
    if raw:
        from corset.experiments import load_split

        split = load_split(name, data_home())
        return split.X_train_raw, split.Y_train
    return binarized_benchmark(name)[:2]


def costs(X, Y, seed, repeats):
    """Default fits of ``(X, Y)`` timed part by part: the median fit time, the shares of the
    summed fit time (``folds`` and, adding up to 1, ``shares``), steps per fit, ms per step."""
    from corset import CorsetClassifier

    CorsetClassifier(random_state=seed, n_jobs=1).fit(X, Y)   # warm-up: imports, first allocations
    totals = dict.fromkeys(TIMED, 0.0)
    counts = {"steps": 0}
    fits = []
    with timed_parts(totals, counts):
        for _ in range(repeats):
            start = time.perf_counter()
            model = CorsetClassifier(random_state=seed, n_jobs=1).fit(X, Y)
            fits.append(time.perf_counter() - start)
    total = sum(fits)
    heads_other = totals["pool"] - totals["tails"] - totals["pairs"] - totals["search"]
    parts = {"search": totals["search"], "pairs": totals["pairs"], "heads other": heads_other,
             "tails": totals["tails"], "selection": totals["loops"] - totals["pool"],
             "outside": total - totals["loops"]}
    return {"fit": statistics.median(fits), "folds": totals["folds"] / total, "steps": counts["steps"] / repeats,
            "ms_per_step": 1000 * totals["loops"] / max(counts["steps"], 1),
            "shares": {part: value / total for part, value in parts.items()}, "rules": len(model.rules_)}


def row(name, measured):
    """The table's cells for one data set."""
    return ([name, f"{measured['fit']:.3f}", f"{100 * measured['folds']:.0f}%", f"{measured['steps']:.0f}",
             f"{measured['ms_per_step']:.2f}"]
            + [f"{100 * share:.0f}%" for share in measured["shares"].values()] + [measured["rules"]])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=DEFAULT_DATASETS, metavar="NAME")
    parser.add_argument("--repeats", type=int, default=3, help="fits per data set (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--raw", action="store_true", help="fit the raw features (default: binarized)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1; got {args.repeats}")
    if data_home() is None:
        parser.error("benchmark data folder not found (set CORSET_DATA)")
    header = ["dataset", "fit s", "folds", "steps", "ms/step", "search", "pairs", "heads other", "tails",
              "selection", "outside", "rules"]
    rows = [row(name, costs(*training_data(name, args.raw), args.seed, args.repeats)) for name in args.datasets]
    widths = [max(len(str(cells[i])) for cells in [header] + rows) for i in range(len(header))]
    print(f"seed {args.seed}, {args.repeats} fit(s) per data set, one thread, "
          f"{'raw features' if args.raw else 'binarized matrices'}; shares of the fit time")
    for cells in [header] + rows:
        print("  ".join(str(cell).rjust(width) for cell, width in zip(cells, widths)))


if __name__ == "__main__":
    main()
