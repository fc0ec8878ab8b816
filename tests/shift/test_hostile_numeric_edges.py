"""Hostile numbers on the label-shift tools: priors at the smallest normal double, zero and
subnormal priors, unnormalised priors, K classes, one class only in the target sample; the
maximum-likelihood prior agrees with the reference optimiser and nothing is a silent NaN."""

import numpy as np
import pytest

from tests._reference.label_shift_naive import prior_mle
from venncal.shift import adjust_for_prior, estimate_target_prior

TINY = float(np.finfo(np.float64).tiny)


def _binary(n=300, seed=0):
    return np.random.default_rng(seed).beta(2, 5, n)


def _three(n=300, seed=1):
    return np.random.default_rng(seed).dirichlet(np.ones(3), n)


@pytest.mark.parametrize("source", [1.01 * TINY, 1e-300, 1e-10, 0.5, 1 - 1e-10])
def test_em_with_a_binary_source_prior_at_the_float_edge(source):
    p = _binary()
    got = estimate_target_prior(p, source_prior=source).prior
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, prior_mle(p, source), rtol=0, atol=1e-6)


@pytest.mark.parametrize(
    "source",
    [
        [0.5, 0.5 - 1.01 * TINY, 1.01 * TINY],
        [1.01 * TINY, 1.01 * TINY, 1 - 2.02 * TINY],
        [1e-300, 0.3, 0.7 - 1e-300],
        [0.2, 0.3, 0.5],
    ],
)
def test_em_with_k_class_source_priors_at_the_float_edge(source):
    P = _three()
    source = np.array(source)
    got = estimate_target_prior(P, source_prior=source)
    assert np.isfinite(got.prior).all() and got.converged
    np.testing.assert_allclose(got.prior, prior_mle(P, source), rtol=0, atol=1e-6)


def test_em_bootstrap_with_a_tiny_source_class_stays_finite():
    P = _three(n=120)
    source = np.array([0.5, 0.5 - 1.01 * TINY, 1.01 * TINY])
    got = estimate_target_prior(P, source_prior=source, n_boot=20, random_state=0)
    assert np.isfinite(got.prior).all() and np.isfinite(got.interval).all()


@pytest.mark.parametrize("method", ["em", "bbse"])
def test_one_class_only_in_the_target_sample(method):
    rng = np.random.default_rng(2)
    target = np.tile([0.0, 1.0, 0.0], (50, 1))
    y_cal = rng.integers(0, 3, 300)
    p_cal = np.eye(3)[y_cal] * 0.8 + 0.2 / 3
    kw = {"source_prior": [0.2, 0.3, 0.5]} if method == "em" else {"y_cal": y_cal, "p_cal": p_cal}
    got = estimate_target_prior(target, method=method, **kw).prior
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, [0.0, 1.0, 0.0], atol=1e-9)


@pytest.mark.parametrize(
    "p, source, target",
    [
        ([0.0, 1e-320, 0.3, 1.0, 1 - 1e-16], 0.5, 1.01 * TINY),
        ([0.0, 1e-320, 0.3, 1.0, 1 - 1e-16], 1.01 * TINY, 0.5),
        ([[0.0, 1.0], [1e-320, 1e-300]], 1.01 * TINY, 0.5),
        (
            [[1.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]],
            [1 - 2.02 * TINY, 1.01 * TINY, 1.01 * TINY],
            [1.01 * TINY, 0.5, 0.5 - 1.01 * TINY],
        ),
    ],
)
def test_adjust_for_prior_at_the_float_edge_is_bayes_rule(p, source, target):
    p = np.asarray(p, dtype=float)
    got = adjust_for_prior(p, source, target)
    assert np.isfinite(got).all() and ((got >= 0) & (got <= 1)).all()
    if p.ndim == 2 and p.shape[1] == 3:
        # Bayes' rule with exact fractions is out of reach here; rows must still sum to one
        np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-12)
    else:
        # the binary map in logits: logit(out) = logit(p) + logit(target) - logit(source)
        flat, out = p.ravel(), got.ravel()
        inside = (flat > 1e-300) & (flat < 1 - 1e-15)
        shift = np.log(target / (1 - target)) - np.log(source / (1 - source))
        logit = np.log(flat[inside]) - np.log1p(-flat[inside]) + shift
        want = 1 / (1 + np.exp(-logit))
        np.testing.assert_allclose(out[inside], want, rtol=1e-9, atol=1e-300)
        assert (out[flat == 0] == 0).all() and (out[flat == 1] == 1).all()


@pytest.mark.parametrize(
    "source, match",
    [
        (0.0, "source_prior"),
        (1.0, "source_prior"),
        (5e-324, "source_prior"),
        (np.nan, "source_prior"),
        ([0.5, 0.5, 0.0], "source_prior"),
        ([0.5, 0.5, 5e-324], "source_prior"),
        ([2.0, 3.0, 5.0], "source_prior"),
        ([0.2, 0.3, 0.6], "source_prior"),
    ],
)
def test_zero_subnormal_and_unnormalised_priors_are_refused(source, match):
    p = _binary() if np.ndim(source) == 0 else _three()
    for call in (
        lambda: estimate_target_prior(p, source_prior=source),
        lambda: adjust_for_prior(p, source, 0.5 if np.ndim(source) == 0 else [0.2, 0.3, 0.5]),
    ):
        with pytest.raises(ValueError, match=match) as err:
            call()
        assert "\n" not in str(err.value)
