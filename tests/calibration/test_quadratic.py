"""Quadratic scaling against its definition (tests/_reference/quadratic_mle.py)."""

import warnings

import numpy as np
import pytest
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import venncal
from tests._reference.quadratic_mle import (
    monotone_quadratic_mle,
    predict,
    quadratic_mle,
    quadratic_separable,
)
from tests.calibration._bad_input import bad_fit_inputs, bad_parameter_test
from tests.calibration.sklearn_checks import score_calibrator_xfails
from venncal import PlattCalibrator, QuadraticCalibrator, VenncalWarning
from venncal.core.quadratic import MONOTONE_RULES, fit_quadratic, separated_by


def _problem(seed, n=400, coef=None):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n) * rng.uniform(0.5, 1.5)
    b, w1, w2 = coef if coef is not None else (rng.normal(), rng.uniform(0.5, 2), 0.0)
    y = (rng.random(n) < expit(b + w1 * z + w2 * z * z)).astype(int)
    return z, y


def _monotone_coef(rng):
    # a bend whose vertex lies well outside the scores (|z| < 6)
    w1 = rng.uniform(0.8, 2.0)
    w2 = rng.choice([-1, 1]) * rng.uniform(0.03, 0.06)
    return rng.normal(scale=0.5), w1, w2


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_the_maximum_likelihood_fit(seed, weighted):
    rng = np.random.default_rng(seed)
    coef = _monotone_coef(rng) if seed % 2 else (rng.normal(), rng.normal(), rng.normal(scale=0.5))
    z, y = _problem(seed, coef=coef)
    w = rng.uniform(0.1, 3.0, size=z.size) if weighted else None
    ref = quadratic_mle(z, y, w)
    # "clip" keeps the unconstrained fit and holds it constant beyond its vertex only
    cal = QuadraticCalibrator(score_scale="logit", monotone="clip").fit(z, y, sample_weight=w)
    np.testing.assert_allclose([cal.intercept_, *cal.coef_], ref, atol=1e-6)
    grid = np.linspace(z.min(), z.max(), 201)
    rising = ref[1] + 2 * ref[2] * grid >= 0
    if rising.any():
        np.testing.assert_allclose(
            cal.predict_proba(grid[rising])[:, 1], predict(ref, grid[rising]), atol=1e-7
        )
    # where the fit rises over every score, the default rule keeps it too
    if rising.all():
        default = QuadraticCalibrator(score_scale="logit").fit(z, y, sample_weight=w)
        assert default.form_ == "quadratic"
        np.testing.assert_allclose(default.predict_proba(grid)[:, 1], predict(ref, grid), atol=1e-7)


@pytest.mark.parametrize("seed", range(4))
def test_probability_scores_are_read_as_their_log_odds(seed):
    rng = np.random.default_rng(seed)
    z, y = _problem(seed, coef=_monotone_coef(rng))
    s = expit(z)
    ref = quadratic_mle(logit(s), y)
    cal = QuadraticCalibrator().fit(s, y)
    grid = expit(np.linspace(z.min(), z.max(), 101))
    np.testing.assert_allclose(cal.predict_proba(grid)[:, 1], predict(ref, logit(grid)), atol=1e-6)
    # 0 and 1 are clipped to eps and 1 - eps, as beta calibration does
    eps = np.finfo(float).eps
    np.testing.assert_allclose(
        cal.predict_proba([0.0, 1.0])[:, 1], cal.predict_proba([eps, 1 - eps])[:, 1], rtol=1e-12
    )


@pytest.mark.parametrize("seed", range(6))
def test_constrained_rule_is_the_monotone_maximum_likelihood_fit(seed):
    rng = np.random.default_rng(seed)
    # a strongly bent truth whose vertex lies inside the scores
    z, y = _problem(seed, n=800, coef=(rng.normal(scale=0.3), 0.5, -rng.uniform(0.3, 0.8)))
    free = quadratic_mle(z, y)
    assert min(free[1] + 2 * free[2] * z.min(), free[1] + 2 * free[2] * z.max()) < 0
    ref = monotone_quadratic_mle(z, y)
    cal = QuadraticCalibrator(score_scale="logit").fit(z, y)
    grid = np.linspace(z.min(), z.max(), 201)
    np.testing.assert_allclose(cal.predict_proba(grid)[:, 1], predict(ref, grid), atol=1e-5)


