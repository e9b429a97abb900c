"""Pictures of a fitted rule set (matplotlib, the ``plot`` extra).

* :func:`plot_rule_graph`: the rule graph of the paper's Fig. 3 — labels
  above, the items (features) the rules use below, one colour per rule, a
  line from each item of a rule's head to each label of its tail;
* :func:`plot_rule_stats`: per-rule support and precision, on the training
  data or on given records;
* :func:`plot_f1_path`: micro-F1 against the number of rules along the
  greedy path (the paper's Fig. 2 for one data set).

Each function draws into ``ax`` (a new figure when None) and returns the axes.
"""
import numpy as np

__all__ = ["plot_rule_graph", "plot_rule_stats", "plot_f1_path"]


def _axes(ax, size):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size)
    return ax


def _items(rule):
    """The head items of a rule as printed: features, and negated features as their opposite."""
    from .model._export import head_text

    text = head_text(rule)
    return [] if text == "TRUE" else text.split(" AND ")


def plot_rule_graph(model, *, max_rules=50, ax=None):
    """The rule graph of the paper's Fig. 3: labels above, items below, one colour per rule.

    Parameters
    ----------
    model : CorsetClassifier
        A fitted classifier.
    max_rules : int, default=50
        Draw the first ``max_rules`` rules (in selection order).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    rules = [r for r in model.rules_[:max_rules]]
    labels = [name for name in model.label_names_ if any(name in r.tail_names for r in rules)]
    items = []
    for rule in rules:
        for item in _items(rule):
            if item not in items:
                items.append(item)
    width = max(len(labels), len(items), 2)
    ax = _axes(ax, (max(8.0, 0.35 * width), 6.0))
    x_label = {name: i * (width - 1) / max(len(labels) - 1, 1) for i, name in enumerate(labels)}
    x_item = {name: i * (width - 1) / max(len(items) - 1, 1) for i, name in enumerate(items)}
    colours = plt.get_cmap("tab20")
    for j, rule in enumerate(rules):
        colour = colours(j % 20)
        head = _items(rule)
        for item in head or [None]:
            for label in rule.tail_names:
                if label not in x_label:
                    continue
                x0 = x_item[item] if item is not None else x_label[label]
                y0 = 0.0 if item is not None else 0.5   # a default rule hangs from nowhere
                ax.plot([x0, x_label[label]], [y0, 1.0], color=colour, alpha=0.7, linewidth=1.2)
    ax.scatter(list(x_label.values()), [1.0] * len(x_label), s=30, color="black", zorder=3)
    ax.scatter(list(x_item.values()), [0.0] * len(x_item), s=30, color="dimgray", zorder=3)
    for name, x in x_label.items():
        ax.annotate(name, (x, 1.0), xytext=(0, 6), textcoords="offset points", rotation=60, ha="left",
                    va="bottom", fontsize=7)
    for name, x in x_item.items():
        ax.annotate(name, (x, 0.0), xytext=(0, -6), textcoords="offset points", rotation=-60, ha="left",
                    va="top", fontsize=7)
    ax.set_ylim(-0.6, 1.6)
    ax.set_xlim(-1, width)
    ax.axis("off")
    ax.set_title(f"{len(rules)} rules: items (below) to labels (above)", fontsize=9)
    return ax


def plot_rule_stats(model, X=None, Y=None, *, ax=None):
    """Per-rule support (bars) and precision (dots), on the training data or on ``(X, Y)``.

    Returns
    -------
    matplotlib Axes
        The support axis; precision is drawn on a twin axis in [0, 1].
    """
    if X is None:
        support = [r.support for r in model.rules_]
        precision = [r.precision for r in model.rules_]
        where = "training data"
    else:
        stats = model.rule_stats(X, Y)
        support, precision = stats["support"], stats["precision"]
        where = "given records"
    n = len(support)
    ax = _axes(ax, (max(6.0, 0.18 * n), 3.5))
    positions = np.arange(1, n + 1)
    ax.bar(positions, support, color="lightsteelblue", label="support")
    ax.set_xlabel("rule (selection order)")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # rules are counted: no 2.5th rule
    ax.set_ylabel("support (records where it fires)")
    twin = ax.twinx()
    twin.plot(positions, precision, "o", color="darkred", markersize=3, label="precision")
    twin.set_ylim(0, 1.05)
    twin.set_ylabel("precision")
    ax.set_title(f"Support and precision of each rule ({where})", fontsize=9)
    return ax


def plot_f1_path(model, X, Y, *, ax=None, label=None):
    """Micro-F1 on ``(X, Y)`` of the first k rules, for k = 1 ... len(rules_).

    The greedy selection is sequential: the first k rules are the rule set a
    budget of k would have selected (the default rule, when there is one,
    counts as the last rule).

    Returns
    -------
    matplotlib Axes
    """
    import scipy.sparse as sp
    from sklearn.metrics import f1_score

    Xb = model._check_X(X)
    Yb, _, _ = model._validate_y_like(Y)
    Yd = Yb.toarray().astype(bool)
    fired = sp.csc_array(model._fired(Xb))
    predicted = np.zeros_like(Yd)
    scores = []
    for j, rule in enumerate(model.rules_):
        rows = fired.indices[fired.indptr[j]:fired.indptr[j + 1]]
        for k in rule.tail:
            predicted[rows, k] = True
        scores.append(f1_score(Yd, predicted, average="micro", zero_division=0))
    ax = _axes(ax, (5.0, 3.5))
    ax.plot(np.arange(1, len(scores) + 1), scores, marker=".", label=label)
    ax.set_xlabel("number of rules")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("micro-F1")
    ax.set_title("Micro-F1 along the greedy path", fontsize=9)
    if label is not None:
        ax.legend()
    return ax
