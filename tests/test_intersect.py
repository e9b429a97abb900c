"""The intersection kernels of corset._ext._intersect against Python sets."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corset._ext import _intersect, _random
from corset.binarydata import BinaryData

ids = st.sets(st.integers(0, 3000), max_size=300).map(lambda s: np.array(sorted(s), dtype=np.int32))


@given(ids, ids)
@settings(max_examples=300, deadline=None)
def test_intersect_matches_sets(a, b):
    expected = sorted(set(a.tolist()) & set(b.tolist()))
    assert _intersect.intersect(a, b).tolist() == expected
    assert _intersect.intersect(b, a).tolist() == expected
    assert _intersect.intersect_count(a, b) == len(expected)
    assert _intersect.intersect_count(b, a) == len(expected)


@given(st.sets(st.integers(0, 10**6), max_size=5), st.sets(st.integers(0, 10**6), min_size=200, max_size=2000))
@settings(max_examples=100, deadline=None)
def test_galloping_path(small, large):
    # One side at least GALLOP_RATIO times shorter: the galloping search runs.
    large = large | small if small else large
    a = np.array(sorted(small), dtype=np.int32)
    b = np.array(sorted(large), dtype=np.int32)
    assert _intersect.intersect(a, b).tolist() == sorted(small & large)
    assert _intersect.intersect_count(b, a) == len(small & large)


def test_empty_and_one_sided():
    e = np.empty(0, dtype=np.int32)
    a = np.array([1, 2, 3], dtype=np.int32)
    assert _intersect.intersect(e, e).tolist() == []
    assert _intersect.intersect(e, a).tolist() == []
    assert _intersect.intersect_count(a, e) == 0
    assert _intersect.intersect(a, a).tolist() == [1, 2, 3]
    assert _intersect.intersect(a, np.array([4, 5], dtype=np.int32)).tolist() == []


def test_read_only_inputs():
    a = np.arange(0, 100, 2, dtype=np.int32)
    b = np.arange(0, 100, 3, dtype=np.int32)
    a.flags.writeable = False
    b.flags.writeable = False
    assert _intersect.intersect(a, b).tolist() == list(range(0, 100, 6))


@st.composite
def binary_matrix_and_keys(draw):
    n = draw(st.integers(0, 40))
    m = draw(st.integers(1, 12))
    density = draw(st.floats(0.0, 1.0))
    seed = draw(st.integers(0, 2**31))
    M = np.random.RandomState(seed).rand(n, m) < density
    keys = draw(st.sets(st.integers(0, m - 1), max_size=m))
    return M, sorted(keys)


@given(binary_matrix_and_keys())
@settings(max_examples=300, deadline=None)
def test_support_k_way(case):
    M, keys = case
    data = BinaryData(M)
    expected = [r for r in range(M.shape[0]) if all(M[r, k] for k in keys)]
    idx = data.feature_records
    keys_arr = np.array(keys, dtype=np.int32)
    assert _intersect.support(idx.indptr, idx.ids, keys_arr, data.n_records).tolist() == expected
    assert _intersect.support_count(idx.indptr, idx.ids, keys_arr, data.n_records) == len(expected)
    assert data.head_support(keys).tolist() == expected


@given(ids, st.integers(0, 2**31))
@settings(max_examples=100, deadline=None)
def test_split_count(records, seed):
    n = 3001
    mask = (np.random.RandomState(seed).rand(n) < 0.5).astype(np.uint8)
    pos = sum(int(mask[r]) for r in records)
    assert _intersect.split_count(records, mask) == (pos, len(records) - pos)


def test_random_shim_is_deterministic_and_uniform():
    a = _random.splitmix64(42, 5)
    assert np.array_equal(a, _random.splitmix64(42, 5))
    assert not np.array_equal(a, _random.splitmix64(43, 5))
    # SplitMix64's published first output for seed 0 (Vigna's reference code).
    assert int(_random.splitmix64(0, 1)[0]) == 0xE220A8397B1DCDAF
    u = _random.uniform(7, 200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    counts = np.bincount(_random.below(3, 7, 70_000).astype(np.int64), minlength=7)
    from scipy.stats import chisquare

    assert chisquare(counts).pvalue > 1e-4
