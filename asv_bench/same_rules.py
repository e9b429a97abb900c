"""A fixed list of fits whose rules must not change under a refactoring.

Usage (from the repository root)::

    python asv_bench/same_rules.py --write /tmp/rules-before.json   # before the change
    python asv_bench/same_rules.py --check /tmp/rules-before.json   # after: IDENTICAL or the differences

The list: the default ``CorsetClassifier`` on the seven shared benchmark
sets (binarized as in the paper's protocol, ``common.binarized_benchmark``)
at seeds 0 and 1 with ``n_jobs`` 1 and 2; non-default configurations on
emotions and medical that run the other code paths (the SURS and CFTP head
samplers, the full tail space, the paper's quality, the second round,
negated literals, the F1 stop); three synthetic sets (``make_rule_data``);
and :func:`corset.selection.select_rules` on a fixed pool.  Each fit is
recorded as its rules (head literals, negated features, tail), the stop
reason and the objective, written to JSON.

The binarized matrices are kept in ``--cache`` (an ``.npz`` per data set,
written on first use) so that a change of the binarizer cannot change the
input of a later check.  Benchmark sets are skipped, with a line saying so,
when the data folder is absent.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

try:
    import corset  # noqa: F401
except ImportError:  # run from a source checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks.common import data_home  # noqa: E402

DATASETS = ["emotions", "birds", "medical", "enron", "CAL500", "corel5k", "bibtex"]

# Non-default configurations: (data set, parameters).  Each runs a code path the defaults do not.
VARIANTS = [
    ("emotions", {"head_sampler": "surs"}),
    ("emotions", {"head_sampler": "cftp", "max_head_length": 3}),
    ("emotions", {"tail_space": "full"}),
    ("emotions", {"quality": "paper", "lam": 1.0, "tol": 0.0, "share_criterion": "chosen"}),
    ("emotions", {"second_round": True}),
    ("emotions", {"negations": False, "f1_patience": 3}),
    ("medical", {"negations": True}),
    ("medical", {"second_round": True, "quality": "paper"}),
    ("medical", {"default_rule": False, "min_support": 1}),
    ("birds", {"n_rules": 20, "patience": 2, "share_criterion": "chosen"}),
]


def _binarized(name, cache):
    """(X_train, Y_train) of a benchmark set, read from ``cache`` when it holds them."""
    path = Path(cache) / f"{name}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as f:
            X = sp.csr_array((f["xd"], f["xi"], f["xp"]), shape=tuple(f["xs"]))
            Y = sp.csr_array((f["yd"], f["yi"], f["yp"]), shape=tuple(f["ys"]))
        return X, Y
    from benchmarks.common import binarized_benchmark

    X, Y, _, _ = binarized_benchmark(name)
    X, Y = sp.csr_array(X), sp.csr_array(Y)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, xd=X.data, xi=X.indices, xp=X.indptr, xs=np.array(X.shape),
             yd=Y.data, yi=Y.indices, yp=Y.indptr, ys=np.array(Y.shape))
    return X, Y


def _record(model):
    rules = [[list(map(int, r.head)), list(map(int, r.negated)), list(map(int, r.tail))] for r in model.rules_]
    sel = model.selection_
    return {"rules": rules, "stop_reason": sel.stop_reason, "objective": repr(float(sel.objective))}


def _fit(X, Y, **params):
    from corset.model import CorsetClassifier

    start = time.perf_counter()
    model = CorsetClassifier(**params).fit(X, Y)
    return _record(model), time.perf_counter() - start


def _fits(cache, quick=False):
    """Yield (fit id, record, seconds) for every fit of the list."""
    from corset.datasets import make_rule_data
    from corset.selection import select_rules

    have_data = data_home() is not None
    if not have_data:
        print("benchmark data folder not found (set CORSET_DATA): the benchmark fits are skipped")
    datasets = DATASETS[:3] if quick else DATASETS
    for name in datasets if have_data else []:
        X, Y = _binarized(name, cache)
        for seed in (0, 1):
            for n_jobs in (1, 2):
                record, seconds = _fit(X, Y, random_state=seed, n_jobs=n_jobs)
                yield f"{name} seed={seed} n_jobs={n_jobs}", record, seconds
    for name, params in VARIANTS if have_data else []:
        X, Y = _binarized(name, cache)
        record, seconds = _fit(X, Y, random_state=0, **params)
        yield f"{name} {json.dumps(params, sort_keys=True)}", record, seconds
    for i, (n, p, q) in enumerate([(600, 40, 12), (2000, 80, 30), (400, 25, 6)]):
        data = make_rule_data(n_records=n, n_features=p, n_labels=q, random_state=i)
        X, Y = data.X, data.Y
        for n_jobs in (1, 2):
            record, seconds = _fit(X, Y, random_state=i, n_jobs=n_jobs)
            yield f"synthetic {n}x{p}x{q} n_jobs={n_jobs}", record, seconds
    # select_rules on a fixed pool (the standalone entry point).
    data = make_rule_data(n_records=300, n_features=20, n_labels=5, random_state=7)
    X, Y = data.X, data.Y
    rng = np.random.RandomState(7)
    pool = [(tuple(sorted(rng.choice(20, rng.randint(1, 3), replace=False).tolist())),
             tuple(sorted(rng.choice(5, rng.randint(1, 3), replace=False).tolist()))) for _ in range(300)]
    for kwargs in ({}, {"quality": "submodular", "lam": 0.1, "tol": None}, {"f1_patience": 2, "min_support": 2}):
        result = select_rules(X, Y, pool, n_rules=30, **kwargs)
        record = {"rules": [[list(h), [], list(t)] for h, t in result.rules], "stop_reason": result.stop_reason,
                  "objective": repr(float(result.objective))}
        yield f"select_rules {json.dumps(kwargs, sort_keys=True)}", record, 0.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE", help="write the records of every fit to FILE")
    group.add_argument("--check", metavar="FILE", help="compare every fit with FILE")
    parser.add_argument("--cache", default="/tmp/corset-same-rules", help="folder of the binarized matrices")
    parser.add_argument("--quick", action="store_true", help="only the first three benchmark sets")
    args = parser.parse_args(argv)
    records, total = {}, 0.0
    reference = json.loads(Path(args.check).read_text()) if args.check else None
    differ = []
    for key, record, seconds in _fits(args.cache, args.quick):
        records[key] = record
        total += seconds
        if reference is not None:
            if key not in reference:
                print(f"NEW        {key}")
            elif reference[key] != record:
                differ.append(key)
                print(f"DIFFERENT  {key}: {len(reference[key]['rules'])} -> {len(record['rules'])} rules, "
                      f"{reference[key]['stop_reason']} -> {record['stop_reason']}")
    print(f"{len(records)} fits, {total:.1f} s of fitting")
    if args.write:
        Path(args.write).write_text(json.dumps(records, indent=1, sort_keys=True))
        print(f"written to {args.write}")
        return 0
    missing = sorted(set(reference) - set(records))
    for key in missing:
        print(f"MISSING    {key}")
    if differ or missing:
        print(f"{len(differ)} of {len(records)} fits differ")
        return 1
    print("IDENTICAL")
    return 0


if __name__ == "__main__":
    sys.exit(main())
