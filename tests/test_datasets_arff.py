"""load_arff on small ARFF/XML files written to tmp_path: layouts, encodings, traps and every error."""
import gzip
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from corset.datasets import load_arff

MULAN_NS = "http://mulan.sourceforge.net/labels"


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def label_xml(path, names, namespace=True):
    ns = f' xmlns="{MULAN_NS}"' if namespace else ""
    body = "\n".join(f'<label name="{n}"></label>' for n in names)
    return write(path, f'<?xml version="1.0" encoding="utf-8"?>\n<labels{ns}>\n{body}\n</labels>\n')


DENSE = """% a comment
@relation toy
@attribute num numeric
@attribute colour {red,green,blue}
@attribute flag {1,0}
@attribute 'lab b' {0,1}
@attribute lab_a {1,0}
@data
1.5,green,1,1,0
?,blue,0,0,1
-2,?,1,1,1
"""


def test_dense_mulan_file(tmp_path):
    arff_path = write(tmp_path / "toy.arff", DENSE)
    # The XML lists the labels in another order than the ARFF: matched by name.
    xml_path = label_xml(tmp_path / "toy.xml", ["lab_a", "lab b"])
    data = load_arff(arff_path, label_xml=xml_path)
    assert isinstance(data.X, np.ndarray) and data.X.dtype == np.float64
    assert data.feature_names == ["num", "colour", "flag"]
    assert data.label_names == ["lab b", "lab_a"]  # ARFF order
    assert data.feature_types == ["numeric", "nominal", "nominal"]
    assert data.categories == {"colour": ["red", "green", "blue"], "flag": ["1", "0"]}
    assert data.relation == "toy"
    assert data.filename == str(arff_path)
    expected_X = np.array([[1.5, 1, 1], [np.nan, 2, 0], [-2, np.nan, 1]])
    np.testing.assert_array_equal(data.X, expected_X)  # NaN where missing; {1,0} kept by value
    assert isinstance(data.Y, np.ndarray) and data.Y.dtype == np.uint8
    np.testing.assert_array_equal(data.Y, [[1, 0], [0, 1], [1, 1]])


SPARSE = """@relation sparse_toy
@attribute f0 numeric
@attribute f1 {a,b,c}
@attribute f2 {1,0}
@attribute f3 {0,1}
@attribute l0 {0,1}
@attribute l1 {0,1}
@data
{0 2.5,1 c,4 1}
{}
{2 0,3 1,5 1}
{1 b,2 1,3 0,4 1,5 1}
{}
"""


def test_sparse_file(tmp_path):
    arff_path = write(tmp_path / "s.arff", SPARSE)
    data = load_arff(arff_path, n_labels=-2)
    assert isinstance(data.X, sp.csr_array) and data.X.dtype == np.float64
    # Omitted values are WEKA's internal 0: 0.0, or the first declared
    # value of a nominal attribute -- '1' for f2 declared {1,0}.
    expected_X = [[2.5, 2, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 1, 1, 0], [0, 0, 1, 0]]
    np.testing.assert_array_equal(data.X.toarray(), expected_X)
    np.testing.assert_array_equal(data.Y, [[1, 0], [0, 0], [0, 1], [1, 1], [0, 0]])
    assert data.X.shape[0] == 5  # trailing empty rows kept
    assert isinstance(data.Y, np.ndarray) and data.Y.dtype == np.uint8
    assert data.feature_types == ["numeric", "nominal", "nominal", "nominal"]


def test_sparse_missing_feature_is_nan(tmp_path):
    text = "@relation r\n@attribute f0 numeric\n@attribute f1 {0,1}\n@attribute l {0,1}\n@data\n{0 ?,2 1}\n{1 ?}\n"
    data = load_arff(write(tmp_path / "m.arff", text), n_labels=-1)
    X = data.X.toarray()
    assert np.isnan(X[0, 0]) and np.isnan(X[1, 1])
    assert np.count_nonzero(~np.isnan(X) & (X != 0)) == 0


