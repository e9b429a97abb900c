"""The learners compared, by name, and what is measured on each fit.

Each method is a function ``(params, seed) -> estimator`` and a kind of
features (``"binarized"``: the paper's protocol; ``"raw"``: what a user
holds).  The baselines are imported only when used: BOOMER and SeCo come
from the ``bench`` extra (mlrl-boomer, mlrl-seco), BR-SVM is scikit-learn's
one-vs-rest LinearSVC.
"""
import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

PAPER_POOL = {"n_tails": 50, "n_heads_per_tail": 10}
"""500 candidates per greedy step: the paper's pool after tuning."""
TUNING_POOL = {"n_tails": 15, "n_heads_per_tail": 10}
"""150 candidates per greedy step: the paper's pool while tuning."""


@dataclass(frozen=True)
class Method:
    """A learner of the comparison.

    ``make(params, seed)`` returns an unfitted estimator; ``features`` says
    which matrices of a :class:`~corset.experiments._protocol.Split` it reads;
    ``tuned`` names the hyper-parameter space searched on the validation
    split (None: run as it is); ``package`` the distribution it needs.
    """

    name: str
    make: object
    features: str = "binarized"
    tuned: str = None
    package: str = "corset"


def _import_corset():
    """CorsetClassifier, with the modules its fit and predict import on first use imported now.

    The estimator imports its samplers, selection, label space and
    scikit-learn's fold splitter inside ``fit`` (``import corset`` stays
    light).  Each run is a fresh process: imported here, before the clock
    starts, they are not counted in the fit's time, as BOOMER's and SeCo's
    modules are imported when their estimator is made.
    """
    import sklearn.model_selection  # noqa: F401 - the internal validation's KFold

    from .. import labelspace, sampling, selection  # noqa: F401
    from ..model import CorsetClassifier

    return CorsetClassifier


def _corset_paper(head_sampler):
    def make(params, seed):
        CorsetClassifier = _import_corset()

        # One thread per run (runs go side by side in processes), as for every method.
        return CorsetClassifier.paper(head_sampler=head_sampler, random_state=seed,
                                      **{**PAPER_POOL, "n_jobs": 1, **params})
    return make


def _corset_default(params, seed):
    CorsetClassifier = _import_corset()

    # One thread, as every other learner here.
    return CorsetClassifier(random_state=seed, **{"n_jobs": 1, **params})


def _boomer(max_rules, **options):
    def make(params, seed):
        from mlrl.boosting import BoomerClassifier

        # One thread, as every other learner here; BOOMER's seeds start at 1.
        return BoomerClassifier(max_rules=max_rules, parallel_rule_refinement="false",
                                parallel_statistic_update="false", parallel_prediction="false",
                                random_state=seed + 1, **options, **params)
    return make


def _seco(params, seed):
    from mlrl.seco import SeCoClassifier

    return SeCoClassifier(parallel_rule_refinement="false", parallel_statistic_update="false",
                          parallel_prediction="false", random_state=seed + 1, **params)


def _br_svm(params, seed):
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    return OneVsRestClassifier(LinearSVC(random_state=seed, **params))


METHODS = {m.name: m for m in [
    Method("CORSET-SURS", _corset_paper("surs"), tuned="surs"),
    Method("CORSET-GH", _corset_paper("gh"), tuned="gh"),
    Method("corset", _corset_default),
    Method("corset (raw)", _corset_default, features="raw"),
    Method("SeCo", _seco, package="mlrl-seco"),
    Method("BOOMER(10)", _boomer(10), package="mlrl-boomer"),
    Method("BOOMER(100)", _boomer(100), package="mlrl-boomer"),
    Method("BOOMER(1000)", _boomer(1000), package="mlrl-boomer"),
    Method("BOOMER(early stop)", _boomer(1000, global_pruning="pre-pruning"), package="mlrl-boomer"),
    Method("BOOMER(1000, raw)", _boomer(1000), features="numeric", package="mlrl-boomer"),
    Method("BR-SVM", _br_svm, package="scikit-learn"),
]}
"""Every method by name: the paper's CORSET (tuned), corset's defaults, and the baselines."""


