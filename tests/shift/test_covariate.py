"""Covariate shift: density ratios from a domain classifier, and weighted calibration that
follows the target where unweighted calibration follows the source."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from venncal import IsotonicCalibrator, VennAbersCalibrator, covariate_shift_weights
from venncal.metrics import ece, log_loss


def test_weights_are_the_odds_times_the_size_ratio():
    prob = np.array([0.1, 0.5, 0.9, 0.75])
    w = covariate_shift_weights(prob, n_source=300, n_target=100, clip_quantile=None)
    assert np.allclose(w, prob / (1 - prob) * 3)


def test_clipping_at_a_quantile_and_a_maximum():
    rng = np.random.default_rng(0)
    prob = rng.uniform(0, 1, 1_000)
    prob[:3] = 1.0  # infinitely target-like rows
    raw = covariate_shift_weights(prob, n_source=1, n_target=1, clip_quantile=None)
    assert np.isfinite(raw).all() and raw[:3].max() == raw[3:].max()
    w = covariate_shift_weights(prob, n_source=1, n_target=1, clip_quantile=0.9)
    odds = prob[3:] / (1 - prob[3:])
    cap = np.quantile(odds, 0.9)
    assert np.allclose(w, np.minimum(np.r_[np.full(3, np.inf), odds], cap))
    assert w.max() < raw.max()
    capped = covariate_shift_weights(prob, n_source=1, n_target=1, max_weight=2.0)
    assert capped.max() == 2.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"domain_proba": [0.2, 1.2], "n_source": 1, "n_target": 1}, r"\[0, 1\]"),
        ({"domain_proba": [0.2], "n_source": 0, "n_target": 1}, "n_source"),
        (
            {"domain_proba": [0.2], "n_source": 1, "n_target": 1, "clip_quantile": 0},
            "clip_quantile",
        ),
        ({"domain_proba": [0.0, 0.0], "n_source": 1, "n_target": 1}, "0 on every row"),
    ],
)
def test_bad_input_is_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        covariate_shift_weights(**kwargs)
    assert "\n" not in str(info.value)


def simulate(rng, n, target):
    """x2 moves from N(0, 1) (source) to N(1.5, 1) (target); the score sees x1 only."""
    x1 = rng.normal(size=n)
    x2 = rng.normal(loc=1.5 if target else 0.0, size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(2 * x1 + 1.5 * x2 - 1)))).astype(int)
    return np.column_stack([x1, x2]), y


@pytest.mark.parametrize("seed", range(3))
def test_weighted_calibration_follows_the_target(seed):
    rng = np.random.default_rng(seed)
    x_cal, y_cal = simulate(rng, 3_000, target=False)
    x_dom_s, _ = simulate(rng, 3_000, target=False)
    x_dom_t, _ = simulate(rng, 3_000, target=True)
    x_test, y_test = simulate(rng, 20_000, target=True)
    domain = LogisticRegression().fit(
        np.r_[x_dom_s, x_dom_t], np.r_[np.zeros(3_000), np.ones(3_000)]
    )
    w = covariate_shift_weights(domain.predict_proba(x_cal)[:, 1], n_source=3_000, n_target=3_000)
    s_cal, s_test = x_cal[:, 0], x_test[:, 0]
    for cal in (VennAbersCalibrator(), IsotonicCalibrator()):
        plain = cal.fit(s_cal, y_cal).predict_proba(s_test)[:, 1]
        weighted = cal.fit(s_cal, y_cal, sample_weight=w).predict_proba(s_test)[:, 1]
        assert ece(y_test, weighted) < 0.5 * ece(y_test, plain)
        if isinstance(cal, VennAbersCalibrator):
            assert log_loss(y_test, weighted) < log_loss(y_test, plain) - 0.01
