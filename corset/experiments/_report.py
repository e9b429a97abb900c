"""Tables and figures of an experiment, from the rows of its ``runs.csv``.

``write_report`` writes ``table.md`` (laid out like the paper's Table 2,
the paper's own figures beside ours), ``raw.md`` (end to end from raw
features), both also as ``.rst`` for the documentation, and the figures
as PNG (``f1_vs_rules.png``, ``synthetic.png``, ``overlap_vs_lambda.png``,
``fit_time_vs_records.png``) for the parts that ran.
"""
import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np

PAPER_TABLE = {
    # micro-F1 of the paper's Table 2: SURS, GH, SeCo, BOOMER(10), BOOMER(100), BOOMER(1000), BR-SVM; rules SURS/GH
    "emotions": (0.53, 0.54, 0.53, 0.17, 0.49, 0.54, 0.56, 42, 68),
    "birds": (0.37, 0.42, 0.39, 0.00, 0.34, 0.46, 0.42, 42, 48),
    "medical": (0.81, 0.83, 0.63, 0.00, 0.50, 0.91, 0.99, 27, 88),
    "enron": (0.55, 0.53, None, 0.39, 0.47, 0.54, 0.52, 41, 48),
    "CAL500": (0.29, 0.32, None, 0.31, 0.31, 0.33, 0.53, 150, 150),
    "corel5k": (0.18, 0.18, None, 0.00, 0.00, 0.03, 0.16, 142, 150),
    "bibtex": (0.36, 0.40, None, 0.00, 0.13, 0.36, 0.41, 74, 150),
}
"""The paper's Table 2 (micro-F1 on the test split; the number of rules of CORSET-SURS and CORSET-GH).

Its medical and CAL500 figures were not measured on MULAN's official
splits (medical: no learner reaches them there; CAL500: a test set sampled
with replacement from the data, so about half of it was also trained on).
"""
_PAPER_COLUMN = {"CORSET-SURS": 0, "CORSET-GH": 1, "SeCo": 2, "BOOMER(10)": 3, "BOOMER(100)": 4,
                 "BOOMER(1000)": 5, "BR-SVM": 6}


# How the stored runs scored a label (record) with nothing true and nothing predicted: scikit-learn's
# zero_division=0 (scores()), kept so that re-run rows and older ones in runs.csv agree.
_EMPTY_CONVENTION = (" Macro-F1 and sample F1 count a label absent from the test set and never predicted,"
                     " and a record without labels given none, as 0 (scikit-learn's zero_division=0), where"
                     " MULAN, mlrl-testbed and corset evaluate count them 1: on data with such labels or"
                     " records they read lower here than there.")


def _ok(rows, **match):
    return [r for r in rows if r["status"] == "ok" and all(r[k] == v for k, v in match.items())]


def _mean_std(values):
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return math.nan, math.nan
    return float(np.mean(values)), float(np.std(values, ddof=1)) if len(values) > 1 else 0.0


def _cell(values, digits=2):
    mean, std = _mean_std(values)
    if math.isnan(mean):
        return "—"
    return f"{mean:.{digits}f} ± {std:.{digits}f}" if len(values) > 1 else f"{mean:.{digits}f}"


def _status_note(rows, **match):
    bad = [r["status"] for r in rows if r["status"] != "ok" and all(r[k] == v for k, v in match.items())]
    return f" ({len(bad)} {bad[0]})" if bad else ""


def _in_order(rows, part, column, known):
    """The values of ``column`` in ``part``'s rows, in the order of ``known`` (the experiment's own),
    the values it does not know after them in the order they first occur: rows run again (appended
    to runs.csv) do not move a table's rows or columns."""
    seen = dict.fromkeys(r[column] for r in rows if r["part"] == part)
    rank = {name: i for i, name in enumerate(known)}
    return sorted(seen, key=lambda name: rank.get(name, len(rank)))   # stable: the unknown keep their order


def _datasets(rows, part):
    from ._runner import FULL

    return _in_order(rows, part, "dataset", FULL.datasets)


def _methods(rows, part):
    from ._methods import METHODS

    return _in_order(rows, part, "method", METHODS)


