"""Temperature scaling from its definition, by a general-purpose optimiser.

``p = softmax(beta z + b)``: the raw weighted negative log-likelihood of the labels is minimised
over ``beta >= 0`` (and the bias ``b`` when asked) by scipy's L-BFGS-B with the exact gradient,
from ``beta = 1``, on the logits as given (no standardisation, nothing shared with venncal).
"""

import numpy as np
from scipy.optimize import minimize


def _softmax(L):
    E = np.exp(L - L.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def temperature_mle(Z, y, w=None, bias=False):
    """(beta, b) maximising the likelihood of ``softmax(beta Z + b)``; ``b`` is zeros without bias."""
    Z = np.asarray(Z, dtype=float)
    n, K = Z.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=float)
    w = w / w.sum()
    Y = np.zeros((n, K))
    Y[np.arange(n), y] = 1.0

    def f(theta):
        beta = theta[0]
        b = theta[1:] if bias else np.zeros(K)
        L = beta * Z + b
        top = L.max(axis=1, keepdims=True)
        lse = top[:, 0] + np.log(np.exp(L - top).sum(axis=1))
        value = float(w @ (lse - (L * Y).sum(axis=1)))
        R = _softmax(L) - Y
        g_beta = float(w @ (R * Z).sum(axis=1))
        grad = np.r_[g_beta, w @ R] if bias else np.array([g_beta])
        return value, grad

    start = np.r_[1.0, np.zeros(K)] if bias else np.array([1.0])
    bounds = [(0.0, None)] + [(None, None)] * (K if bias else 0)
    res = minimize(
        f,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"ftol": 0.0, "gtol": 1e-13, "maxiter": 10_000, "maxcor": 30},
    )
    beta = float(res.x[0])
    b = res.x[1:] if bias else np.zeros(K)
    return beta, b


def predict(beta, b, Z):
    return _softmax(beta * np.asarray(Z, dtype=float) + b)
