"""The claims of docs/user_guide/from_netcal.md.

The comparisons with netcal run only where netcal (and so PyTorch) is installed; the
venncal-only checks of the same claims run everywhere.
"""

import warnings

import numpy as np
import pytest
from scipy.special import expit, logit

import venncal
from tests._reference.metrics_loops import uniform_bin
from venncal import metrics


@pytest.fixture(scope="module")
def netcal():
    pytest.importorskip("netcal")
    pytest.importorskip("torch")
    import netcal.binning
    import netcal.metrics
    import netcal.scaling

    return netcal


def _binary(seed, n=2000, lo=0.0, hi=1.0):
    rng = np.random.default_rng(seed)
    z = 2 * rng.normal(size=n)
    y = (rng.random(n) < expit(z)).astype(int)
    p = lo + (hi - lo) * expit(1.7 * z + 0.3)
    half = n // 2
    return p[:half], y[:half], p[half:], y[half:]


def _quiet(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # netcal's own deprecation and torch warnings
        return fit()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scaling_methods(netcal, seed):
    p_cal, y_cal, p_test, _ = _binary(seed)
    cases = [
        (netcal.scaling.TemperatureScaling, venncal.TemperatureCalibrator(), 1e-5),
        (netcal.scaling.LogisticCalibration, venncal.BetaCalibrator(parameters="am"), 1e-4),
        (netcal.scaling.BetaCalibration, venncal.BetaCalibrator(), 2e-4),
    ]
    for cls, ours, atol in cases:
        theirs = _quiet(lambda cls=cls: cls().fit(p_cal, y_cal))
        ours.fit(p_cal, y_cal)
        np.testing.assert_allclose(
            ours.predict_proba(p_test)[:, 1], theirs.transform(p_test), rtol=0, atol=atol
        )
    ts = _quiet(lambda: netcal.scaling.TemperatureScaling().fit(p_cal, y_cal))
    ours = venncal.TemperatureCalibrator().fit(p_cal, y_cal)
    assert float(np.ravel(ts.temperature)[0]) == pytest.approx(1 / ours.temperature_, rel=1e-4)


def test_logistic_calibration_is_plain_logistic_regression_on_the_log_odds():
    # the venncal side alone: two routes to the same unsmoothed sigmoid of logit(p)
    p_cal, y_cal, p_test, _ = _binary(3)
    am = venncal.BetaCalibrator(parameters="am").fit(p_cal, y_cal)
    plain = venncal.PlattCalibrator(smoothing=False).fit(logit(p_cal), y_cal)
    np.testing.assert_allclose(
        am.predict_proba(p_test), plain.predict_proba(logit(p_test)), rtol=0, atol=1e-8
    )


def test_multiclass_temperature_and_top_label_ece(netcal):
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 3, 3000)
    logits = 2 * rng.normal(size=(3000, 3)) + 3 * np.eye(3)[labels]
    P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    theirs = _quiet(lambda: netcal.scaling.TemperatureScaling().fit(P[:1500], labels[:1500]))
    ours = venncal.TemperatureCalibrator().fit(P[:1500], labels[:1500])
    np.testing.assert_allclose(ours.predict_proba(P[1500:]), theirs.transform(P[1500:]), atol=1e-5)
    ece = netcal.metrics.ECE(bins=10).measure(P, labels)
    assert metrics.top_label_ece(labels, P, n_bins=10) == pytest.approx(ece, abs=1e-12)
    with pytest.raises(RuntimeError):  # a 3-column matrix, labels of two classes
        netcal.metrics.ECE(bins=10).measure(P[labels < 2], labels[labels < 2])


@pytest.mark.parametrize("seed", [0, 1])
def test_isotonic_and_wide_histogram(netcal, seed):
    p_cal, y_cal, p_test, _ = _binary(seed)
    iso = _quiet(lambda: netcal.binning.IsotonicRegression().fit(p_cal, y_cal))
    ours = venncal.IsotonicCalibrator().fit(p_cal, y_cal)
    np.testing.assert_allclose(ours.predict_proba(p_test)[:, 1], iso.transform(p_test), atol=1e-12)


