"""Isotonic regression by the pool-adjacent-violators algorithm (PAVA).

The isotonic calibrator of Vovk (2012), Lemma 1, and of Vovk & Petej (2014), Section 3: the
non-decreasing function of the score that minimises the (weighted) squared error on the
calibration pairs, with tied scores pooled into one point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import (
    check_consistent_length,
    check_option,
    check_sample_weight,
    check_scores,
    rescale_sample_weight,
)
from venncal.core._jit import HAVE_NUMBA, jit

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = [
    "isotonic_regression",
    "fit_isotonic",
    "IsotonicStepFunction",
    "group_scores",
    "interpolate_monotone",
]


@jit
def _pava(y: FloatArray, w: FloatArray) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64]]:
    """Pool adjacent violators on ordered values ``y`` with positive weights ``w``.

    Returns the block means, block weights and the end index (exclusive) of each block.
    """
    n = y.shape[0]
    mean = np.empty(n)
    weight = np.empty(n)
    end = np.empty(n, dtype=np.int64)
    b = -1
    for i in range(n):
        b += 1
        mean[b] = y[i]
        weight[b] = w[i]
        end[b] = i + 1
        b = _pool_violators(mean, weight, end, b)
    return mean[: b + 1], weight[: b + 1], end[: b + 1]


@jit
def _pool_violators(mean: FloatArray, weight: FloatArray, tail: AnyArray, b: int) -> int:
    """Pool the top block ``b`` of a PAVA stack with the blocks below it while they violate
    the order; ``tail`` (the end index, or the last score, of each block) follows the pooling.
    Returns the new top."""
    while b > 0 and mean[b - 1] >= mean[b]:
        tw = weight[b - 1] + weight[b]
        mean[b - 1] = (weight[b - 1] * mean[b - 1] + weight[b] * mean[b]) / tw
        weight[b - 1] = tw
        tail[b - 1] = tail[b]
        b -= 1
    return b


@jit
def pava_extend(
    y: FloatArray,
    w: FloatArray,
    x: FloatArray,
    mean: FloatArray,
    weight: FloatArray,
    first: FloatArray,
    last: FloatArray,
    b: int,
) -> int:
    """Go on with the PAVA of :func:`_pava` over more values ``y`` (weights ``w``, scores
    ``x``): the stack holds each block's mean, weight, first and last score; returns its new
    top. The stacks need room for ``b + 1 + len(y)`` blocks."""
    for i in range(y.shape[0]):
        b += 1
        mean[b] = y[i]
        weight[b] = w[i]
        first[b] = x[i]
        last[b] = x[i]
        b = _pool_violators(mean, weight, last, b)
    return b


def isotonic_regression(y: ArrayLike, sample_weight: ArrayLike | None = None) -> FloatArray:
    """Return the non-decreasing least-squares fit to values given in order.

    Parameters
    ----------
    y : array-like of shape (n,)
        Values, already ordered by the covariate (e.g. labels sorted by score).
    sample_weight : array-like of shape (n,), default=None
        Positive weights; all ones when None.

    Returns
    -------
    fitted : ndarray of shape (n,)
        The isotonic fit: non-decreasing, and the weighted mean of ``y`` over each block.

    References
    ----------
    Vovk, "Venn predictors and isotonic regression" (2012), Lemma 1; Ayer et al. (1955).

    Examples
    --------
    >>> isotonic_regression([0, 1, 0, 1, 1])
    array([0. , 0.5, 0.5, 1. , 1. ])

    The fit never increases the squared error of the best constant:

    >>> y = np.array([3.0, 1.0, 2.0])
    >>> fit = isotonic_regression(y)
    >>> bool(((y - fit) ** 2).sum() <= ((y - y.mean()) ** 2).sum())
    True
    """
    y = check_scores(y, name="y", allow_column=False)
    w = rescale_sample_weight(check_sample_weight(sample_weight, y.shape[0]))
    w = np.ones_like(y) if w is None else w
    if not (w > 0).all():
        raise ValueError(
            "'sample_weight' must be positive for isotonic_regression; "
            "drop the rows whose weight is zero."
        )
    mean, _, end = _pava.for_size(y.shape[0])(y, w)
    return np.repeat(mean, np.diff(end, prepend=0))


def group_scores(
    scores: FloatArray, y: AnyArray, sample_weight: FloatArray | None = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Pool tied scores: return the distinct sorted scores with their weights and label sums.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Finite scores (not checked).
    y : ndarray of shape (n,)
        Labels or targets (not checked).
    sample_weight : ndarray of shape (n,) or None
        Non-negative weights; rows of weight zero are dropped.

    Returns
    -------
    values : ndarray of shape (k,)
        The distinct scores, increasing.
    weight : ndarray of shape (k,)
        Total weight (the count when unweighted) at each distinct score.
    total : ndarray of shape (k,)
        Weighted sum of ``y`` at each distinct score.

    Examples
    --------
    >>> group_scores(np.array([0.3, 0.1, 0.3]), np.array([1, 0, 0]))
    (array([0.1, 0.3]), array([1., 2.]), array([0., 1.]))
    """
    if sample_weight is not None:
        keep = sample_weight > 0
        if not keep.all():
            scores, y, sample_weight = scores[keep], y[keep], sample_weight[keep]
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    yw = np.asarray(y, dtype=np.float64)[order]
    if sample_weight is None:
        weight = np.diff(np.r_[start, s.shape[0]]).astype(np.float64)
    else:
        w = sample_weight[order]
        weight = np.add.reduceat(w, start)
        yw = yw * w
    total = np.add.reduceat(yw, start)
    return s[start], weight, total


