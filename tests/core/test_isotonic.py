"""PAVA against an independent isotonic fit, and the DIR nearest rule."""

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from tests._reference.venn_abers_naive import isotonic_at
from venncal.core import isotonic as iso


@pytest.mark.parametrize("seed", range(30))
def test_fit_agrees_with_min_max_formula(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    s = rng.integers(0, 8, size=n).astype(float)
    y = rng.integers(0, 2, size=n).astype(float)
    w = rng.uniform(0.1, 2, size=n)
    g = iso.fit_isotonic(s, y, sample_weight=w)
    points = list(zip(s, y, w))
    expected = [isotonic_at(points, x) for x in g.x]
    np.testing.assert_allclose(g.y, expected, atol=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_interpolate_agrees_with_sklearn(seed):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=200).round(1)
    y = (rng.random(200) < 1 / (1 + np.exp(-2 * s))).astype(float)
    t = rng.normal(size=300) * 2
    ours = iso.fit_isotonic(s, y).predict(t)
    theirs = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(t)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_isotonic_regression_properties():
    rng = np.random.default_rng(0)
    for _ in range(20):
        y = rng.normal(size=50)
        w = rng.uniform(0.5, 2, size=50)
        fit = iso.isotonic_regression(y, sample_weight=w)
        assert np.all(np.diff(fit) >= -1e-12)
        # weighted mean is preserved
        assert np.isclose((fit * w).sum(), (y * w).sum())
        # doubled weights equal duplicated rows
        dup = iso.isotonic_regression(np.repeat(y, 2))[::2]
        np.testing.assert_allclose(iso.isotonic_regression(y, sample_weight=2 * np.ones(50)), dup)


def test_nearest_rule_takes_closest_and_smaller_on_tie():
    g = iso.IsotonicStepFunction(x=np.array([0.0, 1.0, 3.0]), y=np.array([0.1, 0.5, 0.9]))
    out = g.predict([-5.0, 0.4, 0.5, 0.6, 2.0, 2.1, 10.0], rule="nearest")
    np.testing.assert_array_equal(out, [0.1, 0.1, 0.1, 0.5, 0.5, 0.9, 0.9])


def test_compiled_pava_equals_python():
    rng = np.random.default_rng(1)
    y, w = rng.normal(size=500), rng.uniform(0.1, 1, size=500)
    py = getattr(iso._pava, "py_func", iso._pava)
    for a, b in zip(iso._pava(y, w), py(y, w)):
        np.testing.assert_array_equal(a, b)


def test_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        iso.isotonic_regression([1.0, np.nan])
    with pytest.raises(ValueError, match="positive"):
        iso.isotonic_regression([1.0, 2.0], sample_weight=[1.0, 0.0])
    with pytest.raises(ValueError, match="'rule'"):
        iso.fit_isotonic([0.0, 1.0], [0, 1]).predict([0.5], rule="linear")


def test_interpolation_across_subnormal_gaps_is_finite():
    # scikit-learn's test_isotonic_non_regression_inf_slope: the slope 1 / 4.4e-314 overflows
    g = iso.fit_isotonic([0, 4.1e-320, 4.4e-314, 1], [0, 0, 1, 1])
    p = g.predict([2.1e-319, 0.0, 4.1e-320, 4.4e-314, 0.5])
    assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1))
    lam = (2.1e-319 - 4.1e-320) / (4.4e-314 - 4.1e-320)
    assert p[0] == pytest.approx(lam, rel=1e-12)
    np.testing.assert_array_equal(p[1:], [0.0, 0.0, 1.0, 1.0])


@pytest.mark.parametrize(
    ("x", "y", "t"),
    [
        # the value just below a calibration score may not pass the value at it, nor 1
        ([-7.24240839e299, 5.56145941e-311], [0.0, 2 / 3], 5.56145941e-311),
        ([-7.33610132e299, 0.0], [1 / 6, 1.0], 0.0),
        ([-3.76779544e296, 8.26718793e-311, 0.367804435], [0.0, 0.2, 0.6], 8.26718793e-311),
        ([-1e308, 1e308], [0.0, 1.0], 0.0),
    ],
)
def test_interpolation_is_monotone_at_the_knots(x, y, t):
    x, y = np.array(x), np.array(y)
    grid = np.sort(np.r_[x, np.nextafter(x, -np.inf), np.nextafter(x, np.inf), t, -t])
    step = iso.IsotonicStepFunction(x=x, y=y)
    p = step.predict(grid)
    assert np.all(np.diff(p) >= 0)
    assert np.all((p >= y[0]) & (p <= y[-1]))
    np.testing.assert_array_equal(step.predict(x), y)


