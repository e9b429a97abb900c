"""The command line on one's own data, run as a user runs it: fit -> rules -> predict -> evaluate."""
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from corset.datasets import make_rule_data


def corset(*args, cwd):
    """Run ``corset ARGS`` in a child process (outside the source tree: the installed package)."""
    return subprocess.run([sys.executable, "-m", "corset.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _synthetic_frames(seed=0):
    pd = pytest.importorskip("pandas")
    data = make_rule_data(n_records=300, n_features=15, n_labels=5, noise=0.02, random_state=seed)
    X = pd.DataFrame(data.X.toarray(), columns=[f"f{j}" for j in range(15)])
    X["colour"] = np.random.RandomState(seed).choice(["red", "green", "blue"], 300)
    Y = pd.DataFrame(data.Y.toarray(), columns=[f"l{k}" for k in range(5)])
    return pd.concat([X, Y], axis=1)


def test_csv_fit_rules_predict_evaluate(tmp_path):
    frame = _synthetic_frames()
    frame.iloc[:200].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[200:].to_csv(tmp_path / "test.csv", index=False)
    labels = ",".join(f"l{k}" for k in range(5))
    fit = corset("fit", "train.csv", "--labels", labels, "-o", "model.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert "CorsetClassifier:" in fit.stdout and "THEN l" in fit.stdout
    rules = corset("rules", "model.json", "--format", "json", cwd=tmp_path)
    assert rules.returncode == 0 and len(json.loads(rules.stdout)) >= 1
    by_label = corset("rules", "model.json", "--by-label", cwd=tmp_path)
    assert by_label.returncode == 0 and by_label.stdout.startswith("l0 (")
    predict = corset("predict", "model.json", "test.csv", "-o", "pred.csv", cwd=tmp_path)
    assert predict.returncode == 0, predict.stderr
    import pandas as pd

    pred = pd.read_csv(tmp_path / "pred.csv")
    assert list(pred.columns) == [f"l{k}" for k in range(5)] and len(pred) == 100
    evaluate = corset("evaluate", "model.json", "test.csv", cwd=tmp_path)
    assert evaluate.returncode == 0, evaluate.stderr
    micro = float(next(line.split()[-1] for line in evaluate.stdout.splitlines() if "micro-F1" in line))
    from sklearn.metrics import f1_score

    truth = frame.iloc[200:][[f"l{k}" for k in range(5)]].to_numpy()
    assert micro == pytest.approx(f1_score(truth, pred.to_numpy(), average="micro"), abs=1e-4)
    # --labels, as at fit time: the model's labels in any order, read in the model's order.
    reordered = corset("evaluate", "model.json", "test.csv", "--labels", ",".join(reversed(labels.split(","))),
                       cwd=tmp_path)
    assert reordered.returncode == 0 and reordered.stdout == evaluate.stdout, reordered.stderr
    named = corset("predict", "model.json", "test.csv", "--labels", labels, cwd=tmp_path)
    assert named.returncode == 0 and pd.read_csv(io.StringIO(named.stdout)).equals(pred)
    for wrong, message in [("l0,l1,l2,l3", "'l4' is missing"), (labels + ",colour", "'colour' is not one of them"),
                           (labels + ",l0", "a label is named twice")]:
        result = corset("evaluate", "model.json", "test.csv", "--labels", wrong, cwd=tmp_path)
        assert result.returncode == 2 and ("--labels: the model model.json predicts 5 labels (l0, l1, l2, l3, l4); "
                                           f"{message}") in result.stderr, result.stderr


def test_csv_identifier_column_is_left_out_and_said(tmp_path):
    """A CSV text column with a different value in every record (an identifier) is no feature: fit
    leaves it out with a note (one item per record, none usable by a rule of the defaults), and
    predict and evaluate leave out the columns the model was not fitted on, with a note."""
    frame = _synthetic_frames()
    frame.insert(0, "record", [f"r{i:03d}" for i in range(len(frame))])
    frame.iloc[:200].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[200:].to_csv(tmp_path / "test.csv", index=False)
    labels = ",".join(f"l{k}" for k in range(5))
    fit = corset("fit", "train.csv", "--labels", labels, "-o", "model.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert ("note: train.csv: column(s) 'record' left out of the features (no value in two records: "
            "an identifier or free text)") in fit.stderr
    assert "Warning" not in fit.stderr
    model = json.loads((tmp_path / "model.json").read_text())
    assert "record" not in json.dumps(model["features"]) and "colour" in json.dumps(model["features"])
    for command in ("predict", "evaluate"):
        result = corset(command, "model.json", "test.csv", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "note: test.csv: column(s) 'record' left out (not features of the model)" in result.stderr
    # The model's columns are read by name, in its order, whatever the file's; one missing is named.
    test = frame.iloc[200:]
    test[test.columns[::-1]].to_csv(tmp_path / "reordered.csv", index=False)
    reordered = corset("evaluate", "model.json", "reordered.csv", cwd=tmp_path)
    assert reordered.returncode == 0 and reordered.stdout.splitlines()[1:] == result.stdout.splitlines()[1:]
    test.drop(columns="f3").to_csv(tmp_path / "no_f3.csv", index=False)
    result = corset("predict", "model.json", "no_f3.csv", cwd=tmp_path)
    assert result.returncode == 2 and "no_f3.csv: no column 'f3', a feature of the model (which reads 16 columns: " \
        "'f0', 'f1', 'f2', 'f3', 'f4', ...)" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    # Unlabelled data: predict takes --labels as fit did; evaluate names the label column it lacks.
    test.drop(columns=[f"l{k}" for k in range(5)]).to_csv(tmp_path / "new.csv", index=False)
    result = corset("predict", "model.json", "new.csv", "--labels", labels.replace(",", ", "), cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("l0,l1,l2,l3,l4\n"), result.stderr
    result = corset("evaluate", "model.json", "new.csv", cwd=tmp_path)
    assert result.returncode == 2 and "new.csv: no column 'l0', a label of the training data; the columns are" in result.stderr
    # Free text with blanks: no value in two records either.
    blanks = frame.iloc[:200].copy()
    blanks["comment"] = [None if i % 10 == 0 else f"text {i}" for i in range(200)]
    blanks.to_csv(tmp_path / "blanks.csv", index=False)
    result = corset("fit", "blanks.csv", "--labels", labels, "--quiet", cwd=tmp_path)
    assert result.returncode == 0 and "column(s) 'record', 'comment' left out of the features" in result.stderr
    # Nothing left to learn from: one line, not an estimator's message about an empty fold.
    frame[["record", "l0", "l1"]].to_csv(tmp_path / "only_ids.csv", index=False)
    result = corset("fit", "only_ids.csv", "--labels", "l0,l1", cwd=tmp_path)
    assert result.returncode == 2 and "only_ids.csv: no feature left: every feature column ('record') has no " \
        "value in two records" in result.stderr
    # A model fitted on an array, its columns named by feature_names: the file's columns by those names.
    from corset import CorsetClassifier

    numeric = [f"f{j}" for j in range(15)]
    array_model = CorsetClassifier(random_state=0).fit(frame.iloc[:200][numeric].to_numpy(),
                                                       frame.iloc[:200][labels.split(",")].to_numpy(),
                                                       feature_names=numeric, label_names=labels.split(","))
    (tmp_path / "array_model.json").write_text(array_model.to_json())
    result = corset("evaluate", "array_model.json", "test.csv", cwd=tmp_path)
    assert result.returncode == 0 and "Warning" not in result.stderr, result.stderr
    assert "column(s) 'record', 'colour' left out (not features of the model)" in result.stderr
    # The paper's preset keeps rules matched by one record: the column stays a feature there.
    paper = corset("fit", "train.csv", "--labels", labels, "--preset", "paper", "--n-rules", "5", "-o", "paper.json",
                   "--quiet", cwd=tmp_path)
    assert paper.returncode == 0 and "left out" not in paper.stderr, paper.stderr
    assert "record" in json.dumps(json.loads((tmp_path / "paper.json").read_text())["features"])


def test_csv_as_spreadsheets_write_it(tmp_path):
    """";"-separated with decimal commas, or tab-separated, and labels written yes/no or True/False
    beside 0/1 columns: read as the comma-separated 0/1 file they stand for (each said), the same rules."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    n = 200
    frame = pd.DataFrame({"x1": rng.normal(size=n).round(3), "x2": rng.randint(0, 3, n),
                          "colour": rng.choice(["red", "blue"], n)})
    A, B, C = (frame.x1 > 0.3), (frame.x2 == 2), (frame.colour == "red") & (frame.x1 < 0)
    frame.assign(A=A.astype(int), B=B.astype(int), C=C.astype(int)).to_csv(tmp_path / "plain.csv", index=False)
    words = frame.assign(A=np.where(A, "Yes", "No"), B=B, C=C.astype(int))   # yes/no, True/False, 0/1
    words.to_csv(tmp_path / "semi.csv", sep=";", decimal=",", index=False)
    # Whole numbers first, decimal commas later: a comma read fails on the later rows (tokenizing).
    assert (tmp_path / "semi.csv").read_text().splitlines()[1].count(",") <= 1
    words.to_csv(tmp_path / "tab.csv", sep="\t", index=False)
    runs = {name: corset("fit", name, "--labels", "A,B,C", "-o", name + ".json", "--quiet", cwd=tmp_path)
            for name in ("plain.csv", "semi.csv", "tab.csv")}
    assert all(run.returncode == 0 for run in runs.values()), {k: r.stderr for k, r in runs.items()}
    assert runs["semi.csv"].stdout.splitlines()[:-1] == runs["plain.csv"].stdout.splitlines()[:-1]
    assert runs["tab.csv"].stdout.splitlines()[:-1] == runs["plain.csv"].stdout.splitlines()[:-1]
    assert "note: semi.csv: read as separated by ';', decimal commas in 'x1'" in runs["semi.csv"].stderr
    assert "note: tab.csv: read as separated by '\\t'" in runs["tab.csv"].stderr
    assert "label column(s) 'A' (yes) read as 1" in runs["semi.csv"].stderr
    # Labels of several types in one file are scored as 0/1 (a boolean and an integer column used to
    # give predictions of dtype object, which scikit-learn's metrics refused).
    plain = corset("evaluate", "plain.csv.json", "plain.csv", cwd=tmp_path)
    for name in ("semi.csv", "tab.csv"):
        result = corset("evaluate", name + ".json", name, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[1:] == plain.stdout.splitlines()[1:]


def test_csv_from_a_german_spreadsheet(tmp_path):
    """cp1252, ";", decimal commas with "." grouping thousands (5.292,2), CRLF line ends, umlauts in
    names: the same rules as the plain UTF-8 comma file of the same data, each reading said."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    n = 120
    x = (rng.normal(size=n) * 3000).round(1)
    frame = pd.DataFrame({"Größe": x, "x2": rng.randint(0, 3, n), "Farbe": rng.choice(["grün", "rot"], n),
                          "A": (x > 1000).astype(int)})
    frame["B"] = (frame.x2 == 2).astype(int)
    frame.to_csv(tmp_path / "plain.csv", index=False)
    german = [f"{v:,.1f}".replace(",", " ").replace(".", ",").replace(" ", ".") for v in x]
    lines = [";".join(frame.columns)] + [";".join([g, str(r.x2), r.Farbe, str(r.A), str(r.B)])
                                         for g, r in zip(german, frame.itertuples())]
    assert any("." in g and "," in g for g in german)
    (tmp_path / "de.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode("cp1252"))
    plain = corset("fit", "plain.csv", "--labels", "A,B", "--quiet", cwd=tmp_path)
    de = corset("fit", "de.csv", "--labels", "A,B", "--quiet", cwd=tmp_path)
    assert plain.returncode == 0 and de.returncode == 0, de.stderr
    assert de.stdout == plain.stdout
    assert "note: de.csv: not UTF-8; read as cp1252" in de.stderr
    assert "decimal commas and thousands points in 'Größe'" in de.stderr


def test_csv_odd_but_valid_headers(tmp_path):
    """A ";" column and a label column named "self" (DataFrame.assign's own argument), and a file
    with a header and no record, which must not be said to hold yes/no labels."""
    (tmp_path / "self.csv").write_text("self;x;A\n" + "".join(f"{i % 3},5;{i};{'yes' if i % 2 else 'no'}\n"
                                                               for i in range(40)))
    result = corset("fit", "self.csv", "--labels", "A", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "decimal commas in 'self'" in result.stderr and "label column(s) 'A' (yes)" in result.stderr
    (tmp_path / "self_label.csv").write_text("x,self\n" + "".join(f"{i},{'yes' if i % 2 else 'no'}\n"
                                                                  for i in range(40)))
    result = corset("fit", "self_label.csv", "--labels", "self", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (tmp_path / "header.csv").write_text("x,A\n")
    result = corset("fit", "header.csv", "--labels", "A", "--quiet", cwd=tmp_path)
    assert result.returncode == 2 and "read as 1" not in result.stderr, result.stderr


def test_arff_nominal_identifier_is_left_out_and_said(tmp_path):
    """A nominal ARFF attribute with a different value in every training record (genbase-style
    protein names) is left out at fit, and the test file's copy of it at evaluate, each with a note."""
    rng = np.random.RandomState(0)
    n = 90
    ids, x, z = [f"p{i}" for i in range(n)], rng.normal(size=n), rng.choice(["A", "B", "C"], n)
    head = ("@relation t\n@attribute protein {" + ",".join(ids) + "}\n@attribute x numeric\n"
            "@attribute z {A,B,C}\n@attribute y1 {0,1}\n@attribute y2 {0,1}\n@data\n")
    for name, rows in (("train.arff", range(60)), ("test.arff", range(60, n))):
        (tmp_path / name).write_text(head + "".join(f"{ids[i]},{x[i]:.4f},{z[i]},{int(x[i] > 0.5)},{int(z[i] == 'A')}\n"
                                                    for i in rows))
    fit = corset("fit", "train.arff", "--n-labels", "-2", "-o", "model.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert "note: train.arff: column(s) 'protein' left out of the features (no value in two records" in fit.stderr
    assert "Warning" not in fit.stderr and "protein" not in json.dumps(json.loads(
        (tmp_path / "model.json").read_text())["features"])
    evaluate = corset("evaluate", "model.json", "test.arff", cwd=tmp_path)
    assert evaluate.returncode == 0 and "micro-F1" in evaluate.stdout, evaluate.stderr
    assert "note: test.arff: column(s) 'protein' left out (not features of the model)" in evaluate.stderr


def test_svmlight_fit_and_evaluate(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    data = make_rule_data(n_records=300, n_features=15, n_labels=5, random_state=1)
    X, Y = data.X.toarray().astype(np.float64), data.Y.toarray().astype(np.int64)
    dump_svmlight_file(X[:200], Y[:200], str(tmp_path / "train.svm"), multilabel=True)
    dump_svmlight_file(X[200:], Y[200:], str(tmp_path / "test.svm"), multilabel=True)
    fit = corset("fit", "train.svm", "-o", "model.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    evaluate = corset("evaluate", "model.json", "test.svm", cwd=tmp_path)
    assert evaluate.returncode == 0, evaluate.stderr
    assert "subset accuracy" in evaluate.stdout
    paper = corset("fit", "train.svm", "--preset", "paper", "--n-rules", "12", "-o", "paper.json", "--quiet",
                   cwd=tmp_path)
    assert paper.returncode == 0, paper.stderr
    params = json.loads((tmp_path / "paper.json").read_text())["params"]
    assert params["quality"] == "paper" and params["n_rules"] == 12 and params["default_rule"] is False


def test_svmlight_blank_lines_are_records(tmp_path):
    """scikit-learn's dump_svmlight_file writes a record with no label and no feature as a blank line,
    which its reader skips: corset reads it as a record (predictions stay line by line), says so,
    and leaves out comment lines and the empty lines at the end of the file."""
    from sklearn.datasets import dump_svmlight_file

    data = make_rule_data(n_records=300, n_features=15, n_labels=5, random_state=1)
    X, Y = data.X.toarray().astype(np.float64), data.Y.toarray().astype(np.int64)
    X[[210, 250]], Y[[210, 250]] = 0, 0
    dump_svmlight_file(X[:200], Y[:200], str(tmp_path / "train.svm"), multilabel=True)
    dump_svmlight_file(X[200:], Y[200:], str(tmp_path / "test.svm"), multilabel=True)
    test = (tmp_path / "test.svm").read_text()
    assert test.splitlines()[10].strip() == ""   # the case is there: record 11 is a blank line
    (tmp_path / "test.svm").write_text("# written by dump_svmlight_file\n" + test + "\n\n")
    assert corset("fit", "train.svm", "-o", "model.json", "--quiet", cwd=tmp_path).returncode == 0
    predict = corset("predict", "model.json", "test.svm", cwd=tmp_path)
    assert predict.returncode == 0, predict.stderr
    assert len(predict.stdout.splitlines()) == 1 + 100   # a header and one row per record
    assert ("note: test.svm: 2 blank line(s) read as records without labels or features "
            "(first: line 12, record 11)") in predict.stderr
    evaluate = corset("evaluate", "model.json", "test.svm", cwd=tmp_path)
    assert evaluate.returncode == 0 and "test.svm: 100 records, 5 labels" in evaluate.stdout, evaluate.stderr
    (tmp_path / "bad.svm").write_text("1,2.5 1:1\n0 2:1\n")
    bad = corset("fit", "bad.svm", cwd=tmp_path)
    assert bad.returncode == 2 and "bad.svm: record 1 has the label 2.5; svmlight labels must be integers" in bad.stderr


@pytest.mark.realdata
def test_arff_session_on_a_benchmark(tmp_path, data_dir):
    folder = data_dir / "emotions"
    fit = corset("fit", folder / "emotions-train.arff", "--label-xml", folder / "emotions.xml", "-o", "m.json",
                 "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert "THEN" in fit.stdout and "relaxing-calm" in fit.stdout
    evaluate = corset("evaluate", "m.json", folder / "emotions-test.arff", cwd=tmp_path)
    assert evaluate.returncode == 0 and "Warning" not in evaluate.stderr, evaluate.stderr
    assert "micro-F1" in evaluate.stdout


@pytest.mark.parametrize("args, message", [
    (("fit", "missing.arff", "--n-labels", "2"), "missing.arff: no such file"),
    (("fit", "bad.arff", "--n-labels", "2"), "bad.arff is not a valid ARFF file"),
    (("fit", "small.arff", "--n-labels", "9"), "n_labels = 9 does not fit"),
    (("fit", "train.csv"), "--labels"),
    (("fit", "train.csv", "--labels", "nope"), "no column 'nope'"),
    (("evaluate", "missing.json", "train.csv"), "missing.json: no such file"),
    (("rules", "bad.arff"), "not a corset model file"),
    (("fit", "data.xlsx"), "unknown file type"),
    # A label option the file type does not read is refused, not ignored.
    (("fit", "small.arff", "--labels", "y"), "small.arff: --labels names the label columns of a CSV file"),
    (("predict", "model.json", "small.arff", "--labels", "zz"),
     "small.arff: --labels names the label columns of a CSV file"),
    (("cv", "train.csv", "--labels", "b", "--n-labels", "1"), "train.csv: --n-labels is for ARFF files"),
    (("fit", "data.svm", "--labels", "1", "--n-labels", "1"),
     "data.svm: an svmlight file gives each record's labels at the start of its line; --labels and --n-labels "
     "are not for svmlight files"),
    # An output that cannot be written is refused before the fit, whose model would be lost.
    (("fit", "small.arff", "--n-labels", "-1", "-o", "no/such/model.json"),
     "-o no/such/model.json: the directory no/such does not exist"),
    (("fit", "small.arff", "--n-labels", "-1", "-o", "."), "-o .: is a directory; give a file name"),
    (("predict", "model.json", "small.arff", "--n-labels", "-1", "-o", "nowhere/p.csv"),
     "-o nowhere/p.csv: the directory nowhere does not exist"),
    # A label named twice ended in an AttributeError of pandas; option values in the option's words.
    (("fit", "train.csv", "--labels", "b,b"), "--labels: the column 'b' is named twice"),
    (("cv", "train.csv", "--labels", "b", "--folds", "3"), "--folds 3: train.csv holds only 2 records"),
])
def test_user_errors_are_one_line_without_traceback(tmp_path, args, message):
    (tmp_path / "bad.arff").write_text("this is not ARFF\n")
    (tmp_path / "small.arff").write_text("@relation r\n@attribute a numeric\n@attribute y {0,1}\n@data\n1,0\n2,1\n")
    (tmp_path / "train.csv").write_text("a,b\n1,0\n0,1\n")
    (tmp_path / "data.xlsx").write_text("x")
    (tmp_path / "data.svm").write_text("1 1:0.5\n0 2:1.5\n")
    if "model.json" in args:   # a model of "small.arff"'s one feature
        from corset import CorsetClassifier

        model = CorsetClassifier(random_state=0).fit(np.array([[1.0], [2.0], [3.0]]), np.array([[0], [1], [1]]))
        (tmp_path / "model.json").write_text(model.to_json())
    result = corset(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (("cv", "train.csv", "--labels", "b", "--folds", "1"), "corset cv: error: argument --folds: must be an "
                                                           "integer >= 2 (a fold is scored by a model of the others)"),
    (("cv", "train.csv", "--labels", "b", "--folds", "x"), "argument --folds: must be an integer >= 2; got 'x'"),
    (("fit", "train.csv", "--labels", "b", "--n-rules", "many"),
     "argument --n-rules: must be a positive integer; got 'many'"),
    (("fit", "train.csv", "--labels", "b", "--n-jobs", "all"),
     "argument --n-jobs: must be a number of jobs (-1: every CPU); got 'all'"),
])
def test_option_values_are_refused_in_the_options_words(tmp_path, args, message):
    """argparse's usage and one error line that says what the option takes (not "invalid
    _positive_int value", the name of the converter)."""
    (tmp_path / "train.csv").write_text("a,b\n1,0\n0,1\n")
    result = corset(*args, cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert "invalid" not in result.stderr


def test_errors_in_a_data_file_name_the_file_and_the_value(tmp_path):
    """What the estimator refuses in a file is reported with the file's name; a label that is not
    0/1 is named by value (evaluate used to end in scikit-learn's "can't handle a mix" message)."""
    frame = _synthetic_frames()
    labels = ",".join(f"l{k}" for k in range(5))
    frame.iloc[:200].to_csv(tmp_path / "train.csv", index=False)
    assert corset("fit", "train.csv", "--labels", labels, "-o", "model.json", "--quiet", cwd=tmp_path).returncode == 0
    bad = frame.iloc[200:].copy()
    bad.loc[bad.index[3], "l1"] = 2
    bad.to_csv(tmp_path / "labels.csv", index=False)
    infinite = frame.iloc[200:].copy()
    infinite["f3"] = infinite["f3"].astype(float)
    infinite.loc[infinite.index[4], "f3"] = np.inf
    infinite.to_csv(tmp_path / "infinite.csv", index=False)
    for args, message in [
        (("evaluate", "model.json", "labels.csv"), "labels.csv: its labels must be a binary (0/1) matrix; it holds "
                                                   "other values, e.g. [2]"),
        (("fit", "labels.csv", "--labels", labels, "--quiet"), "labels.csv: Y must be a binary (0/1) indicator "
                                                                "matrix; got a 'multiclass-multioutput' target: it "
                                                                "holds other values, e.g. [2]"),
        (("predict", "model.json", "infinite.csv"), "infinite.csv: Input X contains infinity in column 'f3'"),
        # cv used to score the failed folds NaN and then crash on a fold model without rules.
        (("cv", "infinite.csv", "--labels", labels, "--folds", "3"),
         "infinite.csv: Input X contains infinity in column 'f3'"),
        (("fit", "infinite.csv", "--labels", labels, "--quiet"),
         "infinite.csv: Input X contains infinity in column 'f3'"),
    ]:
        result = corset(*args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stdout)
        assert message in result.stderr and "Traceback" not in result.stderr, (args, result.stderr)


def test_version_and_help(tmp_path):
    version = corset("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("corset ")
    helped = corset("--help", cwd=tmp_path)
    for command in ("fit", "rules", "predict", "evaluate", "demo", "info"):
        assert command in helped.stdout


def test_plot_and_cv(tmp_path):
    pytest.importorskip("matplotlib")
    frame = _synthetic_frames(2)
    frame.to_csv(tmp_path / "data.csv", index=False)
    labels = ",".join(f"l{k}" for k in range(5))
    assert corset("fit", "data.csv", "--labels", labels, "-o", "m.json", "--quiet", cwd=tmp_path).returncode == 0
    for kind in ("graph", "stats"):
        result = corset("plot", "m.json", "-o", f"{kind}.png", "--kind", kind, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert (tmp_path / f"{kind}.png").read_bytes()[:4] == b"\x89PNG"
    bad = corset("plot", "m.json", "-o", "picture.txt", cwd=tmp_path)
    assert bad.returncode == 2 and "png" in bad.stderr
    cv = corset("cv", "data.csv", "--labels", labels, "--folds", "3", cwd=tmp_path)
    assert cv.returncode == 0, cv.stderr
    assert "micro-F1" in cv.stdout and "±" in cv.stdout


def test_csv_dates_are_cut_as_dates(tmp_path):
    # A CSV column of ISO 8601 dates is read as dates: items such as "joined>2021-03-02", not one per
    # day; a column that only looks like dates (an impossible month) stays nominal.
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    days = rng.randint(0, 730, 300)
    joined = pd.Timestamp("2020-01-01") + pd.to_timedelta(days, unit="D")
    frame = pd.DataFrame({"joined": joined.strftime("%Y-%m-%d"), "spend": rng.gamma(2.0, 50.0, 300),
                          "code": ["2021-13-01", "2021-14-01", "2021-15-01"] * 100,
                          "late": (days > 500).astype(int), "big": (rng.rand(300) < 0.3).astype(int)})
    frame.iloc[:200].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[200:].to_csv(tmp_path / "test.csv", index=False)
    fit = corset("fit", "train.csv", "--labels", "late,big", "-o", "model.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    names = json.loads((tmp_path / "model.json").read_text())["feature_names"]
    dated = [n for n in names if n.startswith("joined")]
    assert dated and all(n.startswith("joined>20") for n in dated)
    assert pd.Timestamp(dated[0].split(">", 1)[1]).year in (2020, 2021)
    assert any(n == "code=2021-13-01" for n in names)
    assert "THEN late" in fit.stdout
    evaluate = corset("evaluate", "model.json", "test.csv", cwd=tmp_path)
    assert evaluate.returncode == 0, evaluate.stderr


def test_fit_says_when_the_budget_ended_a_rising_selection(tmp_path):
    """A budget of 3 rules on data with five generating rules: the held-out score still rises where
    the budget stops the selection, and ``corset fit`` says so; with the default budget it does not."""
    frame = _synthetic_frames()
    frame.to_csv(tmp_path / "train.csv", index=False)
    labels = ",".join(f"l{k}" for k in range(5))
    note = "note: the selection used its whole budget (3 rules)"
    tight = corset("fit", "train.csv", "--labels", labels, "--n-rules", 3, "--quiet", cwd=tmp_path)
    assert tight.returncode == 0, tight.stderr
    assert note in tight.stdout and "a larger --n-rules may be more accurate" in tight.stdout
    default = corset("fit", "train.csv", "--labels", labels, "--quiet", cwd=tmp_path)
    assert default.returncode == 0, default.stderr
    assert "note:" not in default.stdout


def test_cv_counts_the_folds_whose_budget_ended_a_rising_selection(tmp_path):
    """``corset cv --n-rules 3`` fits every fold with that budget and says in how many folds it ended
    a selection whose held-out score was still rising; the default budget gives no such note."""
    frame = _synthetic_frames(2)
    frame.to_csv(tmp_path / "data.csv", index=False)
    labels = ",".join(f"l{k}" for k in range(5))
    tight = corset("cv", "data.csv", "--labels", labels, "--folds", 3, "--n-rules", 3, cwd=tmp_path)
    assert tight.returncode == 0, tight.stderr
    rules = float(next(line.split()[1] for line in tight.stdout.splitlines() if line.split()[0] == "rules"))
    assert rules <= 3
    assert "of 3 folds the selection used its whole budget (3 rules)" in tight.stdout
    default = corset("cv", "data.csv", "--labels", labels, "--folds", 3, cwd=tmp_path)
    assert default.returncode == 0, default.stderr
    assert "note:" not in default.stdout


def test_arff_with_string_and_true_false_labels(tmp_path):
    # An OpenML-style file: an identifier as a string attribute, labels declared {FALSE,TRUE}.
    rng = np.random.RandomState(0)
    x = rng.rand(120, 4)
    lines = ["@relation openml_style", "@attribute id string"]
    lines += [f"@attribute x{j} numeric" for j in range(4)] + ["@attribute a {FALSE,TRUE}", "@attribute b {TRUE,FALSE}"]
    lines.append("@data")
    for i in range(120):
        a, b = x[i, 0] > 0.5, x[i, 1] > 0.6
        lines.append(f"'rec {i}'," + ",".join(f"{v:.4f}" for v in x[i]) + f",{str(a).upper()},{str(b).upper()}")
    (tmp_path / "train.arff").write_text("\n".join(lines) + "\n")
    done = corset("fit", "train.arff", "--n-labels", "-2", "--quiet", "--output", "m.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "string attribute(s) 'id' left out of the features" in done.stderr
    model = json.loads((tmp_path / "m.json").read_text())
    assert model["label_names"] == ["a", "b"]
    assert model["features"]["input_names"] == ["x0", "x1", "x2", "x3"]   # the identifier is no feature


def test_csv_mixing_decimal_marks_is_refused(tmp_path):
    """A ";" column of numbers written with decimal points and decimal commas both is an error naming
    the column and a value of each kind, not a column of categories; a column of words is not."""
    rows = [f"{i % 4}{'.' if i % 3 else ','}5;w{i % 2};{i % 2}" for i in range(40)]
    (tmp_path / "mixed.csv").write_text("x;word;A\n" + "\n".join(rows) + "\n")
    result = corset("fit", "mixed.csv", "--labels", "A", "--quiet", cwd=tmp_path)
    assert result.returncode == 2
    assert "mixed.csv: column 'x' mixes decimal points ('0.5') and decimal commas ('0,5')" in result.stderr
    rows = [f"{i % 4},5;w{i % 2}.{i % 3};{i % 2}" for i in range(40)]
    (tmp_path / "words.csv").write_text("x;word;A\n" + "\n".join(rows) + "\n")
    result = corset("fit", "words.csv", "--labels", "A", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr


def test_n_jobs_gives_the_same_model_and_scores(tmp_path):
    """``--n-jobs`` runs the validation's folds (fit) or the folds (cv) side by side: same output."""
    frame = _synthetic_frames(3)
    frame.to_csv(tmp_path / "data.csv", index=False)
    labels = ",".join(f"l{k}" for k in range(5))
    models = []
    for jobs in ("1", "2"):
        fit = corset("fit", "data.csv", "--labels", labels, "-o", f"m{jobs}.json", "--quiet", "--n-jobs", jobs,
                     cwd=tmp_path)
        assert fit.returncode == 0, fit.stderr
        models.append(json.loads((tmp_path / f"m{jobs}.json").read_text()))
    assert models[0]["rules"] == models[1]["rules"] and models[0]["rules"]
    assert models[0]["params"]["n_jobs"] == 1 and models[1]["params"]["n_jobs"] == 2
    scores = [corset("cv", "data.csv", "--labels", labels, "--folds", "3", "--n-jobs", jobs, cwd=tmp_path)
              for jobs in ("1", "2")]
    assert all(result.returncode == 0 for result in scores), [result.stderr for result in scores]
    # The same scores and rule counts; only the fit time differs.
    assert [line for line in scores[0].stdout.splitlines() if "fit s" not in line] == [
        line for line in scores[1].stdout.splitlines() if "fit s" not in line]
    for command in (("fit", "data.csv", "--labels", labels), ("cv", "data.csv", "--labels", labels)):
        refused = corset(*command, "--n-jobs", "0", cwd=tmp_path)
        assert refused.returncode == 2 and "--n-jobs: must be a positive number of jobs, or negative" in refused.stderr


def test_meka_arff_fit_evaluate_predict(tmp_path):
    """A MEKA file (labels first, "-C 2" in @relation, numeric features last): evaluate and
    predict find the model's labels as the first attributes, though reading the last two as
    labels fails (they are numeric); a file with neither layout is refused, naming both."""
    rng = np.random.RandomState(0)
    n = 150
    x = rng.normal(size=(n, 3))
    head = ("@relation 'toy: -C 2'\n@attribute a {0,1}\n@attribute b {0,1}\n"
            + "".join(f"@attribute x{j} numeric\n" for j in range(3)) + "@data\n")
    rows = [f"{int(x[i, 0] > 0.3)},{int(x[i, 1] < -0.2)}," + ",".join(f"{v:.4f}" for v in x[i]) + "\n"
            for i in range(n)]
    (tmp_path / "train.arff").write_text(head + "".join(rows[:100]))
    (tmp_path / "test.arff").write_text(head + "".join(rows[100:]))
    fit = corset("fit", "train.arff", "-o", "model.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert json.loads((tmp_path / "model.json").read_text())["label_names"] == ["a", "b"]
    evaluate = corset("evaluate", "model.json", "test.arff", cwd=tmp_path)
    assert evaluate.returncode == 0, evaluate.stderr
    micro = float(next(line.split()[-1] for line in evaluate.stdout.splitlines() if "micro-F1" in line))
    assert micro > 0.8   # one cut per label decides it: the labels were read, not the features
    predict = corset("predict", "model.json", "test.arff", cwd=tmp_path)
    assert predict.returncode == 0, predict.stderr
    assert predict.stdout.splitlines()[0] == "a,b" and len(predict.stdout.splitlines()) == 51
    other = head.replace("@attribute a {0,1}\n@attribute b {0,1}\n", "@attribute c {0,1}\n@attribute d {0,1}\n")
    (tmp_path / "other.arff").write_text(other + "".join(rows[100:]))
    refused = corset("evaluate", "model.json", "other.arff", cwd=tmp_path)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "neither the first nor the last 2 attributes" in refused.stderr
    assert "the first 2 attributes are c, d" in refused.stderr and "'x1' must be nominal" in refused.stderr
    (tmp_path / "broken.arff").write_text(head + "".join(rows[100:110]) + "1,0,oops\n")
    broken = corset("evaluate", "model.json", "broken.arff", cwd=tmp_path)
    # Not valid ARFF whatever the layout: the parser's message, once, not once per layout tried.
    assert broken.returncode != 0 and "Traceback" not in broken.stderr
    assert broken.stderr.count("broken.arff") == 1 and "neither the first nor the last" not in broken.stderr


def test_a_label_column_of_tag_lists_is_refused_with_the_way_out(tmp_path):
    """A CSV column of tags written in one cell ("a|b", empty for none) named by --labels: said
    as label lists (not as a missing label for the untagged records), with what to write instead."""
    rng = np.random.RandomState(0)
    rows = ["x,y,tags"]
    for _ in range(60):
        x, y = rng.normal(size=2)
        rows.append(f"{x:.3f},{y:.3f}," + "|".join(t for t, on in (("a", x > 0), ("b", y > 0.5)) if on))
    (tmp_path / "tags.csv").write_text("\n".join(rows) + "\n")
    done = corset("fit", "tags.csv", "--labels", "tags", "--quiet", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "label column 'tags' holds lists of labels such as 'a|b'" in done.stderr
    assert "one 0/1 column per label" in done.stderr and "missing" not in done.stderr


def _example_f1_mulan(Y, P):
    """Example-based and macro F1 as MULAN defines them: 2·tp / (2·tp + fp + fn), and 1 where a
    record's (label's) true and predicted sets are both empty (a perfect prediction)."""
    def f1(tp, fp, fn):
        return np.where(tp + fp + fn == 0, 1.0, 2 * tp / np.maximum(2 * tp + fp + fn, 1))

    tp, fp, fn = (Y & P), (~Y & P), (Y & ~P)
    return f1(*(a.sum(axis=1) for a in (tp, fp, fn))).mean(), f1(*(a.sum(axis=0) for a in (tp, fp, fn))).mean()


def test_evaluate_and_cv_count_empty_agreements_as_perfect(tmp_path):
    """Records without labels that get none, and a label absent from the test file and never
    predicted, count 1 in sample-F1 and macro-F1 (MULAN's and mlrl-testbed's convention), with a
    note saying how many; cv scores the same way, without scikit-learn's ill-defined warnings."""
    pd = pytest.importorskip("pandas")
    frame = _synthetic_frames(0)
    frame["rare"] = 0
    frame.loc[:9, "rare"] = 1   # only in the training part: absent from the test file
    # Test records without labels and with no feature set: no rule fires on them.
    blank = [f"f{j}" for j in range(15)] + [f"l{k}" for k in range(5)]
    frame.loc[260:, blank] = 0
    frame.iloc[:200].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[200:].to_csv(tmp_path / "test.csv", index=False)
    labels = ",".join([f"l{k}" for k in range(5)] + ["rare"])
    assert corset("fit", "train.csv", "--labels", labels, "-o", "m.json", "--quiet", cwd=tmp_path).returncode == 0
    evaluate = corset("evaluate", "m.json", "test.csv", cwd=tmp_path)
    assert evaluate.returncode == 0, evaluate.stderr
    shown = {line.split()[0]: float(line.split()[-1]) for line in evaluate.stdout.splitlines()[1:]
             if line.startswith("  ") and "-F1" in line}
    predict = corset("predict", "m.json", "test.csv", cwd=tmp_path)
    P = pd.read_csv(io.StringIO(predict.stdout)).to_numpy().astype(bool)
    Y = frame.iloc[200:][labels.split(",")].to_numpy().astype(bool)
    sample, macro = _example_f1_mulan(Y, P)
    empty_records = int(((Y.sum(axis=1) == 0) & (P.sum(axis=1) == 0)).sum())
    assert empty_records > 0 and not P[:, -1].any()   # the case is there: the convention matters
    assert shown["sample-F1"] == pytest.approx(sample, abs=1e-4)
    assert shown["macro-F1"] == pytest.approx(macro, abs=1e-4)
    assert (f"note: 1 label(s) absent and never predicted; {empty_records} record(s) without labels and "
            "none predicted: counted 1 (a perfect prediction) in macro-F1 and sample-F1") in evaluate.stdout
    cv = corset("cv", "train.csv", "--labels", labels, "--folds", "3", cwd=tmp_path)
    assert cv.returncode == 0, cv.stderr
    assert "UndefinedMetricWarning" not in cv.stderr and "ill-defined" not in cv.stderr


def test_evaluate_and_cv_score_a_single_label(tmp_path):
    """One label column is a multi-label problem of one label: evaluate and cv score it (micro- and
    macro-F1 that label's F1, sample-F1 the share of records predicted right), where scikit-learn's
    sample average would refuse the column as a binary target."""
    rng = np.random.RandomState(0)
    x = rng.normal(size=120)
    y = ((x > 0.4) ^ (rng.rand(120) < 0.1)).astype(int)
    with open(tmp_path / "one.csv", "w") as f:
        f.write("x,noise,y\n")
        f.writelines(f"{a:.4f},{b:.4f},{c}\n" for a, b, c in zip(x, rng.rand(120), y))
    assert corset("fit", "one.csv", "--labels", "y", "-o", "m.json", "--quiet", cwd=tmp_path).returncode == 0
    evaluate = corset("evaluate", "m.json", "one.csv", cwd=tmp_path)
    assert evaluate.returncode == 0, evaluate.stderr
    assert evaluate.stdout.startswith("one.csv: 120 records, 1 label\n")
    shown = {line.split()[0]: float(line.split()[-1]) for line in evaluate.stdout.splitlines()[1:]
             if line.startswith("  ") and "-F1" in line}
    predicted = corset("predict", "m.json", "one.csv", cwd=tmp_path).stdout.splitlines()[1:]
    P = np.array([int(v) for v in predicted])
    tp, fp, fn = int((P & y).sum()), int((P & ~y & 1).sum()), int((~P & 1 & y).sum())
    assert tp > 0
    assert shown["micro-F1"] == pytest.approx(2 * tp / (2 * tp + fp + fn), abs=1e-4)
    assert shown["macro-F1"] == shown["micro-F1"]
    assert shown["sample-F1"] == pytest.approx(np.mean(P == y), abs=1e-4)
    cv = corset("cv", "one.csv", "--labels", "y", "--folds", "3", cwd=tmp_path)
    assert cv.returncode == 0, cv.stderr
    assert "sample-F1" in cv.stdout


@pytest.mark.parametrize("distinct", [False, True])
def test_a_text_cell_in_a_column_of_numbers_is_named(tmp_path, distinct):
    """One cell "unknown" makes a CSV column of numbers text: fit names the column and the cell's value
    (not a note calling the column an identifier, even when every value differs)."""
    rng = np.random.RandomState(0)
    x = rng.normal(25, 5, 200) if distinct else np.round(rng.normal(25, 5, 200))
    with open(tmp_path / "t.csv", "w") as f:
        f.write("temp,v,hot\n")
        for i, (t, v) in enumerate(zip(x, rng.rand(200))):
            f.write(f"{'unknown' if i == 8 else repr(float(t))},{v:.3f},{int(t > 30)}\n")
    done = corset("fit", "t.csv", "--labels", "hot", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "column(s) 'temp' of X hold numbers written as text ('temp' also holds 'unknown')" in done.stderr
    assert "identifier" not in done.stderr


def test_na_words_are_values_in_text_columns_and_empty_cells_are_missing(tmp_path):
    """In a text column "NA" (Namibia) or "None" is a value, not a missing one, said; in a column of
    numbers it still marks a missing number; an empty cell is a missing value, in a text column too:
    fit, predict and the rules read the file, the record satisfying none of that column's literals."""
    rows = [("NA", 1, 1), ("FR", 2, 0), ("NA", 3, 1), ("None", 4, 0), ("FR", 5, 0), ("NA", 6, 1)] * 5
    with open(tmp_path / "c.csv", "w") as f:
        f.write("country,v,label\n" + "".join(f"{c},{v},{y}\n" for c, v, y in rows))
    done = corset("fit", "c.csv", "--labels", "label", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "read as values, not as missing, in text column(s) ('country': 'NA', 'None')" in done.stderr
    assert "country=NA" in done.stdout
    with open(tmp_path / "n.csv", "w") as f:
        f.write("country,v,label\n" + "".join(f"{c},{'NA' if i == 3 else v},{y}\n" for i, (c, v, y) in enumerate(rows)))
    with open(tmp_path / "e.csv", "w") as f:
        f.write("country,v,label\n" + "".join(f"{'' if i == 4 else c},{v},{y}\n" for i, (c, v, y) in enumerate(rows)))
    for name in ("n.csv", "e.csv"):
        done = corset("fit", name, "--labels", "label", "--quiet", "-o", "m.json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        done = corset("predict", "m.json", name, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert len(done.stdout.splitlines()) == len(rows) + 1


def test_gzipped_csv_reads_as_the_plain_file(tmp_path):
    """A .csv.gz file (cp1252 inside, to go through every reader of the file) fits and predicts as its
    plain copy does."""
    import gzip

    rows = "".join(f"{'café' if i % 3 else 'thé'},{i % 7},{int(i % 3 == 0)}\n" for i in range(60))
    data = ("drink,v,label\n" + rows).encode("cp1252")
    (tmp_path / "d.csv").write_bytes(data)
    with gzip.open(tmp_path / "d.csv.gz", "wb") as f:
        f.write(data)
    plain = corset("fit", "d.csv", "--labels", "label", "-o", "p.json", "--quiet", cwd=tmp_path)
    zipped = corset("fit", "d.csv.gz", "--labels", "label", "-o", "z.json", "--quiet", cwd=tmp_path)
    assert plain.returncode == 0 and zipped.returncode == 0, zipped.stderr
    assert zipped.stdout.replace("z.json", "p.json") == plain.stdout and "drink=thé" in plain.stdout
    assert "d.csv.gz: not UTF-8; read as cp1252" in zipped.stderr
    assert (corset("predict", "p.json", "d.csv.gz", cwd=tmp_path).stdout
            == corset("predict", "p.json", "d.csv", cwd=tmp_path).stdout)


def _spreadsheet_rows(n=120, seed=0):
    """(a, b, c, pct, la, lb) rows: la follows a, lb follows c; b and pct are noise."""
    rng = np.random.RandomState(seed)
    rows = []
    for _ in range(n):
        a, c = rng.normal(), rng.choice(["TRUE", "FALSE"])
        rows.append((a, int(rng.randint(1000, 5000)), c, int(rng.randint(0, 100)), int(a > 0.3), int(c == "TRUE")))
    return rows


def test_csv_thousands_commas_and_percentages_are_numbers(tmp_path):
    """Quoted "1,234" and "12%" columns, as spreadsheets export them, are read as numbers, said;
    pandas leaves them as text (an identifier left out, and one category per percentage)."""
    with open(tmp_path / "train.csv", "w") as f:
        f.write("a,b,c,pct,la,lb\n")
        for a, b, c, p, la, lb in _spreadsheet_rows():
            f.write(f'{a:.3f},"{b:,}",{c},{p}%,{la},{lb}\n')
    fit = corset("fit", "train.csv", "--labels", "la,lb", "-o", "m.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert "note: train.csv: 'b' read as numbers with thousands commas" in fit.stderr
    assert "note: train.csv: 'pct' read as percentages without their % sign" in fit.stderr
    names = json.loads((tmp_path / "m.json").read_text())["feature_names"]
    assert not any(n.startswith(("pct=", "b=")) for n in names)   # no category per value
    assert any(n.startswith(("pct>", "pct<=")) for n in names) and any(n.startswith(("b>", "b<=")) for n in names)
    # The same reading at predict time: a thousands-comma cell is the number it writes.
    with open(tmp_path / "new.csv", "w") as f:
        f.write('a,b,c,pct\n0.9,"4,999",TRUE,99%\n-1.0,"1,000",FALSE,0%\n')
    predict = corset("predict", "m.json", "new.csv", cwd=tmp_path)
    assert predict.returncode == 0, predict.stderr
    assert predict.stdout.splitlines() == ["la,lb", "1,1", "0,0"]


def test_csv_header_problems_are_said_not_shifted(tmp_path):
    """A separator at the end of every line (pandas would make the first column the index and shift
    every name one column along) is read as the header says; a value beyond the header's columns,
    and a name given twice (pandas would rename it "a.1"), are errors; an unnamed column without
    values (a separator at the end of every line, header included) is left out, said."""
    rows = _spreadsheet_rows()
    with open(tmp_path / "trailing.csv", "w") as f:
        f.write("a,c,la,lb\n")
        f.writelines(f"{a:.3f},{c},{la},{lb},\n" for a, b, c, p, la, lb in rows)
    fit = corset("fit", "trailing.csv", "--labels", "la,lb", "-o", "m.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert "IF a>" in fit.stdout and "THEN la" in fit.stdout and "IF c THEN lb" in fit.stdout
    with open(tmp_path / "empty.csv", "w") as f:
        f.write("a,c,la,lb,\n")
        f.writelines(f"{a:.3f},{c},{la},{lb},\n" for a, b, c, p, la, lb in rows)
    fit = corset("fit", "empty.csv", "--labels", "la,lb", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert "note: empty.csv: column(s) 5 left out (no name and no value)" in fit.stderr
    lines = ["a,c,la,lb\n"] + [f"{a:.3f},{c},{la},{lb},\n" for a, b, c, p, la, lb in rows]
    lines[7] = lines[7].replace(",\n", ",9\n")
    (tmp_path / "extra.csv").write_text("".join(lines))
    extra = corset("fit", "extra.csv", "--labels", "la,lb", cwd=tmp_path)
    assert extra.returncode == 2 and ("extra.csv: line 8 has 5 fields but the header names 4 columns (an extra "
                                      "value '9')") in extra.stderr, extra.stderr
    (tmp_path / "twice.csv").write_text("a,a,la,lb\n" + "".join(f"{a:.3f},{b},{la},{lb}\n"
                                                                for a, b, c, p, la, lb in rows))
    twice = corset("fit", "twice.csv", "--labels", "la,lb", cwd=tmp_path)
    assert twice.returncode == 2 and ("twice.csv: the header names the column 'a' 2 times (columns 1, 2)"
                                      in twice.stderr), twice.stderr
    # DataFrame.to_csv's default row index (a first column without a name: 0, 1, 2, ...) is no
    # feature: on a file sorted by a label it would make rules that pick records by their row.
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(rows, columns=["a", "b", "c", "pct", "la", "lb"])[["a", "la"]]
    frame["lb"] = (np.arange(len(frame)) >= 80).astype(int)
    frame.to_csv(tmp_path / "indexed.csv")
    fit = corset("fit", "indexed.csv", "--labels", "la,lb", "-o", "i.json", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert ("note: indexed.csv: column(s) 1 left out (no name, increasing whole numbers: a row index such as "
            "DataFrame.to_csv writes)") in fit.stderr
    assert json.loads((tmp_path / "i.json").read_text())["feature_names"][0].startswith("a")
    assert "Unnamed" not in fit.stdout


def test_warnings_are_one_line_naming_the_command(tmp_path):
    """A warning of the library during a command is one line on standard error that names the
    command and the warning's kind (not the console script's source line)."""
    frame = _synthetic_frames()
    labels = ",".join(f"l{k}" for k in range(5))
    frame.iloc[:200].to_csv(tmp_path / "train.csv", index=False)
    assert corset("fit", "train.csv", "--labels", labels, "-o", "m.json", "--quiet", cwd=tmp_path).returncode == 0
    new = frame.iloc[200:].copy()
    new.loc[new.index[:7], "colour"] = "violet"
    new.to_csv(tmp_path / "new.csv", index=False)
    predict = corset("predict", "m.json", "new.csv", cwd=tmp_path)
    assert predict.returncode == 0, predict.stderr
    lines = [line for line in predict.stderr.splitlines() if "Warning" in line]
    assert lines == ["corset predict: warning (UnseenCategoryWarning): nominal column(s) of X 'colour': 7 "
                     "records with values fit never saw ('violet'): such a record matches none of the column's "
                     "'=' literals (and every '!=' one)"], predict.stderr
    assert len(predict.stderr.strip().splitlines()) == 1
