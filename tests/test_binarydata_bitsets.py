"""BinaryData.column_bitsets: built where ANDing words pays, left out on wide sparse features.

The bitsets are an alternative read of the posting lists: whether they are
built may change a fit's time and memory, never its rules.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import corset.binarydata as binarydata
from corset import BinaryData, CorsetClassifier


def _wide_sparse(seed, n_records=2000, n_features=5000, per_record=5, n_labels=4):
    """Text-like: a few of thousands of features per record (32 words per feature bitset, about
    2 records per feature), a 1.3 MB feature table; labels that follow the first features."""
    rng = np.random.RandomState(seed)
    rows = np.repeat(np.arange(n_records), per_record)
    cols = rng.randint(0, n_features, size=rows.size)
    cols[::per_record] = rng.randint(0, 40, size=n_records)   # one frequent word per record
    X = sp.csr_array((np.ones(rows.size, dtype=np.uint8), (rows, cols)), shape=(n_records, n_features))
    X.sum_duplicates()
    X.data[:] = 1
    first = X[:, :40].toarray()
    Y = np.column_stack([first[:, 10 * k:10 * (k + 1)].any(axis=1) for k in range(n_labels)])
    Y ^= rng.rand(*Y.shape) < 0.05
    return X, Y.astype(np.uint8)


def test_wide_sparse_features_get_no_bitsets():
    X, Y = _wide_sparse(0)
    data = BinaryData(X, Y)
    n_words = -(-data.n_records // 64)
    assert data.n_features * n_words * 8 > binarydata.SMALL_BITSET_BYTES
    assert n_words > 2 * data.feature_records.ids.size / data.n_features
    assert data.column_bitsets() == (None, None, 0)


def test_dense_and_small_tables_keep_their_bitsets():
    rng = np.random.RandomState(1)
    dense = BinaryData(rng.rand(3000, 400) < 0.3, rng.rand(3000, 3) < 0.4)   # 47 words, ~900 records each
    bits, label_bits, n_words = dense.column_bitsets()
    assert bits is not None and label_bits is not None and n_words == 47
    X, Y = _wide_sparse(2, n_records=300, n_features=400)   # sparse, but a 24 KB table
    small = BinaryData(X, Y)
    assert small.column_bitsets()[0] is not None
    # The bitsets hold exactly the posting lists.
    index, n = dense.feature_records, dense.n_records
    for f in (0, 7, 399):
        words = bits[f * n_words:(f + 1) * n_words]
        members = [i for i in range(n) if (int(words[i >> 6]) >> (i & 63)) & 1]
        assert members == list(index[f])


@pytest.mark.parametrize("seed", range(2))
def test_the_same_rules_with_or_without_the_bitsets(monkeypatch, seed):
    X, Y = _wide_sparse(seed)
    params = dict(random_state=seed, n_rules=12, validated_stop=False, negations=False, gh_gamma=0.5)
    without = CorsetClassifier(**params).fit(X, Y)
    with monkeypatch.context() as patch:
        patch.setattr(binarydata, "SMALL_BITSET_BYTES", float("inf"))
        assert BinaryData(X, Y).column_bitsets()[0] is not None
        forced = CorsetClassifier(**params).fit(X, Y)
    assert len(without.rules_) > 3
    assert ([(r.head, r.tail, r.support) for r in without.rules_]
            == [(r.head, r.tail, r.support) for r in forced.rules_])
