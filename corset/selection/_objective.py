"""The terms of CORSET's objective (section problem_formulation of the paper).

* uncovered area ``|cov(R) \\ ∪_{R' ∈ ℛ} cov(R')|`` (eq. relarea), read from
  per-occurrence coverage flags, never from materialised coverage sets;
* adjusted accuracy a(R) (eq. disc, :func:`~corset.selection.adjusted_accuracy`);
* quality q(R; ℛ) = uncovered area · a(R);
* Jaccard distance of coverages from support intersections (correction 6): ``|cov(R1) ∩ cov(R2)| = |D[R1] ∩ D[R2]| · |T1 ∩ T2|``;
* the objective f(ℛ) of eq. obj, each rule's quality taken against the
  *other* rules (correction 4) and the diversity summed over *unordered* pairs
  (correction 2), and the monotone submodular variant of correction 1,
  ``f_Q(ℛ) = Q(ℛ) + λ Σ_{i<j} d(R_i, R_j)`` with
  ``Q(ℛ) = Σ_{(i,k) ∈ cov(ℛ)} max {a(R) : R ∈ ℛ covers (i,k)}``;
* coverage itself (eqs. covD, covDset, covDtail) lives in the rule layer,
  :mod:`corset.rules`, shared with the samplers.

The cases the paper leaves undefined (correction 5) get these values:
a(R) = 0 when D[H] is empty and when the tail is carried by every record
(P_D = 1, the indicator P_R > P_D is 0); d(R1, R2) = 0 when both coverages are
empty (two identical, empty sets: this keeps d a metric), 1 when exactly one
is empty.
"""
import numpy as np

from .._ext import _selection
from ..rules import coverage_flags
from ._rules import RuleStatistics, rule_statistics

__all__ = [
    "jaccard_distance",
    "objective",
    "objective_terms",
    "pairwise_distances",
    "rule_quality",
    "submodular_quality",
    "uncovered_area",
]

QUALITIES = ("paper", "submodular")


def check_quality(quality):
    """Return ``quality`` if it names a quality function, else raise a clear error."""
    if quality not in QUALITIES:
        raise ValueError(f"quality must be one of {QUALITIES}; got {quality!r}")
    return quality


def _statistics(data, rules, name):
    if isinstance(rules, RuleStatistics):
        return rules
    return rule_statistics(data, rules, name=name)


# -- coverage state --------------------------------------------------------

def _coverage_positions(data, stats):
    """cov(R) of every rule of ``stats`` as positions into ``data.Y.indices`` (CSR)."""
    Y = data.Y
    indptr, positions = _selection.coverage_positions(
        np.ascontiguousarray(Y.indptr, dtype=np.int64), Y.indices,
        stats.support_indptr, stats.support_ids, stats.tail_indptr, stats.tail_ids)
    if positions.size and positions.min() < 0:  # pragma: no cover - the data layer guarantees D[R] ⊆ D[T]
        raise RuntimeError("inconsistent rule statistics: a record of D[R] lacks a label of T")
    return indptr, positions


def _coverage_state(data, stats):
    """(covered flags, best adjusted accuracy) over label occurrences after adding every rule."""
    covered = np.zeros(data.n_label_occurrences, dtype=np.uint8)
    best = np.zeros(data.n_label_occurrences, dtype=np.float64)
    indptr, positions = _coverage_positions(data, stats)
    covered[positions] = 1
    np.maximum.at(best, positions, np.repeat(stats.accuracy, np.diff(indptr)))
    return covered, best


# -- single terms ----------------------------------------------------------

def uncovered_area(data, rule, rules=()):
    """Uncovered area ``|cov(R) \\ ∪_{R' ∈ ℛ} cov(R')|`` of ``rule`` w.r.t. ``rules`` (eq. relarea)."""
    stats = rule_statistics(data, [rule], name="rule")
    covered = coverage_flags(data, rules)
    areas = _areas(data, stats, covered, np.zeros(covered.shape[0]))[0]
    return int(areas[0])


