"""Classifiers that wrap a scikit-learn estimator and calibrate its scores.

This is the estimator layer: it may import scikit-learn, ``venncal.core``, ``venncal.metrics``
and ``venncal.calibration``.
"""

from venncal.classifiers._pipeline import predict_interval
from venncal.classifiers._updatable import register_updatable_scorer
from venncal.classifiers._updatable_base import UpdatableScorer
from venncal.classifiers.multiclass import MulticlassVennAbersClassifier
from venncal.classifiers.probing import ProbingClassifier
from venncal.classifiers.regression import VennAbersRegressor
from venncal.classifiers.venn import VennClassifier
from venncal.classifiers.venn_abers import VennAbersClassifier

__all__ = [
    "VennAbersClassifier",
    "MulticlassVennAbersClassifier",
    "VennClassifier",
    "ProbingClassifier",
    "VennAbersRegressor",
    "UpdatableScorer",
    "register_updatable_scorer",
    "predict_interval",
]
