"""Metrics for K-class probabilistic predictions.

Every function takes ``(y_true, y_proba, *, labels=None, ...)``: ``y_true`` holds one label per
object and ``y_proba`` an (n, K) matrix of class probabilities, rows summing to one, column k
belonging to ``labels[k]``. ``labels`` defaults to the sorted distinct labels of ``y_true``
(which must then number K); pass it when a class is missing from ``y_true``.

The calibration errors bin explicitly, with the bins of :func:`venncal.metrics.ece`
(``n_bins`` bins; ``"uniform"``: ``[0, 1/n), ..., [(n-1)/n, 1]``, ``"quantile"``: equal mass):

* top-label ECE (Guo et al. 2017, "confidence" ECE): the largest probability of each row
  (the first one on ties) is binned against whether its class is the true one;
* classwise ECE (Kull et al. 2019): for every class k, the binary ECE of p_k against
  [y = k], averaged over the K classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import numpy as np

from venncal._validation import (
    _as_array,
    _label_array,
    check_consistent_length,
    check_sample_weight,
)
from venncal.core.class_scores import SUM_TOLERANCE_PER_CLASS, rows_off_one
from venncal.metrics._calibration import ReliabilityCurve, ece, reliability_curve

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray

_T = TypeVar("_T")

__all__ = [
    "multiclass_log_loss",
    "multiclass_brier_score",
    "top_label_ece",
    "classwise_ece",
    "top_label_reliability_curve",
    "classwise_reliability_curves",
]


def _check(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    labels: ArrayLike | None,
    sample_weight: ArrayLike | None,
    owner: str,
) -> tuple[IntArray, FloatArray, FloatArray | None, AnyArray]:
    """Return label indices (n,), probabilities (n, K), weights (n,) and the labels."""
    P = _as_array(y_proba, "y_proba")
    if P.ndim != 2 or P.shape[1] < 2:
        raise ValueError(
            f"'y_proba' of {owner} must be an (n_samples, n_classes) matrix with at least two "
            f"columns, got shape {P.shape}."
        )
    try:
        P = np.asarray(P, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"'y_proba' of {owner} must hold numbers.") from None
    y = _label_array(y_true, "y_true")
    check_consistent_length(y_true=y, y_proba=P[:, 0])
    if not np.isfinite(P).all():
        raise ValueError(f"'y_proba' of {owner} holds NaN or infinite values.")
    if (P < 0).any() or (P > 1).any():
        raise ValueError(f"'y_proba' of {owner} must hold probabilities in [0, 1].")
    off = rows_off_one(P)  # the calibrators' rule: probabilities rounded to two decimals pass
    if off.size:
        row = int(off[0])
        raise ValueError(
            f"The rows of 'y_proba' of {owner} must sum to one (within "
            f"{SUM_TOLERANCE_PER_CLASS:g} per class, {SUM_TOLERANCE_PER_CLASS * P.shape[1]:g} "
            f"here); row {row} sums to {P[row].sum():.12g}."
        )
    K = P.shape[1]
    if labels is None:
        labels = np.unique(y)
        if labels.shape[0] != K:
            raise ValueError(
                f"'y_true' of {owner} holds {labels.shape[0]} distinct labels but 'y_proba' has "
                f"{K} columns; pass labels= (one per column) when a class is missing."
            )
    else:
        labels = _label_array(labels, "labels")
        if labels.shape[0] != K or np.unique(labels).shape[0] != K:
            raise ValueError(
                f"'labels' of {owner} must hold {K} distinct labels, one per column of y_proba."
            )
    order = np.argsort(labels, kind="stable")
    pos = np.searchsorted(labels[order], y)
    pos = np.clip(pos, 0, K - 1)
    idx = order[pos]
    unknown = labels[idx] != y
    if unknown.any():
        raise ValueError(
            f"'y_true' of {owner} holds the label {y[np.flatnonzero(unknown)[0]]!r}, which is "
            "not among the labels."
        )
    w = check_sample_weight(sample_weight, y.shape[0])
    if w is not None and not w.sum() > 0:
        raise ValueError(f"'sample_weight' of {owner} must have a positive sum.")
    return idx, P, w, labels


def _mean(values: FloatArray, w: FloatArray | None) -> float:
    return float(values.mean() if w is None else np.average(values, weights=w))


def multiclass_log_loss(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    clip: float | None = None,
) -> float:
    """Mean negative log-probability of the true class, ``-mean_i log p_i[y_i]``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    y_proba : array-like of shape (n, K)
        Class probabilities, rows summing to one (within 1e-6).
    labels : array-like of shape (K,), default=None
        The label of each column; the sorted distinct labels of ``y_true`` when None.
    sample_weight : array-like of shape (n,), default=None
    clip : float in (0, 0.5), default=None
        Probabilities are clipped to ``[clip, 1 - clip]`` first; None leaves them, so a zero
        probability on the true class gives ``inf``.

    Returns
    -------
    float

    Examples
    --------
    >>> multiclass_log_loss([0, 2], [[0.5, 0.25, 0.25], [0.2, 0.3, 0.5]], labels=[0, 1, 2])
    0.6931471805599453
    """
    idx, P, w, _ = _check(y_true, y_proba, labels, sample_weight, "multiclass_log_loss")
    p = P[np.arange(idx.shape[0]), idx]
    if clip is not None:
        if not 0 < clip < 0.5:
            raise ValueError(f"'clip' of multiclass_log_loss must be in (0, 0.5), got {clip!r}.")
        p = np.clip(p, clip, 1 - clip)
    with np.errstate(divide="ignore"):
        return _mean(-np.log(p), w)


def multiclass_brier_score(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Mean squared distance to the one-hot label, ``mean_i sum_k (p_ik - [y_i = k])^2``.

    In [0, 2] (Brier's original definition; scikit-learn's multiclass ``brier_score_loss``
    is the same). For two classes it is twice the binary Brier score.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    y_proba : array-like of shape (n, K)
    labels : array-like of shape (K,), default=None
    sample_weight : array-like of shape (n,), default=None

    Returns
    -------
    float

    Examples
    --------
    >>> multiclass_brier_score([0, 2], [[0.5, 0.25, 0.25], [0.2, 0.3, 0.5]], labels=[0, 1, 2])
    0.3775
    """
    idx, P, w, _ = _check(y_true, y_proba, labels, sample_weight, "multiclass_brier_score")
    E = np.zeros_like(P)
    E[np.arange(idx.shape[0]), idx] = 1.0
    return _mean(((P - E) ** 2).sum(axis=1), w)


