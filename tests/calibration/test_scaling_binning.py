"""The scaling-binning calibrator against the paper's steps, its split, weights and API."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import venncal
from tests._reference.scaling_binning_naive import scaling_binning as naive_scaling_binning
from tests.calibration.sklearn_checks import score_calibrator_xfails
from venncal.calibration import ScalingBinningCalibrator
from venncal.core.scaling_binning import equal_mass_edges, split_by_score


def _data(seed, n=200, slope=2.0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-slope * s + 0.3))).astype(int)
    return s, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n, fraction, n_bins", [(200, 0.5, 10), (200, 0.3, 7), (120, 0.75, 5)])
def test_equals_the_papers_steps(seed, n, fraction, n_bins):
    s, y = _data(seed, n)
    n_first = int(np.floor(fraction * n + 0.5))
    expected = naive_scaling_binning(s, y, n_bins, fraction)
    cal = ScalingBinningCalibrator(n_bins=n_bins, scaling_fraction=fraction).fit(s, y)
    t = np.random.default_rng(seed + 100).normal(size=500) * 1.5
    np.testing.assert_allclose(cal.predict_proba(t)[:, 1], expected(t), atol=1e-6)
    assert cal.binning_.values.shape == (n_bins,)
    np.testing.assert_allclose(cal.binning_.counts, (n - n_first) / n_bins)


@pytest.mark.parametrize("seed", range(5))
def test_integer_weights_equal_adjacent_copies(seed):
    rng = np.random.default_rng(seed)
    s, y = _data(seed, 80)
    w = rng.integers(0, 4, s.size)
    w[:2] = [1, 2]
    rows = np.random.default_rng(seed + 1).permutation(np.repeat(np.arange(s.size), w))
    for smoothing in (True, False):
        cal = ScalingBinningCalibrator(n_bins=6, scaling_fraction=0.4, smoothing=smoothing)
        a = clone(cal).fit(s, y, sample_weight=w)
        b = clone(cal).fit(s[rows], y[rows])
        t = np.r_[s, rng.normal(size=200)]
        np.testing.assert_allclose(a.predict_proba(t), b.predict_proba(t), atol=1e-7)
        np.testing.assert_allclose(a.binning_.edges, b.binning_.edges, atol=1e-9)
        np.testing.assert_allclose(a.binning_.counts, b.binning_.counts, rtol=1e-12)


def test_order_of_rows_and_scaled_weights_without_smoothing_change_nothing():
    s, y = _data(3, 100)
    w = np.random.default_rng(3).uniform(0.2, 3.0, s.size)
    cal = ScalingBinningCalibrator(smoothing=False)
    a = clone(cal).fit(s, y, sample_weight=w).predict_proba(s)
    for factor in (1e-200, 1e200):
        b = clone(cal).fit(s, y, sample_weight=w * factor).predict_proba(s)
        np.testing.assert_allclose(a, b, atol=1e-9)
    perm = np.random.default_rng(4).permutation(s.size)
    b = clone(cal).fit(s[perm], y[perm], sample_weight=w[perm]).predict_proba(s)
    np.testing.assert_allclose(a, b, atol=1e-9)


def test_split_by_score():
    rng = np.random.default_rng(0)
    for fraction in (0.5, 0.3, 0.8):
        s = np.round(rng.normal(size=60), 1)  # ties
        w = rng.integers(0, 3, s.size).astype(float)
        first, second = split_by_score(s, w, fraction)
        np.testing.assert_array_equal(first + second, w)
        assert not ((first > 0) & (second > 0)).any()  # each row whole in one part
        u = np.unique(s[w > 0])
        in_first = np.unique(s[first > 0])
        assert np.unique(s[second > 0]).size + in_first.size == u.size  # a score in one part
        # the first part holds round(j * fraction) of the first j distinct scores
        dealt = np.cumsum(np.isin(u, in_first))
        np.testing.assert_array_equal(dealt, np.floor(np.arange(1, u.size + 1) * fraction + 0.5))
    # one distinct score: both parts take everything
    first, second = split_by_score(np.zeros(4), np.ones(4), 0.5)
    np.testing.assert_array_equal(first, np.ones(4))
    np.testing.assert_array_equal(second, np.ones(4))


def test_equal_mass_edges():
    v = np.arange(1, 13) / 13.0
    edges = equal_mass_edges(v, np.ones(12), 4)
    assert edges[0] == 0.0 and edges[-1] == 1.0
    counts = np.bincount(np.searchsorted(edges[1:-1], v, side="right"))
    np.testing.assert_array_equal(counts, [3, 3, 3, 3])
    # more bins than values: one bin per value
    assert equal_mass_edges(np.array([0.2, 0.7]), np.ones(2), 10).size == 3
    # one value: one bin
    np.testing.assert_array_equal(equal_mass_edges(np.full(5, 0.3), np.ones(5), 4), [0.0, 1.0])


def test_outputs_follow_the_sigmoid():
    s, y = _data(0, 4000)
    cal = ScalingBinningCalibrator(n_bins=8).fit(s, y)
    t = np.linspace(-6, 6, 1001)
    p = cal.predict_proba(t)[:, 1]
    assert np.unique(p).size <= 8
    assert (np.diff(p) >= 0).all()  # an increasing sigmoid gives increasing steps
    g = cal.sigmoid_.predict(t)
    # each bin's value is the mean of the sigmoid there: inside the bin's range of g
    idx = np.searchsorted(cal.binning_.edges[1:-1], g, side="right")
    assert (cal.binning_.values >= cal.binning_.edges[:-1]).all()
    assert (cal.binning_.values <= cal.binning_.edges[1:]).all()
    np.testing.assert_array_equal(p, cal.binning_.values[idx])


def test_calibrated_where_the_sigmoid_is_right():
    # the score's sigmoid is the truth: every output value is close to the mean of the true
    # probability over the objects that get it (measured with the true probabilities)
    rng = np.random.default_rng(5)
    s = rng.normal(size=20_000)
    y = (rng.random(s.size) < 1 / (1 + np.exp(-2 * s))).astype(int)
    cal = ScalingBinningCalibrator(n_bins=10).fit(s, y)
    t = rng.normal(size=200_000)
    truth = 1 / (1 + np.exp(-2 * t))
    p = cal.predict_proba(t)[:, 1]
    for v in np.unique(p):
        assert abs(truth[p == v].mean() - v) < 0.02


def test_sorted_rows_are_split_along_the_score():
    # rows sorted by label: the split alternates along the score, both parts hold both classes
    s, y = _data(1, 300)
    order = np.argsort(y, kind="stable")
    a = ScalingBinningCalibrator().fit(s, y)
    b = ScalingBinningCalibrator().fit(s[order], y[order])
    np.testing.assert_allclose(a.predict_proba(s), b.predict_proba(s), atol=1e-9)
    assert a.sigmoid_.a < 0


def test_one_distinct_score_gives_a_constant():
    s = np.zeros(40)
    y = np.r_[np.zeros(10), np.ones(30)].astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = ScalingBinningCalibrator().fit(s, y)
    p = cal.predict_proba([-1.0, 0.0, 5.0])[:, 1]
    assert np.unique(p).size == 1 and 0.5 < p[0] < 0.9


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"n_bins": 0}, ValueError, "'n_bins' parameter of ScalingBinningCalibrator"),
        ({"scaling_fraction": 1.0}, ValueError, "'scaling_fraction' parameter of Scaling"),
        ({"scaling_fraction": "half"}, ValueError, "'scaling_fraction' parameter of Scaling"),
        ({"smoothing": 1}, TypeError, "'smoothing' parameter of ScalingBinningCalibrator"),
        ({"max_iter": 0}, ValueError, "'max_iter' parameter of ScalingBinningCalibrator"),
    ],
)
def test_bad_parameters(params, error, match):
    s, y = _data(0, 50)
    with pytest.raises(error, match=match):
        ScalingBinningCalibrator(**params).fit(s, y)


def test_top_level_name_and_model_file(tmp_path):
    s, y = _data(2, 300)
    w = np.random.default_rng(2).uniform(0.5, 2.0, s.size)
    cal = venncal.ScalingBinningCalibrator(n_bins=5, scaling_fraction=0.4)
    cal.fit(s, y, sample_weight=w)
    path = venncal.save(cal, tmp_path / "sb.json")
    back = venncal.load(path)
    assert type(back) is ScalingBinningCalibrator
    assert back.get_params() == cal.get_params()
    t = np.linspace(-4, 4, 101)
    np.testing.assert_array_equal(back.predict_proba(t), cal.predict_proba(t))


def test_an_edited_model_file_is_refused(tmp_path):
    import json

    from venncal.persistence._model_file import ModelFileError, checksum

    s, y = _data(2, 300)
    path = venncal.save(ScalingBinningCalibrator(n_bins=4).fit(s, y), tmp_path / "sb.json")
    doc = json.loads(path.read_text())
    fields = doc["fitted"]["binning_"]["dataclass"]["fields"]
    values = fields["values"]["array"]["data"]
    # a bin's value moved outside its bin of the sigmoid's values
    values[0], values[-1] = values[-1], values[0]
    doc = {k: v for k, v in doc.items() if k != "sha256"}
    doc["sha256"] = checksum(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match="inside its bin"):
        venncal.load(path)
    # and edges that are no sigmoid values
    doc = json.loads(path.read_text())
    doc["fitted"]["binning_"]["dataclass"]["fields"]["edges"]["array"]["data"][-1] = 2.0
    doc = {k: v for k, v in doc.items() if k != "sha256"}
    doc["sha256"] = checksum(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match="from 0 to 1"):
        venncal.load(path)


ESTIMATORS = [
    ScalingBinningCalibrator(),
    ScalingBinningCalibrator(n_bins=3, scaling_fraction=0.3),
]


# the shared list holds the checks that cannot run on any one-column score calibrator
# (tests/calibration/sklearn_checks.py); this calibrator adds no failure of its own
@parametrize_with_checks(
    [clone(c) for c in ESTIMATORS], expected_failed_checks=score_calibrator_xfails
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