def test_histogram_binning_edges_and_empty_bins(netcal):
    p_cal, y_cal, p_test, _ = _binary(0, lo=0.2, hi=0.8)  # calibration scores in [0.2, 0.8]
    theirs = _quiet(lambda: netcal.binning.HistogramBinning(bins=10).fit(p_cal, y_cal))
    ours = venncal.HistogramCalibrator(n_bins=10).fit(p_cal, y_cal)
    outside = np.array([0.05, 0.95])
    np.testing.assert_allclose(theirs.transform(outside), outside)  # empty bins: midpoints
    assert np.abs(ours.predict_proba(p_test)[:, 1] - theirs.transform(p_test)).max() > 0.1


def test_histogram_empty_bins_and_range_in_venncal():
    # the venncal side alone: bins over the calibration range, an empty bin gets the overall rate
    s = np.array([0.2, 0.21, 0.22, 0.78, 0.79, 0.8])
    y = np.array([0, 0, 1, 1, 1, 0])
    cal = venncal.HistogramCalibrator(n_bins=3).fit(s, y)
    np.testing.assert_allclose(cal.bin_edges_, [0.2, 0.4, 0.6, 0.8])
    np.testing.assert_allclose(cal.predict_proba([0.5, 0.05, 0.95])[:, 1], [0.5, 1 / 3, 2 / 3])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_ece_and_mce(netcal, seed):
    _, _, p, y = _binary(seed)
    assert metrics.ece(y, p, n_bins=10) == pytest.approx(
        netcal.metrics.ECE(bins=10).measure(p, y), abs=1e-12
    )
    assert metrics.mce(y, p, n_bins=10) == pytest.approx(
        netcal.metrics.MCE(bins=10).measure(p, y), abs=1e-12
    )


def test_a_prediction_of_exactly_0_3(netcal):
    p, y = np.array([0.3, 0.25, 0.35]), np.array([1, 0, 0])
    theirs = netcal.metrics.ECE(bins=10).measure(p, y)  # 0.3 with 0.25 in [0.2, 0.3)
    assert theirs == pytest.approx((2 * abs(0.5 - 0.275) + abs(0 - 0.35)) / 3)
    assert metrics.ece(y, p, n_bins=10) == pytest.approx((0.25 + 2 * abs(0.5 - 0.325)) / 3)


def test_venncal_bin_of_0_3_is_the_loop_definition():
    p, y = np.array([0.3, 0.25, 0.35]), np.array([1, 0, 0])
    assert uniform_bin(0.3, 10) == 3
    curve = metrics.reliability_curve(y, p, n_bins=10)
    assert curve.counts[2] == 1 and curve.counts[3] == 2


def test_netcal_accepts_what_venncal_refuses(netcal):
    p_cal, y_cal, p_test, _ = _binary(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = netcal.binning.HistogramBinning(bins=10).fit(p_cal, np.zeros_like(y_cal))
        assert np.isfinite(one.transform(p_test)).all()
        assert np.isfinite(netcal.metrics.ECE(bins=10).measure(3 * p_test, y_cal))
        assert np.isfinite(netcal.metrics.ECE(bins=10).measure(p_test, y_cal + 1))
    with pytest.raises(ValueError, match="one class only"):
        venncal.HistogramCalibrator().fit(p_cal, np.zeros_like(y_cal))
    with pytest.raises(ValueError):
        metrics.ece(y_cal, 3 * p_test)
    with pytest.raises(ValueError):
        metrics.ece(y_cal + 1, p_test)


def test_slope_sign_on_scores_that_rank_the_classes_backwards(netcal):
    rng = np.random.default_rng(0)
    p = rng.random(500)
    y = (rng.random(500) < 1 - p).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # venncal warns that the scores rank the classes backwards
        am = venncal.BetaCalibrator(parameters="am").fit(p, y)
        plain = venncal.PlattCalibrator(smoothing=False).fit(logit(p), y)
        theirs = netcal.scaling.LogisticCalibration().fit(p, y)
    assert am.a_ == am.b_ == 0.0  # a constant
    assert float(np.ravel(theirs.weights)[0]) < 0  # netcal: a decreasing sigmoid
    np.testing.assert_allclose(
        theirs.transform(p), plain.predict_proba(logit(p))[:, 1], rtol=0, atol=1e-4
    )
