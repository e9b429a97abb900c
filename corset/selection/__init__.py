"""Rule selection: CORSET's objective, its greedy maximisation, and prediction.

Section problem_formulation and Algorithm 1 of the paper, with the
corrections 1-7 of the paper (see the documentation's "Corrections of the paper"):

* :func:`select_rules`: the standalone entry point, greedy selection over a
  fixed candidate pool on binary X and Y;
* :func:`greedy_selection`: Algorithm 1 with a candidate generator called at
  every step and an optional second round, on a :class:`~corset.BinaryData`;
* the objective's terms (:func:`objective`, :func:`uncovered_area`,
  :func:`adjusted_accuracy`, :func:`rule_quality`, :func:`jaccard_distance`,
  :func:`submodular_quality`);
* :func:`default_tail`: the labels of a default rule (empty head) chosen
  for training micro-F1 after the selection;
* :func:`complete_tails`: labels added to the selected rules' tails while
  they raise training micro-F1 (the default rule's choice, for each head);
* :class:`MicroF1Path`: the training micro-F1 of a growing rule set, which
  ``f1_patience`` uses to stop the selection and keep its best prefix;
* stopping criteria (:class:`StoppingCriterion`, :class:`RuleBudget`,
  :class:`ShareTolerance`, :class:`BestTrainingF1`) that plug into the one
  greedy loop of every entry point.

A rule is a pair ``(head, tail)`` of sorted tuples of feature ids and label
ids; rules, candidate pools, coverage and prediction live in the rule layer
:mod:`corset.rules` (``check_rules``, ``CandidatePool``, ``coverage_flags``,
``d_specific_coverage``, ``marginal_coverage``, ``uncovered_label_counts``,
``predict_labels`` and ``fired_rules`` are re-exported here).
"""
from ._completion import complete_tails
from ._default import default_tail
from ._f1path import MicroF1Path
from ._greedy import SelectionResult, SelectionStep, greedy_selection, select_rules
from ..rules import (  # the rule layer's names, re-exported where earlier versions had them
    CandidatePool,
    check_rules,
    coverage_flags,
    d_specific_coverage,
    fired_rules,
    marginal_coverage,
    predict_labels,
    uncovered_label_counts,
)
from ._objective import (
    jaccard_distance,
    objective,
    objective_terms,
    pairwise_distances,
    rule_quality,
    submodular_quality,
    uncovered_area,
)
from ._rules import RuleStatistics, adjusted_accuracy, rule_statistics
from ._stopping import BestHeldOutF1, BestTrainingF1, RuleBudget, ShareTolerance, StepInfo, StoppingCriterion

__all__ = [
    "BestHeldOutF1",
    "BestTrainingF1",
    "CandidatePool",
    "MicroF1Path",
    "RuleBudget",
    "RuleStatistics",
    "SelectionResult",
    "SelectionStep",
    "ShareTolerance",
    "StepInfo",
    "StoppingCriterion",
    "adjusted_accuracy",
    "check_rules",
    "complete_tails",
    "coverage_flags",
    "d_specific_coverage",
    "default_tail",
    "fired_rules",
    "greedy_selection",
    "jaccard_distance",
    "marginal_coverage",
    "objective",
    "objective_terms",
    "pairwise_distances",
    "predict_labels",
    "rule_quality",
    "rule_statistics",
    "select_rules",
    "submodular_quality",
    "uncovered_area",
    "uncovered_label_counts",
]