@pytest.mark.parametrize("text", [DENSE, SPARSE])
def test_gzipped_files_read_like_plain(tmp_path, text):
    plain = write(tmp_path / "plain.arff", text)
    # Recognised by content: the name need not end in .gz.
    for name in ("z.arff.gz", "z_gzipped.arff"):
        with gzip.open(tmp_path / name, "wt", encoding="utf-8") as fh:
            fh.write(text)
        a = load_arff(plain, n_labels=-2)
        b = load_arff(tmp_path / name, n_labels=-2)
        Xa = a.X.toarray() if sp.issparse(a.X) else a.X
        Xb = b.X.toarray() if sp.issparse(b.X) else b.X
        np.testing.assert_array_equal(Xa, Xb)
        np.testing.assert_array_equal(a.Y, b.Y)
        assert a.feature_names == b.feature_names and a.label_names == b.label_names


MEKA_FIRST = """@relation 'scene: -C 2'
@attribute y0 {0,1}
@attribute y1 {0,1}
@attribute x0 numeric
@attribute x1 numeric
@data
1,0,0.5,0.25
0,1,1,2
"""


def test_meka_first_labels(tmp_path):
    data = load_arff(write(tmp_path / "meka.arff", MEKA_FIRST))
    assert data.label_names == ["y0", "y1"]
    assert data.feature_names == ["x0", "x1"]
    np.testing.assert_array_equal(data.Y, [[1, 0], [0, 1]])
    np.testing.assert_array_equal(data.X, [[0.5, 0.25], [1, 2]])
    assert data.relation == "scene: -C 2"


def test_meka_last_labels(tmp_path):
    text = """@relation 'Music: -C -2 -split 3'
@attribute x0 numeric
@attribute y0 {0,1}
@attribute y1 {0,1}
@data
3,1,1
4,0,1
"""
    data = load_arff(write(tmp_path / "meka.arff", text))
    assert data.label_names == ["y0", "y1"] and data.feature_names == ["x0"]
    np.testing.assert_array_equal(data.Y, [[1, 1], [0, 1]])


def test_n_labels_overrides_relation(tmp_path):
    path = write(tmp_path / "meka.arff", MEKA_FIRST)
    data = load_arff(path, n_labels=1)
    assert data.label_names == ["y0"]
    assert data.feature_names == ["y1", "x0", "x1"]
    assert data.feature_types == ["nominal", "numeric", "numeric"]


def test_xml_decides_over_stale_meka_relation(tmp_path):
    # Medical's trap: @relation says -C 2 (first two) but the labels are the last two.
    text = """@relation 'MEDC: -C 2 -I 0'
@attribute w0 {0,1}
@attribute w1 {0,1}
@attribute c0 {0,1}
@attribute c1 {0,1}
@data
{0 1,3 1}
{1 1,2 1}
"""
    path = write(tmp_path / "med.arff", text)
    data = load_arff(path, label_xml=label_xml(tmp_path / "med.xml", ["c0", "c1"]))
    assert data.label_names == ["c0", "c1"]
    assert data.feature_names == ["w0", "w1"]
    np.testing.assert_array_equal(data.Y, [[0, 1], [1, 0]])
    np.testing.assert_array_equal(data.X.toarray(), [[1, 0], [0, 1]])


def test_escaped_names_match_plain_xml(tmp_path):
    text = """@relation birds
@attribute x numeric
@attribute 'Swainson\\'s Thrush' {0,1}
@attribute 'Brown Creeper' {0,1}
@data
1,1,0
"""
    path = write(tmp_path / "b.arff", text)
    assert "\\'" in path.read_text()
    data = load_arff(path, label_xml=label_xml(tmp_path / "b.xml", ["Brown Creeper", "Swainson&apos;s Thrush"]))
    assert data.label_names == ["Swainson's Thrush", "Brown Creeper"]
    np.testing.assert_array_equal(data.Y, [[1, 0]])


