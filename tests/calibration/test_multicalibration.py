"""MulticalibrationCalibrator: segment calibration, never worse, the stored trees, bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

from tests._reference import tree_walk_naive
from venncal import MulticalibrationCalibrator, VennAbersCalibrator
from venncal.metrics import log_loss, multicalibration_error


def _blind(seed, n):
    """A base model right on average but blind to 'group' (too low for b, too high for a)
    and to 'age' (too low above 50)."""
    rng = np.random.default_rng(seed)
    seg = pd.DataFrame(
        {
            "group": rng.choice(["a", "b", "c"], n, p=[0.4, 0.4, 0.2]),
            "age": rng.integers(18, 80, n).astype(float),
        }
    )
    p = rng.uniform(0.05, 0.95, n)
    shift = 0.8 * (seg["group"] == "b") - 0.8 * (seg["group"] == "a") + 0.6 * (seg["age"] > 50)
    y = (rng.random(n) < expit(logit(p) + shift.to_numpy() - 0.1)).astype(int)
    return p, y, seg


def _z(y, p, mask):
    return abs((y[mask] - p[mask]).sum()) / np.sqrt((p[mask] * (1 - p[mask])).sum())


def test_calibrates_segments_the_base_model_is_blind_to():
    p, y, seg = _blind(0, 8000)
    fit, test = slice(0, 4000), slice(4000, None)
    cal = MulticalibrationCalibrator().fit(p[fit], y[fit], segments=seg[fit])
    q = cal.predict_proba(p[test], segments=seg[test])[:, 1]
    yt, st = y[test], seg[test].reset_index(drop=True)
    masks = [(st["group"] == g).to_numpy() for g in "abc"] + [(st["age"] > 50).to_numpy()]
    assert max(_z(yt, p[test], m) for m in masks) > 8  # the base model is off
    assert max(_z(yt, q, m) for m in masks) < 4.5  # the bar of the Adult benchmark
    before = multicalibration_error(yt, p[test], segments=st).mce_sigma
    after = multicalibration_error(yt, q, segments=st).mce_sigma
    assert after < 0.3 * before
    va = VennAbersCalibrator().fit(p[fit], y[fit]).predict_proba(p[test])[:, 1]
    assert log_loss(yt, q) < log_loss(yt, va) - 0.02


@pytest.mark.parametrize("seed", [1, 2])
def test_never_worse_on_a_model_calibrated_in_every_segment(seed):
    rng = np.random.default_rng(seed)
    n = 6000
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(int)
    seg = pd.DataFrame({"noise": rng.choice(list("wxyz"), n), "x": rng.normal(size=n)})
    cal = MulticalibrationCalibrator().fit(p[:3000], y[:3000], segments=seg[:3000])
    q = cal.predict_proba(p[3000:], segments=seg[3000:])[:, 1]
    va = VennAbersCalibrator().fit(p[:3000], y[:3000]).predict_proba(p[3000:])[:, 1]
    assert sum(cal.n_trees_) <= 10
    assert log_loss(y[3000:], q) <= log_loss(y[3000:], va) + 0.002


def test_without_trees_it_is_venn_abers_on_the_scores():
    p, y, seg = _blind(3, 600)
    cal = MulticalibrationCalibrator(max_iter=0, interval="pooled").fit(p, y, segments=seg)
    va = VennAbersCalibrator().fit(logit(p), y)
    assert cal.n_trees_ == [0, 0]
    assert cal.chosen_ in ("identity", "venn_abers")  # no trees: never "boosted"
    assert cal.cv_log_loss_["boosted"] == cal.cv_log_loss_["venn_abers"]
    interval = va.predict_interval(logit(p))
    np.testing.assert_array_equal(
        np.column_stack(cal.tables_.predict_unchecked(cal.decision_function(p, segments=seg))),
        interval,
    )
    if cal.chosen_ == "identity":  # the interval stretched to the score
        interval = np.c_[np.minimum(interval[:, 0], p), np.maximum(interval[:, 1], p)]
    np.testing.assert_array_equal(cal.predict_interval(p, segments=seg), interval)


def test_trees_agree_with_a_walk_node_by_node():
    p, y, seg = _blind(4, 3000)
    cal = MulticalibrationCalibrator(max_iter=15, min_samples_leaf=50).fit(p, y, segments=seg)
    assert cal.trees_.n_trees > 5
    cols = {"group": seg["group"].to_numpy(dtype=str), "age": seg["age"].to_numpy()}
    X = np.column_stack([cal.coding_.encode(cols), logit(p)])[:300]
    np.testing.assert_allclose(
        cal.trees_.decision(X, block=64), tree_walk_naive.decision(cal.trees_, X), atol=1e-12
    )
    f = cal.decision_function(p[:300], segments=seg[:300])
    np.testing.assert_allclose(f, logit(p[:300]) + cal.trees_.decision(X), atol=1e-12)


def test_intervals_contain_the_probability_and_unknown_levels_fall_back_to_other():
    p, y, seg = _blind(5, 3000)
    seg.loc[:4, "group"] = "rare"  # 5 rows: below the 10 a level needs, so merged into other
    cal = MulticalibrationCalibrator().fit(p, y, segments=seg)
    assert "rare" not in cal.coding_.levels[0]
    interval = cal.predict_interval(p, segments=seg)
    q = cal.predict_proba(p, segments=seg)[:, 1]
    assert (interval[:, 0] <= q).all() and (q <= interval[:, 1]).all()
    row = seg.iloc[[10]].copy()
    outs = []
    for level in ("rare", "never-seen", np.nan):
        row["group"] = level
        outs.append(cal.predict_proba(p[[10]], segments=row))
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], outs[2])  # missing: not a kept level either


def test_numerical_buckets_and_missing_values():
    p, y, seg = _blind(6, 2000)
    seg.loc[::7, "age"] = np.nan
    cal = MulticalibrationCalibrator(n_bins=4).fit(p, y, segments=seg)
    edges = cal.coding_.edges[0]
    assert len(edges) == 3
    x = seg["age"].to_numpy()
    share = [np.mean(np.searchsorted(edges, x[~np.isnan(x)], side="right") == k) for k in range(4)]
    assert min(share) > 0.2
    assert np.isfinite(cal.predict_proba(p, segments=seg)).all()


def _fitted():
    p, y, seg = _blind(7, 800)
    return MulticalibrationCalibrator().fit(p, y, segments=seg), p, y, seg


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda c, p, y, s: c.predict_proba(p, segments=s[["age"]]), ValueError, "lacks"),
        (lambda c, p, y, s: c.predict_proba(p[:5], segments=s), ValueError, "800 rows for 5"),
        (lambda c, p, y, s: c.predict_proba(p), TypeError, "needs segments="),
        (lambda c, p, y, s: c.predict_proba(np.r_[np.nan, p[1:]], segments=s), ValueError, "NaN"),
        (lambda c, p, y, s: c.predict_proba(p + 1, segments=s), ValueError, "score_scale"),
        (
            lambda c, p, y, s: c.predict_proba(p, segments=s.assign(age="old")),
            TypeError,
            "not numeric",
        ),
        (
            lambda c, p, y, s: MulticalibrationCalibrator().fit(p, y, segments=s[:10]),
            ValueError,
            "10 rows for 800",
        ),
        (
            lambda c, p, y, s: MulticalibrationCalibrator(categorical=["sex"]).fit(
                p, y, segments=s
            ),
            ValueError,
            r"'categorical' names columns \['sex'\]",
        ),
        (
            lambda c, p, y, s: MulticalibrationCalibrator(n_folds=1).fit(p, y, segments=s),
            ValueError,
            "n_folds",
        ),
        (lambda c, p, y, s: c.predict_proba(p, segments=[1, 2]), TypeError, "DataFrame"),
        (
            lambda c, p, y, s: MulticalibrationCalibrator(n_folds=5).fit(
                p[:4], y[:4], segments=s[:4]
            ),
            ValueError,
            "n_folds=5 is more than the 4 calibration rows",
        ),
    ],
)
def test_bad_input_one_line(call, error, match):
    cal, p, y, seg = _fitted()
    with pytest.raises(error, match=match) as info:
        call(cal, p, y, seg)
    assert "\n" not in str(info.value)


def test_segment_intervals_are_the_hull_of_venn_abers_within_each_level():
    # without trees the corrected score is logit(p), so each level's predictor is a
    # VennAbersCalibrator fitted on that level's rows alone
    p, y, seg = _blind(8, 3000)
    seg.loc[:59, "group"] = "small"  # 60 rows: a kept level, below min_samples_leaf=100
    cal = MulticalibrationCalibrator(max_iter=0).fit(p, y, segments=seg)
    pooled = MulticalibrationCalibrator(max_iter=0, interval="pooled").fit(p, y, segments=seg)
    assert pooled.level_predictors_ is None
    t = logit(p)
    lo, hi = VennAbersCalibrator().fit(t, y).predict_interval(t).T
    age = seg["age"].to_numpy()
    tertile = np.searchsorted(np.quantile(age, [1 / 3, 2 / 3]), age, side="right")
    for levels in (seg["group"].to_numpy(dtype=str), tertile):
        for level in np.unique(levels):
            rows = levels == level
            if rows.sum() < 100:
                continue
            a, b = VennAbersCalibrator().fit(t[rows], y[rows]).predict_interval(t[rows]).T
            lo[rows], hi[rows] = np.minimum(lo[rows], a), np.maximum(hi[rows], b)
    np.testing.assert_allclose(cal.predict_interval(p, segments=seg), np.c_[lo, hi], atol=1e-12)
    np.testing.assert_array_equal(
        cal.predict_proba(p, segments=seg), pooled.predict_proba(p, segments=seg)
    )
    assert [len(k) for k in cal.level_predictors_.levels] == [3, 3]  # a, b, c; tertiles


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_segment_intervals_cover_the_frequency_of_segments_the_trees_left_alone(seed):
    # no trees: the pooled intervals are right on average only; within group "b" the base
    # model is far too low and the pooled interval misses, the segment interval does not
    p, y, seg = _blind(10 + seed, 8000)
    fit, test = slice(0, 4000), slice(4000, None)
    yt, st = y[test], seg[test].reset_index(drop=True)
    b = (st["group"] == "b").to_numpy()
    freq = yt[b].mean()
    se = np.sqrt(freq * (1 - freq) / b.sum())
    for interval, covers in (("pooled", False), ("segments", True)):
        cal = MulticalibrationCalibrator(max_iter=0, interval=interval)
        cal.fit(p[fit], y[fit], segments=seg[fit])
        out = cal.predict_interval(p[test], segments=st)
        q = cal.predict_proba(p[test], segments=st)[:, 1]
        assert (out[:, 0] <= q).all() and (q <= out[:, 1]).all()
        lo, hi = out[b].mean(axis=0)
        assert bool(lo - 2 * se <= freq <= hi + 2 * se) == covers


def _calibrated(seed, n):
    """A base model right in every segment: y ~ Bernoulli(p); the segments are noise."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(int)
    seg = pd.DataFrame(
        {
            "a": rng.choice(list("wxyz"), n),
            "b": rng.choice(list("uvt"), n),
            "x": rng.normal(size=n),
            "age": rng.integers(18, 80, n).astype(float),
        }
    )
    return p, y, seg


