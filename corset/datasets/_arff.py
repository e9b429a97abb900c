"""Read multi-label ARFF files (MULAN and MEKA layouts) into arrays.

The parsing itself is liac-arff's; this module decides which attributes are
labels, turns the parsed values into a feature matrix ``X`` and a binary label
matrix ``Y``, and refuses anything it would otherwise have to guess or
silently change.  It touches nothing but the files it is given.

Which attributes are labels:

* MULAN: an XML file names the labels (``<label name="..."/>``, in the
  ``http://mulan.sourceforge.net/labels`` namespace, possibly nested).  They
  are matched to the ARFF attributes **by name**: the XML order is not the
  ARFF order (enron), and some files write ``\\'`` inside quoted names
  (birds' ``'Swainson\\'s Thrush'``), which is unescaped before matching.
* MEKA: ``-C N`` in the ``@relation`` name says the first ``N`` attributes
  are labels (``-C -N``: the last ``N``).  It is read only when no XML file is
  given, because some MULAN files (medical) carry a stale ``-C 45`` although
  their labels are the last 45 attributes.
"""
import gzip
import os
import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import arff
import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

from .._validation import check_binary_matrix

_NUMERIC_TYPES = ("NUMERIC", "REAL", "INTEGER")
_BINARY_VALUES = frozenset(("0", "1"))
_BOOLEAN_VALUES = frozenset(("false", "true"))


def _is_binary_nominal(declared):
    """Is an attribute declared nominal ``{0,1}`` (in any order)?  Its values are numbers."""
    return isinstance(declared, (list, tuple)) and len(declared) == 2 and set(map(str, declared)) == _BINARY_VALUES


def _is_boolean_nominal(declared):
    """Is an attribute declared nominal ``{FALSE,TRUE}`` (in any order and letter case)?

    OpenML's copies of the multi-label benchmarks declare their labels so; as a
    label, ``TRUE`` is 1 and ``FALSE`` 0, whatever the order of the declaration.
    """
    return (isinstance(declared, (list, tuple)) and len(declared) == 2
            and {str(v).lower() for v in declared} == _BOOLEAN_VALUES)


class NominalCodesWarning(UserWarning):
    """Arrays hold the value indices of nominal attributes, which a model would read as numbers.

    A two-valued attribute declared ``{YES,NO}`` becomes a 0/1 column whose
    1 means ``NO``: a rule fitted on it names the attribute where it holds
    its second value.  ``as_frame=True`` keeps the values instead (rules
    then read ``f=NO``).
    """

# ARFF (WEKA) escapes inside quoted names.  liac-arff strips the quotes of an
# attribute name but leaves its escapes in place, so birds' label
# 'Swainson\'s Thrush' would not match the XML's "Swainson's Thrush".
_NAME_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "%": "%", "t": "\t", "n": "\n", "r": "\r"}
_RE_NAME_ESCAPE = re.compile(r"\\(.)")

# MEKA writes the number of labels into the relation name: "scene: -C 6",
# "'Music: -C -6'" (negative: the labels are the last attributes).
_RE_MEKA_C = re.compile(r"(?:^|[\s:'\"])-C\s+(-?\d+)(?![\w.])")


def _binary_csr(M, name):
    """``check_binary_matrix``, with ``indptr`` in the dtype of ``indices``.

    check_binary_matrix casts the indices to int32 but keeps an int64
    ``indptr``; scipy refuses such a mix in ``tocoo``/``nonzero``.
    """
    M = check_binary_matrix(M, name)
    if M.indptr.dtype != M.indices.dtype and M.nnz <= np.iinfo(M.indices.dtype).max:
        M.indptr = M.indptr.astype(M.indices.dtype)
    return M


def _unescape_name(name):
    return _RE_NAME_ESCAPE.sub(lambda m: _NAME_ESCAPES.get(m.group(1), m.group(0)), name)


