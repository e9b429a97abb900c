"""The pictures of a rule set render to non-empty PNG files."""
import numpy as np
import pytest

from corset.datasets import make_rule_data
from corset.model import CorsetClassifier

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


@pytest.fixture(scope="module")
def fitted():
    data = make_rule_data(n_records=300, n_features=20, n_labels=8, random_state=0)
    X, Y = data.X.toarray(), data.Y.toarray()
    return CorsetClassifier(random_state=0).fit(X[:200], Y[:200], label_names=data.label_names), X, Y


def _png(ax, path):
    import matplotlib.pyplot as plt

    ax.figure.savefig(path)
    plt.close(ax.figure)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
    return data


def test_rule_graph(fitted, tmp_path):
    from corset.plotting import plot_rule_graph

    model, _, _ = fitted
    ax = plot_rule_graph(model)
    # One line per (head item, tail label) pair of every rule drawn.
    pairs = sum(max(1, r.n_literals) * len(r.tail) for r in model.rules_[:50])
    assert len(ax.lines) == pairs
    _png(ax, tmp_path / "graph.png")


def test_rule_stats_and_f1_path(fitted, tmp_path):
    from corset.plotting import plot_f1_path, plot_rule_stats

    model, X, Y = fitted
    ax = plot_rule_stats(model)
    assert len(ax.patches) == len(model.rules_)
    _png(ax, tmp_path / "stats.png")
    ax = plot_rule_stats(model, X[200:], Y[200:])
    _png(ax, tmp_path / "stats_test.png")
    ax = plot_f1_path(model, X[200:], Y[200:])
    curve = ax.lines[0].get_ydata()
    assert len(curve) == len(model.rules_)
    from sklearn.metrics import f1_score

    assert curve[-1] == pytest.approx(f1_score(Y[200:], model.predict(X[200:]), average="micro"))
    _png(ax, tmp_path / "path.png")
