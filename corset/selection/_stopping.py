"""Stopping criteria of the greedy selection, as objects that plug into its one loop.

Algorithm 1 stops round 1 when the rule budget is reached or when the share
``c`` of label occurrences newly covered by the chosen rule falls to τ or
below.  Beyond the paper, the selection can also stop once the training
micro-F1 of the rule set has stopped rising and keep its best prefix.  Each
such rule is a :class:`StoppingCriterion`, after MLRL-Boomer's stopping
criteria: it is told about every step of the loop, answers "stop?", and at
the end says how many of the selected rules to keep.  The loop of
:mod:`corset.selection._greedy` runs the same way for round 1 with fresh
pools, for round 2 and for :func:`corset.selection.select_rules`; a new
criterion (a validation-based stop, say) is a new subclass, passed in
``stopping_criteria``.

A step of the loop, for the criteria listed in order:

1. :meth:`StoppingCriterion.before_step` -- before a pool is drawn
   (``True``: stop now; the rule budget);
2. :meth:`StoppingCriterion.before_adding` -- with the step's best candidate
   (:class:`StepInfo`) before it is added: ``None`` to go on, ``"stop"`` to
   stop without adding it, ``"last"`` to add it and stop (Algorithm 1 as
   printed adds the rule whose share reaches τ);
3. :meth:`StoppingCriterion.after_adding` -- with the rule just added
   (``True``: stop).  Not called when a criterion said ``"last"``.

The first criterion to stop names the stop reason.  After the loop, the
number of rules kept is the smallest :meth:`StoppingCriterion.n_rules_to_keep`.
"""
import numpy as np

from .._validation import check_positive_int
from ._f1path import MicroF1Path

__all__ = ["StepInfo", "StoppingCriterion", "RuleBudget", "ShareTolerance", "BestTrainingF1", "BestHeldOutF1"]


class StepInfo:
    """What the criteria see of one greedy step.

    Attributes
    ----------
    round : int
        1 or 2.
    n_selected : int
        Rules selected before this step.
    rule : (tuple, tuple) or None
        The rule chosen at this step (set before :meth:`StoppingCriterion.after_adding`).
    gain : float
        Its marginal gain.
    area : int
        Its uncovered area ``|cov(R) \\ cov(ℛ)|``.
    share : float
        ``c = area / ||L||`` (Algorithm 1).
    pool_share : float
        The largest share among the step's eligible candidates (computed when read).
    """

    __slots__ = ("round", "n_selected", "rule", "gain", "area", "share", "_areas", "_eligible", "_n_occurrences",
                 "_lazy")

    def __init__(self, round, n_selected, gain, area, share, areas, eligible, n_occurrences, lazy=None):
        self.round = round
        self.n_selected = n_selected
        self.rule = None
        self.gain = gain
        self.area = area
        self.share = share
        self._areas = areas
        self._eligible = eligible
        self._n_occurrences = n_occurrences
        # With lazily evaluated gains, ``areas`` holds upper bounds where the step did not
        # evaluate a candidate; ``_lazy`` completes the exact values read here.
        self._lazy = lazy

    @property
    def pool_share(self):
        n = self._n_occurrences
        if not n:
            return 0.0
        eligible = self._eligible == 1
        if self._lazy is not None:
            # The candidates whose bound passes the largest exact area may be larger.
            exact = eligible & self._lazy.exact
            largest = int(np.max(self._areas[exact])) if exact.any() else -1
            self._lazy.complete(self._areas > largest)
        return int(np.max(self._areas[eligible])) / n

    def pool_share_at_most(self, share):
        """``pool_share <= share``, evaluating only the candidates whose bound exceeds ``share``."""
        n = self._n_occurrences
        if not n or self._lazy is None:
            return self.pool_share <= share
        over = (self._eligible == 1) & (self._areas / n > share)
        if (over & self._lazy.exact).any():
            return False
        self._lazy.complete(over)
        return not ((self._eligible == 1) & (self._areas / n > share)).any()


class StoppingCriterion:
    """Base class: a criterion that never stops and keeps every rule.

    Subclasses override the hooks they need.  A criterion holds the state of
    one run; :meth:`start` resets it, so one object can serve several fits.
    """

    #: The ``stop_reason`` of a selection this criterion stopped.
    reason = "stopped"

    # Whether the criterion reads ``pool_share`` only before the step's rule is added: set in the
    # class body of each of the library's own criteria, and read from the class itself (a
    # subclass of the user's does not inherit it).  With lazily evaluated gains, the exact pool
    # share is otherwise completed before the rule changes the coverage, for any hook that may
    # read it later.
    _reads_pool_share_before_adding_only = False

    def start(self, data):
        """Reset for a new run on ``data`` (a :class:`~corset.BinaryData`)."""

    def before_step(self, n_selected):
        """Whether to stop before drawing the next pool, with ``n_selected`` rules selected."""
        return False

    def before_adding(self, step):
        """``None`` (go on), ``"stop"`` (stop without the rule) or ``"last"`` (add it, then stop)."""
        return None

    def after_adding(self, step):
        """Whether to stop after ``step.rule`` was added."""
        return False

    def n_rules_to_keep(self, n_selected):
        """How many of the ``n_selected`` rules to keep (a prefix)."""
        return n_selected


