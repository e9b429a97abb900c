"""The measured effect of each departure of corset's defaults from the paper's Algorithm 1.

For each benchmark set (official splits, raw features in) and seed, fits:
the defaults; the defaults with one departure put back to the paper's
choice (one fit per departure); and ``CorsetClassifier.paper()`` (untuned,
λ = 1).  Prints a Markdown table of test micro-F1 and number of rules (mean
over the seeds), each departure as the change it makes when it is undone.

Usage::

    python asv_bench/departures.py [--datasets emotions birds ...] [--seeds 0 1 2] [--data-home DIR]
"""
import argparse
import time

import numpy as np
from sklearn.base import clone
from sklearn.metrics import f1_score

from corset.experiments import load_split
from corset.model import PAPER_PRESET, CorsetClassifier
from corset.preprocessing import PercentileBinarizer

DEPARTURES = {
    "cuts: cross-validated -> 90th percentile only": {"binarizer": PercentileBinarizer()},
    "quality: submodular Q -> paper's q": {"quality": "paper"},
    "stop: τ (3 occurrences) -> budget only": {"tol": None},
    "heads: at most 3 literals -> unbounded": {"max_head_length": None},
    "min_support: 2 -> 1": {"min_support": 1},
    "negations: auto -> off": {"negations": False},
    "f1_patience: auto -> off": {"f1_patience": None},
    "default rule: on -> off": {"default_rule": False},
    "prune_redundant: on -> off": {"prune_redundant": False},
    "complete_tails: auto -> off": {"complete_tails": False},
    "validated stop: auto -> off": {"validated_stop": False},
    "λ: 0.1 -> 1": {"lam": PAPER_PRESET["lam"]},
    "γ: auto -> 0.5": {"gh_gamma": PAPER_PRESET["gh_gamma"]},
}


def measure(split, make, seeds):
    f1s, rules, times = [], [], []
    for seed in seeds:
        model = make(seed)
        start = time.perf_counter()
        model.fit(split.X_train_raw, split.Y_train)
        times.append(time.perf_counter() - start)
        f1s.append(f1_score(split.Y_test, model.predict(split.X_test_raw), average="micro", zero_division=0))
        rules.append(len(model.rules_))
    return float(np.mean(f1s)), float(np.mean(rules)), float(np.mean(times))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+",
                        default=["emotions", "birds", "medical", "enron", "CAL500", "corel5k", "bibtex"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args(argv)
    variants = {"defaults": {}, **DEPARTURES}
    results = {}
    for name in args.datasets:
        split = load_split(name, args.data_home)
        for label, change in variants.items():
            results[name, label] = measure(split, lambda s, change=change: CorsetClassifier(
                random_state=s, **{k: clone(v) if hasattr(v, "get_params") else v for k, v in change.items()}),
                                          args.seeds)
        results[name, "paper preset"] = measure(split, lambda s: CorsetClassifier.paper(random_state=s), args.seeds)
        print(f"{name} done", flush=True)
    labels = list(variants) + ["paper preset"]
    print(f"\nTest micro-F1 (mean of seeds {args.seeds}), number of rules; for a departure, the change when it is "
          "undone\n")
    print("| | " + " | ".join(args.datasets) + " |")
    print("|---|" + "---|" * len(args.datasets))
    for label in labels:
        cells = []
        for name in args.datasets:
            f1, rules, _ = results[name, label]
            if label in DEPARTURES:
                base, base_rules, _ = results[name, "defaults"]
                cells.append(f"{f1 - base:+.3f} ({rules - base_rules:+.0f})")
            else:
                cells.append(f"{f1:.3f} ({rules:.0f})")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
