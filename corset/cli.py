"""The ``corset`` command line: fit, inspect, apply and evaluate rule sets on one's own data.

``corset fit TRAIN`` learns a rule set from an ARFF file (MULAN with its XML,
or MEKA's ``-C``), a CSV file with its label columns named by ``--labels``,
or an svmlight/LIBSVM multi-label file, prints the rules and writes the model
(its JSON export, binarization included); ``corset rules MODEL`` prints them
again (text, JSON or CSV; by label); ``corset predict MODEL DATA`` writes one
row per record with the label names as columns; ``corset evaluate MODEL
TEST`` prints micro/macro/sample F1, Hamming loss, subset accuracy, the
number of rules and their mean length.  A bad path, a malformed file or a
label count that does not fit is one line on standard error naming the file,
and a non-zero exit status.

``corset demo`` generates a synthetic data set from known rules (the paper's
generator, :func:`corset.datasets.make_rule_data`), prints its summary and
the generating rules, then fits :class:`corset.model.CorsetClassifier` on a
training part and prints the rules it learnt and its micro-F1 on the rest.

``corset info`` lists the benchmark data sets found in the data folder and
their sizes, from a scan of the file headers (no parsing).
"""
import argparse
import json
import re
import sys
import warnings
from pathlib import Path

SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm")


class CommandError(Exception):
    """A user error of the command line: printed as one line, exit status 2."""



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
    import os

    from .datasets._arff import _arff_summary, _read_label_xml
    from .datasets._benchmark import (
        BENCHMARK_NAMES,
        _benchmark_files,
        _read_split,
        get_data_home,
    )

    if args.data_home is None and not os.environ.get("CORSET_DATA"):
        # get_data_home's message names its Python argument.
        raise CommandError("no benchmark data folder: pass --data-home FOLDER or set the CORSET_DATA environment "
                           "variable to the folder holding the MULAN files (one subfolder per data set, e.g. "
                           "emotions/emotions.arff)")
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



# -- reading one's own data ------------------------------------------------------------
def _is_csv(path):
    """Is ``path`` a CSV file, by its name (as :func:`_read_data` reads it), gzipped or not?"""
    return str(path).lower().endswith((".csv", ".csv.gz"))


def _open_csv(path, mode="r", **options):
    """``open`` for a CSV file, through gzip for a name ending ``.gz`` (pandas infers it the same way)."""
    if str(path).lower().endswith(".gz"):
        import gzip

        return gzip.open(path, mode if "b" in mode else mode + "t", **options)
    return open(path, mode, **options)


def _read_data(path, *, label_xml=None, n_labels=None, labels=None, label_names=None, n_features=None,
               features=None, drop_identifiers=True, labels_required=False):
    """``(X, Y, feature_names, label_names)`` of an ARFF, CSV or svmlight file; Y may be None.

    ``label_names`` (a fitted model's) finds the labels of a file by name when
    no label option is given: the label columns of a CSV, or the first or
    last attributes of an ARFF file.  ``n_features`` (a fitted model's) is
    the width of an svmlight file, whose records may not reach its last
    feature.  ``features`` (a fitted model's :func:`_model_features`): a CSV
    file's columns as the model reads them (:func:`_model_columns`), and an
    ARFF file's for a model fitted on a DataFrame.  Training data (no
    ``features``) with ``drop_identifiers``: the nominal columns of a CSV or
    ARFF file none of whose values occurs twice are left out, with a note
    (:func:`_without_identifiers`; ``--preset paper``'s rules may be matched
    by one record: it keeps them).  ``labels_required``: a CSV file without every label column is an
    error naming the first one missing (``evaluate``).
    """
    path = Path(path)
    if not path.is_file():
        raise CommandError(f"{path}: no such file")
    name = path.name.lower()
    # A label option the file type does not read is an error, not ignored: the labels it names
    # would otherwise silently be others.
    if _is_csv(path):
        if label_xml is not None or n_labels is not None:
            option = "--label-xml" if label_xml is not None else "--n-labels"   # exclusive options
            raise CommandError(f"{path}: {option} is for ARFF files; name the label columns of a CSV file "
                               "with --labels COL,...")
        return _read_csv(path, labels, label_names, features, drop_identifiers, labels_required)
    if name.endswith(SVMLIGHT_SUFFIXES):
        given = [option for option, value in (("--labels", labels), ("--label-xml", label_xml),
                                              ("--n-labels", n_labels)) if value is not None]
        if given:
            raise CommandError(f"{path}: an svmlight file gives each record's labels at the start of its line; "
                               f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} not for svmlight files")
        return _read_svmlight(path, label_names, n_features)
    if name.endswith((".arff", ".arff.gz")):
        if labels is not None:
            raise CommandError(f"{path}: --labels names the label columns of a CSV file; an ARFF file's labels "
                               "are named by --label-xml FILE or counted by --n-labels N")
        X, Y, names, found = _read_arff(path, label_xml, n_labels, label_names)
        if features is not None and features[1]:   # a model fitted on a DataFrame: by name, as a CSV file's
            X, names = _model_columns(path, X, *features)
        elif features is None and drop_identifiers:   # training data
            X = _without_identifiers(path, X)
            names = [str(c) for c in X.columns]
        return X, Y, names, found
    raise CommandError(f"{path}: unknown file type (expected .arff, .arff.gz, .csv, .csv.gz, "
                       f"{', '.join(SVMLIGHT_SUFFIXES)})")


def _read_arff(path, label_xml, n_labels, label_names):
    from .datasets import load_arff

    try:
        if label_xml is None and n_labels is None and label_names is not None:
            # A model's labels: MULAN puts them last, MEKA first.  A layout that is not the file's
            # may not even read (MEKA's last attributes are numeric features, no labels): only when
            # neither reads with the model's labels is it an error, naming what each layout found.
            found, errors = [], []
            for count, where in ((-len(label_names), "last"), (len(label_names), "first")):
                try:
                    data = load_arff(path, n_labels=count, as_frame=True, strings="separate")
                except ValueError as exc:
                    errors.append(str(exc))
                    reason = str(exc).removeprefix(f"{path}: ")   # the path is said once, below
                    found.append(f"the {where} {len(label_names)} attributes: {reason}")
                    continue
                if data.label_names == list(label_names):
                    break
                found.append(f"the {where} {len(label_names)} attributes are {', '.join(data.label_names[:3])}, ...")
            else:
                if len(errors) == 2 and errors[0] == errors[1]:
                    raise CommandError(errors[0])   # the file itself is wrong (not valid ARFF), whatever the layout
                raise CommandError(f"{path}: the model's labels ({', '.join(label_names[:3])}, ...) are neither "
                                   f"the first nor the last {len(label_names)} attributes ({'; '.join(found)}); "
                                   "give --label-xml")
        else:
            data = load_arff(path, label_xml=label_xml, n_labels=n_labels, as_frame=True, strings="separate")
    except (ValueError, FileNotFoundError) as exc:
        raise CommandError(str(exc)) from None
    if data.strings:
        # Free text (such as a record's identifier) is no feature a rule can test: said, not hidden.
        print(f"note: {path}: string attribute(s) {', '.join(map(repr, data.strings))} left out of the "
              "features (free text)", file=sys.stderr)
    return data.X, data.Y, data.feature_names, data.label_names


