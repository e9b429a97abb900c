"""Fit time, rules and peak memory of the default classifier when the label space is large.

Usage (from the repository root)::

    python asv_bench/label_space.py                  # the two shapes below, one run each
    python asv_bench/label_space.py --repeats 3      # the median of three runs

Synthetic data of the paper's generator, ``make_rule_data(n_records,
n_features, n_labels, noise=0.001, random_state=0)``, in two shapes of real
large label spaces: 12,920 records x 500 features x 983 labels (delicious's
training part) and 19,348 x 5,000 x 3,993 (EUR-Lex's).  The noise is a
tenth of the generator's default: at 1% a record of 3,993 labels would hold
about 40 flipped labels beside the 3 of its generating rule, where real sets
of this size hold about 5 labels per record in all (``--noise`` changes it).
The generator plants ``floor(min(F, L) / 3)`` rules (1,331 for the second
shape), many more than the default budget of 150 rules can hold, so the
test micro-F1 there measures how much of the data the budget covers, not
the rules' quality.  Each run is a fresh child
process fitting ``CorsetClassifier(random_state=0)`` with the defaults; the
parent prints the fit's wall time, its rule count, the micro-F1 on 2,000
further records of the same generating rules (the generator draws its rules
from the seed first), and the child's peak resident set (``ru_maxrss``, data
and imports included).
"""
import argparse
import json
import statistics
import subprocess
import sys

SHAPES = [(12_920, 500, 983), (19_348, 5_000, 3_993)]
N_TEST = 2_000


def child(n_records, n_features, n_labels, noise):
    """One run in this process: prints one JSON line."""
    import resource
    import time

    from sklearn.metrics import f1_score

    from corset import CorsetClassifier
    from corset.datasets import make_rule_data

    data = make_rule_data(n_records + N_TEST, n_features, n_labels, noise=noise, random_state=0)
    X, Y = data.X, data.Y
    X_fit, Y_fit = X[:n_records], Y[:n_records]
    start = time.perf_counter()
    model = CorsetClassifier(random_state=0).fit(X_fit, Y_fit)
    seconds = time.perf_counter() - start
    f1 = f1_score(Y[n_records:], model.predict(X[n_records:]), average="micro", zero_division=0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"fit_s": seconds, "rules": len(model.rules_), "f1": float(f1), "peak_mb": peak}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--noise", type=float, default=0.001, help="make_rule_data's share of flipped entries")
    parser.add_argument("--child", type=int, nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child, args.noise)
        return
    print(f"make_rule_data(N, F, L, noise={args.noise}, random_state=0), CorsetClassifier(random_state=0); "
          f"median of {args.repeats} run(s), each in a fresh process")
    print(f"{'N':>8} {'F':>6} {'L':>6} {'fit s':>8} {'rules':>6} {'test F1':>8} {'peak MB':>8}")
    for shape in SHAPES:
        runs = []
        for _ in range(args.repeats):
            out = subprocess.run([sys.executable, __file__, "--noise", repr(args.noise), "--child", *map(str, shape)],
                                 check=True, capture_output=True, text=True).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
        med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        print(f"{shape[0]:>8} {shape[1]:>6} {shape[2]:>6} {med['fit_s']:>8.2f} {med['rules']:>6.0f} "
              f"{med['f1']:>8.3f} {med['peak_mb']:>8.0f}")


if __name__ == "__main__":
    main()
