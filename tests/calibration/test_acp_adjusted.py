"""ACP's adjusted bin against a naive implementation of the definition, and its properties."""

import numpy as np
import pytest

from tests._reference.acp_naive import acp_naive
from venncal import ACPCalibrator
from venncal.core.acp import symmetric_interval


def _problem(seed):
    """Scores and interval ends on a grid of 1/64, so every bin end is exact in binary."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    s = rng.integers(0, 65, n) / 64
    y = (rng.random(n) < s).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
        if n == 1:
            s, y = np.append(s, s[0]), np.append(y, 1 - y[0])
    m = 40
    t = rng.integers(0, 65, m) / 64
    below = rng.integers(0, 20, m) / 64 * rng.choice([0, 1], m)
    above = rng.integers(0, 20, m) / 64 * rng.choice([0, 1], m)
    iv = np.column_stack([t - below, t + above])
    w = rng.uniform(0.1, 3.0, s.size) if rng.random() < 0.5 else None
    alpha = float(rng.choice([0.0, 1.0]))
    return s, y, t, iv, w, alpha


@pytest.mark.parametrize("adjustment", ["symmetric", "none"])
@pytest.mark.parametrize("seed", range(25))
def test_matches_the_naive_definition(seed, adjustment):
    s, y, t, iv, w, alpha = _problem(seed)
    cal = ACPCalibrator(alpha=alpha, interval_adjustment=adjustment).fit(s, y, sample_weight=w)
    got = cal.predict_proba(t, interval=iv)[:, 1]
    ref = acp_naive(s, y, t, iv, weights=w, alpha=alpha, adjustment=adjustment)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


def test_default_is_the_adjusted_bin():
    assert ACPCalibrator().interval_adjustment == "symmetric"


@pytest.mark.parametrize("seed", range(5))
def test_adjusted_value_depends_on_the_length_only(seed):
    # sliding an interval along the axis (same length) leaves the adjusted bin unchanged
    s, y, t, iv, _, _ = _problem(seed)
    cal = ACPCalibrator().fit(s, y)
    shift = np.random.default_rng(seed).integers(-10, 10, t.size) / 64
    a = cal.predict_proba(t, interval=iv)[:, 1]
    b = cal.predict_proba(t, interval=iv + shift[:, None])[:, 1]
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(5))
def test_both_variants_agree_on_intervals_centred_on_the_prediction(seed):
    s, y, t, _, _, _ = _problem(seed)
    half = np.random.default_rng(seed).integers(0, 10, t.size) / 64
    iv = np.column_stack([t - half, t + half])
    sym = ACPCalibrator().fit(s, y).predict_proba(t, interval=iv)
    raw = ACPCalibrator(interval_adjustment="none").fit(s, y).predict_proba(t, interval=iv)
    np.testing.assert_array_equal(sym, raw)


def test_the_adjustment_matters_for_a_lopsided_interval():
    # a Wald interval around 0.9 leans towards 0.5: the raw bin takes in the negatives near 0.6
    s = np.array([0.55, 0.6, 0.65, 0.85, 0.9, 0.95, 1.0])
    y = np.array([0, 0, 0, 1, 1, 1, 1])
    iv = [[0.58, 0.96]]
    sym = ACPCalibrator().fit(s, y).predict_proba([0.9], interval=iv)[0, 1]
    raw = ACPCalibrator(interval_adjustment="none").fit(s, y).predict_proba([0.9], interval=iv)
    assert sym == 1.0  # bin [0.71, 1.09]: 0.85, 0.9, 0.95, 1.0
    assert raw[0, 1] == pytest.approx(3 / 5)  # bin [0.58, 0.96]: 0.6, 0.65, 0.85, 0.9, 0.95


def test_outputs_are_probabilities_and_huge_bins_give_the_overall_rate():
    s, y, t, iv, _, _ = _problem(3)
    cal = ACPCalibrator().fit(s, y)
    p = cal.predict_proba(t, interval=iv)[:, 1]
    assert np.all((p >= 0) & (p <= 1))
    wide = np.column_stack([t - 10.0, t + 10.0])
    np.testing.assert_allclose(cal.predict_proba(t, interval=wide)[:, 1], y.mean())


def test_symmetric_interval_function():
    lo, hi = symmetric_interval([0.2, 0.5], [0.1, 0.4], [0.5, 0.5])
    np.testing.assert_allclose(lo, [0.0, 0.45])
    np.testing.assert_allclose(hi, [0.4, 0.55])
    with pytest.raises(ValueError, match="lower <= upper"):
        symmetric_interval([0.5], [0.6], [0.4])
    with pytest.raises(ValueError, match="NaN"):
        symmetric_interval([np.nan], [0.1], [0.4])


def test_bad_adjustment_and_bad_interval():
    with pytest.raises(ValueError, match="'interval_adjustment' parameter of ACPCalibrator"):
        ACPCalibrator(interval_adjustment="wald").fit([0.1, 0.2], [0, 1])
    cal = ACPCalibrator().fit([0.1, 0.2], [0, 1])
    with pytest.raises(ValueError, match="lower <= upper"):
        cal.predict_proba([0.1], interval=[[0.5, 0.1]])


def test_the_level_of_the_model_intervals_sets_the_bin_width():
    # a narrower Wald interval gives a nested, narrower bin: at 50% each bin holds at most the
    # calibration scores of the 95% bin, and the output is the fraction of positives inside it
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from venncal.calibration.acp import ACPCalibrator, logistic_wald_interval
    from venncal.core.acp import symmetric_interval

    rng = np.random.default_rng(3)
    X = rng.normal(size=(900, 2))
    y = (rng.random(900) < 1 / (1 + np.exp(-X[:, 0]))).astype(int)
    lr = LogisticRegression().fit(X[:300], y[:300])
    s_cal, s_test = lr.predict_proba(X[300:600])[:, 1], lr.predict_proba(X[600:])[:, 1]
    cal = ACPCalibrator().fit(s_cal, y[300:600])
    bins = {}
    for level in (0.5, 0.95):
        iv = logistic_wald_interval(lr, X[:300], X[600:], confidence=level)
        lo, hi = symmetric_interval(s_test, iv[:, 0], iv[:, 1])
        inside = (s_cal[None, :] >= lo[:, None]) & (s_cal[None, :] <= hi[:, None])
        bins[level] = inside
        # the naive definition: the fraction of positives among calibration scores in the bin
        held = inside.sum(axis=1) > 0
        naive = (inside * y[300:600]).sum(axis=1)[held] / inside.sum(axis=1)[held]
        got = cal.predict_proba(s_test, interval=iv)[:, 1]
        np.testing.assert_allclose(got[held], naive, rtol=1e-12)
    assert np.all(bins[0.5] <= bins[0.95])
    assert bins[0.5].sum() < bins[0.95].sum()