def _read_csv(path, labels, label_names, features=None, drop_identifiers=True, labels_required=False):
    import pandas as pd

    try:
        # The separator from the header alone: a comma read of a ";" file can fail on a later row
        # before the header says anything.  One column whose name holds ";", a tab or "|": a file
        # separated by it (";" with decimal commas, as spreadsheets write it where the comma is the
        # decimal mark).
        encoding = _csv_encoding(path)
        header = pd.read_csv(path, nrows=0, encoding=encoding).columns
        others = {sep: str(header[0]).count(sep) for sep in ";\t|"} if len(header) == 1 else {}
        sep = max(others, key=others.get) if others and max(others.values()) else ","
        # low_memory=False: each column's type from all its rows (not chunk by chunk, which warns
        # where a column of whole numbers meets a decimal comma late in a large file).
        # index_col=False: with one field more on each line than the header names (a separator at
        # the end of every line), pandas would make the first column the index and shift the names
        # one column along; the extra fields are checked to be empty instead (_check_extra_fields).
        def read(**options):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", pd.errors.ParserWarning)
                read.frame = pd.read_csv(path, sep=sep, encoding=encoding, low_memory=False, index_col=False,
                                         **options)
            read.extra = any(issubclass(w.category, pd.errors.ParserWarning) for w in caught)
            return read.frame

        frame = read()
        if read.extra:
            _check_extra_fields(path, sep, encoding)
        _check_header_names(path, sep, encoding)
        frame = _na_words_in_text(path, frame, read)
        frame = _without_empty_columns(path, frame, sep, encoding)
        frame.columns = _stripped(frame.columns)
        if sep == ";":
            frame = _decimal_commas(path, frame, read)
        else:
            if sep != ",":
                print(f"note: {path}: read as separated by {sep!r}", file=sys.stderr)
            frame = _grouped_and_percent_numbers(path, frame)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise CommandError(f"{path}: not a readable CSV file: {exc}") from None
    if labels is None and label_names is None:
        raise CommandError(f"{path}: name the label columns of a CSV file with --labels COL,...")
    wanted = list(labels) if labels is not None else list(label_names)
    twice = next((c for i, c in enumerate(wanted) if c in wanted[:i]), None)
    if twice is not None:
        raise CommandError(f"--labels: the column {twice!r} is named twice; name each label column once")
    missing = [c for c in wanted if c not in frame.columns]
    if missing and (labels is not None or labels_required):
        said = " (--labels)" if labels is not None else ", a label of the training data"
        raise CommandError(f"{path}: no column {missing[0]!r}{said}; the columns are "
                           f"{', '.join(map(str, frame.columns[:10]))}{', ...' if frame.shape[1] > 10 else ''}")
    present = [c for c in wanted if c in frame.columns]
    Y = _yes_no_labels(path, frame[present]) if present and not missing else None
    X = _iso_dates(frame.drop(columns=present))
    if features is not None:
        X, names = _model_columns(path, X, *features)
        return X, Y, names, [str(c) for c in wanted]
    if label_names is None and drop_identifiers:
        X = _without_identifiers(path, X)
    return X, Y, [str(c) for c in X.columns], [str(c) for c in wanted]


def _na_words_in_text(path, frame, read):
    """``frame`` with the words pandas reads as missing ("NA", "None", "null", "n/a"...) kept as
    values in its text columns, said.

    In a column of numbers such a word marks a missing number; in a column of
    text it is as likely a value (Namibia's code "NA", a category "None"),
    and a command-line user could neither keep it nor fill the missing value
    in.  Empty cells stay missing everywhere.  ``read`` reads the file again
    with other options (as :func:`_read_csv` reads it).
    """
    from .model._features import _nominal_dtype   # a CSV file's text columns

    text = [c for c in frame.columns if _nominal_dtype(frame[c].dtype) and frame[c].isna().any()]
    if not text:
        return frame
    literal = read(keep_default_na=False, na_values=[""])
    kept = {}
    for c in text:
        words = literal[c][frame[c].isna() & literal[c].notna()]
        if len(words):
            kept[c] = sorted({str(w) for w in words})
    if not kept:
        return frame
    frame = frame.copy()
    for c in kept:
        frame[c] = literal[c]
    said = "; ".join(f"{c!r}: {', '.join(map(repr, words[:5]))}" for c, words in kept.items())
    print(f"note: {path}: read as values, not as missing, in text column(s) ({said}); empty cells are missing",
          file=sys.stderr)
    return frame


def _raw_header(path, sep, encoding):
    """A CSV file's column names as written (pandas renames a repeated name "a" to "a.1" and an empty
    one to "Unnamed: k"), without the spaces around them."""
    import csv

    with _open_csv(path, newline="", encoding=encoding) as handle:
        return [name.strip().lstrip("\ufeff") for name in next(csv.reader(handle, delimiter=sep), [])]


def _check_extra_fields(path, sep, encoding):
    """Refuse a CSV line with a value beyond the columns its header names; empty extra fields (a
    separator at the end of the lines) are left out, said."""
    import csv

    with _open_csv(path, newline="", encoding=encoding) as handle:
        rows = csv.reader(handle, delimiter=sep)
        width = len(next(rows, []))
        for row in rows:
            extra = [v for v in row[width:] if v.strip()]
            if extra:
                raise CommandError(f"{path}: line {rows.line_num} has {len(row)} fields but the header names "
                                   f"{width} columns (an extra value {extra[0]!r}); name every column in the "
                                   "header")
    print(f"note: {path}: the empty field at the end of the lines left out (a separator after the last column)",
          file=sys.stderr)


def _check_header_names(path, sep, encoding):
    """Refuse a header naming a column twice: pandas would call the second "a.1", a name the file
    does not hold, and the rules and ``--labels`` would read it so."""
    names = [n for n in _raw_header(path, sep, encoding) if n]
    seen = set()
    for name in names:
        if name in seen:
            where = [j + 1 for j, n in enumerate(_raw_header(path, sep, encoding)) if n == name]
            raise CommandError(f"{path}: the header names the column {name!r} {len(where)} times (columns "
                               f"{', '.join(map(str, where))}); give each column a name of its own")
        seen.add(name)


