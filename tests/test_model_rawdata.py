"""Raw data in, named rules out: CorsetClassifier on numeric, nominal, sparse and string features."""
import json
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import f1_score

from corset.datasets import load_benchmark
from corset.model import CorsetClassifier
from corset.preprocessing import PercentileBinarizer

NAMES = ["emotions", "birds", "medical", "enron", "CAL500", "corel5k", "bibtex"]


def _predict_dense(model, X):
    P = model.predict(X)
    return P.toarray() if sp.issparse(P) else np.asarray(P)


@pytest.mark.realdata
@pytest.mark.parametrize("as_frame", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_raw_benchmark_in_named_rules_out(name, as_frame, data_dir):
    train = load_benchmark(name, "train", data_home=data_dir, as_frame=as_frame)
    test = load_benchmark(name, "test", data_home=data_dir, as_frame=as_frame)
    names = {} if as_frame else {"feature_names": train.feature_names, "label_names": train.label_names}
    # Every selected rule kept (no validated cut): the items must show in rules, and CAL500's
    # validated list can be its default rule alone.
    model = CorsetClassifier(random_state=0, n_rules=30, validated_stop=False).fit(train.X, train.Y, **names)
    assert 0 < len(model.rules_) <= 30
    # Rules are printed in the data's own terms: its feature and label names.
    label_names = set(train.label_names)
    feature_names = set(train.feature_names)
    for rule in model.rules_:
        assert set(rule.tail_names) <= label_names
        for item in rule.head_names + rule.negated_names:
            base = item.split(">")[0].split("=")[0]
            assert base in feature_names, item
    numeric = [n for n, t in zip(train.feature_names, train.feature_types) if t == "numeric"]
    if numeric:
        assert model.features_.binarizer_ is not None
        assert any(">" in item for rule in model.rules_ for item in rule.head_names + rule.negated_names)
    # The JSON of the whole model, binarization included, predicts identically from raw X.
    loaded = CorsetClassifier.from_json(model.to_json())
    np.testing.assert_array_equal(_predict_dense(loaded, test.X), _predict_dense(model, test.X))
    assert str(loaded) == str(model)
    explained = model.explain(test.X.iloc[:3] if as_frame else test.X[:3])
    assert len(explained) == 3


@pytest.mark.realdata
def test_binary_benchmarks_give_the_rules_of_the_binary_path(data_dir):
    """On an all-binary data set the raw path changes nothing: the same rules as binarizer="passthrough"."""
    train = load_benchmark("medical", "train", data_home=data_dir)
    a = CorsetClassifier(random_state=0).fit(train.X, train.Y)
    b = CorsetClassifier(random_state=0, binarizer="passthrough").fit(train.X, train.Y)
    assert a.features_.binarizer_ is None
    assert [(r.head, r.negated, r.tail) for r in a.rules_] == [(r.head, r.negated, r.tail) for r in b.rules_]


@pytest.mark.realdata
def test_cross_val_score_on_the_loaders_output(data_dir):
    from sklearn.model_selection import cross_val_score

    data = load_benchmark("emotions", "train", data_home=data_dir)
    scores = cross_val_score(CorsetClassifier(random_state=0, n_rules=20), data.X, data.Y, cv=3,
                             scoring="f1_micro")
    assert scores.shape == (3,) and np.all(scores > 0.3)


def test_string_and_categorical_columns_are_nominal_features():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    n = 300
    genre = rng.choice(["pop", "rock", "jazz"], n)
    tempo = rng.uniform(60, 180, n)
    mood = pd.Categorical(rng.choice(["calm", "tense"], n))
    X = pd.DataFrame({"genre": genre, "tempo": tempo, "mood": mood})
    Y = pd.DataFrame({"dance": ((genre == "pop") & (tempo > 120)).astype(int),
                      "relax": (np.asarray(mood) == "calm").astype(int)})
    model = CorsetClassifier(random_state=0).fit(X, Y)
    text = str(model)
    assert "genre=pop" in text and "mood" in text and "THEN dance" in text
    assert any(name.startswith("tempo>") for name in model.feature_names_)
    assert {"genre=pop", "genre=rock", "genre=jazz"} <= set(model.feature_names_)
    assert model.label_names_ == ["dance", "relax"]
    # A value unseen in fit sets no indicator; predict never fails on it.
    X_new = X.iloc[:5].copy()
    X_new["genre"] = ["blues", "pop", "pop", "jazz", "folk"]
    assert model.predict(X_new).shape == (5, 2)
    loaded = CorsetClassifier.from_json(model.to_json())
    np.testing.assert_array_equal(loaded.predict(X_new), model.predict(X_new))


def test_either_value_of_a_two_valued_column_can_head_a_rule():
    """A column of two categories (F/M, calm/tense) gives one literal per value: without
    negated literals a label carried by the first value still gets its rule, and none of
    the rules needs "NOT mood=tense" to say "mood=calm"."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(1)
    n = 400
    mood = rng.choice(["calm", "tense"], n)
    sex = pd.Categorical(rng.choice(["F", "M"], n))
    X = pd.DataFrame({"mood": mood, "sex": sex, "noise": rng.normal(size=n)})
    Y = pd.DataFrame({"relax": (mood == "calm").astype(int), "f": (np.asarray(sex) == "F").astype(int)})
    model = CorsetClassifier(random_state=0, negations=False).fit(X, Y)
    assert {"mood=calm", "mood=tense", "sex=F", "sex=M"} <= set(model.feature_names_)
    heads = {rule.tail_names: rule.head_names for rule in model.rules_}
    assert heads[("relax",)] == ("mood=calm",) and heads[("f",)] == ("sex=F",)
    np.testing.assert_array_equal(model.predict(X), Y.to_numpy())
    # With negated literals, such a pair gets none: "NOT mood=calm" would repeat "mood=tense".
    negated = CorsetClassifier(random_state=0, negations=True).fit(X, Y)
    names = list(negated.feature_names_)
    paired = {names.index(v) for v in ("mood=calm", "mood=tense", "sex=F", "sex=M")}
    assert negated.negated_features_.size > 0 and not paired & set(negated.negated_features_.tolist())
    np.testing.assert_array_equal(negated.predict(X), Y.to_numpy())


def _sizes(n, seed=0):
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(seed)
    order = ["XS", "S", "M", "L", "XL"]
    size = pd.Categorical(rng.choice(order, n), categories=order, ordered=True)
    X = pd.DataFrame({"size": size, "noise": rng.normal(size=n)})
    codes = np.asarray(size.codes)
    return X, pd.DataFrame({"big": (codes >= 3).astype(int), "small": (codes <= 1).astype(int)})


def test_an_ordered_categorical_is_cut_in_its_order_and_named_by_its_categories():
    """An ordered categorical column is cut like numbers, in its categories' order, and its
    literals print as categories: "L or XL" is the one literal size>M, where one-hot would need
    a rule per value.  Unordered, the same column is one-hot."""
    pd = pytest.importorskip("pandas")
    X, Y = _sizes(400)
    model = CorsetClassifier(random_state=0, negations=False).fit(X, Y)
    assert model.features_.ordinal_ == [["XS", "S", "M", "L", "XL"], None]
    assert {"size>XS", "size>S", "size>M", "size>L"} <= set(model.feature_names_)
    heads = {rule.tail_names: rule.head_names for rule in model.rules_}
    assert heads[("big",)] == ("size>M",)
    np.testing.assert_array_equal(model.predict(X)[:, 0], Y["big"].to_numpy())
    # Read by category name, not by code: the same predictions from text, or from a
    # Categorical whose categories are listed in another order.
    as_text = X.assign(size=X["size"].astype(str))
    shuffled = X.assign(size=X["size"].cat.reorder_categories(["XL", "M", "XS", "L", "S"], ordered=False))
    for other in (as_text, shuffled):
        np.testing.assert_array_equal(model.predict(other), model.predict(X))
    loaded = CorsetClassifier.from_json(model.to_json())
    assert loaded.feature_names_ == model.feature_names_
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    unordered = X.assign(size=X["size"].cat.as_unordered())
    one_hot = CorsetClassifier(random_state=0, negations=False).fit(unordered, Y)
    assert {"size=XS", "size=M", "size=XL"} <= set(one_hot.feature_names_)
    assert not any(">" in name for name in one_hot.feature_names_ if name.startswith("size"))


def test_an_ordered_categorical_of_two_values_is_nominal():
    """Two values in order say no more than a literal per value, which names them both."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(2)
    level = pd.Categorical(rng.choice(["low", "high"], 200), categories=["low", "high"], ordered=True)
    X = pd.DataFrame({"level": level, "z": rng.normal(size=200)})
    model = CorsetClassifier(random_state=0).fit(X, (np.asarray(level) == "high").astype(int)[:, None])
    assert {"level=low", "level=high"} <= set(model.feature_names_)
    assert model.features_.ordinal_ is None


def test_an_ordinal_value_without_a_place_in_the_order_is_refused_by_name():
    pd = pytest.importorskip("pandas")
    X, Y = _sizes(200)
    model = CorsetClassifier(random_state=0).fit(X, Y)
    unseen = X.iloc[:3].assign(size=["XXL", "S", "M"])
    with pytest.raises(ValueError, match=r"column 'size' of X holds 'XXL', which is not among its ordered "
                                         r"categories in fit \(XS < S < M < L < XL\)"):
        model.predict(unseen)
    # A missing value has no place in the order: it satisfies none of the column's literals.
    missing = X.copy()
    missing.loc[0, "size"] = np.nan
    model = CorsetClassifier(random_state=0).fit(missing, Y)
    size = list(missing.columns).index("size")
    assert model.features_.binarizer_.missing_counts_[size] == 1
    items = model.features_.transform(missing.iloc[:1])
    names = model.feature_names_
    assert not any(items[0, j] for j, n in enumerate(names) if n.startswith("size"))


def test_numbers_written_as_text_are_warned_about():
    """A text column whose many values are numbers (a spreadsheet's export) would be read as
    categories, one item per value and no threshold: fit says so and how to convert it; a few
    codes written as text ("1", "2", "3") are categories as given, and are not warned about."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    x = rng.normal(size=300)
    # A categorical column of numbered sites (birds' location) is categories by declaration.
    X = pd.DataFrame({"price": [f"{v:.2f}" for v in x], "code": rng.choice(["1", "2", "3"], 300),
                      "site": pd.Categorical(rng.choice([str(i) for i in range(1, 13)], 300))})
    Y = (x > 0.5).astype(int).reshape(-1, 1)
    with pytest.warns(UserWarning, match=r"column\(s\) 'price' of X hold numbers written as text.*to_numeric") as seen:
        CorsetClassifier(random_state=0).fit(X, Y)
    assert not any("'code'" in str(w.message) or "'site'" in str(w.message) for w in seen)
    X["price"] = pd.to_numeric(X["price"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = CorsetClassifier(random_state=0).fit(X, Y)
    assert any(name.startswith("price>") for rule in model.rules_ for name in rule.head_names)


@pytest.mark.parametrize("objects", [False, True])
def test_a_few_text_cells_among_numbers_are_named(objects):
    """One cell written "unknown" makes a column of numbers text (or objects): fit names the column and
    the values that are not numbers; a column with many words is categories, not warned about."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    x = rng.normal(size=300)
    temp = [float(v) if objects else f"{v:.3f}" for v in x]
    temp[7], temp[9] = "unknown", "n/a "
    words = [f"w{i}" for i in rng.randint(0, 40, 300)]
    X = pd.DataFrame({"temp": pd.Series(temp, dtype=object), "word": words})
    Y = (x > 0.5).astype(int).reshape(-1, 1)
    with pytest.warns(UserWarning, match=r"column\(s\) 'temp' of X hold numbers written as text \('temp' also "
                                         r"holds 'n/a ', 'unknown'\).*errors='coerce'") as seen:
        CorsetClassifier(random_state=0).fit(X, Y)
    assert not any("'word'" in str(w.message) for w in seen)


def test_spreadsheet_numbers_and_a_written_row_index_are_warned_about(tmp_path):
    """Numbers written "1,234" or "12%" are numbers as text too; a column "Unnamed: 0" of increasing
    whole numbers (DataFrame.to_csv's index, read back by read_csv) is a row index, warned about
    with how to read the file without it; a numeric column so named without that order is not."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    x = rng.normal(size=300)
    Y = (x > 0.5).astype(int).reshape(-1, 1)
    for written in ([f"{1000 * abs(v) + 1000:,.0f}" for v in x], [f"{v:.1f}%" for v in x]):
        X = pd.DataFrame({"x": x, "shown": written})
        with pytest.warns(UserWarning, match=r"column\(s\) 'shown' of X hold numbers written as text"):
            CorsetClassifier(random_state=0).fit(X, Y)
    pd.DataFrame({"x": x, "y": Y[:, 0]}).to_csv(tmp_path / "indexed.csv")
    X = pd.read_csv(tmp_path / "indexed.csv").drop(columns="y")
    assert list(X.columns) == ["Unnamed: 0", "x"]
    with pytest.warns(UserWarning, match=r"column\(s\) 'Unnamed: 0' of X look like a row index written by "
                                         r"DataFrame.to_csv .*index_col=0"):
        CorsetClassifier(random_state=0).fit(X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CorsetClassifier(random_state=0).fit(pd.read_csv(tmp_path / "indexed.csv", index_col=0).drop(columns="y"), Y)
        CorsetClassifier(random_state=0).fit(X.assign(**{"Unnamed: 0": rng.permutation(300)}), Y)


def test_unseen_and_missing_nominal_values_at_predict_are_warned_about():
    """New records whose nominal value fit never saw (or is missing) match none of the column's
    "=" literals: predict says so once, naming the column, the count and the values, at the
    caller's line; a fit whose folds hold categories their training part lacks says nothing."""
    pd = pytest.importorskip("pandas")
    from corset.model import UnseenCategoryWarning

    rng = np.random.RandomState(0)
    n = 300
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    colour[:2] = ["violet", "cyan"]   # one record each: some folds' held-out parts hold them alone
    X = pd.DataFrame({"x": rng.normal(size=n), "colour": colour})
    Y = np.column_stack([X["colour"] == "red", X["x"] > 0.5]).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenCategoryWarning)
        model = CorsetClassifier(random_state=0).fit(X, Y)
        # A binarizer of the user's: the folds then read the DataFrame itself, each with its own categories.
        from corset.preprocessing import PercentileBinarizer

        CorsetClassifier(random_state=0, binarizer=PercentileBinarizer()).fit(X, Y)
    new = X.iloc[:6].copy()
    new["colour"] = ["red", "purple", None, "purple", "grey", "blue"]
    with pytest.warns(UnseenCategoryWarning, match=r"'colour': 3 records with values fit never saw "
                                                   r"\('purple', 'grey'\) and 1 with a missing value") as caught:
        predicted = model.predict(new)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert predicted[[1, 2, 3, 4], 0].sum() == 0 and predicted[0, 0] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenCategoryWarning)
        model.predict(X)


