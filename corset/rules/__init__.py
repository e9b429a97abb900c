"""The rule layer beneath sampling and selection: rules as plain data, checked once.

Everything that flows between the stages of CORSET lives here, so that the
samplers (:mod:`corset.sampling`) and the selection (:mod:`corset.selection`)
both build on it and neither imports the other:

* :func:`check_rules` and :class:`RuleSet`: the one validation of rules
  ``(head, tail)`` (sorted tuples of feature and label ids; an empty head
  matches every record, which is how a default rule is written);
* :class:`CandidatePool`: a pool of candidate rules as CSR arrays, what the
  samplers hand to the selection (GenCandRules of Algorithm 1);
* :class:`Coverage`: cov(ℛ), the label occurrences the selected rules cover
  (eq. covD), kept once: the greedy selection updates it and the tail
  samplers read their weights from it; :func:`coverage_flags`,
  :func:`uncovered_label_counts`, and the record-level definitions of
  section samp (:func:`d_specific_coverage`, :func:`marginal_coverage`);
* prediction with a rule set: :func:`predict_labels`, :func:`fired_rules`.
"""
from ._check import RuleSet, check_rules
from ._coverage import Coverage, coverage_flags, d_specific_coverage, marginal_coverage, uncovered_label_counts
from ._pool import CandidatePool
from ._predict import fired_rules, predict_labels

__all__ = [
    "CandidatePool",
    "Coverage",
    "RuleSet",
    "check_rules",
    "coverage_flags",
    "d_specific_coverage",
    "fired_rules",
    "marginal_coverage",
    "predict_labels",
    "uncovered_label_counts",
]