def _without_empty_columns(path, frame, sep, encoding):
    """``frame`` without its columns that have no name and either no value (a separator at the end
    of every line, as spreadsheets export) or distinct whole numbers in increasing order (a row
    index, as ``DataFrame.to_csv`` writes one by default), said; any other column without a name
    stays (as "Unnamed: k").  A row index as a feature would let rules pick records by their place
    in the file."""
    import numpy as np
    import pandas as pd

    header = _raw_header(path, sep, encoding)
    empty, index = [], []
    for j, name in enumerate(header[:frame.shape[1]]):
        if name:
            continue
        column = frame.iloc[:, j]
        if column.isna().all():
            empty.append(j)
        elif pd.api.types.is_integer_dtype(column.dtype) and len(column) > 1 and bool(
                np.all(np.diff(column.to_numpy()) > 0)):
            index.append(j)
    for columns, what in ((empty, "no name and no value"), (index, "no name, increasing whole numbers: a row "
                                                                   "index such as DataFrame.to_csv writes")):
        if columns:
            print(f"note: {path}: column(s) {', '.join(str(j + 1) for j in columns)} left out ({what})",
                  file=sys.stderr)
    dropped = empty + index
    return frame.drop(columns=[frame.columns[j] for j in dropped]) if dropped else frame


# A number as Python writes one (beside thousands-comma and percent numbers, which the estimator's
# number-text check reads as numbers too: corset.model._features).
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _grouped_and_percent_numbers(path, frame):
    """A comma- (tab-, |-) separated file's text columns of numbers written with thousands commas
    (``"1,234"``, quoted) or with a percent sign (``12%``, read as 12) as numbers, said.

    pandas leaves both as text, which the estimator would make one category
    per value (or leave out as an identifier).  A column is converted only
    when every value is such a number or a plain one.
    """
    import pandas as pd

    from .model._features import _COMMA_GROUPED, _PERCENT

    grouped, percent = [], []
    for name in frame.columns:
        column = frame[name]
        if not (pd.api.types.is_object_dtype(column.dtype) or pd.api.types.is_string_dtype(column.dtype)):
            continue
        values = [str(v).strip() for v in column.dropna().unique()]
        if not values or not all(isinstance(v, str) for v in column.dropna().unique()):
            continue
        if all(_COMMA_GROUPED.fullmatch(v) or _PLAIN_NUMBER.fullmatch(v) for v in values) and any(
                _COMMA_GROUPED.fullmatch(v) for v in values):
            grouped.append(name)
            frame = frame.copy() if len(grouped) + len(percent) == 1 else frame
            frame[name] = column.map(lambda v: v if pd.isna(v) else float(str(v).strip().replace(",", "")))
        elif all(_PERCENT.fullmatch(v) for v in values):
            percent.append(name)
            frame = frame.copy() if len(grouped) + len(percent) == 1 else frame
            frame[name] = column.map(lambda v: v if pd.isna(v) else float(str(v).strip().rstrip("%").strip()))
    for names, what in ((grouped, "numbers with thousands commas"), (percent, "percentages without their % sign")):
        if names:
            shown = ", ".join(map(repr, names[:10])) + (f", ... ({len(names)} columns)" if len(names) > 10 else "")
            print(f"note: {path}: {shown} read as {what}", file=sys.stderr)
    return frame


def _stripped(columns):
    """Column names without the spaces around them (a header written "a, b"), unless that merges two."""
    stripped = [str(c).strip() for c in columns]
    return stripped if len(set(stripped)) == len(stripped) else list(columns)


def _csv_encoding(path):
    """UTF-8, or, for a file that is not (a spreadsheet's export in Western Europe), cp1252, said;
    latin-1 (every byte a character) where cp1252 leaves a byte undefined."""
    import codecs

    for encoding in ("utf-8", "cp1252"):
        decoder = codecs.getincrementaldecoder(encoding)()
        try:
            with _open_csv(path, "rb") as file:   # a megabyte at a time: a large file is not held twice
                for chunk in iter(lambda: file.read(1 << 20), b""):
                    decoder.decode(chunk)
                decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            continue
        break
    else:
        encoding = "latin-1"
    if encoding != "utf-8":
        print(f"note: {path}: not UTF-8; read as {encoding}", file=sys.stderr)
    return encoding


def _decimal_commas(path, frame, read):
    """A ";"-separated file's columns: ``frame`` read with decimal points; ``read(**options)`` reads again.

    A column that is text with decimal points and numbers with decimal
    commas (``0,126``) is taken from a read with decimal commas; one that is
    text in both, from a read with decimal commas and "." grouping
    thousands (``1.234,5``), if it is numbers there.  Every other column as
    ``frame`` has it (numbers with decimal points, text, dates).  Said on
    standard error, with the columns read each way.
    """
    import pandas as pd

    said = []
    for options, what in ((dict(decimal=","), "decimal commas"),
                          (dict(decimal=",", thousands="."), "decimal commas and thousands points")):
        text = [name for name in frame.columns
                if not pd.api.types.is_numeric_dtype(frame[name].dtype) and frame[name].notna().any()]
        if not text:
            break
        other = read(**options)
        other.columns = frame.columns
        taken = [name for name in text if pd.api.types.is_numeric_dtype(other[name].dtype)
                 and ("thousands" not in options or _grouped_thousands(frame[name]))]
        if taken:
            frame = frame.copy()
            for name in taken:   # not assign(**...): a column may be named "self"
                frame[name] = other[name].astype("float64")
            shown = ", ".join(map(repr, taken[:10])) + (f", ... ({len(taken)} columns)" if len(taken) > 10 else "")
            said.append(f"{what} in {shown}")
    _check_decimal_marks(path, frame)
    print(f"note: {path}: read as separated by ';'{''.join(', ' + part for part in said)}", file=sys.stderr)
    return frame


