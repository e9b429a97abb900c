"""Binarization of raw features into the binary items CORSET's rules are made of.

CORSET's rules are conjunctions of binary features, so numeric and nominal
features must be binarized first.  :class:`PercentileBinarizer` follows the
paper's experimental protocol (section exp): a numeric feature becomes 1
above its 90th percentile computed on the training data, a nominal feature is
one-hot encoded.  It is a scikit-learn transformer: it validates its input
with :func:`sklearn.utils.validation.validate_data`, names its output columns
through ``get_feature_names_out`` and supports ``set_output``.

This module touches nothing but its input: no global state, no randomness.
"""
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._ext._cuts import cut_neighbours

__all__ = ["PercentileBinarizer"]

# How each input column is binarized (values of ``feature_kinds_``).
KIND_THRESHOLD = "threshold"
KIND_BINARY = "binary"
KIND_ONE_HOT = "one-hot"

# Columns are densified at most this many values at a time (32 MiB of
# float64), so that a large sparse matrix is never densified as a whole.
_BLOCK_VALUES = 1 << 22


def _format_threshold(t, digits=3):
    """Readable threshold: ``digits`` significant digits, but at least the integer part.

    ``0.3125 -> '0.312'``, ``3.0 -> '3'``, ``1234.5 -> '1234'``.  Exact
    thresholds are in ``thresholds_``; names are for people.  More ``digits``
    tell close thresholds of one feature apart (see :func:`_format_cuts`).
    """
    t = float(t)
    if t == 0.0:
        return "0"  # not "-0"
    if 1e3 <= abs(t) < 1e15:
        if digits <= 3:
            return f"{t:.0f}"
        return f"{t:.{max(digits, len(str(int(abs(t)))))}g}"
    return f"{t:.{digits}g}"


def _format_exact(t):
    """``t`` in the fewest digits that give it back exactly: ``2019.0 -> '2019'``, ``0.31213 -> '0.31213'``."""
    t = float(t)
    if t == 0.0:
        return "0"  # not "-0"
    text = repr(t)
    return text[:-2] if text.endswith(".0") else text


def _format_cuts(cuts):
    """Names of the distinct thresholds ``cuts`` of one feature, distinct from each other.

    Three significant digits, as :func:`_format_threshold`, unless two
    thresholds would then print alike (``0.3121`` and ``0.3124``): the
    feature's thresholds then all get the fewest digits that tell them apart.
    """
    for digits in range(3, 18):
        names = [_format_threshold(t, digits) for t in cuts]
        if len(set(names)) == len(names):
            return names
    return [repr(float(t)) for t in cuts]


def _format_value(v):
    """A nominal value for a feature name: ``3.0 -> '3'``, ``0.5 -> '0.5'``."""
    v = float(v)
    if v == int(v):
        return str(int(v))
    return repr(v)


