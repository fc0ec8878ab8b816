"""compare_calibrators: out-of-fold probabilities, metrics, paired intervals and the rule."""

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold

from venncal import IsotonicCalibrator, PlattCalibrator
from venncal.metrics import brier_score, ece, log_loss
from venncal.selection import compare_calibrators


def _data(n=600, seed=0, power=2.0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    y = (rng.random(n) < s**power).astype(int)
    return s, y


def test_out_of_fold_probabilities_come_from_the_other_folds():
    s, y = _data()
    cv = KFold(4, shuffle=True, random_state=1)
    res = compare_calibrators(
        s, y, calibrators={"platt": PlattCalibrator()}, cv=cv, n_boot=20, random_state=0
    )
    for k, (train, test) in enumerate(cv.split(s[:, None])):
        ref = PlattCalibrator().fit(s[train], y[train]).predict_proba(s[test])[:, 1]
        np.testing.assert_array_equal(res.oof["platt"].to_numpy()[test], ref)
        assert (res.oof["fold"].to_numpy()[test] == k).all()
    np.testing.assert_array_equal(res.oof["y"], y)
    np.testing.assert_array_equal(res.oof["uncalibrated"], s)


def test_estimates_are_the_library_metrics_of_the_out_of_fold_probabilities():
    s, y = _data(seed=1)
    res = compare_calibrators(s, y, n_boot=20, n_bins=7, random_state=3)
    for name in res.oof.columns.drop(["y", "fold"]):
        p = res.oof[name].to_numpy()
        got = res.table[res.table["calibrator"] == name].set_index("metric")["estimate"]
        assert got["log_loss"] == pytest.approx(log_loss(y, p, clip=1e-15), rel=1e-12)
        assert got["brier_score"] == pytest.approx(brier_score(y, p), rel=1e-12)
        assert got["ece"] == pytest.approx(ece(y, p, n_bins=7), rel=1e-9, abs=1e-15)


def test_bootstrap_resamples_rows_and_is_paired():
    s, y = _data(seed=2)
    cals = {"a": PlattCalibrator(), "b": PlattCalibrator(), "iso": IsotonicCalibrator()}
    res = compare_calibrators(s, y, calibrators=cals, n_boot=300, random_state=0)
    t = res.table.set_index(["calibrator", "metric"])
    for m in ("log_loss", "brier_score"):
        # identical calibrators: their paired difference is 0 on every resample
        a, b = t.loc[("a", m)], t.loc[("b", m)]
        assert a["estimate"] == b["estimate"]
        assert a["diff_low"] == b["diff_low"] and a["diff_high"] == b["diff_high"]
        # intervals of a mean contain the estimate and have a plausible width: the standard
        # error of a mean of per-row losses, times about 2 x 1.96
        ll = t.loc[("iso", m)]
        assert ll["low"] < ll["estimate"] < ll["high"]
    best = res.table[(res.table["metric"] == "brier_score") & res.table["is_best"]]
    assert (best[["diff_to_best", "diff_low", "diff_high"]].to_numpy() == 0).all()
    # the interval width matches the standard error of the mean of the per-row losses
    p = res.oof["iso"].to_numpy()
    se = np.std((y - p) ** 2) / np.sqrt(len(y))
    width = t.loc[("iso", "brier_score"), "high"] - t.loc[("iso", "brier_score"), "low"]
    assert 0.7 * 2 * 1.96 * se < width < 1.3 * 2 * 1.96 * se


def _log_loss_rows(res):
    return res.table[res.table["metric"] == "log_loss"].set_index("calibrator")


def _check_rule(res):
    """The recommendation follows the documented rule, read off the table."""
    sel = _log_loss_rows(res)
    beats = sel[(sel.index != res.default) & sel["eligible"] & (sel["default_high"] < 0)]
    if beats.empty:
        assert res.recommended == res.default, res.rule
    else:
        assert res.recommended == beats["estimate"].idxmin(), res.rule


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("power", [1.0, 3.0])
def test_recommendation_is_the_default_unless_clearly_beaten(seed, power):
    s, y = _data(n=1500, seed=seed, power=power)
    res = compare_calibrators(s, y, n_boot=200, random_state=seed)
    assert res.default == "venn-abers"
    _check_rule(res)


def test_miscalibrated_scores_are_recalibrated():
    s, y = _data(n=3000, seed=5, power=3.0)
    res = compare_calibrators(s, y, n_boot=300, random_state=0)
    assert res.recommended != "uncalibrated"
    sel = _log_loss_rows(res)
    assert sel.loc["uncalibrated", "diff_low"] > 0  # clearly worse than the best
    assert sel.loc["uncalibrated", "default_low"] > 0  # and than the default


def test_a_clearly_better_candidate_replaces_the_default():
    # y ~ Bernoulli(sigmoid(2 z)) on margins: Platt's sigmoid is the truth, and with many rows
    # its advantage over the step function is clear
    rng = np.random.default_rng(8)
    z = rng.normal(size=20000)
    y = (rng.random(20000) < 1 / (1 + np.exp(-2 * z))).astype(int)
    res = compare_calibrators(z, y, n_boot=200, random_state=0)
    assert res.recommended in {"platt", "beta", "quadratic", "temperature"}, res.rule
    _check_rule(res)


def test_scores_of_exactly_zero_or_one_are_never_recommended():
    # the raw scores are right on most rows and exactly 0 or 1 on some: their estimate is the
    # best, but one counterexample on new data costs an infinite log loss
    rng = np.random.default_rng(9)
    s = rng.uniform(0.05, 0.95, size=3000)
    y = (rng.random(3000) < s).astype(int)
    s[:300] = y[:300]  # confident and right
    res = compare_calibrators(s, y, n_boot=200, random_state=0)
    sel = _log_loss_rows(res)
    assert not sel.loc["uncalibrated", "eligible"]
    assert sel.loc["uncalibrated", "is_best"]
    assert res.recommended != "uncalibrated"
    assert "put probability 0 or 1" in res.rule
    _check_rule(res)


def test_a_small_smallest_class_keeps_the_default():
    rng = np.random.default_rng(10)
    s = rng.uniform(size=400)
    y = (s > 0.93).astype(int)  # about 28 positives
    y[:15] = 1
    y[np.flatnonzero(y)[19:]] = 0
    assert y.sum() == 19
    res = compare_calibrators(s, y, n_boot=100, random_state=0)
    assert res.recommended == "venn-abers"
    assert "fewer than 20" in res.rule


@pytest.mark.parametrize("seed", range(3))
def test_every_interval_contains_its_estimate(seed):
    # the binned ECE of a resample is biased upward: percentile intervals of it used to lie
    # above the estimate
    s, y = _data(n=800, seed=seed, power=1.0)
    res = compare_calibrators(s, y, n_boot=300, random_state=seed)
    t = res.table
    assert (t["low"] <= t["estimate"]).all() and (t["estimate"] <= t["high"]).all()
    assert (t["diff_low"] <= t["diff_to_best"]).all()
    assert (t["diff_to_best"] <= t["diff_high"]).all()
    assert (t["default_low"] <= t["diff_to_default"]).all()
    assert (t["diff_to_default"] <= t["default_high"]).all()
    assert (t["low"] >= 0).all()


def test_the_candidates_include_quadratic_and_temperature_scaling():
    s, y = _data(n=400, seed=11)
    res = compare_calibrators(s, y, n_boot=20, random_state=0)
    assert {"quadratic", "temperature", "venn-abers", "platt", "beta"} <= set(
        res.table["calibrator"]
    )


def test_many_rows_are_resampled_in_blocks_with_the_width_of_rows():
    # above 10,000 rows the bootstrap resamples random blocks; the interval of a mean keeps the
    # width of the standard error of the mean of per-row losses
    s, y = _data(n=60000, seed=12)
    cals = {"platt": PlattCalibrator()}
    res = compare_calibrators(s, y, calibrators=cals, n_boot=400, random_state=0)
    t = res.table.set_index(["calibrator", "metric"])
    p = res.oof["platt"].to_numpy()
    se = np.std((y - p) ** 2) / np.sqrt(len(y))
    width = t.loc[("platt", "brier_score"), "high"] - t.loc[("platt", "brier_score"), "low"]
    assert 0.8 * 2 * 1.96 * se < width < 1.2 * 2 * 1.96 * se


def test_progress_is_shown_on_request(capsys):
    s, y = _data(n=300, seed=13)
    compare_calibrators(
        s, y, calibrators={"platt": PlattCalibrator()}, n_boot=50, progress=True, random_state=0
    )
    assert "step" in capsys.readouterr().err
    compare_calibrators(s, y, calibrators={"platt": PlattCalibrator()}, n_boot=50, random_state=0)
    assert capsys.readouterr().err == ""


def test_k_class_score_matrices_are_compared():
    from venncal.metrics import multiclass_log_loss, top_label_ece

    rng = np.random.default_rng(14)
    n, K = 1200, 4
    Z = rng.normal(size=(n, K))
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    labels = np.array(["a", "b", "c", "d"])
    y = labels[(rng.random((n, 1)) > P.cumsum(axis=1)).sum(axis=1)]
    res = compare_calibrators(3 * Z, y, n_boot=100, random_state=0)
    assert res.default == "matrix-scaling"
    assert {"temperature", "matrix-scaling", "venn-abers"} == set(res.table["calibrator"])
    assert "uncalibrated" not in set(res.table["calibrator"])  # logits: no raw candidate
    _check_rule(res)
    P_t = res.oof[[f"temperature[{k}]" for k in labels]].to_numpy()
    np.testing.assert_allclose(P_t.sum(axis=1), 1.0)
    est = res.table.set_index(["calibrator", "metric"])["estimate"]
    assert est["temperature", "log_loss"] == pytest.approx(
        multiclass_log_loss(y, P_t, clip=1e-15), rel=1e-12
    )
    assert est["temperature", "ece"] == pytest.approx(
        top_label_ece(y, P_t, n_bins=10), rel=1e-9, abs=1e-15
    )
    # sharpened logits: temperature scaling is clearly better than the raw probabilities
    P3 = np.exp(3 * Z) / np.exp(3 * Z).sum(axis=1, keepdims=True)
    res = compare_calibrators(P3, y, n_boot=100, random_state=0)
    sel = _log_loss_rows(res)
    assert sel.loc["uncalibrated", "default_low"] > 0
    with pytest.raises(ValueError, match="4 column.* but 'y' holds 3 classes"):
        compare_calibrators(P3, np.where(y == "d", "c", y))


def test_margins_use_beta_on_the_logit_scale_and_no_uncalibrated_row():
    rng = np.random.default_rng(6)
    f = rng.normal(size=800)
    y = (rng.random(800) < 1 / (1 + np.exp(-2 * f))).astype(int)
    res = compare_calibrators(f, y, n_boot=50, random_state=0)
    assert "uncalibrated" not in set(res.table["calibrator"])
    assert "beta" in set(res.table["calibrator"])
    with pytest.raises(ValueError, match="include_uncalibrated=True needs scores in"):
        compare_calibrators(f, y, include_uncalibrated=True)


def test_same_seed_same_result():
    s, y = _data(seed=7)
    a = compare_calibrators(s, y, n_boot=50, random_state=11).table
    b = compare_calibrators(s, y, n_boot=50, random_state=11).table
    pd.testing.assert_frame_equal(a.drop(columns="fit_seconds"), b.drop(columns="fit_seconds"))


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"metrics": ("auc",)}, ValueError, "'metrics' must be a non-empty subset"),
        ({"select_by": "ece", "metrics": ("log_loss",)}, ValueError, "'select_by'"),
        ({"cv": 1}, ValueError, "at least 2 folds"),
        ({"cv": 500}, ValueError, "cv=500 folds need at least 500 examples"),
        ({"cv": "five"}, TypeError, "'cv' must be a number of folds"),
        ({"calibrators": {}}, ValueError, "'calibrators' is empty"),
        ({"calibrators": [object()]}, TypeError, "has no fit/predict_proba"),
        ({"calibrators": [PlattCalibrator(), PlattCalibrator()]}, ValueError, "same class"),
        ({"calibrators": {"uncalibrated": PlattCalibrator()}}, ValueError, "reserved"),
        ({"n_boot": 0}, ValueError, "n_boot"),
        ({"confidence_level": 1.0}, ValueError, "confidence_level"),
        ({"include_uncalibrated": "yes"}, ValueError, "include_uncalibrated"),
        ({"default": "nope"}, ValueError, "'default' must name a candidate"),
        ({"progress": "yes"}, ValueError, "'progress'"),
    ],
)
def test_bad_arguments(kwargs, err, match):
    s, y = _data(n=200)
    with pytest.raises(err, match=match):
        compare_calibrators(s, y, **kwargs)


