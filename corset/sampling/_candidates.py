"""Candidate generation (GenCandRules of Algorithm 1): tails, then heads per tail.

At each iteration of the greedy selection, Algorithm 1 asks GenCandRules(ℛ)
for a pool of candidate rules given the rules ℛ selected so far.  Here that
is a callable object: it samples ``n_tails`` tails by uncovered area with
respect to ℛ from a tail space (Algorithm 2 or 4), then ``n_heads_per_tail``
heads for each tail from a head method (Algorithm 3, CORSET-SURS, CORSET-GH,
or one registered in :mod:`corset.sampling._registry`), and returns the rules
(head, tail) of the pool.  Under :func:`corset.selection.greedy_selection`
its samplers follow the selection's own :class:`~corset.rules.Coverage`;
called with a list of rules, it keeps a coverage of its own, updated for the
rules added since its previous call and rebuilt only when the caller went
back on a rule.
"""

import numbers

import numpy as np

from .._validation import check_positive_int, check_seed
from ..rules import Coverage, check_rules
from ._common import MAX_DRAWS, check_data, check_fits_memory, check_tail
from ._errors import (
    NoDiscriminativeHeadError,
    NoNegativeRecordsError,
    ProposalLimitError,
    SamplingError,
)
from ._protocol import empty_pool
from ._registry import TAIL_SPACES, make_head_sampler, make_tail_sampler


def _resolve_n_jobs(n_jobs):
    """Threads for joblib-style ``n_jobs`` (None: 1; negative: cores + 1 + n_jobs)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer or None; got {n_jobs!r}")
    n_jobs = int(n_jobs)   # numpy's integers too
    if n_jobs < 0:
        # joblib's count: the CPUs this process may use (affinity, cgroup quotas).
        from joblib import cpu_count

        return max(1, cpu_count() + 1 + n_jobs)
    return n_jobs


THREADED_SEARCH_MIN_SECONDS = 1e-3
"""A pool's head searches run on :class:`CandidateGenerator`'s ``n_jobs`` threads only when
the last pool's compiled searches took at least this long on one thread (their wall time
times their threads; the seed pairs and Python set-up, which run on one thread, left out).

