"""Greedy max-sum diversification of candidate rules (Algorithm 1 of the paper).

Round 1 asks a candidate generator for a fresh pool at every step and adds
the candidate with the largest marginal gain

    ``½ q(R; ℛ) + λ Σ_{R_j ∈ ℛ} d(R, R_j)``          (quality="paper")
    ``½ ΔQ(R; ℛ) + λ Σ_{R_j ∈ ℛ} d(R, R_j)``         (quality="submodular", correction 1)

until the share ``c`` of label occurrences newly covered by the chosen rule
falls to τ or below, the rule budget is reached, the generator returns an
empty pool, or no candidate has a positive gain; optionally (``f1_patience``,
beyond the paper) once the training micro-F1 of the rule set has stopped
rising, keeping the prefix with the highest training micro-F1.  Round 2 (optional) re-runs
the greedy over the union of all pools with round 1's number of rules; the
set with the larger objective f is returned (round 1 on ties, as in
Algorithm 1).  For the submodular quality, round 2 is a ½-approximation of
the best rule set of that size in the union (Borodin et al.); for the
paper's quality no such guarantee holds (correction 1).

One loop (:func:`_greedy`) serves round 1 with fresh pools, round 2 and
:func:`select_rules` on a fixed pool; its stopping rules are objects
(:mod:`corset.selection._stopping`): the budget, τ with patience, the
training-F1 stop, and any criterion a caller adds.

Coverage state is a pair of flat arrays over label occurrences (aligned with
``data.Y.indices``): a covered flag and, for Q, the best adjusted accuracy
among the chosen rules covering the occurrence.  Both are updated when a
rule is added.  One greedy step is one compiled pass over the pool
(``corset._ext._selection.greedy_gains``).  In round 2, and on a fixed pool,
each candidate's sum of distances to the chosen rules is kept and updated
with the newly chosen rule only, so a step costs one pass over the pool.
In round 1, a candidate seen in an earlier pool keeps the quality term and
area of its last evaluation, upper bounds of the current ones as the
coverage only grows: a step evaluates only the candidates whose bound can
still reach the best gain (Minoux's accelerated greedy, :func:`_lazy_areas`),
with the same choices.
"""
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from .._ext import _selection
from .._ext._rule_registry import RuleRegistry
from .._ext._store import RuleStore
from .._ext._typedefs import INDEX_DTYPE
from .._validation import check_positive_int
from ..binarydata import BinaryData
from ._stopping import BestTrainingF1, RuleBudget, ShareTolerance, StepInfo, check_stopping_criteria, check_tol
from ._objective import _areas, _check_lam, _lazy_areas, check_quality, objective_terms
from ..rules import CandidatePool, Coverage, check_rules
from ._rules import RuleStatistics, _statistics_from_csr

__all__ = ["SelectionResult", "SelectionStep", "greedy_selection", "select_rules"]

SelectionStep = namedtuple("SelectionStep", ["round", "step", "rule", "gain", "area", "share"])
SelectionStep.__doc__ = """What a ``callback`` receives after each selection.

round : int (1 or 2); step : int (0-based); rule : (head, tail);
gain : float, the marginal gain; area : int, the uncovered area |cov(R) \\ cov(ℛ)|;
share : float, c = area / ||L||.
"""

STOP_REASONS = ("tol", "budget", "empty_pool", "no_gain", "f1")


@dataclass
class SelectionResult:
    """The outcome of a greedy selection.

    Attributes
    ----------
    rules : list of (tuple of int, tuple of int)
        The selected rules, in the order they were chosen.
    gains : ndarray of float64
        The marginal gain of each rule when it was chosen.
    areas : ndarray of int64
        Its uncovered area (eq. relarea) when it was chosen: the label
        occurrences it newly covered.
    shares : ndarray of float64
        ``c = area / ||L||`` at each step (Algorithm 1).
    objective : float
        f of the returned rule set (eq. obj with unordered pairs, or f_Q).
    quality_term, diversity_term : float
        ``objective = quality_term + lam * diversity_term``.
    selected_round : int
        1 or 2: the round whose rule set is returned.
    objectives : dict
        f of each round that ran, ``{1: f1}`` or ``{1: f1, 2: f2}``.
    stop_reason : str
        Why round 1 stopped: ``"tol"`` (c <= tol), ``"budget"`` (n_rules
        reached), ``"empty_pool"`` (the generator returned no candidate),
        ``"no_gain"`` (no eligible candidate with a positive gain) or
        ``"f1"`` (``f1_patience`` rules in a row did not raise the training
        micro-F1).
    n_candidates : int
        The number of distinct candidate rules seen.
    round_rules : dict
        The rule set of each round that ran, ``{1: [...]}`` or
        ``{1: [...], 2: [...]}`` (round 2 has round 1's size at most).
    lam : float
    quality : str
    candidate_indices : ndarray of int64 or None
        For :func:`select_rules`: the position of each selected rule in the
        caller's pool (its first occurrence).  None for a generator.
    f1_path : ndarray of float64 or None
        With ``f1_patience``: the training micro-F1 of round 1's rule set
        after each rule it selected, before the cut back to the best prefix
        (so ``len(f1_path)`` can exceed ``len(round_rules[1])``); None
        without.
    """

    rules: list
    gains: np.ndarray
    areas: np.ndarray
    shares: np.ndarray
    objective: float
    quality_term: float
    diversity_term: float
    selected_round: int
    objectives: dict
    stop_reason: str
    n_candidates: int
    round_rules: dict
    lam: float
    quality: str
    candidate_indices: np.ndarray = field(default=None)
    f1_path: np.ndarray = field(default=None)

    def __len__(self):
        return len(self.rules)


