"""Properties every classic calibrator keeps, over scores and weights of any magnitude.

Outputs are finite probabilities; isotonic regression and Platt scaling are monotone in the
score; no calibrator depends on the order of the calibration rows; those whose answer depends
only on the ratios of the weights do not depend on their scale (every weight multiplied by
10^-200 .. 10^200; a weight of k is k copies, so the pseudo-counts of smoothing, Platt's
targets and Bayesian binning's counts move with it); isotonic regression equals its definition
(the max-min formula, in exact arithmetic) with weights.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from sklearn.base import clone

from tests._reference.venn_abers_naive import isotonic_at
from venncal import (
    ACPCalibrator,
    BayesianBinningCalibrator,
    HistogramCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
)

CALIBRATORS = {
    "isotonic": IsotonicCalibrator(),
    "isotonic-nearest": IsotonicCalibrator(rule="nearest"),
    "platt": PlattCalibrator(),
    "histogram": HistogramCalibrator(n_bins=5),
    "histogram-quantile-smoothed": HistogramCalibrator(n_bins=4, strategy="quantile", alpha=1.0),
    "abb": BayesianBinningCalibrator(lam=3.0),
    "sbb": BayesianBinningCalibrator(method="selection", lam=3.0),
    "acp": ACPCalibrator(alpha=1.0),
}
MONOTONE = ("isotonic", "isotonic-nearest", "platt")
# the calibrators whose answer depends only on the ratios of the weights
RATIOS_ONLY = ("isotonic", "isotonic-nearest", "histogram")

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# scores: a coarse grid (ties), ordinary reals, or any finite float (subnormal to 1e308)
_score = st.one_of(
    st.integers(-3, 3).map(float),
    st.floats(-10, 10, allow_nan=False),
    st.floats(allow_nan=False, allow_infinity=False),
)


@st.composite
def calibration_sets(draw, max_size=25):
    n = draw(st.integers(2, max_size))
    s = np.array(draw(st.lists(_score, min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[:2] = [0, 1]
    w = np.array(draw(st.lists(st.floats(0.05, 20.0), min_size=n, max_size=n)))
    t = np.array(draw(st.lists(_score, min_size=1, max_size=10)))
    note(f"exact data: {s.tolist()!r}, {y.tolist()!r}, {w.tolist()!r}, {t.tolist()!r}")
    return s, y, w, t


@pytest.mark.parametrize("name", list(CALIBRATORS))
@SETTINGS
@given(data=calibration_sets())
def test_outputs_are_finite_probabilities(name, data):
    s, y, w, t = data
    cal = clone(CALIBRATORS[name]).fit(s, y, sample_weight=w)
    p = cal.predict_proba(np.r_[t, s])
    assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


@pytest.mark.parametrize("name", MONOTONE)
@SETTINGS
@given(data=calibration_sets())
def test_monotone_in_the_score(name, data):
    s, y, w, t = data
    cal = clone(CALIBRATORS[name]).fit(s, y, sample_weight=w)
    with np.errstate(over="ignore"):
        grid = np.sort(np.r_[t, s, np.nextafter(s, -np.inf), np.nextafter(s, np.inf)])
    grid = grid[np.isfinite(grid)]
    d = np.diff(cal.predict_proba(grid)[:, 1])
    # isotonic regression never decreases; Platt's sigmoid may fall (a negative relation)
    assert np.all(d >= 0) or (name == "platt" and np.all(d <= 0))


@pytest.mark.parametrize("name", list(CALIBRATORS))
@SETTINGS
@given(data=calibration_sets(), seed=st.integers(0, 2**32 - 1))
def test_order_of_the_calibration_rows_does_not_matter(name, data, seed):
    s, y, w, t = data
    perm = np.random.default_rng(seed).permutation(s.size)
    a = clone(CALIBRATORS[name]).fit(s, y, sample_weight=w).predict_proba(t)
    b = clone(CALIBRATORS[name]).fit(s[perm], y[perm], sample_weight=w[perm]).predict_proba(t)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", RATIOS_ONLY)
@SETTINGS
@given(data=calibration_sets(), exponent=st.integers(-200, 200))
def test_scaling_every_weight_changes_nothing(name, data, exponent):
    s, y, w, t = data
    a = clone(CALIBRATORS[name]).fit(s, y, sample_weight=w).predict_proba(t)
    b = clone(CALIBRATORS[name]).fit(s, y, sample_weight=w * 10.0**exponent).predict_proba(t)
    np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


@SETTINGS
@given(data=calibration_sets(max_size=12))
def test_isotonic_equals_its_definition_with_weights(data):
    s, y, w, _ = data
    cal = IsotonicCalibrator(rule="nearest").fit(s, y, sample_weight=w)
    points = list(zip(s.tolist(), y.tolist(), w.tolist()))
    xs = np.unique(s)
    expected = [isotonic_at(points, x) for x in xs.tolist()]
    np.testing.assert_allclose(cal.predict_proba(xs)[:, 1], expected, rtol=1e-12, atol=1e-15)
