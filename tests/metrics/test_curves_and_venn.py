"""Brier curves, the CORP decomposition, significance tests, Venn metrics and the bootstrap."""

import math

import numpy as np
import pytest

from tests._reference import metrics_loops as ref
from venncal import metrics

SEEDS = range(8)


def _data(seed, n=None, grid=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(2, 200))
    p = rng.random(n)
    if grid:
        p = rng.integers(0, grid + 1, n) / grid
    y = (rng.random(n) < p).astype(int)
    return y, p


# --- Brier curves ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grid", [None, 4, 10])
def test_brier_curve_area_is_half_brier(seed, grid):
    y, p = _data(seed, grid=grid)
    curve = metrics.brier_curve(y, p)
    assert abs(curve.area - metrics.brier_score(y, p) / 2) < 1e-12
    # the trapezoidal rule over the knots is the exact area as well
    assert abs(np.trapezoid(curve.loss, curve.costs) - curve.area) < 1e-12
    rec = curve.recalibrated
    q = metrics.isotonic_recalibration(y, p)
    assert abs(rec.area - metrics.brier_score(y, q) / 2) < 1e-12


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grid", [None, 5])
def test_brier_curve_matches_definition(seed, grid):
    y, p = _data(seed, n=40, grid=grid)
    curve = metrics.brier_curve(y, p)
    costs = np.r_[np.linspace(0, 1, 37), p, np.unique(p) - 1e-9]
    costs = costs[(costs >= 0) & (costs <= 1)]
    expected = [ref.brier_curve_value(y, p, c) for c in costs]
    np.testing.assert_allclose(curve(costs), expected, atol=1e-12)
    # the knots hold the value (right limit) at each prediction
    for t in np.unique(p):
        at = np.flatnonzero(curve.costs == t)
        assert curve.loss[at[-1]] == pytest.approx(ref.brier_curve_value(y, p, t), abs=1e-12)