class _Growing:
    """A 1-D array that grows by appending (capacity doubled as needed)."""

    def __init__(self, dtype, first=()):
        self.data = np.zeros(max(16, len(first)), dtype=dtype)
        self.size = 0
        if len(first):
            self.append(np.asarray(first, dtype=dtype))

    def append(self, values):
        end = self.size + values.shape[0]
        if end > self.data.shape[0]:
            grown = np.zeros(max(end, 2 * self.data.shape[0]), dtype=self.data.dtype)
            grown[:self.size] = self.data[:self.size]
            self.data = grown
        self.data[self.size:end] = values
        self.size = end

    def append_one(self, value):
        """Append one value (the greedy loop adds one rule's statistics per step)."""
        if self.size == self.data.shape[0]:
            grown = np.zeros(2 * self.data.shape[0], dtype=self.data.dtype)
            grown[:self.size] = self.data
            self.data = grown
        self.data[self.size] = value
        self.size += 1

    @property
    def view(self):
        return self.data[:self.size]


class _GrowingCSR:
    """Rows of int32 ids (a CSR with int64 offsets) that grows by appending rows (copied)."""

    def __init__(self):
        self.indptr = _Growing(np.int64, [0])
        self.ids = _Growing(np.int32)

    def append(self, indptr, ids, rows=None):
        """Append rows ``rows`` (a slice; default all) of the CSR ``(indptr, ids)``."""
        indptr = indptr if rows is None else indptr[rows.start:rows.stop + 1]
        self.indptr.append(indptr[1:] - indptr[0] + self.ids.size)
        self.ids.append(ids[indptr[0]:indptr[-1]])

    def append_row(self, ids):
        """Append one row, the 1-D array ``ids``."""
        self.ids.append(ids)
        self.indptr.append_one(self.ids.size)

    def arrays(self, start=0):
        """``(indptr, ids)`` of the rows from ``start`` on: views, the offsets into all ids."""
        return self.indptr.view[start:], self.ids.view


# The statistics of a rule kept beside its rows (RuleStatistics attributes, by dtype).
_COUNTS = ("head_counts", "tail_counts")
_DERIVED = ("precision", "base_rate", "accuracy")


def _new_columns():
    return {name: _Growing(np.int64 if name in _COUNTS else np.float64) for name in _COUNTS + _DERIVED}


class _State:
    """The chosen rules of one greedy run and their coverage.

    The coverage (:class:`corset.rules.Coverage`) is the one the candidate
    generator's samplers read: the selection updates it, the samplers follow
    (a generator drawing from a subset of the records keeps the rules'
    coverage of its subset instead).
    """

    def __init__(self, data):
        self.data = data
        self.coverage = Coverage(data)
        self.covered = self.coverage.covered
        self.best_accuracy = self.coverage.best_accuracy
        self.rules = self.coverage.rules
        self.gains = []
        self.areas = []
        self.shares = []
        # H, D[R], T and the statistics of the chosen rules (copies: no pool stays alive).
        self._heads = _GrowingCSR()
        self._supports = _GrowingCSR()
        self._tails = _GrowingCSR()
        self._columns = _new_columns()
        self._chosen = None  # RuleStatistics of the chosen rules, when last built

    def __len__(self):
        return len(self.rules)

    def share(self, area):
        n = self.data.n_label_occurrences
        return area / n if n else 0.0

    def add(self, stats, index, gain, area):
        rule = stats.rule(index)   # checks index
        head_ids, support, tail_ids = (ids[indptr[index]:indptr[index + 1]] for indptr, ids in (
            (stats.head_indptr, stats.head_ids), (stats.support_indptr, stats.support_ids),
            (stats.tail_indptr, stats.tail_ids)))
        # The rule and its D[R] come from the support kernels (canonical, sorted, in range):
        # Coverage.add's checks would repeat the pool's.
        new = self.coverage._cover(*rule, np.ascontiguousarray(tail_ids, dtype=INDEX_DTYPE),
                                   np.ascontiguousarray(support, dtype=INDEX_DTYPE), float(stats.accuracy[index]))
        # The kernel's area and the update must agree: both read the same flags.
        assert new == area, (new, area)
        self._heads.append_row(head_ids)
        self._supports.append_row(support)
        self._tails.append_row(tail_ids)
        for name, column in self._columns.items():
            column.append_one(getattr(stats, name)[index])
        self.gains.append(float(gain))
        self.areas.append(int(area))
        self.shares.append(self.share(int(area)))
        return rule

    def truncated(self, size):
        """A new state holding the first ``size`` chosen rules (same gains, areas and coverage)."""
        state = _State(self.data)
        stats = self.chosen()
        for i in range(size):
            state.add(stats, i, self.gains[i], self.areas[i])
        return state

    def chosen_csr(self, start=0):
        """``(support_indptr, support_ids, tail_indptr, tail_ids)`` of the chosen rules from ``start`` on.

        The offsets index the ids of all chosen rules (views, not copies).
        """
        return self._supports.arrays(start) + self._tails.arrays(start)

    def chosen(self):
        """RuleStatistics of the chosen rules, in order."""
        if self._chosen is None or len(self._chosen) != len(self.rules):
            # Copies: the growing arrays are views that the next rule may reallocate.
            head, support, tail = ([a.copy() for a in csr.arrays()] for csr in (self._heads, self._supports,
                                                                                self._tails))
            columns = {name: column.view.copy() for name, column in self._columns.items()}
            self._chosen = RuleStatistics(list(self.rules), (*head, *tail), *support, columns["head_counts"],
                                          columns["tail_counts"], self.data.n_records,
                                          _derived=tuple(columns[name] for name in _DERIVED))
        return self._chosen


