"""Proper scores and discrimination: log loss, Brier score, RMSE, accuracy and ROC AUC."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_in_range, ranking_auc
from venncal.metrics._common import fill_doc, prepare

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray

__all__ = [
    "log_loss",
    "log_loss_samples",
    "brier_score",
    "brier_score_samples",
    "rmse",
    "accuracy",
    "roc_auc",
]


def _clip(p: FloatArray, clip: float | None) -> FloatArray:
    if clip is None:
        return p
    eps = check_in_range(clip, 0, 0.5, name="clip", owner="log_loss", closed="left")
    return np.clip(p, eps, 1.0 - eps)


@fill_doc
def log_loss_samples(
    y_true: ArrayLike, y_proba: ArrayLike, *, clip: float | None = None, pos_label: object = None
) -> FloatArray:
    """Log loss of each prediction: ``-ln p`` if ``y = 1`` and ``-ln(1 - p)`` if ``y = 0``.

    Parameters
    ----------
    {y_true}
    y_proba : array-like of shape (n,) or (n, 2)
        Probability of the positive class (or both class probabilities).
    clip : float in [0, 0.5), default=None
        When given, probabilities are clipped to ``[clip, 1 - clip]`` first. By default nothing
        is clipped and a probability of 0 or 1 that meets the other label costs ``inf``.
    {pos_label}

    Returns
    -------
    loss : ndarray of shape (n,)
        Non-negative, possibly ``inf``.

    References
    ----------
    Vovk & Petej, "Venn-Abers predictors" (UAI 2014), Section 4, the loss λ_ln.

    Examples
    --------
    >>> log_loss_samples([1, 0, 1], [0.5, 0.0, 0.0])
    array([0.69314718, 0.        ,        inf])
    """
    y, p, _ = prepare(y_true, y_proba, pos_label=pos_label)
    p = _clip(p, clip)
    with np.errstate(divide="ignore"):
        return np.where(y == 1, -np.log(p), -np.log1p(-p))


@fill_doc
def log_loss(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    clip: float | None = None,
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> float:
    """Mean log loss (the MLE of Vovk & Petej 2014, eq. 12), in nats.

    Parameters
    ----------
    {y_true, y_proba}
    clip : float in [0, 0.5), default=None
        Opt-in clipping of the probabilities to ``[clip, 1 - clip]``. Without it the loss is
        infinite as soon as one probability of 0 or 1 meets the other label, as in Table 1 of
        Vovk & Petej (2014), where direct isotonic regression scores ``∞``.
    {sample_weight, pos_label}

    Returns
    -------
    loss : float
        In ``[0, inf]``.

    References
    ----------
    Vovk & Petej, "Venn-Abers predictors" (UAI 2014), eq. (12).

    Examples
    --------
    >>> log_loss([1, 0], [0.5, 0.5])  # ln 2
    0.6931471805599453
    >>> log_loss([1, 0], [0.9, 1.0])
    inf
    >>> round(log_loss([1, 0], [0.9, 1.0], clip=1e-15), 3)
    17.322
    """
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label, lean=True)
    p = _clip(p, clip)
    # ln of the probability given to the observed label, one logarithm per row, in one array:
    # |(1 - y) - p| is p when y = 1 and 1 - p when y = 0 (rounded as 1 - p always is)
    log_q = np.subtract(1.0, y, dtype=np.float64)
    log_q -= p
    np.abs(log_q, out=log_q)
    with np.errstate(divide="ignore", invalid="ignore"):  # ln 0 = -inf; 0 * -inf = nan
        np.log(log_q, out=log_q)
        if w is None:
            total = log_q.sum()
            weight = float(log_q.shape[0])
        else:
            total = np.dot(w, log_q)
            weight = w.sum()
    if not np.isfinite(total):
        # a probability 0 for the observed label: infinite loss, unless its weight is 0
        zero = np.isneginf(log_q)
        if w is None or (w[zero] > 0).any():
            return float("inf")
        log_q[zero] = 0.0
        total = np.dot(w, log_q)
    return float(0.0 - total / weight)  # 0.0 rather than -0.0 for a perfect score


@fill_doc
def brier_score_samples(
    y_true: ArrayLike, y_proba: ArrayLike, *, pos_label: object = None
) -> FloatArray:
    """Squared error ``(y - p)^2`` of each prediction.

    Parameters
    ----------
    {y_true, y_proba, pos_label}

    Returns
    -------
    loss : ndarray of shape (n,)
        Values in [0, 1].

    Examples
    --------
    >>> brier_score_samples([1, 0], [0.75, 0.5])
    array([0.0625, 0.25  ])
    """
    y, p, _ = prepare(y_true, y_proba, pos_label=pos_label)
    return (y - p) ** 2


@fill_doc
def brier_score(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> float:
    """Mean squared error of the probabilities, ``mean((y - p)^2)``.

    Johansson et al. (2018) write the Brier score as a sum over the N instances; like most
    software this returns the mean (divide by N), so that values are comparable across data
    sizes.

    Parameters
    ----------
    {y_true, y_proba, sample_weight, pos_label}

    Returns
    -------
    score : float
        In [0, 1]; 0.25 for the constant 0.5.

    References
    ----------
    Brier (1950); Johansson et al., "Venn predictors and Venn-Abers predictors for random
    forests", Section 4; Tasche, "Calibrating sufficiently", Definition 2.3.

    Examples
    --------
    >>> brier_score([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5])
    0.25

    The true probability minimises the expected score (the Brier score is proper):

    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(100_000) < 0.3
    >>> bool(brier_score(y, np.full(y.size, 0.3)) < brier_score(y, np.full(y.size, 0.4)))
    True
    """
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    return float(np.average((y - p) ** 2, weights=w))


@fill_doc
def rmse(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> float:
    """Root mean squared error, the square root of the Brier score.

    Parameters
    ----------
    {y_true, y_proba, sample_weight, pos_label}

    Returns
    -------
    rmse : float
        In [0, 1].

    References
    ----------
    Vovk & Petej, "Venn-Abers predictors" (UAI 2014), eq. (13); Naeini, Cooper & Hauskrecht
    (AAAI 2015), Section "Empirical results".

    Examples
    --------
    >>> rmse([1, 0], [0.5, 0.5])
    0.5
    """
    return float(
        np.sqrt(brier_score(y_true, y_proba, sample_weight=sample_weight, pos_label=pos_label))
    )


@fill_doc
def accuracy(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    threshold: float = 0.5,
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> float:
    """Share of correct decisions when predicting 1 exactly when ``p > threshold``.

    Parameters
    ----------
    {y_true, y_proba}
    threshold : float in [0, 1], default=0.5
        Decision threshold. A probability equal to it predicts class 0, as the arg-max of
        ``predict_proba`` does in scikit-learn.
    {sample_weight, pos_label}

    Returns
    -------
    accuracy : float
        In [0, 1].

    Examples
    --------
    >>> accuracy([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.5])
    0.75
    """
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    t = check_in_range(threshold, 0, 1, name="threshold", owner="accuracy", closed="both")
    return float(np.average((p > t) == (y == 1), weights=w))


@fill_doc
def roc_auc(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> float:
    """Area under the ROC curve: the probability that a random positive outranks a random
    negative, ties counting one half (the Mann-Whitney statistic).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 0/1 or booleans; both classes must occur.
    y_proba : array-like of shape (n,) or (n, 2)
        Probability of the positive class, or any score increasing in it.
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights: each pair counts with the product of its weights.
    {pos_label}

    Returns
    -------
    auc : float
        In [0, 1].

    Raises
    ------
    ValueError
        If ``y_true`` (with positive weight) holds one class only.

    References
    ----------
    Naeini, Cooper & Hauskrecht (AAAI 2015), Section "Empirical results" (AUC).

    Examples
    --------
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75

    Any strictly increasing transformation of the probabilities leaves the AUC unchanged:

    >>> roc_auc([0, 0, 1, 1], np.array([0.1, 0.4, 0.35, 0.8]) ** 3)
    0.75
    """
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    w_pos = w * y
    w_neg = w * (1.0 - y)
    total_pos, total_neg = w_pos.sum(), w_neg.sum()
    if total_pos <= 0 or total_neg <= 0:
        raise ValueError(
            "roc_auc is undefined when 'y_true' holds one class only; "
            "evaluate on data with both classes."
        )
    return ranking_auc(p, y, w)  # the one pair count of the package
