"""Isotonic regression and Venn-Abers in exact rational arithmetic, for the tests.

Every score, label and weight is turned into a ``fractions.Fraction`` (exact for any float and
any integer), tied scores are pooled, rows of weight zero are dropped, and the pool-adjacent-
violators algorithm runs on rationals, so the answer is the definition itself with no rounding
and no overflow at any magnitude of the weights. Written independently of venncal and of the
max-min reference in ``venn_abers_naive``; only for small problems.

Definitions
-----------
Isotonic fit: the non-decreasing function of the score minimising the weighted squared error,
tied scores pooled into one point (Vovk & Petej 2014, Section 3).

Venn-Abers: ``p_y(t)`` is the isotonic fit at ``t`` to the calibration pairs, weighted as they
are, plus the test object ``(t, y)`` at weight 1 (Vovk & Petej 2014, Algorithm 1 with a fixed
scoring function).
"""

from fractions import Fraction


def exact(v):
    """``v`` as a Fraction with Python integers inside (numpy scalars are converted first)."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, bool):
        v = int(v)
    return Fraction(v)


def _pool(points):
    """Distinct sorted scores with total weight and weighted label sum; zero weights dropped."""
    groups = {}
    for s, y, w in points:
        w = exact(w)
        if w == 0:
            continue
        s = exact(s)
        acc = groups.setdefault(s, [Fraction(0), Fraction(0)])
        acc[0] += w
        acc[1] += w * exact(y)
    xs = sorted(groups)
    return xs, [groups[x][0] for x in xs], [groups[x][1] for x in xs]


def pava(weights, totals):
    """Exact PAVA: fitted value of each ordered point from its weight and weighted label sum."""
    blocks = []  # [weight, total, number of points]
    for w, t in zip(weights, totals, strict=True):
        blocks.append([w, t, 1])
        while len(blocks) > 1 and blocks[-2][1] * blocks[-1][0] >= blocks[-1][1] * blocks[-2][0]:
            w2, t2, c2 = blocks.pop()
            blocks[-1][0] += w2
            blocks[-1][1] += t2
            blocks[-1][2] += c2
    fitted = []
    for w, t, c in blocks:
        fitted.extend([t / w] * c)
    return fitted


def isotonic_fit(scores, y, sample_weight=None):
    """Return the distinct scores (Fractions) and the exact isotonic fit at each of them."""
    if sample_weight is None:
        sample_weight = [1] * len(scores)
    xs, weights, totals = _pool(zip(scores, y, sample_weight, strict=True))
    return xs, pava(weights, totals)


def isotonic_predict(xs, fitted, t, rule="interpolate"):
    """Exact value at test score ``t`` of a fit, by the documented rule of ``IsotonicCalibrator``.

    ``"interpolate"``: linear between the neighbouring calibration scores, constant beyond the
    extremes. ``"nearest"``: the fitted value at the closest calibration score, the smaller
    score on a tie of distances.
    """
    t = exact(t)
    if t <= xs[0]:
        return fitted[0]
    if t >= xs[-1]:
        return fitted[-1]
    hi = next(i for i, x in enumerate(xs) if x >= t)
    if xs[hi] == t:
        return fitted[hi]
    lo = hi - 1
    if rule == "interpolate":
        return fitted[lo] + (fitted[hi] - fitted[lo]) * (t - xs[lo]) / (xs[hi] - xs[lo])
    return fitted[hi] if xs[hi] - t < t - xs[lo] else fitted[lo]


def venn_abers(cal_scores, cal_y, test_scores, sample_weight=None):
    """Return the exact (p0, p1) of each test score, as lists of Fractions."""
    if sample_weight is None:
        sample_weight = [1] * len(cal_scores)
    base = list(zip(cal_scores, cal_y, sample_weight, strict=True))
    p0, p1 = [], []
    for t in test_scores:
        for label, out in ((0, p0), (1, p1)):
            xs, weights, totals = _pool(base + [(t, label, 1)])
            out.append(pava(weights, totals)[xs.index(exact(t))])
    return p0, p1
