"""Cost-weighted Bayes losses, Tasche's Figure 1 / Example 3.12 and the prior-shift transform."""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import expit, logit
from scipy.stats import multivariate_normal, norm

from tests._reference.metrics_loops import brier_curve_value
from venncal.diagnostics import (
    bivariate_normal_bayes_loss_curves,
    cost_weighted_bayes_loss,
    cost_weighted_loss,
    gaussian_bayes_loss,
    gaussian_refinement_loss,
    prior_shift_brier_curve,
    prior_shift_posterior,
)


def quad_bayes_loss_1d(c, d, p):
    """(6b) as an integral over the statistic: int min(c (1-p) phi(t), (1-c) p phi(t-d)) dt."""
    if c in (0.0, 1.0):
        return 0.0
    f = lambda t: min(c * (1 - p) * norm.pdf(t), (1 - c) * p * norm.pdf(t - d))  # noqa: E731
    kink = d / 2 + (logit(c) - logit(p)) / d  # where the two weighted densities cross
    lo, hi = min(-12.0, kink - 12), max(12.0 + d, kink + 12)
    return sum(
        quad(f, a, b, limit=400, epsabs=1e-13, epsrel=1e-12)[0] for a, b in ((lo, kink), (kink, hi))
    )


def grid_bayes_loss_2d(c, mean0, mean1, cov, p, n=801):
    """(6b) over the plane: sum of min(c (1-p) f0(x), (1-c) p f1(x)) on a fine grid."""
    lo = np.minimum(mean0, mean1) - 8 * np.sqrt(np.diag(cov))
    hi = np.maximum(mean0, mean1) + 8 * np.sqrt(np.diag(cov))
    g0, g1 = np.linspace(lo[0], hi[0], n), np.linspace(lo[1], hi[1], n)
    xx = np.stack(np.meshgrid(g0, g1, indexing="ij"), axis=-1)
    f0 = multivariate_normal(mean0, cov).pdf(xx)
    f1 = multivariate_normal(mean1, cov).pdf(xx)
    cell = (g0[1] - g0[0]) * (g1[1] - g1[0])
    return float(np.minimum(c * (1 - p) * f0, (1 - c) * p * f1).sum() * cell)


