"""HistogramCalibrator: the estimator around venncal.core.histogram."""

import numpy as np
import pytest

from venncal import HistogramCalibrator


def test_bin_frequencies_and_attributes():
    s = np.array([0.0, 0.1, 0.2, 0.8, 0.9, 1.0])
    y = np.array([0, 0, 1, 1, 1, 0])
    cal = HistogramCalibrator(n_bins=2).fit(s, y)
    np.testing.assert_allclose(cal.bin_edges_, [0.0, 0.5, 1.0])
    np.testing.assert_allclose(cal.bin_counts_, [3, 3])
    np.testing.assert_allclose(cal.predict_proba([0.3, 0.7])[:, 1], [1 / 3, 2 / 3])


def test_doubled_weights_equal_duplicated_rows():
    rng = np.random.default_rng(1)
    s = rng.random(50)
    y = (rng.random(50) < s).astype(int)
    for strategy in ("uniform", "quantile"):
        a = HistogramCalibrator(n_bins=4, strategy=strategy).fit(
            s, y, sample_weight=np.full(50, 2.0)
        )
        b = HistogramCalibrator(n_bins=4, strategy=strategy).fit(np.r_[s, s], np.r_[y, y])
        np.testing.assert_allclose(a.predict_proba(s), b.predict_proba(s))


def test_faithful_default_can_give_zero_and_one():
    cal = HistogramCalibrator(n_bins=2).fit([0, 1, 2, 3], [0, 0, 1, 1])
    np.testing.assert_array_equal(cal.predict_proba([0, 3])[:, 1], [0.0, 1.0])
    cal = HistogramCalibrator(n_bins=2, alpha=1.0).fit([0, 1, 2, 3], [0, 0, 1, 1])
    np.testing.assert_allclose(cal.predict_proba([0, 3])[:, 1], [0.25, 0.75])


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_bins": 0}, "'n_bins' parameter"),
        ({"n_bins": 2.5}, "'n_bins' parameter"),
        ({"strategy": "kmeans"}, "'strategy' parameter"),
        ({"alpha": -0.5}, "'alpha' parameter"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        HistogramCalibrator(**params).fit([0.0, 1.0], [0, 1])


def test_a_billion_bins_are_bounded_by_the_data():
    rng = np.random.default_rng(5)
    s = rng.random(200)
    y = (rng.random(200) < s).astype(int)
    cal = HistogramCalibrator(n_bins=10**9).fit(s, y)
    assert cal.bin_edges_.size <= 2 * 200 + 2
    np.testing.assert_array_equal(cal.predict_proba(s)[:, 1], y)
