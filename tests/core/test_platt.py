"""Platt scaling against independent minimisers and simulated sigmoids."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from venncal.core.platt import PlattSigmoid, fit_platt, platt_targets
from venncal.exceptions import VenncalWarning


def _reference_fit(f, t, w):
    """Minimise Platt's objective with a general-purpose optimiser (independent of Newton)."""

    def obj(theta):
        z = theta[0] * f + theta[1]
        p = 1 / (1 + np.exp(z))
        p = np.clip(p, 1e-300, 1 - 1e-16)
        val = -np.sum(w * (t * np.log(p) + (1 - t) * np.log1p(-p)))
        g = w * (t - p)
        return val, np.array([np.sum(g * f), np.sum(g)])

    res = minimize(obj, [0.0, 0.0], jac=True, method="BFGS", options={"gtol": 1e-10})
    return res.x


@pytest.mark.parametrize("seed", range(6))
def test_matches_general_optimiser(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    f = rng.normal(size=n) * rng.choice([0.1, 1.0, 5.0])
    y = (rng.random(n) < 1 / (1 + np.exp(-1.5 * f))).astype(int)
    y[:2] = [0, 1]
    w = rng.uniform(0.2, 2.0, n) if seed % 2 else None
    fit = fit_platt(f, y, w)
    ref = _reference_fit(f, platt_targets(y, w), np.ones(n) if w is None else w)
    assert fit.converged
    np.testing.assert_allclose([fit.a, fit.b], ref, atol=1e-5 * (1 + np.abs(ref)).max())


@pytest.mark.parametrize("seed", range(4))
def test_recovers_a_simulated_sigmoid(seed):
    rng = np.random.default_rng(seed)
    a, b = -rng.uniform(0.5, 3.0), rng.uniform(-1.0, 1.0)
    f = rng.normal(size=40000)
    y = (rng.random(f.size) < 1 / (1 + np.exp(a * f + b))).astype(int)
    fit = fit_platt(f, y)
    assert fit.a == pytest.approx(a, abs=0.08)
    assert fit.b == pytest.approx(b, abs=0.05)
    t = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(fit.predict(t), 1 / (1 + np.exp(a * t + b)), atol=0.02)


def test_unsmoothed_is_maximum_likelihood_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(1)
    f = rng.normal(size=500)
    y = (rng.random(500) < 1 / (1 + np.exp(-2 * f))).astype(int)
    fit = fit_platt(f, y, smoothing=False)
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10000).fit(f[:, None], y)
    # sklearn: p = expit(coef f + intercept) = 1 / (1 + exp(-coef f - intercept))
    assert fit.a == pytest.approx(-lr.coef_[0, 0], abs=1e-5)
    assert fit.b == pytest.approx(-lr.intercept_[0], abs=1e-5)


def test_separable_data_stays_finite_with_smoothing():
    f = np.arange(-5.0, 5.0)
    y = (f > 0).astype(int)
    fit = fit_platt(f, y)
    assert fit.converged and np.isfinite(fit.a)
    p = fit.predict(f)
    assert np.all((p > 0) & (p < 1))
    with pytest.warns(VenncalWarning):
        fit_platt(f, y, smoothing=False)


def test_targets():
    y = np.array([1, 1, 0, 0, 0])
    t = platt_targets(y)
    np.testing.assert_allclose(t, [3 / 4, 3 / 4, 1 / 5, 1 / 5, 1 / 5])
    np.testing.assert_array_equal(platt_targets(y, smoothing=False), y)
    # a weight of k is k copies: N+ = 4 and N- = 3, the targets of the repeated rows
    tw = platt_targets(y, np.array([2.0, 2.0, 1.0, 1.0, 1.0]))
    np.testing.assert_allclose(tw, [5 / 6, 5 / 6, 1 / 5, 1 / 5, 1 / 5], rtol=1e-15)
    repeated = platt_targets(np.array([1, 1, 1, 1, 0, 0, 0]))
    np.testing.assert_array_equal(tw[[0, 2]], repeated[[0, 6]])
    # weights of extreme magnitude: the totals' limits, and no overflow warning
    tw = platt_targets(y, np.array([1e308, 1e308, 1e-300, 1e-300, 1e-300]))
    np.testing.assert_allclose(tw, [1.0, 1.0, 0.5, 0.5, 0.5], rtol=1e-15)


def test_doubled_weights_equal_duplicated_rows_without_smoothing():
    rng = np.random.default_rng(4)
    f = rng.normal(size=100)
    y = (rng.random(100) < 0.5).astype(int)
    w = rng.integers(1, 3, 100)
    a = fit_platt(f, y, w.astype(float), smoothing=False)
    b = fit_platt(np.repeat(f, w), np.repeat(y, w), smoothing=False)
    assert a.a == pytest.approx(b.a, abs=1e-6) and a.b == pytest.approx(b.b, abs=1e-6)