def table_markdown(rows):
    """The paper's Table 2 from the ``table`` rows: micro-F1 (mean ± std over seeds), then rules and fit time."""
    datasets, methods = _datasets(rows, "table"), _methods(rows, "table")
    if not datasets:
        return ""
    lines = ["Test micro-F1, mean ± standard deviation over the repetitions; in brackets, the paper's figure.",
             "", "| data | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for d in datasets:
        cells = []
        for m in methods:
            cell = _cell([r["micro_f1"] for r in _ok(rows, part="table", dataset=d, method=m)])
            paper = PAPER_TABLE.get(d)
            if paper and m in _PAPER_COLUMN and paper[_PAPER_COLUMN[m]] is not None:
                cell += f" [{paper[_PAPER_COLUMN[m]]:.2f}]"
            cells.append(cell + _status_note(rows, part="table", dataset=d, method=m))
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    lines += ["", "Number of rules (mean; BOOMER and SeCo count their default rule; in brackets the paper's "
              "CORSET-SURS / CORSET-GH) and fit time in seconds (mean, one thread).", "",
              "| data | " + " | ".join(f"{m} rules | {m} fit s" for m in methods) + " |",
              "|---|" + "---|---|" * len(methods)]
    for d in datasets:
        cells = []
        for m in methods:
            ok = _ok(rows, part="table", dataset=d, method=m)
            n = _mean_std([r["n_rules"] for r in ok])[0]
            rules = "—" if math.isnan(n) else f"{n:.0f}"
            paper = PAPER_TABLE.get(d)
            if paper and m in ("CORSET-SURS", "CORSET-GH"):
                rules += f" [{paper[7 if m == 'CORSET-SURS' else 8]}]"
            fit = _mean_std([r["fit_s"] for r in ok])[0]
            cells += [rules, "—" if math.isnan(fit) else f"{fit:.3g}"]
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    lines += ["", "Other measures (mean over the repetitions): macro-F1, sample F1, Hamming loss, mean rule "
              "length, average pairwise coverage overlap on the training data, peak memory of the fit (MB)."
              + _EMPTY_CONVENTION, "",
              "| data | method | macro-F1 | sample F1 | Hamming loss | rule length | overlap | peak MB |",
              "|---|---|---|---|---|---|---|---|"]
    for d in datasets:
        for m in methods:
            ok = _ok(rows, part="table", dataset=d, method=m)
            if not ok:
                continue
            vals = [_mean_std([r[k] for r in ok])[0] for k in
                    ("macro_f1", "sample_f1", "hamming_loss", "mean_rule_length", "coverage_overlap", "peak_mb")]
            fmt = ["—" if math.isnan(v) else f"{v:.3f}" for v in vals[:5]] + [
                "—" if math.isnan(vals[5]) else f"{vals[5]:.0f}"]
            lines.append(f"| {d} | {m} | " + " | ".join(fmt) + " |")
    return "\n".join(lines) + "\n"


def raw_markdown(rows):
    """End to end from raw features: micro-F1, rules and fit time per method and data set."""
    datasets, methods = _datasets(rows, "raw"), _methods(rows, "raw")
    if not datasets:
        return ""
    lines = ["From raw features (corset binarizes them itself, BOOMER bins them itself): test micro-F1 "
             "(mean ± std), number of rules (mean) and fit time in seconds (mean, one thread, binarization "
             "included).", "", "| data | " + " | ".join(f"{m} micro-F1 | rules | fit s" for m in methods) + " |",
             "|---|" + "---|---|---|" * len(methods)]
    for d in datasets:
        cells = []
        for m in methods:
            ok = _ok(rows, part="raw", dataset=d, method=m)
            n, fit = _mean_std([r["n_rules"] for r in ok])[0], _mean_std([r["fit_s"] for r in ok])[0]
            cells += [_cell([r["micro_f1"] for r in ok]) + _status_note(rows, part="raw", dataset=d, method=m),
                      "—" if math.isnan(n) else f"{n:.0f}", "—" if math.isnan(fit) else f"{fit:.3g}"]
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_path(rows, path):
    """Fig. 2: test micro-F1 against the number of rules (one line per method) on the ``path`` data set."""
    ok = [r for r in rows if r["part"] == "path" and r["status"] == "ok" and r["path"]]
    if not ok:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in ok:
        points = np.asarray(json.loads(r["path"]))
        if points.size:
            ax.plot(points[:, 0], points[:, 1], label=r["method"])
    ax.set_xscale("log")
    ax.set_xlabel("number of rules")
    ax.set_ylabel("test micro-F1")
    ax.set_title(f"{ok[0]['dataset']}: micro-F1 against the number of rules")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_synthetic(rows, path):
    """Fig. 4: micro-F1 against noise, and against the number of attributes and labels (uniform, skewed)."""
    ok = _ok(rows, part="synthetic")
    if not ok:
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    panels = [("noise", lambda s: s.startswith("noise="), lambda s: float(s.split("=")[1]), "noise"),
              ("uniform supports", lambda s: s.startswith("uniform,"), lambda s: int(s.split("=")[1]),
               "attributes = labels"),
              ("skewed supports", lambda s: s.startswith("skewed,"), lambda s: int(s.split("=")[1]),
               "attributes = labels")]
    for ax, (title, select, value, xlabel) in zip(axes, panels):
        for m in _methods(rows, "synthetic"):
            by_x = defaultdict(list)
            for r in ok:
                if r["method"] == m and select(r["setting"]):
                    by_x[value(r["setting"])].append(r["micro_f1"])
            if by_x:
                xs = sorted(by_x)
                ax.errorbar(xs, [np.mean(by_x[x]) for x in xs], yerr=[np.std(by_x[x]) for x in xs], label=m,
                            marker="o", capsize=2)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        if xlabel != "noise":
            ax.set_xscale("log")
    axes[0].set_ylabel("test micro-F1")
    axes[0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_overlap(rows, path):
    """Fig. 5: average pairwise coverage overlap against λ, one panel per data set (log-log)."""
    ok = _ok(rows, part="overlap")
    datasets = _datasets(rows, "overlap")
    if not ok:
        return None
    plt = _pyplot()
    cols = min(3, len(datasets))
    n_rows = math.ceil(len(datasets) / cols)
    fig, axes = plt.subplots(n_rows, cols, figsize=(4 * cols, 3.2 * n_rows), squeeze=False)
    for ax, d in zip(axes.ravel(), datasets):
        points = sorted((float(r["setting"].split("=")[1]), r["coverage_overlap"]) for r in ok if r["dataset"] == d)
        points = [(x, y) for x, y in points if not math.isnan(y) and y > 0]
        if points:
            ax.plot(*zip(*points), marker="o")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(d)
        ax.set_xlabel("λ")
        ax.set_ylabel("coverage overlap")
    for ax in axes.ravel()[len(datasets):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_scale(rows, path):
    """Fit time against the number of training records (synthetic, log-log); a time-out is marked."""
    scale = [r for r in rows if r["part"] == "scale"]
    if not scale:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for m in _methods(rows, "scale"):
        pts = sorted((int(r["setting"].split("=")[1]), r["fit_s"]) for r in scale
                     if r["method"] == m and r["status"] == "ok")
        if pts:
            ax.plot(*zip(*pts), marker="o", label=m)
        for r in scale:
            if r["method"] == m and r["status"] == "timeout":
                ax.annotate("time limit", (int(r["setting"].split("=")[1]), ax.get_ylim()[1]), fontsize="small")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training records")
    ax.set_ylabel("fit time (s)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def markdown_to_rst(text):
    """The Markdown of :func:`table_markdown` and :func:`raw_markdown` as reStructuredText (csv-tables)."""
    out, table = [], []

    def cells(line):
        return [c.strip().replace('"', '""') for c in line.strip().strip("|").split("|")]

    def flush():
        if not table:
            return
        header, body = cells(table[0]), [cells(line) for line in table[2:]]
        out.append(".. csv-table::")
        out.append("   :header: " + ", ".join(f'"{c}"' for c in header))
        out.append("")
        out.extend("   " + ", ".join(f'"{c}"' for c in row) for row in body)
        out.append("")
        table.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        flush()
        out.append(line.replace("`", "``") if "`" in line and "``" not in line else line)
    flush()
    return "\n".join(out) + "\n"


def write_report(rows, out_dir, header=""):
    """Write the tables (Markdown, and reStructuredText for Sphinx) and, with matplotlib, the figures.

    Returns the paths written.
    """
    out = Path(out_dir)
    written = []
    for name, text in (("table", table_markdown(rows)), ("raw", raw_markdown(rows))):
        if text:
            (out / f"{name}.md").write_text(header + text)
            (out / f"{name}.rst").write_text(markdown_to_rst(header + text))
            written += [out / f"{name}.md", out / f"{name}.rst"]
    try:
        _pyplot()
    except ImportError:
        return written
    for name, plot in (("f1_vs_rules.png", plot_path), ("synthetic.png", plot_synthetic),
                       ("overlap_vs_lambda.png", plot_overlap), ("fit_time_vs_records.png", plot_scale)):
        if plot(rows, out / name) is not None:
            written.append(out / name)
    return written
