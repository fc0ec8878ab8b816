"""Tests of venncal.metrics.ranking against naive implementations of the definitions."""

import itertools

import numpy as np
import pytest
from scipy import stats

from venncal.metrics.ranking import (
    _friedman_from_ranks,
    average_ranks,
    bergmann_hommel_posthoc,
    friedman_test,
    holm_posthoc,
    nemenyi_critical_difference,
    nemenyi_posthoc,
)

# ----------------------------------------------------------------------------- naive references


def naive_ranks(row, lower_is_better=True):
    """Rank one row by counting: rank = 1 + #better + (#tied - 1) / 2."""
    row = list(row)
    out = []
    for v in row:
        better = sum((w < v) if lower_is_better else (w > v) for w in row)
        tied = sum(w == v for w in row)
        out.append(1 + better + (tied - 1) / 2)
    return out


def naive_holm(p):
    """Holm's procedure written as the textbook loop over sorted p-values."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adj = [0.0] * m
    running = 0.0
    for pos, i in enumerate(order):
        running = max(running, min(1.0, (m - pos) * p[i]))
        adj[i] = running
    return adj


def is_exhaustive(subset, k):
    """A set of pairwise equalities is exhaustive iff it is closed under transitivity."""
    s = set(subset)
    # closure: the complete graphs on the connected components must give back the set
    parent = list(range(k))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in s:
        parent[find(a)] = find(b)
    implied = {(a, b) for a, b in itertools.combinations(range(k), 2) if find(a) == find(b)}
    return implied == s


def naive_bergmann_hommel(p, k):
    """Adjusted p-values by enumerating all 2^m subsets of hypotheses."""
    pairs = list(itertools.combinations(range(k), 2))
    m = len(pairs)
    adj = [0.0] * m
    for r in range(1, m + 1):
        for subset in itertools.combinations(range(m), r):
            if not is_exhaustive([pairs[i] for i in subset], k):
                continue
            value = len(subset) * min(p[i] for i in subset)
            for i in subset:
                adj[i] = max(adj[i], value)
    return [min(1.0, a) for a in adj]


def upper(mat):
    iu, ju = np.triu_indices(mat.shape[0], 1)
    return mat[iu, ju]


# ----------------------------------------------------------------------------- average ranks


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("lower_is_better", [True, False])
def test_average_ranks_match_naive_with_ties(seed, lower_is_better):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 4, size=(12, 5)).astype(float)  # many ties
    expected = np.mean([naive_ranks(r, lower_is_better) for r in table], axis=0)
    np.testing.assert_allclose(average_ranks(table, lower_is_better), expected)
    assert average_ranks(table).sum() == pytest.approx(5 * 6 / 2)


def test_infinite_loss_ranks_last():
    table = [[np.inf, 0.2, 0.3], [np.inf, 0.5, 0.1]]
    np.testing.assert_allclose(average_ranks(table), [3.0, 1.5, 1.5])


# ----------------------------------------------------------------------------- Friedman


@pytest.mark.parametrize("seed", range(6))
def test_friedman_matches_scipy_without_ties(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(5, 30), rng.integers(3, 8)
    table = rng.normal(size=(n, k)) + np.linspace(0, 1, k)
    res = friedman_test(table)
    ref = stats.friedmanchisquare(*table.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    # Iman-Davenport from its definition
    f = (n - 1) * ref.statistic / (n * (k - 1) - ref.statistic)
    assert res.iman_davenport_statistic == pytest.approx(f)
    assert res.iman_davenport_pvalue == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))


def test_friedman_demsar_worked_example():
    # Demsar (2006), section 3.2.4: four methods on 14 datasets with average ranks
    # 3.143, 2.000, 2.893 and 1.964 give chi2_F = 9.28 and F_F = 3.69.
    chi2, p, f, pf = _friedman_from_ranks(np.array([3.143, 2.000, 2.893, 1.964]), 14)
    assert chi2 == pytest.approx(9.28, abs=0.01)
    assert f == pytest.approx(3.69, abs=0.01)
    # F_F is distributed with 3 and 39 degrees of freedom; the critical value at 0.05 is 2.85.
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=0.01)
    assert pf < 0.05 and p < 0.05


def test_friedman_identical_rankings_and_names_from_dataframe():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [2.0, 3.0, 4.0], "c": [3.0, 4.0, 5.0]})
    res = friedman_test(df)
    assert res.names == ("a", "b", "c")
    assert np.isinf(res.iman_davenport_statistic)
    assert res.iman_davenport_pvalue == 0.0
    assert res.statistic == pytest.approx(6.0)  # N (k - 1) for a perfect agreement


def test_friedman_higher_is_better_reverses_ranks():
    rng = np.random.default_rng(3)
    table = rng.normal(size=(10, 4))
    lo = friedman_test(table)
    hi = friedman_test(table, lower_is_better=False)
    np.testing.assert_allclose(lo.average_ranks + hi.average_ranks, 5.0)
    assert lo.statistic == pytest.approx(hi.statistic)


# ----------------------------------------------------------------------------- Nemenyi


@pytest.mark.parametrize(
    "k, q05, q10",
    # Demsar (2006), Table 5(a): critical values of the two-tailed Nemenyi test.
    [
        (2, 1.960, 1.645),
        (3, 2.343, 2.052),
        (4, 2.569, 2.291),
        (5, 2.728, 2.459),
        (6, 2.850, 2.589),
        (7, 2.949, 2.693),
        (8, 3.031, 2.780),
        (9, 3.102, 2.855),
        (10, 3.164, 2.920),
    ],
)
def test_nemenyi_critical_values_match_demsar_table(k, q05, q10):
    n = 7
    scale = np.sqrt(k * (k + 1) / (6 * n))
    assert nemenyi_critical_difference(k, n, 0.05) / scale == pytest.approx(q05, abs=1.5e-3)
    assert nemenyi_critical_difference(k, n, 0.10) / scale == pytest.approx(q10, abs=1.5e-3)


@pytest.mark.parametrize("seed", range(4))
def test_nemenyi_significant_iff_rank_gap_exceeds_cd(seed):
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(25, 6)) + np.linspace(0, 1.5, 6)
    res = nemenyi_posthoc(table)
    cd = nemenyi_critical_difference(6, 25, 0.05)
    gap = np.abs(res.average_ranks[:, None] - res.average_ranks[None, :])
    expected = gap >= cd
    np.fill_diagonal(expected, False)
    near = np.isclose(gap, cd, atol=1e-9)
    np.testing.assert_array_equal(res.significant(0.05)[~near], expected[~near])


# ----------------------------------------------------------------------------- Holm


def _random_table(seed, n, k_high, spread):
    """n rows of k methods (k drawn in [3, k_high)) whose means differ by up to ``spread``."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, k_high))
    return k, rng.normal(size=(n, k)) + rng.uniform(0, spread, k)


