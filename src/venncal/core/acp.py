"""Adaptive calibration of predictions (ACP; Jiang, Osl, Kim & Ohno-Machado 2012).

ACP calibrates a prediction with the help of its confidence interval: the calibrated value is the
fraction of positives among the calibration examples whose predictions fall inside a bin built
from the test prediction's (95%) confidence interval. The interval adapts the bin to the
precision of each prediction: narrow where the model is sure, wide where it is not.

What the papers say, and what is done here:

* **Interval.** For a logistic model the interval is the Wald interval on the linear predictor,
  ``eta +- z_{(1+c)/2} se(eta)``, mapped to probabilities by the sigmoid (:func:`wald_interval`).
* **Adjustment.** Naeini, Cooper & Hauskrecht (section 5) summarise ACP thus: it "requires a 95%
  confidence interval (CI) around a particular prediction p_in", "adjusts the CI and uses it to
  define a bin", and "the bin it selects is symmetric around p_in by construction". The Wald
  interval mapped through the sigmoid is *not* symmetric around ``p_in`` (it leans towards 0.5),
  so the adjustment has to make it so. The methods section of Jiang et al. could not be
  consulted for this implementation (only its abstract, which says that "the length of the CI
  employed may affect its results"), so the exact formula of the original is not confirmed.
  Symmetry around ``p_in`` is what the description requires; how wide the symmetric bin is, it
  does not say. We keep the interval's length and centre it on the prediction,
  ``[p_in - (u - l) / 2, p_in + (u - l) / 2]`` (:func:`symmetric_interval`); mirroring the longer
  or the shorter side of ``[l, u]`` would also be symmetric, and is not implemented. The
  unadjusted interval ``[l, u]`` stays available as an explicit option.
* **Level.** The papers state 95%. How wide the bins are matters more than how they are
  adjusted: reproducing Naeini et al.'s Table 2, 95% bins hold half the calibration scores or
  more and miss the paper's ACP rows on simulated data, where 50-68% intervals reproduce them
  on designs fitted to the paper's other rows (``venncal.experiments.studies._naeini_acp``);
  the level is a parameter of :func:`wald_interval` and of the estimator's intervals.
* **Closed bins.** A calibration prediction equal to an end point is inside.
* **Empty bin.** When no calibration prediction lies inside, the bin is widened to the
  nearest distinct calibration prediction (the lower one on a tie), so every test prediction gets
  a value.
* **Weights.** Calibration examples count with their sample weights: a weight of k is k
  copies of the example, and ``alpha`` is a number of examples.
* **0 and 1.** A fraction of positives can be exactly 0 or 1. The opt-in additive smoothing
  ``(n1 + alpha) / (n + 2 alpha)`` avoids that; the faithful ``alpha=0`` is the default.

References
----------
.. [1] X. Jiang, M. Osl, J. Kim and L. Ohno-Machado, "Calibrating predictive model estimates to
   support personalized medicine", JAMIA 19(2), 263-274, 2012.
.. [2] M. P. Naeini, G. F. Cooper and M. Hauskrecht, "Binary classifier calibration: a Bayesian
   non-parametric approach", 2014, Section 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit

from venncal._validation import (
    check_consistent_length,
    check_in_range,
    check_sample_weight,
    check_scores,
    pseudo_count,
    scaled_sample_weight,
)
from venncal.core._inputs import check_scores_y01, fill_fit_doc
from venncal.core.bayesian_binning import nearest_position, pool_scores

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import ArrayLike, FloatArray
    from venncal.core.platt import PlattSigmoid

__all__ = ["ACPTable", "fit_acp", "symmetric_interval", "wald_interval"]

#: how a given interval becomes a bin (``interval_adjustment`` of ``ACPCalibrator``)
INTERVAL_ADJUSTMENTS = ("symmetric", "none")


def wald_interval(
    linear_predictor: ArrayLike, standard_error: ArrayLike, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Wald confidence interval of a logistic model's probability.

    Parameters
    ----------
    linear_predictor : array-like of shape (m,)
        The log-odds ``eta`` of each prediction.
    standard_error : array-like of shape (m,)
        The standard error of ``eta``.
    confidence : float, default=0.95
        Confidence level, in (0, 1).

    Returns
    -------
    lower, upper : ndarray of shape (m,)
        ``expit(eta - z se)`` and ``expit(eta + z se)`` with ``z`` the ``(1 + confidence) / 2``
        normal quantile.

    Examples
    --------
    >>> lo, hi = wald_interval([0.0], [1.0])
    >>> float(lo[0].round(3)), float(hi[0].round(3))
    (0.123, 0.877)
    """
    confidence = check_in_range(confidence, 0, 1, name="confidence", owner="wald_interval")
    eta = check_scores(linear_predictor, name="linear_predictor")
    se = check_scores(standard_error, name="standard_error")
    check_consistent_length(linear_predictor=eta, standard_error=se)
    if (se < 0).any():
        raise ValueError("'standard_error' must be non-negative.")
    from scipy.stats import norm  # imported here: scipy.stats takes most of a second

    z = norm.ppf(0.5 + confidence / 2.0)
    return expit(eta - z * se), expit(eta + z * se)


