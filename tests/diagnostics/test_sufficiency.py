"""Tasche's sufficiency criteria (Theorem 3.4, Propositions 3.6 and 3.7) on simulated samples."""

import numpy as np
import pytest
from scipy.special import logit

from venncal.datasets import BivariateNormalModel
from venncal.diagnostics import gaussian_refinement_loss, sufficiency_check


def _sample(rho, n=20_000, seed=0):
    model = BivariateNormalModel(rho=rho)
    X, _ = model.sample(n, random_state=seed)
    return model, X


def _naive_gap(score, eta, costs):
    """min over thresholds by brute force: every distinct score value as a threshold."""
    out = []
    ts = np.r_[-np.inf, np.unique(score)]
    for c in costs:
        losses = [np.mean(c * (1 - eta) * (score > t) + (1 - c) * eta * (score <= t)) for t in ts]
        out.append(min(losses) - np.mean(np.minimum(c * (1 - eta), (1 - c) * eta)))
    return max(out)


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_the_posterior_and_its_increasing_transforms_are_sufficient(rho):
    model, X = _sample(rho)
    eta = model.posterior(X)
    for score in (eta, 3 * logit(eta) + 1, eta**3):
        res = sufficiency_check(score, eta, calibrated=eta)
        assert res.threshold_gap < 1e-12
        assert res.kendall_tau == pytest.approx(1.0, abs=1e-12)
        assert res.curve_gap == 0.0 and res.grouping_loss == 0.0


def test_partial_posterior_is_not_sufficient_and_its_grouping_loss_is_the_curve_area():
    model, X = _sample(0.5, n=40_000, seed=1)
    eta, q = model.posterior(X), model.partial_posterior(X)
    res = sufficiency_check(X[:, 0], eta, calibrated=q, costs=np.linspace(0, 1, 2001))
    assert res.threshold_gap > 0.02 and res.curve_gap > 0.02
    assert res.kendall_tau < 0.95
    # grouping loss from the closed-form curves (Example 3.12's computation, rho = 0.5)
    cov = model.covariance
    delta = np.array(model.mean1) - np.array(model.mean0)
    d_both = float(np.sqrt(delta @ np.linalg.solve(cov, delta)))
    want = gaussian_refinement_loss(separation=delta[0]) - gaussian_refinement_loss(
        separation=d_both
    )
    gap2 = (eta - q) ** 2
    assert abs(res.grouping_loss - want) < 4 * gap2.std() / np.sqrt(len(gap2))
    # eq. (15b): twice the area between the calibrated and the full curve, up to sampling
    area = 2 * np.trapezoid(res.calibrated_loss - res.bayes_loss, res.costs)
    assert abs(area - res.grouping_loss) < 0.1 * want


@pytest.mark.parametrize(("rho", "sufficient"), [(0.0, True), (0.5, False)])
def test_naive_bayes_score_is_sufficient_only_for_independent_components(rho, sufficient):
    # with rho = 0 the naive-Bayes formula is the posterior (Figure 1's model); with
    # correlated components its recalibration still loses information (Figure 2)
    model, X = _sample(rho, seed=2)
    eta = model.posterior(X)
    score = model.naive_bayes_score(X)
    res = sufficiency_check(score, eta, calibrated=model.naive_bayes_recalibrated(X))
    if sufficient:
        assert res.threshold_gap < 1e-12 and res.curve_gap < 1e-12
        assert res.kendall_tau == pytest.approx(1.0, abs=1e-12)
    else:
        assert res.threshold_gap > 1e-3 and res.grouping_loss > 1e-3
        assert res.kendall_tau < 0.99
        # the calibrated score is increasing in the score: thresholding the score is as good
        # as the calibrated score's Bayes rule, up to sampling
        assert np.max(np.abs(res.threshold_loss - res.calibrated_loss)) < 5e-3


def test_best_threshold_matches_brute_force():
    rng = np.random.default_rng(4)
    eta = rng.random(300)
    score = np.round(eta + rng.normal(scale=0.2, size=300), 1)  # ties and discordance
    costs = np.linspace(0, 1, 21)
    res = sufficiency_check(score, eta, costs=costs)
    assert res.threshold_gap == pytest.approx(_naive_gap(score, eta, costs), abs=1e-14)
    assert np.all(res.threshold_loss >= res.bayes_loss - 1e-15)


def test_weights_equal_repeated_rows():
    rng = np.random.default_rng(5)
    eta = rng.random(50)
    score = eta + rng.normal(scale=0.3, size=50)
    w = rng.integers(1, 4, size=50)
    rep = np.repeat(np.arange(50), w)
    a = sufficiency_check(score, eta, calibrated=eta**2, sample_weight=w)
    b = sufficiency_check(score[rep], eta[rep], calibrated=(eta**2)[rep])
    np.testing.assert_allclose(a.threshold_loss, b.threshold_loss, atol=1e-15)
    assert a.grouping_loss == pytest.approx(b.grouping_loss)


def test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        sufficiency_check([0.1, 0.2], [0.3])
    with pytest.raises(ValueError, match="score"):
        sufficiency_check([0.1, np.inf], [0.3, 0.4])
    with pytest.raises(ValueError, match="posterior"):
        sufficiency_check([0.1, 0.2], [0.3, 1.4])
    with pytest.raises(ValueError, match="calibrated"):
        sufficiency_check([0.1, 0.2], [0.3, 0.4], calibrated=[0.5])
    with pytest.raises(ValueError, match="costs"):
        sufficiency_check([0.1, 0.2], [0.3, 0.4], costs=[-0.1])