def test_an_identifier_column_is_warned_about():
    """A text column with a different value in every record gives one item per record, none of which
    a rule matched by two records can use: the fit says so, naming the column, and goes on."""
    import warnings

    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    n = 200
    tempo = rng.uniform(60, 180, n)
    X = pd.DataFrame({"id": [f"track-{i:04d}" for i in range(n)], "tempo": tempo,
                      "genre": rng.choice(["pop", "rock"], n),
                      # As many declared categories as records, but values repeat: no identifier.
                      "mood": pd.Categorical(rng.choice(["calm", "tense"], n), categories=[f"m{i}" for i in range(n - 2)]
                                             + ["calm", "tense"])})
    Y = np.column_stack([tempo > 120, tempo < 80]).astype(int)
    with pytest.warns(UserWarning, match=r"column\(s\) 'id' of X hold a different value in each of the 200 "
                                         r"records .*drop them from X") as caught:
        model = CorsetClassifier(random_state=0).fit(X, Y)
    assert len([w for w in caught if "identifier" in str(w.message)]) == 1   # the final fit's, not each fold's
    assert not any("id=" in name for rule in model.rules_ for name in rule.head_names)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CorsetClassifier(random_state=0).fit(X.drop(columns="id"), Y)
        # Rules matched by one record may use it: not said then.
        CorsetClassifier(random_state=0, min_support=1, validated_stop=False).fit(X, Y)
        # A column repeating a value is no identifier, whatever its declared categories.
        CorsetClassifier(random_state=0).fit(X.assign(id=X["id"].where(np.arange(n) > 0, "track-0001")), Y)


