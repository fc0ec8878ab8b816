"""Histogram binning (Zadrozny & Elkan 2001).

The score range is cut into ``n_bins`` bins, either of equal width or holding equal numbers of
calibration examples, and every score in a bin is mapped to the fraction of positives among the
calibration examples of that bin. The bin fractions can be exactly 0 or 1, which makes the log
loss infinite; an opt-in additive smoothing ``(n1 + alpha) / (n + 2 alpha)`` avoids that, and the
faithful ``alpha=0`` is the default.

Conventions (the paper leaves them open):

* Uniform bins split ``[min, max]`` of the calibration scores into equal widths; quantile bins
  put their inner edges at the ``k / n_bins`` (weighted) quantiles, the smallest calibration score
  whose cumulative weight reaches that fraction (numpy's ``"inverted_cdf"`` rule). Quantile
  edges that coincide because of ties are merged, so there may be fewer bins than asked.
* A bin holds the scores ``e_k <= s < e_{k+1}``; the last bin also holds its right edge. Test
  scores below the first edge or above the last fall into the first or the last bin.
* A bin without calibration examples gets the overall (weighted) fraction of positives.

References
----------
.. [1] B. Zadrozny and C. Elkan, "Obtaining calibrated probability estimates from decision trees
   and naive Bayesian classifiers", ICML 2001.
.. [2] M. P. Naeini, G. F. Cooper and M. Hauskrecht, "Binary classifier calibration: a Bayesian
   non-parametric approach", 2014, Section 5 (histogram binning as a comparator).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from venncal._validation import (
    check_in_range,
    check_option,
    check_positive_int,
    check_sample_weight,
    check_scores,
    pseudo_count,
    scaled_sample_weight,
)
from venncal.core._inputs import check_scores_y01, fill_fit_doc

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import ArrayLike, FloatArray, IntArray

__all__ = ["HistogramBinning", "fit_histogram", "fit_histogram_counts", "histogram_edges"]


#: Up to this many bins (or the number of calibration scores, if larger) the edges of every bin
#: are kept; beyond it, work and memory are bounded by the data instead of ``n_bins``.
_DENSE_BINS = 100_000


def _uniform_edge(k: ArrayLike, lo: float, hi: float, n_bins: int) -> FloatArray:
    """The ``k``-th of ``n_bins + 1`` equally spaced edges over ``[lo, hi]``, for int arrays ``k``.

    ``lo + k (hi - lo) / n_bins`` rounded (as ``np.linspace`` does), computed without overflow
    when ``hi - lo`` exceeds the largest float, non-decreasing in ``k`` and ending exactly at
    ``hi``.
    """
    kf = np.asarray(k, dtype=np.float64)
    with np.errstate(over="ignore"):  # only the last edge, replaced by hi, can overflow
        span = hi - lo
        if np.isfinite(span):
            step = span / n_bins
            edge = lo + kf * step if step > 0 else lo + (kf * span) / n_bins
        else:  # halving is exact at this magnitude
            edge = lo + 2.0 * (kf * ((0.5 * hi - 0.5 * lo) / n_bins))
    return np.where(kf >= n_bins, hi, np.clip(edge, lo, hi))


def _uniform_bin(scores: FloatArray, lo: float, hi: float, n_bins: int) -> npt.NDArray[np.int64]:
    """Index of the uniform bin ``[e_k, e_{k+1})`` holding each score, without the n_bins edges.

    A vectorised binary search for the largest ``k`` in ``[0, n_bins - 1]`` with
    ``e_k <= score`` (the last bin also holds ``hi``).
    """
    left = np.zeros(scores.shape[0], dtype=np.int64)
    right = np.full(scores.shape[0], n_bins, dtype=np.int64)  # e_right > score, or the end
    while True:
        active = right - left > 1
        if not active.any():
            return left
        mid = (left + right) // 2
        below = _uniform_edge(mid, lo, hi, n_bins) <= scores
        left = np.where(active & below, mid, left)
        right = np.where(active & ~below, mid, right)


def histogram_edges(
    scores: FloatArray,
    n_bins: int = 10,
    strategy: str = "uniform",
    sample_weight: FloatArray | None = None,
) -> FloatArray:
    """Return the bin edges of histogram binning.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Calibration scores.
    n_bins : int, default=10
        Number of bins asked for.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal widths over ``[min, max]``, or equal (weighted) counts.
    sample_weight : ndarray of shape (n,), default=None
        Weights used by the quantile strategy.

    Returns
    -------
    edges : ndarray of shape (n_edges,)
        Increasing edges; ``n_edges - 1`` bins (at least one).

    Notes
    -----
    Time and memory grow with ``n``, not with ``n_bins``, once ``n_bins`` exceeds both ``n``
    and 100,000: uniform edges are then kept only around the bins that hold calibration scores
    (each run of empty bins becomes one bin, which predicts the same overall rate as its
    parts), and quantile edges are found without listing the ``n_bins`` quantile levels.

    Examples
    --------
    >>> histogram_edges(np.array([0.0, 1.0, 2.0, 3.0]), 2)
    array([0. , 1.5, 3. ])
    >>> histogram_edges(np.array([0.0, 0.0, 0.0, 3.0]), 2, "quantile")
    array([0., 3.])

    A trillion bins over three scores: three occupied bins and two runs of empty ones.

    >>> histogram_edges(np.array([0.0, 0.25, 1.0]), 10**12).size - 1
    5
    """
    lo, hi = float(scores.min()), float(scores.max())
    dense = n_bins <= max(scores.shape[0], _DENSE_BINS)
    if strategy == "uniform":
        if dense:
            edges = _uniform_edge(np.arange(n_bins + 1), lo, hi, n_bins)
        else:
            occupied = np.unique(_uniform_bin(scores, lo, hi, n_bins))
            k = np.unique(np.concatenate([[0, n_bins], occupied, occupied + 1]))
            edges = _uniform_edge(k, lo, hi, n_bins)
    else:
        order = np.argsort(scores, kind="stable")
        s = scores[order]
        w = np.ones(s.size) if sample_weight is None else sample_weight[order]
        cw = np.cumsum(w)
        if dense:
            targets = cw[-1] * np.arange(1, n_bins) / n_bins
            # smallest score whose cumulative weight reaches each target (inverted CDF)
            idx = np.searchsorted(cw, targets * (1 - 1e-12), side="left")
            inner = s[np.minimum(idx, s.size - 1)]
        else:
            # the same rule, by counting the levels k / n_bins at or below each cumulative
            # weight: a score is an edge when its own weight reaches a new level
            reached = np.clip(np.floor(cw * (n_bins / (cw[-1] * (1 - 1e-12)))), 0, n_bins - 1)
            inner = s[np.diff(reached, prepend=0.0) > 0]
        edges = np.concatenate([[lo], inner, [hi]])
    edges = np.unique(edges)
    if edges.size == 1:  # every score equal: one bin
        edges = np.array([lo, hi])
    return edges


@dataclass(frozen=True)
class HistogramBinning:
    """Fitted histogram binning.

    Attributes
    ----------
    edges : ndarray of shape (n_bins + 1,)
        Bin edges.
    values : ndarray of shape (n_bins,)
        Calibrated probability of each bin.
    counts : ndarray of shape (n_bins,)
        Weighted number of calibration examples in each bin (0 for an empty bin).
    positives : ndarray of shape (n_bins,)
        Weighted number of positives in each bin.
    """

    edges: FloatArray
    values: FloatArray
    counts: FloatArray
    positives: FloatArray

    def bin_index(self, scores: ArrayLike) -> IntArray:
        """Return the bin of each score, shape (m,), an integer in ``[0, n_bins)``."""
        return np.searchsorted(self.edges[1:-1], scores, side="right")

    def predict(self, scores: ArrayLike) -> FloatArray:
        """Return the calibrated probability of each score, shape (m,)."""
        s = check_scores(scores, name="scores")
        return self.values[self.bin_index(s)]


@fill_fit_doc
def fit_histogram(
    scores: ArrayLike,
    y01: ArrayLike,
    sample_weight: ArrayLike | None = None,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    alpha: float = 0.0,
) -> HistogramBinning:
    """Fit histogram binning.

    Parameters
    ----------
    {scores, y01}
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-count bins.
    alpha : float, default=0.0
        Additive smoothing: a bin's value is ``(n1 + alpha) / (n + 2 alpha)``. The default 0 is
        Zadrozny & Elkan's plain frequency, which can be exactly 0 or 1; ``alpha=1`` (Laplace)
        keeps every value inside (0, 1). A weight of k counts as k examples in ``n1`` and
        ``n``, and ``alpha`` is a number of examples.

    Returns
    -------
    HistogramBinning

    Examples
    --------
    Each bin predicts its fraction of positives:

    >>> s = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    >>> y = np.array([0, 0, 1, 1, 1, 1])
    >>> fit = fit_histogram(s, y, n_bins=2)
    >>> fit.values, fit.counts
    (array([0.33333333, 1.        ]), array([3., 3.]))
    >>> fit_histogram(s, y, n_bins=2, alpha=1.0).values
    array([0.4, 0.8])
    """
    owner = "fit_histogram"
    n_bins = check_positive_int(n_bins, name="n_bins", owner=owner)
    check_option(strategy, ("uniform", "quantile"), name="strategy", owner=owner)
    alpha = check_in_range(alpha, 0, np.inf, name="alpha", owner=owner, closed="left")
    s, y = check_scores_y01(scores, y01)
    # a weight of k is k copies: the weights are summed in units of a power of two (exact, and
    # no overflow), with the pseudo-count alpha (in examples) in the same units
    w, exponent = scaled_sample_weight(check_sample_weight(sample_weight, s.shape[0]))
    if w is not None and not (w > 0).all():  # a zero weight is no observation
        keep = w > 0
        s, y, w = s[keep], y[keep], w[keep]
    edges = histogram_edges(s, n_bins, strategy, w)
    k = edges.size - 1
    idx = np.searchsorted(edges[1:-1], s, side="right")
    wy = y.astype(np.float64) if w is None else w * y
    counts = np.bincount(idx, weights=w, minlength=k).astype(np.float64)
    # bincount with weights is float64 (numpy's stubs type it as an integer array)
    positives = cast("FloatArray", np.bincount(idx, weights=wy, minlength=k))
    overall = positives.sum() / counts.sum()
    a = pseudo_count(alpha, exponent)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (positives + a) / (counts + 2.0 * a)
    values = np.where(counts > 0, values, overall)
    with np.errstate(over="ignore", under="ignore"):  # counts in the units of the weights
        counts, positives = np.ldexp(counts, exponent), np.ldexp(positives, exponent)
    return HistogramBinning(edges, values, counts, positives)


def fit_histogram_counts(
    values: ArrayLike,
    n0: ArrayLike,
    n1: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    alpha: float = 0.0,
    mean_weight: float = 1.0,
    unit: float = 1.0,
) -> HistogramBinning:
    """Fit histogram binning on pooled calibration data: distinct scores with class counts.

    The fit of :func:`fit_histogram` on rows that pool to these counts. Bin counts are sums of
    the counts (exact for whole numbers), so aggregated rows with their counts give the fit on
    the expanded rows, bit for bit; quantile edges are the weighted quantiles, which pooling
    does not move (every row of a distinct score has that score).

    Parameters
    ----------
    values : ndarray of shape (k,)
        The distinct scores, increasing.
    n0, n1 : ndarray of shape (k,)
        Non-negative weight of negatives and positives at each score (their sum positive).
    n_bins, strategy, alpha
        As in :func:`fit_histogram`.
    mean_weight : float, default=1.0
        The weight of one example in the units of ``n0`` and ``n1``: the smoothing adds
        ``alpha`` examples, ``(n1 + alpha m) / (n + 2 alpha m)``. 1 for counts and weights;
        ``2**-e`` for weights stored in units of ``2**e``.
    unit : float, default=1.0
        Factor that turns ``n0`` and ``n1`` into the reported ``counts`` and ``positives``.

    Returns
    -------
    HistogramBinning

    Examples
    --------
    >>> fit = fit_histogram_counts(np.array([0.1, 0.9]), np.array([2.0, 1.0]),
    ...                            np.array([1.0, 3.0]), n_bins=2)
    >>> fit.values, fit.counts
    (array([0.33333333, 0.75      ]), array([3., 4.]))
    """
    owner = "fit_histogram_counts"
    n_bins = check_positive_int(n_bins, name="n_bins", owner=owner)
    check_option(strategy, ("uniform", "quantile"), name="strategy", owner=owner)
    alpha = check_in_range(alpha, 0, np.inf, name="alpha", owner=owner, closed="left")
    v = np.asarray(values, dtype=np.float64)
    n0 = np.asarray(n0, dtype=np.float64)
    n1 = np.asarray(n1, dtype=np.float64)
    weight = n0 + n1
    edges = histogram_edges(v, n_bins, strategy, weight)
    k = edges.size - 1
    idx = np.searchsorted(edges[1:-1], v, side="right")
    # bincount with weights is float64 (numpy's stubs type it as an integer array)
    counts = cast("FloatArray", np.bincount(idx, weights=weight, minlength=k))
    positives = cast("FloatArray", np.bincount(idx, weights=n1, minlength=k))
    overall = positives.sum() / counts.sum()
    a = alpha * mean_weight
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (positives + a) / (counts + 2.0 * a)
    out = np.where(counts > 0, out, overall)
    with np.errstate(over="ignore"):
        return HistogramBinning(edges, out, counts * unit, positives * unit)
