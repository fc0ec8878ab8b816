"""Checks of a saved :class:`~venncal.VennAbersDistribution`: its tables must be the fit of
their own calibration rows.

A Venn-Abers predictive distribution keeps its calibration rows, sorted (the distinct negated
scores, the distinct labels, each row's score and label by index, and the weights). Every
invariant the fit guarantees (distinct sorted values, every value and label used, one start
per label, weights positive and summed per score, the geometry chosen for the weights, the
total) follows from one check: fitting the rows again gives the same tables, bit for bit. A
fit within groups must also pool exactly the rows of its groups. The rows of the table of
expectations (:mod:`venncal.persistence._checks`) for the class are :data:`DISTRIBUTION_ROWS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_option
from venncal.persistence import _fields as f
from venncal.persistence._fields import FittedStateError

if TYPE_CHECKING:
    from venncal._typing import AnyArray, FloatArray
    from venncal.persistence._checks import Row
    from venncal.persistence._fields import Check

__all__ = ["DISTRIBUTION_OBJECT_CHECKS", "DISTRIBUTION_ROWS"]

_NAME = "VennAbersDistribution"
_TYPE = "venncal.core.venn_abers_distribution.VADistributionTables"
_FIELDS = ("values", "labels", "row_value", "label_start", "row_weight", "weight")


def _vector(value: Any, where: str, kind: str) -> AnyArray:
    """A non-empty 1-D array of dtype kind ``kind`` (finite if floats)."""
    if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype.kind != kind:
        what = "float" if kind == "f" else "integer"
        raise FittedStateError(f"{where} must be a 1-D {what} array")
    if value.size == 0:
        raise FittedStateError(f"{where} must not be empty")
    if kind == "f" and not np.isfinite(value).all():
        raise FittedStateError(f"{where} holds NaN or infinite values")
    return value


def _check_shapes(d: dict[str, Any], where: str) -> None:
    """What indexing the rows needs: row indices into the values, label starts from 0 to the
    number of rows, strictly increasing, positive finite weights of every row."""
    values = _vector(d.get("values"), f"{where}.values", "f")
    labels = _vector(d.get("labels"), f"{where}.labels", "f")
    rows = _vector(d.get("row_value"), f"{where}.row_value", "i")
    start = _vector(d.get("label_start"), f"{where}.label_start", "i")
    if rows.min() < 0 or rows.max() >= values.shape[0]:
        raise FittedStateError(f"{where}.row_value must index values")
    if start.shape[0] != labels.shape[0] + 1:
        raise FittedStateError(f"{where}.label_start must hold one start per label and the end")
    if start[0] != 0 or start[-1] != rows.shape[0] or (np.diff(start) <= 0).any():
        raise FittedStateError(
            f"{where}.label_start must rise strictly from 0 to the number of rows"
        )
    weight = d.get("row_weight")
    if weight is not None:
        _vector(weight, f"{where}.row_weight", "f")
        if weight.shape != rows.shape or not (weight > 0).all():
            raise FittedStateError(f"{where}.row_weight must hold a positive weight per row")


def _rows(tables: Any) -> tuple[FloatArray, FloatArray, FloatArray | None]:
    """The calibration rows of checked tables: scores, labels and weights (or None)."""
    d = tables.__dict__
    scores = -d["values"][d["row_value"]]
    labels = np.repeat(d["labels"], np.diff(d["label_start"]))
    return scores, labels, d["row_weight"]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    return type(a) is type(b) and a == b


def check_distribution_tables(tables: Any, where: str) -> None:
    """The tables of a Venn-Abers predictive distribution are those its rows fit."""
    from venncal.core.venn_abers_distribution import vad_fit

    d = tables.__dict__
    _check_shapes(d, where)
    route, total = d.get("route"), d.get("n_calibration")
    if route not in ("int64", "float", "exact") or not isinstance(total, float):
        raise FittedStateError(f"{where}.route and .n_calibration must be those of a fit")
    with np.errstate(all="ignore"):
        again = vad_fit(*_rows(tables))
    for name in _FIELDS:
        if not _same(d.get(name), getattr(again, name)):
            raise FittedStateError(f"{where}.{name} is not what its calibration rows fit")
    if route != again.route or total != again.n_calibration:
        raise FittedStateError(f"{where}.route and .n_calibration are not those of its rows")


def _list_of_tables(value: Any, where: str) -> None:
    """``group_tables_``: None, or a list of the tables (checked by their type's check)."""
    if value is None:
        return
    if not isinstance(value, list) or any(
        f"{type(t).__module__}.{type(t).__qualname__}" != _TYPE for t in value
    ):
        raise FittedStateError(f"{where} must be None or a list of VADistributionTables")


def _sorted_rows(parts: list[Any]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The rows of several tables together, as (labels, scores, weights) in one order."""
    scores, labels, weights = [], [], []
    for tables in parts:
        s, y, w = _rows(tables)
        scores.append(s)
        labels.append(y)
        weights.append(np.ones(s.shape[0]) if w is None else w)
    s, y, w = (np.concatenate(a) for a in (scores, labels, weights))
    order = np.lexsort((w, s, y))
    return y[order], s[order], w[order]


def _pooled_is_the_groups(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """Fitted within groups, the pooled tables hold exactly the rows of the groups' tables
    (the rows of a group pooled at fit all have weight zero, which no table keeps)."""
    pooled, parts = fitted.get("tables_"), fitted.get("group_tables_")
    if pooled is None or not parts:
        return
    mine, theirs = _sorted_rows([pooled]), _sorted_rows(parts)
    if not all(_same(a, b) for a, b in zip(mine, theirs)):
        raise FittedStateError(f"{where}.tables_ must hold exactly the rows of group_tables_")


def _labels(value: Any, where: str) -> None:
    _vector(value, where, "f")


#: the check of the tables, by type name (added to the checks of the core objects)
DISTRIBUTION_OBJECT_CHECKS: dict[str, Check] = {_TYPE: check_distribution_tables}

DISTRIBUTION_ROWS: dict[tuple[str, str], Row] = {
    (_NAME, "n_features_in_"): f.n_columns(1),
    (_NAME, "tables_"): _TYPE,
    (_NAME, "labels_"): _labels,
    (_NAME, "groups_"): f.group_labels,
    (_NAME, "group_tables_"): _list_of_tables,
    (_NAME, "pooled_groups_"): f.group_labels,
    (_NAME, "merge"): f.param(check_option, "venncal.core.merge:MERGES"),
    (_NAME, "group_fallback"): f.param(check_option, "venncal.core.groups:GROUP_FALLBACKS"),
    (_NAME, "*"): (
        f.same_as("labels_", "tables_", "labels"),
        f.groups_together,
        _pooled_is_the_groups,
    ),
}
