"""The ``corset`` command line, run in-process: ``demo`` and ``info``."""
import re

import pytest

from corset.cli import format_rule, main
from corset.datasets import make_rule_data

RULE_LINE = re.compile(r"^  IF (.+) THEN (.+)  \(support (\d+)\)$")


def parse_rules(text):
    rules = []
    for line in text.splitlines():
        m = RULE_LINE.match(line)
        if m:
            head = tuple(int(f.lstrip("f")) for f in m.group(1).split(" AND "))
            tail = tuple(int(k.lstrip("l")) for k in m.group(2).split(", "))
            rules.append((head, tail, int(m.group(3))))
    return rules


def test_demo_prints_summary_and_the_generating_rules(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for field in ("records            1000", "features           30", "labels             30", "density",
                  "label cardinality"):
        assert field in out
    printed = parse_rules(out)
    # The defaults: 1000 records, 30 features and labels, seed 0.
    data = make_rule_data(n_records=1000, n_features=30, n_labels=30, random_state=0)
    expected = {(h, t, len(s)) for (h, t), s in zip(data.rules, data.supports)}
    assert len(printed) == 10 and set(printed) == expected
    sizes = [p[2] for p in printed]
    assert sizes == sorted(sizes, reverse=True)
    card = data.Y.nnz / 1000
    assert f"label cardinality  {card:.4f}" in out


def test_demo_options(capsys):
    assert main(["demo", "--n-records", "200", "--seed", "5", "--support", "skewed", "--noise", "0",
                 "--n-features", "12", "--n-labels", "9"]) == 0
    out = capsys.readouterr().out
    data = make_rule_data(n_records=200, n_features=12, n_labels=9, support="skewed", noise=0.0, random_state=5)
    assert {(h, t) for h, t, _ in parse_rules(out)} == set(data.rules)
    assert "records            200" in out and "seed 5, skewed supports, noise 0.0" in out
    assert main(["demo", "--n-records", "200", "--seed", "6", "--n-features", "12", "--n-labels", "9"]) == 0
    assert parse_rules(capsys.readouterr().out) != parse_rules(out)


@pytest.mark.parametrize("argv,message", [
    (["demo", "--n-records", "0"], "--n-records: must be a positive integer"),
    (["demo", "--noise", "2"], "--noise: must be in"),
    (["demo", "--support", "zipf"], "invalid choice"),
    (["demo", "--n-features", "2", "--n-labels", "2"], "pass n_rules explicitly"),
])
def test_demo_bad_arguments(capsys, argv, message):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "demo" in err and "info" in err


def test_format_rule():
    assert format_rule((3, 7), (1,), ["f%d" % i for i in range(9)], ["l0", "l1"], 120) == \
        "IF f3 AND f7 THEN l1  (support 120)"
    assert format_rule((), (0, 1), [], ["a", "b"]) == "IF TRUE THEN a, b"


@pytest.mark.realdata
def test_info_lists_the_benchmarks(capsys, data_dir):
    assert main(["info", "--data-home", str(data_dir)]) == 0
    out = capsys.readouterr().out
    lines = [line.split() for line in out.splitlines()[2:]]
    table = {(row[0], row[1]): tuple(int(v) for v in row[2:5]) for row in lines}
    assert len(table) == 21
    assert table["bibtex", "train"] == (4880, 1836, 159)
    assert table["CAL500", "test"] == (167, 68, 174)
    assert table["birds", "full"] == (645, 260, 19)


def test_info_on_an_empty_folder(capsys, tmp_path):
    assert main(["info", "--data-home", str(tmp_path)]) == 1
    assert "no benchmark data sets found" in capsys.readouterr().out


def test_info_without_a_data_folder(capsys, monkeypatch):
    monkeypatch.delenv("CORSET_DATA", raising=False)
    with pytest.raises(SystemExit) as info:
        main(["info"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "pass --data-home FOLDER or set the CORSET_DATA environment variable" in err