# A number written with a decimal point, or with a decimal comma (no grouping of thousands).
_POINT_NUMBER = re.compile(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?")
_COMMA_NUMBER = re.compile(r"[+-]?(\d+,\d*|,\d+)([eE][+-]?\d+)?")
_WHOLE_NUMBER = re.compile(r"[+-]?\d+")


_GROUPED_NUMBER = re.compile(r"[+-]?\d{1,3}(\.\d{3})*(,\d*)?")


def _grouped_thousands(column):
    """Whether every value of a text column is a number whose points group thousands (``1.234,5``,
    ``12``, ``0,5``): pandas' read with ``thousands="."`` drops any point, and would read ``0.5`` as 5."""
    return all(_GROUPED_NUMBER.fullmatch(str(v).strip()) for v in column.dropna().unique())


def _check_decimal_marks(path, frame):
    """Refuse a ";"-file's column of numbers left as text because it mixes decimal points and
    decimal commas (``0.5`` beside ``0,5``): which mark a hand-typed value meant cannot be told, and
    as text the column would become categories of numbers."""
    import pandas as pd

    for name in frame.columns:
        column = frame[name]
        if not (pd.api.types.is_object_dtype(column.dtype) or pd.api.types.is_string_dtype(column.dtype)):
            continue
        values = {str(v).strip() for v in column.dropna().unique()}
        point = next((v for v in sorted(values) if _POINT_NUMBER.fullmatch(v)), None)
        comma = next((v for v in sorted(values) if _COMMA_NUMBER.fullmatch(v)), None)
        if point is None or comma is None:
            continue
        if all(_POINT_NUMBER.fullmatch(v) or _COMMA_NUMBER.fullmatch(v) or _WHOLE_NUMBER.fullmatch(v)
               for v in values):
            raise CommandError(f"{path}: column {name!r} mixes decimal points ({point!r}) and decimal commas "
                               f"({comma!r}); write its numbers with one decimal mark")


# Label columns written as words: the word that means "present", by the words a column holds.
_LABEL_WORDS = {frozenset({"yes", "no"}): "yes", frozenset({"true", "false"}): "true", frozenset({"y", "n"}): "y"}


def _yes_no_labels(path, Y):
    """A CSV file's label columns with yes/no, y/n or true/false words (any case) read as 1/0, said.

    pandas reads True/False itself (a boolean column, made 0/1 here so that
    it mixes with 0/1 columns); MULAN's ARFF loader reads ``{FALSE,TRUE}``
    labels the same way.  Any other text is left for the estimator's message.
    """
    import pandas as pd

    from .model._classifier import _LIST_SEPARATORS

    converted = []
    for name in Y.columns:
        column = Y[name]
        if pd.api.types.is_bool_dtype(column.dtype):   # True/False beside 0/1 columns: one numeric dtype
            Y = Y.copy()
            Y[name] = column.astype("uint8")
            continue
        if not (pd.api.types.is_object_dtype(column.dtype) or pd.api.types.is_string_dtype(column.dtype)):
            continue
        lists = next((v for v in column if isinstance(v, str) and any(sep in v for sep in _LIST_SEPARATORS)), None)
        if lists is not None:
            # Tags written in one cell ("rock|pop"): the labels are the tags, not the column.
            raise CommandError(f"{path}: label column {name!r} holds lists of labels such as {lists!r}; write "
                               "one 0/1 column per label and name them all with --labels")
        if not len(column) or column.isna().any() or not all(isinstance(v, str) for v in column):
            continue
        words = {v.strip().lower() for v in column}
        for pair, positive in _LABEL_WORDS.items():
            if words <= pair:
                Y = Y.copy()
                Y[name] = (column.str.strip().str.lower() == positive).astype("uint8")
                converted.append(f"{name!r} ({positive})")
                break
    if converted:
        print(f"note: {path}: label column(s) {', '.join(converted)} read as 1 for the word in brackets, 0 for "
              "the other", file=sys.stderr)
    return Y


def _without_identifiers(path, X):
    """Training X (a DataFrame) without its nominal columns none of whose values occurs twice, said.

    Such a column (an identifier, free text) gives items that each match one
    record, which no rule matched by two records or more (the defaults'
    ``min_support``) can use.  Numbers written as text, a few cells of text
    among them, are not left out: the fit warns about them by name.
    """
    from .model._features import RawFeatures, _nominal_dtype   # the estimator's own tests

    nominal = [c for c in X.columns if _nominal_dtype(X[c].dtype)]
    # Numbers made text by a few cells of text stay: the fit names them and the cells.
    numbers = {name for name, _ in RawFeatures.number_text_columns(X)}
    keys = [c for c in nominal if X[c].count() >= 2 and X[c].dropna().is_unique and str(c) not in numbers]
    if keys:
        if len(keys) == X.shape[1]:
            raise CommandError(f"{path}: no feature left: every feature column ({', '.join(map(repr, keys))}) "
                               "has no value in two records (an identifier or free text)")
        X = X.drop(columns=keys)
        print(f"note: {path}: column(s) {', '.join(map(repr, keys))} left out of the features (no value "
              "in two records: an identifier or free text)", file=sys.stderr)
    return X


def _model_columns(path, X, names, by_name):
    """``(X, names)``: a CSV file's features as a model reads them, its ``names`` (input columns, in order).

    The file's other columns (an identifier left out at fit) are left out, with a note; a missing
    one is an error.  A model fitted on an unnamed array (``by_name`` False) gets an array: by
    name when the file holds every one of its input names, else by position, as before.
    """
    if not by_name and not all(name in X.columns for name in names):
        return X.to_numpy(), [str(c) for c in X.columns]
    missing = [name for name in names if name not in X.columns]
    if missing:
        raise CommandError(f"{path}: no column {missing[0]!r}, a feature of the model (which reads "
                           f"{len(names)} columns: {', '.join(map(repr, names[:5]))}{', ...' if len(names) > 5 else ''})")
    extra = [c for c in X.columns if c not in set(names)]
    if extra:
        print(f"note: {path}: column(s) {', '.join(map(repr, extra))} left out (not features of the model)",
              file=sys.stderr)
    X = X[list(names)]   # the model's order, whatever the file's
    return (X if by_name else X.to_numpy()), list(names)


# An ISO 8601 date, with a time of day and a UTC offset or not: 2021-06-14, 2021-06-14T16:48:05Z.
_ISO_DATE = r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?"


def _iso_dates(X):
    """X with each text column whose every value is an ISO 8601 date read as dates (in UTC when the
    values carry offsets), so that its rules cut and print dates instead of one item per day."""
    import pandas as pd

    for name in X.columns:
        column = X[name]
        if not (pd.api.types.is_object_dtype(column.dtype) or pd.api.types.is_string_dtype(column.dtype)):
            continue
        values = column.dropna().astype(str)
        if values.empty or not values.str.fullmatch(_ISO_DATE).all():
            continue
        aware = values.str.contains(r"(?:Z|[+-]\d{2}:?\d{2})$").any()
        try:
            X = X.assign(**{name: pd.to_datetime(column, format="ISO8601", utc=bool(aware))})
        except (ValueError, OverflowError):
            continue   # not valid dates after all (2021-13-45): the column stays nominal
    return X


def _read_svmlight(path, label_names, n_features=None):
    import numpy as np
    from sklearn.datasets import load_svmlight_file
    from sklearn.preprocessing import MultiLabelBinarizer

    try:
        X, y = load_svmlight_file(str(path), multilabel=True, n_features=n_features)
        blank, lines, n_lines = _svmlight_blank_records(path)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CommandError(f"{path}: not a readable svmlight/LIBSVM file: {exc}") from None
    if X.shape[0] + blank.size != n_lines:   # never expected: the reader and the count disagree
        raise CommandError(f"{path}: read {X.shape[0]} records from {n_lines} record lines")
    if blank.size:
        # scikit-learn's reader skips blank lines, yet its dump_svmlight_file writes a record with no
        # label and no feature as one: each is a record, so that predictions stay line by line.
        X, y = _with_blank_records(X, y, blank)
        print(f"note: {path}: {blank.size} blank line(s) read as records without labels or features "
              f"(first: line {lines[0]}, record {int(blank[0]) + 1})", file=sys.stderr)
    for i, labels in enumerate(y):
        bad = [v for v in labels if not float(v).is_integer()]
        if bad:
            raise CommandError(f"{path}: record {i + 1} has the label {bad[0]:g}; svmlight labels must be "
                               "integers (comma-separated label ids)")
    if label_names is not None:
        classes = [int(n) if str(n).lstrip("-").isdigit() else n for n in label_names]
        binarizer = MultiLabelBinarizer(classes=classes)
    else:
        binarizer = MultiLabelBinarizer()
    Y = binarizer.fit_transform([tuple(int(v) for v in labels) for labels in y]).astype(np.uint8)
    names = [str(c) for c in binarizer.classes_]
    return X, Y, [f"x{j}" for j in range(X.shape[1])], names


def _svmlight_blank_records(path):
    """``(blank, lines, n)``: the record numbers (0-based, int64) of an svmlight file's blank lines,
    their line numbers (1-based), and the file's number of record lines.

    A record line is any line but a comment line (``#`` first, after
    spaces) and the empty lines after the last non-empty one (the end of
    the file); a blank line is a record line holding only white space.
    """
    import numpy as np

    blank, lines, n, pending = [], [], 0, []
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.split(b"#", 1)[0] if b"#" in line else line
            if not text.strip() and line.lstrip().startswith(b"#"):
                continue   # a comment line
            if not text.strip() and not line.strip(b"\r\n"):
                pending.append(number)   # empty: a record only if a record line follows
                continue
            for empty in pending:   # empty lines before a record line are records
                blank.append(n)
                lines.append(empty)
                n += 1
            pending = []
            if not text.strip():   # white space: a record without labels or features
                blank.append(n)
                lines.append(number)
            n += 1
    return np.asarray(blank, dtype=np.int64), lines, n


def _with_blank_records(X, y, blank):
    """``X`` (CSR) and label tuples ``y`` of the non-blank records, with an empty record inserted at
    each of the record numbers ``blank``."""
    import numpy as np
    import scipy.sparse as sp

    n = X.shape[0] + blank.size
    kept = np.setdiff1d(np.arange(n), blank)
    counts = np.zeros(n, dtype=np.int64)
    counts[kept] = np.diff(X.indptr)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    X = sp.csr_matrix((X.data, X.indices, indptr), shape=(n, X.shape[1]))
    labels = [()] * n
    for i, j in enumerate(kept):
        labels[j] = y[i]
    return X, labels


def _split_names(text):
    """The names of a comma-separated option (``--labels a, b``), without the spaces around them."""
    return [name.strip() for name in text.split(",")]


def _model_labels(args, model, path):
    """The label columns ``--labels`` names for ``predict`` and ``evaluate`` (None without it), in the
    model's order: the model's own labels, each once, or an error naming the difference.  Not checked
    for a data file other than CSV, which the option does not apply to (:func:`_read_data` says so)."""
    if args.labels is None:
        return None
    given, known = _split_names(args.labels), [str(name) for name in model.label_names_]
    if not _is_csv(path):
        return given
    unknown = [name for name in given if name not in known]
    missing = [name for name in known if name not in given]
    if unknown or missing or len(given) != len(set(given)):
        shown = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "")
        what = (f"{unknown[0]!r} is not one of them" if unknown else
                f"{missing[0]!r} is missing" if missing else "a label is named twice")
        raise CommandError(f"--labels: the model {args.model} predicts {len(known)} labels ({shown}); {what}")
    return known


