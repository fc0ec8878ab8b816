"""Platt scaling as a score calibrator."""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal._validation import check_bool, check_positive_int
from venncal.calibration._base import BaseScoreCalibrator
from venncal.core.platt import fit_platt

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from venncal._typing import FloatArray

__all__ = ["PlattCalibrator"]


class PlattCalibrator(BaseScoreCalibrator):
    """Platt's sigmoid ``1 / (1 + exp(a s + b))`` of the score, fitted by maximum likelihood.

    The fit uses Platt's smoothed targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)`` and the
    Newton method with backtracking of Lin, Lin & Weng (2007), run on standardised scores, so
    that the probabilities do not depend on the units of the score (scores of 1e-10 give the
    same probabilities as the same scores times 1e10). A sample weight of k is k copies of the
    example, so ``N+`` and ``N-`` are the class totals of the weights (fractional weights
    count as fractions of an example): multiplying all weights by a constant moves the targets,
    as repeating every row would.

    Parameters
    ----------
    smoothing : bool, default=True
        Use Platt's smoothed targets; False fits plain logistic regression on the score, which
        has no finite solution when the score separates the classes (a warning is then given).
    max_iter : int, default=100
        Most Newton iterations.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    a_, b_ : float
        The fitted slope and intercept (Platt's sign convention: ``a_ < 0`` when larger scores
        mean positive).
    n_iter_ : int
        Newton iterations run.

    References
    ----------
    .. [1] J. Platt, "Probabilistic outputs for support vector machines", 1999.
    .. [2] H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's probabilistic outputs for
       support vector machines", Machine Learning 68, 2007, Algorithm 1.

    Examples
    --------
    Scores simulated from a sigmoid get that sigmoid back:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=20000)
    >>> y = rng.random(20000) < 1 / (1 + np.exp(-3 * s))
    >>> cal = PlattCalibrator().fit(s, y)
    >>> round(cal.a_, 1), round(abs(cal.b_), 1)
    (-3.0, 0.0)
    >>> cal.predict_proba([0.0, 1.0])[:, 1].round(2)
    array([0.5 , 0.95])
    """

    def __init__(self, *, smoothing: bool = True, max_iter: int = 100) -> None:
        self.smoothing = smoothing
        self.max_iter = max_iter

    def _fit(self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None) -> None:
        check_positive_int(self.max_iter, name="max_iter", owner=type(self).__name__)
        self.sigmoid_ = fit_platt(
            s,
            y01,
            w,
            smoothing=check_bool(self.smoothing, name="smoothing", owner=type(self).__name__),
            max_iter=self.max_iter,
        )
        self.a_ = self.sigmoid_.a
        self.b_ = self.sigmoid_.b
        self.n_iter_ = self.sigmoid_.n_iter

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        return self.sigmoid_.predict(s)