def _open_text(path):
    """Return the file's text; ``.gz`` files are recognised by their magic bytes, not their suffix."""
    with open(path, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline=None) as fh:
            return fh.read()
    except UnicodeDecodeError:
        # WEKA writes its platform encoding; latin-1 decodes any byte string.
        with opener(path, "rt", encoding="latin-1", newline=None) as fh:
            return fh.read()


def _read_lines(path):
    # Split on "\n" only (universal newlines already mapped \r\n and \r):
    # str.splitlines would also split inside quoted values at \x0c, \x1c, ...
    return _open_text(path).split("\n")


def _data_section(lines):
    """Locate ``@data`` the way liac-arff does; return (n_rows, sparse).

    The row count is needed because liac-arff's COO output does not report
    trailing empty sparse rows (``{}``); sparseness because its COO decoder
    refuses dense rows.  ``n_rows`` is ``None`` when there is no ``@data``
    line (liac-arff then reports the error).
    """
    it = iter(lines)
    for line in it:
        if line.strip(" \r\n").upper().startswith("@DATA"):
            break
    else:
        return None, False
    n_rows = 0
    sparse = None
    for line in it:
        row = line.strip()
        if row and not row.startswith("%"):
            if sparse is None:
                sparse = row.startswith("{")
            n_rows += 1
    return n_rows, bool(sparse)


_RE_DATE_ATTRIBUTE = re.compile(r"^\s*@attribute\s+('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)\s+date\b",
                                re.IGNORECASE)


def _refuse_date_attributes(path, lines):
    """A DATE attribute is valid ARFF, but liac-arff cannot read it: say so by its name, and what
    to do, instead of liac-arff's "Bad @ATTRIBUTE type"."""
    for number, line in enumerate(lines, start=1):
        head = line.lstrip().upper()
        if head.startswith("@DATA"):
            return
        match = _RE_DATE_ATTRIBUTE.match(line)
        if match:
            name = _unescape_name(match.group(1).strip("'\""))
            raise ValueError(
                f"{path}: attribute {name!r} (line {number}) is a DATE attribute, which the ARFF reader "
                "(liac-arff) cannot read; convert it to a numeric attribute in the file (e.g. days since "
                "a date), or read the file another way and pass CorsetClassifier a pandas DataFrame with "
                "a datetime column (its rules then print dates)")


def _arff_summary(path):
    """Cheap header scan, no parsing: (n_rows, n_attributes, sparse).  Used by ``corset info``."""
    lines = _read_lines(path)
    n_attributes = 0
    for line in lines:
        head = line.strip(" \r\n").upper()
        if head.startswith("@ATTRIBUTE"):
            n_attributes += 1
        elif head.startswith("@DATA"):
            break
    n_rows, sparse = _data_section(lines)
    return n_rows, n_attributes, sparse


def _local_tag(tag):
    return tag.rsplit("}", 1)[-1]


def _read_label_xml(xml_path):
    """Label names of a MULAN XML file, in document order (nested labels included)."""
    xml_path = Path(xml_path)
    if not xml_path.is_file():
        raise FileNotFoundError(f"label XML file not found: {xml_path}")
    try:
        root = ET.parse(xml_path).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"{xml_path} is not a valid XML file: {exc}") from exc
    names = []
    for element in root.iter():
        if _local_tag(element.tag) == "label":
            name = element.get("name")
            if name is None:
                raise ValueError(f"{xml_path}: a <label> element has no 'name' attribute")
            names.append(name)
    if not names:
        raise ValueError(f"{xml_path} names no labels (expected <label name=\"...\"> elements)")
    seen = set()
    duplicates = [n for n in names if n in seen or seen.add(n)]
    if duplicates:
        raise ValueError(f"{xml_path} names these labels more than once: {duplicates[:10]}")
    return names


def _columns_from_count(count, n_attributes, source, path):
    """Attribute positions of the labels for MEKA's convention: first ``count``, or last ``-count``."""
    if count == 0 or abs(count) >= n_attributes:
        raise ValueError(
            f"{path}: {source} = {count} does not fit a file with {n_attributes} attributes "
            f"(need 1 <= |{source}| < {n_attributes}: N > 0 means the first N attributes are labels, "
            f"-N the last N)"
        )
    if count > 0:
        return list(range(count))
    return list(range(n_attributes + count, n_attributes))


