"""log_loss against a plain loop, with probabilities of exactly 0 and 1 and with weights."""

import math

import numpy as np
import pytest

from tests._reference import metrics_loops as ref
from venncal import metrics


def _weighted_loop(y, p, w):
    """Weighted mean of -ln(probability of the observed label); rows of weight 0 are ignored."""
    num = den = 0.0
    for yi, pi, wi in zip(y, p, w, strict=True):
        if wi == 0:
            continue
        q = pi if yi == 1 else 1.0 - pi
        if q == 0:
            return math.inf
        num += wi * -math.log(q)
        den += wi
    return num / den


def _data(seed, n, share_extreme):
    """Random labels and probabilities, a share of them exactly 0 or 1 and agreeing with the
    label (finite loss), plus random weights with some zeros."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    extreme = rng.random(n) < share_extreme
    p[extreme] = y[extreme]  # 0 for a negative, 1 for a positive
    w = rng.exponential(size=n)
    w[rng.random(n) < 0.2] = 0.0
    return y, p, w


def _check(got, expected):
    if math.isinf(expected):
        assert got == math.inf
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("share_extreme", [0.0, 0.3, 1.0])
def test_log_loss_matches_loops(seed, share_extreme):
    y, p, w = _data(seed, int(np.random.default_rng(seed).integers(1, 400)), share_extreme)
    _check(metrics.log_loss(y, p), ref.log_loss(y, p))
    _check(metrics.log_loss(y, p, sample_weight=w if w.any() else None), _weighted_loop(y, p, w))
    # the same through (n, 2) probabilities, boolean labels and another pos_label
    _check(metrics.log_loss(y == 1, np.column_stack([1 - p, p])), ref.log_loss(y, p))
    _check(metrics.log_loss(np.where(y == 1, "yes", "no"), p, pos_label="yes"), ref.log_loss(y, p))


@pytest.mark.parametrize("seed", range(10))
def test_log_loss_infinite_unless_the_zero_probability_has_weight_zero(seed):
    y, p, w = _data(seed, 200, 0.3)
    w[0] = 1.0
    y[5] = 1
    p[5] = 0.0  # the positive label gets probability 0
    assert metrics.log_loss(y, p) == math.inf
    w[5] = 0.0
    _check(metrics.log_loss(y, p, sample_weight=w), _weighted_loop(y, p, w))
    w[5] = 1e-300
    assert metrics.log_loss(y, p, sample_weight=w) == math.inf
    p[5], y[6], p[6], w[6] = 1.0, 0, 1.0, 0.0  # the negative label gets probability 1
    _check(metrics.log_loss(y, p, sample_weight=w), _weighted_loop(y, p, w))
    w[6] = 2.0
    assert metrics.log_loss(y, p, sample_weight=w) == math.inf
    clipped = np.clip(p, 1e-6, 1 - 1e-6)
    _check(metrics.log_loss(y, p, clip=1e-6), ref.log_loss(y, clipped))
    _check(metrics.log_loss(y, p, sample_weight=w, clip=1e-6), _weighted_loop(y, clipped, w))


def test_log_loss_leaves_inputs_alone_and_scores_a_perfect_forecast_as_plus_zero():
    y = np.array([0, 1, 1, 0])
    p = np.array([0.0, 1.0, 1.0, 0.0])
    w = np.array([1.0, 2.0, 0.0, 3.0])
    before = (y.copy(), p.copy(), w.copy())
    loss = metrics.log_loss(y, p, sample_weight=w)
    assert loss == 0.0 and math.copysign(1.0, loss) == 1.0
    assert math.copysign(1.0, metrics.log_loss(y, p)) == 1.0
    for a, b in zip((y, p, w), before, strict=True):
        np.testing.assert_array_equal(a, b)
