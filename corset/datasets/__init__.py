"""Data sets: ARFF loaders (MULAN/MEKA), the paper's benchmarks, and the synthetic rule generator.

* :func:`load_arff` reads one multi-label ARFF file, dense or sparse, plain
  or gzipped, with its labels named by a MULAN XML file or MEKA's ``-C N``.
* :func:`load_benchmark` loads the seven MULAN benchmarks of the paper by
  name from a local data folder (``data_home`` or ``$CORSET_DATA``).
* :func:`make_rule_data` generates binary data from known rules, as in the
  paper's synthetic experiments (section "Experimental Evaluation").

This subpackage is pure Python: it reads files and builds arrays, nothing
else.
"""
from ._arff import NominalCodesWarning, load_arff
from ._benchmark import BENCHMARK_NAMES, SUBSETS, get_data_home, load_benchmark
from ._synthetic import make_rule_data

__all__ = ["BENCHMARK_NAMES", "SUBSETS", "NominalCodesWarning", "get_data_home", "load_arff", "load_benchmark",
           "make_rule_data"]
