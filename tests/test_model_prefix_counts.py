"""The internal validation's held-out counts: ``corset._ext._selection.prefix_pair_counts``.

The per-label true and false positives of every prefix of a rule list,
against a plain Python count of the (record, label) pairs each prefix
predicts (random rule lists with overlapping tails and supports, the whole
list and the subsets the validation's least supports keep), and its
refusals of ids out of range.
"""
import numpy as np
import pytest

from corset._ext import _selection


def _csr(rows, dtype):
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    return indptr, np.array([v for r in rows for v in r], dtype=dtype)


def _reference(fired, tails, truth, kept):
    """Row k: the pairs the first k rules of ``kept`` predict, each once, as true or false positives."""
    n_labels = truth.shape[1]
    tp = np.zeros((len(kept) + 1, n_labels), dtype=np.int64)
    fp = np.zeros_like(tp)
    seen = set()
    for i, j in enumerate(kept):
        tp[i + 1], fp[i + 1] = tp[i], fp[i]
        for k in tails[j]:
            for r in fired[j]:
                if (r, k) not in seen:
                    seen.add((r, k))
                    if truth[r, k]:
                        tp[i + 1, k] += 1
                    else:
                        fp[i + 1, k] += 1
    return tp, fp


@pytest.mark.parametrize("seed", range(8))
def test_prefix_pair_counts_count_each_pair_once_for_its_first_rule(seed):
    rng = np.random.default_rng(seed)
    n_records, n_labels, n_rules = int(rng.integers(1, 40)), int(rng.integers(1, 9)), int(rng.integers(1, 15))
    truth = rng.random((n_records, n_labels)) < 0.3
    fired = [sorted(rng.choice(n_records, size=rng.integers(0, n_records + 1), replace=False).tolist())
             for _ in range(n_rules)]
    tails = [sorted(rng.choice(n_labels, size=rng.integers(1, n_labels + 1), replace=False).tolist())
             for _ in range(n_rules)]
    fired_csr, tails_csr = _csr(fired, np.int32), _csr(tails, np.int32)
    for kept in (list(range(n_rules)), sorted(rng.choice(n_rules, size=rng.integers(0, n_rules + 1),
                                                         replace=False).tolist()), []):
        tp, fp = _selection.prefix_pair_counts(*fired_csr, *tails_csr, truth.view(np.uint8),
                                               np.asarray(kept, dtype=np.int64))
        want_tp, want_fp = _reference(fired, tails, truth, kept)
        np.testing.assert_array_equal(tp, want_tp)
        np.testing.assert_array_equal(fp, want_fp)
        # Every pair predicted by a kept rule is counted once: the last row is the union.
        predicted = np.zeros_like(truth)
        for j in kept:
            predicted[np.ix_(fired[j], tails[j])] = True
        np.testing.assert_array_equal(tp[-1], (predicted & truth).sum(axis=0))
        np.testing.assert_array_equal(fp[-1], (predicted & ~truth).sum(axis=0))


@pytest.mark.parametrize("field, message", [("kept", "kept: a rule out of range"),
                                            ("label", "tail_ids: a label out of range"),
                                            ("record", "fired_ids: a record out of range")])
def test_prefix_pair_counts_refuse_ids_out_of_range(field, message):
    truth = np.zeros((3, 2), dtype=np.uint8)
    fired = _csr([[0, 1], [2]], np.int32)
    tails = _csr([[0], [1]], np.int32)
    kept = np.array([0, 1], dtype=np.int64)
    if field == "kept":
        kept = np.array([0, 2], dtype=np.int64)
    elif field == "label":
        tails = _csr([[0], [2]], np.int32)
    else:
        fired = _csr([[0, 3], [2]], np.int32)
    with pytest.raises(ValueError, match=message):
        _selection.prefix_pair_counts(*fired, *tails, truth, kept)
    with pytest.raises(ValueError, match="one entry per rule"):
        _selection.prefix_pair_counts(fired[0], fired[1], tails[0][:2], tails[1], truth, kept)
