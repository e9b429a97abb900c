"""Raw features in, binary items out: how CorsetClassifier reads the X its users hold.

CORSET's rules are conjunctions of binary items.  Users hold continuous
descriptors, nominal attributes (numbers, strings or pandas Categoricals) and
word counts, as arrays, sparse matrices or DataFrames.  :class:`RawFeatures`
turns any of them into the binary matrix the samplers read, and remembers how,
so that ``predict`` and ``explain`` binarize new records the same way and the
rules print in the data's own terms (``tempo>120.5``, ``genre=pop``,
``cough``):

* a DataFrame's datetime and timedelta columns are numeric features in
  seconds (since 1970-01-01 UTC, or as durations), whatever their pandas
  resolution, and their items print as dates and durations
  (``signup>2021-03-14 12:00``, ``tenure<=91 days``);
* a DataFrame's ordered categorical columns (``pd.Categorical(..., ordered=True)``)
  with at least three distinct training values are ordinal features: their
  values are coded by their place in the order and cut like numbers (at
  every step of the order when the steps are few:
  ``PercentileBinarizer(ordinal_features=...)``), and their items print as
  categories (``size>medium``: large or above); with
  fewer values they are nominal;
* a DataFrame's other categorical, string and object columns are nominal features
  (their values are coded as indices into the categories seen in fit; a value
  unseen in fit is no category at all, so all its indicators are 0, and
  transform says so with an :class:`UnseenCategoryWarning`);
* data that is already binary (every value 0 or 1, no nominal column) is used
  as it is, so binary input gives exactly the rules it gave before raw input
  was accepted;
* anything else goes through a :class:`~corset.preprocessing.PercentileBinarizer`
  (numeric features cut at their training 90th percentile, or at five
  percentiles as the estimator's cross-validation decides, see
  :meth:`RawFeatures.auto_candidates`; nominal ones one-hot; for sparse
  counts, a presence literal ``f>0`` plus percentiles of the non-zero
  values).
"""
import functools
import numbers
import re
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from .._validation import check_binary_matrix, check_unique_names, counted, is_missing
from ..preprocessing import PercentileBinarizer, _first_refused, nonfinite_message

__all__ = ["RawFeatures"]

BINARIZERS = ("auto", "passthrough")


def _check_samples(values):
    """Raise scikit-learn's error for X without records (fit's and predict's alike)."""
    if values.shape[0] < 1:
        raise ValueError(f"Found array with 0 sample(s) (shape={values.shape}) while a minimum of 1 is "
                         "required by CorsetClassifier.")


def _is_frame(X):
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def _nominal_dtype(dtype):
    import pandas as pd

    return (isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dtype)
            or pd.api.types.is_string_dtype(dtype))


def typed_object_columns(X, fitted=None):
    """``X`` with its object columns of numbers read as numbers and of dates read as dates.

    A DataFrame built from Python objects (rows of a database query, a list of
    dicts) keeps such columns as ``object``: floats, ints and
    :class:`decimal.Decimal` values, or :class:`datetime.date` and
    :class:`datetime.datetime` values.  Read as nominal, each distinct value
    would become an item of its own and no threshold would cut the column.  At
    fit (``fitted`` None), a column whose every present value is a real number
    becomes float64 when it holds more than ``NUMBER_TEXT_MIN_VALUES``
    distinct values (a quantity; a few codes such as 0, 1, 2 stay categories,
    as numbers written as text do), and one whose every present value is a
    date becomes datetime64; a missing value becomes NaN or NaT (which
    satisfies none of the column's cuts).  Booleans, strings and mixed columns are left as they are.  At
    predict, ``fitted`` (the fit's :class:`RawFeatures`) says which columns
    were read so: those are converted whatever values they hold now.  Anything
    but a DataFrame is returned as it is; the caller's DataFrame is never
    modified.
    """
    if not _is_frame(X):
        return X
    import datetime
    import decimal

    import pandas as pd

    numeric = dates = None
    if fitted is not None:
        if not getattr(fitted, "frame_", False) or len(fitted.nominal_) != X.shape[1]:
            return X   # refused by the fitted features' own checks
        numeric = ~np.asarray(fitted.nominal_, dtype=bool)
        dates = [t is not None and t[0] == "datetime" for t in (fitted.temporal_ or [None] * X.shape[1])]
    converted = {}
    for j, dtype in enumerate(X.dtypes):
        if getattr(dtype, "kind", "O") != "O" or not pd.api.types.is_object_dtype(dtype):
            continue
        column = X.iloc[:, j]
        present = column[column.notna()]
        kinds = set(map(type, present))
        if not kinds:
            continue
        is_date = all(issubclass(k, datetime.date) for k in kinds)
        is_number = all(issubclass(k, (numbers.Real, decimal.Decimal)) and not issubclass(k, (bool, np.bool_))
                        for k in kinds)
        try:
            if is_date and (dates is None or dates[j]):
                converted[j] = pd.to_datetime(column)
            elif is_number and (numeric[j] if numeric is not None
                                else present.nunique() > NUMBER_TEXT_MIN_VALUES):
                converted[j] = pd.to_numeric(column)
        except (TypeError, ValueError):   # time zones mixed with naive times...: left as values
            continue
    if not converted:
        return X
    X = X.copy(deep=False)
    for j, column in converted.items():
        X.isetitem(j, column)
    return X


