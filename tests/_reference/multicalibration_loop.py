"""The multicalibration error by literal loops, from the definition (Guy et al. 2025).

Every segment is listed by hand (all rows, then each value of each feature, then each pair
and triple of values of distinct features), its rows sorted by probability, and the ECCE is
the range of the running mean error walked row by row, read after the last row of each run of
tied probabilities. Only for features with few distinct values (no merging or quantile bins).
"""

import itertools
import math


def ecce_and_sigma(y, p, w):
    """ECCE of one segment and its standard deviation under perfect calibration."""
    rows = sorted(range(len(p)), key=lambda i: p[i])
    total = sum(w)
    walk, lo, hi = 0.0, 0.0, 0.0
    for k, i in enumerate(rows):
        walk += w[i] * (y[i] - p[i]) / total
        if k == len(rows) - 1 or p[rows[k + 1]] != p[i]:
            lo, hi = min(lo, walk), max(hi, walk)
    var = sum(w[i] ** 2 * p[i] * (1 - p[i]) for i in rows) / total**2
    return hi - lo, math.sqrt(var)


def segments(columns, max_depth, min_samples):
    """(description, row indices) of every segment; ``columns`` maps name to values."""
    n = len(next(iter(columns.values())))
    levels = []
    for name, values in columns.items():
        seen = []
        for v in values:
            if v not in seen:
                seen.append(v)
        levels.append([(name, v) for v in seen])
    out = []
    for depth in range(max_depth + 1):
        for feats in itertools.combinations(levels, depth):
            for combo in itertools.product(*feats):
                rows = [i for i in range(n) if all(columns[c][i] == v for c, v in combo)]
                if len(rows) >= min_samples:
                    out.append((combo, rows))
    return out


def multicalibration_error(y, p, columns, w=None, max_depth=3, min_samples=10):
    """(mce, mce_sigma, {combo: (ecce, sigma)}) by loops over segments and rows."""
    w = [1.0] * len(y) if w is None else list(w)
    table = {}
    for combo, rows in segments(columns, max_depth, min_samples):
        table[combo] = ecce_and_sigma(
            [y[i] for i in rows], [p[i] for i in rows], [w[i] for i in rows]
        )
    ratios = [e / s if s > 0 else (math.inf if e > 0 else 0.0) for e, s in table.values()]
    worst = max(ratios)
    return worst * table[()][1], worst, table
