"""Accuracy and rule count of the defaults on ordered categorical columns, cut in order or one-hot.

Usage (from the repository root)::

    python asv_bench/ordinal_columns.py [--seeds 0 1 2] [--n-train 1400]

A synthetic table of two ordered categorical columns and one number: a
garment ``size`` (XS < S < M < L < XL < XXL) and a ``grade`` (E < D < C < B
< A), drawn uniformly, and a standard normal ``price``.  Three labels, each
set by a threshold on the order of a category (the kind of fact an ordered
column holds), 5% label noise:

* ``large``: size >= L;
* ``premium``: grade >= B and price > 0;
* ``fits_most``: size in S..XL (two cuts of the same order) and grade >= C.

``--n-train`` training records and 600 test records.  The same values are
fitted by the default :class:`corset.CorsetClassifier` twice: once with
``pd.Categorical(..., ordered=True)`` columns, which are cut in the
categories' order (``size>M``: one item for L, XL and XXL), and once with
the same columns unordered, which become one item per category.  Printed:
micro-F1 on the test records, the rule count and each label's F1, per seed,
and their means.  The two threshold labels take one rule each when the
columns are ordered; the band label needs three literals of the ordered
columns (``size>XS``, ``NOT size>XL``, ``grade>D``), and a search that stops
at two of them scores lower there than the unordered model's many rules.
"""
import argparse

import numpy as np
import pandas as pd
from sklearn.metrics import f1_score

from corset import CorsetClassifier

SIZES = ["XS", "S", "M", "L", "XL", "XXL"]
GRADES = ["E", "D", "C", "B", "A"]


def garments(seed, n, ordered):
    """(X, Y): ``n`` records of the table above; ``ordered`` says how the two categorical columns are typed."""
    rng = np.random.RandomState(seed)
    size = rng.randint(len(SIZES), size=n)
    grade = rng.randint(len(GRADES), size=n)
    price = rng.normal(size=n)
    Y = np.column_stack([size >= SIZES.index("L"),
                         (grade >= GRADES.index("B")) & (price > 0),
                         (size >= SIZES.index("S")) & (size <= SIZES.index("XL")) & (grade >= GRADES.index("C"))])
    Y = Y.astype(np.uint8)
    flip = rng.rand(*Y.shape) < 0.05
    X = pd.DataFrame({"size": pd.Categorical.from_codes(size, SIZES, ordered=ordered),
                      "grade": pd.Categorical.from_codes(grade, GRADES, ordered=ordered),
                      "price": price})
    return X, np.where(flip, 1 - Y, Y)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--n-train", type=int, default=1400)
    args = parser.parse_args(argv)
    n_test = 600
    print("seed  ordered F1 (rules)  unordered F1 (rules)  per-label F1 ordered | unordered")
    means = {True: [], False: []}
    for seed in args.seeds:
        row, labels = [], []
        for ordered in (True, False):
            X, Y = garments(seed, args.n_train + n_test, ordered)
            model = CorsetClassifier(random_state=seed).fit(X.iloc[:args.n_train], Y[:args.n_train])
            predicted = model.predict(X.iloc[args.n_train:])
            f1 = f1_score(Y[args.n_train:], predicted, average="micro")
            means[ordered].append((f1, len(model.rules_)))
            row.append(f"{f1:.3f} ({len(model.rules_)})")
            per_label = f1_score(Y[args.n_train:], predicted, average=None)
            labels.append(" ".join(f"{v:.3f}" for v in per_label))
        print(f"{seed:4d}  {row[0]:>18}  {row[1]:>20}  {labels[0]} | {labels[1]}")
    summary = [f"{np.mean([f for f, _ in means[o]]):.3f} ({np.mean([r for _, r in means[o]]):.1f})"
               for o in (True, False)]
    print(f"mean  {summary[0]:>18}  {summary[1]:>20}")


if __name__ == "__main__":
    main()
