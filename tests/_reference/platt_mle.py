"""Platt's sigmoid as the minimiser of its objective, found by a general-purpose optimiser.

Independent of ``venncal.core.platt`` (no Newton iterations of Lin, Lin & Weng): the weighted
cross-entropy of Platt's smoothed targets against ``1 / (1 + exp(a s + b))`` is minimised by
scipy's BFGS with an analytic gradient on standardised scores, to a tight tolerance. A weight
of k is k copies of the example, as venncal documents, so Platt's targets
``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)`` use the weight totals of the classes.
"""

import numpy as np
from scipy.optimize import minimize


def platt_mle(scores, y, sample_weight=None):
    """Return a function mapping test scores to P(y = 1) under the fitted sigmoid."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(s) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    n_pos, n_neg = float(np.sum(w * y)), float(np.sum(w * (1 - y)))
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    w = w / w.mean()  # the same minimiser, a well-scaled objective for BFGS
    center = s.mean()
    scale = s.std() if s.std() > 0 else 1.0
    f = (s - center) / scale

    def objective(theta):
        z = theta[0] * f + theta[1]
        # -[t log p + (1 - t) log(1 - p)] with p = 1 / (1 + e^z)
        value = np.sum(w * (np.logaddexp(0.0, z) - (1 - t) * z))
        q = 1.0 / (1.0 + np.exp(-z))  # 1 - p
        g = w * (q - (1 - t))
        return value, np.array([np.sum(g * f), np.sum(g)])

    res = minimize(objective, np.zeros(2), jac=True, method="BFGS", options={"gtol": 1e-12})
    a, b = res.x

    def predict(test_scores):
        z = a * (np.asarray(test_scores, dtype=float) - center) / scale + b
        return 1.0 / (1.0 + np.exp(z))

    return predict
