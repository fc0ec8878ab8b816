"""Out-of-bag Venn-Abers prediction by its definition, for the tests.

Johansson et al. (2018), eqs. (10)-(11): test object i is scored by the out-of-bag
sub-ensemble of a calibration example z_r, and z_r is left out of the calibration set. This
refits an inductive Venn-Abers predictor on the calibration set without z_r, once per distinct
z_r (the algorithm venncal used before its one-pass predictor), and reads (p0, p1) at the test
score. ``dense_oob_probas`` is the dense (members x rows x classes) computation of the
out-of-bag probabilities that the per-member accumulation replaced.
"""

import numpy as np

from venncal.core.venn_abers import ivap_fit


def oob_venn_abers_naive(cal_scores, cal_y, test_scores, left_out, cal_weight=None):
    """(m, 2) array of [p0, p1]: test score i against the calibration set minus ``left_out[i]``."""
    out = np.empty((len(test_scores), 2))
    for p in np.unique(left_out):
        rows = np.flatnonzero(left_out == p)
        keep = np.ones(len(cal_scores), dtype=bool)
        keep[p] = False
        w = None if cal_weight is None else cal_weight[keep]
        tables = ivap_fit(cal_scores[keep], cal_y[keep], sample_weight=w)
        p0, p1 = tables.predict_unchecked(np.asarray(test_scores, dtype=float)[rows])
        out[rows, 0], out[rows, 1] = p0, p1
    return out


def dense_oob_probas(member_probas, oob_mask):
    """Mean probabilities over each row's out-of-bag members from the dense (T, n, K) array."""
    M = oob_mask.astype(np.float64)
    counts = M.sum(axis=1)
    sums = np.einsum("it,tik->ik", M, member_probas)
    has = counts > 0
    probas = np.full_like(sums, np.nan)
    probas[has] = sums[has] / counts[has, None]
    return probas, has
