"""BayesianBinningCalibrator: the estimator around venncal.core.bayesian_binning."""

import numpy as np
import pytest

from tests.calibration._bad_input import bad_parameter_test
from venncal import BayesianBinningCalibrator
from venncal.core.bayesian_binning import fit_bayesian_binning


@pytest.mark.parametrize("method", ["selection", "averaging"])
def test_same_as_core(method):
    rng = np.random.default_rng(0)
    s = np.round(rng.normal(size=300), 2)
    y = (rng.random(300) < 1 / (1 + np.exp(-s))).astype(int)
    cal = BayesianBinningCalibrator(method=method, lam=7.0).fit(s, y)
    ref = fit_bayesian_binning(s, y, method=method, lam=7.0)
    t = np.linspace(-4, 4, 99)
    np.testing.assert_array_equal(cal.predict_proba(t)[:, 1], ref.predict(t))
    assert cal.log_score_ == ref.log_score


@pytest.mark.parametrize("method", ["selection", "averaging"])
@pytest.mark.parametrize("seed", range(3))
def test_never_outputs_zero_or_one(method, seed):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=200)
    y = (s > 0).astype(int)  # perfectly separated
    p = BayesianBinningCalibrator(method=method).fit(s, y).predict_proba(np.linspace(-9, 9, 301))
    assert np.all((p > 0) & (p < 1))


def test_repairs_non_monotone_scores():
    # the posterior is high at both ends of the score: isotonic/Platt cannot follow, ABB can
    rng = np.random.default_rng(3)
    s = rng.uniform(-1, 1, 3000)
    y = (rng.random(3000) < np.where(np.abs(s) > 0.5, 0.9, 0.1)).astype(int)
    p = BayesianBinningCalibrator().fit(s, y).predict_proba([-0.9, 0.0, 0.9])[:, 1]
    np.testing.assert_allclose(p, [0.9, 0.1, 0.9], atol=0.06)


test_bad_parameters = bad_parameter_test(
    BayesianBinningCalibrator,
    [
        ({"method": "best"}, "'method' parameter of BayesianBinningCalibrator"),
        ({"lam": 0}, "'lam' parameter of BayesianBinningCalibrator"),
        ({"lam": "big"}, "'lam' parameter of BayesianBinningCalibrator"),
    ],
)


def test_max_positions_reaches_the_core():
    rng = np.random.default_rng(3)
    s = rng.random(400)
    y = (rng.random(400) < s).astype(int)
    cal = BayesianBinningCalibrator(max_positions=20).fit(s, y)
    ref = fit_bayesian_binning(s, y, max_positions=20)
    np.testing.assert_array_equal(cal.predict_proba(s)[:, 1], ref.predict(s))
    assert np.unique(cal.predict_proba(s)[:, 1]).size <= 20
    with pytest.raises(ValueError, match="max_positions.*BayesianBinningCalibrator"):
        BayesianBinningCalibrator(max_positions=0).fit(s, y)


@pytest.mark.parametrize("scale", [1e-200, 1e10, 1e14])
def test_weights_of_any_magnitude_stay_strictly_inside(scale):
    # a weight of k is k examples: equal weights are the counts scaled (the prior fades
    # against large counts and dominates small ones), always strictly inside (0, 1)
    rng = np.random.default_rng(4)
    s = rng.normal(size=50)
    y = (rng.random(50) < 1 / (1 + np.exp(-2 * s))).astype(int)
    p = BayesianBinningCalibrator().fit(s, y, sample_weight=np.full(50, scale)).predict_proba(s)
    assert np.all((p > 0) & (p < 1))
    counts = BayesianBinningCalibrator().fit_aggregate(s, y, np.full(50, scale))
    np.testing.assert_array_equal(p, counts.predict_proba(s))


@pytest.mark.parametrize("scale", [1e15, 1e200, 1.7e308])
def test_weights_past_2_to_the_53_examples_are_a_clear_error(scale):
    s, y = np.arange(50.0), np.arange(50) % 2
    with pytest.raises(ValueError, match=r"^'sample_weight' of BayesianBinningCalibrator .* 2\^53"):
        BayesianBinningCalibrator().fit(s, y, sample_weight=np.full(50, scale))
