"""MatrixScalingCalibrator against the minimiser of its objective, computed independently."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import venncal
from tests._reference.matrix_scaling_naive import matrix_scaling_naive, temperature_naive
from tests.calibration._score_matrix import (
    N_ITER_XFAILS,
    check_bad_parameter_one_line,
    log_softmax,
    make,
    sklearn_checks_test,
)
from venncal.calibration import MatrixScalingCalibrator
from venncal.core.matrix_scaling import STRUCTURES, fit_temperature
from venncal.exceptions import VenncalWarning


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("K", [2, 4, 10])
def test_equals_the_minimiser_of_its_objective(structure, K):
    n = {2: 80, 4: 150, 10: 500}[K]
    S, y, St = make(K, n=n, K=K)
    cal = MatrixScalingCalibrator(structure=structure).fit(S, y)
    ref = matrix_scaling_naive(log_softmax(S), y, log_softmax(St), structure)
    np.testing.assert_allclose(cal.predict_proba(St), ref, atol=1e-6, rtol=0)


@pytest.mark.parametrize("structure", ["sms", "svs"])
def test_other_penalties_and_weights_equal_the_definition(structure):
    S, y, St = make(7, n=90, K=5)
    w = np.random.default_rng(1).uniform(0.2, 3.0, size=90)
    lambdas = (0.3, 2.0, 5.0)
    cal = MatrixScalingCalibrator(
        structure=structure, lambda_intercept=0.3, lambda_diagonal=2.0, lambda_off_diagonal=5.0
    ).fit(S, y, sample_weight=w)
    ref = matrix_scaling_naive(log_softmax(S), y, log_softmax(St), structure, lambdas, w)
    np.testing.assert_allclose(cal.predict_proba(St), ref, atol=1e-6, rtol=0)


def test_temperature_step_equals_its_definition():
    S, y, _ = make(3, n=200, K=4)
    t = log_softmax(S)
    w = np.ones(200)
    assert fit_temperature(t, y) == pytest.approx(temperature_naive(t, y, w), rel=1e-9)


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("seed", range(2))
def test_weight_k_is_k_copies(structure, seed):
    S, y, St = make(seed, n=60, K=4)
    w = np.random.default_rng(seed).integers(0, 4, size=60)
    w[:4] = 1  # every class keeps an example
    rows = np.repeat(np.arange(60), w)
    weighted = MatrixScalingCalibrator(structure=structure).fit(S, y, sample_weight=w)
    copies = MatrixScalingCalibrator(structure=structure).fit(S[rows], y[rows])
    np.testing.assert_allclose(
        weighted.predict_proba(St), copies.predict_proba(St), atol=1e-9, rtol=0
    )


def test_score_types_agree():
    S, y, St = make(2, K=3)
    P, Pt = np.exp(log_softmax(S)), np.exp(log_softmax(St))
    a = MatrixScalingCalibrator().fit(S, y).predict_proba(St)
    b = MatrixScalingCalibrator().fit(P, y).predict_proba(Pt)
    c = MatrixScalingCalibrator(score_type="logits").fit(S + 5.0, y).predict_proba(St - 2.0)
    np.testing.assert_allclose(a, b, atol=1e-8)
    np.testing.assert_allclose(a, c, atol=1e-8)


def test_zero_probabilities_stay_finite():
    S, y, St = make(4, n=200, K=4, sharp=30.0)
    P = np.exp(log_softmax(S))
    P[P < 1e-12] = 0.0
    P /= P.sum(axis=1, keepdims=True)
    proba = MatrixScalingCalibrator().fit(P, y).predict_proba(np.exp(log_softmax(St)))
    assert np.isfinite(proba).all() and (proba > 0).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_penalty_pulls_towards_temperature_scaling():
    S, y, St = make(5, n=100, K=5)
    big = MatrixScalingCalibrator(
        lambda_intercept=1e9, lambda_diagonal=1e9, lambda_off_diagonal=1e9
    ).fit(S, y)
    a, c = big.map_.inverse_temperature, big.map_.smoothing
    assert c == 1 / 101
    expected = (1 - c) * np.exp(log_softmax(a * St)) + c / 5
    np.testing.assert_allclose(big.predict_proba(St), expected, atol=1e-6)
    assert np.abs(big.map_.delta).max() < 1e-6


def test_model_file_round_trip(tmp_path):
    S, y, St = make(6, K=4)
    labels = np.array(["a", "b", "c", "d"])[y]
    for structure in STRUCTURES:
        cal = MatrixScalingCalibrator(structure=structure).fit(S, labels)
        loaded = venncal.load(venncal.save(cal, tmp_path / f"{structure}.json"))
        np.testing.assert_array_equal(loaded.predict_proba(St), cal.predict_proba(St))
        assert loaded.get_params() == cal.get_params()
        np.testing.assert_array_equal(loaded.predict(St), cal.predict(St))


def test_edited_model_file_is_refused(tmp_path):
    from venncal.persistence._checks import FittedStateError, check_fitted_state

    S, y, _ = make(6, K=3)
    cal = MatrixScalingCalibrator(structure="svs").fit(S, y)
    state = {k: v for k, v in vars(cal).items() if k.endswith("_")}
    check_fitted_state("MatrixScalingCalibrator", state, cal.get_params())
    bad = cal.map_.delta.copy()
    bad[0, 1] = 0.5
    from dataclasses import replace

    with pytest.raises(FittedStateError, match="diagonal"):
        check_fitted_state(
            "MatrixScalingCalibrator", {**state, "map_": replace(cal.map_, delta=bad)}, {}
        )
    with pytest.raises(FittedStateError, match="structure"):
        check_fitted_state("MatrixScalingCalibrator", state, {"structure": "sms"})


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"structure": "diag"}, "'structure' parameter of MatrixScalingCalibrator"),
        ({"lambda_diagonal": -1.0}, "'lambda_diagonal' parameter"),
        ({"lambda_intercept": np.nan}, "'lambda_intercept' parameter"),
        ({"max_iter": 0}, "'max_iter' parameter"),
        ({"tol": 0.0}, "'tol' parameter"),
        ({"score_type": "odds"}, "'score_type' parameter"),
    ],
)
def test_bad_parameters_one_line(kwargs, match):
    check_bad_parameter_one_line(MatrixScalingCalibrator(**kwargs), match)


def test_bad_input_one_line():
    S, y, St = make(0)
    cal = MatrixScalingCalibrator()
    with pytest.raises(NotFittedError):
        cal.predict_proba(St)
    bad = S.copy()
    bad[3, 1] = np.nan
    cases = [
        (lambda: cal.fit(bad, y), "NaN"),
        (lambda: cal.fit(np.where(bad != bad, np.inf, S), y), "infinite"),
        (lambda: cal.fit(S[:, 0], y), "2-D"),
        (lambda: cal.fit(S, y[:-1]), "Inconsistent"),
        (lambda: cal.fit(S[:, :2], y), "column"),
        (lambda: cal.fit(S, np.zeros_like(y)), "one class"),
        (lambda: cal.fit(S, y, sample_weight=-np.ones_like(y)), "non-negative"),
        (lambda: cal.fit(S, y, sample_weight=(y != 0).astype(float)), "zero on every"),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match) as info:
            call()
        assert "\n" not in str(info.value)
    cal.fit(S, y)
    with pytest.raises(ValueError, match="fitted with 3 classes") as info:
        cal.predict_proba(St[:, :2])
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="NaN"):
        cal.predict_proba(np.full((1, 3), np.nan))


def test_separable_scores_warn_without_penalty():
    # class 1 exactly when its score exceeds class 0's minus 1: a bias separates the classes
    d = np.linspace(-3, 3, 40) + 0.01
    S = np.column_stack([np.zeros(40), d])
    y = (d > -1).astype(int)
    with pytest.warns(VenncalWarning, match="converged"):
        MatrixScalingCalibrator(structure="vector", max_iter=5).fit(S, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MatrixScalingCalibrator().fit(S, y)  # the penalty keeps the optimum finite


test_sklearn_compatible = sklearn_checks_test(
    [MatrixScalingCalibrator(), MatrixScalingCalibrator(structure="vector")],
    N_ITER_XFAILS,
    ignore_warnings_because="separable toy data of some checks",
)
