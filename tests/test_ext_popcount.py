"""The kernels' one popcount (corset/_ext/include/corset_bits.h) counts bits as Python does."""
import numpy as np
import pytest

from corset._ext._gh_memo import popcount


def _reference(words):
    return sum(bin(int(w)).count("1") for w in words)


EDGES = [0, 1, 2**63, 2**64 - 1, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0x0F0F0F0F0F0F0F0F,
         0x0101010101010101, 0x8000000000000001, 2**32 - 1, 2**32]


@pytest.mark.parametrize("word", EDGES)
def test_popcount_edge_words(word):
    words = np.array([word], dtype=np.uint64)
    assert popcount(words) == _reference(words)


def test_popcount_every_single_bit_and_prefix():
    singles = np.array([1 << b for b in range(64)], dtype=np.uint64)
    prefixes = np.array([(1 << b) - 1 for b in range(65)], dtype=np.uint64)
    assert all(popcount(singles[i:i + 1]) == 1 for i in range(64))
    assert [popcount(prefixes[i:i + 1]) for i in range(65)] == list(range(65))


@pytest.mark.parametrize("seed", range(4))
def test_popcount_random_words(seed):
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 2**64, size=rng.integers(1, 200), dtype=np.uint64, endpoint=False)
    # Sparse and dense words as well as uniform ones.
    words[::3] &= rng.integers(0, 2**64, size=words[::3].size, dtype=np.uint64)
    words[1::3] |= rng.integers(0, 2**64, size=words[1::3].size, dtype=np.uint64)
    assert popcount(words) == _reference(words)


def test_popcount_empty():
    assert popcount(np.empty(0, dtype=np.uint64)) == 0