def test_brier_curve_hand_worked():
    y, p = [0, 1, 1, 0], [0.2, 0.6, 0.9, 0.7]
    curve = metrics.brier_curve(y, p, recalibrate=False)
    assert curve.recalibrated is None
    np.testing.assert_allclose(curve.thresholds, [0.2, 0.6, 0.7, 0.9])
    # P(p > c, y=0) on the pieces [0,.2) [.2,.6) [.6,.7) [.7,.9) [.9,1]
    np.testing.assert_allclose(curve.false_positive_mass, [0.5, 0.25, 0.25, 0, 0])
    np.testing.assert_allclose(curve.false_negative_mass, [0, 0, 0.25, 0.25, 0.5])
    assert curve.area == pytest.approx(0.175 / 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_recalibrated_curve_is_lower_concave_and_continuous(seed):
    """Tasche, eq. (19) and Proposition 5.2: the calibrated curve lies below and is concave."""
    y, p = _data(seed, n=150)
    curve = metrics.brier_curve(y, p)
    rec = curve.recalibrated
    c = np.linspace(0, 1, 401)
    assert np.all(rec(c) <= curve(c) + 1e-12)
    # continuous: the left limit equals the value at every knot
    np.testing.assert_allclose(rec.loss[1:-1:2], rec.loss[2::2], atol=1e-12)
    # concave: slopes of the linear pieces do not increase
    left, right = rec.costs[0::2], rec.costs[1::2]
    width = right - left
    ok = width > 1e-12
    slopes = ((rec.loss[1::2] - rec.loss[0::2])[ok]) / width[ok]
    assert np.all(np.diff(slopes) <= 1e-9)
    # the gap between the curves is half the CORP calibration loss
    corp = metrics.corp_decomposition(y, p)
    assert curve.area - rec.area == pytest.approx(corp.calibration_loss / 2, abs=1e-12)
    assert curve.loss[0] == 0 or curve.costs[0] == 0


def test_brier_curve_extreme_predictions():
    # p = 0 with y = 1 costs (1 - c) everywhere: area 1/2 = (1 - 0)^2 / 2
    curve = metrics.brier_curve([1], [0.0])
    assert curve.area == pytest.approx(0.5)
    curve = metrics.brier_curve([0, 1], [0.0, 1.0])
    assert curve.area == 0.0
    assert np.all(curve(np.linspace(0, 1, 11)) == 0)


def test_brier_curve_weights_equal_repetition():
    y, p = _data(2, n=30)
    w = np.arange(30) % 3
    a = metrics.brier_curve(y, p, sample_weight=w)
    b = metrics.brier_curve(np.repeat(y, w), np.repeat(p, w))
    c = np.linspace(0, 1, 101)
    np.testing.assert_allclose(a(c), b(c), atol=1e-12)
    assert a.area == pytest.approx(b.area, abs=1e-12)


# --- CORP decomposition -----------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grid", [None, 8])
def test_corp_matches_loop_pav(seed, grid):
    y, p = _data(seed, grid=grid)
    q = ref.isotonic_recalibrated(list(y), list(p))
    np.testing.assert_allclose(metrics.isotonic_recalibration(y, p), q, atol=1e-12)
    d = metrics.corp_decomposition(y, p)
    assert d.refinement_loss == pytest.approx(ref.brier(y, q), abs=1e-12)
    assert d.brier == pytest.approx(d.calibration_loss + d.refinement_loss, abs=1e-12)
    assert d.refinement_loss == pytest.approx(d.uncertainty - d.discrimination, abs=1e-12)
    assert d.calibration_loss >= 0 and d.discrimination >= 0


def test_corp_zero_for_isotonic_output():
    y, p = _data(1, n=100)
    q = metrics.isotonic_recalibration(y, p)
    d = metrics.corp_decomposition(y, q)
    assert d.calibration_loss == pytest.approx(0, abs=1e-12)


# --- significance -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_spiegelhalter_matches_loop(seed):
    y, p = _data(seed, n=100)
    r = metrics.spiegelhalter_z(y, p)
    assert r.statistic == pytest.approx(ref.spiegelhalter_z(y, p), rel=1e-12)
    assert 0 <= r.pvalue <= 1


def test_spiegelhalter_degenerate_warns():
    from venncal.exceptions import VenncalWarning

    with pytest.warns(VenncalWarning, match="undefined"):
        r = metrics.spiegelhalter_z([0, 1], [0.5, 0.5])
    assert math.isnan(r.statistic)


def test_spiegelhalter_detects_overconfidence():
    rng = np.random.default_rng(0)
    p = rng.random(2000)
    y = rng.random(2000) < p
    extreme = np.clip(1.6 * (p - 0.5) + 0.5, 0.01, 0.99)
    assert metrics.spiegelhalter_z(y, extreme).pvalue < 1e-6


@pytest.mark.parametrize("seed", range(4))
def test_slope_intercept_recover_truth(seed):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, 30_000)
    z = np.log(p / (1 - p))
    y = rng.random(p.size) < 1 / (1 + np.exp(-(0.5 * z)))
    r = metrics.calibration_slope_intercept(y, p)
    assert r.slope == pytest.approx(0.5, abs=0.05)
    y = rng.random(p.size) < 1 / (1 + np.exp(-(z + 0.7)))
    r = metrics.calibration_slope_intercept(y, p)
    assert r.intercept == pytest.approx(0.7, abs=0.06)
    assert r.slope == pytest.approx(1.0, abs=0.06)


def test_slope_intercept_matches_sklearn_logistic():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 500)
    y = rng.random(500) < p**1.5
    z = np.log(p / (1 - p))
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(z[:, None], y)
    r = metrics.calibration_slope_intercept(y, p)
    assert r.slope == pytest.approx(lr.coef_[0, 0], rel=1e-5)


def test_slope_intercept_warns_on_separation():
    from venncal.exceptions import VenncalWarning

    with pytest.warns(VenncalWarning, match="did not converge"):
        metrics.calibration_slope_intercept([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])


# --- Venn outputs -----------------------------------------------------------------------


def test_interval_width_and_validity_hand_worked():
    assert metrics.interval_width([0.2, 0.5], [0.3, 0.9]) == pytest.approx(0.25)
    v = metrics.interval_validity([0, 1, 1, 0], [0.3, 0.4, 0.6, 0.2], [0.5, 0.6, 0.8, 0.4])
    assert (v.observed, v.lower, v.upper) == pytest.approx((0.5, 0.375, 0.575))
    assert v.valid
    # accuracy: midpoints .4 .5 .7 .3 -> predicted labels 0 0 1 0, correct: 1 0 1 1
    a = metrics.interval_validity(
        [0, 1, 1, 0], [0.3, 0.4, 0.6, 0.2], [0.5, 0.6, 0.8, 0.4], target="accuracy"
    )
    assert a.observed == 0.75
    # intervals for the predicted class: [.5,.7] [.4,.6] [.6,.8] [.6,.8]
    assert a.lower == pytest.approx(0.525) and a.upper == pytest.approx(0.725)
    assert not a.valid
    assert metrics.interval_validity([1, 1], [0.2, 0.3], [0.4, 0.5], tol=0.6).valid


