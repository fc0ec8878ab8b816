"""The scaling-binning calibrator of Kumar, Liang & Ma (2019).

Scaling methods (Platt's sigmoid) need few examples but their calibration error cannot be
measured; histogram binning can be measured but needs many examples per bin. The
scaling-binning calibrator does both in turn, on two parts of the calibration data:

1. *Function fitting*: fit Platt's sigmoid ``g`` of the score on the first part.
2. *Binning scheme*: cut the values ``g(s)`` of the second part into ``n_bins`` bins of equal
   mass (quantile bins).
3. *Discretisation*: map every score to the mean of ``g`` over the second part's values in its
   bin. The labels of the second part are not used.

The output takes at most ``n_bins`` values, so its calibration error can be estimated, and it
is close to the sigmoid (whose variance is low) rather than to noisy bin frequencies. The
paper's analysis draws the means of step 3 from a third part; this one uses the second part
for steps 2 and 3 (step 3 uses no labels). The authors' implementation does not split: it runs
all three steps on the same calibration data.

The split. The paper splits the data at random; a random split cannot make a weight of ``k``
equal ``k`` copies of a row, nor give the same fit for the same rows in another order. Here
the split is deterministic and alternates along the score: the distinct scores (of rows with
positive weight) are sorted, and they are dealt to the two parts in turn so that, after the
first ``j`` of them, ``round(j * scaling_fraction)`` went to the first part (Bresenham's rule:
every other distinct score for one half). A distinct score goes whole to one part, with all
its rows and both labels. Both parts so cover the whole range of the scores, the fit does not
depend on the order of the rows or on the scale of the weights, and copies of a row, which
share its score, equal its weight. When one part would be empty (a single distinct score, or
too few for the fraction), both parts take all the data.

References
----------
.. [1] A. Kumar, P. Liang and T. Ma, "Verified uncertainty calibration", NeurIPS 2019,
   Section 4 (the scaling-binning calibrator, steps 1-3).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import (
    check_in_range,
    check_positive_int,
    check_sample_weight,
    rescale_sample_weight,
)
from venncal.core._inputs import check_scores_y01, fill_fit_doc
from venncal.core._weighted import distinct_cumulative_share
from venncal.core.histogram import HistogramBinning
from venncal.core.platt import PlattSigmoid, fit_platt

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray

__all__ = ["ScalingBinning", "equal_mass_edges", "fit_scaling_binning", "split_by_score"]


@dataclass(frozen=True)
class ScalingBinning:
    """A fitted scaling-binning calibrator.

    Attributes
    ----------
    sigmoid : PlattSigmoid
        The sigmoid ``g`` fitted on the first part.
    binning : HistogramBinning
        The bins of ``g``'s values: ``edges`` are equal-mass edges of ``g`` on the second part,
        ``values`` the mean of ``g`` over the second part in each bin, ``counts`` and
        ``positives`` the second part's weight and positive weight there.
    """

    sigmoid: PlattSigmoid
    binning: HistogramBinning

    def predict(self, scores: ArrayLike) -> FloatArray:
        """Return the calibrated probability of each score, shape (m,)."""
        return self.binning.predict(self.sigmoid.predict(scores))


def split_by_score(
    scores: FloatArray, sample_weight: ArrayLike, fraction: float
) -> tuple[FloatArray, FloatArray]:
    """Deal the distinct scores to two parts in turn along the score (Bresenham's rule).

    Parameters
    ----------
    scores : ndarray of shape (n,)
    sample_weight : ndarray of shape (n,)
        Non-negative weights; rows of weight zero take no part.
    fraction : float in (0, 1)
        After the first ``j`` distinct scores (in increasing order), ``round(j * fraction)``
        of them are in the first part.

    Returns
    -------
    first, second : ndarray of shape (n,)
        Each row's weight in the two parts: its whole weight in one of them (in both when one
        part would otherwise be empty).

    Examples
    --------
    >>> s = np.array([0.3, 0.1, 0.2, 0.1, 0.4])
    >>> first, second = split_by_score(s, np.ones(5), 0.5)
    >>> s[first > 0], s[second > 0]
    (array([0.3, 0.1, 0.1]), array([0.2, 0.4]))
    """
    weight = np.asarray(sample_weight, dtype=np.float64)
    rows = np.flatnonzero(weight > 0)
    _, group = np.unique(scores[rows], return_inverse=True)
    j = np.arange(group.max() + 2, dtype=np.float64)
    dealt = np.floor(j * fraction + 0.5)  # distinct scores dealt to the first part so far
    member = np.diff(dealt) > 0
    first = np.zeros_like(weight)
    second = np.zeros_like(weight)
    if member.all() or not member.any():
        first[rows] = weight[rows]
        second[rows] = weight[rows]
        return first, second
    to_first = member[group.ravel()]
    first[rows[to_first]] = weight[rows[to_first]]
    second[rows[~to_first]] = weight[rows[~to_first]]
    return first, second


def equal_mass_edges(values: FloatArray, weights: FloatArray, n_bins: int) -> FloatArray:
    """Edges in [0, 1] that cut weighted values in [0, 1] into bins of equal weight.

    For each level ``q = k / n_bins`` (``k = 1 .. n_bins - 1``) the smallest distinct value
    whose cumulative weight share reaches ``q`` ends a bin, and the edge lies half-way between
    it and the next distinct value. Tied values are never split (coinciding edges merge, so
    there may be fewer bins), duplicating a row equals doubling its weight, and the outer edges
    are 0 and 1.

    Returns
    -------
    edges : ndarray of shape (n_edges,)
        Strictly increasing, from 0 to 1; bin ``k`` is ``[edges[k], edges[k + 1])``.

    Examples
    --------
    >>> equal_mass_edges(np.array([0.1, 0.2, 0.3, 0.4]), np.ones(4), 2)
    array([0.  , 0.25, 1.  ])
    >>> equal_mass_edges(np.array([0.1, 0.1, 0.1, 0.2]), np.ones(4), 2)  # ties stay together
    array([0.  , 0.15, 1.  ])
    """
    u, cum = distinct_cumulative_share(values, weights)
    levels = np.arange(1, n_bins) / n_bins if n_bins <= u.size else None
    if levels is None:  # more bins than distinct values: every distinct value ends a bin
        ends = np.arange(u.size - 1)
    else:
        ends = np.unique(np.searchsorted(cum, levels - 1e-12, side="left"))
        ends = ends[ends < u.size - 1]
    mid = 0.5 * (u[ends] + u[ends + 1])
    # neighbours one rounding apart: the edge is the upper one (a bin is [e_k, e_k+1))
    inner = np.where(mid > u[ends], mid, u[ends + 1])
    inner = inner[inner < 1.0]  # an edge at 1 would leave an empty last bin
    return np.concatenate(([0.0], inner, [1.0]))


def _soft_platt(
    s: FloatArray, y: FloatArray, w: FloatArray, *, smoothing: bool, max_iter: int
) -> PlattSigmoid:
    """Platt's sigmoid on ``(s, y)`` with weights that count as copies.

    Platt's smoothed targets ``1 - 1 / (N+ + 2)`` and ``1 / (N- + 2)`` use the class totals of
    the weights themselves (a weight of ``k`` is ``k`` examples). A row with target ``t`` and
    weight ``w`` is the pair of rows (positive, ``w t``) and (negative, ``w (1 - t)``), whose
    unsmoothed log-likelihood is the same, so the plain logistic fit of :func:`fit_platt` on
    the pairs is Platt's fit.
    """
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    if not smoothing:
        return fit_platt(s, y, w, smoothing=False, max_iter=max_iter)
    scaled = rescale_sample_weight(w)
    factor = w.max() / scaled.max()
    with np.errstate(over="ignore"):  # totals beyond the float range make the targets 1 and 0
        n_pos = float(np.sum(scaled * y)) * factor
        n_neg = float(np.sum(scaled * (1 - y))) * factor
    t = np.where(y == 1, 1.0 - 1.0 / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    s2 = np.concatenate([s, s])
    y2 = np.concatenate([np.ones_like(y), np.zeros_like(y)])
    w2 = np.concatenate([scaled * t, scaled * (1.0 - t)])
    with warnings.catch_warnings():
        # with soft targets both labels sit at every score; "separated" can only mean that
        # every score is the same, where the fit is the constant it should be
        warnings.filterwarnings("ignore", message=".*separated by the score.*")
        return fit_platt(s2, y2, w2, smoothing=False, max_iter=max_iter)


@fill_fit_doc
def fit_scaling_binning(
    scores: ArrayLike,
    y01: ArrayLike,
    sample_weight: ArrayLike | None = None,
    *,
    n_bins: int = 10,
    scaling_fraction: float = 0.5,
    smoothing: bool = True,
    max_iter: int = 100,
) -> ScalingBinning:
    """Fit the scaling-binning calibrator of Kumar, Liang & Ma (2019).

    Parameters
    ----------
    {scores, y01}
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights; weight ``k`` counts as ``k`` copies of a row (also in Platt's
        smoothed targets).
    n_bins : int, default=10
        Number of equal-mass bins of the sigmoid's values on the second part (fewer when
        values tie).
    scaling_fraction : float in (0, 1), default=0.5
        Share of the distinct scores, dealt in turn along the score, whose rows fit the
        sigmoid; the rows of the others make the bins.
    smoothing : bool, default=True
        Platt's smoothed targets (keeps the sigmoid finite when the score separates the
        classes); False is plain logistic regression on the score.
    max_iter : int, default=100
        Most Newton iterations of the sigmoid's fit.

    Returns
    -------
    ScalingBinning

    Examples
    --------
    Scores from a sigmoid: the calibrator's steps follow the sigmoid, with one value per bin.

    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=4000)
    >>> y = (rng.random(4000) < 1 / (1 + np.exp(-2 * s))).astype(int)
    >>> fit = fit_scaling_binning(s, y, n_bins=5)
    >>> fit.binning.values.round(2)
    array([0.08, 0.25, 0.49, 0.73, 0.92])
    >>> np.unique(fit.predict(s)).size
    5
    """
    owner = "fit_scaling_binning"
    n_bins = check_positive_int(n_bins, name="n_bins", owner=owner)
    fraction = check_in_range(scaling_fraction, 0, 1, name="scaling_fraction", owner=owner)
    max_iter = check_positive_int(max_iter, name="max_iter", owner=owner)
    s, y = check_scores_y01(scores, y01)
    y = y.astype(np.float64)
    w = check_sample_weight(sample_weight, s.shape[0])
    w = np.ones(s.shape[0]) if w is None else w
    first, second = split_by_score(s, w, fraction)
    sigmoid = _soft_platt(s, y, first, smoothing=smoothing, max_iter=max_iter)
    keep = second > 0
    g = sigmoid.predict(s[keep])
    w2, y2 = rescale_sample_weight(second[keep]), y[keep]
    edges = equal_mass_edges(g, w2, n_bins)
    k = edges.size - 1
    idx = np.searchsorted(edges[1:-1], g, side="right")
    mass = np.bincount(idx, weights=w2, minlength=k)
    values = np.bincount(idx, weights=w2 * g, minlength=k) / mass
    # every bin holds a value of g, so none is empty; the mean of values in [e_k, e_k+1]
    # stays there (up to rounding)
    values = np.clip(values, edges[:-1], edges[1:])
    factor = second.max() / w2.max()
    with np.errstate(over="ignore"):
        counts = mass * factor
        positives = np.bincount(idx, weights=w2 * y2, minlength=k) * factor
    return ScalingBinning(sigmoid, HistogramBinning(edges, values, counts, positives))
