"""Checks of a saved :class:`~venncal.SegmentedCalibrationMonitor`: its segments, their test
martingales and their alarms must be those a stream can make.

The segment columns (``columns_``) are distinct non-empty names, those of the ``columns``
parameter when it names them, and hold every column of ``bins``. Per column, ``levels_``,
``states_`` and ``alarm_rows_`` hold one entry per level: distinct texts (at most
``MAX_LEVELS``; the bins' labels and ``"(missing)"`` only, for a binned column), one
:class:`~venncal.core.betting.MonitorState` each (checked as a ``CalibrationMonitor``'s, with
the alternatives of the parameters, no kept path, and the alarm level of the level's rank:
``log(1 / alpha) + log C + log(pi^2 / 6) + 2 log k``), and an alarm row exactly when the state
alarmed, a row of the stream at or after the level's own alarm row. The levels of each column
share the rows seen, ``n_seen_``. The rows of the table of expectations
(:mod:`venncal.persistence._checks`) for the class are :data:`SEGMENTED_MONITOR_ROWS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_in_range
from venncal.persistence import _fields as f
from venncal.persistence._fields import FittedStateError
from venncal.persistence._object_checks import _type_name

if TYPE_CHECKING:
    from venncal.persistence._checks import Row

__all__ = ["SEGMENTED_MONITOR_ROWS"]

_NAME = "SegmentedCalibrationMonitor"
_STATE = "venncal.core.betting.MonitorState"


def _grid(value: Any, *, name: str, owner: str) -> None:
    from venncal.core.betting import check_grid

    check_grid(value, name=name, owner=owner)


def _bins_count(value: Any, *, name: str, owner: str) -> None:
    from venncal.core.betting import check_n_bins

    check_n_bins(value, name=name, owner=owner)


def _columns_param(value: Any, *, name: str, owner: str) -> None:
    from venncal.core._segment_weights import check_segment_columns

    check_segment_columns(value, name=name, owner=owner)


def _bins_param(value: Any, *, name: str, owner: str) -> None:
    from venncal.core._segment_weights import check_segment_bins

    check_segment_bins(value, name=name, owner=owner)


def _columns(value: Any, where: str) -> None:
    if not isinstance(value, list) or not value:
        raise FittedStateError(f"{where} must be a non-empty list of column names")
    if not all(isinstance(c, str) and c for c in value) or len(set(value)) != len(value):
        raise FittedStateError(f"{where} must hold distinct non-empty strings")


def _per_column(kind: str) -> Any:
    """A dict of column name -> list (of level texts, states or alarm rows)."""

    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
            raise FittedStateError(f"{where} must be a dict of column name -> list")
        from venncal.core._segment_weights import MAX_LEVELS

        for column, items in value.items():
            at = f"{where}[{column!r}]"
            if len(items) > MAX_LEVELS:
                raise FittedStateError(f"{at} must hold at most {MAX_LEVELS} levels")
            if kind == "levels":
                if not all(isinstance(v, str) for v in items) or len(set(items)) != len(items):
                    raise FittedStateError(f"{at} must hold distinct level texts")
            elif kind == "states":
                for i, s in enumerate(items):
                    if _type_name(s) != _STATE:
                        raise FittedStateError(f"{at}[{i}] must be a MonitorState")
            else:
                for i, r in enumerate(items):
                    if r is not None:
                        f.integer(0, 2**63 - 1)(r, f"{at}[{i}]")

    return check


def _relations(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """Segments, states and alarms of one shape, of the parameters' grid and alarm levels."""
    columns = fitted.get("columns_")
    levels, states, alarms = (fitted.get(a) for a in ("levels_", "states_", "alarm_rows_"))
    alternatives, n_seen = fitted.get("alternatives_"), fitted.get("n_seen_")
    if any(v is None for v in (columns, levels, states, alarms, alternatives, n_seen)):
        return
    assert isinstance(columns, list) and isinstance(levels, dict)
    assert isinstance(states, dict) and isinstance(alarms, dict)
    assert isinstance(alternatives, np.ndarray)
    if params.get("columns") is not None and list(params["columns"]) != columns:
        raise FittedStateError(f"{where}.columns_ must be the columns of the 'columns' parameter")
    for d, name in ((levels, "levels_"), (states, "states_"), (alarms, "alarm_rows_")):
        if list(d) != columns:
            raise FittedStateError(f"{where}.{name} must hold the columns of columns_, in order")
    from venncal.core._segment_weights import (
        MISSING_LEVEL,
        bin_labels,
        check_segment_bins,
        segment_log_weight,
    )
    from venncal.core.betting import monitor_alternatives

    try:
        grid = monitor_alternatives(
            params.get("shifts"), params.get("slopes"), params.get("n_bins", 1), owner=where
        )
        edges = check_segment_bins(params.get("bins"), owner=where)
    except (TypeError, ValueError) as exc:
        raise FittedStateError(str(exc).rstrip(".")) from None
    if not np.array_equal(grid, alternatives):
        raise FittedStateError(f"{where}.alternatives_ must be those of its grid")
    outside = [c for c in edges if c not in columns]
    if outside:
        raise FittedStateError(f"{where}: bins names {outside[0]!r}, not one of columns_")
    alpha = params.get("alpha")
    for c in columns:
        at = f"{where}.states_[{c!r}]"
        if not len(levels[c]) == len(states[c]) == len(alarms[c]):
            raise FittedStateError(
                f"{where}: levels_, states_ and alarm_rows_ of {c!r} must be of one length"
            )
        if c in edges:
            allowed = set(bin_labels(edges[c])) | {MISSING_LEVEL}
            if not set(levels[c]) <= allowed:
                raise FittedStateError(f"{where}.levels_[{c!r}] must be labels of its bins")
        total = 0
        for k, (state, alarm) in enumerate(zip(states[c], alarms[c]), start=1):
            if state.log_wealth.shape[0] != grid.shape[0] or state.path is not None:
                raise FittedStateError(f"{at}[{k - 1}] must be of its grid and keep no path")
            if isinstance(alpha, float) and 0 < alpha < 1:
                want = -np.log(alpha) - segment_log_weight(len(columns), k)
                if not np.isclose(state.log_threshold, want, rtol=1e-12, atol=0):
                    raise FittedStateError(f"{at}[{k - 1}] must have the alarm level of rank {k}")
            if state.n_seen == 0:
                raise FittedStateError(f"{at}[{k - 1}] has seen no row of its level")
            if (alarm is None) != (state.alarm_index is None):
                raise FittedStateError(
                    f"{where}.alarm_rows_[{c!r}][{k - 1}] must be set exactly when it alarmed"
                )
            if alarm is not None and not state.alarm_index <= alarm < n_seen:
                raise FittedStateError(
                    f"{where}.alarm_rows_[{c!r}][{k - 1}] must be a row of the stream at or "
                    "after its level's alarm"
                )
            total += state.n_seen
        if total != n_seen:
            raise FittedStateError(f"{where}: the rows of the levels of {c!r} must sum to n_seen_")