def _areas(data, stats, covered, best, lam=0.0, distance_sums=None, submodular=False, eligible=None,
           coverage=None):
    """Kernel call: (areas, gains, arg max) of every rule of ``stats`` under a coverage state.

    With ``coverage`` (the :class:`~corset.rules.Coverage` that ``covered`` and
    ``best`` belong to) the kernel reads its label-major form instead: the same
    results, with reads that stay near each other on large data, and finds
    each occurrence by its rank in the labels' record bitsets when the data
    has them (:meth:`~corset.BinaryData.label_ranks`).
    """
    n = len(stats)
    gains = np.zeros(n, dtype=np.float64)
    areas = np.zeros(n, dtype=np.int64)
    if distance_sums is None:
        distance_sums = np.zeros(n, dtype=np.float64)
    if eligible is None:
        eligible = np.ones(n, dtype=np.uint8)
    if coverage is not None:
        labels = data.label_records
        _, label_bits, n_words = data.column_bitsets()
        chosen = _selection.greedy_gains_by_label(
            labels.indptr, labels.ids, coverage.label_credit(),
            stats.support_indptr, stats.support_ids, stats.tail_indptr, stats.tail_ids,
            stats.accuracy, distance_sums, eligible, float(lam), bool(submodular), gains, areas,
            label_bits, data.label_ranks(), n_words)
        return areas, gains, chosen
    Y = data.Y
    chosen = _selection.greedy_gains(
        np.ascontiguousarray(Y.indptr, dtype=np.int64), Y.indices, covered, best,
        stats.support_indptr, stats.support_ids, stats.tail_indptr, stats.tail_ids,
        stats.accuracy, distance_sums, eligible, float(lam), bool(submodular), gains, areas)
    return areas, gains, chosen


def _lazy_areas(data, stats, coverage, lam, distance_sums, submodular, eligible, q_bound, area_bound):
    """:func:`_areas`' arg max by lazy evaluation, or None when the data has no label bitsets.

    Minoux's accelerated greedy (:func:`~corset._ext._selection.lazy_greedy_gains_by_label`):
    ``q_bound`` and ``area_bound`` (updated in place) hold each candidate's
    quality term (kept >= 0) and area from its last evaluation in this run
    (``inf``: never evaluated); as the coverage only grows, they bound the
    current ones from above, and a candidate is evaluated only while its bound can still
    beat the best gain.  Returns ``(areas, gains, arg max, exact)``: the same
    arg max as :func:`_areas`; ``areas`` and ``gains`` exact where ``exact``
    is True, upper bounds elsewhere.
    """
    _, label_bits, n_words = data.column_bitsets()
    if label_bits is None or data.n_label_occurrences == 0:
        return None
    n = len(stats)
    gains = np.zeros(n, dtype=np.float64)
    areas = np.zeros(n, dtype=np.int64)
    exact = np.zeros(n, dtype=np.uint8)
    chosen = _selection.lazy_greedy_gains_by_label(
        data.label_records.indptr, coverage.label_credit(), stats.support_indptr, stats.support_ids,
        stats.tail_indptr, stats.tail_ids, stats.accuracy, distance_sums, eligible, float(lam), bool(submodular),
        gains, areas, q_bound, area_bound, exact, label_bits, data.label_ranks(), n_words)
    return areas, gains, chosen, exact.view(bool)


def rule_quality(data, rule, rules=()):
    """Quality q(R; ℛ) = uncovered area · a(R) (section problem_formulation)."""
    stats = rule_statistics(data, [rule], name="rule")
    covered = coverage_flags(data, rules)
    area = _areas(data, stats, covered, np.zeros(covered.shape[0]))[0][0]
    return float(area * stats.accuracy[0])


def jaccard_distance(data, rule_a, rule_b):
    """Jaccard distance of the coverages of two rules (correction 6: from support intersections).

    0 when both coverages are empty, 1 when exactly one is.  d is a metric:
    a rule (or the same rule written with its ids in another order) is at
    distance 0 from itself.
    """
    # Two rules, not a rule set: the same rule twice is allowed, and de-duplicated to one.
    stats = rule_statistics(data, [rule_a, rule_b], name="rules", deduplicate=True)
    if len(stats) < 2:  # the same rule: d(R, R) = 0, whether its coverage is empty or not
        return 0.0
    return float(_pairwise(stats)[0, 1])


