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

Extension points.  Tail spaces and head methods other than the ones
implemented here are looked up lazily: ``space="interpretable"`` in
``corset.sampling._surs.make_tail_sampler``, ``method="surs"`` in
``corset.sampling._surs.make_head_sampler`` and ``method="gh"`` in
``corset.sampling._gh.make_head_sampler``.  Until a module defines its
factory, the name raises ``NotImplementedError``.  Factories are called as
``make_tail_sampler(data, rules=())`` (an object with ``rules_``,
``add_rules(rules)`` and ``sample(n, random_state)``) and
``make_head_sampler(data, *, proposal, min_head_length, max_head_length, **options)``
(an object with ``sample(tail, n, random_state)``, and optionally
``update_rules(rules)``, called by :class:`CandidateGenerator` with the
selected rules).
"""
import importlib

from ..binarydata import BinaryData
from ._candidates import CandidateGenerator
from ._common import check_rules
from ._diagnostics import log_pair_weights, log_proposal_ratio
from ._errors import NoDiscriminativeHeadError, NoNegativeRecordsError, ProposalLimitError, SamplingError
from ._heads import DEFAULT_MAX_PROPOSALS, METHODS, HeadSampler
from ._tails import TailSampler

__all__ = [
    "sample_tails", "sample_heads", "RuleSampler", "TailSampler", "HeadSampler", "CandidateGenerator",
    "log_proposal_ratio", "log_pair_weights", "make_tail_sampler", "make_head_sampler",
    "SamplingError", "NoNegativeRecordsError", "NoDiscriminativeHeadError", "ProposalLimitError",
    "DEFAULT_MAX_PROPOSALS",
]

# name -> (module, factory) for the spaces and methods provided elsewhere.
_TAIL_SPACES = {"interpretable": ("corset.sampling._surs", "make_tail_sampler")}
_HEAD_METHODS = {"surs": ("corset.sampling._surs", "make_head_sampler"),
                 "gh": ("corset.sampling._gh", "make_head_sampler")}


def _plugin(table, name, kind):
    module_name, attribute = table[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        module = None
    factory = getattr(module, attribute, None)
    if factory is None:
        raise NotImplementedError(f"{kind} {name!r} is not implemented yet ({module_name}.{attribute})")
    return factory


def make_tail_sampler(data, *, space="full", rules=(), **options):
    """A tail sampler on ``data`` for the tail space ``space`` ("full" or a registered space).

    ``options`` go to the space's factory (for "interpretable": ``alpha``,
    ``edge_probability``, ``max_size``, ``max_sets``, ``on_overflow``,
    ``family``); the full space takes none.
    """
    if space == "full":
        if options:
            raise TypeError(f"the full tail space takes no options; got {sorted(options)}")
        return TailSampler(data, rules)
    if space in _TAIL_SPACES:
        return _plugin(_TAIL_SPACES, space, "tail space")(data, rules=rules, **options)
    raise ValueError(f"space must be one of {('full',) + tuple(_TAIL_SPACES)}; got {space!r}")


def make_head_sampler(data, *, method="cftp", proposal="paper", min_head_length=1, max_head_length=None,
                      **options):
    """A head sampler on ``data`` for ``method`` (see :func:`sample_heads`)."""
    if method in METHODS:
        return HeadSampler(data, method=method, proposal=proposal, min_head_length=min_head_length,
                           max_head_length=max_head_length, **options)
    if method in _HEAD_METHODS:
        factory = _plugin(_HEAD_METHODS, method, "head method")
        return factory(data, proposal=proposal, min_head_length=min_head_length,
                       max_head_length=max_head_length, **options)
    raise ValueError(f"method must be one of {tuple(METHODS) + tuple(_HEAD_METHODS)}; got {method!r}")


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
        """The tail sampler for ``space`` with the coverage of ``rules`` applied (cached)."""
        rules = check_rules(rules, self.data)
        key = (space, tuple(sorted(options.items())))
        sampler = self._tail_samplers.get(key)
        if sampler is None or sampler.rules_ != rules[:len(sampler.rules_)]:
            sampler = make_tail_sampler(self.data, space=space, **options)
            self._tail_samplers[key] = sampler
        if len(rules) > len(sampler.rules_):
            sampler.add_rules(rules[len(sampler.rules_):])
        return sampler

    def head_sampler(self, method="cftp", proposal="paper", min_head_length=1, max_head_length=None, **options):
        """The head sampler for these settings (cached)."""
        key = (method, proposal, min_head_length, max_head_length, tuple(sorted(options.items())))
        sampler = self._head_samplers.get(key)
        if sampler is None:
            sampler = make_head_sampler(self.data, method=method, proposal=proposal,
                                        min_head_length=min_head_length, max_head_length=max_head_length,
                                        **options)
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
    space : {"full", "interpretable"}, default="full"
        The tail space: all label sets (Algorithm 2), or the interpretable
        space S⁻ of probabilistic label cliques (Algorithm 4, :mod:`corset.sampling._surs`).
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
    method : {"cftp", "rejection", "surs", "gh"}, default="cftp"
        "cftp": coupling from the past (Algorithm 3); "rejection": rejection
        sampling from the same proposal; "surs" and "gh" are added by later modules.
    proposal : {"paper", "boley"}, default="paper"
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