@pytest.mark.parametrize(
    "scores, labels, match",
    [
        ([0.1, np.nan, 0.3, 0.4], [0, 1, 0, 1], "scores"),
        ([0.1, 0.2, 0.3, 0.4], [1, 1, 1, 1], "one class|two classes|both classes"),
        ([0.1, 0.2, 0.3], [0, 1, 0, 1], "length|same number|inconsistent"),
    ],
)
def test_bad_data(scores, labels, match):
    with pytest.raises(ValueError, match=match):
        compare_calibrators(scores, labels, cv=2)


def test_parallel_fits_give_the_same_comparison():
    s, y = _data(seed=15)
    a = compare_calibrators(s, y, n_boot=50, random_state=2)
    b = compare_calibrators(s, y, n_boot=50, random_state=2, n_jobs=2)
    pd.testing.assert_frame_equal(
        a.table.drop(columns="fit_seconds"), b.table.drop(columns="fit_seconds")
    )
    pd.testing.assert_frame_equal(a.oof, b.oof)
    assert a.recommended == b.recommended


def _segment_data(n, seed):
    """Scores right on average, off by group: too low in "b", too high in "a"."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    s = rng.uniform(0.05, 0.95, n)
    logit = np.log(s / (1 - s)) + np.where(g == "b", 0.9, np.where(g == "a", -0.9, 0.0))
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return s, y, pd.DataFrame({"g": g, "x": rng.normal(size=n)})


def test_segments_add_the_multicalibration_candidate_and_it_wins_where_segments_are_off():
    from venncal import MulticalibrationCalibrator

    s, y, seg = _segment_data(4000, 0)
    res = compare_calibrators(s, y, segments=seg, n_boot=100, random_state=0)
    wide = res.wide()
    assert "multicalibration" in wide.index
    assert wide.loc["multicalibration", "log_loss"] < wide.loc["venn-abers", "log_loss"] - 0.02
    assert res.recommended == "multicalibration"
    est = res.recommended_estimator
    assert isinstance(est, MulticalibrationCalibrator) and est.chosen_ == "boosted"
    s2, y2, seg2 = _segment_data(4000, 1)
    q = est.predict_proba(s2, segments=seg2)[:, 1]
    assert log_loss(y2, q) < log_loss(y2, s2) - 0.02
    # the out-of-fold probabilities are those of a calibrator fitted on the other folds
    folds = res.oof["fold"].to_numpy()
    train, test = folds != 0, folds == 0
    ref = MulticalibrationCalibrator().fit(s[train], y[train], segments=seg[train])
    np.testing.assert_array_equal(
        res.oof["multicalibration"].to_numpy()[test],
        ref.predict_proba(s[test], segments=seg[test])[:, 1],
    )


def test_segments_reach_the_given_candidates_that_take_them_only():
    from venncal import MulticalibrationCalibrator

    s, y, seg = _segment_data(1200, 2)
    cals = {"mc": MulticalibrationCalibrator(), "platt": PlattCalibrator()}
    res = compare_calibrators(s, y, calibrators=cals, segments=seg.to_dict("list"), n_boot=20)
    assert set(res.wide().index) == {"uncalibrated", "mc", "platt"}
    without = compare_calibrators(s, y, n_boot=20)
    assert "multicalibration" not in without.wide().index


@pytest.mark.parametrize(
    ("scores", "segments", "match"),
    [
        (np.full(300, 0.5), pd.DataFrame({"g": ["a"] * 299}), "299 rows for 300 scores"),
        (np.full((300, 3), 1 / 3), pd.DataFrame({"g": ["a"] * 300}), "binary scores"),
    ],
)
def test_segments_that_do_not_fit_are_refused_in_one_line(scores, segments, match):
    y = np.arange(300) % (2 if scores.ndim == 1 else 3)
    with pytest.raises(ValueError, match=match) as info:
        compare_calibrators(scores, y, segments=segments, n_boot=10)
    assert "\n" not in str(info.value)
