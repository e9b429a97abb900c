"""Input validation of set families (corset.labelspace.SetFamily) and of the samplers' cached options.

A SetFamily's ``indptr`` and ``ids`` go unchecked into compiled kernels
(PRETTI, the CORSET-SURS samplers): an id out of range or an offset past
``ids`` reads outside memory.  The constructor must refuse them, so these
tests only ever assert that it raises; they never hand a bad family to a
kernel.
"""
import numpy as np
import pytest

from corset import BinaryData
from corset.labelspace import SetFamily, contained_sets, interpretable_space, probabilistic_cliques
from corset.labelspace import label_graph
from corset.sampling import RuleSampler, sample_heads, sample_tails


@pytest.fixture
def XY():
    rng = np.random.RandomState(0)
    return rng.rand(18, 8) < 0.5, rng.rand(18, 4) < 0.5


# -- SetFamily(indptr, ids, n_items) ------------------------------------------------
@pytest.mark.parametrize("indptr, ids, n_items, match", [
    ([0, 1], [-10**8], 4, r"ids: set 0 holds the id -100000000, outside \[0, n_items\)"),
    ([0, 1], [-1], 4, r"ids: set 0 holds the id -1"),
    ([0, 1, 3], [0, 1, 4], 4, r"ids: set 1 holds the id 4, outside \[0, n_items\) = \[0, 4\)"),
    ([0, 5], [1], 4, r"indptr must end at len\(ids\) = 1; got indptr\[-1\] = 5"),
    ([0, 1], [1, 2], 4, r"indptr must end at len\(ids\) = 2"),
    ([1, 2], [1, 2], 4, r"indptr must start at 0"),
    ([0, 2, 1, 2], [0, 1], 4, r"indptr must be non-decreasing; set 1 ends before it starts"),
    ([], [], 4, r"indptr must hold n_sets \+ 1 offsets"),
    ([[0, 1]], [1], 4, r"indptr must be a 1-D array"),
    ([0, 1], [[1]], 4, r"ids must be a 1-D array"),
    ([0, 2], [1, 0], 4, r"ids: set 0 is not strictly increasing: \[1, 0\]"),
    ([0, 1, 3], [3, 2, 2], 4, r"ids: set 1 is not strictly increasing: \[2, 2\]"),
    ([0, 1], [1.7], 4, r"ids must hold integers"),
    ([0, 1], [1.0], 4, r"ids must hold integers"),
    ([0, 1], [True], 4, r"ids must hold integers"),
    ([0.0, 1.0], [1], 4, r"indptr must hold integers"),
    ([0, 1], ["a"], 4, r"ids must hold integers"),
])
def test_constructor_refuses_bad_csr(indptr, ids, n_items, match):
    with pytest.raises(ValueError, match=match):
        SetFamily(indptr, ids, n_items)


@pytest.mark.parametrize("n_items, error", [(-1, ValueError), (4.0, TypeError), (True, TypeError), ("4", TypeError)])
def test_constructor_refuses_bad_n_items(n_items, error):
    with pytest.raises(error, match="n_items"):
        SetFamily([0, 1], [0], n_items)


def test_constructor_refuses_bad_probabilities_and_complete_size():
    with pytest.raises(ValueError, match=r"probabilities must hold one value per set, shape \(2,\)"):
        SetFamily([0, 1, 2], [0, 1], 4, probabilities=[1.0])
    with pytest.raises(ValueError, match="probabilities must lie in \\[0, 1\\]; set 1 has nan"):
        SetFamily([0, 1, 2], [0, 1], 4, probabilities=[1.0, np.nan])
    with pytest.raises(ValueError, match="complete_size"):
        SetFamily([0, 1], [0], 4, complete_size=-1)


def test_constructor_keeps_valid_families():
    # Empty sets (anywhere, also at the ends) and an empty family are allowed, as in from_sets.
    family = SetFamily(np.array([0, 0, 2, 2, 3], dtype=np.uint32), np.array([1, 3, 0], dtype=np.uint8), 4)
    assert family.to_list() == [(), (1, 3), (), (0,)]
    assert family.to_list() == SetFamily.from_sets([(), (3, 1), (), (0,)], 4).to_list()
    assert family.ids.dtype == np.int32 and family.indptr.dtype == np.int64
    assert len(SetFamily([0], [], 0)) == 0
    assert SetFamily([0, 0], np.empty(0), 3).to_list() == [()]