def test_small_calibration_sets_cost_no_log_loss_on_a_calibrated_model():
    # 500 calibration rows, 20,000 test rows, five seeds: the held-out check keeps the scores
    # (before it, trees and Venn-Abers cost 0.008 to 0.013 nats here)
    excess, chosen = [], []
    for seed in range(5):
        p, y, seg = _calibrated(seed, 20_500)
        cal = MulticalibrationCalibrator().fit(p[:500], y[:500], segments=seg[:500])
        q = cal.predict_proba(p[500:], segments=seg[500:])[:, 1]
        excess.append(log_loss(y[500:], q) - log_loss(y[500:], p[500:]))
        chosen.append(cal.chosen_)
    assert np.mean(excess) <= 0.002, (excess, chosen)
    assert chosen.count("identity") >= 4


def test_the_check_keeps_the_trees_where_segments_are_off():
    p, y, seg = _blind(20, 10_000)
    fit, test = slice(0, 6000), slice(6000, None)
    cal = MulticalibrationCalibrator().fit(p[fit], y[fit], segments=seg[fit])
    assert cal.chosen_ == "boosted" and sum(cal.n_trees_) > 0
    losses = cal.cv_log_loss_
    assert losses["boosted"] < min(losses["identity"], losses["venn_abers"]) - 0.01
    q = cal.predict_proba(p[test], segments=seg[test])[:, 1]
    va = VennAbersCalibrator().fit(p[fit], y[fit]).predict_proba(p[test])[:, 1]
    assert log_loss(y[test], q) < log_loss(y[test], va) - 0.02


