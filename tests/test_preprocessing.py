"""Tests of corset.preprocessing.PercentileBinarizer (the paper's percentile binarization)."""
import pickle
import re
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.utils.estimator_checks import parametrize_with_checks

from corset import preprocessing
from corset.preprocessing import PercentileBinarizer, _format_threshold

arff = pytest.importorskip("arff")


def _shortest_cut(values, t, inclusive=False):
    """Brute force, in exact decimals: the text of the shortest number that splits ``values`` as the
    cut ``t`` does (``x > t``, or ``x >= t``), the nearest to ``t`` among the shortest; ``t`` itself
    (rounded as before) when no training value lies on one side."""
    from decimal import Decimal, ROUND_CEILING, ROUND_FLOOR

    values = np.asarray(values, dtype=np.float64)
    holds = values >= t if inclusive else values > t
    if holds.all() or not holds.any():
        return _format_threshold(t)
    lo, hi, exact = Decimal(float(values[~holds].max())), Decimal(float(values[holds].min())), Decimal(float(t))
    for e in range(30, -30, -1):
        step = Decimal(10) ** e
        if inclusive:
            k_min = (lo / step).to_integral_value(rounding=ROUND_FLOOR) + 1
            k_max = (hi / step).to_integral_value(rounding=ROUND_FLOOR)
        else:
            k_min = (lo / step).to_integral_value(rounding=ROUND_CEILING)
            k_max = (hi / step).to_integral_value(rounding=ROUND_CEILING) - 1
        if k_min <= k_max:
            k = min(max((exact / step).to_integral_value(), k_min), k_max)
            text = repr(float(k * step))
            return "0" if float(text) == 0 else text[:-2] if text.endswith(".0") else text
    raise AssertionError("no decimal between two distinct floats")

PERCENTILES = [0, 10, 37.5, 50, 90, 99, 100]


def _random_numeric(seed, n=57, d=6):
    """Continuous columns of different scales, signs and shapes, plus a column with many ties."""
    rng = np.random.RandomState(seed)
    X = np.column_stack([
        rng.normal(size=n),
        rng.exponential(scale=100.0, size=n),
        -rng.uniform(size=n),
        rng.randint(0, 4, size=n).astype(float),
        np.where(rng.uniform(size=n) < 0.8, 0.0, rng.uniform(1, 2, size=n)),
        rng.standard_t(3, size=n) * 1e-4,
    ])
    return X[:, :d]


# --------------------------------------------------------------- thresholds
@pytest.mark.parametrize("percentile", PERCENTILES)
def test_thresholds_are_numpy_percentiles(percentile, global_random_seed):
    X = _random_numeric(global_random_seed)
    b = PercentileBinarizer(percentile=percentile).fit(X)
    expected = np.array([np.percentile(X[:, j], percentile) for j in range(X.shape[1])])
    np.testing.assert_array_equal(b.thresholds_, expected)
    assert list(b.feature_kinds_) == ["threshold"] * X.shape[1]
    Xt = b.transform(X)
    assert Xt.dtype == np.uint8 and isinstance(Xt, np.ndarray)
    np.testing.assert_array_equal(Xt, (X > expected).astype(np.uint8))
    np.testing.assert_array_equal(
        PercentileBinarizer(percentile=percentile, inclusive=True).fit_transform(X),
        (X >= expected).astype(np.uint8))


def test_thresholds_interpolate_linearly():
    # 90th percentile of 0..10 lies between order statistics 9 and 10 of 0, 10, ..., 100.
    X = np.arange(0.0, 101.0, 10.0)[:, None]
    b = PercentileBinarizer(percentile=85).fit(X)
    assert b.thresholds_[0] == pytest.approx(85.0)
    # Printed as the shortest number that splits 0, 10, ..., 100 as 85 does.
    assert b.get_feature_names_out().tolist() == ["x0>80"]


def test_strict_and_inclusive_differ_on_ties():
    # Column 0: the 50th percentile (2) is tied with most values and is the maximum.
    # Column 1: the 90th percentile (0) equals the minimum, as for 101 birds features.
    X = np.array([[1, 0], [2, 0], [2, 0], [2, 0], [2, 0], [2, 0], [2, 0], [2, 0], [2, 0], [2, 5.0]])
    strict = PercentileBinarizer(percentile=50).fit(X)
    inclusive = PercentileBinarizer(percentile=50, inclusive=True).fit(X)
    np.testing.assert_array_equal(strict.thresholds_, [2, 0])
    np.testing.assert_array_equal(strict.transform(X)[:, 0], np.zeros(10))
    np.testing.assert_array_equal(inclusive.transform(X)[:, 0], [0] + [1] * 9)
    np.testing.assert_array_equal(strict.transform(X)[:, 1], [0] * 9 + [1])
    np.testing.assert_array_equal(inclusive.transform(X)[:, 1], np.ones(10))
    assert strict.get_feature_names_out().tolist() == ["x0>2", "x1>0"]
    assert inclusive.get_feature_names_out().tolist() == ["x0>=2", "x1>=0"]
    assert strict.constant_features_.tolist() == ["x0>2"]
    assert inclusive.constant_features_.tolist() == ["x1>=0"]


@pytest.mark.parametrize("t, text", [
    (0.3125, "0.312"), (0.31, "0.31"), (3.0, "3"), (-0.0, "0"), (0.0, "0"), (1234.5, "1234"),
    (-0.000123456, "-0.000123"), (12.345, "12.3"), (2.5e-7, "2.5e-07"),
])
def test_threshold_format(t, text):
    assert _format_threshold(t) == text


# ----------------------------------------------------- binary and nominal
def test_binary_numeric_columns_are_kept():
    rng = np.random.RandomState(0)
    X = np.column_stack([rng.randint(0, 2, size=40), rng.normal(size=40), np.zeros(40)]).astype(float)
    b = PercentileBinarizer().fit(X)
    assert b.feature_kinds_.tolist() == ["binary", "threshold", "binary"]
    assert np.isnan(b.thresholds_[[0, 2]]).all() and not np.isnan(b.thresholds_[1])
    Xt = b.transform(X)
    np.testing.assert_array_equal(Xt[:, 0], X[:, 0])
    assert b.get_feature_names_out().tolist()[0::2] == ["x0", "x2"]
    assert b.constant_features_.tolist() == ["x2"]
    # New data with other values: a presence literal x > 0, never an error.
    X_new = X.copy()
    X_new[:4, 0] = [2, 0.15, -1, 0]
    X_new[:4, 2] = [4, 0, 1, -3]
    for data in (X_new, sp.csr_array(X_new)):
        out = b.transform(data)
        out = out.toarray() if sp.issparse(out) else out
        np.testing.assert_array_equal(out[:4, 0], [1, 1, 0, 0])
        np.testing.assert_array_equal(out[:4, 2], [1, 0, 1, 0])
        np.testing.assert_array_equal(out[4:, 0], X[4:, 0])