def _temporal_kind(dtype):
    """``"datetime"`` or ``"timedelta"`` for a pandas or numpy date/duration dtype, else None."""
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "datetime"
    if pd.api.types.is_timedelta64_dtype(dtype):
        return "timedelta"
    return None


def _per_dtype(func, dtypes):
    """``[func(t) for t in dtypes]``, calling ``func`` once per distinct dtype.

    A wide DataFrame (a thousand sparse word-count columns) shares one dtype
    object among its columns; pandas' dtype tests cost microseconds each, a
    noticeable share of a small fit when made per column.  The same object
    gets the same answer; equal but distinct objects are each tested.
    """
    dtypes = list(dtypes)   # held: an id stays that object's while the list lives
    seen = {}
    out = []
    for dtype in dtypes:
        key = id(dtype)
        if key not in seen:
            seen[key] = func(dtype)
        out.append(seen[key])
    return out


def _temporal_column(dtype):
    kind = _temporal_kind(dtype)
    tz = getattr(dtype, "tz", None) if kind == "datetime" else None
    return None if kind is None else (kind, None if tz is None else str(tz))


def _temporal_columns(X):
    """Per column of the DataFrame X: ``(kind, time zone or None)`` for a date or duration column
    (:func:`_temporal_kind`), else None."""
    return _per_dtype(_temporal_column, X.dtypes)


def _temporal_seconds(column, kind, name):
    """A datetime column as seconds since 1970-01-01 UTC (naive times read as UTC), a timedelta
    column as seconds, whatever the column's resolution; a missing value (NaT) as NaN, which
    satisfies none of the column's cuts."""
    if kind == "datetime" and getattr(column.dt, "tz", None) is not None:
        column = column.dt.tz_convert("UTC").dt.tz_localize(None)
    ticks = column.to_numpy(dtype="datetime64[ns]" if kind == "datetime" else "timedelta64[ns]")
    seconds = ticks.astype(np.int64) / 1e9
    seconds[np.isnat(ticks)] = np.nan
    return seconds


def _format_temporal(seconds, kind, tz=None):
    """Names of the cuts ``seconds`` (distinct, increasing) of a date or duration column.

    ``seconds`` are the training values at the cuts' edges (the binarizer's
    choice: ``d>2021-09-16`` holds from the 17th on for daily dates, on the
    training records exactly as the cut does), rounded to the second; dates
    print without the time of day when every cut is at midnight, and without
    seconds when all are whole minutes; more digits only when two cuts would
    otherwise print alike.
    """
    import pandas as pd

    def render(unit):
        if kind == "datetime":
            stamps = pd.to_datetime(np.asarray(seconds, dtype=np.float64), unit="s", utc=True)
            stamps = stamps.tz_convert(tz) if tz is not None else stamps.tz_localize(None)
            stamps = stamps.round(unit)
            if unit == "us":
                return [t.isoformat(sep=" ") for t in stamps]
            if all(t.hour == t.minute == t.second == 0 for t in stamps):
                fmt = "%Y-%m-%d"
            elif all(t.second == 0 for t in stamps):
                fmt = "%Y-%m-%d %H:%M"
            else:
                fmt = "%Y-%m-%d %H:%M:%S"
            return [t.strftime(fmt) + (t.strftime("%z") if tz is not None else "") for t in stamps]
        deltas = pd.to_timedelta(np.asarray(seconds, dtype=np.float64), unit="s").round(unit)
        return [str(d).removesuffix(" 00:00:00") for d in deltas]   # "91 days", not "91 days 00:00:00"

    names = render("s")
    return names if len(set(names)) == len(names) else render("us")


def _category_code(index, value):
    """The code of a nominal ``value`` among a column's categories (``index``: text -> code); -1 for a
    missing value or one unseen in fit.

    Categories are the values' text.  A number written another way than in
    fit (1.0 where fit saw 1, or 1 where it saw 1.0: an object column of
    integers becomes floats when a missing value joins it) is the same
    category.
    """
    if is_missing(value):
        return -1
    code = index.get(str(value))
    if code is not None:
        return code
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return index.get(str(int(value)), -1)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return index.get(str(float(value)), -1)
    return -1


