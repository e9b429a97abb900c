"""Exact diagnostics of head sampling: the expected number of proposals Z̄/Z.

With a proposal w̄ that bounds the target w, the first accepted proposal of
Algorithm 3 (or of plain rejection sampling) is accepted with probability
Z / Z̄ per proposal, where Z = sum over pairs of w and Z̄ = sum over pairs of
w̄, so the expected number of proposals per sample is Z̄ / Z.  Both sums are
taken here over every pair (D+, D-) in log space (correction 12): the pairwise
feature overlaps come from one sparse product, the sums from log-sum-exp.

This is an enumeration, quadratic in the number of records: a diagnostic
for benchmarks and tests, never called by the samplers.
"""
import numpy as np
from scipy.special import logsumexp

from ._common import check_data, check_tail, plain_feature_counts
from ._errors import NoNegativeRecordsError
from ._head_exact import PROPOSALS, check_head_lengths
from ._weights import head_counts, log_head_count_steps, log_head_counts, log_of


def log_pair_weights(data, tail, *, min_head_length=1, max_head_length=None, chunk=512):
    """log w(D+, D-) for every pair: an array of shape (|D_T^+|, |D_T^-|), -inf for weight 0.

    Returns ``(positives, negatives, log_w)`` (record ids and the matrix).
    """
    data = check_data(data)
    tail = check_tail(tail, data)
    m, M = check_head_lengths(min_head_length, max_head_length)
    positives = data.tail_support(tail)
    mask = np.ones(data.n_records, dtype=bool)
    mask[positives] = False
    negatives = np.flatnonzero(mask)
    log_W = log_head_counts(data.n_features, m, M)
    a = np.asarray(data.record_n_features)[positives]
    X = data.X.astype(np.int32)
    Xn_T = X[negatives].T.tocsc()
    out = np.empty((positives.size, negatives.size), dtype=np.float64)
    for start in range(0, positives.size, chunk):
        stop = min(start + chunk, positives.size)
        k = (X[positives[start:stop]] @ Xn_T).toarray()
        la = log_W[a[start:stop]][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            lw = la + np.log1p(-np.exp(log_W[k] - la))
        lw[k >= a[start:stop][:, None]] = -np.inf
        lw[~np.isfinite(la[:, 0])] = -np.inf
        out[start:stop] = lw
    return positives, negatives, out


def log_proposal_ratio(data, tail, *, proposal="paper", min_head_length=1, max_head_length=None):
    """log(Z̄ / Z) for ``tail``: the log of the expected number of proposals per head.

    Parameters
    ----------
    data : BinaryData
    tail : sequence of int
    proposal : {"paper", "boley", "plain"}
        The proposal of :class:`~corset.sampling.HeadSampler`.
    min_head_length, max_head_length : int, int or None

    Returns
    -------
    float
        Natural log of Z̄/Z (``inf`` when Z = 0).  Divide by ``log(10)`` for
        decimal digits.

    Raises
    ------
    NoNegativeRecordsError
        If the tail has no negative record.
    """
    if proposal not in PROPOSALS:
        raise ValueError(f"proposal must be one of {PROPOSALS}; got {proposal!r}")
    positives, negatives, lw = log_pair_weights(data, tail, min_head_length=min_head_length,
                                                max_head_length=max_head_length)
    if negatives.size == 0:
        raise NoNegativeRecordsError(f"tail {tuple(tail)} has no negative record")
    if positives.size == 0:
        raise ValueError(f"tail {tuple(tail)} has no positive record")
    log_Z = logsumexp(lw) if np.isfinite(lw).any() else -np.inf
    m, M = check_head_lengths(min_head_length, max_head_length)
    log_W = log_head_counts(data.n_features, m, M)
    a = np.asarray(data.record_n_features)[positives]
    log_w1 = log_W[a]
    if proposal == "paper":
        log_Zbar = np.log(negatives.size) + logsumexp(log_w1)
    elif proposal == "plain":
        # Z̄ = Σ_{D+} (W_a - W_{a-1}) (|D_T^-| |P+| + Σ_{D-} |P-|).
        plain = plain_feature_counts(data).astype(np.float64)
        with np.errstate(divide="ignore"):
            log_mass = np.log(negatives.size * plain[positives] + plain[negatives].sum())
        log_Zbar = logsumexp(log_head_count_steps(log_W, a) + log_mass)
    else:
        W = head_counts(data.n_features, m, M)
        b = np.asarray(data.record_n_features)[negatives]
        log_w2 = np.array([log_of(W[data.n_features] - W[int(v)]) for v in b])
        log_Zbar = logsumexp(0.5 * log_w1) + logsumexp(0.5 * log_w2)
    if log_Z == -np.inf:   # Z = 0 (whatever Z̄, even 0): no pair is ever accepted
        return float("inf")
    return float(log_Zbar - log_Z)
