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

This module is long because the objective, its exact derivatives, the two minimisers and the
fit by passes over blocks of rows are one piece: the in-memory fit is the one-block case of the
fit that Dask and Spark run, and splitting them would make two copies of the same sums.

References
----------
.. [1] E. Berta, D. Holzmueller, M. I. Jordan and F. Bach, "Structured matrix scaling for
   multi-class calibration", AISTATS 2026 (arXiv:2511.03685).
.. [2] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural
   networks", ICML 2017 (temperature, vector and matrix scaling).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from venncal.core.class_scores import check_log_floor

_Sum = TypeVar("_Sum", float, "np.ndarray[Any, np.dtype[np.float64]]")
_T = TypeVar("_T")

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import FloatArray, IntArray

    #: A block of rows: class log-scores (m, K), class indices (m,), non-negative weights (m,).
    Block = tuple[FloatArray, IntArray, FloatArray]
    #: ``run(func, *args)``: ``[func(block, *args) for block in blocks]``.
    Run = Callable[..., list[Any]]

__all__ = [
    "LOG_FLOOR",
    "STRUCTURES",
    "LinearSoftmaxFit",
    "MatrixScalingMap",
    "fit_linear_passes",
    "fit_linear_softmax",
    "fit_matrix_scaling",
    "fit_matrix_scaling_passes",
    "memory_rows_runner",
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
    total = _weight_total([_weight_sum(w)])
    return _shares(w, total), _total_weight(total)


#: a total weight ``s * 2**e`` as ``(s, e)``: weights past the float range add up without overflow
_Total = tuple[float, int]


def _weight_sum(w: FloatArray) -> list[float]:
    """The sum of ``w`` as ``[s, e]``, ``s`` the sum of ``w / 2**e`` and ``2**e`` just above the
    largest weight (scaling by a power of two is exact: the same shares as ``w / w.sum()``)."""
    e = int(np.frexp(w.max())[1]) if w.size else 0
    return [float(np.sum(np.ldexp(w, -e))), float(e)]


def _weight_total(sums: list[list[float]]) -> _Total:
    """Per-block ``[s, e]`` of :func:`_weight_sum` added in block order, as ``(s, e)``."""
    e = int(max(part[1] for part in sums))
    s: float = _added([float(np.ldexp(part[0], int(part[1]) - e)) for part in sums])
    return s, e


def _total_weight(total: _Total) -> float:
    """The total weight as a float (``inf`` past the largest float: penalties ``lambda / n`` of
    0 and a smoothing ``1 / (n + 1)`` of 0, their limits)."""
    with np.errstate(over="ignore"):
        return float(np.ldexp(total[0], total[1]))


def _shares(w: FloatArray, total: _Total) -> FloatArray:
    """The weights divided by their total (summing to one)."""
    out: FloatArray = np.ldexp(w, -total[1]) / total[0]
    return out


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
    w = np.ones(t.shape[0]) if sample_weight is None else np.asarray(sample_weight, np.float64)
    block = (t, y, w)
    return _fit_temperature_passes(lambda func, *args: [func(block, *args)], -np.inf)


def _block_extent(block: Block, log_floor: float) -> list[float]:
    """A block's weight total (``[s, e]`` of :func:`_weight_sum`) and the extremes of its
    floored class log-scores."""
    t, _, w = block
    tf = np.maximum(t, log_floor)
    return [*_weight_sum(w), float(tf.max()), float(tf.min())]


def _block_observed(block: Block, log_floor: float, total: _Total) -> float:
    t, y, w = block
    tf = np.maximum(t, log_floor)
    return float(_shares(w, total) @ tf[np.arange(tf.shape[0]), y])


def _block_expected(block: Block, log_floor: float, total: _Total, log_a: float) -> float:
    t, _, w = block
    tf = np.maximum(t, log_floor)
    P = _softmax(np.exp(log_a) * tf)
    return float(_shares(w, total) @ (P * tf).sum(axis=1))


def _added(values: list[_Sum]) -> _Sum:
    """Per-block sums (numbers or arrays) added in block order."""
    out = values[0]
    for v in values[1:]:
        out = out + v
    return out


def _fit_temperature_passes(
    run: Run, log_floor: float, extents: list[list[float]] | None = None
) -> float:
    """:func:`fit_temperature` of the floored class log-scores of the blocks ``run`` visits
    (``run(func, *args)``: ``[func(block, *args) for block in blocks]``; ``extents``: the
    results of the pass of :func:`_block_extent`, if made)."""
    if extents is None:
        extents = run(_block_extent, log_floor)
    total = _weight_total([e[:2] for e in extents])
    observed: float = _added(run(_block_observed, log_floor, total))
    spread = max(e[2] for e in extents) - min(e[3] for e in extents)
    if spread == 0:
        return 1.0

    def slope(log_a: float) -> float:
        expected: float = _added(run(_block_expected, log_floor, total, log_a))
        return expected - observed

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


class _Rows:
    """The weighted log loss of ``softmax((I + D) x + b)`` on one block of rows (no penalty),
    with its gradient and Hessian; ``c`` are the weights divided by the total of every block."""

    def __init__(self, X: FloatArray, y: IntArray, c: FloatArray, diagonal: bool) -> None:
        self.X, self.y, self.c = X, y, c
        self.n, self.K = X.shape
        self.diagonal = diagonal
        self.Y = np.zeros_like(X)
        self.Y[np.arange(self.n), y] = 1.0

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
        return loss, grad

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
            return H
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
        ordered: FloatArray = full[np.ix_(order, order)]
        return ordered


class _Objective:
    """Weighted mean log loss of ``softmax((I + D) x + b)`` plus ridge penalties, the loss a
    sum over blocks of rows: ``run(name, theta)`` returns ``getattr(rows, name)(theta)`` of
    every block's :class:`_Rows`, in block order."""

    def __init__(
        self,
        run: Callable[[str, FloatArray], list[Any]],
        K: int,
        diagonal: bool,
        coefs: tuple[float, float, float],
    ) -> None:
        self.run = run
        self.K = K
        self.c_b, self.c_d, self.c_o = coefs
        if diagonal:
            self.pen = np.r_[np.full(K, self.c_d), np.full(K, self.c_b)]
        else:
            D = np.full((K, K), self.c_o)
            np.fill_diagonal(D, self.c_d)
            self.pen = np.r_[D.ravel(), np.full(K, self.c_b)]
        self.dim = self.pen.shape[0]

    def value_grad(self, theta: FloatArray) -> tuple[float, FloatArray]:
        parts = self.run("value_grad", theta)
        loss = _added([p[0] for p in parts])
        grad = _added([p[1] for p in parts])
        loss += float(self.pen @ theta**2)
        return loss, grad + 2.0 * self.pen * theta

    def hessian(self, theta: FloatArray) -> FloatArray:
        H: FloatArray = _added(self.run("hessian", theta))
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
    rows = _Rows(X, y, c, diagonal)
    return _minimise(
        lambda name, theta: [getattr(rows, name)(theta)],
        X.shape[1],
        diagonal=diagonal,
        coefs=coefs,
        max_iter=max_iter,
        tol=tol,
    )


def _minimise(
    run: Callable[[str, FloatArray], list[Any]],
    K: int,
    *,
    diagonal: bool,
    coefs: tuple[float, float, float],
    max_iter: int,
    tol: float,
) -> LinearSoftmaxFit:
    """The minimiser of :class:`_Objective` over the blocks ``run`` visits (Newton or L-BFGS)."""
    obj = _Objective(run, K, diagonal, coefs)
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
    D, b = _unpack(theta, K, diagonal)
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
    return fit_in_memory(
        fit_matrix_scaling_passes,
        t,
        y,
        sample_weight,
        structure=structure,
        lambdas=lambdas,
        max_iter=max_iter,
        tol=tol,
        log_floor=log_floor,
    )


def _block_rows(
    block: Block, log_floor: float, total: _Total, a: float | None, smoothing: float, diagonal: bool
) -> _Rows:
    """One block's rows of the linear map's objective: the floored class log-scores, or their
    smoothed temperature-scaled features (``a`` not None), with weights over ``total``."""
    t, y, w = block
    tf = np.maximum(t, log_floor)
    X = tf if a is None else smoothed_log_softmax(a * tf, smoothing)
    return _Rows(X, y, _shares(w, total), diagonal)


def _block_call(block: Block, consts: tuple[Any, ...], name: str, theta: FloatArray) -> Any:
    return getattr(_block_rows(block, *consts), name)(theta)


def fit_in_memory(
    fit_passes: Callable[..., _T],
    t: FloatArray,
    y: IntArray,
    sample_weight: FloatArray | None,
    **options: Any,
) -> _T:
    """``fit_passes`` (a fit by passes over blocks of rows) run on one block held in memory:
    the class log-scores ``t``, the class indices ``y`` and the weights (None: all 1)."""
    w = np.ones(t.shape[0]) if sample_weight is None else np.asarray(sample_weight, np.float64)
    block = (t, y, w)
    return fit_passes(
        lambda func, *args: [func(block, *args)],
        t.shape[1],
        rows_runner=memory_rows_runner(block),
        **options,
    )


def memory_rows_runner(block: Block) -> Callable[[tuple[Any, ...]], Callable[..., list[Any]]]:
    """For a fit in memory (one block): its rows are formed once, not at every pass."""

    def runner(consts: tuple[Any, ...]) -> Callable[..., list[Any]]:
        rows = _block_rows(block, *consts)
        return lambda name, theta: [getattr(rows, name)(theta)]

    return runner


def fit_linear_passes(
    run: Run,
    K: int,
    *,
    log_floor: float,
    scaled: bool,
    diagonal: bool,
    coefs: Callable[[float], tuple[float, float, float]],
    max_iter: int,
    tol: float,
    rows_runner: Callable[[tuple[Any, ...]], Callable[..., list[Any]]] | None = None,
) -> tuple[float, float, LinearSoftmaxFit]:
    """Fit ``softmax((I + D) x + b)`` by passes over blocks of rows: ``(a, c, fit)``.

    ``x`` is the floored class log-scores, or (``scaled``) their smoothed temperature-scaled
    features with the inverse temperature ``a`` and smoothing ``c = 1 / (n + 1)`` fitted
    first; ``coefs(n)`` gives the penalties for the total weight ``n``. Every sum over the
    rows is a sum of per-block sums in block order; the in-memory fit is the one-block case.
    ``run(func, *args)`` returns ``[func(block, *args) for block in blocks]``, a block a tuple
    (class log-scores, class indices, weights); ``rows_runner`` as in
    :func:`venncal.core.temperature.fit_temperature_passes`.
    """
    extents = run(_block_extent, log_floor)
    total = _weight_total([e[:2] for e in extents])
    n = _total_weight(total)
    a: float | None = None
    smoothing = 0.0
    if scaled:
        a = _fit_temperature_passes(run, log_floor, extents)
        smoothing = 1.0 / (n + 1.0)
    consts = (float(log_floor), total, a, smoothing, diagonal)
    if rows_runner is None:

        def run_rows(name: str, theta: FloatArray) -> list[Any]:
            return run(_block_call, consts, name, theta)
    else:
        run_rows = rows_runner(consts)
    fit = _minimise(run_rows, K, diagonal=diagonal, coefs=coefs(n), max_iter=max_iter, tol=tol)
    return (1.0 if a is None else a), smoothing, fit


def fit_matrix_scaling_passes(
    run: Run,
    K: int,
    *,
    structure: str = "sms",
    lambdas: tuple[float, ...] = (1.0, 1.0, 1.0),
    max_iter: int = 1000,
    tol: float = 1e-10,
    log_floor: float = LOG_FLOOR,
    rows_runner: Callable[[tuple[Any, ...]], Callable[..., list[Any]]] | None = None,
) -> tuple[MatrixScalingMap, LinearSoftmaxFit]:
    """:func:`fit_matrix_scaling` by passes over the blocks ``run`` visits (see
    :func:`fit_linear_passes`); ``fit_matrix_scaling`` is the one-block case.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = np.log(rng.dirichlet(np.ones(3), size=300))
    >>> y, w = rng.integers(0, 3, size=300), np.ones(300)
    >>> blocks = [(t[:100], y[:100], w[:100]), (t[100:], y[100:], w[100:])]
    >>> m, _ = fit_matrix_scaling_passes(lambda f, *a: [f(b, *a) for b in blocks], 3)
    >>> bool(np.allclose(m.bias, fit_matrix_scaling(t, y)[0].bias, atol=1e-8))
    True
    """
    if structure not in STRUCTURES:
        raise ValueError(f"'structure' must be one of {STRUCTURES}; got {structure!r}.")
    check_log_floor(log_floor, low=LOG_FLOOR, owner="fit_matrix_scaling")

    def coefs(total: float) -> tuple[float, float, float]:
        c = penalty_coefficients(structure, K, total, lambdas)
        if not np.isfinite(c).all():
            raise ValueError(
                f"fit_matrix_scaling: the penalties lambda K / n overflow with a total weight n "
                f"of {total:.3g}; scale the weights up (a weight of k counts as k examples)."
            )
        return c

    a, c, fit = fit_linear_passes(
        run,
        K,
        log_floor=log_floor,
        scaled=True,
        diagonal=structure in ("svs", "vector"),
        coefs=coefs,
        max_iter=max_iter,
        tol=tol,
        rows_runner=rows_runner,
    )
    return MatrixScalingMap(structure, float(a), c, fit.delta, fit.bias, float(log_floor)), fit
