"""Selective prediction: the risk-coverage curve, its area (AURC), and the error and coverage
of a rule that abstains, with Clopper-Pearson intervals."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import betaincinv

from venncal._validation import (
    _as_array,
    check_consistent_length,
    check_in_range,
    check_labels_pos,
    check_probabilities,
    check_sample_weight,
    check_scores,
)
from venncal.core._docs import fill_docstring
from venncal.core.abstention import top_label_confidence
from venncal.metrics._multiclass import _check as _check_matrix

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from venncal._typing import ArrayLike, BoolArray, FloatArray

    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "RiskCoverageCurve",
    "SelectiveResult",
    "aurc",
    "risk_coverage_curve",
    "selective_error",
]


@dataclass(frozen=True)
class RiskCoverageCurve:
    """The error among accepted rows (risk) against the share accepted (coverage).

    Rows are accepted from the most confident down; rows of equal confidence enter together,
    so there is one point per distinct confidence.

    Attributes
    ----------
    thresholds : ndarray of shape (m,)
        The distinct confidences, decreasing: the point ``j`` accepts the rows whose confidence
        is at least ``thresholds[j]``.
    coverage : ndarray of shape (m,)
        The (weighted) share of rows accepted, increasing to 1.
    risk : ndarray of shape (m,)
        The (weighted) error rate among them.
    aurc : float
        The area under the step curve, ``sum_j (coverage_j - coverage_{j-1}) risk_j``
        (``coverage_{-1} = 0``): without ties, the mean over ``i`` of the error among the
        ``i`` most confident rows (Geifman, Uziel and El-Yaniv 2019).
    """

    thresholds: FloatArray
    coverage: FloatArray
    risk: FloatArray
    aurc: float


@dataclass(frozen=True)
class SelectiveResult:
    """The error among accepted rows and the share accepted, with exact intervals.

    Attributes
    ----------
    error : float
        The (weighted) error rate among accepted rows (NaN when none is accepted).
    error_interval : tuple of float
        Its two-sided Clopper-Pearson interval at ``level``.
    coverage : float
        The (weighted) share of rows accepted.
    coverage_interval : tuple of float
        Its Clopper-Pearson interval.
    n_effective : float
        The number of rows accepted; with weights, Kish's effective number
        ``(sum w)^2 / sum w^2`` of them.
    level : float
        The confidence level of the intervals.
    """

    error: float
    error_interval: tuple[float, float]
    coverage: float
    coverage_interval: tuple[float, float]
    n_effective: float
    level: float


def _wrong_and_confidence(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    confidence: ArrayLike | None,
    labels: ArrayLike | None,
    pos_label: object,
    sample_weight: ArrayLike | None,
    owner: str,
) -> tuple[BoolArray, FloatArray, FloatArray | None]:
    """Whether each row's predicted class is wrong, its confidence, and the weights."""
    arr = _as_array(y_proba, "y_proba")
    if (arr.ndim == 2 and arr.shape[1] > 2) or labels is not None:
        idx, P, w, _ = _check_matrix(y_true, arr, labels, sample_weight, owner)
        top, conf = top_label_confidence(P)
        wrong: BoolArray = top != idx
    else:
        y = check_labels_pos(y_true, pos_label)
        p = check_probabilities(arr)
        check_consistent_length(y_true=y, y_proba=p)
        w = check_sample_weight(sample_weight, y.shape[0])
        top, conf = top_label_confidence(np.column_stack([1.0 - p, p]))
        wrong = top != y
    if confidence is not None:
        conf = check_scores(confidence, name="confidence", allow_column=False)
        check_consistent_length(y_true=wrong, confidence=conf)
    return wrong, conf, w


_PARAMS = textwrap.dedent(
    """\
    y_true : array-like of shape (n,)
        Labels: 0/1 (or ``pos_label``) with binary ``y_proba``; class labels with a matrix.
    y_proba : array-like of shape (n,) or (n, K)
        Probabilities of the positive class, or of every class (rows summing to one). The
        predicted class is the most probable one (``classes[0]`` on a tie), its probability
        the confidence.
    confidence : array-like of shape (n,), default=None
        Another score to rank the rows by (e.g. the raw score, or the lower end of a
        Venn-Abers interval); the predictions still come from ``y_proba``.
    labels : array-like of shape (K,), default=None
        The class of each column of a matrix ``y_proba`` (default: the sorted labels).
    pos_label : int, float, bool or str, default=None
        The positive class of binary labels other than 0/1.
    sample_weight : array-like of shape (n,), default=None
        Weights counted as examples."""
).strip("\n")


def _fill_params(func: _F) -> _F:
    return fill_docstring(func, {"params": _PARAMS})