def test_text_labels_beside_booleans_get_a_message_and_mixed_numbers_predict_integers():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = pd.DataFrame({"x": rng.normal(size=120)})
    Y = pd.DataFrame({"A": np.where(X.x > 0, "yes", "no"), "B": X.x < -1})
    with pytest.raises(ValueError, match=re.escape("Y mixes text labels with numbers or booleans: column 'A' holds "
                                                   "['no', 'yes']; every label must be 0 or 1: mark the value that "
                                                   "means 'present' as 1 and the other as 0, e.g. (Y['A'] == "
                                                   "'yes').astype(int)")):
        CorsetClassifier(random_state=0).fit(X, Y)
    # Words that say nothing of which means "present" get no guess; 1-D y and missing labels alike.
    for labels, message in [(Y.assign(A=np.where(X.x > 0, "ja", "nein")), "(Y['A'] == 'ja')"),
                            (Y.assign(A=np.where(X.x > 0, "red", "blue")), "(Y['A'] == VALUE).astype(int) for the "
                                                                            "VALUE that means present"),
                            (pd.Series(["yes", False] * 60, dtype=object), "it holds ['False', 'yes']"),
                            (Y.assign(A=pd.array([0, 1, None] * 40, dtype="Int64")),
                             "Y holds a missing label (in column 'A')"),
                            (Y.assign(A=np.where(X.x > 0, "yes", None)), "Y holds a missing label (in column 'A')")]:
        with pytest.raises(ValueError, match=re.escape(message)):
            CorsetClassifier(random_state=0).fit(X, labels)
    # A boolean and an integer column (an object array): 0/1 integers back, which metrics read.
    Y = Y.assign(A=(X.x > 0).astype(int))
    predicted = CorsetClassifier(random_state=0).fit(X, Y).predict(X)
    assert predicted.dtype == np.uint8
    assert f1_score(Y.astype(int), predicted, average="micro") > 0.9


