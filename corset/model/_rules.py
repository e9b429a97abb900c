"""Plain rule objects and the rule set a fitted classifier holds.

A :class:`Rule` is data only: ids, names and the statistics measured on the
training data when it was selected.  Printing and exporting live in
:mod:`corset.model._export`, so a rule set can be shown as text, a dict/JSON
or a table without the rules knowing how.
"""
from dataclasses import asdict, dataclass, field, fields


def _ids(values, key):
    """A rule's ``key`` (head, tail, negated) as a tuple of ids, each a whole number as JSON wrote
    it: 2.5, True or "abc" is refused, not truncated or read as 1."""
    import numbers

    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"a rule's {key} must be a list of ids; got {values!r}")
    values = list(values)
    bad = [v for v in values if isinstance(v, bool) or not isinstance(v, numbers.Integral)]
    if bad:
        raise ValueError(f"a rule's {key} must hold whole-number ids; got {bad[0]!r} in {values!r}")
    return tuple(int(v) for v in values)


@dataclass(frozen=True)
class Rule:
    """One conjunctive rule ``IF head THEN tail`` (section problem_formulation).

    Attributes
    ----------
    head : tuple of int
        Sorted feature ids H; the rule fires on a record whose features contain H.
    tail : tuple of int
        Sorted label ids T the rule predicts when it fires.
    head_names, tail_names : tuple of str
        The features' and labels' names.
    support : int
        ``|D[H]|``: training records the rule fires on.
    n_matched : int
        ``|D[R]| = |D[H] ∩ D[T]|``: training records it fires on that carry every label of T.
    precision : float
        ``P_R = |D[R]| / |D[H]|`` (0 when the head matches no training record).
    base_rate : float
        ``P_D = |D[T]| / |D|``.
    adjusted_accuracy : float
        a(R) of eq. disc: KL(Bern(P_R) ‖ Bern(P_D)) when P_R > P_D, else 0.
    uncovered_area : int
        The uncovered area of eq. relarea with respect to the rules selected
        before it, at the time it was selected.  For the default rule: the
        occurrences of its labels that the rules before it in the rule list
        leave unpredicted.
    gain : float
        Its marginal gain in the greedy selection (Algorithm 1).
    position : int
        0-based position in the rule list: the order of selection, without
        gaps where rules that change no prediction were left out.
    label_precision : tuple of float
        For each label k of the tail, ``|D[H] ∩ D[{k}]| / |D[H]|``: how often the
        label is right when the rule fires (>= ``precision``).
    negated : tuple of int
        Sorted feature ids that must be absent (negated literals, "NOT f";
        see ``CorsetClassifier(negations=...)``): the rule fires on a record
        that contains every feature of ``head`` and none of ``negated``.
        Empty for CORSET's rules of positive literals.
    negated_names : tuple of str
        The negated features' names (without the "NOT"); in parentheses when
        the feature's input column is missing on some training records:
        ``NOT (x>5)`` then also holds where x is missing, so it is not
        printed as the opposite comparison ``x<=5``.

    The head H of the paper is the set of literals ``head`` and ``NOT f`` for f
    in ``negated``; ``support`` and the other statistics are measured on it.
    A rule with no literal at all (the default rule) fires on every record.
    """

    head: tuple
    tail: tuple
    head_names: tuple = field(default=())
    tail_names: tuple = field(default=())
    support: int = 0
    n_matched: int = 0
    precision: float = 0.0
    base_rate: float = 0.0
    adjusted_accuracy: float = 0.0
    uncovered_area: int = 0
    gain: float = 0.0
    position: int = 0
    label_precision: tuple = field(default=())
    negated: tuple = field(default=())
    negated_names: tuple = field(default=())

    @property
    def n_literals(self):
        """The head's length, ``|H|``: positive and negated literals."""
        return len(self.head) + len(self.negated)

    def __str__(self):
        from ._export import format_rule

        return format_rule(self)

    def to_dict(self):
        """A JSON-serialisable dict of the rule (lists instead of tuples)."""
        d = asdict(self)
        for key in ("head", "tail", "head_names", "tail_names", "negated", "negated_names", "label_precision"):
            d[key] = list(d[key])
        return d

    @classmethod
    def from_dict(cls, d):
        """The inverse of :meth:`to_dict`."""
        if not isinstance(d, dict):
            raise ValueError(f"a saved rule must be a dict; got {type(d).__name__}")
        d = dict(d)
        unknown = sorted(set(d) - {f.name for f in fields(cls)})
        if unknown or "tail" not in d:
            raise ValueError(f"a saved rule has unknown key(s) {unknown}" if unknown else "a saved rule has no 'tail'")
        for key in ("head", "tail", "negated"):
            d[key] = _ids(d.get(key, ()), key)
        for key in ("head_names", "tail_names", "negated_names"):
            d[key] = tuple(str(v) for v in d.get(key, ()))
        d["label_precision"] = tuple(float(v) for v in d.get("label_precision", ()))
        return cls(**d)
