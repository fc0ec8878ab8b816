"""Bad-input table over every public function of venncal.diagnostics."""

import numpy as np
import pytest

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
CALLS = {"grouping_loss": _grouping_loss}


def test_every_public_function_is_in_the_table():
    public = {n for n in diagnostics.__all__ if callable(getattr(diagnostics, n))}
    public.discard("GroupingLoss")  # the result class
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
    with pytest.raises((ValueError, TypeError)) as info:
        CALLS[name](**kwargs)
    message = str(info.value)
    assert "\n" not in message, message
    assert param in message, f"{param!r} not named in: {message}"
