"""load_benchmark: the seven MULAN benchmarks against ../shared/data/README.md, and its argument errors.

The real-data tests load each file once per module (the ``loaded`` fixture);
parsing all 21 files with liac-arff takes a few seconds, bibtex most of it.
"""
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import scipy.sparse as sp

from corset.datasets import BENCHMARK_NAMES, load_arff, load_benchmark

# Per-file table of ../shared/data/README.md: instances, attributes
# (numeric, nominal, of which binary), labels, cardinality, distinct labelsets.
README_TABLE = {
    ("CAL500", "full"): (502, 68, 0, 0, 174, 26.0438, 502),
    ("bibtex", "test"): (2515, 0, 1836, 1836, 159, 2.4437, 1257),
    ("bibtex", "train"): (4880, 0, 1836, 1836, 159, 2.3803, 2058),
    ("bibtex", "full"): (7395, 0, 1836, 1836, 159, 2.4019, 2856),
    ("birds", "test"): (323, 258, 2, 1, 19, 0.9690, 84),
    ("birds", "train"): (322, 258, 2, 1, 19, 1.0590, 89),
    ("birds", "full"): (645, 258, 2, 1, 19, 1.0140, 133),
    ("corel5k", "full"): (5000, 0, 499, 499, 374, 3.5220, 3175),
    ("corel5k", "test"): (500, 0, 499, 499, 374, 3.5260, 434),
    ("corel5k", "train"): (4500, 0, 499, 499, 374, 3.5216, 2925),
    ("emotions", "test"): (202, 72, 0, 0, 6, 1.9752, 21),
    ("emotions", "train"): (391, 72, 0, 0, 6, 1.8133, 26),
    ("emotions", "full"): (593, 72, 0, 0, 6, 1.8685, 27),
    ("enron", "test"): (579, 0, 1001, 1001, 53, 3.3627, 317),
    ("enron", "train"): (1123, 0, 1001, 1001, 53, 3.3865, 545),
    ("enron", "full"): (1702, 0, 1001, 1001, 53, 3.3784, 753),
    ("medical", "test"): (645, 0, 1449, 1449, 45, 1.2403, 73),
    ("medical", "train"): (333, 0, 1449, 1449, 45, 1.2553, 61),
    ("medical", "full"): (978, 0, 1449, 1449, 45, 1.2454, 94),
}
SPARSE = {"bibtex", "corel5k", "enron", "medical"}
FOLDER_XML = {"emotions": "emotions/emotions.xml", "birds": "birds/birds.xml", "medical": "medical/medical.xml",
              "enron": "enron/enron.xml", "CAL500": "CAL500/cal500.xml", "corel5k": "corel5k/Corel5k.xml",
              "bibtex": "bibtex/bibtex.xml"}


@pytest.fixture(scope="module")
def loaded(data_dir):
    """load_benchmark, memoised for the module: each file is parsed once."""
    cache = {}

    def get(name, subset):
        if (name, subset) not in cache:
            cache[name, subset] = load_benchmark(name, subset, data_home=data_dir)
        return cache[name, subset]

    return get


def xml_label_names(path):
    return [el.get("name") for el in ET.parse(path).getroot().iter() if el.tag.endswith("label")]


def arff_attribute_names(path):
    """Attribute names from the header, with quotes and \\' escapes removed (an independent reading)."""
    names = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.lower().startswith("@data"):
                break
            m = re.match(r"@attribute\s+('(?:[^'\\]|\\.)*'|\S+)\s", line, re.IGNORECASE)
            if m:
                names.append(m.group(1).strip("'").replace("\\'", "'"))
    return names


@pytest.mark.realdata
@pytest.mark.parametrize("name,subset", sorted(README_TABLE))
def test_counts_match_readme(loaded, name, subset):
    n, n_numeric, n_nominal, n_binary, n_labels, cardinality, distinct = README_TABLE[name, subset]
    data = loaded(name, subset)
    assert data.X.shape == (n, n_numeric + n_nominal)
    assert data.Y.shape == (n, n_labels)
    assert data.feature_types.count("numeric") == n_numeric
    assert data.feature_types.count("nominal") == n_nominal
    assert sum(sorted(v) == ["0", "1"] for v in data.categories.values()) == n_binary
    assert round(data.Y.sum() / n, 4) == cardinality
    assert np.unique(data.Y, axis=0).shape[0] == distinct
    assert isinstance(data.Y, np.ndarray) and data.Y.dtype == np.uint8
    if name in SPARSE:
        assert isinstance(data.X, sp.csr_array) and data.X.dtype == np.float64
        assert set(np.unique(data.X.data)) <= {1.0}  # binary features, explicit zeros dropped
    else:
        assert isinstance(data.X, np.ndarray) and data.X.dtype == np.float64
        assert not np.isnan(data.X).any()  # README: no missing values
    assert len(data.feature_names) == data.X.shape[1] and len(data.label_names) == n_labels
    assert data.name == name and data.subset == subset


