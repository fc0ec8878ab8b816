"""The table of expectations of model files is complete and agrees with the estimators.

Every class a model file may hold (the registry's built-in classes) is fitted on small data in
the ways its fit can go; each fitted attribute it then has, and each of its parameters, must
have a row in ``venncal.persistence._checks._EXPECTED``, and a genuine file of it must pass the
checks. The parameter rows must accept exactly the values the estimator's own fit accepts.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import venncal
from tests.persistence._savable import BUILTIN, fitted_attributes, fitted_instances, refit
from venncal.persistence._checks import _EXPECTED, expectations
from venncal.persistence._fields import FittedStateError
from venncal.persistence._registry import _BUILTIN, required_fitted


@pytest.mark.parametrize("name", BUILTIN)
def test_every_fitted_attribute_and_parameter_has_a_row(name):
    rows = expectations(name)
    for est in fitted_instances(name):
        missing = [a for a in fitted_attributes(est) if a not in rows]
        assert not missing, (
            f"{name} has fitted attributes without a row in persistence/_checks.py "
            f"_EXPECTED: {missing}"
        )
        params = [p for p in est.get_params(deep=False) if p not in rows]
        assert not params, f"{name} has parameters without a row in _EXPECTED: {params}"
    for attr in required_fitted(name):
        assert attr in rows, f"{name}.{attr} is registered as fitted but has no row"


def test_the_table_has_rows_of_known_classes_only():
    assert {cls for cls, _ in _EXPECTED} <= set(_BUILTIN)
    for (cls, name), row in _EXPECTED.items():
        assert isinstance(row, str) or callable(row) or name == "*", (cls, name)
        if name == "*":
            assert isinstance(row, tuple) and all(callable(r) for r in row), cls


@pytest.mark.parametrize("name", BUILTIN)
def test_genuine_files_pass_the_checks(name, tmp_path):
    for i, est in enumerate(fitted_instances(name, seed=3)):
        path = venncal.save(est, tmp_path / f"{i}.json", with_data=True)
        loaded = venncal.load(path)
        assert fitted_attributes(loaded) == fitted_attributes(est)


_PROBES = [
    "bogus",
    "log",
    "mean",
    "ovr",
    "pairwise",
    "auto",
    "logits",
    "raw",
    "wu1",
    "price",
    "nearest",
    "quantile",
    "selection",
    "paper",
    "none",
    "pooled",
    "am",
    "logit",
    None,
    True,
    False,
    -1,
    0,
    1,
    2,
    0.5,
    1.5,
    300,
    301,
    -301,
    math.inf,
    math.nan,
    1e300,
    [1],
]


def _table_accepts(name, param, value):
    try:
        expectations(name)[param](value, f"{name}.{param}")
    except FittedStateError:
        return False
    return True


def _fit_accepts(est, param, value):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            refit(est.set_params(**{param: value}))
    except (ValueError, TypeError, AssertionError):
        return False
    return True


@pytest.mark.parametrize("name", BUILTIN)
def test_parameter_rows_accept_what_the_fit_accepts(name):
    """The rows use the validation helpers the estimators call at fit: a value passes the
    check of a model file exactly when the estimator's fit takes it."""
    est = fitted_instances(name)[0]
    rows = expectations(name)
    for param, default in est.get_params(deep=False).items():
        if param not in rows:
            continue  # reported by test_every_fitted_attribute_and_parameter_has_a_row
        assert _table_accepts(name, param, default), (param, default)
        for value in _PROBES:
            got = _table_accepts(name, param, value)
            want = _fit_accepts(clone(est), param, value)
            assert got == want, f"{name}.{param}={value!r}: table {got}, fit {want}"


def test_a_class_without_rows_is_checked_by_types_only():
    from venncal.persistence._checks import check_fitted_state

    check_fitted_state("SomeUserCalibrator", {"rate_": np.float64(2.0)}, {"x": "y"})


def test_calibrators_loaded_from_older_files_save_and_load_again(tmp_path):
    """Files of venncal 0.1.0 have no decimals_ or groups_; saved again they still load."""
    from tests.golden.make_golden import HERE

    for i, path in enumerate(sorted(HERE.glob("*.json"))):
        cal = venncal.load(path)
        again = venncal.load(venncal.save(cal, tmp_path / f"{i}.json"))
        assert type(again) is type(cal)
