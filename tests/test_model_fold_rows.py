"""The internal validation's fold fits share their folds' rows and trust their checked labels.

A fit takes each fold's rows once for all the candidates it fits there
(``CorsetClassifier._fold_rows``, kept while the validation runs and gone
when the fit ends, also when it fails), with the same model as when each
candidate takes its own; a fold fit given its checked labels
(``checked_labels``) fits the same rules as one that checks them again.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from corset import CorsetClassifier
from corset.datasets import make_rule_data
from corset.model import _classifier


def _data(seed, n_records=240):
    d = make_rule_data(n_records=n_records, n_features=30, n_labels=8, noise=0.02, random_state=seed)
    return d.X, d.Y


@pytest.mark.parametrize("seed", [0, 1])
def test_each_fold_is_taken_once_for_every_candidate(seed, monkeypatch):
    X, Y = _data(seed)
    taken = []
    import sklearn.utils   # _fold_curves imports _safe_indexing from it when it runs

    real = sklearn.utils._safe_indexing

    def counting(X, indices, *args, **kwargs):
        taken.append(len(indices))
        return real(X, indices, *args, **kwargs)

    monkeypatch.setattr(sklearn.utils, "_safe_indexing", counting)
    model = CorsetClassifier(random_state=seed, negations="auto", gh_gamma="auto").fit(X, Y)
    n_candidates = len(model.negations_scores_ or {}) + len(model.gh_gamma_scores_ or {})
    assert n_candidates >= 3   # the first guess, the other negations, a second γ: folds fitted again
    # Train and test rows of each of the folds, once (not once per candidate).
    assert len(taken) == 2 * _classifier.VALIDATED_STOP_FOLDS
    assert sorted(taken) == sorted(taken[:2 * _classifier.VALIDATED_STOP_FOLDS])
    assert not hasattr(model, "_fold_rows")
    # Without the shared rows (each candidate taking its own): the same model.
    monkeypatch.setattr(CorsetClassifier, "fit", lambda self, X, Y: self._fit(X, Y))
    again = CorsetClassifier(random_state=seed, negations="auto", gh_gamma="auto").fit(X, Y)
    assert len(taken) > 4 * _classifier.VALIDATED_STOP_FOLDS
    assert str(again) == str(model)
    assert again.negations_scores_ == model.negations_scores_
    assert again.gh_gamma_scores_ == model.gh_gamma_scores_
    np.testing.assert_array_equal(again.validation_curve_, model.validation_curve_)


def test_the_fold_rows_go_when_a_fit_fails():
    X, Y = _data(0)
    with pytest.raises(ValueError):
        CorsetClassifier(random_state=0).fit(X, np.full(Y.shape, 2))
    model = CorsetClassifier(random_state=0)
    with pytest.raises(ValueError):
        model.fit(X, np.full(Y.shape, 2))
    assert not hasattr(model, "_fold_rows")


@pytest.mark.parametrize("seed", [0, 1])
def test_a_fold_fit_with_checked_labels_fits_the_same_rules(seed):
    X, Y = _data(seed)
    Yb = sp.csr_array(Y)
    train = np.arange(0, 160)
    params = dict(random_state=seed, validated_stop=False, negations=True, gh_gamma=0.5, n_tails=10,
                  prune_redundant=False)
    checked = CorsetClassifier(**params)._fit(X[train], Yb[train], item_names=False, checked_labels=True)
    plain = CorsetClassifier(**params)._fit(X[train], Yb[train], item_names=False)
    assert str(checked) == str(plain)
    assert [r.head for r in checked.rules_] == [r.head for r in plain.rules_]
    np.testing.assert_array_equal(checked.classes_, plain.classes_)
