"""corset: concise and interpretable multi-label rule sets.

An implementation of CORSET (Ciaperoni, Xiao and Gionis, "Concise and
interpretable multi-label rule sets") with exact pattern samplers, a greedy
max-sum diversification selection and a scikit-learn estimator.

Data flows one way: files or arrays -> :class:`corset.binarydata.BinaryData`
(CSR plus inverted index, built once) -> samplers -> candidate pool -> greedy
selection -> rule model -> predictions, explanations, exports.
"""
from .binarydata import BinaryData
from .model import CorsetClassifier, Rule

__version__ = "0.1.0.dev0"

__all__ = ["BinaryData", "CorsetClassifier", "Rule", "__version__"]
