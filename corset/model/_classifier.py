"""CorsetClassifier: the scikit-learn multi-label estimator of corset.

A thin Python class in scikit-learn's style: ``__init__`` stores parameters;
``fit`` validates everything (scikit-learn's utilities, then the binary
checks of :mod:`corset._validation`) before any compiled code runs, builds the
binary data layer once, and runs CORSET (Algorithm 1) with the candidate
generator of :mod:`corset.sampling` and the greedy of :mod:`corset.selection`.
The fitted model is a list of plain :class:`~corset.model.Rule` objects.
"""
import dataclasses
import warnings
import numbers
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, InvalidParameterError, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._ext import _selection
from .._validation import check_binary_matrix, check_unique_names, counted, is_missing
from ..binarydata import BinaryData, with_negated_columns
from ..selection._objective import QUALITIES
from ..selection._stopping import RuleBudget, StoppingCriterion
from ..preprocessing import PercentileBinarizer
from ..sampling._candidates import _resolve_n_jobs, check_pool_shape
from ._features import RawFeatures, UnseenCategoryWarning, typed_object_columns
from ._export import FORMAT_VERSION, check_rules_dict, format_rules, rules_to_dict, rules_to_frame
from ._rules import Rule

_RENAMED = {"gamma": "gh_gamma", "epsilon": "gh_epsilon"}
"""Parameters renamed since earlier versions: old name -> new name (read by ``from_dict``)."""

AUTO_TOL_OCCURRENCES = 3
"""With ``tol="auto"``, selection stops once no candidate covers more than this many new label occurrences.

A count of records' labels, so a fold fit of the internal validation counts
it on its share of the records: ``3 · |train| / n`` (2 for three folds), as a
least support is scaled.  Its path then runs as far as the final fit's, and
the validation scores the rules the final fit selects; with 3 on a fold,
the folds of birds stopped after 11 to 49 rules while the final fits went
on to 56 to 100, whose end no fold had scored.  Scaled, birds' mean test
micro-F1 (raw features, seeds 0-2) rose from 0.438 to 0.457; emotions,
medical, CAL500, bibtex and yeast kept their models, enron and corel5k
moved by +0.0002 and +0.0006."""
AUTO_F1_PATIENCE = 5
"""With ``f1_patience="auto"`` and negated literals, the selection stops after this many rules
without a new maximum of the training micro-F1."""
AUTO_BINARIZER_FOLDS = 3
"""With ``binarizer="auto"`` on non-binary X, the cuts are chosen by this many folds of cross-validation."""
AUTO_BINARIZER_PERCENTILES = {"p90": 90, "p10-90": (10, 30, 50, 70, 90)}
"""The cuts ``binarizer="auto"`` chooses between: the paper's single 90th percentile, or five percentiles."""
AUTO_BINARIZER_MIN_RECORDS = 10 * AUTO_BINARIZER_FOLDS
"""With fewer training records, ``binarizer="auto"`` does not cross-validate: it takes the first candidate."""
VALIDATED_STOP_FOLDS = AUTO_BINARIZER_FOLDS
"""With ``validated_stop``, the number of rules and their least support are chosen by this many folds
(the binarizer's own folds)."""
VALIDATION_MAX_RECORDS = 10_000
"""The internal cross-validation (cuts, negations, ``validated_stop``) splits at most this many records.

On larger training data its folds split a random subsample of this size
(drawn from ``random_state``): the choices it makes are settled well before
(scikit-learn's early stopping scores the training data on a 10,000-record
subsample for the same reason), and its six or nine fits would otherwise
cost several times the final fit.  A resource bound, not an accuracy one; a
least support is then scaled to the subsample's share of the records.
"""
VALIDATION_POOL_SHARE = 0.2
"""The fold fits of the internal validation draw this share of the estimator's tails per step
(``n_tails``), but at least ``VALIDATION_MIN_TAILS`` (all of them when ``n_tails`` is smaller):
10 of the default 50, pools of 100 candidates instead of 500.

The folds decide between choices (the cuts, the negated literals) and where
to cut the rule list from the shape of each choice's held-out curve, not
from their rules, which are thrown away; the final fit draws the whole
pool.  A smaller pool gives a slightly weaker path, and the choices its
curves lead to scored the same within noise: on the seven benchmark sets
and yeast (raw features, official splits, seeds 0-2) the mean test
micro-F1 moved by -0.001 to +0.005 (emotions 0.6594 against 0.6605,
birds 0.4382 against 0.4334, yeast 0.6289 against 0.6274; medical,
CAL500, enron, corel5k and bibtex within 0.0004), and the default fits
took 0.57 (enron) to 0.77 (yeast) of their time (one thread, mean over
the seeds of the median of 3 alternated fits).  A single fit can be
slower: CAL500's seed 0 took
1.36 s against 0.99 s, its folds' paths running longer.  A resource
bound, like ``VALIDATION_MAX_RECORDS``, not an accuracy one.
"""
VALIDATION_MIN_TAILS = 10
"""See ``VALIDATION_POOL_SHARE``: fold fits never draw fewer tails per step than this (a pool already
this small is not shrunk further)."""
VALIDATION_PATIENCE = 40
"""A fold of the internal validation stops selecting once its held-out score has not risen for
max(VALIDATION_PATIENCE, 3 × best) rules, best being the length of its best prefix so far.

Early stopping on the held-out records (:class:`_HeldOutPatience`): a fold's
path is followed to four times the length of its best prefix, and at least
this many rules past it, so that a late rise can still be seen; its scores
decide the cut, the least support and the choices as before, on the part of
the path that was followed.  The validation then costs a few times the
length of the useful rule list rather than the budget ``n_rules``: on
CAL500, whose folds' best prefixes hold 0 to 26 rules of 150, its fold fits
make about a third of the steps.  The two constants are conservative:
replayed on the recorded fold curves of the seven benchmark sets (seeds
0-2, from raw features), they give the same cuts, least supports and
choices wherever the recording covers the decision, while a shorter
patience (10 to 30 rules, or twice the best prefix) moves some of them on
CAL500, birds and enron, whose held-out scores can rise again after a
plateau of 40 rules.  The stop is deterministic, so the choices still do
not depend on ``n_jobs``.
"""
VALIDATION_PATIENCE_FACTOR = 3
"""See ``VALIDATION_PATIENCE``."""
AUTO_NEGATION_LABEL_DENSITY = 0.2
"""With ``negations="auto"``, negated literals are used when the training label density
(label occurrences / (records × labels)) is at least this."""

AUTO_GH_GAMMAS = (0.5, 2.0, 8.0)
"""With ``gh_gamma="auto"``, CORSET-GH's weight γ of negative support, chosen by the internal validation
along this ladder: the first, or each next one while it scores higher on the folds beyond noise.

The search's gain is ``φ(H) = |D[H] ∩ D_T^+| − γ·|D[H] ∩ D_T^-|``: a head
scores above 0 when its records hold more than γ positives per negative, a
precision above γ / (1 + γ) (1/3, 2/3 and 8/9 along the ladder, odds a
factor 4 apart), and a literal is added when the records it leaves out hold
fewer than γ positives per negative.
Which precision the rule list needs depends on how noisy its labels are,
a property of the data: the seven benchmark sets score highest at 0.5 (on the
test splits of emotions, birds and medical micro-F1 falls by 0.05 to 0.16 at
γ = 2; on every set's folds γ = 2 scores lower), labels that the features
determine nearly without noise score higher with more precise heads (8×8
digit images, labels unions of digit classes: 0.84 at 0.5, 0.89 at 2 and
0.91 at 8).
"""

AUTO_NEGATION_MAX_ENTRIES = 20_000_000
"""``negations="auto"`` never uses negated literals with more occurrences than this on the training data.

A negated literal ``NOT f`` holds on every record without f: on wide sparse
data (text: tens of thousands of columns, a few dozen per record) each record
would hold nearly every negation, and the fit's time and memory would grow
with records x columns (each occurrence is an int32 and a byte in the records'
rows and an int32 in the inverted index: 20 million occurrences are about
180 MB).  Past this, the choice is False, not cross-validated: a resource
bound, not an accuracy one.
"""


PAPER_PRESET = {
    "binarizer": PercentileBinarizer(),   # numeric features cut at the training 90th percentile (">"), nominal one-hot
    "n_rules": 150,             # a budget of 150 rules instead of τ
    "lam": 1.0,                 # the geometric centre of the paper's search range 10^-2 .. 10^2
    "quality": "paper",         # q(R; ℛ) of eq. obj
    "second_round": False,      # round 1 of Algorithm 1 only
    "min_support": 1,
    "tol": None,
    "head_sampler": "gh",
    "tail_space": "interpretable",
    "n_tails": 50, "n_heads_per_tail": 10,   # 500 candidates per step
    "min_head_length": 1, "max_head_length": None,
    "max_candidate_records": None,   # candidates drawn from every record
    "gh_gamma": 0.5, "gh_epsilon": 0.1, "gh_seed": "paper", "gh_normalise": False,
    "alpha": 0.8,
    "negations": False, "f1_patience": None, "default_rule": False, "prune_redundant": False,
    "complete_tails": False,    # the tails as sampled
    "validated_stop": False,    # the budget alone decides
}
"""The parameters of :meth:`CorsetClassifier.paper`: Algorithm 1 as the paper's experiments run it."""


def _check_label_values(Y, columns=None):
    """Clear errors for the label matrices users hold by mistake, before any conversion.

    A list of label lists (the input of MultiLabelBinarizer), labels coded -1/+1,
    missing labels, and text labels mixed with numbers or booleans (a CSV
    file's "yes"/"no" column beside a True/False one) each get one message
    saying what to do; ``columns``: Y's column names (a DataFrame's), to name
    the column.
    """
    if sp.issparse(Y):
        values = sp.csr_array(Y).data   # a DOK or LIL matrix has no .data of its entries
    else:
        if isinstance(Y, (list, tuple)) and any(isinstance(row, (list, tuple, set, frozenset)) for row in Y):
            lengths = {len(row) for row in Y if isinstance(row, (list, tuple, set, frozenset))}
            if len(lengths) > 1 or any(isinstance(row, (set, frozenset)) for row in Y) or any(
                    not isinstance(v, numbers.Number) for row in Y for v in row):
                raise ValueError("Y looks like a list of label lists; turn it into a 0/1 indicator matrix with "
                                 "sklearn.preprocessing.MultiLabelBinarizer().fit_transform(Y)")
        try:
            values = np.asarray(Y)
        except ValueError:
            raise ValueError("Y could not be read as a matrix (rows of different lengths?); for a list of "
                             "label lists use sklearn.preprocessing.MultiLabelBinarizer") from None
    if values.dtype.kind == "c":
        raise ValueError("Complex data not supported: Y holds complex numbers; every label must be 0 or 1 in "
                         "every record")
    if values.dtype.kind in "OU" and values.ndim in (1, 2) and values.size:
        _check_object_labels(values, columns)
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        if np.isnan(values).any():
            raise ValueError("Input y contains NaN: a missing label; every label must be 0 or 1 in every record")
        raise ValueError("Input y contains infinity or a value too large for dtype('float64'); every label must "
                         "be 0 or 1 in every record")
    if values.dtype.kind in "iuf" and values.size and values.ndim == 2:
        seen = np.unique(values)
        if seen.size <= 3 and -1 in seen and not np.setdiff1d(seen, [-1, 0, 1]).size:
            raise ValueError("Y holds -1 and 1: a multi-label Y must be a 0/1 indicator matrix; use 0 for "
                             "'label absent', e.g. (Y > 0).astype(int)")


def _check_object_labels(values, columns):
    """:func:`_check_label_values` for an object Y (or y): missing labels, and text mixed with others.

    One pass over the values' types first: a Y of Python integers and
    booleans (a DataFrame of integer and boolean columns) needs no more.
    """
    kinds = set(map(type, values.ravel().tolist()))
    if all(issubclass(kind, (bool, int, np.bool_, np.integer)) for kind in kinds):
        return
    grid = values.reshape(len(values), -1)
    where = lambda test: np.frompyfunc(test, 1, 1)(grid).astype(bool)  # noqa: E731
    column = lambda k: repr(columns[k]) if columns is not None else str(k)  # noqa: E731
    one_d = values.ndim == 1
    # A column of label lists ("a|b", "a", "" or missing for none), as tag columns are often
    # written: said before its empty cells would be called missing labels.
    for k in range(grid.shape[1]):
        lists = [v for v in grid[:, k] if isinstance(v, str) and any(sep in v for sep in _LIST_SEPARATORS)]
        if lists:
            sep = next(sep for sep in _LIST_SEPARATORS if sep in lists[0])
            where_k = "y" if one_d else f"Y's column {column(k)}"
            example = (f"Y[{column(k)}]" if columns is not None and not one_d
                       else f"pandas.Series({'y' if one_d else f'Y[:, {k}]'})")
            raise ValueError(f"{where_k} holds lists of labels such as {str(lists[0])!r}: give one 0/1 column per "
                             f"label, e.g. {example}.str.get_dummies(sep={sep!r})")
    # None, NaN, NaT or pandas' NA: np.unique would fail to order them, or call NA ambiguous.
    missing = where(is_missing)
    if missing.any():
        if one_d:
            raise ValueError("y holds a missing value; every record needs its class")
        k = int(np.flatnonzero(missing.any(axis=0))[0])
        raise ValueError(f"Y holds a missing label (in column {column(k)}); every label must be 0 or 1 in every "
                         "record")
    is_text = where(lambda v: isinstance(v, str))
    if not is_text.any() or is_text.all():
        return
    k = int(np.flatnonzero(is_text.any(axis=0))[0])
    seen = sorted({str(v) for v in grid[:, k]})
    if one_d:
        raise ValueError(f"y mixes text with numbers or booleans: it holds {seen[:5]}; give its two classes as "
                         "values of one kind (two words, or 0 and 1)")
    if is_text[:, k].all():   # a text column beside others: which word means present?
        example = f"Y[{column(k)}]" if columns is not None else f"Y[:, {k}]"
        positive = _present_word(seen)
        how = (f", e.g. ({example} == {positive!r}).astype(int)" if positive is not None
               else f", e.g. ({example} == VALUE).astype(int) for the VALUE that means present")
        raise ValueError(f"Y mixes text labels with numbers or booleans: column {column(k)} holds {seen[:5]}; every "
                         f"label must be 0 or 1: mark the value that means 'present' as 1 and the other as 0{how}")
    raise ValueError(f"Y's column {column(k)} mixes text with numbers or booleans ({seen[:5]}); every label must be "
                     "0 or 1 in every record")


# What separates the labels of a record written in one text cell ("rock|pop", "a;b", "x,y").
_LIST_SEPARATORS = ("|", ";", ",")

# Words that mean "present" in a column of two label words (any case).
_PRESENT_WORDS = ("true", "1", "yes", "y", "t", "present", "positive", "pos", "ja", "oui", "si", "sí")


def _present_word(values):
    """The value of ``values`` (two label words, as text) that means "present", or None if none says so."""
    if len(values) != 2:
        return None
    spelled = {str(v).strip().lower(): str(v) for v in values}
    return next((spelled[word] for word in _PRESENT_WORDS if word in spelled), None)


def _text_labels_hint(Y):
    """How to turn a Y of text labels into 0/1 ('' unless Y holds two text values, one meaning "present").

    OpenML's copies of the multi-label benchmarks give their labels as the
    strings ``'TRUE'`` and ``'FALSE'`` (``fetch_openml``): the value that
    means "present" is named, not guessed, in the message.
    """
    if Y.dtype.kind not in "OUS":
        return ""
    try:
        values = np.unique(Y.astype(str))
    except (TypeError, ValueError):
        return ""
    positive = _present_word(values)
    if positive is None:
        return ""
    return (f"; for labels given as text, mark the value that means 'present', e.g. "
            f"(Y == {positive!r}).astype(int)")


def _literal_meanings(binarizer, features):
    """What each literal of ``features`` (feature ids) says about its input column, for
    :func:`_needed_rules`, or None.

    Keys as in :func:`_needed_rules` (a feature id f, and ``("not", f)``);
    values ``("cut", j, lower, upper)`` (the values of column j in an interval,
    one end infinite: see :meth:`PercentileBinarizer._literal_domains`),
    ``("eq", j, i)`` or ``("ne", j, i)`` (column j holds, or does not hold,
    its i-th one-hot value).  None unless ``binarizer`` is a fitted
    :class:`PercentileBinarizer` itself (binary X, or another transformer:
    no literal is known to imply another).
    """
    if type(binarizer) is not PercentileBinarizer:
        return None
    features = sorted(set(int(f) for f in features))
    meanings = {}
    missing = binarizer._missing_counts()
    for f, domain in zip(features, binarizer._literal_domains(features)):
        if domain is None:
            continue
        if domain[0] == "cut":
            _, j, lower, upper = domain
            meanings[f] = domain
            # NOT (x > t) is x <= t and NOT (x <= t) is x > t (>= and < alike with inclusive cuts),
            # unless x is missing on some training records: NOT (x > t) holds there too, x <= t does not.
            if missing[j] == 0:
                meanings[("not", f)] = ("cut", j, -np.inf, lower) if upper == np.inf else ("cut", j, upper, np.inf)
        else:
            meanings[f] = ("eq",) + domain[1:]
            meanings[("not", f)] = ("ne",) + domain[1:]
    return meanings