def _pairwise(stats):
    return _selection.pairwise_distances(stats.support_indptr, stats.support_ids,
                                         stats.tail_indptr, stats.tail_ids)


def pairwise_distances(data, rules):
    """Matrix of Jaccard distances between the coverages of ``rules`` (symmetric, zero diagonal)."""
    return _pairwise(_statistics(data, rules, "rules"))


# -- the objective -----------------------------------------------------------

def objective_terms(data, rules, *, quality="paper", best_accuracy=None):
    """The two terms of the objective: ``(quality term, diversity term)``.

    ``f = quality term + λ · diversity term``; see :func:`objective`.
    ``best_accuracy`` (submodular quality only): the per-occurrence best a(R)
    of exactly these rules, when the caller holds it (the
    :attr:`~corset.rules.Coverage.best_accuracy` of a coverage they were
    added to); Q is then its sum, the same number, without materialising
    the rules' coverage again.
    """
    check_quality(quality)
    stats = _statistics(data, rules, "rules")
    n = len(stats)
    if n == 0:
        return 0.0, 0.0
    if quality == "submodular" and best_accuracy is not None:
        distances = _pairwise(stats)
        return float(best_accuracy.sum()), float(distances[np.triu_indices(n, 1)].sum())
    indptr, positions = _coverage_positions(data, stats)
    sizes = np.diff(indptr)
    if quality == "paper":
        # q(R; ℛ \ {R}) counts the occurrences of cov(R) that no other rule covers.
        counts = np.bincount(positions, minlength=data.n_label_occurrences)
        owner = np.repeat(np.arange(n), sizes)
        alone = np.bincount(owner, weights=(counts[positions] == 1), minlength=n)
        quality_term = float(np.sum(alone * stats.accuracy))
    else:
        best = np.zeros(data.n_label_occurrences, dtype=np.float64)
        np.maximum.at(best, positions, np.repeat(stats.accuracy, sizes))
        quality_term = float(best.sum())
    distances = _pairwise(stats)
    diversity_term = float(distances[np.triu_indices(n, 1)].sum())
    return quality_term, diversity_term


def objective(data, rules, *, lam=1.0, quality="paper"):
    """The objective f(ℛ) of Problem 1 (eq. obj), with the corrections of the paper (corrections 2, 4 and 5).

    ``quality="paper"``:
    ``f(ℛ) = Σ_{R ∈ ℛ} q(R; ℛ \\ {R}) + λ Σ_{i<j} d(R_i, R_j)``;
    ``quality="submodular"``:
    ``f_Q(ℛ) = Q(ℛ) + λ Σ_{i<j} d(R_i, R_j)`` (correction 1).

    The diversity term sums over unordered pairs (correction 2), which matches the
    greedy gain ``λ Σ_j d(R, R_j)`` and Borodin et al.'s objective.

    Parameters
    ----------
    data : BinaryData
    rules : sequence of (head, tail)
        A rule set: each rule at most once.
    lam : float, default=1.0
        λ ≥ 0, the weight of diversity.
    quality : {"paper", "submodular"}

    Returns
    -------
    float
    """
    lam = _check_lam(lam)
    quality_term, diversity_term = objective_terms(data, rules, quality=quality)
    return quality_term + lam * diversity_term


def submodular_quality(data, rules):
    """Q(ℛ): each covered label occurrence credited with the best a(R) among the rules covering it (correction 1)."""
    return objective_terms(data, rules, quality="submodular")[0]


def _check_lam(lam):
    try:
        value = float(lam)
    except (TypeError, ValueError):
        raise ValueError(f"lam must be a non-negative number; got {lam!r}") from None
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"lam must be a finite number >= 0; got {lam!r}")
    return value
