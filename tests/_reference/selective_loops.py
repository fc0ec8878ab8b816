"""Risk-coverage curves and AURC straight from their definitions, one loop per threshold,
written independently of venncal."""


def risk_coverage_loops(wrong, confidence, weights=None):
    """(thresholds decreasing, coverage, risk, area) with rows of equal confidence together."""
    n = len(wrong)
    w = [1.0] * n if weights is None else [float(v) for v in weights]
    total = sum(w)
    thresholds = sorted(set(float(c) for c in confidence), reverse=True)
    coverage, risk = [], []
    for t in thresholds:
        acc = [i for i in range(n) if confidence[i] >= t]
        mass = sum(w[i] for i in acc)
        bad = sum(w[i] for i in acc if wrong[i])
        coverage.append(mass / total)
        risk.append(bad / mass if mass > 0 else 0.0)
    area, previous = 0.0, 0.0
    for c, r in zip(coverage, risk):
        area += (c - previous) * r
        previous = c
    return thresholds, coverage, risk, area


def aurc_prefix_mean(wrong_sorted):
    """The AURC of rows already sorted by decreasing confidence, no ties: the mean over i of
    the error among the first i rows."""
    total, errors = 0.0, 0
    for i, e in enumerate(wrong_sorted, start=1):
        errors += bool(e)
        total += errors / i
    return total / len(wrong_sorted)