def _top_label(
    binary: Callable[..., _T],
    y_true: ArrayLike,
    y_proba: ArrayLike,
    n_bins: int,
    strategy: str,
    labels: ArrayLike | None,
    sample_weight: ArrayLike | None,
    owner: str,
) -> _T:
    """The binary metric ``binary`` (:func:`ece` or :func:`reliability_curve`) of the top
    probability of each row against whether its class is the true one."""
    idx, P, w, _ = _check(y_true, y_proba, labels, sample_weight, owner)
    top = np.argmax(P, axis=1)
    return binary(
        (top == idx).astype(np.float64),
        P[np.arange(P.shape[0]), top],
        n_bins=n_bins,
        strategy=strategy,
        sample_weight=w,
    )


def _classwise(
    binary: Callable[..., _T],
    y_true: ArrayLike,
    y_proba: ArrayLike,
    n_bins: int,
    strategy: str,
    labels: ArrayLike | None,
    sample_weight: ArrayLike | None,
    owner: str,
) -> list[_T]:
    """The binary metric ``binary`` of p_k against [y = k] for every class k, in column order."""
    idx, P, w, _ = _check(y_true, y_proba, labels, sample_weight, owner)
    return [
        binary(
            (idx == k).astype(np.float64),
            P[:, k],
            n_bins=n_bins,
            strategy=strategy,
            sample_weight=w,
        )
        for k in range(P.shape[1])
    ]


