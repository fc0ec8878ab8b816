"""The inductive Venn-Abers predictive distribution straight from its definition.

At every threshold t the pair (F0(t), F1(t)) is the inductive Venn-Abers pair of the event
``y <= t`` on the calibration pairs with the score ``-prediction`` (Nouretdinov et al., COPA
2018): one ``VennAbersCalibrator`` fit per threshold. Where every calibration label falls on
one side of t (the calibrator refuses one-class data), the pair is the textbook definition of
``venn_abers_naive`` (two exact isotonic fits per test score), so keep those cases small.
"""

import warnings

import numpy as np

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal import VennAbersCalibrator
from venncal.exceptions import VenncalWarning


def cdf_pairs_naive(cal_scores, cal_y, test_scores, thresholds, sample_weight=None):
    """Return an array of shape (m, T, 2): (F0, F1) of each test score at each threshold."""
    s = np.asarray(cal_scores, dtype=float)
    y = np.asarray(cal_y, dtype=float)
    st = np.asarray(test_scores, dtype=float)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    out = np.empty((st.shape[0], len(thresholds), 2))
    for j, t in enumerate(thresholds):
        event = y <= t
        weights = np.ones_like(s) if w is None else w
        if weights[event].sum() > 0 and weights[~event].sum() > 0:
            with warnings.catch_warnings():
                # scores that rank the event backwards are still calibrated, with a warning
                warnings.simplefilter("ignore", VenncalWarning)
                cal = VennAbersCalibrator().fit(-s, event, sample_weight=w)
            out[:, j] = cal.predict_interval(-st)
        else:
            p0, p1 = venn_abers_naive(-s, event.astype(int), -st, sample_weight=w)
            out[:, j, 0], out[:, j, 1] = p0, p1
    return out


def merged_masses(merged_cdf_at_labels):
    """Masses of a distribution on the calibration labels from its CDF there (last is 1)."""
    cdf = np.asarray(merged_cdf_at_labels, dtype=float)
    return np.diff(cdf, prepend=0.0, axis=-1)


def crps_discrete(labels, masses, y):
    """CRPS of a discrete distribution, E|X - y| - E|X - X'| / 2, by plain sums."""
    labels = np.asarray(labels, dtype=float)
    near = np.sum(masses * np.abs(labels - y))
    spread = 0.0
    for a, pa in zip(labels, masses):
        spread += pa * np.sum(masses * np.abs(labels - a))
    return near - spread / 2
