"""Checks of estimator and function parameters (numpy only).

Each helper takes a parameter's value, raises a one-line ``ValueError``/``TypeError`` that names
the parameter and its owner (``The 'n_bins' parameter of ece must be ...``) when it is not
acceptable, and returns it normalised. :mod:`venncal._validation` re-exports them with the
checks of data arrays.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import TypeGuard

    from venncal._typing import FloatArray

__all__ = [
    "owner_prefix",
    "check_option",
    "check_positive_int",
    "check_in_range",
    "check_bool",
    "check_finite_pair",
    "check_random_state",
]


def owner_prefix(name: str, owner: str | None) -> str:
    return f"The '{name}' parameter of {owner}" if owner else f"'{name}'"


def check_option(value: object, allowed: Collection[str], *, name: str, owner: str | None) -> str:
    """Raise unless ``value`` is one of ``allowed``.

    Examples
    --------
    >>> check_option("foo", ("log", "square"), name="merge", owner="VennAbersCalibrator")
    Traceback (most recent call last):
    ...
    ValueError: The 'merge' parameter of VennAbersCalibrator must be one of {'log', 'square'}. Got 'foo' instead.
    """
    if not isinstance(value, str) or value not in allowed:
        opts = ", ".join(repr(a) for a in allowed)
        raise ValueError(
            f"{owner_prefix(name, owner)} must be one of {{{opts}}}. Got {value!r} instead."
        )
    return value


def check_positive_int(value: object, *, name: str, owner: str | None, minimum: int = 1) -> int:
    """Raise unless ``value`` is an integer >= ``minimum``.

    Examples
    --------
    >>> check_positive_int(0, name="n_bins", owner="ece")
    Traceback (most recent call last):
    ...
    ValueError: The 'n_bins' parameter of ece must be an integer >= 1. Got 0 instead.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(
            f"{owner_prefix(name, owner)} must be an integer >= {minimum}. Got {value!r} instead."
        )
    return int(value)


def is_finite_real(value: object) -> TypeGuard[numbers.Real]:
    """Whether ``value`` is a real number (not a bool) that is finite as a float.

    Python and numpy numbers, fractions and integers of any size are answered without a
    numpy error (an integer past the largest float is not finite).

    Examples
    --------
    >>> from fractions import Fraction
    >>> is_finite_real(Fraction(1, 3)), is_finite_real(10**400), is_finite_real(True)
    (True, False, False)
    """
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except (OverflowError, ValueError):
        return False


def check_in_range(
    value: Any, low: float, high: float, *, name: str, owner: str | None, closed: str = "neither"
) -> float:
    """Raise unless ``value`` is a real number in the given interval.

    ``closed`` is one of ``"neither"``, ``"left"``, ``"right"``, ``"both"``.

    Examples
    --------
    >>> check_in_range(0.3, 0, 1, name="cal_size", owner="VennAbersClassifier")
    0.3
    >>> check_in_range(1.0, 0, 1, name="cal_size", owner="VennAbersClassifier")
    Traceback (most recent call last):
    ...
    ValueError: The 'cal_size' parameter of VennAbersClassifier must be a number in (0, 1). Got 1.0 instead.
    """
    ok = is_finite_real(value)
    if ok:
        lo_ok = value >= low if closed in ("left", "both") else value > low
        hi_ok = value <= high if closed in ("right", "both") else value < high
        ok = lo_ok and hi_ok
    if not ok:
        lb = "[" if closed in ("left", "both") else "("
        rb = "]" if closed in ("right", "both") else ")"
        raise ValueError(
            f"{owner_prefix(name, owner)} must be a number in {lb}{low}, {high}{rb}. "
            f"Got {value!r} instead."
        )
    return float(value)


def check_finite_pair(value: object, *, name: str, owner: str | None) -> FloatArray:
    """Raise unless ``value`` is two finite numbers; return them as a float64 array.

    Examples
    --------
    >>> check_finite_pair((0, 1.5), name="mean1", owner="BivariateNormalModel")
    array([0. , 1.5])
    >>> check_finite_pair((0, float("nan")), name="mean1", owner="BivariateNormalModel")
    Traceback (most recent call last):
    ...
    ValueError: The 'mean1' parameter of BivariateNormalModel must be two finite numbers. Got (0, nan) instead.
    """
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        arr = np.full(1, np.nan)
    if arr.shape != (2,) or not np.isfinite(arr).all():
        raise ValueError(
            f"{owner_prefix(name, owner)} must be two finite numbers. Got {value!r} instead."
        )
    return arr


def check_bool(value: object, *, name: str, owner: str | None) -> bool:
    """Raise unless ``value`` is a boolean (Python or numpy).

    Examples
    --------
    >>> check_bool("yes", name="squared", owner="debiased_ece")
    Traceback (most recent call last):
    ...
    TypeError: The 'squared' parameter of debiased_ece must be True or False. Got 'yes' instead.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(
            f"{owner_prefix(name, owner)} must be True or False. Got {value!r} instead."
        )
    return bool(value)


def check_random_state(
    random_state: object, *, name: str = "random_state", owner: str | None = None
) -> np.random.Generator:
    """Return a numpy Generator from a seed, or raise naming the parameter.

    Accepted: None, a non-negative integer, a numpy ``Generator``, ``BitGenerator`` or
    ``SeedSequence``.

    Examples
    --------
    >>> check_random_state(-1, owner="make_xor")
    Traceback (most recent call last):
    ...
    ValueError: The 'random_state' parameter of make_xor must be None, a non-negative integer or a numpy Generator. Got -1 instead.
    """
    ok_types = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)
    if random_state is None or isinstance(random_state, ok_types):
        return np.random.default_rng(random_state)
    msg = (
        f"{owner_prefix(name, owner)} must be None, a non-negative integer or a numpy "
        f"Generator. Got {random_state!r} instead."
    )
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError(msg)
    if random_state < 0:
        raise ValueError(msg)
    return np.random.default_rng(int(random_state))
