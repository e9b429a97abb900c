"""The binary data layer: one representation of (X, Y), built once.

Every sampler, the selection and the prediction read a :class:`BinaryData`,
nothing else.  It holds, for a binary feature matrix X and label matrix Y:

* per record, the sorted ids of its features and of its labels (CSR);
* per feature and per label, the sorted ids of the records that have it
  (the inverted index, CSC);
* the counts that follow (``|D[{f}]|``, ``|D[{l}]|``, ``|F_D|``, ``|L_D|``).

The arrays are C-contiguous with the dtypes the kernels expect: ids int32
(``INDEX_DTYPE``), offsets int64 (``PTR_DTYPE``).  They are read-only so that
the structure can be shared between threads and samplers.
"""
import numpy as np

from ._ext import _csr_rows, _intersect
from ._ext._typedefs import INDEX_DTYPE, PTR_DTYPE
from ._validation import check_binary_matrix, check_fits_memory, check_ids


BITSET_BYTES = 64 * 2**20
"""Largest table of per-feature (per-label) record bitsets :meth:`BinaryData.column_bitsets` builds."""

SMALL_BITSET_BYTES = 2**20
"""A feature bitset table this small is built whatever the density (see :meth:`BinaryData.column_bitsets`)."""


def _lists_cheaper(n_words, n_entries, n_sets):
    """Are ``n_sets`` sets of ``n_entries`` ids in all better read as id lists than as bitsets of
    ``n_words`` words each?  Yes when a bitset has more words than two lists of average length
    hold entries: the kernels AND two bitsets word by word where they would merge (or stamp)
    two lists entry by entry, and such a table is nearly all zeros."""
    return n_words > 2 * n_entries / max(n_sets, 1)


def _frozen(a, dtype, own=False):
    """``a`` as a read-only C-contiguous array of ``dtype``.

    A view of another array is copied first (freezing a view would not stop
    writes through its base), unless ``own``: the caller owns the array and
    whatever it views, and writes to neither afterwards.
    """
    a = np.ascontiguousarray(a, dtype=dtype)
    if a.flags.writeable:
        a = a.copy() if a.base is not None and not own else a
        a.flags.writeable = False
    return a


def with_negated_columns(X, negated):
    """``[X, 1 - X[:, negated]]`` as a canonical uint8 CSR matrix (X canonical binary CSR).

    The negated columns are dense by nature (a feature on a tenth of the
    records has its negation on nine tenths).
    """
    import scipy.sparse as sp

    negated = _negated_ids(negated, X.shape[1])
    if negated.size == 0:
        return X
    # One pass over X's rows (compiled): the negated literals of a row are the negated
    # features it lacks, written after its own ids.
    indptr, ids = _csr_rows.with_negated_columns(np.asarray(X.indptr, dtype=PTR_DTYPE),
                                                 np.asarray(X.indices, dtype=INDEX_DTYPE), X.shape[1], negated)
    if ids.size <= np.iinfo(np.int32).max:
        indptr = indptr.astype(np.int32)   # scipy's own choice for such a matrix (int32 ids)
    out = sp.csr_array((np.ones(ids.size, dtype=np.uint8), ids, indptr), shape=(X.shape[0], X.shape[1] + negated.size))
    out.has_sorted_indices = True
    return out


#: The least memory one occurrence of a negated literal takes in the data layer: its id (int32)
#: and value (uint8) in the records' rows, and its record (int32) in the inverted index (a
#: layer of 10^8 negated occurrences peaked at 9.1 bytes each).  Past 2**31 - 1 entries,
#: scipy holds the rows' ids as int64 besides the layer's int32 copy: 8 bytes more.
NEGATED_OCCURRENCE_BYTES = 9
NEGATED_OCCURRENCE_BYTES_INT64 = 17


