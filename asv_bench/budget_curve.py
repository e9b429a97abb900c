"""Test micro-F1 against the rule budget ``n_rules``, from raw features, on the benchmark sets.

One fit per budget (the default rule and the stopping rules depend on the
budget, so a prefix of a larger fit is not the same model).  Prints a
Markdown table of mean test micro-F1 (and mean number of rules) per budget
and, with ``--plot FILE``, draws the curves.

Usage::

    python asv_bench/budget_curve.py [--datasets ...] [--budgets 25 50 100 150 300 600] [--seeds 0 1 2]
                                     [--data-home DIR] [--plot curves.png] [--set validated_stop=False ...]

``--set NAME=VALUE`` changes an estimator parameter for every fit (VALUE
read as a Python literal: ``--set validated_stop=False`` draws the curves
without the validated stop).

``--validation K`` scores on validation splits of the training files
instead of the test files: K shuffled 70/30 splits of each official training
split (``ShuffleSplit(K, test_size=0.3, random_state=12345)``), each fitted
with every seed on its 70 % and scored on its 30 %; the test files are not
read.  This is how a default is to be chosen (the test splits only check it)::

    python asv_bench/budget_curve.py --budgets 150 --seeds 0 1 --validation 3 --set n_tails=100 n_heads_per_tail=5
"""
import ast
import argparse

import numpy as np
from sklearn.metrics import f1_score
from sklearn.model_selection import ShuffleSplit
from sklearn.utils import _safe_indexing

from corset.experiments import load_split
from corset.model import CorsetClassifier


def _parts(split, validation):
    """``(X_fit, Y_fit, X_score, Y_score)`` per part: the official split, or ``validation``
    70/30 splits of its training part (raw features; the test part is not read)."""
    if not validation:
        return [(split.X_train_raw, split.Y_train, split.X_test_raw, split.Y_test)]
    X, Y = split.X_train_raw, np.asarray(split.Y_train)
    return [(_safe_indexing(X, fit), Y[fit], _safe_indexing(X, held), Y[held])
            for fit, held in ShuffleSplit(validation, test_size=0.3, random_state=12345).split(Y)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+",
                        default=["emotions", "birds", "medical", "enron", "CAL500", "corel5k", "bibtex"])
    parser.add_argument("--budgets", nargs="+", type=int, default=[25, 50, 100, 150, 300, 600])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--plot", default=None, metavar="FILE")
    parser.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE",
                        help="estimator parameters for every fit")
    parser.add_argument("--validation", type=int, default=None, metavar="K",
                        help="score on K 70/30 validation splits of the training files, not on the test files")
    args = parser.parse_args(argv)
    params = {}
    for item in args.set:
        key, _, value = item.partition("=")
        params[key] = ast.literal_eval(value)
    table = {}
    for name in args.datasets:
        split = load_split(name, args.data_home)
        for budget in args.budgets:
            f1s, rules = [], []
            for X_fit, Y_fit, X_score, Y_score in _parts(split, args.validation):
                for seed in args.seeds:
                    model = CorsetClassifier(n_rules=budget, random_state=seed, **params).fit(X_fit, Y_fit)
                    f1s.append(f1_score(Y_score, model.predict(X_score), average="micro", zero_division=0))
                    rules.append(len(model.rules_))
            table[name, budget] = (float(np.mean(f1s)), float(np.mean(rules)))
        print(name, " ".join(f"{b}:{table[name, b][0]:.4f}" for b in args.budgets), flush=True)
    scored = (f"validation micro-F1 ({args.validation} 70/30 splits of the training files)" if args.validation
              else "Test micro-F1")
    print(f"\n{scored} (mean number of rules) against n_rules, seeds {args.seeds}, parameters {params}\n")
    print("| data | " + " | ".join(f"n_rules={b}" for b in args.budgets) + " |")
    print("|---|" + "---|" * len(args.budgets))
    for name in args.datasets:
        print(f"| {name} | " + " | ".join(f"{table[name, b][0]:.3f} ({table[name, b][1]:.0f})"
                                        for b in args.budgets) + " |")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        for name in args.datasets:
            ax.plot(args.budgets, [table[name, b][0] for b in args.budgets], marker="o", label=name)
        ax.set_xscale("log")
        ax.set_xlabel("n_rules (budget)")
        ax.set_ylabel("validation micro-F1" if args.validation else "test micro-F1")
        ax.legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
