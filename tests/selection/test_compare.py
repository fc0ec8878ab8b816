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


def test_calibrated_scores_recommend_no_calibration():
    # y ~ Bernoulli(s): the scores are already calibrated, and the simplest candidate wins
    s, y = _data(n=3000, seed=4, power=1.0)
    res = compare_calibrators(s, y, n_boot=300, random_state=0)
    assert res.recommended == "uncalibrated", res.rule


def test_miscalibrated_scores_are_recalibrated():
    s, y = _data(n=3000, seed=5, power=3.0)
    res = compare_calibrators(s, y, n_boot=300, random_state=0)
    assert res.recommended != "uncalibrated"
    sel = res.table[res.table["metric"] == "log_loss"].set_index("calibrator")
    assert sel.loc["uncalibrated", "diff_low"] > 0  # clearly worse than the best
    # the chosen one is within the best's interval, and nothing simpler is
    chosen = sel.loc[res.recommended]
    assert chosen["diff_low"] <= 0
    simpler = sel[sel["n_parameters"] < chosen["n_parameters"]]
    assert (simpler["diff_low"] > 0).all()


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
