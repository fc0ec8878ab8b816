"""Classifiers that wrap a scikit-learn estimator and calibrate its scores.

This is the estimator layer: it may import scikit-learn, ``venncal.core``, ``venncal.metrics``
and ``venncal.calibration``.
"""
