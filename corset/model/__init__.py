"""The estimator and its rule model: what users import.

:class:`CorsetClassifier` is the scikit-learn estimator; :class:`Rule` the
plain rule objects it holds in ``rules_``; :mod:`corset.model._export` shows
and exports them (text, dict/JSON, pandas DataFrame).
"""
from ._classifier import PAPER_PRESET, CorsetClassifier
from ._export import FORMAT_VERSION, format_rule, format_rules
from ._features import UnseenCategoryWarning
from ._rules import Rule

__all__ = ["CorsetClassifier", "PAPER_PRESET", "Rule", "FORMAT_VERSION", "format_rule", "format_rules",
           "UnseenCategoryWarning"]