def test_nominal_binary_columns_take_an_unseen_value_as_absent():
    X = np.array([[0, 0.5], [1, 0.1], [1, 0.2], [0, 0.9]])
    b = PercentileBinarizer(percentile=50, nominal_features=[0]).fit(X)
    assert b.feature_kinds_.tolist() == ["binary", "threshold"]
    out = b.transform(np.array([[2, 0.5], [1, 0.5], [-1, 0.5]]))
    np.testing.assert_array_equal(out[:, 0], [0, 1, 0])


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["emotions", "birds", "medical", "enron", "CAL500", "corel5k", "bibtex"])
def test_fitted_on_half_the_records_it_never_fails_on_the_other_half(name, data_dir):
    """The binarizer fitted on a random half of a data set binarizes the other half (several seeds)."""
    from corset.datasets import load_benchmark

    full = load_benchmark(name, subset="full", data_home=data_dir)
    X = full.X
    cats = [full.categories.get(n) for n in full.feature_names]
    for seed in range(3):
        perm = np.random.RandomState(seed).permutation(X.shape[0])
        half = X.shape[0] // 2
        b = PercentileBinarizer(feature_types=full.feature_types, categories=cats).fit(X[np.sort(perm[:half])])
        out = b.transform(X[np.sort(perm[half:])])
        assert out.shape == (X.shape[0] - half, b.n_features_out_)


def test_one_hot_of_nominal_columns_without_declared_values():
    X = np.array([[3, 0, 0.5], [1, 1, 0.1], [7, 1, 0.2], [3, 0, 0.9]])
    b = PercentileBinarizer(percentile=50, nominal_features=[0, 1]).fit(X)
    assert b.feature_kinds_.tolist() == ["one-hot", "binary", "threshold"]
    np.testing.assert_array_equal(b.categories_[0], [1, 3, 7])
    assert b.categories_[1] is None and b.categories_[2] is None
    assert b.get_feature_names_out().tolist() == ["x0=1", "x0=3", "x0=7", "x1", "x2>0.4"]
    np.testing.assert_array_equal(b.transform(X), [[0, 1, 0, 0, 1], [1, 0, 0, 1, 0], [0, 0, 1, 1, 0],
                                                  [0, 1, 0, 0, 1]])
    # A value unseen in fit gives an all-zero one-hot block, not an error.
    np.testing.assert_array_equal(b.transform([[5, 0, 0.0], [8, 1, 1.0]]), [[0, 0, 0, 0, 0], [0, 0, 0, 1, 1]])
    np.testing.assert_array_equal(b.transform(sp.csr_array([[5, 0, 0.0], [0, 1, 1.0]])).toarray(),
                                  [[0, 0, 0, 0, 0], [0, 0, 0, 1, 1]])


def test_one_hot_with_declared_categories():
    # Values arrive as indices into the declared values, as the loaders encode them.
    X = np.array([[0, 1, 0], [2, 0, 0], [1, 1, 0], [2, 1, 0]], dtype=float)
    cats = {0: ["2", "10", "1", "7"], 1: ["no", "yes"], 2: ["only"]}
    b = PercentileBinarizer(nominal_features=[0, 1, 2], categories=cats).fit(X)
    # Two declared values other than 0, 1 are two categories: a column each (x1=no and x1=yes),
    # so that a rule can test x1=no without negated literals.
    assert b.feature_kinds_.tolist() == ["one-hot", "one-hot", "one-hot"]
    names = b.get_feature_names_out().tolist()
    assert names == ["x0=2", "x0=10", "x0=1", "x0=7", "x1=no", "x1=yes", "x2=only"]
    # Declared value "7" never occurs in training: its column is kept, constant 0, and reported.
    np.testing.assert_array_equal(b.transform(X), [[1, 0, 0, 0, 0, 1, 1], [0, 0, 1, 0, 1, 0, 1],
                                                  [0, 1, 0, 0, 0, 1, 1], [0, 0, 1, 0, 0, 1, 1]])
    assert b.constant_features_.tolist() == ["x0=7", "x2=only"]
    # The same through a per-column list, as a loader's Bunch gives it.
    b_list = PercentileBinarizer(feature_types=["nominal"] * 3, categories=[cats[0], cats[1], cats[2]]).fit(X)
    assert b_list.get_feature_names_out().tolist() == names
    # Codes outside the declared range in fit are a data/categories mismatch.
    X_bad = X.copy()
    X_bad[1, 0] = 4
    with pytest.raises(ValueError, match=r"nominal column 'x0' must hold indices 0\.\.3 .* it holds 4"):
        PercentileBinarizer(nominal_features=[0], categories={0: cats[0]}).fit(X_bad)
    X_bad[1, 0] = 1.5
    with pytest.raises(ValueError, match=r"nominal column 'x0' must hold indices 0\.\.3 .* it holds 1\.5"):
        PercentileBinarizer(nominal_features=[0], categories={0: cats[0]}).fit(X_bad)
    # Nominal {0,1} declared as '0', '1' keeps its name, like birds' hasSegments; declared
    # '1', '0' too: such a column holds the values themselves, as corset.datasets gives them.
    for declared in (["0", "1"], ["1", "0"]):
        b01 = PercentileBinarizer(nominal_features=[1], categories={1: declared}).fit(X)
        assert b01.get_feature_names_out()[1] == "x1"
        np.testing.assert_array_equal(b01.transform(X)[:, 1], X[:, 1])


def test_categories_by_name_need_column_names():
    X = np.array([[0, 0.5], [2, 0.1], [1, 0.7]])
    params = dict(feature_types=["nominal", "numeric"], categories={"loc": ["a", "b", "c"]})
    with pytest.raises(ValueError, match=r"column 'loc' by name, but X has no column names .* one entry per column"):
        PercentileBinarizer(**params).fit(X)
    b = PercentileBinarizer(**params).fit(pd.DataFrame(X, columns=["loc", "v"]))
    assert b.get_feature_names_out().tolist()[:3] == ["loc=a", "loc=b", "loc=c"]


def test_ways_to_name_nominal_columns_agree():
    rng = np.random.RandomState(3)
    X = np.column_stack([rng.normal(size=30), rng.randint(0, 5, size=30), rng.randint(0, 2, size=30)])
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    reference = PercentileBinarizer(nominal_features=[1, 2]).fit(X)
    variants = [
        PercentileBinarizer(nominal_features=np.array([1, 2])).fit(X),
        PercentileBinarizer(nominal_features=[False, True, True]).fit(X),
        PercentileBinarizer(feature_types=["numeric", "nominal", "nominal"]).fit(X),
        PercentileBinarizer(nominal_features=["b", "c"]).fit(df),
    ]
    for b in variants:
        np.testing.assert_array_equal(b.transform(X if b is not variants[-1] else df), reference.transform(X))
    renamed = [re.sub(r"^x(\d)", lambda m: "abc"[int(m.group(1))], n) for n in reference.get_feature_names_out()]
    assert renamed[1:] == ["b=0", "b=1", "b=2", "b=3", "b=4", "c"]
    assert variants[-1].get_feature_names_out().tolist() == renamed


