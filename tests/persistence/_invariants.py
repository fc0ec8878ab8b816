"""What a loaded model must do, for the tests of edited model files: predictions finite and
valid (probabilities in [0, 1] summing to one, p0 <= p1, known classes), and a calibration
monitor's state consistent (the alarm exactly when the martingale reached its level)."""

import warnings

import numpy as np
import pandas as pd

from tests.persistence._savable import multiclass_data


def binary_scores(wide):
    rng = np.random.default_rng(7)
    t = np.r_[0.0, 1.0, np.linspace(0, 1, 41), np.round(rng.random(40), 2), rng.random(20)]
    if wide:
        t = np.r_[t, -5.0, 5.0, -1e300, 1e300, rng.normal(size=20)]
    return t


def check_predictions(cal, wide, multiclass):
    """Every prediction of ``cal`` on test data, with the checks of its invariants."""
    classes = cal.classes_
    if multiclass:
        X = multiclass_data(seed=5, n=60, K=classes.shape[0])[0]
        kwargs = {}
    else:
        X = binary_scores(wide)
        groups = getattr(cal, "groups_", None)
        kwargs = {}
        if groups is not None:
            known = list(groups) + list(cal.pooled_groups_ or [])
            kwargs = {"groups": np.array([known[i % len(known)] for i in range(X.shape[0])])}
        if hasattr(cal, "coding_"):  # a multicalibration calibrator needs segments
            kwargs = {"segments": segment_frame(cal.coding_, X.shape[0])}
    proba = cal.predict_proba(X, **kwargs)
    m = X.shape[0]
    assert proba.shape == (m, classes.shape[0]), proba.shape
    assert np.isfinite(proba).all(), "non-finite probabilities"
    assert ((proba >= 0) & (proba <= 1)).all(), f"probabilities in [{proba.min()}, {proba.max()}]"
    assert np.allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9), "rows do not sum to one"
    if hasattr(cal, "predict_interval"):
        iv = cal.predict_interval(X, **kwargs)
        assert np.isfinite(iv).all(), "non-finite intervals"
        assert ((iv >= 0) & (iv <= 1)).all(), "intervals outside [0, 1]"
        assert (iv[..., 0] <= iv[..., 1]).all(), "intervals with p0 > p1"
    pred = cal.predict(X, **kwargs)
    assert np.isin(pred, classes).all(), "predict returns an unknown class"


def segment_frame(coding, m):
    """``m`` rows of the segment columns of ``coding``: every kept level, an unknown one and
    missing values; numbers at and around the cut points, extremes and missing values."""
    frame = {}
    for name, levels in zip(coding.categorical, coding.levels, strict=True):
        values = [*levels, "never seen", None]
        frame[name] = pd.Series([values[i % len(values)] for i in range(m)], dtype=object)
    for name, edges in zip(coding.numerical, coding.edges, strict=True):
        values = np.r_[edges, edges + 0.5, -1e300, 1e300, np.nan, 0.0]
        frame[name] = values[np.arange(m) % values.shape[0]]
    return pd.DataFrame(frame, index=range(m))


def check_distribution(dist):
    """A predictive distribution's band, merged CDF, quantiles, mean and CRPS on test
    predictions: CDF values in [0, 1], F0 <= F1, both non-decreasing in the threshold,
    quantiles among the calibration labels and in order, finite means and scores."""
    rng = np.random.default_rng(3)
    s = np.r_[np.round(rng.normal(size=40), 1), -1e300, 1e300, 0.0]
    kwargs = {}
    if dist.groups_ is not None:
        known = list(dist.groups_) + list(dist.pooled_groups_)
        kwargs = {"groups": np.array([known[i % len(known)] for i in range(s.shape[0])])}
    t = np.r_[-1e300, np.linspace(-4, 4, 33), 1e300]
    with np.errstate(all="raise"):
        band = dist.predict_cdf(s, t, **kwargs)
        merged = dist.predict_merged_cdf(s, t, **kwargs)
        q = dist.predict_quantiles(s, [0.05, 0.5, 0.95], **kwargs)
        mean = dist.predict_mean(s, **kwargs)
        crps = dist.crps(s, np.round(s + 0.3, 1), **kwargs)
    assert band.shape == (s.shape[0], t.shape[0], 2), band.shape
    assert np.isfinite(band).all() and ((band >= 0) & (band <= 1)).all(), "CDF outside [0, 1]"
    assert (band[..., 0] <= band[..., 1]).all(), "F0 > F1"
    # fractional weights sum in floats: a CDF may step down by rounding (3.5e-16 seen)
    assert (np.diff(band, axis=1) >= -1e-12).all(), "a CDF that decreases"
    assert ((merged >= 0) & (merged <= 1)).all() and (np.diff(merged, axis=1) >= -1e-12).all()
    labels = dist.labels_ if dist.groups_ is None else None
    assert np.isfinite(q).all() and (np.diff(q, axis=1) >= 0).all(), "quantiles out of order"
    if labels is not None:
        assert np.isin(q, labels).all(), "a quantile that is not a calibration label"
    assert np.isfinite(mean).all() and np.isfinite(crps).all() and (crps >= 0).all()


