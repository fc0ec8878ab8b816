"""The isotonic-regression calibrator on 1-D scores."""

from __future__ import annotations

from venncal._validation import check_option
from venncal.calibration._base import BaseScoreCalibrator
from venncal.core.isotonic import fit_isotonic

__all__ = ["IsotonicCalibrator"]


class IsotonicCalibrator(BaseScoreCalibrator):
    """Isotonic-regression calibrator (Zadrozny & Elkan 2002), fitted by PAVA.

    Parameters
    ----------
    rule : {"interpolate", "nearest"}, default="interpolate"
        How a test score between calibration scores is mapped. ``"interpolate"``: linearly
        between the fitted values of its neighbours (as scikit-learn does), constant outside
        the calibration range. ``"nearest"``: the fitted value at the closest calibration
        score, the smaller one on a tie; this is direct isotonic regression (DIR) of Vovk &
        Petej (2014), Section 3.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    step_function_ : IsotonicStepFunction
        Fitted values at the first and last calibration score of each constant block of the
        fit (the breakpoints both rules need).

    Notes
    -----
    Outputs can be exactly 0 or 1, so the log loss of isotonic regression can be infinite
    (Table 1 of Vovk & Petej 2014); this is kept on purpose.

    Examples
    --------
    >>> cal = IsotonicCalibrator(rule="nearest").fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> cal.predict_proba([0.0, 0.26, 0.9])[:, 1]
    array([0. , 0.5, 1. ])
    """

    def __init__(self, *, rule="interpolate"):
        self.rule = rule

    def _fit(self, s, y01, w):
        check_option(self.rule, ("interpolate", "nearest"), name="rule", owner=type(self).__name__)
        self.step_function_ = fit_isotonic(s, y01, sample_weight=w)

    def _predict_positive(self, s):
        return self.step_function_.predict(s, rule=self.rule)