@pytest.mark.parametrize("params, error, match", [
    ({"percentile": -1}, ValueError, r"percentile must be in \[0, 100\]; got -1"),
    ({"percentile": 100.5}, ValueError, r"percentile must be in \[0, 100\]"),
    ({"percentile": float("nan")}, ValueError, r"percentile must be in \[0, 100\]"),
    ({"percentile": "90"}, TypeError, r"percentile must be a real number in \[0, 100\]"),
    ({"percentile": True}, TypeError, r"percentile must be a real number"),
    ({"inclusive": "yes"}, TypeError, r"inclusive must be True or False"),
    ({"nominal_features": [0], "feature_types": ["nominal", "numeric", "numeric"]}, ValueError,
     r"either nominal_features or feature_types, not both"),
    ({"feature_types": ["nominal", "numeric"]}, ValueError, r"feature_types has 2 entries but X has 3 columns"),
    ({"feature_types": ["nominal", "numeric", "real"]}, ValueError, r"'numeric' or 'nominal'; got 'real'"),
    ({"nominal_features": [3]}, ValueError, r"nominal_features holds column index 3, outside \[0, 3\)"),
    ({"nominal_features": [-1]}, ValueError, r"nominal_features holds column index -1"),
    ({"nominal_features": [1, 1]}, ValueError, r"nominal_features lists a column twice"),
    ({"nominal_features": [0.5]}, TypeError, r"nominal_features must refer to columns by integer index"),
    ({"nominal_features": [True, False]}, ValueError, r"boolean mask, has length 2 but X has 3"),
    ({"nominal_features": ["a"]}, ValueError, r"column 'a' by name, but X has no column names"),
    ({"nominal_features": 1}, TypeError, r"nominal_features must be a list"),
    ({"categories": {0: ["a", "b", "c"]}}, ValueError, r"column 0, which is not nominal"),
    ({"nominal_features": [0], "categories": {0: ["a", "a", "c"]}}, ValueError, r"holds a value twice"),
    ({"nominal_features": [0], "categories": [["a", "b"]]}, ValueError, r"one entry per column of X \(3\)"),
    ({"nominal_features": [0], "categories": "abc"}, TypeError, r"categories must be None, a dict or a list"),
])
def test_bad_parameters_name_the_parameter(params, error, match):
    X = np.array([[0, 1, 2], [1, 0, 3.5], [2, 1, 1.5]])
    b = PercentileBinarizer(**params)
    with pytest.raises(error, match=match):
        b.fit(X)


