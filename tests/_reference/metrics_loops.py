"""Plain-loop implementations of the metrics, written from the papers' definitions.

Slow and simple on purpose: they serve as independent references for the vectorised code in
``venncal.metrics``. Unweighted unless stated.
"""

import math


def log_loss(y, p):
    total = 0.0
    for yi, pi in zip(y, p, strict=True):
        if yi == 1:
            if pi == 0:
                return math.inf
            total += -math.log(pi)
        else:
            if pi == 1:
                return math.inf
            total += -math.log(1 - pi)
    return total / len(y)


def brier(y, p, w=None):
    w = [1.0] * len(y) if w is None else w
    return sum(wi * (yi - pi) ** 2 for yi, pi, wi in zip(y, p, w, strict=True)) / sum(w)


def accuracy(y, p, threshold=0.5):
    return sum((pi > threshold) == (yi == 1) for yi, pi in zip(y, p, strict=True)) / len(y)


def roc_auc(y, p):
    """All pairs: a positive above a negative scores 1, a tie 1/2."""
    pos = [pi for yi, pi in zip(y, p, strict=True) if yi == 1]
    neg = [pi for yi, pi in zip(y, p, strict=True) if yi == 0]
    s = 0.0
    for a in pos:
        for b in neg:
            s += 1.0 if a > b else 0.5 if a == b else 0.0
    return s / (len(pos) * len(neg))


def uniform_bin(pi, n_bins):
    """Bin i is [i/n, (i+1)/n), the last bin includes 1."""
    for i in range(n_bins):
        lo, hi = i / n_bins, (i + 1) / n_bins
        if lo <= pi < hi or (i == n_bins - 1 and pi == 1.0):
            return i
    raise AssertionError(pi)


def bins(y, p, n_bins):
    """Per-bin lists of (y, p) for the ten equal-width bins of Naeini et al."""
    out = [[] for _ in range(n_bins)]
    for yi, pi in zip(y, p, strict=True):
        out[uniform_bin(pi, n_bins)].append((yi, pi))
    return out


def bin_means(y, p, n_bins):
    """Per non-empty bin of :func:`bins`: its size n_i, mean label o_i and mean prediction e_i."""
    for members in bins(y, p, n_bins):
        if members:
            nk = len(members)
            yield nk, sum(m[0] for m in members) / nk, sum(m[1] for m in members) / nk


def ece_mce(y, p, n_bins=10):
    """ECE = sum_i P(i)|o_i - e_i|, MCE = max_i |o_i - e_i| over non-empty bins."""
    n = len(y)
    ece, mce = 0.0, 0.0
    for nk, o, e in bin_means(y, p, n_bins):
        ece += nk / n * abs(o - e)
        mce = max(mce, abs(o - e))
    return ece, mce


def murphy(y, p, n_bins=100):
    """Reliability, resolution and uncertainty, eq. (13) of Johansson et al. and Murphy (1973)."""
    n = len(y)
    ybar = sum(y) / n
    rel = res = 0.0
    for nk, phik, rk in bin_means(y, p, n_bins):
        rel += nk * (rk - phik) ** 2
        res += nk * (phik - ybar) ** 2
    return rel / n, res / n, ybar * (1 - ybar)


def murphy_distinct(y, p):
    """Murphy (1973) with one group per distinct forecast value."""
    n = len(y)
    ybar = sum(y) / n
    groups = {}
    for yi, pi in zip(y, p, strict=True):
        groups.setdefault(pi, []).append(yi)
    rel = sum(len(g) * (v - sum(g) / len(g)) ** 2 for v, g in groups.items()) / n
    res = sum(len(g) * (sum(g) / len(g) - ybar) ** 2 for g in groups.values()) / n
    return rel, res, ybar * (1 - ybar)


def isotonic_recalibrated(y, p):
    """PAV fit of y on p: tied predictions pooled first, then adjacent violators merged."""
    distinct = sorted(set(p))
    # each block: [sum of labels, count, distinct values covered]
    blocks = []
    for v in distinct:
        labels = [yi for yi, pi in zip(y, p, strict=True) if pi == v]
        blocks.append([float(sum(labels)), len(labels), [v]])
    changed = True
    while changed:
        changed = False
        for i in range(len(blocks) - 1):
            a, b = blocks[i], blocks[i + 1]
            if a[0] / a[1] > b[0] / b[1]:
                blocks[i] = [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
                del blocks[i + 1]
                changed = True
                break
    fitted = {}
    for total, count, values in blocks:
        for v in values:
            fitted[v] = total / count
    return [fitted[pi] for pi in p]


def brier_curve_value(y, p, c):
    """L(c) = c P(p > c, y = 0) + (1 - c) P(p <= c, y = 1)."""
    n = len(y)
    fp = sum(1 for yi, pi in zip(y, p, strict=True) if pi > c and yi == 0) / n
    fn = sum(1 for yi, pi in zip(y, p, strict=True) if pi <= c and yi == 1) / n
    return c * fp + (1 - c) * fn


def spiegelhalter_z(y, p):
    num = sum((yi - pi) * (1 - 2 * pi) for yi, pi in zip(y, p, strict=True))
    var = sum((1 - 2 * pi) ** 2 * pi * (1 - pi) for pi in p)
    return num / math.sqrt(var)


def debiased_l2(y, p, n_bins=10):
    """Kumar et al. (2019): sum_i P(i) [(o_i - e_i)^2 - o_i (1 - o_i) / (n_i - 1)]."""
    n = len(y)
    total = 0.0
    for nk, o, e in bin_means(y, p, n_bins):
        var = o * (1 - o) / (nk - 1) if nk > 1 else 0.0
        total += nk / n * ((o - e) ** 2 - var)
    return total


def regret(p0, p1, p, y, loss):
    """Vovk & Petej, Section 4: extra loss of p over the probability p_y for label y."""
    if loss == "log":
        if y == 0:
            return -math.log(1 - p) + math.log(1 - p0)
        return -math.log(p) + math.log(p1)
    if y == 0:
        return p**2 - p0**2
    return (1 - p) ** 2 - (1 - p1) ** 2