def test_frames_read_by_column_and_value_not_by_position_or_spelling():
    """Found by probing the estimator with the inputs users pass: integer (or tuple) column names in
    another order at predict were read by position, with no error (scikit-learn checks string names
    only); an object column of integers at fit read as floats at predict (1.0) set no indicator;
    pandas' NA in a nominal column at predict raised "boolean value of NA is ambiguous"; a DOK
    label matrix had no .data."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = pd.DataFrame(rng.rand(200, 3))   # column names 0, 1, 2
    Y = np.column_stack([X[0] > 0.6, X[1] > 0.5]).astype(int)
    model = CorsetClassifier(random_state=0, n_rules=20).fit(X, Y)
    with pytest.raises(ValueError, match=re.escape("X's columns differ from those seen in fit: column 0 is '2', it "
                                                   "was '0' in fit")):
        model.predict(X[[2, 1, 0]])
    tuples = pd.DataFrame(X.values, columns=pd.MultiIndex.from_tuples([("g", "a"), ("g", "b"), ("h", "c")]))
    model = CorsetClassifier(random_state=0, n_rules=20).fit(tuples, Y)
    with pytest.raises(ValueError, match="X's columns differ from those seen in fit"):
        model.predict(tuples[tuples.columns[::-1]])

    code = rng.randint(0, 3, 200)
    X = pd.DataFrame({"a": rng.rand(200), "code": pd.Series(code, dtype=object)})
    Y = np.column_stack([code == 1, X.a > 0.5]).astype(int)
    model = CorsetClassifier(random_state=0, n_rules=20).fit(X, Y)
    assert any("code=1" in rule.head_names for rule in model.rules_)
    as_floats = X.assign(code=pd.Series(code.astype(float), dtype=object))
    np.testing.assert_array_equal(model.predict(as_floats), model.predict(X))
    missing = X.assign(code=pd.Series(list(code[:3]) + [pd.NA] + list(code[4:]), dtype=object))
    predicted = model.predict(missing)
    np.testing.assert_array_equal(np.delete(predicted, 3, axis=0), np.delete(model.predict(X), 3, axis=0))
    assert predicted[3, 0] == 0   # a missing value sets no indicator: no rule on "code" fires

    text = pd.DataFrame({"a": X.a, "color": pd.array(rng.choice(["red", "blue"], 200), dtype="string")})
    model = CorsetClassifier(random_state=0, n_rules=20).fit(text, Y)
    model.predict(text.assign(color=pd.array([pd.NA] + list(text.color[1:]), dtype="string")))

    import scipy.sparse as sp

    dense = CorsetClassifier(random_state=0, n_rules=20).fit(X, Y).predict(X)
    for matrix in (sp.dok_matrix(Y), sp.lil_matrix(Y), sp.coo_matrix(Y)):
        np.testing.assert_array_equal(
            sp.csr_array(CorsetClassifier(random_state=0, n_rules=20).fit(X, matrix).predict(X)).toarray(), dense)


def test_no_feature_is_said_of_all_of_x():
    """X without columns: the error gives X's shape, not that of the internal validation's first fold."""
    pd = pytest.importorskip("pandas")
    Y = np.tile([[0, 1], [1, 0]], (150, 1))
    for X in (pd.DataFrame(index=range(300)), np.zeros((300, 0))):
        with pytest.raises(ValueError, match=re.escape("Found array with 0 feature(s) (shape=(300, 0))")):
            CorsetClassifier(random_state=0).fit(X, Y)


def test_a_configured_binarizer_is_used():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(200, 4))
    Y = (X[:, :2] > 0).astype(int)
    model = CorsetClassifier(random_state=0, binarizer=PercentileBinarizer(percentile=50)).fit(X, Y)
    assert model.features_.binarizer_.percentile == 50
    assert all(">" in n for n in model.feature_names_)
    with pytest.raises(ValueError, match="binary"):
        CorsetClassifier(binarizer="passthrough").fit(X, Y)


@pytest.mark.parametrize("Y, match", [
    ([[0], [1, 2]] * 10, "MultiLabelBinarizer"),
    (np.where(np.random.RandomState(1).rand(20, 3) > 0.5, 1, -1), "-1 and 1.*0/1 indicator"),
    (np.r_[np.full((1, 3), np.nan), np.zeros((19, 3))], "NaN"),
    # Tags written in one cell: named as label lists, with the conversion (not "missing label"
    # for the records without a tag, nor a multiclass target).
    (np.array(["a|b", "a", None, "b"] * 5, dtype=object).reshape(-1, 1),
     r"Y's column 0 holds lists of labels such as 'a\|b'.*get_dummies\(sep='\|'\)"),
    (["rock;pop", "pop", "jazz", "rock"] * 5, r"y holds lists of labels such as 'rock;pop'.*sep=';'"),
])
def test_label_mistakes_get_one_clear_error(Y, match):
    X = np.random.RandomState(0).rand(20, 3)
    with pytest.raises(ValueError, match=match):
        CorsetClassifier().fit(X, Y)


_LABEL_TEXT = np.random.RandomState(2).rand(20, 3) > 0.5


@pytest.mark.parametrize("Y, positive", [
    (np.where(_LABEL_TEXT, "TRUE", "FALSE"), "'TRUE'"),   # OpenML's multi-label sets (fetch_openml)
    (np.where(_LABEL_TEXT, "1", "0").astype(object), "'1'"),
    (np.where(_LABEL_TEXT, "yes", "no"), "'yes'"),
    (np.where(_LABEL_TEXT, "a", "b"), None),              # no value reads as "present": no suggestion
])
def test_labels_given_as_text_get_the_conversion_named(Y, positive):
    X = np.random.RandomState(0).rand(20, 3)
    with pytest.raises(ValueError, match="0/1") as info:
        CorsetClassifier().fit(X, Y)
    if positive is None:
        assert "astype(int)" not in str(info.value)
    else:
        assert f"(Y == {positive}).astype(int)" in str(info.value)
    if positive == "'TRUE'":   # a DataFrame of categories, as fetch_openml gives it with pandas
        pd = pytest.importorskip("pandas")
        with pytest.raises(ValueError, match=re.escape("(Y == 'TRUE').astype(int)")):
            CorsetClassifier().fit(X, pd.DataFrame(Y, columns=["a", "b", "c"]).astype("category"))


def test_nan_is_missing_in_dense_and_in_sparse_x():
    X = np.random.RandomState(0).rand(20, 3)
    X[4, 2] = np.nan
    model = CorsetClassifier(random_state=0).fit(X, np.eye(20, 2, dtype=int))
    assert model.features_.binarizer_.missing_counts_.tolist() == [0, 0, 1]
    # Sparse: the stored NaN is missing too, and the entries not stored are zeros.
    X[X < 0.3] = 0.0
    sparse = CorsetClassifier(random_state=0).fit(sp.csr_array(X), np.eye(20, 2, dtype=int))
    assert sparse.features_.binarizer_.missing_counts_.tolist() == [0, 0, 1]
    items = sparse.features_.transform(sp.csr_array(X)).toarray()
    assert items.shape[0] == 20 and not items[4, sparse.features_.binarizer_._out_start[2]:
                                               sparse.features_.binarizer_._out_start[3]].any()


@pytest.mark.parametrize("seed", range(3))
def test_rule_stats_and_rules_by_label_against_brute_force(seed):
    from corset.datasets import make_rule_data

    data = make_rule_data(n_records=300, n_features=20, n_labels=6, noise=0.05, random_state=seed)
    X, Y = data.X.toarray(), data.Y.toarray()
    model = CorsetClassifier(random_state=seed).fit(X[:200], Y[:200])
    stats = model.rule_stats(X[200:], Y[200:])
    explained = model.explain(X[200:])
    Yt = Y[200:]
    assert len(stats["rule"]) == len(model.rules_)
    for j, rule in enumerate(model.rules_):
        fired = np.array([any(r is rule for r in rules) for rules in explained])
        assert stats["support"][j] == fired.sum()
        hits = [int(Yt[fired, k].sum()) for k in rule.tail]
        n = fired.sum()
        assert stats["precision"][j] == pytest.approx(sum(hits) / (n * len(rule.tail)) if n else 0.0)
        total = sum(int(Yt[:, k].sum()) for k in rule.tail)
        assert stats["recall"][j] == pytest.approx(sum(hits) / total if total else 0.0)
        assert stats["rule"][j].startswith("IF ") and stats["rule"][j].endswith(", ".join(rule.tail_names))
    groups = model.rules_by_label()
    assert list(groups) == model.label_names_
    for name, rules in groups.items():
        assert all(name in r.tail_names for r in rules)
        assert len(rules) == sum(name in r.tail_names for r in model.rules_)
    with pytest.raises(ValueError, match="Y must have shape"):
        model.rule_stats(X[200:], Y[200:, :3])


def test_rule_stats_matches_a_frame_of_labels_by_name():
    """A DataFrame Y is read by its column names: reordered columns give the same statistics, a
    column that is not one of the model's labels is refused; a model fitted on an array of labels
    (named y0, y1...) reads any frame's columns in order."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = pd.DataFrame(rng.rand(200, 3), columns=list("abc"))
    Y = pd.DataFrame({"A": (X.a > .7).astype(int), "B": (X.b > .6).astype(int)})
    model = CorsetClassifier(random_state=0).fit(X, Y)
    stats = model.rule_stats(X, Y)
    assert min(stats["precision"]) > 0.8   # reading B as A would score far lower
    assert model.rule_stats(X, Y[["B", "A"]]) == stats
    with pytest.raises(ValueError, match=r"Y's columns must be the model's labels .*'Z'; missing: 'A'"):
        model.rule_stats(X, Y.rename(columns={"A": "Z"}))
    unnamed = CorsetClassifier(random_state=0).fit(X, Y.to_numpy())
    assert unnamed.rule_stats(X, Y.rename(columns={"A": "Z"}))["precision"] == stats["precision"]


