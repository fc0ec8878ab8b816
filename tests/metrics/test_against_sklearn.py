"""Where scikit-learn has the same metric, the two agree (a second independent reference)."""

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

from venncal import metrics


@pytest.mark.parametrize("seed", range(6))
def test_scores_agree_with_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 400))
    p = np.round(rng.random(n), int(rng.integers(1, 4)))  # ties on purpose
    y = (rng.random(n) < p).astype(int)
    y[:2] = [0, 1]
    w = rng.random(n)
    assert metrics.brier_score(y, p, sample_weight=w) == pytest.approx(
        skm.brier_score_loss(y, p, sample_weight=w)
    )
    assert metrics.roc_auc(y, p, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(y, p, sample_weight=w)
    )
    assert metrics.log_loss(y, p, clip=1e-15) == pytest.approx(
        skm.log_loss(y, np.clip(p, 1e-15, 1 - 1e-15)), rel=1e-9
    )
    assert metrics.accuracy(y, p) == pytest.approx(skm.accuracy_score(y, p > 0.5))


@pytest.mark.parametrize("seed", range(4))
def test_reliability_curve_agrees_with_sklearn_on_nonempty_bins(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(500) ** 3  # leaves upper bins sparse or empty
    y = (rng.random(500) < p).astype(int)
    curve = metrics.reliability_curve(y, p, n_bins=10)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10)
    # scikit-learn drops the empty bins; venncal keeps them as NaN
    np.testing.assert_allclose(curve.observed[curve.nonempty], prob_true)
    np.testing.assert_allclose(curve.predicted[curve.nonempty], prob_pred)
