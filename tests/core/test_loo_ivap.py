"""Venn-Abers with one calibration example left out per query, against refitting without it."""

import numpy as np
import pytest

from tests._reference.loo_ranges import ROUTES, folded
from tests._reference.oob_venn_abers_naive import oob_venn_abers_naive
from venncal.core._loo_ivap import loo_ivap_predict


def _problem(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 120))
    m = int(rng.integers(1, 80))
    grid = int(rng.integers(2, 30))
    # half the problems on a coarse grid: many ties among the scores and with the test scores
    s = rng.integers(0, grid, n) / grid if seed % 2 else rng.random(n)
    y = (rng.random(n) < rng.random()).astype(np.int64)
    t = np.where(rng.random(m) < 0.5, rng.choice(s, m), rng.integers(-1, grid + 1, m) / grid)
    left_out = rng.integers(0, n, m)
    return rng, s, y, t, left_out


@pytest.mark.parametrize("seed", range(120))
def test_equals_refitting_without_the_left_out_example(seed):
    _, s, y, t, left_out = _problem(seed)
    p0, p1 = loo_ivap_predict(s, y, None, left_out, t)
    ref = oob_venn_abers_naive(s, y, t, left_out)
    np.testing.assert_array_equal(np.c_[p0, p1], ref)  # bit for bit


@pytest.mark.parametrize("seed", range(60))
def test_integer_weights_including_zero_equal_refitting(seed):
    rng, s, y, t, left_out = _problem(1000 + seed)
    high = 4 if seed % 2 else 10**6
    w = rng.integers(0, high, s.shape[0]).astype(np.float64)
    w[rng.integers(0, s.shape[0])] = 1.0  # some weight is positive
    if w.sum() - w[left_out].max() <= 0:
        w += 1.0
    p0, p1 = loo_ivap_predict(s, y, w, left_out, t)
    ref = oob_venn_abers_naive(s, y, t, left_out, cal_weight=w)
    np.testing.assert_array_equal(np.c_[p0, p1], ref)


def test_a_single_class_left_after_removal_and_extreme_scores():
    s = np.array([0.1, 0.2, 0.2, 0.9])
    y = np.array([1, 0, 1, 1])
    t = np.array([0.0, 0.2, 0.2, 1.0, 0.1, 0.9])
    left_out = np.array([1, 1, 2, 0, 0, 3])
    p0, p1 = loo_ivap_predict(s, y, None, left_out, t)
    np.testing.assert_array_equal(np.c_[p0, p1], oob_venn_abers_naive(s, y, t, left_out))


@pytest.mark.parametrize("seed", range(30))
def test_weights_of_extreme_range_equal_refitting_bit_for_bit(seed):
    # float geometry would lose accuracy here: Python integers, exact like the refit's
    rng, s, y, t, left_out = _problem(3000 + seed)
    w = rng.exponential(size=s.shape[0]) * 10.0 ** rng.integers(-12, 12, s.shape[0])
    w[rng.integers(0, s.shape[0])] = 0.0
    if w.sum() - w[left_out].max() <= 0:
        w += 1.0
    method = ROUTES[seed % 3]
    got = loo_ivap_predict(s, y, w, left_out, t, **folded(method))
    np.testing.assert_array_equal(np.c_[got], oob_venn_abers_naive(s, y, t, left_out, cal_weight=w))


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("method", ROUTES)
def test_fractional_weights_agree_with_refitting(seed, method):
    # float geometry, as the inductive predictor's: equal to the refit within its accuracy,
    # for weights that are small or large against the test object's unit weight
    rng, s, y, t, left_out = _problem(2000 + seed)
    w = rng.exponential(size=s.shape[0]) * 10.0 ** float(rng.integers(-3, 4))
    w[rng.integers(0, s.shape[0], 2)] = 0.0
    if w.sum() - w[left_out].max() <= 0:
        w += 0.5
    got = loo_ivap_predict(s, y, w, left_out, t, **folded(method))
    ref = oob_venn_abers_naive(s, y, t, left_out, cal_weight=w)
    np.testing.assert_allclose(np.c_[got], ref, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_gap_bridges_give_the_inductive_values(seed):
    from venncal.core._loo_ivap import _gap_bridges
    from venncal.core.venn_abers import ivap_gap_values

    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 60))
    weight = rng.integers(1, 4, k)
    positives = rng.integers(0, weight + 1)
    px = np.r_[0, np.cumsum(weight)].astype(np.int64)
    py = np.r_[0, np.cumsum(positives)].astype(np.int64)
    vnum, vden, left, right = (np.empty(k + 1, dtype=np.int64) for _ in range(4))
    _gap_bridges(px, py, 1, vnum, vden, left, right)
    np.testing.assert_array_equal(vnum / vden, ivap_gap_values(weight, positives)[1])
    g = np.arange(k + 1)
    assert ((left <= g) & (g <= right)).all()  # the test object's block holds its gap


