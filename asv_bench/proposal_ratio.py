"""The expected number of proposals per head, Z̄/Z, for both proposals on the seven benchmarks.

Usage (from the repository root)::

    python asv_bench/proposal_ratio.py                  # all seven data sets
    python asv_bench/proposal_ratio.py emotions birds   # some of them

For a tail T, Z = sum over pairs (D+, D-) ∈ D_T^+ × D_T^- of w(D+, D-) and
Z̄ = the same sum of the proposal's weight w̄ (``"paper"``: the paper's
proposal; ``"boley"``: Boley et al.'s in its corrected form, note 11).  Each
proposal of Algorithm 3 (or of rejection sampling) is accepted from the
empty state with probability Z / Z̄, so Z̄/Z is the expected number of
proposals until the first acceptance, per head.  It is computed exactly in
log space by ``corset.sampling.log_proposal_ratio`` (every pair enumerated).

Two tail sets per data set (training split, binarized as in the paper:
numeric features 1 strictly above their training 90th percentile):

* ``single``: every single-label tail with at least one positive and one
  negative record; reported: the median over tails of log10(Z̄/Z), and
  log10 of the mean Z̄/Z (the expected proposals per head for a tail picked
  uniformly among them), and the largest log10(Z̄/Z);
* ``drawn``: 100 tails drawn by Algorithm 2 (uncovered area, no rule
  selected, seed 0), the tails candidate generation actually sees;
  reported: log10 of the mean Z̄/Z over the draws (tails with no negative
  record, or no head of the allowed length, are left out and counted).

Measured: for up to 20 single-label tails whose Z̄/Z is below 10^4,
``N_MEASURED`` heads each by CFTP; the mean number of proposals examined
until the first acceptance (``last_stats_["n_trials"]``) against the mean
Z̄/Z of the same tails.
"""
import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

try:
    import corset  # noqa: F401
except ImportError:  # run from a source checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import binary_benchmark  # noqa: E402
from corset.sampling import (HeadSampler, NoNegativeRecordsError, TailSampler,  # noqa: E402
                             log_proposal_ratio)

DATASETS = ["emotions", "birds", "medical", "enron", "CAL500", "corel5k", "bibtex"]
PROPOSALS = ["paper", "boley"]
MIN_LENGTHS = [1, 2]
MEASURE_BELOW = 1e4
N_MEASURED = 100
MAX_MEASURED_TAILS = 20
LOG10 = math.log(10)


def log10_mean(log_values):
    """log10 of the mean of exp(log_values) (natural logs in), without overflow."""
    v = np.asarray(log_values, dtype=np.float64)
    top = v.max()
    return float((top + np.log(np.mean(np.exp(v - top)))) / LOG10)


def fmt(log10_value):
    """Z̄/Z from its log10: plain below 10^4, as a power of ten above."""
    if not np.isfinite(log10_value):
        return "—"
    if log10_value < 4:
        return f"{10 ** log10_value:.4g}"
    return f"10^{log10_value:.1f}"


def single_label_tails(data):
    counts = np.asarray(data.label_counts)
    return [(int(l),) for l in np.flatnonzero((counts > 0) & (counts < data.n_records))]


def ratios(data, tails, proposal, m):
    out = []
    for tail in tails:
        try:
            value = log_proposal_ratio(data, tail, proposal=proposal, min_head_length=m)
        except NoNegativeRecordsError:
            continue
        if np.isfinite(value):
            out.append((tail, value))
    return out


def measure(data, tail_ratios, proposal, m):
    chosen = [(t, r) for t, r in tail_ratios if math.exp(r) < MEASURE_BELOW][:MAX_MEASURED_TAILS]
    if not chosen:
        return None
    sampler = HeadSampler(data, proposal=proposal, min_head_length=m, max_proposals=10**8)
    trials = []
    for i, (tail, _) in enumerate(chosen):
        sampler.sample(tail, N_MEASURED, random_state=i)
        trials.append(sampler.last_stats_["n_trials"])
    predicted = float(np.mean([math.exp(r) for _, r in chosen]))
    return len(chosen), predicted, float(np.mean(np.concatenate(trials)))


def main(names):
    rows = []
    for name in names:
        t0 = time.perf_counter()
        data = binary_benchmark(name)
        single = single_label_tails(data)
        drawn = TailSampler(data).sample(100, random_state=0)
        for m in MIN_LENGTHS:
            for proposal in PROPOSALS:
                r_single = ratios(data, single, proposal, m)
                r_drawn = ratios(data, drawn, proposal, m)
                logs = np.array([r for _, r in r_single]) / LOG10
                measured = measure(data, r_single, proposal, m)
                rows.append((name, m, proposal, len(r_single), float(np.median(logs)),
                             log10_mean([r for _, r in r_single]), float(logs.max()),
                             len(r_drawn), log10_mean([r for _, r in r_drawn]) if r_drawn else float("nan"),
                             measured))
                print(f"# {name} m={m} {proposal}: done ({time.perf_counter() - t0:.1f} s)", file=sys.stderr,
                      flush=True)
    print("| dataset | min len | proposal | single-label tails | median Z̄/Z | mean Z̄/Z | max Z̄/Z "
          "| drawn tails | mean Z̄/Z (drawn) | measured: tails < 1e4 | their mean Z̄/Z | mean proposals |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, m, proposal, n_single, med, mean, top, n_drawn, mean_drawn, measured in rows:
        if measured is None:
            meas = "0 | — | —"
        else:
            meas = f"{measured[0]} | {measured[1]:.4g} | {measured[2]:.4g}"
        print(f"| {name} | {m} | {proposal} | {n_single} | {fmt(med)} | {fmt(mean)} | {fmt(top)} | {n_drawn} "
              f"| {fmt(mean_drawn)} | {meas} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=DATASETS, metavar="NAME",
                        help="benchmark data sets (default: all seven)")
    main(parser.parse_args().datasets)
