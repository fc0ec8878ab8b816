"""The interval read from the band (F0, F1) of a Venn-Abers predictive distribution:
``predict_interval(kind="band")`` against the rule written plainly on ``predict_cdf``, and its
coverage on calibration sets too small for the merged distribution's interval."""

import numpy as np
import pytest

from venncal import VennAbersDistribution


def _design(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, n)
    pred = np.sin(2 * x) + x
    return pred + rng.normal(0, 0.1, n), pred + rng.normal(0, 1, n) * (0.2 + 0.3 * np.abs(x))


def _band_by_loops(dist, score, confidence):
    """The rule on the pairs at every cut, one test object at a time."""
    z = dist.labels_
    tail = (1 - confidence) / 2
    thresholds = np.r_[z[0] - 1.0, z]  # below the smallest label, then each label
    cdf = dist.predict_cdf([score], thresholds)[0]
    upper, lower = cdf[:, 1], cdf[:, 0]
    lo = -np.inf
    for c in range(len(z)):  # thresholds[c] is the cut c - 1: P(y < z_c) <= F1 there
        if upper[c] <= tail:
            lo = z[c]
        else:
            break
    hi = np.inf
    for c in range(len(z)):
        if lower[c + 1] >= 1 - tail:  # P(y > z_c) <= 1 - F0(z_c)
            hi = z[c]
            break
    return lo, hi


@pytest.mark.parametrize(("n", "confidence"), [(8, 0.5), (30, 0.8), (60, 0.9), (200, 0.9)])
def test_band_interval_is_the_rule_on_the_pairs(n, confidence):
    pred, y = _design(n, n)
    dist = VennAbersDistribution().fit(pred, y)
    test = np.r_[_design(40, 1000 + n)[0], pred[:5], -50.0, 50.0]
    got = dist.predict_interval(test, confidence=confidence, kind="band")
    want = np.array([_band_by_loops(dist, t, confidence) for t in test])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [5, 10, 20, 40])
def test_band_interval_covers_where_the_merged_one_does_not(n):
    band, merged = [], []
    for seed in range(60):
        pred, y = _design(n, seed)
        test_pred, test_y = _design(300, 10_000 + seed)
        dist = VennAbersDistribution().fit(pred, y)
        for store, kind in ((band, "band"), (merged, "merged")):
            lo, hi = dist.predict_interval(test_pred, kind=kind).T
            store.append(np.mean((test_y >= lo) & (test_y <= hi)))
    # valid at every size (60 x 300 test rows: the mean is known to about 0.01)
    assert np.mean(band) >= 0.88
    if n <= 10:  # the merged interval's tails sit on the extreme labels: it undercovers
        assert np.mean(merged) < 0.85


def test_band_contains_the_merged_interval():
    pred, y = _design(500, 3)
    dist = VennAbersDistribution().fit(pred, y)
    test = _design(200, 4)[0]
    band = dist.predict_interval(test, kind="band")
    merged = dist.predict_interval(test)
    assert (band[:, 0] <= merged[:, 0]).all() and (band[:, 1] >= merged[:, 1]).all()


def test_band_within_groups_is_that_of_each_group_alone():
    pred, y = _design(600, 5)
    groups = np.where(pred > 0, "up", "down")
    dist = VennAbersDistribution().fit(pred, y, groups=groups)
    test = _design(50, 6)[0]
    tg = np.where(test > 0.3, "up", "down")
    got = dist.predict_interval(test, kind="band", groups=tg)
    for g in ("up", "down"):
        alone = VennAbersDistribution().fit(pred[groups == g], y[groups == g])
        want = alone.predict_interval(test[tg == g], kind="band")
        np.testing.assert_array_equal(got[tg == g], want)


def test_unknown_kind_is_one_line():
    pred, y = _design(50, 7)
    dist = VennAbersDistribution().fit(pred, y)
    with pytest.raises(ValueError, match="kind") as info:
        dist.predict_interval(pred, kind="conformal")
    assert "\n" not in str(info.value)