def _check_negations_fit(X, negated, name):
    """Refuse the negated literals of features ``negated`` of binary CSR ``X`` when their
    occurrences would take more than this machine's memory.

    "NOT f" holds on every record without f: on wide sparse data (text) nearly every
    record holds nearly every negation, records x features occurrences.  Built, they would
    not fail at once (memory is handed out lazily): they would fill memory until the process
    is killed.  ``name`` names the argument that asked for them in the message.
    """
    if negated.size == 0:
        return
    counts = np.bincount(X.indices, minlength=X.shape[1])[negated]
    occurrences = X.shape[0] * negated.size - int(counts.sum())
    int32 = X.nnz + occurrences <= np.iinfo(INDEX_DTYPE).max
    check_fits_memory(occurrences, NEGATED_OCCURRENCE_BYTES if int32 else NEGATED_OCCURRENCE_BYTES_INT64,
                      f"{name}: the negated literals of {negated.size} features ({occurrences:,} occurrences "
                      f"on {X.shape[0]} records)")


def _negated_ids(negated, n_features):
    """``negated`` as int64 ids, checked: distinct whole numbers in [0, n_features), in their order
    (the order of the negated literals' columns).  The compiled passes index X's columns with them."""
    return check_ids(negated, n_features, "negated", order="keep", what="feature ids").astype(np.int64)


def _no_labels(n_records):
    """The label matrix of a layer without labels: zero columns."""
    import scipy.sparse as sp

    return sp.csr_array((n_records, 0), dtype=np.uint8)


def _checked_labels(X, Y):
    """Y checked as binary with X's records (no labels: zero columns)."""
    if Y is None:
        return _no_labels(X.shape[0])
    Y = check_binary_matrix(Y, "Y")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must have the same number of records (rows); got {X.shape[0]} and {Y.shape[0]}")
    return Y


def _inverted_index(X):
    """Feature -> sorted record ids of canonical CSR X (scipy's transposition sorts them)."""
    Xc = X.tocsc()
    Xc.sort_indices()
    return _Index(Xc.indptr, Xc.indices, own=True)


class _Index:
    """A CSR-style map from ids to sorted id lists (``indptr``, ``ids``)."""

    __slots__ = ("indptr", "ids")

    def __init__(self, indptr, ids, own=False):
        self.indptr = _frozen(indptr, PTR_DTYPE, own)
        self.ids = _frozen(ids, INDEX_DTYPE, own)

    def __len__(self):
        return self.indptr.shape[0] - 1

    def __getitem__(self, i):
        return self.ids[self.indptr[i]:self.indptr[i + 1]]

    def lengths(self):
        return np.diff(self.indptr)


