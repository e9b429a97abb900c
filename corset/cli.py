"""The ``corset`` command line: ``corset demo`` and ``corset info``.

``corset demo`` generates a synthetic data set from known rules (the paper's
generator, :func:`corset.datasets.make_rule_data`), prints its summary and
the generating rules, then fits :class:`corset.model.CorsetClassifier` on a
training part and prints the rules it learnt and its micro-F1 on the rest.

``corset info`` lists the benchmark data sets found in the data folder and
their sizes, from a scan of the file headers (no parsing).
"""
import argparse
import sys



def format_rule(head, tail, feature_names, label_names, support=None):
    """A rule as text: ``IF f3 AND f7 THEN l3, l7  (support 120)``."""
    condition = " AND ".join(str(feature_names[f]) for f in head) if len(head) else "TRUE"
    text = f"IF {condition} THEN {', '.join(str(label_names[k]) for k in tail)}"
    if support is not None:
        text += f"  (support {support})"
    return text


def _demo_data(args):
    from .datasets import make_rule_data

    return make_rule_data(
        n_records=args.n_records,
        n_features=args.n_features,
        n_labels=args.n_labels,
        n_rules=args.n_rules,
        rule_length=args.rule_length,
        support=args.support,
        noise=args.noise,
        random_state=args.seed,
    )


def _print_summary(data, out):
    n_records, n_features = data.X.shape
    n_labels = data.Y.shape[1]
    x_density = data.X.nnz / max(1, n_records * n_features)
    y_density = data.Y.nnz / max(1, n_records * n_labels)
    cardinality = data.Y.nnz / max(1, n_records)
    print(f"  records            {n_records}", file=out)
    print(f"  features           {n_features}", file=out)
    print(f"  labels             {n_labels}", file=out)
    print(f"  density            X {x_density:.4f}, Y {y_density:.4f}", file=out)
    print(f"  label cardinality  {cardinality:.4f}", file=out)


def _print_rules(rules, supports, feature_names, label_names, out):
    sizes = [len(s) for s in supports]
    # Largest support first: the rules that shape the data most.
    for r in sorted(range(len(rules)), key=lambda r: (-sizes[r], r)):
        head, tail = rules[r]
        print("  " + format_rule(head, tail, feature_names, label_names, sizes[r]), file=out)


def _run_demo(args, out):
    data = _demo_data(args)
    print(f"Synthetic data set from {len(data.rules)} generating rules "
          f"(seed {args.seed}, {args.support} supports, noise {args.noise}):", file=out)
    _print_summary(data, out)
    print("Generating rules (support: records the rule was planted on):", file=out)
    _print_rules(data.rules, data.supports, data.feature_names, data.label_names, out)
    _fit_and_show(data, args, out)
    return 0


def _fit_and_show(data, args, out):
    """Fit the classifier on two thirds of the records; show its rules and test micro-F1."""
    import time

    import numpy as np
    from sklearn.metrics import f1_score

    from .model import CorsetClassifier

    n = data.X.shape[0]
    order = np.random.RandomState(args.seed).permutation(n)
    train, test = np.sort(order[: 2 * n // 3]), np.sort(order[2 * n // 3:])
    start = time.perf_counter()
    clf = CorsetClassifier(random_state=args.seed)
    clf.fit(data.X[train], data.Y[train], label_names=data.label_names)
    elapsed = time.perf_counter() - start
    predicted = clf.predict(data.X[test])
    f1 = f1_score(data.Y[test].toarray(), predicted.toarray(), average="micro")
    print(f"CorsetClassifier fitted on {train.size} records in {elapsed:.2f} s: "
          f"{len(clf.rules_)} rules, micro-F1 {f1:.3f} on the other {test.size} records.", file=out)
    print("Learnt rules (support: training records where the rule fires):", file=out)
    for rule in clf.rules_:
        head = " AND ".join(data.feature_names[f] for f in rule.head)
        tail = ", ".join(rule.tail_names)
        print(f"  IF {head} THEN {tail}  (support {rule.support}, precision {rule.precision:.2f})", file=out)


def _run_info(args, out):
    from .datasets._arff import _arff_summary, _read_label_xml
    from .datasets._benchmark import BENCHMARK_NAMES, _benchmark_files, _read_split, get_data_home

    home = get_data_home(args.data_home)
    print(f"Benchmark data in {home}:", file=out)
    header = f"  {'dataset':<9} {'subset':<6} {'records':>8} {'features':>9} {'labels':>7}  {'layout':<6}  file"
    rows = []
    for name in BENCHMARK_NAMES:
        for subset in ("train", "test", "full"):
            arff_path, xml_path, split_path = _benchmark_files(name, subset, home)
            if not (arff_path.is_file() and xml_path.is_file()):
                continue
            n_rows, n_attributes, sparse = _arff_summary(arff_path)
            n_labels = len(_read_label_xml(xml_path))
            if split_path is not None:
                if not split_path.is_file():
                    continue
                n_rows = len(_read_split(split_path, subset, n_rows))
            shown = arff_path.relative_to(home)
            if split_path is not None:
                shown = f"{shown} + {split_path.name}"
            rows.append(f"  {name:<9} {subset:<6} {n_rows:>8} {n_attributes - n_labels:>9} {n_labels:>7}  "
                        f"{'sparse' if sparse else 'dense':<6}  {shown}")
    if not rows:
        print("  no benchmark data sets found (expected e.g. emotions/emotions.arff and emotions/emotions.xml)",
              file=out)
        return 1
    print(header, file=out)
    for row in rows:
        print(row, file=out)
    return 0


def _non_negative_share(text):
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1]; got {text}")
    return value


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer; got {text}")
    return value


def build_parser():
    """The argument parser of the ``corset`` command (subcommands ``demo`` and ``info``)."""
    parser = argparse.ArgumentParser(prog="corset", description="Concise and interpretable multi-label rule sets.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser("demo", help="generate a synthetic data set from known rules and show it",
                               description="Generate a synthetic data set from known rules (the paper's "
                                           "generator) and print its summary and the generating rules.")
    demo.add_argument("--n-records", type=_positive_int, default=1000, metavar="N", help="records (default 1000)")
    demo.add_argument("--n-features", type=_positive_int, default=30, metavar="N", help="features (default 30)")
    demo.add_argument("--n-labels", type=_positive_int, default=30, metavar="N", help="labels (default 30)")
    demo.add_argument("--n-rules", type=_positive_int, default=None, metavar="N",
                      help="generating rules (default floor(min(features, labels) / 3))")
    demo.add_argument("--rule-length", type=_positive_int, default=3, metavar="N",
                      help="attributes and labels per rule (default 3)")
    demo.add_argument("--support", choices=("uniform", "skewed"), default="uniform",
                      help="distribution of the rules' supports (default uniform)")
    demo.add_argument("--noise", type=_non_negative_share, default=0.01, metavar="SHARE",
                      help="share of flipped entries (default 0.01)")
    demo.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    demo.set_defaults(run=_run_demo)

    info = commands.add_parser("info", help="list the benchmark data sets found and their sizes",
                               description="List the MULAN benchmark data sets found in the data folder.")
    info.add_argument("--data-home", default=None, metavar="DIR",
                      help="data folder (default: the CORSET_DATA environment variable)")
    info.set_defaults(run=_run_info)
    return parser


def main(argv=None):
    """Entry point of the ``corset`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.run(args, sys.stdout)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        parser.exit(2, f"corset {args.command}: error: {exc}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