def _model_features(model):
    """``(names, by_name)``: the input columns a model reads, and whether by name (fitted on a
    DataFrame) or as an array (fitted on one, its columns named by ``feature_names`` or x0, x1...)."""
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(name) for name in names], True
    return [str(name) for name in model.features_.input_names_], False


def _load_model(path):
    from .model import CorsetClassifier

    path = Path(path)
    if not path.is_file():
        raise CommandError(f"{path}: no such file")
    try:
        return CorsetClassifier.from_json(path.read_text())
    except (ValueError, KeyError, TypeError) as exc:
        raise CommandError(f"{path}: not a corset model file: {exc}") from None


# -- the subcommands -----------------------------------------------------------------------
def _budget_note(n_rules):
    """What a fit's ``budget_limited_`` means, for the notes of ``fit`` and ``cv``."""
    return (f"the selection used its whole budget ({n_rules} rules) while the internal validation's "
            "held-out micro-F1 was still rising")


def _check_output(path):
    """Refuse an output path (``-o``) that cannot be written before the work that fills it: a fit
    may take minutes, and its model would be lost."""
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise CommandError(f"-o {path}: is a directory; give a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise CommandError(f"-o {path}: the directory {parent} does not exist")


def _run_fit(args, out):
    from .model import CorsetClassifier

    _check_output(args.output)
    labels = _split_names(args.labels) if args.labels else None
    X, Y, feature_names, label_names = _read_data(args.train, label_xml=args.label_xml, n_labels=args.n_labels,
                                                  labels=labels, drop_identifiers=args.preset != "paper")
    if Y is None:
        raise CommandError(f"{args.train}: no label columns found")
    params = {"random_state": args.seed, "verbose": 0 if args.quiet else 1, "n_jobs": args.n_jobs}
    if args.n_rules is not None:
        params["n_rules"] = args.n_rules
    if args.lam is not None:
        params["lam"] = args.lam
    if args.head_sampler is not None:
        params["head_sampler"] = args.head_sampler
    model = CorsetClassifier.paper(**params) if args.preset == "paper" else CorsetClassifier(**params)
    names = {} if hasattr(X, "columns") else {"feature_names": feature_names}
    try:
        model.fit(X, Y, label_names=None if hasattr(Y, "columns") else label_names, **names)
    except ValueError as exc:   # what is wrong is in the file: say which
        raise CommandError(f"{args.train}: {exc}") from None
    print(model, file=out)
    if model.budget_limited_:
        print(f"note: {_budget_note(model.n_rules)}; a larger --n-rules may be more accurate, "
              "with more rules to read", file=out)
    if args.output:
        Path(args.output).write_text(model.to_json(indent=1))
        print(f"model written to {args.output}", file=out)
    return 0


def _run_rules(args, out):
    model = _load_model(args.model)
    if args.format == "json":
        print(json.dumps(model.to_dict()["rules"], indent=1), file=out)
        return 0
    if args.format == "csv":
        import csv

        writer = csv.writer(out)
        writer.writerow(["rule", "head", "tail", "support", "precision"])
        for i, rule in enumerate(model.rules_, 1):
            from .model._export import head_text

            writer.writerow([i, head_text(rule), ";".join(rule.tail_names), rule.support, f"{rule.precision:.4f}"])
        return 0
    from .model._export import format_rule

    if args.by_label:
        for label, rules in model.rules_by_label().items():
            print(f"{label} ({len(rules)} rules)", file=out)
            for rule in rules:
                print(f"  {format_rule(rule)}", file=out)
        return 0
    print(model, file=out)
    return 0


def _run_predict(args, out):
    import pandas as pd

    _check_output(args.output)
    model = _load_model(args.model)
    # --labels, as at fit, is checked against the model; in a CSV file the model's label columns are
    # left out wherever present, with or without it (another file type refuses it in _read_data).
    given = _model_labels(args, model, args.data)
    X, _, feature_names, _ = _read_data(args.data, label_xml=args.label_xml, n_labels=args.n_labels,
                                        labels=None if _is_csv(args.data) else given, label_names=model.label_names_,
                                        n_features=model.n_features_in_, features=_model_features(model))
    try:
        predicted = model.predict(X)
    except ValueError as exc:
        raise CommandError(f"{args.data}: {exc}") from None
    predicted = predicted.toarray() if hasattr(predicted, "toarray") else predicted
    frame = pd.DataFrame(predicted.astype(int), columns=model.label_names_)
    if args.output:
        frame.to_csv(args.output, index=False)
        print(f"{frame.shape[0]} predictions written to {args.output}", file=out)
    else:
        frame.to_csv(out, index=False)
    return 0


def _run_evaluate(args, out):
    import numpy as np
    from sklearn.metrics import accuracy_score, hamming_loss

    from ._validation import check_binary_matrix, counted

    model = _load_model(args.model)
    X, Y, _, _ = _read_data(args.test, label_xml=args.label_xml, n_labels=args.n_labels,
                            labels=_model_labels(args, model, args.test), label_names=model.label_names_,
                            n_features=model.n_features_in_, features=_model_features(model), labels_required=True)
    if Y is None:
        raise CommandError(f"{args.test}: the model's label columns are not in the file")
    try:
        # The metrics would only say they cannot mix target types: name the file and the values.
        Y = check_binary_matrix(Y.to_numpy() if hasattr(Y, "to_numpy") else Y, "its labels").toarray()
        P = model.predict(X)
    except ValueError as exc:
        raise CommandError(f"{args.test}: {exc}") from None
    # 0/1 integers whatever dtype the model gives back (one fitted on an object Y gave objects).
    P = np.asarray(P.toarray() if hasattr(P, "toarray") else P).astype(np.uint8)
    lengths = [r.n_literals for r in model.rules_]
    # A label (record) with nothing true and nothing predicted is predicted perfectly: macro-F1 and
    # sample-F1 count it 1, as MULAN's measures and mlrl-testbed's do, so that the figures compare.
    rows = [("micro-F1", _label_f1(Y, P, "micro")),
            ("macro-F1", _label_f1(Y, P, "macro")),
            ("sample-F1", _label_f1(Y, P, "samples")),
            ("Hamming loss", hamming_loss(Y, P)),
            ("subset accuracy", accuracy_score(Y, P)),
            ("rules", len(model.rules_)),
            ("mean rule length", float(np.mean(lengths)) if lengths else 0.0)]
    print(f"{args.test}: {counted(Y.shape[0], 'record')}, {counted(Y.shape[1], 'label')}", file=out)
    for name, value in rows:
        shown = f"{value:d}" if isinstance(value, int) else f"{value:.4f}"
        print(f"  {name:<17} {shown:>8}", file=out)
    empty = _empty_agreements(Y, P)
    if empty:
        print(f"note: {empty}: counted 1 (a perfect prediction) in macro-F1 and sample-F1", file=out)
    return 0


def _label_f1(Y, P, average):
    """F1 of 0/1 label matrices ``Y`` (true) and ``P`` (predicted), averaged as ``average`` says.

    Micro-F1 counts a data set without any true or predicted label 0; macro-F1 and
    sample-F1 count a label or record empty in both 1 (MULAN's convention).  A
    single label is still a multi-label problem of one column, which
    scikit-learn would read as binary and refuse to average over records: its
    micro- and macro-F1 are that label's F1, its sample-F1 is the share of
    records predicted right (a record's F1 is 1 when it agrees, 0 otherwise).
    """
    import numpy as np
    from sklearn.metrics import f1_score

    Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)
    P = np.asarray(P.toarray() if hasattr(P, "toarray") else P)
    if Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if P.ndim == 1:
        P = P.reshape(-1, 1)
    zero_division = 0 if average == "micro" else 1
    if Y.shape[1] == 1:
        if average == "samples":
            return float(np.mean(Y[:, 0] == P[:, 0])) if Y.shape[0] else 0.0
        return float(f1_score(Y[:, 0], P[:, 0], average="binary", pos_label=1, zero_division=zero_division))
    return float(f1_score(Y, P, average=average, zero_division=zero_division))


