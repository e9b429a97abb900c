"""Synthetic multi-label data generated from known rules (the paper's generator).

Section "Experimental Evaluation" of the paper ("Datasets", synthetic data):
start from all-zero feature and label matrices; for each generating rule,
sample its support and set the rule's attributes and labels to 1 over it;
then flip a share ``noise`` of the entries.  All generating rules have the
same number of attributes and labels, and there are
``floor(min(|F|, |L|) / 3)`` of them unless stated.  The ground-truth rules
and their supports are returned with the data, so that a learner's rules
can be compared with them.

Everything is vectorised over records (a Python loop runs only over rules):
a mediamill-sized set (43,907 records, 120 features, 101 labels) takes well
under a second.
"""
import math
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.random import sample_without_replacement

from .._ext._typedefs import INDEX_DTYPE
from .._validation import check_positive_int
from ._arff import _binary_csr

_SUPPORTS = ("uniform", "skewed")


def make_rule_data(n_records=1000, n_features=100, n_labels=100, n_rules=None, rule_length=3,
                   support="uniform", noise=0.01, random_state=None):
    """Generate binary features and labels from known generating rules.

    Parameters
    ----------
    n_records : int, default=1000
        Number of records (rows of X and Y).
    n_features : int, default=100
        Number of binary features ``|F|``.
    n_labels : int, default=100
        Number of labels ``|L|``.
    n_rules : int, optional
        Number of generating rules.  Default ``floor(min(|F|, |L|) / 3)``,
        the paper's choice (it uses 10 when varying the noise).
    rule_length : int, default=3
        Number of attributes, and also of labels, of every rule (the paper's
        rules have as many attributes as labels).
    support : {"uniform", "skewed"}, default="uniform"
        How large each rule's support is.  ``"uniform"``: each rule covers a
        share of the records drawn uniformly from
        ``[0.5 / n_rules, 1.5 / n_rules]`` (shares average ``1 / n_rules``).
        ``"skewed"``: the shares follow a power law (Zipf, exponent 1): the
        rules are ranked in random order, and the rule of rank ``k`` covers a
        share ``(1 / k) / H(n_rules)`` of the records, ``H`` the harmonic
        number, so that a few rules cover a large portion of the data (with
        33 rules the top 3 have 45 % of all rule occurrences).  In both cases
        the shares sum to 1 on average (a record is in one rule's support on
        average), a share is capped at 1, the support size is
        ``max(1, round(share * n_records))``, and the support is a uniformly
        random set of records of that size, drawn independently for each
        rule (supports may overlap).
    noise : float, default=0.01
        Share of flipped entries, in [0, 1]: exactly
        ``round(noise * n_records * n_features)`` distinct entries of X,
        chosen uniformly at random, are flipped (0 <-> 1), and independently
        ``round(noise * n_records * n_labels)`` entries of Y.
    random_state : int, RandomState instance or None, default=None
        Seed, resolved once with :func:`sklearn.utils.check_random_state`.
        The noise is drawn last, so the same seed with ``noise=0`` gives the
        data before flipping.

    Returns
    -------
    data : sklearn.utils.Bunch
        With fields

        X : scipy.sparse.csr_array of uint8
            Shape (n_records, n_features).
        Y : scipy.sparse.csr_array of uint8
            Shape (n_records, n_labels).
        rules : list of (head, tail)
            The generating rules: sorted tuples of feature ids and of label
            ids, ``rule_length`` of each.
        supports : list of ndarray of int32
            The sorted record ids over which each rule was planted.
        feature_names, label_names : list of str
            ``f0, f1, ...`` and ``l0, l1, ...``.

    Raises
    ------
    TypeError, ValueError
        For a parameter of the wrong type or out of range; the message names it.

    Notes
    -----
    Where the rules' items come from: when ``n_rules * rule_length`` does
    not exceed ``n_features``, the heads are disjoint blocks of a random
    permutation of the features; then a record has a rule's whole head
    exactly when it is in the rule's support, and on noiseless data every
    rule has precision 1.  Otherwise each head is ``rule_length`` features
    drawn uniformly without replacement, independently of the other rules,
    redrawn until it differs from every earlier head; heads then share
    features, and a record can hold a head through other rules' supports, so
    precision on noiseless data may fall below 1.  Tails are drawn the same
    way from the labels (disjoint blocks when ``n_rules * rule_length <=
    n_labels``, else independent draws, which may repeat a tail).
    """
    n_records = check_positive_int(n_records, "n_records")
    n_features = check_positive_int(n_features, "n_features")
    n_labels = check_positive_int(n_labels, "n_labels")
    if n_rules is None:
        n_rules = min(n_features, n_labels) // 3
        if n_rules == 0:
            raise ValueError(
                f"n_rules defaults to floor(min(n_features, n_labels) / 3), which is 0 for "
                f"n_features={n_features}, n_labels={n_labels}; pass n_rules explicitly"
            )
    else:
        n_rules = check_positive_int(n_rules, "n_rules")
    rule_length = check_positive_int(rule_length, "rule_length")
    if rule_length > min(n_features, n_labels):
        raise ValueError(
            f"rule_length must be at most min(n_features, n_labels) = {min(n_features, n_labels)}; got {rule_length}"
        )
    if math.comb(n_features, rule_length) < n_rules:
        raise ValueError(
            f"n_rules={n_rules} distinct heads of rule_length={rule_length} features do not exist among "
            f"n_features={n_features} features"
        )
    if support not in _SUPPORTS:
        raise ValueError(f"support must be one of {', '.join(repr(s) for s in _SUPPORTS)}; got {support!r}")
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real) or not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise must be a share of flipped entries in [0, 1]; got {noise!r}")
    rng = check_random_state(random_state)

    heads = _draw_items(rng, n_features, n_rules, rule_length, distinct=True)
    tails = _draw_items(rng, n_labels, n_rules, rule_length, distinct=False)
    sizes = _support_sizes(rng, n_records, n_rules, support)
    supports = [np.sort(sample_without_replacement(n_records, int(size), random_state=rng)).astype(INDEX_DTYPE)
                for size in sizes]

    # Entries as linear ids (record * n_columns + column): planting is a
    # union, flipping a symmetric difference, and the sorted result is CSR.
    X_clean = _planted(supports, heads, n_features)
    Y_clean = _planted(supports, tails, n_labels)
    X = _to_csr(_flip(rng, X_clean, n_records * n_features, noise), n_records, n_features)
    Y = _to_csr(_flip(rng, Y_clean, n_records * n_labels, noise), n_records, n_labels)

    return Bunch(
        X=X,
        Y=Y,
        rules=[(tuple(int(f) for f in h), tuple(int(l) for l in t)) for h, t in zip(heads, tails)],
        supports=supports,
        feature_names=[f"f{j}" for j in range(n_features)],
        label_names=[f"l{k}" for k in range(n_labels)],
    )


