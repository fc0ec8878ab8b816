"""Learn-then-Test abstention: p-values, bounds, agreement with the naive definition, validity."""

import numpy as np
import pytest
from scipy import integrate
from scipy.special import expit, logit
from scipy.stats import norm

from tests._reference.ltt_naive import binomial_cdf, ltt_naive
from venncal.core.abstention import (
    binomial_pvalue,
    clopper_pearson_upper,
    learn_then_test,
    smallest_testable_count,
    threshold_grid,
    top_label_confidence,
)


@pytest.mark.parametrize("n", [1, 7, 45, 300])
@pytest.mark.parametrize("target", [0.01, 0.05, 0.3])
def test_pvalue_is_the_binomial_distribution_function(n, target):
    for k in range(0, n + 1, max(1, n // 7)):
        got = float(binomial_pvalue(k, n, target))
        assert got == pytest.approx(binomial_cdf(k, n, target), rel=1e-9, abs=1e-300)


def test_upper_bound_inverts_the_pvalue():
    for k, n in [(0, 45), (3, 200), (10, 11), (0, 1)]:
        for delta in (0.01, 0.1, 0.5):
            ub = float(clopper_pearson_upper(k, n, delta))
            assert float(binomial_pvalue(k, n, ub)) == pytest.approx(delta, rel=1e-7)
            # a target just above the bound is rejected, just below it is not
            above = min(ub * 1.0001, 1.0)
            assert binomial_pvalue(k, n, above) <= delta < binomial_pvalue(k, n, ub * 0.999)
    assert float(clopper_pearson_upper(5, 5, 0.1)) == 1.0
    assert float(binomial_pvalue(5, 5, 0.1)) == 1.0


def test_smallest_testable_count_is_the_first_count_that_can_pass():
    for target, delta in [(0.05, 0.1), (0.1, 0.1), (0.01, 0.05), (0.2, 0.5)]:
        m = smallest_testable_count(target, delta)
        assert binomial_pvalue(0, m, target) <= delta < binomial_pvalue(0, m - 1, target)


def test_grid_is_strictly_decreasing_from_one_to_zero():
    g = threshold_grid(1000)
    assert g[0] == 1.0 and g[-1] == 0.0 and (np.diff(g) < 0).all()


def test_top_label_takes_the_first_of_equal_columns():
    top, conf = top_label_confidence(np.array([[0.3, 0.3, 0.4], [0.5, 0.5, 0.0]]))
    assert top.tolist() == [2, 0] and conf.tolist() == [0.4, 0.5]


def _binary_rows(rng, n, mu=1.0):
    y = rng.random(n) < 0.5
    x = rng.normal(np.where(y, mu, -mu), 1.0)
    p = expit(2 * mu * x)  # the posterior of two unit Gaussians at -mu and mu
    return np.maximum(p, 1 - p), (p >= 0.5) != y


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_the_naive_definition(seed):
    rng = np.random.default_rng(seed)
    conf, wrong = _binary_rows(rng, 300)
    conf = np.round(conf, 2)  # ties between rows and with the grid
    grid = np.linspace(1.0, 0.5, 51)
    for target, start in [(0.05, 45), (0.1, 30), (0.2, 120), (0.1, 1000)]:
        got = learn_then_test(
            conf, wrong, target_error=target, delta=0.1, thresholds=grid, min_accepted=start
        )
        want = ltt_naive(conf, wrong, grid, target=target, delta=0.1, min_accepted=start)
        assert (got.threshold, got.n_accepted, got.n_errors) == want


def test_integer_weights_are_repeated_rows():
    rng = np.random.default_rng(3)
    conf, wrong = _binary_rows(rng, 200)
    reps = rng.integers(0, 4, 200)
    grid = threshold_grid(200)
    got = learn_then_test(
        conf, wrong, reps.astype(float), target_error=0.1, delta=0.1, thresholds=grid,
        min_accepted=60,
    )  # fmt: skip
    expanded = learn_then_test(
        np.repeat(conf, reps), np.repeat(wrong, reps), target_error=0.1, delta=0.1,
        thresholds=grid, min_accepted=60,
    )  # fmt: skip
    want = ltt_naive(conf, wrong, grid, target=0.1, delta=0.1, min_accepted=60, repeats=reps)
    assert (got.threshold, got.n_accepted, got.n_errors) == want
    assert got.threshold == expanded.threshold and got.coverage == pytest.approx(expanded.coverage)


def _selective_error(threshold, mu=1.0):
    """The true error among accepted rows of the two-Gaussian problem, by quadrature."""
    if threshold <= 0.5:
        x0 = 0.0
    else:
        x0 = logit(threshold) / (2 * mu)

    def density(x):  # of |x|, the mixture folded at 0
        return norm.pdf(x, mu) + norm.pdf(x, -mu)

    mass = integrate.quad(density, x0, np.inf)[0]
    bad = integrate.quad(lambda x: density(x) * expit(-2 * mu * x), x0, np.inf)[0]
    return bad / mass


def test_valid_in_at_least_about_one_minus_delta_of_draws():
    """40 calibration draws of 1000 rows, target 0.05, delta 0.1: the true selective error
    exceeds the target in about 4 draws if the procedure is valid; 10 or more happens with
    probability 0.001 then. A draw where no threshold passes answers nothing (and is valid)."""
    rng = np.random.default_rng(2026)
    grid = threshold_grid(400)
    exceed = passed = 0
    for _ in range(40):
        conf, wrong = _binary_rows(rng, 1000)
        res = learn_then_test(
            conf, wrong, target_error=0.05, delta=0.1, thresholds=grid, min_accepted=180
        )
        if res.n_rejected == 0:  # accepts nothing, errs never
            continue
        passed += 1
        assert res.error_bound <= 0.05
        exceed += _selective_error(res.threshold) > 0.05
    assert exceed < 10 and passed >= 30


def test_naive_agreement_in_the_validity_design():
    rng = np.random.default_rng(7)
    grid = threshold_grid(400)
    for _ in range(3):
        conf, wrong = _binary_rows(rng, 400)
        got = learn_then_test(
            conf, wrong, target_error=0.05, delta=0.1, thresholds=grid, min_accepted=180
        )
        want = ltt_naive(conf, wrong, grid, target=0.05, delta=0.1, min_accepted=180)
        assert (got.threshold, got.n_accepted, got.n_errors) == want


def test_no_threshold_passes_gives_inf_and_the_smallest_target():
    conf = np.linspace(0.6, 1.0, 100)
    wrong = np.arange(100) % 3 == 0  # a third wrong everywhere
    res = learn_then_test(
        conf, wrong, target_error=0.05, delta=0.1, thresholds=threshold_grid(), min_accepted=50
    )
    assert res.n_rejected == 0 and res.threshold == np.inf
    again = learn_then_test(
        conf, wrong, target_error=res.smallest_target * 1.0001, delta=0.1,
        thresholds=threshold_grid(), min_accepted=50,
    )  # fmt: skip
    assert again.n_rejected > 0
