"""Merging the Venn-Abers pair (p0, p1) into one probability.

Vovk & Petej (2014), Section 4: the merges that minimise the worst-case regret of log loss
(eq. 10) and of square loss (eq. 11); and for cross Venn-Abers (Vovk, Petej & Fedorova 2015)
their versions over folds, and the interval that summarises the folds' pairs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_option

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray

__all__ = [
    "MERGES",
    "merge",
    "merge_log",
    "merge_square",
    "merge_mean",
    "merge_cross",
    "merge_cross_log",
    "merge_cross_square",
    "cross_interval",
]

MERGES = ("log", "square", "mean")


def _floats(p0: ArrayLike, p1: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The lower and upper probabilities as float64 arrays."""
    return np.asarray(p0, dtype=np.float64), np.asarray(p1, dtype=np.float64)


def merge_log(p0: ArrayLike, p1: ArrayLike) -> FloatArray:
    """Log-loss minimax merge, eq. (10) of Vovk & Petej (2014): p = p1 / (1 - p0 + p1).

    Examples
    --------
    >>> merge_log(np.array([0.2]), np.array([0.4]))
    array([0.33333333])
    """
    p0, p1 = _floats(p0, p1)
    p: FloatArray = p1 / (1.0 - p0 + p1)
    return p


def merge_square(p0: ArrayLike, p1: ArrayLike) -> FloatArray:
    """Square-loss minimax merge, eq. (11) of Vovk & Petej (2014): p = p1 + p0^2/2 - p1^2/2.

    Examples
    --------
    >>> merge_square(np.array([0.2]), np.array([0.4]))
    array([0.34])
    """
    p0, p1 = _floats(p0, p1)
    p: FloatArray = p1 + 0.5 * (p0 * p0 - p1 * p1)
    return p


def merge_mean(p0: ArrayLike, p1: ArrayLike) -> FloatArray:
    """The midpoint (p0 + p1) / 2.

    Examples
    --------
    >>> merge_mean(np.array([0.2]), np.array([0.4]))
    array([0.3])
    """
    p0, p1 = _floats(p0, p1)
    return 0.5 * (p0 + p1)


_PAIRWISE = {"log": merge_log, "square": merge_square, "mean": merge_mean}


def merge(p0: ArrayLike, p1: ArrayLike, method: str = "log") -> FloatArray:
    """Merge (p0, p1) by the named rule.

    Parameters
    ----------
    p0, p1 : array-like of shape (m,)
        Lower and upper probabilities of the positive class.
    method : {"log", "square", "mean"}, default="log"

    Returns
    -------
    p : ndarray of shape (m,)
        A probability in [p0, p1].

    Examples
    --------
    >>> merge([0.0], [1.0], "log"), merge([0.0], [1.0], "square")
    (array([0.5]), array([0.5]))
    """
    check_option(method, MERGES, name="merge", owner="merge")
    return _PAIRWISE[method](p0, p1)


def merge_cross_log(p0: ArrayLike, p1: ArrayLike) -> FloatArray:
    """Cross Venn-Abers log-loss merge: GM(p1) / (GM(1 - p0) + GM(p1)) over folds (axis 0).

    Computed in log space. Inputs must satisfy p1 > 0 and p0 < 1, which every Venn-Abers
    output does.

    Parameters
    ----------
    p0, p1 : array-like of shape (K, m)
        Per-fold lower and upper probabilities.

    Returns
    -------
    p : ndarray of shape (m,)

    References
    ----------
    Vovk, Petej & Fedorova (NeurIPS 2015), Section 4.

    Examples
    --------
    With one fold it is the log merge:

    >>> merge_cross_log([[0.2]], [[0.4]])
    array([0.33333333])
    """
    p0, p1 = _floats(p0, p1)
    log_gm1 = np.log(p1).mean(axis=0)
    log_gm0 = np.log1p(-p0).mean(axis=0)
    # GM1 / (GM0 + GM1) = 1 / (1 + exp(log GM0 - log GM1)); an overflow to inf gives 0
    with np.errstate(over="ignore"):
        p: FloatArray = 1.0 / (1.0 + np.exp(log_gm0 - log_gm1))
    return p


