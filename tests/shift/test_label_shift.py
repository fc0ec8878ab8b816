"""Label shift: the target prior by EM and BBSE against independent references and the truth,
and probabilities adapted to it."""

import warnings

import numpy as np
import pytest
from scipy.special import expit, softmax

from tests._reference.label_shift_naive import bbse_lipton, kkt_gap, prior_mle, prior_mle_simplex
from venncal import VennAbersCalibrator, adjust_for_prior, estimate_target_prior
from venncal.diagnostics import prior_shift_posterior
from venncal.exceptions import VenncalWarning
from venncal.metrics import log_loss
from venncal.shift import PriorEstimate


def binary_sample(rng, n, prior, shift=1.0):
    """Gaussian classes N(+-shift, 1): the posterior at prior 1/2 is expit(2 shift x)."""
    y = (rng.random(n) < prior).astype(int)
    x = rng.normal(loc=np.where(y == 1, shift, -shift))
    return x, y


def source_posterior(x, shift=1.0):
    return expit(2 * shift * x)


MEANS3 = np.array([-2.0, 0.0, 2.0])


def three_class_sample(rng, n, prior):
    y = rng.choice(3, size=n, p=prior)
    x = rng.normal(loc=MEANS3[y])
    return x, y


def three_class_posterior(x, prior):
    """P(y = k | x) under ``prior`` for the classes N(MEANS3[k], 1)."""
    logits = -0.5 * (x[:, None] - MEANS3[None, :]) ** 2 + np.log(prior)[None, :]
    return softmax(logits, axis=1)


@pytest.mark.parametrize("seed", range(5))
def test_prior_moved_from_half_to_fifteen_percent(seed):
    """The criterion: 20,000 unlabelled target rows, estimate within 0.02, adapted log loss
    within 0.01 of the true posterior's and clearly better than unadapted."""
    rng = np.random.default_rng(seed)
    x, y = binary_sample(rng, 20_000, 0.15)
    p = source_posterior(x)
    est = estimate_target_prior(p, source_prior=0.5)
    assert abs(float(est) - 0.15) <= 0.02
    assert est.converged and est.method == "em" and est.n_iter > 0
    adapted = adjust_for_prior(p, 0.5, est)
    truth = prior_shift_posterior(p, prior=0.5, new_prior=0.15)
    assert log_loss(y, adapted) <= log_loss(y, truth) + 0.01
    assert log_loss(y, p) >= log_loss(y, adapted) + 0.05  # unadapted: clearly worse


@pytest.mark.parametrize("prior", [0.02, 0.1, 0.3, 0.5, 0.9])
@pytest.mark.parametrize("n", [1_000, 10_000, 100_000])
def test_binary_priors_and_sizes(prior, n):
    rng = np.random.default_rng(int(prior * 1000) + n)
    x, _ = binary_sample(rng, n, prior)
    p = source_posterior(x)
    em = estimate_target_prior(p, source_prior=0.5)
    # the EM is the maximum-likelihood estimate: its standard error is below the binomial one
    # times the inverse information of a separation of 2; 5 of them, and at least 0.01
    tol = max(5 * 1.6 * np.sqrt(prior * (1 - prior) / n), 0.01)
    assert abs(float(em) - prior) <= tol
    xs, ys = binary_sample(rng, 5_000, 0.5)
    bb = estimate_target_prior(p, method="bbse", y_cal=ys, p_cal=source_posterior(xs))
    assert abs(float(bb) - prior) <= 2 * tol


