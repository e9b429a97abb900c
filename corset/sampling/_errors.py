"""Exceptions of the samplers: each names the situation, not just "failed"."""


class SamplingError(RuntimeError):
    """Base class of the sampling errors."""


class NoNegativeRecordsError(SamplingError, ValueError):
    """The tail is carried by every record: D_T^- is empty.

    Every head then has discriminativity |D^+[H]| * |D^- \\ D^-[H]| = 0, so
    there is no distribution to sample from (correction 5).
    :class:`~corset.sampling.CandidateGenerator` skips such tails and lists
    them in ``skipped_tails_``.
    """


class NoDiscriminativeHeadError(SamplingError, ValueError):
    """Every head of allowed length has discriminativity 0 for this tail.

    Happens when no positive record has ``min_head_length`` features, or
    when the features of every such positive record lie inside every
    negative record.
    """


class ProposalLimitError(SamplingError):
    """``max_proposals`` proposals were examined without an accepted pair.

    The expected number of proposals per sample is Z̄/Z (see
    :func:`~corset.sampling.log_proposal_ratio`); raise ``max_proposals`` or
    use the paper's proposal.
    """
