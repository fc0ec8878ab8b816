"""Venn-Abers straight from the definition, written independently of venncal.

p_y(t) is the value at t of the isotonic least-squares fit to the calibration pairs plus (t, y),
tied scores pooled. The isotonic fit here is the textbook minimum-of-maxima formula over blocks
(no PAVA), so it shares no code or method with the library.
"""

from collections import defaultdict

import numpy as np


def isotonic_at(points, target):
    """Isotonic fit value at score ``target`` for weighted points [(score, y, w), ...].

    Uses the max-min formula: f(x_j) = max_{i<=j} min_{l>=j} mean(y over groups i..l).
    """
    groups = defaultdict(lambda: [0.0, 0.0])
    for s, y, w in points:
        groups[s][0] += w * y
        groups[s][1] += w
    xs = sorted(groups)
    j = xs.index(target)
    sums = np.array([groups[x][0] for x in xs])
    weights = np.array([groups[x][1] for x in xs])
    cs = np.r_[0.0, np.cumsum(sums)]
    cw = np.r_[0.0, np.cumsum(weights)]
    best = -np.inf
    for i in range(j + 1):
        worst = np.inf
        for ell in range(j, len(xs)):
            worst = min(worst, (cs[ell + 1] - cs[i]) / (cw[ell + 1] - cw[i]))
        best = max(best, worst)
    return best


def venn_abers_naive(cal_scores, cal_y, test_scores, sample_weight=None):
    """Return arrays p0, p1 by two isotonic fits per test score."""
    if sample_weight is None:
        sample_weight = np.ones(len(cal_scores))
    base = [(float(s), float(y), float(w)) for s, y, w in zip(cal_scores, cal_y, sample_weight)]
    p0, p1 = [], []
    for t in test_scores:
        t = float(t)
        p0.append(isotonic_at(base + [(t, 0.0, 1.0)], t))
        p1.append(isotonic_at(base + [(t, 1.0, 1.0)], t))
    return np.array(p0), np.array(p1)