def test_a_model_wrong_on_average_is_not_kept_as_it_is():
    rng = np.random.default_rng(21)
    n = 6000
    p, _, seg = _calibrated(21, n)
    y = (rng.random(n) < expit(0.6 * logit(p) - 0.3)).astype(int)  # overconfident, too high
    cal = MulticalibrationCalibrator().fit(p, y, segments=seg)
    assert cal.chosen_ != "identity"  # the trees also split on the log-odds: either may win
    assert cal.cv_log_loss_["identity"] > cal.cv_log_loss_["venn_abers"] + 0.02
    # without trees, boosting ties with Venn-Abers and the simpler wins
    cal = MulticalibrationCalibrator(max_iter=0).fit(p, y, segments=seg)
    assert cal.chosen_ == "venn_abers"
    assert cal.n_trees_ == [0, 0] and cal.trees_.n_trees == 0
    va = VennAbersCalibrator().fit(logit(p), y)
    np.testing.assert_array_equal(cal.predict_proba(p, segments=seg), va.predict_proba(logit(p)))


@pytest.mark.parametrize("score_scale", ["probability", "logit"])
def test_the_identity_returns_the_scores_inside_their_interval(score_scale):
    p, y, seg = _calibrated(22, 800)
    s = p if score_scale == "probability" else logit(p)
    cal = MulticalibrationCalibrator(score_scale=score_scale).fit(s, y, segments=seg)
    assert cal.chosen_ == "identity" and cal.trees_.n_trees == 0
    q = cal.predict_proba(s, segments=seg)
    np.testing.assert_allclose(q[:, 1], p, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(cal.predict(s, segments=seg), (p > 0.5).astype(int))
    interval = cal.predict_interval(s, segments=seg)
    assert (interval[:, 0] <= q[:, 1]).all() and (q[:, 1] <= interval[:, 1]).all()
    assert set(cal.cv_log_loss_) == {"identity", "venn_abers", "boosted"}


def test_the_choice_is_deterministic_given_random_state():
    p, y, seg = _blind(23, 1500)
    a = MulticalibrationCalibrator(random_state=3).fit(p, y, segments=seg)
    b = MulticalibrationCalibrator(random_state=3).fit(p, y, segments=seg)
    assert a.chosen_ == b.chosen_ and a.cv_log_loss_ == b.cv_log_loss_
    np.testing.assert_array_equal(
        a.predict_proba(p, segments=seg), b.predict_proba(p, segments=seg)
    )


@pytest.mark.parametrize("scale", [1e30, 1e40, 1e300, -1e300, 5e-324])
def test_log_odds_of_any_magnitude_fit_without_warnings(scale):
    """The trees read the base log-odds in float32 (largest 3.4e38): beyond it they see the
    log-odds clipped, the boosting sees them whole, and nothing overflows."""
    rng = np.random.default_rng(0)
    z = rng.normal(0.0, 2.0, 600)
    y = (rng.random(600) < 1 / (1 + np.exp(-z))).astype(int)
    seg = pd.DataFrame({"g": rng.choice(["a", "b"], 600)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", "the scores rank the positive class")
        cal = MulticalibrationCalibrator(score_scale="logit").fit(z * scale, y, segments=seg)
        p = cal.predict_proba(z * scale, segments=seg)[:, 1]
        lo_hi = cal.predict_interval(z * scale, segments=seg)
    assert np.isfinite(p).all() and ((p >= 0) & (p <= 1)).all()
    assert np.isfinite(lo_hi).all() and (lo_hi[:, 0] <= lo_hi[:, 1]).all()
    # the ranking is kept where the scores rank the classes the right way round
    if scale > 0:
        assert np.corrcoef(p, z)[0, 1] > 0.5
