"""Linear maps of per-class log-probabilities followed by a softmax, fitted by penalised likelihood.

Matrix scaling maps the per-class log-probabilities ``x`` (shape (K,)) of an object to
``softmax(W x + b)``. The structured versions of Berta, Holzmueller, Jordan & Bach (2026) first
apply temperature scaling with a little smoothing towards the uniform distribution (their
``ts-mix`` preprocessing): one unpenalised inverse temperature ``a`` fitted on the class
log-scores ``t``, then ``x = log((1 - c) softmax(a t) + c / K)`` with ``c = 1 / (n + 1)``, so
that every feature lies in ``[log(c / K), 0]`` however close to zero the model's probabilities
are. They then fit ``W = I + D`` and ``b`` by weighted maximum likelihood with ridge penalties
that pull the map towards the temperature-scaled one:

.. math::

    \\frac{1}{n} \\sum_i w_i \\, \\ell(\\mathrm{softmax}((I + D) x_i + b), y_i)
    + \\frac{\\lambda_b K}{n} \\|b\\|^2 + \\frac{\\lambda_d K}{n} \\|\\mathrm{diag}(D)\\|^2
    + \\frac{\\lambda_o K (K - 1)}{n} \\|\\mathrm{offdiag}(D)\\|^2,

with ``n`` the total weight, ``\\ell`` the log loss and the ``lambda`` equal to 1 by default: a
penalty per parameter that grows with the number of parameters of its group (``K`` intercepts,
``K`` diagonal entries, ``K (K - 1)`` off-diagonal entries) and shrinks as ``1 / n``.

Structures (:data:`STRUCTURES`):

* ``"sms"`` (structured matrix scaling): ``D`` full, all three penalties;
* ``"svs"`` (structured vector scaling): ``D`` diagonal, penalties on ``b`` and ``diag(D)``;
* ``"full"``: ``D`` full, no penalty (close to Guo et al.'s 2017 matrix scaling, which maps the
  logits themselves where this maps temperature-scaled, smoothed log-probabilities);
* ``"vector"``: ``D`` diagonal, no penalty (a scale and a bias per class, close to vector
  scaling).

Class log-scores are floored at ``log_floor``, at least :data:`LOG_FLOOR` (the logarithm of the
smallest normal float32, about -87.3), so that a probability of exactly zero stays finite;
probabilities are read by the rule of :mod:`venncal.core.class_scores` (a floor fitted on the
calibration data). The objectives are convex; they are minimised by Newton's method with a
backtracking line search when the parameters are few (the Hessian is formed exactly) and by
L-BFGS otherwise, both to a gradient of about 1e-10 or the precision of float64.

The same solver fits Dirichlet calibration (Kull et al. 2019, :mod:`venncal.core.dirichlet`),
whose penalty leaves the diagonal free.

References
----------
.. [1] E. Berta, D. Holzmueller, M. I. Jordan and F. Bach, "Structured matrix scaling for
   multi-class calibration", AISTATS 2026 (arXiv:2511.03685).
.. [2] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural
   networks", ICML 2017 (temperature, vector and matrix scaling).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal.core.class_scores import check_log_floor

if TYPE_CHECKING:
    from venncal._typing import FloatArray, IntArray

__all__ = [
    "LOG_FLOOR",
    "STRUCTURES",
    "LinearSoftmaxFit",
    "MatrixScalingMap",
    "fit_linear_softmax",
    "fit_matrix_scaling",
    "fit_temperature",
    "smoothed_log_softmax",
    "penalty_coefficients",
]

#: the lowest log-probability used: log of the smallest normal float32
LOG_FLOOR = float(np.log(np.finfo(np.float32).tiny))
#: the structures of the linear map
STRUCTURES = ("sms", "svs", "full", "vector")
#: inverse temperatures are searched in [e^-16, e^16]
_LOG_TEMPERATURE_BOUND = 16.0
#: Newton's method forms the Hessian up to this many parameters, L-BFGS above
_NEWTON_MAX_PARAMETERS = 600


def smoothed_log_softmax(Z: FloatArray, c: float) -> FloatArray:
    """Row-wise ``log((1 - c) softmax(Z) + c / K)``, the smoothed temperature-scaled features.

    Examples
    --------
    >>> smoothed_log_softmax(np.array([[0.0, -800.0]]), 0.02).round(4)
    array([[-0.0101, -4.6052]])
    """
    K = Z.shape[1]
    P = _softmax(Z)
    if c == 0:
        floored: FloatArray = np.maximum(np.log(np.maximum(P, np.finfo(float).tiny)), LOG_FLOOR)
        return floored
    smoothed: FloatArray = np.log((1.0 - c) * P + c / K)
    return smoothed


def _softmax(Z: FloatArray) -> FloatArray:
    E: FloatArray = np.exp(Z - Z.max(axis=1, keepdims=True))
    P: FloatArray = E / E.sum(axis=1, keepdims=True)
    return P


def _normalised_weights(y: IntArray, w: FloatArray | None) -> tuple[FloatArray, float]:
    n = y.shape[0]
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    total = float(w.sum())
    return w / total, total


def fit_temperature(t: FloatArray, y: IntArray, sample_weight: FloatArray | None = None) -> float:
    """The inverse temperature ``a`` minimising the weighted log loss of ``softmax(a t)``.

    The derivative of the mean log loss in ``a`` (mean over objects of the expected minus the
    observed log-probability) increases with ``a``; its root is found by Brent's method in
    ``[e^-16, e^16]``, and a bound is returned when the root lies beyond it (e.g. ``e^16`` when
    the largest score is always the right class).

    Parameters
    ----------
    t : ndarray of shape (n, K)
        Per-class log-probabilities (or logits).
    y : ndarray of shape (n,)
        Class indices 0..K-1.
    sample_weight : ndarray of shape (n,) or None

    Returns
    -------
    a : float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(20000, 3))
    >>> p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    >>> y = (rng.random((20000, 1)) > p.cumsum(axis=1)).sum(axis=1)
    >>> round(fit_temperature(3.0 * z, y), 2)  # scores three times too sharp
    0.33
    """
    c, _ = _normalised_weights(y, sample_weight)
    rows = np.arange(t.shape[0])
    observed = float(c @ t[rows, y])
    spread = t.max() - t.min()
    if spread == 0:
        return 1.0

    def slope(log_a: float) -> float:
        P = _softmax(np.exp(log_a) * t)
        return float(c @ (P * t).sum(axis=1)) - observed

    lo, hi = -_LOG_TEMPERATURE_BOUND, _LOG_TEMPERATURE_BOUND
    s_lo, s_hi = slope(lo), slope(hi)
    if s_lo >= 0:
        return float(np.exp(lo))
    if s_hi <= 0:
        return float(np.exp(hi))
    from scipy.optimize import brentq  # here: loading and predicting need no optimiser

    return float(np.exp(brentq(slope, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)))


def penalty_coefficients(
    structure: str, K: int, n: float, lambdas: tuple[float, ...]
) -> tuple[float, float, float]:
    """Per-entry ridge coefficients ``(c_b, c_d, c_o)`` of a structure (module docstring).

    Examples
    --------
    >>> penalty_coefficients("sms", 4, 100, (1.0, 1.0, 1.0))
    (0.04, 0.04, 0.12)
    >>> penalty_coefficients("vector", 4, 100, (1.0, 1.0, 1.0))
    (0.0, 0.0, 0.0)
    """
    lam_b, lam_d, lam_o = lambdas
    if structure in ("vector", "full"):
        return 0.0, 0.0, 0.0
    c_o = lam_o * K * (K - 1) / n if structure == "sms" else 0.0
    return lam_b * K / n, lam_d * K / n, c_o


@dataclass(frozen=True)
class LinearSoftmaxFit:
    """``softmax((I + D) x + b)``: the fitted ``D`` (K x K, diagonal when ``diagonal``) and ``b``."""

    delta: FloatArray
    bias: FloatArray
    n_iter: int
    converged: bool


def _unpack(theta: FloatArray, K: int, diagonal: bool) -> tuple[FloatArray, FloatArray]:
    if diagonal:
        return np.diag(theta[:K]), theta[K:]
    return theta[: K * K].reshape(K, K), theta[K * K :]


class _Objective:
    """Weighted mean log loss of ``softmax((I + D) x + b)`` plus ridge penalties."""

    def __init__(
        self,
        X: FloatArray,
        y: IntArray,
        c: FloatArray,
        diagonal: bool,
        coefs: tuple[float, float, float],
    ) -> None:
        self.X, self.y, self.c = X, y, c
        self.n, self.K = X.shape
        self.diagonal = diagonal
        self.c_b, self.c_d, self.c_o = coefs
        self.Y = np.zeros_like(X)
        self.Y[np.arange(self.n), y] = 1.0
        K = self.K
        if diagonal:
            self.pen = np.r_[np.full(K, self.c_d), np.full(K, self.c_b)]
        else:
            D = np.full((K, K), self.c_o)
            np.fill_diagonal(D, self.c_d)
            self.pen = np.r_[D.ravel(), np.full(K, self.c_b)]
        self.dim = self.pen.shape[0]

    def _logits(self, theta: FloatArray) -> FloatArray:
        K = self.K
        if self.diagonal:
            return self.X * (1.0 + theta[:K]) + theta[K:]
        D, b = theta[: K * K].reshape(K, K), theta[K * K :]
        Z: FloatArray = self.X + self.X @ D.T + b
        return Z

    def value_grad(self, theta: FloatArray) -> tuple[float, FloatArray]:
        Z = self._logits(theta)
        top = Z.max(axis=1, keepdims=True)
        E = np.exp(Z - top)
        S = E.sum(axis=1, keepdims=True)
        lse = top[:, 0] + np.log(S[:, 0])
        loss = float(self.c @ (lse - Z[np.arange(self.n), self.y]))
        G = (E / S - self.Y) * self.c[:, None]
        if self.diagonal:
            grad = np.r_[(G * self.X).sum(axis=0), G.sum(axis=0)]
        else:
            grad = np.r_[(G.T @ self.X).ravel(), G.sum(axis=0)]
        loss += float(self.pen @ theta**2)
        return loss, grad + 2.0 * self.pen * theta

    def hessian(self, theta: FloatArray) -> FloatArray:
        K, X, c = self.K, self.X, self.c
        P = _softmax(self._logits(theta))
        if self.diagonal:
            # z_ij = x_ij (1 + v_j) + b_j: the feature of v_j is x_ij, that of b_j is 1
            J = np.concatenate([X, np.ones_like(X)], axis=1)  # (n, 2K)
            cP = c[:, None] * P
            H = np.zeros((2 * K, 2 * K))
            diag = np.arange(K)
            factors: tuple[FloatArray | float, ...] = (X, 1.0)
            for a_, fa in enumerate(factors):
                for b_, fb in enumerate(factors):
                    H[a_ * K + diag, b_ * K + diag] = (cP * fa * fb).sum(axis=0)
            U = np.sqrt(c)[:, None] * np.concatenate([P, P], axis=1) * J
            H -= U.T @ U
        else:
            Xt = np.concatenate([X, np.ones((self.n, 1))], axis=1)  # (n, K + 1)
            m = K + 1
            blocks = np.einsum("ij,ik,il->jkl", c[:, None] * P, Xt, Xt)  # (K, m, m)
            full = np.zeros((K * m, K * m))
            for j in range(K):
                full[j * m : (j + 1) * m, j * m : (j + 1) * m] = blocks[j]
            U = (np.sqrt(c)[:, None, None] * P[:, :, None] * Xt[:, None, :]).reshape(self.n, -1)
            full -= U.T @ U
            # reorder (class j, feature l) -> [D rows (j, l < K) ..., b (j, l = K)]
            order = np.r_[
                (np.arange(K)[:, None] * m + np.arange(K)[None, :]).ravel(),
                np.arange(K) * m + K,
            ]
            H = full[np.ix_(order, order)]
        return H + 2.0 * np.diag(self.pen)


def _newton_step(H: FloatArray, g: FloatArray) -> FloatArray:
    """Solve ``H step = g`` by Cholesky, with a jitter on the diagonal that grows until the
    factorisation succeeds: the unpenalised objectives are flat along ``b + c 1`` (and
    ``D + 1 u^T``), where the gradient is zero, so a tiny jitter leaves the step unchanged
    elsewhere. (A Cholesky solve is also far cheaper than an SVD on a busy machine.)"""
    from scipy.linalg import cho_factor, cho_solve  # here: predicting needs neither

    scale = max(float(np.abs(np.diag(H)).max()), np.finfo(float).tiny)
    jitter = 0.0
    eye = np.eye(H.shape[0])
    while True:
        try:
            step: FloatArray = cho_solve(cho_factor(H + jitter * eye, check_finite=False), g)
            return step
        except np.linalg.LinAlgError:
            jitter = 1e-13 * scale if jitter == 0 else jitter * 100
            if jitter > scale:
                return g


def _newton(
    obj: _Objective, theta: FloatArray, max_iter: int, tol: float
) -> tuple[FloatArray, int, bool]:
    f, g = obj.value_grad(theta)
    for it in range(1, max_iter + 1):
        if np.abs(g).max() <= tol:
            # one more full step: Newton's quadratic convergence takes the gradient from tol
            # to the rounding of float64, so that the answer does not depend on the path
            cand = theta - _newton_step(obj.hessian(theta), g)
            f_new, g_new = obj.value_grad(cand)
            if f_new <= f and np.abs(g_new).max() <= np.abs(g).max():
                return cand, it, True
            return theta, it - 1, True
        step = _newton_step(obj.hessian(theta), g)
        slope = float(g @ step)
        if not slope > 0:
            step, slope = g, float(g @ g)
        alpha = 1.0
        g_max = np.abs(g).max()
        while True:
            cand = theta - alpha * step
            f_new, g_new = obj.value_grad(cand)
            if f_new <= f - 1e-4 * alpha * slope:
                break
            # near the optimum the decrease is below the rounding of f: the gradient decides
            if abs(f_new - f) <= 1e-14 * max(1.0, abs(f)) and np.abs(g_new).max() < g_max:
                break
            if alpha < 1e-10:
                # no further progress in float64
                return theta, it, bool(g_max <= 1e3 * tol)
            alpha *= 0.5
        theta, f, g = cand, f_new, g_new
    return theta, max_iter, bool(np.abs(g).max() <= tol)


def fit_linear_softmax(
    X: FloatArray,
    y: IntArray,
    sample_weight: FloatArray | None = None,
    *,
    diagonal: bool = False,
    coefs: tuple[float, float, float] = (0.0, 0.0, 0.0),
    max_iter: int = 1000,
    tol: float = 1e-10,
) -> LinearSoftmaxFit:
    """Minimise the weighted mean log loss of ``softmax((I + D) X + b)`` plus ridge penalties.

    The penalty is ``c_b ||b||^2 + c_d ||diag(D)||^2 + c_o ||offdiag(D)||^2`` with
    ``coefs = (c_b, c_d, c_o)``; the weights are normalised to sum to one (weight k counts as
    k copies of a row).

    Parameters
    ----------
    X : ndarray of shape (n, K)
    y : ndarray of shape (n,)
        Class indices 0..K-1.
    sample_weight : ndarray of shape (n,) or None
    diagonal : bool, default=False
        Restrict ``D`` to a diagonal matrix.
    coefs : tuple of 3 floats
    max_iter : int, default=1000
    tol : float, default=1e-10
        Largest absolute gradient entry at convergence.

    Returns
    -------
    LinearSoftmaxFit

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = rng.integers(0, 3, size=500)
    >>> fit = fit_linear_softmax(X, y, coefs=(0.1, 0.1, 0.1))
    >>> fit.delta.shape, fit.bias.shape, fit.converged
    ((3, 3), (3,), True)
    """
    c, _ = _normalised_weights(y, sample_weight)
    obj = _Objective(X, y, c, diagonal, coefs)
    theta = np.zeros(obj.dim)
    if obj.dim <= _NEWTON_MAX_PARAMETERS:
        theta, n_iter, converged = _newton(obj, theta, max_iter, tol)
    else:
        from scipy.optimize import minimize  # here: loading and predicting need no optimiser

        res = minimize(
            obj.value_grad,
            theta,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iter, "maxcor": 30, "ftol": 0.0, "gtol": tol, "maxls": 50},
        )
        theta, n_iter = res.x, int(res.nit)
        converged = bool(np.abs(res.jac).max() <= 1e3 * tol)
    D, b = _unpack(theta, X.shape[1], diagonal)
    return LinearSoftmaxFit(D, np.array(b), int(n_iter), bool(converged))


@dataclass(frozen=True)
class MatrixScalingMap:
    """A fitted matrix-scaling map: ``softmax((I + D) x + b)`` with the smoothed
    temperature-scaled features ``x = log((1 - c) softmax(a max(t, floor)) + c / K)``.

    Attributes
    ----------
    structure : str
        One of :data:`STRUCTURES`.
    inverse_temperature : float
        ``a`` of the temperature-scaling step.
    smoothing : float
        ``c``, the weight of the uniform distribution in the features (``1 / (n + 1)``).
    delta : ndarray of shape (K, K)
        ``D`` (diagonal for ``"svs"`` and ``"vector"``).
    bias : ndarray of shape (K,)
    log_floor : float
        The class log-scores are read as ``max(t, log_floor)``: :data:`LOG_FLOOR` for logits,
        the logarithm of the probability floor for probabilities
        (:func:`venncal.core.class_scores.probability_floor`, at least :data:`LOG_FLOOR`).
    """

    structure: str
    inverse_temperature: float
    smoothing: float
    delta: FloatArray
    bias: FloatArray
    log_floor: float = LOG_FLOOR

    def __post_init__(self) -> None:
        check_log_floor(self.log_floor, low=LOG_FLOOR, owner="MatrixScalingMap")
        if self.log_floor == -np.inf:
            raise ValueError("MatrixScalingMap: 'log_floor' must be finite.")

    def features(self, t: FloatArray) -> FloatArray:
        """The smoothed temperature-scaled features ``x`` of class log-scores ``t``."""
        z = self.inverse_temperature * np.maximum(t, self.log_floor)
        return smoothed_log_softmax(z, self.smoothing)

    def predict_proba(self, t: FloatArray) -> FloatArray:
        """Calibrated probabilities (m, K) of class log-scores ``t`` (m, K)."""
        x = self.features(t)
        return _softmax(x + x @ self.delta.T + self.bias)


def fit_matrix_scaling(
    t: FloatArray,
    y: IntArray,
    sample_weight: FloatArray | None = None,
    *,
    structure: str = "sms",
    lambdas: tuple[float, ...] = (1.0, 1.0, 1.0),
    max_iter: int = 1000,
    tol: float = 1e-10,
    log_floor: float = LOG_FLOOR,
) -> tuple[MatrixScalingMap, LinearSoftmaxFit]:
    """Fit temperature scaling, then the penalised linear map of ``structure`` (module docstring).

    Parameters
    ----------
    t : ndarray of shape (n, K)
        Per-class log-probabilities (or logits) of the calibration examples.
    y : ndarray of shape (n,)
        Class indices 0..K-1.
    sample_weight : ndarray of shape (n,) or None
        Non-negative weights; ``n`` in the penalties is their sum.
    structure : {"sms", "svs", "full", "vector"}, default="sms"
    lambdas : tuple of 3 floats, default=(1.0, 1.0, 1.0)
        ``(lambda_intercept, lambda_diagonal, lambda_off_diagonal)``.
    max_iter : int, default=1000
    tol : float, default=1e-10
    log_floor : float, default=LOG_FLOOR
        ``t`` is read as ``max(t, log_floor)`` (kept in the map), at least :data:`LOG_FLOOR`.

    Returns
    -------
    map : MatrixScalingMap
    fit : LinearSoftmaxFit

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = np.log(rng.dirichlet(np.ones(4), size=400))
    >>> y = rng.integers(0, 4, size=400)
    >>> m, fit = fit_matrix_scaling(t, y)
    >>> bool(np.allclose(m.predict_proba(t).sum(axis=1), 1.0)), fit.converged
    (True, True)
    """
    if structure not in STRUCTURES:
        raise ValueError(f"'structure' must be one of {STRUCTURES}; got {structure!r}.")
    check_log_floor(log_floor, low=LOG_FLOOR, owner="fit_matrix_scaling")
    t = np.maximum(t, log_floor)
    _, total = _normalised_weights(y, sample_weight)
    a = fit_temperature(t, y, sample_weight)
    c = 1.0 / (total + 1.0)
    X = smoothed_log_softmax(a * t, c)
    coefs = penalty_coefficients(structure, t.shape[1], total, lambdas)
    if not np.isfinite(coefs).all():
        raise ValueError(
            f"fit_matrix_scaling: the penalties lambda K / n overflow with a total weight n of "
            f"{total:.3g}; scale the weights up (a weight of k counts as k examples)."
        )
    fit = fit_linear_softmax(
        X,
        y,
        sample_weight,
        diagonal=structure in ("svs", "vector"),
        coefs=coefs,
        max_iter=max_iter,
        tol=tol,
    )
    return MatrixScalingMap(structure, float(a), c, fit.delta, fit.bias, float(log_floor)), fit
