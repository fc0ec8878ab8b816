"""HistogramCalibrator: the estimator around venncal.core.histogram."""

import warnings

import numpy as np
import pytest

from tests.calibration._bad_input import bad_parameter_test
from venncal import HistogramCalibrator
from venncal.exceptions import VenncalWarning


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


test_bad_parameters = bad_parameter_test(
    HistogramCalibrator,
    [
        ({"n_bins": 0}, "'n_bins' parameter"),
        ({"n_bins": 2.5}, "'n_bins' parameter"),
        ({"strategy": "kmeans"}, "'strategy' parameter"),
        ({"alpha": -0.5}, "'alpha' parameter"),
    ],
)


def test_a_billion_bins_are_bounded_by_the_data():
    rng = np.random.default_rng(5)
    s = rng.random(200)
    y = (rng.random(200) < s).astype(int)
    cal = HistogramCalibrator(n_bins=10**9).fit(s, y)
    assert cal.bin_edges_.size <= 2 * 200 + 2
    np.testing.assert_array_equal(cal.predict_proba(s)[:, 1], y)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_bins", [1, 3, 10, 997, 100_000])
def test_fit_on_the_rows_equals_the_fit_on_their_table(seed, n_bins):
    # unweighted equal-width binning fits on the rows, without their table of distinct scores;
    # fit_aggregate (always through the table) on the same rows must agree bit for bit, and
    # the table built afterwards on demand is the table of the rows
    from venncal.core.counts import count_table

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    s = rng.choice([rng.normal(size=n), np.round(rng.random(n), 1), rng.integers(0, 3, n) * 1.0])
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1][: min(n, 2)]
    alpha = float(rng.choice([0.0, 1.0]))
    with warnings.catch_warnings():
        # labels independent of the scores may rank below them (AUC < 0.5): beside the point
        warnings.simplefilter("ignore", VenncalWarning)
        rows = HistogramCalibrator(n_bins=n_bins, alpha=alpha).fit(s, y)
        table = HistogramCalibrator(n_bins=n_bins, alpha=alpha).fit_aggregate(s, y, np.ones(n))
    assert "aggregate_" not in vars(rows)  # the table was skipped
    for name in ("bin_edges_", "bin_counts_"):
        np.testing.assert_array_equal(getattr(rows, name), getattr(table, name))
    np.testing.assert_array_equal(rows.binning_.values, table.binning_.values)
    test = np.r_[s, rng.normal(size=50)]
    np.testing.assert_array_equal(rows.predict_proba(test), table.predict_proba(test))
    expected = count_table(s, y, None)
    got = rows.aggregate_  # built now, from a copy of the rows
    for field in ("values", "n0", "n1"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    assert got.n_examples == expected.n_examples
    assert rows.aggregate_ is got  # built once


def test_fit_on_the_rows_keeps_partial_fit_and_saving_with_data(tmp_path):
    import venncal

    rng = np.random.default_rng(0)
    s, s2 = rng.random(300), rng.random(200)
    y, y2 = (rng.random(300) < s).astype(int), (rng.random(200) < s2).astype(int)
    kept = s.copy()
    cal = HistogramCalibrator(n_bins=7).fit(s, y)
    s[:] = 0.5  # the caller's array changes after the fit: the table is of the fitted rows
    path = venncal.save(cal, tmp_path / "m.json", with_data=True)
    loaded = venncal.load(path)
    both = HistogramCalibrator(n_bins=7).fit(np.r_[kept, s2], np.r_[y, y2])
    for model in (cal, loaded):
        model.partial_fit(s2, y2)
        np.testing.assert_array_equal(model.predict_proba(kept), both.predict_proba(kept))
    with pytest.raises(AttributeError, match="no attribute 'aggregate_'"):
        HistogramCalibrator().aggregate_  # noqa: B018
