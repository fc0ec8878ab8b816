"""Statistical checks of calibration: Spiegelhalter's Z test, calibration slope and intercept."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_in_range
from venncal.exceptions import VenncalWarning
from venncal.metrics._common import fill_doc, prepare

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray

__all__ = [
    "SpiegelhalterResult",
    "spiegelhalter_z",
    "CalibrationSlopeIntercept",
    "calibration_slope_intercept",
]


@dataclass(frozen=True)
class SpiegelhalterResult:
    """Spiegelhalter's Z statistic and its two-sided p-value.

    Attributes
    ----------
    statistic : float
        Approximately standard normal when the predictions are calibrated.
    pvalue : float
        Two-sided p-value ``2 (1 - Phi(|Z|))``.
    """

    statistic: float
    pvalue: float


@fill_doc
def spiegelhalter_z(
    y_true: ArrayLike, y_proba: ArrayLike, *, pos_label: object = None
) -> SpiegelhalterResult:
    """Spiegelhalter's Z test of the null hypothesis that the predictions are calibrated.

    ``Z = sum_i (y_i - p_i)(1 - 2 p_i) / sqrt(sum_i (1 - 2 p_i)^2 p_i (1 - p_i))``. Under the
    null (each ``y_i`` drawn from Bernoulli(``p_i``) independently), ``Z`` is approximately
    standard normal. It follows from the decomposition of the Brier score: the numerator is
    ``sum (y - p)^2 - sum p (1 - p)``, the Brier score minus its expectation under the null.

    Parameters
    ----------
    {y_true, y_proba, pos_label}

    Returns
    -------
    SpiegelhalterResult
        NaN statistic and p-value (with a warning) when every prediction is 0, 1/2 or 1, where
        the variance is zero.

    References
    ----------
    Spiegelhalter, "Probabilistic prediction in patient management and clinical trials",
    Statistics in Medicine 5 (1986).

    Examples
    --------
    Calibrated predictions are rejected at the 5% level in about 5% of the trials:

    >>> rng = np.random.default_rng(0)
    >>> p = rng.random((200, 500))
    >>> y = rng.random(p.shape) < p
    >>> rejected = [spiegelhalter_z(y[i], p[i]).pvalue < 0.05 for i in range(200)]
    >>> bool(0.01 < np.mean(rejected) < 0.1)
    True
    """
    y, p, _ = prepare(y_true, y_proba, pos_label=pos_label)
    num = ((y - p) * (1.0 - 2.0 * p)).sum()
    var = ((1.0 - 2.0 * p) ** 2 * p * (1.0 - p)).sum()
    if var <= 0:
        warnings.warn(
            "spiegelhalter_z is undefined when every prediction is 0, 1/2 or 1; returning NaN.",
            VenncalWarning,
            stacklevel=2,
        )
        return SpiegelhalterResult(float("nan"), float("nan"))
    from scipy.stats import norm

    z = float(num / np.sqrt(var))
    return SpiegelhalterResult(z, float(2.0 * norm.sf(abs(z))))


@dataclass(frozen=True)
class CalibrationSlopeIntercept:
    """Logistic recalibration parameters.

    Attributes
    ----------
    slope : float
        ``b`` in ``logit P(y=1) = a + b logit(p)``; 1 when calibrated, below 1 when the
        predictions are too extreme (overfitting), above 1 when too timid.
    intercept : float
        Calibration-in-the-large: ``a`` in ``logit P(y=1) = a + logit(p)`` (slope fixed at 1);
        0 when calibrated, positive when the predictions are too low on average.
    """

    slope: float
    intercept: float


def _fit_logistic(
    x: FloatArray,
    y: FloatArray,
    offset: FloatArray,
    fit_slope: bool,
    max_iter: int = 100,
    tol: float = 1e-10,
) -> tuple[FloatArray, bool]:
    """Newton's method with step halving for ``logit P(y=1) = a + b x + offset``."""
    design = np.column_stack([np.ones_like(x), x]) if fit_slope else np.ones((x.shape[0], 1))
    beta = np.zeros(design.shape[1])

    def nll(b: FloatArray) -> float:
        eta = offset + design @ b
        return float(np.sum(np.logaddexp(0.0, eta) - y * eta))

    current = nll(beta)
    for _ in range(max_iter):
        eta = offset + design @ beta
        mu = 0.5 * (1.0 + np.tanh(0.5 * eta))
        grad = design.T @ (mu - y)
        hess = (design * (mu * (1.0 - mu))[:, None]).T @ design
        try:
            step = np.linalg.solve(hess + 1e-12 * np.eye(hess.shape[0]), grad)
        except np.linalg.LinAlgError:
            return beta, False
        t = 1.0
        while True:
            candidate = beta - t * step
            value = nll(candidate)
            if value <= current:
                break
            t *= 0.5
            if t < 1e-10:  # no descent left: at the optimum up to rounding
                return beta, bool(np.abs(grad).max() <= 1e-6 * (1.0 + y.shape[0]))
        converged = abs(current - value) <= tol * (1.0 + abs(current))
        beta, current = candidate, value
        if converged:
            return beta, True
    return beta, False


