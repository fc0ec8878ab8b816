"""Calibration metrics for binary probabilistic predictions (numpy and scipy only).

Every function takes ``(y_true, y_proba, *, ...)``: ``y_true`` holds 0/1 labels (or booleans),
or any two labels with ``pos_label`` naming the positive one (``pos_label="yes"``), and
``y_proba`` the probability of the positive class (an (n, 2) array of class probabilities is
also accepted). Bad input (NaN, probabilities outside [0, 1], labels other than 0/1, mismatched
lengths) raises a one-line ``ValueError``. Results with several parts are small frozen
dataclasses.

- Scores: :func:`log_loss`, :func:`brier_score`, :func:`rmse`, :func:`accuracy`,
  :func:`roc_auc`, and per-sample :func:`log_loss_samples`, :func:`brier_score_samples`.
- Calibration error: :func:`reliability_curve`, :func:`ece`, :func:`mce`,
  :func:`debiased_ece`, :func:`smooth_ece` (kernel-smoothed, no bins) with
  :func:`smooth_calibration_curve`, :func:`brier_decomposition` (Murphy),
  :func:`corp_decomposition` (isotonic), :func:`spiegelhalter_z`, :func:`calibration_slope_intercept`, and
  :func:`bootstrap_ci` for any of them.
- Venn outputs: :func:`interval_width`, :func:`interval_validity`, :func:`merge_regret`.
- :func:`brier_curve`: the exact cost-weighted loss curve, area = Brier / 2.
- Within segments: :func:`multicalibration_error` (the MCE: worst cumulative calibration
  error over segments defined by features, with its per-segment table) and
  :func:`ecce_pvalue`.
- Selective prediction (abstention): :func:`risk_coverage_curve`, :func:`aurc` and
  :func:`selective_error` (error and coverage of accepted rows, Clopper-Pearson intervals),
  for binary probabilities or K-class matrices.
- K classes (labels and an (n, K) probability matrix): :func:`multiclass_log_loss`,
  :func:`multiclass_brier_score`, :func:`top_label_ece`, :func:`classwise_ece`,
  :func:`top_label_reliability_curve`, :func:`classwise_reliability_curves`.

Rank statistics for comparing methods over data sets live in :mod:`venncal.metrics.ranking`.

Examples
--------
>>> from venncal import metrics
>>> y, p = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
>>> metrics.brier_score(y, p), metrics.roc_auc(y, p)
(0.158125, 0.75)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal.metrics._bootstrap import BootstrapResult, bootstrap_ci
from venncal.metrics._brier_curve import BrierCurve, brier_curve
from venncal.metrics._calibration import (
    ReliabilityCurve,
    debiased_ece,
    ece,
    mce,
    reliability_curve,
)
from venncal.metrics._decomposition import (
    BrierDecomposition,
    CORPDecomposition,
    brier_decomposition,
    corp_decomposition,
    isotonic_recalibration,
)
from venncal.metrics._multicalibration import (
    MulticalibrationResult,
    ecce_pvalue,
    multicalibration_error,
)
from venncal.metrics._multiclass import (
    classwise_ece,
    classwise_reliability_curves,
    multiclass_brier_score,
    multiclass_log_loss,
    top_label_ece,
    top_label_reliability_curve,
)
from venncal.metrics._scores import (
    accuracy,
    brier_score,
    brier_score_samples,
    log_loss,
    log_loss_samples,
    rmse,
    roc_auc,
)
from venncal.metrics._selective import (
    RiskCoverageCurve,
    SelectiveResult,
    aurc,
    risk_coverage_curve,
    selective_error,
)
from venncal.metrics._significance import (
    CalibrationSlopeIntercept,
    SpiegelhalterResult,
    calibration_slope_intercept,
    spiegelhalter_z,
)
from venncal.metrics._smooth import (
    SmoothCalibrationCurve,
    smooth_calibration_curve,
    smooth_ece,
)
from venncal.metrics._venn import (
    IntervalValidity,
    interval_validity,
    interval_width,
    merge_regret,
)

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "ranking",
    "log_loss",
    "log_loss_samples",
    "brier_score",
    "brier_score_samples",
    "rmse",
    "accuracy",
    "roc_auc",
    "ReliabilityCurve",
    "reliability_curve",
    "ece",
    "mce",
    "debiased_ece",
    "smooth_ece",
    "SmoothCalibrationCurve",
    "smooth_calibration_curve",
    "BrierDecomposition",
    "brier_decomposition",
    "CORPDecomposition",
    "corp_decomposition",
    "isotonic_recalibration",
    "SpiegelhalterResult",
    "spiegelhalter_z",
    "CalibrationSlopeIntercept",
    "calibration_slope_intercept",
    "BootstrapResult",
    "bootstrap_ci",
    "interval_width",
    "IntervalValidity",
    "interval_validity",
    "merge_regret",
    "BrierCurve",
    "brier_curve",
    "multiclass_log_loss",
    "multiclass_brier_score",
    "top_label_ece",
    "classwise_ece",
    "top_label_reliability_curve",
    "classwise_reliability_curves",
    "MulticalibrationResult",
    "multicalibration_error",
    "ecce_pvalue",
    "RiskCoverageCurve",
    "risk_coverage_curve",
    "aurc",
    "SelectiveResult",
    "selective_error",
]


def __getattr__(name: str) -> ModuleType:
    # the rank tests need scipy.stats (most of a second to import): loaded on first use
    if name == "ranking":
        from importlib import import_module

        return import_module("venncal.metrics.ranking")
    raise AttributeError(f"module 'venncal.metrics' has no attribute {name!r}")
