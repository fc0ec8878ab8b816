"""Matrix scaling and Dirichlet calibration straight from their objectives, independently of venncal.

Each calibrator is the minimiser of a penalised weighted log loss. Here the objective and its
gradient are written as a loop over the calibration rows (one softmax per row), in the
parametrisation of the papers (the matrix W itself, not its difference from the identity), and
minimised by scipy's BFGS to a gradient of 1e-11; the inverse temperature of the structured
versions is the root of the derivative of the temperature-scaling loss, found by bisection.
"""

import math

import numpy as np
from scipy.optimize import minimize

FLOOR = math.log(float(np.finfo(np.float32).tiny))


def row_smoothed_log_probabilities(z, c):
    """log((1 - c) p + c / K) with p = softmax(z): the temperature-scaled probabilities mixed
    with the uniform distribution."""
    m = max(z)
    e = [math.exp(v - m) for v in z]
    s = sum(e)
    return [math.log((1 - c) * v / s + c / len(z)) for v in e]


def temperature_naive(t, y, w):
    """Inverse temperature: root in [e^-16, e^16] of d/da of the weighted log loss of
    softmax(a t), by bisection on log a (a bound if there is no root)."""

    def slope(u):
        a = math.exp(u)
        total = 0.0
        for i in range(len(y)):
            z = [a * v for v in t[i]]
            m = max(z)
            e = [math.exp(v - m) for v in z]
            s = sum(e)
            total += w[i] * (sum(e[k] / s * t[i][k] for k in range(len(z))) - t[i][y[i]])
        return total / sum(w)

    lo, hi = -16.0, 16.0
    if slope(lo) >= 0:
        return math.exp(lo)
    if slope(hi) <= 0:
        return math.exp(hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if slope(mid) > 0:
            hi = mid
        else:
            lo = mid
    return math.exp(0.5 * (lo + hi))


def _objective(theta, X, y, w, K, mask, penalty, centre):
    """Weighted mean log loss of softmax(W x + b) + sum penalty * (W - centre)^2 + ..., with
    the free entries of [W | b] given by ``mask`` (K x (K + 1), boolean)."""
    Wb = np.zeros((K, K + 1))
    Wb[mask] = theta
    Wb[:, :K] += centre * (~mask[:, :K])  # fixed entries sit at the centre (identity)
    total_w = sum(w)
    value = 0.0
    grad = np.zeros((K, K + 1))
    for i in range(len(y)):
        xt = np.append(X[i], 1.0)
        z = Wb @ xt
        m = z.max()
        e = np.exp(z - m)
        s = e.sum()
        value += w[i] * (m + math.log(s) - z[y[i]]) / total_w
        g = e / s
        g[y[i]] -= 1.0
        grad += w[i] * np.outer(g, xt) / total_w
    diff = Wb.copy()
    diff[:, :K] -= centre
    value += float((penalty * diff**2)[mask].sum())
    grad += 2 * penalty * diff
    return value, grad[mask]


def _fit(X, y, w, K, mask, penalty):
    centre = np.eye(K)
    init = np.hstack([centre, np.zeros((K, 1))])[mask]
    res = minimize(
        _objective,
        init,
        args=(X, y, w, K, mask, penalty, centre),
        jac=True,
        method="BFGS",
        options={"gtol": 1e-11, "maxiter": 100000},
    )
    Wb = np.zeros((K, K + 1))
    Wb[mask] = res.x
    Wb[:, :K] += centre * (~mask[:, :K])
    return Wb


def _predict(Wb, X):
    out = []
    for x in X:
        z = Wb @ np.append(x, 1.0)
        e = np.exp(z - z.max())
        out.append(e / e.sum())
    return np.array(out)


def matrix_scaling_naive(t, y, t_test, structure, lambdas=(1.0, 1.0, 1.0), w=None):
    """Probabilities of the test rows from the definition of each structure.

    The features are the temperature-scaled probabilities mixed with the uniform distribution
    (weight c = 1 / (n + 1)), in logarithms. ``t`` are class log-scores (n, K), ``y`` class
    indices; ``lambdas`` the intercept,
    diagonal and off-diagonal weights, scaled by K / n, K / n and K (K - 1) / n with n the
    total weight.
    """
    t = [[max(float(v), FLOOR) for v in row] for row in t]
    y = [int(v) for v in y]
    K = len(t[0])
    w = [1.0] * len(y) if w is None else [float(v) for v in w]
    n = sum(w)
    a = temperature_naive(t, y, w)
    c = 1 / (n + 1)
    X = np.array([row_smoothed_log_probabilities([a * v for v in row], c) for row in t])
    diagonal = structure in ("svs", "vector")
    mask = np.zeros((K, K + 1), dtype=bool)
    mask[:, K] = True
    if diagonal:
        mask[np.arange(K), np.arange(K)] = True
    else:
        mask[:, :K] = True
    penalty = np.zeros((K, K + 1))
    if structure in ("sms", "svs"):
        lam_b, lam_d, lam_o = lambdas
        penalty[:, K] = lam_b * K / n
        penalty[np.arange(K), np.arange(K)] = lam_d * K / n
        if structure == "sms":
            off = ~np.eye(K, dtype=bool)
            penalty[:, :K][off] = lam_o * K * (K - 1) / n
    Wb = _fit(X, y, w, K, mask, penalty)
    Xt = np.array(
        [
            row_smoothed_log_probabilities([a * max(float(v), FLOOR) for v in row], c)
            for row in t_test
        ]
    )
    return _predict(Wb, Xt)


def dirichlet_naive(t, y, t_test, reg_lambda, reg_mu, w=None):
    """Dirichlet calibration with ODIR: softmax(W ln q + b), penalty
    lambda / (K (K - 1)) * sum of squared off-diagonal W + mu / K * sum of squared b."""
    X = np.maximum(np.asarray(t, dtype=float), FLOOR)
    y = [int(v) for v in y]
    K = X.shape[1]
    w = [1.0] * len(y) if w is None else [float(v) for v in w]
    mask = np.ones((K, K + 1), dtype=bool)
    penalty = np.zeros((K, K + 1))
    penalty[:, K] = reg_mu / K
    off = ~np.eye(K, dtype=bool)
    penalty[:, :K][off] = reg_lambda / (K * (K - 1))
    Wb = _fit(X, y, w, K, mask, penalty)
    return _predict(Wb, np.maximum(np.asarray(t_test, dtype=float), FLOOR))
