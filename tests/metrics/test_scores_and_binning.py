"""Scores, ECE/MCE, reliability curves and Murphy's decomposition against plain loops."""

import math

import numpy as np
import pytest

from tests._reference import metrics_loops as ref
from venncal import metrics

SEEDS = range(8)


def _data(seed, n=None, grid=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(5, 300))
    p = rng.random(n)
    if grid:  # predictions on a grid of exact bin edges and repeated values
        p = rng.integers(0, grid + 1, n) / grid
    y = (rng.random(n) < p).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return y, p


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grid", [None, 10, 20])
def test_scores_match_loops(seed, grid):
    y, p = _data(seed, grid=grid)
    assert metrics.brier_score(y, p) == pytest.approx(ref.brier(y, p), abs=1e-13)
    assert metrics.rmse(y, p) == pytest.approx(math.sqrt(ref.brier(y, p)), abs=1e-13)
    assert metrics.accuracy(y, p) == pytest.approx(ref.accuracy(y, p), abs=1e-13)
    assert metrics.roc_auc(y, p) == pytest.approx(ref.roc_auc(y, p), abs=1e-13)
    expected = ref.log_loss(y, p)
    got = metrics.log_loss(y, p)
    if math.isinf(expected):
        assert math.isinf(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12)
    assert metrics.brier_score_samples(y, p).mean() == pytest.approx(ref.brier(y, p))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grid", [None, 10, 20, 100])
def test_ece_mce_match_naeini_definition(seed, grid):
    y, p = _data(seed, grid=grid)
    e, m = ref.ece_mce(y, p, 10)
    assert metrics.ece(y, p) == pytest.approx(e, abs=1e-13)
    assert metrics.mce(y, p) == pytest.approx(m, abs=1e-13)


def test_ece_hand_worked():
    # bins [0,.1): {0.05 (y=0)}; [.3,.4): {0.3, 0.35 (y=1, 1)}; [.9,1]: {1.0 (y=1)}
    y = [0, 1, 1, 1]
    p = [0.05, 0.3, 0.35, 1.0]
    # ECE = 1/4 * .05 + 2/4 * |1 - .325| + 1/4 * 0
    assert metrics.ece(y, p) == pytest.approx(0.0125 + 0.3375)
    assert metrics.mce(y, p) == pytest.approx(0.675)


def test_bin_edges_are_exact_decimals():
    """0.3 belongs to [.3, .4) and 1.0 to the last bin, as in Naeini et al."""
    curve = metrics.reliability_curve([1, 0, 1, 0], [0.3, 0.1, 1.0, 0.0])
    assert curve.counts.tolist() == [1, 1, 0, 1, 0, 0, 0, 0, 0, 1]
    assert np.isnan(curve.observed[2]) and np.isnan(curve.predicted[2])


def test_reliability_curve_keeps_empty_bins_and_sums():
    y, p = _data(3, n=50)
    curve = metrics.reliability_curve(y, p * 0.5, n_bins=10)
    assert curve.counts.shape == (10,)
    assert (curve.counts[5:] == 0).all() and np.isnan(curve.observed[5:]).all()
    assert curve.counts.sum() == 50 and curve.positives.sum() == y.sum()
    assert curve.weights.sum() == pytest.approx(1.0)


def test_quantile_bins_hold_equal_mass():
    rng = np.random.default_rng(0)
    p = rng.random(1000)
    y = rng.random(1000) < p
    curve = metrics.reliability_curve(y, p, n_bins=10, strategy="quantile")
    assert (curve.counts == 100).all()
    # ECE over quantile bins matches a loop with those edges
    edges = curve.bin_edges
    idx = np.clip(np.searchsorted(edges[1:-1], p, side="right"), 0, 9)
    e = sum((idx == b).mean() * abs(y[idx == b].mean() - p[idx == b].mean()) for b in range(10))
    assert metrics.ece(y, p, strategy="quantile") == pytest.approx(e)


def test_quantile_bins_with_ties_stay_together():
    p = np.r_[np.full(60, 0.2), np.linspace(0.3, 0.9, 40)]
    y = np.arange(100) % 2
    curve = metrics.reliability_curve(y, p, n_bins=10, strategy="quantile")
    assert curve.counts.sum() == 100
    # all 60 tied predictions fall in one bin
    assert curve.counts.max() >= 60


