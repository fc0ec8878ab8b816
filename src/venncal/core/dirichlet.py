"""Dirichlet calibration: ``softmax(W ln q + b)`` with off-diagonal and intercept regularisation.

Kull et al. (2019) map the probability vector ``q`` of a K-class model to
``softmax(W ln q + b)`` (a Dirichlet likelihood ratio per class, the multi-class analogue of
beta calibration), fitted by weighted maximum likelihood. Their ODIR penalty
(Off-Diagonal and Intercept Regularisation) leaves the diagonal of ``W`` free:

.. math::

    \\frac{1}{n} \\sum_i w_i \\, \\ell(\\mathrm{softmax}(W \\ln q_i + b), y_i)
    + \\frac{\\lambda}{K (K - 1)} \\sum_{j \\ne k} W_{jk}^2 + \\frac{\\mu}{K} \\sum_j b_j^2,

with ``n`` the total weight and ``\\ell`` the log loss. ``ln q`` is floored at ``log_floor``,
at least :data:`~venncal.core.matrix_scaling.LOG_FLOOR` (about -87.3) so that zero
probabilities stay finite; probabilities are read by the rule of
:mod:`venncal.core.class_scores` (a floor fitted on the calibration data). The solver is the one of :mod:`venncal.core.matrix_scaling` (Newton's method or L-BFGS
on the convex objective), started from the identity map.

References
----------
.. [1] M. Kull, M. Perello-Nieto, M. Kaengsepp, T. Silva Filho, H. Song and P. Flach, "Beyond
   temperature scaling: obtaining well-calibrated multi-class probabilities with Dirichlet
   calibration", NeurIPS 2019, section 3 (ODIR).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal.core.class_scores import check_log_floor
from venncal.core.matrix_scaling import (
    LOG_FLOOR,
    _softmax,
    fit_in_memory,
    fit_linear_passes,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from venncal._typing import FloatArray, IntArray
    from venncal.core.matrix_scaling import LinearSoftmaxFit

__all__ = ["DirichletMap", "fit_dirichlet", "fit_dirichlet_passes", "odir_coefficients"]


def odir_coefficients(K: int, reg_lambda: float, reg_mu: float) -> tuple[float, float, float]:
    """Per-entry ridge coefficients ``(c_b, c_d, c_o)`` of the ODIR penalty.

    Examples
    --------
    >>> odir_coefficients(5, 0.2, 0.5)
    (0.1, 0.0, 0.01)
    """
    return reg_mu / K, 0.0, reg_lambda / (K * (K - 1))


@dataclass(frozen=True)
class DirichletMap:
    """A fitted Dirichlet calibration map ``softmax(W max(ln q, floor) + b)``.

    Attributes
    ----------
    weights : ndarray of shape (K, K)
        ``W``.
    bias : ndarray of shape (K,)
        ``b``.
    log_floor : float
        ``ln q`` is read as ``max(ln q, log_floor)``: :data:`LOG_FLOOR` for logits, the
        logarithm of the probability floor for probabilities
        (:func:`venncal.core.class_scores.probability_floor`, at least :data:`LOG_FLOOR`).
    """

    weights: FloatArray
    bias: FloatArray
    log_floor: float = LOG_FLOOR

    def __post_init__(self) -> None:
        check_log_floor(self.log_floor, low=LOG_FLOOR, owner="DirichletMap")
        if self.log_floor == -np.inf:
            raise ValueError("DirichletMap: 'log_floor' must be finite.")

    def predict_proba(self, t: FloatArray) -> FloatArray:
        """Calibrated probabilities (m, K) of class log-probabilities ``t`` (m, K)."""
        return _softmax(np.maximum(t, self.log_floor) @ self.weights.T + self.bias)


def fit_dirichlet(
    t: FloatArray,
    y: IntArray,
    sample_weight: FloatArray | None = None,
    *,
    reg_lambda: float = 10.0,
    reg_mu: float = 10.0,
    max_iter: int = 1000,
    tol: float = 1e-10,
    log_floor: float = LOG_FLOOR,
) -> tuple[DirichletMap, LinearSoftmaxFit]:
    """Fit Dirichlet calibration with the ODIR penalty (module docstring).

    Parameters
    ----------
    t : ndarray of shape (n, K)
        Per-class log-probabilities ``ln q`` of the calibration examples.
    y : ndarray of shape (n,)
        Class indices 0..K-1.
    sample_weight : ndarray of shape (n,) or None
        Non-negative weights (weight k counts as k copies of a row).
    reg_lambda, reg_mu : float
        ``lambda`` (off-diagonal entries of ``W``) and ``mu`` (intercepts).
    max_iter : int, default=1000
    tol : float, default=1e-10
    log_floor : float, default=LOG_FLOOR
        ``t`` is read as ``max(t, log_floor)`` (kept in the map), at least :data:`LOG_FLOOR`.

    Returns
    -------
    map : DirichletMap
    fit : LinearSoftmaxFit

    Examples
    --------
    Probabilities made too sharp (squared and renormalised) get a diagonal of about 1/2:

    >>> rng = np.random.default_rng(0)
    >>> q = rng.dirichlet(np.ones(3), size=20000)
    >>> y = (rng.random((20000, 1)) > q.cumsum(axis=1)).sum(axis=1)
    >>> sharp = q**2 / (q**2).sum(axis=1, keepdims=True)
    >>> m, _ = fit_dirichlet(np.log(sharp), y)
    >>> np.diag(m.weights).round(1)
    array([0.5, 0.5, 0.5])
    """
    return fit_in_memory(
        fit_dirichlet_passes,
        t,
        y,
        sample_weight,
        reg_lambda=reg_lambda,
        reg_mu=reg_mu,
        max_iter=max_iter,
        tol=tol,
        log_floor=log_floor,
    )


def fit_dirichlet_passes(
    run: Callable[..., list[Any]],
    K: int,
    *,
    reg_lambda: float = 10.0,
    reg_mu: float = 10.0,
    max_iter: int = 1000,
    tol: float = 1e-10,
    log_floor: float = LOG_FLOOR,
    rows_runner: Callable[[tuple[Any, ...]], Callable[..., list[Any]]] | None = None,
) -> tuple[DirichletMap, LinearSoftmaxFit]:
    """:func:`fit_dirichlet` by passes over the blocks ``run`` visits (see
    :func:`venncal.core.matrix_scaling.fit_linear_passes`); ``fit_dirichlet`` is the
    one-block case."""
    check_log_floor(log_floor, low=LOG_FLOOR, owner="fit_dirichlet")
    coefs = odir_coefficients(K, reg_lambda, reg_mu)
    _, _, fit = fit_linear_passes(
        run,
        K,
        log_floor=log_floor,
        scaled=False,
        diagonal=False,
        coefs=lambda total: coefs,
        max_iter=max_iter,
        tol=tol,
        rows_runner=rows_runner,
    )
    return DirichletMap(np.eye(K) + fit.delta, fit.bias, float(log_floor)), fit
