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
    got = smooth_ece(y, p, bandwidth=sigma, sample_weight=w, method="definition")
    assert got == pytest.approx(expected, abs=2e-5)


@pytest.mark.parametrize("seed", range(2))
def test_automatic_bandwidth_is_the_fixed_point_of_the_definition(seed):
    y, p = _data(seed, 25, ends=seed == 1)
    value, sigma = naive.smece(y, p, steps=30)
    curve = smooth_calibration_curve(y, p, method="definition")
    assert curve.bandwidth == pytest.approx(sigma, abs=1e-5)
    assert smooth_ece(y, p, method="definition") == pytest.approx(value, abs=1e-5)
    assert curve.smooth_ece == smooth_ece(y, p, method="definition")
    # the fixed point: the error equals the bandwidth
    assert curve.smooth_ece == pytest.approx(curve.bandwidth, abs=1e-5)


def test_search_stops_at_the_smallest_bandwidth():
    # a tiny error: below 0.001 the search stops at 0.001 (rows pooled as weights)
    p = np.array([0.2, 0.2, 0.5, 0.5, 0.8, 0.8])
    y = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    w = np.array([201.0, 799.0, 500.0, 500.0, 799.0, 201.0])
    curve = smooth_calibration_curve(y, p, sample_weight=w, method="definition")
    assert curve.bandwidth == 1e-3
    assert curve.smooth_ece < 1e-3
    assert curve.smooth_ece == pytest.approx(naive.smece_sigma(y, p, 1e-3, w), abs=1e-6)
    # the reference search stops within 2**-10 above it
    reference = smooth_calibration_curve(y, p, sample_weight=w)
    assert 1e-3 <= reference.bandwidth <= 1e-3 + 2**-10
    assert reference.smooth_ece < 1e-3


@pytest.mark.parametrize("seed", range(4))
def test_integer_weights_equal_copies(seed):
    rng = np.random.default_rng(seed)
    y, p = _data(seed, 30)
    w = rng.integers(0, 4, p.size)
    w[0] = 1
    rows = np.repeat(np.arange(p.size), w)
    for method in ("reference", "definition"):
        for bandwidth in (None, 0.05):
            a = smooth_ece(y, p, sample_weight=w, bandwidth=bandwidth, method=method)
            b = smooth_ece(y[rows], p[rows], bandwidth=bandwidth, method=method)
            assert a == pytest.approx(b, abs=1e-12)
        # and only the ratios of the weights matter
        assert smooth_ece(y, p, sample_weight=w * 1e-200, method=method) == pytest.approx(
            smooth_ece(y, p, sample_weight=w, method=method), abs=1e-12
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
    assert smooth_ece([0, 1], [1.0, 0.0], bandwidth=5.0, method="definition") < 1e-3
    # the reference cuts the kernel at distance 1/2: the two ends never mix
    assert smooth_ece([0, 1], [1.0, 0.0], bandwidth=5.0) == pytest.approx(1.0, abs=2e-3)
    # one constant prediction: the error is |mean(y) - p| whatever the bandwidth
    y = np.array([0, 1, 1, 1, 0, 1])
    for bw in (None, 0.01, 0.5):
        for method in ("reference", "definition"):
            assert smooth_ece(y, np.full(6, 0.25), bandwidth=bw, method=method) == pytest.approx(
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
        ({"method": "relplot"}, "'method' parameter of smooth_ece"),
        ({"method": None}, "'method' parameter of smooth_ece"),
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
    curve = smooth_calibration_curve(
        y, p, sample_weight=w, bandwidth=sigma, n_points=101, method="definition"
    )
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


def _relplot_cases(count):
    """Predictions of every shape: skewed, rounded, with many exactly 0 or 1, few or many."""
    for seed in range(count):
        rng = np.random.default_rng(seed)
        n = int(rng.choice([3, 20, 300, 3000]))
        p = rng.beta(rng.uniform(0.2, 4), rng.uniform(0.2, 4), n)
        if seed % 3 == 0:  # a fifth of the predictions at one end, as trees and isotonic give
            p[rng.random(n) < 0.2] = rng.choice([0.0, 1.0])
        if seed % 4 == 0:
            p = np.round(p, int(rng.integers(1, 4)))
        y = (rng.random(n) < p ** rng.uniform(0.3, 3)).astype(float)
        yield rng, y, p


def test_agrees_with_the_authors_implementation():
    relplot = pytest.importorskip("relplot")
    worst_auto = worst_fixed = 0.0
    for rng, y, p in _relplot_cases(60):
        worst_auto = max(worst_auto, abs(smooth_ece(y, p) - relplot.smECE(p, y)))
        sigma = float(rng.choice([1e-3, 0.01, 0.05, 0.2, 0.6, 2.0]))
        ours = smooth_ece(y, p, bandwidth=sigma)
        worst_fixed = max(worst_fixed, abs(ours - relplot.smECE_sigma(p, y, sigma)))
    assert worst_auto < 5e-4
    assert worst_fixed < 5e-4


def test_reference_curve_is_consistent():
    y, p = _data(4, 500, ends=True)
    curve = smooth_calibration_curve(y, p, n_points=1001)
    assert curve.smooth_ece == smooth_ece(y, p)
    assert curve.smooth_ece <= curve.bandwidth <= curve.smooth_ece + 2e-3
    assert np.trapezoid(curve.density, curve.points) == pytest.approx(1.0, abs=1e-3)
    ok = ~np.isnan(curve.observed)
    assert ok.mean() > 0.9
    # the curve is a kernel regression: each value lies within the labels' range
    assert ((curve.observed[ok] >= 0) & (curve.observed[ok] <= 1)).all()


def test_the_two_methods_differ_only_at_the_ends():
    relplot = pytest.importorskip("relplot")
    y, p = _data(7, 40, ends=True)
    sigma = 0.05
    expected = naive.smece_sigma(y, p, sigma)
    # the definition counts a prediction at exactly 0 or 1 fully
    assert smooth_ece(y, p, bandwidth=sigma, method="definition") == pytest.approx(
        expected, abs=2e-5
    )
    # the reference (relplot's grid) spreads it only inwards, with half its weight
    reference = smooth_ece(y, p, bandwidth=sigma)
    assert reference == pytest.approx(relplot.smECE_sigma(p, y, sigma), abs=2e-4)
    assert abs(reference - expected) > 1e-3
    # away from the ends the two agree
    y, p = _data(7, 400)
    p = 0.05 + 0.9 * p
    a = smooth_ece(y, p, bandwidth=sigma)
    b = smooth_ece(y, p, bandwidth=sigma, method="definition")
    assert a == pytest.approx(b, abs=1e-4)
