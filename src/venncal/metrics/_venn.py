"""Metrics for the multiprobability outputs ``(p0, p1)`` of Venn and Venn-Abers predictors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import (
    check_consistent_length,
    check_in_range,
    check_labels_pos,
    check_option,
    check_probabilities,
)
from venncal.metrics._common import assign_bins, bin_edges, fill_doc, prepare_interval

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, BoolArray, FloatArray

__all__ = ["interval_width", "IntervalValidity", "interval_validity", "merge_regret"]


def interval_width(p0: ArrayLike, p1: ArrayLike | None = None) -> float:
    """Mean width ``|p1 - p0|`` of the probability intervals; smaller is more informative.

    Parameters
    ----------
    p0 : array-like of shape (n, 2) or (n,)
        The intervals as ``predict_interval`` returns them (lower end in column 0), or, with
        ``p1``, the lower ends alone.
    p1 : array-like of shape (n,), default=None
        The upper ends, when ``p0`` holds the lower ends. Each pair has ``p0 <= p1`` (a
        crossed pair raises a ``ValueError`` rather than giving a negative width).

    Returns
    -------
    width : float
        In [0, 1].

    References
    ----------
    Johansson et al., "Venn predictors and Venn-Abers predictors for random forests",
    Section 4 ("interval size").

    Examples
    --------
    >>> interval_width([[0.2, 0.3], [0.5, 0.9]])
    0.25
    >>> interval_width([0.2, 0.5], [0.3, 0.9])  # the ends apart
    0.25
    """
    p0, p1 = prepare_interval(p0, p1, owner="interval_width")
    return float(np.mean(np.maximum(p1 - p0, 0.0)))


@dataclass(frozen=True)
class IntervalValidity:
    """Whether observed frequencies fall inside the Venn intervals, overall and per bin.

    Attributes
    ----------
    target : str
        ``"frequency"`` (frequency of the positive class against ``[p0, p1]``) or
        ``"accuracy"`` (share of correct predictions against the interval of the predicted
        class).
    observed : float
        Overall observed frequency (or accuracy).
    lower, upper : float
        Means of the lower and upper ends of the intervals.
    valid : bool
        ``lower <= observed <= upper``.
    bin_edges : ndarray of shape (n_bins + 1,)
        Edges of the bins of the interval midpoints ``(p0 + p1) / 2``.
    counts : ndarray of shape (n_bins,)
        Predictions per bin; 0 for an empty bin.
    bin_observed, bin_lower, bin_upper : ndarray of shape (n_bins,)
        Per-bin observed frequency (or accuracy) and mean interval ends; NaN when empty.
    bin_valid : ndarray of shape (n_bins,), dtype bool
        Whether each non-empty bin's observed value is inside its mean interval (False when
        empty).
    std_error : float
        Binomial standard error ``sqrt(q (1 - q) / n)`` of the observed frequency, at the point
        ``q`` of ``[lower, upper]`` nearest to it (``q = observed`` when inside): how far the
        observed frequency moves by test-set sampling alone if the true frequency were in the
        interval.
    bin_std_error : ndarray of shape (n_bins,)
        The same for each bin, ``sqrt(q_b (1 - q_b) / n_b)``; NaN when empty.
    """

    target: str
    observed: float
    lower: float
    upper: float
    valid: bool
    bin_edges: FloatArray
    counts: FloatArray
    bin_observed: FloatArray
    bin_lower: FloatArray
    bin_upper: FloatArray
    bin_valid: BoolArray
    std_error: float = float("nan")
    bin_std_error: FloatArray | None = field(default=None)

    @property
    def fraction_valid(self) -> float:
        """Share of the non-empty bins whose observed value is inside the interval."""
        nonempty = self.counts > 0
        return float(self.bin_valid[nonempty].mean())

    @property
    def miss(self) -> float:
        """Distance from ``observed`` to ``[lower, upper]``; 0 when inside."""
        return float(max(self.lower - self.observed, self.observed - self.upper, 0.0))

    @property
    def bin_miss(self) -> FloatArray:
        """Per-bin distance from the observed value to the mean interval; NaN when empty."""
        gap = np.maximum(self.bin_lower - self.bin_observed, self.bin_observed - self.bin_upper)
        return np.where(self.counts > 0, np.maximum(gap, 0.0), np.nan)


@fill_doc
def interval_validity(
    y_true: ArrayLike,
    p0: ArrayLike,
    p1: ArrayLike | None = None,
    *,
    target: str = "frequency",
    n_bins: int = 10,
    strategy: str = "uniform",
    tol: float = 0.0,
    pos_label: object = None,
) -> IntervalValidity:
    """Check that observed frequencies (or accuracies) fall inside the Venn intervals.

    Parameters
    ----------
    {y_true}
    p0 : array-like of shape (n, 2) or (n,)
        The intervals of the positive class's probability as ``predict_interval`` returns
        them (lower end in column 0), or, with ``p1``, the lower ends alone.
    p1 : array-like of shape (n,), default=None
        The upper ends, when ``p0`` holds the lower ends.
    target : {"frequency", "accuracy"}, default="frequency"
        ``"frequency"``: the frequency of the positive class is compared with the mean
        interval ``[min(p0, p1), max(p0, p1)]``. ``"accuracy"``, as in Johansson et al.: the
        predicted label is 1 when the midpoint exceeds 1/2, and the share of correct labels is
        compared with the interval for the predicted class (``[p0, p1]`` for label 1,
        ``[1 - p1, 1 - p0]`` for label 0).
    n_bins : int, default=10
        Bins of the interval midpoints for the per-bin check.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-mass bins.
    tol : float in [0, 1], default=0.0
        Slack: ``observed`` counts as inside when within ``tol`` of the interval.
    {pos_label}

    Raises
    ------
    ValueError
        If ``p0 > p1`` for some prediction (beyond rounding, 1e-9): a crossed interval is not
        an interval. Also for bad labels, probabilities or options, naming the parameter.

    Returns
    -------
    IntervalValidity

    Notes
    -----
    The validity of Venn predictors (Vovk & Petej 2014, Theorem 1) holds on average over the
    random calibration set as well as the test objects. With one fixed, small calibration set
    and a large test set, the per-bin frequencies are measured precisely while the intervals
    carry the noise of the calibration set, so some bins fall outside even for a valid
    predictor; the overall check (``valid``) is the one of Johansson et al. It is exact and
    ignores the noise of the test set: compare ``miss`` with ``std_error`` (and ``bin_miss``
    with ``bin_std_error``) to see whether a miss is larger than test-set sampling explains.

    References
    ----------
    Johansson, Löfström, Sundell & Boström, "Venn predictors and Venn-Abers predictors for
    random forests", Section 4 and Table 5; Vovk & Petej (2014), Theorem 1.

    Examples
    --------
    >>> iv = [[0.3, 0.5], [0.4, 0.6], [0.6, 0.8], [0.2, 0.4]]  # as predict_interval returns
    >>> v = interval_validity([0, 1, 1, 0], iv)
    >>> v.observed, v.lower, v.upper, v.valid
    (0.5, 0.375, 0.575, True)
    >>> v.miss, v.std_error
    (0.0, 0.25)
    """
    y = check_labels_pos(y_true, pos_label).astype(np.float64)
    p0, p1 = prepare_interval(p0, p1, owner="interval_validity")
    check_consistent_length(y_true=y, p0=p0)
    check_option(target, ("frequency", "accuracy"), name="target", owner="interval_validity")
    tol = check_in_range(tol, 0, 1, name="tol", owner="interval_validity", closed="both")
    lo, hi = np.minimum(p0, p1), np.maximum(p0, p1)
    mid = 0.5 * (lo + hi)
    if target == "accuracy":
        pred1 = mid > 0.5
        value = (pred1 == (y == 1)).astype(np.float64)
        lo, hi = np.where(pred1, lo, 1.0 - hi), np.where(pred1, hi, 1.0 - lo)
    else:
        value = y
    edges = bin_edges(mid, np.ones_like(mid), n_bins, strategy, owner="interval_validity")
    idx = assign_bins(mid, edges)
    k = edges.shape[0] - 1
    counts = np.bincount(idx, minlength=k).astype(np.float64)
    nz = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        b_obs = np.where(nz, np.bincount(idx, weights=value, minlength=k) / counts, np.nan)
        b_lo = np.where(nz, np.bincount(idx, weights=lo, minlength=k) / counts, np.nan)
        b_hi = np.where(nz, np.bincount(idx, weights=hi, minlength=k) / counts, np.nan)
    b_valid = nz & (b_obs >= b_lo - tol) & (b_obs <= b_hi + tol)
    observed, lower, upper = float(value.mean()), float(lo.mean()), float(hi.mean())
    # the binomial standard error at the point of the interval nearest the observed value: the
    # spread the observed frequency would have if the true one were inside the interval (so an
    # observed 0 or 1 just outside a narrow interval is not held to a standard error of 0)
    q = min(max(observed, lower), upper)
    std_error = float(np.sqrt(q * (1.0 - q) / value.shape[0]))
    with np.errstate(invalid="ignore", divide="ignore"):
        b_q = np.clip(b_obs, b_lo, b_hi)
        b_se = np.where(nz, np.sqrt(b_q * (1.0 - b_q) / counts), np.nan)
    return IntervalValidity(
        target=target,
        observed=observed,
        lower=lower,
        upper=upper,
        valid=bool(lower - tol <= observed <= upper + tol),
        bin_edges=edges,
        counts=counts,
        bin_observed=b_obs,
        bin_lower=b_lo,
        bin_upper=b_hi,
        bin_valid=b_valid,
        std_error=std_error,
        bin_std_error=b_se,
    )


@fill_doc
def merge_regret(
    p0: ArrayLike,
    p1: ArrayLike | None,
    y_proba: ArrayLike | None = None,
    *,
    loss: str = "log",
    y_true: ArrayLike | None = None,
    pos_label: object = None,
) -> FloatArray:
    """Regret of merging a Venn-Abers pair ``(p0, p1)`` into one probability ``p``.

    If the label is 0, the "appropriate" probability is ``p0``; if it is 1, ``p1``. The regret
    of predicting ``p`` is the extra loss over that probability: for log loss
    ``-ln(1 - p) + ln(1 - p0)`` (label 0) and ``-ln p + ln p1`` (label 1); for square loss
    ``p^2 - p0^2`` and ``(1 - p)^2 - (1 - p1)^2``. The minimax merges of Vovk & Petej equalise
    the two regrets: eq. (10) for log loss, eq. (11) for square loss.

    Parameters
    ----------
    p0, p1 : array-like of shape (n,)
        The Venn-Abers probabilities. ``merge_regret(interval, y_proba)`` with an (n, 2)
        array of intervals (as ``predict_interval`` returns) is accepted as well.
    y_proba : array-like of shape (n,)
        The merged probability (any merge).
    loss : {"log", "square"}, default="log"
        The loss whose regret is measured.
    y_true : array-like of shape (n,), default=None
        When given, the regret for the observed label; otherwise the worst case over both
        labels, the quantity the minimax merge minimises.
    {pos_label}

    Returns
    -------
    regret : ndarray of shape (n,)
        May be ``inf`` for log loss when ``p`` is 0 or 1.

    References
    ----------
    Vovk & Petej, "Venn-Abers predictors" (UAI 2014), Section 4, eqs. (10) and (11).

    Examples
    --------
    The log-loss merge ``p1 / (1 - p0 + p1)`` has a smaller worst-case log regret than the
    midpoint:

    >>> p0, p1 = np.array([0.1]), np.array([0.6])
    >>> minimax = merge_regret(p0, p1, p1 / (1 - p0 + p1))
    >>> midpoint = merge_regret(p0, p1, (p0 + p1) / 2)
    >>> bool(minimax[0] < midpoint[0])
    True
    """
    if y_proba is None and np.ndim(p0) == 2:  # merge_regret(interval, y_proba)
        p0, p1, y_proba = p0, None, p1
    if y_proba is None:
        raise TypeError("merge_regret needs 'y_proba', the merged probabilities.")
    p0, p1 = prepare_interval(p0, p1, owner="merge_regret")
    p = check_probabilities(y_proba)
    check_consistent_length(p0=p0, y_proba=p)
    check_option(loss, ("log", "square"), name="loss", owner="merge_regret")
    r0: FloatArray
    r1: FloatArray
    with np.errstate(divide="ignore", invalid="ignore"):
        if loss == "log":
            r0 = -np.log1p(-p) + np.log1p(-p0)
            r1 = -np.log(p) + np.log(p1)
        else:
            r0 = p**2 - p0**2
            r1 = (1.0 - p) ** 2 - (1.0 - p1) ** 2
    # inf - inf only when p equals the appropriate probability (both 1, or both 0): no regret
    r0 = np.where(np.isnan(r0), 0.0, r0)
    r1 = np.where(np.isnan(r1), 0.0, r1)
    if y_true is None:
        return np.maximum(r0, r1)
    y = check_labels_pos(y_true, pos_label)
    check_consistent_length(y_true=y, p0=p0)
    return np.where(y == 1, r1, r0)