@pytest.mark.realdata
@pytest.mark.parametrize("name", BENCHMARK_NAMES)
@pytest.mark.parametrize("subset", ["train", "test", "full"])
def test_label_names_are_the_xml_labels_in_arff_order(loaded, data_dir, name, subset):
    data = loaded(name, subset)
    xml_names = xml_label_names(data_dir / FOLDER_XML[name])
    assert set(data.label_names) == set(xml_names)
    # README note 1: labels are the last L attributes of every file, and
    # load_arff keeps the ARFF order.
    attributes = arff_attribute_names(data.filename)
    assert data.label_names == attributes[-len(xml_names):]
    assert data.feature_names == attributes[:-len(xml_names)]


@pytest.mark.realdata
def test_cal500_split(loaded, data_dir):
    full, train, test = (loaded("CAL500", s) for s in ("full", "train", "test"))
    with open(data_dir / "CAL500" / "cal500-split.json") as fh:
        split = json.load(fh)
    assert train.X.shape == (335, 68) and test.X.shape == (167, 68)
    assert sorted(np.concatenate([train.rows, test.rows]).tolist()) == list(range(502))
    np.testing.assert_array_equal(train.rows, sorted(split["train_idx"]))
    np.testing.assert_array_equal(train.X, full.X[train.rows])
    np.testing.assert_array_equal(test.X, full.X[test.rows])
    np.testing.assert_array_equal(train.Y, full.Y[train.rows])
    np.testing.assert_array_equal(test.Y, full.Y[test.rows])
    card = (train.Y.sum() + test.Y.sum()) / 502
    assert round(card, 4) == 26.0438


@pytest.mark.realdata
def test_birds_apostrophes_come_out_plain(loaded):
    for subset in ("train", "test", "full"):
        names = loaded("birds", subset).label_names
        assert {"Swainson's Thrush", "Hammond's Flycatcher", "MacGillivray's Warbler", "Stellar's Jay"} <= set(names)
        assert not any("\\" in n for n in names)
    data = loaded("birds", "train")
    assert data.categories["hasSegments"] == ["0", "1"]
    assert len(data.categories["location"]) == 12
    j = data.feature_names.index("location")
    # Encoded as the index into the declared list {2,10,1,...}, not the value.
    assert set(np.unique(data.X[:, j])) <= set(range(12))


@pytest.mark.realdata
def test_enron_labels_matched_by_name(loaded, data_dir):
    import arff

    data = loaded("enron", "test")
    xml_names = xml_label_names(data_dir / "enron" / "enron.xml")
    assert data.label_names != xml_names  # the XML order differs (README note 1) ...
    assert sorted(data.label_names) == sorted(xml_names)  # ... the names do not
    # Each Y column holds the values of the attribute of that name, read here
    # by liac-arff directly.
    with open(data.filename) as fh:
        raw = arff.load(fh, return_type=arff.COO)
    names = [a[0] for a in raw["attributes"]]
    values, rows, cols = (np.asarray(v) for v in raw["data"])
    dense = np.zeros((data.Y.shape[0], len(names)), dtype=np.uint8)
    dense[rows, cols] = (values == "1")
    Y = data.Y
    for k, label in enumerate(data.label_names):
        np.testing.assert_array_equal(Y[:, k], dense[:, names.index(label)], err_msg=label)


@pytest.mark.realdata
def test_medical_labels_are_the_last_45(loaded):
    data = loaded("medical", "full")
    assert "-C 45" in data.relation  # the stale MEKA marker is ignored: the XML decides
    assert all(name.startswith("Class-") for name in data.label_names)
    assert not any(name.startswith("Class-") for name in data.feature_names)


@pytest.mark.realdata
def test_emotions_full_is_train_then_test(loaded):
    full, train, test = (loaded("emotions", s) for s in ("full", "train", "test"))
    np.testing.assert_array_equal(full.X, np.vstack([train.X, test.X]))
    np.testing.assert_array_equal(full.Y, np.vstack([train.Y, test.Y]))