def test_sparse_frame_reads_as_its_scipy_matrix():
    """A DataFrame of sparse columns gives the numbers of its scipy matrix; a fill value other than 0 is read too."""
    pd = pytest.importorskip("pandas")
    from corset.model._features import RawFeatures

    rng = np.random.RandomState(0)
    M = sp.random(60, 7, density=0.3, random_state=rng, format="csr") * 10
    M.data = np.round(M.data)   # explicit zeros among the stored values, as counts rounded down
    frame = pd.DataFrame.sparse.from_spmatrix(M, columns=[f"c{j}" for j in range(7)])
    frame["c3"] = frame["c3"].astype(pd.SparseDtype("int64", 0))
    values, names, nominal, _ = RawFeatures.numeric(frame)
    assert sp.issparse(values) and values.dtype == np.float64 and names == [f"c{j}" for j in range(7)]
    np.testing.assert_array_equal(values.toarray(), M.toarray())
    assert not nominal.any()
    # A column filled with 1 (not 0): its unstored values are ones, and they are read as such.
    dense = M.toarray()
    dense[:, 2] = np.where(dense[:, 2] == 0, 1.0, dense[:, 2])
    frame["c2"] = pd.arrays.SparseArray(dense[:, 2], fill_value=1.0)
    values, _, _, _ = RawFeatures.numeric(frame)
    np.testing.assert_array_equal(np.asarray(values.toarray() if sp.issparse(values) else values), dense)
    # NaN as the fill value: the frame is read dense, and its NaNs are missing values.
    frame["c2"] = pd.arrays.SparseArray(np.where(dense[:, 2] == 1.0, np.nan, dense[:, 2]))
    values, _, _, _ = RawFeatures.numeric(frame)
    assert not sp.issparse(values) and np.isnan(values[:, 2]).sum() == (dense[:, 2] == 1.0).sum() > 0
    model = CorsetClassifier(random_state=0).fit(frame, (dense[:, :2] > 0).astype(int))
    assert model.features_.binarizer_.missing_counts_[2] == (dense[:, 2] == 1.0).sum()


