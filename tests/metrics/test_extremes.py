"""Metrics at numeric extremes: huge and tiny weights, huge n_bins, crossed intervals."""

import math
import tracemalloc

import numpy as np
import pytest

from venncal import metrics
from venncal.metrics import _common

SCALES = [1e-300, 1e-200, 1e-100, 1e-10, 1.0, 1e10, 1e100, 1e160, 1e200, 1e300, 1e308]

WEIGHTED = {
    "brier_score": metrics.brier_score,
    "log_loss": metrics.log_loss,
    "rmse": metrics.rmse,
    "accuracy": metrics.accuracy,
    "roc_auc": metrics.roc_auc,
    "ece": metrics.ece,
    "mce": metrics.mce,
    "debiased_ece": lambda y, p, **kw: metrics.debiased_ece(y, p, squared=True, **kw),
    "ece_quantile": lambda y, p, **kw: metrics.ece(y, p, strategy="quantile", **kw),
    "brier_decomposition": lambda y, p, **kw: metrics.brier_decomposition(y, p, **kw).reliability,
    "corp_decomposition": lambda y, p, **kw: (
        metrics.corp_decomposition(y, p, **kw).calibration_loss
    ),
    "brier_curve": lambda y, p, **kw: metrics.brier_curve(y, p, **kw).area,
    "isotonic_recalibration": lambda y, p, **kw: metrics.isotonic_recalibration(y, p, **kw),
    "reliability_curve": lambda y, p, **kw: metrics.reliability_curve(y, p, **kw).observed,
}


def _data(seed, n=40):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(0.02, 0.98, n), 2)
    y = (rng.random(n) < p).astype(int)
    y[:2] = [0, 1]
    w = rng.uniform(0.1, 1.0, n)  # times 1e308 stays finite
    return y, p, w


def test_brier_and_log_loss_with_weights_near_the_float_maximum():
    # each weight alone is finite, their sum is not: the mean must not collapse to 0
    assert metrics.brier_score([0, 1], [0.5, 0.5], sample_weight=[1e308] * 2) == 0.25
    assert metrics.brier_score([0, 1], [0.5, 0.75], sample_weight=[1e308] * 2) == 0.15625
    assert metrics.log_loss([0, 1], [0.5, 0.5], sample_weight=[1e308] * 2) == pytest.approx(
        math.log(2)
    )


@pytest.mark.parametrize("scale", [1e-200, 1e160, 1e308])
def test_roc_auc_with_tiny_or_huge_weights_is_not_nan(scale):
    got = metrics.roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[scale] * 4)
    assert got == 0.75


@pytest.mark.parametrize("name", sorted(WEIGHTED))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_metrics_are_invariant_to_scaling_the_weights(name, seed):
    f = WEIGHTED[name]
    y, p, w = _data(seed)
    ref = np.asarray(f(y, p, sample_weight=w), dtype=np.float64)
    for scale in SCALES:
        got = np.asarray(f(y, p, sample_weight=w * scale), dtype=np.float64)
        assert np.all(np.isfinite(got) == np.isfinite(ref)), (name, scale)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12, err_msg=f"{name} x {scale}")


def test_reliability_curve_reports_total_weight_and_finite_frequencies_at_overflow():
    curve = metrics.reliability_curve([0, 1, 1], [0.15, 0.15, 0.95], sample_weight=[1e308] * 3)
    assert curve.observed[1] == 0.5 and curve.observed[9] == 1.0
    assert np.isinf(curve.counts[1])  # two weights of 1e308 exceed the float range
    assert curve.counts[9] == 1e308


def test_debiased_ece_equal_weights_equal_unweighted():
    y, p, _ = _data(3, n=200)
    a = metrics.debiased_ece(y, p, squared=True)
    b = metrics.debiased_ece(y, p, squared=True, sample_weight=np.full(200, 7.5))
    assert a == pytest.approx(b, abs=1e-14)


@pytest.mark.parametrize(
    "bad",
    [[1.0, -1.0], [1.0, np.nan], [1.0, np.inf], [0.0, 0.0], [1.0]],
    ids=["negative", "nan", "inf", "all-zero", "wrong-length"],
)
@pytest.mark.parametrize("name", ["brier_score", "log_loss", "roc_auc", "ece", "brier_curve"])
def test_invalid_weights_raise_naming_the_parameter(name, bad):
    with pytest.raises(ValueError, match="sample_weight") as info:
        getattr(metrics, name)([0, 1], [0.2, 0.7], sample_weight=bad)
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------ NaN in the other column
TWO_COLUMN = {
    "brier_score": metrics.brier_score,
    "log_loss": metrics.log_loss,
    "roc_auc": metrics.roc_auc,
    "accuracy": metrics.accuracy,
    "ece": metrics.ece,
    "mce": metrics.mce,
    "reliability_curve": metrics.reliability_curve,
    "brier_curve": metrics.brier_curve,
    "brier_decomposition": metrics.brier_decomposition,
    "corp_decomposition": metrics.corp_decomposition,
    "spiegelhalter_z": metrics.spiegelhalter_z,
    "calibration_slope_intercept": metrics.calibration_slope_intercept,
}


@pytest.mark.parametrize("name", sorted(TWO_COLUMN))
@pytest.mark.parametrize(
    "column0",
    [np.nan, np.inf, -0.5, 0.1],
    ids=["nan", "inf", "negative", "rows-not-summing-to-one"],
)
def test_two_column_probabilities_are_checked_in_both_columns(name, column0):
    proba = np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.1, 0.9]])
    proba[1, 0] = column0
    with pytest.raises(ValueError, match="y_proba") as info:
        TWO_COLUMN[name]([0, 1, 0, 1], proba)
    assert "\n" not in str(info.value)


