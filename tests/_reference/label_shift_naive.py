"""Target priors under label shift, computed from their definitions, independently of venncal.

- :func:`prior_mle`: the maximum-likelihood target prior, which the EM of Saerens, Latinne &
  Decaestecker (2002) converges to, found by a general-purpose optimiser: the log-likelihood of
  the target rows under prior ``q`` is ``sum_i log sum_k q_k p_ik / pi_k`` (up to a constant),
  maximised over the simplex through a softmax parametrisation (binary: a bounded scalar
  search).
- :func:`bbse_lipton`: black-box shift estimation as Lipton, Wang & Smola (2018) write it, with
  the *joint* confusion matrix ``C[i, j] = P(yhat = i, y = j)`` counted row by row in a Python
  loop, ``w = C^{-1} mu`` and ``q = w * P(y)``.
"""

import numpy as np
from scipy.optimize import minimize, minimize_scalar


def prior_mle(p, source_prior):
    p = np.asarray(p, dtype=float)
    if p.ndim == 1:
        p = np.column_stack([1 - p, p])
        source_prior = np.array([1 - source_prior, source_prior])
    ratio = p / np.asarray(source_prior, dtype=float)
    if p.shape[1] == 2:

        def neg(q):
            return -np.sum(np.log((1 - q) * ratio[:, 0] + q * ratio[:, 1]))

        q = minimize_scalar(
            neg, bounds=(1e-9, 1 - 1e-9), method="bounded", options={"xatol": 1e-10}
        ).x
        return np.array([1 - q, q])

    def neg(theta):
        z = np.r_[0.0, theta]
        q = np.exp(z - z.max())
        q /= q.sum()
        return -np.sum(np.log(ratio @ q))

    res = minimize(
        neg,
        np.zeros(p.shape[1] - 1),
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000, "maxfev": 40000},
    )
    z = np.r_[0.0, res.x]
    q = np.exp(z - z.max())
    return q / q.sum()


def bbse_lipton(p_target, y_cal, p_cal):
    p_target = np.asarray(p_target, dtype=float)
    p_cal = np.asarray(p_cal, dtype=float)
    if p_target.ndim == 1:
        p_target = np.column_stack([1 - p_target, p_target])
        p_cal = np.column_stack([1 - p_cal, p_cal])
    k = p_target.shape[1]
    joint = np.zeros((k, k))
    for probs, label in zip(p_cal, y_cal):
        predicted = max(range(k), key=lambda j: (probs[j], -j))  # first maximum
        joint[predicted, int(label)] += 1
    joint /= len(y_cal)
    mu = np.zeros(k)
    for probs in p_target:
        mu[max(range(k), key=lambda j: (probs[j], -j))] += 1
    mu /= len(p_target)
    w = np.linalg.solve(joint, mu)
    label_freq = joint.sum(axis=0)
    return w * label_freq


def prior_mle_simplex(p, source_prior):
    """The maximum-likelihood target prior by SLSQP on the simplex itself (bounds [0, 1] and
    ``sum q = 1`` as a constraint), with the log-likelihood's gradient written out; binary
    problems as two-column probabilities."""
    p = np.asarray(p, dtype=float)
    if p.ndim == 1:
        p = np.column_stack([1 - p, p])
        source_prior = np.array([1 - source_prior, source_prior])
    ratio = p / np.asarray(source_prior, dtype=float)
    k = p.shape[1]

    def neg(q):
        total = ratio @ q
        return -np.sum(np.log(np.maximum(total, 1e-300)))

    def neg_grad(q):
        return -(ratio.T @ (1.0 / np.maximum(ratio @ q, 1e-300)))

    res = minimize(
        neg,
        np.full(k, 1.0 / k),
        jac=neg_grad,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * k,
        constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1.0, "jac": lambda q: np.ones(k)}],
        options={"ftol": 1e-16, "maxiter": 2000},
    )
    q = np.clip(res.x, 0.0, None)
    return q / q.sum()


def kkt_gap(p, source_prior, q):
    """How far ``q`` is from the KKT conditions of the maximum likelihood over the simplex:
    the gradient ``g_k = mean_i(r_ik / (r_i . q))`` is at most 1 everywhere and equals 1 where
    ``q_k > 0``; returns ``max(max_k g_k - 1, max over q_k > 1e-6 of |g_k - 1|)``."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    ratio = p / np.asarray(source_prior, dtype=float)
    g = np.mean(ratio / (ratio @ q)[:, None], axis=0)
    return max(g.max() - 1.0, np.abs(g[q > 1e-6] - 1.0).max())