@pytest.mark.parametrize("private", ["as is", "missing", "raises", "not sparse"])
def test_sparse_frame_columns_read_alike_by_either_path(monkeypatch, private):
    """The sparse columns are read through pandas' own column iterator when it gives SparseArrays,
    else through ``DataFrame.items()``: the same numbers either way (what a pandas without the
    private method, or with a changed one, gives)."""
    pd = pytest.importorskip("pandas")
    from corset.model._features import RawFeatures

    M = sp.random(50, 9, density=0.25, random_state=np.random.RandomState(1), format="csr")
    M.data = np.ceil(M.data * 4)
    frame = pd.DataFrame.sparse.from_spmatrix(M, columns=[f"w{j}" for j in range(9)])
    if private == "missing":
        monkeypatch.delattr(pd.DataFrame, "_iter_column_arrays", raising=False)
    elif private == "raises":
        monkeypatch.setattr(pd.DataFrame, "_iter_column_arrays", lambda self, *a: (_ for _ in ()).throw(TypeError()),
                            raising=False)
    elif private == "not sparse":
        monkeypatch.setattr(pd.DataFrame, "_iter_column_arrays",
                            lambda self: iter([np.zeros(len(self))] * self.shape[1]), raising=False)
    values, names, nominal, _ = RawFeatures.numeric(frame)
    assert sp.issparse(values) and names == [f"w{j}" for j in range(9)] and not nominal.any()
    np.testing.assert_array_equal(values.toarray(), M.toarray())


def test_dtype_tests_run_once_per_dtype_object():
    """Columns sharing one dtype object are tested once; distinct objects, equal or not, each get
    their own answer, in column order."""
    pd = pytest.importorskip("pandas")
    from corset.model._features import _nominal_dtype, _per_dtype

    calls = []
    shared = pd.SparseDtype("float64", 0.0)
    dtypes = [shared, np.dtype("float64"), shared, pd.CategoricalDtype(["a"]), pd.SparseDtype("float64", 0.0),
              np.dtype("O"), shared]
    answers = _per_dtype(lambda t: calls.append(t) or _nominal_dtype(t), iter(dtypes))
    assert answers == [_nominal_dtype(t) for t in dtypes] == [False, False, False, True, False, True, False]
    assert len(calls) == 5   # the shared object once, each other object once


def test_a_value_that_is_not_finite_is_named_by_its_column():
    """The error names the column as the user knows it: a DataFrame's column, or feature_names'.
    Infinity is refused in any X (NaN is a missing value, dense or sparse)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(40, 3))
    Y = (rng.uniform(size=(40, 2)) > 0.5).astype(int)
    columns = ["loudness", "tempo", "pitch"]
    X_bad = X.copy()
    X_bad[5, 1] = np.inf
    with pytest.raises(ValueError, match="infinity in column 'tempo'.*replace or clip the infinite"):
        CorsetClassifier(random_state=0).fit(X_bad, Y, feature_names=columns)
    with pytest.raises(ValueError, match="infinity in column 'tempo'"):
        CorsetClassifier(random_state=0).fit(pd.DataFrame(X_bad, columns=columns), Y)
    with pytest.raises(ValueError, match="infinity in column 'tempo'"):
        frame = pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(X_bad), columns=columns)
        CorsetClassifier(random_state=0).fit(frame, Y)
    with pytest.raises(ValueError, match="infinity in column 'tempo'"):
        CorsetClassifier(random_state=0).fit(sp.csr_array(X_bad), Y, feature_names=columns)
    # NaN, in a sparse matrix or a sparse DataFrame too, is a missing value of its column.
    X_bad[5, 1] = np.nan
    for given in (sp.csr_array(X_bad), pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(X_bad), columns=columns)):
        model = CorsetClassifier(random_state=0).fit(given, Y)
        assert model.features_.binarizer_.missing_counts_.tolist() == [0, 1, 0]


def test_a_value_that_is_not_finite_at_predict_is_named_by_its_column():
    """At predict too the column is named as in fit (the binarizer itself only saw numbers)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(40, 3))
    Y = (rng.uniform(size=(40, 2)) > 0.5).astype(int)
    X_new = X.copy()
    X_new[7, 2] = np.inf
    columns = ["loudness", "tempo", "pitch"]
    model = CorsetClassifier(random_state=0).fit(X, Y, feature_names=columns)
    with pytest.raises(ValueError, match="infinity in column 'pitch'"):
        model.predict(X_new)
    # NaN is a missing value in a sparse matrix as in an array: the same predictions.
    holed = np.where(np.isinf(X_new), np.nan, X_new)
    np.testing.assert_array_equal(model.predict(sp.csr_array(holed)).toarray()
                                  if sp.issparse(model.predict(sp.csr_array(holed))) else
                                  model.predict(sp.csr_array(holed)), model.predict(holed))
    model = CorsetClassifier(random_state=0).fit(pd.DataFrame(X, columns=columns), Y)
    with pytest.raises(ValueError, match="infinity in column 'pitch'"):
        model.predict(pd.DataFrame(X_new, columns=columns))
    model = CorsetClassifier(random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="infinity in column 'x2'"):
        model.predict_proba(X_new)


def test_complex_features_are_refused_not_cut_to_their_real_part():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 3))
    Y = (X[:, :2] > 0).astype(int)
    for bad in (X + 1j, (X + 0j).tolist(), sp.csr_matrix(X + 1j)):
        with pytest.raises(ValueError, match="complex"):
            CorsetClassifier(random_state=0).fit(bad, Y)
    frame = pd.DataFrame({"a": X[:, 0] + 0j, "b": X[:, 1]})
    with pytest.raises(ValueError, match="column 'a' of X holds complex numbers"):
        CorsetClassifier(random_state=0).fit(frame, Y)
    model = CorsetClassifier(random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="complex"):
        model.predict(X + 0j)
    with pytest.raises(ValueError, match="Y holds complex numbers"):
        CorsetClassifier(random_state=0).fit(X, Y + 0j)