def check_monitor(monitor):
    """A monitor's state is consistent, and stays so when the stream goes on."""
    for _ in range(2):
        state = monitor.state_
        current = monitor.log_martingale_
        assert current == current, "a NaN martingale"
        assert current <= state.log_max * (1 + 1e-12) + 1e-12, "a martingale above its peak"
        assert monitor.alarm_ == (state.log_max >= state.log_threshold), "alarm and peak differ"
        if monitor.alarm_:
            assert 0 <= monitor.alarm_index_ < monitor.n_seen_
        path = monitor.martingale_
        if path is not None:
            assert path.shape == (monitor.n_seen_,) and not np.isnan(path).any()
        monitor.update([0.2, 0.9, 0.5], [0, 1, 1])


def check_segment_monitor(monitor):
    """A monitor per segment is consistent (each segment's alarm exactly when its martingale
    reached its level), and stays so when the stream goes on, in its levels and a new one."""
    for _ in range(2):
        report = monitor.report()
        assert not report[["log_martingale", "log_max", "threshold"]].isna().any().any()
        assert (report.log_martingale <= report.log_max * (1 + 1e-12) + 1e-12).all()
        assert (report.alarm == (report.log_max >= report.threshold)).all(), "alarm and peak"
        assert monitor.alarm_ == bool(report.alarm.any())
        if monitor.alarm_:
            assert 0 <= monitor.alarm_index_ < monitor.n_seen_
        seg = {c: [*levels, "new", levels[0]][:3] for c, levels in monitor.levels_.items()}
        for c, edges in (monitor.bins or {}).items():  # a binned column takes numbers
            seg[c] = [float(edges[0]), np.nan, float(edges[-1])]
        monitor.update([0.2, 0.9, 0.5], [0, 1, 1], segments=seg)


def check_abstention(rule):
    """An abstention rule answers with a known class, or abstains, on probabilities of its
    shape (or intervals of them)."""
    k = rule.n_features_in_
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(max(k, 2)), 50)
    scores = P[:, 1] if k == 1 else P
    if rule.confidence == "lower":
        scores = np.column_stack([scores, scores]) if k == 1 else np.stack([P, P], axis=2)
    groups = None if rule.groups_ is None else [rule.groups_[0]] * 50
    accept = rule.accept(scores, groups=groups)
    assert accept.dtype == bool and accept.shape == (50,)
    assert np.isin(rule.predict(scores), rule.classes_).all(), "predict returns an unknown class"


def check_loaded(cal, wide):
    """The invariants of what ``venncal.load`` returned: a calibrator, an abstention rule or a
    monitor."""
    if hasattr(cal, "predict_proba"):
        check_predictions(cal, wide, getattr(cal, "n_features_in_", 1) > 1)
    elif hasattr(cal, "predict_cdf"):
        check_distribution(cal)
    elif hasattr(cal, "accept"):
        check_abstention(cal)
    elif hasattr(cal, "levels_"):
        check_segment_monitor(cal)
    else:
        check_monitor(cal)


def wide_ok(cal):
    """Whether ``cal`` predicts on scores outside [0, 1] too (beta calibration of
    probabilities does not)."""
    if not hasattr(cal, "predict_proba"):  # e.g. a monitor: loading is what is checked
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_predictions(cal, True, getattr(cal, "n_features_in_", 1) > 1)
    except ValueError:
        return False
    return True
