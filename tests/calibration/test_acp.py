"""ACPCalibrator and the Wald intervals of a logistic regression."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import NotFittedError

from venncal import ACPCalibrator, logistic_wald_interval


def _lr_problem(seed, n=1500):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 0] - 0.5 * X[:, 1])))).astype(int)
    return X, y


def test_wald_interval_matches_statsmodels_style_formula_without_penalty():
    X, y = _lr_problem(0, 800)
    lr = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(X, y)
    ci = logistic_wald_interval(lr, X, X[:5])
    # independent route: covariance from the explicit Fisher information
    p = lr.predict_proba(X)[:, 1]
    D = np.column_stack([np.ones(len(X)), X])
    cov = np.linalg.inv((D * (p * (1 - p))[:, None]).T @ D)
    eta = lr.decision_function(X[:5])
    se = np.sqrt(np.sum((D[:5] @ cov) * D[:5], axis=1))
    ref = np.column_stack(
        [1 / (1 + np.exp(-(eta - 1.959964 * se))), 1 / (1 + np.exp(-(eta + 1.959964 * se)))]
    )
    np.testing.assert_allclose(ci, ref, rtol=1e-5)


def test_wald_interval_covers_the_truth_about_95_percent():
    # refit on fresh samples: the interval should contain the true probability ~95% of times
    rng = np.random.default_rng(1)
    x0 = np.array([[0.5, -0.5, 0.2]])
    truth = 1 / (1 + np.exp(-(0.5 + 0.25)))
    hits = 0
    trials = 200
    for _ in range(trials):
        X = rng.normal(size=(300, 3))
        y = (rng.random(300) < 1 / (1 + np.exp(-(X[:, 0] - 0.5 * X[:, 1])))).astype(int)
        lr = LogisticRegression(C=np.inf).fit(X, y)
        lo, hi = logistic_wald_interval(lr, X, x0)[0]
        hits += lo <= truth <= hi
    assert 0.89 <= hits / trials <= 0.99


def test_acp_with_model_intervals_is_the_fraction_inside():
    X, y = _lr_problem(2)
    lr = LogisticRegression().fit(X[:500], y[:500])
    p_cal = lr.predict_proba(X[500:1000])[:, 1]
    y_cal = y[500:1000]
    p_test = lr.predict_proba(X[1000:])[:, 1]
    iv = logistic_wald_interval(lr, X[:500], X[1000:])
    raw = ACPCalibrator(interval_adjustment="none").fit(p_cal, y_cal)
    got = raw.predict_proba(p_test, interval=iv)[:, 1]
    adjusted = ACPCalibrator().fit(p_cal, y_cal).predict_proba(p_test, interval=iv)[:, 1]
    for k in range(0, 500, 37):
        inside = (p_cal >= iv[k, 0]) & (p_cal <= iv[k, 1])
        assert inside.any()
        assert got[k] == pytest.approx(y_cal[inside].mean())
        half = (iv[k, 1] - iv[k, 0]) / 2
        inside = (p_cal >= p_test[k] - half) & (p_cal <= p_test[k] + half)
        assert adjusted[k] == pytest.approx(y_cal[inside].mean())


def test_self_built_intervals_contain_the_score_and_narrow_with_data():
    rng = np.random.default_rng(3)
    widths = []
    for n in (200, 5000):
        s = rng.normal(size=n)
        y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
        cal = ACPCalibrator().fit(s, y)
        iv = cal.score_interval([0.0, 1.0])
        assert np.all(iv[:, 0] < [0.0, 1.0]) and np.all([0.0, 1.0] < iv[:, 1])
        widths.append(iv[0, 1] - iv[0, 0])
    assert widths[1] < widths[0] / 3


def test_acp_is_roughly_calibrated_on_simulated_scores():
    rng = np.random.default_rng(4)
    s = rng.random(5000)
    y = (rng.random(5000) < s**2).astype(int)
    p = ACPCalibrator().fit(s, y).predict_proba([0.2, 0.5, 0.8])[:, 1]
    np.testing.assert_allclose(p, [0.04, 0.25, 0.64], atol=0.06)


def test_uninformative_scores_give_the_overall_rate():
    s = np.zeros(10)
    y = np.array([0, 1] * 5)
    np.testing.assert_allclose(ACPCalibrator().fit(s, y).predict_proba([0.0, 3.0])[:, 1], 0.5)


def test_bad_interval_and_parameters():
    cal = ACPCalibrator().fit([0.1, 0.2, 0.3], [0, 1, 1])
    with pytest.raises(ValueError, match="shape"):
        cal.predict_proba([0.1, 0.2], interval=[[0.0, 1.0]])
    with pytest.raises(ValueError, match="lower <= upper"):
        cal.predict_proba([0.1], interval=[[0.5, 0.1]])
    with pytest.raises(ValueError, match="NaN"):
        cal.predict_proba([0.1], interval=[[np.nan, 0.1]])
    with pytest.raises(ValueError, match="'confidence' parameter of ACPCalibrator"):
        ACPCalibrator(confidence=1.0).fit([0.1, 0.2], [0, 1])
    with pytest.raises(ValueError, match="'alpha' parameter of ACPCalibrator"):
        ACPCalibrator(alpha=-1).fit([0.1, 0.2], [0, 1])
    with pytest.raises(NotFittedError):
        ACPCalibrator().score_interval([0.1])


def test_wald_interval_bad_input():
    X, y = _lr_problem(5, 100)
    lr = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="shape"):
        logistic_wald_interval(lr, X[:, :2], X)
    with pytest.raises(ValueError, match="NaN"):
        logistic_wald_interval(lr, X, np.full((1, 3), np.nan))
    with pytest.raises(NotFittedError):
        logistic_wald_interval(LogisticRegression(), X, X)


def _acp_data(n=400, seed=10):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    return s, y, rng.uniform(0.2, 1.0, n)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e308, 1.7e308])
def test_weights_of_any_magnitude_scale_the_information(scale):
    # a weight of k is k copies: the Fisher information grows with the weights, so the
    # self-built intervals shrink as 1 / sqrt(scale); with given intervals and no smoothing
    # only the ratios of the weights matter
    s, y, w = _acp_data()
    t = np.linspace(-3, 3, 31)
    base = ACPCalibrator().fit(s, y, sample_weight=w)
    cal = ACPCalibrator().fit(s, y, sample_weight=w * scale)
    iv = np.column_stack([t - 0.5, t + 0.3])
    np.testing.assert_allclose(
        cal.predict_proba(t, interval=iv), base.predict_proba(t, interval=iv), atol=1e-12
    )
    with np.errstate(over="ignore"):  # ends near +-1.8e308: their difference is infinite
        half = np.diff(cal.score_interval(t), axis=1)[:, 0] / 2
    expected = np.diff(base.score_interval(t), axis=1)[:, 0] / 2 / np.sqrt(scale)
    expected = np.minimum(expected, np.finfo(float).max)
    finite = np.isfinite(half) & (expected > 1e-6) & (expected < 1e300)  # resolvable at t
    np.testing.assert_allclose(half[finite], expected[finite], rtol=1e-9)
    assert np.isfinite(cal.covariance_scaled_).all()
    p = cal.predict_proba(t)
    assert ((p >= 0) & (p <= 1)).all()


@pytest.mark.parametrize("factor", [1e-300, 1e-10, 1e10, 1e300])
def test_scores_in_other_units_give_the_same_probabilities(factor):
    s, y, _ = _acp_data()
    t = np.linspace(-3, 3, 31)
    base = ACPCalibrator().fit(s, y).predict_proba(t)
    np.testing.assert_allclose(
        ACPCalibrator().fit(s * factor, y).predict_proba(t * factor), base, rtol=1e-9
    )