@pytest.mark.realdata
def test_names_are_case_insensitive(data_dir):
    data = load_benchmark("EMOTIONS", "test", data_home=data_dir)
    assert data.name == "emotions" and data.X.shape == (202, 72)


@pytest.mark.realdata
def test_data_home_from_environment(monkeypatch, data_dir):
    monkeypatch.setenv("CORSET_DATA", str(data_dir))
    assert load_benchmark("emotions", "test").X.shape == (202, 72)


# --- without the real data ------------------------------------------------------

def test_unknown_name_lists_valid_ones(tmp_path):
    with pytest.raises(ValueError, match="unknown benchmark data set 'mediamill'.*emotions.*CAL500.*bibtex"):
        load_benchmark("mediamill", data_home=tmp_path)


def test_unknown_subset_lists_valid_ones(tmp_path):
    with pytest.raises(ValueError, match="subset must be one of 'train', 'test', 'full'; got 'validation'"):
        load_benchmark("emotions", "validation", data_home=tmp_path)


def test_no_data_folder_says_how_to_set_it(monkeypatch):
    monkeypatch.delenv("CORSET_DATA", raising=False)
    with pytest.raises(ValueError, match="CORSET_DATA"):
        load_benchmark("emotions")


def test_missing_data_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("CORSET_DATA", str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError, match="absent.*CORSET_DATA"):
        load_benchmark("emotions")
    with pytest.raises(FileNotFoundError, match="emotions-train.arff"):
        load_benchmark("emotions", data_home=tmp_path)


def _fake_cal500(home, n=6, split=None):
    folder = home / "CAL500"
    folder.mkdir(parents=True)
    rows = "\n".join(f"{i}.5,{i % 2},{(i + 1) % 2}" for i in range(n))
    (folder / "cal500.arff").write_text(
        f"@relation CAL500\n@attribute x numeric\n@attribute a {{0,1}}\n@attribute b {{0,1}}\n@data\n{rows}\n")
    (folder / "cal500.xml").write_text('<labels xmlns="http://mulan.sourceforge.net/labels">'
                                       '<label name="b"/><label name="a"/></labels>')
    split = split if split is not None else {"n": n, "train_idx": [4, 0, 2, 3], "test_idx": [5, 1]}
    (folder / "cal500-split.json").write_text(json.dumps(split))


def test_cal500_split_rows(tmp_path):
    _fake_cal500(tmp_path)
    train = load_benchmark("cal500", "train", data_home=tmp_path)
    test = load_benchmark("Cal500", "test", data_home=tmp_path)
    full = load_benchmark("CAL500", "full", data_home=tmp_path)
    assert train.name == "CAL500"
    np.testing.assert_array_equal(train.rows, [0, 2, 3, 4])
    np.testing.assert_array_equal(train.X[:, 0], [0.5, 2.5, 3.5, 4.5])
    np.testing.assert_array_equal(test.X[:, 0], [1.5, 5.5])
    np.testing.assert_array_equal(test.Y, [[1, 0], [1, 0]])
    assert full.X.shape == (6, 1) and "rows" not in full


@pytest.mark.parametrize("split,match", [
    ({"n": 7, "train_idx": [0], "test_idx": [1]}, "split of 7 rows"),
    ({"n": 6, "train_idx": [0, 6], "test_idx": [1]}, "outside"),
    ({"n": 6, "train_idx": [0, 1], "test_idx": [1]}, "share row numbers"),
    ({"n": 6, "train": [0], "test_idx": [1]}, "must hold integer lists"),
])
def test_bad_cal500_split(tmp_path, split, match):
    _fake_cal500(tmp_path, split=split)
    with pytest.raises(ValueError, match=match):
        load_benchmark("CAL500", "train", data_home=tmp_path)