@_fill_params
def risk_coverage_curve(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    confidence: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    pos_label: object = None,
    sample_weight: ArrayLike | None = None,
) -> RiskCoverageCurve:
    """The risk-coverage curve of abstaining below each confidence, and its area (AURC).

    Parameters
    ----------
    {params}

    Returns
    -------
    RiskCoverageCurve

    References
    ----------
    .. [1] Y. Geifman, G. Uziel and R. El-Yaniv, "Bias-reduced uncertainty estimation for deep
       neural classifiers", ICLR 2019 (the AURC).

    Examples
    --------
    Four rows, the least confident one wrong: accepting the three most confident makes no
    error.

    >>> curve = risk_coverage_curve([1, 0, 1, 1], [0.9, 0.2, 0.45, 0.7])
    >>> curve.coverage, curve.risk
    (array([0.25, 0.5 , 0.75, 1.  ]), array([0.  , 0.  , 0.  , 0.25]))
    >>> float(curve.aurc)
    0.0625
    """
    wrong, conf, w = _wrong_and_confidence(
        y_true, y_proba, confidence, labels, pos_label, sample_weight, "risk_coverage_curve"
    )
    weight = np.ones(conf.shape[0]) if w is None else w / w.max()
    order = np.argsort(-conf, kind="stable")
    c = conf[order]
    cum_w = np.cumsum(weight[order])
    cum_e = np.cumsum(weight[order] * wrong[order])
    last = np.flatnonzero(np.r_[c[1:] != c[:-1], True])  # the last row of each distinct value
    n_acc, n_err = cum_w[last], cum_e[last]
    coverage = n_acc / cum_w[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        risk = np.where(n_acc > 0, n_err / n_acc, 0.0)
    area = float(np.sum(np.diff(np.r_[0.0, coverage]) * risk))
    return RiskCoverageCurve(c[last], coverage, risk, area)


@_fill_params
def aurc(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    confidence: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    pos_label: object = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """The area under the risk-coverage curve (lower is better).

    Parameters
    ----------
    {params}

    Returns
    -------
    float
        ``risk_coverage_curve(...).aurc``.

    Examples
    --------
    Ranking by the probability, or by a score that puts the wrong row first:

    >>> y, p = [1, 0, 1, 1], [0.9, 0.2, 0.45, 0.7]
    >>> aurc(y, p), aurc(y, p, confidence=[0.1, 0.2, 0.9, 0.3])
    (0.0625, 0.5208333333333333)
    """
    return risk_coverage_curve(
        y_true,
        y_proba,
        confidence=confidence,
        labels=labels,
        pos_label=pos_label,
        sample_weight=sample_weight,
    ).aurc


def _clopper_pearson(k: float, n: float, level: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval of ``k`` successes in ``n`` (real counts)."""
    if n <= 0:
        return (0.0, 1.0)
    a = (1.0 - level) / 2.0
    lo = 0.0 if k <= 0 else float(betaincinv(k, n - k + 1.0, a))
    hi = 1.0 if k >= n else float(betaincinv(k + 1.0, n - k, 1.0 - a))
    return (lo, hi)


def selective_error(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    accept: ArrayLike | None = None,
    level: float = 0.95,
    labels: ArrayLike | None = None,
    pos_label: object = None,
    sample_weight: ArrayLike | None = None,
) -> SelectiveResult:
    """The error among accepted rows and the coverage of an abstention rule, with intervals.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels: 0/1 (or ``pos_label``) with binary ``y_proba``; class labels with a matrix.
    y_proba : array-like of shape (n,) or (n, K)
        Probabilities of the positive class, or of every class; the prediction is the most
        probable class.
    accept : array-like of shape (n,), default=None
        True for the rows answered (e.g. :meth:`venncal.AbstentionRule.accept`); None
        accepts every row (the error rate of the classifier).
    level : float, default=0.95
        The confidence level of the two-sided Clopper-Pearson intervals.
    labels : array-like of shape (K,), default=None
        The class of each column of a matrix ``y_proba``.
    pos_label : int, float, bool or str, default=None
        The positive class of binary labels other than 0/1.
    sample_weight : array-like of shape (n,), default=None
        Weights; the intervals count the rows by Kish's effective number
        ``(sum w)^2 / sum w^2`` (the number of rows for equal weights), so scaling the weights
        changes nothing.

    Returns
    -------
    SelectiveResult

    Examples
    --------
    >>> y, p = [1, 0, 1, 1], [0.9, 0.2, 0.45, 0.7]
    >>> res = selective_error(y, p, accept=[True, True, False, True])
    >>> res.error, res.coverage, [round(v, 3) for v in res.error_interval]
    (0.0, 0.75, [0.0, 0.708])
    """
    level = check_in_range(level, 0, 1, name="level", owner="selective_error")
    wrong, _, w = _wrong_and_confidence(
        y_true, y_proba, None, labels, pos_label, sample_weight, "selective_error"
    )
    if accept is None:
        mask: BoolArray = np.ones(wrong.shape[0], dtype=bool)
    else:
        mask = _as_array(accept, "accept")
        if mask.ndim != 1 or mask.dtype.kind != "b":
            raise TypeError(
                f"'accept' must be a 1-D boolean array, got {mask.dtype} of shape {mask.shape}."
            )
        check_consistent_length(y_true=wrong, accept=mask)
    weight = np.ones(wrong.shape[0]) if w is None else w / w.max()
    total, acc = float(weight.sum()), weight[mask]
    mass = float(acc.sum())
    error = float(acc[wrong[mask]].sum()) / mass if mass > 0 else float("nan")
    coverage = mass / total
    # Kish's effective numbers of rows, accepted and in all
    n_acc = mass * mass / float(np.sum(acc * acc)) if mass > 0 else 0.0
    n_all = total * total / float(np.sum(weight * weight))
    return SelectiveResult(
        error=error,
        error_interval=_clopper_pearson(0.0 if mass == 0 else error * n_acc, n_acc, level),
        coverage=coverage,
        coverage_interval=_clopper_pearson(coverage * n_all, n_all, level),
        n_effective=n_acc,
        level=level,
    )
