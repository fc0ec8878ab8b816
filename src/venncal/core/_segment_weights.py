"""The weights and levels of a calibration monitor per segment (numpy only).

Used by :class:`venncal.SegmentedCalibrationMonitor` and by the checks of its model files: the
weight of the ``k``-th level to appear in one of ``C`` segment columns,
``(1 / C) * 6 / (pi^2 k^2)`` (all of them sum to 1), the labels of the bins of a numerical
column, and the checks of the parameters that name the columns and their cut points.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from venncal._typing import FloatArray

__all__ = [
    "MISSING_LEVEL",
    "MAX_LEVELS",
    "MAX_EDGES",
    "bin_labels",
    "check_segment_bins",
    "check_segment_columns",
    "segment_log_weight",
]

#: the level of a missing segment value (None, NaN, pandas' NA)
MISSING_LEVEL = "(missing)"
#: the most levels one segment column may take over the whole stream
MAX_LEVELS = 10_000
#: the most cut points of one binned column
MAX_EDGES = 1_000
_LOG_BASEL = math.log(6.0 / math.pi**2)


def segment_log_weight(n_columns: int, rank: int) -> float:
    """``log w`` of the ``rank``-th level (from 1) to appear in one of ``n_columns`` columns:
    ``w = (1 / n_columns) * 6 / (pi^2 rank^2)``; over all columns and ranks the weights sum to 1.

    Examples
    --------
    >>> round(math.exp(segment_log_weight(2, 1)), 6)
    0.303964
    """
    return -math.log(n_columns) + _LOG_BASEL - 2.0 * math.log(rank)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


def check_segment_columns(value: object, *, name: str = "columns", owner: str = "") -> None:
    """``columns``: None, or a non-empty list or tuple of distinct non-empty strings."""
    owner = owner or "SegmentedCalibrationMonitor"
    if value is None:
        return
    ok = (
        isinstance(value, (list, tuple))
        and len(value) > 0
        and all(isinstance(c, str) and c for c in value)
        and len(set(value)) == len(value)
    )
    if not ok:
        raise ValueError(
            f"The '{name}' parameter of {owner} must be None or a non-empty list of distinct "
            f"column names (strings). Got {_short(value)} instead."
        )


def check_segment_bins(
    value: object, *, name: str = "bins", owner: str = ""
) -> dict[str, FloatArray]:
    """``bins``: None, or a dict of column name -> strictly increasing finite cut points
    (1 to ``MAX_EDGES`` of them); returned as float arrays."""
    owner = owner or "SegmentedCalibrationMonitor"
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and k for k in value):
        raise ValueError(
            f"The '{name}' parameter of {owner} must be None or a dict of column name -> cut "
            f"points. Got {_short(value)} instead."
        )
    out = {}
    for column, edges in value.items():
        arr = None
        if isinstance(edges, (list, tuple, np.ndarray)) and not any(
            isinstance(e, (bool, np.bool_, str)) for e in np.ravel(np.asarray(edges, dtype=object))
        ):
            try:
                arr = np.asarray(edges, dtype=np.float64)
            except (TypeError, ValueError, OverflowError):
                arr = None
        ok = (
            arr is not None
            and arr.ndim == 1
            and 1 <= arr.size <= MAX_EDGES
            and bool(np.isfinite(arr).all())
            and bool((np.diff(arr) > 0).all())
        )
        if not ok:
            raise ValueError(
                f"The '{name}' parameter of {owner}: the cut points of {column!r} must be 1 to "
                f"{MAX_EDGES} strictly increasing finite numbers. Got {_short(edges)} instead."
            )
        assert arr is not None
        out[column] = arr
    return out


def _number_text(x: float) -> str:
    return repr(int(x)) if float(x).is_integer() and abs(x) < 2**53 else repr(float(x))


def bin_labels(edges: FloatArray) -> list[str]:
    """The levels of a binned column, left-closed: ``(-inf, e1)``, ``[e1, e2)``, ...,
    ``[em, inf)``.

    Examples
    --------
    >>> bin_labels(np.array([18.0, 30.0]))
    ['(-inf, 18)', '[18, 30)', '[30, inf)']
    """
    texts = [_number_text(e) for e in edges]
    return (
        [f"(-inf, {texts[0]})"]
        + [f"[{a}, {b})" for a, b in zip(texts, texts[1:])]
        + [f"[{texts[-1]}, inf)"]
    )
