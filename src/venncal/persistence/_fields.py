"""Checks of the plain fitted values and parameters of a decoded model file.

The table of expectations (:data:`venncal.persistence._checks._EXPECTED`) names, for each
attribute and parameter of each class, one of the checks built here: labels (``classes_``,
distinct and sorted, as ``np.unique`` gives them), counts of score columns, score rounding
(``decimals_``), the pooled calibration data kept for ``partial_fit`` (``aggregate_``), group
labels, numbers equal to the copy in a fitted table, and parameters, checked by the helpers the
estimators call in ``fit`` (:mod:`venncal._validation`). Each check is ``check(value, where)``
and raises :class:`FittedStateError` with one line naming ``where``.
"""

from __future__ import annotations

import math
import numbers
from importlib import import_module
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    from venncal._typing import AnyArray

    #: a check of one decoded value: ``check(value, where)`` raises FittedStateError (what it
    #: returns, e.g. the checked array, is not used)
    Check: TypeAlias = Callable[[Any, str], object]
    #: a whole-model check: ``check(fitted, params, where)``
    Relation: TypeAlias = Callable[[dict[str, Any], dict[str, Any], str], None]

__all__ = [
    "FittedStateError",
    "labels",
    "n_columns",
    "decimals_value",
    "count_table",
    "group_labels",
    "groups_together",
    "same_as",
    "number",
    "finite",
    "integer",
    "one_of",
    "param",
    "optional",
    "decimals_param",
    "none_or",
]


class FittedStateError(ValueError):
    """A decoded fitted value that breaks the invariants of its fit (one-line reason)."""


def labels(minimum: int, maximum: int | None = None) -> Check:
    """A check of ``classes_``: a 1-D array of ``minimum`` to ``maximum`` labels, distinct and
    increasing (as ``np.unique`` returns them), finite if they are numbers."""

    def check(value: Any, where: str) -> None:
        if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype.kind not in "biufUO":
            raise FittedStateError(f"{where} must be a 1-D array of labels")
        n = value.shape[0]
        if n < minimum or (maximum is not None and n > maximum):
            count = minimum if maximum == minimum else f"{minimum} or more"
            raise FittedStateError(f"{where} must hold {count} labels, not {n}")
        items = value.tolist()
        kinds = {type(v) for v in items}
        if value.dtype.kind == "O" and not (kinds <= {str} or kinds <= {int, float, bool}):
            raise FittedStateError(f"{where} must hold labels of one kind (numbers or strings)")
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise FittedStateError(f"{where} holds NaN or infinite labels")
        if any(not a < b for a, b in zip(items, items[1:])):
            raise FittedStateError(f"{where} must hold distinct labels in increasing order")

    return check


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def n_columns(expected: int) -> Check:
    """A check of ``n_features_in_``: the integer ``expected``."""

    def check(value: Any, where: str) -> None:
        if not _is_int(value) or value != expected:
            raise FittedStateError(f"{where} must be {expected}")

    return check


def decimals_value(value: Any, where: str) -> None:
    """``decimals_``: None or an integer in [-300, 300] (what ``check_decimals`` allows)."""
    if value is not None and not (_is_int(value) and -300 <= value <= 300):
        raise FittedStateError(f"{where} must be None or an integer in [-300, 300]")