def _label_columns(path, names, relation, label_xml, n_labels):
    if label_xml is not None:
        xml_names = _read_label_xml(label_xml)
        position = {name: j for j, name in enumerate(names)}
        missing = [name for name in xml_names if name not in position]
        if missing:
            shown = ", ".join(repr(m) for m in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            raise ValueError(
                f"{len(missing)} label(s) named in {label_xml} not found among the attributes of "
                f"{path}: {shown}{more}"
            )
        return sorted(position[name] for name in xml_names)
    if n_labels is not None:
        if isinstance(n_labels, bool) or not isinstance(n_labels, (int, np.integer)):
            raise TypeError(f"n_labels must be an integer (N: first N attributes, -N: last N); got {n_labels!r}")
        return _columns_from_count(int(n_labels), len(names), "n_labels", path)
    match = _RE_MEKA_C.search(relation)
    if match is None:
        raise ValueError(
            f"{path}: cannot tell which attributes are labels: pass label_xml (a MULAN XML file) or "
            f"n_labels, or use a MEKA file whose @relation holds '-C N'"
        )
    return _columns_from_count(int(match.group(1)), len(names), "-C in @relation", path)


def load_arff(path, label_xml=None, n_labels=None, *, as_frame=False, strings="error"):
    """Load a multi-label ARFF file (MULAN or MEKA layout, dense or sparse, plain or gzipped).

    Parameters
    ----------
    path : str or path-like
        The ARFF file.  Gzipped files are recognised by their content,
        whatever their name.
    label_xml : str or path-like, optional
        MULAN's XML file naming the labels.  Labels are matched to attributes
        by name, after unescaping ARFF escapes (``\\'`` -> ``'``) in the ARFF
        names.  When given, it alone decides which attributes are labels
        (a ``-C`` in ``@relation`` is ignored).
    n_labels : int, optional
        Without ``label_xml``: ``N > 0`` makes the first ``N`` attributes the
        labels, ``-N`` the last ``N`` (MEKA's convention).  It overrides a
        ``-C N`` in ``@relation``.  Giving both ``label_xml`` and
        ``n_labels`` is an error.  With neither, the ``-C N`` of a MEKA
        ``@relation`` is used.
    as_frame : bool, default=False
        Return ``X`` and ``Y`` as pandas DataFrames named by the attributes:
        numeric features as float columns, nominal ones as
        :class:`pandas.Categorical` of their declared values (a nominal
        ``{0,1}`` feature stays a 0/1 column), a sparse file's features as a
        sparse DataFrame, and ``Y`` as 0/1 columns named by the labels.
        Needs pandas.
    strings : {"error", "separate"}, default="error"
        What to do with string attributes (free text, such as a record's
        identifier), which a rule cannot use: refuse the file (the default:
        nothing is left out unasked), or keep them out of ``X`` and give
        their values in ``strings``.  Dense files only.

    Returns
    -------
    data : sklearn.utils.Bunch
        With fields

        X : ndarray of float64 (dense file) or scipy.sparse.csr_array of float64 (sparse file)
            Features, of shape (n_records, n_features); a sparse matrix has
            int32 indices where they fit (what liblinear-based estimators
            such as LinearSVC accept).  A numeric attribute
            keeps its value.  A nominal attribute is encoded as the index of
            its value in the attribute's declared value list, except a
            nominal attribute declared with exactly the values ``0`` and
            ``1`` (in any order), which holds that numeric value, so nothing
            is flipped.  A missing value (``?``) is NaN.  In a sparse file an
            omitted value is WEKA's internal 0: 0.0 for a numeric attribute,
            the first declared value of a nominal one.
        Y : ndarray of uint8
            Labels, a dense 0/1 indicator matrix of shape (n_records,
            n_labels) (a label matrix is small; scikit-learn's model
            selection tools take it as it is), columns in the order of
            ``label_names``.  A label attribute is declared ``{0,1}`` (MULAN,
            MEKA) or ``{FALSE,TRUE}`` (OpenML's copies; any order, any letter
            case), ``TRUE`` being 1.
        feature_names, label_names : list of str
            Attribute names (unescaped), in the ARFF file's order.
        feature_types : list of str
            ``'numeric'`` or ``'nominal'`` per feature.
        categories : dict
            Feature name -> list of declared values, for nominal features.
        relation : str
            The ``@relation`` name.
        filename : str
            The path that was read.
        strings : dict
            String attribute name -> ndarray of object (str, None where
            missing), with ``strings="separate"``; empty otherwise.

    Raises
    ------
    FileNotFoundError
        If the ARFF or XML file does not exist.
    ValueError
        If the file is not valid ARFF; an XML label is not an attribute of the
        file; no label information is available; a label attribute is not
        nominal ``{0,1}`` or ``{FALSE,TRUE}``; a label value is missing; a feature is a string
        attribute or a date attribute (which the ARFF reader cannot read).

    Warns
    -----
    NominalCodesWarning
        With ``as_frame=False``, when a feature is nominal with values other
        than ``{0,1}``: ``X`` holds its value indices, which an estimator
        reads as numbers (a ``{YES,NO}`` attribute becomes a 0/1 column
        whose 1 means ``NO``).

    Notes
    -----
    A label must be 0 or 1 in every record: a missing label is an error
    rather than a guessed 0.
    """
    if strings not in ("error", "separate"):
        raise ValueError(f"strings must be 'error' or 'separate'; got {strings!r}")
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"ARFF file not found: {path}")
    if label_xml is not None and n_labels is not None:
        raise ValueError("give label_xml or n_labels, not both: the XML file alone names the labels")
    lines = _read_lines(path)
    _refuse_date_attributes(path, lines)
    n_rows, sparse = _data_section(lines)
    try:
        obj = arff.ArffDecoder().decode(lines, encode_nominal=True, return_type=arff.COO if sparse else arff.DENSE)
    except arff.ArffException as exc:
        # liac-arff's message gives the line number; show the line too, since
        # a value outside its nominal declaration is reported without the
        # attribute's name.
        line = getattr(exc, "line", None)
        shown = ""
        if isinstance(line, int) and 0 < line <= len(lines):
            text = lines[line - 1].strip()
            shown = f" (line {line}: {text[:200]}{'...' if len(text) > 200 else ''})"
        raise ValueError(f"{path} is not a valid ARFF file: {exc}{shown}") from exc

    attributes = obj["attributes"]
    names = [_unescape_name(name) for name, _ in attributes]
    if len(set(names)) != len(names):
        seen = set()
        duplicates = [n for n in names if n in seen or seen.add(n)]
        raise ValueError(f"{path}: attribute names repeat after unescaping: {duplicates[:10]}")
    relation = obj["relation"]
    label_cols = _label_columns(path, names, relation, label_xml, n_labels)
    is_label = np.zeros(len(names), dtype=bool)
    is_label[label_cols] = True

    for j in label_cols:
        declared = attributes[j][1]
        if not (_is_binary_nominal(declared) or _is_boolean_nominal(declared)):
            kind = "{" + ",".join(declared) + "}" if isinstance(declared, list) else declared
            raise ValueError(f"{path}: label attribute {names[j]!r} must be nominal {{0,1}} or {{FALSE,TRUE}}; "
                             f"it is declared {kind}")
    string_cols = [j for j, (_, declared) in enumerate(attributes) if declared == "STRING"]
    for j, (_, declared) in enumerate(attributes):
        if declared == "STRING" and strings == "separate":
            continue
        if not isinstance(declared, list) and declared not in _NUMERIC_TYPES:
            hint = (" (numeric and nominal attributes only; strings='separate' keeps string attributes out of "
                    "X, with their values in data.strings)" if declared == "STRING"
                    else " (numeric and nominal attributes only)")
            raise ValueError(f"{path}: attribute {names[j]!r} has type {declared}, which is not supported{hint}")
    string_values = {}
    if string_cols:
        # strings="separate": the string attributes leave the file's columns here, before any
        # number is read (n_labels and label_xml counted them as the file declares them).
        if sparse:
            raise ValueError(f"{path}: string attribute {names[string_cols[0]]!r} in a sparse ARFF file is not "
                             "supported")
        # An object table: the values keep their Python types (no common dtype is inferred).
        table = np.empty((len(obj["data"]), len(names)), dtype=object)
        if len(table):
            table[:] = obj["data"]
        string_values = {names[j]: table[:, j].copy() for j in string_cols}
        keep = np.setdiff1d(np.arange(len(names)), string_cols)
        obj["data"] = table[:, keep]
        attributes = [attributes[j] for j in keep]
        names = [names[j] for j in keep]
        label_cols = np.searchsorted(keep, label_cols).tolist()   # no label is a string attribute
        is_label = is_label[keep]

    # liac-arff gives nominal values as indices into the declared list; an
    # attribute declared {1,0}, and a label declared {TRUE,FALSE}, must be
    # turned back into its value (1 for TRUE).
    reversed_binary = [j for j, (_, d) in enumerate(attributes)
                       if isinstance(d, list) and len(d) == 2 and (d == ["1", "0"] or (
                           is_label[j] and _is_boolean_nominal(d) and str(d[0]).lower() == "true"))]

    if sparse:
        values, rows, cols = obj["data"]
        values = np.asarray(values, dtype=np.float64)  # None (missing) -> NaN
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        values, rows, cols = _fix_reversed_sparse(values, rows, cols, reversed_binary, n_rows)
        lab = is_label[cols]
        _check_labels(path, names, values[lab], rows[lab], cols[lab])
        feature_pos = np.cumsum(~is_label) - 1
        label_pos = np.cumsum(is_label) - 1
        X = sp.csr_array((values[~lab], (rows[~lab], feature_pos[cols[~lab]])),
                         shape=(n_rows, int((~is_label).sum())), dtype=np.float64)
        X.eliminate_zeros()
        X.sort_indices()
        X = _int32_indices(X)
        Y = sp.csr_array((values[lab], (rows[lab], label_pos[cols[lab]])),
                         shape=(n_rows, int(is_label.sum())), dtype=np.float64)
    else:
        M = np.asarray(obj["data"], dtype=np.float64)  # None (missing) -> NaN
        if M.size == 0:
            M = M.reshape(0, len(names))
        for j in reversed_binary:
            M[:, j] = 1.0 - M[:, j]
        lab_block = M[:, is_label]
        if np.isnan(lab_block).any():
            r, c = np.nonzero(np.isnan(lab_block))
            _check_labels(path, names, lab_block[r, c], r, np.flatnonzero(is_label)[c])
        X = np.ascontiguousarray(M[:, ~is_label])
        Y = lab_block
    Y = np.asarray(_binary_csr(Y, "Y").toarray(), dtype=np.uint8)

    feature_cols = np.flatnonzero(~is_label)
    feature_names = [names[j] for j in feature_cols]
    feature_types = ["nominal" if isinstance(attributes[j][1], list) else "numeric" for j in feature_cols]
    categories = {names[j]: list(attributes[j][1]) for j in feature_cols if isinstance(attributes[j][1], list)}
    data = Bunch(
        X=X,
        Y=Y,
        feature_names=feature_names,
        label_names=[names[j] for j in label_cols],
        feature_types=feature_types,
        categories=categories,
        relation=relation,
        filename=str(path),
        strings=string_values,
    )
    if as_frame:
        return as_frames(data)
    warn_nominal_codes(data)
    return data


