"""CFTP as Algorithm 3 prints it: a plain-Python run, re-simulating every restart in full.

The kernel examines only the new steps of a restart from the empty state
(the older ones were already seen to reject from it) and regenerates each
time step's randomness from (seed, t).  This mirror re-runs all of
t = T, ..., 0 from ⊥ on every restart, with the same per-step generator, and
must give the very same pair for every seed: so the kernel re-uses the
randomness of steps already simulated (as coupling from the past requires),
and its shortcut changes nothing.
"""
import math

import numpy as np
import pytest

from corset import BinaryData
from corset.sampling import HeadSampler

MASK = (1 << 64) - 1


def splitmix(state):
    """(new state, output) of SplitMix64."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


class Stream:
    def __init__(self, state):
        self.state = state

    def next(self):
        self.state, out = splitmix(self.state)
        return out

    def uniform(self):
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)

    def uniform_open(self):
        return ((self.next() >> 11) + 0.5) * (1.0 / 9007199254740992.0)

    def below(self, n):
        if n <= 1:
            return 0
        limit = MASK - ((MASK % n) + 1) % n
        r = self.next()
        while r > limit:
            r = self.next()
        return r % n


def step_stream(seed, t):
    _, out = splitmix((seed ^ ((t * 0xD1B54A32D192ED03) & MASK)) & MASK)
    return Stream(out)


def cumulative_draw(cum, last, stream):
    x = stream.uniform() * cum[-1]
    i = int(np.searchsorted(cum, x, side="right"))
    return last if i >= len(cum) else i


def propose(ps, stream):
    arrays = ps.arrays
    i_pos = cumulative_draw(arrays[1], ps_last(arrays[1]), stream)
    if arrays[4] is None:
        i_neg = stream.below(len(arrays[3]))
    else:
        i_neg = cumulative_draw(arrays[4], ps_last(arrays[4]), stream)
    return i_pos, i_neg


def ps_last(cum):
    cum = np.asarray(cum)
    positive = np.flatnonzero(np.diff(np.concatenate(([0.0], cum))) > 0)
    return int(positive[-1])


def cftp_as_printed(ps, seed, max_restarts=40):
    """Algorithm 3: T = 4, 8, ...; every restart re-runs t = T..0 from ⊥."""
    T = 4
    for _ in range(max_restarts):
        state, lr_state = None, 0.0          # ⊥, ratio 1
        for t in range(T, -1, -1):
            stream = step_stream(seed, t)
            y = propose(ps, stream)
            lr_y = ps.log_acceptance(*y)
            if math.log(stream.uniform_open()) < lr_y - lr_state:
                state, lr_state = y, lr_y
        if state is not None:
            return state, T + 1
        T *= 2
    raise AssertionError("no coalescence")


@pytest.mark.parametrize("proposal, m, M", [("paper", 1, None), ("paper", 2, 3), ("boley", 1, None)])
def test_kernel_cftp_equals_algorithm_3_as_printed(proposal, m, M):
    rng = np.random.RandomState(4)
    X = rng.rand(14, 9) < rng.uniform(0.1, 0.6, size=(14, 1))
    Y = np.zeros((14, 1), dtype=bool)
    Y[:6] = True
    data = BinaryData(X, Y)
    sampler = HeadSampler(data, proposal=proposal, min_head_length=m, max_head_length=M)
    ps = sampler.pair_sampler((0,))
    seeds = np.random.RandomState(0).randint(0, 2**63, size=200, dtype=np.int64).astype(np.uint64)
    from corset._ext import _heads

    status, _, pos, neg, _, steps, _, _ = _heads.sample(ps, seeds, 0, False, m, M or 10**9,
                                                         np.zeros(10), 0)
    assert status == 0
    restarts = 0
    for h, seed in enumerate(seeds.tolist()):
        (i_pos, i_neg), n_steps = cftp_as_printed(ps, seed)
        assert (pos[h], neg[h]) == (i_pos, i_neg)
        assert steps[h] == n_steps
        restarts += n_steps > 5
    if proposal == "boley":
        assert restarts > 40      # the comparison covered runs with several restarts