Results do not depend on it.  Starting the threads of a parallel region and sharing its work
costs more than it saves on small calls: with two threads on two cores for every call of
every fit, the default fits of emotions were 6% and medical 15% slower (their calls take 0.06
to 0.7 ms), while enron's (2.5 ms with negated literals) and bibtex's (1.3 to 1.9 ms) were 14%
and 19% faster."""


def _record_subset(data, size, rng):
    """Sorted ids of ``size`` records drawn uniformly without replacement, then, for each label
    that none of them holds but ``data`` does, one of its records drawn uniformly (labels in
    increasing order): a label left out of the subset could never be in a tail."""
    records = rng.choice(data.n_records, size, replace=False)
    if data.n_labels:
        held = np.zeros(data.n_labels, dtype=bool)
        held[data.Y[np.sort(records)].indices] = True
        missing = np.flatnonzero(~held & (data.label_counts > 0))
        if missing.size:
            labels = data.label_records
            extra = [labels[k][rng.randint(len(labels[k]))] for k in missing]
            records = np.concatenate([records, np.asarray(extra, dtype=records.dtype)])
    return np.unique(records).astype(np.int64, copy=False)


def check_pool_shape(n_tails, n_heads_per_tail):
    """Refuse a pool of ``n_tails`` × ``n_heads_per_tail`` candidates (positive ints) that could not be drawn.

    Before anything is allocated: each call of a generator draws ``n_tails``
    tails (its arrays sized for all of them up front), then
    ``n_heads_per_tail`` heads for each.  At most ``MAX_DRAWS`` candidates,
    and no more than the machine's memory holds (a candidate holds at least
    two offsets, int64, and a head and a tail id, int32: 24 bytes).
    """
    if n_tails * n_heads_per_tail > MAX_DRAWS:
        raise ValueError(f"n_tails * n_heads_per_tail must be at most {MAX_DRAWS} candidates per pool; "
                         f"got n_tails={n_tails} * n_heads_per_tail={n_heads_per_tail} = "
                         f"{n_tails * n_heads_per_tail}")
    check_fits_memory(n_tails * n_heads_per_tail, 24,
                      f"a pool of n_tails={n_tails} * n_heads_per_tail={n_heads_per_tail} candidates")


class CandidateGenerator:
    """A pool of candidate rules per call: ``n_tails`` × ``n_heads_per_tail`` (GenCandRules).

    Parameters
    ----------
    data : BinaryData
    n_tails : int, default=100
        Tails sampled per call (by uncovered area, Algorithm 2).
    n_heads_per_tail : int, default=10
        Heads sampled for each sampled tail (a tail drawn twice gets heads twice).
        ``n_tails * n_heads_per_tail`` may not pass 2**31 - 1, nor need more
        memory than the machine has (24 bytes a candidate at least): a
        ValueError.
    head_method : str, default="cftp"
        A head method of :func:`corset.sampling.sample_heads` ("cftp",
        "rejection"; "surs" and "gh" once their modules provide them).
    proposal : {"paper", "boley", "plain"}, default="paper"
    min_head_length, max_head_length : int, default=1 and None
    max_proposals : int, optional
        Passed to the head sampler (default: its own).
    space : str, default="full"
        The tail space of :func:`corset.sampling.sample_tails`.
    deduplicate : bool, default=True
        Return each rule once (first occurrence order).
    on_proposal_limit : {"raise", "skip"}, default="raise"
        What to do when a tail's heads hit ``max_proposals``.
    random_state : None, int or RandomState
        Resolved once at construction: a given int gives the same sequence of pools.
    head_options : dict, optional
        Extra keyword arguments for a registered head method's factory.
    tail_options : dict, optional
        Options of the tail space's factory (e.g. ``alpha`` and the clique
        caps of the interpretable space).
    n_jobs : int or None, default=1
        Threads for head methods that search a whole pool in one compiled
        call (``"gh"``); None means 1, -1 all cores.  The pool does not
        depend on it: randomness is drawn before the threads start.  A
        pool's searches use the threads once the last pool's took at least
        ``THREADED_SEARCH_MIN_SECONDS`` (1 ms) of one thread's work: on
        smaller calls, starting threads costs more than it saves.
    max_records : int or None, default=None
        On more records than this, draw tails and heads from a subset of
        the records of ``data`` instead of from all of them: ``max_records``
        records drawn uniformly without replacement, plus, for each label
        that none of them holds, one of that label's records drawn
        uniformly (so that every label can be in a tail).  The subset is
        drawn once, at construction, from ``random_state``.  The pool's
        rules are rules of ``data`` all the same: the selection scores them
        on every record.  The tail weights follow the coverage of the
        selected rules on the subset; once no tail of the subset has
        uncovered area left, the samplers draw from every record for the
        rest of the run (``records_`` becomes None).  None: every record,
        as in Algorithm 1.

    Attributes
    ----------
    records_ : ndarray of int64 or None
        The sorted ids of the records the samplers draw from, when
        ``max_records`` left some out (``max_records`` of them, and at most
        one more per label); else None (also once the subset is used up).
    skipped_tails_ : list of (tuple, str)
        Tails of the last call that yielded no head, with the reason: a tail
        with no negative record (every head has discriminativity 0), one whose
        every allowed head has discriminativity 0, or (with ``"skip"``) one
        that hit ``max_proposals``.
    exhausted_ : bool
        True when the last call found every label occurrence covered (the
        pool is then empty); with a subset of records, every occurrence of
        the subset and then of ``data``.

    Examples
    --------
    >>> import numpy as np
    >>> from corset import BinaryData
    >>> from corset.sampling import CandidateGenerator
    >>> rng = np.random.RandomState(0)
    >>> data = BinaryData(rng.rand(30, 6) < 0.4, rng.rand(30, 3) < 0.4)
    >>> generate = CandidateGenerator(data, n_tails=5, n_heads_per_tail=2, random_state=0)
    >>> pool = generate([])
    >>> all(isinstance(h, tuple) and isinstance(t, tuple) for h, t in pool)
    True
    >>> pool2 = generate([pool[0]])   # the tail weights now exclude pool[0]'s coverage
    """

    def __init__(self, data, *, n_tails=100, n_heads_per_tail=10, head_method="cftp", proposal="paper",
                 min_head_length=1, max_head_length=None, max_proposals=None, space="full",
                 deduplicate=True, on_proposal_limit="raise", random_state=None, head_options=None,
                 n_jobs=1, tail_options=None, max_records=None):
        self.data = check_data(data)
        self.n_tails = check_positive_int(n_tails, "n_tails", minimum=1)
        self.n_heads_per_tail = check_positive_int(n_heads_per_tail, "n_heads_per_tail", minimum=1)
        check_pool_shape(self.n_tails, self.n_heads_per_tail)
        if on_proposal_limit not in ("raise", "skip"):
            raise ValueError(f"on_proposal_limit must be 'raise' or 'skip'; got {on_proposal_limit!r}")
        self.on_proposal_limit = on_proposal_limit
        self.deduplicate = bool(deduplicate)
        self.n_jobs = _resolve_n_jobs(n_jobs)
        self._rng = check_seed(random_state)
        self.max_records = None if max_records is None else check_positive_int(max_records, "max_records",
                                                                               minimum=1)
        self.records_ = None
        if self.max_records is not None and data.n_records > self.max_records:
            # Drawn before any pool, and only when records are left out: below the cap the
            # random stream, and so every pool, is the same as without max_records.
            self.records_ = _record_subset(data, self.max_records, self._rng)
            data = data.take_records(self.records_)
        self._data = data   # the records the samplers draw from
        options = dict(head_options or {})
        if max_proposals is not None:
            options["max_proposals"] = max_proposals
        self._head_args = dict(method=head_method, proposal=proposal, min_head_length=min_head_length,
                               max_head_length=max_head_length, **options)
        self._head_sampler = make_head_sampler(data, **self._head_args)
        self._space = space
        self._tail_options = dict(tail_options or {})
        # Tails of a tail space from outside corset are checked before the head samplers see them.
        self._check_tails = not TAIL_SPACES[space].builtin if space in TAIL_SPACES else True
        self._tail_sampler = make_tail_sampler(data, space=space, **self._tail_options)
        self.skipped_tails_ = []
        self.exhausted_ = False
        # Seconds of one thread's work the last pool's head searches took (none yet: 0).
        self._search_work = 0.0

    @property
    def pool_shape(self):
        """(n_tails, n_heads_per_tail): the pool's size before deduplication."""
        return self.n_tails, self.n_heads_per_tail

    @property
    def coverage(self):
        """The :class:`~corset.rules.Coverage` the tail sampler follows (of the subset ``records_``, if any)."""
        return self._tail_sampler.coverage

    def _follow(self, coverage):
        """Sample against ``coverage`` (the selection's), from now on."""
        if coverage.data is not self.data:
            raise ValueError("coverage must be a corset.rules.Coverage of the generator's BinaryData")
        if coverage is not self._tail_sampler.coverage:
            # A sampler that can take the new coverage over (both empty: the same weights) is kept;
            # otherwise it is made again for it.
            adopt = getattr(self._tail_sampler, "_adopt_coverage", None)
            if adopt is None or not adopt(coverage):
                self._tail_sampler = make_tail_sampler(self._data, space=self._space, coverage=coverage,
                                                       **self._tail_options)

    def _apply(self, selected_rules):
        """Bring the coverage to the rules ``selected_rules`` (a caller's list of rules)."""
        coverage = self._tail_sampler.coverage
        rules = check_rules(selected_rules, self.data.n_features, self.data.n_labels, name="selected_rules",
                            allow_empty_head=True, duplicates="keep").rules
        applied = coverage.rules
        if rules[:len(applied)] != applied:
            # The caller dropped or reordered a rule: start again from its list.
            coverage = Coverage(self._data)
            self._tail_sampler = make_tail_sampler(self._data, space=self._space, coverage=coverage,
                                                   **self._tail_options)
        for head, tail in rules[len(coverage.rules):]:
            coverage.add(head, tail)

    def __call__(self, selected_rules=()):
        """The pool of candidate rules given the rules selected so far.

        Parameters
        ----------
        selected_rules : sequence of (head, tail)
            ℛ, in selection order (the generator applies the ones it has not
            seen yet).

        Returns
        -------
        list of (tuple, tuple)
            Rules (head, tail), sorted feature and label ids (each once when
            ``deduplicate``).
        """
        pool = list(self.candidate_pool(selected_rules))
        return list(dict.fromkeys(pool)) if self.deduplicate else pool

    def candidate_pool(self, selected_rules=(), *, coverage=None):
        """:meth:`__call__`'s pool as a :class:`corset.rules.CandidatePool` (CSR arrays).

        The same draws and the same rules in the same order, without a Python
        tuple per candidate; a rule drawn twice is kept twice (the selection
        keeps its first occurrence).  :func:`corset.selection.greedy_selection`
        calls this method with its own ``coverage`` (a
        :class:`~corset.rules.Coverage` holding ``selected_rules``), which the
        samplers then follow instead of applying the rules themselves (with
        ``max_records``, they keep the rules' coverage of their subset).
        """
        self.skipped_tails_ = []
        tails = self._draw_tails(selected_rules, coverage)
        if tails is None and self.records_ is not None:
            # The subset has no uncovered tail left, though the other records may: from now on
            # the samplers draw from every record (no random draw is spent on the switch).
            self._use_every_record()
            tails = self._draw_tails(selected_rules, coverage)
        self.exhausted_ = tails is None
        if not tails:
            return empty_pool(self.data)
        if self._check_tails:
            tails = [tuple(check_tail(t, self._data).tolist()) for t in tails]
        # One call for the whole pool: CORSET-GH runs every search in compiled
        # code, on n_jobs threads once the calls are long enough to pay for them
        # (THREADED_SEARCH_MIN_SECONDS); other methods go tail by tail.
        threads = self.n_jobs if self._search_work >= THREADED_SEARCH_MIN_SECONDS else 1
        pool, errors = self._head_sampler.sample_pool(tails, self.n_heads_per_tail, self._rng,
                                                      n_threads=threads)
        # Head methods without compiled pool searches (no search_seconds_) take no threads.
        self._search_work = getattr(self._head_sampler, "search_seconds_", 0.0) * threads
        self._check_errors(tails, errors)
        return pool

    def _draw_tails(self, selected_rules, coverage):
        """``n_tails`` tails given the selected rules, or None when no tail has uncovered area.

        The samplers are first brought to the rules: they follow the selection's ``coverage``
        when they draw from every record, else apply the rules to their own coverage."""
        if coverage is None or self.records_ is not None:
            self._apply(selected_rules)
        else:
            self._follow(coverage)
        self._head_sampler.follow_coverage(self._tail_sampler.coverage)
        try:
            return self._tail_sampler.sample(self.n_tails, self._rng)
        except SamplingError:
            return None

    def _use_every_record(self):
        """Leave the subset of ``max_records``: samplers on every record of ``data``."""
        self.records_ = None
        self._data = self.data
        self._head_sampler = make_head_sampler(self.data, **self._head_args)
        self._tail_sampler = make_tail_sampler(self.data, space=self._space, **self._tail_options)

    def release_caches(self):
        """Drop what the head sampler keeps between pools (search trees, seed-pair proposals, role rows).

        Memory only: the next pool rebuilds what it needs, and draws the same
        candidates.  :func:`corset.selection.greedy_selection` calls it once
        its pools are done.
        """
        release = getattr(self._head_sampler, "release_caches", None)
        if release is not None:
            release()

    def _check_errors(self, tails, errors):
        """Record the tails skipped for a sampling error; raise the others (in tail order)."""
        for tail, error in zip(tails, errors):
            if error is None:
                continue
            if isinstance(error, NoNegativeRecordsError):
                self.skipped_tails_.append((tail, "no negative record"))
            elif isinstance(error, NoDiscriminativeHeadError):
                self.skipped_tails_.append((tail, "no head with positive discriminativity"))
            elif isinstance(error, ProposalLimitError):
                if self.on_proposal_limit == "raise":
                    raise error
                self.skipped_tails_.append((tail, "max_proposals reached"))
            else:
                raise error
