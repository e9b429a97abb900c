"""Time BOOMER's fit in this interpreter on matrices another process saved (for compare_boomer.py).

Usage::

    /path/to/python3.12/venv/bin/python asv_bench/boomer_child.py MATRICES.npz REPEATS SEED [--default-threads]

``MATRICES.npz`` holds the training and test matrices (CSR parts
``xtr_*``, ``xte_*``, or dense ``xtr``, ``xte``; labels ``ytr``, ``yte``).  Prints one JSON line: the fit times
(wall clock of ``fit`` only), BOOMER's version, the number of rules of the
last fit and its test micro-F1.  This file imports nothing of corset, so that
it runs in an environment where only mlrl-boomer (e.g. 0.15.6, which needs
Python >= 3.12) is installed.
"""
import argparse
import json
import sys
import time
from importlib.metadata import version

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import f1_score

BOOMER_RULES = 1000


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matrices", help="the .npz file of training and test matrices")
    parser.add_argument("repeats", type=int, help="fits to time")
    parser.add_argument("seed", type=int, help="corset's seed; BOOMER gets seed + 1")
    parser.add_argument("--default-threads", action="store_true",
                        help="BOOMER's default (multi-threaded) fit instead of one thread")
    args = parser.parse_args(argv)
    path, repeats, seed = args.matrices, args.repeats, args.seed
    from mlrl.boosting import BoomerClassifier

    with np.load(path) as f:
        if "xtr" in f:   # dense raw numbers
            X_train, X_test = f["xtr"], f["xte"]
        else:
            X_train = sp.csr_matrix((f["xtr_data"], f["xtr_indices"], f["xtr_indptr"]), shape=tuple(f["xtr_shape"]))
            X_test = sp.csr_matrix((f["xte_data"], f["xte_indices"], f["xte_indptr"]), shape=tuple(f["xte_shape"]))
        Y_train, Y_test = f["ytr"], f["yte"]
    times, model = [], None
    for _ in range(repeats):
        single = {} if args.default_threads else dict(parallel_rule_refinement="false",
                                                      parallel_statistic_update="false")
        model = BoomerClassifier(max_rules=BOOMER_RULES, random_state=seed + 1, **single)
        start = time.perf_counter()
        model.fit(X_train, Y_train)
        times.append(time.perf_counter() - start)
    predicted = model.predict(X_test)
    predicted = predicted.toarray() if sp.issparse(predicted) else np.asarray(predicted)
    f1 = float(f1_score(Y_test, predicted, average="micro", zero_division=0))
    print(json.dumps({"times": times, "version": version("mlrl-boomer"), "f1": f1}))


if __name__ == "__main__":
    main(sys.argv[1:])
