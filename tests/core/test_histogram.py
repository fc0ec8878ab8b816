"""Histogram binning against a per-bin loop."""

import numpy as np
import pytest

from venncal.core.histogram import fit_histogram, histogram_edges


def _loop_reference(s, y, w, edges, alpha):
    k = len(edges) - 1
    n = np.zeros(k)
    n1 = np.zeros(k)
    for si, yi, wi in zip(s, y, w):
        for b in range(k):
            last = b == k - 1
            if (
                (edges[b] <= si < edges[b + 1])
                or (last and si >= edges[b])
                or (b == 0 and si < edges[0])
            ):
                n[b] += wi
                n1[b] += wi * yi
                break
    overall = n1.sum() / n.sum()
    return np.array(
        [(n1[b] + alpha) / (n[b] + 2 * alpha) if n[b] > 0 else overall for b in range(k)]
    )


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_matches_loop(seed, strategy):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 200))
    s = np.round(rng.normal(size=n), int(rng.integers(0, 3)))
    y = (rng.random(n) < 0.4).astype(int)
    w = rng.uniform(0.1, 2, n)
    alpha = float(rng.choice([0.0, 1.0]))
    n_bins = int(rng.integers(1, 15))
    fit = fit_histogram(s, y, w, n_bins=n_bins, strategy=strategy, alpha=alpha)
    # a weight of k is k examples, and the pseudo-count alpha is a number of examples
    np.testing.assert_allclose(fit.values, _loop_reference(s, y, w, fit.edges, alpha))
    assert fit.counts.sum() == pytest.approx(w.sum())


def test_uniform_edges_and_empty_bins():
    s = np.array([0.0, 0.05, 0.95, 1.0])
    y = np.array([0, 1, 1, 1])
    fit = fit_histogram(s, y, n_bins=10)
    np.testing.assert_allclose(fit.edges, np.linspace(0, 1, 11))
    assert fit.values[0] == 0.5 and fit.values[-1] == 1.0
    np.testing.assert_allclose(fit.values[1:-1], 0.75)  # empty bins: overall rate
    np.testing.assert_array_equal(fit.counts, [2, 0, 0, 0, 0, 0, 0, 0, 0, 2])


def test_quantile_bins_hold_equal_counts():
    rng = np.random.default_rng(0)
    s = rng.random(1000)
    fit = fit_histogram(s, (s > 0.5).astype(int), n_bins=10, strategy="quantile")
    np.testing.assert_allclose(fit.counts, 100, atol=1)


def test_quantile_edges_match_numpy_inverted_cdf():
    rng = np.random.default_rng(1)
    s = rng.normal(size=97)
    edges = histogram_edges(s, 7, "quantile")
    ref = np.quantile(s, np.arange(1, 7) / 7, method="inverted_cdf")
    np.testing.assert_allclose(edges[1:-1], ref)


def test_weights_equal_repeated_rows():
    rng = np.random.default_rng(2)
    s = rng.normal(size=80)
    y = (rng.random(80) < 0.5).astype(int)
    w = rng.integers(0, 4, 80)
    w[0] = 1
    for strategy in ("uniform", "quantile"):
        a = fit_histogram(s, y, w.astype(float), n_bins=6, strategy=strategy)
        b = fit_histogram(np.repeat(s, w), np.repeat(y, w), n_bins=6, strategy=strategy)
        t = np.linspace(-3, 3, 101)
        np.testing.assert_allclose(a.predict(t), b.predict(t))


def test_faithful_default_reaches_zero_and_one_smoothing_does_not():
    s = np.arange(10.0)
    y = (s >= 5).astype(int)
    p = fit_histogram(s, y, n_bins=2).predict(s)
    assert p.min() == 0.0 and p.max() == 1.0
    q = fit_histogram(s, y, n_bins=2, alpha=1.0).predict(s)
    assert q.min() > 0 and q.max() < 1


