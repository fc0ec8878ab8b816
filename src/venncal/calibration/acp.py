"""Adaptive calibration of predictions (ACP) as a score calibrator, and Wald intervals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit
from sklearn.utils.validation import check_is_fitted

from venncal._validation import check_in_range, scaled_sample_weight
from venncal.calibration._base import BaseScoreCalibrator
from venncal.core.acp import (
    acp_score_interval,
    check_interval_adjustment,
    fit_acp,
    predict_acp,
    wald_interval,
)
from venncal.core.platt import _standardise, fit_platt

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import ArrayLike, FloatArray

__all__ = ["ACPCalibrator", "logistic_wald_interval"]


def logistic_wald_interval(
    estimator: Any, X_train: ArrayLike, X: ArrayLike, *, confidence: float = 0.95
) -> FloatArray:
    """Wald confidence intervals of a fitted binary logistic regression's probabilities.

    The covariance of the coefficients (intercept first) is the inverse of the Hessian of the
    penalised negative log-likelihood at the fit, ``X~' W X~ + I / C`` (no penalty on the
    intercept, none at all when ``C`` is infinite), with ``X~ = [1, X_train]`` and
    ``W = diag(p (1 - p))``. The interval is ``expit(eta +- z se)`` with ``se^2 = x~' Cov x~``.

    Parameters
    ----------
    estimator : fitted sklearn.linear_model.LogisticRegression
        A binary model with an intercept (any object with ``coef_`` of shape (1, d),
        ``intercept_``, ``decision_function`` and ``C`` works).
    X_train : array-like of shape (n, d)
        The data the model was trained on.
    X : array-like of shape (m, d)
        The objects to predict.
    confidence : float, default=0.95
        Confidence level.

    Returns
    -------
    interval : ndarray of shape (m, 2)
        Lower and upper end of the interval of ``P(y = classes_[1] | x)``.

    Notes
    -----
    Sample weights of the training fit and an L1 part of the penalty are not taken into account.

    References
    ----------
    .. [1] X. Jiang, M. Osl, J. Kim and L. Ohno-Machado, "Calibrating predictive model
       estimates to support personalized medicine", JAMIA 19(2), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 2))
    >>> y = rng.random(500) < 1 / (1 + np.exp(-X[:, 0]))
    >>> lr = LogisticRegression().fit(X, y)
    >>> ci = logistic_wald_interval(lr, X, X[:3])
    >>> p = lr.predict_proba(X[:3])[:, 1]
    >>> bool(np.all((ci[:, 0] < p) & (p < ci[:, 1])))
    True
    """
    check_is_fitted(estimator, "coef_")
    confidence = check_in_range(confidence, 0, 1, name="confidence", owner="logistic_wald_interval")
    coef = np.asarray(estimator.coef_, dtype=np.float64)
    if coef.ndim != 2 or coef.shape[0] != 1:
        raise ValueError(
            f"'estimator' must be a binary logistic model with coef_ of shape (1, d); got "
            f"{coef.shape}."
        )
    Xt = np.asarray(X_train, dtype=np.float64)
    Xq = np.asarray(X, dtype=np.float64)
    d = coef.shape[1]
    for name, arr in (("X_train", Xt), ("X", Xq)):
        if arr.ndim != 2 or arr.shape[1] != d:
            raise ValueError(f"'{name}' must have shape (n, {d}) like the model; got {arr.shape}.")
        if not np.isfinite(arr).all():
            raise ValueError(f"'{name}' holds NaN or infinite values.")
    eta_train = estimator.decision_function(Xt)
    p = 1.0 / (1.0 + np.exp(-eta_train))
    design = np.column_stack([np.ones(Xt.shape[0]), Xt])
    hess = design.T @ (design * (p * (1.0 - p))[:, None])
    c = float(getattr(estimator, "C", np.inf))
    if np.isfinite(c) and c > 0:
        hess[1:, 1:] += np.eye(d) / c
    cov = np.linalg.pinv(hess)
    xq = np.column_stack([np.ones(Xq.shape[0]), Xq])
    se = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", xq, cov, xq), 0.0))
    lo, hi = wald_interval(estimator.decision_function(Xq), se, confidence)
    return np.column_stack([lo, hi])


class ACPCalibrator(BaseScoreCalibrator):
    """ACP (Jiang et al. 2012): the fraction of positives inside each prediction's bin.

    For each test prediction, the calibrated probability is the (weighted) fraction of positives
    among the calibration examples whose predictions lie in the test prediction's bin, built from
    its confidence interval. The intervals should come from the model that made the predictions:
    for logistic regression, pass ``interval=logistic_wald_interval(model, X_train, X_test)`` to
    :meth:`predict_proba`, with the calibration scores being the same model's probabilities.
    By default the interval is adjusted into a bin of the same length centred on the prediction
    (:func:`venncal.core.acp.symmetric_interval`); ``interval_adjustment="none"`` uses the
    interval as given.

    Without given intervals (as when only scores are available), the calibrator builds them
    itself: at fit time it fits a logistic model of the label on the score (Platt's sigmoid,
    ``eta = -(a s + b)``) and takes the Wald interval of ``eta`` at each test score, mapped back
    to the score axis: ``s +- z se(s) / |a|``. This keeps ACP's idea, an interval that is wide
    where the prediction is uncertain, for any score.

    Parameters
    ----------
    confidence : float, default=0.95
        Level of the self-built intervals (the paper's 95%). Intervals passed to
        :meth:`predict_proba` keep the level they were built with: choose it there, e.g.
        ``logistic_wald_interval(model, X_train, X, confidence=0.5)`` (see Notes).
    alpha : float, default=0.0
        Opt-in additive smoothing ``(n1 + alpha) / (n + 2 alpha)``; the faithful default 0 can
        output exactly 0 or 1.
    interval_adjustment : {"symmetric", "none"}, default="symmetric"
        How a given interval ``[l, u]`` of a prediction ``p`` becomes its bin. ``"symmetric"``
        is ACP's adjustment as Naeini et al. describe it (the bin "is symmetric around p_in by
        construction"): ``[p - (u - l) / 2, p + (u - l) / 2]``. ``"none"`` takes ``[l, u]``
        itself (for a logistic model, the raw Wald interval, which leans towards 0.5). The
        self-built intervals are symmetric already, so both give the same there.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    table_ : ACPTable
        The sorted calibration scores with cumulative class weights.
    sigmoid_ : PlattSigmoid
        The logistic model of the label on the score behind the self-built intervals.
    covariance_ : ndarray of shape (2, 2)
        Inverse Fisher information of that model's ``(a, b)``, a weight of k counting as k
        examples (it may overflow for scores or weights of extreme magnitude).
    covariance_scaled_ : ndarray of shape (2, 2)
        The same for the slope and intercept on the standardised scores of ``sigmoid_``;
        the intervals are computed from it.

    Notes
    -----
    The self-built intervals come from a model that is monotone in the score, so they are wide
    where the score says little about the label: when the score is not monotone in the
    posterior (e.g. a linear model on XOR data), the fitted slope is near zero, the intervals
    cover most calibration scores, and the output tends to the overall rate. Intervals from the
    model itself (:func:`logistic_wald_interval`) are ACP as published.

    The formula of the adjustment is inferred from Naeini et al.'s description (section 5);
    the methods section of Jiang et al. could not be consulted (see :mod:`venncal.core.acp`).

    The level matters more than the adjustment. In the reproduction of Naeini et al.'s Table 2
    (``venncal reproduce naeini-2014``), 95% intervals make bins that hold half the calibration
    scores or more, and ACP's accuracy and ECE fall far from the paper's ACP rows; on simulated
    designs fitted to the paper's other rows, 50-68% intervals reproduce them, while the
    symmetric adjustment and the raw interval differ by at most 0.011 in any mean. The default
    stays at the 95% the papers state (measurements in
    ``venncal.experiments.studies._naeini_acp``).

    Where the papers are vague: intervals are closed; an interval holding no calibration score
    is widened to the nearest calibration score (the lower one on a tie); weights count as
    examples. See :mod:`venncal.core.acp`.

    References
    ----------
    .. [1] X. Jiang, M. Osl, J. Kim and L. Ohno-Machado, "Calibrating predictive model
       estimates to support personalized medicine", JAMIA 19(2), 263-274, 2012.
    .. [2] M. P. Naeini, G. F. Cooper and M. Hauskrecht (2014), Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.random(2000)
    >>> y = rng.random(2000) < s
    >>> cal = ACPCalibrator().fit(s, y)
    >>> cal.predict_proba([0.2, 0.8])[:, 1].round(1)
    array([0.2, 0.8])

    With intervals from the model, e.g. ``[0.7, 0.9]`` around 0.8:

    >>> cal.predict_proba([0.8], interval=[[0.7, 0.9]])[:, 1].round(1)
    array([0.8])

    A Wald interval leaning towards 0.5, ``[0.6, 0.98]`` around 0.9, gives the bin
    ``[0.71, 1.09]``; unadjusted, the bin reaches down to 0.6 and the value is lower:

    >>> iv = [[0.6, 0.98]]
    >>> adjusted = cal.predict_proba([0.9], interval=iv)[0, 1]
    >>> raw = ACPCalibrator(interval_adjustment="none").fit(s, y).predict_proba([0.9], interval=iv)
    >>> bool(adjusted > raw[0, 1])
    True
    """

    def __init__(
        self,
        *,
        confidence: float = 0.95,
        alpha: float = 0.0,
        interval_adjustment: str = "symmetric",
    ) -> None:
        self.confidence = confidence
        self.alpha = alpha
        self.interval_adjustment = interval_adjustment

    def _check_adjustment(self) -> None:
        check_interval_adjustment(self.interval_adjustment, owner=type(self).__name__)

    def _fit(self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None) -> None:
        owner = type(self).__name__
        check_in_range(self.confidence, 0, 1, name="confidence", owner=owner)
        check_in_range(self.alpha, 0, np.inf, name="alpha", owner=owner, closed="left")
        self._check_adjustment()
        self.table_ = fit_acp(s, y01, w, alpha=self.alpha)
        self.sigmoid_ = sig = fit_platt(s, y01, w)
        # fit_platt always sets the coefficients on the standardised scores
        assert sig.a_scaled is not None and sig.b_scaled is not None
        # the Fisher information on the standardised scores the sigmoid was fitted on: a
        # weight of k is k copies, so it grows with the weights. It is summed with the weights
        # divided by 2**e (finite for weights of any magnitude) and the inverse multiplied back
        # by 2**-e, which is exact: pinv(c A) = pinv(A) / c
        f = _standardise(s, sig.center, sig.scale)
        p = expit(-(sig.a_scaled * f + sig.b_scaled))
        pq = p * (1.0 - p)
        ws, exponent = scaled_sample_weight(w)
        ww = pq if ws is None else pq * ws
        info = np.array([[np.sum(ww * f * f), np.sum(ww * f)], [np.sum(ww * f), np.sum(ww)]])
        big = np.finfo(np.float64).max
        with np.errstate(over="ignore", under="ignore"):
            # weights so small that the covariance passes the largest float give intervals
            # that hold every calibration score either way: keep it finite
            cov = np.ldexp(np.linalg.pinv(info), -exponent)
        self.covariance_scaled_ = np.clip(cov, -big, big)
        # the same in the units of the score: (a, b) = (a_s / scale, b_s - a_s center / scale)
        jac = np.array([[1.0 / sig.scale, 0.0], [-sig.center / sig.scale, 1.0]])
        with np.errstate(over="ignore", invalid="ignore"):
            self.covariance_ = jac @ self.covariance_scaled_ @ jac.T

    def score_interval(self, scores: ArrayLike) -> FloatArray:
        """Return the self-built interval of each test score on the score axis.

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)

        Returns
        -------
        interval : ndarray of shape (m, 2)
            ``s -+ z se(s) / |a|``; the whole real line when the fitted slope is zero.
        """
        s = self._check_predict_input(scores)
        return self._score_interval(s)

    def _score_interval(self, s: FloatArray) -> FloatArray:
        return acp_score_interval(s, self.sigmoid_, self.covariance_scaled_, self.confidence)

    def predict_proba(self, scores: ArrayLike, *, interval: ArrayLike | None = None) -> FloatArray:
        """Return calibrated probabilities of both classes.

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)
            Test predictions on the scale of the calibration scores.
        interval : array-like of shape (m, 2), default=None
            Lower and upper end of each test prediction's confidence interval, on the same
            scale (e.g. from :func:`logistic_wald_interval`). None builds them from the
            calibration set (see the class description).

        Returns
        -------
        proba : ndarray of shape (m, 2)
        """
        s = self._check_predict_input(scores)
        p = predict_acp(
            self.table_,
            s,
            interval,
            adjustment=self.interval_adjustment,
            score_interval=self._score_interval,
            owner=type(self).__name__,
        )
        return self._proba_columns(p)

    def _predict_positive(
        self, s: FloatArray
    ) -> FloatArray:  # used by the base class only through predict_proba
        return self.predict_proba(s)[:, 1]