class _CandidateStore:
    """Support statistics and diversity sums of the distinct candidates of a run, by registry number.

    Pools drawn at successive steps of Algorithm 1 repeat most of their
    rules (enron: about 3,000 distinct rules among 74,500 draws), and a
    rule's D[R], a(R) and eligibility never change during a run.  They are
    computed once, when the rule first appears.  Its sum of distances to
    the chosen rules, Σ_j d(R, R_j), is kept with the number of chosen
    rules it holds, and a pool brings its own rules' sums up to date
    (:meth:`~corset._ext._store.RuleStore.catch_up`): the distances to the
    rules chosen since, in the order they were chosen.  These are the same
    additions in the same order as recomputing the sum for each fresh
    pool, so the same floating-point value, and each distance is computed
    once: O(pool size) distances per step instead of O(pool size · |ℛ|),
    and none for the stored rules that no later pool draws again.

    The stored supports take at most ``max_bytes``.  A pool whose new rules
    would pass it first evicts every stored rule that is not in the pool
    (the rules of the next pools are mostly this one's); an evicted rule
    that comes back is computed again as a new one, its distance sum
    afresh against every chosen rule (the same additions in the same
    order: the same value).  Only a pool too large on its own drops the
    store: every pool is then computed afresh (``active`` False).  Rules
    live in the slots of a :class:`~corset._ext._store.RuleStore`
    (``rules``), in the order they were stored, which a step reads and
    fills in one compiled pass each.  Each stored rule also keeps the
    quality term and area of its last gain evaluation (``inf`` before the
    first), which bound its later gains from above (:func:`_lazy_areas`).
    """

    def __init__(self, data, lam, allow_empty_coverage, min_support, max_bytes=None):
        max_bytes = _STORE_BYTES if max_bytes is None else max_bytes
        self.data = data
        self.lam = lam
        self.allow_empty_coverage = allow_empty_coverage
        self.min_support = min_support
        self.max_ids = max_bytes // 4
        self.active = True
        self.n_evictions = 0
        # Per slot: the rule's number, D[R], tail, statistics, eligibility (intrinsic, cleared once
        # chosen), distance sum and gain bounds; per registry number, its slot (compiled loops).
        # The statistics of new rules are computed by the store, on the data's posting lists.
        self.rules = RuleStore()
        f_idx, l_idx = data.feature_records, data.label_records
        self.rules.bind_data(f_idx.indptr, f_idx.ids, l_idx.indptr, l_idx.ids, data.n_records,
                             *data.column_bitsets())

    def pool(self, state, arrays, numbers, flags):
        """(RuleStatistics, distance sums, eligibility, slots, gain bounds) of a de-duplicated pool, or
        None when inactive.

        ``numbers``: the pool's rules' registry numbers; ``flags & 2``: chosen already.  The gain
        bounds are copies of the stored ones, ``(quality term, area)``.

        One compiled call (``RuleStore.read_pool``) stores the pool's rules
        not stored yet (new, or evicted since) with their statistics, their
        eligibility (:func:`_base_eligibility`, and not a rule chosen
        already) and a distance sum of 0; brings the pool's sums up to the
        rules chosen since (only the rules a pool reads receive the
        distances); and gathers the pool's rows.  When the new rules would
        pass the store's memory, the rules of other pools are evicted first,
        and the store is dropped when that is not enough.
        """
        # The chosen rules' D[R] and tails, for the distance sums (none to add without diversity).
        chosen = state.chosen_csr() if self.lam > 0 and len(state) else ()
        read = (numbers, flags, *arrays, self.allow_empty_coverage, self.min_support, self.max_ids, *chosen)
        stored = self.rules.read_pool(*read)
        if stored is None:
            self._evict(numbers)
            stored = self.rules.read_pool(*read)
            if stored is None:
                # Too large even alone: drop everything (the caller computes every pool afresh from now on).
                self.active = False
                self.rules = None
                return None
        slots, (support_indptr, support_ids, head_counts, tail_counts, precision, base_rate, accuracy, sums,
                eligible, q_bound, area_bound) = stored
        stats = RuleStatistics(None, arrays, support_indptr, support_ids, head_counts, tail_counts,
                               self.data.n_records, _derived=(precision, base_rate, accuracy))
        return stats, sums, eligible, slots, (q_bound, area_bound)

    def set_bounds(self, slots, q_bound, area_bound):
        self.rules.set_bounds(slots, q_bound, area_bound)

    def _evict(self, keep):
        """Keep only the stored rules among registry numbers ``keep``, in their order of storing."""
        self.rules.keep(keep)
        self.n_evictions += 1

    def chose(self, state, number):
        """Rule ``number`` was selected: it is no longer eligible.  The sums of the stored rules grow by
        d(·, it) when a pool next reads them (:meth:`RuleStore.catch_up`)."""
        if not self.active:
            return
        # Chosen from this step's pool, which pool() stored whole.
        self.rules.clear_eligible(number)


#: Memory for the supports kept by ``_CandidateStore`` (int32 record ids).
_STORE_BYTES = 64 * 2**20


def _base_eligibility(stats, allow_empty_coverage, min_support=1):
    eligible = np.ones(len(stats), dtype=np.uint8)
    if not allow_empty_coverage:
        eligible[stats.coverage_sizes == 0] = 0
    if min_support > 1:
        eligible[stats.rule_counts < min_support] = 0
    return eligible


