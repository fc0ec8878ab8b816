"""The Newton iteration behind beta calibration: its fused objective and probabilities, and
its fit against an independent minimiser."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from venncal.core import beta


def test_loss_and_probability_match_logaddexp_and_expit():
    rng = np.random.default_rng(0)
    z = np.r_[rng.normal(scale=30, size=2000), -800.0, -40.0, 0.0, 40.0, 800.0]
    y = (rng.random(z.size) < 0.5).astype(float)
    w = rng.exponential(size=z.size)
    for weights in (None, w):
        loss, p = beta._loss_and_probability(z, y, weights)
        terms = np.logaddexp(0.0, z) - y * z
        want = terms.sum() if weights is None else (weights * terms).sum()
        assert loss == pytest.approx(want, rel=1e-13)
        np.testing.assert_allclose(p, expit(z), rtol=1e-15, atol=0)


@pytest.mark.parametrize("seed", range(5))
def test_fit_logistic_is_the_maximum_likelihood_fit(seed):
    rng = np.random.default_rng(seed)
    n = 3000
    X = np.column_stack([rng.normal(size=n), rng.exponential(size=n), np.ones(n)])
    y = (rng.random(n) < expit(X @ np.array([1.5, -0.7, 0.3]))).astype(float)
    w = rng.uniform(0.5, 2.0, size=n)
    coef, _, ok = beta.fit_logistic(X, y, w)
    assert ok

    def f(theta):  # an independent route: quasi-Newton on the weighted mean loss
        z = X @ theta
        return (w * (np.logaddexp(0.0, z) - y * z)).sum() / n, X.T @ (w * (expit(z) - y)) / n

    ref = minimize(f, np.zeros(3), jac=True, method="BFGS", options={"gtol": 1e-12}).x
    np.testing.assert_allclose(coef, ref, rtol=1e-6, atol=1e-8)
    assert f(coef)[0] <= f(ref)[0] + 1e-14