def test_xml_without_namespace_and_nested_labels(tmp_path):
    arff_path = write(tmp_path / "t.arff", DENSE)
    xml_path = write(tmp_path / "t.xml", """<?xml version="1.0"?>
<labels>
  <label name="lab_a"><label name="lab b"></label></label>
</labels>""")
    data = load_arff(arff_path, label_xml=xml_path)
    assert data.label_names == ["lab b", "lab_a"]
    nested_ns = write(tmp_path / "u.xml", f"""<labels xmlns="{MULAN_NS}">
  <label name="lab b"><label name="lab_a"/></label>
</labels>""")
    assert load_arff(arff_path, label_xml=nested_ns).label_names == ["lab b", "lab_a"]


# --- errors -----------------------------------------------------------------

def test_missing_arff_file(tmp_path):
    missing = tmp_path / "nope.arff"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        load_arff(missing, n_labels=1)


def test_missing_xml_file(tmp_path):
    path = write(tmp_path / "t.arff", DENSE)
    with pytest.raises(FileNotFoundError, match="nope.xml"):
        load_arff(path, label_xml=tmp_path / "nope.xml")


def test_xml_label_not_in_arff(tmp_path):
    path = write(tmp_path / "t.arff", DENSE)
    xml_path = label_xml(tmp_path / "t.xml", ["lab_a", "ghost"])
    with pytest.raises(ValueError, match="ghost") as info:
        load_arff(path, label_xml=xml_path)
    assert str(path) in str(info.value) and str(xml_path) in str(info.value)


def test_no_way_to_know_the_labels(tmp_path):
    path = write(tmp_path / "t.arff", DENSE)
    with pytest.raises(ValueError, match="cannot tell which attributes are labels"):
        load_arff(path)


BOOLEAN_LABELS = """@relation openml_copy
@attribute x numeric
@attribute flag {TRUE,FALSE}
@attribute first {TRUE,FALSE}
@attribute second {FALSE,TRUE}
@attribute third {false,True}
@data
0.5,TRUE,TRUE,FALSE,True
1.5,FALSE,FALSE,TRUE,false
2.5,TRUE,TRUE,TRUE,True
"""
BOOLEAN_WANT = [[1, 0, 1], [0, 1, 0], [1, 1, 1]]


