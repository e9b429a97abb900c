"""Real image features outside the benchmark folder: scikit-learn's 8x8 digits as a multi-label task.

The 1,797 digit images ship with scikit-learn (64 pixel intensities each, no
download).  Six labels follow from the digit: even, prime, at least 5, with a
closed loop (0, 6, 8, 9), with a straight stroke (1, 4, 7) and curved (0, 2,
3, 5, 6, 8, 9); two thirds of the images, drawn with a fixed seed, train.
Labels the features determine without noise: the case where more precise
heads pay (``gh_gamma="auto"`` climbs to 8 there), which none of the seven
MULAN sets is.

* ``time_fit`` / ``peakmem_fit``: one default fit on the training images;
* ``track_test_micro_f1``, ``track_n_rules``, ``track_gh_gamma``: the test
  micro-F1, the number of rules and the γ the internal validation chose.
"""
import numpy as np

from .common import SEED, WholeFitTiming

LABELS = {"even": (0, 2, 4, 6, 8), "prime": (2, 3, 5, 7), "ge5": (5, 6, 7, 8, 9), "loop": (0, 6, 8, 9),
          "straight": (1, 4, 7), "curved": (0, 2, 3, 5, 6, 8, 9)}


def digit_labels():
    """``(X_train, Y_train, X_test, Y_test)``: the digits split two thirds / one third (seed 0)."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    Y = np.column_stack([np.isin(digits.target, members) for members in LABELS.values()]).astype(np.uint8)
    order = np.random.default_rng(0).permutation(Y.shape[0])
    train, test = order[:2 * Y.shape[0] // 3], order[2 * Y.shape[0] // 3:]
    return digits.data[train], Y[train], digits.data[test], Y[test]


class DigitImages(WholeFitTiming):
    """A default fit on real image features whose labels the digit determines."""

    timeout = 600

    def setup_cache(self):
        from sklearn.metrics import f1_score

        from corset.model import CorsetClassifier

        X, Y, X_test, Y_test = digit_labels()
        model = CorsetClassifier(random_state=SEED).fit(X, Y)
        return {"f1": float(f1_score(Y_test, model.predict(X_test), average="micro", zero_division=0)),
                "n_rules": len(model.rules_), "gh_gamma": float(model.gh_gamma_)}

    def setup(self, cache):
        self.X, self.Y = digit_labels()[:2]

    def time_fit(self, cache):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED).fit(self.X, self.Y)

    def peakmem_fit(self, cache):
        from corset.model import CorsetClassifier

        CorsetClassifier(random_state=SEED).fit(self.X, self.Y)

    def track_test_micro_f1(self, cache):
        return cache["f1"]

    track_test_micro_f1.unit = "micro-F1"

    def track_n_rules(self, cache):
        return cache["n_rules"]

    track_n_rules.unit = "rules"

    def track_gh_gamma(self, cache):
        return cache["gh_gamma"]

    track_gh_gamma.unit = "gamma"
