"""Pairwise coupling straight from the papers' formulas, one row at a time with loops.

Written independently of ``venncal.core.coupling``: Price et al. (1995) by its closed form;
Wu, Lin & Weng (2004) method 1 by power iteration of its Markov chain (eq. 8: p <- Q p), and
method 2 by minimising its objective (eq. 9) over the simplex with a generic optimiser.
"""

import numpy as np
from scipy.optimize import minimize


def price_naive(r):
    """p_i = 1 / (sum_{j != i} 1 / r_ij - (K - 2)), normalised; r is one K x K matrix."""
    K = len(r)
    p = []
    for i in range(K):
        total = 0.0
        for j in range(K):
            if j != i:
                total += np.inf if r[i][j] == 0 else 1.0 / r[i][j]
        p.append(0.0 if total == np.inf else 1.0 / (total - (K - 2)))
    s = sum(p)
    return [v / s for v in p]


def wu1_naive(r, iterations=200000, tol=1e-15):
    """Stationary distribution of Q (Q_ii = sum_{s != i} r_is/(K-1), Q_ij = r_ij/(K-1))."""
    K = len(r)
    Q = [[0.0] * K for _ in range(K)]
    for i in range(K):
        for j in range(K):
            if i != j:
                Q[i][j] = r[i][j] / (K - 1)
                Q[i][i] += r[i][j] / (K - 1)
    p = [1.0 / K] * K
    for _ in range(iterations):
        new = [sum(Q[i][j] * p[j] for j in range(K)) for i in range(K)]
        s = sum(new)
        new = [v / s for v in new]
        if max(abs(a - b) for a, b in zip(new, p)) < tol:
            return new
        p = new
    return p


def wu2_objective(p, r):
    K = len(r)
    return sum((r[j][i] * p[i] - r[i][j] * p[j]) ** 2 for i in range(K) for j in range(K) if j != i)


def wu2_naive(r):
    """argmin over the simplex of sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2."""
    K = len(r)
    res = minimize(
        wu2_objective,
        np.full(K, 1.0 / K),
        args=(r,),
        method="SLSQP",
        bounds=[(0.0, 1.0)] * K,
        constraints=[{"type": "eq", "fun": lambda p: sum(p) - 1.0}],
        options={"ftol": 1e-16, "maxiter": 1000},
    )
    return list(res.x)