def _zero_gain_rule(best, state, lam, eligible):
    """The candidate to take when no eligible candidate has a positive gain (-1: stop).

    On a fixed pool a step where every gain is 0 is followed only by such
    steps: the quality part (``a·area`` or ΔQ) never grows as rules are
    added, and a candidate at distance 0 from every chosen rule has the same
    coverage as all of them, so it stays at distance 0 from whatever is
    added next.  The one exception is the first step with λ > 0: no
    distance is counted yet, and later candidates may gain diversity.
    Stopping there would void the ½-approximation of round 2 (a pool where
    every a(R) = 0 has optimum λ·Σd > 0), so the first eligible candidate is
    taken, which is the arg max with ties to the lowest index.
    """
    if best >= 0 or len(state) or lam <= 0:
        return best
    candidates = np.flatnonzero(eligible)
    return int(candidates[0]) if candidates.size else -1


class _FixedPool:
    """A pool that stays the same at every step (round 2, :func:`select_rules`).

    Each candidate's sum of distances to the chosen rules is kept and grows
    by the distance to each newly chosen rule, so a step costs one pass over
    the pool.
    """

    #: Whether the gains are evaluated lazily (:func:`_lazy_areas`; the same choices either way).
    lazy = True

    def __init__(self, data, stats, lam, submodular, allow_empty_coverage, min_support):
        self.data = data
        self.stats = stats
        self.lam = lam
        self.submodular = submodular
        self.eligible = _base_eligibility(stats, allow_empty_coverage, min_support)
        self.sums = np.zeros(len(stats), dtype=np.float64)
        # Each candidate's quality term and area at its last evaluation (inf: none yet).
        self.q_bound = np.full(len(stats), np.inf)
        self.area_bound = np.full(len(stats), np.iinfo(np.int64).max, dtype=np.int64)
        self.lazy_areas = None

    def step(self, state):
        """``(stats, areas, gains, best, eligible)`` of the step; ``best`` is -1 when nothing can be chosen."""
        # The bounds are the pool's own arrays: a completion updates them in place.
        areas, gains, best, self.lazy_areas = _step_gains(
            self.data, self.stats, state, self.lam, self.sums, self.submodular, self.eligible,
            (self.q_bound, self.area_bound) if self.lazy else None)
        return self.stats, areas, gains, _zero_gain_rule(best, state, self.lam, self.eligible), self.eligible

    def chose(self, state, best):
        """Candidate ``best`` was added to ``state``: no longer eligible; the sums grow by d(·, it)."""
        self.eligible[best] = 0
        if self.lam > 0:
            stats = self.stats
            _selection.add_distance_sums(stats.support_indptr, stats.support_ids, stats.tail_indptr,
                                         stats.tail_ids, self.eligible, *state.chosen_csr(len(state) - 1),
                                         self.sums)


def _step_gains(data, stats, state, lam, sums, submodular, eligible, bounds, write_back=None):
    """``(areas, gains, best, lazy)`` of a step: lazily from ``bounds`` (``(q_bound, area_bound)``,
    updated in place; see :func:`_lazy_areas`), with ``lazy`` its :class:`_LazyAreas`, or every gain
    (``bounds`` None, or data without label bitsets), with ``lazy`` None."""
    lazy = None if bounds is None else _lazy_areas(data, stats, state.coverage, lam, sums, submodular, eligible,
                                                   *bounds)
    if lazy is None:
        return (*_areas(data, stats, state.covered, state.best_accuracy, lam, sums, submodular, eligible,
                        coverage=state.coverage), None)
    areas, gains, best, exact = lazy
    return areas, gains, best, _LazyAreas(data, stats, state.coverage, lam, submodular, sums, eligible, areas,
                                          gains, exact, *bounds, write_back=write_back)


class _LazyAreas:
    """A step's areas evaluated lazily: completes the exact areas that a stopping criterion reads.

    ``areas``, ``gains`` and ``exact`` are the step's arrays (updated in
    place): exact where ``exact``, upper bounds elsewhere.  ``q_bound`` and
    ``area_bound`` are the step's bounds, updated in place as candidates are
    evaluated; ``write_back(mask, q_bound, area_bound)`` (or None) also
    stores those of ``mask`` where the run keeps them.
    """

    def __init__(self, data, stats, coverage, lam, submodular, sums, eligible, areas, gains, exact, q_bound,
                 area_bound, write_back=None):
        self.data, self.stats, self.coverage = data, stats, coverage
        self.lam, self.submodular = lam, submodular
        self.sums, self.eligible = sums, eligible
        self.areas, self.gains, self.exact = areas, gains, exact
        self.q_bound, self.area_bound = q_bound, area_bound
        self.write_back = write_back

    def complete(self, select):
        """Evaluate the eligible candidates of boolean mask ``select`` whose area is only a bound."""
        todo = select & (self.eligible == 1) & ~self.exact
        if not todo.any():
            return
        # Marked never evaluated and alone eligible: the kernel evaluates exactly these.
        q_bound, area_bound = self.q_bound.copy(), self.area_bound.copy()
        q_bound[todo] = np.inf
        areas, gains, _, exact = _lazy_areas(self.data, self.stats, self.coverage, self.lam, self.sums,
                                             self.submodular, todo.astype(np.uint8), q_bound, area_bound)
        self.areas[todo] = areas[todo]
        self.gains[todo] = gains[todo]
        self.exact |= exact
        self.q_bound[todo] = q_bound[todo]
        self.area_bound[todo] = area_bound[todo]
        if self.write_back is not None:
            self.write_back(todo, q_bound, area_bound)


