"""The scaling-binning calibrator of Kumar, Liang & Ma (2019), written from the paper's steps.

Unit weights and distinct scores only. Walking up the sorted scores, a score joins the first
part whenever that keeps the first part's count at ``round(j * fraction)`` after ``j`` scores;
the first part fits Platt's sigmoid (smoothed targets, the cross-entropy minimised by scipy's
BFGS), the sigmoid's values on the other rows are sorted and cut into ``n_bins`` groups of
equal size, and a score maps to the mean of its group, with the groups' boundaries half-way
between neighbouring values.
"""

import numpy as np
from scipy.optimize import minimize


def platt(s, y):
    """Platt's ``(a, b)`` of ``p = 1 / (1 + exp(a s + b))`` with his smoothed targets."""
    s = np.asarray(s, dtype=float)
    y = np.asarray(y, dtype=float)
    n_pos, n_neg = y.sum(), (1 - y).sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def loss(theta):
        z = theta[0] * s + theta[1]
        # -[t log p + (1 - t) log(1 - p)] with p = 1 / (1 + e^z), log p = -log(1 + e^z)
        return np.sum(t * np.logaddexp(0, z) + (1 - t) * np.logaddexp(0, -z))

    def grad(theta):
        z = theta[0] * s + theta[1]
        p = 1 / (1 + np.exp(z))
        r = t - p  # d loss / d z
        return np.array([np.sum(r * s), np.sum(r)])

    start = np.array([0.0, np.log((n_neg + 1) / (n_pos + 1))])
    res = minimize(loss, start, jac=grad, method="BFGS", options={"gtol": 1e-11, "maxiter": 1000})
    return res.x


def split(s, fraction):
    """Row indices of the two parts (``s`` distinct)."""
    order = np.argsort(s)
    first, second = [], []
    for j, row in enumerate(order, start=1):
        if len(first) < np.floor(j * fraction + 0.5):
            first.append(row)
        else:
            second.append(row)
    return np.array(first), np.array(second)


def scaling_binning(s, y, n_bins, fraction):
    """A function from scores to calibrated probabilities (the second part's size must be a
    multiple of ``n_bins``, and the sigmoid's values on it distinct)."""
    s = np.asarray(s, dtype=float)
    y = np.asarray(y)
    assert np.unique(s).size == s.size
    first, second = split(s, fraction)
    a, b = platt(s[first], y[first])

    def g(x):
        return 1 / (1 + np.exp(a * np.asarray(x, dtype=float) + b))

    values = np.sort(g(s[second]))
    assert values.size % n_bins == 0 and np.unique(values).size == values.size
    groups = np.split(values, n_bins)
    means = np.array([grp.mean() for grp in groups])
    cuts = np.array([(groups[k][-1] + groups[k + 1][0]) / 2 for k in range(n_bins - 1)])

    def predict(x):
        return means[np.searchsorted(cuts, g(x), side="right")]

    return predict