@pytest.mark.parametrize("seed", SEEDS)
def test_interval_validity_per_bin_matches_loop(seed):
    rng = np.random.default_rng(seed)
    p0 = rng.random(120) * 0.8
    p1 = p0 + rng.random(120) * 0.2
    y = (rng.random(120) < (p0 + p1) / 2).astype(int)
    v = metrics.interval_validity(y, p0, p1, n_bins=5)
    mid = (p0 + p1) / 2
    for b in range(5):
        inside = [ref.uniform_bin(m, 5) == b for m in mid]
        idx = np.flatnonzero(inside)
        assert v.counts[b] == idx.size
        if idx.size:
            assert v.bin_observed[b] == pytest.approx(y[idx].mean())
            assert v.bin_lower[b] == pytest.approx(p0[idx].mean())
            assert v.bin_upper[b] == pytest.approx(p1[idx].mean())
            ok = p0[idx].mean() <= y[idx].mean() <= p1[idx].mean()
            assert bool(v.bin_valid[b]) == ok
        else:
            assert not v.bin_valid[b]
    assert 0 <= v.fraction_valid <= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_interval_validity_standard_errors_and_misses_match_loop(seed):
    rng = np.random.default_rng(seed)
    p0 = rng.random(150) * 0.8
    p1 = p0 + rng.random(150) * 0.1
    y = (rng.random(150) < rng.random(150)).astype(int)
    v = metrics.interval_validity(y, p0, p1, n_bins=4)
    f = y.mean()
    lo, hi = p0.mean(), p1.mean()
    q = lo if f < lo else (hi if f > hi else f)  # the interval's point nearest the frequency
    assert v.std_error == pytest.approx(np.sqrt(q * (1 - q) / 150))
    assert v.miss == pytest.approx(lo - f if f < lo else (f - hi if f > hi else 0.0))
    mid = (p0 + p1) / 2
    for b in range(4):
        idx = np.flatnonzero([ref.uniform_bin(m, 4) == b for m in mid])
        if not idx.size:
            assert np.isnan(v.bin_std_error[b]) and np.isnan(v.bin_miss[b])
            continue
        fb, lb, hb = y[idx].mean(), p0[idx].mean(), p1[idx].mean()
        qb = lb if fb < lb else (hb if fb > hb else fb)
        assert v.bin_std_error[b] == pytest.approx(np.sqrt(qb * (1 - qb) / idx.size))
        assert v.bin_miss[b] == pytest.approx(max(lb - fb, fb - hb, 0.0))
        assert (v.bin_miss[b] == 0) == bool(v.bin_valid[b])


def test_interval_validity_constructed_without_standard_errors():
    old = metrics.IntervalValidity(
        "frequency", 0.5, 0.4, 0.6, True, np.array([0.0, 1.0]), np.array([2.0]),
        np.array([0.5]), np.array([0.4]), np.array([0.6]), np.array([True]),
    )  # fmt: skip
    assert np.isnan(old.std_error) and old.bin_std_error is None and old.miss == 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_minimax_merges_equalise_and_minimise_regret(seed):
    rng = np.random.default_rng(seed)
    p0 = rng.uniform(0.01, 0.9, 200)
    p1 = np.minimum(p0 + rng.uniform(0, 0.3, 200), 0.99)
    log_merge = p1 / (1 - p0 + p1)  # eq. (10)
    sq_merge = p1 + p0**2 / 2 - p1**2 / 2  # eq. (11)
    for loss, merged in (("log", log_merge), ("square", sq_merge)):
        worst = metrics.merge_regret(p0, p1, merged, loss=loss)
        r0 = metrics.merge_regret(p0, p1, merged, loss=loss, y_true=np.zeros(200, int))
        r1 = metrics.merge_regret(p0, p1, merged, loss=loss, y_true=np.ones(200, int))
        np.testing.assert_allclose(r0, r1, atol=1e-12)  # the two regrets are equal
        np.testing.assert_allclose(worst, np.maximum(r0, r1))
        for other in ((p0 + p1) / 2, p0, p1, log_merge, sq_merge):
            assert np.all(worst <= metrics.merge_regret(p0, p1, other, loss=loss) + 1e-12)


def test_merge_regret_infinite_and_zero():
    r = metrics.merge_regret([0.2], [0.6], [1.0])
    assert r[0] == math.inf
    assert metrics.merge_regret([1.0], [1.0], [1.0], y_true=[0])[0] == 0.0


