"""Venn-Abers within groups (a Mondrian taxonomy): per-group predictors, validity in every
group, clear errors, documented fallbacks, model files."""

import warnings

import numpy as np
import pytest

from tests._group_validity import add_group_rows, assert_valid, group_summary
from tests._reference.venn_abers_naive import venn_abers_naive
from venncal import VennAbersCalibrator, VenncalWarning


def _data(rng, n, shift=1.5, minority=0.1):
    """Scores with one link in group 'major' and a shifted one in group 'minor'."""
    g = np.where(rng.random(n) < minority, "minor", "major")
    s = rng.normal(size=n)
    logit = 2 * s - shift * (g == "minor")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return s, y, g


@pytest.mark.parametrize("seed", range(5))
def test_each_group_is_the_definition_on_its_own_examples(seed):
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=90), 1)  # ties
    g = rng.integers(0, 3, size=90)
    y = (rng.random(90) < 1 / (1 + np.exp(-2 * s))).astype(int)
    y[:6] = [0, 1, 0, 1, 0, 1]
    g[:6] = [0, 0, 1, 1, 2, 2]
    cal = VennAbersCalibrator().fit(s, y, groups=g)
    test = np.round(rng.normal(size=25), 1)
    tg = rng.integers(0, 3, size=25)
    got = cal.predict_interval(test, groups=tg)
    for k in range(3):
        rows = tg == k
        ref = venn_abers_naive(s[g == k], y[g == k], test[rows])
        np.testing.assert_allclose(got[rows], np.column_stack(ref), atol=1e-12)
    # the merged probability is the merge of each group's own interval
    p = cal.predict_proba(test, groups=tg)[:, 1]
    np.testing.assert_allclose(p, got[:, 1] / (1 - got[:, 0] + got[:, 1]))


def test_valid_within_every_group_where_pooled_calibration_is_not():
    """Pooled Venn-Abers is valid on average but miscalibrated in the minority group (10% of
    the data, labels shifted); group-wise Venn-Abers is valid in both groups."""
    rng = np.random.default_rng(0)
    reps, n_cal, n_test = 300, 300, 50
    stats = {m: {"major": [], "minor": []} for m in ("pooled", "groups")}
    overall = []
    for _ in range(reps):
        s, y, g = _data(rng, n_cal)
        ts, ty, tg = _data(rng, n_test)
        pooled = VennAbersCalibrator().fit(s, y)
        overall.append((ty.mean(), *pooled.predict_interval(ts).mean(axis=0)))
        grouped = VennAbersCalibrator(group_fallback="pooled")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VenncalWarning)
            grouped.fit(s, y, groups=g)
            intervals = {
                "pooled": pooled.predict_interval(ts),
                "groups": grouped.predict_interval(ts, groups=tg),
            }
        add_group_rows(stats, intervals, ty, tg)
    freq, lo, hi = np.mean(overall, axis=0)
    assert lo - 0.01 <= freq <= hi + 0.01  # the pooled predictor is valid overall ...
    f, lo, hi, se = group_summary(stats["pooled"]["minor"])
    assert lo - f > 0.1  # ... but over-predicts in the minority group, far beyond noise
    for name in ("major", "minor"):
        assert_valid(stats["groups"][name], name)


def test_model_file_keeps_the_groups(tmp_path):
    import venncal

    rng = np.random.default_rng(1)
    s, y, g = _data(rng, 2000, minority=0.3)
    cal = VennAbersCalibrator().fit(s, y, groups=g)
    venncal.save(cal, tmp_path / "m.json")
    loaded = venncal.load(tmp_path / "m.json")
    ts, _, tg = _data(rng, 500, minority=0.3)
    assert np.array_equal(
        loaded.predict_interval(ts, groups=tg), cal.predict_interval(ts, groups=tg)
    )
    assert loaded.groups_ == ["major", "minor"]


