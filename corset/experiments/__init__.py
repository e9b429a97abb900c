"""The paper's experiments, re-run end to end: ``corset experiment``.

The protocol of the paper's section on experiments: official train/test
splits (CAL500: a fixed split), numeric features binarized at their
training 90th percentile (strict ">"), nominal features one-hot;
CORSET-SURS and CORSET-GH with :meth:`corset.model.CorsetClassifier.paper`,
tuned by random search on a validation split carved from the training data
(λ log-uniform in 10^-2..10^2, the other parameters uniform in (0, 1), at
most 150 rules; 150 candidates per step while tuning, 500 after), then
repeated with different seeds; corset's defaults as a user gets them
(untuned); BOOMER with 10, 100 and 1,000 rules and with its early stopping,
SeCo, and BR-SVM (one-vs-rest LinearSVC) on the same matrices.  A second
table compares corset and BOOMER end to end from raw features.

Every run is a job in a child process (a per-job time limit, its own peak
memory), sent through joblib: ``n_jobs`` processes on one machine, or the
workers of a Dask cluster (joblib's Dask backend).  Rows go to
``runs.csv`` as they finish and a rerun skips finished jobs.
:func:`write_report` turns the rows into Markdown tables and figures.

Examples
--------
>>> from corset.experiments import QUICK, evaluation_jobs, tuning_jobs
>>> [j["method"] for j in tuning_jobs(QUICK)][:2]
['CORSET-GH', 'CORSET-SURS']
>>> len(evaluation_jobs(QUICK, {})) == 2 * 2 * (len(QUICK.methods) + len(QUICK.raw_methods))
True
"""
from ._methods import (
                      METHODS,
                      Method,
                      coverage_overlap,
                      f1_path,
                      fit_and_measure,
                      installed_versions,
                      tune,
)
from ._protocol import Split, load_split, synthetic_split
from ._report import PAPER_TABLE, markdown_to_rst, raw_markdown, table_markdown, write_report
from ._runner import (
                      COLUMNS,
                      FULL,
                      PARTS,
                      QUICK,
                      ExperimentConfig,
                      evaluation_jobs,
                      execute,
                      read_rows,
                      run_experiment,
                      tuning_jobs,
)

__all__ = [
                      "COLUMNS",
                      "FULL",
                      "METHODS",
                      "PAPER_TABLE",
                      "PARTS",
                      "QUICK",
                      "ExperimentConfig",
                      "Method",
                      "Split",
                      "coverage_overlap",
                      "evaluation_jobs",
                      "execute",
                      "f1_path",
                      "fit_and_measure",
                      "installed_versions",
                      "load_split",
                      "markdown_to_rst",
                      "raw_markdown",
                      "read_rows",
                      "run_experiment",
                      "synthetic_split",
                      "table_markdown",
                      "tune",
                      "tuning_jobs",
                      "write_report",
]
