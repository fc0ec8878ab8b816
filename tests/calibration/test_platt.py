"""PlattCalibrator: the estimator around venncal.core.platt."""

import numpy as np
import pytest

from venncal import PlattCalibrator, VenncalWarning
from venncal.core.platt import fit_platt


@pytest.mark.parametrize("seed", range(3))
def test_recovers_simulated_sigmoid_and_is_monotone(seed):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=30000)
    y = rng.random(s.size) < 1 / (1 + np.exp(-1.5 * s - 0.3))
    cal = PlattCalibrator().fit(s, y)
    assert cal.a_ == pytest.approx(-1.5, abs=0.08) and cal.b_ == pytest.approx(-0.3, abs=0.05)
    t = np.linspace(-50, 50, 1001)
    p = cal.predict_proba(t)[:, 1]
    assert np.all(np.diff(p) >= 0)


def test_same_as_core_with_weights():
    rng = np.random.default_rng(0)
    s = rng.normal(size=200)
    y = (rng.random(200) < 0.5).astype(int)
    w = rng.uniform(0.5, 2.0, 200)
    cal = PlattCalibrator().fit(s, y, sample_weight=w)
    ref = fit_platt(s, y, w)
    assert (cal.a_, cal.b_) == (ref.a, ref.b)


def test_smoothing_off_warns_on_separable_scores():
    with pytest.warns(VenncalWarning, match="separated"):
        PlattCalibrator(smoothing=False).fit([0.0, 1.0, 2.0, 3.0], [0, 0, 1, 1])


def test_bad_max_iter():
    with pytest.raises(ValueError, match="'max_iter' parameter of PlattCalibrator"):
        PlattCalibrator(max_iter=0).fit([0.0, 1.0], [0, 1])


def test_tiny_scores_give_the_same_probabilities():
    rng = np.random.default_rng(9)
    s = rng.normal(size=500)
    y = (rng.random(500) < 1 / (1 + np.exp(-2 * s))).astype(int)
    t = np.linspace(-3, 3, 31)
    base = PlattCalibrator().fit(s, y).predict_proba(t)
    tiny = PlattCalibrator().fit(s * 1e-10, y).predict_proba(t * 1e-10)
    np.testing.assert_allclose(tiny, base, rtol=1e-9)


def test_newton_warnings_point_at_the_users_call():
    import warnings

    rng = np.random.default_rng(0)
    s = rng.normal(size=500)
    y = (rng.random(500) < 1 / (1 + np.exp(-3 * s))).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PlattCalibrator(max_iter=1).fit(s, y)
        fit_platt(s, y, max_iter=1)
    said = [w for w in caught if "did not converge in 1 iterations" in str(w.message)]
    assert len(said) == 2
    assert all(w.filename == __file__ and w.category is VenncalWarning for w in said)