def test_names_given_twice_are_refused():
    """Two features or two labels of one name would make the printed rules ambiguous
    (and ``rules_by_label`` would merge the labels)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 3))
    Y = (X > 0).astype(int)
    with pytest.raises(ValueError, match="feature_names: the name 'a' appears 2 times"):
        CorsetClassifier(random_state=0).fit(X, Y, feature_names=["a", "b", "a"])
    with pytest.raises(ValueError, match="label_names: the name 'y' appears 3 times"):
        CorsetClassifier(random_state=0).fit(X, Y, label_names=["y", "y", "y"])
    with pytest.raises(ValueError, match="Y's column names: the name 'u' appears 2 times"):
        CorsetClassifier(random_state=0).fit(X, pd.DataFrame(Y, columns=["u", "v", "u"]))
    with pytest.raises(ValueError, match="X's column names: the name 'a' appears 2 times; each column of X"):
        CorsetClassifier(random_state=0).fit(pd.DataFrame(X, columns=["a", "b", "a"]), Y)
    # Names that differ only as given (1 and "1") are the same name in the rules.
    with pytest.raises(ValueError, match="label_names: the name '1' appears 2 times"):
        CorsetClassifier(random_state=0).fit(X, Y, label_names=[1, "1", 2])
    model = CorsetClassifier(random_state=0).fit(X, Y, feature_names=["a", "b", "c"], label_names=["u", "v", "w"])
    assert model.label_names_ == ["u", "v", "w"]


def _dated_frame(pd, n=240, seed=0):
    rng = np.random.RandomState(seed)
    signup = pd.Series(pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.randint(0, 730, n), unit="D"))
    tenure = pd.Series(pd.to_timedelta(rng.randint(0, 400, n), unit="D"))
    X = pd.DataFrame({"signup": signup.astype("datetime64[us]"), "tenure": tenure.astype("timedelta64[us]"),
                      "spend": rng.gamma(2.0, 50.0, n)})
    late = (signup > pd.Timestamp("2021-06-01")).to_numpy()
    long = (tenure > pd.Timedelta(days=300)).to_numpy()
    Y = np.column_stack([late ^ (rng.rand(n) < 0.05), long ^ (rng.rand(n) < 0.05)]).astype(int)
    return X, Y


def test_date_and_duration_columns_print_as_such_at_any_resolution():
    """Dates and durations are cut in seconds whatever their pandas resolution, and their items
    read as dates and durations; new records of another resolution or time zone agree."""
    pd = pytest.importorskip("pandas")
    X, Y = _dated_frame(pd)
    model = CorsetClassifier(random_state=0).fit(X, Y)
    dated = [n for n in model.feature_names_ if n.startswith("signup")]
    lasting = [n for n in model.feature_names_ if n.startswith("tenure")]
    assert dated and lasting
    for name in dated:   # "signup>2021-05-31 12:00" or "signup>2021-06-01"
        pd.Timestamp(name.split(">", 1)[1])
    for name in lasting:  # "tenure>300 days 12:00:00" or "tenure>300 days"
        pd.Timedelta(name.split(">", 1)[1])
    text = str(model)
    assert "signup>20" in text and "days" in text
    predicted = model.predict(X)
    assert f1_score(Y, predicted, average="micro") > 0.8
    for unit in ("s", "ms", "ns"):
        other = X.assign(signup=X["signup"].astype(f"datetime64[{unit}]"),
                         tenure=X["tenure"].astype(f"timedelta64[{unit}]"))
        np.testing.assert_array_equal(model.predict(other), predicted)
    # The same instants in another time zone are the same dates (naive times are read as UTC).
    aware = X.assign(signup=X["signup"].dt.tz_localize("UTC").dt.tz_convert("Asia/Tokyo"))
    np.testing.assert_array_equal(model.predict(aware), predicted)
    again = CorsetClassifier.from_json(model.to_json())
    np.testing.assert_array_equal(again.predict(X), predicted)
    assert again.feature_names_ == model.feature_names_


def test_date_columns_read_missing_values_and_refuse_numbers_in_their_place():
    pd = pytest.importorskip("pandas")
    X, Y = _dated_frame(pd)
    holes = X.copy()
    holes.loc[3, "signup"] = pd.NaT
    model = CorsetClassifier(random_state=0, binarizer=PercentileBinarizer(n_quantiles=4)).fit(holes, Y)
    signup = list(X.columns).index("signup")
    assert model.features_.binarizer_.missing_counts_[signup] == 1
    items = model.features_.transform(holes.iloc[3:4])
    assert not any(items[0, j] for j, n in enumerate(model.feature_names_) if n.startswith("signup"))
    model = CorsetClassifier(random_state=0, binarizer=PercentileBinarizer()).fit(X, Y)
    with pytest.raises(ValueError, match="column 'tenure' of X held durations in fit; it holds neither"):
        model.predict(X.assign(tenure=X["tenure"].dt.days))
    with pytest.raises(ValueError, match="date or duration columns in fit"):
        model.predict(np.zeros((2, 3)))


def test_dates_in_a_time_zone_print_in_it():
    pd = pytest.importorskip("pandas")
    X, Y = _dated_frame(pd)
    X = X.assign(signup=X["signup"].dt.tz_localize("Europe/Paris"))
    model = CorsetClassifier(random_state=0, binarizer=PercentileBinarizer(percentile=50)).fit(X, Y)
    name = next(n for n in model.feature_names_ if n.startswith("signup"))
    assert name.endswith(("+0100", "+0200")), name


@pytest.mark.parametrize("dtype", ["datetime64[D]", "timedelta64[s]"])
def test_a_numpy_date_array_is_refused_rather_than_read_in_its_unit(dtype):
    X = np.arange(60).astype(dtype).reshape(-1, 1)
    Y = (np.arange(60) % 3 == 0).astype(int)
    with pytest.raises(ValueError, match=re.escape(f"NumPy {dtype} array; pass a pandas DataFrame")):
        CorsetClassifier(random_state=0).fit(X, Y)


def test_labels_that_always_occur_together_do_not_stop_the_fit():
    """20 labels that always occur together (a hierarchy's levels, a label given twice) make 2^20
    probabilistic cliques: past ``max_cliques`` the label space is truncated, with a warning, and
    the fit learns them (it used to raise CliqueOverflowError naming options the estimator lacks)."""
    from corset.labelspace import CliqueTruncationWarning

    rng = np.random.RandomState(0)
    X = rng.rand(200, 5)
    base = (X[:, 0] > 0.5).astype(int)
    Y = np.column_stack([base] * 20)
    with pytest.warns(CliqueTruncationWarning, match="kept every set of size <= 6") as caught:
        model = CorsetClassifier(random_state=0, n_rules=20).fit(X, Y)
    # Said once, by the final fit: the validation's fold fits truncate too, silently.
    assert model.n_rules_validated_ is not None or model.validation_curve_ is not None
    assert sum(issubclass(w.category, CliqueTruncationWarning) for w in caught) == 1
    predicted = model.predict(X)
    assert (predicted == predicted[:, :1]).all()   # the labels stay together
    assert f1_score(Y, predicted, average="micro") > 0.9


@pytest.mark.parametrize("head, message", [([2.5], "got 2.5"), ([True], "got True"), ("abc", "must be a list of ids")])
def test_a_saved_rule_with_ids_that_are_not_whole_numbers_is_refused(head, message):
    """A hand-edited model file: a head of [2.5] was read as feature 2, [True] as feature 1."""
    import json

    rng = np.random.RandomState(0)
    X = (rng.rand(200, 6) < 0.4).astype(int)
    Y = np.column_stack([X[:, 0] & X[:, 1], X[:, 2]]).astype(int)
    saved = json.loads(CorsetClassifier(random_state=0, n_rules=20).fit(X, Y).to_json())
    saved["rules"][0]["head"] = head
    with pytest.raises(ValueError, match=re.escape(f"a rule's head") + ".*" + re.escape(message)):
        CorsetClassifier.from_json(json.dumps(saved))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["rules"][0].update(negated=[-1]), "rule 0's negated [-1] must hold distinct ids in [0, 6)"),
    (lambda d: d["rules"][0].update(negated=[10**6]), "rule 0's negated [1000000]"),
    (lambda d: d["rules"][0].update(head=[6]), "rule 0's head [6]"),
    (lambda d: d["rules"][0].update(tail=[2]), "rule 0's tail [2] must hold distinct ids in [0, 2)"),
    (lambda d: d["rules"][0].update(negated=list(d["rules"][0]["head"])), "both requires and negates"),
    (lambda d: d.update(negated_features=[1.5]), "negated must hold integer ids"),
    (lambda d: d.update(negated_features=[7]), "negated holds an id outside [0, 6): [7]"),
    (lambda d: d.update(label_base_rates=[0.05]), "label_base_rates must hold one rate in [0, 1] per label (2)"),
    (lambda d: d["params"].update(lam=-5), "saved model: The 'lam' parameter"),
])
def test_a_saved_model_whose_parts_disagree_is_refused(edit, message):
    """A hand-edited or damaged model file: a negated id of -1 made predict crash in compiled code,
    one of 10**6 was ignored, a single base rate was broadcast to every label, lam=-5 was taken."""
    import json

    rng = np.random.RandomState(0)
    X = (rng.rand(200, 6) < 0.4).astype(int)
    Y = np.column_stack([X[:, 0] & X[:, 1], X[:, 2]]).astype(int)
    saved = json.loads(CorsetClassifier(random_state=0, n_rules=20).fit(X, Y).to_json())
    assert saved["rules"][0]["head"] and not saved["rules"][0].get("negated")
    CorsetClassifier.from_json(json.dumps(saved)).predict(X)   # as saved: loads and predicts
    edit(saved)
    with pytest.raises(ValueError, match=re.escape(message)):
        CorsetClassifier.from_json(json.dumps(saved))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.pop("rules"), "saved model: the key 'rules' is missing"),
    (lambda d: d.pop("label_base_rates"), "saved model: the key 'label_base_rates' is missing"),
    (lambda d: d["rules"][0].update(bogus=1), "a saved rule has unknown key(s) ['bogus']"),
    (lambda d: d["rules"][0].pop("tail"), "a saved rule has no 'tail'"),
    (lambda d: d["rules"].__setitem__(0, 5), "a saved rule must be a dict; got int"),
])
def test_a_saved_model_with_missing_parts_is_refused(edit, message):
    """These gave KeyError: 'rules' or TypeError: Rule.__init__() got an unexpected keyword argument."""
    import json

    rng = np.random.RandomState(0)
    X = (rng.rand(200, 6) < 0.4).astype(int)
    saved = json.loads(CorsetClassifier(random_state=0, n_rules=20).fit(X, X[:, :2]).to_json())
    edit(saved)
    with pytest.raises(ValueError, match=re.escape(message)):
        CorsetClassifier.from_dict(saved)


@pytest.mark.parametrize("kind", ["float", "int", "decimal", "date", "datetime"])
def test_object_columns_of_numbers_or_dates_are_cut_as_numbers_or_dates(kind):
    """A DataFrame built from Python objects (a database query's rows) holds floats, Decimals or dates
    in object columns: they are read as numbers and dates, cut by thresholds, not one item per value,
    at fit and at predict alike, and the caller's frame is left as it was."""
    pd = pytest.importorskip("pandas")
    import datetime
    import decimal

    rng = np.random.RandomState(0)
    n = 300
    temp = np.round(rng.normal(25, 5, n), 2)
    convert = {"float": float, "int": lambda t: int(t * 100), "decimal": lambda t: decimal.Decimal(f"{t:.2f}"),
               "date": lambda t: datetime.date(2021, 1, 1) + datetime.timedelta(days=int(t * 10)),
               "datetime": lambda t: datetime.datetime(2021, 1, 1) + datetime.timedelta(hours=float(t * 10))}[kind]
    X = pd.DataFrame({"temp": pd.Series([convert(t) for t in temp], dtype=object), "v": rng.rand(n)})
    Y = pd.DataFrame({"hot": (temp > 31).astype(int)})
    model = CorsetClassifier(random_state=0).fit(X, Y)
    assert X["temp"].dtype == object
    assert model.n_items_ < 20   # cut, not one item per distinct value (about 300)
    assert any(name.startswith("temp>") for rule in model.rules_ for name in rule.head_names)
    again = CorsetClassifier.from_json(model.to_json())
    assert np.array_equal(model.predict(X), again.predict(X))
    assert f1_score(Y, model.predict(X), average="micro") > 0.8
    # None among the objects is a missing value, as NaN is among floats.
    X.loc[3, "temp"] = None
    model = CorsetClassifier(random_state=0).fit(X, Y)
    assert model.features_.binarizer_.missing_counts_.tolist() == [1, 0]


def test_object_columns_of_mixed_values_stay_nominal():
    """Strings among the numbers, or booleans: the column keeps its values as categories."""
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"a": pd.Series([1.5, "n/a", 2.5, 3.5] * 10, dtype=object),
                      "b": pd.Series([True, False] * 20, dtype=object)})
    Y = np.c_[np.arange(40) % 2, np.arange(40) % 4 == 0].astype(int)
    model = CorsetClassifier(random_state=0).fit(X, Y)
    names = list(model.feature_names_)
    assert "a=n/a" in names and "a=1.5" in names and "b=True" in names