def _column_blocks(X, cols):
    """Yield ``(block_cols, dense_block)`` covering columns ``cols`` of ``X``.

    ``X`` is a dense array or a canonical CSC matrix; only ``_BLOCK_VALUES``
    values are densified at a time.
    """
    n = X.shape[0]
    step = max(1, _BLOCK_VALUES // max(n, 1))
    for start in range(0, len(cols), step):
        block = np.asarray(cols[start:start + step])
        if sp.issparse(X):
            yield block, X[:, block].toarray()
        else:
            yield block, X[:, block]


def _neighbours(values, levels, compare, n_zeros=0):
    """``(below, above, holding)``: per threshold, the training values on either side of it, and how
    many values it holds on.

    ``values`` is a dense block ``(n, b)``; ``levels`` its columns' thresholds,
    ``(m, b)`` sorted along axis 0, or one per column ``(b,)``.  ``above`` is
    the least value for which ``compare(value, level)`` holds, ``below`` the
    greatest for which it does not (+inf / -inf when there is none), each of
    ``levels``' shape; ``holding`` counts the values ``compare`` holds on (the
    test of a constant threshold).  ``n_zeros``: each column also holds this
    many zeros that ``values`` leaves out (a sparse column's).  One compiled
    pass over the block (:func:`corset._ext._cuts.cut_neighbours`).
    """
    levels = np.asarray(levels, dtype=np.float64)
    flat = levels.ndim == 1
    found = cut_neighbours(np.asarray(values, dtype=np.float64), levels[None, :] if flat else levels,
                           compare is np.greater_equal, int(n_zeros))
    return tuple(a[0] for a in found) if flat else found


def _shown_cuts(levels, below, above, inclusive):
    """The number each threshold is printed as: the shortest decimal that splits the training values as it does.

    A threshold ``t`` of ``x > t`` (``x >= t`` with ``inclusive``) holds on the
    training values from ``above`` up and not on those up to ``below``
    (:func:`_neighbours`); any number ``c`` with ``below <= c < above``
    (``below < c <= above``) splits them alike.  The one with the fewest
    significant digits, and among those the nearest to ``t``, is printed, so
    that no training value reads differently in the rule's text than in the
    model (rounding ``2019.9`` to ``year>2020`` would say that the twelve
    records of 2020 do not satisfy a rule they fire; ``year>2019`` says what
    the model does on them).  The model keeps ``t``: only the text is
    chosen.  A threshold without a training value on either side (constant on
    the training data), or with no such number within 17 digits, is shown as
    itself.  Arrays of one shape, elementwise.

    Returns ``(shortest, edge)``; ``edge`` is the training value next to the
    cut on the side that reads alike (``below`` for ">", ``above`` for ">="),
    which dates print as (``d>2021-09-16``: from the 17th on, for daily
    dates), or the threshold itself where there is none.
    """
    levels = np.asarray(levels, dtype=np.float64)
    out = levels.copy()
    below, above = np.broadcast_to(below, levels.shape), np.broadcast_to(above, levels.shape)
    todo = np.isfinite(levels) & np.isfinite(below) & np.isfinite(above)
    edge = np.where(todo, above if inclusive else below, levels)
    if not todo.any():
        return out, edge
    t, lo, hi = levels[todo], below[todo], above[todo]
    result, left = t.copy(), np.ones(t.size, dtype=bool)
    with np.errstate(all="ignore"):
        top = np.floor(np.log10(np.maximum(np.maximum(np.abs(lo), np.abs(hi)), 1e-300))).astype(np.int64) + 1
        for shift in range(18):
            e = top - shift
            # c = k * 10^e, computed as k / 10^-e below 1 (3 / 10 is the float nearest 0.3; 3 * 0.1 is not).
            up, down = 10.0 ** np.maximum(e, 0), 10.0 ** np.maximum(-e, 0)
            scaled = lambda v: v / up * down   # noqa: E731
            if inclusive:
                k_min, k_max = np.floor(scaled(lo)) + 1, np.floor(scaled(hi))
            else:
                k_min, k_max = np.ceil(scaled(lo)), np.ceil(scaled(hi)) - 1
            k = np.clip(np.round(scaled(t)), k_min, k_max)
            c = k * up / down
            c = np.where(c == 0, 0.0, c)   # never -0
            fits = (c > lo) & (c <= hi) if inclusive else (c >= lo) & (c < hi)
            take = left & (k_min <= k_max) & np.isfinite(c) & fits
            result[take] = c[take]
            left &= ~take
            if not left.any():
                break
    out[todo] = result
    return out, edge


class _ShownCuts:
    """Per input column, ``{threshold: (shortest, edge)}`` (:func:`_shown_map`), or None.

    A column's entry is set as that map, or as ``(chunk, i)``: row i of the
    arrays ``(levels, short, edge, distinct)`` of a chunk of columns cut
    together (:meth:`PercentileBinarizer._presence_cuts`), whose map is made
    when it is read, from the row's distinct levels.  Indexing and iteration
    give maps, as a list of them would.
    """

    def __init__(self, n_columns):
        self._entries = [None] * n_columns
        self._chunks = []

    def add_chunk(self, levels, short, edge, distinct):
        """Keep a chunk's arrays (rows: its columns); returns its id for ``(chunk, i)`` entries."""
        self._chunks.append((levels, short, edge, distinct))
        return len(self._chunks) - 1

    def __len__(self):
        return len(self._entries)

    def __setitem__(self, j, entry):
        self._entries[j] = entry

    def __getitem__(self, j):
        entry = self._entries[j]
        if not isinstance(entry, tuple):
            return entry
        chunk, i = entry
        levels, short, edge, distinct = self._chunks[chunk]
        new = distinct[i]
        return _shown_map(levels[i][new], short[i][new], edge[i][new])

    def __iter__(self):
        return (self[j] for j in range(len(self)))


def _shown_map(levels, short, edge):
    """``{threshold: (shortest, edge)}`` of one column's thresholds (:func:`_shown_cuts`), as floats."""
    return dict(zip(levels.tolist(), zip(short.tolist(), edge.tolist())))


def _block_cuts(values, levels, compare):
    """``(kept, dropped, shown)``: per column of the dense block ``values`` (``zeros="include"``),
    its thresholds from its percentiles ``levels[:, i]``, several cuts per column, and the numbers
    they are printed as (:func:`_shown_map`).

    The same numbers as one column at a time: each column's levels sorted and
    exact ties merged (as ``np.unique`` does), and a threshold dropped when
    ``compare`` holds on none or all of the column's values.  Three lists,
    one entry per column.
    """
    n = values.shape[0]
    levels = np.sort(levels, axis=0)   # np.unique's order: the same sort, column by column
    below, above, holding = _neighbours(values, levels, compare)
    short, edge = _shown_cuts(levels, below, above, compare is np.greater_equal)
    new = np.ones(levels.shape, dtype=bool)
    new[1:] = levels[1:] != levels[:-1]
    constant = (holding == 0) | (holding == n)

    def per_column(mask, numbers=levels):
        # Column by column (transposed), cut at each column's count (np.split costs more per piece).
        flat = numbers.T[mask.T]
        ends = np.cumsum(mask.sum(axis=0)).tolist()
        return [flat[start:end] for start, end in zip([0] + ends[:-1], ends)]

    shown = [_shown_map(*numbers) for numbers in zip(per_column(new), per_column(new, short), per_column(new, edge))]
    return per_column(new & ~constant), per_column(new & constant), shown


def _distinct_values(X, j):
    """Sorted distinct values of column ``j`` of a dense array or canonical CSC matrix (a missing value,
    NaN, is none of them)."""
    if not sp.issparse(X):
        seen = np.unique(X[:, j])
        return seen[~np.isnan(seen)]
    s, e = X.indptr[j], X.indptr[j + 1]
    stored = X.data[s:e]
    if e - s < X.shape[0]:  # some rows hold an implicit zero
        stored = np.concatenate((stored, [0.0]))
    seen = np.unique(stored)
    return seen[~np.isnan(seen)]   # a stored NaN is a missing value, as in dense X


def _canonical_csc(X):
    """``X`` as CSC with sorted, duplicate-free indices, never modifying the caller's matrix."""
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def _entry_columns(Xc):
    """Column id of every stored entry of a CSC matrix."""
    return np.repeat(np.arange(Xc.shape[1]), np.diff(Xc.indptr))


def _first_refused(X):
    """``(column, "infinity")`` of the first value X may not hold, or None: infinity (NaN, dense or
    stored in a sparse matrix, is a missing value, which satisfies none of its column's literals)."""
    if not sp.issparse(X):
        bad = np.argwhere(np.isinf(X))
        return (int(bad[0][1]), "infinity") if bad.size else None
    bad = np.flatnonzero(np.isinf(X.data))
    if not bad.size:
        return None
    # CSR, or canonical CSC as the binarizer holds it.
    return int(X.indices[bad[0]] if X.format == "csr" else _entry_columns(X)[bad[0]]), "infinity"


def nonfinite_message(kind, name):
    """The error for an infinite value (``kind``, "infinity") in column ``name`` of X."""
    return (f"Input X contains {kind} in column {name!r}; percentiles and thresholds need finite values: "
            "replace or clip the infinite values first (e.g. with the column's largest finite value)")


class PercentileBinarizer(TransformerMixin, BaseEstimator):
    """Binarize numeric features at a percentile and one-hot encode nominal ones.

    This is the preprocessing of the paper's experimental protocol (section
    exp): a numeric feature becomes 1 above its ``percentile``-th percentile
    (90 by default) computed on the training data, a nominal feature is
    one-hot encoded.  Each input column is handled in one of three ways,
    recorded in ``feature_kinds_``:

    ``"threshold"``
        A numeric column.  It becomes ``x > t`` (``inclusive=False``, the
        default) or ``x >= t`` (``inclusive=True``), where ``t`` is the
        percentile of the column's training values, computed with
        :func:`numpy.percentile` and its default linear interpolation
        between order statistics.  For sparse input the implicit zeros take
        part in the percentile, exactly as if the matrix were dense.
    ``"binary"``
        A numeric column whose training values all lie in {0, 1}, or a
        nominal column whose declared values are 0 and 1 (such as
        ``hasSegments {0,1}``) or, without declared values, whose training
        values all lie in {0, 1}.  It is kept as it is, not thresholded: its
        90th percentile would make most such columns constant.  A numeric one
        is a presence literal, ``x > 0``: on the training rows exactly the
        column itself, and on new data any positive value (a count of 4 in a
        word-count column, 0.15 in a flag column) is present, zero or a
        negative value absent.  A nominal one is 1 for the value 1 and 0
        for anything else, an unseen value included.  Transform never fails
        on a finite value.
    ``"one-hot"``
        Any other nominal column: two or more values other than 0 and 1
        (``sex {F,M}`` gives ``sex=F`` and ``sex=M``: a rule can then test
        either value without negated literals), or a single declared value.
        One output column per value.
        The values are the declared
        ones when ``categories`` gives them (all of them, even those absent
        from the training data), otherwise the distinct training values.  A
        value not among them at transform gives an all-zero row in that
        column's one-hot block, not an error.

    With one threshold per numeric feature (the default, the paper's
    protocol), nothing is dropped: an output column that is constant on the
    training data is kept and reported in ``constant_features_`` (see the
    Notes for why this matters and how to drop such columns).  With several
    thresholds per feature (a sequence of percentiles, ``n_quantiles``,
    ``direction="both"`` or ``zeros="presence"``), a threshold that makes a
    constant column on the training data is dropped, and reported by name in
    ``dropped_features_``.

    Parameters
    ----------
    percentile : float or sequence of float, default=90
        The percentile, in [0, 100], at which numeric features are cut; a
        sequence cuts each numeric feature at several percentiles (e.g.
        ``(10, 30, 50, 70, 90)``), one output column per distinct threshold
        (ties between the percentiles of a column are merged, and thresholds
        constant on the training data dropped; see ``dropped_features_``).
    n_quantiles : int >= 2 or None, default=None
        Instead of ``percentile``: the ``n_quantiles - 1`` equally spaced
        interior quantiles (4 gives the quartiles 25, 50, 75).
    direction : {">", "both"}, default=">"
        ">": one column ``f>t`` per threshold; "both": also its complement
        ``f<=t`` right after it (``f>=t`` and ``f<t`` with ``inclusive``).
        (CorsetClassifier's negated literals give the complements as well.)
    zeros : {"include", "presence"}, default="include"
        "include": the zeros of a column take part in its percentiles (the
        paper's protocol).  "presence", for counts such as word counts,
        where most entries are 0: a column holding zeros and positive values
        gets a presence literal ``f>0`` plus its percentiles computed over
        its non-zero values only (``f>2``: more than twice); a negative value
        counts as absent.  On sparse input this reads the stored entries
        only, in fit and in transform.  A column holding only 0 and 1 stays
        one presence column named after the column, as with "include".
    inclusive : bool, default=False
        If False, a numeric feature becomes 1 strictly above its percentile,
        as in the authors' code; if True, at or above it (the paper's wording,
        "0 for values lower than the percentile").  See the Notes: the choice
        matters on birds.
    nominal_features : None, list of int, boolean mask or list of str, default=None
        Which input columns are nominal: column indices, a boolean mask of
        length ``n_features_in_``, or column names when fitting on a pandas
        DataFrame with string column names.  None means every column is
        numeric, except a DataFrame's categorical, string and object columns,
        which are always nominal (see the Notes).  Give either this or
        ``feature_types``, not both.
    ordinal_features : None, list of int, boolean mask or list of str, default=None
        Numeric columns whose values are ranks (an ordered categorical's
        places in its order, a rating from 1 to 5), given as
        ``nominal_features`` is.  With several percentiles, such a column
        with at most one more distinct training value than percentiles is
        cut between every pair of adjacent values instead (``size>S``,
        ``size>M``, ``size>L`` for S < M < L < XL), so that no step of its
        order is left out where percentiles of few values would fall on the
        same step; with more values, or one percentile, it is cut as any
        numeric column.  Dense input only.
    feature_types : None or list of {"numeric", "nominal"}, default=None
        The type of each input column, for instance the ``feature_types`` of
        a :mod:`corset.datasets` loader's Bunch.  An alternative to
        ``nominal_features``.
    categories : None, dict or list, default=None
        The declared values of the nominal columns, so that their names appear
        in the output feature names (``location=17`` rather than
        ``location=6``).  Either a dict mapping a nominal column (index, or
        name when fitting on a DataFrame) to its sequence of values, or a list
        with one entry per input column (None, or empty, for the columns that
        are not nominal).  With declared values, a nominal column must hold
        indices into them (0 for the first value, 1 for the second...), which
        is how the loaders encode nominal values; the one exception, as in
        the loaders, is a column declared with exactly the values ``0`` and
        ``1`` (in either order), which holds those values themselves.
        Nominal columns without declared values may hold any numbers.  A
        loader's Bunch keys ``categories`` by feature name: pass it with
        ``X`` as a DataFrame with those column names, or convert it to a list,
        ``[data.categories.get(name) for name in data.feature_names]``.

    Attributes
    ----------
    n_features_in_ : int
        Number of input columns seen in fit.
    feature_names_in_ : ndarray of str, shape (``n_features_in_``,)
        Column names seen in fit; only defined when ``X`` was a DataFrame
        with string column names.
    feature_kinds_ : ndarray of str, shape (``n_features_in_``,)
        ``"threshold"``, ``"binary"`` or ``"one-hot"`` for each input column.
    thresholds_ : ndarray of float64 of shape (``n_features_in_``,), or list of ndarray
        With one threshold per feature: the fitted percentile of each
        ``"threshold"`` column, NaN for the ``"binary"`` and ``"one-hot"``
        columns.  With several: a list with, per input column, the sorted
        array of the thresholds kept (one or two output columns each, in
        that order), None for the ``"binary"`` and ``"one-hot"`` columns.
    missing_counts_ : ndarray of int64, shape (``n_features_in_``,)
        How many training records miss each column (NaN, in dense X or
        stored in a sparse matrix).
    categories_ : list of (ndarray or None), length ``n_features_in_``
        For each ``"one-hot"`` column, the values (as they appear in ``X``)
        that get an output column, in output order; None for other columns.
    n_features_out_ : int
        Number of output columns.
    positive_rate_ : ndarray of float64, shape (``n_features_out_``,)
        Share of training records for which each output column is 1.
    constant_features_ : ndarray of str
        Names (as ``get_feature_names_out()`` gives them) of the output
        columns that are constant on the training data, i.e. whose
        ``positive_rate_`` is 0 or 1.  Empty when there are none.  Fitting
        issues no warning about them: query this attribute.
    dropped_features_ : ndarray of str
        With several thresholds per feature, the names (``f>t``, and ``f<=t``
        with ``direction="both"``) of the literals left out because they are
        constant on the training data, in input column order; always empty
        with one threshold per feature.

    See Also
    --------
    sklearn.preprocessing.OneHotEncoder : one-hot encoding of nominal columns only.
    sklearn.preprocessing.KBinsDiscretizer : quantile bins of numeric columns.

    Notes
    -----
    **Output type.** Dense input (a numpy array or a DataFrame) gives a dense
    ``uint8`` ndarray, or a DataFrame under ``set_output(transform="pandas")``.
    Sparse input gives a ``uint8`` CSR matrix (a ``csr_array`` for a sparse
    array, a ``csr_matrix`` for a sparse matrix); sparse input is never
    densified as a whole: transform reads the stored entries of each column
    (a literal true at 0, such as ``f<=t`` for ``t >= 0``, is every row but
    the stored entries that fail it), and fit densifies a few numeric
    columns at a time only where their zeros take part in a percentile
    (``zeros="include"``).  Pandas output of sparse data raises
    scikit-learn's usual error.

    **Missing values.** In dense X (an array or a DataFrame), NaN is a missing
    value, in fit and transform alike: it satisfies none of its column's
    literals, neither ``x > t`` nor ``x <= t`` (``direction="both"``), and no
    one-hot indicator (``None``, NaN or NaT in a text, categorical, ordinal or
    date column likewise).  A rule that tests a column therefore never
    matches a record where that column is missing, which is what a reader of
    ``IF x>t`` expects; the percentiles are those of the values the column
    holds, and ``missing_counts_`` records how many each column missed in
    fit.  A column with missing training values is not written as a pair of
    complementary literals (``f<=t`` is not ``NOT f>t`` there).  In a sparse
    matrix a stored NaN is a missing value in the same way, and the entries
    not stored are zeros (``X.toarray()`` gives the same cuts and items).
    Infinity in any X raises a ``ValueError`` naming the column: no
    percentile says where an infinite value belongs.

    **Text and categorical columns.** In a DataFrame, a column of dtype
    category, string or object is nominal, with no need to declare it.  Its
    values are those given in ``categories`` for it, else the categories of
    a pandas Categorical (such as the loaders' ``as_frame=True`` output),
    else its distinct training values in text order; it is one-hot encoded
    and named after them (``genre=pop``; two values give two columns,
    ``mood=calm`` and ``mood=wild``).  A value not among them
    at transform sets none of the column's indicators.  In arrays and
    sparse matrices nominal values must be numbers (for instance indices
    into the declared values).

    **Constant columns.** With strict ">", a feature whose percentile equals
    its maximum is 0 on every training record: on the emotions training split
    ``BH_HighLowRatio`` (90th percentile 3 = maximum) becomes the constant
    ``BH_HighLowRatio>3``.  With ``inclusive=True``, a feature whose
    percentile equals its minimum becomes constant 1: on the birds training
    split 101 of the 258 numeric features are in that case (98 of them have
    minimum 0), while strict ">" leaves none constant.  Constant columns
    carry no information for a rule learner; to drop them::

        keep = (binarizer.positive_rate_ > 0) & (binarizer.positive_rate_ < 1)
        X_bin = X_bin[:, keep]
        names = binarizer.get_feature_names_out()[keep]

    **Feature names.** Numeric columns are named ``Centroid>0.31`` (or
    ``Centroid>=0.31``) after the shortest decimal number that puts every
    training value on the same side as the exact threshold (in
    ``thresholds_``), the nearest to it among the shortest: ``year>2019``
    for a 90th percentile of 2019.9 between the years 2019 and 2020, where
    rounding would print ``year>2020`` and a rule would then read as false on
    the records of 2020 it fires on.  A name is thus exact on the training
    data; only a new value between the printed number and the threshold,
    where no training value lies, reads differently from the model (which
    keeps the threshold).  Two thresholds that split the training values
    alike print as themselves.  Dates and durations print as the training
    value at the cut's edge (``d>2021-09-16``: from the 17th on).  A
    binarizer read by :meth:`from_dict` from an export of an earlier version
    rounds to three significant digits, more where two thresholds of a
    feature would print alike.  With ``direction="both"`` the complement of
    ``f>t`` is named ``f<=t`` (of ``f>=t``, ``f<t``).  One-hot columns are named ``location=17``
    after the declared value, or after the number itself without declared
    values (``windy=no`` and ``windy=yes`` for declared values ``no, yes``).
    Binary columns keep their name.  Without column names, ``x0, x1, ...``.

    Examples
    --------
    >>> import numpy as np
    >>> from corset.preprocessing import PercentileBinarizer
    >>> X = np.array([[0.1, 0, 2], [0.5, 1, 0], [0.9, 1, 1], [0.3, 0, 2]])
    >>> b = PercentileBinarizer(percentile=50, nominal_features=[2]).fit(X)
    >>> b.transform(X)
    array([[0, 0, 0, 0, 1],
           [1, 1, 1, 0, 0],
           [1, 1, 0, 1, 0],
           [0, 0, 0, 0, 1]], dtype=uint8)
    >>> b.get_feature_names_out().tolist()
    ['x0>0.4', 'x1', 'x2=0', 'x2=1', 'x2=2']
    """

    def __init__(self, percentile=90, *, n_quantiles=None, direction=">", zeros="include", inclusive=False,
                 nominal_features=None, feature_types=None, categories=None, ordinal_features=None):
        self.zeros = zeros
        self.ordinal_features = ordinal_features
        self.percentile = percentile
        self.n_quantiles = n_quantiles
        self.direction = direction
        self.inclusive = inclusive
        self.nominal_features = nominal_features
        self.feature_types = feature_types
        self.categories = categories

    # ------------------------------------------------------------------ tags
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # A missing value in dense X satisfies none of its column's literals.
        tags.input_tags.allow_nan = True
        # The output is uint8 whatever the input dtype.
        tags.transformer_tags.preserves_dtype = []
        return tags

    # ------------------------------------------------------- parameter checks
    def _percentiles(self):
        """The percentiles to cut at, as a tuple of floats (one element in the paper's protocol)."""
        if self.n_quantiles is not None:
            k = self.n_quantiles
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 2:
                raise ValueError(f"n_quantiles must be an integer >= 2 or None; got {k!r}")
            return tuple(100.0 * i / k for i in range(1, k))
        values = self.percentile if isinstance(self.percentile, (list, tuple, np.ndarray)) else [self.percentile]
        if len(values) == 0:
            raise ValueError("percentile must be a number or a non-empty sequence of numbers in [0, 100]")
        for p in values:
            if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real):
                raise TypeError(f"percentile must be a real number in [0, 100] or a sequence of them; got {p!r}")
            if not 0 <= p <= 100:  # also rejects NaN
                raise ValueError(f"percentile must be in [0, 100]; got {p!r}")
        return tuple(float(p) for p in values)

    def _check_params(self):
        percentiles = self._percentiles()
        if self.direction not in (">", "both"):
            raise ValueError(f"direction must be '>' or 'both'; got {self.direction!r}")
        if self.zeros not in ("include", "presence"):
            raise ValueError(f"zeros must be 'include' or 'presence'; got {self.zeros!r}")
        if not isinstance(self.inclusive, (bool, np.bool_)):
            raise TypeError(f"inclusive must be True or False; got {self.inclusive!r}")
        if self.nominal_features is not None and self.feature_types is not None:
            raise ValueError("give either nominal_features or feature_types, not both")
        return percentiles, bool(self.inclusive)

    def _column_index(self, key, n_features, what):
        """Index of the column named or numbered ``key``; the error names ``what``."""
        names = getattr(self, "feature_names_in_", None)
        if isinstance(key, (str, np.str_)):
            if names is None:
                hint = ""
                if what == "categories":
                    hint = ("; or give categories as a list with one entry per column, e.g. "
                            "[data.categories.get(name) for name in data.feature_names] for a loader's Bunch")
                raise ValueError(
                    f"{what} refers to column {key!r} by name, but X has no column names (names require "
                    f"fitting on a pandas DataFrame with string column names{hint})")
            hits = np.flatnonzero(names == key)
            if hits.size == 0:
                raise ValueError(f"{what} refers to column {key!r}, which is not a column of X")
            return int(hits[0])
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, numbers.Integral):
            raise TypeError(f"{what} must refer to columns by integer index or by name; got {key!r}")
        if not 0 <= key < n_features:
            raise ValueError(f"{what} holds column index {key}, outside [0, {n_features}) for X "
                             f"with {n_features} columns")
        return int(key)

    def _nominal_mask(self, n_features):
        """Boolean mask of the nominal input columns, from nominal_features or feature_types."""
        if self.feature_types is not None:
            types = list(self.feature_types)
            if len(types) != n_features:
                raise ValueError(f"feature_types has {len(types)} entries but X has {n_features} columns")
            bad = [t for t in types if t not in ("numeric", "nominal")]
            if bad:
                raise ValueError(f"feature_types entries must be 'numeric' or 'nominal'; got {bad[0]!r}")
            frame = getattr(self, "_frame_values", None) or [None] * n_features
            numeric_text = [j for j, t in enumerate(types) if t == "numeric" and frame[j] is not None]
            if numeric_text:
                raise ValueError(f"feature_types says column {self._input_names(None)[numeric_text[0]]!r} is "
                                 "numeric, but it holds text or categories")
            return np.array([t == "nominal" for t in types], dtype=bool)
        return self._column_mask(self.nominal_features, n_features, "nominal_features")

    def _column_mask(self, spec, n_features, what):
        """Boolean mask of the input columns ``spec`` names (indices, a mask or names; None: none),
        the parameter ``what``."""
        mask = np.zeros(n_features, dtype=bool)
        if spec is None:
            return mask
        if isinstance(spec, (str, bytes)) or not hasattr(spec, "__len__"):
            raise TypeError(f"{what} must be a list of column indices, a boolean mask or a list "
                            f"of column names; got {spec!r}")
        arr = np.asarray(spec)
        if arr.ndim != 1:
            raise ValueError(f"{what} must be 1-D; got shape {arr.shape}")
        if arr.dtype == bool:
            if arr.size != n_features:
                raise ValueError(f"{what}, a boolean mask, has length {arr.size} but X has "
                                 f"{n_features} columns")
            return arr.copy()
        keys = list(spec)
        idx = [self._column_index(k.item() if isinstance(k, np.generic) else k, n_features, what) for k in keys]
        if len(set(idx)) != len(idx):
            raise ValueError(f"{what} lists a column twice: {keys!r}")
        mask[idx] = True
        return mask

    def _declared_categories(self, n_features, nominal):
        """Per input column, the declared values (a list) or None."""
        declared = [None] * n_features
        spec = self.categories
        if spec is None:
            return declared
        if isinstance(spec, dict):
            items = [(self._column_index(k, n_features, "categories"), v) for k, v in spec.items()]
        elif isinstance(spec, (list, tuple)):
            if len(spec) != n_features:
                raise ValueError(f"categories, a list, must have one entry per column of X ({n_features}); "
                                 f"got {len(spec)}")
            items = [(j, v) for j, v in enumerate(spec) if v is not None and len(v) > 0]
        else:
            raise TypeError(f"categories must be None, a dict or a list; got {type(spec).__name__}")
        for j, values in items:
            if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
                raise TypeError(f"categories for column {j} must be a sequence of values; got {values!r}")
            values = list(values)
            if not nominal[j]:
                raise ValueError(f"categories gives values for column {j}, which is not nominal "
                                 "(declare it in nominal_features or feature_types)")
            if len(values) == 0:
                raise ValueError(f"categories for column {j} is empty")
            if len({str(v) for v in values}) != len(values):
                raise ValueError(f"categories for column {j} holds a value twice: {values!r}")
            declared[j] = values
        return declared

    # ------------------------------------------------------------------- fit
    def fit(self, X, y=None):
        """Compute the percentile of each numeric column and the values of each nominal one.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Training data, without infinite values (NaN is a missing
            value: see Notes).
        y : None
            Ignored.

        Returns
        -------
        self : PercentileBinarizer
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """:meth:`fit` to ``X``, then ``X`` binarized: the same as ``fit(X).transform(X)``.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Training data, without infinite values (NaN is a missing
            value: see Notes).
        y : None
            Ignored.

        Returns
        -------
        X_bin : ndarray of uint8 or CSR matrix of uint8, shape (n_samples, n_features_out_)
            As :meth:`transform` returns it.
        """
        # fit binarizes X already (for positive_rate_): once is enough.
        return self._fit(X)

    def _fit(self, X):
        """:meth:`fit`; returns ``X`` binarized (the training records' items, which fit counts)."""
        percentile, inclusive = self._check_params()
        X = self._encode_frame(X, fit=True)
        X = validate_data(self, X, accept_sparse="csc", dtype=np.float64, reset=True, ensure_all_finite=False)
        self._check_finite(X)
        sparse = sp.issparse(X)
        if sparse:
            X = _canonical_csc(X)
        n_samples, n_features = X.shape
        nominal = self._nominal_mask(n_features)
        text = [] if self._frame_values is None else [j for j, v in enumerate(self._frame_values) if v is not None]
        nominal[text] = True
        ordinal = self._column_mask(self.ordinal_features, n_features, "ordinal_features")
        if (ordinal & nominal).any():
            both = self._input_names(None)[np.flatnonzero(ordinal & nominal)[0]]
            raise ValueError(f"ordinal_features names column {both!r}, which is nominal: an ordinal column "
                             "holds numbers (its places in the order)")
        if ordinal.any() and (sparse or self.zeros == "presence"):
            raise ValueError("ordinal_features is for dense X with zeros='include'"
                             + ("; X is sparse" if sparse else ""))
        declared = self._declared_categories(n_features, nominal)
        for j in text:
            declared[j] = self._frame_values[j]
        input_names = self._input_names(None)

        # Which columns hold only 0 and 1 on the training data (where they hold a value), and how
        # many missing values (NaN; in sparse X, stored ones) each one holds.
        missing = np.zeros(n_features, dtype=np.int64)
        if sparse:
            entry_col = _entry_columns(X)
            nan = np.isnan(X.data)
            missing = np.bincount(entry_col[nan], minlength=n_features).astype(np.int64)
            not01 = (X.data != 0) & (X.data != 1) & ~nan
            is01 = np.bincount(entry_col[not01], minlength=n_features) == 0
        else:
            is01 = np.empty(n_features, dtype=bool)
            for block, values in _column_blocks(X, np.arange(n_features)):
                nan = np.isnan(values)
                missing[block] = nan.sum(axis=0)
                is01[block] = np.all((values == 0) | (values == 1) | nan, axis=0)
        self.missing_counts_ = missing

        kinds = np.empty(n_features, dtype=object)
        thresholds = np.full(n_features, np.nan)
        categories = [None] * n_features
        value_names = [None] * n_features

        # Numeric columns: binary ones are kept, the others cut at the percentile.
        numeric = np.flatnonzero(~nominal)
        kinds[numeric] = np.where(is01[numeric], KIND_BINARY, KIND_THRESHOLD)
        to_cut = numeric[~is01[numeric]]
        percentiles = percentile
        # One percentile, ">" only, zeros included: the paper's protocol, one
        # output column per numeric column (a constant one is kept and reported).
        single = len(percentiles) == 1 and self.direction == ">" and self.zeros == "include"
        compare = np.greater_equal if inclusive else np.greater
        cuts = [None] * n_features
        dropped = [None] * n_features
        # Per cut column, {threshold: (its shortest, its edge)} for its name (_shown_cuts).
        shown = _ShownCuts(n_features)
        if sparse and self.zeros == "presence":
            # Percentiles of the non-zero values need no zero, so no densification.
            self._presence_cuts(X, to_cut, n_samples, missing, percentiles, compare, cuts, dropped, shown)
        else:
            for block, values in _column_blocks(X, to_cut):
                levels = np.percentile(values, percentiles, axis=0)   # (n_percentiles, len(block))
                for i in np.flatnonzero(missing[block]).tolist():
                    # The percentiles of the values the column holds (a missing value is none of them).
                    column = values[:, i]
                    levels[:, i] = np.percentile(column[~np.isnan(column)], percentiles)
                if not single and ordinal[block].any():
                    self._ordinal_levels(levels, values, np.flatnonzero(ordinal[block]), inclusive)
                thresholds[block] = levels[0]
                if single:
                    short, edge = _shown_cuts(levels[0], *_neighbours(values, levels[0], compare)[:2], inclusive)
                    for i, j in enumerate(block.tolist()):
                        shown[j] = _shown_map(levels[0][i:i + 1], short[i:i + 1], edge[i:i + 1])
                    continue
                if self.zeros != "presence":
                    # Every column of the block at once (a loop over columns was most of the fit).
                    for j, kept, constant, names in zip(block, *_block_cuts(values, levels, compare)):
                        cuts[j], dropped[j], shown[j] = kept, constant, names
                    continue
                for i, j in enumerate(block):
                    column = values[:, i]
                    # Missing values are neither zeros nor non-zero values: the column's records are those it holds.
                    cuts[j], dropped[j], shown[j] = self._column_cuts(
                        column[(column != 0) & ~np.isnan(column)], n_samples - int(missing[j]), percentiles, compare)
        if single:
            for j in to_cut:
                cuts[j] = thresholds[j:j + 1]

        # Nominal columns: kept when coded 0/1, one-hot otherwise.  Columns known
        # to be binary (the usual case of sparse files) need no pass over their values.
        for j in np.flatnonzero(nominal):
            values = declared[j]
            if values is None and is01[j]:
                kinds[j] = KIND_BINARY
                continue
            seen = _distinct_values(X, j)
            if values is None:
                kinds[j] = KIND_ONE_HOT
                categories[j] = seen
                value_names[j] = [_format_value(v) for v in seen]
                continue
            n_values = len(values)
            bad = seen[(seen < 0) | (seen >= n_values) | (seen != np.floor(seen))]
            if bad.size:
                raise ValueError(
                    f"nominal column {input_names[j]!r} must hold indices 0..{n_values - 1} into its "
                    f"{n_values} declared categories; it holds {_format_value(bad[0])}")
            if n_values == 2 and sorted(str(v) for v in values) == ["0", "1"]:
                # Declared {0,1} in either order: absence and presence, the values themselves (as
                # corset.datasets gives them; a sparse file leaves the 0 out), one column.
                kinds[j] = KIND_BINARY
            else:
                # Any other declared values, a pair of categories (sex F/M, windy no/yes) included:
                # one column per value, so that a rule can test either value of a pair without
                # negated literals (the negation of one is the other).
                kinds[j] = KIND_ONE_HOT
                categories[j] = np.arange(n_values, dtype=np.float64)
                value_names[j] = [str(v) for v in values]

        self._single = single
        per_cut = 2 if self.direction == "both" else 1
        widths = np.array([len(c) if c is not None else (per_cut * len(cuts[j]) if cuts[j] is not None
                                                          and not self._single else 1)
                           for j, c in enumerate(categories)], dtype=np.int64)
        self._cuts = cuts
        self._dropped = dropped
        self._shown = shown
        self._per_cut = per_cut
        self.feature_kinds_ = kinds.astype(str)
        self._nominal = nominal
        self.thresholds_ = thresholds if self._single else [c for c in cuts]
        self.categories_ = categories
        self._value_names = value_names
        self._inclusive = inclusive
        self._out_start = np.concatenate(([0], np.cumsum(widths)))
        self.n_features_out_ = int(self._out_start[-1])

        Xt = self._binarize(X)
        if sparse:
            positives = np.asarray(Xt.sum(axis=0), dtype=np.float64).ravel()
        else:
            positives = Xt.sum(axis=0, dtype=np.float64)
        self.positive_rate_ = positives / n_samples
        constant = (self.positive_rate_ == 0) | (self.positive_rate_ == 1)
        # Only the names of the columns with a constant output are written (usually a few of them).
        columns = np.unique(np.searchsorted(self._out_start, np.flatnonzero(constant), side="right") - 1)
        # Their output columns, in order (the input column of each output column is found by a repeat).
        owner = np.repeat(np.arange(n_features), np.diff(self._out_start))
        outputs = np.flatnonzero(np.isin(owner, columns))
        self.constant_features_ = self._output_names(input_names, columns)[constant[outputs]]
        return Xt

    @property
    def dropped_features_(self):
        """Names of the literals left out as constant on the training data (see the class docstring).

        Written when asked for, not by fit: with several thresholds on word
        counts many columns have one, and naming them all took about a third
        of the binarizer's fit (which the estimator's internal validation
        runs once per fold).
        """
        check_is_fitted(self)
        return self._dropped_names(self._input_names(None))

    @staticmethod
    def _ordinal_levels(levels, values, columns, inclusive):
        """Cut the ``columns`` of a block (ordinal, see ``ordinal_features``) between every pair of
        adjacent training values, in place of their percentiles ``levels[:, i]``, when there are no more
        such steps than percentiles (the last step repeated to fill the rows: ties are merged)."""
        m = levels.shape[0]
        for i in columns.tolist():
            distinct = np.unique(values[:, i])
            distinct = distinct[~np.isnan(distinct)]   # a missing value has no place in the order
            steps = distinct[1:] if inclusive else distinct[:-1]   # x >= the next value, or x > this one
            if 0 < steps.size <= m:
                levels[:, i] = np.concatenate((steps, np.full(m - steps.size, steps[-1])))

    def _presence_cuts(self, X, columns, n_samples, missing, percentiles, compare, cuts, dropped, shown):
        """:meth:`_column_cuts` of the non-zero values of sparse ``columns`` (canonical CSC), into cuts,
        dropped and shown (the numbers the names print, :func:`_shown_map`).

        Columns with the same number n of non-zero values and the same
        number of missing ones (``missing``: stored NaN, which are neither)
        are done together: their values as the rows of an array, one
        ``np.percentile`` along them (the numbers of one call per column, bit
        for bit), ties and constant thresholds found row-wise.  Word counts
        over tens of thousands of columns fall into a few such groups.
        """
        nonzero = (X.data != 0) & ~np.isnan(X.data)
        counts = np.bincount(_entry_columns(X)[nonzero], minlength=X.shape[1])
        values = X.data[nonzero]   # column by column, as stored
        offsets = np.concatenate(([0], np.cumsum(counts)))
        columns = np.asarray(columns, dtype=np.int64)
        if columns.size == 0:
            return
        # The columns by their numbers of values and of missing ones (each group in column order),
        # found by one sort; a group's columns hold a value on `held` records.
        key = counts[columns] * np.int64(n_samples + 1) + missing[columns]
        order = np.argsort(key, kind="stable")
        by_count, sizes = columns[order], key[order]
        ends = np.append(np.flatnonzero(sizes[1:] != sizes[:-1]) + 1, sizes.size).tolist()
        for start, end in zip([0] + ends[:-1], ends):
            group = by_count[start:end]
            n, held = int(counts[group[0]]), n_samples - int(missing[group[0]])
            if n == 0:
                for j in group.tolist():
                    cuts[j], dropped[j], shown[j] = self._column_cuts(values[:0], held, percentiles, compare)
                continue
            # Rows of at most about 2^22 comparisons at a time.
            step = max(1, (1 << 22) // (n * (len(percentiles) + 1)))
            for first in range(0, group.size, step):
                rows = group[first:first + step]
                V = values[offsets[rows][:, None] + np.arange(n)]
                levels = np.percentile(V, percentiles, axis=1).T.reshape(rows.size, -1)
                if n < held:
                    levels = np.concatenate((np.zeros((rows.size, 1)), levels), axis=1)
                levels = np.sort(levels, axis=1)
                below, above, holding = _neighbours(V.T, levels.T, compare, n_zeros=held - n)
                short, edge = (a.T for a in _shown_cuts(levels.T, below, above, compare is np.greater_equal))
                distinct = np.ones(levels.shape, dtype=bool)
                distinct[:, 1:] = levels[:, 1:] != levels[:, :-1]
                constant = (holding.T == 0) | (holding.T == held)
                # The chunk's kept and dropped thresholds split row by row from one array each, and the
                # numbers of their names kept as the chunk's arrays (_ShownCuts makes a column's map when
                # its name is asked for): tens of thousands of word-count columns, and a fold fit names
                # none of them.
                kept, gone = distinct & ~constant, distinct & constant
                kept_levels, gone_levels = levels[kept], levels[gone]   # row after row
                kept_end, gone_end = np.cumsum(kept.sum(axis=1)).tolist(), np.cumsum(gone.sum(axis=1)).tolist()
                chunk = shown.add_chunk(levels, short, edge, distinct)
                k = g = 0
                for i, (j, k_end, g_end) in enumerate(zip(rows.tolist(), kept_end, gone_end)):
                    cuts[j], dropped[j] = kept_levels[k:k_end], gone_levels[g:g_end]
                    shown[j] = (chunk, i)
                    k, g = k_end, g_end

    def _column_cuts(self, values, n_samples, percentiles, compare):
        """``(kept, dropped, shown)`` thresholds of one numeric column with ``zeros="presence"``, several
        cuts, and ``{threshold: (its shortest, its edge)}`` for its name (:func:`_shown_map`).

        ``values`` are the column's non-zero training values; the
        ``n_samples - values.size`` others are zeros, which get the presence
        cut 0.  Ties are merged; a threshold that is constant on the training
        data is dropped.  (With ``zeros="include"``, :func:`_block_cuts` cuts
        a block of columns at once.)
        """
        levels = np.zeros(1)   # only zeros: the presence cut alone (constant, so dropped)
        if values.size:
            levels = np.percentile(values, percentiles)
            if values.size < n_samples:
                levels = np.concatenate(([0.0], levels))
        levels = np.unique(levels)
        below, above, holding = _neighbours(values[:, None], levels[:, None], compare,
                                            n_zeros=n_samples - values.size)
        constant = (holding[:, 0] == 0) | (holding[:, 0] == n_samples)
        short, edge = _shown_cuts(levels, below[:, 0], above[:, 0], compare is np.greater_equal)
        return levels[~constant], levels[constant], _shown_map(levels, short, edge)

    def _paired_columns(self):
        """The output columns of the one-hot blocks of two-valued nominal columns (sorted ids).

        On the training records each such column is the complement of its
        pair's (every record holds one of the two values), so a negated
        literal of one would repeat the other: the estimator gives them none.
        A column with missing training values is not among them (NOT
        ``sex=F`` then also holds where the sex is missing).  Fitted state only.
        """
        check_is_fitted(self)
        missing = self._missing_counts()
        pairs = [np.arange(self._out_start[j], self._out_start[j] + 2)
                 for j in np.flatnonzero(self.feature_kinds_ == KIND_ONE_HOT).tolist()
                 if len(self.categories_[j]) == 2 and missing[j] == 0]
        return np.concatenate(pairs).astype(np.int64) if pairs else np.zeros(0, dtype=np.int64)

    def _missing_counts(self):
        """``missing_counts_``, or zeros for a binarizer pickled before missing values were read."""
        counts = getattr(self, "missing_counts_", None)
        return np.zeros(self.n_features_in_, dtype=np.int64) if counts is None else counts

    def _literal_domains(self, columns):
        """For each output column of ``columns``, the values of its input column on which it is 1.

        ``("cut", j, lower, upper)`` for a cut of column j: the values above
        ``lower`` and up to ``upper`` (from ``lower`` and below ``upper`` with
        ``inclusive=True``), one of the two infinite; ``("value", j, i)`` for
        a one-hot column: the value ``categories_[j][i]``; None for a binary
        column.  What the estimator reads to see that one literal implies
        another on every record (``x>5`` implies ``x>2``; ``colour=red``
        implies NOT ``colour=blue``).  Fitted state only.
        """
        check_is_fitted(self)
        out = []
        for f in columns:
            if not 0 <= f < self.n_features_out_:
                raise ValueError(f"output column {f} is out of range [0, {self.n_features_out_})")
            j = int(np.searchsorted(self._out_start, f, side="right")) - 1
            offset = int(f - self._out_start[j])
            kind = self.feature_kinds_[j]
            if kind == KIND_THRESHOLD:
                # The r-th cut's columns, as _write_block_cuts and _binarize write them: x>t, then x<=t.
                r, below = divmod(offset, self._per_cut)
                t = float(self.thresholds_[j]) if self._single else float(self._cuts[j][r])
                out.append(("cut", j, -np.inf, t) if below else ("cut", j, t, np.inf))
            elif kind == KIND_ONE_HOT:
                out.append(("value", j, offset))
            else:
                out.append(None)
        return out

    # -------------------------------------------------------------- transform
    def transform(self, X):
        """Binarize ``X`` with the percentiles and values learned in fit.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features_in_)
            Data without infinite values (NaN is a missing value),
            with the columns seen in fit.

        Returns
        -------
        X_bin : ndarray of uint8 or CSR matrix of uint8, shape (n_samples, n_features_out_)
            Dense for dense input, CSR for sparse input.
        """
        check_is_fitted(self)
        X = self._encode_frame(X, fit=False)
        X = validate_data(self, X, accept_sparse="csc", dtype=np.float64, reset=False, ensure_all_finite=False)
        self._check_finite(X)
        if sp.issparse(X):
            X = _canonical_csc(X)
        return self._binarize(X)

    def _encode_frame(self, X, fit):
        """A DataFrame's categorical, string and object columns as indices into their values.

        At fit, such a column is nominal and its values are, in this order of
        preference, those given in ``categories``, the categories of a pandas
        Categorical, or its distinct values sorted as text; they are
        remembered in ``_frame_values``.  A value is coded as its index among
        them (a column of the values ``0`` and ``1`` holds them as numbers),
        a value unseen in fit as -1 and a missing one as NaN, which set none
        of the column's indicators.  Anything else is returned as it is.
        """
        if fit:
            self._frame_values = None
        if not (hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")):
            return X
        import pandas as pd

        if fit:
            text = [not (pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)) for t in X.dtypes]
            if not any(text):
                return X
            self._frame_values = [self._frame_column_values(X, j) if text[j] else None
                                  for j in range(X.shape[1])]
        elif self._frame_values is None:
            return X
        if X.shape[1] != len(self._frame_values):
            return X  # validate_data reports the wrong number of columns
        columns = []
        for j, values in enumerate(self._frame_values):
            column = X.iloc[:, j]
            if values is None:
                columns.append(column.to_numpy())
                continue
            name = X.columns[j]
            text = [str(v) for v in values]
            if sorted(text) == ["0", "1"]:
                index = {"0": 0.0, "1": 1.0}  # a 0/1 column holds its values, as elsewhere
            else:
                index = {v: float(i) for i, v in enumerate(text)}
            if isinstance(column.dtype, pd.CategoricalDtype):
                known = np.array([index.get(str(c), -1.0) for c in column.cat.categories] + [np.nan])
                codes = known[column.cat.codes.to_numpy()]   # code -1, a missing value: the last, NaN
            else:
                codes = np.fromiter((index.get(str(v), -1.0) for v in column), dtype=np.float64,
                                    count=len(column))
                codes[column.isna().to_numpy()] = np.nan
            if fit and (codes == -1).any():
                bad = column.to_numpy()[np.flatnonzero(codes == -1)[0]]
                raise ValueError(f"column {name!r} of X holds {bad!r}, which is not among its declared "
                                 f"categories {text}")
            columns.append(codes)
        frame = pd.DataFrame(dict(enumerate(columns)), index=X.index)
        frame.columns = X.columns
        return frame

    def _frame_column_values(self, X, j):
        """The values of nominal DataFrame column ``j``: declared in ``categories``, a Categorical's, or seen."""
        name = X.columns[j]
        spec = self.categories
        declared = None
        if isinstance(spec, dict):
            declared = spec.get(name, spec.get(j) if not isinstance(name, numbers.Integral) else None)
        elif isinstance(spec, (list, tuple)) and len(spec) == X.shape[1]:
            declared = spec[j]
        if declared is not None and len(declared) > 0:
            return [str(v) for v in declared]
        column = X.iloc[:, j]
        if hasattr(column, "cat"):
            return [str(v) for v in column.cat.categories]
        return sorted({str(v) for v in column.dropna()})

    def _check_finite(self, X):
        """An infinite value: one error naming the first column that holds one.  (NaN, dense or
        stored in a sparse matrix, is a missing value: it satisfies none of its column's literals.)"""
        found = _first_refused(X)
        if found is None:
            return
        j, kind = found
        name = self._input_names(None)[j] if hasattr(self, "n_features_in_") else f"x{j}"
        raise ValueError(nonfinite_message(kind, name))

    def _binary_values(self, values, cols):
        """A kept binary column's 0/1 output: ``x > 0`` for numeric columns, ``x == 1`` for nominal ones."""
        nominal = self._nominal[cols]
        if not nominal.any():
            return values > 0
        return np.where(nominal, values == 1, values > 0)

    def _binarize(self, X):
        """The binarization itself, on validated input (dense array or canonical CSC)."""
        compare = np.greater_equal if self._inclusive else np.greater
        kinds = self.feature_kinds_
        start = self._out_start
        n_samples = X.shape[0]
        one_hot = np.flatnonzero(kinds == KIND_ONE_HOT)

        if not sp.issparse(X):
            out = np.zeros((n_samples, self.n_features_out_), dtype=np.uint8)
            binary = np.flatnonzero(kinds == KIND_BINARY)
            for block, values in _column_blocks(X, binary):
                out[:, start[block]] = self._binary_values(values, block)
            cut = np.flatnonzero(kinds == KIND_THRESHOLD)
            if self._single:
                for block, values in _column_blocks(X, cut):
                    out[:, start[block]] = compare(values, self.thresholds_[block])
            else:
                for block, values in _column_blocks(X, cut):
                    self._write_block_cuts(out, start, block, values, compare)
            for j in one_hot:
                rows, pos = self._one_hot_hits(X[:, j], j)
                out[rows, start[j] + pos] = 1
            return out

        # Sparse input is never densified: every output column is computed from
        # the stored entries of its input column (see _sparse_literal).
        entry_col = _entry_columns(X)
        rows, cols = [], []
        is_binary = (kinds == KIND_BINARY)[entry_col]
        keep = np.zeros(X.data.shape[0], dtype=bool)
        keep[is_binary] = self._binary_values(X.data[is_binary], entry_col[is_binary])
        cut = kinds == KIND_THRESHOLD
        if self._single:
            # One cut per column: where 0 is below the cut (the usual case), entry by entry at once.
            zero_is_one = cut & compare(0.0, self.thresholds_)
            is_cut = (cut & ~zero_is_one)[entry_col]
            keep[is_cut] = compare(X.data[is_cut], self.thresholds_[entry_col[is_cut]])
            literals = [(j, start[j], self.thresholds_[j], compare) for j in np.flatnonzero(zero_is_one)]
        else:
            # Literals false at 0 (``f>t`` with t >= 0, the usual case) hit only stored entries: all of
            # them rank by rank at once; the others (true at 0) column by column, as complements.
            literals = []
            cut_columns = np.flatnonzero(cut)
            in_cut = cut[entry_col]
            # Each literal by its own comparison, x>t and x<=t (x>=t and x<t with inclusive=True), not
            # as the other's complement: a stored NaN, a missing value, satisfies neither.
            relations = (compare, np.less if self._inclusive else np.less_equal)
            threshold = np.zeros(kinds.size)   # each input column's threshold of the current rank
            for r, has, thresholds in self._cut_ranks(cut_columns, 0.0):
                threshold[cut_columns] = thresholds
                ranked = cut_columns[has]
                for negated, relation in enumerate(relations[:self._per_cut]):
                    false_at_zero = np.zeros(kinds.size, dtype=bool)
                    false_at_zero[ranked] = ~relation(0.0, threshold[ranked])
                    for j in ranked[~false_at_zero[ranked]]:
                        literals.append((j, start[j] + self._per_cut * r + negated, threshold[j], relation))
                    entries = np.flatnonzero(in_cut & false_at_zero[entry_col])
                    hit = entries[relation(X.data[entries], threshold[entry_col[entries]])]
                    rows.append(X.indices[hit])
                    cols.append(start[entry_col[hit]] + self._per_cut * r + negated)
        rows.append(X.indices[keep])
        cols.append(start[entry_col[keep]])
        for j, k, t, relation in literals:
            hit = self._sparse_literal(X, j, lambda v, t=t, relation=relation: relation(v, t))
            rows.append(hit)
            cols.append(np.full(hit.size, k))
        for j in one_hot:
            hit, pos = self._sparse_one_hot(X, j)
            rows.append(hit)
            cols.append(start[j] + pos)
        rows = np.concatenate(rows)
        cols = np.concatenate(cols)
        container = sp.csr_matrix if isinstance(X, sp.spmatrix) else sp.csr_array
        out = container((np.ones(rows.size, dtype=np.uint8), (rows, cols)),
                        shape=(n_samples, self.n_features_out_))
        out.sort_indices()
        return out

    def _cut_ranks(self, columns, missing):
        """Per cut rank r: ``(r, has, thresholds)``, ``has`` the positions in ``columns`` of the threshold
        columns with an r-th cut and ``thresholds`` each column's r-th cut (``missing`` where it has none)."""
        cuts = [self._cuts[j] for j in columns]
        n_cuts = np.fromiter((c.size for c in cuts), dtype=np.int64, count=len(cuts))
        if not n_cuts.any():
            return
        # Every column's cuts in one array: the r-th cut of column i at first[i] + r.
        every = np.concatenate(cuts)
        first = np.concatenate(([0], np.cumsum(n_cuts)[:-1]))
        for r in range(int(n_cuts.max())):
            has = np.flatnonzero(n_cuts > r)
            thresholds = np.full(len(cuts), missing, dtype=np.float64)
            thresholds[has] = every[first[has] + r]
            yield r, has, thresholds

    def _write_block_cuts(self, out, start, block, values, compare):
        """The literals of every threshold column of ``block`` (dense ``values``) into ``out``, by cut rank.

        Column j's r-th threshold t writes ``j>t`` at ``start[j] + per_cut·r``
        (and ``j<=t`` right after it with both directions).  Rank r compares
        the whole block with each column's r-th threshold (+inf where a
        column has fewer: never above), so the work is a few array
        operations per block, not a few per column.
        """
        below = np.less if self._inclusive else np.less_equal
        for r, has, thresholds in self._cut_ranks(block, np.inf):
            above = compare(values, thresholds)[:, has]
            columns = start[block[has]] + self._per_cut * r
            out[:, columns] = above
            if self._per_cut == 2:
                # Its own comparison, not ~above: a missing value (NaN) satisfies neither literal.
                out[:, columns + 1] = below(values[:, has], thresholds[has])

    @staticmethod
    def _sparse_literal(X, j, literal):
        """Rows where ``literal`` (a vectorised test of a value) holds, column ``j`` of canonical CSC ``X``.

        Only the stored entries are tested: when the literal is false at 0,
        the hits are the stored entries passing it; when it is true at 0
        (``f<=t`` with ``t >= 0``), every row but the stored entries failing it.
        A stored NaN (a missing value) fails every comparison: it is never a hit.
        """
        s, e = X.indptr[j], X.indptr[j + 1]
        rows, values = X.indices[s:e], X.data[s:e]
        passed = literal(values)
        if not literal(np.zeros(1))[0]:
            return rows[passed].astype(np.int64)
        hit = np.ones(X.shape[0], dtype=bool)
        hit[rows[~passed]] = False
        return np.flatnonzero(hit)

    def _sparse_one_hot(self, X, j):
        """``_one_hot_hits`` of column ``j`` of canonical CSC ``X``, from its stored entries."""
        s, e = X.indptr[j], X.indptr[j + 1]
        rows = X.indices[s:e].astype(np.int64)
        hit, pos = self._one_hot_hits(X.data[s:e], j)
        hit, pos = [rows[hit]], [pos]
        values = self.categories_[j]
        zero = np.searchsorted(values, 0.0)
        if zero < values.size and values[zero] == 0:  # the implicit zeros are a known value
            implicit = np.ones(X.shape[0], dtype=bool)
            implicit[rows] = False
            hit.append(np.flatnonzero(implicit))
            pos.append(np.full(hit[-1].size, zero))
        return np.concatenate(hit), np.concatenate(pos)

    def _one_hot_hits(self, column, j):
        """Rows of ``column`` holding a known value of column ``j``, and that value's position."""
        values = self.categories_[j]
        pos = np.searchsorted(values, column)
        pos_clipped = np.minimum(pos, values.size - 1)
        # An unknown value matches nothing: an all-zero row in the one-hot block.
        rows = np.flatnonzero(values[pos_clipped] == column)
        return rows, pos_clipped[rows]

    # ------------------------------------------------------------------ names
    def _input_names(self, input_features):
        """Input column names: checked ``input_features``, ``feature_names_in_`` or ``x0, x1...``.

        Same rules and messages as scikit-learn's ``get_feature_names_out``.
        """
        names_in = getattr(self, "feature_names_in_", None)
        if input_features is not None:
            input_features = np.asarray(input_features, dtype=object)
            if names_in is not None and not np.array_equal(names_in, input_features):
                raise ValueError("input_features is not equal to feature_names_in_")
            if len(input_features) != self.n_features_in_:
                raise ValueError("input_features should have length equal to number of features "
                                 f"({self.n_features_in_}), got {len(input_features)}")
            return input_features
        if names_in is not None:
            return names_in
        return np.array([f"x{j}" for j in range(self.n_features_in_)], dtype=object)

    def _cut_names(self, name, j, cuts, format_cuts=_format_cuts):
        """Names of the literals of thresholds ``cuts`` of column ``j``: ``f>t`` (and ``f<=t``).

        ``format_cuts``: the names of a column's distinct increasing thresholds (numbers by
        default; the estimator passes one that prints dates and durations)."""
        relation, below = (">=", "<") if self._inclusive else (">", "<=")
        # Printed with the digits that tell all of the column's thresholds apart, dropped ones included.
        # (Python floats: a column has a few thresholds, and names are written for every column.)
        everything = sorted({float(t) for c in (self._cuts[j], self._dropped[j]) if c is not None for t in c.tolist()})
        text = self._threshold_texts(j, everything, format_cuts)
        names = []
        for t in cuts:
            names.append(f"{name}{relation}{text[float(t)]}")
            if self._per_cut == 2:
                names.append(f"{name}{below}{text[float(t)]}")
        return names

    def _threshold_texts(self, j, thresholds, format_cuts=_format_cuts):
        """``{threshold: its text}`` for the distinct increasing ``thresholds`` of column ``j``.

        A binarizer fitted by this version prints each threshold as the shortest decimal that
        splits the training values as it does (:func:`_shown_cuts`), in full (two that split them
        alike, as themselves); one loaded from an older export, which lacks those numbers, rounds
        as :func:`_format_cuts` does.
        ``format_cuts`` names numbers that stand for something else (dates, durations)."""
        shown = getattr(self, "_shown", None)
        shown = shown[j] if shown is not None else None
        try:
            # Numbers print their shortest, dates and durations the training value at the cut's edge.
            side = 0 if format_cuts is _format_cuts else 1
            numbers = None if shown is None else [shown[t][side] for t in thresholds]
        except KeyError:
            numbers = None
        if numbers is not None:
            if len(set(numbers)) < len(numbers):
                # Thresholds with the same training values on either side (0 and 0.5 of counts) are
                # printed as themselves, exactly: each is then still true to the training values.
                alike = {v for v in numbers if numbers.count(v) > 1}
                numbers = [t if v in alike else v for t, v in zip(thresholds, numbers)]
            texts = [_format_exact(v) for v in numbers] if side == 0 else format_cuts(numbers)
            if len(set(texts)) == len(texts):
                return dict(zip(thresholds, texts))
        return dict(zip(thresholds, format_cuts(thresholds)))

    def _dropped_names(self, input_names):
        """Names the dropped thresholds would have had, in input column order."""
        names = []
        for j, name in enumerate(input_names):
            if self._dropped[j] is not None and len(self._dropped[j]):
                names.extend(self._cut_names(name, j, self._dropped[j]))
        return np.asarray(names, dtype=object)

    def _output_names(self, input_names, columns=None, formats=None):
        """Names of the output columns of the input columns ``columns`` (default: all), in order.

        ``formats``: column -> a function naming that column's distinct increasing thresholds
        (see :meth:`_cut_names`), for columns whose numbers stand for something else."""
        relation = ">=" if self._inclusive else ">"
        formats = formats or {}
        names = []
        for j in range(len(input_names)) if columns is None else columns:
            name = input_names[j]
            kind = self.feature_kinds_[j]
            if kind == KIND_THRESHOLD and not self._single:
                names.extend(self._cut_names(name, j, self._cuts[j], formats.get(j, _format_cuts)))
            elif kind == KIND_THRESHOLD:
                t = float(self.thresholds_[j])
                names.append(f"{name}{relation}{self._threshold_texts(j, [t], formats.get(j, _format_cuts))[t]}")
            elif kind == KIND_ONE_HOT:
                names.extend(f"{name}={value}" for value in self._value_names[j])
            elif self._value_names[j] is not None:
                names.append(f"{name}={self._value_names[j]}")
            else:
                names.append(str(name))
        return np.asarray(names, dtype=object)

    def get_feature_names_out(self, input_features=None):
        """Readable names of the output columns.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input column names.  None: ``feature_names_in_`` when fit on a
            DataFrame, otherwise ``x0, x1, ...``.  If given, it must match
            ``feature_names_in_`` when that is defined.

        Returns
        -------
        ndarray of str objects, shape (n_features_out_,)
            ``Centroid>0.312`` (``>=`` with ``inclusive=True``) for a numeric
            column, ``location=17`` for a one-hot column, the input name for
            a kept binary column.
        """
        check_is_fitted(self)
        return self._output_names(self._input_names(input_features))

    # ---------------------------------------------------------- export / import
    def to_dict(self):
        """The fitted binarizer as a JSON-serialisable dict (:meth:`from_dict` rebuilds it)."""
        check_is_fitted(self)

        def floats(values):
            return [None if not np.isfinite(v) else float(v) for v in values]

        return {
            "params": {"percentile": list(self._percentiles()), "direction": self.direction, "zeros": self.zeros,
                       "inclusive": bool(self.inclusive)},
            "single": bool(self._single),
            "cuts": [None if c is None else floats(c) for c in self._cuts],
            "dropped": [None if c is None else floats(c) for c in self._dropped],
            # Per cut column, [threshold, its shortest, its edge] (_shown_cuts).
            "shown": [None if m is None else [[float(t), float(v), float(e)] for t, (v, e) in m.items()]
                      for m in getattr(self, "_shown", None) or [None] * len(self._cuts)],
            "n_features_in": int(self.n_features_in_),
            "feature_names_in": (None if getattr(self, "feature_names_in_", None) is None
                                 else [str(n) for n in self.feature_names_in_]),
            "feature_kinds": [str(k) for k in self.feature_kinds_],
            "nominal": [bool(v) for v in self._nominal],
            "thresholds": floats(self.thresholds_) if self._single else None,
            "categories": [None if c is None else floats(c) for c in self.categories_],
            "value_names": [v if v is None or isinstance(v, str) else list(v) for v in self._value_names],
            "positive_rate": floats(self.positive_rate_),
            "missing_counts": [int(v) for v in self._missing_counts()],
            "frame_values": (None if getattr(self, "_frame_values", None) is None
                             else [None if v is None else list(v) for v in self._frame_values]),
        }

    @classmethod
    def from_dict(cls, d):
        """A fitted binarizer from :meth:`to_dict`'s output; it transforms identically."""
        try:
            percentile = d["params"]["percentile"]
            b = cls(percentile=percentile[0] if isinstance(percentile, list) and len(percentile) == 1 else percentile,
                    direction=d["params"].get("direction", ">"), zeros=d["params"].get("zeros", "include"),
                    inclusive=d["params"]["inclusive"])
            b.n_features_in_ = int(d["n_features_in"])
            if d.get("feature_names_in") is not None:
                b.feature_names_in_ = np.asarray(d["feature_names_in"], dtype=object)
            b.feature_kinds_ = np.asarray(d["feature_kinds"], dtype=str)
            b._nominal = np.asarray(d["nominal"], dtype=bool)
            b._single = bool(d.get("single", True))
            b._per_cut = 2 if b.direction == "both" else 1
            b._cuts = [None if c is None else np.asarray(c, dtype=np.float64)
                       for c in d.get("cuts", [None] * int(d["n_features_in"]))]
            b._dropped = [None if c is None else np.asarray(c, dtype=np.float64)
                          for c in d.get("dropped", [None] * int(d["n_features_in"]))]
            # An export of an earlier version has none: its names round as they did.
            b._shown = [None if m is None else {float(t): (float(v), float(e)) for t, v, e in m}
                        for m in d.get("shown", [None] * int(d["n_features_in"]))]
            if b._single:
                b.thresholds_ = np.asarray([np.nan if v is None else v for v in d["thresholds"]], dtype=np.float64)
            else:
                b.thresholds_ = list(b._cuts)
            b.categories_ = [None if c is None else np.asarray(c, dtype=np.float64) for c in d["categories"]]
            b._value_names = list(d["value_names"])
            b._inclusive = bool(d["params"]["inclusive"])
            widths = [len(c) if c is not None else (b._per_cut * len(b._cuts[j]) if b._cuts[j] is not None
                                                    and not b._single else 1)
                      for j, c in enumerate(b.categories_)]
            b._out_start = np.concatenate(([0], np.cumsum(widths))).astype(np.int64)
            b.n_features_out_ = int(b._out_start[-1])
            b.positive_rate_ = np.asarray(d["positive_rate"], dtype=np.float64)
            # Absent: exported before missing values were read (none then).
            b.missing_counts_ = np.asarray(d.get("missing_counts", [0] * b.n_features_in_), dtype=np.int64)
            frame_values = d.get("frame_values")
            b._frame_values = None if frame_values is None else [None if v is None else [str(x) for x in v]
                                                                 for v in frame_values]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a PercentileBinarizer dict: {exc!r}") from exc
        if not (len(b.feature_kinds_) == len(b._nominal) == len(b._cuts) == len(b._dropped)
                == len(b.categories_) == b.n_features_in_):
            raise ValueError("not a PercentileBinarizer dict: its per-column lists differ in length")
        constant = (b.positive_rate_ == 0) | (b.positive_rate_ == 1)
        b.constant_features_ = b._output_names(b._input_names(None))[constant]
        return b