def test_interpolation_over_a_gap_wider_than_the_largest_float():
    step = iso.IsotonicStepFunction(x=np.array([-1e308, 1e308]), y=np.array([0.0, 1.0]))
    p = step.predict([0.0])
    assert p[0] == pytest.approx(0.5)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300, 1.7e308])
def test_fit_is_invariant_to_scaling_the_weights(scale):
    rng = np.random.default_rng(7)
    s = rng.normal(size=60)
    y = (rng.random(60) < 1 / (1 + np.exp(-s))).astype(float)
    w = rng.uniform(0.1, 1.0, size=60)
    base = iso.fit_isotonic(s, y, sample_weight=w)
    scaled = iso.fit_isotonic(s, y, sample_weight=w * scale)
    np.testing.assert_allclose(scaled.y, base.y, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        iso.isotonic_regression(y, sample_weight=w * scale),
        iso.isotonic_regression(y, sample_weight=w),
        rtol=1e-12,
        atol=1e-15,
    )


@pytest.mark.parametrize("seed", range(5))
def test_compiled_and_numpy_interpolation_agree(seed):
    rng = np.random.default_rng(seed)
    x = np.unique(np.r_[rng.normal(size=40), 4.1e-320, 4.4e-314, -1e308, 1e308])
    y = np.sort(rng.random(x.size))
    t = np.r_[rng.normal(size=200), x, np.nextafter(x, -np.inf), np.nextafter(x, np.inf)]
    kernel = getattr(iso._interpolate_kernel, "py_func", iso._interpolate_kernel)
    expected = iso._interpolate_numpy(x, y, t)
    np.testing.assert_array_equal(iso._interpolate_kernel(x, y, t), expected)
    np.testing.assert_array_equal(kernel(x, y, t), expected)


def _uncompressed(s, y, w=None):
    """The step table at every distinct calibration score, as the fit was once stored."""
    x, weight, total = iso.group_scores(np.asarray(s, float), np.asarray(y, float), w)
    mean, _, end = iso._pava(total / weight, weight)
    return iso.IsotonicStepFunction(x=x, y=np.repeat(mean, np.diff(end, prepend=0)))


def _test_scores(rng, x):
    """Calibration scores, midpoints (ties of the nearest rule), points just beside each
    calibration score, random points and points outside the range."""
    mid = (x[:-1] + x[1:]) / 2
    return np.concatenate(
        [
            x,
            mid,
            np.nextafter(x, -np.inf),
            np.nextafter(x, np.inf),
            rng.uniform(x[0] - 1, x[-1] + 1, size=50),
            [x[0] - 10, x[-1] + 10, -1e300, 1e300],
        ]
    )


@pytest.mark.parametrize("seed", range(200))
@pytest.mark.parametrize("rule", ["interpolate", "nearest"])
def test_compressed_table_predicts_bit_identically(seed, rule):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    scale = [1.0, 0.1, 1e-310, 1e300][seed % 4]
    s = rng.integers(0, int(rng.integers(1, 40)), size=n) * scale  # many ties
    y = (rng.random(n) < rng.random()).astype(float)
    w = rng.uniform(0.1, 3, size=n) if seed % 2 else None
    full = _uncompressed(s, y, w)
    g = iso.fit_isotonic(s, y, sample_weight=w)
    t = _test_scores(rng, full.x)
    assert g.predict(t, rule=rule).tobytes() == full.predict(t, rule=rule).tobytes()
    # the kept scores are calibration scores with their fitted values
    idx = np.searchsorted(full.x, g.x)
    np.testing.assert_array_equal(full.x[idx], g.x)
    np.testing.assert_array_equal(full.y[idx], g.y)


def test_table_keeps_only_the_ends_of_each_constant_block():
    rng = np.random.default_rng(0)
    s = rng.random(5000)
    y = (rng.random(5000) < s).astype(float)
    g = iso.fit_isotonic(s, y)
    full = _uncompressed(s, y)
    n_blocks = np.unique(full.y).shape[0]
    assert n_blocks < g.x.shape[0] <= 2 * n_blocks < full.x.shape[0]
    # each kept score is the first or the last of its block
    values, counts = np.unique(g.y, return_counts=True)
    assert values.shape[0] == n_blocks and counts.max() <= 2
    assert g.x[0] == full.x[0] and g.x[-1] == full.x[-1]