@pytest.mark.parametrize("seed", range(12))
def test_large_blocks_and_left_out_examples_near_the_test_score(seed):
    # uninformative scores make blocks of hundreds of groups; informative ones make small
    # blocks. Leaving out a calibration example ranked near the test score puts it inside the
    # test object's block or just outside it, on either side and with either label, where
    # leaving it out may or may not move p0 and p1.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(300, 1500))
    s = rng.random(n) if seed % 3 else np.round(rng.random(n) * 50) / 50
    informative = seed % 2 == 0
    y = (rng.random(n) < (s if informative else 0.3)).astype(np.int64)
    m = 400
    t = rng.random(m)
    rank = np.argsort(np.argsort(s, kind="stable"), kind="stable")
    by_rank = np.argsort(rank)
    near = np.clip(np.searchsorted(np.sort(s), t) + rng.integers(-40, 40, m), 0, n - 1)
    left_out = np.where(rng.random(m) < 0.8, by_rank[near], rng.integers(0, n, m))
    p0, p1 = loo_ivap_predict(s, y, None, left_out, t)
    np.testing.assert_array_equal(np.c_[p0, p1], oob_venn_abers_naive(s, y, t, left_out))


@pytest.mark.parametrize("seed", range(8))
def test_one_block_of_convex_arcs_equals_refitting(seed):
    # a rate of positives that rises and falls back in runs, with labels that follow it as
    # closely as integers can: one block of convex arcs, so that the hulls of prefixes,
    # suffixes and index ranges are long and every level of the dyadic split holds queries
    rng = np.random.default_rng(seed)
    n = int(rng.integers(400, 1200))
    s = np.sort(rng.random(n))
    period = int(rng.integers(5, 60))
    rate = 0.2 + 0.6 * (np.arange(n) % period) / period
    y = np.diff(np.r_[0.0, np.floor(np.cumsum(rate) + 0.5)]).astype(np.int64)
    m = 300
    t = np.where(rng.random(m) < 0.3, rng.choice(s, m), rng.random(m))
    left_out = rng.integers(0, n, m)
    p0, p1 = loo_ivap_predict(s, y, None, left_out, t)
    np.testing.assert_array_equal(np.c_[p0, p1], oob_venn_abers_naive(s, y, t, left_out))


@pytest.mark.parametrize("seed", range(4))
def test_the_three_routes_agree_for_every_query_at_scale(seed):
    # too large to refit per left-out example: the hull paths, the unremoved bridge with
    # ranges for the rest, and ranges for every query must give the same bits; the tests
    # above hold each to refitting
    rng = np.random.default_rng(seed)
    n = 30_000
    s = rng.random(n) if seed % 2 else np.round(rng.random(n) * 300) / 300
    y = (rng.random(n) < (s if seed < 2 else 0.2)).astype(np.int64)
    w = None if seed % 2 else rng.integers(0, 5, n).astype(np.float64)
    t = rng.random(n)
    left_out = rng.integers(0, n, n)
    paths = np.c_[loo_ivap_predict(s, y, w, left_out, t)]
    for method in ("shortcuts", "ranges"):
        other = np.c_[loo_ivap_predict(s, y, w, left_out, t, **folded(method))]
        np.testing.assert_array_equal(paths, other)
