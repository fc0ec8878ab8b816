"""Beta calibration against its definition (tests/_reference/beta_naive.py)."""

import numpy as np
import pytest
from scipy.special import expit, logit
from sklearn.utils.estimator_checks import parametrize_with_checks

from tests._reference.beta_naive import beta_map, naive_beta
from tests.calibration._bad_input import bad_parameter_test
from tests.calibration.sklearn_checks import score_calibrator_xfails
from venncal import BetaCalibrator, VenncalWarning


def _data(seed, n=400, a=1.5, b=0.7, c=0.3):
    rng = np.random.default_rng(seed)
    s = rng.beta(0.7, 0.7, size=n)
    p = beta_map(s, a, b, c)
    y = (rng.random(n) < p).astype(int)
    return s, y


@pytest.mark.parametrize("parameters", ["abm", "am", "ab"])
@pytest.mark.parametrize("seed", range(8))
def test_agrees_with_the_definition(parameters, seed):
    rng = np.random.default_rng(100 + seed)
    # true maps with both signs of a and b, so that the negative-coefficient rule is exercised
    a, b = rng.uniform(-1.0, 3.0, size=2)
    s, y = _data(seed, a=a, b=b, c=rng.normal())
    w = rng.uniform(0.2, 3.0, size=s.size) if seed % 2 else None
    cal = BetaCalibrator(parameters=parameters).fit(s, y, sample_weight=w)
    ref = naive_beta(s, y, w, parameters)
    np.testing.assert_allclose([cal.a_, cal.b_, cal.c_], ref, atol=2e-5, rtol=2e-5)
    grid = np.linspace(0, 1, 101)
    np.testing.assert_allclose(
        cal.predict_proba(grid)[:, 1], beta_map(grid, *ref), atol=1e-6, rtol=0
    )


def test_negative_coefficient_is_refitted_at_zero():
    # labels falling with s near 0 and rising near 1: the unconstrained fit has b < 0
    rng = np.random.default_rng(3)
    s = rng.uniform(0.001, 0.999, size=3000)
    p = 1 / (1 + 1 / (np.exp(-0.5) * s**2.0 * (1 - s) ** 1.5))
    y = (rng.random(s.size) < p).astype(int)
    cal = BetaCalibrator().fit(s, y)
    assert cal.b_ == 0.0 and cal.a_ > 0.0
    # the map is non-decreasing whatever the data
    q = cal.predict_proba(np.linspace(0, 1, 1001))[:, 1]
    assert np.all(np.diff(q) >= 0)
    np.testing.assert_allclose([cal.a_, cal.b_, cal.c_], naive_beta(s, y), atol=2e-5)


def test_recovers_a_beta_map():
    s, y = _data(0, n=200_000, a=2.0, b=0.5, c=-0.4)
    cal = BetaCalibrator().fit(s, y)
    np.testing.assert_allclose([cal.a_, cal.b_, cal.c_], [2.0, 0.5, -0.4], atol=0.05)


def test_am_is_logistic_regression_on_the_log_odds():
    s, y = _data(1)
    am = BetaCalibrator(parameters="am").fit(s, y)
    assert am.a_ == am.b_
    # a sigmoid of logit(s): the Newton fit of venncal's own Platt scaling without smoothing
    # maximises the same likelihood
    from venncal import PlattCalibrator

    platt = PlattCalibrator(smoothing=False).fit(logit(s), y)
    grid = np.linspace(0.01, 0.99, 50)
    np.testing.assert_allclose(
        am.predict_proba(grid)[:, 1], platt.predict_proba(logit(grid))[:, 1], atol=1e-6
    )


def test_ab_has_its_midpoint_at_one_half():
    s, y = _data(2, a=2.0, b=1.0, c=0.0)
    cal = BetaCalibrator(parameters="ab").fit(s, y)
    assert cal.predict_proba([0.5])[0, 1] == pytest.approx(0.5, abs=1e-12)
    assert cal.m_ == pytest.approx(0.5, abs=1e-9)


def test_midpoint_solves_the_map():
    s, y = _data(4)
    cal = BetaCalibrator().fit(s, y)
    assert cal.predict_proba([cal.m_])[0, 1] == pytest.approx(0.5, abs=1e-9)