class BinaryData:
    """Binary features and labels with their inverted index.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_records, n_features)
        Binary (0/1) feature matrix.
    Y : array-like or sparse matrix of shape (n_records, n_labels), optional
        Binary (0/1) label matrix.  ``None`` builds a feature-only layer
        (zero labels), as needed at prediction time.

    Attributes
    ----------
    X, Y : scipy.sparse.csr_array of dtype uint8
        Canonical copies of the inputs (the inputs themselves are never
        written to or shared).
    record_features, record_labels : _Index
        Record -> sorted feature ids / label ids (``F_D`` and ``L_D``).
        ``record_features.ids`` is ``X.indices`` itself, read-only (when X
        has int32 ids, as below 2**31 occurrences): the records' feature
        ids are held once.
    feature_records, label_records : _Index
        Feature -> ``D[{f}]``, label -> ``D[{l}]``: the inverted index.
    feature_counts, label_counts : ndarray of int64
        ``|D[{f}]|`` and ``|D[{l}]|``.
    record_n_features, record_n_labels : ndarray of int64
        ``|F_D|`` and ``|L_D|`` per record.
    n_label_occurrences : int
        ``||L||``, the number of (record, label) pairs with a 1 in Y.

    Raises
    ------
    ValueError
        If X or Y is not a binary 2-D matrix, or their row counts differ.
    """

    def __init__(self, X, Y=None):
        X = check_binary_matrix(X, "X")
        self._fill(X, _checked_labels(X, Y), _inverted_index(X))

    @classmethod
    def _from_checked(cls, X, Y):
        """The layer of X and Y as :func:`corset._validation.check_binary_matrix` returned them.

        No second check and no copy: the layer takes X and Y over (their
        arrays become read-only), so the caller must not write to them.
        ``Y=None``: no labels (zero columns).
        """
        data = cls.__new__(cls)
        data._fill(X, _no_labels(X.shape[0]) if Y is None else Y, _inverted_index(X))
        return data

    def _fill(self, X, Y, feature_records):
        """Set every attribute from canonical X and Y and X's inverted index ``feature_records``.

        X is the layer's own (a checked copy or a matrix built for it): its
        column ids are ``record_features.ids`` themselves, not a copy.
        """
        self.X = X
        self.Y = Y
        self.n_records, self.n_features = X.shape
        self.n_labels = Y.shape[1]
        self.record_features = _Index(X.indptr, X.indices, own=True)
        self.record_labels = _Index(Y.indptr, Y.indices)
        Yc = Y.tocsc()
        Yc.sort_indices()
        self.feature_records = feature_records
        self.label_records = _Index(Yc.indptr, Yc.indices)
        self.feature_counts = _frozen(self.feature_records.lengths(), np.int64)
        self.label_counts = _frozen(self.label_records.lengths(), np.int64)
        self.record_n_features = _frozen(self.record_features.lengths(), np.int64)
        self.record_n_labels = _frozen(self.record_labels.lengths(), np.int64)
        self.n_label_occurrences = int(Y.nnz)
        self._column_bits = None
        self._label_ranks = None
        # Plain features: no literal is declared the negation of another (see with_negations).
        self.n_base_features = self.n_features
        self.negated_features = _frozen(np.zeros(0, dtype=INDEX_DTYPE), INDEX_DTYPE)

    @classmethod
    def with_negations(cls, X, Y, negated):
        """Features and negated literals: the columns ``[X, 1 - X[:, negated]]``.

        Feature ``j < p`` (p = X's columns, ``n_base_features``) is feature j
        of X; feature ``p + i`` is the literal "NOT negated[i]", carried by
        the records without feature ``negated[i]`` (``negated_features``).
        The samplers and the selection treat every literal as a feature.

        Parameters
        ----------
        X, Y : as for :class:`BinaryData`
        negated : sequence of int
            Distinct feature ids of X, in the order their negated literals
            take after X's columns.

        Raises
        ------
        ValueError
            When the negated literals' occurrences (records without the
            feature, summed over ``negated``) would take more than this
            machine's physical memory, at least 9 bytes each (17 past 2^31 - 1
            entries): refused before they are built.
        """
        return cls._checked_with_negations(check_binary_matrix(X, "X"), Y, negated)

    @classmethod
    def _checked_with_negations(cls, X, Y, negated, name="negated"):
        """:meth:`with_negations` of an X that :func:`~corset._validation.check_binary_matrix`
        returned, taken over as by :meth:`_from_checked` (Y is checked here).  ``name``: the
        argument that asked for the negated literals, named when they would not fit in memory."""
        negated = _negated_ids(negated, X.shape[1])
        Y = _checked_labels(X, Y)
        if negated.size == 0:
            return cls._from_checked(X, Y)
        _check_negations_fit(X, negated, name)
        index = _inverted_index(X)
        # Both indexes of the literals from the plain ones, in compiled passes: a negated
        # literal's records are the complement of its feature's (no validation, no sort,
        # no transposition of the dense negated columns).  The inverted index first: the
        # plain one is freed before the literals' rows are built (on dense data each is a
        # large share of the fit's peak memory).
        neg_indptr, neg_ids = _csr_rows.complement_columns(index.indptr, index.ids, negated, X.shape[0])
        feature_records = _Index(np.concatenate([index.indptr, index.indptr[-1] + neg_indptr[1:]]),
                                 np.concatenate([index.ids, neg_ids]), own=True)
        del index, neg_indptr, neg_ids
        data = cls.__new__(cls)
        data._fill(with_negated_columns(X, negated), Y, feature_records)
        data.n_base_features = X.shape[1]
        data.negated_features = _frozen(negated, INDEX_DTYPE)
        return data

    def take_records(self, records):
        """The records ``records`` alone, with the same features, literals and labels.

        Parameters
        ----------
        records : array-like of int
            Distinct record ids in increasing order.

        Returns
        -------
        BinaryData
            Record i of the result is record ``records[i]``; a negated literal
            stays the negation of its feature (``negated_features``).
        """
        records = np.asarray(records)
        if records.ndim != 1 or (records.size and not np.issubdtype(records.dtype, np.integer)):
            raise ValueError(f"records must be a 1-D array of record ids; got shape {records.shape}, "
                             f"dtype {records.dtype}")
        records = records.astype(np.int64, copy=False)
        if records.size and (records[0] < 0 or records[-1] >= self.n_records or np.any(np.diff(records) <= 0)):
            raise ValueError(f"records must hold distinct ids in [0, {self.n_records}) in increasing order")
        # Rows of canonical matrices are canonical: taken over without a check and a copy.
        data = type(self)._from_checked(self.X[records], self.Y[records])
        data.n_base_features = self.n_base_features
        data.negated_features = self.negated_features
        return data

    def column_bitsets(self):
        """D[{f}] of every feature and D[{l}] of every label as bitsets over the records.

        Returns ``(feature_bits, label_bits, n_words)``: uint64 arrays of
        ``n_words = ceil(n_records / 64)`` words per feature (label), bit
        ``i & 63`` of word ``i >> 6`` set iff record i has it.  Built on first
        use and kept; ``(None, None, 0)`` when either table would pass
        ``BITSET_BYTES`` (64 MB), or when the features are so sparse that a
        feature's bitset has more words than twice its average number of
        records and the table passes ``SMALL_BITSET_BYTES`` (1 MB): the
        kernels use the bitsets where ANDing words is cheaper than merging
        sorted id lists (dense data), and on wide sparse data (text: tens of
        thousands of words, each in a few records) the table would be nearly
        all zeros, read only by the lists' fallback.  A synthetic
        22,876 x 49,060 text-like fit peaked at 246 MB instead of 374 MB
        without it, in the same time and with the same rules.
        """
        if self._column_bits is None:
            n_words = max(1, -(-self.n_records // 64))
            sparse = (self.n_features * n_words * 8 > SMALL_BITSET_BYTES
                      and _lists_cheaper(n_words, self.feature_records.ids.size, self.n_features))
            if max(self.n_features, self.n_labels) * n_words * 8 > BITSET_BYTES or sparse:
                self._column_bits = (None, None, 0)
            else:
                f, l = self.feature_records, self.label_records
                self._column_bits = (_frozen(_intersect.bitsets(f.indptr, f.ids, n_words), np.uint64),
                                     _frozen(_intersect.bitsets(l.indptr, l.ids, n_words), np.uint64), n_words)
        return self._column_bits

    def label_ranks(self):
        """Per label and word of :meth:`column_bitsets`' label bitsets, the records of D[{l}] before it.

        int32, laid out as the label bitsets (see
        :func:`corset._ext._intersect.bitset_ranks`): with them, the position
        of record i in label l's sorted records is one popcount away.  Built
        on first use and kept (half the label bitsets' size); None when
        there are no bitsets.
        """
        if self._label_ranks is None:
            _, label_bits, n_words = self.column_bitsets()
            self._label_ranks = (None if label_bits is None else
                                 _frozen(_intersect.bitset_ranks(label_bits, self.n_labels, n_words), np.int32))
        return self._label_ranks

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_column_bits"] = None   # caches, rebuilt on demand
        state["_label_ranks"] = None
        return state

    def __repr__(self):
        return (f"BinaryData(n_records={self.n_records}, n_features={self.n_features}, "
                f"n_labels={self.n_labels}, nnz_X={self.X.nnz}, nnz_Y={self.Y.nnz})")

    # -- supports ----------------------------------------------------------
    def head_support(self, head):
        """``D[H]``: sorted ids of the records containing every feature of ``head``."""
        head = check_ids(head, self.n_features, "head", what="feature ids")
        idx = self.feature_records
        return _intersect.support(idx.indptr, idx.ids, head, self.n_records)

    def tail_support(self, tail):
        """``D[T]``: sorted ids of the records carrying every label of ``tail``."""
        tail = check_ids(tail, self.n_labels, "tail", what="label ids")
        idx = self.label_records
        return _intersect.support(idx.indptr, idx.ids, tail, self.n_records)

    def rule_support(self, head, tail):
        """``D[R] = D[H] ∩ D[T]``: the records that rule ``head -> tail`` matches."""
        return _intersect.intersect(self.head_support(head), self.tail_support(tail))

    def positive_mask(self, tail):
        """uint8 mask over records: 1 for the positive records ``D_T^+`` of ``tail``."""
        mask = np.zeros(self.n_records, dtype=np.uint8)
        mask[self.tail_support(tail)] = 1
        return mask
