"""The designs fitted to Naeini et al.: posteriors against independent density computations,
calibration in Monte Carlo, the properties the fit relies on, and bad parameters."""

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import multivariate_normal

from venncal.datasets import (
    EccentricRingModel,
    OffsetXorModel,
    SeparableModel,
    make_eccentric_ring,
    make_offset_xor,
    make_separable,
)


def _grid(seed, n=150, scale=4.0):
    return np.random.default_rng(seed).uniform(-scale, scale, size=(n, 2))


@pytest.mark.parametrize(
    "near, far, negative, scale", [(2.25, 3.25, 1.5, 0.65), (1.0, 1.0, 1.0, 0.5)]
)
def test_offset_xor_posterior_matches_mixture_densities(near, far, negative, scale):
    X = _grid(0)
    cov = scale**2 * np.eye(2)
    r = np.sqrt(0.5)

    def mix(a, b):
        return 0.5 * multivariate_normal(a, cov).pdf(X) + 0.5 * multivariate_normal(b, cov).pdf(X)

    f1 = mix([near * r, near * r], [-far * r, -far * r])
    f0 = mix([negative * r, -negative * r], [-negative * r, negative * r])
    got = OffsetXorModel(near, far, negative, scale).posterior(X)
    np.testing.assert_allclose(got, f1 / (f1 + f0), rtol=1e-9, atol=1e-12)


def _ring_density(X, r, e, t):
    out = np.empty(len(X))
    for i, (a, b) in enumerate(X):

        def f(th, a=a, b=b):
            R = r * (1 + e * np.cos(th))
            return np.exp(-((a - R * np.cos(th)) ** 2 + (b - R * np.sin(th)) ** 2) / (2 * t * t))

        out[i] = integrate.quad(f, 0, 2 * np.pi, limit=200)[0] / (2 * np.pi) / (2 * np.pi * t * t)
    return out


@pytest.mark.parametrize("s, r, e, t", [(0.9, 3.25, 0.25, 0.8), (1.0, 2.0, 0.0, 0.5)])
def test_eccentric_ring_posterior_matches_quadrature(s, r, e, t):
    X = _grid(1, n=40)
    f1 = multivariate_normal([0, 0], s * s * np.eye(2)).pdf(X)
    f0 = _ring_density(X, r, e, t)
    got = EccentricRingModel(s, r, e, t).posterior(X)
    np.testing.assert_allclose(got, f1 / (f1 + f0), rtol=1e-7, atol=1e-12)


def _calibration_gap(p, y, n_bins=10, min_count=400):
    idx = np.minimum((p * n_bins).astype(int), n_bins - 1)
    return max(abs(y[idx == b].mean() - p[idx == b].mean())
               for b in range(n_bins) if (idx == b).sum() >= min_count)  # fmt: skip


@pytest.mark.parametrize("make", [make_offset_xor, make_eccentric_ring])
def test_posterior_is_calibrated_in_monte_carlo(make):
    ds = make(40000, random_state=3)
    p = ds.meta["model"].posterior(ds.X)
    assert _calibration_gap(p, ds.y) < 0.04
    assert abs(ds.y.mean() - 0.5) < 0.015


def test_offset_xor_linear_score_is_balanced_but_lr_has_a_slope():
    # the property the design is fitted for: the projection on the positive diagonal ranks
    # positives half above and half below the negatives, while its class means differ
    ds = make_offset_xor(40000, random_state=4)
    t = ds.X.sum(axis=1)
    neg = t[ds.y == 0]
    pos = t[ds.y == 1]
    above = np.mean(pos[:, None] > np.median(neg))
    assert abs(above - 0.5) < 0.02
    assert pos.mean() < neg.mean() - 0.5  # the far cluster pulls the positives' mean away


def test_eccentric_ring_negatives_split_evenly_around_the_blob():
    ds = make_eccentric_ring(40000, random_state=5)
    x = ds.X[ds.y == 0, 0]
    assert abs(np.mean(x > 0) - 0.5) < 0.02
    # wider on the right: the mean is radius * eccentricity / 2 = 0.41, off the blob
    assert abs(x.mean() - 3.25 * 0.25 / 2) < 0.05


def test_separable_labels_follow_the_line():
    ds = make_separable(5000, random_state=6)
    np.testing.assert_array_equal(ds.y, ds.X.sum(axis=1) > 0)
    np.testing.assert_array_equal(SeparableModel().posterior([[1.0, 0.0], [-1.0, 0.5]]), [1, 0])


def test_sampling_is_reproducible():
    a = make_offset_xor(50, random_state=7)
    b = make_offset_xor(50, random_state=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)


@pytest.mark.parametrize(
    "make, kwargs, name",
    [
        (make_offset_xor, {"near": 0.0}, "near"),
        (make_offset_xor, {"scale": np.nan}, "scale"),
        (make_eccentric_ring, {"eccentricity": 1.0}, "eccentricity"),
        (make_eccentric_ring, {"radius": -1.0}, "radius"),
        (make_separable, {"n_samples": 0}, "n_samples"),
    ],
)
def test_bad_parameters_name_themselves(make, kwargs, name):
    with pytest.raises(ValueError, match=name):
        make(**kwargs)


def test_bad_features():
    with pytest.raises(ValueError, match="shape"):
        OffsetXorModel().posterior(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        EccentricRingModel().posterior([[np.nan, 0.0]])
