"""Quadratic scaling as a score calibrator."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_option, check_positive_int
from venncal.calibration._base import ScaledScoreCalibrator
from venncal.core.beta import SCORE_SCALES
from venncal.core.quadratic import MONOTONE_RULES, fit_quadratic

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import FloatArray
    from venncal.core.quadratic import QuadraticMap

__all__ = ["QuadraticCalibrator"]


class QuadraticCalibrator(ScaledScoreCalibrator):
    """Quadratic scaling: ``p = sigmoid(b + w1 z + w2 z^2)`` of the log-odds ``z`` of the score.

    A logistic regression of the label on the log-odds and their square: Platt's sigmoid of the
    log-odds (``w2 = 0``) with one more parameter that bends the map, for classifiers whose
    log-odds are too sharp on one side and too flat on the other. The fit is unpenalised
    maximum likelihood by Newton's method with backtracking on standardised features,
    converged to the minimiser; a weight of k counts as k copies of a row.

    By default scores must be probabilities, in [0, 1], read as ``z = logit(s)`` with ``s``
    clipped to ``[eps, 1 - eps]`` (machine epsilon of float64) so that 0 and 1 have finite
    log-odds; scores outside [0, 1] are refused with a clear error, at fit and at prediction.
    Margins or log-odds (any real number) are read as ``z`` itself with
    ``score_scale="logit"``.

    **Monotonicity.** A quadratic decreases beyond its vertex. The calibrated probability is
    always non-decreasing in the score: when the maximum-likelihood quadratic decreases over
    part of the calibration scores, ``monotone`` decides what replaces it (by default the most
    likely quadratic that does not decrease over them, whose vertex is then an end of their
    range), and beyond the vertex the map is held constant, so that extrapolation never
    decreases either.

    Parameters
    ----------
    score_scale : {"probability", "logit"}, default="probability"
        How scores are read: probabilities in [0, 1], or log-odds of any real value.
    monotone : {"constrained", "affine", "clip"}, default="constrained"
        What replaces a fit that decreases over the calibration scores. ``"constrained"``: the
        maximum-likelihood quadratic among those non-decreasing over the calibration scores.
        ``"affine"``: the affine fit (Platt's sigmoid of ``z`` without smoothing; a constant if
        its slope is negative). ``"clip"``: the fit itself, held constant beyond its vertex.
        On eight benchmark datasets with three classifiers the constrained rule gave the lowest
        mean held-out log loss, 0.359 against 0.363 (affine) and 0.375 (clip), the unbent fit
        decreasing in 133 of 240 fits (``benchmarks/bench_quadratic.py``, BENCHMARKS.md).
    max_iter : int, default=100
        Most Newton iterations of each logistic fit.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    map_ : QuadraticMap
        The fitted map (:class:`venncal.core.quadratic.QuadraticMap`).
    intercept_ : float
        ``b``.
    coef_ : ndarray of shape (2,)
        ``(w1, w2)``: ``p = sigmoid(intercept_ + coef_[0] z + coef_[1] z^2)`` between the
        limits where the map is held constant (these may round or overflow for log-odds of
        extreme magnitude; the map predicts from standardised log-odds).
    form_ : {"quadratic", "affine", "constant"}
        What the fitted map is.
    n_iter_ : int
        Newton systems solved by the last logistic fit.

    Warns
    -----
    VenncalWarning
        When a quadratic of the score separates the classes: the likelihood then has no finite
        maximiser, and the map returned is the steep one where Newton's method stops.

    Notes
    -----
    The fitted map is scale-free on the ``"logit"`` scale: multiplying every score by a
    positive constant gives the same probabilities.

    References
    ----------
    .. [1] E. Berta, D. Holzmueller, M. I. Jordan and F. Bach, "Structured matrix scaling for
       multi-class calibration", AISTATS 2026 (arXiv:2511.03685).

    Examples
    --------
    Log-odds that are too sharp for positive scores and right for negative ones need a bend
    that Platt's sigmoid cannot give:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=20000)
    >>> true = np.where(z > 0, 0.5 * z, z)  # the real log-odds
    >>> y = rng.random(20000) < 1 / (1 + np.exp(-true))
    >>> cal = QuadraticCalibrator(score_scale="logit").fit(z, y)
    >>> cal.form_, round(float(cal.coef_[1]), 2)
    ('quadratic', -0.1)
    >>> cal.predict_proba([-2.0, 0.0, 2.0])[:, 1].round(2)
    array([0.12, 0.47, 0.73])
    """

    _method = "Quadratic scaling"
    map_: QuadraticMap

    def __init__(
        self,
        *,
        score_scale: str = "probability",
        monotone: str = "constrained",
        max_iter: int = 100,
    ) -> None:
        self.score_scale = score_scale
        self.monotone = monotone
        self.max_iter = max_iter

    def _fit(self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None) -> None:
        owner = type(self).__name__
        check_option(self.score_scale, SCORE_SCALES, name="score_scale", owner=owner)
        check_option(self.monotone, MONOTONE_RULES, name="monotone", owner=owner)
        check_positive_int(self.max_iter, name="max_iter", owner=owner)
        self.map_ = fit_quadratic(
            s,
            y01,
            w,
            score_scale=self.score_scale,
            monotone=self.monotone,
            max_iter=self.max_iter,
        )
        b, w1, w2 = self.map_.coefficients
        self.intercept_ = b
        self.coef_ = np.array([w1, w2])
        self.form_ = self.map_.form
        self.n_iter_ = self.map_.n_iter
