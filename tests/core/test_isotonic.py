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
