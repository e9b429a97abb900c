"""Showing and exporting rule sets: text, dict/JSON, pandas DataFrame.

Kept apart from the rules themselves (MLRL-Boomer's habit): the model holds
plain data, and these functions decide how a person or a file sees it.
"""
import json
import re

FORMAT_VERSION = 3
"""Version of the exported dict/JSON layout and of the pickled classifier state.

Version 2 added the negated literals of a rule (``negated``, ``negated_names``);
dicts of version 1 (rules without them) are still read.  Version 3 renamed
CORSET-GH's ``gamma`` and ``epsilon`` to ``gh_gamma`` and ``gh_epsilon``:
the pickled state holds parameters as attributes, so pickles of version 2
are refused, while dicts of versions 1 and 2 are read with the old names
mapped to the new ones.
"""

READABLE_VERSIONS = (1, 2, 3)


# Feature names that state a comparison, as PercentileBinarizer names its columns
# (``Centroid>0.312``, ``Centroid>=0.312``, ``location=17``).
_THRESHOLD = re.compile(r"^(?P<name>.+?)(?P<op>>=|>)(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf)$")
_EQUALITY = re.compile(r"^(?P<name>[^=<>!]+)=(?P<value>[^=<>!]+)$")
_NEGATED_OPERATOR = {">": "<=", ">=": "<"}


def negated_text(name):
    """A negated literal as text: the opposite comparison when ``name`` states one, else ``NOT name``.

    ``Flux>0.012`` becomes ``Flux<=0.012``, ``Flux>=0.012`` becomes
    ``Flux<0.012`` and ``location=17`` becomes ``location!=17`` (the names
    :class:`~corset.preprocessing.PercentileBinarizer` gives its columns);
    any other name ``f`` becomes ``NOT f``, and so does a name in
    parentheses, which the estimator gives the negated literals of a column
    with missing training values (``NOT (Flux>0.012)`` also holds where Flux
    is missing; ``Flux<=0.012`` does not).
    """
    if name.startswith("(") and name.endswith(")"):
        return f"NOT {name}"
    match = _THRESHOLD.match(name)
    if match:
        return f"{match['name']}{_NEGATED_OPERATOR[match['op']]}{match['value']}"
    match = _EQUALITY.match(name)
    if match:
        return f"{match['name']}!={match['value']}"
    return f"NOT {name}"


def head_text(rule):
    """The head as text: ``a AND b AND NOT c`` (see :func:`negated_text`), or ``TRUE`` for a rule with no literal."""
    positive = rule.head_names or [f"x{f}" for f in rule.head]
    negated = rule.negated_names or [f"x{f}" for f in rule.negated]
    return " AND ".join(list(positive) + [negated_text(name) for name in negated]) or "TRUE"


def format_rule(rule):
    """``IF word_graph AND word_social THEN SNA, socialnets  (support 41, precision 0.93)``.

    The default rule (no literal) predicts each label of its tail on its own,
    and few records carry all of them: its precision (every label at once)
    would print as about 0, so the range of its labels' precisions is shown
    instead, e.g. ``(support 335, label precision 0.24 to 0.88)`` on CAL500.
    """
    head = head_text(rule)
    tail = ", ".join(rule.tail_names or [f"y{k}" for k in rule.tail])
    if rule.n_literals == 0 and len(rule.tail) > 1 and len(rule.label_precision) == len(rule.tail):
        low, high = min(rule.label_precision), max(rule.label_precision)
        return f"IF {head} THEN {tail}  (support {rule.support}, label precision {low:.2f} to {high:.2f})"
    return f"IF {head} THEN {tail}  (support {rule.support}, precision {rule.precision:.2f})"


def format_rules(rules):
    """One numbered line per rule, in selection order."""
    width = len(str(len(rules)))
    return "\n".join(f"{i + 1:>{width}}. {format_rule(r)}" for i, r in enumerate(rules))


def rules_to_dict(rules, *, feature_names, label_names, params=None):
    """A JSON-serialisable dict describing a rule set and the names it refers to."""
    return {
        "format": "corset.rules",
        "format_version": FORMAT_VERSION,
        "feature_names": [str(n) for n in feature_names],
        "label_names": [str(n) for n in label_names],
        "params": dict(params or {}),
        "rules": [r.to_dict() for r in rules],
    }


def check_rules_dict(d):
    """Validate the header of an exported rule set; raise ``ValueError`` if it is not one."""
    if not isinstance(d, dict) or d.get("format") != "corset.rules":
        raise ValueError("not an exported corset rule set (missing 'format': 'corset.rules')")
    if d.get("format_version") not in READABLE_VERSIONS:
        raise ValueError(
            f"rule set format version {d.get('format_version')!r} is not supported; "
            f"this version of corset reads versions {', '.join(map(str, READABLE_VERSIONS))}"
        )
    return d


def rules_to_json(rules, **kwargs):
    return json.dumps(rules_to_dict(rules, **kwargs), indent=2)


def rules_to_frame(rules):
    """A pandas DataFrame with one row per rule (pandas must be installed)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("rules_to_frame needs pandas: pip install pandas") from exc
    rows = []
    for r in rules:
        d = r.to_dict()
        d["head_names"] = head_text(r) if r.n_literals else ""
        d["tail_names"] = ", ".join(d["tail_names"])
        rows.append(d)
    columns = ["position", "head_names", "tail_names", "support", "n_matched", "precision",
               "base_rate", "adjusted_accuracy", "uncovered_area", "gain", "head", "negated", "tail"]
    return pd.DataFrame(rows, columns=columns)
