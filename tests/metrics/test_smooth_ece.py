"""The smooth ECE and the smoothed calibration curve against their definitions."""

import numpy as np
import pytest

from tests._reference import smooth_ece_naive as naive
from venncal.metrics import smooth_calibration_curve, smooth_ece


def _data(seed, n, *, ends=False):
    rng = np.random.default_rng(seed)
    p = rng.beta(rng.uniform(0.5, 3), rng.uniform(0.5, 3), n)
    if ends:  # predictions exactly at 0 and 1, as trees and isotonic maps give
        p[: n // 5] = 0.0
        p[n // 5 : 2 * n // 5] = 1.0
    y = (rng.random(n) < np.clip(p**1.5 + rng.uniform(-0.1, 0.1), 0, 1)).astype(float)
    return y, p


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("sigma", [1e-3, 0.01, 0.07, 0.3, 2.0])
def test_fixed_bandwidth_equals_the_definition(seed, sigma):
    y, p = _data(seed, 40, ends=seed == 2)
    w = np.random.default_rng(seed).integers(0, 4, p.size).astype(float)
    w[0] += 1.0
    expected = naive.smece_sigma(y, p, sigma, w)
    assert smooth_ece(y, p, bandwidth=sigma, sample_weight=w) == pytest.approx(expected, abs=2e-5)


@pytest.mark.parametrize("seed", range(2))
def test_automatic_bandwidth_is_the_fixed_point_of_the_definition(seed):
    y, p = _data(seed, 25, ends=seed == 1)
    value, sigma = naive.smece(y, p, steps=30)
    curve = smooth_calibration_curve(y, p)
    assert curve.bandwidth == pytest.approx(sigma, abs=1e-5)
    assert smooth_ece(y, p) == pytest.approx(value, abs=1e-5)
    assert curve.smooth_ece == smooth_ece(y, p)
    # the fixed point: the error equals the bandwidth
    assert curve.smooth_ece == pytest.approx(curve.bandwidth, abs=1e-5)


def test_search_stops_at_the_smallest_bandwidth():
    # a tiny error: below 0.001 the search stops at 0.001 (rows pooled as weights)
    p = np.array([0.2, 0.2, 0.5, 0.5, 0.8, 0.8])
    y = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    w = np.array([201.0, 799.0, 500.0, 500.0, 799.0, 201.0])
    curve = smooth_calibration_curve(y, p, sample_weight=w)
    assert curve.bandwidth == 1e-3
    assert curve.smooth_ece < 1e-3
    assert curve.smooth_ece == pytest.approx(naive.smece_sigma(y, p, 1e-3, w), abs=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_integer_weights_equal_copies(seed):
    rng = np.random.default_rng(seed)
    y, p = _data(seed, 30)
    w = rng.integers(0, 4, p.size)
    w[0] = 1
    rows = np.repeat(np.arange(p.size), w)
    for bandwidth in (None, 0.05):
        a = smooth_ece(y, p, sample_weight=w, bandwidth=bandwidth)
        b = smooth_ece(y[rows], p[rows], bandwidth=bandwidth)
        assert a == pytest.approx(b, abs=1e-12)
    # and only the ratios of the weights matter
    assert smooth_ece(y, p, sample_weight=w * 1e-200) == pytest.approx(
        smooth_ece(y, p, sample_weight=w), abs=1e-12
    )


def test_labels_proba_columns_and_pos_label():
    y, p = _data(0, 50)
    expected = smooth_ece(y, p)
    assert smooth_ece(np.where(y == 1, "yes", "no"), p, pos_label="yes") == expected
    assert smooth_ece(y.astype(bool), np.column_stack([1 - p, p])) == expected


def test_bounds_and_extremes():
    # every prediction wrong by one in the same direction: the error is 1
    assert smooth_ece([0, 0, 0], [1.0, 1.0, 1.0]) == pytest.approx(1.0, abs=1e-9)
    # errors of both signs at the two ends cancel where the kernel mixes them
    assert smooth_ece([0, 1], [1.0, 0.0], bandwidth=0.01) == pytest.approx(1.0, abs=1e-6)
    assert smooth_ece([0, 1], [1.0, 0.0], bandwidth=5.0) < 1e-3
    # one constant prediction: the error is |mean(y) - p| whatever the bandwidth
    y = np.array([0, 1, 1, 1, 0, 1])
    for bw in (None, 0.01, 0.5):
        assert smooth_ece(y, np.full(6, 0.25), bandwidth=bw) == pytest.approx(
            abs(y.mean() - 0.25), abs=1e-9
        )
    # calibrated labels at scale give a small error
    rng = np.random.default_rng(0)
    p = rng.random(200_000)
    assert smooth_ece(rng.random(p.size) < p, p) < 0.01


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bandwidth": 0.0}, "'bandwidth' parameter of smooth_ece"),
        ({"bandwidth": 1e-5}, "'bandwidth' parameter of smooth_ece"),
        ({"bandwidth": float("nan")}, "'bandwidth' parameter of smooth_ece"),
        ({"bandwidth": "auto"}, "'bandwidth' parameter of smooth_ece"),
        ({"bandwidth": True}, "'bandwidth' parameter of smooth_ece"),
        ({"sample_weight": [1, -1, 1]}, "sample_weight"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        smooth_ece([0, 1, 1], [0.2, 0.6, 0.9], **kwargs)


@pytest.mark.parametrize(
    "y, p, match",
    [
        ([0, 1], [0.2, 1.5], "y_proba"),
        ([0, 1], [0.2, float("nan")], "NaN"),
        ([0, 2], [0.2, 0.3], "y_true"),
        ([0, 1, 1], [0.2, 0.3], "length|inconsistent"),
    ],
)
def test_bad_data(y, p, match):
    with pytest.raises(ValueError, match=match):
        smooth_ece(y, p)


def test_curve_bad_n_points():
    with pytest.raises(ValueError, match="'n_points' parameter of smooth_calibration_curve"):
        smooth_calibration_curve([0, 1], [0.2, 0.7], n_points=1)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("sigma", [0.01, 0.08, 0.4])
def test_curve_equals_the_kernel_regression(seed, sigma):
    y, p = _data(seed, 60, ends=seed == 2)
    w = np.random.default_rng(seed + 10).random(p.size)
    curve = smooth_calibration_curve(y, p, sample_weight=w, bandwidth=sigma, n_points=101)
    observed, predicted, density = naive.kernel_regression(curve.points, y, p, sigma, w)
    ok = ~np.isnan(curve.observed)
    assert ok.mean() > 0.5
    # where the curve is defined, it is the kernel regression; where not, the density is tiny
    np.testing.assert_allclose(curve.observed[ok], observed[ok], rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(curve.predicted[ok], predicted[ok], rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(curve.density, density, rtol=1e-3, atol=1e-6 * density.max())
    assert (density[~ok] < 1e-8 * density.max()).all()
    # the smooth ECE is the density-weighted distance of the two regressions
    gap = np.abs(observed - predicted) * density
    assert curve.smooth_ece == pytest.approx(np.trapezoid(gap, curve.points), abs=2e-3)
    assert curve.smooth_ece == pytest.approx(naive.smece_sigma(y, p, sigma, w), abs=2e-5)


def test_relplot_agrees_away_from_the_ends():
    relplot = pytest.importorskip("relplot")
    worst = 0.0
    for seed in range(25):
        rng = np.random.default_rng(seed)
        n = int(rng.choice([50, 300, 2000]))
        p = 0.002 + 0.996 * rng.beta(rng.uniform(0.3, 4), rng.uniform(0.3, 4), n)
        q = p ** rng.uniform(0.4, 2.5)
        y = (rng.random(n) < q).astype(float)
        worst = max(worst, abs(smooth_ece(y, p) - relplot.smECE(p, y)))
    assert worst < 2e-3


def test_relplot_half_counts_predictions_at_the_ends():
    # relplot's grid counts a prediction at exactly 0 or 1 with half its weight in the density;
    # the definition (and venncal) counts it fully
    relplot = pytest.importorskip("relplot")
    y, p = _data(7, 40, ends=True)
    sigma = 0.05
    expected = naive.smece_sigma(y, p, sigma)
    assert smooth_ece(y, p, bandwidth=sigma) == pytest.approx(expected, abs=2e-5)
    assert abs(relplot.smECE_sigma(p, y, sigma) - expected) > 1e-3
