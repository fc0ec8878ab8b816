"""The maximum-likelihood target prior under label shift: accelerated EM, then Newton.

With calibrated source posteriors ``p_ik`` and source prior ``pi``, the log-likelihood of the
target rows under the target prior ``q`` is, up to a constant,

    L(q) = sum_i log(r_i . q),    r_ik = p_ik / pi_k,

a concave function of ``q`` on the simplex (Saerens, Latinne & Decaestecker 2002). Their EM
step ``q_k <- q_k mean_i(r_ik / (r_i . q))`` increases ``L`` but converges linearly, at a rate
near 1 when the classes overlap (thousands of steps, stopping far from the maximum). Here:

1. EM accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3): from ``q0``, two EM steps
   give ``r = F(q0) - q0`` and ``v = F(F(q0)) - F(q0) - r``; the extrapolation
   ``q0 - 2 a r + a^2 v`` with ``a = -|r| / |v|`` (at most -1) is followed by one EM step, and
   kept only if it does not lower ``L`` (else ``a`` is halved towards -1, where the cycle is two
   plain EM steps). Classes the extrapolation would make negative keep a thousandth of their
   probability, so the iterate stays inside the simplex.
2. Newton's method on the face of the simplex where the maximum lies (the classes with
   probability above ``tol``, or whose gradient ``mean_i(r_ik / (r_i . q))`` is at least 1;
   the others are set to 0, and so is a class a step takes to 0),
   with the constraint ``sum q = 1`` in its KKT system and a step kept inside the simplex that
   does not lower ``L``. At the maximum every gradient is at most 1 and equals 1 where
   ``q_k > 0`` (the KKT conditions of the concave problem), which the last step checks.

References
----------
M. Saerens, P. Latinne, C. Decaestecker, Neural Computation 14 (2002), eqs. (2.4)-(2.5).
R. Varadhan, C. Roland, "Simple and globally convergent methods for accelerating the
convergence of any EM algorithm", Scandinavian Journal of Statistics 35 (2008), Section 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from venncal._typing import FloatArray

__all__ = ["prior_em"]

# Newton forms the Hessian of the face (n rows x m^2); past this many products it is left out
# and the accelerated EM's own tolerance decides.
_NEWTON_WORK = 2**30


def _mean_ratio(ratio: FloatArray, inverse: FloatArray, n: int) -> FloatArray:
    """``ratio.T @ inverse / n``, the mean over the rows of ``r_ik / (r_i . q)`` per class.

    Each term is at most ``1 / q_k``, which reaches 1e307 for a class whose prior is near the
    smallest normal double: where their sum overflows, the terms are divided by ``n`` first."""
    with np.errstate(over="ignore"):
        out: FloatArray = ratio.T @ inverse
    if np.isfinite(out).all():
        return out / n
    out = ratio.T @ (inverse / n)
    return out


def _row_scaled(ratio: FloatArray) -> FloatArray:
    """The rows of ``ratio`` divided by a power of two, their largest entry in [0.5, 1).

    The likelihood changes by a constant and the EM step, the gradient and the Hessian do not
    (each uses ``r_ik / (r_i . q)``); scaling by a power of two is exact. With rows at most 1,
    ``1 / (r_i . q)`` does not become subnormal when a prior near the smallest normal double
    makes ``r_ik`` near 1e308."""
    _, e = np.frexp(ratio.max(axis=1))
    out: FloatArray = np.ldexp(ratio, -e[:, None])
    return out


def _em_step(ratio: FloatArray, probs: FloatArray, q: FloatArray) -> FloatArray:
    """One EM step; rows whose every likely class has prior 0 keep their posterior."""
    n = probs.shape[0]
    total = ratio @ q
    if (total > 0).all():
        new = q * _mean_ratio(ratio, 1.0 / total, n)
    else:
        ok = total > 0
        new = q * _mean_ratio(ratio[ok], 1.0 / total[ok], n) + probs[~ok].sum(axis=0) / n
    out: FloatArray = new / new.sum()
    return out


def _loglik(ratio: FloatArray, q: FloatArray) -> float:
    total = ratio @ q
    if not (total > 0).all():
        return -np.inf
    return float(np.log(total).sum())


def _squarem(
    ratio: FloatArray, probs: FloatArray, q: FloatArray, max_iter: int, tol: float
) -> tuple[FloatArray, int, bool]:
    """Accelerated EM until an EM step moves no class by more than ``tol``."""
    for it in range(1, max_iter + 1):
        q1 = _em_step(ratio, probs, q)
        r = q1 - q
        if np.max(np.abs(r)) <= tol:
            return q1, it, True
        q2 = _em_step(ratio, probs, q1)
        v = q2 - q1 - r
        new = q2
        norm_v = float(np.sqrt(v @ v))
        if norm_v > 0:
            base = _loglik(ratio, q)
            alpha = min(-float(np.sqrt(r @ r)) / norm_v, -1.0)
            while alpha < -1.01:
                jump = np.maximum(q - 2.0 * alpha * r + alpha * alpha * v, q * 1e-3)
                jump = _em_step(ratio, probs, jump / jump.sum())
                if _loglik(ratio, jump) >= base:
                    new = jump
                    break
                alpha = (alpha - 1.0) / 2.0
        q = new
    return q, max_iter, False


def _newton(ratio: FloatArray, q: FloatArray, tol: float, max_steps: int = 50) -> FloatArray | None:
    """Newton on the face where the maximum lies; the maximiser, or None if it cannot tell."""
    n = ratio.shape[0]
    total = ratio @ q
    if not (total > 0).all():
        return None
    grad = _mean_ratio(ratio, 1.0 / total, n)
    free = (q > tol) | (grad >= 1.0)
    m = int(free.sum())
    if m == 0 or n * m * m > _NEWTON_WORK:
        return None
    x = np.where(free, q, 0.0)  # classes within tol of 0 that the gradient pushes out
    x /= x.sum()

    def loglik(x: FloatArray) -> float:
        t = ratio @ x
        return float(np.log(t).sum()) if (t > 0).all() else -np.inf

    value = loglik(x)
    for _ in range(max_steps):
        idx = np.flatnonzero(free)
        m = idx.size
        face = ratio[:, idx]
        w = 1.0 / (ratio @ x)
        system = np.zeros((m + 1, m + 1))
        system[:m, m] = system[m, :m] = 1.0
        system[:m, :m] = (face * (w * w)[:, None]).T @ face / n
        try:
            step = np.linalg.solve(system, np.r_[face.T @ w / n, 0.0])[:m]
        except np.linalg.LinAlgError:
            return None
        if not np.isfinite(step).all():
            return None
        size, blocking = 1.0, np.zeros(m, dtype=bool)
        down = step < 0
        if down.any():  # stay inside the simplex: the first class to reach 0 stops there
            reach = np.full(m, np.inf)
            reach[down] = -x[idx][down] / step[down]
            if reach.min() < 1.0:
                size = float(reach.min())
                blocking = reach == size
        while size > 1e-12:
            trial_x = x.copy()
            trial_x[idx] += size * step
            trial_x[idx[blocking]] = 0.0
            trial = loglik(trial_x)
            if trial >= value - 1e-12 * abs(value):
                break
            size /= 2.0
            blocking[:] = False
        else:
            return None
        x, value = trial_x, trial
        if blocking.any():  # the class left the face; the KKT check below tells if rightly
            free[idx[blocking]] = False
            continue
        if size == 1.0 and np.max(np.abs(step)) <= tol:
            grad = _mean_ratio(ratio, 1.0 / (ratio @ x), n)
            return x if (grad[~free] <= 1.0 + 1e-9).all() else None
    return None


def prior_em(
    probs: FloatArray,
    source: FloatArray,
    *,
    max_iter: int,
    tol: float,
    start: FloatArray | None = None,
) -> tuple[FloatArray, int, bool]:
    """The maximum-likelihood target prior; returns ``(prior, n_iter, converged)``.

    ``n_iter`` counts the accelerated EM cycles (two EM steps and one stabilising step each);
    ``converged`` is whether Newton's last step on the face of the maximum moved no class by
    more than ``tol`` with the KKT conditions met, or, where Newton cannot be used, whether an
    EM step moved no class by more than ``tol`` within ``max_iter`` cycles.

    Examples
    --------
    >>> p = np.array([[0.9, 0.1], [0.2, 0.8], [0.3, 0.7]])
    >>> q, n_iter, converged = prior_em(p, np.array([0.5, 0.5]), max_iter=100, tol=1e-10)
    >>> converged, q.round(4)
    (True, array([0.4177, 0.5823]))
    """
    ratio = _row_scaled(probs / source)
    q = source.copy() if start is None else start.copy()
    q, n_iter, converged = _squarem(ratio, probs, q, max_iter, tol)
    polished = _newton(ratio, q, tol)
    if polished is not None:
        return polished, n_iter, True
    return q, n_iter, converged