class _GeneratedPools:
    """A fresh pool from the candidate generator at every step (round 1 of Algorithm 1).

    Every distinct candidate seen is numbered in order of first appearance
    (:class:`~corset._ext._rule_registry.RuleRegistry`): repeats within a pool,
    across pools and of chosen rules are found by number, with no Python
    tuple per candidate, and the statistics of a candidate are computed once
    (:class:`_CandidateStore`).  With ``keep_union``, the candidates seen
    are collected for round 2.
    """

    #: Whether the gains are evaluated lazily (:func:`_lazy_areas`; the same choices either way).
    lazy = True

    def __init__(self, data, candidate_generator, lam, submodular, allow_empty_coverage, min_support,
                 keep_union=False):
        self.lazy_areas = None   # this step's _LazyAreas, when its gains were evaluated lazily
        self.data = data
        self.lam = lam
        self.submodular = submodular
        self.allow_empty_coverage = allow_empty_coverage
        self.min_support = min_support
        self.registry = RuleRegistry()
        self.store = _CandidateStore(data, lam, allow_empty_coverage, min_support)
        # A generator that can hand its pool over as arrays (CandidateGenerator) does
        # so, and its samplers follow the selection's coverage instead of re-applying
        # the rules (unless they draw from a subset of the records, whose coverage they
        # keep); any other callable gets the list of rules selected so far.
        pool_method = getattr(candidate_generator, "candidate_pool", None)
        if pool_method is not None:
            self.generate = lambda state: pool_method(state.rules, coverage=state.coverage)
        else:
            self.generate = lambda state: candidate_generator(list(state.rules))
        self.union_parts = [] if keep_union else None
        self._numbers = None

    def step(self, state):
        """Draw a pool; ``None`` when it is empty, else as :meth:`_FixedPool.step`."""
        data = self.data
        pool = self.generate(state)
        if pool is None:
            raise ValueError("candidate_generator returned None; it must return a sequence of (head, tail) pairs")
        if isinstance(pool, CandidatePool):
            if (pool.n_features, pool.n_labels) != (data.n_features, data.n_labels):
                raise ValueError(f"candidate pool: built for {pool.n_features} features and {pool.n_labels} "
                                 f"labels; the data has {data.n_features} and {data.n_labels}")
            canonical, arrays = None, pool.arrays   # validated when the pool was built
        else:
            checked = check_rules(pool, data.n_features, data.n_labels, name="candidate pool", duplicates="drop")
            canonical, arrays = checked.rules, checked.arrays
        if arrays[0].shape[0] <= 1:
            return None
        # The first occurrence of each rule, its number, and whether it is new or chosen already.
        arrays, numbers, flags = self.registry.register_pool(*arrays)
        if canonical is not None and len(canonical) != numbers.size:
            raise AssertionError("check_rules de-duplicated the pool; the registry found repeats")
        self._numbers = numbers
        stored = self.store.pool(state, arrays, numbers, flags) if self.store.active else None
        if stored is None:
            # The store outgrew its memory: the pool's statistics and distance sums afresh.
            stats = _statistics_from_csr(data, canonical, arrays)
            eligible = _base_eligibility(stats, self.allow_empty_coverage, self.min_support)
            if len(state):
                eligible[(flags & 2).astype(bool)] = 0   # rules chosen already
            sums = np.zeros(len(stats), dtype=np.float64)
            if self.lam > 0 and len(state):
                _selection.add_distance_sums(stats.support_indptr, stats.support_ids, stats.tail_indptr,
                                             stats.tail_ids, eligible, *state.chosen_csr(), sums)
        else:
            stats, sums, eligible, slots, bounds = stored
        # The stored rules keep bounds from their last evaluation: only those that may still
        # beat the best gain are evaluated (the same arg max).
        if stored is None or not self.lazy:
            bounds = None
        areas, gains, best, self.lazy_areas = _step_gains(
            data, stats, state, self.lam, sums, self.submodular, eligible, bounds,
            write_back=self._write_back(slots) if bounds is not None else None)
        if self.lazy_areas is not None:
            self.store.set_bounds(slots, *bounds)
        if self.union_parts is not None:
            new = (flags & 1).astype(bool)
            if new.any():
                self.union_parts.append(stats if new.all() else stats.subset(np.flatnonzero(new)))
        return stats, areas, gains, _zero_gain_rule(best, state, self.lam, eligible), eligible

    def _write_back(self, slots):
        """Where a step's completed bounds go: the store's ``slots``, while they still hold the
        step's rules (the run goes on, with no eviction since)."""
        store, evictions = self.store, self.store.n_evictions

        def write(todo, q_bound, area_bound):
            if self.store is store and store.active and store.n_evictions == evictions:
                store.set_bounds(slots[todo], q_bound[todo], area_bound[todo])
        return write

    def release(self, candidate_generator):
        """After the last pool: drop the candidate store, and the generator's caches when it has
        ``release_caches`` (memory only: a later pool rebuilds them, with the same draws)."""
        self.store = None
        self.generate = None
        release = getattr(candidate_generator, "release_caches", None)
        if release is not None:
            release()

    def chose(self, state, best):
        number = int(self._numbers[best])
        self.registry.mark_chosen(number)
        self.store.chose(state, number)