@dataclass(frozen=True)
class IsotonicStepFunction:
    """A fitted isotonic calibrator: fitted values at its breakpoints.

    Attributes
    ----------
    x : ndarray of shape (k,)
        Distinct calibration scores, increasing. :func:`fit_isotonic` keeps only the first and
        the last calibration score of each constant block of the fit; both rules of
        :meth:`predict` give the same values as with every distinct calibration score.
    y : ndarray of shape (k,)
        Fitted (non-decreasing) values at ``x``.
    """

    x: FloatArray
    y: FloatArray

    def predict(self, t: ArrayLike, rule: str = "interpolate") -> FloatArray:
        """Evaluate the calibrator at test scores.

        Parameters
        ----------
        t : array-like of shape (m,)
            Test scores.
        rule : {"interpolate", "nearest"}, default="interpolate"
            ``"interpolate"``: linear interpolation between neighbouring calibration scores,
            constant beyond the extremes. ``"nearest"``: the fitted value at the closest
            calibration score, the smaller one on a tie: the direct isotonic regression (DIR)
            rule of Vovk & Petej (2014), Section 3.

        Returns
        -------
        p : ndarray of shape (m,)
        """
        check_option(rule, ("interpolate", "nearest"), name="rule", owner="IsotonicStepFunction")
        t = check_scores(t, name="scores")
        if rule == "interpolate":
            return interpolate_monotone(self.x, self.y, t)
        k = self.x.shape[0]
        hi = np.searchsorted(self.x, t, side="left")
        lo = np.clip(hi - 1, 0, k - 1)
        hi = np.clip(hi, 0, k - 1)
        # closest calibration score; on an exact tie of distances take the smaller score
        take_hi = (self.x[hi] - t) < (t - self.x[lo])
        return self.y[np.where(take_hi, hi, lo)]


@jit
def _interpolate_kernel(x: FloatArray, y: FloatArray, t: FloatArray) -> FloatArray:
    """Compiled :func:`interpolate_monotone`: binary search and convex combination per point."""
    k = x.shape[0]
    out = np.empty(t.shape[0])
    for j in range(t.shape[0]):
        v = t[j]
        if v <= x[0]:
            out[j] = y[0]
            continue
        if v >= x[k - 1]:
            out[j] = y[k - 1]
            continue
        lo = 0
        hi = k - 1
        while hi - lo > 1:  # x[lo] <= v < x[hi]
            mid = (lo + hi) >> 1
            if x[mid] <= v:
                lo = mid
            else:
                hi = mid
        xl = x[lo]
        xh = x[hi]
        gap = xh - xl
        if gap == np.inf:
            lam = (0.5 * v - 0.5 * xl) / (0.5 * xh - 0.5 * xl)
        else:
            lam = (v - xl) / gap
        lam = min(max(lam, 0.0), 1.0)
        yl = y[lo]
        yh = y[hi]
        out[j] = min(max(yl + lam * (yh - yl), yl), yh)
    return out