def test_monotone_and_in_unit_interval():
    rng = np.random.default_rng(2)
    f = rng.normal(size=300)
    y = (rng.random(300) < 1 / (1 + np.exp(-f))).astype(int)
    fit = fit_platt(f, y)
    t = np.linspace(-1e3, 1e3, 2001)
    p = fit.predict(t)
    assert np.all((p >= 0) & (p <= 1)) and np.all(np.diff(p) >= 0)


def test_large_set_converges_without_warning():
    rng = np.random.default_rng(0)
    f = rng.normal(size=200000)
    y = (rng.random(f.size) < 1 / (1 + np.exp(-2 * f + 0.5))).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_platt(f, y)
    assert fit.converged


def test_bad_input():
    with pytest.raises(ValueError, match="only 0 and 1"):
        fit_platt([0.0, 1.0], [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        fit_platt([0.0, np.nan], [0, 1])
    with pytest.raises(ValueError, match="max_iter"):
        fit_platt([0.0, 1.0], [0, 1], max_iter=0)
    with pytest.raises(ValueError, match="Inconsistent"):
        fit_platt([0.0, 1.0], [0])


@pytest.mark.parametrize("factor", [1e-300, 1e-10, 1e-8, 1e10, 1e300])
def test_invariant_to_the_units_of_the_score(factor):
    # the fit is affine-equivariant: scores in other units give the same probabilities
    rng = np.random.default_rng(6)
    s = rng.normal(size=400)
    y = (rng.random(400) < 1 / (1 + np.exp(-2 * s + 0.3))).astype(int)
    base = fit_platt(s, y)
    fit = fit_platt(s * factor, y)
    assert fit.converged
    t = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(fit.predict(t * factor), base.predict(t), rtol=1e-9, atol=1e-12)
    shifted = fit_platt(s * factor + 1e6 * factor, y)
    np.testing.assert_allclose(
        shifted.predict(t * factor + 1e6 * factor), base.predict(t), rtol=1e-6, atol=1e-9
    )


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1.7e308])
def test_without_smoothing_invariant_to_scaling_the_weights(scale):
    # plain maximum likelihood depends only on the ratios of the weights
    rng = np.random.default_rng(8)
    s = rng.normal(size=300)
    y = (rng.random(300) < 1 / (1 + np.exp(-s))).astype(int)
    w = rng.uniform(0.2, 1.0, 300)
    base = fit_platt(s, y, w, smoothing=False)
    fit = fit_platt(s, y, w * scale, smoothing=False)
    t = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(fit.predict(t), base.predict(t), rtol=1e-9)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1.7e308])
def test_smoothed_targets_at_any_weight_scale_match_the_reference(scale):
    # a weight of k is k copies, so scaling the weights moves the smoothed targets: the fit
    # at any scale is the minimiser of the objective with the targets of the weight totals
    rng = np.random.default_rng(8)
    s = rng.normal(size=300)
    y = (rng.random(300) < 1 / (1 + np.exp(-s))).astype(int)
    w = rng.uniform(0.2, 1.0, 300) * scale
    fit = fit_platt(s, y, w)
    with np.errstate(over="ignore"):  # at 1.7e308 the totals overflow to inf, as in the fit
        n_pos, n_neg = float(np.sum(w * y)), float(np.sum(w * (1 - y)))
    t_pos = (n_pos + 1) / (n_pos + 2) if np.isfinite(n_pos) else 1.0
    # the same objective on the same targets: y replaced by its target and no smoothing
    shifted = fit_platt(
        np.r_[s, s],
        np.r_[np.ones(300), np.zeros(300)],
        np.r_[
            w * np.where(y == 1, t_pos, 1 / (n_neg + 2)),
            w * np.where(y == 1, 1 - t_pos, 1 - 1 / (n_neg + 2)),
        ],
        smoothing=False,
    )
    t = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(fit.predict(t), shifted.predict(t), rtol=1e-9, atol=1e-12)


def test_scores_spanning_the_float_range():
    s = np.array([-1e308, -1e307, 0.0, 1e307, 1e308])
    y = np.array([0, 0, 1, 0, 1])
    fit = fit_platt(s, y)
    p = fit.predict(np.r_[-1.7e308, s, 1.7e308])
    assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1)) and np.all(np.diff(p) >= 0)


def test_sigmoid_without_its_scaled_intercept_predicts_from_a_and_b():
    # the model-file checks accept a sigmoid whose scaled form is incomplete, and then check
    # a and b, which predict must use (not fail on the missing intercept)
    sig = PlattSigmoid(-2.0, 0.5, 1, True, 0.0, 1.0, a_scaled=-2.0, b_scaled=None)
    s = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(sig.predict(s), 1 / (1 + np.exp(-2.0 * s + 0.5)))
