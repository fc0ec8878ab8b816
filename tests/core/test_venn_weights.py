"""Weighted Venn predictors: a calibration weight of k is k copies of the example.

The references expand the weights into repeated rows and run the naive, unweighted definition
(tests/core/test_venn.py); an excluded example z_r leaves with all its copies.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.core.test_venn import naive_bins, naive_venn
from venncal.core.venn import equal_mass_venn_predict, venn_predict


def expanded(fn, cal_a, cal_lab, test_a, k, exclude, *args):
    """The naive definition per test object on the repeated rows, z_r's copies all removed."""
    lower, upper = [], []
    for i in range(len(test_a)):
        keep = np.ones(len(cal_a), bool)
        if exclude is not None and exclude[i] >= 0:
            keep[exclude[i]] = False
        reps = np.where(keep, k, 0)
        lo, hi = fn(np.repeat(cal_a, reps), np.repeat(cal_lab, reps), test_a[i : i + 1], *args)
        lower.append(lo[0])
        upper.append(hi[0])
    return np.array(lower), np.array(upper)


@st.composite
def weighted_bags(draw):
    n = draw(st.integers(1, 20))
    K = draw(st.integers(2, 3))
    cal = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=float)
    lab = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    k = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    if k.sum() == 0:
        k[0] = 1
    test = np.array(draw(st.lists(st.integers(-1, 6), min_size=1, max_size=6)), dtype=float)
    exclude = None
    if draw(st.booleans()):
        exclude = np.array(
            draw(st.lists(st.integers(-1, n - 1), min_size=test.size, max_size=test.size))
        )
    return cal, lab, k, test, exclude, K


@given(data=weighted_bags(), n_bins=st.integers(1, 6))
def test_weighted_equal_mass_bins_are_the_bins_of_the_repeated_bag(data, n_bins):
    cal, lab, k, test, exclude, K = data
    pred = equal_mass_venn_predict(
        cal, lab, test, n_bins=n_bins, n_classes=K, exclude=exclude, sample_weight=k
    )
    lo, hi = expanded(naive_bins, cal, lab, test, k, exclude, n_bins, K)
    np.testing.assert_allclose(pred.lower, lo, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pred.upper, hi, rtol=0, atol=1e-12)


@given(data=weighted_bags())
def test_weighted_categories_count_copies(data):
    cal, lab, k, test, exclude, K = data
    cats, test_cats = cal.astype(int) % 3, test.astype(int) % 4  # category 3: never calibrated
    pred = venn_predict(cats, lab, test_cats, n_classes=K, exclude=exclude, sample_weight=k)
    lo, hi = expanded(
        lambda c, y, t, K: naive_venn(c, y, t, K), cats, lab, test_cats, k, exclude, K
    )
    np.testing.assert_allclose(pred.lower, lo, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pred.upper, hi, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_unit_weights_are_the_unweighted_predictor(seed):
    rng = np.random.default_rng(seed)
    n, m = 40, 30
    s, y = rng.normal(size=n), rng.integers(0, 3, n)
    t, ex = rng.normal(size=m), rng.integers(-1, n, m)
    for kw in ({}, {"exclude": ex}):
        a = equal_mass_venn_predict(s, y, t, n_bins=4, n_classes=3, **kw)
        b = equal_mass_venn_predict(s, y, t, n_bins=4, n_classes=3, sample_weight=np.ones(n), **kw)
        np.testing.assert_allclose(b.lower, a.lower, rtol=0, atol=1e-12)
        np.testing.assert_allclose(b.upper, a.upper, rtol=0, atol=1e-12)
        np.testing.assert_allclose(b.category_size, a.category_size)


def test_real_weights_scale_out_and_bad_weights_are_refused():
    rng = np.random.default_rng(0)
    s, y, t = rng.normal(size=30), rng.integers(0, 2, 30), rng.normal(size=5)
    w = rng.random(30)
    # the label frequencies depend on the weights' scale only through the test object's
    # single count; a very large scale makes it negligible: frequencies of the weighted bin
    big = venn_predict((s > 0).astype(int), y, (t > 0).astype(int), sample_weight=w * 1e12)
    cat = (s > 0).astype(int)
    for i, c in enumerate((t > 0).astype(int)):
        freq = np.sum(w[(cat == c) & (y == 1)]) / np.sum(w[cat == c])
        np.testing.assert_allclose(big.lower[i, 1], freq, rtol=1e-9)
    with pytest.raises(ValueError, match="non-negative"):
        venn_predict([0, 1], [0, 1], [0], sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="one weight per example"):
        equal_mass_venn_predict([0.0, 1.0], [0, 1], [0.0], sample_weight=[1.0])