def finite(value: float) -> bool:
    """Whether the real number ``value`` is finite as a float (an integer too large for a
    float is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def number(low: float = -np.inf, high: float = np.inf) -> Check:
    """A check of a finite real number in [low, high]."""

    def check(value: Any, where: str) -> None:
        ok = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
        if not (ok and finite(value) and low <= value <= high):
            raise FittedStateError(f"{where} must be a finite number in [{low}, {high}]")

    return check


def integer(low: int, high: int) -> Check:
    """A check of an integer in [low, high]."""

    def check(value: Any, where: str) -> None:
        if not (_is_int(value) and low <= value <= high):
            raise FittedStateError(f"{where} must be an integer in [{low}, {high}]")

    return check


def one_of(*allowed: str) -> Check:
    """A check of a string among ``allowed``."""

    def check(value: Any, where: str) -> None:
        if not isinstance(value, str) or value not in allowed:
            raise FittedStateError(f"{where} must be one of {', '.join(map(repr, allowed))}")

    return check


def _as_vector(arr: Any, where: str, kinds: str = "f") -> AnyArray:
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind not in kinds:
        raise FittedStateError(
            f"{where} must be a 1-D array ({'float' if kinds == 'f' else 'numbers'})"
        )
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise FittedStateError(f"{where} holds NaN or infinite values")
    return arr


def count_table(table: Any, where: str) -> None:
    """The pooled calibration data of ``partial_fit`` (a ``CountTable``): distinct finite
    scores, increasing; per score a non-negative weight of each class, positive in one; a
    positive number of examples; an exponent within the range of a float."""
    fields = table.__dict__
    values = _as_vector(fields.get("values"), f"{where}.values")
    n0 = _as_vector(fields.get("n0"), f"{where}.n0", "fi")
    n1 = _as_vector(fields.get("n1"), f"{where}.n1", "fi")
    if values.size == 0 or n0.shape != values.shape or n1.shape != values.shape:
        raise FittedStateError(f"{where}.n0 and .n1 must hold one weight per score (non-empty)")
    if n0.dtype != n1.dtype:
        raise FittedStateError(f"{where}.n0 and .n1 must be of one dtype")
    if (np.diff(values) <= 0).any():
        raise FittedStateError(f"{where}.values must be strictly increasing")
    if (n0 < 0).any() or (n1 < 0).any():
        raise FittedStateError(f"{where}.n0 and .n1 must be non-negative")
    if ((n0 == 0) & (n1 == 0)).any():
        raise FittedStateError(f"{where} holds a score of no weight")
    if n0.dtype.kind == "i" and (n0.max() > 2**53 or n1.max() > 2**53):
        raise FittedStateError(f"{where}.n0 and .n1 must be counts below 2^53")
    number(0.0)(fields.get("n_examples"), f"{where}.n_examples")
    if not fields["n_examples"] > 0:
        raise FittedStateError(f"{where}.n_examples must be positive")
    integer(-1100, 1100)(fields.get("exponent"), f"{where}.exponent")


def group_labels(value: Any, where: str) -> None:
    """``groups_`` or ``pooled_groups_``: None, or a list of distinct labels of one kind
    (64-bit integers or strings, as ``check_groups`` allows)."""
    if value is None:
        return
    if not isinstance(value, list):
        raise FittedStateError(f"{where} must be None or a list of group labels")
    kinds = {type(v) for v in value}
    if not (kinds <= {str} or kinds <= {int, bool}):
        raise FittedStateError(f"{where} must hold integers or strings of one kind")
    # the test rows' groups are compared with them as a numpy array (of 64-bit integers)
    if any(type(v) is int and not -(2**63) <= v < 2**63 for v in value):
        raise FittedStateError(f"{where} must hold integers of 64 bits")
    if len(set(value)) != len(value):
        raise FittedStateError(f"{where} must hold distinct groups")


def groups_together(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """A whole-model check of a fit within groups: ``groups_``, ``group_tables_`` and
    ``pooled_groups_`` all None or all set, one table per group, labels of one kind, and no
    group both calibrated on its own and pooled."""
    groups, tables = fitted.get("groups_"), fitted.get("group_tables_")
    pooled = fitted.get("pooled_groups_")
    if groups is None and tables is None and pooled is None:
        return
    if groups is None or tables is None or pooled is None:
        raise FittedStateError(
            f"{where}.groups_, .group_tables_ and .pooled_groups_ must all be None or all set"
        )
    if len(tables) != len(groups):
        raise FittedStateError(f"{where}.group_tables_ must hold one table per group of groups_")
    kinds = {type(g) for g in groups + pooled}
    if not (kinds <= {str} or kinds <= {int, bool}):
        raise FittedStateError(f"{where}.groups_ and .pooled_groups_ must be of one kind")
    if set(groups) & set(pooled):
        raise FittedStateError(f"{where}: a group is both in groups_ and in pooled_groups_")


def same_as(attr: str, table_attr: str, field: str) -> Relation:
    """A whole-model check: the fitted copy ``attr`` equals ``field`` of ``table_attr``."""

    def check(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
        if attr not in fitted or table_attr not in fitted:
            return
        mine, theirs = fitted[attr], getattr(fitted[table_attr], field, None)
        if isinstance(mine, np.ndarray) or isinstance(theirs, np.ndarray):
            equal = (
                isinstance(mine, np.ndarray)
                and isinstance(theirs, np.ndarray)
                and mine.dtype == theirs.dtype
                and mine.shape == theirs.shape
                and np.array_equal(mine, theirs)
            )
        else:
            equal = type(mine) is type(theirs) and mine == theirs
        if not equal:
            raise FittedStateError(f"{where}.{attr} must equal {where}.{table_attr}.{field}")

    return check


def param(validate: Callable[..., object], *args: object, **kwargs: object) -> Check:
    """A check of a parameter by the validation helper its estimator calls at fit, e.g.
    ``param(check_option, "venncal.core.merge:MERGES")``: its ValueError or TypeError becomes
    the reason. A string argument ``"module:NAME"`` is that module's constant, imported when a
    file is checked (so that loading imports only what the file needs)."""

    def check(value: Any, where: str) -> None:
        owner, _, name = where.rpartition(".")
        resolved = [_constant(a) for a in args]
        try:
            validate(value, *resolved, name=name, owner=owner, **kwargs)
        except (TypeError, ValueError) as exc:
            raise FittedStateError(str(exc).rstrip(".")) from None

    return check


def _constant(arg: object) -> object:
    if isinstance(arg, str) and ":" in arg:
        module, _, name = arg.partition(":")
        return getattr(import_module(module), name)
    return arg


def optional(check: Check) -> Check:
    """``check``, or None."""

    def maybe(value: Any, where: str) -> None:
        if value is not None:
            check(value, where)

    return maybe


def decimals_param(value: Any, *, name: str, owner: str) -> None:
    """The ``decimals`` parameter, as ``check_decimals`` of the count calibrators takes it."""
    from venncal.core.counts import check_decimals

    check_decimals(value, owner=owner)


def none_or(validate: Callable[..., object]) -> Callable[..., None]:
    """A validation helper that also allows None (e.g. ``max_positions``)."""

    def validate_or_none(value: Any, *args: Any, **kwargs: Any) -> None:
        if value is not None:
            validate(value, *args, **kwargs)

    return validate_or_none