def test_load_arff_and_benchmark_agree(tmp_path):
    _fake_cal500(tmp_path)
    a = load_benchmark("CAL500", "full", data_home=tmp_path)
    b = load_arff(tmp_path / "CAL500" / "cal500.arff", label_xml=tmp_path / "CAL500" / "cal500.xml")
    np.testing.assert_array_equal(a.X, b.X)
    assert a.label_names == b.label_names == ["a", "b"]


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["emotions", "birds", "medical", "enron", "CAL500", "corel5k", "bibtex"])
def test_as_frame_names_every_column(name, data_dir):
    import pandas as pd

    plain = load_benchmark(name, "train", data_home=data_dir)
    framed = load_benchmark(name, "train", data_home=data_dir, as_frame=True)
    assert isinstance(framed.X, pd.DataFrame) and isinstance(framed.Y, pd.DataFrame)
    assert list(framed.X.columns) == plain.feature_names and list(framed.Y.columns) == plain.label_names
    np.testing.assert_array_equal(framed.Y.to_numpy(), plain.Y)
    if sp.issparse(plain.X):
        assert all(isinstance(t, pd.SparseDtype) for t in framed.X.dtypes)
        assert (sp.csr_array(framed.X.sparse.to_coo()) != plain.X).nnz == 0
        assert plain.X.indices.dtype == np.int32
    else:
        for j, (column, kind) in enumerate(zip(plain.feature_names, plain.feature_types)):
            values = framed.X[column]
            declared = plain.categories.get(column)
            if kind == "nominal" and sorted(map(str, declared)) != ["0", "1"]:
                assert isinstance(values.dtype, pd.CategoricalDtype)
                assert list(values.cat.categories) == list(declared)
                np.testing.assert_array_equal(values.cat.codes.to_numpy(), plain.X[:, j])
            else:
                np.testing.assert_array_equal(values.to_numpy(dtype=float), plain.X[:, j])


@pytest.mark.realdata
def test_scikit_learn_tools_take_the_loaders_output_unchanged(data_dir):
    from sklearn.model_selection import cross_val_score
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    data = load_benchmark("medical", "train", data_home=data_dir)
    scores = cross_val_score(OneVsRestClassifier(LinearSVC()), data.X, data.Y, cv=3, scoring="f1_micro")
    assert scores.shape == (3,) and np.all(scores > 0.3)


@pytest.mark.realdata
@pytest.mark.parametrize("name", BENCHMARK_NAMES)
def test_dense_y_holds_the_label_attributes(loaded, name):
    """Y (dense uint8) is, column by column, the label attribute of that name as liac-arff reads it
    (the sparse Y of earlier versions held the same values)."""
    import arff

    data = loaded(name, "full")
    sparse = name in SPARSE
    with open(data.filename) as fh:
        raw = arff.load(fh, return_type=arff.COO if sparse else arff.DENSE)
    names = [a[0].replace("\\'", "'") for a in raw["attributes"]]
    if sparse:
        values, rows, cols = (np.asarray(v) for v in raw["data"])
        full = np.zeros((data.Y.shape[0], len(names)), dtype=np.uint8)
        full[rows.astype(int), cols.astype(int)] = values == "1"
    else:
        full = (np.asarray(raw["data"], dtype=object) == "1").astype(np.uint8)
    assert isinstance(data.Y, np.ndarray) and data.Y.dtype == np.uint8
    expected = full[:, [names.index(label) for label in data.label_names]]
    np.testing.assert_array_equal(data.Y, expected)
    np.testing.assert_array_equal(sp.csr_array(data.Y).toarray(), expected)


@pytest.mark.realdata
@pytest.mark.filterwarnings("ignore:Label not .* is present in all training examples")
@pytest.mark.filterwarnings("ignore:Liblinear failed to converge")
@pytest.mark.parametrize("name", ["emotions", "birds", "enron"])
def test_cross_val_score_takes_load_arff_output_unchanged(name, data_dir):
    """One-vs-rest LinearSVC (liblinear: int32 sparse indices) on load_arff's X and Y, as they come."""
    from sklearn.model_selection import cross_val_score
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler
    from sklearn.svm import LinearSVC

    folder = data_dir / name
    data = load_arff(folder / f"{name}-train.arff", label_xml=folder / f"{name}.xml")
    if sp.issparse(data.X):
        assert data.X.indices.dtype == data.X.indptr.dtype == np.int32
    model = make_pipeline(MaxAbsScaler(), OneVsRestClassifier(LinearSVC()))
    scores = cross_val_score(model, data.X, data.Y, cv=3, scoring="f1_micro")
    assert scores.shape == (3,) and np.all(scores > 0.2)


@pytest.mark.realdata
def test_birds_location_indices_warned_about_once(data_dir):
    import warnings

    from corset.datasets import NominalCodesWarning

    with pytest.warns(NominalCodesWarning, match="birds-train.arff.*'location'") as record:
        load_benchmark("birds", "train", data_dir)
    assert len([w for w in record if w.category is NominalCodesWarning]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", NominalCodesWarning)
        load_benchmark("birds", "train", data_dir, as_frame=True)
        load_benchmark("emotions", "train", data_dir)