def test_identity_scores_give_the_identity_map():
    rng = np.random.default_rng(5)
    s = rng.uniform(0.02, 0.98, size=200_000)
    y = (rng.random(s.size) < s).astype(int)
    cal = BetaCalibrator().fit(s, y)
    np.testing.assert_allclose([cal.a_, cal.b_, cal.c_], [1, 1, 0], atol=0.05)


def test_logit_scale_equals_probability_scale():
    s, y = _data(6)
    f = logit(s)
    p1 = BetaCalibrator().fit(s, y).predict_proba(s)
    p2 = BetaCalibrator(score_scale="logit").fit(f, y).predict_proba(f)
    np.testing.assert_allclose(p1, p2, atol=1e-9)


def test_logit_scale_is_exact_where_the_probability_rounds_to_one():
    # log-odds of 40 and 50 are both 1.0 as probabilities, but keep their order as log-odds
    rng = np.random.default_rng(7)
    f = rng.normal(scale=3, size=500)
    y = (rng.random(500) < expit(f)).astype(int)
    cal = BetaCalibrator(score_scale="logit").fit(f, y)
    p = cal.predict_proba([40.0, 50.0])[:, 1]
    assert p[0] <= p[1]
    assert np.isfinite(p).all()


def test_weights_equal_repeated_rows():
    s, y = _data(8, n=120)
    counts = np.random.default_rng(8).integers(1, 4, size=s.size)
    a = BetaCalibrator().fit(s, y, sample_weight=counts)
    b = BetaCalibrator().fit(np.repeat(s, counts), np.repeat(y, counts))
    np.testing.assert_allclose([a.a_, a.b_, a.c_], [b.a_, b.b_, b.c_], atol=1e-8)


def test_weight_scale_does_not_matter():
    s, y = _data(9)
    w = np.random.default_rng(9).uniform(0.5, 2, size=s.size)
    a = BetaCalibrator().fit(s, y, sample_weight=w).predict_proba(s)
    b = BetaCalibrator().fit(s, y, sample_weight=w * 1e300).predict_proba(s)
    c = BetaCalibrator().fit(s, y, sample_weight=w * 1e-300).predict_proba(s)
    np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_allclose(a, c, atol=1e-12)


def test_scores_of_exactly_zero_and_one():
    s = np.array([0.0, 0.0, 0.2, 0.5, 0.5, 0.8, 1.0, 1.0, 0.3, 0.7])
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1, 1, 0])
    p = BetaCalibrator().fit(s, y).predict_proba([0.0, 1.0, 0.5])[:, 1]
    assert np.isfinite(p).all() and np.all((p >= 0) & (p <= 1))


@pytest.mark.parametrize("bad", [[-0.1, 0.5], [0.5, 1.5]])
def test_probability_scale_refuses_scores_outside_the_unit_interval(bad):
    with pytest.raises(ValueError, match="score_scale='logit'"):
        BetaCalibrator().fit(bad + [0.2, 0.3], [0, 1, 0, 1])
    cal = BetaCalibrator().fit([0.2, 0.3, 0.6, 0.7], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="leave \\[0, 1\\]"):
        cal.predict_proba(bad)


test_bad_parameters = bad_parameter_test(
    BetaCalibrator,
    [
        ({"parameters": "abc"}, "'parameters' must be one of abm, am, ab"),
        ({"score_scale": "odds"}, "'score_scale' must be one of probability, logit"),
        ({"max_iter": 0}, "max_iter"),
    ],
    scores=[0.2, 0.3, 0.6, 0.7],
    y=[0, 1, 0, 1],
)


def test_separable_scores_warn():
    with pytest.warns(VenncalWarning, match="separate the classes"):
        cal = BetaCalibrator().fit([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0, 0, 0, 1, 1, 1])
    p = cal.predict_proba([0.1, 0.9])[:, 1]
    assert p[0] < 0.01 and p[1] > 0.99


@parametrize_with_checks(
    [BetaCalibrator(score_scale="logit"), BetaCalibrator(parameters="am", score_scale="logit")],
    expected_failed_checks=score_calibrator_xfails,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
