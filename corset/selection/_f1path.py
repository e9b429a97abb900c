"""Training micro-F1 along a greedy selection, for choosing how many rules to keep.

CORSET's objective (eq. obj) rewards covered label occurrences and diversity;
it never charges a rule for the labels it predicts wrongly.  Late in a run,
rules chosen for their diversity or for a small new coverage can lower the
micro-F1 of the rule set even on the training data (emotions: the training
micro-F1 of the selected prefix peaks after about 60 rules and falls after).
:class:`MicroF1Path` follows the training micro-F1 of the rule set as rules
are added, with the rule set's predictions as the classifier makes them (the
union of the tails of the rules whose head a record contains), so that
:func:`corset.selection.greedy_selection` can stop once it stops rising and
keep the best prefix (``f1_patience``).
"""
import numpy as np

from .._ext import _intersect

__all__ = ["MicroF1Path"]


class MicroF1Path:
    """Training micro-F1 of a growing rule set, one rule at a time.

    Micro-F1 is ``2 TP / (P + ||L||)``: TP the predicted (record, label)
    pairs that the record carries, P all predicted pairs, ||L|| the label
    occurrences.  Adding a rule ``H -> T`` predicts every label of T for
    every record of D[H]; only the pairs not predicted before change TP and P.

    Parameters
    ----------
    data : BinaryData
        The training data the rules are selected on.

    Attributes
    ----------
    scores : list of float
        The micro-F1 after each added rule.
    best_size : int
        The smallest number of rules with the highest micro-F1 so far (0
        before any rule, or while no rule predicts a true label).
    since_best : int
        Rules added since the last new maximum.
    label_tp, label_predicted : ndarray of int64, shape (n_labels,)
        Per label, the true and all predicted (record, label) pairs of the
        rule set (their sums are TP and P).

    Notes
    -----
    Holds one byte per (record, label) pair for the predicted flags; the
    cost of adding a rule is one support computation D[H] and, per label of
    T, one sorted intersection with D[{k}].
    """

    def __init__(self, data):
        self.data = data
        self.predicted = np.zeros((data.n_labels, data.n_records), dtype=np.uint8)
        self.tp = 0
        self.n_predicted = 0
        self.label_tp = np.zeros(data.n_labels, dtype=np.int64)
        self.label_predicted = np.zeros(data.n_labels, dtype=np.int64)
        self.scores = []
        self.best_size = 0
        self.best_score = 0.0
        self.since_best = 0

    def add(self, head, tail):
        """Add rule ``head -> tail``; returns the micro-F1 of the rule set with it."""
        # check_ids inside takes a canonical tuple (the selection's rules) as it is.
        rows = self.data.head_support(head)
        labels = self.data.label_records
        new, hits = _intersect.add_predictions(self.predicted, rows, np.asarray(tail, dtype=np.int32),
                                               labels.indptr, labels.ids, self.label_tp, self.label_predicted)
        self.n_predicted += new
        self.tp += hits
        denominator = self.n_predicted + self.data.n_label_occurrences
        score = 2.0 * self.tp / denominator if denominator else 0.0
        self.scores.append(score)
        if score > self.best_score:
            self.best_score, self.best_size, self.since_best = score, len(self.scores), 0
        else:
            self.since_best += 1
        return score