def _head_context(head, meanings):
    """Per input column, what the literals of ``head`` together say of it: the interval its
    cuts leave (lower, upper), and the set of one-hot values it must hold."""
    intervals, values = {}, {}
    for literal in head:
        meaning = meanings.get(literal)
        if meaning is None:
            continue
        if meaning[0] == "cut":
            lower, upper = intervals.get(meaning[1], (-np.inf, np.inf))
            intervals[meaning[1]] = (max(lower, meaning[2]), min(upper, meaning[3]))
        elif meaning[0] == "eq":
            values.setdefault(meaning[1], set()).add(meaning[2])
    return intervals, values


def _implied(literal, context, meanings):
    """Does ``literal`` hold on every record where the head of ``context`` (:func:`_head_context`) holds?

    A cut does when the head's interval of its column lies within the cut's;
    a one-hot literal when the head fixes its column's value (to it, or, for
    a negated one, to another value).
    """
    meaning = meanings.get(literal)
    if meaning is None:
        return False
    intervals, values = context
    if meaning[0] == "cut":
        interval = intervals.get(meaning[1])
        # Intervals open at the same end (a cut's convention): containment is a comparison of ends.
        return interval is not None and interval[0] >= meaning[2] and interval[1] <= meaning[3]
    held = values.get(meaning[1])
    if held is None or len(held) != 1:
        return False
    return (meaning[2] in held) == (meaning[0] == "eq")


def _needed_rules(rules, default=None, meanings=None):
    """The indices, in order, of the ``rules`` that change some prediction.

    The rule list predicts the union of the tails of the rules that fire.
    Rule j changes no prediction when each label of its tail is predicted
    by another kept rule that fires wherever j does, or by ``default``, the
    default rule (no literal, fires on every record; it is not itself a
    candidate for dropping).  Rule k fires wherever j does when each of its
    literals is one of j's or, with ``meanings`` (:func:`_literal_meanings`),
    is implied by j's literals on its input column (``x>5`` implies ``x>2``,
    ``x>2 AND x<=5`` implies ``x<=7``, ``colour=red`` implies NOT
    ``colour=blue``).  This includes a single rule at least as general with
    a tail at least as large, and several that share j's labels between them.

    The rules are examined from the last selected to the first, each
    against the rules still kept: every drop leaves the predictions of the
    list unchanged, for any record, and a rule kept when examined stays
    needed (later drops only remove rules, which leaves fewer to stand for
    it), so no kept rule changes no prediction.  Of two rules that could
    stand for each other the earlier selected is kept.
    """
    heads = [frozenset(r.head) | frozenset(("not", f) for f in r.negated) for r in rules]
    tails = [frozenset(r.tail) for r in rules]
    everywhere = frozenset(default.tail) if default is not None else frozenset()
    kept = list(range(len(rules)))
    for j in reversed(range(len(rules))):
        left = tails[j] - everywhere
        context = None
        for k in kept:
            if not left:
                break
            if k == j or not (left & tails[k]):
                continue
            if heads[k] <= heads[j]:
                left = left - tails[k]
            elif meanings:
                if context is None:
                    context = _head_context(heads[j], meanings)
                if all(b in heads[j] or _implied(b, context, meanings) for b in heads[k]):
                    left = left - tails[k]
        if not left:
            kept.remove(j)
    return kept


class _PrefixState:
    """Which rules fire on some records, and the per-label true and false positives of a rule list's prefixes."""

    def __init__(self, model, X, Y, data=None):
        # ``data``: the BinaryData of X that the fit itself read (a fold's own records), whose
        # literal columns the rules' heads index directly: no second binarization of X, and each
        # rule's records come straight from the inverted index (no fired matrix to transpose).
        if data is not None:
            indptr, ids = model._rule_records(data)
        else:
            fired = sp.csc_array(model._fired(model._check_X(X)))
            indptr, ids = fired.indptr, fired.indices
        self.fired_indptr = np.asarray(indptr, dtype=np.int64)
        self.fired_ids = np.asarray(ids, dtype=np.int32)
        self.truth = sp.csr_array(Y).toarray().astype(bool)
        self.n_records, self.n_labels = self.truth.shape
        self.count = np.count_nonzero(self.truth, axis=0).astype(np.int64)

    def prefix_counts(self, kept, tails):
        """``(tp, fp)``, each (len(kept) + 1, n_labels) int64: row k counts the first k rules of ``kept``.

        ``kept`` lists rule indices in increasing order; ``tails``: every
        rule's tail as CSR ``(indptr, ids)``.  A (record, label) pair counts
        once, for the first rule that predicts it (the rule list predicts the
        union of the tails that fire): one compiled pass over the kept rules'
        pairs (:func:`corset._ext._selection.prefix_pair_counts`).
        """
        return _selection.prefix_pair_counts(self.fired_indptr, self.fired_ids, *tails,
                                             self.truth.view(np.uint8), np.asarray(kept, dtype=np.int64))


def _prefix_counts(model, X_fit, Y_fit, X, Y):
    """Held-out (tp, fp, fn) of each prefix of a fitted model's rule list, as three int64 arrays.

    Entry k counts the predictions on ``(X, Y)`` of the first k rules with a
    head, in ``rules_`` order (selection order), and, when the model has
    ``default_rule``, of the default rule the model would add after those k
    rules: its tail chosen on the model's training data ``(X_fit, Y_fit)``
    (:func:`corset.selection.default_tail`).  Micro-F1 is
    ``2 tp / (2 tp + fp + fn)``.  Each rule adds only the (record, label)
    pairs not predicted before it, so the whole curve costs one pass over the
    rules.
    """
    return _prefix_curves(model, X_fit, Y_fit, X, Y, [0])[0]


def _prefix_curves(model, X_fit, Y_fit, X, Y, min_matched, states=None):
    """:func:`_prefix_counts` of the rule list without its rare rules, for each threshold of ``min_matched``.

    For a threshold t, the rules with a head matched by fewer than t
    training records (``Rule.n_matched``) are left out, and entry k counts
    the first k rules left (and the default rule after them).  Which rules
    fire is computed once for every threshold.  ``states``: a list that gets
    the two :class:`_PrefixState` (training, held-out records).
    """
    from ..rules._check import _rules_to_csr

    # A fold fit kept its training and held-out records' BinaryData (in its held-out stop).
    patience = getattr(model, "_held_out_patience", None)
    fit_data = getattr(getattr(patience, "fit_path", None), "data", None)
    held_data = patience.held_out if fit_data is not None else None
    fit, held_out = _PrefixState(model, X_fit, Y_fit, fit_data), _PrefixState(model, X, Y, held_data)
    if states is not None:
        states.extend((fit, held_out))
    tails = _rules_to_csr([((), rule.tail) for rule in model.rules_])[2:]   # read by both states
    done = {}   # the rules a threshold keeps -> their curve (thresholds often keep the same rules)
    out = []
    for threshold in min_matched:
        kept = tuple(j for j, rule in enumerate(model.rules_) if rule.n_literals and rule.n_matched >= threshold)
        if kept not in done:
            (fit_tp, fit_fp), (tp, fp) = fit.prefix_counts(kept, tails), held_out.prefix_counts(kept, tails)
            # Each prefix's default rule (default_tail_from_counts on the training counts, all
            # prefixes in one call); as fit does, it takes a place of the budget n_rules.
            default = np.zeros(tp.shape, dtype=np.uint8)
            with_default = min(len(kept) + 1, model.n_rules) if model.default_rule else 0
            _selection.default_tail_rows(fit.count, fit_tp[:with_default].copy(), fit_fp[:with_default].copy(),
                                         fit.n_records, default[:with_default])
            # (TP, FP, FN) of every prefix: the default rule's labels predicted for every held-out record.
            count, n = held_out.count, held_out.n_records
            TP = tp.sum(axis=1) + ((count - tp) * default).sum(axis=1)
            FP = fp.sum(axis=1) + ((n - count - fp) * default).sum(axis=1)
            done[kept] = (TP, FP, int(count.sum()) - TP)
        out.append(done[kept])
    return out


def _support_grid(min_support):
    """The least supports ``validated_stop`` chooses among: ``min_support`` times 1, 1.5, 2, 3, ..., 24, 32.

    A geometric grid (about √2 apart), so the choice is between rules of
    different orders of rarity, not between neighbouring counts.  The first
    is ``min_support`` itself: every selected rule.
    """
    return sorted({int(np.ceil(min_support * f)) for f in (1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32)})


def _negation_occurrences(counts, n):
    """How often the negated literals of items held by ``counts`` of n records occur (constant items get none)."""
    counts = np.asarray(counts, dtype=np.int64)
    varying = (counts > 0) & (counts < n)
    return int((n - counts[varying]).sum())


class _HeldOutPatience(StoppingCriterion):
    """Stop a fold's selection once its held-out micro-F1 has not risen for max(``patience``,
    ``factor`` × best) rules (``best``: the length of its best prefix so far, the shortest among
    equals).

    The score after k rules is the one :func:`_prefix_curves` gives the fold (every rule kept): the
    held-out micro-F1 of the first k rules with the default rule the fit would add after them,
    chosen on the fold's training records (:func:`corset.selection.default_tail_from_counts`).
    Every selected rule is kept: the validation cuts the list afterwards, from the curves.

    Parameters
    ----------
    held_out : BinaryData
        The fold's held-out records, over the literals of the fold's fit.
    default_rule : bool
        Whether the fit adds a default rule (then within the budget ``n_rules``).
    n_rules : int
        The estimator's budget.
    patience, factor : int
        ``VALIDATION_PATIENCE`` and ``VALIDATION_PATIENCE_FACTOR``.
    """

    _reads_pool_share_before_adding_only = True

    reason = "validation"

    def __init__(self, held_out, default_rule, n_rules, patience, factor):
        self.held_out = held_out
        self.default_rule = default_rule
        self.n_rules = n_rules
        self.patience = patience
        self.factor = factor

    def start(self, data):
        from ..selection import MicroF1Path

        self.fit_path, self.held_path = MicroF1Path(data), MicroF1Path(self.held_out)
        self.scores = []
        self.scores.append(self._score())
        self.best = 0
        self.stopped = False

    def _score(self):
        # The held-out (TP, FP, FN) and their micro-F1, with the default rule that
        # default_tail_from_counts gives on the fit's counts (unless the rules so far, len(scores),
        # fill the budget), in one compiled call.
        fit, held = self.fit_path, self.held_path
        return _selection.held_out_micro_f1(fit.data.label_counts, fit.label_tp, fit.label_predicted,
                                            fit.data.n_records, held.data.label_counts, held.label_tp,
                                            held.label_predicted, held.data.n_records,
                                            self.default_rule and len(self.scores) < self.n_rules)

    def after_adding(self, step):
        self.fit_path.add(*step.rule)
        self.held_path.add(*step.rule)
        score = self._score()
        self.scores.append(score)
        k = len(self.scores) - 1
        if score > self.scores[self.best]:
            self.best = k
        self.stopped = k - self.best >= max(self.patience, self.factor * self.best)
        return self.stopped


def _validation_description(candidates):
    """The progress bar's text for fold fits of ``candidates`` (name -> the parameters they change)."""
    parts = []
    for params in candidates.values():
        binarizer, words = params.get("binarizer"), []
        percentile = getattr(binarizer, "percentile", None)
        if percentile is not None:
            cuts = np.atleast_1d(percentile)
            words.append(f"cut at p{cuts[0]:g}" if cuts.size == 1 else f"{cuts.size} cuts")
        if params.get("negations"):
            words.append("NOT literals")
        if params.get("gh_gamma", AUTO_GH_GAMMAS[0]) != AUTO_GH_GAMMAS[0]:
            words.append(f"gamma {params['gh_gamma']:g}")
        parts.extend(w for w in [", ".join(words)] if w)
    return "internal validation" + (f" ({'; '.join(parts)})" if parts else "")


def _fold_curve(estimator, X_train, Y_train, X_test, Y_test, min_matched=(0,), completion=False):
    """Fit ``estimator`` (unpruned: its rules_ are the selection in order) on a fold, stopped by
    :class:`_HeldOutPatience` on the held-out records; its prefix counts for each threshold of
    ``min_matched`` (see :func:`_prefix_curves`).  A fold stopped early has shorter curves:
    :func:`_validated_length` lets its last score stand for the rules after them.  Its clique
    truncation is not said (:class:`~corset.labelspace.CliqueTruncationWarning`): the final fit
    says it once, for the model the user gets, instead of once per fold and candidate.
    ``completion``: keep the fold's rules and records (:class:`_FoldRules`) in the curves'
    ``rules``, for ``complete_tails="auto"`` (:func:`_validated_completion`)."""
    from ..labelspace import CliqueTruncationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CliqueTruncationWarning)
        estimator._fit(X_train, Y_train, item_names=False, held_out=(X_test, Y_test), checked_labels=True)
    states = [] if completion else None
    curves = _FoldCurves(_prefix_curves(estimator, X_train, Y_train, X_test, Y_test, min_matched, states))
    curves.held_out_stop = estimator.selection_.stop_reason == _HeldOutPatience.reason
    curves.n_selected = len(estimator.selection_.rules)
    if completion:
        curves.rules = _FoldRules(estimator, *states, Y_train, Y_test, min_matched)
    return curves


class _FoldCurves(list):
    """One fold's curves (:func:`_prefix_curves`, one per least support), and ``held_out_stop``:
    whether the fold's selection was stopped by its held-out score (:class:`_HeldOutPatience`),
    not by the budget or for want of candidates; ``n_selected``: the rules it selected."""

    held_out_stop = False
    n_selected = None
    rules = None


class _FoldRules:
    """What :func:`_validated_completion` reads of a fold fit: its rules' tails, which records of
    the fold's training and held-out parts each rule fires on (CSC: records × rules), their
    labels, and the least-support thresholds of the fold's curves (``min_matched``)."""

    def __init__(self, model, fit, held_out, Y_fit, Y_held, thresholds):
        self.tails = [rule.tail for rule in model.rules_]
        self.n_matched = np.array([rule.n_matched for rule in model.rules_], dtype=np.int64)
        self.has_head = np.array([bool(rule.n_literals) for rule in model.rules_], dtype=bool)
        self.n_rules = model.n_rules if model.default_rule else 0   # 0: no default rule
        self.thresholds = list(thresholds)
        self.fired = [sp.csc_array((np.ones(state.fired_ids.size, dtype=bool), state.fired_ids,
                                    state.fired_indptr), shape=(state.n_records, len(self.tails)))
                      for state in (fit, held_out)]
        self.Y = [sp.csr_array(Y, dtype=bool) for Y in (Y_fit, Y_held)]
        self.label_counts = [np.diff(sp.csc_array(Y).indptr).astype(np.int64) for Y in self.Y]

    def counts(self, threshold, k, complete):
        """Held-out ``(tp, fp, fn)`` (1-element arrays) of the first ``k`` (None: all) rules with a
        head matched by at least ``threshold`` training records, their tails completed on the
        training part when ``complete``, and the default rule the fit would add after them."""
        from ..selection._completion import _complete, label_counts
        from ..selection._default import default_tail_from_counts

        kept = np.flatnonzero(self.has_head & (self.n_matched >= threshold))
        if k is not None:
            kept = kept[:k]
        tails = [tuple(self.tails[j]) for j in kept]
        fit, held = (F[:, kept] for F in self.fired)
        default = ()
        if kept.size < self.n_rules:   # the default rule takes a place of the budget
            tp, fp = label_counts(fit, tails, self.Y[0])
            default, _ = default_tail_from_counts(self.label_counts[0], tp, fp, self.Y[0].shape[0])
        if complete and kept.size:   # after the default rule, as the final fit does
            tails, _ = _complete(fit, tails, self.Y[0], default)
        Y, count = self.Y[1], self.label_counts[1]
        tp, fp = label_counts(held, tails, Y)
        chosen = np.zeros(Y.shape[1], dtype=bool)
        chosen[list(default)] = True
        TP = int(tp.sum() + (count - tp)[chosen].sum())
        FP = int(fp.sum() + (Y.shape[0] - count - fp)[chosen].sum())
        return np.array([TP]), np.array([FP]), np.array([int(count.sum()) - TP])


