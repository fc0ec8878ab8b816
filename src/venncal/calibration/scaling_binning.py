"""The scaling-binning calibrator (Kumar, Liang & Ma 2019) as a score calibrator."""

from __future__ import annotations

from venncal._validation import check_bool, check_random_state
from venncal.calibration._base import BaseScoreCalibrator
from venncal.core.scaling_binning import fit_scaling_binning

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
        Share of the calibration weight that fits the sigmoid; the rest makes the bins.
    shuffle : bool, default=False
        Put the rows in a random order (``random_state``) before the split. By default the
        split follows the order of the rows: the first ``scaling_fraction`` of the total
        weight fits the sigmoid, so that a weight of ``k`` equals ``k`` adjacent copies of a
        row. With ``shuffle=True`` each row goes whole to one part of a random split.
    random_state : None, int or numpy Generator, default=None
        Seed of the shuffle; used only with ``shuffle=True``.
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
    With ``shuffle=False`` (the default) the split depends on the order of the rows: a file
    sorted by label or by score puts one kind of example in one part. Shuffle such data first,
    or pass ``shuffle=True``. A warning is given when the first part holds one class only.
    The paper's analysis takes the bin means from a third part; like its authors' code, the
    second part is used for both the bins and their means (the means use no labels).

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
    array([0.09, 0.35, 0.66, 0.9 ])
    >>> cal.predict_proba([-3.0, 0.0, 3.0])[:, 1].round(2)
    array([0.09, 0.35, 0.9 ])
    """

    def __init__(
        self,
        *,
        n_bins=10,
        scaling_fraction=0.5,
        shuffle=False,
        random_state=None,
        smoothing=True,
        max_iter=100,
    ):
        self.n_bins = n_bins
        self.scaling_fraction = scaling_fraction
        self.shuffle = shuffle
        self.random_state = random_state
        self.smoothing = smoothing
        self.max_iter = max_iter

    def _fit(self, s, y01, w):
        owner = type(self).__name__
        smoothing = check_bool(self.smoothing, name="smoothing", owner=owner)
        rng = check_random_state(self.random_state, owner=owner)  # checked even if unused
        if check_bool(self.shuffle, name="shuffle", owner=owner):
            order = rng.permutation(s.shape[0])
            s, y01 = s[order], y01[order]
            w = None if w is None else w[order]
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

    def _predict_positive(self, s):
        return self.binning_.predict(self.sigmoid_.predict(s))