def _greedy(data, source, criteria, *, round_number, callback):
    """The greedy loop of Algorithm 1, shared by round 1, round 2 and :func:`select_rules`.

    At each step ``source`` gives the candidates' gains under the current
    coverage and the arg max; the loop adds it to the state unless a
    criterion stops first (see :mod:`corset.selection._stopping` for the
    order of the hooks).  Returns ``(state, stop_reason)``, the state cut to
    the prefix the criteria keep.
    """
    state = _State(data)
    for criterion in criteria:
        criterion.start(data)
    # A criterion of the user's (a subclass of the library's included) may read a step's pool
    # share after its rule is added.
    only_early_reads = all(vars(type(c)).get("_reads_pool_share_before_adding_only", False) for c in criteria)

    def stopped_before_step():
        for criterion in criteria:
            if criterion.before_step(len(state)):
                return criterion.reason
        return None

    reason = stopped_before_step()
    while reason is None:
        step = source.step(state)
        if step is None:
            reason = "empty_pool"
            break
        stats, areas, gains, best, eligible = step
        if best < 0:
            reason = "no_gain"
            break
        area = int(areas[best])
        info = StepInfo(round_number, len(state), float(gains[best]), area, state.share(area), areas, eligible,
                        data.n_label_occurrences, lazy=getattr(source, "lazy_areas", None))
        last = None
        for criterion in criteria:
            decision = criterion.before_adding(info)
            if decision is not None:
                last = criterion
                break
        if last is not None and decision == "stop":
            reason = last.reason
            break
        if info._lazy is not None and not only_early_reads:
            info.pool_share   # noqa: B018 - exact now: the rule is about to change the coverage
        info.rule = state.add(stats, best, gains[best], areas[best])
        if callback is not None:
            callback(SelectionStep(round_number, len(state) - 1, info.rule, info.gain, area, info.share))
        if last is not None:
            reason = last.reason
            break
        for criterion in criteria:
            if criterion.after_adding(info):
                reason = criterion.reason
                break
        if reason is not None:
            break
        reason = stopped_before_step()
        if reason is None:
            source.chose(state, best)
    keep = min([c.n_rules_to_keep(len(state)) for c in criteria] + [len(state)])
    if keep < len(state):
        state = state.truncated(keep)
    return state, reason


def _criteria(n_rules, tol, patience, share_criterion, keep_stopping_rule, f1_patience, extra):
    """The stopping criteria of a run from the entry points' parameters, then ``extra``."""
    criteria = [RuleBudget(n_rules)]
    if tol is not None:
        criteria.append(ShareTolerance(tol, patience=patience, share_criterion=share_criterion,
                                       keep_stopping_rule=keep_stopping_rule))
    if f1_patience is not None:
        criteria.append(BestTrainingF1(f1_patience))
    return criteria + check_stopping_criteria(extra)


def _f1_scores(criteria):
    """The training micro-F1 path of the first :class:`BestTrainingF1` criterion, or None."""
    for criterion in criteria:
        if isinstance(criterion, BestTrainingF1):
            return criterion.scores
    return None


def _check_f1_patience(f1_patience):
    if f1_patience is None:
        return None
    return check_positive_int(f1_patience, "f1_patience", minimum=1)


def _result(data, states, reasons, lam, quality, n_candidates, candidate_indices=None, f1_scores=None):
    """Evaluate f for each round's rule set and keep the better (round 1 on ties)."""
    objectives = {}
    terms = {}
    for round_number, state in states.items():
        if len(state):
            # The state's coverage holds exactly its rules: Q is the sum of its best accuracies.
            terms[round_number] = objective_terms(data, state.chosen(), quality=quality,
                                                  best_accuracy=state.coverage.best_accuracy)
        else:
            terms[round_number] = (0.0, 0.0)
        objectives[round_number] = terms[round_number][0] + lam * terms[round_number][1]
    selected = 1
    if 2 in objectives and objectives[2] > objectives[1]:
        selected = 2
    state = states[selected]
    indices = None
    if candidate_indices is not None:
        indices = np.asarray(candidate_indices[selected], dtype=np.int64)
    return SelectionResult(
        rules=list(state.rules),
        gains=np.asarray(state.gains, dtype=np.float64),
        areas=np.asarray(state.areas, dtype=np.int64),
        shares=np.asarray(state.shares, dtype=np.float64),
        objective=float(objectives[selected]),
        quality_term=float(terms[selected][0]),
        diversity_term=float(terms[selected][1]),
        selected_round=selected,
        objectives=objectives,
        stop_reason=reasons[1],
        n_candidates=int(n_candidates),
        round_rules={r: list(st.rules) for r, st in states.items()},
        lam=lam,
        quality=quality,
        candidate_indices=indices,
        f1_path=f1_scores,
    )


def _check_common(n_rules, lam, quality, tol, callback):
    n_rules = check_positive_int(n_rules, "n_rules")
    lam = _check_lam(lam)
    quality = check_quality(quality)
    tol = check_tol(tol)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None; got {callback!r}")
    return n_rules, lam, quality, tol


def _check_labels(data):
    if not isinstance(data, BinaryData):
        raise TypeError(f"data must be a corset.BinaryData; got {type(data).__name__}")
    if data.n_labels == 0:
        raise ValueError("data has no labels: rule selection needs the label matrix Y")