def _label_scorer(average):
    """A cross-validation scorer of :func:`_label_f1`."""
    from sklearn.metrics import make_scorer

    return make_scorer(_label_f1, average=average)


def _empty_agreements(Y, P):
    """Which labels and records of 0/1 arrays Y (true) and P (predicted) are empty in both, said in
    words ("" when none): macro-F1 and sample-F1 count them 1, not scikit-learn's default 0."""
    labels = int(((Y.sum(axis=0) == 0) & (P.sum(axis=0) == 0)).sum())
    records = int(((Y.sum(axis=1) == 0) & (P.sum(axis=1) == 0)).sum())
    parts = [f"{labels} label(s) absent and never predicted"] if labels else []
    parts += [f"{records} record(s) without labels and none predicted"] if records else []
    return "; ".join(parts)


def _run_plot(args, out):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CommandError("corset plot needs matplotlib: pip install 'corset[plot]'") from None
    from .plotting import plot_rule_graph, plot_rule_stats

    model = _load_model(args.model)
    if not str(args.output).lower().endswith((".png", ".svg", ".pdf")):
        raise CommandError(f"{args.output}: the picture must be a .png, .svg or .pdf file")
    _check_output(args.output)
    if args.kind == "graph":
        ax = plot_rule_graph(model, max_rules=args.max_rules)
    else:
        ax = plot_rule_stats(model)
    ax.figure.tight_layout()
    ax.figure.savefig(args.output, dpi=100)
    plt.close(ax.figure)
    print(f"picture written to {args.output}", file=out)
    return 0


def _available_methods():
    """The methods of corset.experiments whose package is installed."""
    from importlib.util import find_spec

    from .experiments import METHODS

    module = {"mlrl-boomer": "mlrl.boosting", "mlrl-seco": "mlrl.seco"}
    return {name for name, m in METHODS.items() if m.package not in module or _importable(find_spec, module[m.package])}


def _importable(find_spec, name):
    try:
        return find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _split_outside_parentheses(text):
    """The names of a comma-separated option, split only at commas outside parentheses, so that
    ``corset,BOOMER(1000, raw)`` names two methods; empty names are dropped."""
    names, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == "," and depth <= 0:
            names.append(text[start:i].strip())
            start = i + 1
    names.append(text[start:].strip())   # the last name, whole even with a parenthesis left open
    return tuple(name for name in names if name)