@pytest.mark.parametrize("as_frame", [False, True])
def test_labels_declared_false_true_read_as_0_1(tmp_path, as_frame):
    # OpenML's copies of the benchmarks declare their labels {FALSE,TRUE}: TRUE is 1, whatever
    # the order of the declaration or the letter case.  A feature so declared stays nominal.
    path = write(tmp_path / "t.arff", BOOLEAN_LABELS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = load_arff(path, n_labels=-3, as_frame=as_frame)
    # The feature's value indices are announced (not the labels', which are 0/1 values).
    assert [str(w.message).count("'flag'") > 0 for w in caught] == ([] if as_frame else [True])
    assert np.asarray(data.Y).tolist() == BOOLEAN_WANT
    assert data.label_names == ["first", "second", "third"]
    if as_frame:
        assert data.X["flag"].astype(str).tolist() == ["TRUE", "FALSE", "TRUE"]
    else:
        assert data.X[:, 1].tolist() == [0, 1, 0]   # the index of each value in {TRUE,FALSE}


def test_labels_declared_false_true_in_a_sparse_file(tmp_path):
    # An omitted value is the first declared one: TRUE for a label declared {TRUE,FALSE}.
    text = ("@relation r\n@attribute x numeric\n@attribute a {TRUE,FALSE}\n@attribute b {FALSE,TRUE}\n"
            "@data\n{0 1.5,1 FALSE}\n{2 TRUE}\n{0 2,1 TRUE,2 FALSE}\n")
    data = load_arff(write(tmp_path / "t.arff", text), n_labels=-2)
    assert data.Y.tolist() == [[0, 0], [1, 1], [1, 0]]


WITH_STRINGS = """@relation genes
@attribute protein string
@attribute x numeric
@attribute colour {red,green}
@attribute note string
@attribute 'lab a' {0,1}
@attribute lab_b {FALSE,TRUE}
@data
'P1 ok',1.5,red,'a, b',1,FALSE
P2,?,green,?,0,TRUE
'P3',-2,red,c,1,TRUE
"""


def test_string_attributes_are_refused_unless_kept_apart(tmp_path):
    path = write(tmp_path / "t.arff", WITH_STRINGS)
    with pytest.raises(ValueError, match=r"attribute 'protein' has type STRING.*strings='separate'"):
        load_arff(path, n_labels=-2)
    with pytest.raises(ValueError, match="strings must be"):
        load_arff(path, n_labels=-2, strings="drop")


@pytest.mark.parametrize("as_frame", [False, True])
def test_string_attributes_kept_apart(tmp_path, as_frame):
    path = write(tmp_path / "t.arff", WITH_STRINGS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the nominal 'colour' as value indices
        data = load_arff(path, n_labels=-2, strings="separate", as_frame=as_frame)
    assert data.feature_names == ["x", "colour"] and data.label_names == ["lab a", "lab_b"]
    assert np.asarray(data.Y).tolist() == [[1, 0], [0, 1], [1, 1]]
    assert list(data.strings) == ["protein", "note"]
    assert data.strings["protein"].tolist() == ["P1 ok", "P2", "P3"]
    assert data.strings["note"].tolist() == ["a, b", None, "c"]
    X = data.X.to_numpy() if as_frame else data.X
    assert np.isnan(X[1, 0]) and X[0, 0] == 1.5 and X[2, 0] == -2
    if as_frame:
        assert data.X["colour"].astype(str).tolist() == ["red", "green", "red"]
    # Labels counted among the file's attributes, strings included: the first two are the
    # string 'protein' and x, so n_labels=2 names a string attribute as a label.
    with pytest.raises(ValueError, match="label attribute 'protein' must be nominal"):
        load_arff(path, n_labels=2, strings="separate")
    plain = load_arff(write(tmp_path / "plain.arff", DENSE), n_labels=-2)
    assert plain.strings == {}
    empty = load_arff(write(tmp_path / "empty.arff", WITH_STRINGS.split("@data")[0] + "@data\n"), n_labels=-2,
                      strings="separate")
    assert empty.X.shape == (0, 2) and empty.Y.shape == (0, 2) and empty.strings["protein"].size == 0


def test_string_attributes_in_a_sparse_file_are_refused(tmp_path):
    text = "@relation r\n@attribute id string\n@attribute x numeric\n@attribute l {0,1}\n@data\n{0 a,1 2,2 1}\n"
    with pytest.raises(ValueError, match="string attribute 'id' in a sparse ARFF file"):
        load_arff(write(tmp_path / "t.arff", text), n_labels=-1, strings="separate")


@pytest.mark.parametrize("declared", ["numeric", "{0,1,2}", "{yes,no}"])
def test_label_attribute_must_be_nominal_binary(tmp_path, declared):
    text = f"@relation r\n@attribute x numeric\n@attribute lab {declared}\n@data\n1,{declared.strip('{}').split(',')[0] if '{' in declared else 1}\n"
    path = write(tmp_path / "t.arff", text)
    with pytest.raises(ValueError, match=r"label attribute 'lab' must be nominal \{0,1\} or \{FALSE,TRUE\}"):
        load_arff(path, n_labels=-1)


def test_missing_label_value_dense(tmp_path):
    path = write(tmp_path / "t.arff", DENSE.replace("-2,?,1,1,1", "-2,red,1,?,1"))
    with pytest.raises(ValueError, match=r"label 'lab b' is missing .* data row 3") as info:
        load_arff(path, n_labels=-2)
    assert str(path) in str(info.value)


def test_missing_label_value_sparse(tmp_path):
    path = write(tmp_path / "t.arff", SPARSE.replace("{2 0,3 1,5 1}", "{2 0,3 1,5 ?}"))
    with pytest.raises(ValueError, match=r"label 'l1' is missing .* data row 3"):
        load_arff(path, n_labels=-2)


def test_label_value_outside_declared_values(tmp_path):
    path = write(tmp_path / "t.arff", DENSE.replace("1.5,green,1,1,0", "1.5,green,1,2,0"))
    with pytest.raises(ValueError, match="not a valid ARFF file"):
        load_arff(path, n_labels=-2)


def test_label_xml_and_n_labels_together(tmp_path):
    path = write(tmp_path / "t.arff", DENSE)
    with pytest.raises(ValueError, match="not both"):
        load_arff(path, label_xml=label_xml(tmp_path / "t.xml", ["lab_a"]), n_labels=1)


@pytest.mark.parametrize("n_labels", [0, 5, -5, 7])
def test_n_labels_out_of_range(tmp_path, n_labels):
    path = write(tmp_path / "t.arff", DENSE)
    with pytest.raises(ValueError, match="n_labels"):
        load_arff(path, n_labels=n_labels)


@pytest.mark.parametrize("n_labels", [1.5, "2", True])
def test_n_labels_must_be_integer(tmp_path, n_labels):
    path = write(tmp_path / "t.arff", DENSE)
    with pytest.raises(TypeError, match="n_labels"):
        load_arff(path, n_labels=n_labels)


def test_meka_count_too_large(tmp_path):
    path = write(tmp_path / "t.arff", MEKA_FIRST.replace("-C 2", "-C 9"))
    with pytest.raises(ValueError, match="-C in @relation = 9"):
        load_arff(path)


def test_invalid_arff(tmp_path):
    path = write(tmp_path / "bad.arff", "@relation r\n@attribute x numeric\n@data\n1,2,3\n")
    with pytest.raises(ValueError, match=r"bad\.arff is not a valid ARFF file"):
        load_arff(path, n_labels=1)


def test_dense_row_in_sparse_file(tmp_path):
    path = write(tmp_path / "mix.arff", SPARSE.replace("{}\n{2 0", "0,a,1,0,1,1\n{2 0"))
    with pytest.raises(ValueError, match="not a valid ARFF file"):
        load_arff(path, n_labels=-2)


def test_string_attribute_refused(tmp_path):
    text = "@relation r\n@attribute s string\n@attribute l {0,1}\n@data\nhello,1\n"
    with pytest.raises(ValueError, match="attribute 's' has type STRING"):
        load_arff(write(tmp_path / "s.arff", text), n_labels=-1)


def test_bad_xml(tmp_path):
    path = write(tmp_path / "t.arff", DENSE)
    with pytest.raises(ValueError, match="not a valid XML file"):
        load_arff(path, label_xml=write(tmp_path / "bad.xml", "<labels><label name='a'></labels>"))
    with pytest.raises(ValueError, match="names no labels"):
        load_arff(path, label_xml=write(tmp_path / "empty.xml", f'<labels xmlns="{MULAN_NS}"/>'))
    with pytest.raises(ValueError, match="more than once"):
        load_arff(path, label_xml=label_xml(tmp_path / "dup.xml", ["lab_a", "lab_a"]))
    with pytest.raises(ValueError, match="no 'name' attribute"):
        load_arff(path, label_xml=write(tmp_path / "noname.xml", "<labels><label/></labels>"))


# --- round trip ---------------------------------------------------------------

@st.composite
def matrices(draw):
    n = draw(st.integers(0, 6))
    d = draw(st.integers(1, 4))
    q = draw(st.integers(1, 3))
    values = st.one_of(st.just(0.0), st.just(np.nan), st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 3)))
    X = np.array(draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=n, max_size=n)), dtype=float)
    Y = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=q, max_size=q), min_size=n, max_size=n)))
    return X.reshape(n, d), Y.reshape(n, q)


