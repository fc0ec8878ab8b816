"""ACP straight from its definition, written independently of venncal.

For a test prediction ``p`` with confidence interval ``[l, u]``, the adjusted bin is
``[p - (u - l) / 2, p + (u - l) / 2]`` (the bin "symmetric around p_in", Naeini et al.,
section 5); unadjusted, it is ``[l, u]``. The calibrated value is the weighted fraction of
positives among the calibration examples whose predictions lie in the closed bin; an empty bin
takes the examples at the distinct calibration prediction nearest the bin's centre (the lower on a
tie). A weight of k is k copies of the example, and the pseudo-count ``alpha`` means "alpha
examples".
All arithmetic is exact (``fractions``), so the reference is free of rounding; each value is
rounded to float once, at the end.
"""

from fractions import Fraction


def acp_naive(cal_scores, cal_labels, test_scores, intervals, *, weights=None, alpha=0.0,
              adjustment="symmetric"):  # fmt: skip
    """Return the ACP value of each test score, one plain loop per test score."""
    n = len(cal_scores)
    w = [Fraction(1)] * n if weights is None else [Fraction(float(v)) for v in weights]
    s = [Fraction(float(v)) for v in cal_scores]
    y = [int(v) for v in cal_labels]
    a = Fraction(float(alpha))
    out = []
    for t, (lo, hi) in zip(test_scores, intervals):
        t, lo, hi = Fraction(float(t)), Fraction(float(lo)), Fraction(float(hi))
        if adjustment == "symmetric":
            half = (hi - lo) / 2
            lo, hi = t - half, t + half
        members = [i for i in range(n) if lo <= s[i] <= hi]
        if not members:
            centre = (lo + hi) / 2
            best = min(abs(v - centre) for v in s)
            nearest = min(v for v in s if abs(v - centre) == best)
            members = [i for i in range(n) if s[i] == nearest]
        n_all = sum(w[i] for i in members)
        n_pos = sum(w[i] for i in members if y[i] == 1)
        out.append(float((n_pos + a) / (n_all + 2 * a)) if n_all + 2 * a > 0 else 0.5)
    return out
