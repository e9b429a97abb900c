"""A reference for what union-of-conjunctions rule sets can reach: micro-F1 greedy over all short heads.

Usage (from the repository root)::

    python asv_bench/f1_greedy_reference.py                       # emotions birds, validation splits
    python asv_bench/f1_greedy_reference.py --datasets emotions --test

Not CORSET: on the binarized training split (the paper's protocol), every
head of at most ``--max-head-length`` features (default 2) matched by at
least 2 training records, with every single-label tail, is a candidate; rules
are added greedily by the training micro-F1 of the rule set (predictions =
union of the tails of the firing rules, as in CORSET), until no rule raises
it or 150 rules.  It directly optimises the metric the classifier is judged
by, over an exhaustive pool, so its score tells how far the rule language
itself (conjunctions of "feature above its 90th percentile", no negative
evidence) goes on a data set.  By default it is scored on the three 70/30
validation splits of the training file used to choose the classifier's
defaults; ``--test`` fits on the whole training split and scores the
official test split.
"""
import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

try:
    import corset  # noqa: F401
except ImportError:  # run from a source checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks.common import binarized_benchmark  # noqa: E402


def _dense_bool(M):
    return (M.toarray() if sp.issparse(M) else np.asarray(M)).astype(bool)


def f1_greedy(X_train, Y_train, X_eval, heads, max_rules=150):
    """Rules (head index, label) added greedily by training micro-F1; returns the predictions on X_eval."""
    fire_train = np.stack([X_train[:, list(h)].all(1) for h in heads], 1)
    fire_eval = np.stack([X_eval[:, list(h)].all(1) for h in heads], 1)
    keep = fire_train.sum(0) >= 2
    fire_train, fire_eval = fire_train[:, keep], fire_eval[:, keep]
    counts = fire_train.astype(np.int32)
    predicted = np.zeros_like(Y_train)
    out = np.zeros((X_eval.shape[0], Y_train.shape[1]), dtype=bool)
    tp, fp, fn, current = 0, 0, int(Y_train.sum()), 0.0
    for _ in range(max_rules):
        new = ~predicted
        d_tp = counts.T @ (new & Y_train).astype(np.int32)
        d_fp = counts.T @ (new & ~Y_train).astype(np.int32)
        score = 2 * (tp + d_tp) / np.maximum(2 * (tp + d_tp) + fp + d_fp + fn - d_tp, 1)
        j, k = np.unravel_index(np.argmax(score), score.shape)
        if not score[j, k] > current:
            break
        current = float(score[j, k])
        tp, fp, fn = tp + int(d_tp[j, k]), fp + int(d_fp[j, k]), fn - int(d_tp[j, k])
        predicted[fire_train[:, j], k] = True
        out[fire_eval[:, j], k] = True
    return out


def main(argv=None):
    from sklearn.metrics import f1_score

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["emotions", "birds"])
    parser.add_argument("--max-head-length", type=int, default=2)
    parser.add_argument("--test", action="store_true")
    args = parser.parse_args(argv)
    for name in args.datasets:
        X_tr, Y_tr, X_te, Y_te = (_dense_bool(M) for M in binarized_benchmark(name))
        n, m = X_tr.shape
        heads = [h for size in range(1, args.max_head_length + 1) for h in itertools.combinations(range(m), size)]
        if args.test:
            scores = [f1_score(Y_te, f1_greedy(X_tr, Y_tr, X_te, heads), average="micro")]
        else:
            scores = []
            for split in (1, 2, 3):  # the classifier's validation splits
                perm = np.random.RandomState(100 + split).permutation(n)
                cut = int(0.7 * n)
                a, b = np.sort(perm[:cut]), np.sort(perm[cut:])
                scores.append(f1_score(Y_tr[b], f1_greedy(X_tr[a], Y_tr[a], X_tr[b], heads), average="micro"))
        where = "test" if args.test else "validation"
        print(f"{name}: {where} micro-F1 {np.mean(scores):.3f} ({' '.join(f'{s:.3f}' for s in scores)})", flush=True)


if __name__ == "__main__":
    main()
