"""Calibrators on 1-D scores with scikit-learn's estimator API.

This is the estimator layer: it may import scikit-learn, ``venncal.core`` and
``venncal.metrics``, never plotting, datasets, experiments or the command line.
"""

from venncal.calibration.abstention import AbstentionRule
from venncal.calibration.acp import ACPCalibrator, logistic_wald_interval
from venncal.calibration.bayesian_binning import BayesianBinningCalibrator
from venncal.calibration.beta import BetaCalibrator
from venncal.calibration.dirichlet import DirichletCalibrator
from venncal.calibration.histogram import HistogramCalibrator
from venncal.calibration.isotonic import IsotonicCalibrator
from venncal.calibration.matrix_scaling import MatrixScalingCalibrator
from venncal.calibration.multicalibration import MulticalibrationCalibrator
from venncal.calibration.multiclass import MulticlassVennAbersCalibrator
from venncal.calibration.platt import PlattCalibrator
from venncal.calibration.quadratic import QuadraticCalibrator
from venncal.calibration.regression import VennAbersDistribution
from venncal.calibration.scaling_binning import ScalingBinningCalibrator
from venncal.calibration.temperature import TemperatureCalibrator
from venncal.calibration.venn_abers import VennAbersCalibrator

__all__ = [
    "VennAbersCalibrator",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "HistogramCalibrator",
    "BayesianBinningCalibrator",
    "ACPCalibrator",
    "BetaCalibrator",
    "MulticlassVennAbersCalibrator",
    "QuadraticCalibrator",
    "ScalingBinningCalibrator",
    "TemperatureCalibrator",
    "MatrixScalingCalibrator",
    "DirichletCalibrator",
    "MulticalibrationCalibrator",
    "VennAbersDistribution",
    "logistic_wald_interval",
    "AbstentionRule",
]