class RuleBudget(StoppingCriterion):
    """Stop once ``n_rules`` rules are selected (the budget k of Algorithm 1)."""

    _reads_pool_share_before_adding_only = True

    reason = "budget"

    def __init__(self, n_rules):
        self.n_rules = check_positive_int(n_rules, "n_rules")

    def before_step(self, n_selected):
        return n_selected >= self.n_rules


class ShareTolerance(StoppingCriterion):
    """Stop once the newly covered share c falls to τ or below (Algorithm 1), with patience.

    Parameters
    ----------
    tol : float in [0, 1]
        τ.
    patience : int, default=1
        Stop after this many consecutive steps with ``c <= τ`` (1: Algorithm 1).
    share_criterion : {"chosen", "pool"}, default="chosen"
        Whose share is compared with τ: the chosen rule's (Algorithm 1), or
        the largest share among the step's eligible candidates.
    keep_stopping_rule : bool, default=True
        Whether the rule whose share ends the selection is added
        (Algorithm 1 as printed adds it).
    """

    _reads_pool_share_before_adding_only = True

    reason = "tol"

    def __init__(self, tol, *, patience=1, share_criterion="chosen", keep_stopping_rule=True):
        if tol is None:
            raise ValueError("tol must be a number in [0, 1] for a ShareTolerance (leave the criterion out "
                             "for no share criterion)")
        self.tol = check_tol(tol)
        self.patience = check_positive_int(patience, "patience", minimum=1)
        if share_criterion not in ("chosen", "pool"):
            raise ValueError(f"share_criterion must be 'chosen' or 'pool'; got {share_criterion!r}")
        self.share_criterion = share_criterion
        self.keep_stopping_rule = bool(keep_stopping_rule)
        self._low_run = 0

    def start(self, data):
        self._low_run = 0

    def before_adding(self, step):
        low = step.share <= self.tol if self.share_criterion == "chosen" else step.pool_share_at_most(self.tol)
        self._low_run = self._low_run + 1 if low else 0
        if self._low_run < self.patience:
            return None
        return "last" if self.keep_stopping_rule else "stop"


class BestTrainingF1(StoppingCriterion):
    """Stop once ``patience`` rules in a row have not raised the training micro-F1; keep the best prefix.

    Beyond the paper.  CORSET's objective never charges a rule for the labels
    it predicts wrongly, so late rules can lower micro-F1.  The training
    micro-F1 of the rule set is followed as rules are added
    (:class:`~corset.selection.MicroF1Path`), and the rule set is cut back to
    the shortest prefix with the highest value, which is exactly the rule set
    a budget of that size would have selected (the greedy is sequential).

    Parameters
    ----------
    patience : int
        Rules in a row without a new maximum before stopping.

    Attributes
    ----------
    path_ : MicroF1Path
        The training micro-F1 after each rule, for the last run.
    """

    _reads_pool_share_before_adding_only = True

    reason = "f1"

    def __init__(self, patience):
        self.patience = check_positive_int(patience, "f1_patience", minimum=1)
        self.path_ = None

    def start(self, data):
        self.path_ = MicroF1Path(data)

    def after_adding(self, step):
        self.path_.add(*step.rule)
        return self.path_.since_best >= self.patience

    def n_rules_to_keep(self, n_selected):
        # The rule whose share ended the selection may be missing from the path (it was
        # added after a "last"): the best prefix is then still taken from the path.
        if self.path_.best_size == n_selected:
            return n_selected
        return self.path_.best_size

    @property
    def scores(self):
        """The training micro-F1 after each rule of the last run (float64)."""
        return np.asarray(self.path_.scores, dtype=np.float64)


def check_tol(tol):
    """τ as a float in [0, 1], or None (no share criterion)."""
    if tol is None:
        return None
    try:
        value = float(tol)
    except (TypeError, ValueError):
        raise ValueError(f"tol must be None or a number in [0, 1]; got {tol!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"tol must be None or a number in [0, 1]; got {tol!r}")
    return value


def check_stopping_criteria(criteria):
    """A list of :class:`StoppingCriterion` objects from ``None`` or an iterable of them."""
    if criteria is None:
        return []
    if isinstance(criteria, StoppingCriterion):
        return [criteria]
    out = list(criteria)
    for c in out:
        if not isinstance(c, StoppingCriterion):
            raise TypeError(f"stopping_criteria must hold StoppingCriterion objects; got {c!r}")
    return out


class BestHeldOutF1(BestTrainingF1):
    """Stop once ``patience`` rules in a row have not raised the micro-F1 on held-out records; keep the best prefix.

    Beyond the paper: :class:`BestTrainingF1` measured on records the
    selection does not see, so that the number of rules kept is chosen by
    validation rather than by the training fit.

    Parameters
    ----------
    validation_data : BinaryData
        Held-out records with their labels, over the same features (or
        literals) and labels as the data the rules are selected on.
    patience : int
        Rules in a row without a new maximum before stopping.
    """

    reason = "validation"
    _reads_pool_share_before_adding_only = True

    def __init__(self, validation_data, patience):
        super().__init__(patience)
        self.validation_data = validation_data

    def start(self, data):
        held_out = self.validation_data
        if (held_out.n_features, held_out.n_labels) != (data.n_features, data.n_labels):
            raise ValueError(f"validation_data has {held_out.n_features} features and {held_out.n_labels} labels; "
                             f"the selection's data has {data.n_features} and {data.n_labels}")
        self.path_ = MicroF1Path(held_out)
