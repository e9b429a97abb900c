"""Small random data, tails and rules shared by the sampler exactness tests (not a test module)."""
import numpy as np

from corset import BinaryData


def random_data(seed, n_records=30, n_features=7, n_labels=5):
    """Small random binary data whose records differ in density (so weights are skewed)."""
    rng = np.random.RandomState(1000 + seed)
    density = rng.uniform(0.15, 0.8, size=(n_records, 1))
    X = rng.rand(n_records, n_features) < density
    Y = rng.rand(n_records, n_labels) < rng.uniform(0.2, 0.7, size=(n_records, 1))
    return BinaryData(X, Y)


def pick_tail(data, seed):
    """A tail of one or two labels with at least two positive and two negative records."""
    rng = np.random.RandomState(seed)
    candidates = [(l,) for l in range(data.n_labels)]
    candidates += [(a, b) for a in range(data.n_labels) for b in range(a + 1, data.n_labels)]
    rng.shuffle(candidates)
    for tail in candidates:
        if 2 <= data.tail_support(tail).size <= data.n_records - 2:
            return tuple(int(t) for t in tail)
    raise AssertionError("no usable tail")


def random_rules(data, seed, n_rules, max_head_size):
    """Rules built from records, so that they match something; heads of 0 to max_head_size features."""
    rng = np.random.RandomState(2000 + seed)
    rules = []
    for r in rng.choice(data.n_records, n_rules, replace=False):
        feats, labels = data.record_features[r], data.record_labels[r]
        if labels.size == 0:
            continue
        head = tuple(sorted(rng.choice(feats, min(feats.size, rng.randint(0, max_head_size + 1)),
                                       replace=False).tolist()))
        tail = tuple(sorted(rng.choice(labels, min(labels.size, rng.randint(1, 3)), replace=False).tolist()))
        rules.append((head, tail))
    return rules
