"""Learn-then-Test abstention straight from its definition, written independently of venncal.

For each threshold ``lam`` of a decreasing grid: the rows with confidence ``>= lam`` are
accepted; ``n`` of them, ``k`` wrong. The p-value of ``H: error > target`` is the binomial
distribution function ``sum_{i <= k} C(n, i) target^i (1 - target)^(n - i)``, summed term by
term. Fixed-sequence testing: skip the thresholds accepting fewer than ``min_accepted`` rows
(all rows, when there are fewer), then walk down the grid while the p-value is at most
``delta``; the answer is the last threshold passed. Integer counts only (unit weights, or
weights as integer repetitions, expanded here into copies).
"""

from math import comb


def binomial_cdf(k, n, q):
    """P(Binomial(n, q) <= k), one term at a time."""
    k, n = int(round(k)), int(round(n))
    if k >= n:
        return 1.0
    return sum(comb(n, i) * q**i * (1.0 - q) ** (n - i) for i in range(k + 1))


def ltt_naive(confidence, wrong, thresholds, *, target, delta, min_accepted, repeats=None):
    """Return (threshold, n_accepted, n_wrong), or (inf, 0, 0) when no threshold passes."""
    conf, bad = [], []
    for i, (c, e) in enumerate(zip(confidence, wrong)):
        copies = 1 if repeats is None else int(repeats[i])
        conf += [float(c)] * copies
        bad += [bool(e)] * copies
    start = min(min_accepted, len(conf))
    best = (float("inf"), 0, 0)
    started = False
    for lam in thresholds:
        n = sum(1 for c in conf if c >= lam)
        k = sum(1 for c, e in zip(conf, bad) if c >= lam and e)
        if not started:
            if n < start:
                continue
            started = True
        if binomial_cdf(k, n, target) > delta:
            break
        best = (float(lam), n, k)
    return best