@pytest.mark.parametrize("seed", SEEDS)
def test_confidence_interval_is_clopper_pearson(seed):
    from scipy.stats import binomtest

    y, p = _data(seed, n=80)
    curve = metrics.reliability_curve(y, p, n_bins=5)
    lo, hi = curve.confidence_interval(0.9)
    for b in range(5):
        n, k = int(curve.counts[b]), int(curve.positives[b])
        if n == 0:
            assert np.isnan(lo[b]) and np.isnan(hi[b])
            continue
        ci = binomtest(k, n).proportion_ci(0.9, method="exact")
        assert lo[b] == pytest.approx(ci.low, abs=1e-9)
        assert hi[b] == pytest.approx(ci.high, abs=1e-9)
        assert lo[b] <= curve.observed[b] <= hi[b]


@pytest.mark.parametrize("seed", SEEDS)
def test_murphy_terms_match_loop(seed):
    y, p = _data(seed)
    d = metrics.brier_decomposition(y, p, n_bins=100)
    rel, res, unc = ref.murphy(y, p, 100)
    assert d.reliability == pytest.approx(rel, abs=1e-13)
    assert d.resolution == pytest.approx(res, abs=1e-13)
    assert d.uncertainty == pytest.approx(unc, abs=1e-13)
    full = d.reliability - d.resolution + d.uncertainty
    full += d.within_bin_variance - 2 * d.within_bin_covariance
    assert full == pytest.approx(d.brier, abs=1e-13)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [10, 100])
def test_murphy_identity_exact_with_at_most_k_values(seed, k):
    """With predictions constant within bins, Brier = REL - RES + UNC (eq. 13 of 002)."""
    rng = np.random.default_rng(seed)
    values = (rng.permutation(k)[: min(k, 7)] + rng.random()) / k  # one value per bin
    p = rng.choice(values, 400)
    y = rng.random(400) < p
    d = metrics.brier_decomposition(y, p, n_bins=k)
    assert d.reliability - d.resolution + d.uncertainty == pytest.approx(d.brier, abs=1e-12)
    assert d.within_bin_variance == pytest.approx(0, abs=1e-15)


def test_murphy_hand_worked():
    # bin .2: n=2, phi=.5; bin .7: n=3, phi=2/3; ybar = .6
    d = metrics.brier_decomposition([0, 1, 1, 0, 1], [0.2, 0.2, 0.7, 0.7, 0.7])
    assert d.reliability == pytest.approx((2 * 0.3**2 + 3 * (0.7 - 2 / 3) ** 2) / 5)
    assert d.resolution == pytest.approx((2 * 0.1**2 + 3 * (2 / 3 - 0.6) ** 2) / 5)
    assert d.uncertainty == pytest.approx(0.24)


@pytest.mark.parametrize("seed", SEEDS)
def test_debiased_ece_is_unbiased_on_calibrated_predictions(seed):
    rng = np.random.default_rng(seed)
    naive, debiased = [], []
    for _ in range(100):
        p = rng.random(300)
        y = rng.random(300) < p
        naive.append(metrics.ece(y, p, n_bins=20) ** 2)
        debiased.append(metrics.debiased_ece(y, p, n_bins=20, squared=True))
    # the binned error of calibrated predictions is (almost) zero; the standard error of the
    # mean over 100 trials is about 4e-4, while the plug-in is biased up by about 6.5e-3
    assert abs(np.mean(debiased)) < 1.6e-3
    assert np.mean(naive) > 5e-3


def test_debiased_ece_matches_formula():
    y = np.array([0, 1, 1, 0, 1, 1])
    p = np.array([0.1, 0.15, 0.6, 0.65, 0.7, 0.95])
    # bins (n=2): [0,.5): o=.5, e=.125, n=2; [.5,1]: o=.75, e=.725, n=4
    est = (2 / 6) * ((0.5 - 0.125) ** 2 - 0.25 / 1) + (4 / 6) * (
        (0.75 - 0.725) ** 2 - 0.75 * 0.25 / 3
    )
    got = metrics.debiased_ece(y, p, n_bins=2, squared=True)
    assert got == pytest.approx(est)
    assert metrics.debiased_ece(y, p, n_bins=2) == pytest.approx(math.sqrt(max(est, 0)))