def _interpolate_numpy(x: FloatArray, y: FloatArray, t: FloatArray) -> FloatArray:
    k = x.shape[0]
    hi = np.clip(np.searchsorted(x, t, side="right"), 1, k - 1)
    lo = hi - 1
    xl, xh, yl, yh = x[lo], x[hi], y[lo], y[hi]
    tc = np.clip(t, xl, xh)  # so that 0 <= t - x_i <= x_{i+1} - x_i
    with np.errstate(over="ignore", invalid="ignore"):
        gap = xh - xl
        lam = (tc - xl) / gap
    bad = np.isinf(gap)
    if bad.any():  # a gap wider than the largest float: halving is exact at this magnitude
        lam[bad] = (0.5 * tc[bad] - 0.5 * xl[bad]) / (0.5 * xh[bad] - 0.5 * xl[bad])
    lam = np.clip(lam, 0.0, 1.0)
    return np.clip(yl + lam * (yh - yl), yl, yh)


def interpolate_monotone(x: FloatArray, y: FloatArray, t: FloatArray) -> FloatArray:
    """Interpolate linearly between points of a non-decreasing function, safely.

    Unlike ``np.interp``, which forms the slope ``dy / dx`` and fails on gaps so small that
    the slope overflows (subnormal scores) or so large that ``dx`` overflows, each value is
    the convex combination ``y_i + lam (y_{i+1} - y_i)`` with ``lam = (t - x_i) / (x_{i+1} - x_i)``
    in [0, 1], kept between its neighbours ``y_i`` and ``y_{i+1}``. The result is therefore
    finite, non-decreasing in ``t`` despite rounding, and equal to ``y_i`` at ``x_i``; outside
    ``[x_1, x_k]`` it is constant.

    Parameters
    ----------
    x : ndarray of shape (k,)
        Distinct finite abscissae, increasing.
    y : ndarray of shape (k,)
        Non-decreasing values at ``x``.
    t : ndarray of shape (m,)
        Finite points to evaluate at.

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> interpolate_monotone(np.array([0.0, 4.1e-320, 4.4e-314]), np.array([0.0, 0.0, 1.0]),
    ...                      np.array([-1.0, 2.1e-319, 1.0]))
    array([0.00000000e+00, 3.84091482e-06, 1.00000000e+00])
    """
    if x.shape[0] == 1:
        return np.full(t.shape[0], y[0])
    if HAVE_NUMBA:
        return _interpolate_kernel.for_size(t.shape[0] + x.shape[0])(x, y, t)
    return _interpolate_numpy(x, y, t)  # pragma: no cover


def fit_isotonic(
    scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
) -> IsotonicStepFunction:
    """Fit the isotonic calibrator to calibration pairs, pooling tied scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Calibration scores.
    y : array-like of shape (n,)
        Targets (labels 0/1 for calibration).
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights.

    Returns
    -------
    IsotonicStepFunction
        The fit at the first and last calibration score of each constant block, which is all
        either prediction rule needs.

    References
    ----------
    Vovk & Petej, "Venn-Abers predictors" (UAI 2014), Section 3.

    Examples
    --------
    >>> g = fit_isotonic([0.2, 0.1, 0.4, 0.3], [1, 0, 1, 0])
    >>> g.y
    array([0. , 0.5, 0.5, 1. ])
    >>> g.predict([0.25], rule="nearest")  # closest scores 0.2 and 0.3 tie: take 0.2
    array([0.5])
    """
    s = check_scores(scores, name="scores")
    yv = check_scores(y, name="y")
    check_consistent_length(scores=s, y=yv)
    # only the ratios of the weights matter: scale them so their sums cannot overflow
    w = rescale_sample_weight(check_sample_weight(sample_weight, s.shape[0]))
    x, weight, total = group_scores(s, yv, w)
    mean, _, end = _pava.for_size(weight.shape[0])(total / weight, weight)
    # PAVA leaves strictly increasing block means, so each block is a maximal constant run.
    # Inside a block both rules give the block's value from any two of its scores, and between
    # blocks they read only the last score of one block and the first of the next: keeping
    # those two per block changes no prediction.
    keep = np.zeros(x.shape[0], dtype=bool)
    keep[end - 1] = True  # last score of each block
    keep[np.r_[0, end[:-1]]] = True  # first score of each block
    fitted = np.repeat(mean, np.diff(end, prepend=0))
    return IsotonicStepFunction(x=x[keep], y=fitted[keep])
