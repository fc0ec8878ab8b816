"""Calibrators on 1-D scores with scikit-learn's estimator API.

This is the estimator layer: it may import scikit-learn, ``venncal.core`` and
``venncal.metrics``, never plotting, datasets, experiments or the command line.
"""