def top_label_ece(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Top-label ("confidence") ECE: the largest probability of each row against accuracy.

    ``sum_b P(b) |acc_b - conf_b|`` over the bins of the top probability, where ``acc_b`` is
    the share of rows in bin b whose top class (the first on ties) is the true class and
    ``conf_b`` their mean top probability.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    y_proba : array-like of shape (n, K)
    n_bins : int, default=15
        Number of bins, as in Guo et al. (2017).
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning of the top probability, as in :func:`venncal.metrics.ece`.
    labels : array-like of shape (K,), default=None
    sample_weight : array-like of shape (n,), default=None

    Returns
    -------
    float

    References
    ----------
    Guo, Pleiss, Sun & Weinberger, "On calibration of modern neural networks", ICML 2017.

    Examples
    --------
    >>> P = [[0.7, 0.2, 0.1], [0.6, 0.3, 0.1]]  # top class 0 both times, right once
    >>> round(top_label_ece([0, 1], P, n_bins=10, labels=[0, 1, 2]), 12)  # .5 * .3 + .5 * .6
    0.45
    """
    owner = "top_label_ece"
    return _top_label(ece, y_true, y_proba, n_bins, strategy, labels, sample_weight, owner)


def classwise_ece(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Classwise ECE: the mean over classes k of the binary ECE of p_k against [y = k].

    Parameters
    ----------
    y_true : array-like of shape (n,)
    y_proba : array-like of shape (n, K)
    n_bins : int, default=15
        Number of bins of each class's probability.
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning, as in :func:`venncal.metrics.ece` (quantile bins per class).
    labels : array-like of shape (K,), default=None
    sample_weight : array-like of shape (n,), default=None

    Returns
    -------
    float

    References
    ----------
    Kull, Perello-Nieto, Kängsepp, Silva Filho, Song & Flach, "Beyond temperature scaling:
    obtaining well-calibrated multiclass probabilities with Dirichlet calibration",
    NeurIPS 2019, eq. (classwise-ECE).

    Examples
    --------
    >>> P = [[0.7, 0.2, 0.1], [0.6, 0.3, 0.1]]
    >>> round(classwise_ece([0, 1], P, n_bins=10, labels=[0, 1, 2]), 12)  # (.45 + .45 + .1) / 3
    0.333333333333
    """
    owner = "classwise_ece"
    per_class = _classwise(ece, y_true, y_proba, n_bins, strategy, labels, sample_weight, owner)
    return float(np.mean(per_class))


def top_label_reliability_curve(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> ReliabilityCurve:
    """Reliability curve of the top probability against accuracy.

    Returns
    -------
    ReliabilityCurve
        ``observed`` is the accuracy and ``predicted`` the mean top probability per bin.

    Examples
    --------
    >>> P = [[0.7, 0.2, 0.1], [0.6, 0.3, 0.1]]
    >>> c = top_label_reliability_curve([0, 1], P, n_bins=10, labels=[0, 1, 2])
    >>> c.counts.tolist()[5:8], c.observed.tolist()[6:8]
    ([0.0, 1.0, 1.0], [0.0, 1.0])
    """
    owner = "top_label_reliability_curve"
    return _top_label(
        reliability_curve, y_true, y_proba, n_bins, strategy, labels, sample_weight, owner
    )


def classwise_reliability_curves(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> list[ReliabilityCurve]:
    """One reliability curve per class: p_k against [y = k].

    Returns
    -------
    curves : list of ReliabilityCurve
        In the order of the columns (``labels``).

    Examples
    --------
    >>> curves = classwise_reliability_curves([0, 1], [[0.7, 0.3], [0.6, 0.4]], n_bins=2)
    >>> [c.observed.tolist() for c in curves]
    [[nan, 0.5], [0.5, nan]]
    """
    owner = "classwise_reliability_curves"
    return _classwise(
        reliability_curve, y_true, y_proba, n_bins, strategy, labels, sample_weight, owner
    )