def test_constant_scores_give_one_bin():
    fit = fit_histogram([2.0, 2.0, 2.0], [0, 1, 1], n_bins=5)
    assert fit.values.shape == (1,)
    assert fit.predict([-1.0, 2.0, 9.0]).tolist() == [2 / 3] * 3


def test_out_of_range_scores_use_end_bins():
    fit = fit_histogram([0.0, 1.0, 2.0, 3.0], [0, 0, 1, 1], n_bins=2)
    np.testing.assert_array_equal(fit.predict([-10.0, 10.0]), [0.0, 1.0])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_bins": 0}, "n_bins"),
        ({"strategy": "kmeans"}, "strategy"),
        ({"alpha": -1.0}, "alpha"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_histogram([0.0, 1.0], [0, 1], **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="only 0 and 1"):
        fit_histogram([0.0, 1.0], [0, 3])
    with pytest.raises(ValueError, match="infinite"):
        fit_histogram([0.0, np.inf], [0, 1])


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("seed", range(4))
def test_many_bins_bounded_by_the_data_predict_like_every_bin(monkeypatch, strategy, seed):
    import venncal.core.histogram as hist

    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=60), int(rng.integers(0, 3)))
    y = (rng.random(60) < 0.4).astype(int)
    w = rng.uniform(0.1, 2, 60)
    t = np.r_[np.linspace(-4, 4, 2001), s, np.nextafter(s, -np.inf), np.nextafter(s, np.inf)]
    n_bins = int(rng.integers(61, 3000))
    every = fit_histogram(s, y, w, n_bins=n_bins, strategy=strategy, alpha=1.0)
    monkeypatch.setattr(hist, "_DENSE_BINS", 1)  # the data-bounded route from n_bins > 60
    bounded = fit_histogram(s, y, w, n_bins=n_bins, strategy=strategy, alpha=1.0)
    assert bounded.edges.size <= 2 * 60 + 2
    # the same bins; the overall rate of empty bins is summed in another order
    np.testing.assert_allclose(bounded.predict(t), every.predict(t), rtol=1e-14)
    assert bounded.counts.sum() == pytest.approx(w.sum())


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_a_trillion_bins_cost_what_the_data_costs(strategy):
    rng = np.random.default_rng(0)
    s = rng.random(100)
    y = (rng.random(100) < s).astype(int)
    fit = fit_histogram(s, y, n_bins=10**12, strategy=strategy)
    assert fit.edges.size <= 2 * 100 + 2
    # every score in its own bin: the fit is the label
    np.testing.assert_array_equal(fit.predict(s), y)


def test_score_range_wider_than_the_largest_float():
    s = np.array([-1e308, -5e307, 0.0, 5e307, 1e308])
    y = np.array([0, 0, 1, 1, 1])
    fit = fit_histogram(s, y, n_bins=4)
    assert np.all(np.isfinite(fit.edges)) and np.all(np.diff(fit.edges) > 0)
    np.testing.assert_allclose(fit.edges, [-1e308, -5e307, 0.0, 5e307, 1e308])
    np.testing.assert_array_equal(fit.predict(s), [0.0, 0.0, 1.0, 1.0, 1.0])


@pytest.mark.parametrize("alpha", [0.0, 1.0])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1.7e308])
def test_weights_of_any_magnitude(alpha, strategy, scale):
    # weights times c with alpha examples are the unit-scale weights with alpha / c examples;
    # without smoothing only the ratios of the weights matter
    rng = np.random.default_rng(3)
    s = rng.normal(size=80)
    y = (rng.random(80) < 0.5).astype(int)
    w = rng.uniform(0.1, 1.0, 80)
    scaled = fit_histogram(s, y, w * scale, n_bins=7, strategy=strategy, alpha=alpha)
    base = fit_histogram(s, y, w, n_bins=7, strategy=strategy)
    np.testing.assert_array_equal(scaled.edges, base.edges)
    expected = _loop_reference(s, y, w, base.edges, alpha / scale)
    np.testing.assert_allclose(scaled.values, expected, rtol=1e-12)
