"""Numeric parameters of any Python number type: a clear answer, never a numpy error."""

from fractions import Fraction

import numpy as np
import pytest

from venncal._params import check_in_range, is_finite_real
from venncal.calibration import DirichletCalibrator


@pytest.mark.parametrize(
    ("value", "finite"),
    [
        (0.5, True),
        (np.float32(2.0), True),
        (np.int64(3), True),
        (Fraction(1, 3), True),
        (10**400, False),
        (-(10**400), False),
        (float("inf"), False),
        (float("nan"), False),
        (True, False),
        ("1", False),
        (None, False),
        (1 + 0j, False),
    ],
    ids=repr,
)
def test_is_finite_real(value, finite):
    assert is_finite_real(value) is finite


def test_check_in_range_takes_fractions_and_refuses_huge_integers_in_one_line():
    assert check_in_range(Fraction(1, 4), 0, 1, name="alpha", owner="X") == 0.25
    with pytest.raises(ValueError, match=r"^The 'alpha' parameter of X must be a number in"):
        check_in_range(10**400, 0, 1, name="alpha", owner="X")


def test_a_penalty_given_as_a_fraction_or_a_huge_integer():
    scores = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5], [0.9, 0.1]])
    y = [1, 0, 1, 0]
    fitted = DirichletCalibrator(reg_lambda=Fraction(1, 100)).fit(scores, y)
    same = DirichletCalibrator(reg_lambda=0.01).fit(scores, y)
    np.testing.assert_array_equal(fitted.predict_proba(scores), same.predict_proba(scores))
    with pytest.raises(ValueError, match="'reg_lambda' parameter of DirichletCalibrator"):
        DirichletCalibrator(reg_lambda=10**400).fit(scores, y)