@pytest.mark.parametrize("rule", MONOTONE_RULES)
@pytest.mark.parametrize("seed", range(6))
def test_every_rule_is_monotone_on_the_whole_line(rule, seed):
    rng = np.random.default_rng(seed)
    coef = (rng.normal(), rng.normal(), rng.normal(scale=0.5))
    z, y = _problem(seed, n=300, coef=coef)
    cal = QuadraticCalibrator(score_scale="logit", monotone=rule).fit(z, y)
    grid = np.r_[-1e300, -1e6, np.linspace(-50, 50, 2001), 1e6, 1e300]
    p = cal.predict_proba(grid)[:, 1]
    assert np.isfinite(p).all()
    assert (np.diff(p) >= 0).all()


def test_affine_rule_is_platt_without_smoothing():
    rng = np.random.default_rng(4)
    z, y = _problem(4, n=800, coef=(0.2, 0.5, -0.6))
    cal = QuadraticCalibrator(score_scale="logit", monotone="affine").fit(z, y)
    assert cal.form_ in ("affine", "constant")
    platt = PlattCalibrator(smoothing=False).fit(z, y)
    grid = np.linspace(-4, 4, 81)
    expected = platt.predict_proba(grid)[:, 1] if platt.a_ < 0 else np.full(81, y.mean())
    np.testing.assert_allclose(cal.predict_proba(grid)[:, 1], expected, atol=1e-6)
    del rng


@pytest.mark.parametrize("seed", range(6))
def test_integer_weights_are_copies(seed):
    rng = np.random.default_rng(seed)
    z, y = _problem(seed, n=150, coef=(rng.normal(), 1.0, rng.normal(scale=0.4)))
    k = rng.integers(0, 4, size=z.size)
    k[:2] = 1
    y[:2] = [0, 1]
    a = QuadraticCalibrator(score_scale="logit").fit(z, y, sample_weight=k)
    b = QuadraticCalibrator(score_scale="logit").fit(np.repeat(z, k), np.repeat(y, k))
    grid = np.linspace(-6, 6, 121)
    np.testing.assert_allclose(a.predict_proba(grid), b.predict_proba(grid), atol=1e-9)