@pytest.mark.parametrize(
    "prior", [(0.7, 0.2, 0.1), (0.02, 0.08, 0.9), (0.45, 0.1, 0.45), (0.9, 0.05, 0.05)]
)
@pytest.mark.parametrize("n", [1_000, 100_000])
def test_three_classes(prior, n):
    rng = np.random.default_rng(n)
    prior = np.array(prior)
    source = np.full(3, 1 / 3)
    x, y = three_class_sample(rng, n, prior)
    p = three_class_posterior(x, source)
    est = estimate_target_prior(p, source_prior=source)
    tol = max(6 / np.sqrt(n), 0.01)
    assert np.abs(np.asarray(est) - prior).max() <= tol
    assert np.asarray(est).shape == (3,) and np.isclose(np.asarray(est).sum(), 1)
    with pytest.raises(TypeError, match="not one number"):
        float(est)
    xs, ys = three_class_sample(rng, 6_000, source)
    bb = estimate_target_prior(p, method="bbse", y_cal=ys, p_cal=three_class_posterior(xs, source))
    assert np.abs(np.asarray(bb) - prior).max() <= 2 * tol
    adapted = adjust_for_prior(p, source, est)
    truth = three_class_posterior(x, prior)
    nll = -np.mean(np.log(adapted[np.arange(n), y]))
    nll_truth = -np.mean(np.log(truth[np.arange(n), y]))
    assert nll <= nll_truth + 0.01 + 5 / np.sqrt(n)


