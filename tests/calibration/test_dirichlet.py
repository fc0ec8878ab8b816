"""DirichletCalibrator against the minimiser of its ODIR objective, computed independently."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import venncal
from tests._reference.matrix_scaling_naive import dirichlet_naive
from tests.calibration._score_matrix import (
    N_ITER_XFAILS,
    check_bad_parameter_one_line,
    log_softmax,
    make,
    sklearn_checks_test,
)
from venncal.calibration import DirichletCalibrator


@pytest.mark.parametrize("K", [2, 3, 6, 10])
@pytest.mark.parametrize("reg", [(1e-3, 1e-3), (0.5, 0.05)])
def test_equals_the_minimiser_of_its_objective(K, reg):
    n = {2: 80, 3: 120, 6: 200, 10: 250}[K]
    S, y, St = make(10 + K, n=n, K=K)
    P, Pt = np.exp(log_softmax(S)), np.exp(log_softmax(St))
    cal = DirichletCalibrator(reg_lambda=reg[0], reg_mu=reg[1]).fit(P, y)
    # probabilities without zeros are read at least at the smallest calibration probability
    ref = dirichlet_naive(np.log(P), y, np.log(np.maximum(Pt, P.min())), *reg)
    np.testing.assert_allclose(cal.predict_proba(Pt), ref, atol=1e-6, rtol=0)


def test_weighted_fit_equals_the_definition():
    S, y, St = make(3, n=100, K=4)
    w = np.random.default_rng(0).uniform(0.1, 4.0, size=100)
    cal = DirichletCalibrator(reg_lambda=0.1, reg_mu=0.2, score_type="logits")
    proba = cal.fit(S, y, sample_weight=w).predict_proba(St)
    ref = dirichlet_naive(log_softmax(S), y, log_softmax(St), 0.1, 0.2, w)
    np.testing.assert_allclose(proba, ref, atol=1e-6, rtol=0)


@pytest.mark.parametrize("seed", range(3))
def test_weight_k_is_k_copies(seed):
    S, y, St = make(seed, n=60, K=4)
    w = np.random.default_rng(seed).integers(0, 4, size=60)
    w[:4] = 1
    rows = np.repeat(np.arange(60), w)
    weighted = DirichletCalibrator().fit(S, y, sample_weight=w)
    copies = DirichletCalibrator().fit(S[rows], y[rows])
    np.testing.assert_allclose(
        weighted.predict_proba(St), copies.predict_proba(St), atol=1e-9, rtol=0
    )


def test_identity_when_already_calibrated_and_penalised():
    # a huge off-diagonal and intercept penalty leaves a per-class power of q: W diagonal
    S, y, _ = make(1, n=300, K=3)
    cal = DirichletCalibrator(reg_lambda=1e9, reg_mu=1e9).fit(S, y)
    W = cal.map_.weights
    assert np.abs(W - np.diag(np.diag(W))).max() < 1e-6
    assert np.abs(cal.map_.bias).max() < 1e-6


def test_model_file_round_trip(tmp_path):
    S, y, St = make(6, K=4)
    cal = DirichletCalibrator(reg_lambda=0.1).fit(S, y)
    loaded = venncal.load(venncal.save(cal, tmp_path / "d.json"))
    np.testing.assert_array_equal(loaded.predict_proba(St), cal.predict_proba(St))
    assert loaded.get_params() == cal.get_params()


def test_edited_model_file_is_refused():
    from dataclasses import replace

    from venncal.persistence._checks import FittedStateError, check_fitted_state

    S, y, _ = make(6, K=3)
    cal = DirichletCalibrator().fit(S, y)
    state = {k: v for k, v in vars(cal).items() if k.endswith("_")}
    check_fitted_state("DirichletCalibrator", state, cal.get_params())
    bad = replace(cal.map_, bias=np.r_[cal.map_.bias, 0.0])
    with pytest.raises(FittedStateError, match="one value per class"):
        check_fitted_state("DirichletCalibrator", {**state, "map_": bad}, {})
    nan = cal.map_.weights.copy()
    nan[0, 0] = np.nan
    with pytest.raises(FittedStateError, match="NaN"):
        check_fitted_state("DirichletCalibrator", {**state, "map_": replace(cal.map_, weights=nan)})


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"reg_lambda": -1.0}, "'reg_lambda' parameter of DirichletCalibrator"),
        ({"reg_mu": np.inf}, "'reg_mu' parameter"),
        ({"reg_mu": "big"}, "'reg_mu' parameter"),
        ({"max_iter": 1.5}, "'max_iter' parameter"),
    ],
)
def test_bad_parameters_one_line(kwargs, match):
    check_bad_parameter_one_line(DirichletCalibrator(**kwargs), match)


def test_bad_input_one_line():
    S, y, St = make(0)
    P = np.exp(log_softmax(S))
    cal = DirichletCalibrator()
    with pytest.raises(NotFittedError):
        cal.predict(St)
    with pytest.raises(ValueError, match="infinite") as info:
        cal.fit(np.where(S > 1, np.inf, S), y)
    assert "\n" not in str(info.value)
    cal.fit(P, y)
    assert cal.score_type_ == "probabilities"
    with pytest.raises(ValueError, match="fitted with 3 classes"):
        cal.predict_proba(np.ones((2, 4)) / 4)
    with pytest.raises(ValueError, match="probabilities in \\[0, 1\\]"):
        cal.predict_proba(St)


test_sklearn_compatible = sklearn_checks_test(
    [DirichletCalibrator()],
    N_ITER_XFAILS,
    ignore_warnings_because="separable toy data of some checks",
)
