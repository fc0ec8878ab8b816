"""VennAbersRegressor with calibration_groups: each calibration part fitted within groups."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold, train_test_split

from venncal import VennAbersDistribution, VennAbersRegressor
from venncal.exceptions import VenncalWarning


def _data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, n)
    g = np.where(rng.random(n) < 0.5, "calm", "wild")
    y = x + rng.normal(size=n) * np.where(g == "wild", 1.0, 0.2)
    return x.reshape(-1, 1), y, g


def test_inductive_is_the_grouped_distribution_of_the_held_out_predictions():
    X, y, g = _data(800, 0)
    Xt, _, gt = _data(60, 1)
    reg = VennAbersRegressor(LinearRegression(), cal_size=0.4, random_state=3)
    reg.fit(X, y, calibration_groups=g)
    train, cal = train_test_split(np.arange(800), test_size=0.4, random_state=3)
    est = LinearRegression().fit(X[train], y[train])
    dist = VennAbersDistribution().fit(est.predict(X[cal]), y[cal], groups=g[cal])
    p = est.predict(Xt)
    t = np.linspace(-3, 3, 9)
    np.testing.assert_array_equal(
        reg.predict_distribution(Xt, t, calibration_groups=gt), dist.predict_cdf(p, t, groups=gt)
    )
    np.testing.assert_array_equal(reg.predict(Xt, gt), dist.predict_mean(p, groups=gt))
    np.testing.assert_array_equal(
        reg.predict_interval(Xt, confidence=0.8, calibration_groups=gt),
        dist.predict_interval(p, confidence=0.8, groups=gt),
    )
    np.testing.assert_array_equal(
        reg.predict_quantiles(Xt, [0.3], calibration_groups=gt),
        dist.predict_quantiles(p, 0.3, groups=gt),
    )
    lo, hi = reg.predict_interval(Xt, calibration_groups=gt).T
    assert np.mean((hi - lo)[gt == "wild"]) > 2 * np.mean((hi - lo)[gt == "calm"])


def test_cross_averages_the_grouped_folds():
    X, y, g = _data(300, 2)
    Xt, _, gt = _data(40, 3)
    reg = VennAbersRegressor(LinearRegression(), method="cross", n_splits=3, random_state=5)
    reg.fit(X, y, calibration_groups=g)
    means = []
    for train, cal in KFold(3, shuffle=True, random_state=5).split(X):
        est = LinearRegression().fit(X[train], y[train])
        dist = VennAbersDistribution().fit(est.predict(X[cal]), y[cal], groups=g[cal])
        means.append(dist.predict_mean(est.predict(Xt), groups=gt))
    np.testing.assert_allclose(reg.predict(Xt, gt), np.mean(means, axis=0), rtol=0, atol=1e-12)


def test_unknown_groups_are_an_error_or_one_warning_naming_the_regressor():
    X, y, g = _data(300, 4)
    Xt = X[:4]
    gt = np.array(["calm", "new", "wild", "new"])
    reg = VennAbersRegressor(LinearRegression(), method="cross", n_splits=3, random_state=0)
    reg.fit(X, y, calibration_groups=g)
    with pytest.raises(ValueError, match=r"VennAbersRegressor: groups \['new'\] were not seen"):
        reg.predict(Xt, gt)
    reg.set_params(group_fallback="pooled").fit(X, y, calibration_groups=g)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = reg.predict_interval(Xt, calibration_groups=gt)
    said = [str(r.message) for r in record if issubclass(r.category, VenncalWarning)]
    assert len(said) == 1 and said[0].startswith("VennAbersRegressor: groups ['new']"), said
    pooled = VennAbersRegressor(LinearRegression(), method="cross", n_splits=3, random_state=0)
    want = pooled.fit(X, y).predict_interval(Xt[[1, 3]])
    np.testing.assert_allclose(got[[1, 3]], want, rtol=0, atol=1e-12)


def test_groups_must_be_given_at_fit_and_prediction_alike():
    X, y, g = _data(200, 5)
    plain = VennAbersRegressor(LinearRegression(), random_state=0).fit(X, y)
    grouped = VennAbersRegressor(LinearRegression(), random_state=0)
    grouped.fit(X, y, calibration_groups=g)
    cases = [
        (lambda: plain.predict(X, g), "fitted without groups"),
        (lambda: grouped.predict(X), "fitted within groups: pass calibration_groups="),
        (lambda: grouped.predict(X, g[:-1]), "'calibration_groups' has 199 labels for 200"),
        (
            lambda: grouped.fit(X, y, calibration_groups=np.linspace(0, 1, 200)),
            "'calibration_groups' must hold integers",
        ),
        (
            lambda: VennAbersRegressor(LinearRegression(), group_fallback="x").fit(X, y),
            "'group_fallback' parameter of VennAbersRegressor",
        ),
    ]
    for call, match in cases:
        with pytest.raises((ValueError, TypeError), match=match) as info:
            call()
        assert "\n" not in str(info.value)