@pytest.mark.parametrize("seed", range(4))
def test_em_is_the_maximum_likelihood_prior(seed):
    rng = np.random.default_rng(seed)
    x, _ = binary_sample(rng, 3_000, rng.uniform(0.05, 0.9))
    p = source_posterior(x, shift=0.7)
    est = estimate_target_prior(p, source_prior=0.5, tol=1e-12, max_iter=100_000)
    assert np.allclose(est.prior, prior_mle(p, 0.5), atol=1e-5)
    prior = rng.dirichlet(np.ones(3))
    x3, _ = three_class_sample(rng, 3_000, prior)
    src = np.array([0.5, 0.3, 0.2])
    p3 = three_class_posterior(x3, src)
    est3 = estimate_target_prior(p3, source_prior=src, tol=1e-12, max_iter=100_000)
    assert np.allclose(est3.prior, prior_mle(p3, src), atol=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_bbse_is_lipton_et_al(seed):
    rng = np.random.default_rng(seed)
    xs, ys = binary_sample(rng, 2_000, 0.5)
    x, _ = binary_sample(rng, 3_000, 0.3)
    est = estimate_target_prior(
        source_posterior(x), method="bbse", y_cal=ys, p_cal=source_posterior(xs)
    )
    ref = bbse_lipton(source_posterior(x), ys, source_posterior(xs))
    assert est.converged and np.allclose(est.prior, ref, atol=1e-10)
    src = np.full(3, 1 / 3)
    xs3, ys3 = three_class_sample(rng, 3_000, src)
    x3, _ = three_class_sample(rng, 3_000, np.array([0.2, 0.3, 0.5]))
    p3, ps3 = three_class_posterior(x3, src), three_class_posterior(xs3, src)
    est3 = estimate_target_prior(p3, method="bbse", y_cal=ys3, p_cal=ps3)
    assert np.allclose(est3.prior, bbse_lipton(p3, ys3, ps3), atol=1e-10)
    # the same from the confusion matrix (rows: truth, columns: prediction)
    from sklearn.metrics import confusion_matrix

    cm = confusion_matrix(ys3, ps3.argmax(axis=1))
    est_cm = estimate_target_prior(p3, method="bbse", confusion_matrix=cm)
    assert np.allclose(est_cm.prior, est3.prior, atol=1e-12)


def test_bbse_survives_miscalibration_em_does_not():
    """BBSE needs only a fixed confusion matrix; EM needs calibrated probabilities."""
    rng = np.random.default_rng(3)
    x, _ = binary_sample(rng, 50_000, 0.2)
    xs, ys = binary_sample(rng, 20_000, 0.5)
    over = expit(5 * x)  # over-confident, not calibrated
    em = estimate_target_prior(over, source_prior=0.5)
    bb = estimate_target_prior(over, method="bbse", y_cal=ys, p_cal=expit(5 * xs))
    assert abs(float(bb) - 0.2) < 0.015 < abs(float(em) - 0.2)


def test_bootstrap_interval_covers_the_truth():
    rng = np.random.default_rng(11)
    covered = 0
    reps = 30
    for _ in range(reps):
        x, _ = binary_sample(rng, 1_000, 0.25)
        est = estimate_target_prior(
            source_posterior(x),
            source_prior=0.5,
            n_boot=60,
            confidence_level=0.9,
            random_state=rng,
        )
        low, high = est.interval
        assert low <= float(est) <= high
        covered += low <= 0.25 <= high
    assert covered >= 22  # about 27 of 30 expected


def test_bootstrap_is_reproducible_and_shaped():
    rng = np.random.default_rng(0)
    x, y = three_class_sample(rng, 2_000, np.array([0.5, 0.3, 0.2]))
    p = three_class_posterior(x, np.full(3, 1 / 3))
    a = estimate_target_prior(p, source_prior=np.full(3, 1 / 3), n_boot=20, random_state=1)
    b = estimate_target_prior(p, source_prior=np.full(3, 1 / 3), n_boot=20, random_state=1)
    assert a.interval.shape == (3, 2) and np.array_equal(a.interval, b.interval)
    assert (a.interval[:, 0] <= a.interval[:, 1]).all()
    cm = np.array([[600, 50, 10], [80, 500, 90], [5, 60, 600]])
    c = estimate_target_prior(p, method="bbse", confusion_matrix=cm, n_boot=20, random_state=2)
    assert c.interval.shape == (3, 2) and c.n_iter == 0


def test_adjust_for_prior_properties():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, 50)
    # binary: the diagnostics' Bayes map; identity at the same prior; a round trip
    assert np.allclose(
        adjust_for_prior(p, 0.3, 0.7), prior_shift_posterior(p, prior=0.3, new_prior=0.7)
    )
    assert np.allclose(adjust_for_prior(p, 0.3, 0.3), p)
    assert np.allclose(adjust_for_prior(adjust_for_prior(p, 0.3, 0.8), 0.8, 0.3), p)
    # the binary map equals the two-class one
    two = adjust_for_prior(np.column_stack([1 - p, p]), [0.7, 0.3], [0.2, 0.8])
    assert np.allclose(two[:, 1], adjust_for_prior(p, 0.3, 0.8))
    # intervals: end by end, still intervals, monotone
    lo = rng.uniform(0, 0.5, 50)
    iv = np.column_stack([lo, lo + rng.uniform(0, 0.5, 50)])
    out = adjust_for_prior(iv, 0.5, 0.1)
    assert np.allclose(out[:, 0], adjust_for_prior(iv[:, 0], 0.5, 0.1))
    assert (out[:, 0] <= out[:, 1]).all()
    srt = np.sort(p)
    assert (np.diff(adjust_for_prior(srt, 0.5, 0.05)) >= 0).all()
    # multiclass: rows sum to one
    q = rng.dirichlet(np.ones(4), size=30)
    m = adjust_for_prior(q, np.full(4, 0.25), [0.1, 0.2, 0.3, 0.4])
    assert np.allclose(m.sum(axis=1), 1)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: estimate_target_prior([0.2, 0.5], method="em"), "source_prior"),
        (lambda: estimate_target_prior([0.2, 1.5], source_prior=0.5), "probabilities in"),
        (lambda: estimate_target_prior([0.2, 0.5], source_prior=1.0), "source_prior"),
        (lambda: estimate_target_prior([0.2, 0.5], source_prior=0.5, method="ml"), "method"),
        (lambda: estimate_target_prior([0.2, 0.5], method="bbse"), "y_cal"),
        (
            lambda: estimate_target_prior([0.2], method="bbse", y_cal=[0, 2], p_cal=[0.1, 0.9]),
            "class indices",
        ),
        (
            lambda: estimate_target_prior([0.2], method="bbse", y_cal=[0, 0], p_cal=[0.1, 0.9]),
            "every class",
        ),
        (lambda: estimate_target_prior([0.2], source_prior=0.5, n_boot=-1), "n_boot"),
        (lambda: estimate_target_prior([[0.2, 0.5]], source_prior=[0.5, 0.5]), "sum to 1"),
        (lambda: adjust_for_prior([[0.6, 0.4]], 0.5, 0.2), "p0 <= p1"),
        (lambda: adjust_for_prior([0.5], [0.5, 0.5], [0.2, 0.8]), "as a number"),
        (lambda: adjust_for_prior([0.5], 0.5, 1.2), "target_prior"),
        (lambda: adjust_for_prior([[0.2, 0.3, 0.5]], [0.5, 0.5], [0.5, 0.5]), "source_prior"),
    ],
)
def test_bad_input_is_one_line(call, message):
    with pytest.raises(ValueError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def test_prior_estimate_converts():
    est = estimate_target_prior([0.1, 0.8, 0.3], source_prior=0.5)
    assert isinstance(est, PriorEstimate)
    assert float(est) == float(np.asarray(est)) == est.prior[1]
    assert np.asarray(est, dtype=np.float32).dtype == np.float32
    with pytest.raises(AttributeError):
        est.method = "bbse"  # frozen


@pytest.mark.parametrize("seed", range(3))
def test_class_weighted_venn_abers_is_valid_under_label_shift(seed):
    """With a known target prior, Venn-Abers fitted with the calibration classes weighted by
    q_y / pi_y is calibrated on the target (the observed frequency in [mean p0, mean p1] up to
    sampling, overall and in bins); the unweighted one is not."""
    rng = np.random.default_rng(seed)
    pi, q = 0.5, 0.15
    xc, yc = binary_sample(rng, 4_000, pi, shift=0.8)
    xt, yt = binary_sample(rng, 40_000, q, shift=0.8)
    w = np.where(yc == 1, q / pi, (1 - q) / (1 - pi))
    weighted = VennAbersCalibrator().fit(xc, yc, sample_weight=w).predict_interval(xt)
    plain = VennAbersCalibrator().fit(xc, yc).predict_interval(xt)
    se = np.sqrt(q * (1 - q) / yt.size)
    low, high = weighted.mean(axis=0)
    assert low - 3 * se - 0.005 <= yt.mean() <= high + 3 * se + 0.005
    assert plain.mean(axis=0)[0] > yt.mean() + 0.1  # unweighted: far off
    # within bins of the merged probability, the frequency lies near the interval
    mid = weighted.mean(axis=1)
    edges = np.quantile(mid, np.linspace(0, 1, 6))
    idx = np.clip(np.searchsorted(edges, mid, side="right") - 1, 0, 4)
    for b in range(5):
        sel = idx == b
        f = yt[sel].mean()
        slack = 3 * np.sqrt(max(f * (1 - f), 0.01) / sel.sum()) + 0.02
        lo_b, hi_b = weighted[sel].mean(axis=0)
        assert lo_b - slack <= f <= hi_b + slack
    # moving the unweighted interval's ends to the new prior comes close to the weighted one
    moved = adjust_for_prior(plain, pi, q)
    assert np.abs(moved.mean(axis=0) - weighted.mean(axis=0)).max() < 0.02


def overlapping_problem(seed):
    """K = 2..5 Gaussian classes, overlapping little or much, random source and target priors:
    ordinary problems on which plain EM crawls (the rate of its linear convergence near 1)."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    means = np.linspace(-1.0, 1.0, k) * k * rng.uniform(0.1, 1.5)
    source = rng.dirichlet(np.full(k, 2.0))
    y = rng.choice(k, size=int(rng.integers(500, 4_000)), p=rng.dirichlet(np.ones(k)))
    x = rng.normal(loc=means[y])
    p = softmax(-0.5 * (x[:, None] - means[None, :]) ** 2 + np.log(source)[None, :], axis=1)
    return p, source


def test_em_reaches_the_maximum_likelihood_prior_on_30_problems():
    """Plain EM stopped at max_iter on 6 of these 30, up to 0.024 from the maximum; now every
    estimate converges, meets the KKT conditions and equals SLSQP on the simplex."""
    worst = 0.0
    for seed in range(30):
        p, source = overlapping_problem(seed)
        est = estimate_target_prior(p, source_prior=source)
        assert est.converged
        assert kkt_gap(p, source, est.prior) <= 1e-9
        ref = prior_mle_simplex(p, source)
        assert kkt_gap(p, source, est.prior) <= max(kkt_gap(p, source, ref), 1e-9)
        worst = max(worst, np.abs(est.prior - ref).max())
    assert worst <= 1e-6


def test_em_warns_when_it_stops_before_converging(monkeypatch):
    import venncal.shift._prior_em as prior_em

    p, source = overlapping_problem(25)  # plain EM needs thousands of steps here
    monkeypatch.setattr(prior_em, "_NEWTON_WORK", 0)  # no Newton: the EM tolerance decides
    with pytest.warns(VenncalWarning, match="max_iter=3 iterations before converging"):
        est = estimate_target_prior(p, source_prior=source, max_iter=3)
    assert not est.converged
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert estimate_target_prior(p, source_prior=source, max_iter=3).converged


TINY = np.finfo(np.float64).tiny


@pytest.mark.parametrize("small", [TINY / 2, 1e-310, 5e-324])
def test_subnormal_priors_are_refused_in_one_line(small):
    """A class probability below the smallest normal double made p / prior overflow: all NaN
    from adjust_for_prior, [nan, nan] from estimate_target_prior."""
    p = np.array([0.2, 0.5, 0.9])
    p3 = np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])
    three = [small, 0.5, 0.5 - small]
    calls = [
        lambda: adjust_for_prior(p, small, 0.3),
        lambda: adjust_for_prior(p, 0.3, small),
        lambda: adjust_for_prior(np.column_stack([1 - p, p]), [small, 1 - small], [0.5, 0.5]),
        lambda: adjust_for_prior(p3, three, [0.2, 0.3, 0.5]),
        lambda: adjust_for_prior(p3, [0.2, 0.3, 0.5], three),
        lambda: estimate_target_prior(p, source_prior=small),
        lambda: estimate_target_prior(p3, source_prior=three),
        lambda: estimate_target_prior(
            p3, method="bbse", confusion_matrix=np.eye(3), source_prior=three
        ),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="smallest normal double") as info:
            call()
        assert "\n" not in str(info.value)


def test_smallest_normal_prior_is_usable():
    p = np.array([0.2, 0.5, 0.9])
    for out in (adjust_for_prior(p, TINY, 0.3), adjust_for_prior(p, 0.3, TINY)):
        assert np.isfinite(out).all() and ((out >= 0) & (out <= 1)).all()
    est = estimate_target_prior(p, source_prior=TINY)
    assert np.isfinite(est.prior).all() and np.isclose(est.prior.sum(), 1.0)


def test_estimates_at_the_boundary_are_priors_adjust_for_prior_takes():
    """BBSE's clipped solution and an EM maximum with a class at 0 gave exact zeros, which
    adjust_for_prior refused; they come out as the smallest normal double."""
    p = np.linspace(0.01, 0.4, 50)  # every row predicted negative: BBSE's q_1 is negative
    bb = estimate_target_prior(p, method="bbse", confusion_matrix=[[80, 20], [20, 80]])
    em = estimate_target_prior(np.full(50, 0.05), source_prior=0.5)  # the maximum: q = 0
    for est in (bb, em):
        assert est.prior.min() >= TINY
        assert np.isfinite(adjust_for_prior(p, 0.5, est)).all()
    assert not bb.converged and bb.prior[1] == TINY
    assert em.converged and em.prior[1] < 1e-8
