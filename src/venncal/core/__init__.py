"""Algorithms on 1-D scores, with numpy and scipy only.

Nothing here imports scikit-learn, pandas or matplotlib; the estimator layer builds on these
functions.
"""