def symmetric_interval(
    prediction: ArrayLike, lower: ArrayLike, upper: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """ACP's adjusted bin: the interval's length, centred on the prediction.

    Parameters
    ----------
    prediction : array-like of shape (m,)
        The predictions ``p_in``.
    lower, upper : array-like of shape (m,)
        Their confidence intervals, ``lower <= upper``.

    Returns
    -------
    lower, upper : ndarray of shape (m,)
        ``p_in - (upper - lower) / 2`` and ``p_in + (upper - lower) / 2``.

    Notes
    -----
    See the module description for why this is the adjustment: the bin of ACP is "symmetric
    around p_in by construction" (Naeini et al., section 5). A bin reaching below 0 or above 1
    holds the same calibration predictions as its part inside [0, 1], so it is not clipped.

    Examples
    --------
    A Wald interval of a prediction of 0.9 leans towards 0.5; the bin does not:

    >>> lo, hi = symmetric_interval([0.9], [0.7], [0.96])
    >>> float(lo[0].round(2)), float(hi[0].round(2))
    (0.77, 1.03)
    """
    p = check_scores(prediction, name="prediction")
    lo = check_scores(lower, name="lower")
    hi = check_scores(upper, name="upper")
    check_consistent_length(prediction=p, lower=lo, upper=hi)
    if (lo > hi).any():
        raise ValueError("Each interval needs lower <= upper; got lower > upper.")
    with np.errstate(over="ignore"):
        half = 0.5 * hi - 0.5 * lo
    return p - half, p + half


@dataclass(frozen=True)
class ACPTable:
    """Calibration predictions, pooled and sorted, with cumulative class weights.

    Attributes
    ----------
    positions : ndarray of shape (N,)
        Distinct calibration predictions, increasing.
    cum_total, cum_positive : ndarray of shape (N + 1,)
        Cumulative weight of all examples and of the positives, starting at 0 (a weight of
        k counts as k examples; weights beyond 2^960 or below 2^-960 are stored divided by
        a power of two).
    alpha : float
        Additive smoothing of the fractions, in the units of ``cum_total``.
    """

    positions: FloatArray
    cum_total: FloatArray
    cum_positive: FloatArray
    alpha: float

    def predict(self, lower: ArrayLike, upper: ArrayLike) -> FloatArray:
        """Return the fraction of positives among calibration predictions in ``[lower, upper]``.

        Parameters
        ----------
        lower, upper : array-like of shape (m,)
            Interval end points on the scale of the calibration predictions.

        Returns
        -------
        proba : ndarray of shape (m,)
        """
        lo = check_scores(lower, name="lower")
        hi = check_scores(upper, name="upper")
        check_consistent_length(lower=lo, upper=hi)
        if (lo > hi).any():
            raise ValueError("Each interval needs lower <= upper; got lower > upper.")
        i = np.searchsorted(self.positions, lo, side="left")
        j = np.searchsorted(self.positions, hi, side="right")
        empty = j <= i
        if empty.any():  # widen to the nearest calibration prediction
            k = nearest_position(self.positions, 0.5 * lo[empty] + 0.5 * hi[empty])
            i = i.copy()
            j = j.copy()
            i[empty] = k
            j[empty] = k + 1
        n = self.cum_total[j] - self.cum_total[i]
        n1 = self.cum_positive[j] - self.cum_positive[i]
        a = self.alpha
        with np.errstate(invalid="ignore", divide="ignore"):
            p = (n1 + a) / (n + 2.0 * a)
        return np.clip(np.nan_to_num(p, nan=0.5), 0.0, 1.0)


@fill_fit_doc
def fit_acp(
    scores: ArrayLike, y01: ArrayLike, sample_weight: ArrayLike | None = None, *, alpha: float = 0.0
) -> ACPTable:
    """Store the calibration predictions of ACP.

    Parameters
    ----------
    scores : array-like of shape (n,)
        The model's predictions on the calibration set (probabilities for the logistic model
        of the paper; any scale that the test intervals share).
    {y01}
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights; a weight of k is k copies of the example.
    alpha : float, default=0.0
        Opt-in additive smoothing, in examples; 0 is the faithful fraction.

    Returns
    -------
    ACPTable

    Examples
    --------
    The calibrated value is the fraction of positives inside each interval:

    >>> table = fit_acp([0.1, 0.2, 0.3, 0.4, 0.5], [0, 0, 1, 0, 1])
    >>> table.predict([0.15, 0.25], [0.35, 0.55])
    array([0.5       , 0.66666667])
    """
    alpha = check_in_range(alpha, 0, np.inf, name="alpha", owner="fit_acp", closed="left")
    s, y = check_scores_y01(scores, y01)
    # a weight of k is k copies. Weights of extreme magnitude are summed in units of a power
    # of two (exact: no overflow), and the pseudo-count alpha, a number of examples, is stored
    # in the same units, which changes no fraction (n1 + alpha) / (n + 2 alpha)
    w, exponent = scaled_sample_weight(check_sample_weight(sample_weight, s.shape[0]))
    if w is not None and -_SAFE_EXPONENT <= exponent <= _SAFE_EXPONENT:
        w, exponent = np.ldexp(w, exponent), 0  # moderate weights are stored as they are
    if w is not None and not (w > 0).all():
        keep = w > 0
        s, y, w = s[keep], y[keep], w[keep]
    positions, n0, n1 = pool_scores(s, y, w)
    cum_pos = np.concatenate([[0.0], np.cumsum(n1)])
    cum_tot = np.concatenate([[0.0], np.cumsum(n0 + n1)])
    return ACPTable(positions, cum_tot, cum_pos, pseudo_count(alpha, exponent))


# weights whose largest lies in [2^-960, 2^960] are stored in their own units
_SAFE_EXPONENT = 960


def check_interval_adjustment(value: object, *, owner: str) -> None:
    """Raise unless ``value`` is one of :data:`INTERVAL_ADJUSTMENTS`."""
    if value not in INTERVAL_ADJUSTMENTS:
        raise ValueError(
            f"The 'interval_adjustment' parameter of {owner} must be one of "
            f"{set(INTERVAL_ADJUSTMENTS)}. Got {value!r} instead."
        )


def acp_score_interval(
    s: FloatArray, sigmoid: PlattSigmoid, covariance_scaled: FloatArray, confidence: float
) -> FloatArray:
    """The self-built interval of each score: the Wald interval of a logistic model of the
    label on the score, mapped back to the score axis.

    Parameters
    ----------
    s : ndarray of shape (m,)
        Clean test scores.
    sigmoid : PlattSigmoid
        The logistic model (``eta = -(a s + b)``) fitted on the calibration scores.
    covariance_scaled : ndarray of shape (2, 2)
        The inverse Fisher information of its slope and intercept on the standardised scores.
    confidence : float
        The level of the intervals.

    Returns
    -------
    interval : ndarray of shape (m, 2)
        ``s -+ z se(s) / |a|``; the whole real line when the slope is zero.

    Examples
    --------
    >>> from venncal.core.platt import fit_platt
    >>> s = np.linspace(0, 1, 200)
    >>> y = (np.sin(20 * s) + 2 * s > 1).astype(int)
    >>> sig = fit_platt(s, y)
    >>> iv = acp_score_interval(np.array([0.5]), sig, np.eye(2) * 0.01, 0.95)
    >>> bool(iv[0, 0] < 0.5 < iv[0, 1])
    True
    """
    from scipy.stats import norm

    from venncal.core.platt import _standardise

    v = covariance_scaled
    assert sigmoid.a_scaled is not None  # a fit stores the slope on the standardised scores
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        f = _standardise(s, sigmoid.center, sigmoid.scale)
        se = np.sqrt(np.maximum(v[0, 0] * f * f + 2.0 * v[0, 1] * f + v[1, 1], 0.0))
        z = norm.ppf(0.5 + confidence / 2.0)
        slope = abs(sigmoid.a_scaled)
        # the interval of eta on the standardised axis, mapped back to the score axis
        half = np.where(slope > 0, (z * se / slope) * sigmoid.scale, np.inf)
        half = np.nan_to_num(half, nan=np.inf)
        return np.column_stack([s - half, s + half])


def predict_acp(
    table: ACPTable,
    s: FloatArray,
    interval: ArrayLike | None,
    *,
    adjustment: str,
    score_interval: Callable[[FloatArray], FloatArray] | None,
    owner: str,
) -> FloatArray:
    """ACP's probability of the positive class at clean test scores ``s``.

    Parameters
    ----------
    table : ACPTable
        The fitted table.
    s : ndarray of shape (m,)
        Clean test scores.
    interval : array-like of shape (m, 2) or None
        The confidence interval of each score, adjusted into its bin by ``adjustment``
        (:func:`symmetric_interval` or none); None takes ``score_interval(s)``.
    adjustment : {"symmetric", "none"}
    score_interval : callable
        The self-built intervals of scores (:func:`acp_score_interval` of the fit).
    owner : str
        The name in the error messages.

    Returns
    -------
    p : ndarray of shape (m,)

    Examples
    --------
    >>> table = fit_acp(np.array([0.1, 0.2, 0.3, 0.4]), np.array([0, 0, 1, 1]))
    >>> predict_acp(table, np.array([0.35]), [[0.25, 0.45]], adjustment="none",
    ...             score_interval=None, owner="example")
    array([1.])
    """
    if interval is None:
        assert score_interval is not None  # None only with the intervals given
        iv = score_interval(s)
    else:
        try:
            iv = np.asarray(interval, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"'interval' of {owner}.predict_proba must be numbers of shape "
                f"({s.shape[0]}, 2) (lower, upper for each score)."
            ) from None
        if iv.shape != (s.shape[0], 2):
            raise ValueError(
                f"'interval' must have shape ({s.shape[0]}, 2) (lower, upper for each "
                f"score); got {iv.shape}."
            )
        check_scores(iv.ravel(), name="interval")
        check_interval_adjustment(adjustment, owner=owner)
        if (iv[:, 0] > iv[:, 1]).any():
            raise ValueError("Each interval needs lower <= upper; got lower > upper.")
        if adjustment == "symmetric":
            iv = np.column_stack(symmetric_interval(s, iv[:, 0], iv[:, 1]))
    lo = np.where(np.isfinite(iv[:, 0]), iv[:, 0], -np.finfo(float).max)
    hi = np.where(np.isfinite(iv[:, 1]), iv[:, 1], np.finfo(float).max)
    return table.predict(lo, hi)