def _experiment_config(args, available, out):
    """The experiment's configuration from ``corset experiment``'s options.

    ``--methods`` names the methods to run: each part runs those of its own
    methods that are named (the table's learners, the raw part's, the path's,
    the synthetic sets' and the scale's), so that, say, ``--methods
    "corset,corset (raw)"`` refits corset's rows of every part and nothing
    else (the overlap part's one method is ``OVERLAP_METHOD``).  A part none of
    whose methods is named runs nothing, and is said so.  Methods whose
    package is not installed are left out, and said so.
    """
    import dataclasses

    from .experiments import FULL, METHODS, QUICK

    config = QUICK if args.quick else FULL
    changes = {}
    for name in ("datasets", "parts"):
        value = getattr(args, name)
        if value:
            changes[name] = _split_outside_parentheses(value)
    for name in ("repetitions", "n_trials", "time_limit"):
        if getattr(args, name) is not None:
            changes[name] = getattr(args, name)
    named = _split_outside_parentheses(args.methods) if args.methods else None
    unknown = sorted(set(named or ()) - set(METHODS))
    if unknown:
        raise CommandError(f"unknown method(s) {unknown}; choose among {sorted(METHODS)}")
    try:
        config = dataclasses.replace(config, **changes)
    except ValueError as exc:   # an unknown part or data set
        raise CommandError(str(exc)) from None
    wanted = {m for part in config.parts for m in config.methods_of(part)}
    if named is not None:
        wanted &= set(named)
    missing = sorted(wanted - set(available))
    if missing:
        print(f"not installed, left out: {', '.join(missing)} (pip install 'corset[bench]')", file=out)
    chosen = config.with_methods(set(available) & wanted)
    if named is not None:
        for part in config.parts:
            if part not in chosen.parts or not chosen.methods_of(part):
                print(f"part {part!r} runs none of the methods named by --methods", file=out)
    return chosen


def _run_experiment(args, out):
    import platform
    import shlex

    from .experiments import installed_versions, read_rows, run_experiment, write_report

    config = _experiment_config(args, _available_methods(), out)
    out_dir = Path(args.out)
    if not args.report_only:
        run_experiment(config, out_dir, data_home=args.data_home, n_jobs=args.n_jobs, scheduler=args.scheduler,
                       progress=not args.quiet)
    rows = read_rows(out_dir / "runs.csv")
    versions = installed_versions()
    command = "corset experiment " + " ".join(shlex.quote(a) for a in (args.argv or []))
    # A report rewritten from earlier runs (--report-only) cannot say which commands made them.
    header = "" if args.report_only else (
        f"Produced by `{command.strip()}` on Python {platform.python_version()} "
        f"({platform.machine()}, {platform.system()}); packages: "
        + ", ".join(f"{k} {v}" for k, v in versions.items() if k != "python" and v) + ".\n\n")
    for path in write_report(rows, out_dir, header=header):
        print(f"written: {path}", file=out)
    bad = [r for r in rows if r["status"] not in ("ok",)]
    print(f"{len(rows)} runs in {out_dir / 'runs.csv'}" + (f", {len(bad)} not ok (timeout, error or skipped)"
                                                           if bad else ""), file=out)
    return 0


def _run_cv(args, out):
    import numpy as np
    from sklearn.model_selection import KFold, cross_validate

    from ._validation import counted
    from .model import CorsetClassifier

    labels = _split_names(args.labels) if args.labels else None
    X, Y, feature_names, label_names = _read_data(args.data, label_xml=args.label_xml, n_labels=args.n_labels,
                                                  labels=labels)
    if Y is None:
        raise CommandError(f"{args.data}: no label columns found")
    if args.folds > Y.shape[0]:
        raise CommandError(f"--folds {args.folds}: {args.data} holds only {counted(Y.shape[0], 'record')}")
    # As corset evaluate scores (and MULAN, mlrl-testbed): a label or record with nothing true and
    # nothing predicted counts 1 in macro-F1 and sample-F1 (scikit-learn's scorers would count 0, warning).
    scoring = {"micro-F1": _label_scorer("micro"), "macro-F1": _label_scorer("macro"),
               "sample-F1": _label_scorer("samples")}
    folds = KFold(n_splits=args.folds, shuffle=True, random_state=args.seed)
    try:
        # error_score="raise": a fold whose fit fails would otherwise be scored NaN, with a warning.
        params = {"random_state": args.seed}
        if args.n_rules is not None:
            params["n_rules"] = args.n_rules
        # The folds side by side, each fitted on one thread: the same models as one after another.
        result = cross_validate(CorsetClassifier(**params), X, Y, cv=folds, scoring=scoring,
                                return_estimator=True, error_score="raise", n_jobs=args.n_jobs)
    except ValueError as exc:
        raise CommandError(f"{args.data}: {exc}") from None
    print(f"{args.data}: {args.folds}-fold cross-validation (seed {args.seed})", file=out)
    for name in scoring:
        values = result[f"test_{name}"]
        print(f"  {name:<12} {values.mean():.4f} ± {values.std():.4f}", file=out)
    rules = [len(m.rules_) for m in result["estimator"]]
    print(f"  {'rules':<12} {np.mean(rules):.1f} ± {np.std(rules):.1f}", file=out)
    print(f"  {'fit s':<12} {result['fit_time'].mean():.3f}", file=out)
    limited = sum(bool(m.budget_limited_) for m in result["estimator"])
    if limited:
        budget = result["estimator"][0].n_rules
        print(f"note: in {limited} of {args.folds} folds {_budget_note(budget)}; try a larger --n-rules", file=out)
    return 0


