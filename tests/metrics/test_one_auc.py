"""One ROC AUC: metrics.roc_auc, _validation.ranking_auc (the calibrators' direction check and
the command line's warning) and venncal evaluate's auc column give the weighted pair count of
the definition, ties counting one half."""

from __future__ import annotations

import math

import numpy as np

from tests._reference.auc_pairs import weighted_pair_auc
from venncal import metrics
from venncal._validation import ranking_auc
from venncal.cli.evaluate import _auc


def test_every_auc_is_the_pair_count_on_random_weighted_inputs_with_ties():
    rng = np.random.default_rng(11)
    for trial in range(300):
        n = int(rng.integers(2, 40))
        y = rng.integers(0, 2, size=n)
        y[0], y[1] = 0, 1
        # few distinct values: many ties
        s = rng.integers(0, int(rng.integers(1, 8)), size=n) / 7.0
        w = None if trial % 3 == 0 else rng.uniform(0.0, 3.0, size=n) * (rng.uniform(size=n) > 0.2)
        if w is not None:
            w[0], w[1] = 1.0, 1.0
        want = weighted_pair_auc(y.tolist(), s.tolist(), None if w is None else w.tolist())
        assert math.isclose(
            metrics.roc_auc(y, s, sample_weight=w), want, rel_tol=1e-12, abs_tol=1e-15
        )
        got = ranking_auc(s, y, None if w is None else w.astype(np.float64))
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15)
        if w is None:
            assert math.isclose(_auc(metrics, y, s), want, rel_tol=1e-12, abs_tol=1e-15)


def test_weights_near_the_largest_float_do_not_overflow_the_pair_total():
    y = np.array([0, 1, 0, 1])
    s = np.array([0.1, 0.4, 0.35, 0.8])
    assert metrics.roc_auc(y, s, sample_weight=np.full(4, 1e300)) == metrics.roc_auc(y, s)
