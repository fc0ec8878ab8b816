"""venncal: trustworthy probabilities for binary classifiers.

Venn and Venn-Abers predictors with their validity guarantees, the classic calibrators,
calibration metrics and plots.

The public names below are loaded on first use, so ``import venncal.core`` needs only numpy and
scipy, and ``import venncal`` stays fast.

Examples
--------
>>> import numpy as np
>>> import venncal
>>> cal = venncal.VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
>>> cal.predict_interval([0.5]).round(3)
array([[0.333, 1.   ]])
"""

from importlib import import_module

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY = {
    # score calibrators (scikit-learn estimators on 1-D scores)
    "VennAbersCalibrator": "venncal.calibration.venn_abers",
    "IsotonicCalibrator": "venncal.calibration.isotonic",
    "PlattCalibrator": "venncal.calibration.platt",
    "HistogramCalibrator": "venncal.calibration.histogram",
    "BayesianBinningCalibrator": "venncal.calibration.bayesian_binning",
    "ACPCalibrator": "venncal.calibration.acp",
    "MulticlassVennAbersCalibrator": "venncal.calibration.multiclass",
    "MatrixScalingCalibrator": "venncal.calibration.matrix_scaling",
    "DirichletCalibrator": "venncal.calibration.dirichlet",
    "BetaCalibrator": "venncal.calibration.beta",
    "QuadraticCalibrator": "venncal.calibration.quadratic",
    "ScalingBinningCalibrator": "venncal.calibration.scaling_binning",
    "TemperatureCalibrator": "venncal.calibration.temperature",
    "MulticalibrationCalibrator": "venncal.calibration.multicalibration",
    "logistic_wald_interval": "venncal.calibration.acp",
    # abstention with a guarantee on the error of the answers
    "AbstentionRule": "venncal.calibration.abstention",
    # predictive distributions of a regressor's predictions
    "VennAbersDistribution": "venncal.calibration.regression",
    "VennAbersRegressor": "venncal.classifiers.regression",
    # classifiers wrapping a scikit-learn estimator
    "VennAbersClassifier": "venncal.classifiers.venn_abers",
    "ProbingClassifier": "venncal.classifiers.probing",
    "VennClassifier": "venncal.classifiers.venn",
    "MulticlassVennAbersClassifier": "venncal.classifiers.multiclass",
    "UpdatableScorer": "venncal.classifiers._updatable",
    "register_updatable_scorer": "venncal.classifiers._updatable",
    "predict_interval": "venncal.classifiers._pipeline",
    # choosing a calibrator with evidence
    "compare_calibrators": "venncal.selection",
    # diagnostics (simulation, models with known posteriors)
    "unbiasedness_in_the_large": "venncal.diagnostics",
    "sufficiency_check": "venncal.diagnostics",
    "bivariate_normal_bayes_loss_curves": "venncal.diagnostics",
    "prior_shift_brier_curve": "venncal.diagnostics",
    # data shift: class balance, importance weights, monitoring calibration over time
    "estimate_target_prior": "venncal.shift",
    "adjust_for_prior": "venncal.shift",
    "PriorEstimate": "venncal.shift",
    "covariate_shift_weights": "venncal.shift",
    "CalibrationMonitor": "venncal.shift",
    "SegmentedCalibrationMonitor": "venncal.shift",
    # displays (matplotlib is imported only when drawing)
    "ReliabilityDisplay": "venncal.plotting",
    "SmoothReliabilityDisplay": "venncal.plotting",
    "VennIntervalDisplay": "venncal.plotting",
    "BrierCurveDisplay": "venncal.plotting",
    "CriticalDifferenceDisplay": "venncal.plotting",
    "RiskCoverageDisplay": "venncal.plotting",
    "PredictiveBandDisplay": "venncal.plotting",
    "PITDisplay": "venncal.plotting",
    # model files (versioned JSON, no pickle)
    "save": "venncal.persistence",
    "load": "venncal.persistence",
    "ModelFileError": "venncal.persistence",
    # warnings
    "VenncalWarning": "venncal.exceptions",
}

__all__ = sorted(_LAZY) + ["__version__"]

# subpackages reachable as attributes after ``import venncal`` (``venncal.metrics.log_loss``),
# imported on first use
_SUBPACKAGES = (
    "calibration",
    "classifiers",
    "cli",
    "core",
    "dask",
    "datasets",
    "diagnostics",
    "experiments",
    "export",
    "metrics",
    "persistence",
    "plotting",
    "selection",
    "shift",
    "spark",
)


def __getattr__(name):
    if name in _SUBPACKAGES:
        return import_module(f"venncal.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'venncal' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBPACKAGES))