def greedy_selection(data, candidate_generator, *, n_rules=150, lam=1.0, quality="paper", tol=0.0,
                     keep_stopping_rule=True, second_round=False, allow_empty_coverage=False,
                     callback=None, patience=1, share_criterion="chosen", min_support=1, f1_patience=None,
                     stopping_criteria=None):
    """CORSET's greedy selection with a fresh candidate pool at every step (Algorithm 1).

    Parameters
    ----------
    data : BinaryData
        Binary features and labels, built once.
    candidate_generator : callable
        ``candidate_generator(rules) -> sequence of (head, tail)``, called
        once per step with the list of rules selected so far (GenCandRules
        of the paper); the sequence may be a :class:`CandidatePool` (the
        pool as CSR arrays).  An object with a method
        ``candidate_pool(rules, *, coverage)`` (a
        :class:`corset.sampling.CandidateGenerator`) is called through it
        with the selection's :class:`~corset.rules.Coverage`, which its
        samplers then follow (or, drawing from a subset of the records,
        the rules' coverage of that subset).  The pool is de-duplicated in first-seen order;
        candidates already selected are never selected again.  A candidate
        with an empty head or tail, or ids out of range, raises ValueError.
    n_rules : int, default=150
        The rule budget k.
    lam : float, default=1.0
        λ ≥ 0, the weight of diversity in the gain and in f.
    quality : {"paper", "submodular"}, default="paper"
        ``"paper"``: the gain's quality part is ``½ q(R; ℛ) = ½ a(R)·|cov(R) \\
        cov(ℛ)|`` and f is eq. obj; ``"submodular"``: ``½ ΔQ`` with Q of
        correction 1 (each covered occurrence credited with the best
        a(R) among the rules covering it), for which round 2 is a
        ½-approximation.
    tol : float in [0, 1] or None, default=0.0
        τ: round 1 stops once the chosen rule's share ``c = |cov(R*) \\
        cov(ℛ)| / ||L||`` is ≤ τ.  The default 0 stops when the best rule
        covers no new label occurrence.  None: no share criterion.
    keep_stopping_rule : bool, default=True
        Whether the rule whose share brings c to τ or below is added
        (Algorithm 1 as printed adds it).
    share_criterion : {"chosen", "pool"}, default="chosen"
        Whose share c is compared with τ: the chosen rule's (Algorithm 1), or
        the largest share in the step's pool ("pool": stop only once no
        candidate covers more than τ·||L|| new occurrences; a chosen rule
        with a small share, selected for its accuracy or diversity, does not
        end the selection).
    patience : int, default=1
        Round 1 stops after ``patience`` consecutive chosen rules with
        c <= τ (1: Algorithm 1).  With the submodular quality a rule can have
        a positive gain without covering anything new (it raises the best
        accuracy credited to occurrences already covered), so a single such
        rule is a poor signal that selection is exhausted.
    second_round : bool, default=False
        Re-run the greedy over the union of all pools with round 1's number
        of rules (no share criterion), and return the rule set with the
        larger f (round 1 on ties).
    allow_empty_coverage : bool, default=False
        Candidates with an empty coverage (D[R] = ∅) are not selected by
        default: they have no quality but Jaccard distance 1 to every other
        rule, so with λ > 0 they would win on diversity alone while
        predicting only false positives.  True restores the bare arg max.
    min_support : int, default=1
        Candidates matched by fewer than this many training records
        (``|D[R]| < min_support``) are not selected (1: every rule with a
        non-empty coverage is eligible).  A rule matched by one record has
        precision 1 by construction and, late in the selection, a Jaccard
        distance near 1 to every chosen rule, so max-sum diversification
        favours such memorising rules; this keeps them out.
    f1_patience : int or None, default=None
        Beyond the paper.  None: Algorithm 1's stopping only.  An int p:
        the training micro-F1 of round 1's rule set is followed as rules are
        added (:class:`~corset.selection.MicroF1Path`; predictions are the
        union of the tails of the rules whose head a record contains), round
        1 stops once p rules in a row have not raised it to a new maximum
        (``stop_reason="f1"``), and whatever ended round 1, its rule set is
        cut back to the shortest prefix with the highest training micro-F1.
        The objective rewards covered occurrences and never charges a rule
        for the labels it predicts wrongly, so late rules can lower
        micro-F1; because the greedy is sequential, the prefix of size m is
        exactly the rule set a budget of m would have selected.  Round 2,
        if run, gets the cut rule set's size as its budget.  Costs one byte
        per (record, label) pair.
    callback : callable, optional
        Called with a :class:`SelectionStep` after each selection (e.g. to
        drive a progress bar).
    stopping_criteria : StoppingCriterion or list of them, optional
        Further criteria for round 1, after the ones the parameters above
        make (:class:`~corset.selection.RuleBudget` for ``n_rules``,
        :class:`~corset.selection.ShareTolerance` for ``tol``, ``patience``,
        ``share_criterion`` and ``keep_stopping_rule``,
        :class:`~corset.selection.BestTrainingF1` for ``f1_patience``); see
        :mod:`corset.selection._stopping` for when each hook is called.

    Returns
    -------
    SelectionResult

    Notes
    -----
    Stopping: round 1 ends when (checked in this order) the budget is
    reached, the generator returns an empty pool, no eligible candidate has
    a gain > 0 (``"no_gain"``; every gain is ≥ 0, and on a fixed pool a step
    with only zero gains is followed only by such steps, except at the
    first step with λ > 0, where the first eligible candidate is taken so
    that diversity can follow), c ≤ τ, or (with ``f1_patience``) the
    training micro-F1 has stopped rising.  Ties are broken by the lowest
    index in the de-duplicated pool.

    Cost of one round-1 step with a pool of M candidates and ``|ℛ|`` chosen
    rules: computing D[R] for the pool (one intersection per candidate over
    the inverted index), ``O(Σ_R |D[R]|·(|T| + |L_D|))`` for the uncovered
    areas, and ``O(M·|ℛ|)`` Jaccard distances (a tail intersection, and a
    support intersection only when the tails share a label).  In round 2
    the distance sums are incremental: ``O(M)`` distances per step, and
    so are they in round 1 for the candidates a pool repeats (each stored
    candidate's sum receives only the distances to the rules chosen since
    a pool last read it).
    """
    _check_labels(data)
    n_rules, lam, quality, tol = _check_common(n_rules, lam, quality, tol, callback)
    if not callable(candidate_generator):
        raise TypeError(f"candidate_generator must be callable; got {candidate_generator!r}")
    patience = check_positive_int(patience, "patience", minimum=1)
    min_support = check_positive_int(min_support, "min_support", minimum=1)
    if share_criterion not in ("chosen", "pool"):
        raise ValueError(f"share_criterion must be 'chosen' or 'pool'; got {share_criterion!r}")
    f1_patience = _check_f1_patience(f1_patience)
    submodular = quality == "submodular"
    criteria = _criteria(n_rules, tol, patience, share_criterion, keep_stopping_rule, f1_patience,
                         stopping_criteria)
    pools = _GeneratedPools(data, candidate_generator, lam, submodular, allow_empty_coverage, min_support,
                            keep_union=second_round)
    state, reason = _greedy(data, pools, criteria, round_number=1, callback=callback)
    # The generator's pools are done: what was kept to draw and score them goes before
    # round 2 and the rule set's statistics allocate theirs.
    pools.release(candidate_generator)
    states = {1: state}
    reasons = {1: reason}
    if second_round and pools.union_parts and len(state):
        # Round 2: the union of all pools, round 1's number of rules, no share criterion.
        union = _FixedPool(data, RuleStatistics.concatenate(pools.union_parts), lam, submodular,
                           allow_empty_coverage, min_support)
        states[2], reasons[2] = _greedy(data, union, [RuleBudget(len(state))], round_number=2, callback=callback)
    return _result(data, states, reasons, lam, quality, len(pools.registry), f1_scores=_f1_scores(criteria))