ORDINAL_MIN_VALUES = 3
"""An ordered categorical column is ordinal (cut like numbers) when its training values hold at least
this many of its categories; with two, a literal per value (nominal) says the same, and names it."""


def _ordinal_column(column):
    """The categories (as text, in their order) of an ordered categorical ``column`` whose values
    hold at least ``ORDINAL_MIN_VALUES`` of them, else None."""
    import pandas as pd

    dtype = column.dtype
    if not (isinstance(dtype, pd.CategoricalDtype) and dtype.ordered):
        return None
    codes = column.cat.codes.to_numpy()
    if np.unique(codes[codes >= 0]).size < ORDINAL_MIN_VALUES:
        return None
    return [str(c) for c in dtype.categories]


def _ordinal_columns(X):
    """Per column of the DataFrame X: its categories when it is ordinal (:func:`_ordinal_column`),
    else None; None when no column is."""
    import pandas as pd

    found = [_ordinal_column(X.iloc[:, j]) if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered else None
             for j, dtype in enumerate(X.dtypes)]
    return found if any(c is not None for c in found) else None


def _ordinal_options(X):
    """``{"ordinal_features": mask}`` of a DataFrame's ordinal columns for a
    :class:`~corset.preprocessing.PercentileBinarizer` (cut at every step of their order), or ``{}``."""
    ordinal = _ordinal_columns(X) if _is_frame(X) else None
    return {} if ordinal is None else {"ordinal_features": np.array([c is not None for c in ordinal])}


def _ordinal_codes(column, categories, name):
    """An ordinal column's values as their places in ``categories`` (0 for the first), a missing
    value as NaN (it satisfies none of the column's cuts); a value that is not among them raises,
    naming the column: no place in the order says where it belongs."""
    index = {c: i for i, c in enumerate(categories)}
    codes = np.fromiter((_category_code(index, v) for v in column), dtype=np.float64, count=len(column))
    codes[column.isna().to_numpy()] = np.nan
    bad = np.flatnonzero(codes < 0)
    if bad.size:
        value = column.iloc[int(bad[0])]
        order = " < ".join(categories)
        raise ValueError(f"column {name!r} of X holds {str(value)!r}, which is not among its ordered categories "
                         f"in fit ({order}): no place in the order says where it belongs")
    return codes


def _format_ordinal(edges, categories, inclusive=False):
    """Names of the cuts of an ordinal column: the category at each cut's edge.

    ``edges`` are the training codes next to the cuts (the binarizer's: for
    ``x > t`` the greatest code that fails, so ``size>medium`` holds from the
    category after medium on; for ``x >= t`` the least that holds); a cut
    without a training code beside it falls back to the threshold, read as
    the category below it (above it for ``>=``).
    """
    last = len(categories) - 1
    place = np.ceil if inclusive else np.floor
    return [categories[int(min(max(place(e), 0), last))] for e in np.asarray(edges, dtype=np.float64)]


def _sparse_column_arrays(X):
    """The SparseArrays of a DataFrame of sparse columns, in column order.

    ``DataFrame.items()`` builds a Series per column, about 15 µs each: on a
    frame of a thousand word counts that is a tenth of a small fit, and again
    at each ``predict``.  pandas' own column iterator hands out the arrays
    without the Series; when it is missing or gives anything else (another
    pandas version), the public path is taken.
    """
    import pandas as pd

    iterate = getattr(X, "_iter_column_arrays", None)
    if iterate is not None:
        try:
            arrays = list(iterate())
        except (TypeError, AttributeError, ValueError):   # a private method that changed: the public path
            arrays = None
        if (arrays is not None and len(arrays) == X.shape[1]
                and all(isinstance(a, pd.arrays.SparseArray) for a in arrays)):
            return arrays
    return [column.array for _, column in X.items()]


def _sparse_frame_values(X):
    """A DataFrame of sparse numeric columns as a float64 CSR array; None when a fill value is not 0.

    The columns' stored values and their rows are read in one pass (what
    ``X.sparse.to_coo()`` reads, without its COO detour: a tenth of the
    conversion time of a thousand-column frame goes there).  A column that
    fills with anything but 0 (NaN, another number) stores the other values:
    the caller then reads the columns densely, so no value is lost.
    """
    import pandas as pd

    lengths = np.empty(X.shape[1], dtype=np.int64)
    rows, values = [], []
    for j, array in enumerate(_sparse_column_arrays(X)):
        fill = array.fill_value
        if pd.isna(fill) or fill != 0:
            return None
        rows.append(array.sp_index.indices)
        values.append(array.sp_values)
        lengths[j] = rows[-1].size
    indptr = np.zeros(X.shape[1] + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    data = np.concatenate(values).astype(np.float64, copy=False) if values else np.zeros(0)
    indices = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int32)
    return sp.csc_array((data, indices, indptr), shape=X.shape).tocsr()


