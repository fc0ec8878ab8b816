"""The candidates of a comparison and their per-row losses, for two classes or K."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import clone

from venncal.metrics import brier_score_samples, log_loss_samples
from venncal.metrics._common import bin_index

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray

__all__ = [
    "LOG_LOSS_CLIP",
    "UNCALIBRATED",
    "default_calibrators",
    "default_multiclass_calibrators",
    "check_calibrators",
    "row_losses",
    "puts_zero_or_one",
]

#: the clipping of probabilities in the log loss (a probability of exactly 0 for an event
#: that happens costs ln(1e15) = 34.5 nats instead of infinity)
LOG_LOSS_CLIP = 1e-15

#: the name of the scores themselves as a candidate
UNCALIBRATED = "uncalibrated"

_OWNER = "compare_calibrators"


def default_calibrators(scores_are_probabilities: bool = True) -> dict[str, Any]:
    """The calibrators compared by default for binary scores, by name.

    Inductive Venn-Abers (with the mean merge ``(p0 + p1) / 2``, which has the lowest mean test
    log loss of the merges on ``benchmarks/bench_quality.py``), isotonic regression, Platt
    scaling, beta calibration, histogram binning (10 equal-frequency bins), quadratic scaling
    and temperature scaling. Beta,
    quadratic and temperature scaling read the scores as probabilities when they lie in [0, 1]
    and as log-odds otherwise.

    Parameters
    ----------
    scores_are_probabilities : bool, default=True

    Returns
    -------
    dict of str to estimator

    Examples
    --------
    >>> sorted(default_calibrators())
    ['beta', 'histogram', 'isotonic', 'platt', 'quadratic', 'temperature', 'venn-abers']
    """
    from venncal.calibration import (
        BetaCalibrator,
        HistogramCalibrator,
        IsotonicCalibrator,
        PlattCalibrator,
        QuadraticCalibrator,
        TemperatureCalibrator,
        VennAbersCalibrator,
    )

    scale = "probability" if scores_are_probabilities else "logit"
    return {
        "venn-abers": VennAbersCalibrator(merge="mean"),
        "isotonic": IsotonicCalibrator(),
        "platt": PlattCalibrator(),
        "beta": BetaCalibrator(score_scale=scale),
        "histogram": HistogramCalibrator(n_bins=10, strategy="quantile"),
        "quadratic": QuadraticCalibrator(score_scale=scale),
        "temperature": TemperatureCalibrator(
            score_type="probabilities" if scores_are_probabilities else "logits"
        ),
    }


def default_multiclass_calibrators(scores_are_probabilities: bool = True) -> dict[str, Any]:
    """The calibrators compared by default for an (n, K) score matrix, by name.

    Temperature scaling, structured matrix scaling (:class:`~venncal.MatrixScalingCalibrator`
    with its default structure) and multiclass Venn-Abers (its default strategy).

    Parameters
    ----------
    scores_are_probabilities : bool, default=True
        Rows of probabilities (read through their logarithms) or logits.

    Returns
    -------
    dict of str to estimator

    Examples
    --------
    >>> sorted(default_multiclass_calibrators())
    ['matrix-scaling', 'temperature', 'venn-abers']
    """
    from venncal.calibration import (
        MatrixScalingCalibrator,
        MulticlassVennAbersCalibrator,
        TemperatureCalibrator,
    )

    kind = "probabilities" if scores_are_probabilities else "logits"
    return {
        "temperature": TemperatureCalibrator(score_type=kind),
        "matrix-scaling": MatrixScalingCalibrator(),
        "venn-abers": MulticlassVennAbersCalibrator(score_type=kind),
    }


def check_calibrators(
    calibrators: Mapping[str, Any] | Iterable[Any] | None, defaults: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """``{name: unfitted clone}`` of the user's calibrators, or the defaults."""
    if calibrators is None:
        return defaults()
    if isinstance(calibrators, dict):
        items = list(calibrators.items())
    else:
        items = [(type(c).__name__, c) for c in calibrators]
        names = [n for n, _ in items]
        if len(set(names)) != len(names):
            raise ValueError(
                f"{_OWNER}: two calibrators of the same class; pass a dict "
                "{name: calibrator} to name them."
            )
    if not items:
        raise ValueError(f"{_OWNER}: 'calibrators' is empty.")
    out = {}
    for name, est in items:
        if not (hasattr(est, "fit") and hasattr(est, "predict_proba")):
            raise TypeError(
                f"{_OWNER}: calibrator {name!r} has no fit/predict_proba "
                "(pass score calibrators such as venncal.PlattCalibrator())."
            )
        if str(name) == UNCALIBRATED:
            raise ValueError(f"{_OWNER}: the name {UNCALIBRATED!r} is reserved.")
        out[str(name)] = clone(est)
    return out


def puts_zero_or_one(proba: ArrayLike) -> bool:
    """Whether probabilities (1-D, or rows of a matrix) reach 0 or 1 within the clipping.

    A calibrator that gives probability 0 (or 1) to an event that can happen has an infinite
    log loss the first time it happens; the comparison never recommends one.

    Examples
    --------
    >>> puts_zero_or_one([0.2, 1.0]), puts_zero_or_one([[0.5, 0.5], [0.9, 0.1]])
    (True, False)
    """
    p = np.asarray(proba, dtype=np.float64)
    return bool(np.any(p <= LOG_LOSS_CLIP) or np.any(p >= 1.0 - LOG_LOSS_CLIP))


def row_losses(
    y: AnyArray, proba: FloatArray, metrics: Collection[str], n_bins: int
) -> tuple[dict[str, FloatArray], dict[str, tuple[IntArray, FloatArray, int]]]:
    """Per-row values of the metrics: ``(means, binned)`` for :class:`RowValues`.

    Binary: ``y`` 0/1 and ``proba`` of shape (n,); log loss (clipped), squared error, and the
    ECE's bin and ``y - p``. K classes: ``y`` the column index of the true class and ``proba``
    of shape (n, K); the log-probability of the true class (clipped), the squared distance to
    the one-hot label, and the top-label ECE's bin and ``correct - confidence``.
    """
    n = y.shape[0]
    means, binned = {}, {}
    if proba.ndim == 1:
        if "log_loss" in metrics:
            means["log_loss"] = log_loss_samples(y, proba, clip=LOG_LOSS_CLIP)
        if "brier_score" in metrics:
            means["brier_score"] = brier_score_samples(y, proba)
        gap, conf = y - proba, proba
    else:
        rows = np.arange(n)
        if "log_loss" in metrics:
            clipped = np.clip(proba[rows, y], LOG_LOSS_CLIP, 1.0 - LOG_LOSS_CLIP)
            means["log_loss"] = -np.log(clipped)
        if "brier_score" in metrics:
            onehot = np.zeros_like(proba)
            onehot[rows, y] = 1.0
            means["brier_score"] = ((proba - onehot) ** 2).sum(axis=1)
        top = np.argmax(proba, axis=1)
        conf = proba[rows, top]
        gap = (top == y).astype(np.float64) - conf
    if "ece" in metrics:
        binned["ece"] = (bin_index(conf, np.ones(n), n_bins, "uniform", _OWNER), gap, n_bins)
    return means, binned
