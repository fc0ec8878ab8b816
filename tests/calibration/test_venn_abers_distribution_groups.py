"""VennAbersDistribution within groups: one distribution per group, exactly the one its rows
alone give, and the pooled one for unknown groups when asked."""

import warnings

import numpy as np
import pytest

from venncal import VennAbersDistribution
from venncal.exceptions import VenncalWarning

LEVELS = [0.05, 0.25, 0.5, 0.9]


def _data(seed, n=240, *, weights="none", kind="str"):
    """Three groups of different spread, rounded values (ties), optional weights."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    s = np.round(rng.normal(size=n), 1)
    y = np.round(s + rng.normal(size=n) * (0.3 + g), 1)
    if weights == "integer":
        w = rng.integers(0, 4, n).astype(float)
        w[:3] = 1.0
    elif weights == "float":
        w = rng.random(n) * 3
    else:
        w = None
    labels = np.array(["a", "b", "c"])[g] if kind == "str" else g * 10 - 7
    test = np.r_[np.round(rng.normal(size=40), 1), s[:10], -6.0, 6.0]
    test_g = labels[rng.integers(0, n, test.shape[0])]
    truth = np.round(test + rng.normal(size=test.shape[0]), 1)
    return s, y, w, labels, test, test_g, truth


THRESHOLDS = [-3.0, -0.5, 0.0, 0.1, 0.7, 2.5]


def _outputs(vad, test, truth, groups, t=THRESHOLDS):
    kw = {} if groups is None else {"groups": groups}
    return {
        "cdf": vad.predict_cdf(test, t, **kw),
        "merged": vad.predict_merged_cdf(test, t, **kw),
        "quantiles": vad.predict_quantiles(test, LEVELS, **kw),
        "interval": vad.predict_interval(test, confidence=0.8, **kw),
        "mean": vad.predict_mean(test, **kw),
        "crps": vad.crps(test, truth, **kw),
    }


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", ["none", "integer", "float"])
@pytest.mark.parametrize("merge", ["mean", "log"])
def test_each_group_gets_exactly_the_distribution_of_its_rows_alone(seed, weights, merge):
    s, y, w, g, test, test_g, truth = _data(
        seed, weights=weights, kind="int" if seed % 2 else "str"
    )
    vad = VennAbersDistribution(merge=merge).fit(s, y, sample_weight=w, groups=g)
    assert vad.groups_ == sorted(np.unique(g).tolist()) and vad.pooled_groups_ == []
    got = _outputs(vad, test, truth, test_g)
    for label in vad.groups_:
        mine, rows = g == label, test_g == label
        alone = VennAbersDistribution(merge=merge).fit(
            s[mine], y[mine], sample_weight=None if w is None else w[mine]
        )
        want = _outputs(alone, test[rows], truth[rows], None)
        for key, value in want.items():
            np.testing.assert_array_equal(got[key][rows], value, err_msg=f"{key} of {label}")


def test_one_group_is_the_distribution_without_groups_pit_included():
    s, y, w, _, test, _, truth = _data(3, weights="float")
    plain = VennAbersDistribution().fit(s, y, sample_weight=w)
    grouped = VennAbersDistribution().fit(s, y, sample_weight=w, groups=np.zeros(len(s), int))
    ones = np.zeros(len(test), int)
    want, got = _outputs(plain, test, truth, None), _outputs(grouped, test, truth, ones)
    for key in want:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    np.testing.assert_array_equal(
        grouped.predict_pit(test, truth, groups=ones, random_state=4),
        plain.predict_pit(test, truth, random_state=4),
    )


def test_pit_within_groups_draws_once_per_object_in_order():
    s, y, _, g, test, test_g, truth = _data(5)
    vad = VennAbersDistribution().fit(s, y, groups=g)
    pit = vad.predict_pit(test, truth, groups=test_g, random_state=9)
    v = np.random.default_rng(9).random(len(test))
    for label in vad.groups_:
        rows = np.flatnonzero(test_g == label)
        alone = VennAbersDistribution().fit(s[g == label], y[g == label])
        # the draws of this group's objects are those at their places in the whole sequence:
        # the PIT with V = 1 and V = 0 give the two ends of the step
        ones = alone.predict_pit(test[rows], truth[rows], random_state=_Constant(1.0))
        zero = alone.predict_pit(test[rows], truth[rows], random_state=_Constant(0.0))
        np.testing.assert_allclose(pit[rows], zero + v[rows] * (ones - zero), rtol=0, atol=1e-15)


class _Constant(np.random.Generator):
    """A generator whose uniform draws are all one value."""

    def __init__(self, value):
        super().__init__(np.random.PCG64(0))
        self.value = value

    def random(self, size=None, *args, **kwargs):
        return np.full(size, self.value)


def test_groups_differ_where_the_spread_differs():
    rng = np.random.default_rng(0)
    n = 6000
    g = rng.integers(0, 2, n)
    s = rng.uniform(-2, 2, n)
    y = s + rng.normal(size=n) * np.where(g == 1, 1.0, 0.2)
    cal, test = slice(0, 4000), slice(4000, None)
    grouped = VennAbersDistribution().fit(s[cal], y[cal], groups=g[cal])
    lo, hi = grouped.predict_interval(s[test], groups=g[test]).T
    inside = (lo <= y[test]) & (y[test] <= hi)
    pooled_lo, pooled_hi = VennAbersDistribution().fit(s[cal], y[cal]).predict_interval(s[test]).T
    pooled_inside = (pooled_lo <= y[test]) & (y[test] <= pooled_hi)
    for k in (0, 1):
        assert 0.87 <= inside[g[test] == k].mean() <= 0.93, k
    # pooled, the quiet group is over-covered and the noisy one under-covered
    assert pooled_inside[g[test] == 0].mean() > 0.97
    assert pooled_inside[g[test] == 1].mean() < 0.86


def test_an_unknown_group_is_an_error_by_default():
    s, y, _, g, test, _, _ = _data(1)
    vad = VennAbersDistribution().fit(s, y, groups=g)
    with pytest.raises(ValueError, match=r"groups \['zzz'\] were not seen at fit") as info:
        vad.predict_quantiles(test[:3], 0.5, groups=["a", "zzz", "b"])
    assert "\n" not in str(info.value) and "group_fallback='pooled'" in str(info.value)


def test_an_unknown_group_gets_the_pooled_distribution_with_a_warning():
    s, y, w, g, test, test_g, truth = _data(2, weights="integer")
    vad = VennAbersDistribution(group_fallback="pooled").fit(s, y, sample_weight=w, groups=g)
    pooled = VennAbersDistribution().fit(s, y, sample_weight=w)
    test_g = test_g.astype(object)
    test_g[::4] = "new"
    with pytest.warns(VenncalWarning, match=r"groups \['new'\] were not seen at fit") as record:
        got = _outputs(vad, test, truth, test_g)
    assert all(r.filename == __file__ for r in record)  # said at the user's call
    rows = test_g == "new"
    want = _outputs(pooled, test[rows], truth[rows], None)
    for key, value in want.items():
        np.testing.assert_array_equal(got[key][rows], value, err_msg=key)


def test_a_group_of_weight_zero_is_an_error_or_pooled():
    s, y, w, g, test, _, _ = _data(4, weights="float")
    w[g == "b"] = 0.0
    with pytest.raises(ValueError, match="group 'b' has calibration rows of weight zero") as info:
        VennAbersDistribution().fit(s, y, sample_weight=w, groups=g)
    assert "\n" not in str(info.value)
    with pytest.warns(VenncalWarning, match=r"groups \['b'\] have calibration rows of weight"):
        vad = VennAbersDistribution(group_fallback="pooled").fit(s, y, sample_weight=w, groups=g)
    assert vad.groups_ == ["a", "c"] and vad.pooled_groups_ == ["b"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a group pooled at fit is no surprise at prediction
        got = vad.predict_interval(test, groups=np.full(len(test), "b"))
    pooled = VennAbersDistribution().fit(s, y, sample_weight=w)
    np.testing.assert_array_equal(got, pooled.predict_interval(test))


@pytest.mark.parametrize(
    ("groups", "error", "match"),
    [
        (lambda n: np.arange(n - 1), ValueError, "'groups' has 239 labels for 240 scores"),
        (lambda n: np.zeros((n, 2), int), ValueError, "'groups' must be 1-D"),
        (lambda n: np.linspace(0, 1, n), TypeError, "must hold integers, strings or booleans"),
        (
            lambda n: np.array([1] * (n - 1) + ["a"], object),
            TypeError,
            "'groups' must hold integers or strings",
        ),
    ],
)
def test_bad_groups_at_fit_are_one_line(groups, error, match):
    s, y, *_ = _data(0)
    with pytest.raises(error, match=match) as info:
        VennAbersDistribution().fit(s, y, groups=groups(len(s)))
    assert "\n" not in str(info.value)


def test_groups_at_prediction_must_match_the_fit():
    s, y, _, g, test, test_g, _ = _data(0)
    plain = VennAbersDistribution().fit(s, y)
    grouped = VennAbersDistribution().fit(s, y, groups=g)
    cases = [
        (lambda: plain.predict_interval(test, groups=test_g), "fitted without groups"),
        (lambda: grouped.predict_interval(test), "fitted within groups: pass groups="),
        (lambda: grouped.predict_cdf(test, [0.0], groups=test_g[:-1]), "labels for 52 scores"),
        (lambda: grouped.crps(test, test, groups=np.ones(len(test))), "integers, strings"),
    ]
    for call, match in cases:
        with pytest.raises((ValueError, TypeError), match=match) as info:
            call()
        assert "\n" not in str(info.value)


def test_refit_without_groups_forgets_them_and_empty_input_works():
    s, y, _, g, _, _, _ = _data(0)
    vad = VennAbersDistribution().fit(s, y, groups=g)
    assert vad.predict_quantiles([], [0.5], groups=[]).shape == (0, 1)
    vad.fit(s, y)
    assert vad.groups_ is None and vad.group_tables_ is None and vad.pooled_groups_ is None
    np.testing.assert_array_equal(
        vad.predict_interval(s[:5]), VennAbersDistribution().fit(s, y).predict_interval(s[:5])
    )


def test_bad_group_fallback_is_one_line():
    s, y, _, g, *_ = _data(0)
    with pytest.raises(ValueError, match="'group_fallback' parameter") as info:
        VennAbersDistribution(group_fallback="drop").fit(s, y, groups=g)
    assert "\n" not in str(info.value)
