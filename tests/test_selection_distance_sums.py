"""The diversity sums kernel, ``_selection.add_distance_sums``, against a brute-force Jaccard sum.

The kernel counts |D[c] ∩ D[R_j]| by bit tests against a bitset of D[R_j],
or by galloping when D[R_j] is much shorter; both must give the sums a
plain loop gives, bit for bit (the distances are added in the order of j).
"""
import numpy as np
import pytest

from corset._ext import _selection


def _csr(rows):
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    ids = np.fromiter((i for r in rows for i in r), dtype=np.int32, count=int(indptr[-1]))
    return indptr, ids


def _distance(sa, ta, sb, tb):
    size_a, size_b = len(sa) * len(ta), len(sb) * len(tb)
    if size_a == 0 and size_b == 0:
        return 0.0
    if size_a == 0 or size_b == 0:
        return 1.0
    shared_labels = len(set(ta) & set(tb))
    if shared_labels == 0:
        return 1.0
    inter = len(set(sa) & set(sb)) * shared_labels
    return 1.0 - inter / (size_a + size_b - inter)


def _rows(rng, n, n_ids, sizes):
    return [sorted(rng.choice(n_ids, size=min(int(rng.choice(sizes)), n_ids), replace=False).tolist())
            for _ in range(n)]


@pytest.mark.parametrize("seed", range(40))
def test_sums_match_brute_force_bit_for_bit(seed):
    rng = np.random.RandomState(seed)
    n_records = int(rng.choice([5, 64, 65, 300, 3000]))
    n_labels = int(rng.randint(1, 8))
    # Sizes from empty to most records, so that both the bit tests and galloping
    # (a chosen support 16 times shorter than the candidate's) are exercised.
    sizes = [0, 1, 2, 3, n_records // 40, n_records // 4, n_records // 2, n_records]
    n_candidates, n_chosen = int(rng.randint(1, 60)), int(rng.randint(1, 6))
    supports = _rows(rng, n_candidates, n_records, sizes)
    tails = _rows(rng, n_candidates, n_labels, [1, 1, 2, 3])
    chosen_supports = _rows(rng, n_chosen, n_records, sizes)
    chosen_tails = _rows(rng, n_chosen, n_labels, [1, 2])
    eligible = (rng.rand(n_candidates) < 0.8).astype(np.uint8)
    start = rng.rand(n_candidates) * 3
    sums = start.copy()
    _selection.add_distance_sums(*_csr(supports), *_csr(tails), eligible, *_csr(chosen_supports),
                                 *_csr(chosen_tails), sums)
    expected = start.copy()
    for c in range(n_candidates):
        if not eligible[c]:
            continue
        s = float(expected[c])
        for j in range(n_chosen):
            s = s + _distance(supports[c], tails[c], chosen_supports[j], chosen_tails[j])
        expected[c] = s
    assert sums.tolist() == expected.tolist()


def test_galloping_and_bit_tests_agree_on_a_long_candidate():
    # One candidate covering every record; chosen rules from 1 record (galloping) to all.
    n = 1000
    supports, tails = [list(range(n))], [[0]]
    for size in (1, 10, 62, 63, 64, 100, n):
        chosen = [list(range(0, n, max(1, n // size)))[:size]]
        sums = np.zeros(1)
        _selection.add_distance_sums(*_csr(supports), *_csr(tails), np.ones(1, np.uint8), *_csr(chosen),
                                     *_csr([[0]]), sums)
        assert sums[0] == _distance(supports[0], [0], chosen[0], [0])


def test_repeated_calls_leave_no_bits_behind():
    # The kernel's bitset is cleared after each chosen rule: a second call with
    # disjoint chosen supports must not see the first call's records.
    supports, tails = _csr([[0, 1, 2, 3]]), _csr([[0]])
    sums = np.zeros(1)
    _selection.add_distance_sums(*supports, *tails, np.ones(1, np.uint8), *_csr([[0, 1], [2, 3]]),
                                 *_csr([[0], [0]]), sums)
    assert sums[0] == 0.5 + 0.5