@fill_doc
def calibration_slope_intercept(
    y_true: ArrayLike, y_proba: ArrayLike, *, clip: float = 1e-12, pos_label: object = None
) -> CalibrationSlopeIntercept:
    """Calibration slope and intercept by logistic regression of the labels on ``logit(p)``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or booleans; both classes must occur.
    {y_proba}
    clip : float in (0, 0.5), default=1e-12
        Probabilities are clipped to ``[clip, 1 - clip]`` before taking logits.
    {pos_label}

    Returns
    -------
    CalibrationSlopeIntercept

    Warns
    -----
    VenncalWarning
        When the maximum-likelihood fit does not exist (the predictions separate the classes)
        or does not converge.

    References
    ----------
    Cox, "Two further applications of a model for binary regression", Biometrika 45 (1958);
    Van Calster et al., "A calibration hierarchy for risk models", J. Clin. Epidemiol. (2016).

    Examples
    --------
    Labels drawn from ``sigmoid(2 * logit(p))`` reveal predictions that are too timid:

    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 20_000)
    >>> logit = np.log(p / (1 - p))
    >>> y = rng.random(p.size) < 1 / (1 + np.exp(-2 * logit))
    >>> r = calibration_slope_intercept(y, p)
    >>> bool(1.85 < r.slope < 2.15)
    True
    """
    y, p, _ = prepare(y_true, y_proba, pos_label=pos_label)
    eps = check_in_range(clip, 0, 0.5, name="clip", owner="calibration_slope_intercept")
    if y.min() == y.max():
        raise ValueError(
            "calibration_slope_intercept needs both classes in 'y_true'; got one class only."
        )
    pc = np.clip(p, eps, 1.0 - eps)
    z = np.log(pc) - np.log1p(-pc)
    if z.min() == z.max():
        raise ValueError(
            "calibration_slope_intercept needs predictions that are not all equal in 'y_proba' "
            "(after clipping to [clip, 1 - clip]); the slope of a constant is undefined."
        )
    (a, b), ok_slope = _fit_logistic(z, y, np.zeros_like(z), fit_slope=True)
    (a_offset,), ok_int = _fit_logistic(z, y, z, fit_slope=False)
    z0, z1 = z[y == 0], z[y == 1]
    separated = z0.max() <= z1.min() or z1.max() <= z0.min()
    if separated or not (ok_slope and ok_int):
        warnings.warn(
            "calibration_slope_intercept: the logistic fit did not converge (the classes are "
            "separated by the predictions, so the slope is infinite); the estimates are "
            "unreliable.",
            VenncalWarning,
            stacklevel=2,
        )
    return CalibrationSlopeIntercept(slope=float(b), intercept=float(a_offset))