def _arff_text(X, Y, sparse, labels_first):
    d, q = X.shape[1], Y.shape[1]
    feats = [f"@attribute x{j} numeric" for j in range(d)]
    labs = [f"@attribute y{k} {{0,1}}" for k in range(q)]
    header = ["@relation rt"] + (labs + feats if labels_first else feats + labs) + ["@data"]
    rows = []
    for x, y in zip(X, Y):
        cells = [str(int(v)) for v in y] + ["?" if np.isnan(v) else repr(float(v)) for v in x] if labels_first else \
            ["?" if np.isnan(v) else repr(float(v)) for v in x] + [str(int(v)) for v in y]
        if sparse:
            rows.append("{" + ",".join(f"{j} {c}" for j, c in enumerate(cells) if c not in ("0", "0.0")) + "}")
        else:
            rows.append(",".join(cells))
    return "\n".join(header + rows) + "\n"


@settings(max_examples=60, deadline=None)
@given(matrices(), st.booleans(), st.booleans())
def test_round_trip(tmp_path_factory, XY, sparse, labels_first):
    X, Y = XY
    path = tmp_path_factory.mktemp("rt") / "rt.arff"
    write(path, _arff_text(X, Y, sparse, labels_first))
    q = Y.shape[1]
    data = load_arff(path, n_labels=q if labels_first else -q)
    got = data.X.toarray() if sp.issparse(data.X) else data.X
    assert sp.issparse(data.X) == (sparse and X.shape[0] > 0)
    np.testing.assert_array_equal(got, X)
    np.testing.assert_array_equal(data.Y, Y)
    assert data.label_names == [f"y{k}" for k in range(q)]