def _validated_completion(curves, index, k):
    """``(complete, scores)`` for ``complete_tails="auto"``: do the folds score their validated
    rule lists (least support ``index`` of the grid, cut after ``k`` rules) higher beyond noise
    with their tails completed (:func:`corset.selection.complete_tails`) on their training part?

    The rule of the other validated choices (:func:`_better_beyond_noise`); ``scores``: both
    choices' held-out micro-F1 pooled over the folds.  (False, None) when the folds kept no
    rules (``complete_tails`` was not "auto" when they were fitted).  The lists as they are
    score what their curves say at the cut (a shorter fold's last entry standing for the
    prefixes past it, as in :func:`_validated_length`).
    """
    if not curves or any(fold.rules is None for fold in curves):
        return False, None
    without = [tuple(np.array([c[-1 if k is None else min(k, len(c) - 1)]]) for c in fold[index]) for fold in curves]
    completed = [fold.rules.counts(fold.rules.thresholds[index], k, True) for fold in curves]
    scores = {False: _pooled_micro_f1(without), True: _pooled_micro_f1(completed)}
    return _better_beyond_noise(completed, without), scores


def _validated_horizon(curves):
    """The most selection steps the final fit makes when the validated list is kept whole: the
    longest fold path, when every fold's selection was stopped by its held-out score; else None.

    Such a fold followed its path until its held-out score had not risen for
    ``VALIDATION_PATIENCE`` rules or more: the validation scored no rule past
    the longest of them, so the final fit selects none either.
    """
    if not curves or not all(getattr(fold, "held_out_stop", False) for fold in curves):
        return None
    return max(fold.n_selected for fold in curves)


def _rising_at_end(curve):
    """Is the mean held-out curve of :func:`_validated_length` highest first at its last prefix (still rising)?"""
    return curve.size > 1 and int(np.argmax(curve)) == curve.size - 1


def _stop_after_kept(k, least_support, min_support, budget, stopping):
    """``(budget, stopping)`` that end the selection once it holds ``k`` rules matched by ``least_support`` records.

    At the fit's own ``min_support`` every selected rule is kept, and the
    budget is the bound; else a :class:`_KeptRules` stop joins ``stopping``.
    """
    if least_support == min_support:
        return max(1, min(budget, k)), stopping
    if k > 0:
        cap = _KeptRules(k, least_support)
        stopping = cap if stopping is None else [stopping, cap]
    return budget, stopping


def _micro_f1(tp, fp, fn):
    """``2 tp / (2 tp + fp + fn)``, elementwise, 0 where nothing is predicted or true."""
    tp, fp, fn = (np.asarray(c, dtype=np.float64) for c in (tp, fp, fn))
    denominator = 2 * tp + fp + fn
    return np.divide(2 * tp, denominator, out=np.zeros(denominator.shape), where=denominator > 0)


def _every_rule(folds):
    """Each fold's curve of its whole rule list (the first least support of :func:`_support_grid`)."""
    return [fold[0] for fold in folds]


def _pooled_micro_f1(folds):
    """Micro-F1 of whole rule lists pooled over the folds: the last prefix's (tp, fp, fn), summed."""
    return float(_micro_f1(*(sum(int(fold[i][-1]) for fold in folds) for i in range(3))))


def _fold_micro_f1(folds):
    """Each fold's micro-F1 of its whole rule list (the last prefix)."""
    return _micro_f1(*(np.array([fold[i][-1] for fold in folds]) for i in range(3)))


def _better_beyond_noise(challenger, incumbent):
    """Does ``challenger`` beat ``incumbent`` on the same folds by more than noise?

    Paired over the k folds: the mean of the per-fold micro-F1 differences
    must be positive and exceed their standard error, so that a choice is
    changed only on evidence that holds across the folds, not on one lucky
    split.  The standard error is the corrected one of Nadeau and Bengio
    (2003, "Inference for the generalization error"), s·sqrt(1/k + 1/(k-1))
    with s the differences' sample standard deviation, not the textbook
    s/sqrt(k): the folds' training sets overlap, so their differences are
    correlated and s/sqrt(k) understates the noise (by sqrt(2.5) for three
    folds, whose held-out part is half the size of their training part).
    """
    d = _fold_micro_f1(challenger) - _fold_micro_f1(incumbent)
    k = d.size
    se = d.std(ddof=1) * np.sqrt(1.0 / k + 1.0 / (k - 1)) if k > 1 else 0.0
    return bool(d.mean() > 0 and d.mean() > se)


def _can_still_pass(gains, k):
    """Could the folds not yet fitted make a challenger with per-fold ``gains`` so far better beyond noise?

    ``gains``: the micro-F1 differences on the first folds of ``k``.  The
    test of :func:`_better_beyond_noise` on all k folds holds for some
    differences d on the others, each in [-1, 1] (micro-F1 lies in
    [0, 1]), exactly when it holds with all of them equal to one x in
    [-1, 1]: for a given sum, equal values have the least spread.  With m
    the mean, S and Q the sum and sum of squares of ``gains``, r = k - len(gains) and
    c = 1/k + 1/(k-1), "m > 0 and m exceeds s·sqrt(c)" is "m > 0 and
    h(x) = a·(S + r·x)^2 - c·(Q + r·x^2) > 0", a = (k - 1 + c·k)/k^2.  The
    quadratic h is largest over the x with m >= 0 at an end or at its
    vertex.  When no x makes h positive, no later fold can make the
    challenger win, and the race drops it now: the choice is the one the
    whole race would make.  Two gains of opposite signs can do this (for
    three folds, whenever d1^2 + d2^2 + 6·d1·d2 < 0).
    """
    gains = np.asarray(gains, dtype=np.float64)
    r = k - gains.size
    if k < 2 or r <= 0:
        return True
    c = 1.0 / k + 1.0 / (k - 1)
    a = (k - 1 + c * k) / k ** 2
    S, Q = float(gains.sum()), float(np.square(gains).sum())
    A, B, C = a * r * r - c * r, 2.0 * a * r * S, a * S * S - c * Q
    lo = max(-1.0, -S / r)   # m >= 0 (at m = 0, h <= 0)
    xs = [lo, 1.0]
    if A < 0 and lo < -B / (2.0 * A) < 1.0:
        xs.append(-B / (2.0 * A))
    # A margin far below any micro-F1 difference: a challenger is dropped early only when it is
    # clearly out of reach, never on rounding.
    return max(A * x * x + B * x + C for x in xs) > -1e-12


def _auto_tol(n_label_occurrences, n_records=1, n_all=1):
    """τ of ``tol="auto"`` as a share of ``n_label_occurrences`` (||L||): ``AUTO_TOL_OCCURRENCES``
    new label occurrences of ``n_all`` records, counted on ``n_records`` of them (a fold's
    training records: ``3 · |train| / n``)."""
    return min(1.0, AUTO_TOL_OCCURRENCES * n_records / n_all / max(n_label_occurrences, 1))


def _validated_length(curves):
    """``(k, mean_curve)``: where held-out data says to cut the rule list, or k None to keep it whole.

    ``curves`` holds one (tp, fp, fn) triple of arrays per fold (see
    :func:`_prefix_counts`).  A fold whose rule list is shorter keeps its
    last score for longer prefixes (its selection stopped: more budget would
    not have added rules).  The list is cut only when the whole list's mean
    micro-F1 falls below the best prefix's by more than the standard error
    of the folds' scores at the best prefix (more than noise); it is then
    cut at the best prefix, k rules.
    """
    length = max(len(tp) for tp, _, _ in curves)
    scores = np.empty((len(curves), length))
    for i, (tp, fp, fn) in enumerate(curves):
        f1 = _micro_f1(tp, fp, fn)
        scores[i, :f1.size] = f1
        scores[i, f1.size:] = f1[-1]
    mean = scores.mean(axis=0)
    best = int(np.argmax(mean))   # the shortest among equals
    se = scores[:, best].std(ddof=1) / np.sqrt(len(curves)) if len(curves) > 1 else 0.0
    return (None if mean[-1] >= mean[best] - se else best), mean


def _validated_support(curves, grid):
    """``(least support, k, mean_curve, scores)``: which rare rules to leave out, and where to cut the rest.

    ``curves`` holds, per fold, one (tp, fp, fn) triple per least support of
    ``grid`` (see :func:`_prefix_curves`; the first is every rule).  Each
    least support gets its cut from :func:`_validated_length` and its score:
    the mean held-out micro-F1 of the rules it keeps, cut there.  The best
    score wins, ties going to the smallest support (every rule the first
    entry keeps): a rarer rule stays only when the folds score the lists
    with it at least as high as the lists without it.
    """
    results = [_validated_length([fold[j] for fold in curves]) for j in range(len(grid))]
    scores = [float(mean[-1] if k is None else mean[k]) for k, mean in results]
    best = int(np.argmax(scores))   # the first among equals
    return grid[best], results[best][0], results[best][1], dict(zip(grid, scores))


class _KeptRules(StoppingCriterion):
    """Stop the selection once it holds ``k`` rules matched by at least ``least_support`` training records.

    The validated cut counts only the rules ``validated_stop`` keeps; the
    selection's first steps do not depend on what follows them, so stopping
    here gives the kept rules of the whole selection.
    """

    _reads_pool_share_before_adding_only = True

    reason = "validated"

    def __init__(self, k, least_support):
        self.k = k
        self.least_support = least_support

    def start(self, data):
        self.data = data
        self.n_kept = 0

    def after_adding(self, step):
        from ..selection import rule_statistics

        if rule_statistics(self.data, [step.rule]).rule_counts[0] >= self.least_support:
            self.n_kept += 1
        return self.n_kept >= self.k


class _ValidatedHorizon(RuleBudget):
    """The budget :func:`_validated_horizon` sets, stopping with reason "validated"."""

    _reads_pool_share_before_adding_only = True   # read from each class itself, not inherited

    reason = "validated"


def _warn_number_text(columns):
    """Warn about X's text columns whose many values are numbers (:meth:`RawFeatures.number_text_columns`).

    As text such a column is nominal: each value becomes an item of its own
    and no threshold is cut, so that a quantity a rule could test as
    ``price>12.5`` is lost in hundreds of items matched by a few records
    each.  The column stays as given (codes may be meant as categories); the
    warning says how to make it a number, and which values are not numbers
    when a few cells of text made the column text.
    """
    if columns:
        shown = ", ".join(repr(name) for name, _ in columns[:5]) + (", ..." if len(columns) > 5 else "")
        others = [f"{name!r} also holds {', '.join(map(repr, values))}" for name, values in columns[:5] if values]
        also = f" ({'; '.join(others)})" if others else ""
        fix = ("X[column] = pandas.to_numeric(X[column]) (after removing any thousands commas and % signs"
               + ("; errors='coerce' makes the other values missing, to be filled in" if others else "") + ")")
        warnings.warn(f"column(s) {shown} of X hold numbers written as text{also}: they are read as categories, "
                      f"one item per value and no threshold; if they are quantities, convert them first, e.g. "
                      f"{fix}", UserWarning, stacklevel=4)


def _warn_row_index(columns):
    """Warn about X's columns that look like the row index ``DataFrame.to_csv`` writes
    (:meth:`RawFeatures.row_index_columns`): as a feature it lets rules pick records by their row
    in the file, which says nothing about new records.  The column stays; the warning says how to
    read the file without it."""
    if columns:
        shown = ", ".join(map(repr, columns[:5]))
        warnings.warn(f"column(s) {shown} of X look like a row index written by DataFrame.to_csv (no name, "
                      "increasing whole numbers): rules could pick records by their row; drop it, or read the "
                      "file with pandas.read_csv(path, index_col=0)", UserWarning, stacklevel=4)


def _warn_identifiers(columns, n):
    """Warn about X's nominal ``columns`` that hold a different value in each of its ``n`` records.

    Each value of such a column (a record's identifier, a free-text field)
    is an item that matches one record, so no rule matched by at least
    ``min_support >= 2`` records can use it, nor can it say anything about
    new records; yet every such item is a feature of the binary data (and,
    with negated literals, a nearly always true negated literal).  A
    default fit of 20,000 records of 20 numeric features and 5 labels took
    0.8 s and 226 MB, and with such a column 4.6 s and 685 MB: its 20,000
    items put the negated literals over ``AUTO_NEGATION_MAX_ENTRIES``, so
    the fit went without them.
    The column stays (it may be what the user wants to see fail); the
    warning says what to do.
    """
    if columns:
        shown = ", ".join(map(repr, columns[:5])) + (", ..." if len(columns) > 5 else "")
        warnings.warn(f"column(s) {shown} of X hold a different value in each of the {n} records (an identifier "
                      "or free text?): each of their items matches one record, so no rule can use them, "
                      "and they cost time and memory (and may switch negated literals off); drop them from X",
                      UserWarning, stacklevel=4)


def _check_2d(X):
    """A 1-D X gets scikit-learn's usual message (a single sample or a single feature?)."""
    if sp.issparse(X) or hasattr(X, "columns"):
        return
    try:
        ndim = np.asarray(X).ndim
    except ValueError:   # ragged: the conversion to numbers says what is wrong
        return
    if ndim < 2:
        raise ValueError(f"Expected a 2-D X, got a {ndim}-D array instead. Reshape your data either using "
                         "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if it "
                         "contains a single sample.")


