"""Tail spaces and head methods by name: one registry for the samplers and the estimator.

Each entry names a factory and, for the estimator, how its parameters map
to the factory's options (scikit-learn's ``CRITERIA_CLF`` maps are the
pattern).  :func:`make_tail_sampler` and :func:`make_head_sampler` build
samplers from it; :class:`~corset.model.CorsetClassifier` validates its
``tail_space`` and ``head_sampler`` against it and asks it for the options.
Adding a tail space or a head method is one subclass of the protocol
(:mod:`corset.sampling._protocol`) and one call to :func:`register_tail_space`
or :func:`register_head_method`.
"""
from dataclasses import dataclass
from typing import Callable, Optional

from ._head_exact import METHODS, HeadSampler
from ._head_gh import GreedyHeadSearch
from ._head_surs import ReducedSpaceHeadSampler
from ._protocol import HeadMethodSampler, TailSpaceSampler
from ._tail_full import TailSampler
from ._tail_interpretable import InterpretableTailSampler

__all__ = ["TAIL_SPACES", "HEAD_METHODS", "register_tail_space", "register_head_method", "make_tail_sampler",
           "make_head_sampler"]


@dataclass(frozen=True)
class SamplerEntry:
    """A registered tail space or head method.

    Attributes
    ----------
    name : str
    factory : callable
        Tail spaces: ``factory(data, rules=(), *, coverage=None, **options)``;
        head methods: ``factory(data, *, proposal, min_head_length,
        max_head_length, **options)``.  Returns a
        :class:`~corset.sampling._protocol.TailSpaceSampler` or
        :class:`~corset.sampling._protocol.HeadMethodSampler`.
    estimator_options : callable or None
        ``estimator_options(params) -> dict``: the factory's options from the
        estimator's validated parameters (a dict by parameter name); None
        when it takes none.
    builtin : bool
        Built into corset: its samplers return canonical ids by construction.
        The tails of other tail spaces are checked before they are used.
    """

    name: str
    factory: Callable
    estimator_options: Optional[Callable] = None
    builtin: bool = False


TAIL_SPACES = {}
"""Registered tail spaces, by name."""
HEAD_METHODS = {}
"""Registered head methods, by name."""


def _register(table, kind, base, name, factory, estimator_options, overwrite, builtin=False):
    if not isinstance(name, str) or not name:
        raise ValueError(f"a {kind} name must be a non-empty string; got {name!r}")
    if not callable(factory):
        raise TypeError(f"the factory of {kind} {name!r} must be callable; got {factory!r}")
    if isinstance(factory, type) and not issubclass(factory, base):
        raise TypeError(f"{kind} {name!r}: the class {factory.__name__} must subclass {base.__name__}")
    if name in table and not overwrite:
        raise ValueError(f"{kind} {name!r} is registered already; pass overwrite=True to replace it")
    table[name] = SamplerEntry(name, factory, estimator_options, builtin)


def register_tail_space(name, factory, *, estimator_options=None, overwrite=False):
    """Register a tail space under ``name`` (see :class:`SamplerEntry` for the factory's signature)."""
    _register(TAIL_SPACES, "tail space", TailSpaceSampler, name, factory, estimator_options, overwrite)


def register_head_method(name, factory, *, estimator_options=None, overwrite=False):
    """Register a head method under ``name`` (see :class:`SamplerEntry` for the factory's signature)."""
    _register(HEAD_METHODS, "head method", HeadMethodSampler, name, factory, estimator_options, overwrite)


def _entry(table, kind, name, argument):
    try:
        return table[name]
    except (KeyError, TypeError):
        raise ValueError(f"{argument} must be one of {tuple(table)}; got {name!r}") from None


def make_tail_sampler(data, *, space="full", rules=(), coverage=None, **options):
    """A tail sampler on ``data`` for the tail space ``space``.

    Parameters
    ----------
    data : BinaryData
    space : str, default="full"
        A registered tail space: ``"full"`` (all label sets, Algorithm 2) or
        ``"interpretable"`` (probabilistic label cliques, Algorithm 4), or one
        registered with :func:`register_tail_space`.
    rules : sequence of (head, tail), default=()
        Rules selected already.
    coverage : corset.rules.Coverage, optional
        A coverage state to follow (see :class:`~corset.sampling.TailSampler`).
    **options
        The space's options (for "interpretable": ``alpha``,
        ``edge_probability``, ``max_size``, ``max_sets``, ``on_overflow``,
        ``family``); the full space takes none.
    """
    entry = _entry(TAIL_SPACES, "tail space", space, "space")
    return entry.factory(data, rules, coverage=coverage, **options)


def make_head_sampler(data, *, method="cftp", proposal="paper", min_head_length=1, max_head_length=None,
                      **options):
    """A head sampler on ``data`` for the head method ``method`` (see :func:`corset.sampling.sample_heads`)."""
    entry = _entry(HEAD_METHODS, "head method", method, "method")
    return entry.factory(data, proposal=proposal, min_head_length=min_head_length,
                         max_head_length=max_head_length, **options)


def _full_space(data, rules=(), *, coverage=None, **options):
    if options:
        raise TypeError(f"the full tail space takes no options; got {sorted(options)}")
    return TailSampler(data, rules, coverage=coverage)


def _exact_heads(method):
    def factory(data, **options):
        return HeadSampler(data, method=method, **options)
    factory.__name__ = f"{method}_heads"
    return factory


def _clique_options(params):
    # The estimator names the caps max_cliques and max_clique_size: its warnings and errors say so.
    return {"alpha": params["alpha"], "max_size": params["max_clique_size"], "max_sets": params["max_cliques"],
            "_parameter_names": {"max_sets": "max_cliques", "max_size": "max_clique_size"}}


def _label_clique_options(params):
    # The estimator's label space: labels that always occur together (20 copies of one label, a
    # hierarchy's levels) make 2^20 cliques; past the caps the fit keeps the smallest sets, with a
    # warning, rather than fail on data it could learn from.
    return dict(_clique_options(params), on_overflow="truncate")


def _surs_options(params):
    # Feature graphs are much denser than label graphs: past the caps, keep
    # every complete clique size and the first sets of the next.
    return dict(_clique_options(params), on_overflow="truncate")


def _gh_options(params):
    # Seed pairs ∝ w by rejection: the same distribution as the paper's coupling
    # from the past, with about 5 times fewer proposals.
    return {"gamma": params["gh_gamma"], "epsilon": params["gh_epsilon"], "seed": params["gh_seed"],
            "normalise": bool(params["gh_normalise"]), "pair_method": "rejection"}


_register(TAIL_SPACES, "tail space", TailSpaceSampler, "full", _full_space, None, False, builtin=True)
_register(TAIL_SPACES, "tail space", TailSpaceSampler, "interpretable", InterpretableTailSampler,
          _label_clique_options, False, builtin=True)
for _method in METHODS:
    _register(HEAD_METHODS, "head method", HeadMethodSampler, _method, _exact_heads(_method), None, False,
              builtin=True)
_register(HEAD_METHODS, "head method", HeadMethodSampler, "surs", ReducedSpaceHeadSampler, _surs_options, False,
          builtin=True)
_register(HEAD_METHODS, "head method", HeadMethodSampler, "gh", GreedyHeadSearch, _gh_options, False,
          builtin=True)
