"""ACP: fraction of positives inside each interval, against a direct count."""

import numpy as np
import pytest
from scipy.special import expit

from venncal.core.acp import fit_acp, wald_interval


def _direct(s, y, w, lo, hi, alpha):
    out = []
    for a, b in zip(lo, hi):
        inside = (s >= a) & (s <= b)
        if not inside.any():
            d = np.abs(s - 0.5 * (a + b))
            v = np.unique(s[d == d.min()]).min()
            inside = s == v
        n, n1 = w[inside].sum(), (w * y)[inside].sum()
        out.append((n1 + alpha) / (n + 2 * alpha))
    return np.array(out)


@pytest.mark.parametrize("seed", range(8))
def test_matches_direct_count(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    s = np.round(rng.random(n), 2)
    y = (rng.random(n) < s).astype(int)
    w = rng.uniform(0.1, 2.0, n)
    alpha = float(rng.choice([0.0, 1.0]))
    centre = rng.random(50)
    half = rng.random(50) * rng.choice([0.001, 0.05, 0.3])
    table = fit_acp(s, y, w, alpha=alpha)
    got = table.predict(centre - half, centre + half)
    # a weight of k is k examples, and alpha is a number of examples
    np.testing.assert_allclose(got, _direct(s, y, w, centre - half, centre + half, alpha))
    assert np.all((got >= 0) & (got <= 1))


def test_closed_intervals():
    table = fit_acp([0.2, 0.4, 0.6], [1, 0, 0])
    np.testing.assert_allclose(table.predict([0.2, 0.4], [0.4, 0.6]), [0.5, 0.0])


def test_wald_interval_contains_the_point_and_has_the_right_level():
    eta = np.array([-2.0, 0.0, 3.0])
    se = np.array([0.5, 0.1, 1.0])
    lo, hi = wald_interval(eta, se, 0.95)
    p = expit(eta)
    assert np.all(lo < p) and np.all(p < hi)
    np.testing.assert_allclose(np.log(hi / (1 - hi)) - eta, 1.959964 * se, rtol=1e-6)
    lo90, hi90 = wald_interval(eta, se, 0.90)
    assert np.all(lo90 > lo) and np.all(hi90 < hi)


def test_bad_input():
    table = fit_acp([0.1, 0.2], [0, 1])
    with pytest.raises(ValueError, match="lower <= upper"):
        table.predict([0.5], [0.4])
    with pytest.raises(ValueError, match="Inconsistent"):
        table.predict([0.1, 0.2], [0.3])
    with pytest.raises(ValueError, match="only 0 and 1"):
        fit_acp([0.1, 0.2], [0, 5])
    with pytest.raises(ValueError, match="confidence"):
        wald_interval([0.0], [1.0], confidence=1.5)
    with pytest.raises(ValueError, match="non-negative"):
        wald_interval([0.0], [-1.0])


@pytest.mark.parametrize("alpha", [0.0, 1.0])
@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1.7e308])
def test_weights_of_any_magnitude(alpha, scale):
    # weights times c with alpha examples are the unit-scale weights with alpha / c examples
    # ((c n1 + alpha) / (c n + 2 alpha)); without smoothing only the ratios matter
    rng = np.random.default_rng(4)
    s = np.round(rng.random(100), 2)
    y = (rng.random(100) < s).astype(int)
    w = rng.uniform(0.1, 1.0, 100)
    lo = rng.random(40) * 0.5
    hi = lo + rng.random(40) * 0.5
    base = _direct(s, y, w, lo, hi, alpha / scale)
    scaled = fit_acp(s, y, w * scale, alpha=alpha).predict(lo, hi)
    np.testing.assert_allclose(scaled, base, rtol=1e-12)