def test_byte_order_mark_is_ignored(tmp_path):
    path = tmp_path / "bom.arff"
    path.write_bytes(b"\xef\xbb\xbf" + MEKA_FIRST.encode("utf-8"))
    data = load_arff(path)
    assert data.relation == "scene: -C 2" and data.label_names == ["y0", "y1"]


YES_NO = """@relation protein
@attribute protein {A1,A2,A3}
@attribute PS0 {YES,NO}
@attribute size numeric
@attribute bit {0,1}
@attribute lab {0,1}
@data
A1,YES,1.0,0,1
A2,NO,2.0,1,0
A3,NO,3.0,1,1
"""


def test_nominal_indices_in_arrays_are_warned_about(tmp_path):
    """A {YES,NO} attribute comes out as a 0/1 column whose 1 means NO: said, not silent."""
    from corset.datasets import NominalCodesWarning

    path = write(tmp_path / "yes_no.arff", YES_NO)
    with pytest.warns(NominalCodesWarning, match=r"'protein', 'PS0' as indices .*'PS0': 0 means 'YES', "
                                                 r"1 means 'NO'.*present where it is 'NO'.*as_frame=True") as record:
        data = load_arff(path, n_labels=-1)
    assert len(record) == 1 and record[0].filename == __file__   # points at the caller's line
    assert data.X[:, 1].tolist() == [0, 1, 1]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_arff(path, n_labels=-1, as_frame=True)          # values kept: nothing to say
        load_arff(write(tmp_path / "plain.arff", YES_NO.replace("{A1,A2,A3}", "numeric")
                        .replace("{YES,NO}", "{0,1}").replace("A1,YES", "1,0").replace("A2,NO", "2,1")
                        .replace("A3,NO", "3,1")), n_labels=-1)


def test_nominal_indices_warning_of_a_sparse_file(tmp_path):
    from corset.datasets import NominalCodesWarning

    text = "@relation s\n@attribute f {a,b,c}\n@attribute g {0,1}\n@attribute lab {0,1}\n@data\n{0 b,2 1}\n{1 1}\n"
    with pytest.warns(NominalCodesWarning, match=r"nominal attribute 'f' as indices.*reads the indices as "
                                                 r"numbers\. A sparse file keeps the indices"):
        load_arff(write(tmp_path / "sparse.arff", text), n_labels=-1)


@pytest.mark.parametrize("declaration, name", [("'sign up' date \"yyyy-MM-dd\"", "sign up"),
                                               ("when DATE", "when")])
def test_a_date_attribute_is_named_with_what_to_do(tmp_path, declaration, name):
    text = ("@relation 'toy: -C 1'\n@attribute L1 {0,1}\n@attribute date numeric\n"
            f"@attribute {declaration}\n@data\n1,0.5,\"2020-01-01\"\n")
    path = write(tmp_path / "dated.arff", text)
    with pytest.raises(ValueError, match=f"attribute '{name}' \\(line 4\\) is a DATE attribute.*datetime column"):
        load_arff(path)
    # An attribute merely named "date" is not one.
    plain = write(tmp_path / "plain.arff", "@relation 'toy: -C 1'\n@attribute L1 {0,1}\n@attribute date numeric\n"
                                           "@data\n1,0.5\n0,1.5\n")
    assert load_arff(plain).X.shape == (2, 1)
