"""CORSET-GH: heads found by greedy search from a sampled seed pair (Algorithm 5).

The search itself runs in :mod:`corset._ext._gh`, or — for the unnormalised
gain, the default — through the per-tail search tree of
:mod:`corset._ext._gh_memo`, which gives the same heads and is kept across
calls (``memo=True``).  This module chooses the
seed pair (D+, D−) that defines the candidate features, the role of every
record with respect to the tail (positive, negative, or not counted), and
turns the search's output into a sorted head.

Choices the paper leaves open (section enhanced_sampling, corrections 14 and 15), each a documented parameter:

``candidates``
    ``"difference"`` (default): F' = F_{D+} \\ F_{D−}, as the pseudo-code of
    Algorithm 5 prints it; ``"positive"``: F' = F_{D+}.
``seed``
    How the pair (D+, D−) is drawn. ``"paper"``: by coupling from the past
    with probability ∝ w(D+, D−) (Algorithm 3), which correction 15 shows is
    nearly fixed per tail (the widest positive record takes almost all the
    mass); ``"uniform"``: D+ uniform over the positive records; ``"uncovered"``:
    D+ ∝ the number of the tail's labels it carries that no selected rule
    covers yet (uniform while no rule is selected); in both, D− is uniform
    over the negative records.
    ``"deterministic"``: no pair at all; F' is every feature of every
    positive record (the paper's "deterministic input" variant), so the
    search returns the same head for a tail every time.
``normalise``
    Divide each marginal gain by |D[{h}]| (the authors' default).
``uncovered``
    Count in phi only the positive records for which some label of the tail
    is not yet covered by the selected rules (the paper's "support not yet
    covered" variant); negatives always count.

``min_head_length``, ``max_head_length``
    The search stops at ``max_head_length`` features; the epsilon stop
    applies from ``min_head_length`` features on; the best prefix is taken
    among those of allowed length.  With ``seed="paper"`` the pair is drawn
    ∝ w for the same bounds (correction 9).

A tail with no negative record: with ``seed="paper"`` the pair sampler raises
:class:`~corset.sampling.NoNegativeRecordsError` (the candidate generator
skips such a tail); with the other seeds D− is taken as empty (F' = F_{D+})
and phi reduces to the positive support.  A seed pair with F_{D+} ⊆ F_{D−},
or a search that cannot reach ``min_head_length`` features, yields no head:
that draw is dropped, so ``sample`` may return fewer than ``n`` heads.
"""
import functools
import time
from collections import Counter
from itertools import accumulate, chain

import numpy as np

from .._ext import _csr_rows, _gh, _gh_memo, _heads
from .._validation import _is_canonical, check_ids, check_positive_int, check_seed
from ..rules import CandidatePool, Coverage
from ._common import check_tail, plain_feature_counts
from ._errors import SamplingError
from ._protocol import HeadMethodSampler

_SEEDS = ("paper", "uniform", "uncovered", "deterministic")
_CANDIDATES = ("difference", "positive")
_PAIR_METHODS = ("cftp", "rejection")
MEMO_MAX_HEAD_LENGTH = 10
"""Longest maximum head length for which the searches go through the memo (see ``memo``)."""
MEMO_COMPLETE_FEATURES = 160
"""With at most this many features, the memo's nodes keep every entry (no node is rebuilt
complete later); with more, a node first keeps its ``MEMO_TOP_K`` best (memory)."""
MEMO_TOP_K = 12
"""Entries a non-root node of the memo keeps at first, when there are more features than
``MEMO_COMPLETE_FEATURES`` (the searches' results do not depend on it, only their cost)."""


@functools.lru_cache(maxsize=1)
def _usable_cpus():
    from joblib import cpu_count   # the CPUs this process may use (affinity, cgroup quotas)

    return max(1, cpu_count())


def _thread_count(n_threads):
    """``n_threads`` checked, and at most the CPUs this process may use: the searches' results do not
    depend on it, and OpenMP fails (or the process crashes) when asked for tens of thousands."""
    if type(n_threads) is int and n_threads == 1:
        return 1
    return min(check_positive_int(n_threads, "n_threads"), _usable_cpus())


