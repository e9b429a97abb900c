"""Missing values (NaN in dense X): they satisfy none of their column's literals.

Checked against brute force: every output column of the binarizer is the
literal its ``_literal_domains`` states, evaluated on the raw values with
NaN comparing false; the cuts are the percentiles of the values a column
holds; the estimator reads the same semantics end to end and prints a
negated literal of such a column as ``NOT (name)``.
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from corset import CorsetClassifier
from corset.model import UnseenCategoryWarning
from corset.model._classifier import _literal_meanings
from corset.model._export import negated_text
from corset.preprocessing import PercentileBinarizer


def _holes(seed, n=120, fraction=0.25):
    """Columns: two continuous, one nominal code column (0..3), one 0/1 column; NaN in each."""
    rng = np.random.RandomState(seed)
    X = np.column_stack([rng.normal(size=n), rng.exponential(size=n), rng.randint(0, 4, n),
                         rng.randint(0, 2, n)]).astype(float)
    X[rng.rand(n, 4) < fraction] = np.nan
    return X


def _brute_force(b, X):
    """Each output column as the literal it states, NaN failing every comparison."""
    out = np.zeros((X.shape[0], b.n_features_out_), dtype=np.uint8)
    for f, domain in enumerate(b._literal_domains(range(b.n_features_out_))):
        if domain is None:   # a binary column: present where the value is 1
            j = int(np.searchsorted(b._out_start, f, side="right")) - 1
            out[:, f] = X[:, j] == 1
        elif domain[0] == "cut":
            _, j, lower, upper = domain
            x = X[:, j]
            with np.errstate(invalid="ignore"):
                if b.inclusive:
                    out[:, f] = (x >= lower) & (x < upper)
                else:
                    out[:, f] = (x > lower) & (x <= upper)
        else:
            _, j, i = domain
            out[:, f] = X[:, j] == b.categories_[j][i]
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("params", [{}, {"n_quantiles": 5}, {"direction": "both"},
                                    {"percentile": (25, 75), "direction": "both", "inclusive": True}])
def test_a_missing_value_satisfies_no_literal_of_its_column(seed, params):
    X = _holes(seed)
    b = PercentileBinarizer(nominal_features=[2], **params).fit(X)
    assert b.feature_kinds_.tolist() == ["threshold", "threshold", "one-hot", "binary"]
    for data in (X, _holes(seed + 100)):   # fit's records and new ones
        Xt = b.transform(data)
        Xt = Xt.toarray() if sp.issparse(Xt) else np.asarray(Xt)
        np.testing.assert_array_equal(Xt, _brute_force(b, data))
        for f, domain in enumerate(b._literal_domains(range(b.n_features_out_))):
            j = domain[1] if domain is not None else 3
            assert not Xt[np.isnan(data[:, j]), f].any()


@pytest.mark.parametrize("seed", range(5))
def test_the_cuts_are_the_percentiles_of_the_values_a_column_holds(seed):
    X = _holes(seed, n=200)[:, :2]
    single = PercentileBinarizer().fit(X)
    several = PercentileBinarizer(percentile=(10, 50, 90)).fit(X)
    for j in range(2):
        held = X[~np.isnan(X[:, j]), j]
        assert single.thresholds_[j] == np.percentile(held, 90)
        np.testing.assert_array_equal(np.unique(several.thresholds_[j]),
                                      np.unique(np.percentile(held, (10, 50, 90))))
    np.testing.assert_array_equal(single.missing_counts_, np.isnan(X).sum(axis=0))


def test_missing_counts_survive_an_export_and_columns_without_holes_stay_paired():
    X = _holes(0)
    X[:, 0] = np.random.RandomState(1).normal(size=X.shape[0])   # column 0 complete
    b = PercentileBinarizer(nominal_features=[2], direction="both").fit(X)
    again = PercentileBinarizer.from_dict(b.to_dict())
    np.testing.assert_array_equal(again.missing_counts_, b.missing_counts_)
    np.testing.assert_array_equal(again.transform(X).toarray() if sp.issparse(again.transform(X))
                                  else again.transform(X), b.transform(X).toarray() if sp.issparse(b.transform(X))
                                  else b.transform(X))
    # A two-valued nominal column is a complementary pair only when no training value is missing.
    rng = np.random.RandomState(3)
    two = rng.randint(0, 2, size=(80, 2)).astype(float) + 5   # values 5 and 6: nominal, not binary
    two[4, 1] = np.nan
    pairs = PercentileBinarizer(nominal_features=[0, 1]).fit(two)
    np.testing.assert_array_equal(pairs._paired_columns(), [0, 1])
    # An export written before missing values were read has no counts: none missing.
    d = b.to_dict()
    d.pop("missing_counts")
    assert PercentileBinarizer.from_dict(d)._missing_counts().tolist() == [0, 0, 0, 0]


def test_all_missing_and_binary_with_holes_columns_are_binary():
    X = np.array([[np.nan, 1, 0.5], [np.nan, np.nan, 1.5], [np.nan, 0, 2.5], [np.nan, 1, 3.5]])
    b = PercentileBinarizer().fit(X)
    assert b.feature_kinds_.tolist() == ["binary", "binary", "threshold"]
    np.testing.assert_array_equal(np.asarray(b.transform(X))[:, :2], [[0, 1], [0, 0], [0, 0], [0, 1]])


@pytest.mark.parametrize("kwargs", [{}, dict(percentile=(10, 50, 90), direction="both"),
                                    dict(nominal_features=[2]), dict(zeros="presence", nominal_features=[2]),
                                    dict(zeros="presence"), dict(zeros="presence", percentile=(25, 75),
                                                                 direction="both", inclusive=True)])
def test_sparse_nan_is_missing_as_in_dense_x(kwargs):
    """A NaN stored in a sparse matrix is the dense array's missing value: the same cuts, counts,
    names and items, in fit and transform (the entries not stored are zeros)."""
    X = _holes(0)
    X[X < 0.2] = 0.0
    sparse, dense = PercentileBinarizer(**kwargs).fit(sp.csc_array(X)), PercentileBinarizer(**kwargs).fit(X)
    assert sparse.missing_counts_.tolist() == dense.missing_counts_.tolist() == np.isnan(X).sum(axis=0).tolist()
    assert sparse.to_dict() == dense.to_dict()
    assert sparse.get_feature_names_out().tolist() == dense.get_feature_names_out().tolist()
    np.testing.assert_array_equal(sparse.transform(sp.csr_array(X)).toarray(), np.asarray(dense.transform(X)))
    assert not np.asarray(dense.transform(X))[np.isnan(X).any(axis=1)].all()


def test_infinity_is_refused_in_dense_and_sparse_x():
    X = _holes(0)
    X[0, 1] = np.inf
    for given in (X, sp.csr_array(X), sp.csc_array(X)):
        with pytest.raises(ValueError, match="infinity in column 'x1'"):
            PercentileBinarizer().fit(given)


def test_a_dataframe_with_every_kind_of_missing_value_fits_and_predicts():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    n = 400
    tempo = rng.uniform(60, 180, n)
    genre = rng.choice(["pop", "rock", "jazz"], n)
    size = rng.choice(["S", "M", "L", "XL"], n)
    X = pd.DataFrame({
        "tempo": tempo,
        "genre": pd.Series(genre, dtype=object),
        "mood": pd.Categorical(rng.choice(["calm", "wild"], n)),
        "size": pd.Categorical(size, categories=["S", "M", "L", "XL"], ordered=True),
        "date": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.randint(0, 365, n), unit="D"),
    })
    Y = pd.DataFrame({"dance": ((genre == "pop") & (tempo > 150)).astype(int),
                      "big": np.isin(size, ["L", "XL"]).astype(int)})
    holes = X.copy()
    for c in holes.columns:
        holes.loc[rng.rand(n) < 0.1, c] = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # missing values seen in fit warn neither at fit nor at predict
        model = CorsetClassifier(random_state=0).fit(holes, Y)
        pred = model.predict(holes)
    assert pred.shape == (n, 2)
    counts = model.features_.binarizer_.missing_counts_
    np.testing.assert_array_equal(counts, holes.isna().sum().to_numpy())
    again = CorsetClassifier.from_json(model.to_json())
    np.testing.assert_array_equal(again.predict(holes), pred)
    # No rule that tests a column fires on a record missing it.
    items = model.features_.transform(holes)
    items = items.toarray() if sp.issparse(items) else np.asarray(items)
    for c in holes.columns:
        cols = [f for f, name in enumerate(model.feature_names_) if name.split(">")[0].split("<")[0]
                .split("=")[0] == c]
        assert cols, c
        assert not items[np.flatnonzero(holes[c].isna().to_numpy())][:, cols].any(), c


def test_predict_warns_of_missing_values_only_in_columns_complete_in_fit():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    n = 200
    X = pd.DataFrame({"genre": rng.choice(["pop", "rock", "jazz"], n), "mood": rng.choice(["calm", "wild"], n),
                      "v": rng.normal(size=n)})
    Y = (X.genre == "pop").astype(int).to_numpy().reshape(-1, 1)
    X.loc[3, "genre"] = None
    model = CorsetClassifier(random_state=0).fit(X, Y)
    new = X.iloc[:5].copy()
    new.loc[new.index[1], "genre"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(new)   # 'genre' had missing values in fit: no warning
    new.loc[new.index[2], "mood"] = None
    with pytest.warns(UnseenCategoryWarning, match="'mood'"):
        model.predict(new)


def test_negated_literals_of_a_column_with_holes_read_not_parenthesised():
    assert negated_text("(a=b)") == "NOT (a=b)"
    assert negated_text("(x>1.5)") == "NOT (x>1.5)"
    assert negated_text("x>1.5") == "x<=1.5"
    X = _holes(0)[:, :2]
    X[:, 0] = np.random.RandomState(2).normal(size=X.shape[0])   # column 0 complete, column 1 with holes
    b = PercentileBinarizer(n_quantiles=5).fit(X)
    meanings = _literal_meanings(b, range(b.n_features_out_))
    for f, domain in enumerate(b._literal_domains(range(b.n_features_out_))):
        assert meanings[f] == domain
        assert (("not", f) in meanings) == (domain[1] == 0)


def test_negated_rules_print_not_with_parentheses_where_values_are_missing():
    rng = np.random.RandomState(0)
    n = 600
    X = rng.normal(size=(n, 3))
    Y = np.column_stack([(X[:, 0] <= 0.8) & (X[:, 1] > 0), X[:, 2] > 0.5]).astype(int)
    X[rng.rand(n) < 0.2, 0] = np.nan
    model = CorsetClassifier(random_state=0, negations=True).fit(X, Y)
    text = str(model)
    assert "NOT (x0>" in text   # y0 needs x0 low: "x0 at most t, or missing"
    assert "x0<=" not in text   # x0 has holes: its negation is never written as the opposite cut


def test_arff_question_marks_are_missing_values_end_to_end(tmp_path):
    pytest.importorskip("pandas")
    from corset.datasets import load_arff

    rows = "".join(f"{i % 2},{int(i % 3 == 0)},{'?' if i % 7 == 0 else i % 10 + 0.5},"
                   f"{'?' if i % 5 == 0 else 'xyz'[i % 3]}\n" for i in range(60))
    (tmp_path / "m.arff").write_text("@relation t\n@attribute l1 {0,1}\n@attribute l2 {0,1}\n"
                                     "@attribute a numeric\n@attribute c {x,y,z}\n@data\n" + rows)
    frame = load_arff(tmp_path / "m.arff", n_labels=2, as_frame=True)
    assert frame.X["a"].isna().sum() == 9 and frame.X["c"].isna().sum() == 12
    model = CorsetClassifier(random_state=0).fit(frame.X, frame.Y)
    np.testing.assert_array_equal(model.features_.binarizer_.missing_counts_, [9, 12])
    assert model.predict(frame.X).shape == (60, 2)