@pytest.mark.parametrize("seed", range(40))
def test_separation_agrees_with_a_linear_program(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    z = rng.integers(-4, 5, size=n).astype(float)
    y = rng.integers(0, 2, size=n)
    assert separated_by(z, y) == quadratic_separable(z, y)


@pytest.mark.parametrize(
    "y, rule, separated",
    [
        # a quadratic separates positives in the middle; the monotone fits cannot, and are finite
        ([0, 0, 1, 1, 1, 0, 0], "clip", True),
        ([0, 0, 1, 1, 1, 0, 0], "constrained", False),
        ([1, 1, 0, 0, 0, 1, 1], "clip", True),
        ([1, 1, 0, 0, 0, 1, 1], "affine", False),
        # a threshold separates them: no finite fit by any rule
        ([0, 0, 0, 1, 1, 1, 1], "constrained", True),
        ([0, 0, 0, 1, 1, 1, 1], "affine", True),
        ([0, 0, 0, 1, 1, 1, 1], "clip", True),
    ],
)
def test_separated_classes_warn_and_give_a_finite_monotone_map(y, rule, separated):
    z = np.arange(7.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = QuadraticCalibrator(score_scale="logit", monotone=rule).fit(z, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, VenncalWarning)]
    assert bool(messages) == separated, messages
    assert all("separate" in m for m in messages)
    p = cal.predict_proba(np.linspace(-10, 20, 301))[:, 1]
    assert np.isfinite(p).all() and (np.diff(p) >= 0).all()


def test_interleaved_classes_do_not_warn():
    z = np.arange(8.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        QuadraticCalibrator(score_scale="logit").fit(z, [0, 1, 0, 1, 0, 1, 0, 1])


def test_scale_free_on_the_logit_scale():
    z, y = _problem(3, coef=(0.1, 1.0, 0.05))
    a = QuadraticCalibrator(score_scale="logit").fit(z, y).predict_proba(z)
    b = QuadraticCalibrator(score_scale="logit").fit(1e-200 * z, y).predict_proba(1e-200 * z)
    np.testing.assert_allclose(a, b, atol=1e-9)


def test_few_distinct_scores():
    # one distinct score: the class frequency; two: the two frequencies
    cal = QuadraticCalibrator(score_scale="logit").fit([1.0] * 4, [0, 1, 1, 1])
    np.testing.assert_allclose(cal.predict_proba([0.0, 5.0])[:, 1], 0.75)
    assert cal.form_ == "constant"
    cal = QuadraticCalibrator(score_scale="logit").fit([0, 0, 0, 1, 1, 1.0], [0, 0, 1, 0, 1, 1])
    np.testing.assert_allclose(cal.predict_proba([0.0, 1.0])[:, 1], [1 / 3, 2 / 3], atol=1e-9)


# the checks draw features of any sign: on the probability scale such scores are refused (as
# BetaCalibrator's are), so the checks run on log-odds
@parametrize_with_checks(
    [
        QuadraticCalibrator(score_scale="logit"),
        QuadraticCalibrator(score_scale="logit", monotone="affine"),
    ],
    expected_failed_checks=score_calibrator_xfails,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VenncalWarning)  # tiny data sets are often separated
        check(estimator)


@pytest.mark.parametrize(
    "scores, y, match",
    bad_fit_inputs((0.1, 0.9), (0.1, 0.5, 0.9)) + [([0.1, 1.5], [0, 1], "score_scale='logit'")],
)
def test_bad_fit_input(scores, y, match):
    with pytest.raises(ValueError, match=match):
        QuadraticCalibrator().fit(scores, y)


test_bad_parameters = bad_parameter_test(
    QuadraticCalibrator,
    [
        ({"score_scale": "odds"}, "score_scale"),
        ({"monotone": "yes"}, "monotone"),
        ({"max_iter": 0}, "max_iter"),
    ],
    scores=[0.2, 0.8],
    y=[0, 1],
)


def test_bad_predict_input_and_unfitted():
    with pytest.raises(NotFittedError):
        QuadraticCalibrator().predict_proba([0.5])
    cal = QuadraticCalibrator().fit([0.1, 0.4, 0.6, 0.9], [0, 1, 0, 1])
    for bad, match in (
        ([np.nan], "NaN"),
        ([1.2], "leave \\[0, 1\\]"),
        (np.zeros((2, 2)), "one column"),
    ):
        with pytest.raises(ValueError, match=match):
            cal.predict_proba(bad)


def test_core_rejects_bad_options():
    with pytest.raises(ValueError, match="monotone"):
        fit_quadratic([0.2, 0.8], [0, 1], monotone="no")


def test_model_file_round_trip(tmp_path):
    z, y = _problem(5, coef=(0.3, 1.0, -0.4))
    for i, cal in enumerate(
        (QuadraticCalibrator(score_scale="logit"), QuadraticCalibrator(monotone="clip"))
    ):
        s = z if cal.score_scale == "logit" else expit(z)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VenncalWarning)
            cal = clone(cal).fit(s, y)
        venncal.save(cal, tmp_path / f"q{i}.json")
        loaded = venncal.load(tmp_path / f"q{i}.json")
        assert type(loaded) is QuadraticCalibrator
        assert loaded.get_params() == cal.get_params()
        t = np.r_[s, s[:10] * 0.5]
        np.testing.assert_array_equal(loaded.predict_proba(t), cal.predict_proba(t))