def test_dataframe_column_names_in_parameters():
    df = pd.DataFrame({"loc": [0, 1, 2, 1.0], "v": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(ValueError, match=r"column 'place', which is not a column of X"):
        PercentileBinarizer(nominal_features=["place"]).fit(df)
    b = PercentileBinarizer(nominal_features=["loc"], categories={"loc": ["north", "east", "south"]}).fit(df)
    assert b.get_feature_names_out().tolist() == ["loc=north", "loc=east", "loc=south", "v>0.3"]


# ----------------------------------------------------------- constant report
def test_constant_features_report_is_queryable_and_silent():
    X = np.array([[1, 0, 0.2], [2, 0, 0.1], [3, 0, 0.4], [3, 0, 0.3]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = PercentileBinarizer(percentile=75, nominal_features=[1]).fit(X)
    # Column 0: 75th percentile 3 = maximum -> constant 0 with ">"; column 1: nominal, all 0.
    assert b.constant_features_.tolist() == ["x0>3", "x1"]
    np.testing.assert_allclose(b.positive_rate_, [0, 0, 0.25])
    Xt = b.transform(X)
    np.testing.assert_allclose(Xt.mean(axis=0), b.positive_rate_)
    assert Xt.shape[1] == b.n_features_out_ == 3  # nothing dropped
    # The recipe of the docstring drops exactly the reported columns.
    keep = (b.positive_rate_ > 0) & (b.positive_rate_ < 1)
    assert b.get_feature_names_out()[keep].tolist() == ["x2>0.3"]
    assert set(b.get_feature_names_out()[~keep]) == set(b.constant_features_)


# --------------------------------------------------------- sparse vs dense
def _mixed_matrix(seed, n=80):
    """Columns: binary, sparse positive, sparse with negatives (zero above the percentile),
    mostly-zero with a nonzero percentile, nominal codes, all zero."""
    rng = np.random.RandomState(seed)
    sparse_pos = np.where(rng.uniform(size=n) < 0.3, rng.exponential(size=n), 0.0)
    sparse_neg = np.where(rng.uniform(size=n) < 0.6, -rng.exponential(size=n), 0.0)
    busy = np.where(rng.uniform(size=n) < 0.95, rng.uniform(1, 3, size=n), 0.0)
    nominal = np.where(rng.uniform(size=n) < 0.5, 0, rng.randint(1, 4, size=n)).astype(float)
    return np.column_stack([rng.randint(0, 2, size=n), sparse_pos, sparse_neg, busy, nominal, np.zeros(n)])


@pytest.mark.parametrize("container", [sp.csr_array, sp.csr_matrix, sp.csc_array, sp.coo_matrix])
@pytest.mark.parametrize("inclusive", [False, True])
@pytest.mark.parametrize("percentile", [10, 50, 90])
def test_sparse_input_equals_dense_input(container, inclusive, percentile, global_random_seed):
    X = _mixed_matrix(global_random_seed)
    params = dict(percentile=percentile, inclusive=inclusive, nominal_features=[4])
    dense = PercentileBinarizer(**params).fit(X)
    sparse = PercentileBinarizer(**params).fit(container(X))
    np.testing.assert_array_equal(sparse.thresholds_, dense.thresholds_)
    np.testing.assert_array_equal(sparse.positive_rate_, dense.positive_rate_)
    assert sparse.get_feature_names_out().tolist() == dense.get_feature_names_out().tolist()
    assert sparse.constant_features_.tolist() == dense.constant_features_.tolist()
    X_test = _mixed_matrix(global_random_seed + 100)
    X_test[0, 4] = 9  # unknown nominal value
    Xt = sparse.transform(container(X_test))
    assert sp.issparse(Xt) and Xt.format == "csr" and Xt.dtype == np.uint8
    assert isinstance(Xt, sp.spmatrix) == isinstance(container(X), sp.spmatrix)
    Xt.sum_duplicates()
    assert Xt.has_canonical_format and np.all(Xt.data == 1)
    np.testing.assert_array_equal(Xt.toarray(), dense.transform(X_test))


def test_sparse_percentile_counts_implicit_zeros():
    col = np.zeros(100)
    col[:15] = np.arange(1.0, 16.0)  # 85 implicit zeros, then 1..15
    X = sp.csc_array(col[:, None])
    b = PercentileBinarizer(percentile=90).fit(X)
    assert b.thresholds_[0] == np.percentile(col, 90) == pytest.approx(5.1)


def test_duplicate_sparse_entries_are_summed_and_input_untouched():
    # Row 0 stores two entries for column 0 (0.5 and 0.25): they mean 0.75, as in toarray().
    csr = sp.csr_array((np.array([0.5, 0.25, 2.0]), np.array([0, 0, 0]), np.array([0, 2, 3, 3])), shape=(3, 1))
    assert not csr.has_canonical_format
    before = (csr.data.copy(), csr.indices.copy(), csr.indptr.copy())
    b = PercentileBinarizer(percentile=50).fit(csr)
    assert b.thresholds_[0] == np.percentile([0.75, 2.0, 0.0], 50) == 0.75
    np.testing.assert_array_equal(b.transform(csr).toarray().ravel(), [0, 1, 0])
    for got, expected in zip((csr.data, csr.indices, csr.indptr), before):
        np.testing.assert_array_equal(got, expected)


def test_blocked_densification_gives_the_same_result(monkeypatch):
    X = _mixed_matrix(7, n=50)
    full = PercentileBinarizer(nominal_features=[4]).fit(X)
    monkeypatch.setattr(preprocessing, "_BLOCK_VALUES", 1)  # one column at a time
    for data in (X, sp.csc_array(X)):
        small = PercentileBinarizer(nominal_features=[4]).fit(data)
        np.testing.assert_array_equal(small.thresholds_, full.thresholds_)
        Xt = small.transform(data)
        np.testing.assert_array_equal(Xt.toarray() if sp.issparse(Xt) else Xt, full.transform(X))


def test_large_sparse_binary_matrix_is_not_densified():
    # 20,000 x 1,000 binary: 20 MB as dense uint8, 160 MB as float64 (small enough that a
    # regression fails this test instead of exhausting the machine's memory).
    rng = np.random.RandomState(0)
    n, d, nnz = 20_000, 1_000, 20_000
    X = sp.csr_array((np.ones(nnz), (rng.randint(0, n, nnz), rng.randint(0, d, nnz))), shape=(n, d))
    X.sum_duplicates()
    X.data[:] = 1
    tracemalloc.start()
    try:
        b = PercentileBinarizer().fit(X)
        Xt = b.transform(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10e6, f"peak {peak / 1e6:.0f} MB: the sparse matrix was densified"
    assert (Xt != X).nnz == 0
    assert set(b.feature_kinds_) == {"binary"}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(X=arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 4)),
                elements=st.sampled_from([-1.5, 0.0, 0.0, 0.0, 0.5, 1.0, 2.0])),
       percentile=st.sampled_from([0, 25, 50, 90, 100]), inclusive=st.booleans())
def test_matches_reference_on_generated_data(X, percentile, inclusive):
    """Against a column loop: keep 0/1 columns, cut the others at numpy's percentile."""
    expected = np.empty(X.shape, dtype=np.uint8)
    for j in range(X.shape[1]):
        col = X[:, j]
        if np.all((col == 0) | (col == 1)):
            expected[:, j] = col
        else:
            t = np.percentile(col, percentile)
            expected[:, j] = col >= t if inclusive else col > t
    b = PercentileBinarizer(percentile=percentile, inclusive=inclusive)
    np.testing.assert_array_equal(b.fit_transform(X), expected)
    np.testing.assert_array_equal(b.fit(sp.csr_array(X)).transform(sp.csr_array(X)).toarray(), expected)


# ------------------------------------------------------ scikit-learn API
def test_dataframe_input_gives_names_and_set_output_pandas():
    rng = np.random.RandomState(1)
    df = pd.DataFrame({"Centroid": rng.uniform(size=20), "location": rng.randint(0, 3, size=20).astype(float),
                       "flag": rng.randint(0, 2, size=20).astype(float)}, index=np.arange(100, 120))
    b = PercentileBinarizer(nominal_features=["location"]).fit(df)
    np.testing.assert_array_equal(b.feature_names_in_, ["Centroid", "location", "flag"])
    t = np.percentile(df["Centroid"], 90)
    names = [f"Centroid>{_shortest_cut(df.Centroid, t)}", "location=0", "location=1", "location=2", "flag"]
    assert b.get_feature_names_out().tolist() == names
    assert b.get_feature_names_out(["Centroid", "location", "flag"]).tolist() == names
    with pytest.raises(ValueError, match="input_features is not equal to feature_names_in_"):
        b.get_feature_names_out(["a", "b", "c"])
    out = b.set_output(transform="pandas").transform(df)
    assert isinstance(out, pd.DataFrame)
    assert out.columns.tolist() == names
    assert out.index.tolist() == list(range(100, 120))
    np.testing.assert_array_equal(out.to_numpy(), b.set_output(transform="default").transform(df))
    out = PercentileBinarizer(nominal_features=[1]).set_output(transform="pandas").fit_transform(df)
    assert out.columns.tolist() == names
    # Sparse output cannot become a DataFrame: scikit-learn's own error.
    with pytest.raises(ValueError, match="The transformer outputs a scipy sparse matrix"):
        PercentileBinarizer().set_output(transform="pandas").fit_transform(sp.csr_array(df.to_numpy()))


def test_names_without_column_names():
    X = np.array([[0.0, 1.0], [1.0, 3.0], [0.0, 2.0]])
    b = PercentileBinarizer(percentile=50).fit(X)
    assert b.get_feature_names_out().tolist() == ["x0", "x1>2"]
    assert b.get_feature_names_out(["bit", "score"]).tolist() == ["bit", "score>2"]
    with pytest.raises(ValueError, match=r"input_features should have length equal to number of features \(2\)"):
        b.get_feature_names_out(["bit"])


def test_transform_checks_the_number_of_columns():
    b = PercentileBinarizer().fit(np.random.RandomState(0).normal(size=(10, 3)))
    with pytest.raises(ValueError, match="X has 2 features, but PercentileBinarizer is expecting 3 features"):
        b.transform(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="X has 4 features, but PercentileBinarizer is expecting 3 features"):
        b.transform(sp.csr_array((4, 4)))


def test_infinite_values_raise_and_nan_is_missing_in_dense_and_sparse_x():
    X = np.random.RandomState(0).normal(size=(10, 3))
    X_inf = X.copy()
    X_inf[2, 1] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        PercentileBinarizer().fit(X_inf)
    b = PercentileBinarizer().fit(X)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        b.transform(X_inf)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        b.transform(sp.csr_array(X_inf))
    X_nan = X.copy()
    X_nan[2, 1] = np.nan
    # Read as missing, dense or stored in a sparse matrix: no item of its column holds.
    dense = np.asarray(b.transform(X_nan))
    np.testing.assert_array_equal(b.transform(sp.csr_array(X_nan)).toarray(), dense)
    assert dense[2, 1] == 0 and PercentileBinarizer().fit(sp.csr_array(X_nan)).missing_counts_.tolist() == [0, 1, 0]


def test_refit_forgets_previous_fit():
    b = PercentileBinarizer(nominal_features=[0])
    b.fit(pd.DataFrame({"a": [0, 1, 2.0], "b": [1, 2, 3.0]}))
    b.set_params(nominal_features=None).fit(np.array([[0.5, 1, 3], [0.1, 2, 4.0]]))
    assert not hasattr(b, "feature_names_in_")
    assert b.n_features_in_ == 3 and b.get_feature_names_out().tolist()[0].startswith("x0>")


@parametrize_with_checks([PercentileBinarizer()])
def test_sklearn_compatible_estimator(estimator, check):
    # No expected failures: every check passes (array-API checks skip without SCIPY_ARRAY_API).
    check(estimator)


# ---------------------------------------------------------------- real data
def _load_arff(path, n_labels, **kwargs):
    """Features of a MULAN ARFF file (labels are its last ``n_labels`` attributes); nominal values
    come as indices into their declared values, as corset.datasets encodes them."""
    with open(path) as f:
        data = arff.load(f, encode_nominal=True, **kwargs)
    attributes = data["attributes"][:-n_labels]
    names = [name for name, _ in attributes]
    types = ["numeric" if isinstance(kind, str) else "nominal" for _, kind in attributes]
    categories = [None if isinstance(kind, str) else kind for _, kind in attributes]
    if kwargs.get("return_type") == arff.COO:
        values, rows, cols = data["data"]
        n_rows = max(rows) + 1
        X = sp.coo_array((np.asarray(values, dtype=float), (rows, cols)),
                         shape=(n_rows, len(data["attributes"]))).tocsc()[:, :len(names)]
    else:
        X = np.array([row[:-n_labels] for row in data["data"]], dtype=float)
    return X, names, types, categories


@pytest.mark.realdata
def test_emotions_train_one_feature_constant_with_strict(data_dir):
    X, names, types, _ = _load_arff(data_dir / "emotions" / "emotions-train.arff", 6)
    assert X.shape == (391, 72) and set(types) == {"numeric"}
    df = pd.DataFrame(X, columns=names)
    strict = PercentileBinarizer().fit(df)
    # BH_HighLowRatio: its 90th percentile (3) is its maximum, so ">" gives constant 0.
    assert strict.constant_features_.tolist() == ["BH_HighLowRatio>3"]
    j = names.index("BH_HighLowRatio")
    assert strict.thresholds_[j] == X[:, j].max() == 3.0
    assert strict.positive_rate_[j] == 0.0
    assert strict.n_features_out_ == 72
    inclusive = PercentileBinarizer(inclusive=True).fit(df)
    assert inclusive.constant_features_.tolist() == []


@pytest.mark.realdata
def test_birds_train_inclusive_makes_101_constants(data_dir):
    X, names, types, categories = _load_arff(data_dir / "birds" / "birds-train.arff", 19)
    assert X.shape == (322, 260) and types.count("numeric") == 258
    df = pd.DataFrame(X, columns=names)
    params = dict(feature_types=types, categories=categories)
    strict = PercentileBinarizer(**params).fit(df)
    inclusive = PercentileBinarizer(inclusive=True, **params).fit(df)
    out_names = strict.get_feature_names_out().tolist()
    # 258 numeric + hasSegments kept + 12 one-hot location columns named by declared value.
    assert len(out_names) == 271
    assert "hasSegments" in out_names
    assert [n for n in out_names if n.startswith("location=")] == [f"location={v}" for v in categories[-1]]
    assert strict.constant_features_.tolist() == []
    numeric = np.array(types) == "numeric"
    at_minimum = strict.thresholds_[numeric] == X[:, numeric].min(axis=0)
    assert at_minimum.sum() == 101
    assert len(inclusive.constant_features_) == 101
    assert all(n.split(">=")[0] in set(np.array(names)[numeric][at_minimum]) for n in inclusive.constant_features_)
    assert set(inclusive.positive_rate_[np.isin(inclusive.get_feature_names_out(),
                                                inclusive.constant_features_)]) == {1.0}


@pytest.mark.realdata
def test_medical_train_sparse_binary_passes_through(data_dir):
    X, names, types, _ = _load_arff(data_dir / "medical" / "medical-train.arff", 45, return_type=arff.COO)
    assert X.shape == (333, 1449) and set(types) == {"nominal"}
    b = PercentileBinarizer(feature_types=types)
    Xt = b.fit_transform(X)
    assert isinstance(Xt, sp.csr_array) and Xt.dtype == np.uint8
    assert (Xt != X).nnz == 0
    assert b.get_feature_names_out(names).tolist() == names
    # Features absent from the training split are all-zero, reported, and kept.
    assert len(b.constant_features_) == int(np.sum(np.asarray(X.sum(axis=0)).ravel() == 0)) > 0


@pytest.mark.realdata
def test_loader_bunch_feeds_the_binarizer(data_dir):
    """corset.datasets' Bunch (feature_types, categories keyed by name) plugs in directly."""
    datasets = pytest.importorskip("corset.datasets")
    if not hasattr(datasets, "load_benchmark"):
        pytest.skip("corset.datasets.load_benchmark is not available")
    data = datasets.load_benchmark("birds", subset="train", data_home=data_dir)
    X_arff, names, types, categories = _load_arff(data_dir / "birds" / "birds-train.arff", 19)
    expected = PercentileBinarizer(feature_types=types, categories=categories).fit(X_arff)
    by_frame = PercentileBinarizer(feature_types=data.feature_types, categories=data.categories)
    Xt = by_frame.fit_transform(pd.DataFrame(data.X, columns=data.feature_names))
    by_list = PercentileBinarizer(feature_types=data.feature_types,
                                  categories=[data.categories.get(n) for n in data.feature_names])
    np.testing.assert_array_equal(Xt, expected.transform(X_arff))
    np.testing.assert_array_equal(by_list.fit_transform(data.X), expected.transform(X_arff))
    assert by_frame.get_feature_names_out().tolist() == by_list.get_feature_names_out(data.feature_names).tolist()


@pytest.mark.parametrize("kwargs", [dict(percentile=(10, 30, 50, 70, 90)), dict(n_quantiles=4),
                                    dict(percentile=(25, 75), direction="both"),
                                    dict(percentile=(20, 60), direction="both", inclusive=True)])
@pytest.mark.parametrize("seed", range(3))
def test_several_thresholds_per_feature(kwargs, seed):
    import json

    rng = np.random.RandomState(seed)
    X = np.column_stack([rng.normal(size=80), rng.poisson(1.0, 80), rng.randint(0, 2, 80), rng.randint(0, 3, 80)])
    X = X.astype(float)
    b = PercentileBinarizer(nominal_features=[3], **kwargs).fit(X)
    percentiles = kwargs.get("percentile") or [100 * i / kwargs["n_quantiles"] for i in range(1, kwargs["n_quantiles"])]
    compare = np.greater_equal if kwargs.get("inclusive") else np.greater
    both = kwargs.get("direction") == "both"
    expected, names, n_dropped = [], [], 0
    for j in range(4):
        if j == 2:
            expected.append(X[:, 2] > 0)
            names.append("x2")
        elif j == 3:
            for v in (0, 1, 2):
                expected.append(X[:, 3] == v)
                names.append(f"x3={v}")
        else:
            for t in np.unique(np.percentile(X[:, j], percentiles)):
                above = compare(X[:, j], t)
                if above.all() or not above.any():
                    n_dropped += 1 + both  # constant on the training data: dropped, and reported
                    continue
                expected.append(above)
                if both:
                    expected.append(~above)
    expected = np.column_stack(expected).astype(np.uint8)
    out = b.transform(X)
    assert len(b.dropped_features_) == n_dropped
    assert not set(b.dropped_features_) & set(b.get_feature_names_out())
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(b.transform(sp.csr_array(X)).toarray(), expected)
    assert len(b.get_feature_names_out()) == expected.shape[1] == b.n_features_out_
    assert all(n in b.get_feature_names_out() for n in names)
    again = PercentileBinarizer.from_dict(json.loads(json.dumps(b.to_dict())))
    np.testing.assert_array_equal(again.transform(X), out)
    assert list(again.get_feature_names_out()) == list(b.get_feature_names_out())


def test_bad_threshold_options():
    X = np.random.RandomState(0).rand(10, 2)
    for kwargs, error in [(dict(percentile=()), ValueError), (dict(percentile=(10, 120)), ValueError),
                          (dict(n_quantiles=1), ValueError), (dict(direction="<"), ValueError),
                          (dict(percentile=("a",)), TypeError)]:
        with pytest.raises(error):
            PercentileBinarizer(**kwargs).fit(X)


def test_zeros_presence_for_counts():
    rng = np.random.RandomState(0)
    counts = rng.poisson(0.3, size=(200, 3)) * rng.randint(1, 5, size=(200, 3))
    counts = counts.astype(float)
    b = PercentileBinarizer(zeros="presence").fit(counts)
    for j in range(3):
        nonzero = counts[:, j][counts[:, j] != 0]
        expected = np.unique(np.concatenate(([0.0], [np.percentile(nonzero, 90)])))
        np.testing.assert_array_equal(b.thresholds_[j], expected)
    names = list(b.get_feature_names_out())
    assert names[0] == "x0>0"
    out = b.transform(counts)
    np.testing.assert_array_equal(out[:, 0], counts[:, 0] > 0)
    np.testing.assert_array_equal(b.transform(sp.csr_array(counts)).toarray(), out)
    with pytest.raises(ValueError, match="zeros"):
        PercentileBinarizer(zeros="drop").fit(counts)


def test_the_classifier_reads_sparse_counts_as_presence_and_counts():
    from corset.model import CorsetClassifier

    rng = np.random.RandomState(1)
    counts = sp.csr_array(rng.poisson(0.4, size=(300, 8)).astype(float))
    Y = (counts.toarray()[:, :2] > 0).astype(int)
    model = CorsetClassifier(random_state=0).fit(counts, Y)
    assert "x0>0" in model.feature_names_ and "x1>0" in model.feature_names_


# ------------------------------------------- several cuts: drops, names, sparse
def test_constant_thresholds_are_dropped_and_reported_with_several_cuts():
    X = np.column_stack([np.arange(10.0), np.full(10, 7.0), np.r_[np.zeros(8), 1.0, 2.0]])
    b = PercentileBinarizer(percentile=(50, 100), direction="both").fit(X)
    # x0: the 100th percentile (9, the maximum) makes x0>9 all 0; x1 is constant;
    # x2: the 50th percentile is 0 and the 100th is 2, the maximum.
    assert b.get_feature_names_out().tolist() == ["x0>4", "x0<=4", "x2>0", "x2<=0"]
    assert b.dropped_features_.tolist() == ["x0>9", "x0<=9", "x1>7", "x1<=7", "x2>2", "x2<=2"]
    assert len(b.thresholds_[1]) == 0 and b.constant_features_.size == 0
    assert b.transform(X).shape == (10, 4)
    again = PercentileBinarizer.from_dict(b.to_dict())
    assert again.dropped_features_.tolist() == b.dropped_features_.tolist()
    # The paper's protocol (one percentile, ">") keeps one column per feature, constant or not.
    single = PercentileBinarizer(percentile=100).fit(X)
    assert single.get_feature_names_out().tolist() == ["x0>9", "x1>7", "x2>2"]
    assert single.dropped_features_.size == 0 and single.constant_features_.size == 3


def test_close_thresholds_of_one_feature_get_distinct_names():
    X = np.r_[np.full(5, 0.31212), np.full(5, 0.31248), np.full(5, 0.5)][:, None]
    b = PercentileBinarizer(percentile=(10, 50)).fit(X)
    names = b.get_feature_names_out().tolist()
    # The cuts 0.31212 and 0.31248 (values above them: 0.31248 and 0.5, and 0.5 only).
    assert names == ["x0>0.3122", "x0>0.4"]
    X = np.r_[np.full(5, 1234.2), np.full(5, 1234.4), np.full(5, 2000.0)][:, None]
    assert PercentileBinarizer(percentile=(10, 50)).fit(X).get_feature_names_out().tolist() == [
        "x0>1234.2", "x0>1300"]


@pytest.mark.parametrize("kwargs", [dict(percentile=(10, 50, 90)), dict(n_quantiles=3, direction="both"),
                                    dict(percentile=(20, 80), direction="both", inclusive=True),
                                    dict(zeros="presence"), dict(zeros="presence", percentile=(50, 90),
                                                                 direction="both")])
@pytest.mark.parametrize("container", [sp.csr_array, sp.csc_matrix])
def test_several_cuts_sparse_equals_dense(kwargs, container, global_random_seed):
    X = _mixed_matrix(global_random_seed)
    dense = PercentileBinarizer(nominal_features=[4], **kwargs).fit(X)
    sparse = PercentileBinarizer(nominal_features=[4], **kwargs).fit(container(X))
    assert sparse.get_feature_names_out().tolist() == dense.get_feature_names_out().tolist()
    assert sparse.dropped_features_.tolist() == dense.dropped_features_.tolist()
    np.testing.assert_array_equal(sparse.positive_rate_, dense.positive_rate_)
    X_test = _mixed_matrix(global_random_seed + 100)
    X_test[0, 4] = 9  # unknown nominal value
    np.testing.assert_array_equal(sparse.transform(container(X_test)).toarray(), dense.transform(X_test))


def test_sparse_counts_are_never_densified():
    """zeros='presence' on sparse counts: fit and transform read the stored entries only."""
    rng = np.random.RandomState(0)
    n, d, nnz = 20_000, 1_000, 40_000
    X = sp.csr_array((rng.randint(1, 6, nnz).astype(float), (rng.randint(0, n, nnz), rng.randint(0, d, nnz))),
                     shape=(n, d))
    X.sum_duplicates()
    tracemalloc.start()
    try:
        b = PercentileBinarizer(zeros="presence", percentile=(50, 90)).fit(X)
        Xt = b.transform(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20e6, f"peak {peak / 1e6:.0f} MB: the sparse matrix was densified"
    names = b.get_feature_names_out()
    presence = np.flatnonzero([name.endswith(">0") for name in names])
    assert presence.size == d  # every column holds zeros and counts: f>0 first
    np.testing.assert_array_equal((Xt[:, presence] != (X > 0)).nnz, 0)


# ------------------------------------------------ DataFrames of raw values
def test_dataframe_text_and_categorical_columns_are_nominal():
    rng = np.random.RandomState(0)
    df = pd.DataFrame({"tempo": rng.uniform(60, 180, 50), "genre": rng.choice(["pop", "rock", "jazz"], 50),
                       "mood": pd.Categorical(rng.choice(["calm", "wild"], 50)), "flag": rng.randint(0, 2, 50)})
    b = PercentileBinarizer().fit(df)
    t = _shortest_cut(df.tempo, np.percentile(df.tempo, 90))
    assert b.get_feature_names_out().tolist() == [f"tempo>{t}", "genre=jazz", "genre=pop", "genre=rock",
                                                  "mood=calm", "mood=wild", "flag"]
    new = pd.DataFrame({"tempo": [100.0, 179.0], "genre": ["pop", "metal"], "mood": ["wild", "sad"],
                        "flag": [4, 0]})
    # Unseen values ("metal", "sad", the count 4) never fail: no indicator, or present.
    np.testing.assert_array_equal(b.transform(new), [[0, 0, 1, 0, 0, 1, 1], [1, 0, 0, 0, 0, 0, 0]])
    out = b.set_output(transform="pandas").transform(new)
    assert list(out.columns) == list(b.get_feature_names_out())
    again = PercentileBinarizer.from_dict(b.to_dict())
    np.testing.assert_array_equal(again.transform(new), b.set_output(transform="default").transform(new))
    # Declared values decide the order and the names, the same as for the codes of an array.
    declared = PercentileBinarizer(categories={"genre": ["rock", "pop", "jazz"]}).fit(df)
    assert declared.get_feature_names_out().tolist()[1:4] == ["genre=rock", "genre=pop", "genre=jazz"]
    # A missing value (None, NaN) holds no indicator of its column.
    np.testing.assert_array_equal(b.transform(new.assign(genre=["pop", None]))[:, 1:4], [[0, 1, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="'genre' is numeric"):
        PercentileBinarizer(feature_types=["numeric"] * 4).fit(df)
    with pytest.raises(ValueError, match="'genre' of X holds 'jazz'"):
        PercentileBinarizer(categories={"genre": ["rock", "pop"]}).fit(df)


@pytest.mark.realdata
def test_loader_frames_feed_the_binarizer(data_dir):
    """as_frame=True output (birds' location a Categorical of its declared values) binarizes as the arrays do."""
    from corset.datasets import load_benchmark

    plain = load_benchmark("birds", "train", data_home=data_dir)
    framed = load_benchmark("birds", "train", data_home=data_dir, as_frame=True)
    test = load_benchmark("birds", "test", data_home=data_dir, as_frame=True)
    expected = PercentileBinarizer(feature_types=plain.feature_types,
                                   categories=[plain.categories.get(n) for n in plain.feature_names]).fit(plain.X)
    for b in (PercentileBinarizer(feature_types=framed.feature_types, categories=framed.categories),
              PercentileBinarizer()):
        np.testing.assert_array_equal(b.fit_transform(framed.X), expected.transform(plain.X))
        assert b.get_feature_names_out().tolist() == expected.get_feature_names_out(plain.feature_names).tolist()
        assert b.transform(test.X).shape == (test.X.shape[0], expected.n_features_out_)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("percentile", [90, (10, 50, 90)])
@pytest.mark.parametrize("direction", [">", "both"])
def test_constant_features_are_the_names_of_the_constant_outputs(seed, percentile, direction):
    """constant_features_ is exactly the output names whose column is constant, in output order."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 4, size=(30, 6)).astype(float)
    X[:, rng.randint(6)] = 2.0                       # a constant column
    X[:, rng.randint(6)] = rng.randint(0, 2, 30)     # a 0/1 column, kept as it is
    b = PercentileBinarizer(percentile=percentile, direction=direction).fit(X)
    out = np.asarray(b.transform(X))
    constant = np.all(out == out[:1], axis=0)
    assert b.constant_features_.tolist() == b.get_feature_names_out()[constant].tolist()


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("kwargs", [dict(zeros="presence"), dict(zeros="presence", percentile=(10, 30, 50, 70, 90)),
                                    dict(zeros="presence", percentile=(25, 75), direction="both"),
                                    dict(zeros="presence", percentile=(20, 60), direction="both", inclusive=True),
                                    dict(percentile=(10, 50, 90), direction="both"), dict(percentile=80)])
def test_presence_cuts_of_many_sparse_columns_equal_the_column_by_column_ones(seed, kwargs):
    """Wide sparse data (columns grouped by their numbers of non-zero and of missing values) gives
    the thresholds of the dense path, which cuts column by column, bit for bit, and the same output;
    a NaN stored in the sparse matrix is the dense array's missing value."""
    rng = np.random.RandomState(seed)
    n, d = int(rng.randint(5, 40)), int(rng.randint(1, 300))
    X = sp.random(n, d, density=rng.uniform(0.02, 0.9), random_state=rng, format="csc",
                  data_rvs=lambda k: np.round(rng.normal(0.5, 1.0, k), int(rng.randint(0, 3))))
    X = X.tolil()
    X[:, rng.randint(d)] = rng.uniform(1, 2, (n, 1))        # a column with no zero at all
    X = X.tocsc()
    X.data[rng.uniform(size=X.data.size) < 0.1] = 0.0      # explicit zeros: stored, not present
    if seed % 2:
        X.data[rng.uniform(size=X.data.size) < 0.1] = np.nan   # stored missing values: NaN in X.toarray()
    dense = PercentileBinarizer(**kwargs).fit(X.toarray())
    sparse = PercentileBinarizer(**kwargs).fit(X)
    for a, b in zip(dense._cuts, sparse._cuts):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)
    for a, b in zip(dense._dropped, sparse._dropped):
        if a is not None:
            np.testing.assert_array_equal(a, b)
    assert sparse.get_feature_names_out().tolist() == dense.get_feature_names_out().tolist()
    # The numbers the names print, made from the sparse chunks when read, and the dropped names.
    assert sparse.to_dict()["shown"] == dense.to_dict()["shown"]
    assert sparse.dropped_features_.tolist() == dense.dropped_features_.tolist()
    again = pickle.loads(pickle.dumps(sparse))
    assert again.get_feature_names_out().tolist() == dense.get_feature_names_out().tolist()
    assert again.dropped_features_.tolist() == dense.dropped_features_.tolist()
    X_test = sp.random(n, d, density=0.3, random_state=rng, format="csr", data_rvs=lambda k: rng.normal(0.5, 1, k))
    X_test.data[rng.uniform(size=X_test.data.size) < 0.1] = np.nan
    np.testing.assert_array_equal(sparse.transform(X_test).toarray(), dense.transform(X_test.toarray()))
    np.testing.assert_array_equal(sparse.missing_counts_, dense.missing_counts_)


def _reference_cuts(column, percentiles, inclusive):
    """One column's kept and dropped thresholds, column by column (zeros="include"): its
    percentiles, exact ties merged, a threshold on none or all of its values dropped."""
    levels = np.unique(np.percentile(column, percentiles))
    compare = np.greater_equal if inclusive else np.greater
    above = compare(column[:, None], levels).sum(axis=0)
    constant = (above == 0) | (above == column.size)
    return levels[~constant], levels[constant]


@pytest.mark.parametrize("inclusive", [False, True])
@pytest.mark.parametrize("percentile", [(10, 30, 50, 70, 90), (90, 10, 50), tuple(range(5, 100, 5))])
@pytest.mark.parametrize("block_values", [1, 7, 1 << 22])
def test_several_cuts_per_column_match_a_column_by_column_reference(percentile, inclusive, block_values,
                                                                    monkeypatch, global_random_seed):
    """The cuts of a block of columns are made at once; they are those of each column alone:
    ties merged (few distinct values, repeated levels), constant thresholds dropped, -0.0 and
    0.0 alike, in blocks of one column, of a few, or of all."""
    monkeypatch.setattr(preprocessing, "_BLOCK_VALUES", block_values)
    rng = np.random.RandomState(global_random_seed)
    n = 57
    X = np.column_stack([
        rng.normal(size=n),                                  # distinct values
        rng.randint(0, 4, size=n).astype(float),             # few values: levels tie
        np.where(rng.uniform(size=n) < 0.9, 5.0, 7.5),      # most records at one value
        np.full(n, 3.25),                                    # constant: every threshold dropped
        np.where(rng.uniform(size=n) < 0.5, -0.0, 0.0) + rng.randint(0, 2, size=n) * 2.0,
        rng.exponential(size=n) * 1e6,
        np.round(rng.normal(size=n), 1),
    ])
    fitted = PercentileBinarizer(percentile=percentile, inclusive=inclusive).fit(X)
    names = []
    for j in range(X.shape[1]):
        kept, dropped = _reference_cuts(X[:, j], percentile, inclusive)
        assert np.array_equal(fitted.thresholds_[j], kept)
        assert np.array_equal(np.signbit(fitted.thresholds_[j]), np.signbit(kept))
        names += [f"x{j}" for _ in dropped]
    # Dropped thresholds are reported by feature (one name per dropped threshold).
    assert [name.split(">")[0].split("<")[0] for name in fitted.dropped_features_] == names


@pytest.mark.parametrize("percentile", [90, (10, 50, 90)])
def test_fit_transform_is_fit_then_transform(percentile, global_random_seed):
    """fit_transform binarizes X once (fit counts its items already); the output is transform's."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.normal(size=(60, 4))
    X[:, 1] = rng.randint(0, 2, size=60)
    frame = pd.DataFrame(X, columns=list("abcd")).assign(e=rng.choice(["x", "y", "z"], 60))
    for data in (X, sp.csr_matrix(X), sp.csc_array(X), frame):
        once = PercentileBinarizer(percentile=percentile).fit_transform(data)
        twice = PercentileBinarizer(percentile=percentile).fit(data).transform(data)
        assert type(once) is type(twice) and once.dtype == twice.dtype == np.uint8
        assert np.array_equal(once.toarray() if sp.issparse(once) else once,
                              twice.toarray() if sp.issparse(twice) else twice)
    pandas_out = PercentileBinarizer(percentile=percentile).set_output(transform="pandas")
    assert pandas_out.fit_transform(frame).equals(pandas_out.transform(frame))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("percentile, zeros, sparse, inclusive, direction", [
    (90, "include", False, False, ">"), (90, "include", False, True, ">"), ((10, 30, 50, 70, 90), "include", False,
                                                                          False, ">"),
    ((10, 50, 90), "include", False, True, "both"), ((10, 50, 90), "presence", False, False, ">"),
    ((10, 50, 90), "presence", True, False, ">"), ((25, 75), "presence", True, True, "both")])
def test_printed_thresholds_split_the_training_values_as_the_cuts_do(seed, percentile, zeros, sparse, inclusive,
                                                                      direction):
    """Every name prints the shortest number that puts each training value on the same side as the
    exact cut, the nearest to it among the shortest (a brute force in exact decimals): years, counts,
    prices and measurements alike, where rounding to three digits would cross data values."""
    rng = np.random.RandomState(seed)
    n = int(rng.randint(20, 200))
    columns = [np.repeat(np.arange(2000, 2021), 6)[rng.randint(0, 126, n)],      # years
               rng.poisson(1.5, n) * (rng.rand(n) < 0.6),                         # counts with zeros
               np.round(rng.lognormal(6, 2, n), 2),                               # prices
               rng.normal(0.3121, 0.0004, n),                                     # close measurements
               -rng.exponential(size=n) * (rng.rand(n) < 0.5)]                   # negative, with zeros
    X = np.column_stack(columns).astype(np.float64)
    b = PercentileBinarizer(percentile=percentile, zeros=zeros, inclusive=inclusive, direction=direction)
    b.fit(sp.csc_array(X) if sparse else X)
    names = b.get_feature_names_out().tolist()
    relation = ">=" if inclusive else ">"
    checked = 0
    for j in range(X.shape[1]):
        cuts = np.atleast_1d(b.thresholds_[j])
        mine = [name[len(f"x{j}{relation}"):] for name in names if name.startswith(f"x{j}{relation}")]
        assert len(mine) == len(cuts)
        every = sorted(set(cuts.tolist()) | set(np.atleast_1d(b._dropped[j]).tolist() if b._dropped[j] is not None
                                                 else []))
        expected = {t: _shortest_cut(X[:, j], t, inclusive) for t in every}
        texts = list(expected.values())
        # Cuts that split the training values alike (0 and 0.5 of counts) print as themselves.
        expected = {t: (repr(t)[:-2] if repr(t).endswith(".0") else repr(t)) if texts.count(v) > 1 else v
                    for t, v in expected.items()}
        for t, text in zip(cuts.tolist(), mine):
            assert text == expected[t], (j, t)
            holds = X[:, j] >= t if inclusive else X[:, j] > t
            if 0 < holds.sum() < n:
                shown = float(text)
                assert np.array_equal(holds, X[:, j] >= shown if inclusive else X[:, j] > shown)
                checked += 1
    assert checked >= 3
    # An export keeps the printed numbers.
    assert PercentileBinarizer.from_dict(b.to_dict()).get_feature_names_out().tolist() == names


def test_a_year_cut_between_two_years_prints_the_year_below():
    """The 90th percentile of these years is 2019.9: rounded to 'year>2020' it would read as holding on
    no training record, while the model's rule fires on the twelve of 2020."""
    years = np.r_[np.repeat(np.arange(2000, 2020), 5), [2020] * 12].astype(float)
    b = PercentileBinarizer().fit(pd.DataFrame({"year": years}))
    assert b.thresholds_[0] == pytest.approx(2019.9)
    assert b.get_feature_names_out().tolist() == ["year>2019"]
    assert b.transform(pd.DataFrame({"year": [2019.0, 2020.0]})).ravel().tolist() == [0, 1]


def test_ordinal_features_are_cut_at_every_step_of_few_values():
    """Ranks 0..4 with five percentiles: the percentiles of few values fall on the same steps and
    leave others out; an ordinal column is cut between every pair of adjacent values instead,
    and cut at its percentiles as any column once it has more steps than percentiles."""
    rng = np.random.RandomState(0)
    ranks = rng.choice(5, size=500, p=[0.05, 0.05, 0.6, 0.25, 0.05]).astype(float)
    many = rng.randint(0, 40, size=500).astype(float)
    X = np.column_stack([ranks, ranks, many])
    percentiles = (10, 30, 50, 70, 90)
    b = PercentileBinarizer(percentile=percentiles, ordinal_features=[1, 2]).fit(X)
    plain, ordinal, wide = b.thresholds_
    assert plain.tolist() == np.unique(np.percentile(ranks, percentiles)).tolist()
    assert len(plain) < 4   # the percentiles miss steps: the reason for ordinal_features
    np.testing.assert_array_equal(ordinal, [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(wide, PercentileBinarizer(percentile=percentiles).fit(many[:, None]).thresholds_[0])
    Xt = b.transform(X)
    names = b.get_feature_names_out().tolist()
    for k, t in enumerate(ordinal):
        np.testing.assert_array_equal(Xt[:, names.index(f"x1>{t:g}")], ranks > t)
    inclusive = PercentileBinarizer(percentile=percentiles, ordinal_features=[True, False, False],
                                    inclusive=True).fit(X)
    np.testing.assert_array_equal(inclusive.thresholds_[0], [1.0, 2.0, 3.0, 4.0])
    # One percentile (the paper's protocol): cut as any column.
    single = PercentileBinarizer(ordinal_features=[0]).fit(X)
    assert single.thresholds_[0] == np.percentile(ranks, 90)


def test_ordinal_features_mistakes_are_refused_by_name():
    X = np.column_stack([np.arange(20) % 4, np.arange(20) % 3]).astype(float)
    with pytest.raises(ValueError, match="ordinal_features names column 'x0', which is nominal"):
        PercentileBinarizer(percentile=(10, 50), nominal_features=[0], ordinal_features=[0]).fit(X)
    with pytest.raises(ValueError, match="ordinal_features is for dense X with zeros='include'; X is sparse"):
        PercentileBinarizer(percentile=(10, 50), ordinal_features=[0]).fit(sp.csr_array(X))
    with pytest.raises(ValueError, match="ordinal_features lists a column twice"):
        PercentileBinarizer(percentile=(10, 50), ordinal_features=[1, 1]).fit(X)
