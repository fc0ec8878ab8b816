"""Binned calibration error: the reliability curve, ECE, MCE and a debiased ECE."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast, overload

import numpy as np

from venncal._validation import check_bool, check_in_range
from venncal.metrics._common import (
    assign_bins,
    bin_edges,
    bin_index,
    binned_sums,
    check_n_bins,
    fill_doc,
    prepare,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import ArrayLike, BoolArray, FloatArray

__all__ = ["ReliabilityCurve", "reliability_curve", "ece", "mce", "debiased_ece"]


@dataclass(frozen=True)
class ReliabilityCurve:
    """Per-bin statistics of probabilistic predictions; every bin is kept, empty or not.

    Attributes
    ----------
    bin_edges : ndarray of shape (n_bins + 1,)
        Edges from 0 to 1; bin ``i`` is ``[bin_edges[i], bin_edges[i+1])``, the last one closed.
    counts : ndarray of shape (n_bins,)
        Number of predictions in each bin (total weight when weighted); 0 for an empty bin.
        A total beyond the float range (weights near 1e308) is ``inf``; the frequencies are
        computed from rescaled weights and stay exact.
    positives : ndarray of shape (n_bins,)
        Number (weight) of positive labels in each bin.
    observed : ndarray of shape (n_bins,)
        Observed frequency of the positive class ``o_i``; NaN for an empty bin.
    predicted : ndarray of shape (n_bins,)
        Mean predicted probability ``e_i``; NaN for an empty bin.
    strategy : str
        ``"uniform"`` or ``"quantile"``.
    """

    bin_edges: FloatArray
    counts: FloatArray
    positives: FloatArray
    observed: FloatArray
    predicted: FloatArray
    strategy: str

    @property
    def n_bins(self) -> int:
        """Number of bins, empty ones included."""
        return int(self.counts.shape[0])

    @property
    def nonempty(self) -> BoolArray:
        """Boolean mask of the bins that hold at least one prediction."""
        return self.counts > 0

    @property
    def weights(self) -> FloatArray:
        """Share ``P(i)`` of the predictions that fall in each bin (sums to one)."""
        c = self.counts / self.counts.max()  # no overflow of the total for huge weights
        share: FloatArray = c / c.sum()
        return share

    @property
    def gaps(self) -> FloatArray:
        """``|o_i - e_i|`` per bin; NaN for an empty bin."""
        return np.abs(self.observed - self.predicted)

    def confidence_interval(self, confidence_level: float = 0.95) -> tuple[FloatArray, FloatArray]:
        """Exact (Clopper-Pearson) binomial interval for the positive frequency of each bin.

        The counts are read as numbers of trials; with fractional sample weights the interval
        treats the weights as counts.

        Parameters
        ----------
        confidence_level : float in (0, 1), default=0.95

        Returns
        -------
        lower, upper : ndarray of shape (n_bins,)
            NaN for an empty bin.
        """
        from scipy.stats import beta

        level = check_in_range(
            confidence_level, 0, 1, name="confidence_level", owner="confidence_interval"
        )
        alpha = 1.0 - level
        n, k = self.counts, self.positives
        with np.errstate(invalid="ignore", divide="ignore"):
            lower = np.where(k > 0, beta.ppf(alpha / 2, k, n - k + 1), 0.0)
            upper = np.where(k < n, beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
        empty = n <= 0
        lower[empty] = np.nan
        upper[empty] = np.nan
        return lower, upper


@fill_doc
def reliability_curve(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> ReliabilityCurve:
    """Bin the predictions and return per-bin counts, observed and predicted frequencies.

    Unlike scikit-learn's ``calibration_curve``, empty bins are kept (with count 0 and NaN
    frequencies), so that bin ``i`` always means the same probability range.

    Parameters
    ----------
    {y_true, y_proba}
    n_bins : int, default=10
        Number of bins, at most 10**6 (the result holds one value per bin).
    strategy : {"uniform", "quantile"}, default="uniform"
        ``"uniform"``: equal-width bins ``[0, .1), [.1, .2), ..., [.9, 1]`` (Naeini et al.
        2015). ``"quantile"``: edges at quantiles of the predictions (equal-mass bins).
    {sample_weight, pos_label}

    Returns
    -------
    ReliabilityCurve

    Examples
    --------
    >>> curve = reliability_curve([0, 1, 1, 1], [0.05, 0.3, 0.35, 0.95], n_bins=4)
    >>> curve.counts
    array([1., 2., 0., 1.])
    >>> curve.observed.tolist()
    [0.0, 1.0, nan, 1.0]
    """
    y, p, w, scale = prepare(y_true, y_proba, sample_weight, return_scale=True, pos_label=pos_label)
    edges = bin_edges(p, w, n_bins, strategy, owner="reliability_curve")
    # equal-width bins are found from the grid, without a search over the edges
    idx = (
        bin_index(p, w, n_bins, strategy, "reliability_curve")
        if strategy == "uniform"
        else assign_bins(p, edges)
    )
    k = edges.shape[0] - 1
    # numpy's stubs type every bincount as integer; with weights it is float64
    counts = cast("FloatArray", np.bincount(idx, weights=w, minlength=k))
    positives = cast("FloatArray", np.bincount(idx, weights=w * y, minlength=k))
    sum_p = cast("FloatArray", np.bincount(idx, weights=w * p, minlength=k))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.where(counts > 0, positives / counts, np.nan)
        predicted = np.where(counts > 0, sum_p / counts, np.nan)
    with np.errstate(over="ignore"):  # totals beyond the float range are reported as inf
        counts, positives = counts * scale, positives * scale
    return ReliabilityCurve(edges, counts, positives, observed, predicted, strategy)


@overload
def _occupied_bins(
    y: npt.NDArray[np.int8],
    p: FloatArray,
    w: FloatArray | None,
    n_bins: int,
    strategy: str,
    owner: str,
    *,
    with_n_eff: Literal[False] = ...,
) -> tuple[FloatArray, FloatArray, FloatArray, None]: ...
@overload
def _occupied_bins(
    y: npt.NDArray[np.int8],
    p: FloatArray,
    w: FloatArray | None,
    n_bins: int,
    strategy: str,
    owner: str,
    *,
    with_n_eff: Literal[True],
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]: ...
def _occupied_bins(
    y: npt.NDArray[np.int8],
    p: FloatArray,
    w: FloatArray | None,
    n_bins: int,
    strategy: str,
    owner: str,
    *,
    with_n_eff: bool = False,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray | None]:
    """Per occupied bin: share of the weight, observed and mean predicted frequency, and (with
    ``with_n_eff``, else None) the effective number of predictions ``(sum w)^2 / sum w^2``.
    Work and memory depend on the data only, whatever ``n_bins``. ``y`` and ``w`` as
    :func:`prepare` returns them with ``lean=True`` (``w=None`` for equal weights)."""
    n_bins = check_n_bins(n_bins, owner)
    idx = bin_index(p, w, n_bins, strategy, owner=owner)
    sum_w2: FloatArray | None
    if w is None:  # equal weights: the weight of a bin is its count, and so is its sum of w^2
        _, _, (counts, positives, sum_p) = binned_sums(idx, None, y, p, n_bins=n_bins)
        sum_w2 = counts
    else:
        columns = (w, w * y, w * p) + ((w * w,) if with_n_eff else ())
        _, _, (counts, positives, sum_p, *squares) = binned_sums(idx, *columns, n_bins=n_bins)
        sum_w2 = squares[0] if with_n_eff else None
    keep = counts > 0
    counts, positives, sum_p = counts[keep], positives[keep], sum_p[keep]
    n_eff = counts * (counts / sum_w2[keep]) if with_n_eff and sum_w2 is not None else None
    return counts / counts.sum(), positives / counts, sum_p / counts, n_eff


@fill_doc
def ece(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> float:
    """Expected calibration error ``ECE = sum_i P(i) |o_i - e_i|`` over the bins.

    Parameters
    ----------
    {y_true, y_proba, n_bins}
    strategy : {"uniform", "quantile"}, default="uniform"
        The default is the definition of Naeini et al. (2015): ten bins
        ``[0, .1), [.1, .2), ..., [.9, 1]``.
    {sample_weight, pos_label}

    Returns
    -------
    ece : float
        In [0, 1]. ``P(i)`` is the share of predictions in bin ``i``, ``o_i`` the observed
        frequency of positives and ``e_i`` the mean prediction there.

    Notes
    -----
    This is the binary ECE of Naeini et al.: the probability of the positive class is binned.
    The "confidence" (top-label) ECE of deep-learning papers bins ``max(p, 1 - p)`` against
    accuracy instead, and generally gives a different number; pass
    ``np.maximum(p, 1 - p)`` and ``y == (p > 0.5)`` to get it.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Obtaining well calibrated probabilities using Bayesian
    binning" (AAAI 2015), Section "Empirical results", the ECE formula.

    Examples
    --------
    >>> ece([0, 1, 1, 1], [0.05, 0.3, 0.35, 0.95])  # (.05 + 2 * .675 + .05) / 4
    0.3625

    Labels drawn from the predicted probabilities give a small ECE:

    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(100_000)
    >>> bool(ece(rng.random(p.size) < p, p) < 0.01)
    True
    """
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label, lean=True)
    share, observed, predicted, _ = _occupied_bins(y, p, w, n_bins, strategy, owner="ece")
    return float((share * np.abs(observed - predicted)).sum())


@fill_doc
def mce(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> float:
    """Maximum calibration error ``MCE = max_i |o_i - e_i|`` over the non-empty bins.

    Parameters
    ----------
    {y_true, y_proba, n_bins}
    strategy : {"uniform", "quantile"}, default="uniform"
        As for :func:`ece`.
    {sample_weight, pos_label}

    Returns
    -------
    mce : float
        In [0, 1].

    References
    ----------
    Naeini, Cooper & Hauskrecht (AAAI 2015), Section "Empirical results", the MCE formula.

    Examples
    --------
    >>> mce([0, 1, 1, 1], [0.05, 0.3, 0.35, 0.95])
    0.675
    """
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label, lean=True)
    _, observed, predicted, _ = _occupied_bins(y, p, w, n_bins, strategy, owner="mce")
    return float(np.max(np.abs(observed - predicted)))


@fill_doc
def debiased_ece(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    squared: bool = False,
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> float:
    """Debiased estimate of the binned L2 calibration error.

    The plug-in ``sum_i P(i) (o_i - e_i)^2`` is biased upwards: even perfectly calibrated
    predictions give a positive value, because ``o_i`` is noisy. Since
    ``E[(o_i - e_i)^2] = (mu_i - e_i)^2 + mu_i (1 - mu_i) / n_i``, subtracting the unbiased
    variance estimate ``o_i (1 - o_i) / (n_i - 1)`` in each bin gives an unbiased estimate of
    the squared binned calibration error (Kumar, Liang & Ma 2019, Definition 5.3; Bröcker 2012).

    Parameters
    ----------
    {y_true, y_proba}
    n_bins : int, default=10
        Number of bins. Bins holding a single prediction are left out of the correction (their
        variance cannot be estimated) and contribute their plug-in term.
    strategy : {"uniform", "quantile"}, default="uniform"
        As for :func:`ece`. Kumar et al. recommend equal-mass bins (``"quantile"``).
    squared : bool, default=False
        Return the (unbiased, possibly negative) estimate of the squared error. Otherwise return
        the square root of its positive part, on the scale of the ECE.
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights. In a weighted bin the number of predictions ``n_i`` of the
        correction is the effective number ``(sum w)^2 / sum w^2`` (Kish), which equals the count
        for equal weights and does not change when every weight is multiplied by a constant.
    {pos_label}

    Returns
    -------
    error : float

    References
    ----------
    Kumar, Liang & Ma, "Verified uncertainty calibration" (NeurIPS 2019), Section 5.

    Examples
    --------
    On calibrated predictions the plug-in estimate is biased up, the debiased one is not:

    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2_000)
    >>> y = rng.random(p.size) < p
    >>> naive = ece(y, p, n_bins=50) ** 2
    >>> bool(abs(debiased_ece(y, p, n_bins=50, squared=True)) < naive / 3)
    True
    """
    squared = check_bool(squared, name="squared", owner="debiased_ece")
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label, lean=True)
    share, o, e, n = _occupied_bins(
        y, p, w, n_bins, strategy, owner="debiased_ece", with_n_eff=True
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(n > 1, o * (1.0 - o) / (n - 1.0), 0.0)
    value = float((share * ((o - e) ** 2 - var)).sum())
    if squared:
        return value
    return float(np.sqrt(max(value, 0.0)))
