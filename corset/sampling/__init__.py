"""Exact rule samplers of CORSET (sections samp and enhanced_sampling of the paper).

A rule H -> T is sampled in two stages, each itself two-stage:

* tails ∝ uncovered area with respect to the selected rules (Algorithm 2):
  :func:`sample_tails`, :class:`TailSampler`;
* heads ∝ discriminativity for a tail (Algorithm 3, coupling from the past,
  or rejection sampling): :func:`sample_heads`, :class:`HeadSampler`;
* pools of candidate rules for the greedy selection (GenCandRules of
  Algorithm 1): :class:`CandidateGenerator`.

The functions are usable on their own by other research code::

    >>> import numpy as np
    >>> from corset.sampling import sample_tails, sample_heads
    >>> rng = np.random.RandomState(0)
    >>> X = rng.rand(40, 8) < 0.3
    >>> Y = rng.rand(40, 4) < 0.4
    >>> tails = sample_tails(X, Y, 3, random_state=1)
    >>> heads = sample_heads(X, Y, (0,), 3, min_head_length=1, max_head_length=3, random_state=1)
    >>> [isinstance(h, tuple) for h in heads]
    [True, True, True]

Each call builds the binary index of (X, Y) once; to sample repeatedly,
build a :class:`RuleSampler` (or the samplers themselves on a
:class:`~corset.BinaryData`) once and call it.

Extension points.  Tail spaces and head methods are looked up by name in
one registry (:mod:`corset.sampling._registry`), which the estimator uses
too: a new one subclasses :class:`TailSpaceSampler` or
:class:`HeadMethodSampler` (:mod:`corset.sampling._protocol` says what each
must provide) and is added with :func:`register_tail_space` or
:func:`register_head_method`.
"""
from ..binarydata import BinaryData
from ..rules import check_rules
from ._candidates import CandidateGenerator
from ._diagnostics import log_pair_weights, log_proposal_ratio
from ._errors import (
    NoDiscriminativeHeadError,
    NoNegativeRecordsError,
    ProposalLimitError,
    SamplingError,
)
from ._head_exact import DEFAULT_MAX_PROPOSALS, HeadSampler
from ._head_gh import GreedyHeadSearch
from ._head_surs import ReducedSpaceHeadSampler
from ._protocol import HeadMethodSampler, TailSpaceSampler
from ._registry import (
    HEAD_METHODS,
    TAIL_SPACES,
    make_head_sampler,
    make_tail_sampler,
    register_head_method,
    register_tail_space,
)
from ._tail_full import TailSampler
from ._tail_interpretable import InterpretableTailSampler

__all__ = [
    "sample_tails", "sample_heads", "RuleSampler", "TailSampler", "HeadSampler", "CandidateGenerator",
    "InterpretableTailSampler", "ReducedSpaceHeadSampler", "GreedyHeadSearch",
    "TailSpaceSampler", "HeadMethodSampler", "TAIL_SPACES", "HEAD_METHODS",
    "register_tail_space", "register_head_method",
    "log_proposal_ratio", "log_pair_weights", "make_tail_sampler", "make_head_sampler",
    "SamplingError", "NoNegativeRecordsError", "NoDiscriminativeHeadError", "ProposalLimitError",
    "DEFAULT_MAX_PROPOSALS",
]

