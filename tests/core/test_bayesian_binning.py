"""SBB and ABB against enumeration of every binning, and their properties."""

import warnings

import numpy as np
import pytest

from tests._reference.bayesian_binning_bruteforce import (
    all_binnings,
    brute_force,
    log_score,
    pool,
)
from venncal.core import _bayesian_binning_cost as costmod
from venncal.core import bayesian_binning as bbmod
from venncal.core.bayesian_binning import (
    DEFAULT_LAM,
    bin_log_weight,
    fit_bayesian_binning,
    nearest_position,
    pool_scores,
)
from venncal.exceptions import VenncalWarning

ENGINES = ["numpy"] + (["numba"] if bbmod.HAVE_NUMBA else [])


def _random_problem(rng, max_distinct=14):
    """Scores on a coarse grid (so ties are common) with at most ``max_distinct`` values."""
    n = int(rng.integers(1, 25))
    grid = np.sort(rng.normal(size=max_distinct)) * rng.choice([0.01, 1.0, 100.0])
    s = grid[rng.integers(0, int(rng.integers(1, max_distinct + 1)), n)]
    p = rng.random()
    y = (rng.random(n) < p).astype(int)
    lam = float(rng.choice([0.3, 1.0, 3.0, 10.0, 30.0, 100.0]))
    return s, y, lam