def _draw_items(rng, n_items, n_rules, rule_length, distinct):
    """Each rule's ``rule_length`` items: disjoint when they fit, else independent draws (see Notes above)."""
    if n_rules * rule_length <= n_items:
        blocks = rng.permutation(n_items)[: n_rules * rule_length].reshape(n_rules, rule_length)
        return [np.sort(block) for block in blocks]
    items, seen = [], set()
    while len(items) < n_rules:
        block = np.sort(sample_without_replacement(n_items, rule_length, random_state=rng))
        key = tuple(block.tolist())
        if distinct and key in seen:
            continue
        seen.add(key)
        items.append(block)
    return items


def _support_sizes(rng, n_records, n_rules, support):
    if support == "uniform":
        shares = rng.uniform(0.5, 1.5, size=n_rules) / n_rules
    else:
        ranks = rng.permutation(n_rules) + 1
        shares = (1.0 / ranks) / np.sum(1.0 / np.arange(1, n_rules + 1))
    shares = np.minimum(shares, 1.0)
    return np.maximum(1, np.floor(shares * n_records + 0.5).astype(np.int64))


def _planted(supports, items, n_columns):
    """Sorted unique linear ids of the entries set to 1 by the rules."""
    parts = [(s.astype(np.int64)[:, None] * n_columns + it[None, :]).ravel() for s, it in zip(supports, items)]
    return _sorted_unique(np.concatenate(parts)) if parts else np.empty(0, dtype=np.int64)


def _sorted_unique(ids):
    """``np.unique(ids)`` by one sort: NumPy 2.3 and later hash integers in ``np.unique``, which
    on the tens of millions of planted entries of a large set is several times slower."""
    ids = np.sort(ids)
    first = np.empty(ids.size, dtype=bool)
    first[:1] = True
    np.not_equal(ids[1:], ids[:-1], out=first[1:])
    return ids[first]


def _flip(rng, entries, n_entries, noise):
    n_flips = int(math.floor(noise * n_entries + 0.5))
    if n_flips == 0:
        return entries
    return np.setxor1d(entries, _sample_ids(rng, n_entries, n_flips), assume_unique=True)


def _sample_ids(rng, n_population, n_samples):
    """``n_samples`` distinct ids drawn uniformly from ``[0, n_population)``.

    For a small share, the first ``n_samples`` distinct values of a stream of
    independent uniform draws: a uniformly random subset, at O(n_samples log
    n_samples) instead of the O(n_population) permutation that
    ``sample_without_replacement`` uses near a 1 % share.
    """
    if 4 * n_samples > n_population:
        return sample_without_replacement(n_population, n_samples, random_state=rng).astype(np.int64)
    chosen = np.empty(0, dtype=np.int64)
    while chosen.size < n_samples:
        need = n_samples - chosen.size
        draws = rng.randint(0, n_population, size=need + need // 8 + 16, dtype=np.int64)
        _, first = np.unique(draws, return_index=True)
        fresh = draws[np.sort(first)]  # first occurrences, in draw order
        fresh = fresh[~np.isin(fresh, chosen)]
        chosen = np.concatenate([chosen, fresh[:need]])
    return chosen


def _to_csr(linear, n_rows, n_columns):
    rows = linear // n_columns
    cols = (linear - rows * n_columns).astype(INDEX_DTYPE)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    M = sp.csr_array((np.ones(linear.size, dtype=np.uint8), cols, indptr), shape=(n_rows, n_columns))
    return _binary_csr(M, "generated matrix")
