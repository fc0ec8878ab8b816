"""Tests of the Venn predictor on categories against the definition, computed naively."""

import numpy as np
import pytest

from venncal.core.venn import equal_mass_venn_predict, venn_predict


def _naive(n_cal, m, n_classes, exclude, category_labels):
    """Try every label for each of ``m`` test objects, count the frequencies in its category:
    ``category_labels(i, keep)`` are the labels of the calibration examples kept by ``keep``
    (all but ``exclude[i]`` where that is not negative) that share test object i's category."""
    lower = np.empty((m, n_classes))
    upper = np.empty((m, n_classes))
    for i in range(m):
        keep = np.ones(n_cal, bool)
        if exclude is not None and exclude[i] >= 0:
            keep[exclude[i]] = False
        labels = list(category_labels(i, keep))
        dists = []
        for tentative in range(n_classes):
            members = labels + [tentative]
            dists.append([members.count(j) / len(members) for j in range(n_classes)])
        dists = np.array(dists)
        lower[i], upper[i] = dists.min(axis=0), dists.max(axis=0)
    return lower, upper


def naive_venn(cal_cat, cal_lab, test_cat, n_classes, exclude=None):
    """Try every label for the test object, count the frequencies in its category."""

    def category_labels(i, keep):
        cats = [c for c, k in zip(cal_cat, keep) if k]
        labs = [lab for lab, k in zip(cal_lab, keep) if k]
        return [lab for c, lab in zip(cats, labs) if c == test_cat[i]]

    return _naive(len(cal_cat), len(test_cat), n_classes, exclude, category_labels)


