"""Accuracy of the default estimator when values go missing at random.

Usage (from the repository root)::

    python asv_bench/missing_values.py [--fraction 0.2] [--seeds 0 1 2]

A synthetic set of numeric columns (a clinical-style table: ten standard
normal measurements, three labels each set by a conjunction of two
thresholds, 5% label noise), 1,500 records, the first 1,000 for training.
Each fit is run on the complete data and with ``--fraction`` of every
column's values replaced by NaN at random (training and test alike), with
the default :class:`corset.CorsetClassifier`.  A missing value satisfies
none of its column's literals, so the drop measures what the rules lose
when the values they test are not there.  Printed: micro-F1 on the last 500
records and the rule count, per seed; beside them, the same fit after
scikit-learn's mean imputation (``SimpleImputer``, fitted on the training
part), the usual alternative.
"""
import argparse
import warnings

import numpy as np
from sklearn.impute import SimpleImputer
from sklearn.metrics import f1_score

from corset import CorsetClassifier


def clinical(seed, n=1500, d=10):
    """(X, Y): ``d`` normal measurements; label k is ``x_a > t1 AND x_b > t2`` for fixed pairs."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    Y = np.column_stack([(X[:, 0] > 0.3) & (X[:, 1] > -0.2),
                         (X[:, 2] > 0.5) & (X[:, 3] < 0.0),
                         (X[:, 4] > -0.5) & (X[:, 5] > 0.8)]).astype(int)
    flip = rng.rand(*Y.shape) < 0.05
    return X, np.where(flip, 1 - Y, Y)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fraction", type=float, default=0.2, help="share of each column's values made missing")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args(argv)
    print("seed  complete F1 (rules)  missing F1 (rules)  mean-imputed F1 (rules)")
    for seed in args.seeds:
        X, Y = clinical(seed)
        holes = X.copy()
        holes[np.random.RandomState(seed + 1000).rand(*X.shape) < args.fraction] = np.nan
        imputed = SimpleImputer().fit(holes[:1000]).transform(holes)
        row = []
        for data in (X, holes, imputed):
            with warnings.catch_warnings():
                warnings.simplefilter("error")   # no warning may come with missing values seen in fit
                model = CorsetClassifier(random_state=seed).fit(data[:1000], Y[:1000])
                f1 = f1_score(Y[1000:], model.predict(data[1000:]), average="micro")
            row.append(f"{f1:.3f} ({len(model.rules_)})")
        print(f"{seed:4d}  {row[0]:>19}  {row[1]:>18}  {row[2]:>23}")


if __name__ == "__main__":
    main()