def test_fallbacks_are_documented_and_never_silent():
    rng = np.random.default_rng(2)
    s, y, g = _data(rng, 600, minority=0.3)
    g = g.astype("<U5")
    g[:4], y[:4] = "tiny", 0  # a group of one class only
    with pytest.raises(ValueError, match="group 'tiny' has calibration examples of one class"):
        VennAbersCalibrator().fit(s, y, groups=g)
    cal = VennAbersCalibrator(group_fallback="pooled")
    with pytest.warns(VenncalWarning, match=r"groups \['tiny'\] have calibration examples"):
        cal.fit(s, y, groups=g)
    assert cal.pooled_groups_ == ["tiny"] and cal.groups_ == ["major", "minor"]
    pooled = VennAbersCalibrator().fit(s, y)
    # the one-class group uses the pooled predictor (announced at fit: no second warning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = cal.predict_interval([0.3], groups=["tiny"])
    np.testing.assert_array_equal(got, pooled.predict_interval([0.3]))
    with pytest.warns(VenncalWarning, match=r"groups \['new'\] were not seen at fit"):
        got = cal.predict_interval([0.3, 0.3], groups=["new", "major"])
    np.testing.assert_array_equal(got[0], pooled.predict_interval([0.3])[0])
    strict = VennAbersCalibrator().fit(s[4:], y[4:], groups=g[4:])
    with pytest.raises(ValueError, match=r"groups \['new'\] were not seen at fit"):
        strict.predict_interval([0.3], groups=["new"])


@pytest.mark.parametrize(
    "fit_groups, err, match",
    [
        (np.zeros((10, 2)), ValueError, "must be 1-D"),
        (np.zeros(9, dtype=int), ValueError, "9 labels for 10 scores"),
        (np.linspace(0, 1, 10), TypeError, "integers, strings or booleans"),
        (np.array([1, "a"] * 5, dtype=object), TypeError, "of one kind"),
    ],
)
def test_bad_groups(fit_groups, err, match):
    s = np.linspace(-1, 1, 10)
    y = np.array([0, 1] * 5)
    with pytest.raises(err, match=match):
        VennAbersCalibrator().fit(s, y, groups=fit_groups)


def test_groups_must_be_given_at_both_ends():
    s = np.linspace(-1, 1, 10)
    y = np.array([0, 1] * 5)
    plain = VennAbersCalibrator().fit(s, y)
    with pytest.raises(ValueError, match="fitted without groups"):
        plain.predict_interval([0.1], groups=[0])
    grouped = VennAbersCalibrator().fit(s, y, groups=[0, 0, 1, 1] * 2 + [0, 1])
    for call in (grouped.predict_interval, grouped.predict_proba, grouped.predict):
        with pytest.raises(ValueError, match="pass groups="):
            call([0.1])
    with pytest.raises(ValueError, match="partial_fit adds data to the pooled predictor only"):
        grouped.partial_fit([0.2], [1])
    with pytest.raises(ValueError, match="group_fallback"):
        VennAbersCalibrator(group_fallback="nearest").fit(s, y, groups=[0] * 10)


def test_without_groups_nothing_changes():
    rng = np.random.default_rng(3)
    s, y, _ = _data(rng, 500)
    a = VennAbersCalibrator().fit(s, y)
    assert a.groups_ is None and a.group_tables_ is None
    ref = venn_abers_naive(s[:60], y[:60], s[60:90])
    b = VennAbersCalibrator().fit(s[:60], y[:60])
    np.testing.assert_allclose(b.predict_interval(s[60:90]), np.column_stack(ref), atol=1e-12)


def test_length_error_counts_scores():
    """The calibrator's groups label scores, at fit and at prediction."""
    s = np.linspace(-1, 1, 10)
    y = np.array([0, 1] * 5)
    with pytest.raises(ValueError) as info:
        VennAbersCalibrator().fit(s, y, groups=np.zeros(9, dtype=int))
    assert str(info.value) == "'groups' has 9 labels for 10 scores; they must match."
    cal = VennAbersCalibrator().fit(s, y, groups=np.zeros(10, dtype=int))
    with pytest.raises(ValueError) as info:
        cal.predict_interval(s[:3], groups=[0, 0])
    assert str(info.value) == "'groups' has 2 labels for 3 scores; they must match."
