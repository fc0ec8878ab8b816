"""Classifiers that wrap a scikit-learn estimator and calibrate its scores.

This is the estimator layer: it may import scikit-learn, ``venncal.core``, ``venncal.metrics``
and ``venncal.calibration``.
"""

from venncal.classifiers._pipeline import predict_interval

__all__ = ["predict_interval"]
