"""Grouping loss: the ANOVA kernel against a loop, unbiasedness, and the lower bound."""

import numpy as np
import pytest

from venncal.diagnostics import GroupingLoss, grouping_loss
from venncal.diagnostics._grouping_loss import _between_region_gain


def _loop_gain(y, bins, regions, n_bins):
    """Definition: per bin, drop regions with one sample, then the between-region sum of
    squares minus (1 - n_r / n) * n_r ybar_r (1 - ybar_r) / (n_r - 1)."""
    plugin, debiased = [0.0] * n_bins, [0.0] * n_bins
    for b in range(n_bins):
        groups = {}
        for yi, bi, ri in zip(y, bins, regions, strict=True):
            if bi == b:
                groups.setdefault(ri, []).append(yi)
        groups = {r: v for r, v in groups.items() if len(v) >= 2}
        n = sum(len(v) for v in groups.values())
        if n == 0:
            continue
        mean = sum(sum(v) for v in groups.values()) / n
        for v in groups.values():
            m = sum(v) / len(v)
            plugin[b] += len(v) * (m - mean) ** 2
            s2 = len(v) * m * (1 - m) / (len(v) - 1)
            debiased[b] += len(v) * (m - mean) ** 2 - (1 - len(v) / n) * s2
    return plugin, debiased


@pytest.mark.parametrize("seed", range(10))
def test_gain_matches_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 120))
    y = (rng.random(n) < 0.4).astype(float)
    bins = rng.integers(0, 4, n)
    regions = rng.integers(0, 5, n)
    plug, deb, _ = _between_region_gain(y, bins, regions, 4)
    ref_plug, ref_deb = _loop_gain(y, bins, regions, 4)
    np.testing.assert_allclose(plug, ref_plug, atol=1e-12)
    np.testing.assert_allclose(deb, ref_deb, atol=1e-12)


def test_gain_is_unbiased_for_fixed_regions():
    """With regions of known positive rates, the debiased gain averages to the truth."""
    rng = np.random.default_rng(0)
    mu = np.array([0.1, 0.3, 0.35, 0.8])
    sizes = np.array([7, 12, 5, 9])
    regions = np.repeat(np.arange(4), sizes)
    bins = np.zeros(regions.size, dtype=int)
    w = sizes / sizes.sum()
    truth = (w * (mu - (w * mu).sum()) ** 2).sum()
    est, plug = [], []
    for _ in range(20_000):
        y = (rng.random(regions.size) < mu[regions]).astype(float)
        p, d, c = _between_region_gain(y, bins, regions, 1)
        est.append(d[0] / c[0])
        plug.append(p[0] / c[0])
    assert np.mean(est) == pytest.approx(truth, abs=3 * np.std(est) / np.sqrt(len(est)) + 1e-4)
    assert np.mean(plug) > truth + 0.01


def _tasche(n, seed):
    from venncal.datasets import make_bivariate_normal

    ds = make_bivariate_normal(n, random_state=seed)
    model = ds.meta["model"]
    return ds.X, ds.y, model.posterior(ds.X), model.partial_posterior(ds.X)


@pytest.mark.parametrize("seed", range(3))
def test_lower_bound_on_tasche_example(seed):
    """The partial posterior (first feature only) is calibrated but has grouping loss
    E[(Q - S)^2]; the estimate is positive and does not exceed it by more than noise."""
    X, y, q, s = _tasche(4000, seed)
    truth = np.mean((q - s) ** 2)
    r = grouping_loss(X, y, s, random_state=seed)
    assert isinstance(r, GroupingLoss)
    assert 0.4 * truth < r.grouping_loss < truth + 0.01
    assert r.grouping_loss_plugin > r.grouping_loss
    assert r.refined_brier == pytest.approx(r.calibrated_brier - r.grouping_loss)
    assert r.brier == pytest.approx(np.mean((y - s) ** 2))
    # the posterior itself is sufficient: no grouping loss to find
    r = grouping_loss(X, y, q, random_state=seed)
    assert abs(r.grouping_loss) < 0.006


def test_structure_and_determinism():
    X, y, _, s = _tasche(1500, 7)
    a = grouping_loss(X, y, s, n_bins=5, n_splits=3, random_state=3)
    b = grouping_loss(X, y, s, n_bins=5, n_splits=3, random_state=3)
    assert a.grouping_loss == b.grouping_loss
    assert a.bin_edges.shape == (6,) and a.bin_counts.sum() == 1500
    assert a.fold_estimates.shape == (3,)
    nz = ~np.isnan(a.bin_grouping_loss)
    weights = a.bin_counts[nz] / a.bin_counts[nz].sum()
    # the overall value is (close to) the count-weighted mean of the bins
    assert (weights * a.bin_grouping_loss[nz]).sum() == pytest.approx(a.grouping_loss, abs=2e-3)
    assert a.within_bin_calibration_variance >= 0


def test_estimator_without_apply():
    from sklearn.neighbors import KNeighborsRegressor

    X, y, _, s = _tasche(2000, 2)
    r = grouping_loss(X, y, s, estimator=KNeighborsRegressor(50), random_state=0)
    assert 0.01 < r.grouping_loss < np.mean((_tasche(2000, 2)[2] - s) ** 2) + 0.01


def test_bad_input():
    X = np.random.default_rng(0).normal(size=(50, 2))
    y = np.arange(50) % 2
    p = np.full(50, 0.5)
    with pytest.raises(ValueError, match="Inconsistent lengths"):
        grouping_loss(X[:40], y, p)
    with pytest.raises(ValueError, match="NaN|infinity"):
        grouping_loss(np.where(X > 1, np.nan, X), y, p)
    with pytest.raises(ValueError, match="2D"):
        grouping_loss(X[:, 0], y, p)
    with pytest.raises(ValueError, match="only 0 and 1"):
        grouping_loss(X, y + 1, p)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        grouping_loss(X, y, p + 1)
    with pytest.raises(ValueError, match="n_splits"):
        grouping_loss(X, y, p, n_splits=1)
    with pytest.raises(ValueError, match="each class"):
        grouping_loss(X, np.r_[1, np.zeros(49, int)], p)


def test_grouping_loss_work_does_not_grow_with_empty_bins():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    p = np.round(rng.random(300), 1)  # 11 distinct scores
    y = (rng.random(300) < p).astype(int)
    few = grouping_loss(X, y, p, n_bins=11, strategy="uniform", random_state=0)
    # 10**6 bins, of which at most 11 are occupied: the fit loops over the occupied ones only
    many = grouping_loss(X, y, p, n_bins=10**6, strategy="uniform", random_state=0)
    assert many.bin_counts.shape == (10**6,)
    assert int((many.bin_counts > 0).sum()) <= 11
    # each distinct score has a bin of its own in both cases: the same estimate
    assert many.grouping_loss == pytest.approx(few.grouping_loss, abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "param", "error"),
    [
        ({"random_state": -1}, "random_state", ValueError),
        ({"random_state": "0"}, "random_state", TypeError),
        ({"estimator": "tree"}, "estimator", TypeError),
        ({"n_bins": 10**9}, "n_bins", ValueError),
        ({"strategy": "median"}, "strategy", ValueError),
    ],
)
def test_grouping_loss_bad_options(kwargs, param, error):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    p = rng.random(60)
    y = (rng.random(60) < p).astype(int)
    with pytest.raises(error, match=f"'{param}'") as info:
        grouping_loss(X, y, p, **kwargs)
    assert "\n" not in str(info.value)
