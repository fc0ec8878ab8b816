"""The calibration test martingale of ``venncal.core.betting`` from its definition, in loops.

For each alternative ``(bin, a, b)`` and each start time ``j``, the capital of a gambler who
bets from row ``j`` on ``logit q = a + b logit p`` (clipped log-odds) is the product of
``q / p`` (label 1) or ``(1 - q) / (1 - p)`` (label 0) over rows ``j .. t``; the martingale is
the mixture with weights ``1 / K`` over alternatives and ``w_j = g(j-1) - g(j)``,
``g(t) = 1 / log(t + e)``, over start times, plus ``g(t)`` for the starts still to come.
O(n^2 K) with Python floats; for short streams.
"""

import math


def _expit(x):
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def _g(t):
    return 1 / math.log(t + math.e)


def naive_log_martingale(p, y, alternatives, clip=30.0):
    n = len(p)
    k = len(alternatives)
    path = []
    for t in range(1, n + 1):
        total = _g(t)
        for bin_, a, b in alternatives:
            for j in range(1, t + 1):
                capital = 1.0
                for s in range(j, t + 1):
                    ps, ys = float(p[s - 1]), int(y[s - 1])
                    if bin_ >= 0:
                        n_bins = int(max(alt[0] for alt in alternatives)) + 1
                        if min(int(ps * n_bins), n_bins - 1) != int(bin_):
                            continue
                    if ps == 0.0:
                        z = -clip
                    elif ps == 1.0:
                        z = clip
                    else:
                        z = max(-clip, min(clip, math.log(ps) - math.log1p(-ps)))
                    q = _expit(a + b * z)
                    if ys == 1:
                        capital = math.inf if ps == 0 else capital * q / ps
                    else:
                        capital = math.inf if ps == 1 else capital * (1 - q) / (1 - ps)
                total += (_g(j - 1) - _g(j)) * capital / k
        path.append(math.log(total))
    return path