# --- bootstrap --------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_bootstrap_ci_brackets_estimate_and_is_reproducible(method):
    y, p = _data(0, n=80)
    a = metrics.bootstrap_ci(
        metrics.ece, y, p, n_resamples=200, method=method, random_state=1, n_bins=5
    )
    b = metrics.bootstrap_ci(
        metrics.ece, y, p, n_resamples=200, method=method, random_state=1, n_bins=5
    )
    assert a.confidence_interval == b.confidence_interval
    assert a.estimate == metrics.ece(y, p, n_bins=5)
    assert a.bootstrap_distribution.shape == (200,)
    lo, hi = a.confidence_interval
    assert lo < hi and a.standard_error > 0


def test_bootstrap_stratify_keeps_classes():
    y = np.r_[np.ones(3, int), np.zeros(40, int)]
    p = np.linspace(0.1, 0.9, 43)
    r = metrics.bootstrap_ci(metrics.roc_auc, y, p, n_resamples=100, stratify=True, random_state=0)
    assert np.isfinite(r.bootstrap_distribution).all()
    with pytest.raises(ValueError, match="stratify=True"):
        metrics.bootstrap_ci(metrics.roc_auc, y, p, n_resamples=300, random_state=0)


def test_bootstrap_percentile_coverage():
    """A 90% interval for the mean of calibrated Brier losses covers 1/6 about 90% of times."""
    rng = np.random.default_rng(5)
    covered = 0
    for trial in range(120):
        p = rng.random(150)
        y = rng.random(150) < p
        lo, hi = metrics.bootstrap_ci(
            metrics.brier_score,
            y,
            p,
            n_resamples=150,
            confidence_level=0.9,
            random_state=trial,
        ).confidence_interval
        covered += lo <= 1 / 6 <= hi
    assert 95 <= covered <= 117


# --- more hand-worked examples and loops ------------------------------------------------


def test_spiegelhalter_hand_worked():
    # num = .2 * (1 - 1.6) + (-.3) * (1 - .6) = -.24; var = .36 * .16 + .16 * .21 = .0912
    r = metrics.spiegelhalter_z([1, 0], [0.8, 0.3])
    assert r.statistic == pytest.approx(-0.24 / math.sqrt(0.0912))
    assert r.pvalue == pytest.approx(math.erfc(abs(r.statistic) / math.sqrt(2)))


def test_merge_regret_hand_worked():
    # p0 = .1, p1 = .6: log merge p = .6 / 1.5 = .4; both regrets equal ln 1.5
    r = metrics.merge_regret([0.1], [0.6], [0.4], loss="log")
    assert r[0] == pytest.approx(math.log(1.5))
    # square merge p = .6 + .005 - .18 = .425; regret p^2 - p0^2 = .170625
    r = metrics.merge_regret([0.1], [0.6], [0.425], loss="square")
    assert r[0] == pytest.approx(0.425**2 - 0.01)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("loss", ["log", "square"])
def test_merge_regret_matches_loop(seed, loss):
    rng = np.random.default_rng(seed)
    p0 = rng.uniform(0.01, 0.9, 30)
    p1 = np.minimum(p0 + rng.uniform(0, 0.3, 30), 0.99)
    p = rng.uniform(0.01, 0.99, 30)
    y = rng.integers(0, 2, 30)
    got = metrics.merge_regret(p0, p1, p, loss=loss, y_true=y)
    worst = metrics.merge_regret(p0, p1, p, loss=loss)
    for i in range(30):
        assert got[i] == pytest.approx(ref.regret(p0[i], p1[i], p[i], y[i], loss), abs=1e-12)
        both = max(ref.regret(p0[i], p1[i], p[i], c, loss) for c in (0, 1))
        assert worst[i] == pytest.approx(both, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grid", [None, 10])
def test_debiased_ece_matches_loop(seed, grid):
    y, p = _data(seed, grid=grid)
    got = metrics.debiased_ece(y, p, squared=True)
    assert got == pytest.approx(ref.debiased_l2(list(y), list(p)), abs=1e-12)


def test_interval_validity_standard_error_of_an_all_positive_bin_is_not_zero():
    # every object positive, intervals just below 1: the observed frequency 1 is outside, and
    # its sampling error is that of a true frequency at the interval's upper end, not 0
    p0, p1 = np.full(40, 0.90), np.full(40, 0.97)
    v = metrics.interval_validity(np.ones(40, int), p0, p1, n_bins=1)
    assert v.std_error == pytest.approx(np.sqrt(0.97 * 0.03 / 40))
    assert v.bin_std_error[0] == pytest.approx(np.sqrt(0.97 * 0.03 / 40))
    assert v.miss == pytest.approx(0.03) and v.miss < 2 * v.std_error