def merge_cross_square(p0: ArrayLike, p1: ArrayLike) -> FloatArray:
    """Cross Venn-Abers square-loss merge: mean(p1) + (mean(p0^2) - mean(p1^2)) / 2.

    Examples
    --------
    >>> merge_cross_square([[0.2], [0.2]], [[0.4], [0.4]])
    array([0.34])
    """
    p0, p1 = _floats(p0, p1)
    p: FloatArray = p1.mean(axis=0) + 0.5 * ((p0 * p0).mean(axis=0) - (p1 * p1).mean(axis=0))
    return p


def merge_cross(p0: ArrayLike, p1: ArrayLike, method: str = "log") -> FloatArray:
    """Merge per-fold pairs (axis 0 = folds) by the named rule.

    ``"log"`` and ``"square"`` are the cross Venn-Abers merges; ``"mean"`` is the mean of the
    per-fold midpoints.

    Examples
    --------
    >>> merge_cross([[0.0], [0.0]], [[1.0], [1.0]], "mean")
    array([0.5])
    """
    check_option(method, MERGES, name="merge", owner="merge_cross")
    if method == "log":
        return merge_cross_log(p0, p1)
    if method == "square":
        return merge_cross_square(p0, p1)
    p: FloatArray = merge_mean(p0, p1).mean(axis=0)
    return p


def cross_interval(p0: ArrayLike, p1: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The cross Venn-Abers interval: ``[min_k p0_k, max_k p1_k]`` over folds (axis 0).

    A cross Venn-Abers predictor (CVAP) outputs the K fold-wise pairs (p0_k, p1_k), a
    multiprobability prediction, and merges them into ``p = GM(p1) / (GM(1 - p0) + GM(p1))``
    (Vovk, Petej & Fedorova 2015, Section 4; GM the geometric mean over folds). Its interval
    here is the envelope of the folds' intervals, the convex hull of that multiprobability
    prediction, chosen because

    - it is an interval (``p0 <= p1``) whatever the folds say, as each fold's pair is ordered;
      the ends ``1 - GM(1 - p0_k)`` and ``GM(p1_k)`` cross when folds disagree;
    - it contains every fold's Venn-Abers interval, so the fold whose calibrated end is valid
      is always inside, and wider intervals honestly show disagreement between folds;
    - it contains each merge of :func:`merge_cross`: the log merge (with a = min p0_k and
      b = max p1_k, GM(p1) >= a and GM(1 - p0) <= 1 - a give p >= a; GM(p1) <= b and
      GM(1 - p0) >= 1 - b give p <= b), and the square and mean merges, which are means of
      per-fold merges that each lie in [p0_k, p1_k]. The arithmetic means of the ends would
      not always contain the log merge.

    Parameters
    ----------
    p0, p1 : array-like of shape (K, ...)
        Per-fold lower and upper probabilities, ``p0 <= p1`` elementwise.

    Returns
    -------
    lo, hi : ndarrays of shape (...)
        ``lo <= hi``.

    References
    ----------
    Vovk, Petej & Fedorova, "Large-scale probabilistic predictors with and without
    guarantees of validity" (NeurIPS 2015), Section 4.

    Examples
    --------
    Two folds that disagree: the geometric-mean ends would cross (0.55 > 0.45), the envelope
    does not, and it contains the merged probability.

    >>> p0, p1 = np.array([[0.1], [0.8]]), np.array([[0.2], [0.9]])
    >>> lo, hi = cross_interval(p0, p1)
    >>> lo, hi
    (array([0.1]), array([0.9]))
    >>> bool(lo[0] <= merge_cross_log(p0, p1)[0] <= hi[0])
    True
    """
    p0, p1 = _floats(p0, p1)
    return p0.min(axis=0), p1.max(axis=0)
