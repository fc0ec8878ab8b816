"""Venn-Abers straight from the definition, written independently of venncal.

p_y(t) is the value at t of the isotonic least-squares fit to the calibration pairs plus (t, y),
tied scores pooled, the test object with weight one and every calibration example with its own
weight. The isotonic fit here is the textbook minimum-of-maxima formula over blocks (no PAVA),
so it shares no code or method with the library. All arithmetic is exact (``fractions``: every
float is a dyadic rational), so the reference holds for any weights, from subnormal to 1e308;
each value is rounded to float once, at the end.
"""

from collections import defaultdict
from fractions import Fraction


def isotonic_at(points, target):
    """Isotonic fit value at score ``target`` for weighted points [(score, y, w), ...].

    The exact value (see :func:`isotonic_at_exact`), rounded once to float.
    """
    return float(isotonic_at_exact(points, target))


def isotonic_at_exact(points, target):
    """Exact isotonic fit value (a Fraction) at score ``target`` for points [(score, y, w), ...].

    Uses the max-min formula: f(x_j) = max_{i<=j} min_{l>=j} mean(y over groups i..l).
    Labels and weights are taken exactly (floats, ints or Fractions); groups of zero weight are
    dropped.
    """
    groups = defaultdict(lambda: [Fraction(0), Fraction(0)])
    for s, y, w in points:
        w = Fraction(w)
        groups[s][0] += w * Fraction(y)
        groups[s][1] += w
    xs = sorted(x for x in groups if groups[x][1] > 0)
    j = xs.index(target)
    cs, cw = [Fraction(0)], [Fraction(0)]
    for x in xs:
        cs.append(cs[-1] + groups[x][0])
        cw.append(cw[-1] + groups[x][1])
    best = None
    for i in range(j + 1):
        worst = None
        for ell in range(j, len(xs)):
            mean = (cs[ell + 1] - cs[i]) / (cw[ell + 1] - cw[i])
            worst = mean if worst is None else min(worst, mean)
        best = worst if best is None else max(best, worst)
    return best


def venn_abers_naive(cal_scores, cal_y, test_scores, sample_weight=None):
    """Return lists p0, p1 (floats, each the correctly rounded exact value) by two isotonic fits
    per test score."""
    import numpy as np

    if sample_weight is None:
        sample_weight = [1] * len(cal_scores)
    base = [
        (float(s), Fraction(int(y)), Fraction(float(w)))
        for s, y, w in zip(cal_scores, cal_y, sample_weight)
    ]
    p0, p1 = [], []
    for t in test_scores:
        t = float(t)
        p0.append(float(isotonic_at_exact(base + [(t, Fraction(0), Fraction(1))], t)))
        p1.append(float(isotonic_at_exact(base + [(t, Fraction(1), Fraction(1))], t)))
    return np.array(p0), np.array(p1)
