"""The ABB passes that carry each row's terms into the next, against the direct evaluation."""

import numpy as np
import pytest
from scipy.special import gammaln

from tests._reference.bayesian_binning_bruteforce import brute_force
from venncal.core import _bayesian_binning_scan as scan
from venncal.core import bayesian_binning as bbmod
from venncal.core.bayesian_binning import fit_bayesian_binning

needs_numba = pytest.mark.skipif(not bbmod.HAVE_NUMBA, reason="numba not installed")


def _inputs(s, y, lam=10.0):
    v, n0, n1 = bbmod.pool_scores(np.asarray(s, float), np.asarray(y))
    log_q, x = bbmod._log_q(v, lam)
    c0 = np.concatenate([[0], np.cumsum(n0)]).astype(np.int64)
    c1 = np.concatenate([[0], np.cumsum(n1)]).astype(np.int64)
    table = gammaln(np.arange(int(c0[-1] + c1[-1]) + 2, dtype=float) + 1.0)
    k = np.arange(table.size, dtype=float)
    klogk = k * np.log(np.maximum(k, 1.0))
    return c0, c1, c0 + c1, log_q, x, table, klogk, scan.EXP_TABLE_WIDE


def _values(forward, backward, args):
    log_f = forward(*args)
    d_mass, d_num = backward(*args, log_f)
    n = args[3].size
    return log_f, np.cumsum(d_num)[:n] / np.cumsum(d_mass)[:n]


@pytest.mark.parametrize("steps", [0, 1, 7, 64])
def test_python_passes_equal_brute_force_with_any_refresh_rate(monkeypatch, steps):
    # steps = 0: every row from the log-factorials; otherwise rows are carried between fresh
    # ones; ties (fresh rows) and single examples (carried rows) are mixed
    monkeypatch.setattr(scan, "_STEPS", steps)
    rng = np.random.default_rng(40 + steps)
    for _ in range(40):
        n = int(rng.integers(1, 30))
        s = rng.integers(0, int(rng.integers(1, 13)), n) * rng.choice([0.01, 1.0])
        y = (rng.random(n) < rng.random()).astype(int)
        lam = float(rng.choice([0.5, 3.0, 10.0, 40.0]))
        _, _, _, abb, log_total, _ = brute_force(s, y, lam=lam)
        log_f, values = _values(scan.forward_sums_py, scan.backward_averages_py, _inputs(s, y, lam))
        np.testing.assert_allclose(values, abb, rtol=0, atol=1e-10)
        assert log_f[-1] == pytest.approx(log_total, abs=1e-10)


def test_python_passes_with_a_small_growth_budget(monkeypatch):
    # a growth budget below one step's growth makes every row fresh; a budget of a few steps
    # refreshes every few rows
    rng = np.random.default_rng(50)
    s = rng.random(300)
    y = (rng.random(300) < 0.3 + 0.4 * s).astype(int)
    args = _inputs(s, y)
    ref = fit_bayesian_binning(s, y, engine="numpy")
    for budget in (0.5, 20.0, 400.0):
        monkeypatch.setattr(scan, "_GROWTH", budget)
        log_f, values = _values(scan.forward_sums_py, scan.backward_averages_py, args)
        np.testing.assert_allclose(values, ref.values, rtol=0, atol=1e-12)
        assert log_f[-1] == pytest.approx(ref.log_score, rel=1e-12)


def test_python_passes_grow_and_give_up_the_range(monkeypatch):
    # small blocks on long separated runs: the range grows and shrinks many times per pass
    monkeypatch.setattr(scan, "_BLOCK", 4)
    s = np.arange(240.0)
    y = ((s // 40) % 2).astype(int)
    y[[5, 100, 170]] ^= 1
    ref = fit_bayesian_binning(s, y, engine="numpy")
    log_f, values = _values(scan.forward_sums_py, scan.backward_averages_py, _inputs(s, y))
    np.testing.assert_allclose(values, ref.values, rtol=0, atol=1e-12)
    assert log_f[-1] == pytest.approx(ref.log_score, rel=1e-12)


@needs_numba
@pytest.mark.parametrize(
    "case",
    ["independent", "logistic", "steep", "runs", "ties and singles", "small ties", "big counts"],
)
def test_compiled_passes_agree_with_numpy(case):
    rng = np.random.default_rng(60)
    n = 3000
    s = rng.random(n)
    if case == "independent":
        y = (rng.random(n) < 0.5).astype(int)
    elif case == "logistic":
        y = (rng.random(n) < 1 / (1 + np.exp(-6 * (s - 0.5)))).astype(int)
    elif case == "steep":
        y = (rng.random(n) < 1 / (1 + np.exp(-200 * (s - 0.5)))).astype(int)
    elif case == "runs":  # long pure runs, then a switch: terms fall by hundreds of nats
        s = np.arange(n, dtype=float)
        y = ((s // 700) % 2).astype(int)
    elif case == "ties and singles":
        s = np.where(rng.random(n) < 0.5, np.round(s, 2), s)
        y = (rng.random(n) < s).astype(int)
    elif case == "small ties":  # 1 to 12 examples per score: carried up to 8, fresh above
        s = np.repeat(s[:600], rng.integers(1, 13, 600))
        y = (rng.random(s.size) < 0.5).astype(int)
    else:  # a few positions with thousands of examples among single ones
        s = np.r_[s, np.full(4000, 0.25), np.full(3000, 0.75)]
        y = np.r_[(rng.random(n) < s[:n]).astype(int), np.zeros(4000, int), np.ones(3000, int)]
    a = fit_bayesian_binning(s, y, engine="numba")
    b = fit_bayesian_binning(s, y, engine="numpy")
    np.testing.assert_allclose(a.values, b.values, rtol=0, atol=1e-12)
    assert a.log_score == pytest.approx(b.log_score, rel=1e-12)