class CorsetClassifier(ClassifierMixin, BaseEstimator):
    """Concise multi-label rule sets learnt by CORSET.

    Learns a small set of conjunctive rules ``IF H THEN T`` (H a set of binary
    features, T a set of labels) by greedy max-sum diversification
    (Algorithm 1 of the paper) over candidate rules drawn by exact pattern
    samplers; predicts for a record the union of the tails of the rules
    whose head it contains.  Every parameter is keyword-only and checked at
    :meth:`fit`.  The parameters come in groups, named at the start of each
    entry: features, selection, stopping, candidates (every sampler),
    CORSET-GH options, interpretable spaces, beyond the paper, execution.
    :doc:`Why the defaults are what they are </defaults>` gives the measurements behind the defaults;
    :meth:`paper` gives the configuration of the paper's experiments.

    Parameters
    ----------
    binarizer : "auto", "passthrough" or a transformer, default="auto"
        **Features.**  How raw features become the binary items of the rules.
        "auto": X is used as it is when it is binary (every value 0 or 1, no
        nominal column); otherwise a
        :class:`~corset.preprocessing.PercentileBinarizer` turns each nominal
        feature (a DataFrame's string or categorical column) into ``f=v``
        indicators and each numeric one (an ordered categorical of three or
        more values too, in its order: ``size>M``) into cuts ``f>t`` chosen by 3-fold
        cross-validation of the whole estimator on the training data:
        either one cut at the training 90th percentile (the paper's
        protocol) or five, at the 10th, 30th, 50th, 70th and 90th (their
        complements come from negated literals).  The single cut is fitted
        on every fold; the five cuts are raced (fitted fold by fold, dropped
        as soon as their mean gain so far is not positive) and taken only
        when they survive every fold and score higher by more than the
        standard error of the per-fold differences (corrected for the
        folds' overlapping training sets), the rule of ``negations``.  The
        scores are in ``binarizer_scores_``; below 30 records the single
        cut is taken.  "passthrough": X must be binary.  A transformer
        (e.g. a configured ``PercentileBinarizer``) is cloned and fitted on
        X.  The fitted one is ``features_.binarizer_``; ``predict`` and
        ``explain`` apply it to raw X, and rules print in the data's units.
    n_rules : int, default=150
        **Selection.**  The rule budget (the paper's experiments use at most
        150), the default rule included.
    lam : float, default=0.1
        **Selection.**  λ >= 0, the weight of diversity (eq. obj).
    quality : {"paper", "submodular"}, default="submodular"
        **Selection.**  The quality term: the paper's q(R; ℛ), or the
        monotone submodular Q, which credits each covered label occurrence
        with the best adjusted accuracy among the rules covering it.  The
        paper claims that the greedy is a ½-approximation (within a factor
        2 of the optimum); the claim does not hold for its own objective,
        which is not monotone, and it does hold for Q.
    second_round : bool, default=False
        **Selection.**  Run Algorithm 1's second greedy round and keep the
        better rule set.
    min_support : int, default=2
        **Selection.**  Candidate rules matched by fewer training records
        (``|D[R]|``) are not selected: by default no rule rests on a single
        record.  ``validated_stop`` may leave out more of the rare rules
        (``min_support_validated_``).
    tol : float in [0, 1], "auto" or None, default="auto"
        **Stopping.**  τ: selection stops once the share of newly covered
        label occurrences falls to τ or below (Algorithm 1; which share, see
        ``share_criterion``); None disables the criterion.  "auto" sets
        τ = 3 / ||L||: stop once no candidate covers more than three new
        label occurrences, whatever the number of labels (a fold fit of the
        internal validation counts ``3 · |train| / n`` of its own records'
        occurrences: its path runs as far as the final fit's).
    share_criterion : {"chosen", "pool"}, default="pool"
        **Stopping.**  Compare τ with the chosen rule's share (Algorithm 1 as
        printed) or with the largest share in the step's pool (see
        :func:`corset.selection.greedy_selection`).
    patience : int, default=1
        **Stopping.**  Stop after this many consecutive rules with share <= τ
        (1 is Algorithm 1 as printed).
    head_sampler : str, default="gh"
        **Candidates.**  A head method of :mod:`corset.sampling`: "gh"
        (CORSET-GH, greedy head search, Algorithm 5), "surs" (CORSET-SURS,
        exact sampling over the interpretable feature space), "cftp" or
        "rejection" (exact sampling by discriminativity, Algorithm 3), or
        one registered with :func:`corset.sampling.register_head_method`.
    tail_space : str, default="interpretable"
        **Candidates.**  A tail space of :mod:`corset.sampling`:
        "interpretable" (probabilistic cliques of the label graph, Algorithm
        4), "full" (all label sets, Algorithm 2), or one registered with
        :func:`corset.sampling.register_tail_space`.
    n_tails, n_heads_per_tail : int, default=50 and 10
        **Candidates, every sampler.**  Pool shape: each step draws
        ``n_tails`` tails and ``n_heads_per_tail`` heads per tail (the
        paper's 500 candidates).  The fold fits of the internal validation
        draw a fifth of the tails, at least 10 (``VALIDATION_POOL_SHARE``:
        10 of 50), the final fit all of them.  A pool of more than 2**31 - 1
        candidates, or one that could not fit in the machine's memory (24
        bytes a candidate at least), is refused by ``fit`` before anything
        is drawn.
    min_head_length, max_head_length : int, default=1 and 3
        **Candidates, every head sampler.**  Bounds on the number of
        literals in a head, positive and negated (None: no maximum);
        ``max_head_length`` must be at least ``min_head_length``.
    max_candidate_records : int or None, default=100_000
        **Candidates, every sampler; beyond the paper.**  A fit on more
        training records than this (the internal validation's fold fits
        included, which matters only for caps below the folds' 6,667
        training records) draws its tails and heads from a random subset:
        this many records drawn uniformly, plus one record of each label
        none of them holds (drawn once per fit from ``random_state``).  The
        selection still scores every candidate on all records: the
        candidates' areas, accuracies and distances are exact.  Once no
        tail of the subset has uncovered area left, the samplers draw from
        every record for the rest of the selection.  The samplers' cost then
        no longer grows with the data (drawing the subset is one pass over
        the record ids).  None: draw from every record, as Algorithm 1.  At
        most this many training records: no change at all (the same rules
        as with None).  ``n_candidate_records_`` says how many records the
        candidates were drawn from.
    gh_gamma : float or "auto", default="auto"
        **CORSET-GH options** (``head_sampler="gh"`` only): the weight
        γ >= 0 of negative support in the search's gain
        ``φ(H) = |D[H] ∩ D_T^+| − γ·|D[H] ∩ D_T^-|``, which is positive
        when a head's records hold more than γ positives per negative (a
        precision above γ / (1 + γ)): how precise the rules are.  "auto":
        0.5 (the paper's experiments), or each next value of
        ``AUTO_GH_GAMMAS`` (2, then 8) while 3-fold cross-validation on the
        training data scores it higher beyond noise, raced as the cuts and
        the negated literals are, after them, on the same folds (pooled
        scores in ``gh_gamma_scores_``, the value used in ``gh_gamma_``).
        Labels the features determine with little noise get more precise
        heads; the seven benchmark sets keep 0.5.  This costs one to three
        fold fits per value raced, whatever ``validated_stop``; below 30
        training records, 0.5.
    gh_epsilon : float, default=0.1
        **CORSET-GH options** (``head_sampler="gh"`` only): the early-stop
        share ε in [0, 1].
    gh_seed : {"paper", "uniform", "uncovered", "deterministic"}, default="paper"
        **CORSET-GH options** (``head_sampler="gh"`` only).  The
        distribution of the seed pair (see
        :class:`corset.sampling.GreedyHeadSearch`); "paper" pairs are drawn
        ∝ w exactly, by rejection sampling (the paper's distribution).
    gh_normalise : bool, default=False
        **CORSET-GH options** (``head_sampler="gh"`` only).  Normalise the
        marginal gains by feature frequency.
    alpha : float in (0, 1], default=0.8
        **Interpretable spaces** (``tail_space="interpretable"`` and
        ``head_sampler="surs"``): the clique-probability threshold.
    max_clique_size, max_cliques : int or None, default=None and 100_000
        **Interpretable spaces** (``tail_space="interpretable"`` and
        ``head_sampler="surs"``).  Caps of the clique enumeration.  A family
        past the caps, of labels (say 20 labels that always occur together)
        or of features (``head_sampler="surs"``), is truncated: every clique
        size that fits completely, then the lexicographically first sets of
        the next size, with a
        :class:`~corset.labelspace.CliqueTruncationWarning`.  (The label
        space used to raise :class:`~corset.labelspace.CliqueOverflowError`,
        which named options the estimator does not have.)
    negations : {"auto", True, False}, default="auto"
        **Beyond the paper, every head sampler.**  Whether heads may contain
        negated literals ``NOT f`` besides the features themselves: each
        feature not constant on the training data gets one, and the samplers
        and the selection work on the 2·p literals as on features.  "auto":
        chosen by 3-fold cross-validation on the training data.  The first
        guess is whether the training label density (the mean share of
        records carrying a label) is at least 0.2; the other choice is
        fitted on the same folds (on numeric X with ``binarizer="auto"``,
        with the winning cuts), fold by fold, and dropped as soon as its
        mean per-fold difference so far is not positive (racing: a choice
        that has not gained, or that no later fold could lift past the
        test below, is not fitted on the remaining folds); it is
        taken when it survives every fold and scores higher by more than
        the standard error of the per-fold differences, corrected for the
        folds' overlapping training sets (pooled scores in
        ``negations_scores_``).  On binary X this costs three fits with the
        first guess (whatever ``validated_stop``) and one to three with the
        other choice; a fit with negated literals is slower (enron: 1.1 s
        against 0.2 s on two thirds of its records).  Below 30
        training records, or with a transformer as ``binarizer``, the first
        guess.  Never when the negated literals would occur
        more than ``AUTO_NEGATION_MAX_ENTRIES`` (20 million) times on the
        training data (wide sparse data such as text, where a record would
        hold nearly every negation): then False.  ``negations=True`` on such
        data raises ValueError, before building them, when their
        occurrences would take more than the machine's physical memory (at
        least 9 bytes each).
    f1_patience : int, None or "auto", default="auto"
        **Beyond the paper** (a stopping criterion).  An int p: stop once p
        rules in a row have not raised the training micro-F1 of the rule
        set, and keep the shortest prefix with the highest training
        micro-F1 (the rules a smaller budget would have selected).  None:
        Algorithm 1's stopping only.  "auto": 5 when negated literals are
        used, else None.
    default_rule : bool, default=True
        **Beyond the paper.**  After the selection, add a default rule
        ``IF TRUE THEN T0`` (empty head, fires on every record) whose tail
        T0 is chosen greedily to raise the training micro-F1
        (:func:`corset.selection.default_tail`); left out when no label
        raises it.  It counts against ``n_rules`` and comes last in
        ``rules_``.
    prune_redundant : bool, default=True
        **Beyond the paper.**  Drop a selected rule that changes no
        prediction: each label it predicts is predicted by another kept
        rule that fires wherever it does, or by the default rule, which
        fires on every record.  A rule fires wherever another does when
        each of its literals is one of the other's or, for cuts and one-hot
        values of the same column, implied by them (``x>5`` implies
        ``x>2``; ``colour=red`` implies NOT ``colour=blue``).  One rule at
        least as general with a tail at least as large is the simplest
        case; the labels may also be shared among several such rules.  Rules are
        examined from the last selected to the first (of two that could
        stand for each other, the earlier is kept).  ``predict`` gives the
        same labels either way, for any X (the scores of ``predict_proba``
        may differ: they come from the best rule that fires);
        ``selection_`` keeps every selected rule.
    complete_tails : {"auto", True, False}, default="auto"
        **Beyond the paper.**  After the selection (and its validated cut),
        add labels to the kept rules' tails while an addition raises the
        training micro-F1 of the rule list, the best addition first
        (:func:`corset.selection.complete_tails`): the default rule's
        choice of labels, made for each selected head.  A rule's tail is
        drawn from one record's labels; its head may match many records
        that carry another label no rule predicts there.  Label k joins a
        rule's tail when the records it would newly predict carry k at a
        rate above half the list's micro-F1, the exact condition for a rise.
        True: always; False: the tails as sampled (the paper's);
        "auto": decided by the folds of ``validated_stop``: each fold's
        validated rule list is completed on the fold's training part, and
        completion is kept when it raises the held-out micro-F1 beyond
        noise (the rule of the negated literals' choice); False when nothing
        is validated.  The added labels' precision is estimated on the
        records the head was selected on, optimistic for small heads: on
        small data sets the folds usually decline it.  The rules'
        ``gain`` and ``uncovered_area`` stay the selection's, of the tails
        as selected; their other statistics are of the completed tails.
    validated_stop : {"auto", True, False}, default="auto"
        **Beyond the paper** (a stopping criterion).  Choose by 3-fold
        cross-validation on the training data which rare rules to leave out
        and where to cut the selected rule list.  Each fold's fit is scored
        on its held-out records after each of its rules (micro-F1, with the
        default rule the fit would add after them), once with every rule and
        once without the rules matched by fewer than m training records, for
        each least support m of ``min_support`` times 1, 1.5, 2, 3, ..., 32
        (counted as the same share of a fold's records).  For each m the
        list is cut at its best prefix only when the whole list's mean score
        is below the best prefix's by more than the standard error of the
        folds' scores there (more than noise).  The m whose (cut) lists
        score best wins, ties going to the smallest: a rarer rule is kept
        only when the folds score better with it.  The final fit's selection
        then loses its rules matched by fewer than
        ``min_support_validated_`` records and is cut after
        ``n_rules_validated_`` of the others.  So a larger ``n_rules``
        cannot cost accuracy that validation can see, and rules fitting a
        handful of records go when they do not generalise.  On numeric data
        the folds are those that choose the binarizer's cuts (no extra fit);
        on binary data they cost three fits on two thirds of the data.  A
        fold stops selecting once its held-out score has not risen for
        max(40, 3 × best) rules, best being its best prefix so far
        (``VALIDATION_PATIENCE``): the rules after that are not scored, and
        its last score stands for them.  When every fold stopped so and the
        list is kept whole, the final selection stops after as many rules as
        the longest fold selected (``selection_.stop_reason`` "validated"):
        no rule past them was scored.  Otherwise the final fit's path runs
        on to its own stop, though the folds scored fewer rules: its path on
        all the records finds rules a fold's does not.  The fold fits draw a
        fifth of the tails, at least 10 (``VALIDATION_POOL_SHARE``): they are
        scored for their curves, not kept.
        "auto" and True: validate whenever there are at least 30 training
        records; False: keep every selected rule.  Past 10,000 training
        records the folds of every internal validation split a random
        subsample of 10,000 (``VALIDATION_MAX_RECORDS``).
    random_state : None, int or RandomState, default=None
        **Execution.**  Resolved once per fit; the same int gives the same
        rules, for any ``n_jobs``.
    n_jobs : int or None, default=None
        **Execution.**  Parallel work; results do not depend on it.

        * None (or 1): one thread, one process.
        * k > 1, or a negative value counted from the CPUs this process may
          use, as in joblib (-1: every one, -2: all but one): the fits of the
          internal cross-validation (``binarizer="auto"`` on numeric X,
          ``validated_stop``) run side by side in k of joblib's worker
          processes, one thread each (the first parallel fit of a session
          starts the workers: about a second), and the final fit's compiled
          head searches use k threads (OpenMP), once a step's searches take
          at least 1 ms on one thread (``THREADED_SEARCH_MIN_SECONDS``): on
          smaller steps, starting threads costs more than it saves.
        * 0 is not allowed.

        Threads are not the default because of how OpenMP waits: by default
        its threads spin between parallel regions, and the searches' regions
        are short.  On two cores, threaded searches made a lone default fit
        of bibtex 0.81 times as long, but a fit of enron and one of bibtex
        run at the same time took 9-21 s instead of 1.2-3.3 s (3 to 17 times
        as long as one-thread fits run at the same time), and with
        ``OMP_WAIT_POLICY=PASSIVE`` the threads gained nothing.  With
        ``n_jobs > 1`` on a machine busy with other work, set
        ``OMP_WAIT_POLICY=PASSIVE`` before starting Python.

        What two workers gain is bounded: the validation's races are
        sequential (each challenger is fitted fold by fold), three folds
        keep two workers busy for two rounds, and the final selection runs
        in this process.  On two cores, default fits of bibtex took 2.0 to
        2.2 s with ``n_jobs=2`` against 2.3 to 2.5 s with one (the first
        parallel fit of a session, which starts the workers, 3.8 s), and
        fits of enron 0.70 s against 0.66 to 0.85 s.
    verbose : int, default=0
        **Execution.**  >0 shows a progress bar during selection, and one
        (removed when done) over the fold fits of the internal validation
        (the cuts, negated literals and ``validated_stop``).

    Attributes
    ----------
    rules_ : list of Rule
        The selected rules, in selection order, followed by the default rule
        (empty head, see ``default_rule``) when there is one.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X is a DataFrame with string column names.
    feature_names_ : list of str
        Names of the binary items the rules are made of: X's columns when X
        is binary, else the binarizer's output names (``tempo>120.5``,
        ``genre=pop``).
    n_items_ : int
        The number of binary items (``len(feature_names_)``).
    validation_curve_ : ndarray of float64 or None
        With ``validated_stop``: the mean held-out micro-F1 over the folds
        after 0, 1, 2... selected rules matched by at least
        ``min_support_validated_`` records (index k: the first k of them and
        the default rule); None when no validation ran.
    min_support_validated_ : int or None
        The least support ``validated_stop`` chose: selected rules matched
        by fewer training records (``Rule.n_matched``) were left out; equal
        to ``min_support`` when every selected rule was kept; None when no
        validation ran.
    support_scores_ : dict or None
        With ``validated_stop``: for each least support tried, the mean
        held-out micro-F1 of the folds' rule lists without the rarer rules,
        cut where ``validated_stop`` would cut them.
    n_rules_validated_ : int or None
        The number k of selected rules ``validated_stop`` kept among those
        matched by at least ``min_support_validated_`` records (before
        ``prune_redundant`` and the default rule); None when it kept them
        all or no validation ran.
    budget_limited_ : bool or None
        With ``validated_stop``: True when the budget ended the selection
        while the held-out score was still rising, that is, when the
        selection stopped at ``n_rules`` and ``validation_curve_`` is highest
        at its last rule and nowhere before.  A larger ``n_rules`` may then
        be more accurate, with more rules to read.  False when the selection
        stopped for another reason (``tol``, the F1 stop, the validated cut,
        no candidate left) or the held-out score had stopped rising; None
        when no validation ran.
    binarizer_scores_ : dict or None
        With ``binarizer="auto"`` on X with numeric columns: the cross-validated
        micro-F1 of each candidate cut (``"p90"``, ``"p10-90"``), with
        negations as first guessed, pooled over the folds it was fitted on
        (the five cuts may have been dropped after one or two; see
        ``binarizer``).  None when no choice was made.
    negations_scores_ : dict or None
        With ``negations="auto"`` as well: the cross-validated micro-F1 of
        the chosen cuts without and with negated literals (keys False and
        True), each pooled over the folds it was fitted on (the other choice
        may have been dropped after one or two; see ``negations``); the
        other choice replaced the first guess only when it survived every
        fold and was better beyond noise.  None when no choice was made.
    complete_tails_ : bool
        Whether the kept rules' tails were completed (``complete_tails``,
        or what "auto" chose).
    complete_tails_scores_ : dict or None
        With ``complete_tails="auto"`` and a validated fit: the folds'
        pooled held-out micro-F1 of their validated rule lists without and
        with completion (keys False and True); None when no choice was made.
    gh_gamma_ : float or None
        The γ of CORSET-GH the fit used (``gh_gamma``, or the one "auto"
        chose); None with another head sampler.
    gh_gamma_scores_ : dict or None
        With ``gh_gamma="auto"``: the cross-validated micro-F1 of each γ
        fitted, pooled over the folds it was fitted on (a challenger may
        have been dropped after one or two); None when no choice was made.
    features_ : corset.model._features.RawFeatures
        How raw X becomes the items: its ``binarizer_`` (None when X was
        binary) is applied again by ``predict`` and ``explain``.
    label_names_ : list of str
        Y's column names, the ``label_names`` argument, else ``y0``, ``y1``...
    n_labels_ : int
    label_base_rates_ : ndarray of float64
        Smoothed training frequency of each label, ``(count + 1) / (n + 2)``.
    selection_ : corset.selection.SelectionResult
        The selection's record: gains, objective, stop reason, and the
        training micro-F1 path of ``f1_patience``.  When ``validated_stop``
        cut the list before the fit (and neither the F1 stop nor round 2
        is used), the selection ran only that far: to its k-th rule, or,
        when rare rules are left out, to its k-th rule matched by at least
        ``min_support_validated_`` records (stop reason ``"validated"``).
        When the list is kept whole and every fold stopped on its held-out
        score, it ran no further than the longest fold's selection (also
        ``"validated"``, with round 1 only).  Its rules' heads are ids of literals: ``j < n_items_`` is binary
        item j, ``n_items_ + i`` is ``NOT negated_features_[i]``.
    n_candidate_records_ : int
        The number of training records the final fit drew its candidate
        rules from: every record, unless ``max_candidate_records`` left some
        out (then the subset's size; the selection still scored the
        candidates on every record).  A fitted attribute of the fit, not
        saved by :meth:`to_dict`.
    negated_features_ : ndarray of int64
        The features that had a negated literal during fit (empty when
        negations were not used).

    Notes
    -----
    ``predict_proba`` is a monotone score in (0, 1), not a calibrated
    probability: a label predicted by the firing rules gets
    ``0.5 + 0.5 · (n + 1) / (s + 2)`` with s the training records where the
    best firing rule predicting it fires and n those among them that carry
    the label; any other label gets ``0.5 · label_base_rates_``.  A label is
    predicted exactly when its probability exceeds 0.5.

    A label that never occurs in training is never predicted; a label
    carried by every training record is predicted only inside tails with
    other labels, or by the default rule.

    Examples
    --------
    >>> from corset.datasets import make_rule_data
    >>> from corset.model import CorsetClassifier
    >>> data = make_rule_data(n_records=300, n_features=20, n_labels=6, random_state=0)
    >>> model = CorsetClassifier(random_state=0).fit(data.X, data.Y)
    >>> 0 < len(model.rules_) <= 150
    True
    """

    # In the order of the docstring's groups, like the signature, so the three read side by side.
    _parameter_constraints = {
        "binarizer": [StrOptions({"auto", "passthrough"}), HasMethods(["fit_transform", "transform"])],
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "lam": [Interval(Real, 0, None, closed="left")],
        "quality": [StrOptions(set(QUALITIES))],
        "second_round": ["boolean"],
        "min_support": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, 1, closed="both"), StrOptions({"auto"}), None],
        "share_criterion": [StrOptions({"chosen", "pool"})],
        "patience": [Interval(Integral, 1, None, closed="left")],
        # Checked against the registries at fit: samplers may be registered after import.
        "head_sampler": [str],
        "tail_space": [str],
        "n_tails": [Interval(Integral, 1, None, closed="left")],
        "n_heads_per_tail": [Interval(Integral, 1, None, closed="left")],
        "min_head_length": [Interval(Integral, 1, None, closed="left")],
        "max_head_length": [Interval(Integral, 1, None, closed="left"), None],
        "max_candidate_records": [Interval(Integral, 1, None, closed="left"), None],
        "gh_gamma": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "gh_epsilon": [Interval(Real, 0, 1, closed="both")],
        "gh_seed": [StrOptions({"paper", "uniform", "uncovered", "deterministic"})],
        "gh_normalise": ["boolean"],
        "alpha": [Interval(Real, 0, 1, closed="right")],
        "max_clique_size": [Interval(Integral, 1, None, closed="left"), None],
        "max_cliques": [Interval(Integral, 1, None, closed="left"), None],
        "negations": ["boolean", StrOptions({"auto"})],
        "f1_patience": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
        "default_rule": ["boolean"],
        "prune_redundant": ["boolean"],
        "complete_tails": ["boolean", StrOptions({"auto"})],
        "validated_stop": ["boolean", StrOptions({"auto"})],
        "random_state": ["random_state"],
        "n_jobs": [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left"), None],
        "verbose": ["verbose"],
    }

    def __init__(self, *, binarizer="auto",
                 n_rules=150, lam=0.1, quality="submodular", second_round=False, min_support=2,
                 tol="auto", share_criterion="pool", patience=1,
                 head_sampler="gh", tail_space="interpretable", n_tails=50, n_heads_per_tail=10,
                 min_head_length=1, max_head_length=3, max_candidate_records=100_000,
                 gh_gamma="auto", gh_epsilon=0.1, gh_seed="paper", gh_normalise=False,
                 alpha=0.8, max_clique_size=None, max_cliques=100_000,
                 negations="auto", f1_patience="auto", default_rule=True, prune_redundant=True,
                 complete_tails="auto", validated_stop="auto", random_state=None, n_jobs=None, verbose=0):
        self.binarizer = binarizer
        self.n_rules = n_rules
        self.lam = lam
        self.quality = quality
        self.second_round = second_round
        self.min_support = min_support
        self.tol = tol
        self.share_criterion = share_criterion
        self.patience = patience
        self.head_sampler = head_sampler
        self.tail_space = tail_space
        self.n_tails = n_tails
        self.n_heads_per_tail = n_heads_per_tail
        self.min_head_length = min_head_length
        self.max_head_length = max_head_length
        self.max_candidate_records = max_candidate_records
        self.gh_gamma = gh_gamma
        self.gh_epsilon = gh_epsilon
        self.gh_seed = gh_seed
        self.gh_normalise = gh_normalise
        self.alpha = alpha
        self.max_clique_size = max_clique_size
        self.max_cliques = max_cliques
        self.negations = negations
        self.f1_patience = f1_patience
        self.default_rule = default_rule
        self.prune_redundant = prune_redundant
        self.complete_tails = complete_tails
        self.validated_stop = validated_stop
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @classmethod
    def _get_param_names(cls):
        """scikit-learn's parameter names, read from ``__init__``'s signature once per class.

        ``get_params`` (``clone``, ``set_params``, the parameter validation of every
        fit) reads the signature each time; the internal validation makes a dozen
        fold estimators per fit, so the names are kept on the class (each subclass
        its own: a subclass may take other parameters).
        """
        names = cls.__dict__.get("_param_names")
        if names is None:
            names = tuple(super()._get_param_names())
            cls._param_names = names
        return list(names)

    @classmethod
    def paper(cls, **params):
        """The configuration of the paper's experiments: Algorithm 1 as printed.

        Returns an unfitted estimator with the parameters of
        :data:`corset.model.PAPER_PRESET`, updated with ``params``: the
        paper's quality q(R; ℛ) (eq. obj), round 1 of Algorithm 1 only, a
        budget of 150 rules instead of τ, heads of any length, no default
        rule, no negated literals, no stop at the best training micro-F1,
        no pruning of redundant rules, no completion of tails and no minimum
        support; features cut
        at their training 90th percentile; CORSET-GH (pass
        ``head_sampler="surs"`` for CORSET-SURS).  The paper tunes λ, γ, ε
        and α by random search on a validation split;
        :mod:`corset.experiments` does the same.  λ = 1 is the geometric
        centre of its search range.  :doc:`/reproducing` lists every way the
        defaults depart from this configuration, with its measured effect.

        Parameters
        ----------
        **params
            Any parameter of the estimator, overriding the preset's value
            (e.g. ``lam=1.2, head_sampler="surs"``).

        Returns
        -------
        CorsetClassifier

        Examples
        --------
        >>> from corset.model import CorsetClassifier
        >>> model = CorsetClassifier.paper(lam=1.2, random_state=0)
        >>> model.quality, model.tol, model.default_rule, model.lam
        ('paper', None, False, 1.2)
        """
        unknown = sorted(set(params) - set(cls._parameter_constraints))
        if unknown:
            raise TypeError(f"CorsetClassifier.paper() got unexpected parameter(s) {unknown}; "
                            f"valid ones are the estimator's: {sorted(cls._parameter_constraints)}")
        return cls(**{**PAPER_PRESET, "binarizer": clone(PAPER_PRESET["binarizer"]), **params})

    # -- validation ------------------------------------------------------------
    def _check_params(self):
        """What the declared constraints cannot say: checks across parameters and the sampler registry."""
        from ..sampling import HEAD_METHODS, TAIL_SPACES

        for name, constraints in self._parameter_constraints.items():
            value = getattr(self, name)
            # bool is an Integral (and a Real) for scikit-learn's Interval: n_tails=True would pass as 1.
            if isinstance(value, (bool, np.bool_)) and "boolean" not in constraints and name not in (
                    "random_state", "verbose"):
                raise InvalidParameterError(
                    f"The {name!r} parameter of CorsetClassifier must be a number, not a bool. Got {value!r} "
                    "instead.")
        if self.max_head_length is not None and self.max_head_length < self.min_head_length:
            raise InvalidParameterError(
                f"The 'max_head_length' parameter of CorsetClassifier must be >= min_head_length "
                f"({self.min_head_length}) or None. Got {self.max_head_length!r} instead.")
        for name, table in (("head_sampler", HEAD_METHODS), ("tail_space", TAIL_SPACES)):
            value = getattr(self, name)
            if value not in table:
                raise InvalidParameterError(f"The {name!r} parameter of CorsetClassifier must be a str among "
                                            f"{sorted(table)}. Got {value!r} instead.")
        # The user's pool, refused before the internal validation's fold fits (which draw a smaller one,
        # VALIDATION_POOL_SHARE) could name their own n_tails instead.
        check_pool_shape(self.n_tails, self.n_heads_per_tail)
        return self.get_params(deep=False)

    def _validate_y(self, Y, label_names):
        """Binary label matrix, names, and how to give predictions back.

        A 2-D Y must be a 0/1 indicator matrix (``classes_`` is then ``[0, 1]``
        per label).  A 1-D y may hold any two class values, as in
        scikit-learn's binary classification: ``classes_`` holds them sorted
        and the second is the positive label the rules predict.
        """
        names, series_name = None, None
        if hasattr(Y, "to_numpy"):  # pandas DataFrame or Series
            names = [str(c) for c in Y.columns] if getattr(Y, "ndim", 1) == 2 else None
            series_name = getattr(Y, "name", None) if getattr(Y, "ndim", 2) == 1 else None
            Y = Y.to_numpy()
        _check_label_values(Y, names)
        if sp.issparse(Y):
            Y = sp.csr_array(Y)
            if Y.ndim != 2:
                raise ValueError(f"Y must be 2-D; got shape {Y.shape}")
            output = {"kind": "sparse", "dtype": np.dtype(Y.dtype).str}
            Yb = check_binary_matrix(Y, "Y")
        else:
            Y = np.asarray(Y)
            if Y.ndim == 2 and Y.shape[1] == 1 and label_names is None and names is None:
                pass  # a column of labels stays a one-label indicator matrix
            if Y.ndim == 1:
                target = type_of_target(Y, input_name="y", raise_unknown=True)
                if target != "binary":
                    raise ValueError(
                        f"Only binary classification is supported. The type of the target is {target}. "
                        "CorsetClassifier is a multi-label (and binary) classifier: one-hot encode a "
                        "multiclass target first (sklearn.preprocessing.LabelBinarizer)")
                classes = np.unique(Y)
                if classes.size < 2:
                    raise ValueError(f"y has only one class ({classes.tolist()}); a classifier needs two "
                                     "classes to learn from")
                self.classes_ = classes
                Yb = check_binary_matrix((Y == classes[1]).reshape(-1, 1), "y")
                output = {"kind": "binary"}
                # The positive class names the label ("spam"), unless it is only 1 or True: then a
                # Series' name says what it is ("IF ... THEN churned", not "THEN 1").
                bare = classes.dtype.kind in "biuf" or all(isinstance(c, (bool, np.bool_)) for c in classes)
                names = [str(series_name) if bare and series_name is not None else str(classes[1])]
            elif Y.ndim == 2:
                target = type_of_target(Y, input_name="Y") if Y.size else "multilabel-indicator"
                if target in ("continuous-multioutput", "multiclass-multioutput", "continuous"):
                    other = np.unique(Y[(Y != 0) & (Y != 1)])[:5].tolist()
                    raise ValueError(f"Y must be a binary (0/1) indicator matrix; got a {target!r} target: it "
                                     f"holds other values, e.g. {other}{_text_labels_hint(Y)}")
                Yb = check_binary_matrix(Y, "Y")
                # Predictions in Y's dtype, as scikit-learn's classifiers give them; an object Y (a
                # DataFrame of boolean and integer columns) gets 0/1 integers, which metrics can read.
                output = {"kind": "dense", "dtype": np.dtype(np.uint8 if Y.dtype.kind == "O" else Y.dtype).str}
            else:
                raise ValueError(f"Y must be a binary indicator matrix of shape (n_samples, n_labels) or a "
                                 f"1-D binary y; got an array of shape {Y.shape}")
        if output["kind"] != "binary":
            self.classes_ = np.array([0, 1])  # every label's classes, as scikit-learn's multi-label estimators
        if label_names is not None:
            names = [str(n) for n in label_names]
        if names is not None and len(names) != Yb.shape[1]:
            raise ValueError(f"label_names has {len(names)} names for {Yb.shape[1]} labels")
        if names is not None:
            check_unique_names(names, "label_names" if label_names is not None else "Y's column names", "label")
        return Yb, names, output

    # -- fit --------------------------------------------------------------------
    def fit(self, X, Y, label_names=None, feature_names=None):
        """Learn a rule set from features ``X`` and labels ``Y``.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Raw features: numeric (continuous, counts, 0/1), or in a
            DataFrame also nominal (string or categorical columns), dates,
            durations and ordinal (ordered categorical columns).  They
            are binarized as ``binarizer`` says.  A missing value (NaN,
            None, NaT in dense X; NaN stored in a sparse matrix, whose
            entries not stored are zeros) satisfies none of its column's
            items; infinity is refused.
        Y : array-like, sparse matrix or DataFrame of shape (n_samples, n_labels), or 1-D binary y
            A 0/1 indicator matrix (a list of label lists must go through
            :class:`sklearn.preprocessing.MultiLabelBinarizer` first).
        label_names : sequence of str, optional
            Names of the labels (default: Y's columns, else ``y0``, ``y1``...).
        feature_names : sequence of str, optional
            Names of X's columns when X is an array or a sparse matrix, e.g.
            a loader's ``feature_names`` (default: ``x0``, ``x1``...; a
            DataFrame's columns are its names).

        Returns
        -------
        self
        """
        # The internal validation's fold rows, shared by its candidates (_fold_curves), for this fit only.
        self._fold_rows = {}
        try:
            return self._fit(X, Y, label_names, feature_names)
        finally:
            self.__dict__.pop("_fold_rows", None)

    def _fit(self, X, Y, label_names=None, feature_names=None, item_names=True, held_out=None,
             checked_labels=False):
        """:meth:`fit`; with ``item_names=False`` (the internal validation's fold fits, whose
        models are only scored) the items get no readable names: ``feature_names_`` and the rules
        name them ``item0``, ``item1``..., and a wide binarization skips writing its names.
        ``held_out``: a fold's held-out ``(X, Y)``, whose score stops the selection
        (:class:`_HeldOutPatience`, kept in ``_held_out_patience``; None without ``held_out``).
        Such a fold model is only scored: no default rule, no ``Rule.label_precision``.
        ``checked_labels``: Y is rows of the labels a fit of this estimator's parameters checked
        (a fold's, as a 0/1 CSR array), and the parameters were checked by that fit: neither is
        validated again."""
        from ..sampling import CandidateGenerator
        from ..selection import greedy_selection

        if not checked_labels:
            self._validate_params()
        params = self._check_params()
        if Y is None:
            raise ValueError("CorsetClassifier requires y to be passed, but the target y is None")
        _check_2d(X)
        X = typed_object_columns(X)
        shape = getattr(X, "shape", None)
        if shape is not None and len(shape) == 2 and shape[1] < 1:   # all of X's records, not a fold's below
            raise ValueError(f"Found array with 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is "
                             "required by CorsetClassifier.")
        columns = getattr(X, "columns", None)
        if columns is not None and not checked_labels:
            # Before scikit-learn's check, whose message (from narwhals) names neither X nor the rules.
            check_unique_names([str(c) for c in columns], "X's column names", "column of X")
        validate_data(self, X, skip_check_array=True, reset=True)
        if checked_labels:
            Yb, names, output = Y, None, {"kind": "sparse", "dtype": np.dtype(Y.dtype).str}
            self.classes_ = np.array([0, 1])
        else:
            Yb, names, output = self._validate_y(Y, label_names)
        binarizer, self.binarizer_scores_, self.negations_scores_, curves = self.binarizer, None, None, None
        self.gh_gamma_scores_ = None
        negations = params["negations"]
        if negations == "auto":   # the first guess; numeric X may change it below, by cross-validation
            negations = self._dense_labels(Yb)
        gamma = self._first_gamma()   # "auto": the ladder's first; the folds may climb it below
        choose_gamma = self.gh_gamma == "auto" and params["head_sampler"] == "gh"
        fold_X = fitted = None   # fitted: the chosen cuts' binarizer, fitted on all of X by their choice
        converted = RawFeatures.numeric(X)   # once: the choice of cuts and the binarization both read it
        RawFeatures.check_finite(converted, feature_names)
        number_text = RawFeatures.number_text_columns(X) if item_names else []
        if item_names and params["min_support"] >= 2:   # said once, by the final fit, not by each fold's
            # Numbers as text, all distinct, are said to be numbers, not identifiers.
            said = {name for name, _ in number_text}
            _warn_identifiers([c for c in RawFeatures.identifier_columns(converted, feature_names) if c not in said],
                              Yb.shape[0])
        if item_names:
            _warn_number_text(number_text)
            _warn_row_index(RawFeatures.row_index_columns(X))
        if isinstance(binarizer, str) and binarizer == "auto":
            auto = RawFeatures.auto_candidates(X, AUTO_BINARIZER_PERCENTILES, converted=converted)
            if auto is not None:   # numeric X: the cuts are a choice, made by cross-validation
                binarizer, negations, curves, fitted = self._cross_validated_binarizer(*auto, Yb, negations)
                fold_X = auto[0]
        # Binary X: negations="auto" is a choice made on folds, as with the cuts of numeric X.
        choose_negations = self.negations == "auto" and isinstance(binarizer, str) and curves is None
        if ((self.validated_stop is not False or choose_negations or choose_gamma) and curves is None
                and Yb.shape[0] >= AUTO_BINARIZER_MIN_RECORDS):
            # The folds read X's numbers, converted once (a DataFrame's rows are slow to take), unless
            # a transformer of the user's reads X itself or nominal columns need the DataFrame.
            fold_X = converted[0] if isinstance(binarizer, str) and not converted[2].any() else X
            if choose_negations:
                negations, curves = self._cross_validated_negations(fold_X, binarizer, Yb, negations)
            else:
                curves = self._fold_curves(fold_X, {"given": dict(binarizer=binarizer, negations=negations)},
                                           Yb)["given"]
        if choose_gamma and curves is not None:
            # Raced last, on the folds of the cuts and negated literals chosen.
            gamma, curves = self._cross_validated_gamma(fold_X, dict(binarizer=binarizer, negations=negations),
                                                        curves, Yb)
        self.gh_gamma_ = gamma if params["head_sampler"] == "gh" else None
        params["gh_gamma"] = gamma
        if getattr(self, "_fold_rows", None):
            self._fold_rows.clear()   # the validation is over: its fold rows go before the final selection
        if self.validated_stop is False:
            curves = None
        self.complete_tails_scores_ = None
        complete = self.complete_tails is True and held_out is None   # a fold's model is only scored
        if curves is None:
            self.min_support_validated_, self.n_rules_validated_, self.validation_curve_ = None, None, None
            self.support_scores_ = None
        else:
            grid = _support_grid(params["min_support"])
            (self.min_support_validated_, self.n_rules_validated_, self.validation_curve_,
             self.support_scores_) = _validated_support(curves, grid)
            if isinstance(self.complete_tails, str):
                complete, self.complete_tails_scores_ = _validated_completion(
                    curves, grid.index(self.min_support_validated_), self.n_rules_validated_)
        self.complete_tails_ = bool(complete)
        self.features_ = RawFeatures(binarizer)
        Xb, self.feature_names_ = self.features_.fit_transform(X, feature_names, converted=converted,
                                                                item_names=item_names, fitted=fitted)
        self.n_items_ = Xb.shape[1]
        if Xb.shape[0] != Yb.shape[0]:
            raise ValueError(f"X and Y have different numbers of samples: {Xb.shape[0]} and {Yb.shape[0]}")
        self.label_names_ = names if names is not None else [f"y{k}" for k in range(Yb.shape[1])]
        self.n_labels_ = Yb.shape[1]
        self._output = output
        n = Xb.shape[0]
        counts = np.asarray(Yb.sum(axis=0)).ravel()
        self.label_base_rates_ = (counts + 1.0) / (n + 2.0)

        if self.negations == "auto" and negations and not self._negations_in_budget(Xb):
            negations = False   # binary X with dense labels, but too wide for negated literals
        self.negated_features_ = self._negated_features(Xb, negations, self.features_.paired_columns())
        # Xb and Yb are checked copies of the fit's own: the layer takes them over, no third copy.
        data = BinaryData._checked_with_negations(Xb, Yb, self.negated_features_, name=f"negations={self.negations!r}")
        # From here the selection reads the layer only: X's numbers and, with negated literals,
        # the plain binary X (which the layer does not hold) need not stay through it.
        Xb = converted = auto = fold_X = fitted = None
        rng = check_random_state(self.random_state)
        # Each sampler's options come from the registry entry it was registered with.
        from ..sampling import HEAD_METHODS, TAIL_SPACES

        head_entry, tail_entry = HEAD_METHODS[params["head_sampler"]], TAIL_SPACES[params["tail_space"]]
        head_options = head_entry.estimator_options(params) if head_entry.estimator_options else {}
        tail_options = tail_entry.estimator_options(params) if tail_entry.estimator_options else None
        generator = CandidateGenerator(
            data, n_tails=params["n_tails"], n_heads_per_tail=params["n_heads_per_tail"],
            head_method=params["head_sampler"], min_head_length=params["min_head_length"],
            max_head_length=params["max_head_length"], space=params["tail_space"],
            on_proposal_limit="skip", random_state=rng, head_options=head_options, n_jobs=params["n_jobs"],
            tail_options=tail_options, max_records=params["max_candidate_records"])
        self.n_candidate_records_ = n if generator.records_ is None else int(generator.records_.size)
        callback = None
        bar = None
        if self.verbose:
            from tqdm.auto import tqdm

            bar = tqdm(total=params["n_rules"], desc="selecting rules", unit="rule")
            callback = lambda step: bar.update(1)  # noqa: E731
        # The default rule counts against the budget (BOOMER's habit).
        budget = params["n_rules"] - 1 if self.default_rule and params["n_rules"] > 1 else params["n_rules"]
        f1_patience = self._resolve_f1_patience(params["f1_patience"])
        stopping = None
        if self.n_rules_validated_ is not None and f1_patience is None and not self.second_round:
            # The validated cut is known before the selection: Algorithm 1's first steps are the same
            # whatever comes after them, so the selection stops at the k-th rule it keeps (selection_
            # then ends there).  Not with the F1 stop, which may keep a shorter prefix of a longer run,
            # nor with round 2, whose pool is every round-1 pool.
            budget, stopping = _stop_after_kept(self.n_rules_validated_, self.min_support_validated_,
                                                params["min_support"], budget, stopping)
        if curves is not None and self.n_rules_validated_ is None and not self.second_round:
            horizon = _validated_horizon(curves)
            if horizon is not None and horizon < budget:
                stopping = _ValidatedHorizon(max(1, horizon))
        patience = None
        if held_out is not None and not self.second_round:
            with warnings.catch_warnings():
                # A fold's held-out records may hold categories its training part lacks: said for the
                # records a user predicts, not for each fold.
                warnings.simplefilter("ignore", UnseenCategoryWarning)
                Xh = self.features_.transform(held_out[0])
            held = BinaryData._checked_with_negations(Xh, held_out[1], self.negated_features_,
                                                      name=f"negations={self.negations!r}")
            patience = _HeldOutPatience(held,
                                        self.default_rule, params["n_rules"], VALIDATION_PATIENCE,
                                        VALIDATION_PATIENCE_FACTOR)
            stopping = patience if stopping is None else [stopping, patience]
        try:
            result = greedy_selection(data, generator, n_rules=budget, lam=params["lam"],
                                      quality=params["quality"], tol=self._resolve_tol(params["tol"], data),
                                      second_round=bool(self.second_round), callback=callback,
                                      patience=params["patience"], share_criterion=params["share_criterion"],
                                      min_support=params["min_support"], f1_patience=f1_patience,
                                      stopping_criteria=stopping)
        finally:
            if bar is not None:
                bar.close()
        self.selection_ = result
        self._held_out_patience = patience
        curve = self.validation_curve_
        # The held-out score was still rising where the budget stopped the selection: only the
        # budget kept more rules out.  A validated cut also stops at "budget", but it cuts where
        # the curve is highest, before its end.
        self.budget_limited_ = None if curve is None else bool(
            result.stop_reason == "budget" and _rising_at_end(curve))
        keep = np.arange(len(result.rules))
        if self.min_support_validated_ is not None and self.min_support_validated_ > params["min_support"]:
            # The rare rules the folds scored better without (Rule.n_matched: the records with head and tail).
            from ..selection import rule_statistics

            matched = rule_statistics(data, result.rules).rule_counts if result.rules else np.zeros(0)
            keep = np.flatnonzero(matched >= self.min_support_validated_)
        if self.n_rules_validated_ is not None:
            keep = keep[:self.n_rules_validated_]
        kept = result
        if keep.size < len(result.rules):
            kept = dataclasses.replace(result, rules=[result.rules[i] for i in keep],
                                       **{name: np.asarray(getattr(result, name))[keep]
                                          for name in ("gains", "areas", "shares")})
        first_default = None   # with completion: the default rule's tail, chosen before it
        if complete and kept.rules:
            if self.default_rule and len(kept.rules) < params["n_rules"]:
                first_default = self._default_tail(data, self._label_path(data, kept.rules))
            kept = dataclasses.replace(kept, rules=self._completed(data, kept.rules, first_default or ()))
        # A fold fit's model is only scored (_prefix_curves, which chooses each prefix's default rule
        # itself): its rules need no per-label precision and it gets no default rule.
        scored_only = held_out is not None
        rules = self._make_rules(data, kept, label_precision=not scored_only)
        meanings = None
        if self.prune_redundant:
            literals = [f for rule in rules for f in rule.head + rule.negated]
            meanings = _literal_meanings(self.features_.binarizer_, literals)
        needed = _needed_rules(rules, meanings=meanings) if self.prune_redundant else list(range(len(rules)))
        default = None
        if self.default_rule and len(needed) < params["n_rules"] and not scored_only:
            # From the predictions of every selected rule, which pruning keeps: the same tail and
            # uncovered area as after the rules kept.
            default = self._make_default_rule(data, kept.rules, first_default)
            if default is not None and self.prune_redundant:
                # It fires on every record: a rule predicting only labels it predicts changes no
                # prediction.  What it newly covers is then counted after the rules that stay.
                fewer = [needed[i] for i in _needed_rules([rules[j] for j in needed], default, meanings)]
                if len(fewer) < len(needed):
                    needed = fewer
                    default = dataclasses.replace(default, uncovered_area=self._unpredicted(
                        data, default.tail, self._label_path(data, [kept.rules[j] for j in needed])))
        # A rule keeps its object where pruning left its position (every rule of a fold fit):
        # dataclasses.replace costs more than the rest of a small fit's rule making.
        self.rules_ = [rules[j] if i == j else dataclasses.replace(rules[j], position=i)
                       for i, j in enumerate(needed)]
        if default is not None:
            self.rules_.append(dataclasses.replace(default, position=len(self.rules_)))
        return self

    def _cross_validated_binarizer(self, X, candidates, Yb, negations):
        """``(binarizer, negations, folds, fitted)``: the cuts, and with ``negations="auto"`` the negated literals, by CV.

        ``AUTO_BINARIZER_FOLDS``-fold cross-validation on the training data
        (shuffled folds), each fold fitted with this estimator's parameters
        (a smaller pool, ``VALIDATION_POOL_SHARE``), a candidate
        binarizer and ``negations`` (the first guess).  The first
        candidate (the paper's single cut) is fitted on every fold; each
        other one is raced against the best so far (:meth:`_raced_folds`:
        dropped after the first fold where its mean gain so far is not
        positive) and replaces it only when it survives every fold and
        scores higher beyond noise (:func:`_better_beyond_noise`), the rule
        of the negated literals' choice.  With ``negations="auto"``, the
        winner's other choice of negated literals is then raced on the same
        folds (:meth:`_challenge_negations`).  A candidate whose negated
        literals would pass ``AUTO_NEGATION_MAX_ENTRIES`` is fitted and
        chosen without them.  Below ``AUTO_BINARIZER_MIN_RECORDS`` records
        nothing is validated: the first candidate and the first guess (folds
        None).  Sets ``binarizer_scores_`` and ``negations_scores_``; the
        folds returned are the winner's prefix counts (see
        :meth:`_fold_curves`), which ``validated_stop`` reuses; ``fitted`` is
        the chosen binarizer's clone fitted on all of X, which the final fit
        takes over (its cuts are those a refit would find).
        """
        first = next(iter(candidates))
        # Each candidate fitted once on all of X: a bad value gets the binarizer's own message, and
        # its items' positive rates say whether negated literals fit AUTO_NEGATION_MAX_ENTRIES.
        fitted = {name: clone(c).fit(X) for name, c in candidates.items()}
        if Yb.shape[0] < AUTO_BINARIZER_MIN_RECORDS:
            return candidates[first], negations, None, fitted[first]
        n = X.shape[0]   # the records the rates are shares of
        allowed = {name: self.negations != "auto"
                   or _negation_occurrences(np.rint(b.positive_rate_ * n), n) <= AUTO_NEGATION_MAX_ENTRIES
                   for name, b in fitted.items()}
        params = {name: dict(binarizer=c, negations=negations and allowed[name]) for name, c in candidates.items()}
        best = first
        folds = self._fold_curves(X, {first: params[first]}, Yb)[first]
        self.binarizer_scores_ = {first: _pooled_micro_f1(_every_rule(folds))}
        for name in candidates:
            if name == first:
                continue
            other, wins = self._race(X, params[name], Yb, folds)
            self.binarizer_scores_[name] = _pooled_micro_f1(_every_rule(other))
            if wins:
                best, folds = name, other
        if len(candidates) == 1:   # nothing to choose (every column nominal)
            self.binarizer_scores_ = None
        if not allowed[best]:
            negations = False
        elif self.negations == "auto":
            negations, folds = self._challenge_negations(
                X, negations, dict(binarizer=candidates[best], negations=not negations), folds, Yb)
        return candidates[best], bool(negations), folds, fitted[best]

    def _challenge_negations(self, X, negations, candidate, first, Yb):
        """``(negations, folds)``: the other choice of negated literals (``candidate``, the fold fits'
        parameters) against the first guess, whose folds are ``first``, raced over the folds.

        The other choice is fitted fold by fold and dropped as soon as its
        mean per-fold difference so far is not positive; it replaces the
        first guess only when it survives every fold and scores higher
        beyond noise (:meth:`_race`).  Sets ``negations_scores_``: each
        choice's pooled micro-F1 over the folds it was fitted on.
        """
        other, wins = self._race(X, candidate, Yb, first)
        self.negations_scores_ = {bool(negations): _pooled_micro_f1(_every_rule(first)),
                                  not negations: _pooled_micro_f1(_every_rule(other))}
        return (not negations, other) if wins else (bool(negations), first)

    def _race(self, X, candidate, Yb, incumbent):
        """``(folds, wins)``: the challenger ``candidate``'s raced folds (:meth:`_raced_folds`), and
        whether it replaces ``incumbent``: it survived every fold and scores higher beyond noise
        (:func:`_better_beyond_noise`)."""
        other = self._raced_folds(X, candidate, Yb, incumbent)
        return other, len(other) == len(incumbent) and _better_beyond_noise(_every_rule(other),
                                                                            _every_rule(incumbent))

    def _raced_folds(self, X, candidate, Yb, incumbent):
        """The challenger ``candidate``'s fold curves, fold by fold, up to the first fold after which
        its mean per-fold micro-F1 difference to ``incumbent`` (on the same folds) is not positive,
        or after which no differences on the folds left could make it better beyond noise.

        Racing: a challenger that has not gained on the folds seen so far is
        not fitted on the others (it could replace the incumbent only by a
        mean gain beyond noise).  Nor is one whose gains so far are so spread
        that the test on all folds fails whatever the others score
        (:func:`_can_still_pass`): that stop changes no choice.  With ``n_jobs``, the folds are fitted in
        batches of ``n_jobs`` side by side, and the same prefix is kept (a
        batch may fit a fold past the one that drops the challenger), so the
        choice does not depend on ``n_jobs``.
        """
        n_folds = len(incumbent)
        batch = max(1, min(_resolve_n_jobs(self.n_jobs), n_folds))
        fitted = []
        for seen in range(1, n_folds + 1):
            if len(fitted) < seen:
                fitted += self._fold_curves(X, {"other": candidate}, Yb,
                                            folds=list(range(seen - 1, min(seen - 1 + batch, n_folds))))["other"]
            gains = _fold_micro_f1(_every_rule(fitted[:seen])) - _fold_micro_f1(_every_rule(incumbent[:seen]))
            if gains.mean() <= 0 or not _can_still_pass(gains, n_folds):
                break
        return fitted[:seen]

    def _first_gamma(self):
        """γ of the fold fits and, unless the folds climb ``AUTO_GH_GAMMAS``, of the fit."""
        return AUTO_GH_GAMMAS[0] if isinstance(self.gh_gamma, str) else float(self.gh_gamma)

    def _cross_validated_gamma(self, X, params, first, Yb):
        """``(gamma, folds)`` for ``gh_gamma="auto"``: up the ladder ``AUTO_GH_GAMMAS`` while each next γ
        scores higher on the folds beyond noise.

        ``params``: the fold fits' other choices (cuts, negated literals);
        ``first``: their folds with the first γ.  Each next γ is raced
        against the best so far (:meth:`_race`, the rule of the cuts and the
        negated literals): fitted fold by fold, dropped as soon as its mean
        per-fold difference is not positive, taken only when it survives
        every fold and is better beyond noise; the climb stops at the first
        γ not taken.  Sets ``gh_gamma_scores_``: each γ fitted, its pooled
        micro-F1 over the folds it was fitted on.
        """
        gamma, folds = AUTO_GH_GAMMAS[0], first
        self.gh_gamma_scores_ = {gamma: _pooled_micro_f1(_every_rule(first))}
        for challenger in AUTO_GH_GAMMAS[1:]:
            other, wins = self._race(X, dict(params, gh_gamma=challenger), Yb, folds)
            self.gh_gamma_scores_[challenger] = _pooled_micro_f1(_every_rule(other))
            if not wins:
                break
            gamma, folds = challenger, other
        return gamma, folds

    def _cross_validated_negations(self, X, binarizer, Yb, negations):
        """``(negations, folds)`` for binary X with ``negations="auto"``: the first guess, or the other
        choice when it scores higher on the folds beyond noise.

        The same rule as for the cuts of numeric X (:meth:`_challenge_negations`): both choices
        are fitted on the same ``VALIDATED_STOP_FOLDS`` folds and compared on whole rule lists.  Negated literals that
        would pass ``AUTO_NEGATION_MAX_ENTRIES`` are neither fitted nor chosen.
        """
        if not self._negations_in_budget(X):
            return False, self._fold_curves(X, {"given": dict(binarizer=binarizer, negations=False)}, Yb)["given"]
        first = self._fold_curves(X, {"first": dict(binarizer=binarizer, negations=bool(negations))}, Yb)["first"]
        return self._challenge_negations(X, negations, dict(binarizer=binarizer, negations=not negations), first, Yb)

    def _fold_curves(self, X, candidates, Yb, folds=None):
        """Per candidate, per fold, per least support: the held-out (tp, fp, fn) after each prefix.

        ``candidates`` maps a name to the parameters that differ from this
        estimator's (the binarizer, negations).  ``VALIDATED_STOP_FOLDS``
        shuffled folds; each fold is fitted with this estimator's parameters
        and the candidate's (no pruning, no validation of its own, a smaller
        pool: ``VALIDATION_POOL_SHARE``) and scored
        by :func:`_prefix_curves`, once for each least support of
        :func:`_support_grid` (the first keeps every rule).  The
        folds and the fits' seeds are drawn from a copy of the estimator's
        random state, so the final fit draws what it would draw without the
        validation.  ``folds``: the indices of the folds to fit (default
        all); a fold gets the same split and seed whichever others are fitted.
        """
        import copy

        from sklearn.model_selection import KFold
        from sklearn.utils import _safe_indexing

        rng = check_random_state(self.random_state)
        if self.random_state is None or rng is self.random_state:
            # The global generator or the caller's own: drawn from a copy, so that neither moves (an
            # int seed gives a new generator, whose copy would cost as much again as making it).
            rng = copy.deepcopy(rng)
        seeds = rng.randint(np.iinfo(np.int32).max, size=VALIDATED_STOP_FOLDS + 1)
        n = Yb.shape[0]
        records = np.arange(n)
        if n > VALIDATION_MAX_RECORDS:
            # Large data: the folds split a random subsample (the validation's cost stays bounded).
            records = np.sort(rng.choice(n, VALIDATION_MAX_RECORDS, replace=False))
        splits = [(records[train], records[test]) for train, test in
                  KFold(VALIDATED_STOP_FOLDS, shuffle=True, random_state=int(seeds[0])).split(records)]
        Yb = sp.csr_array(Yb)
        chosen = range(VALIDATED_STOP_FOLDS) if folds is None else folds
        tasks = [(name, candidate, *splits[j], int(seeds[1 + j]), j) for name, candidate in candidates.items()
                 for j in chosen]
        # A least support m on all n records is m · |train| / n on a fold's training records: the
        # same share of the records (a fold's rules are matched by fewer records than the final fit's).
        grid = _support_grid(self.min_support)
        # The fold fits are independent and seeded: with n_jobs, they run side by side in joblib's
        # worker processes, each on one thread, and give the same curves as one after another.
        n_jobs = min(_resolve_n_jobs(self.n_jobs), len(tasks))
        share = int(round(self.n_tails * VALIDATION_POOL_SHARE))
        n_tails = min(self.n_tails, max(VALIDATION_MIN_TAILS, share))   # see VALIDATION_POOL_SHARE
        # γ as the fit's first (a candidate may name another): a fold fit never races γ itself.
        gamma = self._first_gamma()
        # complete_tails="auto" is decided on the folds of the choices made: each keeps its rules.
        completion = isinstance(self.complete_tails, str)
        # Every candidate of a fit is fitted on the same folds of the same X: each fold's rows are
        # taken once (kept by fit() in _fold_rows while the validation runs).
        cache = getattr(self, "_fold_rows", None)

        def fold_rows(j, train, test):
            hit = cache.get(j) if cache is not None else None
            if hit is not None and hit[0] is X and hit[1] == Yb.shape:
                return hit[2]
            taken = _safe_indexing(X, train), Yb[train], _safe_indexing(X, test), Yb[test]
            if cache is not None:
                cache[j] = (X, Yb.shape, taken)
            return taken

        def fold_job(candidate, train, test, seed, j):
            rows = fold_rows(j, train, test)
            scaled = {}
            if isinstance(self.tol, str):
                # τ="auto" counts new label occurrences: 3 on all n records are 3 · |train| / n on a
                # fold's, as with the least support, so that a fold's path runs as far as the final
                # fit's and the validation scores the rules the final fit selects.
                scaled["tol"] = _auto_tol(int(rows[1].sum()), train.size, n)
            estimator = self._inner_estimator(**{"gh_gamma": gamma, **candidate, **scaled}, random_state=seed,
                                              prune_redundant=False, validated_stop=False, n_tails=n_tails,
                                              n_jobs=1 if n_jobs > 1 else self.n_jobs)
            return (estimator, *rows, [m * train.size / n for m in grid], completion)

        jobs = (fold_job(candidate, train, test, seed, j) for _, candidate, train, test, seed, j in tasks)
        bar = None
        if self.verbose:
            # The fold fits are most of a validated fit's time: show them, not only the final selection.
            from tqdm.auto import tqdm

            bar = tqdm(total=len(tasks), desc=_validation_description(candidates), unit="fold", leave=False)
        try:
            if n_jobs > 1:
                from joblib import Parallel, delayed

                results = Parallel(n_jobs=n_jobs)(delayed(_fold_curve)(*job) for job in jobs)
                if bar is not None:
                    bar.update(len(results))
            else:
                results = []
                for job in jobs:
                    results.append(_fold_curve(*job))
                    if bar is not None:
                        bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        curves = {name: [] for name in candidates}
        for (name, *_), counts in zip(tasks, results):
            curves[name].append(counts)
        return curves

    def _inner_estimator(self, **params):
        """A copy of this estimator's parameters (not its fit), silent, with ``params`` changed."""
        return type(self)(**{**self.get_params(deep=False), "verbose": 0, **params})

    @staticmethod
    def _dense_labels(Yb):
        """``negations="auto"``'s first guess: is the training label density at least AUTO_NEGATION_LABEL_DENSITY?"""
        cells = Yb.shape[0] * Yb.shape[1]
        return bool(cells > 0 and Yb.nnz / cells >= AUTO_NEGATION_LABEL_DENSITY)

    @staticmethod
    def _negations_in_budget(Xb):
        """Would the negated literals of binary ``Xb`` occur at most AUTO_NEGATION_MAX_ENTRIES times?"""
        Xb = sp.csr_array(Xb)
        counts = np.bincount(Xb.indices, minlength=Xb.shape[1])
        return _negation_occurrences(counts, Xb.shape[0]) <= AUTO_NEGATION_MAX_ENTRIES

    @staticmethod
    def _negated_features(Xb, negations, paired=()):
        """The features that get a negated literal: none, or every one not constant on the training
        records, but those of ``paired`` (the indicators of a two-valued column, each the other's
        complement: a negated literal would repeat the other value's)."""
        if not negations:
            return np.zeros(0, dtype=np.int64)
        counts = np.bincount(Xb.indices, minlength=Xb.shape[1])
        varying = (counts > 0) & (counts < Xb.shape[0])
        varying[np.asarray(paired, dtype=np.int64)] = False
        return np.flatnonzero(varying).astype(np.int64)

    def _resolve_f1_patience(self, f1_patience):
        """``"auto"``: AUTO_F1_PATIENCE with negated literals, else None (Algorithm 1's stopping)."""
        if isinstance(f1_patience, str):
            return AUTO_F1_PATIENCE if self.negated_features_.size else None
        return f1_patience

    def _split_literals(self, head):
        """Literal ids of the fit's data -> (sorted feature ids, sorted negated feature ids)."""
        p = self.n_items_
        positive = tuple(int(f) for f in head if f < p)
        negated = tuple(sorted(int(self.negated_features_[f - p]) for f in head if f >= p))
        return positive, negated

    @staticmethod
    def _resolve_tol(tol, data):
        """τ as a share of ||L||; "auto" is AUTO_TOL_OCCURRENCES new label occurrences."""
        if isinstance(tol, str):
            return _auto_tol(data.n_label_occurrences)
        return tol

    def _make_rules(self, data, result, label_precision=True):
        """The selected rules as :class:`Rule` objects; ``label_precision=False`` leaves their
        ``label_precision`` empty (a fold fit's model, only scored)."""
        from ..selection import rule_statistics

        if not result.rules:
            return []
        stats = rule_statistics(data, result.rules)
        label_counts = self._head_label_counts(data, result.rules) if label_precision else None
        # Python ints and floats of every column at once (tolist: the values of int() and float() of each entry).
        support, matched = stats.head_counts.tolist(), stats.rule_counts.tolist()
        precision, base_rate, accuracy = stats.precision.tolist(), stats.base_rate.tolist(), stats.accuracy.tolist()
        areas, gains = np.asarray(result.areas).tolist(), np.asarray(result.gains, dtype=np.float64).tolist()
        features, labels = self.feature_names_, self.label_names_
        rules = []
        # A negated literal of a column with missing values also holds where the value is missing:
        # its name in parentheses prints as NOT (x>t), not as the opposite comparison x<=t.
        gaps = self.features_.missing_items() if hasattr(self, "features_") else None
        negated_name = ((lambda f: features[f]) if gaps is None else
                        (lambda f: f"({features[f]})" if gaps[f] else features[f]))
        for i, (literals, tail) in enumerate(result.rules):
            head, negated = self._split_literals(literals)
            rules.append(Rule(
                head=head, tail=tuple(int(k) for k in tail),
                head_names=tuple(features[f] for f in head),
                tail_names=tuple(labels[k] for k in tail),
                negated=negated, negated_names=tuple(negated_name(f) for f in negated),
                support=support[i], n_matched=matched[i],
                precision=precision[i], base_rate=base_rate[i], adjusted_accuracy=accuracy[i],
                uncovered_area=areas[i] if i < len(areas) else 0,
                gain=gains[i] if i < len(gains) else 0.0,
                position=i,
                label_precision=(() if label_counts is None else
                                 tuple(float(c / max(support[i], 1)) for c in label_counts[i])),
            ))
        return rules

    @staticmethod
    def _completed(data, rules, always=()):
        """``rules`` (heads as literal ids of ``data``) with their tails completed on the training
        records (:func:`corset.selection.complete_tails`), ``always`` predicted on every record
        (the default rule's tail)."""
        from ..rules._check import _rules_to_csr
        from ..selection._completion import _complete_indexed

        head_indptr, head_ids = _rules_to_csr(rules)[:2]
        index = data.feature_records
        indptr, ids = _selection.supports(index.indptr, index.ids, data.n_records, head_indptr, head_ids)
        # The layer's own label indexes and the rules' records, read in place: no copy of Y and no
        # (records × labels) matrix, which on a million records would cost more than the fit.
        rows = sp.csc_array((np.ones(len(ids), dtype=bool), np.asarray(ids), np.asarray(indptr)),
                            shape=(data.n_records, len(rules))).tocsr()
        ys, yc = data.record_labels, data.label_records
        tails, _ = _complete_indexed(indptr, ids, rows.indptr, rows.indices, ys.indptr, ys.ids, yc.indptr, yc.ids,
                                    [tuple(tail) for _, tail in rules], always)
        return [(head, tail) for (head, _), tail in zip(rules, tails)]

    @staticmethod
    def _head_label_counts(data, rules):
        """|D[H] ∩ D[{k}]| of each rule for each label k of its tail, in tail order (a tuple per rule).

        One sorted intersection of D[H] with D[{k}] per label of the tail:
        no read of the other labels of D[H]'s records, no copy of Y.
        """
        from .._ext import _intersect

        labels = data.label_records
        out = []
        for head, tail in rules:
            rows = data.head_support(np.asarray(head, dtype=np.int32))
            out.append(tuple(int(_intersect.intersect_count(rows, labels[k])) for k in tail))
        return out

    def _make_default_rule(self, data, selected, tail=None):
        """``IF TRUE THEN T0`` after the ``selected`` rules (heads as literal ids of ``data``), or None.

        T0 comes from :func:`corset.selection.default_tail`, from the rules' per-label counts,
        unless ``tail`` gives it (chosen before the tails were completed; empty: None);
        ``uncovered_area`` counts the occurrences of T0's labels that they leave unpredicted.
        The caller numbers it after the rules it keeps.
        """
        n = data.n_records
        # The rule list's per-label true and predicted pairs on the training records (what
        # default_tail reads from the predicted matrix, without building it).
        path = self._label_path(data, selected)
        label_counts = np.asarray(data.label_counts, dtype=np.int64)
        tail = self._default_tail(data, path) if tail is None else tuple(tail)
        if not tail:
            return None
        counts = label_counts[list(tail)]
        # Occurrences of T0's labels that no selected rule predicted: what it newly covers.
        newly = self._unpredicted(data, tail, path)
        matched = int(data.tail_support(np.asarray(tail, dtype=np.int32)).size)
        return Rule(head=(), tail=tail, head_names=(), tail_names=tuple(self.label_names_[k] for k in tail),
                    support=n, n_matched=matched, precision=matched / n, base_rate=matched / n,
                    adjusted_accuracy=0.0, uncovered_area=newly, gain=0.0, position=len(selected),
                    label_precision=tuple(float(c) / n for c in counts))

    @staticmethod
    def _default_tail(data, path):
        """The default rule's tail after the rules of ``path`` (:meth:`_label_path`): from their
        per-label counts (:func:`corset.selection.default_tail`)."""
        from ..selection._default import default_tail_from_counts

        tail, _ = default_tail_from_counts(np.asarray(data.label_counts, dtype=np.int64), path.label_tp,
                                           path.label_predicted - path.label_tp, data.n_records)
        return tail

    @staticmethod
    def _label_path(data, rules):
        """The :class:`~corset.selection.MicroF1Path` of ``rules`` (heads as literal ids of ``data``)."""
        from ..selection import MicroF1Path

        path = MicroF1Path(data)
        for head, tail in rules:
            path.add(head, tail)
        return path

    @staticmethod
    def _unpredicted(data, tail, path):
        """The occurrences of the labels ``tail`` that the rules of ``path`` (:meth:`_label_path`) leave
        unpredicted on the training records."""
        labels = list(tail)
        return int((np.asarray(data.label_counts, dtype=np.int64)[labels] - path.label_tp[labels]).sum())

    # -- predict ----------------------------------------------------------------
    def _check_X(self, X):
        """Raw X -> the binary items of the rules, as in fit."""
        check_is_fitted(self, "rules_")
        _check_2d(X)
        validate_data(self, X, skip_check_array=True, reset=False)
        return self.features_.transform(typed_object_columns(X, self.features_))

    @staticmethod
    def _literal_heads(Xb, rules, data=None):
        """``(X', heads)``: X with a column "NOT f" per negated feature of ``rules`` (a BinaryData), and
        their heads in it.

        Only the features some rule negates get a column, so the cost is one
        dense column per such feature.  With ``data`` (instead of ``Xb``), a
        BinaryData that has the fit's literals already (its items, then "NOT f"
        for each of its ``negated_features``): X' is ``data`` itself.
        """
        if data is not None:
            column = {f: data.n_base_features + i for i, f in enumerate(data.negated_features.tolist())}
            return data, [tuple(sorted(r.head + tuple(column[f] for f in r.negated))) for r in rules]
        # Xb is _check_X's checked copy, and X' a matrix built here: the layer takes it over
        # without checking and copying it again.
        used = sorted({f for r in rules for f in r.negated})
        if not used:
            return BinaryData._from_checked(Xb, None), [r.head for r in rules]
        column = {f: Xb.shape[1] + i for i, f in enumerate(used)}
        heads = [tuple(sorted(r.head + tuple(column[f] for f in r.negated))) for r in rules]
        return BinaryData._from_checked(with_negated_columns(Xb, np.asarray(used, dtype=np.int64)), None), heads

    @staticmethod
    def _everywhere(n, columns):
        """(rows, cols) of the entries of ``columns`` on each of n rows (rules or labels that always apply)."""
        columns = np.asarray(columns, dtype=np.int64)
        return np.repeat(np.arange(n), columns.size), np.tile(columns, n)

    def _rule_records(self, data):
        """``(indptr, ids)``: per rule of ``rules_``, the records of ``data`` (a BinaryData over the
        fit's literals) it fires on, ascending; a rule with an empty head fires on every record.

        The columns of :meth:`_fired` ``(None, data)``, read from the inverted index.
        """
        from ..rules._check import _rules_to_csr

        _, heads = self._literal_heads(None, self.rules_, data)
        head_indptr, head_ids = _rules_to_csr([(h, r.tail) for h, r in zip(heads, self.rules_)])[:2]
        index = data.feature_records
        return _selection.supports(index.indptr, index.ids, data.n_records, head_indptr, head_ids)

    def _fired(self, Xb, data=None):
        """(n_samples, len(rules_)) CSR: which rules fire; a rule with an empty head fires everywhere.

        With ``data`` (instead of ``Xb``): a BinaryData over the fit's literals, read directly
        (see :meth:`_literal_heads`).
        """
        from ..selection import fired_rules

        n, m = (Xb if data is None else data.X).shape[0], len(self.rules_)
        with_head = [j for j, r in enumerate(self.rules_) if r.n_literals]
        always = [j for j, r in enumerate(self.rules_) if not r.n_literals]
        rows, cols = [], []
        if with_head:
            Xl, heads = self._literal_heads(Xb, [self.rules_[j] for j in with_head], data)
            fired = sp.coo_array(fired_rules([(h, self.rules_[j].tail) for h, j in zip(heads, with_head)], Xl))
            rows.append(fired.row)
            cols.append(np.asarray(with_head, dtype=np.int64)[fired.col])
        if always:
            r, c = self._everywhere(n, always)
            rows.append(r)
            cols.append(c)
        if not rows:
            return sp.csr_array((n, m), dtype=np.uint8)
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        out = sp.csr_array((np.ones(rows.size, dtype=np.uint8), (rows, cols)), shape=(n, m))
        out.sort_indices()
        return out

    def _label_scores(self, Xb):
        """Best smoothed label precision among firing rules, per (record, label); NaN: no rule."""
        fired = self._fired(Xb)
        n = Xb.shape[0]
        best = np.full((n, self.n_labels_), np.nan)
        fired_csc = sp.csc_array(fired)
        for j, rule in enumerate(self.rules_):
            rows = fired_csc.indices[fired_csc.indptr[j]:fired_csc.indptr[j + 1]]
            if rows.size == 0:
                continue
            for k, prec in zip(rule.tail, rule.label_precision):
                score = (prec * rule.support + 1.0) / (rule.support + 2.0)
                column = best[rows, k]
                best[rows, k] = np.where(np.isnan(column) | (column < score), score, column)
        return best

    def predict_proba(self, X):
        """Scores in (0, 1) per label, > 0.5 exactly for the predicted labels (see Notes).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_labels)
            For a 1-D binary y: shape (n_samples, 2), the columns in the
            order of ``classes_``.
        """
        proba = self._positive_proba(X)
        if self._output["kind"] == "binary":
            return np.column_stack([1.0 - proba[:, 0], proba[:, 0]])
        return proba

    def _positive_proba(self, X):
        Xb = self._check_X(X)
        best = self._label_scores(Xb)
        return np.where(np.isnan(best), 0.5 * self.label_base_rates_[None, :], 0.5 + 0.5 * np.nan_to_num(best))

    def decision_function(self, X):
        """The logit of :meth:`predict_proba`: > 0 exactly for the predicted labels."""
        p = self._positive_proba(X)
        d = np.log(p) - np.log1p(-p)
        return d[:, 0] if self._output["kind"] == "binary" else d

    def predict(self, X):
        """The union of the tails of the rules whose head the record contains.

        Returns the same kind as the training Y: a sparse CSR array when Y was
        sparse, a dense array of Y's dtype when it was dense, and values of
        ``classes_`` when y was 1-D.
        """
        Y = self._predict_indicator(X)
        kind = self._output["kind"]
        if kind == "binary":
            return self.classes_[Y.toarray().ravel().astype(np.intp)]
        if kind == "sparse":
            return sp.csr_array(Y.astype(self._output["dtype"]))
        return Y.toarray().astype(self._output["dtype"])

    def _predict_indicator(self, X):
        """``predict``'s labels as a (n_samples, n_labels) CSR array of 0/1 (uint8)."""
        from ..selection import predict_labels

        Xb = self._check_X(X)
        n = Xb.shape[0]
        with_head = [r for r in self.rules_ if r.n_literals]
        if with_head:
            Xl, heads = self._literal_heads(Xb, with_head)
            Y = predict_labels([(h, r.tail) for h, r in zip(heads, with_head)], Xl, self.n_labels_)
        else:
            Y = sp.csr_array((n, self.n_labels_), dtype=np.uint8)
        always = sorted({k for r in self.rules_ if not r.n_literals for k in r.tail})
        if always:  # the default rule fires on every record
            rows, cols = self._everywhere(n, always)
            D = sp.csr_array((np.ones(rows.size, dtype=np.uint8), (rows, cols)), shape=Y.shape)
            Y = sp.csr_array(((Y.astype(np.int32) + D.astype(np.int32)) > 0).astype(np.uint8))
            Y.sort_indices()
        return Y

    def explain(self, X):
        """Per record, the rules that fired and the labels each one predicted.

        Returns
        -------
        list of list of Rule
            ``explain(X)[i]`` lists the rules whose head record i contains, in
            selection order; each rule's ``tail_names`` are the labels it
            predicted.
        """
        Xb = self._check_X(X)
        fired = self._fired(Xb)
        return [[self.rules_[j] for j in fired.indices[fired.indptr[i]:fired.indptr[i + 1]]]
                for i in range(Xb.shape[0])]

    def score(self, X, y, sample_weight=None):
        """Subset accuracy on ``(X, y)``: the share of records whose predicted label set is exactly right.

        scikit-learn's default score of a classifier (for multi-label data,
        every label of a record must be right).  Rule sets are usually
        compared by micro-F1 instead:
        ``sklearn.metrics.f1_score(Y, model.predict(X), average="micro")``,
        or ``scoring="f1_micro"`` in scikit-learn's model selection.
        """
        return super().score(X, y, sample_weight=sample_weight)

    def rule_stats(self, X, Y):
        """How each rule does on given records: support, and precision and recall of its labels.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Raw features, as in :meth:`fit`.
        Y : array-like, sparse matrix or DataFrame of shape (n_samples, n_labels)
            Their 0/1 labels.

        Returns
        -------
        dict of lists, one entry per rule of ``rules_``
            ``rule`` (its text), ``support`` (records where it fires),
            ``precision`` (the share of the (record, label) pairs it predicts
            that are true: ``|fired ∩ D[{k}]|`` summed over its labels k,
            over ``support · |T|``; 0 when it never fires), ``recall`` (the
            share of the occurrences of its labels that it predicts),
            ``label_precision`` and ``label_recall`` (per label of its tail).
            ``pandas.DataFrame(model.rule_stats(X, Y))`` shows it as a table.
        """
        from ._export import head_text

        Xb = self._check_X(X)
        Yb, _, _ = self._validate_y_like(Y)
        if Yb.shape != (Xb.shape[0], self.n_labels_):
            raise ValueError(f"Y must have shape ({Xb.shape[0]}, {self.n_labels_}); got {Yb.shape}")
        fired = sp.csc_array(self._fired(Xb))
        Ycsc = sp.csc_array(Yb)
        label_counts = np.diff(Ycsc.indptr)
        out = {"rule": [], "support": [], "precision": [], "recall": [], "label_precision": [], "label_recall": []}
        for j, rule in enumerate(self.rules_):
            rows = fired.indices[fired.indptr[j]:fired.indptr[j + 1]]
            hits = [int(np.isin(Ycsc.indices[Ycsc.indptr[k]:Ycsc.indptr[k + 1]], rows).sum()) for k in rule.tail]
            n = rows.size
            total = sum(int(label_counts[k]) for k in rule.tail)
            out["rule"].append(f"IF {head_text(rule)} THEN {', '.join(rule.tail_names)}")
            out["support"].append(int(n))
            out["precision"].append(sum(hits) / (n * len(rule.tail)) if n else 0.0)
            out["recall"].append(sum(hits) / total if total else 0.0)
            out["label_precision"].append([h / n if n else 0.0 for h in hits])
            out["label_recall"].append([h / int(label_counts[k]) if label_counts[k] else 0.0
                                        for h, k in zip(hits, rule.tail)])
        return out

    def _label_columns(self, Y):
        """A DataFrame ``Y`` with its columns in the order of ``label_names_`` (matched by name).

        Its columns must name the model's labels, in any order; a model whose labels have no
        names of the user's (``y0``, ``y1``... for labels given as an array) reads Y's columns
        in order.  Anything but a DataFrame is read in order."""
        columns = getattr(Y, "columns", None)
        if columns is None:
            return Y
        names = [str(c) for c in columns]
        expected = list(self.label_names_)
        if names == expected:
            return Y
        if sorted(names) == sorted(expected) and len(set(names)) == len(names):
            return Y[[columns[names.index(name)] for name in expected]]
        if expected == [f"y{k}" for k in range(self.n_labels_)]:
            return Y
        unknown = [n for n in names if n not in expected]
        absent = [n for n in expected if n not in names]
        parts = [f"not labels of the model: {', '.join(repr(n) for n in unknown[:5])}"] if unknown else []
        parts += [f"missing: {', '.join(repr(n) for n in absent[:5])}"] if absent else []
        raise ValueError(f"Y's columns must be the model's labels ({counted(len(expected), 'label')}, matched "
                         f"by name); {'; '.join(parts) or 'a name appears twice'}")

    def _validate_y_like(self, Y):
        """Y of given records as a 0/1 CSR, with the checks of fit (output kind ignored); a DataFrame's
        columns matched to the labels by name (:meth:`_label_columns`)."""
        Y = self._label_columns(Y)
        saved = getattr(self, "classes_", None)
        try:
            return self._validate_y(Y, None)
        finally:
            self.classes_ = saved

    def rules_by_label(self):
        """The rules grouped by the labels they predict: ``{label name: [Rule, ...]}``, labels in order."""
        check_is_fitted(self, "rules_")
        groups = {name: [] for name in self.label_names_}
        for rule in self.rules_:
            for name in rule.tail_names:
                groups[name].append(rule)
        return groups

    # -- showing and exporting ------------------------------------------------------
    def __str__(self):
        if not hasattr(self, "rules_"):
            return self.__repr__()
        header = (f"CorsetClassifier: {counted(len(self.rules_), 'rule')} over "
                  f"{counted(self.n_labels_, 'label')}")
        return header + ("\n" + format_rules(self.rules_) if self.rules_ else "")

    def to_dict(self):
        """A JSON-serialisable dict of the fitted model (rules, names, parameters)."""
        check_is_fitted(self, "rules_")
        d = rules_to_dict(self.rules_, feature_names=self.feature_names_, label_names=self.label_names_,
                          params={k: v for k, v in self.get_params().items()
                                  if isinstance(v, (int, float, str, bool, type(None)))})
        d["label_base_rates"] = [float(v) for v in self.label_base_rates_]
        d["negated_features"] = [int(f) for f in self.negated_features_]
        binarizer = self.features_.binarizer_
        if binarizer is not None and not hasattr(binarizer, "to_dict"):
            raise ValueError(f"to_dict exports the binarization of corset's PercentileBinarizer; this model's "
                             f"binarizer is a {type(binarizer).__name__}: pickle the model instead")
        d["features"] = self.features_.to_dict()
        # scikit-learn keeps a DataFrame's column names only when they are all strings.
        d["feature_names_in"] = hasattr(self, "feature_names_in_")
        d["output"] = dict(self._output)
        if self._output["kind"] == "binary":
            d["output"]["classes"] = self.classes_.tolist()
        return d

    def to_json(self, **kwargs):
        import json

        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, d):
        """A fitted classifier from :meth:`to_dict`'s output; it predicts identically."""
        check_rules_dict(d)
        missing = [key for key in ("rules", "feature_names", "label_names", "label_base_rates") if key not in d]
        if missing:
            raise ValueError(f"saved model: the key {missing[0]!r} is missing")
        known = cls().get_params()
        # Models saved before the CORSET-GH parameters were renamed.
        saved = {_RENAMED.get(k, k): v for k, v in d.get("params", {}).items()}
        params = {k: v for k, v in saved.items() if k in known}
        if saved and "max_candidate_records" not in saved:
            params["max_candidate_records"] = None   # saved before the cap: a refit draws from every record
        model = cls(**params)
        model.rules_ = [Rule.from_dict(r) for r in d["rules"]]
        model.feature_names_ = list(d["feature_names"])
        model.label_names_ = list(d["label_names"])
        if "features" in d:
            model.features_ = RawFeatures.from_dict(d["features"])
        else:   # saved before raw features were accepted: binary X, one item per column
            model.features_ = RawFeatures.from_dict({"input_names": model.feature_names_,
                                                     "nominal": [False] * len(model.feature_names_),
                                                     "frame_categories": [None] * len(model.feature_names_),
                                                     "binarizer": None})
        model.n_features_in_ = len(model.features_.input_names_)
        if d.get("feature_names_in", model.features_.frame_):
            model.feature_names_in_ = np.asarray(model.features_.input_names_, dtype=object)
        model.n_items_ = len(model.feature_names_)
        model.n_labels_ = len(model.label_names_)
        model.label_base_rates_ = np.asarray(d["label_base_rates"], dtype=np.float64)
        model.negated_features_ = np.asarray(d.get("negated_features", []))   # ids checked below
        model._check_loaded(d)
        out = d.get("output", {})
        model._output = {k: v for k, v in out.items() if k != "classes"} or {"kind": "dense", "dtype": "|u1"}
        if model._output["kind"] == "binary":
            model.classes_ = np.asarray(out["classes"])
        else:
            model.classes_ = np.array([0, 1])
        return model

    def _check_loaded(self, d):
        """Refuse a saved model whose parts disagree (a hand-edited or damaged file): every id of a
        rule and every negated feature must be one of its items or labels, one base rate per label,
        the parameters valid.  Prediction indexes columns with these ids in compiled code."""
        from ..binarydata import _negated_ids

        try:
            self._validate_params()
        except InvalidParameterError as exc:
            raise ValueError(f"saved model: {exc}") from None
        n_items, n_labels = self.n_items_, self.n_labels_
        for rule in self.rules_:
            for key, n in (("head", n_items), ("negated", n_items), ("tail", n_labels)):
                ids = getattr(rule, key)
                if any(i < 0 or i >= n for i in ids) or len(set(ids)) != len(ids):
                    raise ValueError(f"saved model: rule {rule.position}'s {key} {list(ids)} must hold distinct ids "
                                     f"in [0, {n}) ({'feature_names' if key != 'tail' else 'label_names'} has {n})")
            if set(rule.head) & set(rule.negated):
                raise ValueError(f"saved model: rule {rule.position} both requires and negates feature(s) "
                                 f"{sorted(set(rule.head) & set(rule.negated))}")
        try:
            self.negated_features_ = _negated_ids(self.negated_features_, n_items)
        except ValueError as exc:
            raise ValueError(f"saved model: {exc}") from None
        rates = self.label_base_rates_
        if rates.shape != (n_labels,) or not np.all((rates >= 0) & (rates <= 1)):
            raise ValueError(f"saved model: label_base_rates must hold one rate in [0, 1] per label ({n_labels}); "
                             f"got {np.asarray(d['label_base_rates']).tolist()}")

    @classmethod
    def from_json(cls, text):
        import json

        return cls.from_dict(json.loads(text))

    def to_frame(self):
        """The rules as a pandas DataFrame, one row per rule."""
        check_is_fitted(self, "rules_")
        return rules_to_frame(self.rules_)

    def __getstate__(self):
        state = super().__getstate__()
        state["_corset_format_version"] = FORMAT_VERSION
        return state

    def __setstate__(self, state):
        version = state.pop("_corset_format_version", None)
        if version != FORMAT_VERSION:
            raise ValueError(f"this pickle holds a CorsetClassifier of format version {version!r}; this "
                             f"version of corset reads version {FORMAT_VERSION}. Refit the model, or "
                             "export it with to_json() in the corset version that made it")
        # Pickled before the cap existed: its fit drew candidates from every record.
        state.setdefault("max_candidate_records", None)
        super().__setstate__(state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        tags.classifier_tags.multi_label = True
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        # A missing value in dense raw X satisfies none of its column's literals.
        tags.input_tags.allow_nan = not (isinstance(self.binarizer, str) and self.binarizer == "passthrough")
        # A few dozen rules on binary features do not reach the accuracy
        # thresholds scikit-learn's common checks set for generic classifiers
        # on their (continuous, binarized) toy data.
        tags.classifier_tags.poor_score = True
        return tags