def test_probabilistic_cliques_output_passes_the_checked_constructor():
    # The clique kernel's output skips the checks (SetFamily._trusted); it must be what they accept.
    rng = np.random.RandomState(1)
    latent = rng.rand(200, 3) < 0.4
    Y = np.repeat(latent, 4, axis=1) & (rng.rand(200, 12) < 0.95)
    family = probabilistic_cliques(label_graph(BinaryData(np.zeros((200, 1)), Y)), alpha=0.5)
    assert max(family.lengths()) >= 3  # sets of several sizes, one after the other
    checked = SetFamily(family.indptr, family.ids, family.n_items, family.probabilities)
    assert checked.to_list() == family.to_list()
    assert checked.probabilities.tolist() == family.probabilities.tolist()


def test_contained_sets_of_a_valid_family_after_the_checks(XY):
    X, Y = XY
    data = BinaryData(X, Y)
    family = SetFamily([0, 0, 1, 3], [2, 0, 3], 4)
    index = contained_sets(family, data)
    for r in range(data.n_records):
        labels = set(np.flatnonzero(Y[r]).tolist())
        expected = [i for i, S in enumerate(family.to_list()) if set(S) <= labels]
        assert index[r].tolist() == expected


def test_samplers_see_only_checked_families(XY):
    X, Y = XY
    # Both used to run: heads (-1,) and unsorted tails (1, 0).  The family is refused before any sampler.
    with pytest.raises(ValueError, match="id -1"):
        SetFamily([0, 1], [-1], 8)
    with pytest.raises(ValueError, match="not strictly increasing"):
        SetFamily([0, 2], [1, 0], 4)
    tails = sample_tails(X, Y, 5, space="interpretable", family=SetFamily([0, 2], [0, 1], 4), random_state=0)
    assert set(tails) <= {(0, 1)}


# -- RuleSampler's cache -------------------------------------------------------
def test_list_family_option_is_accepted(XY):
    X, Y = XY
    as_list = sample_tails(X, Y, 6, space="interpretable", family=[(0,), (1,)], random_state=3)
    as_tuple = sample_tails(X, Y, 6, space="interpretable", family=((0,), (1,)), random_state=3)
    assert as_list == as_tuple and set(as_list) <= {(0,), (1,)}
    heads = sample_heads(X, Y, (0,), 4, method="surs", family=[(0,), (1, 2)], random_state=0)
    assert set(heads) <= {(0,), (1, 2)}


def test_unhashable_options_are_not_cached(XY):
    sampler = RuleSampler(*XY)
    first = sampler.tail_sampler(space="interpretable", family=[(0,), (1,)])
    assert sampler.tail_sampler(space="interpretable", family=[(0,), (1,)]) is not first
    assert sampler._tail_samplers == {}
    # A later call with other sets must not get the first family's sampler.
    other = sampler.tail_sampler(space="interpretable", family=[(2,), (3,)])
    assert other.family_.to_list() == [(2,), (3,)]
    # Hashable options still are.
    cached = sampler.tail_sampler(space="interpretable", family=((0,), (1,)))
    assert sampler.tail_sampler(space="interpretable", family=((0,), (1,))) is cached
    head = sampler.head_sampler("surs", family=[(0,), (1,)])
    assert sampler.head_sampler("surs", family=[(0,), (1,)]) is not head


@pytest.mark.parametrize("method", [["cftp"], None, 1])
def test_method_must_be_a_string(XY, method):
    with pytest.raises(TypeError, match=r"method must be a string, one of \('cftp'"):
        sample_heads(*XY, (0,), 3, method=method)


@pytest.mark.parametrize("space", [["interpretable"], None, ("full",)])
def test_space_must_be_a_string(XY, space):
    with pytest.raises(TypeError, match=r"space must be a string, one of \('full'"):
        sample_tails(*XY, 3, space=space)


def test_unknown_names_still_name_the_argument(XY):
    with pytest.raises(ValueError, match="method must be one of"):
        sample_heads(*XY, (0,), 3, method="nope")
    with pytest.raises(ValueError, match="space must be one of"):
        sample_tails(*XY, 3, space="nope")
    with pytest.raises(ValueError, match="proposal must be one of"):
        sample_heads(*XY, (0,), 3, proposal=["paper"])


def test_interpretable_space_still_builds(XY):
    family = interpretable_space(BinaryData(*XY), alpha=0.5)
    assert all(list(s) == sorted(set(s)) for s in family.to_list())
