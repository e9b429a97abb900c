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


def _words(rng, n):
    words = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
    words[::3] &= rng.integers(0, 2**64, size=words[::3].size, dtype=np.uint64)
    return words


@pytest.mark.parametrize("seed", range(3))
def test_rule_counts_over_every_span_match_python(seed):
    """The three counts of a direct last step, over spans from one word to well past
    CORSET_WIDE_WORDS and at every offset of a short range: the scalar build below it, the
    AVX-512 build (where this CPU has it) from it on, the same counts either way."""
    from corset._ext._gh_memo import rule_counts_of, uses_wide_popcount

    rng = np.random.default_rng(seed)
    n = 70
    col, dh, dpos, doth = (_words(rng, n) for _ in range(4))
    spans = [(lo, hi) for lo in range(0, 5) for hi in range(lo, n)] + [(3, 2)]
    for lo, hi in spans:
        part = slice(lo, hi + 1)
        expected = tuple(_reference(col[part] & other[part]) for other in (dh, dpos, doth))
        assert rule_counts_of(col, dh, dpos, doth, lo, hi) == expected, (lo, hi)
    # The branch point: short spans stay scalar; where the CPU has VPOPCNTQ, long ones take it.
    assert not uses_wide_popcount(1)
    assert uses_wide_popcount(n) == uses_wide_popcount(10**6)


def test_rule_counts_refuse_a_span_outside_the_bitsets():
    from corset._ext._gh_memo import rule_counts_of

    words = np.zeros(4, dtype=np.uint64)
    with pytest.raises(ValueError, match="outside"):
        rule_counts_of(words, words, words, words, 0, 4)
