"""The scaling-binning calibrator (Kumar, Liang & Ma 2019) as a score calibrator."""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal._validation import check_bool
from venncal.calibration._base import BaseScoreCalibrator
from venncal.core.scaling_binning import fit_scaling_binning

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from venncal._typing import FloatArray

__all__ = ["ScalingBinningCalibrator"]


class ScalingBinningCalibrator(BaseScoreCalibrator):
    """Platt's sigmoid, then equal-mass bins of its values (Kumar, Liang & Ma 2019).

    The calibration data are split in two: Platt's sigmoid ``g`` is fitted on the first part,
    the values of ``g`` on the second part are cut into ``n_bins`` bins of equal mass, and a
    score is mapped to the mean of ``g`` over the second part's values in its bin. The output
    takes at most ``n_bins`` values, close to the sigmoid, and its calibration error can be
    measured (a binned estimate over these values is consistent), unlike the sigmoid's own.

    Parameters
    ----------
    n_bins : int, default=10
        Number of equal-mass bins (fewer when values of the sigmoid tie).
    scaling_fraction : float in (0, 1), default=0.5
        Share of the distinct calibration scores whose rows fit the sigmoid; the rows of the
        others make the bins. The distinct scores are dealt to the two parts in turn along the
        score (every other one for one half), so both parts cover the range of the scores and
        the split needs no random numbers.
    smoothing : bool, default=True
        Platt's smoothed targets, with the class totals counted in weight (a weight of ``k``
        is ``k`` examples); False fits plain logistic regression on the score.
    max_iter : int, default=100
        Most Newton iterations of the sigmoid's fit.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    sigmoid_ : PlattSigmoid
        The sigmoid fitted on the first part.
    binning_ : HistogramBinning
        The bins on the sigmoid's values: ``edges`` (equal-mass edges on the second part),
        ``values`` (the mean of the sigmoid over the second part in each bin, the calibrated
        probabilities), ``counts`` and ``positives`` (the second part's weight and positive
        weight per bin).
    n_iter_ : int
        Newton iterations of the sigmoid's fit.

    Notes
    -----
    The paper splits the calibration data at random. This split is deterministic instead
    (``venncal.core.scaling_binning.split_by_score``): a distinct score goes whole, with all its
    rows, to one part, so the fit does not depend on the order of the rows, a weight of ``k``
    equals ``k`` copies of a row (they share its score), and multiplying every weight by a
    constant changes only Platt's smoothed targets, which count weights as examples (none with
    ``smoothing=False``). With a single distinct score both parts take all the data. The
    paper's analysis takes the bin means from a third part; here the second part is used for
    both the bins and their means (the means use no labels). The authors' code does not split
    at all (sigmoid, bins and means on the same data), so its numbers differ from these.

    References
    ----------
    .. [1] A. Kumar, P. Liang and T. Ma, "Verified uncertainty calibration", NeurIPS 2019,
       Section 4.

    Examples
    --------
    Scores from a sigmoid: the calibrated probabilities take one value per bin, the mean of
    the fitted sigmoid over the bin (here the true probabilities are ``1 / (1 + exp(-2 s))``).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=10_000)
    >>> y = rng.random(s.size) < 1 / (1 + np.exp(-2 * s))
    >>> cal = ScalingBinningCalibrator(n_bins=4).fit(s, y)
    >>> cal.binning_.values.round(2)
    array([0.09, 0.34, 0.65, 0.9 ])
    >>> np.unique(cal.predict_proba(s)[:, 1]).size
    4
    """

    def __init__(
        self,
        *,
        n_bins: int = 10,
        scaling_fraction: float = 0.5,
        smoothing: bool = True,
        max_iter: int = 100,
    ) -> None:
        self.n_bins = n_bins
        self.scaling_fraction = scaling_fraction
        self.smoothing = smoothing
        self.max_iter = max_iter

    def _fit(self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None) -> None:
        owner = type(self).__name__
        smoothing = check_bool(self.smoothing, name="smoothing", owner=owner)
        try:
            fit = fit_scaling_binning(
                s,
                y01,
                w,
                n_bins=self.n_bins,
                scaling_fraction=self.scaling_fraction,
                smoothing=smoothing,
                max_iter=self.max_iter,
            )
        except ValueError as exc:
            raise ValueError(str(exc).replace("fit_scaling_binning", owner)) from None
        self.sigmoid_ = fit.sigmoid
        self.binning_ = fit.binning
        self.n_iter_ = fit.sigmoid.n_iter

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        return self.binning_.predict(self.sigmoid_.predict(s))