def warn_nominal_codes(data, stacklevel=2):
    """Warn (:class:`NominalCodesWarning`) when a loader's array ``X`` holds indices of nominal values
    other than 0/1; ``stacklevel`` as in :func:`warnings.warn`, counted from the caller."""
    coded = [name for name in data.feature_names
             if name in data.categories and not _is_binary_nominal(data.categories[name])]
    if not coded:
        return
    # The example: a two-valued attribute when there is one (the trap: a 0/1 column read as an item).
    name = next((c for c in coded if len(data.categories[c]) == 2), coded[0])
    values = data.categories[name]
    shown = ", ".join(map(repr, coded[:5])) + (f" and {len(coded) - 5} more" if len(coded) > 5 else "")
    meaning = ", ".join(f"{i} means {v!r}" for i, v in enumerate(values[:2]))
    trap = (f"; a model fitted on them reads {name!r} as an item present where it is {values[1]!r}"
            if len(values) == 2 else "; a model fitted on them reads the indices as numbers")
    advice = ("Pass as_frame=True (needs pandas) so that the rules name the values "
              f"({name}={values[-1]})" if not sp.issparse(data.X) else
              "A sparse file keeps the indices with as_frame=True too: one-hot encode these columns "
              "before fitting")
    warnings.warn(
        f"{data.filename}: X holds the nominal attribute{'s' if len(coded) > 1 else ''} {shown} as indices "
        f"of their declared values ({name!r}: {meaning}){trap}. {advice}.",
        NominalCodesWarning, stacklevel=stacklevel + 1)