@pytest.mark.parametrize("seed", range(10))
def test_sbb_and_abb_equal_brute_force(seed):
    # 10 seeds x 250 problems: 2,500 random problems with ties, N <= 14 distinct scores
    rng = np.random.default_rng(seed)
    for _ in range(250):
        s, y, lam = _random_problem(rng)
        v, sbb_v, sbb_log, abb_v, abb_log, second = brute_force(s, y, lam=lam)
        engine = ENGINES[int(rng.integers(len(ENGINES)))]
        abb = fit_bayesian_binning(s, y, method="averaging", lam=lam, engine=engine)
        sbb = fit_bayesian_binning(s, y, method="selection", lam=lam, engine=engine)
        np.testing.assert_array_equal(abb.positions, v)
        np.testing.assert_allclose(abb.values, abb_v, rtol=0, atol=1e-10)
        assert abb.log_score == pytest.approx(abb_log, abs=1e-10)
        assert sbb.log_score == pytest.approx(sbb_log, abs=1e-10)
        if sbb_log - second > 1e-9:  # a unique best binning
            np.testing.assert_allclose(sbb.values, sbb_v, rtol=0, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_fractional_weights_equal_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(60):
        s, y, lam = _random_problem(rng, max_distinct=10)
        w = rng.uniform(0.1, 3.0, s.size)
        # a weight of k is k examples (a fractional weight a fractional count)
        _, sbb_v, sbb_log, abb_v, abb_log, second = brute_force(s, y, w=w, lam=lam)
        abb = fit_bayesian_binning(s, y, w, method="averaging", lam=lam)
        sbb = fit_bayesian_binning(s, y, w, method="selection", lam=lam)
        np.testing.assert_allclose(abb.values, abb_v, rtol=0, atol=1e-10)
        assert abb.log_score == pytest.approx(abb_log, abs=1e-10)
        assert sbb.log_score == pytest.approx(sbb_log, abs=1e-10)
        if sbb_log - second > 1e-9:
            np.testing.assert_allclose(sbb.values, sbb_v, rtol=0, atol=1e-10)


def test_selected_binning_scores_as_reported():
    rng = np.random.default_rng(7)
    s = rng.integers(0, 12, 40) / 3.0
    y = (rng.random(40) < 0.4).astype(int)
    sbb = fit_bayesian_binning(s, y, method="selection", lam=4.0)
    v, n0, n1 = pool(s, y)
    ends = np.append(sbb.bin_starts[1:], len(v)) - 1
    bins = list(zip(sbb.bin_starts.tolist(), ends.tolist()))
    assert log_score(bins, v, n0, n1, 4.0) == pytest.approx(sbb.log_score, abs=1e-10)
    # every other binning scores no higher (checked on the 11 distinct positions)
    assert max(log_score(b, v, n0, n1, 4.0) for b in all_binnings(len(v))) <= sbb.log_score + 1e-9
    for (l, u), value in zip(bins, sbb.values[sbb.bin_starts]):
        assert value == pytest.approx(
            (sum(n1[l : u + 1]) + 1) / (sum(n0[l : u + 1]) + sum(n1[l : u + 1]) + 2)
        )


def test_bin_log_weight_matches_reference_literal():
    v = np.array([0.0, 0.2, 0.9, 1.0])
    n0 = np.array([1.0, 0.0, 2.0, 1.0])
    n1 = np.array([0.0, 1.0, 1.0, 3.0])
    for bins in all_binnings(4):
        total = sum(bin_log_weight(l, u, v, n0, n1, 3.0) for l, u in bins)
        assert total == pytest.approx(log_score(bins, v.tolist(), n0, n1, 3.0), abs=1e-12)


@pytest.mark.skipif(not bbmod.HAVE_NUMBA, reason="numba not installed")
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_compiled_kernels_agree_with_numpy(seed, method):
    # also checks the documented bound of the e^-50 cut-off in the compiled kernels: the numpy
    # engine exponentiates every term, so any effect of the cut-off would show here
    rng = np.random.default_rng(seed)
    n = 1500
    s = np.round(rng.normal(size=n), 2)  # many ties
    y = (rng.random(n) < 1 / (1 + np.exp(-4 * s))).astype(int)
    a = fit_bayesian_binning(s, y, method=method, engine="numba")
    b = fit_bayesian_binning(s, y, method=method, engine="numpy")
    np.testing.assert_allclose(a.values, b.values, rtol=0, atol=1e-12)
    assert a.log_score == pytest.approx(b.log_score, rel=1e-12)


@pytest.mark.skipif(not bbmod.HAVE_NUMBA, reason="numba not installed")
def test_cutoff_error_bound_on_separated_data():
    # perfectly separated, long runs: most bin terms fall far below the cut-off
    n = 2000
    s = np.arange(n, dtype=float)
    y = ((s // 250) % 2).astype(int)
    a = fit_bayesian_binning(s, y, engine="numba")
    b = fit_bayesian_binning(s, y, engine="numpy")
    # documented bound: each value moves by less than 2 N^2 e^-50 (< 2e-14 here)
    np.testing.assert_allclose(a.values, b.values, rtol=0, atol=2 * n**2 * np.exp(-50) + 1e-13)
    assert a.log_score == pytest.approx(b.log_score, rel=1e-13)
    # SBB is exact: a neglected term cannot be the maximum
    a = fit_bayesian_binning(s, y, method="selection", engine="numba")
    b = fit_bayesian_binning(s, y, method="selection", engine="numpy")
    np.testing.assert_array_equal(a.bin_starts, b.bin_starts)
    np.testing.assert_array_equal(a.values, b.values)


@pytest.mark.skipif(not bbmod.HAVE_NUMBA, reason="numba not installed")
def test_pruned_scan_on_a_smooth_posterior():
    # a slowly varying posterior keeps long bins plausible; the scans stop part-way along each
    # row, and the result still equals the full numpy computation
    rng = np.random.default_rng(8)
    n = 4000
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    a = fit_bayesian_binning(s, y, engine="numba")
    b = fit_bayesian_binning(s, y, engine="numpy")
    np.testing.assert_allclose(a.values, b.values, rtol=0, atol=1e-12)
    assert a.log_score == pytest.approx(b.log_score, rel=1e-13)


@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_never_zero_or_one(method):
    for s, y in [
        (np.arange(50.0), np.r_[np.zeros(25), np.ones(25)]),
        (np.arange(50.0), np.zeros(50)),
        (np.zeros(7), np.ones(7)),
        (np.array([3.0]), np.array([1])),
    ]:
        fit = fit_bayesian_binning(s, y.astype(int), method=method)
        assert np.all(fit.values > 0) and np.all(fit.values < 1)
        t = np.linspace(-100, 100, 301)
        p = fit.predict(t)
        assert np.all(p > 0) and np.all(p < 1)


@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_repeated_rows_and_integer_weights_are_the_same_counts(method):
    rng = np.random.default_rng(3)
    s = np.round(rng.random(60), 1)
    y = (rng.random(60) < s).astype(int)
    w = rng.integers(0, 4, 60)
    w[0] = 1
    repeated = fit_bayesian_binning(np.repeat(s, w), np.repeat(y, w), method=method)
    counts = brute_force(s, y, w=w.astype(float))
    weighted = fit_bayesian_binning(s, y, w, method=method)
    np.testing.assert_array_equal(repeated.positions, weighted.positions)
    i = 3 if method == "averaging" else 1  # ABB or SBB values of the reference
    np.testing.assert_allclose(repeated.values, counts[i], atol=1e-10)
    np.testing.assert_array_equal(weighted.values, repeated.values)


@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_invariant_to_increasing_affine_maps_of_the_scores(method):
    # the prior depends on gaps relative to the range, the rest on the order
    rng = np.random.default_rng(11)
    s = rng.normal(size=200)
    y = (rng.random(200) < 1 / (1 + np.exp(-2 * s))).astype(int)
    a = fit_bayesian_binning(s, y, method=method)
    b = fit_bayesian_binning(3.0 * s - 7.0, y, method=method)
    np.testing.assert_allclose(a.values, b.values, atol=1e-9)


def test_label_swap_mirrors_the_estimates():
    # relabelling 0 <-> 1 and reversing the scores maps p to 1 - p at the mirrored position
    rng = np.random.default_rng(5)
    s = rng.normal(size=150)
    y = (rng.random(150) < 1 / (1 + np.exp(-s))).astype(int)
    a = fit_bayesian_binning(s, y)
    b = fit_bayesian_binning(-s, 1 - y)
    np.testing.assert_allclose(a.values, 1 - b.values[::-1], atol=1e-10)


def test_abb_tracks_a_smooth_posterior():
    rng = np.random.default_rng(2)
    n = 4000
    s = rng.uniform(-3, 3, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    fit = fit_bayesian_binning(s, y)
    t = np.linspace(-2.5, 2.5, 11)
    assert np.max(np.abs(fit.predict(t) - 1 / (1 + np.exp(-2 * t)))) < 0.1


def test_nearest_position_ties_go_to_the_lower_score():
    v = np.array([0.0, 1.0, 3.0])
    t = np.array([-1.0, 0.5, 0.50001, 2.0, 2.1, 5.0])
    np.testing.assert_array_equal(nearest_position(v, t), [0, 0, 1, 1, 2, 2])


def test_prediction_takes_the_value_of_the_nearest_position():
    s = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([0, 1, 0, 1])
    fit = fit_bayesian_binning(s, y, lam=50.0)
    np.testing.assert_array_equal(fit.predict([1.5, 1.49, 2.6, 99.0]), fit.values[[1, 1, 3, 3]])


def test_pool_scores_weighted_counts():
    v, n0, n1 = pool_scores(
        np.array([2.0, 1.0, 2.0, 2.0]), np.array([1, 0, 0, 1]), np.array([1.0, 2.0, 0.5, 3.0])
    )
    np.testing.assert_array_equal(v, [1.0, 2.0])
    np.testing.assert_array_equal(n0, [2.0, 0.5])
    np.testing.assert_array_equal(n1, [0.0, 4.0])


def test_zero_weights_are_no_observation():
    s = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    y = np.array([0, 1, 0, 1, 1])
    a = fit_bayesian_binning(s, y, [1, 1, 0, 1, 1])
    b = fit_bayesian_binning(s[[0, 1, 3, 4]], y[[0, 1, 3, 4]])
    np.testing.assert_allclose(a.values, b.values)


def test_default_lam_is_documented_value():
    assert DEFAULT_LAM == 10.0
    assert fit_bayesian_binning([0.0, 1.0], [0, 1]).lam == DEFAULT_LAM


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"method": "best"}, "'method' parameter of fit_bayesian_binning"),
        ({"lam": 0.0}, "'lam' parameter"),
        ({"lam": -1.0}, "'lam' parameter"),
        ({"lam": float("nan")}, "'lam' parameter"),
        ({"engine": "gpu"}, "'engine' parameter"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_bayesian_binning([0.0, 1.0], [0, 1], **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="NaN"):
        fit_bayesian_binning([0.0, np.nan], [0, 1])
    with pytest.raises(ValueError, match="infinite"):
        fit_bayesian_binning([0.0, np.inf], [0, 1])
    with pytest.raises(ValueError, match="only 0 and 1"):
        fit_bayesian_binning([0.0, 1.0], [0, 2])
    with pytest.raises(ValueError, match="Inconsistent lengths"):
        fit_bayesian_binning([0.0, 1.0], [0, 1, 1])
    with pytest.raises(ValueError, match="empty"):
        fit_bayesian_binning([], [])
    with pytest.raises(ValueError, match="negative"):
        fit_bayesian_binning([0.0, 1.0], [0, 1], [1.0, -1.0])


@pytest.mark.skipif(not bbmod.HAVE_NUMBA, reason="numba not installed")
def test_numba_engine_refuses_fractional_counts():
    with pytest.raises(ValueError, match="whole-number counts"):
        fit_bayesian_binning([0.0, 1.0], [0, 1], [0.5, 1.0], engine="numba")


def test_large_integer_weights_match_brute_force():
    # totals beyond the log-factorial tables take the gammaln route
    rng = np.random.default_rng(12)
    s = rng.integers(0, 6, 12) / 2.0
    y = rng.integers(0, 2, 12)
    w = np.full(12, 1_000_000.0)
    # a weight of a million is a million examples
    _, sbb_v, sbb_log, abb_v, abb_log, second = brute_force(s, y, w=w, lam=3.0)
    abb = fit_bayesian_binning(s, y, w, lam=3.0)
    np.testing.assert_allclose(abb.values, abb_v, rtol=0, atol=1e-10)
    assert abb.log_score == pytest.approx(abb_log, rel=1e-12)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-5, 1e5, 1e12])
def test_weights_of_any_magnitude_equal_brute_force(scale):
    # a weight of k is k examples at any magnitude: tiny weights leave the prior, huge ones
    # the frequencies, and the fit is the enumeration on those counts
    rng = np.random.default_rng(21)
    s = np.round(rng.normal(size=30), 0)
    y = (rng.random(30) < 1 / (1 + np.exp(-2 * s))).astype(int)
    for w in (np.ones(30), rng.uniform(0.2, 1.0, 30)):
        _, sbb_v, sbb_log, abb_v, abb_log, second = brute_force(s, y, w=w * scale, lam=3.0)
        abb = fit_bayesian_binning(s, y, w * scale, method="averaging", lam=3.0)
        sbb = fit_bayesian_binning(s, y, w * scale, method="selection", lam=3.0)
        assert np.all((abb.values > 0) & (abb.values < 1))
        assert np.all((sbb.values > 0) & (sbb.values < 1))
        np.testing.assert_allclose(abb.values, abb_v, rtol=0, atol=1e-9)
        assert abb.log_score == pytest.approx(abb_log, rel=1e-9, abs=1e-9)
        assert sbb.log_score == pytest.approx(sbb_log, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_weights_past_2_to_the_53_are_a_clear_error(method):
    with pytest.raises(ValueError, match=r"^'sample_weight' of fit_bayesian_binning totals"):
        fit_bayesian_binning([0.0, 1.0], [0, 1], [1e308, 1.7e308], method=method)
    with pytest.raises(ValueError, match="up to 2\\^53"):
        fit_bayesian_binning([0.0, 1.0], [0, 1], [2.0**52, 2.0**52 + 2], method=method)
    fit_bayesian_binning([0.0, 1.0], [0, 1], [2.0**52, 2.0**52], method=method)


@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_scores_spanning_the_float_range(method):
    rng = np.random.default_rng(22)
    s = np.sort(rng.uniform(-1, 1, 40))
    y = (rng.random(40) < (s + 1) / 2).astype(int)
    base = fit_bayesian_binning(s, y, method=method)
    huge = fit_bayesian_binning(s * 1.7e308, y, method=method)
    tiny = fit_bayesian_binning(s * 1e-300, y, method=method)
    for fit in (huge, tiny):
        assert np.all(np.isfinite(fit.values))
        np.testing.assert_allclose(fit.values, base.values, rtol=1e-9)


@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_max_positions_pools_neighbours_consistently(method):
    rng = np.random.default_rng(23)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    exact = fit_bayesian_binning(s, y, method=method)
    same = fit_bayesian_binning(s, y, method=method, max_positions=300)
    np.testing.assert_array_equal(same.values, exact.values)
    fit = fit_bayesian_binning(s, y, method=method, max_positions=12)
    np.testing.assert_array_equal(fit.positions, exact.positions)
    assert np.unique(fit.values).size <= 12
    # every calibration score gets its group's value, also through predict
    np.testing.assert_array_equal(fit.predict(fit.positions), fit.values)
    # the groups are the distinct scores of a pooled problem: check against enumeration
    groups = np.unique(fit.values, return_inverse=True)[1]
    starts = np.flatnonzero(np.r_[True, np.diff(groups) != 0])
    ends = np.r_[starts[1:], s.size] - 1
    order = np.argsort(s)
    reps = 0.5 * s[order][starts] + 0.5 * s[order][ends]
    grouped_scores = np.repeat(reps, ends - starts + 1)
    ref = brute_force(grouped_scores, y[order])
    i = 3 if method == "averaging" else 1
    np.testing.assert_allclose(np.unique(fit.values), np.unique(ref[i]), atol=1e-10)


def test_warns_before_a_long_fit_and_names_the_way_out(monkeypatch):
    # the O(N^2) fits the warning is for: many distinct scores, or tied ones (not carried)
    assert bbmod.expected_seconds(10**6) > 100
    assert bbmod.expected_seconds(200_000, carried=0.0) > 100
    assert bbmod.expected_seconds(200_000, averaging="paper") > 100
    assert bbmod.expected_seconds(5_000, carried=0.0) < costmod._WARN_SECONDS
    s = np.linspace(0, 1, 200)
    y = (s > 0.5).astype(int)
    monkeypatch.setattr(costmod, "_WARN_SECONDS", 1e-6)  # 200^2 * 4e-10 = 1.6e-5 s > 1e-6 s
    with pytest.warns(VenncalWarning, match="max_positions="):
        fit_bayesian_binning(s, y)
    # 100 groups of two scores each (carried): 100^2 * 4e-10 = 4e-6 s < 1e-4 s
    monkeypatch.setattr(costmod, "_WARN_SECONDS", 1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_bayesian_binning(s, y, max_positions=100)
    # the same 200 scores, each held by 10 examples: not carried, 200^2 * 5e-9 = 2e-4 s
    with pytest.warns(VenncalWarning, match="max_positions="):
        fit_bayesian_binning(np.repeat(s, 10), np.repeat(y, 10))


def test_max_positions_is_validated():
    with pytest.raises(ValueError, match="max_positions"):
        fit_bayesian_binning([0.0, 1.0], [0, 1], max_positions=1)


def test_a_gap_that_underflows_against_the_range_stays_finite():
    # lam * gap / span underflows to 0: log q is taken in log space, not log(0)
    s = np.array([0.0, 1.8848139161685606e-239, 7.629811673949862e84])
    y = np.array([0, 1, 0])
    for engine in ENGINES:
        for method in ("averaging", "selection"):
            for w in (None, [1.0, 1.0, 0.5]):
                if w is not None and engine == "numba":
                    continue  # fractional counts run the numpy loops
                fit = fit_bayesian_binning(s, y, w, lam=3.0, method=method, engine=engine)
                assert np.all(np.isfinite(fit.values))
                assert np.all((fit.values > 0) & (fit.values < 1))


@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_a_range_beyond_the_largest_float_with_subnormal_neighbours(method):
    """The range overflows (so it is measured in halves) while two scores differ by the
    smallest subnormal (which halving would merge): the fit equals enumeration with exact
    gaps, and stays a finite probability."""
    s = np.array([0.0, 5e-324, 1.7976931348623157e308, -9.9792015476736e291, 5e-324, 1e-320])
    y = np.array([0, 1, 0, 0, 1, 1])
    for w in (None, np.array([1.0, 1.0, 1.0, 0.5, 2.0, 1.0])):
        v, sbb_v, sbb_log, abb_v, abb_log, second = brute_force(s, y, w, lam=3.0)
        for engine in ENGINES:
            if w is not None and engine == "numba":
                continue  # fractional counts run the numpy loops
            fit = fit_bayesian_binning(s, y, w, lam=3.0, method=method, engine=engine)
            np.testing.assert_array_equal(fit.positions, v)
            assert np.all(np.isfinite(fit.values)) and np.isfinite(fit.log_score)
            if method == "averaging":
                np.testing.assert_allclose(fit.values, abb_v, rtol=0, atol=1e-10)
                assert fit.log_score == pytest.approx(abb_log, abs=1e-9)
            else:
                assert fit.log_score == pytest.approx(sbb_log, abs=1e-9)
                if sbb_log - second > 1e-9:
                    np.testing.assert_allclose(fit.values, sbb_v, rtol=0, atol=1e-10)
