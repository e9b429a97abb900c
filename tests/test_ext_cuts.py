"""The compiled neighbours of thresholds (corset._ext._cuts) against a brute force."""
import numpy as np
import pytest

from corset._ext._cuts import cut_neighbours


def _brute(values, levels, inclusive, zeros):
    if zeros:
        values = np.vstack([values, np.zeros((1, values.shape[1]))])
    below = np.full(levels.shape, -np.inf)
    above = np.full(levels.shape, np.inf)
    for c in range(values.shape[1]):
        for q in range(levels.shape[0]):
            v, t = values[:, c], levels[q, c]
            holds = v >= t if inclusive else v > t
            if holds.any():
                above[q, c] = v[holds].min()
            if (~holds).any():
                below[q, c] = v[~holds].max()
    return below, above


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("inclusive", [False, True])
@pytest.mark.parametrize("zeros", [False, True])
@pytest.mark.parametrize("m", [1, 5, 40])   # 40: the bisection beyond 16 thresholds
def test_cut_neighbours_match_a_brute_force(seed, inclusive, zeros, m):
    rng = np.random.RandomState(seed)
    n, b = int(rng.randint(1, 60)), int(rng.randint(1, 6))
    # Few distinct values, so that thresholds fall on values, between them and beyond them.
    values = rng.randint(-4, 5, size=(n, b)).astype(float) / 2
    levels = np.sort(np.r_[rng.randint(-6, 7, size=(m - 1, b)) / 2, rng.uniform(-3, 3, size=(1, b))], axis=0)
    wide = np.zeros((n, 2 * b))
    wide[:, ::2] = values
    for block in (values, np.asfortranarray(values), wide[:, ::2]):   # any strides
        below, above, holding = cut_neighbours(block, levels, inclusive, int(zeros))
        expected = _brute(values, levels, inclusive, zeros)
        np.testing.assert_array_equal(below, expected[0])
        np.testing.assert_array_equal(above, expected[1])
        column = np.vstack([values, np.zeros((1, b))]) if zeros else values
        np.testing.assert_array_equal(holding, [(column >= t if inclusive else column > t).sum(axis=0)
                                                for t in levels])
