"""Plain-loop multiclass metrics, written from their definitions (unweighted unless stated).

Independent of ``venncal.metrics``: every row and bin is visited in Python loops.
"""

import math


def _index(labels, label):
    for k, lab in enumerate(labels):
        if lab == label:
            return k
    raise AssertionError(label)


def log_loss(y, P, labels, w=None):
    w = [1.0] * len(y) if w is None else w
    total = 0.0
    for yi, row, wi in zip(y, P, w, strict=True):
        p = row[_index(labels, yi)]
        total += math.inf if p == 0 else -wi * math.log(p)
    return total / sum(w)


def brier(y, P, labels, w=None):
    w = [1.0] * len(y) if w is None else w
    total = 0.0
    for yi, row, wi in zip(y, P, w, strict=True):
        k_true = _index(labels, yi)
        total += wi * sum((p - (1.0 if k == k_true else 0.0)) ** 2 for k, p in enumerate(row))
    return total / sum(w)


def uniform_bin(p, n_bins):
    """Bin i is [i/n, (i+1)/n), the last bin includes 1."""
    for i in range(n_bins):
        if i / n_bins <= p < (i + 1) / n_bins or (i == n_bins - 1 and p == 1.0):
            return i
    raise AssertionError(p)


def binary_ece(hits, probs, n_bins, w=None):
    """sum over bins of (bin weight / total) * |mean hit - mean prob|, equal-width bins."""
    w = [1.0] * len(hits) if w is None else w
    sums = {}
    for h, p, wi in zip(hits, probs, w, strict=True):
        b = uniform_bin(p, n_bins)
        acc = sums.setdefault(b, [0.0, 0.0, 0.0])
        acc[0] += wi
        acc[1] += wi * h
        acc[2] += wi * p
    total = sum(w)
    return sum(c / total * abs(sh / c - sp / c) for c, sh, sp in sums.values() if c > 0)


def top_label_ece(y, P, labels, n_bins, w=None):
    hits, conf = [], []
    for yi, row in zip(y, P, strict=True):
        best = 0
        for k in range(len(row)):
            if row[k] > row[best]:
                best = k
        hits.append(1.0 if labels[best] == yi else 0.0)
        conf.append(row[best])
    return binary_ece(hits, conf, n_bins, w)


def classwise_ece(y, P, labels, n_bins, w=None):
    K = len(labels)
    total = 0.0
    for k in range(K):
        hits = [1.0 if yi == labels[k] else 0.0 for yi in y]
        total += binary_ece(hits, [row[k] for row in P], n_bins, w)
    return total / K