NUMBER_TEXT_MIN_VALUES = 10
"""A text column with more distinct values than this, all of them numbers, is warned about: codes of a
few categories ("1", "2", "3") are nominal as given, a quantity has many values."""
NUMBER_TEXT_MAX_OTHERS = 3
"""... and so is one whose values are such numbers but for at most this many others ("unknown",
"n/a", "see notes"): a quantity with a few cells of text, which make the whole column text."""


# A number grouping its thousands with commas ("1,234.5"), or followed by a percent sign ("12%").
_COMMA_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?")
_PERCENT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)\s*%")


def _reads_as_number(value):
    """Whether ``value`` is a finite number, or text that Python reads as one ("12.5", "-3", "1e-4")
    or a spreadsheet writes as one ("1,234", "12%"); never a boolean."""
    if isinstance(value, (bool, np.bool_)):
        return False
    try:
        return bool(np.isfinite(float(value)))
    except (TypeError, ValueError):
        text = str(value).strip()
        return bool(_COMMA_GROUPED.fullmatch(text) or _PERCENT.fullmatch(text))


class UnseenCategoryWarning(UserWarning):
    """New records hold a nominal value that fit never saw, or a missing one: they match none of the
    column's ``column=value`` literals (and every ``column!=value``)."""


def _warn_unseen_categories(unknown):
    """One :class:`UnseenCategoryWarning` for the nominal columns of new records with values unseen
    in fit or missing: ``unknown`` holds (column name, those values as a Series) pairs."""
    parts = []
    for name, values in unknown[:5]:
        missing = int(values.isna().sum()) if hasattr(values, "isna") else 0
        seen = values.dropna() if hasattr(values, "dropna") else values
        shown = ", ".join(repr(v) for v in list(dict.fromkeys(seen.tolist()))[:3])
        what = [f"{counted(len(seen), 'record')} with values fit never saw ({shown})"] if len(seen) else []
        what += [f"{missing if what else counted(missing, 'record')} with a missing value"] if missing else []
        parts.append(f"{name!r}: {' and '.join(what)}")
    more = f"; and {len(unknown) - 5} more column(s)" if len(unknown) > 5 else ""
    warnings.warn(f"nominal column(s) of X {'; '.join(parts)}{more}: such a record matches none of the column's "
                  "'=' literals (and every '!=' one)", UnseenCategoryWarning, stacklevel=_caller_stacklevel())


def _caller_stacklevel():
    """The ``stacklevel`` of ``warnings.warn`` (called by this function's caller) that names the first
    frame outside the corset package: predict, predict_proba, explain and score reach the warning
    through different numbers of the package's own frames."""
    import os
    import sys

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(2), 2   # the frame that calls warnings.warn is level 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


# pandas' name for a CSV column without a name ("Unnamed: 0": the row index DataFrame.to_csv writes).
_UNNAMED = re.compile(r"Unnamed: \d+")