def naive_bins(cal_s, cal_lab, test_s, n_bins, n_classes, exclude=None):
    """The same with the test object's equal-mass bin among the kept scores and its own."""

    def bin_labels(i, keep):
        bag = np.r_[cal_s[keep], test_s[i]]
        srt = np.sort(bag)
        edges = np.array([srt[(j * len(bag)) // n_bins] for j in range(1, n_bins)])
        cat = np.searchsorted(edges, bag, side="right")
        return cal_lab[keep][cat[:-1] == cat[-1]]

    return _naive(len(cal_s), len(test_s), n_classes, exclude, bin_labels)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_venn_predict_matches_definition(seed, n_classes):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(1, 40), 15
    cal_cat = rng.integers(0, 4, n)
    cal_lab = rng.integers(0, n_classes, n)
    test_cat = rng.integers(0, 5, m)  # category 4 is never seen in calibration
    pred = venn_predict(cal_cat, cal_lab, test_cat, n_classes=n_classes)
    lo, hi = naive_venn(cal_cat, cal_lab, test_cat, n_classes)
    np.testing.assert_allclose(pred.lower, lo, atol=1e-12)
    np.testing.assert_allclose(pred.upper, hi, atol=1e-12)
    assert np.array_equal(pred.label, np.argmax(lo, axis=1))
    gap = np.broadcast_to(1 / (pred.category_size + 1)[:, None], lo.shape)
    np.testing.assert_allclose(pred.upper - pred.lower, gap)


@pytest.mark.parametrize("seed", range(6))
def test_venn_predict_exclusion_matches_definition(seed):
    rng = np.random.default_rng(seed)
    n, m, k = 30, 20, 3
    cal_cat = rng.choice(["a", "b", "c"], n)
    cal_lab = rng.integers(0, k, n)
    test_cat = rng.choice(["a", "b", "c"], m)
    exclude = rng.integers(-1, n, m)
    pred = venn_predict(cal_cat, cal_lab, test_cat, n_classes=k, exclude=exclude)
    lo, hi = naive_venn(cal_cat, cal_lab, test_cat, k, exclude)
    np.testing.assert_allclose(pred.lower, lo, atol=1e-12)
    np.testing.assert_allclose(pred.upper, hi, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_bins", [1, 2, 3, 7])
@pytest.mark.parametrize("with_exclude", [False, True])
def test_equal_mass_matches_definition(seed, n_bins, with_exclude):
    rng = np.random.default_rng(seed)
    n, m, k = int(rng.integers(2, 40)), 25, 2 + seed % 2
    # heavy ties: scores on a coarse grid, test scores partly on the grid
    cal_s = rng.integers(0, 6, n).astype(float)
    test_s = np.r_[rng.integers(-1, 7, m - 5).astype(float), rng.normal(3, 2, 5)]
    cal_lab = rng.integers(0, k, n)
    exclude = rng.integers(-1, n, m) if with_exclude else None
    pred = equal_mass_venn_predict(
        cal_s, cal_lab, test_s, n_bins=n_bins, n_classes=k, exclude=exclude
    )
    lo, hi = naive_bins(cal_s, cal_lab, test_s, n_bins, k, exclude)
    np.testing.assert_allclose(pred.lower, lo, atol=1e-12)
    np.testing.assert_allclose(pred.upper, hi, atol=1e-12)


def test_equal_mass_bins_have_equal_mass_without_ties():
    rng = np.random.default_rng(0)
    s = rng.normal(size=99)
    y = rng.integers(0, 2, 99)
    pred = equal_mass_venn_predict(s, y, rng.normal(size=200), n_bins=4)
    # 100 objects in the bag, 4 bins of 25: the test object's bin holds 24 calibration scores
    assert set(pred.category_size.tolist()) == {24}


def test_binary_pair_and_interval():
    pred = venn_predict([0, 0, 0, 1], [1, 1, 0, 0], [0])
    np.testing.assert_allclose(pred.p0_p1, [[0.5, 0.75]])
    np.testing.assert_allclose(pred.interval, [[0.5, 0.75]])  # label 1, eq. (6)
    with pytest.raises(ValueError, match="two classes"):
        venn_predict([0, 0], [0, 2], [0]).p0_p1


def test_lower_sum_at_most_one_and_upper_sum_at_least_one():
    rng = np.random.default_rng(3)
    pred = venn_predict(rng.integers(0, 3, 50), rng.integers(0, 4, 50), rng.integers(0, 3, 30))
    assert (pred.lower.sum(axis=1) <= 1 + 1e-12).all()
    assert (pred.upper.sum(axis=1) >= 1 - 1e-12).all()
    assert ((pred.lower >= 0) & (pred.upper <= 1) & (pred.lower < pred.upper)).all()


def test_bad_input():
    with pytest.raises(ValueError, match="Inconsistent lengths"):
        venn_predict([0, 1], [0], [0])
    with pytest.raises(TypeError, match="integer label"):
        venn_predict([0, 1], [0.5, 1.0], [0])
    with pytest.raises(ValueError, match="label indices in 0..1"):
        venn_predict([0, 1], [0, 2], [0], n_classes=2)
    with pytest.raises(ValueError, match="exclude"):
        venn_predict([0, 1], [0, 1], [0], exclude=[0, 1])
    with pytest.raises(ValueError, match="exclude"):
        venn_predict([0, 1], [0, 1], [0], exclude=[5])
    with pytest.raises(ValueError, match="must be 1-D"):
        venn_predict([[0, 1]], [0, 1], [0])
    with pytest.raises(ValueError, match="NaN"):
        equal_mass_venn_predict([0.0, np.nan], [0, 1], [0.0])
    with pytest.raises(ValueError, match="n_bins"):
        equal_mass_venn_predict([0.0, 1.0], [0, 1], [0.0], n_bins=0)
    with pytest.raises(ValueError, match="Inconsistent"):
        equal_mass_venn_predict([0.0, 1.0], [0, 1, 1], [0.0])


def test_imports_without_sklearn_pandas_matplotlib():
    from tests._blocked_imports import run_blocked

    then = (
        "from venncal.core.venn import venn_predict\n"
        "print(venn_predict([0, 0], [0, 1], [0]).p0_p1)\n"
    )
    result = run_blocked("venncal.core.venn", ["sklearn", "pandas", "matplotlib"], then)
    assert result.returncode == 0, result.stderr