class GreedyHeadSearch(HeadMethodSampler):
    """Greedy head search (Algorithm 5) over a :class:`~corset.BinaryData`.

    Parameters
    ----------
    data : BinaryData
    gamma : float, default=0.5
        Weight of the negative support in phi (eq. modified-discriminativity), >= 0.
    epsilon : float, default=0.1
        Early stop once ``|D[H]| < epsilon · |D_T^+|``, in [0, 1].
    candidates : {"difference", "positive"}, default="difference"
    seed : {"paper", "uniform", "uncovered", "deterministic"}, default="paper"
    normalise : bool, default=False
    uncovered : bool, default=False
    min_head_length, max_head_length : int, default=1 and None
    proposal : {"paper", "boley", "plain"}, default="paper"
        Proposal of the pair sampler (``seed="paper"`` only).
    max_proposals : int, optional
        Cap of the pair sampler (``seed="paper"`` only).
    memo : bool, default=True
        Run the searches of :meth:`sample_many` through
        :class:`corset._ext._gh_memo.GreedyHeadMemo`, a search tree per tail
        kept across calls (identical heads).  Used only for the unnormalised
        gain and heads of at most ``MEMO_MAX_HEAD_LENGTH`` (10) features: a
        node's support is recomputed from its whole path, so very deep
        searches are faster with the plain kernel (on enron, with no maximum
        head length, the memo was about 30 times slower; with 3 to 10 it is
        1 to 4 times faster).
    pair_method : {"cftp", "rejection"}, default="cftp"
        How the seed pairs of ``seed="paper"`` are drawn ∝ w: coupling from
        the past (the paper) or rejection sampling from the same proposal;
        both are exact (the same distribution, tested against enumeration),
        rejection needs about 5 times fewer proposals.
    memo_max_entries : int, default=4_000_000
        The tree is dropped and rebuilt on demand once it holds more entries
        than this (24 bytes each), checked after each call of
        :meth:`sample_many` (one call can go past it).

    Attributes
    ----------
    search_seconds_ : float
        Wall time of the last call's compiled searches (their seed pairs and
        set-up left out); :class:`CandidateGenerator` reads it to decide
        whether the next pool's searches run on several threads.  Set by
        :meth:`sample_many` and :meth:`sample_pool`.

    Examples
    --------
    >>> import numpy as np
    >>> from corset import BinaryData
    >>> from corset.sampling import GreedyHeadSearch
    >>> rng = np.random.RandomState(0)
    >>> data = BinaryData(rng.rand(40, 6) < 0.5, rng.rand(40, 2) < 0.5)
    >>> heads = GreedyHeadSearch(data, seed="uniform").sample((0,), 3, random_state=0)
    >>> all(isinstance(h, tuple) for h in heads)
    True
    """

    def __init__(self, data, *, gamma=0.5, epsilon=0.1, candidates="difference", seed="paper",
                 normalise=False, uncovered=False, min_head_length=1, max_head_length=None,
                 proposal="paper", max_proposals=None, memo=True, memo_max_entries=4_000_000,
                 pair_method="cftp"):
        from ._head_exact import HeadSampler, check_head_lengths

        if not (np.isfinite(gamma) and gamma >= 0):
            raise ValueError(f"gamma must be a finite number >= 0; got {gamma!r}")
        if not (0.0 <= epsilon <= 1.0):
            raise ValueError(f"epsilon must be in [0, 1]; got {epsilon!r}")
        if candidates not in _CANDIDATES:
            raise ValueError(f"candidates must be one of {_CANDIDATES}; got {candidates!r}")
        if seed not in _SEEDS:
            raise ValueError(f"seed must be one of {_SEEDS}; got {seed!r}")
        if pair_method not in _PAIR_METHODS:
            raise ValueError(f"pair_method must be one of {_PAIR_METHODS}; got {pair_method!r}")
        self.data = data
        self.gamma = float(gamma)
        self.epsilon = float(epsilon)
        self.candidates = candidates
        self.seed = seed
        self.normalise = bool(normalise)
        self.uncovered = bool(uncovered)
        self.min_head_length, self.max_head_length = check_head_lengths(min_head_length, max_head_length)
        self._pair_sampler = None
        if seed == "paper":
            options = {} if max_proposals is None else {"max_proposals": max_proposals}
            self._pair_sampler = HeadSampler(data, proposal=proposal, method=pair_method, min_head_length=self.min_head_length,
                                             max_head_length=self.max_head_length, **options)
        self._rules = []
        self._coverage = None
        self._n_followed = 0
        self._covered = None
        self._occurrence_rows = None
        self._role_cache = {}
        self._roles_buffer = None
        self._plain_entries = None
        self.memo_max_entries = int(memo_max_entries)
        use_memo = (memo and not self.normalise and self.max_head_length is not None
                    and self.max_head_length <= MEMO_MAX_HEAD_LENGTH)
        top_k = data.n_features if data.n_features <= MEMO_COMPLETE_FEATURES else MEMO_TOP_K
        self._memo = _gh_memo.GreedyHeadMemo(data.n_features, data.n_records, self.gamma, top_k) if use_memo else None
        self._roots = {}
        self._bits = None
        self._column_bits = None
        self._plain_end = None

    def __getstate__(self):
        # The memo pickles empty (a cache); its root ids go with it.
        state = self.__dict__.copy()
        state["_roots"] = {}
        state["_bits"] = None   # rebuilt on first use
        state["_roles_buffer"] = None
        state["_role_cache"] = {}   # a cache, refilled on use
        state["_column_bits"] = None
        state["_plain_end"] = None
        return state

    def follow_coverage(self, coverage):
        """Follow the coverage of the selected rules (for ``uncovered`` and ``seed="uncovered"``).

        Called by :class:`~corset.sampling.CandidateGenerator` before each
        pool with the selection's :class:`~corset.rules.Coverage`; nothing is
        recomputed while no rule was added to it.
        """
        n_rules = len(coverage)
        if coverage is self._coverage and n_rules == self._n_followed:
            return
        self._coverage, self._n_followed = coverage, n_rules
        if self.uncovered:
            self._role_cache.clear()  # roles depend on what is covered
            self._forget_memo()
        self._covered = (coverage.covered.astype(bool)
                         if n_rules and (self.uncovered or self.seed == "uncovered") else None)

    def update_rules(self, rules):
        """The rules selected so far, as a list: :meth:`follow_coverage` of their coverage."""
        rules = list(rules)
        if rules != self._rules:
            self._rules = rules
            coverage = Coverage(self.data)
            coverage.add_rules(rules)
            self.follow_coverage(coverage)

    def _record_bits(self):
        """F_D of every record as bitsets, for the memo's candidate tests: ``(bits, n_words)``.

        The seed-pair sampler's table when it has one (the same records),
        else built once; ``(None, 0)`` when the table would pass its memory
        cap or the records are too sparse for it to pay
        (``_head_exact._bitsets_pay``: the memo then stamps candidates
        instead) or with ``seed="deterministic"``, whose searches start
        from no record.
        """
        if self.seed == "deterministic":
            return None, 0
        if self._bits is None:
            from ._head_exact import _bitsets_pay

            data = self.data
            n_words = max(1, -(-data.n_features // 64))
            bits = None
            if self._pair_sampler is not None:
                bits = self._pair_sampler._bits()
                n_words = self._pair_sampler._n_words
            elif _bitsets_pay(data, n_words):
                idx = data.record_features
                bits = _heads.feature_bitsets(idx.indptr, idx.ids, n_words)
            self._bits = (bits, n_words if bits is not None else 0)
        return self._bits

    def _feature_bits(self):
        """D[{h}] of every feature as bitsets over the records (``BinaryData.column_bitsets``), for
        the memo's dense node builds: ``(bits, n_words)``, or ``(None, 0)`` past its memory cap.

        The kernel counts a node by popcounts only where that is cheaper than
        scanning its records (dense data).
        """
        if self._column_bits is None:
            bits, _, n_words = self.data.column_bitsets()
            self._column_bits = (bits, n_words if bits is not None else 0)
        return self._column_bits

    def _negations(self):
        """``{"negated": ..., "r_plain_end": ...}`` for the searches; empty without negated literals.

        The literal ``n_features - len(negated) + i`` is "NOT negated[i]"; a
        record's plain features end at ``r_plain_end`` in its sorted row.
        Both kernels (the memo's node builds, the plain search's scans)
        count each negated literal as the complement of its feature instead
        of scanning it on every record that holds it.
        """
        negated = getattr(self.data, "negated_features", None)
        if negated is None or negated.size == 0:
            return {}
        if self._plain_end is None:
            # A record's plain features come first in its sorted row.
            self._plain_end = (np.asarray(self.data.record_features.indptr[:-1], dtype=np.int64)
                               + plain_feature_counts(self.data))
        return {"negated": np.ascontiguousarray(negated, dtype=np.int32), "r_plain_end": self._plain_end}

    def release_caches(self):
        """Drop the search trees, the per-tail roles, the role rows and the seed-pair proposals.

        Memory only: they are rebuilt on use, and the searches give the same heads.
        """
        self._forget_memo()
        self._role_cache = {}
        self._roles_buffer = None
        if self._pair_sampler is not None:
            self._pair_sampler.release_caches()

    def _forget_memo(self):
        if self._memo is not None:
            self._memo.clear()
        self._roots = {}

    def _first_counts(self, roles):
        """Per tail slot and feature h: positives and negatives of D[{h}] (the plain kernel's first step)."""
        data = self.data
        negated = self._negations().get("negated")
        n_plain = data.n_features - (negated.size if negated is not None else 0)
        if self._plain_entries is None:
            # The plain entries only, from the plain features' posting lists: "NOT f" is counted
            # as the complement of f (a record holds nearly every negated literal).
            f_idx = data.feature_records
            self._plain_entries = (f_idx.ids[:f_idx.indptr[n_plain]],
                                     np.repeat(np.arange(n_plain, dtype=np.int64), np.diff(f_idx.indptr[:n_plain + 1])))
        records, features = self._plain_entries
        out = np.empty((2, roles.shape[0], data.n_features), dtype=np.int32)
        for t in range(roles.shape[0]):
            entry_role = roles[t][records]
            for k, role in enumerate((1, 2)):
                out[k, t, :n_plain] = np.bincount(features[entry_role == role], minlength=n_plain)
                if negated is not None:
                    out[k, t, n_plain:] = np.count_nonzero(roles[t] == role) - out[k, t, negated]
        return out

    # -- per tail ------------------------------------------------------------
    def _cached_roles(self, tail, covered):
        """``(positives, zeros, key)`` of :meth:`roles`, kept per tail while the selected rules do not change it.

        ``positives`` are D_T^+ (role 1, or 0 when not counted), ``zeros`` those
        of role 0, and ``key`` identifies the roles: tails whose records have
        the same roles (the same positive records) have the same searches,
        and share a search tree.  The role vector itself (a byte per record)
        is not kept: it is written from the two lists when needed.
        """
        key = tuple(tail)
        hit = self._role_cache.get(key)
        if hit is None:
            positives, zeros = self._role_lists(tail, covered)
            # Role 1 or 0 exactly on ``positives``, 0 exactly on ``zeros``: the roles, bijectively.
            hit = positives, zeros, (positives.tobytes(), zeros.tobytes())
            if len(self._role_cache) > 4096:
                self._role_cache.clear()
            self._role_cache[key] = hit
        return hit

    def _role_rows(self, indptr, ids):
        """Role rows, C-contiguous, one per list of the CSR ``indptr``, ``ids`` (sorted record
        lists): 1 on the list's records, 2 (negative) on the others.

        Rows of a buffer kept between calls (grown when needed): its pages
        are written, not fresh, at every call after the first.
        """
        n, n_rows = self.data.n_records, indptr.shape[0] - 1
        buffer = getattr(self, "_roles_buffer", None)
        if buffer is None or buffer.shape[0] < n_rows:
            buffer = self._roles_buffer = np.empty((max(n_rows, 1), n), dtype=np.uint8)
        rows = buffer[:n_rows]
        _csr_rows.fill_role_rows(rows, indptr, ids)
        return rows

    def _role_lists(self, tail, covered):
        """``(positives, zeros)``: D_T^+ and its records of role 0 (see :meth:`roles`), sorted int arrays."""
        data = self.data
        tail = check_ids(tail, data.n_labels, "tail", allow_empty=False)
        positives = data.tail_support(tail)
        if self.uncovered and covered is not None:
            zeros = positives[self._uncovered_counts(positives, tail, covered) == 0]
        else:
            zeros = positives[:0]
        return positives, zeros

    def roles(self, tail, covered=None):
        """Role per record for ``tail``: 1 positive (counted), 2 negative, 0 not counted."""
        positives, zeros = self._role_lists(tail, covered)
        role = np.full(self.data.n_records, 2, dtype=np.uint8)
        role[positives] = 1
        role[zeros] = 0
        return role, positives

    def _uncovered_counts(self, positives, tail, covered):
        """|T ∩ U_D| for each positive record D (U_D: its uncovered labels), vectorised over Y's CSR."""
        data = self.data
        if self._occurrence_rows is None:
            self._occurrence_rows = np.repeat(np.arange(data.n_records, dtype=np.int64),
                                              np.diff(data.record_labels.indptr))
        in_tail = np.isin(data.record_labels.ids, tail) & ~covered
        counts = np.bincount(self._occurrence_rows[in_tail], minlength=data.n_records)
        return counts[positives]

    def _candidates(self, positives, positive_record, negative_record):
        data = self.data
        if positive_record is None:
            X = data.X
            starts, stops = X.indptr[positives], X.indptr[positives + 1]
            rows = [X.indices[a:b] for a, b in zip(starts, stops)]
            return np.unique(np.concatenate(rows)).astype(np.int32) if rows else np.empty(0, np.int32)
        cand = np.asarray(data.record_features[positive_record], dtype=np.int32)
        if self.candidates == "difference" and negative_record is not None:
            cand = np.setdiff1d(cand, data.record_features[negative_record], assume_unique=True).astype(np.int32)
        return cand

    def _search(self, cand, role, n_positive):
        if cand.size == 0:
            return None
        idx = self.data.feature_records
        max_length = -1 if self.max_head_length is None else self.max_head_length
        head, _, _ = _gh.greedy_head_search(idx.indptr, idx.ids, cand, role, n_positive, self.gamma,
                                            self.epsilon, self.normalise, self.min_head_length, max_length)
        return tuple(sorted(int(h) for h in head)) if head.size else None

    def search(self, tail, positive_record=None, negative_record=None, *, covered=None):
        """One run of Algorithm 5 from the given seed pair; the head as a sorted tuple.

        With ``positive_record=None`` the deterministic input is used (every
        feature of every positive record).  ``negative_record=None`` means no
        D− (F' = F_{D+}).  Returns ``None`` when there is no head (see the
        module docstring).
        """
        for record, name in ((positive_record, "positive_record"), (negative_record, "negative_record")):
            if record is not None and check_positive_int(record, name, minimum=0) >= self.data.n_records:
                raise ValueError(f"{name} must be a record id in [0, {self.data.n_records}); got {record}")
        role, positives = self.roles(tail, covered)
        if positive_record is None and positives.size == 0:
            return None
        return self._search(self._candidates(positives, positive_record, negative_record), role, positives.size)

    def draw_pairs(self, tail, n, random_state=None, covered=None):
        """``n`` seed pairs (D+, D−) for ``tail`` by the ``seed`` distribution.

        Returns two lists of record ids (``None`` entries: no record).
        """
        pos, neg = self._pair_arrays(tail, n, check_seed(random_state), covered)
        return ([None if p < 0 else p for p in pos.tolist()], [None if q < 0 else q for q in neg.tolist()])

    def _pair_arrays(self, tail, n, rng, covered):
        """:meth:`draw_pairs` as two int32 arrays, -1 for "no record" (the same draws)."""
        data = self.data
        if self.seed == "deterministic":
            return np.full(n, -1, dtype=np.int32), np.full(n, -1, dtype=np.int32)
        if self.seed == "paper":
            pos, neg = self._pair_sampler.sample_pairs(tail, n, rng)
            return pos.astype(np.int32, copy=False), neg.astype(np.int32, copy=False)
        tail = check_ids(tail, data.n_labels, "tail", allow_empty=False)
        positives = data.tail_support(tail)
        if positives.size == 0:
            raise ValueError(f"tail {tuple(tail.tolist())} has no positive record")
        negatives = np.setdiff1d(np.arange(data.n_records, dtype=np.int32), positives, assume_unique=True)
        if self.seed == "uncovered" and covered is not None:
            weights = self._uncovered_counts(positives, tail, covered).astype(np.float64)
        else:
            weights = None
        if weights is None or weights.sum() == 0:
            pos = positives[rng.randint(positives.size, size=n)]
        else:
            pos = positives[rng.choice(positives.size, size=n, p=weights / weights.sum())]
        neg = negatives[rng.randint(negatives.size, size=n)] if negatives.size else np.full(n, -1)
        return pos.astype(np.int32, copy=False), neg.astype(np.int32, copy=False)

    def sample(self, tail, n, random_state=None):
        """Up to ``n`` heads for ``tail``: one search per seed pair (draws with no head are dropped).

        Raises the sampling error of the seed pairs, if any (see :meth:`sample_many`).
        """
        (heads,), (error,) = self.sample_many([tail], n, random_state)
        if error is not None:
            raise error
        return heads

    def sample_many(self, tails, n, random_state=None, n_threads=1):
        """Up to ``n`` heads for each tail of ``tails``, all searches in one compiled call.

        The seed pairs are drawn tail by tail from ``random_state`` (as
        :meth:`sample` would), then every search runs in
        :func:`corset._ext._gh.greedy_heads`, on ``n_threads`` threads.  The
        searches are deterministic given the pairs, so the heads do not
        depend on ``n_threads``.

        Returns
        -------
        heads : list of list of tuple
            For each tail, its heads (draws with no head dropped).
        errors : list of (SamplingError or None)
            For each tail, the sampling error its seed pairs raised (e.g.
            :class:`~corset.sampling.NoNegativeRecordsError` with
            ``seed="paper"``), in which case it has no head.
        """
        (indptr, ids), jobs, errors = self._run_searches(tails, n, random_state, n_threads)
        ids_list = ids.tolist()
        bounds = indptr.tolist()
        out = []
        for first, error in zip(jobs, errors):
            if error is not None:
                out.append([])
                continue
            heads = (tuple(ids_list[bounds[j]:bounds[j + 1]]) for j in range(first, first + n))
            out.append([h for h in heads if h])
        return out, errors

    def sample_pool(self, tails, n, random_state=None, n_threads=1):
        """:meth:`sample_many` as a candidate pool in CSR arrays.

        The same searches and heads as :meth:`sample_many` (which builds
        tuples from the same searches), with no Python object per head.

        Returns
        -------
        pool : CandidatePool
            The rules (head, tail): for each tail of ``tails`` in order, its
            non-empty heads in draw order.
        errors : list of (SamplingError or None)
            As in :meth:`sample_many`.
        """
        # The pool's tails are these tuples: each one canonical (checked, or made so).
        n_labels = self.data.n_labels
        tails = [t if type(t) is tuple and t and _is_canonical(t, n_labels) else tuple(check_tail(t, self.data).tolist())
                 for t in tails]
        (indptr, ids), first_job, errors = self._run_searches(tails, n, random_state, n_threads, canonical=True)
        tail_indptr = np.fromiter(accumulate(map(len, tails), initial=0), dtype=np.int64, count=len(tails) + 1)
        tail_ids = np.fromiter(chain.from_iterable(tails), dtype=np.int32, count=int(tail_indptr[-1]))
        # Every tail's jobs lie inside the searches' output (pool_from_jobs reads them unchecked).
        last = max(first_job, default=-1)
        if last >= 0 and last + n > indptr.size - 1:
            raise RuntimeError("GreedyHeadSearch: a tail's searches lie outside the kernel's output")
        arrays = _csr_rows.pool_from_jobs(indptr, ids, np.array(first_job, dtype=np.int64), n, tail_indptr, tail_ids)
        data = self.data
        # Every tail was checked before its search (by the seed-pair sampler or
        # _cached_roles), and every head is a search's output: sorted, distinct
        # feature ids of this data.
        return CandidatePool._from_search(*arrays, n_features=data.n_features, n_labels=data.n_labels), errors

    def _run_searches(self, tails, n, random_state, n_threads, canonical=False):
        """Draw the seed pairs and run every search: ((indptr, ids) per job, first job per tail, errors).

        Jobs are grouped by distinct tail; occurrence k of a tail owns the
        n jobs from ``first job`` on (-1 for a tail whose pairs failed); the
        first jobs and the errors are lists, one entry per tail.
        ``canonical``: every tail is a canonical tuple (checked by the caller).
        """
        rng = check_seed(random_state)
        data = self.data
        covered = self._covered
        n_threads = _thread_count(n_threads)
        n = check_positive_int(n, "n", minimum=0)   # n=True or 2.0 were taken, n=-2 failed in numpy
        # A tuple is checked by the seed-pair sampler (or _cached_roles); anything else here, as the
        # other head methods check it (int() would read "01" as (0, 1) and [1.9] as (1,)).
        tails = [t if type(t) is tuple else tuple(check_tail(t, data).tolist()) for t in tails]
        # A tail drawn several times (frequent in small label spaces) is set up
        # once and gets all its seed pairs in one draw: n per occurrence.
        occurrences = Counter(tails)
        distinct = list(occurrences)
        tail_errors = [None] * len(distinct)
        no_pairs = (np.empty(0, dtype=np.int32),) * 2
        if self.seed == "paper":
            # Every tail's CFTP/rejection pairs in one compiled call (the same draws), tail after tail.
            (job_counts, job_pos, job_neg), tail_errors = self._pair_sampler.sample_pairs_many(
                distinct, [n * occurrences[t] for t in distinct], rng,
                _canonical=canonical and type(n) is int and n >= 0, _flat=True)
        else:
            pairs = []
            for i, tail in enumerate(distinct):
                try:
                    pairs.append(self._pair_arrays(tail, n * occurrences[tail], rng, covered))
                except SamplingError as exc:
                    tail_errors[i] = exc
                    pairs.append(no_pairs)
            job_counts = [pos.size for pos, _ in pairs]
            job_pos = np.concatenate([pos for pos, _ in pairs]) if pairs else no_pairs[0]
            job_neg = np.concatenate([neg for _, neg in pairs]) if pairs else no_pairs[1]
        # Tails with the same roles share one search tree and one slot of the
        # kernel (their searches are the same): slots are the distinct roles.
        cached = [self._cached_roles(tail, covered) for tail in distinct]
        by_key = {}   # roles key -> (positives, zeros), in order of first appearance
        for positives, zeros, key in cached:
            by_key.setdefault(key, (positives, zeros))
        slot_keys = list(by_key)
        slot_cached = list(by_key.values())
        slot_of_key = {key: i for i, key in enumerate(slot_keys)}
        tail_slot = [slot_of_key[key] for _, _, key in cached]
        sizes = [positives.size for positives, _ in slot_cached]
        n_positive = np.array(sizes, dtype=np.int64)
        # The same records as a CSR (role 1 or 0: D_T^+): the memo builds roots and role bitsets from it.
        slot_indptr = np.fromiter(accumulate(sizes, initial=0), dtype=np.int64, count=len(sizes) + 1)
        slot_ids = (np.concatenate([positives for positives, _ in slot_cached]).astype(np.int32, copy=False)
                    if slot_cached else np.empty(0, dtype=np.int32))
        roles = self._role_rows(slot_indptr, slot_ids)
        if self.uncovered:   # records of role 0 (only then are there any)
            for row, (_, zeros) in zip(roles, slot_cached):
                row[zeros] = 0
        if self.seed == "deterministic":
            cand_parts = [self._candidates(positives, None, None) for positives, _ in slot_cached]
            cand_indptr = np.zeros(len(slot_cached) + 1, dtype=np.int64)
            cand_indptr[1:] = np.cumsum([c.size for c in cand_parts])
            cand_ids = np.concatenate(cand_parts).astype(np.int32) if cand_parts else np.empty(0, np.int32)
        else:
            cand_indptr = np.zeros(len(slot_cached) + 1, dtype=np.int64)
            cand_ids = np.empty(0, dtype=np.int32)
        # Jobs in distinct-tail order; each job searches in its tail's slot.
        job_tail = np.repeat(np.asarray(tail_slot, dtype=np.int32), job_counts)
        f_idx, r_idx = data.feature_records, data.record_features
        jobs = (job_tail, job_pos.astype(np.int32, copy=False), job_neg.astype(np.int32, copy=False))
        max_length = -1 if self.max_head_length is None else self.max_head_length
        start = time.perf_counter()
        if self._memo is not None:
            roots = np.asarray([self._roots.get(key, -1) for key in slot_keys], dtype=np.int32)
            try:
                indptr, ids = _gh_memo.greedy_heads_memo(
                    self._memo, f_idx.indptr, f_idx.ids, r_idx.indptr, r_idx.ids, cand_indptr, cand_ids, roles,
                    n_positive, roots, *jobs, self.epsilon, self.candidates == "difference",
                    self.min_head_length, max_length, int(n_threads), *self._record_bits(),
                    *self._feature_bits(), **self._negations(), slot_indptr=slot_indptr, slot_ids=slot_ids)
            except MemoryError:
                self._forget_memo()  # a half-added node leaves the memo inconsistent
                raise
            self._roots.update(zip(slot_keys, roots.tolist()))
            if self._memo.n_entries > self.memo_max_entries:
                self._forget_memo()
        else:
            first_counts = self._first_counts(roles)
            indptr, ids = _gh.greedy_heads(
                f_idx.indptr, f_idx.ids, r_idx.indptr, r_idx.ids, cand_indptr, cand_ids, roles, n_positive,
                first_counts, *jobs, self.gamma, self.epsilon, self.normalise,
                self.candidates == "difference", self.min_head_length, max_length, int(n_threads),
                **self._negations())
        # The compiled searches' wall time (their seed pairs and set-up excluded), which
        # CandidateGenerator reads to decide whether the next pool's searches get threads.
        self.search_seconds_ = time.perf_counter() - start
        # Jobs are grouped by tail slot, in slot order: slot i starts after all earlier slots' jobs;
        # occurrence k of a tail takes the slot's n jobs from starts[i] + k·n on.
        next_job = list(accumulate(job_counts, initial=0))
        if len(distinct) == len(tails):   # no tail drawn twice: the tails are the distinct ones, in order
            return (indptr, ids), [-1 if e is not None else j for j, e in zip(next_job, tail_errors)], list(tail_errors)
        slot = {t: i for i, t in enumerate(distinct)}
        first = []
        errors = []
        for tail in tails:
            i = slot[tail]
            error = tail_errors[i]
            errors.append(error)
            first.append(-1 if error is not None else next_job[i])
            next_job[i] += n
        return (indptr, ids), first, errors