class RawFeatures:
    """The fitted conversion of raw X into binary items (see the module docstring).

    Parameters
    ----------
    binarizer : "auto", "passthrough" or a transformer
        "auto": use X as it is when it is binary, else a
        :class:`~corset.preprocessing.PercentileBinarizer` with its defaults;
        "passthrough": X must be binary; a transformer (unfitted, e.g. a
        configured ``PercentileBinarizer``): cloned and fitted on X.
    """

    def __init__(self, binarizer="auto"):
        self.binarizer = binarizer

    @classmethod
    def auto_candidates(cls, X, percentiles, converted=None):
        """What ``binarizer="auto"`` chooses between for ``X``: ``(numeric X, binarizers by name)``, or None.

        None for binary X (used as it is).  Otherwise X as numbers (nominal
        values as codes, a DataFrame converted once) and one
        :class:`~corset.preprocessing.PercentileBinarizer` per entry of
        ``percentiles`` (name -> percentile or percentiles), told which
        columns are nominal, with zeros treated as absence for sparse X
        (``zeros="presence"``).  Each binarizer gives on the numbers the items
        it gives on X.  When every column is nominal, only the first entry is
        returned: the percentiles cut numeric columns only, so every
        candidate would give the same items (and their race would refit the
        same model).  ``converted``: X's conversion by :meth:`numeric`, when
        the caller already made it.
        """
        values, _, nominal, categories = converted if converted is not None else cls.numeric(X)
        if not nominal.any() and cls._all_binary(values):
            return None
        zeros = "presence" if sp.issparse(values) else "include"
        options = {"nominal_features": nominal, "categories": list(categories)} if nominal.any() else {}
        options.update(_ordinal_options(X))
        if nominal.size and nominal.all():
            percentiles = dict([next(iter(percentiles.items()))])
        return values, {name: PercentileBinarizer(percentile=p, zeros=zeros, **options)
                        for name, p in percentiles.items()}

    # -- fit ------------------------------------------------------------------
    def fit_transform(self, X, feature_names=None, converted=None, item_names=True, fitted=None):
        """Fit on raw ``X``; return ``(binary CSR or array, item names)``.

        ``feature_names`` names the columns of an array or sparse X;
        ``converted`` is X's conversion by :meth:`numeric`, when the caller
        already made it (a DataFrame of a thousand columns takes a tenth of
        a second to convert).  ``item_names=False``: the binarizer's items
        are named ``item0``, ``item1``... (for models that are only scored:
        a hundred thousand readable names take a tenth of a second).
        ``fitted``: a clone of ``binarizer`` (a transformer) already fitted
        on X's numbers, as this fit would fit it (the estimator's choice of
        cuts fits each candidate on all of X): taken over, not refitted.
        """
        values, names, nominal, categories = converted if converted is not None else self.numeric(X)
        self.frame_ = _is_frame(X)
        # Which columns were dates or durations (X's dtypes say it; ``converted`` does not).
        self.temporal_ = _temporal_columns(X) if self.frame_ else None
        # Which columns were ordinal, with their categories (as _frame read them).
        self.ordinal_ = _ordinal_columns(X) if self.frame_ else None
        if feature_names is not None:
            feature_names = [str(n) for n in feature_names]
            if _is_frame(X):
                raise ValueError("feature_names is for arrays and sparse matrices; a DataFrame's columns are "
                                 "its names")
            if len(feature_names) != values.shape[1]:
                raise ValueError(f"feature_names has {len(feature_names)} names for {values.shape[1]} columns "
                                 "of X")
            check_unique_names(feature_names, "feature_names", "column of X")
            names = feature_names
        n_samples, n_features = values.shape
        _check_samples(values)
        if n_features < 1:
            raise ValueError(f"Found array with 0 feature(s) (shape={values.shape}) while a minimum of 1 is "
                             "required by CorsetClassifier.")
        self.input_names_ = names
        self.nominal_ = nominal
        self.frame_categories_ = categories
        binarizer = self.binarizer
        is_binary = not nominal.any() and self._all_binary(values)
        if isinstance(binarizer, str) and binarizer == "passthrough" or (
                isinstance(binarizer, str) and binarizer == "auto" and is_binary):
            self.binarizer_ = None
            Xb = check_binary_matrix(values, "X")
            return Xb, list(names)
        if isinstance(binarizer, str):
            # Sparse counts (word counts): presence, and thresholds on the non-zero values.
            self.binarizer_ = PercentileBinarizer(zeros="presence" if sp.issparse(values) else "include",
                                                  **_ordinal_options(X))
        else:
            self.binarizer_ = clone(binarizer)
            if (isinstance(self.binarizer_, PercentileBinarizer) and self.binarizer_.ordinal_features is None
                    and self.binarizer_.zeros == "include"):
                self.binarizer_.set_params(**_ordinal_options(X))
        if isinstance(self.binarizer_, PercentileBinarizer) and nominal.any():
            if self.binarizer_.nominal_features is None and self.binarizer_.feature_types is None:
                self.binarizer_.set_params(nominal_features=nominal)
            if self.binarizer_.categories is None:
                self.binarizer_.set_params(categories=[c if c is not None else None for c in categories])
        if fitted is not None:
            self.binarizer_ = fitted
            Xb = fitted.transform(values)
        else:
            Xb = self.binarizer_.fit_transform(values)
        if not item_names:
            return check_binary_matrix(Xb, "X"), [f"item{k}" for k in range(Xb.shape[1])]
        formats = {}
        if isinstance(self.binarizer_, PercentileBinarizer):
            # Dates and durations print as such, not as the seconds the binarizer cut; ordinal
            # columns as their categories, not as their places in the order.
            formats = {j: functools.partial(_format_temporal, kind=t[0], tz=t[1])
                       for j, t in enumerate(self.temporal_ or ()) if t is not None}
            formats.update({j: functools.partial(_format_ordinal, categories=c, inclusive=self.binarizer_._inclusive)
                            for j, c in enumerate(self.ordinal_ or ()) if c is not None})
        if formats:
            out_names = [str(n) for n in self.binarizer_._output_names(
                self.binarizer_._input_names(names), formats=formats)]
        else:
            out_names = [str(n) for n in self.binarizer_.get_feature_names_out(names)]
        return check_binary_matrix(Xb, "X"), out_names

    def paired_columns(self):
        """The binary columns of two-valued nominal columns, each the other's complement on the
        training records (:meth:`~corset.preprocessing.PercentileBinarizer._paired_columns`);
        none without a :class:`~corset.preprocessing.PercentileBinarizer`."""
        if isinstance(getattr(self, "binarizer_", None), PercentileBinarizer):
            return self.binarizer_._paired_columns()
        return np.zeros(0, dtype=np.int64)

    def _missing_in_fit(self):
        """How many training records miss each input column (the binarizer's count), or None when
        X was binary or binarized by another transformer."""
        binarizer = getattr(self, "binarizer_", None)
        return binarizer._missing_counts() if isinstance(binarizer, PercentileBinarizer) else None

    def missing_items(self):
        """Per binary item, is its input column missing on some training records (then NOT of the
        item also holds there, and is not the opposite comparison); None when no column is."""
        counts = self._missing_in_fit()
        if counts is None or not counts.any():
            return None
        return np.repeat(counts > 0, np.diff(self.binarizer_._out_start))

    def transform(self, X):
        """Binarize new raw records the way ``fit_transform`` did."""
        values, names, _, _ = self._numeric(X, fit=False)
        _check_samples(values)   # as fit does, naming the estimator, not the binarizer inside it
        if self.binarizer_ is None:
            return check_binary_matrix(values, "X")
        try:
            Xb = self.binarizer_.transform(values)
        except ValueError:
            # The binarizer saw numbers only and names a column x<j>: name it as the user does.
            # (Checked here only on failure: a second pass over every value would cost predict.)
            self.check_finite((values, names))
            raise
        return check_binary_matrix(Xb, "X")

    # -- conversion to numbers ------------------------------------------------------
    @classmethod
    def numeric(cls, X):
        """Raw training X as numbers: ``(values, input names, nominal mask, categories per column)``."""
        return cls()._numeric(X, fit=True)

    @staticmethod
    def number_text_columns(X):
        """``(name, others)`` of each of a DataFrame's text columns whose more than
        ``NUMBER_TEXT_MIN_VALUES`` distinct values read as numbers ("12.5", "-3", or numbers among
        text), but for at most ``NUMBER_TEXT_MAX_OTHERS`` others (``others``, the values that do
        not, sorted; empty when every value reads as a number): quantities kept as text (a
        spreadsheet's export, one cell written "unknown"), which would become one item per value,
        none cut.  Categorical columns are categories by declaration (an ARFF file's nominal site
        numbers): not among them."""
        if not _is_frame(X):
            return []
        import pandas as pd

        found = []
        for j, dtype in enumerate(X.dtypes):
            if getattr(dtype, "kind", "O") != "O":
                continue   # numbers, booleans, dates: at an attribute's cost (a text file has thousands)
            if isinstance(dtype, pd.CategoricalDtype) or not (pd.api.types.is_object_dtype(dtype)
                                                              or pd.api.types.is_string_dtype(dtype)):
                continue
            values = X.iloc[:, j].dropna().unique()
            if len(values) <= NUMBER_TEXT_MIN_VALUES:
                continue
            others = [v for v in values if not _reads_as_number(v)]
            if len(others) <= NUMBER_TEXT_MAX_OTHERS and len(values) - len(others) > NUMBER_TEXT_MIN_VALUES:
                found.append((str(X.columns[j]), sorted(str(v) for v in others)))
        return found

    @staticmethod
    def row_index_columns(X):
        """Names of a DataFrame's columns named as pandas names a CSV column without a name
        ("Unnamed: 0") that hold distinct whole numbers in increasing order: the row index that
        ``DataFrame.to_csv`` writes by default, read back as a column."""
        if not _is_frame(X):
            return []
        import pandas as pd

        found = []
        for j, name in enumerate(X.columns):
            if not (isinstance(name, str) and _UNNAMED.fullmatch(name)):
                continue   # the name first: taking each of a thousand columns costs a fit's tenth
            column = X.iloc[:, j]
            if (pd.api.types.is_integer_dtype(column.dtype) and len(column) > 1
                    and bool(np.all(np.diff(column.to_numpy()) > 0))):
                found.append(name)
        return found

    @staticmethod
    def identifier_columns(converted, feature_names=None):
        """Names of the nominal columns of X's conversion (:meth:`numeric`) that hold a different value
        in every record, such as a record's identifier: each of their items matches one record.

        Columns of a DataFrame only (an array's nominal columns are declared by the user); none below
        two records.  Named as :meth:`check_finite` names them.
        """
        values, names, nominal, categories = converted
        n = values.shape[0]
        if n < 2 or not nominal.any() or sp.issparse(values):
            return []
        if feature_names is not None and len(feature_names) == len(names):
            names = [str(name) for name in feature_names]
        # A column with fewer values (declared or seen) than records repeats one: no sort needed.
        return [names[j] for j in np.flatnonzero(nominal)
                if categories[j] is not None and len(categories[j]) >= n and np.unique(values[:, j]).size == n]

    @staticmethod
    def check_finite(converted, feature_names=None):
        """Raise for infinity in X's numbers (:meth:`numeric`'s output), naming X's column.  (NaN,
        dense or stored in a sparse matrix, is a missing value, which satisfies none of its column's
        literals: :class:`~corset.preprocessing.PercentileBinarizer`.)

        The name is the column's in ``feature_names`` when given (one per column), else X's own.
        """
        values, names = converted[0], converted[1]
        found = _first_refused(values)
        if found is not None:
            if feature_names is not None and len(feature_names) == len(names):
                names = [str(n) for n in feature_names]
            raise ValueError(nonfinite_message(found[1], names[found[0]]))

    def _numeric(self, X, fit):
        """``(values, input names, nominal mask, categories per column)``; nominal values as codes."""
        if _is_frame(X):
            return self._frame(X, fit)
        if sp.issparse(X):
            values = sp.csr_array(X)
            if values.dtype.kind not in "biuf":
                raise ValueError(f"X must hold numbers; got a sparse matrix of dtype {values.dtype}")
            values = values.astype(np.float64)
        else:
            if getattr(X, "dtype", None) is not None and X.dtype.kind in "mM":
                # A datetime64 array's numbers depend on its unit (days, seconds...): rules and new
                # records would be read in whatever unit each array has.
                raise ValueError(f"X is a NumPy {X.dtype} array; pass a pandas DataFrame whose date or duration "
                                 "columns are read as such (in seconds, whatever their resolution)")
            try:
                values = np.asarray(X)
                complex_values = values.dtype.kind == "c"
                if not complex_values:
                    values = np.asarray(values, dtype=np.float64)
            except ValueError:
                raise ValueError("X holds values that are not numbers: pass a pandas DataFrame, whose string "
                                 "and categorical columns are read as nominal features") from None
            if complex_values:
                # float64 would keep the real parts and drop the imaginary ones without a word.
                raise ValueError("Complex data not supported: X holds complex numbers; the features must be real "
                                 "numbers")
            if values.ndim != 2:
                raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {values.shape}")
        n = values.shape[1]
        names = [f"x{j}" for j in range(n)] if fit else self.input_names_
        if not fit and getattr(self, "temporal_", None) is not None and any(self.temporal_):
            raise ValueError("X was a DataFrame with date or duration columns in fit; pass a DataFrame with "
                             "the same columns")
        return values, names, np.zeros(n, dtype=bool), [None] * n

    def _frame(self, X, fit):
        import pandas as pd

        names = [str(c) for c in X.columns]
        if fit:
            nominal = np.array(_per_dtype(_nominal_dtype, X.dtypes), dtype=bool)
            ordinal = _ordinal_columns(X)
            if ordinal is not None:   # ordered categories: cut like numbers, not one-hot
                nominal[[j for j, c in enumerate(ordinal) if c is not None]] = False
        else:
            nominal = self.nominal_
            ordinal = getattr(self, "ordinal_", None)
            if len(names) != len(nominal):
                raise ValueError(f"X has {len(names)} columns; the model was fitted on {len(nominal)}")
            if getattr(self, "frame_", False) and names != list(self.input_names_):
                # scikit-learn checks string column names only: integer or tuple names in another
                # order would be read by position, each rule testing another column.
                moved = next(j for j, (a, b) in enumerate(zip(names, self.input_names_)) if a != b)
                raise ValueError(f"X's columns differ from those seen in fit: column {moved} is "
                                 f"{names[moved]!r}, it was {self.input_names_[moved]!r} in fit; pass the "
                                 "columns of fit, in their order")
        if all(isinstance(t, pd.SparseDtype) for t in X.dtypes) and not nominal.any():
            values = _sparse_frame_values(X)
            if values is not None:
                return values, names, nominal, [None] * len(names)
        kinds = _per_dtype(_temporal_kind, X.dtypes)
        if not fit:
            fitted = getattr(self, "temporal_", None) or [None] * len(names)
            for j, name in enumerate(names):
                was = None if fitted[j] is None else fitted[j][0]
                if kinds[j] != was:
                    said = {"datetime": "dates", "timedelta": "durations", None: "neither dates nor durations"}
                    raise ValueError(f"column {name!r} of X held {said[was]} in fit; it holds "
                                     f"{said[kinds[j]]} (dtype {X.dtypes.iloc[j]}) now")
        columns, categories, unknown = [], [], []
        if not fit:
            missing_in_fit = self._missing_in_fit()
            if missing_in_fit is None:
                missing_in_fit = np.zeros(len(names), dtype=np.int64)
        for j, name in enumerate(names):
            column = X.iloc[:, j]
            if kinds[j] is not None:
                columns.append(_temporal_seconds(column, kinds[j], name))
                categories.append(None)
                continue
            if ordinal is not None and ordinal[j] is not None:
                columns.append(_ordinal_codes(column, ordinal[j], name))
                categories.append(None)
                continue
            if not nominal[j]:
                if column.dtype.kind == "c":
                    raise ValueError(f"Complex data not supported: column {name!r} of X holds complex numbers; the "
                                     "features must be real numbers")
                try:
                    columns.append(np.asarray(column, dtype=np.float64))
                except (TypeError, ValueError):
                    raise ValueError(f"column {name!r} of X holds values that are not numbers") from None
                categories.append(None)
                continue
            if fit:
                if isinstance(column.dtype, pd.CategoricalDtype):
                    cats = [str(c) for c in column.cat.categories]
                else:
                    cats = sorted({str(v) for v in column.dropna()})
            else:
                cats = self.frame_categories_[j]
            index = {c: i for i, c in enumerate(cats)}
            # A value unseen in fit is coded -1, a missing one NaN: no indicator of the column is set.
            codes = np.fromiter((_category_code(index, v) for v in column), dtype=np.float64, count=len(column))
            gaps = column.isna().to_numpy()
            codes[gaps] = np.nan
            if not fit:
                # Said: values fit never saw, and missing values where fit saw none in the column.
                said = (codes < 0) | (gaps & (missing_in_fit[j] == 0))
                if said.any():
                    unknown.append((name, column[said]))
            columns.append(codes)
            categories.append(cats)
        if unknown:
            _warn_unseen_categories(unknown)
        values = np.column_stack(columns) if columns else np.zeros((len(X), 0))
        return values, names, nominal, categories

    @staticmethod
    def _all_binary(values):
        data = values.data if sp.issparse(values) else values
        return bool(np.all((data == 0) | (data == 1)))

    # -- export -----------------------------------------------------------------
    def to_dict(self):
        return {
            "frame": bool(getattr(self, "frame_", False)),
            "input_names": list(self.input_names_),
            "nominal": [bool(v) for v in self.nominal_],
            "frame_categories": [None if c is None else list(c) for c in self.frame_categories_],
            "temporal": (None if getattr(self, "temporal_", None) is None
                         else [None if t is None else list(t) for t in self.temporal_]),
            "ordinal": (None if getattr(self, "ordinal_", None) is None
                        else [None if c is None else list(c) for c in self.ordinal_]),
            "binarizer": None if self.binarizer_ is None else self.binarizer_.to_dict(),
        }

    @classmethod
    def from_dict(cls, d):
        features = cls("auto")
        features.frame_ = bool(d.get("frame", False))
        features.input_names_ = list(d["input_names"])
        features.nominal_ = np.asarray(d["nominal"], dtype=bool)
        features.frame_categories_ = [None if c is None else list(c) for c in d["frame_categories"]]
        temporal = d.get("temporal")   # absent: saved before date columns were read as such
        features.temporal_ = None if temporal is None else [None if t is None else tuple(t) for t in temporal]
        ordinal = d.get("ordinal")   # absent: saved before ordered categories were cut like numbers
        features.ordinal_ = None if ordinal is None else [None if c is None else [str(v) for v in c] for c in ordinal]
        binarizer = d.get("binarizer")
        features.binarizer_ = None if binarizer is None else PercentileBinarizer.from_dict(binarizer)
        return features


def check_binarizer(binarizer):
    """``binarizer`` must be "auto", "passthrough" or an object with fit_transform and transform."""
    if isinstance(binarizer, str):
        if binarizer not in BINARIZERS:
            raise ValueError(f"The 'binarizer' parameter of CorsetClassifier must be one of {BINARIZERS} or a "
                             f"transformer. Got {binarizer!r} instead.")
        return binarizer
    if isinstance(binarizer, numbers.Number) or not (hasattr(binarizer, "fit_transform")
                                                     and hasattr(binarizer, "transform")):
        raise ValueError(f"The 'binarizer' parameter of CorsetClassifier must be one of {BINARIZERS} or a "
                         f"transformer with fit_transform and transform. Got {binarizer!r} instead.")
    return binarizer