def _alternatives(value: Any, where: str) -> None:
    if not isinstance(value, np.ndarray) or value.ndim != 2 or value.shape[1] != 3:
        raise FittedStateError(f"{where} must be a K x 3 float array")
    if value.dtype.kind != "f" or not np.isfinite(value).all() or value.shape[0] == 0:
        raise FittedStateError(f"{where} must hold finite floats")


SEGMENTED_MONITOR_ROWS: dict[tuple[str, str], Row] = {
    (_NAME, "classes_"): f.labels(2, 2),
    (_NAME, "n_features_in_"): f.n_columns(1),
    (_NAME, "columns_"): _columns,
    (_NAME, "levels_"): _per_column("levels"),
    (_NAME, "states_"): _per_column("states"),
    (_NAME, "alarm_rows_"): _per_column("alarms"),
    (_NAME, "n_seen_"): f.integer(0, 2**63 - 1),
    (_NAME, "alternatives_"): _alternatives,
    (_NAME, "columns"): f.param(_columns_param),
    (_NAME, "alpha"): f.param(check_in_range, 0, 1),
    (_NAME, "bins"): f.param(_bins_param),
    (_NAME, "shifts"): f.param(_grid),
    (_NAME, "slopes"): f.param(_grid),
    (_NAME, "n_bins"): f.param(_bins_count),
    (_NAME, "*"): (_relations,),
}
