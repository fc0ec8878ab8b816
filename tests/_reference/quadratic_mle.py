"""Quadratic scaling from its definition, by general-purpose optimisers.

``p = sigmoid(b + w1 z + w2 z^2)`` with ``z`` the log-odds of the score. The unconstrained fit
minimises the raw weighted negative log-likelihood in ``(b, w1, w2)`` (scipy's trust-region
method with the exact gradient and Hessian, no standardisation, nothing shared with venncal).
The monotone fit adds the constraints that the derivative ``w1 + 2 w2 z`` is non-negative at the
smallest and the largest calibration log-odds (SLSQP). Separation is decided by a linear
program: is there a quadratic, not zero at every score, that is >= 0 at the positives and <= 0
at the negatives?
"""

import numpy as np
from scipy.optimize import linprog, minimize


def _design(z):
    z = np.asarray(z, dtype=float)
    return np.column_stack([np.ones_like(z), z, z * z])


def _objective(X, y, w):
    def f(theta):
        eta = X @ theta
        return float(np.sum(w * (np.logaddexp(0.0, eta) - y * eta)))

    def grad(theta):
        p = 1.0 / (1.0 + np.exp(-(X @ theta)))
        return X.T @ (w * (p - y))

    def hess(theta):
        p = 1.0 / (1.0 + np.exp(-(X @ theta)))
        return (X * (w * p * (1 - p))[:, None]).T @ X

    return f, grad, hess


def quadratic_mle(z, y, w=None):
    """(b, w1, w2) maximising the likelihood, no constraint."""
    X = _design(z)
    y = np.asarray(y, dtype=float)
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=float)
    f, grad, hess = _objective(X, y, w)
    res = minimize(
        f, np.zeros(3), jac=grad, hess=hess, method="trust-exact", options={"gtol": 1e-11}
    )
    return res.x


def monotone_quadratic_mle(z, y, w=None):
    """(b, w1, w2) maximising the likelihood among maps non-decreasing over [min z, max z]."""
    X = _design(z)
    y = np.asarray(y, dtype=float)
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=float)
    w = w / w.sum()
    f, grad, _ = _objective(X, y, w)
    lo, hi = float(np.min(z)), float(np.max(z))
    cons = [
        {
            "type": "ineq",
            "fun": lambda t, e=e: t[1] + 2 * t[2] * e,
            "jac": lambda t, e=e: np.array([0, 1, 2 * e]),
        }
        for e in (lo, hi)
    ]
    start = quadratic_mle(z, y, w)
    start[2] = 0.0
    start[1] = max(start[1], 0.0)
    res = minimize(
        f,
        start,
        jac=grad,
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    return res.x


def predict(theta, z):
    """The unclipped map at ``z``."""
    return 1.0 / (1.0 + np.exp(-(_design(z) @ theta)))


def quadratic_separable(z, y):
    """Whether some quadratic q (not zero at every score) has q >= 0 at positives, <= 0 at negatives."""
    z = np.asarray(z, dtype=float)
    sign = np.where(np.asarray(y) == 1, 1.0, -1.0)
    X = _design((z - z.mean()) / (z.std() or 1.0))
    A = sign[:, None] * X  # want A d >= 0, sum(A d) > 0
    res = linprog(
        -A.sum(axis=0), A_ub=-A, b_ub=np.zeros(A.shape[0]), bounds=[(-1, 1)] * 3, method="highs"
    )
    return bool(res.status == 0 and -res.fun > 1e-7)