def test_two_column_probabilities_give_the_second_column():
    proba = np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.1, 0.9]])
    assert metrics.brier_score([0, 1, 0, 1], proba) == metrics.brier_score(
        [0, 1, 0, 1], proba[:, 1]
    )


# ----------------------------------------------------------------------------- huge n_bins
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize(
    "name",
    ["ece", "mce", "debiased_ece", "brier_decomposition"],
)
def test_scalar_binned_metrics_do_not_allocate_n_bins(name, strategy):
    rng = np.random.default_rng(0)
    p = rng.random(100)
    y = rng.random(100) < p
    f = getattr(metrics, name)
    tracemalloc.start()
    try:
        huge = f(y, p, n_bins=10**9, strategy=strategy)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10**6  # bytes: a few arrays of 100 values, never 10**9
    # with more bins than predictions, every prediction has its own bin
    fine = f(y, p, n_bins=10**6, strategy=strategy)
    assert huge == pytest.approx(fine, abs=1e-12) or (
        name == "brier_decomposition" and huge.reliability == pytest.approx(fine.reliability)
    )


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_bin_index_equals_explicit_edges(seed, strategy):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    p = np.clip(
        rng.choice([rng.random(n), np.round(rng.random(n), 1), rng.integers(0, 5, n) / 4.0]),
        0,
        1,
    )
    w = rng.integers(0, 4, n).astype(float)
    w[0] = 1.0
    for n_bins in (1, 2, 3, 7, 10, 13, 100, 997):
        expected = _common.assign_bins(p, _common.bin_edges(p, w, n_bins, strategy, "test"))
        got = _common.bin_index(p, w, n_bins, strategy, "test")
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 49, 1000, _common._GRID_TABLE_MAX, 10**5, 10**6 + 3])
@pytest.mark.parametrize("shift", [0.0, 1e-12])
def test_grid_count_equals_a_search_over_the_grid(seed, n, shift):
    # the table route (small grids) and the step route (fine grids) both count the grid values
    # i / n - shift at or below x, on values at, just beside and between the grid values
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n + 1, 300)
    at = i / n
    x = np.concatenate(
        (at, at - shift, np.nextafter(at, 0.0), np.nextafter(at, 1.0), rng.random(300), [0, 1])
    )
    x = np.clip(x, 0.0, 1.0)
    grid = np.arange(1, n, dtype=np.float64) / n - shift
    expected = np.searchsorted(grid, x, side="right")
    np.testing.assert_array_equal(_common._grid_count(x, n, shift=shift), expected)


@pytest.mark.parametrize("seed", range(10))
def test_binned_sums_dense_and_sorted_routes_agree(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    n_bins = int(rng.integers(1, 40))
    idx = rng.integers(0, n_bins, n)
    w, v = rng.random(n), rng.normal(size=n)
    bins, inverse, sums = _common.binned_sums(idx, None, w, v, n_bins=n_bins)
    np.testing.assert_array_equal(bins, np.arange(n_bins))
    np.testing.assert_array_equal(inverse, idx)
    occupied, inv, sparse = _common.binned_sums(idx, None, w, v)  # no bound: sorted route
    np.testing.assert_array_equal(occupied, np.unique(idx))
    np.testing.assert_array_equal(occupied[inv], idx)
    for dense, s in zip(sums, sparse, strict=True):
        np.testing.assert_array_equal(dense[occupied], s)  # same order of addition: bit-equal
        assert not dense[np.setdiff1d(bins, occupied)].any()
    np.testing.assert_array_equal(sums[0], np.bincount(idx, minlength=n_bins))


@pytest.mark.parametrize(
    "call",
    [
        lambda: metrics.reliability_curve([0, 1], [0.2, 0.8], n_bins=10**9),
        lambda: metrics.interval_validity([0, 1], [0.1, 0.6], [0.2, 0.8], n_bins=10**9),
        lambda: metrics.ece([0, 1], [0.2, 0.8], n_bins=10**20),
    ],
    ids=["reliability_curve", "interval_validity", "ece"],
)
def test_n_bins_beyond_the_bound_is_refused(call):
    with pytest.raises(ValueError, match="'n_bins'.*at most") as info:
        call()
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------------- crossed intervals
@pytest.mark.parametrize(
    "call",
    [
        lambda p0, p1: metrics.interval_width(p0, p1),
        lambda p0, p1: metrics.interval_validity([0, 1, 1], p0, p1),
        lambda p0, p1: metrics.merge_regret(p0, p1, [0.3, 0.5, 0.6]),
    ],
    ids=["interval_width", "interval_validity", "merge_regret"],
)
def test_crossed_intervals_are_refused(call):
    p0, p1 = [0.2, 0.6, 0.5], [0.3, 0.5, 0.7]
    with pytest.raises(ValueError, match="'p0' exceeds 'p1'.*index 1") as info:
        call(p0, p1)
    assert "\n" not in str(info.value)
    # rounding-level crossings are accepted
    call([0.2, 0.5 + 1e-12, 0.5], [0.3, 0.5, 0.7])


@pytest.mark.parametrize("tol", [-1, -1e-9, np.nan, np.inf, 2.0, "0.1", None])
def test_interval_validity_refuses_bad_tol(tol):
    with pytest.raises(ValueError, match="'tol'"):
        metrics.interval_validity([0, 1], [0.1, 0.6], [0.2, 0.8], tol=tol)