class RuleSampler:
    """Samplers over one (X, Y), built once and reused across calls.

    Parameters
    ----------
    X : array-like or sparse of shape (n_records, n_features), or BinaryData
        Binary features (or an already built :class:`~corset.BinaryData`, with ``Y=None``).
    Y : array-like or sparse of shape (n_records, n_labels)
        Binary labels.

    Examples
    --------
    >>> import numpy as np
    >>> from corset.sampling import RuleSampler
    >>> rng = np.random.RandomState(0)
    >>> sampler = RuleSampler(rng.rand(30, 6) < 0.4, rng.rand(30, 3) < 0.5)
    >>> tails = sampler.sample_tails(4, random_state=0)
    >>> heads = sampler.sample_heads(tails[0], 2, random_state=0)
    """

    def __init__(self, X, Y=None):
        if isinstance(X, BinaryData):
            if Y is not None:
                raise ValueError("pass Y=None when X is a BinaryData (it already holds the labels)")
            self.data = X
        else:
            if Y is None:
                raise ValueError("Y is required: the binary label matrix")
            self.data = BinaryData(X, Y)
        self._tail_samplers = {}
        self._head_samplers = {}

    def tail_sampler(self, rules=(), space="full", **options):
        """The tail sampler for ``space`` with the coverage of ``rules`` applied.

        Cached by ``space`` and ``options`` when the options are hashable;
        an option holding a list or an array (e.g. ``family`` given as a list
        of label sets, as :class:`InterpretableTailSampler` allows) is used as
        given, with a sampler built for this call alone.

        Raises
        ------
        TypeError
            If ``space`` is not a string.
        """
        _check_name(space, "space", TAIL_SPACES)
        data = self.data
        rules = check_rules(rules, data.n_features, data.n_labels, allow_empty_head=True, duplicates="keep").rules
        key = _cache_key(space, tuple(sorted(options.items())))
        sampler = None if key is None else self._tail_samplers.get(key)
        if sampler is None or sampler.rules_ != rules[:len(sampler.rules_)]:
            sampler = make_tail_sampler(self.data, space=space, **options)
            if key is not None:
                self._tail_samplers[key] = sampler
        if len(rules) > len(sampler.rules_):
            sampler.add_rules(rules[len(sampler.rules_):])
        return sampler

    def head_sampler(self, method="cftp", proposal="paper", min_head_length=1, max_head_length=None, **options):
        """The head sampler for these settings.

        Cached by the settings when they are hashable; otherwise (an option
        holding a list or an array, e.g. ``family``) built for this call alone.

        Raises
        ------
        TypeError
            If ``method`` is not a string.
        """
        _check_name(method, "method", HEAD_METHODS)
        key = _cache_key(method, proposal, min_head_length, max_head_length, tuple(sorted(options.items())))
        sampler = None if key is None else self._head_samplers.get(key)
        if sampler is None:
            sampler = make_head_sampler(self.data, method=method, proposal=proposal,
                                        min_head_length=min_head_length, max_head_length=max_head_length,
                                        **options)
            if key is not None:
                self._head_samplers[key] = sampler
        return sampler

    def sample_tails(self, n, *, rules=(), space="full", random_state=None, **options):
        """See :func:`sample_tails`."""
        return self.tail_sampler(rules, space, **options).sample(n, random_state)

    def sample_heads(self, tail, n, *, method="cftp", proposal="paper", min_head_length=1,
                     max_head_length=None, random_state=None, **options):
        """See :func:`sample_heads`."""
        sampler = self.head_sampler(method, proposal, min_head_length, max_head_length, **options)
        return sampler.sample(tail, n, random_state)


def _check_name(value, argument, table):
    """Refuse a ``space`` or ``method`` that is not a string before it is used as a cache key."""
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be a string, one of {tuple(table)}; got {value!r}")


def _cache_key(*parts):
    """``parts`` as a cache key, or None when an option is unhashable (a list, an array): no caching then."""
    try:
        hash(parts)
    except TypeError:
        return None
    return parts


def sample_tails(X, Y, n, *, rules=(), space="full", random_state=None, **options):
    """Sample ``n`` tails with probability proportional to their uncovered area (Algorithm 2).

    Parameters
    ----------
    X : array-like or sparse of shape (n_records, n_features)
        Binary features (used by the heads of ``rules``).
    Y : array-like or sparse of shape (n_records, n_labels)
        Binary labels.
    n : int >= 0
    rules : sequence of (head, tail), default=()
        Rules already selected: label occurrences they cover (eq. covD) no
        longer count.
    space : str, default="full"
        A registered tail space: all label sets ("full", Algorithm 2), the
        interpretable space S⁻ of probabilistic label cliques
        ("interpretable", Algorithm 4), or one added with
        :func:`register_tail_space`.
    random_state : None, int or RandomState
        Same int, same tails.
    **options
        Options of the tail space (see :func:`make_tail_sampler`).

    Returns
    -------
    list of tuple of int
        Each tail as sorted label ids.
    """
    return RuleSampler(X, Y).sample_tails(n, rules=rules, space=space, random_state=random_state, **options)


def sample_heads(X, Y, tail, n, *, method="cftp", proposal="paper", min_head_length=1, max_head_length=None,
                 random_state=None, **options):
    """Sample ``n`` heads for ``tail`` with probability proportional to discriminativity (Algorithm 3).

    Parameters
    ----------
    X, Y : array-like or sparse
        Binary features and labels.
    tail : sequence of int
        Label ids of the tail T.
    n : int >= 0
    method : str, default="cftp"
        A registered head method: "cftp" (coupling from the past, Algorithm
        3), "rejection" (rejection sampling from the same proposal), "surs"
        (CORSET-SURS) or "gh" (CORSET-GH), or one added with
        :func:`register_head_method`.
    proposal : {"paper", "boley", "plain"}, default="paper"
        The proposal distribution of the pair stage (see :class:`HeadSampler`).
    min_head_length, max_head_length : int, default=1 and None
        Bounds on ``|H|`` (None: no maximum).
    random_state : None, int or RandomState
        Same int, same heads.
    **options
        ``max_proposals`` and method-specific options.

    Returns
    -------
    list of tuple of int
        Each head as sorted feature ids.

    Raises
    ------
    NoNegativeRecordsError
        The tail is carried by every record.
    NoDiscriminativeHeadError
        Every allowed head has discriminativity 0.
    ProposalLimitError
        ``max_proposals`` proposals were examined without an accepted pair.
    """
    return RuleSampler(X, Y).sample_heads(tail, n, method=method, proposal=proposal,
                                          min_head_length=min_head_length, max_head_length=max_head_length,
                                          random_state=random_state, **options)
