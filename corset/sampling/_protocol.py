"""What a tail space and a head method must provide: the samplers' protocol.

A candidate pool (GenCandRules of Algorithm 1) is drawn in two stages: tails
from a *tail space*, then heads for each tail from a *head method*.  Both are
pluggable (:mod:`corset.sampling._registry`); a new one subclasses the base
class here and is registered under a name, after which
:class:`~corset.sampling.CandidateGenerator`, :func:`~corset.sampling.sample_tails`,
:func:`~corset.sampling.sample_heads` and the estimator's ``tail_space`` and
``head_sampler`` parameters accept that name.

Tail spaces
    :class:`TailSpaceSampler`: built on a :class:`~corset.BinaryData` and a
    :class:`~corset.rules.Coverage` (the selected rules), it draws tails with
    probability proportional to their uncovered area in its space.  It must
    implement :meth:`TailSpaceSampler.sync` (catch up with rules added to the
    coverage since the last call) and :meth:`TailSpaceSampler.sample`
    (canonical tails: sorted tuples of label ids).
Head methods
    :class:`HeadMethodSampler`: draws heads for a given tail.  It must
    implement :meth:`HeadMethodSampler.sample`; it may override
    :meth:`HeadMethodSampler.sample_pool` (all tails of a step at once, e.g.
    in one compiled call on several threads) and
    :meth:`HeadMethodSampler.follow_coverage` (for methods that look at what
    the selected rules cover).
"""
import numpy as np

from ..rules import CandidatePool
from ._errors import SamplingError

__all__ = ["TailSpaceSampler", "HeadMethodSampler"]


class TailSpaceSampler:
    """Base class of the tail samplers: tails ∝ uncovered area with respect to a coverage.

    Subclasses set ``data`` and ``coverage`` (a :class:`~corset.rules.Coverage`
    of ``data``) and implement :meth:`sync` and :meth:`sample`.
    """

    data = None
    coverage = None

    @property
    def rules_(self):
        """The rules whose coverage has been applied, in order (those of :attr:`coverage`)."""
        return self.coverage.rules

    def add_rules(self, rules):
        """Add newly selected ``rules`` to the coverage and update the weights."""
        self.coverage.add_rules(rules)
        self.sync()

    def sync(self):
        """Update the weights for the rules added to :attr:`coverage` since the last call."""
        raise NotImplementedError

    def sample(self, n, random_state=None):
        """``n`` tails as sorted tuples of label ids; :class:`SamplingError` when every weight is 0."""
        raise NotImplementedError


class HeadMethodSampler:
    """Base class of the head samplers: heads for a tail.

    Subclasses set ``data`` and implement :meth:`sample`.
    """

    data = None

    def sample(self, tail, n, random_state=None):
        """Up to ``n`` heads for ``tail``, as sorted tuples of feature ids."""
        raise NotImplementedError

    def follow_coverage(self, coverage):
        """Called with the selection's coverage before each pool; the default ignores it."""

    def sample_pool(self, tails, n, random_state=None, n_threads=1):
        """``n`` heads for each tail of ``tails``, as one candidate pool.

        The default calls :meth:`sample` tail by tail, in order, with the
        same ``random_state``.

        Returns
        -------
        pool : CandidatePool
            The rules (head, tail): for each tail in order, its heads in draw order.
        errors : list of (SamplingError or None)
            Per tail, the sampling error that left it without heads.
        """
        batches, errors = [], []
        for tail in tails:
            try:
                batches.append(self.sample(tail, n, random_state))
                errors.append(None)
            except SamplingError as exc:
                batches.append([])
                errors.append(exc)
        rules = [(h, tail) for tail, heads in zip(tails, batches) for h in heads]
        data = self.data
        return CandidatePool.from_rules(rules, n_features=data.n_features, n_labels=data.n_labels), errors


def empty_pool(data):
    """A candidate pool with no rule, for ``data``'s sizes."""
    empty = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    return CandidatePool(*empty, *empty, n_features=data.n_features, n_labels=data.n_labels)