@pytest.mark.parametrize("seed", SEEDS)
def test_sample_weight_equals_repetition(seed):
    rng = np.random.default_rng(seed)
    y, p = _data(seed, n=60)
    w = rng.integers(0, 4, 60)
    w[0] = 1
    yr, pr = np.repeat(y, w), np.repeat(p, w)
    for name in ("brier_score", "accuracy", "roc_auc", "log_loss", "ece", "mce"):
        f = getattr(metrics, name)
        assert f(y, p, sample_weight=w) == pytest.approx(f(yr, pr), abs=1e-12), name
    for strategy in ("uniform", "quantile"):
        a = metrics.reliability_curve(y, p, strategy=strategy, sample_weight=w)
        b = metrics.reliability_curve(yr, pr, strategy=strategy)
        np.testing.assert_allclose(a.bin_edges, b.bin_edges)
        np.testing.assert_allclose(a.counts, b.counts)
    a = metrics.brier_decomposition(y, p, sample_weight=w)
    b = metrics.brier_decomposition(yr, pr)
    assert a.reliability == pytest.approx(b.reliability, abs=1e-12)
    assert a.resolution == pytest.approx(b.resolution, abs=1e-12)


def test_log_loss_infinite_and_clip():
    assert metrics.log_loss([1, 0], [0.0, 0.0]) == math.inf
    assert metrics.log_loss([0, 1], [0.0, 1.0]) == 0.0
    clipped = metrics.log_loss([1], [0.0], clip=1e-6)
    assert clipped == pytest.approx(-math.log(1e-6))
    assert metrics.log_loss([1, 0], [0.5, 0.5]) == pytest.approx(math.log(2))
    # a zero-weight sample does not make the loss infinite
    assert math.isfinite(metrics.log_loss([1, 0], [0.0, 0.2], sample_weight=[0, 1]))


def test_accuracy_threshold_tie_goes_to_zero():
    assert metrics.accuracy([0, 1], [0.5, 0.5]) == 0.5
    assert metrics.accuracy([0], [0.5]) == 1.0
    assert metrics.accuracy([1, 1], [0.3, 0.2], threshold=0.25) == 0.5


def test_two_column_probabilities_accepted():
    y = [0, 1, 1]
    p = np.array([0.2, 0.7, 0.9])
    p2 = np.column_stack([1 - p, p])
    for name in ("brier_score", "log_loss", "ece", "roc_auc", "accuracy"):
        f = getattr(metrics, name)
        assert f(y, p2) == pytest.approx(f(y, p))


def test_roc_auc_invariant_to_monotone_transform_and_relabelling():
    y, p = _data(4, n=200)
    assert metrics.roc_auc(y, p**2) == pytest.approx(metrics.roc_auc(y, p))
    assert metrics.roc_auc(1 - y, 1 - p) == pytest.approx(metrics.roc_auc(y, p))
    assert metrics.brier_score(1 - y, 1 - p) == pytest.approx(metrics.brier_score(y, p))
    assert metrics.ece(1 - y, 1 - p, n_bins=1) == pytest.approx(metrics.ece(y, p, n_bins=1))


@pytest.mark.parametrize("seed", SEEDS)
def test_murphy_exact_over_distinct_values(seed):
    """n_bins=None bins by distinct prediction: REL - RES + UNC = Brier for any K values."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 30))
    values = rng.random(k)  # anywhere in [0, 1], several may share a fixed-width bin
    p = rng.choice(values, 300)
    y = rng.random(300) < p
    w = rng.integers(1, 4, 300)
    d = metrics.brier_decomposition(y, p, n_bins=None, sample_weight=w)
    assert d.n_bins == np.unique(p).size
    assert d.reliability - d.resolution + d.uncertainty == pytest.approx(d.brier, abs=1e-12)
    rel, res, unc = ref.murphy_distinct(list(np.repeat(y, w)), list(np.repeat(p, w)))
    assert d.reliability == pytest.approx(rel, abs=1e-12)
    assert d.resolution == pytest.approx(res, abs=1e-12)
