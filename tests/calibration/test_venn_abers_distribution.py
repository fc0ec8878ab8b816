"""VennAbersDistribution: the inductive Venn-Abers predictive distribution of a regressor."""

import numpy as np
import pytest

from tests._reference.venn_abers_distribution_naive import (
    cdf_pairs_naive,
    crps_discrete,
    merged_masses,
)
from venncal import VennAbersDistribution


def _simulation(n, rng):
    """The heteroscedastic design: x ~ U(-2, 2), f = sin(2x) + x, y = f + N(0, 0.2 + 0.3|x|),
    prediction f + N(0, 0.1)."""
    x = rng.uniform(-2, 2, n)
    f = np.sin(2 * x) + x
    y = f + rng.normal(size=n) * (0.2 + 0.3 * np.abs(x))
    return f + rng.normal(0, 0.1, n), y


def _small(seed, n):
    """Rounded values: ties among calibration scores, among labels, and with test scores."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=n), 1)
    y = np.round(s + rng.normal(size=n), 1)
    test = np.r_[np.round(rng.normal(size=12), 1), s[:3], -5.0, 5.0]
    thresholds = np.sort(np.r_[rng.normal(scale=2, size=6), y[:4], y.min() - 1, y.max() + 1])
    return s, y, test, thresholds


def _weights(kind, n, rng):
    if kind == "none":
        return None
    if kind == "integer":
        w = rng.integers(0, 4, size=n).astype(float)
    elif kind == "float":
        w = rng.random(n) * 3
    else:  # wide range: the exact route
        w = rng.random(n) * 10.0 ** rng.integers(-12, 12, size=n)
    w[0] = max(w[0], 1.0)
    return w


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["none", "integer", "float", "wide"])
def test_pairs_equal_the_definition_at_every_threshold(seed, kind):
    rng = np.random.default_rng(100 + seed)
    s, y, test, thresholds = _small(seed, int(rng.integers(2, 30)))
    w = _weights(kind, s.shape[0], rng)
    got = VennAbersDistribution().fit(s, y, sample_weight=w).predict_cdf(test, thresholds)
    want = cdf_pairs_naive(s, y, test, thresholds, sample_weight=w)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_simulation_pairs_equal_the_definition():
    rng = np.random.default_rng(7)
    s, y = _simulation(3000, rng)
    test, _ = _simulation(2000, rng)
    inner = np.sort(rng.choice(y, 12, replace=False))  # thresholds at calibration labels
    thresholds = np.sort(np.r_[inner, np.quantile(y, [0.01, 0.3, 0.5, 0.9, 0.99])])
    got = VennAbersDistribution().fit(s, y).predict_cdf(test, thresholds)
    np.testing.assert_allclose(got, cdf_pairs_naive(s, y, test, thresholds), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_simulation_coverage_and_crps_against_split_conformal(seed):
    rng = np.random.default_rng(seed)
    s, y = _simulation(3000, rng)
    test, truth = _simulation(2000, rng)
    vad = VennAbersDistribution().fit(s, y)
    lo, hi = vad.predict_interval(test, confidence=0.9).T
    assert 0.87 <= np.mean((lo <= truth) & (truth <= hi)) <= 0.95
    # the split conformal predictive system: the CDF of prediction + calibration residuals
    r = np.sort(y - s)
    n = r.shape[0]
    spread = np.sum((2 * np.arange(1, n + 1) - n - 1) * r) / n**2  # E|R - R'| / 2
    scps = np.mean([np.mean(np.abs(t + r - v)) for t, v in zip(test, truth)]) - spread
    assert vad.crps(test, truth).mean() <= 1.01 * scps


@pytest.mark.parametrize("merge", ["square", "log", "mean"])
def test_crps_mean_and_quantiles_follow_the_merged_masses(merge):
    rng = np.random.default_rng(3)
    s, y = _simulation(60, rng)
    test, truth = _simulation(15, rng)
    vad = VennAbersDistribution(merge=merge).fit(s, y)
    z = vad.labels_
    cdf = vad.predict_merged_cdf(test, z)
    masses = merged_masses(cdf)
    assert np.all(masses >= -1e-15)
    np.testing.assert_allclose(masses.sum(axis=1), 1.0, atol=1e-12)
    want = [crps_discrete(z, m, v) for m, v in zip(masses, truth)]
    np.testing.assert_allclose(vad.crps(test, truth), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(vad.predict_mean(test), masses @ z, rtol=1e-12, atol=1e-12)
    q = np.array([0.05, 0.5, 0.95])
    want_q = np.array([[z[np.argmax(row >= level)] for level in q] for row in cdf])
    np.testing.assert_array_equal(vad.predict_quantiles(test, q), want_q)
    np.testing.assert_array_equal(vad.predict_interval(test, confidence=0.9), want_q[:, [0, 2]])


@pytest.mark.parametrize("seed", range(4))
def test_band_properties(seed):
    rng = np.random.default_rng(seed)
    s, y = _simulation(int(rng.integers(5, 200)), rng)
    test = rng.normal(size=40) * 2
    thresholds = np.sort(np.r_[rng.normal(size=30) * 2, y[:5], y.min() - 0.1, y.max()])
    vad = VennAbersDistribution().fit(s, y)
    cdf = vad.predict_cdf(test, thresholds)
    assert np.all((0 <= cdf) & (cdf <= 1))
    assert np.all(cdf[..., 0] <= cdf[..., 1])
    assert np.all(np.diff(cdf, axis=1) >= 0)  # non-decreasing in the threshold
    assert np.all(cdf[:, 0, 0] == 0) and np.all(cdf[:, -1, 1] == 1)
    # a larger prediction never raises the CDF
    order = np.argsort(test)
    assert np.all(np.diff(cdf[order], axis=0) <= 0)
    merged = vad.predict_merged_cdf(test, thresholds)
    assert np.all(np.diff(merged, axis=1) >= 0)
    assert np.all(merged[:, 0] == 0) and np.all(merged[:, -1] == 1)


def test_doubled_weight_equals_duplicated_rows():
    rng = np.random.default_rng(5)
    s, y = _simulation(80, rng)
    test = rng.normal(size=20)
    thresholds = np.sort(y[::7])
    w = np.ones(80)
    w[:10] = 2
    weighted = VennAbersDistribution().fit(s, y, sample_weight=w).predict_cdf(test, thresholds)
    dup = VennAbersDistribution().fit(np.r_[s, s[:10]], np.r_[y, y[:10]])
    np.testing.assert_array_equal(weighted, dup.predict_cdf(test, thresholds))


def test_thresholds_between_labels_share_the_pair_of_the_label_below():
    rng = np.random.default_rng(2)
    s, y = _simulation(50, rng)
    vad = VennAbersDistribution().fit(s, y)
    z = vad.labels_
    mid = (z[:-1] + z[1:]) / 2
    np.testing.assert_array_equal(vad.predict_cdf(s, mid), vad.predict_cdf(s, z[:-1]))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda v: v.fit([0.0, np.nan], [1.0, 2.0]), "NaN"),
        (lambda v: v.fit([0.0, 1.0], [1.0, np.inf]), "'y'"),
        (lambda v: v.fit([0.0, 1.0, 2.0], [1.0, 2.0]), "length|samples|inconsistent"),
        (lambda v: v.fit([0.0, 1.0], [1.0, 2.0], sample_weight=[1.0, -1.0]), "non-negative"),
        (lambda v: v.fit([0.0, 1.0], [1.0, 2.0]).predict_cdf([0.0], [1.0, 0.0]), "sorted"),
        (lambda v: v.fit([0.0, 1.0], [1.0, 2.0]).predict_cdf([0.0], [np.nan]), "NaN"),
        (lambda v: v.fit([0.0, 1.0], [1.0, 2.0]).predict_quantiles([0.0], [0.5, 1.0]), "'q'"),
        (lambda v: v.fit([0.0, 1.0], [1.0, 2.0]).predict_quantiles([0.0], 0.0), "'q'"),
        (lambda v: v.fit([0.0, 1.0], [1.0, 2.0]).predict_interval([0.0], confidence=1.5), "conf"),
        (lambda v: v.fit([0.0, 1.0], [1.0, 2.0]).crps([0.0, 1.0], [1.0]), "length|samples"),
        (lambda v: VennAbersDistribution(merge="max").fit([0.0, 1.0], [1.0, 2.0]), "merge"),
    ],
)
def test_bad_input_gets_one_line_errors(call, match):
    with pytest.raises(ValueError, match=match) as info:
        call(VennAbersDistribution())
    assert "\n" not in str(info.value)


def test_refit_forgets_and_clone_keeps_parameters():
    from sklearn.base import clone

    vad = VennAbersDistribution(merge="log").fit([0.0, 1.0, 2.0], [0.0, 1.0, 2.0])
    vad.fit([5.0, 6.0], [3.0, 4.0])
    np.testing.assert_array_equal(vad.labels_, [3.0, 4.0])
    assert clone(vad).get_params() == {"merge": "log", "group_fallback": "error"}


def test_pit_is_the_randomised_transform_of_the_merged_cdf():
    rng = np.random.default_rng(11)
    s, y = _simulation(80, rng)
    test, truth = _simulation(30, rng)
    truth[:10] = y[:10]  # on calibration labels: the step is randomised
    truth[10] = y.min() - 1.0  # below every label
    truth[11] = y.max() + 1.0
    vad = VennAbersDistribution().fit(s, y)
    pit = vad.predict_pit(test, truth, random_state=0)
    v = np.random.default_rng(0).random(30)
    z = vad.labels_
    for i in range(30):
        at = vad.predict_merged_cdf(test[i : i + 1], [truth[i]])[0, 0]
        j = np.searchsorted(z, truth[i], side="left")  # labels strictly below: z[:j]
        below = 0.0 if j == 0 else vad.predict_merged_cdf(test[i : i + 1], [z[j - 1]])[0, 0]
        assert pit[i] == pytest.approx(below + v[i] * (at - below), abs=1e-15)


def test_pit_is_uniform_on_the_simulation():
    rng = np.random.default_rng(12)
    s, y = _simulation(3000, rng)
    test, truth = _simulation(2000, rng)
    pit = VennAbersDistribution().fit(s, y).predict_pit(test, truth, random_state=1)
    share = np.histogram(pit, bins=5, range=(0, 1))[0] / 2000
    assert np.all(np.abs(share - 0.2) < 0.035), share