@pytest.mark.parametrize("d", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("p", [0.2, 0.5, 0.7])
def test_gaussian_bayes_loss_matches_quadrature(d, p):
    for c in (0.05, 0.3, 0.5, 0.77, 0.95):
        assert gaussian_bayes_loss(c, separation=d, prior=p) == pytest.approx(
            quad_bayes_loss_1d(c, d, p), abs=1e-9
        )
    assert gaussian_bayes_loss(np.array([0.0, 1.0]), separation=d, prior=p).tolist() == [0, 0]
    # refinement loss = E[eta (1 - eta)] with eta = P(A | T), by quadrature over T
    eta = lambda t: expit(logit(p) + d * t - d * d / 2)  # noqa: E731
    dens = lambda t: (1 - p) * norm.pdf(t) + p * norm.pdf(t - d)  # noqa: E731
    want = quad(lambda t: eta(t) * (1 - eta(t)) * dens(t), -12, 12 + d, limit=400)[0]
    assert gaussian_refinement_loss(separation=d, prior=p) == pytest.approx(want, abs=1e-8)


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_bivariate_curves_match_integration_over_the_plane(rho):
    mean0, mean1, sd, p = np.array([0.0, 0.0]), np.array([1.0, 1.5]), np.array([1.0, 1.2]), 0.4
    cov = np.array([[sd[0] ** 2, rho * sd[0] * sd[1]], [rho * sd[0] * sd[1], sd[1] ** 2]])
    costs = np.array([0.1, 0.4, 0.6, 0.9])
    curves = bivariate_normal_bayes_loss_curves(
        costs, mean0=tuple(mean0), mean1=tuple(mean1), std=tuple(sd), rho=rho, prior=p
    )
    for i, c in enumerate(costs):
        assert curves.both[i] == pytest.approx(
            grid_bayes_loss_2d(c, mean0, mean1, cov, p), abs=2e-5
        )
        assert curves.first[i] == pytest.approx(quad_bayes_loss_1d(c, 1.0, p), abs=1e-9)
        assert curves.second[i] == pytest.approx(quad_bayes_loss_1d(c, 1.5 / 1.2, p), abs=1e-9)
        assert curves.prior[i] == pytest.approx(min(c * (1 - p), (1 - c) * p))


def test_example_3_12_domination_without_sufficiency():
    # Figure 1: independent components (rho = 0); the first separates the classes better
    model = {"mean0": (0.0, 0.0), "mean1": (1.5, 1.0), "std": (1.0, 1.0), "prior": 0.5}
    curves = bivariate_normal_bayes_loss_curves(rho=0.0, **model)
    # (11): the curve given the first component lies below the curve given the second
    assert np.all(curves.first <= curves.second + 1e-15)
    assert np.all(curves.both <= curves.first + 1e-15)
    # the second component is informative: its curve is not the prior's (solid) curve, so by
    # Lemma 3.11 condition (10) cannot hold
    assert np.max(curves.prior - curves.second) > 0.02
    # (10) fails: P(A | x1, x2) differs from P(A | x1); measured by simulation
    rng = np.random.default_rng(0)
    n = 200_000
    y = rng.random(n) < 0.5
    X = rng.normal(size=(n, 2)) + np.where(y[:, None], model["mean1"], model["mean0"])
    eta_both = expit(1.5 * X[:, 0] + 1.0 * X[:, 1] - (1.5**2 + 1.0) / 2)
    eta_first = expit(1.5 * X[:, 0] - 1.5**2 / 2)
    gap = (eta_both - eta_first) ** 2
    gl = curves.refinement_losses["first"] - curves.refinement_losses["both"]
    assert gap.mean() > 0.02
    assert abs(gap.mean() - gl) < 4 * gap.std() / np.sqrt(n)
    # twice the area between the curves is that grouping loss (eq. 15b)
    fine = bivariate_normal_bayes_loss_curves(np.linspace(0, 1, 4001), rho=0.0, **model)
    area = 2 * np.trapezoid(fine.first - fine.both, fine.costs)
    assert area == pytest.approx(gl, abs=1e-6)


def test_cost_weighted_loss_with_labels_is_the_empirical_brier_curve():
    rng = np.random.default_rng(1)
    y = (rng.random(60) < 0.4).astype(float)
    p = np.round(rng.random(60), 1)  # ties on purpose
    costs = np.array([0.0, 0.1, 0.25, 0.3, 0.5, 0.9, 1.0])
    want = [brier_curve_value(y, p, c) for c in costs]
    np.testing.assert_allclose(cost_weighted_loss(y, p, costs), want, atol=1e-15)
    w = rng.integers(1, 4, size=60)
    rep = np.repeat(np.arange(60), w)
    np.testing.assert_allclose(
        cost_weighted_loss(y, p, costs, sample_weight=w),
        [brier_curve_value(y[rep], p[rep], c) for c in costs],
        atol=1e-14,
    )


def test_bayes_loss_is_the_pointwise_minimum_and_integrates_to_refinement():
    rng = np.random.default_rng(2)
    eta = rng.random(500)
    costs = np.linspace(0, 1, 11)
    want = [np.mean(np.minimum(c * (1 - eta), (1 - c) * eta)) for c in costs]
    np.testing.assert_allclose(cost_weighted_bayes_loss(eta, costs), want, atol=1e-15)
    fine = np.linspace(0, 1, 20001)
    area = np.trapezoid(cost_weighted_bayes_loss(eta, fine), fine)
    assert 2 * area == pytest.approx(np.mean(eta * (1 - eta)), abs=1e-8)


@pytest.mark.parametrize(("p", "q"), [(0.5, 0.2), (0.3, 0.8), (0.6, 0.6)])
def test_prior_shift_transform_matches_the_shifted_model(p, q):
    d = 1.3
    costs = np.linspace(0, 1, 11)
    old = lambda c: gaussian_bayes_loss(c, separation=d, prior=p)  # noqa: E731
    moved = prior_shift_brier_curve(costs, old, prior=p, new_prior=q)
    want = [quad_bayes_loss_1d(c, d, q) for c in costs]
    np.testing.assert_allclose(moved, want, atol=1e-9)
    back = prior_shift_brier_curve(
        costs, lambda c: prior_shift_brier_curve(c, old, prior=p, new_prior=q), prior=q, new_prior=p
    )
    np.testing.assert_allclose(back, old(costs), atol=1e-12)


def test_prior_shift_transform_on_a_sample_by_importance_weights():
    # the expectation under Q of a function of x is E_P[g w] with the likelihood ratio
    # w = (q / p) eta + (1 - q) / (1 - p) (1 - eta); the transformed sample curve must equal it
    p, q = 0.5, 0.25
    rng = np.random.default_rng(3)
    n = 5000
    y = rng.random(n) < p
    x = rng.normal(size=n) + 1.2 * y
    eta = expit(logit(p) + 1.2 * x - 0.72)
    w = (q / p) * eta + (1 - q) / (1 - p) * (1 - eta)
    eta_q = prior_shift_posterior(eta, prior=p, new_prior=q)
    np.testing.assert_allclose(eta_q, expit(logit(q) + 1.2 * x - 0.72), atol=1e-12)
    costs = np.linspace(0, 1, 21)
    direct = [np.mean(w * np.minimum(c * (1 - eta_q), (1 - c) * eta_q)) for c in costs]
    moved = prior_shift_brier_curve(
        costs, lambda c: cost_weighted_bayes_loss(eta, c), prior=p, new_prior=q
    )
    np.testing.assert_allclose(moved, direct, atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="costs"):
        gaussian_bayes_loss([0.5, 1.5], separation=1.0)
    with pytest.raises(ValueError, match="separation"):
        gaussian_bayes_loss(0.5, separation=-1.0)
    with pytest.raises(ValueError, match="prior"):
        gaussian_bayes_loss(0.5, separation=1.0, prior=1.0)
    with pytest.raises(ValueError, match="rho"):
        bivariate_normal_bayes_loss_curves(rho=1.0)
    with pytest.raises(ValueError, match="std"):
        bivariate_normal_bayes_loss_curves(std=(1.0, 0.0))
    with pytest.raises(ValueError, match="mean1"):
        bivariate_normal_bayes_loss_curves(mean1=(1.0,))
    with pytest.raises(TypeError, match="brier_curve"):
        prior_shift_brier_curve(0.5, None, prior=0.5, new_prior=0.2)
    with pytest.raises(ValueError, match="new_prior"):
        prior_shift_brier_curve(0.5, lambda c: c, prior=0.5, new_prior=0.0)
    with pytest.raises(ValueError, match="same length"):
        cost_weighted_loss([0.1, 0.2], [0.3], 0.5)
    with pytest.raises(ValueError, match="posterior"):
        cost_weighted_bayes_loss([0.1, np.nan], 0.5)
    with pytest.raises(ValueError, match="posterior"):
        prior_shift_posterior([1.2], prior=0.5, new_prior=0.3)
