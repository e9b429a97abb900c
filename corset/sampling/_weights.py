"""Log-space weights of the samplers, computed from exact integers.

The weights of section samp grow like 2^|L_D| and 2^|F_D| (and Boley et al.'s
like 2^|F|); their products overflow a double (correction 12).
Here every count is an exact Python integer until its logarithm is taken,
and records are handed to the kernels as weights scaled by a common factor
(``scale_log_weights``), so no kernel ever sees an infinity or a NaN.

Nothing here draws random numbers.
"""
import functools
import math

import numpy as np


def scale_log_weights(log_weights):
    """Weights exp(log_w - max log_w) and the shift max log_w.

    Parameters
    ----------
    log_weights : array-like of float
        Natural logs of non-negative weights; ``-inf`` for a zero weight.
        No entry may be ``+inf`` or NaN.

    Returns
    -------
    weights : ndarray of float64
        In [0, 1], the largest exactly 1.  A weight below ``exp(-745)`` times
        the largest becomes 0: its probability, under 2^-1074 per record, is
        below the 2^-53 resolution of any draw (module ``_weighted``).
    shift : float
        ``max(log_weights)``, or ``-inf`` when every weight is 0.
    """
    lw = np.asarray(log_weights, dtype=np.float64)
    if lw.size and (np.isnan(lw).any() or np.isposinf(lw).any()):
        raise ValueError("log-weights must be finite or -inf (weight 0)")
    if lw.size == 0 or not np.isfinite(lw).any():
        return np.zeros(lw.shape, dtype=np.float64), -np.inf
    shift = float(lw[np.isfinite(lw)].max())
    with np.errstate(under="ignore"):
        weights = np.exp(lw - shift)
    return weights, shift


@functools.lru_cache(maxsize=64)
def head_counts(n_max, min_length, max_length):
    """Exact W_n = sum_{j=m..M} C(n, j) for n = 0..n_max (a tuple of ints).

    W_n counts the heads of allowed length inside a set of n features
    (correction 9).  ``max_length=None`` means no maximum.  Uses
    S(n+1, J) = 2 S(n, J) - C(n, J) for S(n, J) = sum_{j<=J} C(n, j), so the
    table costs O(n_max) big-integer operations.
    """
    m = max(int(min_length), 1)
    upper = _partial_binomial_sums(n_max, n_max if max_length is None else int(max_length))
    lower = _partial_binomial_sums(n_max, m - 1)
    return tuple(u - l for u, l in zip(upper, lower))


def _partial_binomial_sums(n_max, J):
    """S(n, J) = sum_{j=0..J} C(n, j) for n = 0..n_max, exact."""
    if J < 0:
        return [0] * (n_max + 1)
    out = []
    s = 1          # S(0, J) = 1 for J >= 0
    c = 1 if J == 0 else 0   # C(0, J)
    for n in range(n_max + 1):
        out.append(s)
        # Advance to n + 1: S(n+1, J) = 2 S(n, J) - C(n, J); C(n+1, J) from C(n, J).
        s = 2 * s - c
        if n + 1 == J:
            c = 1
        elif n + 1 > J:
            c = c * (n + 1) // (n + 1 - J)
    return out


def log_of(value):
    """Natural log of a non-negative Python int (-inf for 0), within an ulp or two."""
    return math.log(value) if value > 0 else -math.inf


@functools.lru_cache(maxsize=64)
def log_head_counts(n_max, min_length, max_length):
    """``log W_n`` for n = 0..n_max as a read-only float64 array (-inf where W_n = 0)."""
    out = np.array([log_of(w) for w in head_counts(n_max, min_length, max_length)], dtype=np.float64)
    out.flags.writeable = False
    return out


def log_head_count_steps(log_w, a):
    """log(W_a - W_{a-1}) for each size in ``a``, from ``log_w`` (:func:`log_head_counts`):
    log W_a + log1p(-W_{a-1} / W_a); -inf where W_a = 0.  The factor of the "plain" pair
    proposal (the number of allowed heads holding one given feature of a set of a)."""
    a = np.asarray(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        below = np.where(a > 0, log_w[np.maximum(a - 1, 0)], -np.inf)
        return np.where(np.isfinite(log_w[a]), log_w[a] + np.log1p(-np.exp(below - log_w[a])), -np.inf)


@functools.lru_cache(maxsize=8)
def log_factorials(n_max):
    """``log n!`` for n = 0..n_max (float64, read-only), for the head draw of wide records."""
    out = np.array([math.lgamma(n + 1.0) for n in range(n_max + 1)], dtype=np.float64)
    out.flags.writeable = False
    return out