def search_space(kind, rng):
    """One random draw of the paper's search: λ log-uniform in 10^-2 .. 10^2, the others uniform in (0, 1).

    ``kind`` "gh" draws λ, γ, ε and the label graph's α; "surs" draws λ and α
    (the label and the feature graph share it, as in the estimator).
    """
    params = {"lam": float(10.0 ** rng.uniform(-2, 2)), "alpha": float(rng.uniform(0.01, 1.0))}
    if kind == "gh":
        params["gh_gamma"] = float(rng.uniform(0.0, 1.0))
        params["gh_epsilon"] = float(rng.uniform(0.0, 1.0))
    return params


def installed_versions():
    """The versions of Python and of every package a method may use (None when not installed)."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in ("corset", "numpy", "scipy", "scikit-learn", "mlrl-boomer", "mlrl-seco"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _dense(Y):
    return Y.toarray() if sp.issparse(Y) else np.asarray(Y)


def scores(Y_true, Y_pred):
    """Micro, macro and sample F1, Hamming loss and subset accuracy (scikit-learn's metrics).

    Macro and sample F1 with ``zero_division=0``: a label absent from the
    test set and never predicted, and a record without labels given none,
    count 0 (``corset evaluate`` counts them 1, as MULAN does).  Kept so that
    re-run rows agree with the stored ones; the report's caption says so.
    """
    from sklearn.metrics import accuracy_score, f1_score, hamming_loss

    Y_pred = _dense(Y_pred).astype(np.uint8)
    return {"micro_f1": float(f1_score(Y_true, Y_pred, average="micro", zero_division=0)),
            "macro_f1": float(f1_score(Y_true, Y_pred, average="macro", zero_division=0)),
            "sample_f1": float(f1_score(Y_true, Y_pred, average="samples", zero_division=0)),
            "hamming_loss": float(hamming_loss(Y_true, Y_pred)),
            "subset_accuracy": float(accuracy_score(Y_true, Y_pred))}


def coverage_overlap(model, X, Y):
    """Average Jaccard overlap of the coverages of pairs of a corset model's rules on (X, Y).

    cov(R) = D[R] × T (eq. coverage), so for two rules
    ``|cov ∩ cov'| = |D[R] ∩ D[R']| · |T ∩ T'|``; the overlap of a pair is
    ``1 − d(R, R')`` (the Jaccard distance of the diversity term).  Rules
    with an empty head (the default rule) are left out; NaN for fewer than
    two rules.
    """
    rules = [r for r in model.rules_ if r.n_literals]
    if len(rules) < 2:
        return float("nan")
    Xb = model.features_.transform(X)
    Xl, heads = model._literal_heads(Xb, rules)
    from ..selection import fired_rules

    fired = sp.csc_array(fired_rules(list(zip(heads, [r.tail for r in rules])), Xl))
    Y = _dense(Y).astype(bool)
    tails = np.zeros((len(rules), Y.shape[1]))
    indptr, ids = [0], []
    for j, r in enumerate(rules):
        tails[j, list(r.tail)] = 1
        rows = fired.indices[fired.indptr[j]:fired.indptr[j + 1]]
        rows = rows[Y[np.ix_(rows, list(r.tail))].all(axis=1)]   # D[R]: the head fires and T is carried
        ids.append(rows)
        indptr.append(indptr[-1] + rows.size)
    ids = np.concatenate(ids)
    S = sp.csc_array((np.ones(ids.size), ids, np.asarray(indptr)), shape=(Y.shape[0], len(rules)))
    shared_records = (S.T @ S).toarray()
    shared_labels = tails @ tails.T
    size = np.diag(shared_records) * np.diag(shared_labels)
    inter = shared_records * shared_labels
    union = size[:, None] + size[None, :] - inter
    iu = np.triu_indices(len(rules), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(union[iu] > 0, inter[iu] / union[iu], 0.0)
    return float(ratio.mean())


def rule_summary(model):
    """(number of rules, mean number of literals per rule) of a fitted model; NaN where it has no rules."""
    rules = getattr(model, "rules_", None)
    if rules is not None:   # corset
        lengths = [r.n_literals for r in rules if r.n_literals]
        return len(rules), (float(np.mean(lengths)) if lengths else float("nan"))
    inner = getattr(model, "model_", None)
    if inner is not None and hasattr(inner, "get_num_rules"):   # mlrl: the default rule included
        return int(inner.get_num_rules()), float("nan")
    return float("nan"), float("nan")


def f1_path(model, X, Y, steps=None):
    """Test micro-F1 against the number of rules: corset along its rule list, BOOMER incrementally.

    Returns a list of ``[n_rules, micro_f1]``.  For corset, the prefix of
    k rules predicts the union of the tails of its rules that fire; for
    mlrl learners, the predictions after each ``step`` rules (their
    incremental predictor).
    """
    from sklearn.metrics import f1_score

    Y = _dense(Y).astype(bool)
    if hasattr(model, "rules_"):
        Xb = model.features_.transform(X)
        fired = sp.csc_array(model._fired(Xb))
        pred = np.zeros_like(Y)
        tp = fp = 0
        positives = int(Y.sum())
        path = []
        for j, rule in enumerate(model.rules_):
            rows = fired.indices[fired.indptr[j]:fired.indptr[j + 1]]
            for k in rule.tail:
                new = rows[~pred[rows, k]]
                pred[new, k] = True
                hits = int(Y[new, k].sum())
                tp += hits
                fp += new.size - hits
            denom = 2 * tp + fp + (positives - tp)
            path.append([j + 1, 2 * tp / denom if denom else 0.0])
        return path
    if hasattr(model, "predict_incrementally"):
        predictor = model.predict_incrementally(X)
        path, n = [], 0
        step = steps or 10
        while predictor.has_next():
            pred = predictor.apply_next(step)
            n += step
            path.append([n, float(f1_score(Y, _dense(pred), average="micro", zero_division=0))])
        return path
    return []


def fit_and_measure(method, split, params, seed, *, overlap=False, path=False):
    """Fit ``method`` on ``split``'s training part and measure it on the test part.

    Returns the row's measures: scores, rules, fit and predict seconds, and
    (on request) the coverage overlap on the training part and the F1 path.
    """
    X_train, X_test = {"binarized": (split.X_train, split.X_test), "raw": (split.X_train_raw, split.X_test_raw),
                       "numeric": (split.X_train_numeric, split.X_test_numeric)}[method.features]
    model = method.make(params, seed)
    start = time.perf_counter()
    model.fit(X_train, split.Y_train)
    fit_s = time.perf_counter() - start
    start = time.perf_counter()
    Y_pred = model.predict(X_test)
    predict_s = time.perf_counter() - start
    n_rules, length = rule_summary(model)
    row = {**scores(split.Y_test, Y_pred), "n_rules": n_rules, "mean_rule_length": length,
           "fit_s": fit_s, "predict_s": predict_s}
    if overlap and hasattr(model, "rules_"):
        row["coverage_overlap"] = coverage_overlap(model, X_train, split.Y_train)
    if path:
        row["path"] = f1_path(model, X_test, split.Y_test)
    return row


def tune(method, split, n_trials, seed=0):
    """Random search of the paper (section exp): the trial with the best validation micro-F1.

    Each trial draws λ and the samplers' parameters (:func:`search_space`),
    fits on the training part without the validation records with the
    tuning pool (150 candidates) and a budget of 150 rules, and is scored at
    its best number of rules: the greedy is sequential and the preset has
    no default rule, so the first k rules of the path are the rule set a
    budget of k gives.  A trial that fails (e.g. a label graph too dense for
    the clique caps at a small α) is counted and skipped.

    Returns
    -------
    params : dict or None
        The best trial's parameters, ``n_rules`` included (None when every trial failed).
    f1 : float
        Its validation micro-F1.
    failed : int
        The number of failed trials.
    """
    X_fit, Y_fit, X_val, Y_val = split.validation()
    rng = np.random.RandomState(seed)
    best, best_f1, failed = None, -math.inf, 0
    for _ in range(n_trials):
        params = search_space(method.tuned, rng)
        try:
            model = method.make({**params, **TUNING_POOL}, seed).fit(X_fit, Y_fit)
        except Exception:   # noqa: BLE001 - a trial's failure is a result of the search, counted
            failed += 1
            continue
        path = f1_path(model, X_val, Y_val)
        if not path:
            continue
        k, f1 = max(path, key=lambda point: (point[1], -point[0]))   # the fewest rules among the best
        if f1 > best_f1:
            best, best_f1 = {**params, "n_rules": int(k)}, f1
    return best, best_f1, failed