def _number(text, kind, what):
    """``kind(text)``, or argparse's error saying what the option takes (not the converter's name)."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}; got {text!r}") from None


def _non_negative_share(text):
    value = _number(text, float, "a number in [0, 1]")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1]; got {text}")
    return value


def _at_least_two(text):
    value = _number(text, int, "an integer >= 2")
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be an integer >= 2 (a fold is scored by a model of the others); "
                                         f"got {text}")
    return value


def _positive_int(text):
    value = _number(text, int, "a positive integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer; got {text}")
    return value


def _n_jobs(text):
    value = _number(text, int, "a number of jobs (-1: every CPU)")
    if value == 0:
        raise argparse.ArgumentTypeError("must be a positive number of jobs, or negative (-1: every CPU); got 0")
    return value


def build_parser():
    """The argument parser of the ``corset`` command."""
    from . import __version__

    parser = argparse.ArgumentParser(prog="corset", description="Concise and interpretable multi-label rule sets.")
    parser.add_argument("--version", action="version", version=f"corset {__version__}")
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

    def label_options(sub):
        group = sub.add_mutually_exclusive_group()
        group.add_argument("--label-xml", metavar="FILE", help="MULAN XML file naming the labels of an ARFF file")
        group.add_argument("--n-labels", type=int, metavar="N",
                           help="ARFF without XML: the first N attributes are labels (-N: the last N)")

    fit = commands.add_parser("fit", help="learn a rule set from a data file and write the model",
                              description="Learn a rule set from TRAIN (ARFF, CSV or svmlight), print it and "
                                          "write the model as JSON.")
    fit.add_argument("train", metavar="TRAIN", help="training data (.arff, .arff.gz, .csv, .csv.gz, .svm/.libsvm)")
    label_options(fit)
    fit.add_argument("--labels", metavar="COL,...", help="CSV: the label columns")
    fit.add_argument("-o", "--output", metavar="MODEL.json", help="write the model here")
    fit.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    fit.add_argument("--n-rules", type=_positive_int, metavar="K", help="rule budget (default 150)")
    fit.add_argument("--lam", type=float, metavar="L", help="weight of diversity (default 0.1)")
    fit.add_argument("--head-sampler", metavar="NAME", help="gh (default), surs, cftp or rejection")
    fit.add_argument("--preset", choices=("default", "paper"), default="default",
                     help="'paper': Algorithm 1 as the paper's experiments run it (CorsetClassifier.paper); "
                          "the options above override it")
    fit.add_argument("--n-jobs", type=_n_jobs, metavar="N",
                     help="fit the internal validation's folds in N processes (-1: every CPU; default one); "
                          "the same rules for any N")
    fit.add_argument("--quiet", action="store_true", help="no progress bar")
    fit.set_defaults(run=_run_fit)

    rules = commands.add_parser("rules", help="print the rules of a model",
                                description="Print the rules of a model written by 'corset fit'.")
    rules.add_argument("model", metavar="MODEL", help="model file (JSON)")
    rules.add_argument("--by-label", action="store_true", help="group the rules by the labels they predict")
    rules.add_argument("--format", choices=("text", "json", "csv"), default="text", help="output format")
    rules.set_defaults(run=_run_rules)

    predict = commands.add_parser("predict", help="predict the labels of the records of a data file",
                                  description="One row per record of DATA, one 0/1 column per label.")
    predict.add_argument("model", metavar="MODEL", help="model file (JSON)")
    predict.add_argument("data", metavar="DATA", help="data file (label columns, if any, are ignored)")
    label_options(predict)
    predict.add_argument("--labels", metavar="COL,...",
                         help="CSV: the label columns, as at fit (checked against the model's labels; the model's "
                              "label columns are left out wherever present, with or without this option)")
    predict.add_argument("-o", "--output", metavar="FILE.csv", help="write the predictions here")
    predict.set_defaults(run=_run_predict)

    evaluate = commands.add_parser("evaluate", help="score a model on labelled data",
                                   description="Micro/macro/sample F1, Hamming loss, subset accuracy, number "
                                               "of rules and mean rule length on TEST.  A label absent from "
                                               "TEST and never predicted, and a record without labels given "
                                               "none, count 1 in macro and sample F1 (MULAN's convention).")
    evaluate.add_argument("model", metavar="MODEL", help="model file (JSON)")
    evaluate.add_argument("test", metavar="TEST", help="labelled data file")
    label_options(evaluate)
    evaluate.add_argument("--labels", metavar="COL,...",
                          help="CSV: the label columns, the model's labels in any order (default: found by the "
                               "model's label names)")
    evaluate.set_defaults(run=_run_evaluate)

    cv = commands.add_parser("cv", help="cross-validate the default classifier on a data file",
                             description="K-fold cross-validation of CorsetClassifier's defaults on DATA "
                                         "(with --n-rules, another budget).")
    cv.add_argument("data", metavar="DATA", help="labelled data file")
    label_options(cv)
    cv.add_argument("--labels", metavar="COL,...", help="CSV: the label columns")
    cv.add_argument("--folds", type=_at_least_two, default=5, metavar="K", help="number of folds (default 5)")
    cv.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    cv.add_argument("--n-rules", type=_positive_int, metavar="K", help="rule budget (default 150)")
    cv.add_argument("--n-jobs", type=_n_jobs, metavar="N",
                    help="cross-validate N folds at a time (-1: every CPU; default one); the same scores for any N")
    cv.set_defaults(run=_run_cv)

    experiment = commands.add_parser(
        "experiment", help="re-run the paper's experiments against BOOMER, SeCo and BR-SVM",
        description="The paper's comparison end to end: tuned CORSET-SURS/GH, corset's defaults, BOOMER, SeCo "
                    "and BR-SVM on the benchmark sets (runs.csv, table.md, raw.md and figures in --out). "
                    "Resumable: a rerun skips finished runs.")
    experiment.add_argument("--quick", action="store_true",
                            help="emotions and medical, two repetitions, four tuning trials (a few minutes)")
    experiment.add_argument("--out", default="corset-experiment", metavar="DIR",
                            help="output folder (default corset-experiment)")
    experiment.add_argument("--data-home", default=None, metavar="DIR",
                            help="data folder (default: the CORSET_DATA environment variable)")
    experiment.add_argument("--datasets", metavar="NAME,...", help="data sets (default: all seven)")
    experiment.add_argument("--methods", metavar="NAME,...",
                            help="methods to run, in each part that has them (default: all installed); a comma "
                                 "inside parentheses belongs to the name: 'corset,BOOMER(1000, raw)'")
    experiment.add_argument("--parts", metavar="PART,...",
                            help="table, raw, path, synthetic, overlap, scale (default: all; --quick: table,raw)")
    experiment.add_argument("--repetitions", type=_positive_int, metavar="N", help="seeds per run (default 10)")
    experiment.add_argument("--n-trials", type=_positive_int, metavar="N", help="random-search trials (default 30)")
    experiment.add_argument("--time-limit", type=float, metavar="S", help="seconds per run (default 1800)")
    experiment.add_argument("--n-jobs", type=int, default=1, metavar="N", help="runs at the same time (default 1)")
    experiment.add_argument("--scheduler", metavar="ADDRESS",
                            help="run on a Dask cluster (e.g. tcp://host:8786); needs 'corset[dask]'")
    experiment.add_argument("--report-only", action="store_true", help="only rewrite tables and figures")
    experiment.add_argument("--quiet", action="store_true", help="no progress bars")
    experiment.set_defaults(run=_run_experiment)

    plot = commands.add_parser("plot", help="draw a model's rules (needs matplotlib)",
                               description="Draw the rule graph (labels above, items below, one colour per "
                                           "rule) or each rule's support and precision.")
    plot.add_argument("model", metavar="MODEL", help="model file (JSON)")
    plot.add_argument("-o", "--output", required=True, metavar="FILE.png", help="picture file (.png, .svg, .pdf)")
    plot.add_argument("--kind", choices=("graph", "stats"), default="graph", help="what to draw (default graph)")
    plot.add_argument("--max-rules", type=_positive_int, default=50, metavar="N",
                      help="rules in the graph (default 50)")
    plot.set_defaults(run=_run_plot)
    return parser


def main(argv=None):
    """Entry point of the ``corset`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[2:] if argv is None else argv[1:])
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    def show(message, category, filename, lineno, file=None, line=None):
        # One line naming the command, as its notes and errors do, not the console script's frame.
        print(f"corset {args.command}: warning ({category.__name__}): {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            return args.run(args, sys.stdout)
    except BrokenPipeError:
        # The reader stopped early (``corset rules MODEL | head``): not an error of ours.
        sys.stdout = None
        return 0
    except CommandError as exc:
        parser.exit(2, f"corset {args.command}: error: {exc}\n")
    except (ValueError, TypeError, FileNotFoundError, OSError) as exc:
        parser.exit(2, f"corset {args.command}: error: {exc}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
