"""Simulated data: posteriors agree with independent density computations and with Monte Carlo."""

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import multivariate_normal, norm

from venncal.datasets import (
    BivariateNormalModel,
    CircularModel,
    XorModel,
    make_bivariate_normal,
    make_circular,
    make_xor,
)


def _bayes_from_densities(f1, f0, prior=0.5):
    return prior * f1 / (prior * f1 + (1 - prior) * f0)


def _grid(rng, n=200, scale=3.0):
    return rng.uniform(-scale, scale, size=(n, 2))


def _binned_gap(p, y, n_bins=10, min_count=400):
    """Largest |observed frequency - mean posterior| over equal-width bins with enough points."""
    idx = np.minimum((p * n_bins).astype(int), n_bins - 1)
    gaps = [abs(y[idx == b].mean() - p[idx == b].mean())
            for b in range(n_bins) if (idx == b).sum() >= min_count]  # fmt: skip
    return max(gaps), len(gaps)


# ----------------------------------------------------------------------------- XOR
@pytest.mark.parametrize("center, scale", [(1.0, 0.65), (0.5, 1.0), (2.0, 0.3)])
def test_xor_posterior_matches_mixture_densities(center, scale):
    rng = np.random.default_rng(0)
    X = _grid(rng)
    cov = scale**2 * np.eye(2)
    c = center

    def mix(a, b):
        return 0.5 * multivariate_normal(a, cov).pdf(X) + 0.5 * multivariate_normal(b, cov).pdf(X)

    ref = _bayes_from_densities(mix([c, c], [-c, -c]), mix([c, -c], [-c, c]))
    np.testing.assert_allclose(XorModel(center, scale).posterior(X), ref, rtol=1e-9, atol=1e-12)


def test_xor_posterior_is_stable_far_away():
    p = XorModel(1.0, 0.1).posterior([[50.0, 50.0], [50.0, -50.0], [0.0, 0.0]])
    np.testing.assert_allclose(p, [1.0, 0.0, 0.5])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_xor_monte_carlo_calibration_and_bayes_accuracy(seed):
    ds = make_xor(40000, random_state=seed)
    model = ds.meta["model"]
    p = model.posterior(ds.X)
    gap, used = _binned_gap(p, ds.y)
    assert used >= 5 and gap < 0.04
    acc = np.mean((p > 0.5) == ds.y)
    assert abs(acc - model.bayes_accuracy) < 0.01
    assert abs(ds.y.mean() - 0.5) < 0.015


# ----------------------------------------------------------------------------- circular
def _ring_density(X, r, t):
    """Negative-class density by quadrature over the angle of the ring centre."""
    out = np.empty(len(X))
    for i, (a, b) in enumerate(X):

        def f(th, a=a, b=b):
            return np.exp(-((a - r * np.cos(th)) ** 2 + (b - r * np.sin(th)) ** 2) / (2 * t * t))

        out[i] = integrate.quad(f, 0, 2 * np.pi)[0] / (2 * np.pi) / (2 * np.pi * t * t)
    return out