def select_rules(X, Y, candidates, *, n_rules=150, lam=1.0, quality="paper", tol=0.0, keep_stopping_rule=True,
                 allow_empty_coverage=False, callback=None, min_support=1, f1_patience=None, patience=1,
                 share_criterion="chosen", stopping_criteria=None):
    """Greedy selection of rules from a fixed candidate pool (Algorithm 1 on one pool).

    The standalone entry point: no sampler involved.  Every step considers
    the whole pool and adds the candidate with the largest marginal gain
    ``½ q(R; ℛ) + λ Σ_j d(R, R_j)`` (or ``½ ΔQ + λ Σ_j d`` with
    ``quality="submodular"``).  On a fixed pool Algorithm 1's second round
    would repeat the first one step for step, so there is none here; with
    ``quality="submodular"`` and ``tol=None`` the result is a
    ½-approximation of the best set of its size in the pool.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_records, n_features), or BinaryData
        Binary features.  A :class:`~corset.BinaryData` (then ``Y`` must be
        None) avoids rebuilding the inverted index.
    Y : array-like or sparse matrix of shape (n_records, n_labels) or None
        Binary labels.
    candidates : sequence of (head, tail)
        The pool: heads are feature ids, tails label ids, both non-empty.
        Repeated rules are considered once (first occurrence).
    n_rules, lam, quality, tol, keep_stopping_rule, allow_empty_coverage, callback, min_support, f1_patience
        As in :func:`greedy_selection`.
    patience, share_criterion, stopping_criteria
        As in :func:`greedy_selection`; the same loop and the same stopping
        criteria run here, on the one pool.

    Returns
    -------
    SelectionResult
        ``rules``, their ``gains``, ``objective`` (f) and
        ``candidate_indices`` (positions in ``candidates``).

    Examples
    --------
    >>> import numpy as np
    >>> from corset.selection import select_rules
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> pool = [((0,), (0,)), ((2,), (1,)), ((1,), (0,)), ((1,), (1,))]
    >>> result = select_rules(X, Y, pool, n_rules=3, lam=0.5)
    >>> result.rules
    [((0,), (0,)), ((2,), (1,)), ((1,), (0,))]
    >>> result.areas.tolist(), result.candidate_indices.tolist(), result.stop_reason
    ([2, 2, 0], [0, 1, 2], 'tol')
    >>> round(result.objective, 4), round(result.quality_term, 4), result.diversity_term
    (3.3294, 2.0794, 2.5)

    The third rule covers no new label occurrence (c = 0 <= tol) and was
    chosen for its diversity; Algorithm 1 keeps such a rule, and
    ``keep_stopping_rule=False`` leaves it out:

    >>> select_rules(X, Y, pool, n_rules=3, lam=0.5, keep_stopping_rule=False).rules
    [((0,), (0,)), ((2,), (1,))]
    """
    if isinstance(X, BinaryData):
        if Y is not None:
            raise ValueError("pass either a BinaryData as X with Y=None, or binary matrices X and Y")
        data = X
    else:
        if Y is None:
            raise ValueError("Y is required: the label matrix of the records in X")
        data = BinaryData(X, Y)
    _check_labels(data)
    n_rules, lam, quality, tol = _check_common(n_rules, lam, quality, tol, callback)
    patience = check_positive_int(patience, "patience", minimum=1)
    min_support = check_positive_int(min_support, "min_support", minimum=1)
    if share_criterion not in ("chosen", "pool"):
        raise ValueError(f"share_criterion must be 'chosen' or 'pool'; got {share_criterion!r}")
    f1_patience = _check_f1_patience(f1_patience)
    criteria = _criteria(n_rules, tol, patience, share_criterion, keep_stopping_rule, f1_patience,
                         stopping_criteria)
    checked = check_rules(candidates, data.n_features, data.n_labels, name="candidates", duplicates="drop")
    canonical, arrays, first_index = checked.rules, checked.arrays, checked.first_index
    stats = _statistics_from_csr(data, canonical, arrays)
    pool = _FixedPool(data, stats, lam, quality == "submodular", allow_empty_coverage, min_support)
    state, reason = _greedy(data, pool, criteria, round_number=1, callback=callback)
    positions = {rule: i for i, rule in enumerate(canonical)}
    chosen = first_index[[positions[r] for r in state.rules]] if len(state) else np.zeros(0, dtype=np.int64)
    return _result(data, {1: state}, {1: reason}, lam, quality, len(canonical), candidate_indices={1: chosen},
                   f1_scores=_f1_scores(criteria))