@pytest.mark.parametrize("seed", range(6))
def test_holm_matches_naive_loop(seed):
    k, table = _random_table(seed, 20, 8, 1.5)
    res = holm_posthoc(table)
    p = upper(res.pvalue)
    np.testing.assert_allclose(upper(res.adjusted_pvalue), naive_holm(list(p)))
    # unadjusted p-values from the definition of z
    se = np.sqrt(k * (k + 1) / (6 * 20))
    i, j = 0, 1
    z = (res.average_ranks[i] - res.average_ranks[j]) / se
    assert res.statistic[i, j] == pytest.approx(z)
    assert res.pvalue[i, j] == pytest.approx(2 * stats.norm.sf(abs(z)))


# ----------------------------------------------------------------------------- Bergmann-Hommel


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", range(3))
def test_bergmann_hommel_matches_subset_enumeration(k, seed):
    rng = np.random.default_rng(seed + 10 * k)
    table = rng.normal(size=(15, k)) + rng.uniform(0, 2, k)
    res = bergmann_hommel_posthoc(table)
    p = list(upper(res.pvalue))
    np.testing.assert_allclose(upper(res.adjusted_pvalue), naive_bergmann_hommel(p, k))


@pytest.mark.parametrize("seed", range(5))
def test_bergmann_hommel_between_unadjusted_and_holm(seed):
    _, table = _random_table(seed, 22, 11, 2)
    bh = bergmann_hommel_posthoc(table)
    holm = holm_posthoc(table)
    assert (bh.adjusted_pvalue >= bh.pvalue - 1e-12).all()
    assert (bh.adjusted_pvalue <= holm.adjusted_pvalue + 1e-12).all()
    np.testing.assert_allclose(bh.adjusted_pvalue, bh.adjusted_pvalue.T)


def test_bergmann_hommel_three_methods_closed_form():
    # For k = 3 the exhaustive sets are the three singletons and the full set, so the smallest
    # p-value is multiplied by 3 and the other two are tested at their own level (capped below
    # by that first adjustment).
    rng = np.random.default_rng(0)
    table = rng.normal(size=(40, 3)) + [0.0, 0.5, 1.0]
    res = bergmann_hommel_posthoc(table)
    p = upper(res.pvalue)
    expected = np.maximum(p, 3 * p.min())
    np.testing.assert_allclose(upper(res.adjusted_pvalue), np.minimum(expected, 1))


def test_posthoc_result_helpers():
    rng = np.random.default_rng(1)
    table = rng.normal(size=(30, 4)) + [0.0, 0.0, 0.0, 3.0]
    res = bergmann_hommel_posthoc(table, names=list("abcd"))
    rows = res.pairs()
    assert len(rows) == 6
    assert [r["pvalue"] for r in rows] == sorted(r["pvalue"] for r in rows)
    better = res.better(0.05)
    assert better[0, 3] and not better[3, 0]
    assert not better.diagonal().any()


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "table, match",
    [
        ([1.0, 2.0, 3.0], "2-D"),
        ([[1.0], [2.0]], "at least 2 methods"),
        ([[1.0, 2.0]], "at least 2 datasets"),
        ([[1.0, np.nan], [2.0, 1.0]], "NaN"),
        ([["a", "b"], ["c", "d"]], "numeric"),
    ],
)
@pytest.mark.parametrize(
    "func", [average_ranks, friedman_test, nemenyi_posthoc, holm_posthoc, bergmann_hommel_posthoc]
)
def test_bad_tables_raise(func, table, match):
    with pytest.raises((ValueError, TypeError), match=match):
        func(table)


def test_bergmann_hommel_refuses_more_than_ten_methods():
    with pytest.raises(ValueError, match="at most 10"):
        bergmann_hommel_posthoc(np.random.default_rng(0).normal(size=(5, 11)))


def test_names_length_checked():
    with pytest.raises(ValueError, match="one name per column"):
        holm_posthoc([[1.0, 2.0], [2.0, 1.0]], names=["a"])


@pytest.mark.parametrize("kwargs", [dict(k=1, n=5), dict(k=3, n=0), dict(k=3, n=5, alpha=1.5)])
def test_critical_difference_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        nemenyi_critical_difference(**kwargs)
