"""Beta calibration as a score calibrator."""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal._validation import check_positive_int
from venncal.calibration._base import ScaledScoreCalibrator
from venncal.core.beta import BETA_PARAMETERS, SCORE_SCALES, fit_beta

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from venncal._typing import FloatArray
    from venncal.core.beta import BetaMap

__all__ = ["BetaCalibrator"]


class BetaCalibrator(ScaledScoreCalibrator):
    """Beta calibration of Kull, Silva Filho and Flach: ``logit(p) = a ln s - b ln(1 - s) + c``.

    A logistic regression of the label on ``ln s`` and ``-ln(1 - s)``: the ratio of two Beta
    densities, a family that holds the identity, every sigmoid of ``logit(s)`` (``a = b``) and
    maps that are not sigmoids (``a != b``), which suits classifiers such as naive Bayes whose
    scores are pushed to 0 and 1, or ensembles whose scores are drawn towards the middle.

    By default scores must be probabilities, in [0, 1]; they are clipped to ``[eps, 1 - eps]``
    (machine epsilon of float64) so that 0 and 1 have finite features, and scores outside
    [0, 1] are refused with a clear error, at fit and at prediction. Margins or log-odds (any
    real number) are read with ``score_scale="logit"`` as ``s = 1 / (1 + e^-score)``.

    When the fit gives a negative ``a`` or ``b`` (a decreasing part in the map), the paper's
    rule applies: the feature of the negative coefficient is removed and the model refitted
    with that coefficient at 0, so the map is always non-decreasing.

    Parameters
    ----------
    parameters : {"abm", "am", "ab"}, default="abm"
        ``"abm"``: the full three-parameter model. ``"am"``: ``a = b``, a sigmoid of
        ``logit(s)`` (logistic calibration on the log-odds). ``"ab"``: ``a`` and ``b`` with the
        midpoint fixed at ``m = 1/2`` (no intercept).
    score_scale : {"probability", "logit"}, default="probability"
        How scores are read: probabilities in [0, 1], or log-odds of any real value.
    max_iter : int, default=100
        Most Newton iterations of each logistic fit.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    map_ : BetaMap
        The fitted map.
    a_, b_, c_ : float
        Its coefficients (``a_ >= 0``, ``b_ >= 0``).
    n_iter_ : int
        Newton systems solved in the last logistic fit.
    m_ : float or None
        The midpoint, where the calibrated probability is 1/2 (None if the map is constant or
        never reaches 1/2).

    Notes
    -----
    Sample weights enter the likelihood; only their ratios matter. The logistic fits are
    unregularised maximum likelihood (Newton's method with backtracking); when the scores
    separate the classes no finite maximum exists and a warning is given.

    References
    ----------
    .. [1] M. Kull, T. Silva Filho and P. Flach, "Beta calibration: a well-founded and easily
       implemented improvement on logistic calibration for binary classifiers", AISTATS 2017.
    .. [2] M. Kull, T. M. Silva Filho and P. Flach, "Beyond sigmoids: how to obtain
       well-calibrated probabilities from binary classifiers with beta calibration",
       Electronic Journal of Statistics 11(2), 2017.

    Examples
    --------
    Overconfident scores (pushed towards 0 and 1) are pulled back:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p_true = rng.uniform(0.05, 0.95, size=20000)
    >>> y = rng.random(20000) < p_true
    >>> s = 1 / (1 + np.exp(-3 * np.log(p_true / (1 - p_true))))  # three times the log-odds
    >>> cal = BetaCalibrator().fit(s, y)
    >>> round(cal.a_, 1), round(cal.b_, 1)
    (0.3, 0.3)
    >>> cal.predict_proba([0.5, 0.999])[:, 1].round(2)
    array([0.5 , 0.92])
    """

    map_: BetaMap

    def __init__(
        self, *, parameters: str = "abm", score_scale: str = "probability", max_iter: int = 100
    ) -> None:
        self.parameters = parameters
        self.score_scale = score_scale
        self.max_iter = max_iter

    def _fit(self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None) -> None:
        owner = type(self).__name__
        for name, allowed in (("parameters", BETA_PARAMETERS), ("score_scale", SCORE_SCALES)):
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{owner}: {name!r} must be one of {', '.join(allowed)}; "
                    f"got {getattr(self, name)!r}."
                )
        check_positive_int(self.max_iter, name="max_iter", owner=owner)
        self.map_ = fit_beta(
            s,
            y01,
            w,
            parameters=self.parameters,
            score_scale=self.score_scale,
            max_iter=self.max_iter,
        )
        self.a_, self.b_, self.c_ = self.map_.a, self.map_.b, self.map_.c
        self.m_ = self.map_.m
        self.n_iter_ = self.map_.n_iter
