"""CORSET-GH: heads found by greedy search from a sampled seed pair (Algorithm 5).

The search itself runs in :mod:`corset._ext._gh`.  This module chooses the
seed pair (D+, D−) that defines the candidate features, the role of every
record with respect to the tail (positive, negative, or not counted), and
turns the search's output into a sorted head.

Choices the paper leaves open (section enhanced_sampling, notes 14 and 15 of
PAPER-NOTES), each a documented parameter:

``candidates``
    ``"difference"`` (default): F' = F_{D+} \\ F_{D−}, as the pseudo-code of
    Algorithm 5 prints it; ``"positive"``: F' = F_{D+}.
``seed``
    How the pair (D+, D−) is drawn. ``"paper"``: by coupling from the past
    with probability ∝ w(D+, D−) (Algorithm 3), which note 15 shows is
    nearly fixed per tail (the widest positive record takes almost all the
    mass); ``"uniform"``: D+ uniform over the positive records; ``"uncovered"``:
    D+ ∝ the number of the tail's labels it carries that no selected rule
    covers yet; in both, D− is uniform over the negative records.
    ``"deterministic"``: no pair at all; F' is every feature of every
    positive record (the paper's "deterministic input" variant), so the
    search returns the same head for a tail every time.
``normalise``
    Divide each marginal gain by |D[{h}]| (the authors' default).
``uncovered``
    Count in phi only the positive records for which some label of the tail
    is not yet covered by the selected rules (the paper's "support not yet
    covered" variant); negatives always count.

A tail with no negative record: D− is taken as empty (F' = F_{D+}) and phi
reduces to the positive support, so the best prefix is a single feature of
largest positive support.  A seed pair with F_{D+} ⊆ F_{D−} has no candidate
feature: that draw yields no head (``None``).
"""
import numpy as np

from .._ext import _gh
from .._validation import check_ids

_SEEDS = ("paper", "uniform", "uncovered", "deterministic")
_CANDIDATES = ("difference", "positive")


def covered_occurrences(data, rules):
    """Flags over the label occurrences of ``data.Y`` covered by ``rules``.

    Occurrence (i, k) — position ``Y.indptr[i] + rank of k in L_i`` of the CSR
    — is covered when some rule H -> T matches record i (H ⊆ F_i, T ⊆ L_i)
    and k ∈ T: the D-specific coverage of eq. covD, over all records.
    """
    covered = np.zeros(data.n_label_occurrences, dtype=bool)
    indptr = data.record_labels.indptr
    ids = data.record_labels.ids
    for head, tail in rules:
        tail = np.asarray(tail, dtype=np.int64)
        for r in data.rule_support(head, tail):
            start, stop = indptr[r], indptr[r + 1]
            covered[start:stop] |= np.isin(ids[start:stop], tail)
    return covered