@pytest.mark.parametrize("s, r, t", [(0.85, 2.0, 0.75), (1.0, 3.0, 0.5)])
def test_circular_posterior_matches_quadrature(s, r, t):
    X = _grid(np.random.default_rng(1), n=60, scale=4.0)
    f1 = multivariate_normal([0, 0], s * s * np.eye(2)).pdf(X)
    ref = _bayes_from_densities(f1, _ring_density(X, r, t))
    np.testing.assert_allclose(CircularModel(s, r, t).posterior(X), ref, rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_circular_monte_carlo_calibration(seed):
    ds = make_circular(40000, random_state=seed)
    p = ds.meta["model"].posterior(ds.X)
    gap, used = _binned_gap(p, ds.y)
    assert used >= 5 and gap < 0.04
    assert 0.78 < np.mean((p > 0.5) == ds.y) < 0.83


def test_circular_is_not_linearly_separable():
    # the positive class sits in the middle of any direction: a linear score is useless
    ds = make_circular(20000, random_state=3)
    for w in ([1.0, 0.0], [0.0, 1.0], [1.0, 1.0]):
        u = ds.X @ np.asarray(w)
        assert abs(np.corrcoef(u, ds.y)[0, 1]) < 0.03


# ----------------------------------------------------------------------------- Tasche
MODELS = [
    BivariateNormalModel(),
    BivariateNormalModel(mean0=(0.5, -1), mean1=(1, 2), std=(2, 0.5), rho=0.7, prior=0.3),
    BivariateNormalModel(rho=0.0),
    BivariateNormalModel(rho=-0.4, prior=0.8),
]


@pytest.mark.parametrize("model", MODELS)
def test_bivariate_posteriors_match_densities(model):
    X = _grid(np.random.default_rng(2), n=100, scale=4.0)
    cov = model.covariance
    f1 = multivariate_normal(model.mean1, cov).pdf(X)
    f0 = multivariate_normal(model.mean0, cov).pdf(X)
    np.testing.assert_allclose(model.posterior(X), _bayes_from_densities(f1, f0, model.prior),
                               rtol=1e-9)  # fmt: skip
    for k in (0, 1):
        sd = model.std[k]
        g1 = norm(model.mean1[k], sd).pdf(X[:, k])
        g0 = norm(model.mean0[k], sd).pdf(X[:, k])
        np.testing.assert_allclose(model.partial_posterior(X, component=k),
                                   _bayes_from_densities(g1, g0, model.prior), rtol=1e-9)  # fmt: skip
    diag = np.diag(np.square(model.std))
    h1 = multivariate_normal(model.mean1, diag).pdf(X)
    h0 = multivariate_normal(model.mean0, diag).pdf(X)
    np.testing.assert_allclose(model.naive_bayes_score(X),
                               _bayes_from_densities(h1, h0, model.prior), rtol=1e-9)  # fmt: skip


def test_zero_correlation_naive_bayes_is_the_truth():
    model = BivariateNormalModel(rho=0.0)
    X, _ = model.sample(1000, random_state=0)
    np.testing.assert_allclose(model.naive_bayes_score(X), model.posterior(X))
    np.testing.assert_allclose(model.naive_bayes_recalibrated(X), model.posterior(X))


@pytest.mark.parametrize("model", [MODELS[0], MODELS[3]])
@pytest.mark.parametrize("seed", [0, 1])
def test_bivariate_calibration_by_monte_carlo(model, seed):
    X, y = model.sample(60000, random_state=seed)
    for name in ("true posterior", "partial posterior", "naive Bayes recalibrated"):
        gap, used = _binned_gap(model.probabilities(X)[name], y)
        assert used >= 4 and gap < 0.04, name
    assert abs(y.mean() - model.prior) < 0.01


def test_naive_bayes_is_miscalibrated_and_orderings_hold():
    model = BivariateNormalModel()
    X, y = model.sample(100000, random_state=5)
    probs = model.probabilities(X)
    brier = {k: np.mean((v - y) ** 2) for k, v in probs.items()}
    assert brier["true posterior"] < brier["naive Bayes recalibrated"] < brier["naive Bayes"]
    assert brier["true posterior"] < brier["partial posterior"]
    gap, _ = _binned_gap(probs["naive Bayes"], y)
    assert gap > 0.05  # over-confident: evidence counted twice


def test_generators_are_deterministic_and_validate():
    a, b = make_xor(50, random_state=7), make_xor(50, random_state=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, make_xor(50, random_state=8).X)
    c = make_bivariate_normal(30, random_state=1)
    assert c.X.shape == (30, 2) and c.meta["model"] == BivariateNormalModel()
    with pytest.raises(ValueError, match="n_samples"):
        make_xor(0)
    with pytest.raises(ValueError, match="'scale' parameter of XorModel"):
        make_xor(10, scale=-1)
    with pytest.raises(ValueError, match="'rho' parameter"):
        make_bivariate_normal(10, rho=1.0)
    with pytest.raises(ValueError, match="'prior' parameter"):
        make_bivariate_normal(10, prior=0)
    with pytest.raises(ValueError, match="shape"):
        XorModel().posterior(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        CircularModel().posterior([[np.nan, 0.0]])
    with pytest.raises(ValueError, match="component"):
        BivariateNormalModel().partial_posterior([[0.0, 0.0]], component=2)