def _int32_indices(X):
    """``X`` (CSR) with int32 indices and offsets when they fit."""
    limit = np.iinfo(np.int32).max
    if X.nnz <= limit and max(X.shape) <= limit:
        X = sp.csr_array((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape)
    return X


def as_frames(data):
    """A loader's Bunch with ``X`` and ``Y`` as pandas DataFrames (see ``as_frame`` of :func:`load_arff`)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is in the test extra
        raise ImportError("as_frame=True needs pandas: pip install pandas") from exc
    X = data.X
    if sp.issparse(X):
        frame = pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(X), columns=data.feature_names)
    else:
        columns = {}
        for j, name in enumerate(data.feature_names):
            values = X[:, j]
            declared = data.categories.get(name)
            if declared is None:
                columns[name] = values
            elif _is_binary_nominal(declared):
                columns[name] = values.astype(np.uint8)   # a 0/1 attribute holds its values
            else:
                codes = np.where(np.isnan(values), -1, values).astype(np.int64)
                columns[name] = pd.Categorical.from_codes(codes, categories=list(declared))
        frame = pd.DataFrame(columns)
    data.X = frame
    data.Y = pd.DataFrame(np.asarray(data.Y, dtype=np.uint8), columns=data.label_names)
    return data


def _fix_reversed_sparse(values, rows, cols, reversed_binary, n_rows):
    """Undo the index encoding of {1,0} attributes in COO data.

    An explicit entry holds the index (0 -> '1', 1 -> '0').  An omitted entry
    is WEKA's internal 0, the first declared value: '1'.  So such a column
    is 1 wherever the file omits it.
    """
    if not reversed_binary:
        return values, rows, cols
    extra_rows, extra_cols = [], []
    for j in reversed_binary:
        at = cols == j
        values[at] = 1.0 - values[at]
        implicit = np.setdiff1d(np.arange(n_rows, dtype=np.int64), rows[at], assume_unique=True)
        extra_rows.append(implicit)
        extra_cols.append(np.full(implicit.size, j, dtype=np.int64))
    extra_rows = np.concatenate(extra_rows)
    return (np.concatenate([values, np.ones(extra_rows.size)]),
            np.concatenate([rows, extra_rows]),
            np.concatenate([cols, np.concatenate(extra_cols)]))


def _check_labels(path, names, values, rows, cols):
    """Label values must be 0 or 1; a missing one (NaN) is reported with its label and record."""
    bad = np.flatnonzero(np.isnan(values) | ((values != 0) & (values != 1)))
    if bad.size:
        first = bad[np.lexsort((cols[bad], rows[bad]))[0]]
        shown = "missing ('?')" if np.isnan(values[first]) else repr(values[first])
        raise ValueError(
            f"{path}: label {names[cols[first]]!r} is {shown} in data row {rows[first] + 1} "
            f"({bad.size} such label value(s) in the file); labels must be 0 or 1"
        )
