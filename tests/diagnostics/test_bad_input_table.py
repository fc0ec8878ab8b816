"""Bad-input table over every public function of venncal.diagnostics."""

import numpy as np
import pytest

from tests._assertions import assert_one_line_error_naming
from venncal import diagnostics

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 2))
P = RNG.uniform(0.05, 0.95, 60)
Y = (RNG.random(60) < P).astype(int)


def _grouping_loss(X=X, y_true=Y, y_proba=P, **kw):
    return diagnostics.grouping_loss(X, y_true, y_proba, **kw)


CASES = {
    "grouping_loss": [
        ({"X": np.where(X > 1, np.nan, X)}, "X"),
        ({"X": X[:, 0]}, "X"),
        ({"X": X[:10]}, "X"),
        ({"y_true": np.r_[Y[:-1], 2]}, "y_true"),
        ({"y_true": Y.astype(float) * np.nan}, "y_true"),
        ({"y_proba": np.r_[P[:-1], 1.5]}, "y_proba"),
        ({"y_proba": np.column_stack([np.r_[np.nan, 1 - P[1:]], P])}, "y_proba"),
        ({"y_proba": P[:10]}, "y_proba"),
        ({"n_splits": 1}, "n_splits"),
        ({"n_regions": "8"}, "n_regions"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"n_bins": 0}, "n_bins"),
        ({"strategy": "median"}, "strategy"),
        ({"random_state": -1}, "random_state"),
        ({"estimator": "tree"}, "estimator"),
    ],
}
ETA = np.clip(P + 0.05, 0, 1)


def _sampler(n, rng):
    return RNG.normal(size=(n, 1)), np.arange(n) % 2


class _Interval:
    def fit(self, X, y):
        return self

    def predict_interval(self, X):
        return np.tile([0.4, 0.6], (len(X), 1))

    def get_params(self, deep=True):
        return {}

    def set_params(self, **kw):
        return self


def _call(fn, *args, **defaults):
    def call(**kw):
        merged = {**defaults, **kw}
        pos = [merged.pop(a) for a in args]
        return fn(*pos, **merged)

    return call


CASES.update(
    {
        "cost_weighted_loss": [
            ({"posterior": np.r_[P[:-1], np.nan]}, "posterior"),
            ({"prediction": np.r_[P[:-1], -0.1]}, "prediction"),
            ({"prediction": P[:5]}, "prediction"),
            ({"costs": [0.5, 2.0]}, "costs"),
            ({"costs": [[0.5]]}, "costs"),
            ({"sample_weight": -np.ones(60)}, "sample_weight"),
        ],
        "cost_weighted_bayes_loss": [
            ({"posterior": np.r_[P[:-1], 1.5]}, "posterior"),
            ({"costs": np.nan}, "costs"),
            ({"sample_weight": np.ones(3)}, "sample_weight"),
        ],
        "gaussian_bayes_loss": [
            ({"separation": -1.0}, "separation"),
            ({"separation": np.inf}, "separation"),
            ({"prior": 0.0}, "prior"),
            ({"costs": -0.5}, "costs"),
        ],
        "gaussian_refinement_loss": [
            ({"separation": "2"}, "separation"),
            ({"prior": 1.0}, "prior"),
        ],
        "bivariate_normal_bayes_loss_curves": [
            ({"mean0": (0.0,)}, "mean0"),
            ({"mean1": "ab"}, "mean1"),
            ({"std": (1.0, -1.0)}, "std"),
            ({"rho": 1.0}, "rho"),
            ({"prior": 2.0}, "prior"),
            ({"costs": [1.5]}, "costs"),
        ],
        "prior_shift_brier_curve": [
            ({"costs": 2.0}, "costs"),
            ({"brier_curve": 3}, "brier_curve"),
            ({"prior": 0.0}, "prior"),
            ({"new_prior": 1.0}, "new_prior"),
        ],
        "prior_shift_posterior": [
            ({"posterior": [np.nan]}, "posterior"),
            ({"prior": -0.1}, "prior"),
            ({"new_prior": True}, "new_prior"),
        ],
        "sufficiency_check": [
            ({"score": np.r_[P[:-1], np.inf]}, "score"),
            ({"posterior": np.r_[P[:-1], 1.5]}, "posterior"),
            ({"posterior": P[:5]}, "posterior"),
            ({"calibrated": P[:5]}, "calibrated"),
            ({"costs": [-1.0]}, "costs"),
            ({"sample_weight": np.ones(3)}, "sample_weight"),
        ],
        "unbiasedness_in_the_large": [
            ({"predictor": "venn"}, "predictor"),
            ({"sampler": None}, "sampler"),
            ({"n_train": 1}, "n_train"),
            ({"n_test": 0}, "n_test"),
            ({"n_trials": 1}, "n_trials"),
            ({"positive_rate": 2.0}, "positive_rate"),
            ({"random_state": -1}, "random_state"),
        ],
    }
)
CALLS = {
    "grouping_loss": _grouping_loss,
    "cost_weighted_loss": _call(
        diagnostics.cost_weighted_loss,
        "posterior",
        "prediction",
        "costs",
        posterior=ETA,
        prediction=P,
        costs=0.5,
    ),
    "cost_weighted_bayes_loss": _call(
        diagnostics.cost_weighted_bayes_loss, "posterior", "costs", posterior=ETA, costs=0.5
    ),
    "gaussian_bayes_loss": _call(
        diagnostics.gaussian_bayes_loss, "costs", costs=0.5, separation=1.0
    ),
    "gaussian_refinement_loss": _call(diagnostics.gaussian_refinement_loss, separation=1.0),
    "bivariate_normal_bayes_loss_curves": _call(diagnostics.bivariate_normal_bayes_loss_curves),
    "prior_shift_brier_curve": _call(
        diagnostics.prior_shift_brier_curve,
        "costs",
        "brier_curve",
        costs=0.5,
        brier_curve=lambda c: c * (1 - c),
        prior=0.5,
        new_prior=0.2,
    ),
    "prior_shift_posterior": _call(
        diagnostics.prior_shift_posterior, "posterior", posterior=P, prior=0.5, new_prior=0.2
    ),
    "sufficiency_check": _call(
        diagnostics.sufficiency_check, "score", "posterior", score=X[:, 0], posterior=ETA
    ),
    "unbiasedness_in_the_large": _call(
        diagnostics.unbiasedness_in_the_large,
        "predictor",
        "sampler",
        predictor=_Interval(),
        sampler=_sampler,
        n_train=10,
        n_trials=3,
    ),
}


def test_every_public_function_is_in_the_table():
    public = {n for n in diagnostics.__all__ if callable(getattr(diagnostics, n))}
    public -= {"GroupingLoss", "BayesLossCurves", "SufficiencyCheck", "UnbiasednessInTheLarge"}
    assert public <= set(CASES), sorted(public - set(CASES))


@pytest.mark.parametrize(
    ("name", "kwargs", "param"),
    [
        pytest.param(name, kw, param, id=f"{name}-{param}-{i}")
        for name, cases in CASES.items()
        for i, (kw, param) in enumerate(cases)
    ],
)
def test_bad_input_gives_a_one_line_error_naming_the_parameter(name, kwargs, param):
    assert_one_line_error_naming(lambda: CALLS[name](**kwargs), param)
