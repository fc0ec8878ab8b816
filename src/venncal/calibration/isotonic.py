"""The isotonic-regression calibrator on 1-D scores."""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal._validation import check_option
from venncal.calibration._base import BaseScoreCalibrator
from venncal.calibration._counts import CountCalibratorMixin
from venncal.core.isotonic import fit_isotonic

if TYPE_CHECKING:
    from venncal._typing import FloatArray
    from venncal.core.counts import CountTable

__all__ = ["IsotonicCalibrator"]


class IsotonicCalibrator(CountCalibratorMixin, BaseScoreCalibrator):
    """Isotonic-regression calibrator (Zadrozny & Elkan 2002), fitted by PAVA.

    Parameters
    ----------
    rule : {"interpolate", "nearest"}, default="interpolate"
        How a test score between calibration scores is mapped. ``"interpolate"``: linearly
        between the fitted values of its neighbours (as scikit-learn does), constant outside
        the calibration range. ``"nearest"``: the fitted value at the closest calibration
        score, the smaller one on a tie; this is direct isotonic regression (DIR) of Vovk &
        Petej (2014), Section 3.
    decimals : int or None, default=None
        Round every score (calibration and test alike) to this many decimal places before
        use, to bound the number of distinct scores; recorded as ``decimals_``. None: no
        rounding.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    step_function_ : IsotonicStepFunction
        Fitted values at the first and last calibration score of each constant block of the
        fit (the breakpoints both rules need).
    {aggregate_, decimals_}

    Notes
    -----
    The fit depends on the calibration data only through the number of negatives and
    positives at each distinct score: aggregated rows (one per distinct score and label) with
    their counts, by :meth:`fit_aggregate` or as ``sample_weight``, give the fit on the
    expanded rows bit for bit, and :meth:`partial_fit` equals refitting on the union.

    Outputs can be exactly 0 or 1, so the log loss of isotonic regression can be infinite
    (Table 1 of Vovk & Petej 2014); this is kept on purpose.

    Examples
    --------
    >>> cal = IsotonicCalibrator(rule="nearest").fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> cal.predict_proba([0.0, 0.26, 0.9])[:, 1]
    array([0. , 0.5, 1. ])
    """

    def __init__(self, *, rule: str = "interpolate", decimals: int | None = None) -> None:
        self.rule = rule
        self.decimals = decimals

    def _fit_table(self, table: CountTable) -> None:
        check_option(self.rule, ("interpolate", "nearest"), name="rule", owner=type(self).__name__)
        # only the ratios of the weights matter: the table's units (a power of two) will do
        scores, y01, weight = table.rows(absolute=False)
        self.step_function_ = fit_isotonic(scores, y01, sample_weight=weight)

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        return self.step_function_.predict(s, rule=self.rule)
