"""ABB's two weightings: the exact model average (eq. 7) and the paper's eq. (8) as printed."""

import numpy as np
import pytest

from tests._reference.bayesian_binning_bruteforce import brute_force, paper_eq8
from venncal.core import bayesian_binning as bbmod
from venncal.core.bayesian_binning import fit_bayesian_binning

ENGINES = ["numpy"] + (["numba"] if bbmod.HAVE_NUMBA else [])


def _problem(rng, max_distinct=9):
    n = int(rng.integers(1, 20))
    grid = np.sort(rng.normal(size=max_distinct)) * rng.choice([0.01, 1.0, 100.0])
    s = grid[rng.integers(0, int(rng.integers(1, max_distinct + 1)), n)]
    y = (rng.random(n) < rng.random()).astype(int)
    lam = float(rng.choice([0.3, 1.0, 3.0, 10.0, 30.0]))
    return s, y, lam


@pytest.mark.parametrize("seed", range(4))
def test_paper_variant_equals_a_naive_eq8(seed):
    # 4 x 60 random problems with ties, N <= 9 distinct scores, both engines
    rng = np.random.default_rng(300 + seed)
    for _ in range(60):
        s, y, lam = _problem(rng)
        v, ref = paper_eq8(s, y, lam=lam)
        for engine in ENGINES:
            fit = fit_bayesian_binning(s, y, lam=lam, averaging="paper", engine=engine)
            np.testing.assert_array_equal(fit.positions, v)
            np.testing.assert_allclose(fit.values, ref, rtol=0, atol=1e-10)
            assert fit.averaging == "paper"
            # its log score is that of the best binning, as for SBB
            sbb = fit_bayesian_binning(s, y, lam=lam, method="selection", engine=engine)
            assert fit.log_score == pytest.approx(sbb.log_score, abs=1e-10)


def test_paper_variant_with_fractional_weights_equals_a_naive_eq8():
    rng = np.random.default_rng(310)
    for _ in range(40):
        s, y, lam = _problem(rng, max_distinct=7)
        w = rng.uniform(0.1, 3.0, s.size)
        _, ref = paper_eq8(s, y, w=w, lam=lam)  # a weight of k is k examples
        fit = fit_bayesian_binning(s, y, w, lam=lam, averaging="paper")
        np.testing.assert_allclose(fit.values, ref, rtol=0, atol=1e-10)


@pytest.mark.parametrize("engine", ENGINES)
def test_exact_and_paper_agree_where_each_prefix_and_suffix_has_one_binning(engine):
    # with N <= 2 distinct scores every prefix and suffix has a single binning, so its best
    # score is its total score and eq. (8) is eq. (7)
    rng = np.random.default_rng(320)
    for _ in range(50):
        s = rng.choice([0.0, 1.0], size=int(rng.integers(1, 30))) * rng.uniform(0.1, 10)
        y = rng.integers(0, 2, s.size)
        lam = float(rng.choice([0.5, 3.0, 30.0]))
        exact = fit_bayesian_binning(s, y, lam=lam, engine=engine)
        paper = fit_bayesian_binning(s, y, lam=lam, averaging="paper", engine=engine)
        np.testing.assert_allclose(paper.values, exact.values, rtol=0, atol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_exact_and_paper_differ_where_binnings_compete(engine):
    # labels that do not depend on the score: many binnings of each prefix score alike, the
    # best one is far from their sum, and eq. (8) as printed is not the model average
    s = np.arange(10.0)
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1, 0, 1])
    v, _, _, eq7, _, _ = brute_force(s, y, lam=3.0)
    _, eq8 = paper_eq8(s, y, lam=3.0)
    exact = fit_bayesian_binning(s, y, lam=3.0, engine=engine)
    paper = fit_bayesian_binning(s, y, lam=3.0, averaging="paper", engine=engine)
    np.testing.assert_allclose(exact.values, eq7, rtol=0, atol=1e-10)
    np.testing.assert_allclose(paper.values, eq8, rtol=0, atol=1e-10)
    assert np.max(np.abs(exact.values - paper.values)) > 0.03


def test_exact_and_paper_close_when_one_binning_dominates():
    # long, perfectly separated runs: one binning carries nearly all the posterior mass, so the
    # best score of every prefix and suffix is nearly its total and the two weightings agree
    s = np.arange(400.0)
    y = ((s // 100) % 2).astype(int)
    exact = fit_bayesian_binning(s, y)
    paper = fit_bayesian_binning(s, y, averaging="paper")
    assert np.max(np.abs(exact.values - paper.values)) < 0.005
    # where the labels do not depend on the scores, the gap is ten times larger
    rng = np.random.default_rng(0)
    s = rng.random(400)
    y = (rng.random(400) < 0.5).astype(int)
    gap = fit_bayesian_binning(s, y).values - fit_bayesian_binning(s, y, averaging="paper").values
    assert np.max(np.abs(gap)) > 0.05


@pytest.mark.parametrize("method", ["averaging", "selection"])
def test_paper_variant_under_max_positions(method):
    rng = np.random.default_rng(330)
    s = rng.random(200)
    y = (rng.random(200) < s).astype(int)
    fit = fit_bayesian_binning(s, y, method=method, averaging="paper", max_positions=8)
    assert np.unique(fit.values).size <= 8
    if method == "selection":  # SBB ignores the option
        sbb = fit_bayesian_binning(s, y, method=method, max_positions=8)
        np.testing.assert_array_equal(fit.values, sbb.values)
        assert fit.averaging == "exact"


@pytest.mark.skipif(not bbmod.HAVE_NUMBA, reason="numba not installed")
def test_paper_variant_compiled_agrees_with_numpy():
    rng = np.random.default_rng(340)
    s = np.round(rng.normal(size=1500), 2)
    y = (rng.random(1500) < 1 / (1 + np.exp(-3 * s))).astype(int)
    a = fit_bayesian_binning(s, y, averaging="paper", engine="numba")
    b = fit_bayesian_binning(s, y, averaging="paper", engine="numpy")
    np.testing.assert_allclose(a.values, b.values, rtol=0, atol=1e-12)


@pytest.mark.parametrize("bad", ["Paper", "eq8", None, 8])
def test_averaging_is_validated(bad):
    with pytest.raises(ValueError, match="'averaging' parameter of fit_bayesian_binning"):
        fit_bayesian_binning([0.0, 1.0], [0, 1], averaging=bad)


def test_calibrator_passes_the_option_and_validates_it():
    from venncal import BayesianBinningCalibrator

    rng = np.random.default_rng(350)
    s = rng.random(60)
    y = (rng.random(60) < 0.5).astype(int)
    cal = BayesianBinningCalibrator(averaging="paper", lam=3.0).fit(s, y)
    ref = fit_bayesian_binning(s, y, lam=3.0, averaging="paper")
    np.testing.assert_array_equal(cal.predict_proba(s)[:, 1], ref.predict(s))
    with pytest.raises(ValueError, match="'averaging' parameter of BayesianBinningCalibrator"):
        BayesianBinningCalibrator(averaging="literal").fit(s, y)