class GreedyHeadSearch:
    """Greedy head search (Algorithm 5) over a :class:`~corset.BinaryData`.

    Parameters
    ----------
    data : BinaryData
    gamma : float, default=0.5
        Weight of the negative support in phi (eq. modified-discriminativity), >= 0.
    epsilon : float, default=0.1
        Early stop once |D[H]| < epsilon · |D_T^+|, in [0, 1].
    candidates : {"difference", "positive"}, default="difference"
    seed : {"paper", "uniform", "uncovered", "deterministic"}, default="paper"
    normalise : bool, default=False
    uncovered : bool, default=False
    pair_sampler : callable, optional
        ``pair_sampler(tail, rng) -> (positive_record, negative_record)``, used
        for ``seed="paper"`` (the CFTP sampler of :mod:`corset.sampling`).
    """

    def __init__(self, data, *, gamma=0.5, epsilon=0.1, candidates="difference", seed="paper",
                 normalise=False, uncovered=False, pair_sampler=None):
        if not (np.isfinite(gamma) and gamma >= 0):
            raise ValueError(f"gamma must be a finite number >= 0; got {gamma!r}")
        if not (0.0 <= epsilon <= 1.0):
            raise ValueError(f"epsilon must be in [0, 1]; got {epsilon!r}")
        if candidates not in _CANDIDATES:
            raise ValueError(f"candidates must be one of {_CANDIDATES}; got {candidates!r}")
        if seed not in _SEEDS:
            raise ValueError(f"seed must be one of {_SEEDS}; got {seed!r}")
        if seed == "paper" and pair_sampler is None:
            raise ValueError("seed='paper' needs a pair_sampler (the CFTP sampler of Algorithm 3)")
        self.data = data
        self.gamma = float(gamma)
        self.epsilon = float(epsilon)
        self.candidates = candidates
        self.seed = seed
        self.normalise = bool(normalise)
        self.uncovered = bool(uncovered)
        self.pair_sampler = pair_sampler

    # -- per tail ------------------------------------------------------------
    def roles(self, tail, covered=None):
        """Role per record for ``tail``: 1 positive (counted), 2 negative, 0 not counted."""
        data = self.data
        tail = check_ids(tail, data.n_labels, "tail", allow_empty=False)
        positives = data.tail_support(tail)
        role = np.full(data.n_records, 2, dtype=np.uint8)
        role[positives] = 1
        if self.uncovered and covered is not None:
            role[positives[self._fully_covered(positives, tail, covered)]] = 0
        return role, positives

    def _uncovered_counts(self, positives, tail, covered):
        """|T ∩ U_D| for each positive record D (U_D: its uncovered labels)."""
        indptr = self.data.record_labels.indptr
        ids = self.data.record_labels.ids
        counts = np.empty(positives.size, dtype=np.int64)
        for j, r in enumerate(positives):
            start, stop = indptr[r], indptr[r + 1]
            counts[j] = np.count_nonzero(np.isin(ids[start:stop], tail) & ~covered[start:stop])
        return counts

    def _fully_covered(self, positives, tail, covered):
        return self._uncovered_counts(positives, tail, covered) == 0

    def search(self, tail, positive_record=None, negative_record=None, *, covered=None):
        """One run of Algorithm 5 from the given seed pair; the head as a sorted tuple.

        With ``positive_record=None`` the deterministic input is used (every
        feature of every positive record).  ``negative_record=None`` means no
        D− (F' = F_{D+}).  Returns ``None`` when F' is empty.
        """
        data = self.data
        role, positives = self.roles(tail, covered)
        if positive_record is None:
            if positives.size == 0:
                return None
            X = data.X
            cand = np.unique(X.indices[np.concatenate(
                [np.arange(X.indptr[r], X.indptr[r + 1]) for r in positives])]).astype(np.int32)
        else:
            cand = np.asarray(data.record_features[positive_record], dtype=np.int32)
            if self.candidates == "difference" and negative_record is not None:
                cand = np.setdiff1d(cand, data.record_features[negative_record], assume_unique=True
                                    ).astype(np.int32)
        if cand.size == 0:
            return None
        idx = data.feature_records
        head, _, _ = _gh.greedy_head_search(idx.indptr, idx.ids, cand, role, positives.size,
                                            self.gamma, self.epsilon, self.normalise)
        return tuple(sorted(int(h) for h in head))

    def draw_pair(self, tail, rng, covered=None):
        """Draw the seed pair (D+, D−) for ``tail`` by the ``seed`` distribution."""
        data = self.data
        if self.seed == "deterministic":
            return None, None
        if self.seed == "paper":
            return self.pair_sampler(tail, rng)
        positives = data.tail_support(tail)
        if positives.size == 0:
            raise ValueError(f"tail {tuple(tail)} has no positive record")
        negatives = np.setdiff1d(np.arange(data.n_records, dtype=np.int32), positives, assume_unique=True)
        if self.seed == "uniform":
            pos = int(positives[rng.randint(positives.size)])
        else:  # "uncovered"
            weights = (self._uncovered_counts(positives, tail, covered).astype(np.float64)
                       if covered is not None else np.full(positives.size, float(len(tail))))
            if weights.sum() == 0:
                pos = int(positives[rng.randint(positives.size)])
            else:
                pos = int(positives[rng.choice(positives.size, p=weights / weights.sum())])
        neg = int(negatives[rng.randint(negatives.size)]) if negatives.size else None
        return pos, neg

    def sample(self, tail, n, rng, *, rules=()):
        """``n`` heads for ``tail``, one search per seed pair; draws with no candidate are skipped."""
        covered = covered_occurrences(self.data, rules) if (rules and (self.uncovered or self.seed == "uncovered")) else None
        heads = []
        for _ in range(n):
            pos, neg = self.draw_pair(tail, rng, covered)
            head = self.search(tail, pos, neg, covered=covered)
            if head is not None:
                heads.append(head)
        return heads
