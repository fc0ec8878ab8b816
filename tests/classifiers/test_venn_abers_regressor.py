"""VennAbersRegressor: Venn-Abers predictive distributions around any scikit-learn regressor."""

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import KFold, train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

from venncal import VennAbersDistribution, VennAbersRegressor

_SPLIT = (
    "repeated rows change the random {} (it draws rows, not weight), so the weighted and the "
    "repeated fits calibrate on different examples; weight k is k copies with a frozen "
    "estimator, which calibrates on every row (test_frozen_weight_is_copies)"
)
_ULP = (
    "the wrapped Ridge's predict differs by one ulp between a batch and a single row; the "
    "check predicts on training points, whose predictions tie with calibration predictions, "
    "where the predictive distribution steps by design"
)
_WEIGHTS = ("check_sample_weight_equivalence_on_dense_data",) + (
    "check_sample_weight_equivalence_on_sparse_data",
)


def _declared(estimator):
    split = "calibration split" if estimator.method == "inductive" else "cross-validation folds"
    out = {check: _SPLIT.format(split) for check in _WEIGHTS}
    if estimator.method == "cross":
        out["check_methods_subset_invariance"] = _ULP
    return out


@parametrize_with_checks(
    [VennAbersRegressor(Ridge()), VennAbersRegressor(Ridge(), method="cross", n_splits=3)],
    expected_failed_checks=_declared,
    xfail_strict=True,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _simulation(n, rng):
    x = rng.uniform(-2, 2, n)
    y = np.sin(2 * x) + x + rng.normal(size=n) * (0.2 + 0.3 * np.abs(x))
    return np.column_stack([x, np.sin(2 * x)]), y


def test_inductive_is_the_distribution_of_the_held_out_predictions():
    rng = np.random.default_rng(0)
    X, y = _simulation(600, rng)
    reg = VennAbersRegressor(LinearRegression(), cal_size=0.3, random_state=4).fit(X, y)
    train, cal = train_test_split(np.arange(600), test_size=0.3, random_state=4)
    est = LinearRegression().fit(X[train], y[train])
    dist = VennAbersDistribution().fit(est.predict(X[cal]), y[cal])
    Xt, _ = _simulation(50, rng)
    p = est.predict(Xt)
    t = np.linspace(-3, 3, 13)
    np.testing.assert_array_equal(reg.predict_distribution(Xt, t), dist.predict_cdf(p, t))
    np.testing.assert_array_equal(reg.predict(Xt), dist.predict_mean(p))
    np.testing.assert_array_equal(reg.predict_interval(Xt), dist.predict_interval(p))
    np.testing.assert_array_equal(reg.predict_quantiles(Xt, [0.1]), dist.predict_quantiles(p, 0.1))


def test_cross_averages_the_folds():
    rng = np.random.default_rng(1)
    X, y = _simulation(300, rng)
    reg = VennAbersRegressor(LinearRegression(), method="cross", n_splits=3, random_state=2)
    reg.fit(X, y)
    Xt, _ = _simulation(40, rng)
    t = np.linspace(-3, 3, 7)
    bands, means = [], []
    for train, cal in KFold(3, shuffle=True, random_state=2).split(X):
        est = LinearRegression().fit(X[train], y[train])
        dist = VennAbersDistribution().fit(est.predict(X[cal]), y[cal])
        bands.append(dist.predict_cdf(est.predict(Xt), t))
        means.append(dist.predict_mean(est.predict(Xt)))
    np.testing.assert_allclose(reg.predict_distribution(Xt, t), np.mean(bands, axis=0), atol=1e-15)
    np.testing.assert_allclose(reg.predict(Xt), np.mean(means, axis=0), atol=1e-12)
    assert len(reg.estimators_) == len(reg.distributions_) == 3


def test_frozen_weight_is_copies():
    rng = np.random.default_rng(2)
    X, y = _simulation(200, rng)
    est = FrozenEstimator(LinearRegression().fit(X, y))
    w = np.ones(200)
    w[:20] = 3
    Xt, _ = _simulation(30, rng)
    a = VennAbersRegressor(est).fit(X, y, sample_weight=w).predict_distribution(Xt, [0.0, 1.0])
    Xc = np.r_[X, X[:20], X[:20]]
    b = VennAbersRegressor(est).fit(Xc, np.r_[y, y[:20], y[:20]])
    np.testing.assert_array_equal(a, b.predict_distribution(Xt, [0.0, 1.0]))


@pytest.mark.parametrize("method", ["inductive", "cross"])
def test_intervals_cover(method):
    rng = np.random.default_rng(3)
    X, y = _simulation(3000, rng)
    Xt, yt = _simulation(2000, rng)
    reg = VennAbersRegressor(LinearRegression(), method=method, cal_size=0.5, random_state=0)
    lo, hi = reg.fit(X, y).predict_interval(Xt, confidence=0.9).T
    assert 0.87 <= np.mean((lo <= yt) & (yt <= hi)) <= 0.95


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"method": "full"}, "method"),
        ({"merge": "max"}, "merge"),
        ({"cal_size": 1.5}, "cal_size"),
        ({"method": "cross", "n_splits": 1}, "n_splits"),
    ],
)
def test_bad_parameters_get_one_line_errors(params, match):
    X, y = _simulation(40, np.random.default_rng(0))
    with pytest.raises(ValueError, match=match) as info:
        VennAbersRegressor(LinearRegression(), **params).fit(X, y)
    assert "\n" not in str(info.value)


def test_bad_targets_and_thresholds():
    X, y = _simulation(40, np.random.default_rng(0))
    with pytest.raises(ValueError, match="NaN"):
        VennAbersRegressor(LinearRegression()).fit(X, np.r_[y[:-1], np.nan])
    reg = VennAbersRegressor(LinearRegression(), random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="sorted"):
        reg.predict_distribution(X, [1.0, 0.0])
    with pytest.raises(ValueError, match="FrozenEstimator"):
        VennAbersRegressor(FrozenEstimator(reg.estimator_), method="cross").fit(X, y)
