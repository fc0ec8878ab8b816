"""Histogram binning as a score calibrator."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

from venncal.calibration._base import BaseScoreCalibrator
from venncal.calibration._counts import CountCalibratorMixin
from venncal.core.histogram import _DENSE_BINS, fit_histogram, fit_histogram_counts

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from venncal._typing import FloatArray
    from venncal.core.counts import CountTable

__all__ = ["HistogramCalibrator"]


class HistogramCalibrator(CountCalibratorMixin, BaseScoreCalibrator):
    """Histogram binning (Zadrozny & Elkan 2001): each bin predicts its fraction of positives.

    Parameters
    ----------
    n_bins : int, default=10
        Number of bins. Any size is accepted: beyond the number of calibration scores (and
        100,000), runs of empty bins are stored as one bin, so time and memory grow with the
        data, not with ``n_bins``.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins over the range of the calibration scores, or bins holding equal
        (weighted) numbers of calibration examples (coinciding quantile edges are merged).
    alpha : float, default=0.0
        Opt-in additive smoothing ``(n1 + alpha) / (n + 2 alpha)``. The faithful default 0 can
        output exactly 0 or 1 (infinite log loss); ``alpha=1`` keeps outputs inside (0, 1).
        ``alpha`` is a number of examples, and a sample weight of k counts as k examples.
    decimals : int or None, default=None
        Round every score (calibration and test alike) to this many decimal places before
        use; recorded as ``decimals_``. None: no rounding.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    bin_edges_ : ndarray of shape (n_bins + 1,)
    bin_counts_ : ndarray of shape (n_bins,)
        Weighted calibration examples per bin; an empty bin predicts the overall rate.
    binning_ : HistogramBinning
    {aggregate_, decimals_}

    Notes
    -----
    The fit depends on the calibration data only through the weight of negatives and
    positives at each distinct score: quantile edges are weighted quantiles, which pooling
    tied scores does not move. :meth:`fit_aggregate` on aggregated rows (one per distinct
    score and label) with their counts gives the fit on the expanded rows bit for bit, and so
    does ``sample_weight=counts`` (a weight of k is k copies of the row). :meth:`partial_fit`
    equals refitting on the union.

    References
    ----------
    .. [1] B. Zadrozny and C. Elkan, "Obtaining calibrated probability estimates from decision
       trees and naive Bayesian classifiers", ICML 2001.

    Examples
    --------
    >>> cal = HistogramCalibrator(n_bins=2).fit([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0, 0, 1, 0, 1, 1])
    >>> cal.predict_proba([0.15, 0.85])[:, 1].round(3)
    array([0.333, 0.667])
    """

    def __init__(
        self,
        *,
        n_bins: int = 10,
        strategy: str = "uniform",
        alpha: float = 0.0,
        decimals: int | None = None,
    ) -> None:
        self.n_bins = n_bins
        self.strategy = strategy
        self.alpha = alpha
        self.decimals = decimals

    def _fit_table(self, table: CountTable) -> None:
        try:
            self.binning_ = fit_histogram_counts(
                table.values,
                table.n0,
                table.n1,
                n_bins=self.n_bins,
                strategy=self.strategy,
                alpha=self.alpha,
                mean_weight=2.0**-table.exponent,  # a weight of k is k examples
                unit=2.0**table.exponent,
            )
        except ValueError as exc:
            raise ValueError(str(exc).replace("fit_histogram_counts", "fit_histogram")) from None
        self.bin_edges_ = self.binning_.edges
        self.bin_counts_ = self.binning_.counts

    def _fit_without_table(
        self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None
    ) -> bool:
        # equal-width bins of unweighted rows: the rows' fit is their table's bit for bit (the
        # sums are whole numbers, the edges depend on min and max only, and both keep every
        # bin up to _DENSE_BINS), without the sort that builds the table
        n_bins = self.n_bins
        if w is not None or self.strategy != "uniform" or isinstance(n_bins, bool):
            return False
        if not isinstance(n_bins, numbers.Integral) or not 1 <= n_bins <= _DENSE_BINS:
            return False
        self.binning_ = fit_histogram(s, y01, n_bins=int(n_bins), alpha=self.alpha)
        self.bin_edges_ = self.binning_.edges
        self.bin_counts_ = self.binning_.counts
        return True

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        return self.binning_.predict(s)
