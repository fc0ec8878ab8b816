"""Monitoring calibration per segment (region, age band, device...), with one guarantee for all."""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from venncal._validation import (
    check_consistent_length,
    check_in_range,
    check_labels01,
    check_probabilities,
)
from venncal.core._segment_weights import (
    MAX_LEVELS,
    MISSING_LEVEL,
    _short,
    bin_labels,
    check_segment_bins,
    check_segment_columns,
    segment_log_weight,
)
from venncal.core.betting import (
    BLOCK_ROWS,
    MonitorState,
    advance,
    current_log_martingale,
    initial_state,
    monitor_alternatives,
)
from venncal.shift._monitor import _SHIFTS, _SLOPES

if TYPE_CHECKING:
    import pandas as pd
    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = ["SegmentedCalibrationMonitor"]

_CELLS = 64 * BLOCK_ROWS


def _level_texts(values: Any, column: str, edges: FloatArray | None) -> AnyArray:
    """The level of each row of one segment column as text (an object array)."""
    import pandas as pd

    if not isinstance(values, pd.Series) and np.ndim(values) != 1:
        raise ValueError(f"segments[{column!r}] must be one-dimensional (one value per row).")
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=None)
    missing = series.isna().to_numpy(dtype=bool)
    if edges is not None:
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        numeric = is_numeric_dtype(series.dtype) and not is_bool_dtype(series.dtype)
        if not numeric:
            bad = [
                v
                for v in series[~missing]
                if not isinstance(v, numbers.Real) or isinstance(v, (bool, np.bool_))
            ]
            if bad:
                raise ValueError(
                    f"segments[{column!r}] has cut points (bins) and must hold numbers; it "
                    f"holds {_short(bad[0])}."
                )
        x = series.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isinf(x).any():
            raise ValueError(
                f"segments[{column!r}] holds an infinite value at row "
                f"{int(np.flatnonzero(np.isinf(x))[0])}; give finite numbers or missing values."
            )
        labels = np.array(bin_labels(edges), dtype=object)
        idx = np.searchsorted(edges, np.where(missing, 0.0, x), side="right")
        out = labels[idx]
        out[missing] = MISSING_LEVEL
        return np.asarray(out, dtype=object)
    floats = series.dtype.kind == "f" or (
        series.dtype.kind == "O"
        and any(isinstance(v, (float, np.floating)) for v in series[~missing])
    )
    if floats:
        raise ValueError(
            f"segments[{column!r}] holds non-integer numbers (floats): give its cut points, "
            f"e.g. bins={{{column!r}: [18, 30, 50]}}, or pass it as text or integers."
        )
    out = np.asarray(series.to_numpy(dtype=object).astype(str), dtype=object)
    out[missing] = MISSING_LEVEL
    return out


class SegmentedCalibrationMonitor(BaseEstimator):
    """Sound an alarm naming *which* segment (region, age band, device...) lost calibration.

    Feed it the probabilities a model gave, the labels as they arrive and the rows' segment
    columns, in time order, in batches of any size (:meth:`update`). It keeps one test
    martingale per segment (a level of a segment column), each the test of
    :class:`CalibrationMonitor` over that segment's rows alone, and alarms on a segment when
    its martingale reaches its own threshold. While the probabilities are calibrated in every
    segment, the probability that *any* segment ever alarms is at most ``alpha``, over the
    whole stream, however many segments there are and however many appear later.

    Parameters
    ----------
    columns : list of str or None, default=None
        The segment columns. None: the columns of the first batch's ``segments``, in their
        order, fixed from then on (before any label is read). Later batches must hold every
        column (others are ignored).
    alpha : float in (0, 1), default=0.05
        The probability of any false alarm, over all segments together and the whole stream,
        while the probabilities stay calibrated.
    bins : dict of str -> sequence of float, or None, default=None
        Cut points of numerical columns, e.g. ``{"age": [18, 30, 50]}``: the levels are the
        left-closed bins ``(-inf, 18)``, ``[18, 30)``, ``[30, 50)``, ``[50, inf)`` (so 30 is in
        ``[30, 50)``). A column of non-integer numbers (floats) without cut points is refused;
        integers, strings, booleans and categories are levels as they are.
    shifts, slopes, n_bins
        The alternatives bet on within each segment, as in :class:`CalibrationMonitor`.

    Attributes
    ----------
    alarm_ : bool
        Whether some segment has alarmed.
    alarm_index_ : int or None
        The first row (counting from 0 over the whole stream) at which some segment alarmed.
    alarmed_segments_ : list of (str, str)
        The ``(column, level)`` of every segment that alarmed, in the order they did.
    columns_ : list of str
        The segment columns.
    levels_ : dict of str -> list of str
        Each column's levels as text, in the order they first appeared (the ``k``-th has
        rank ``k``). A missing value (None, NaN, pandas' NA) is the level ``"(missing)"``.
    states_ : dict of str -> list of MonitorState
        The test martingale of each level (its alarm level is the segment's threshold).
    alarm_rows_ : dict of str -> list of int or None
        The first row of the stream at which each level alarmed (None: not yet).
    n_seen_ : int
        Rows seen.
    alternatives_ : ndarray of shape (K, 3)
        The alternatives bet on, as in :class:`CalibrationMonitor`.

    Notes
    -----
    **The statistic.** For every segment column ``c`` and every level ``l`` of it there is one
    test martingale ``M_{c,l}``: the mixture of :class:`CalibrationMonitor` (over
    alternatives and start times) computed over the rows of that level alone; rows of other
    levels leave it unchanged (its clock counts its own rows). It equals the martingale of a
    ``CalibrationMonitor`` fed only that segment's rows, number for number.

    **The weights.** Each column has weight ``1 / C`` (``C`` columns, fixed at construction or
    at the first batch); within a column, the ``k``-th level to appear (``k = 1, 2, ...``) has
    weight ``6 / (pi^2 k^2)``, assigned when the level is first seen, before any of its
    labels is used. So the weight of a segment is fixed predictably and the weights of all
    segments sum to at most 1, whatever levels come later. The alarm for segment ``s`` fires
    when ``M_s`` reaches ``1 / (alpha w_s)``; its log-threshold is
    ``log(1 / alpha) + log C + log(pi^2 / 6) + 2 log k``.

    **The guarantee.** ``sum_s w_s M_s`` is a test supermartingale (a mixture, with
    predictable weights summing to at most 1, of test martingales for the null that every
    probability is calibrated given the past, ``P(y = 1 | p, past) = p``), so by Ville's
    inequality it ever reaches ``1 / alpha`` with probability at most ``alpha``; an alarm on
    any segment implies it did. The family-wise false-alarm probability over all segments
    and the whole stream is therefore at most ``alpha`` (a union bound with predictable
    weights). The price of a segment is its weight: a level first seen as the ``k``-th of its
    column needs about ``log C + 2 log k + 0.5`` nats more evidence than a lone monitor.

    **Missing values** are a level of their own, ``"(missing)"`` (the text ``"(missing)"``
    is the same level). Levels are compared by their text (``1`` and ``"1"`` are one level).
    A column may take at most ``MAX_LEVELS`` = 10,000 levels (an identifier is not a
    segment).

    The null, what the test sees and what it cannot see are those of
    :class:`CalibrationMonitor`, within each segment. A miscalibration that one segment
    carries is diluted in the stream as a whole; here it is tested on that segment's rows
    alone, so it is found sooner and named.

    Examples
    --------
    The positive rate of the region "north" rises by 0.25; the other regions stay calibrated:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> n = 3000
    >>> region = rng.choice(["north", "south", "east", "west"], n)
    >>> device = rng.choice(["mobile", "desktop"], n)
    >>> p = rng.uniform(0.1, 0.6, n)
    >>> y = rng.random(n) < p + np.where(region == "north", 0.25, 0.0)
    >>> monitor = SegmentedCalibrationMonitor(alpha=0.05)
    >>> for start in range(0, n, 500):
    ...     batch = slice(start, start + 500)
    ...     _ = monitor.update(p[batch], y[batch],
    ...                        segments={"region": region[batch], "device": device[batch]})
    >>> monitor.alarmed_segments_[0]
    ('region', 'north')
    """

    def __init__(
        self,
        columns: list[str] | tuple[str, ...] | None = None,
        *,
        alpha: float = 0.05,
        bins: Mapping[str, ArrayLike] | None = None,
        shifts: ArrayLike = _SHIFTS,
        slopes: ArrayLike = _SLOPES,
        n_bins: int = 1,
    ) -> None:
        self.columns = columns
        self.alpha = alpha
        self.bins = bins
        self.shifts = shifts
        self.slopes = slopes
        self.n_bins = n_bins

    # -- parameters -------------------------------------------------------------------------

    def _checked(self) -> tuple[FloatArray, dict[str, FloatArray]]:
        owner = type(self).__name__
        check_in_range(self.alpha, 0.0, 1.0, name="alpha", owner=owner)
        check_segment_columns(self.columns, owner=owner)
        edges = check_segment_bins(self.bins, owner=owner)
        if self.columns is not None:
            outside = [c for c in edges if c not in self.columns]
            if outside:
                raise ValueError(
                    f"{owner}: bins names {outside[0]!r}, which is not one of the columns "
                    f"{list(self.columns)}."
                )
        return monitor_alternatives(self.shifts, self.slopes, self.n_bins, owner=owner), edges

    def _log_threshold(self, rank: int) -> float:
        return -math.log(self.alpha) - segment_log_weight(len(self.columns_), rank)

    def _check_started(self, alternatives: FloatArray) -> None:
        same = (
            np.array_equal(alternatives, self.alternatives_)
            and (self.columns is None or list(self.columns) == self.columns_)
            and all(
                np.isclose(s.log_threshold, self._log_threshold(k + 1), rtol=1e-12, atol=0)
                for states in self.states_.values()
                for k, s in enumerate(states[:1])
            )
        )
        if not same:
            raise ValueError(
                f"This {type(self).__name__}'s parameters were changed after it started; "
                "start a new monitor (sklearn.base.clone) to use other parameters."
            )

    # -- reading a batch ----------------------------------------------------------------------

    def _segment_columns(
        self, segments: object, n: int, edges: dict[str, FloatArray]
    ) -> tuple[list[str], dict[str, AnyArray]]:
        import pandas as pd

        if isinstance(segments, pd.DataFrame):
            names = [c for c in segments.columns]
            get = segments.__getitem__
        elif isinstance(segments, Mapping):
            names = list(segments)
            get = segments.__getitem__
        else:
            raise TypeError(
                "segments must be a pandas DataFrame or a dict of column name -> values; got "
                f"{type(segments).__name__}."
            )
        if hasattr(self, "columns_"):
            columns = self.columns_
        elif self.columns is not None:
            columns = list(self.columns)
        else:
            columns = [c for c in names]
            if not columns or not all(isinstance(c, str) and c for c in columns):
                raise ValueError(
                    "segments must name at least one column, each by a non-empty string; got "
                    f"{_short(columns)}."
                )
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(
                f"segments has no column {missing[0]!r}; every batch needs the columns {columns}."
            )
        outside = [c for c in edges if c not in columns]
        if outside:
            raise ValueError(
                f"bins names {outside[0]!r}, which is not one of the columns {columns}."
            )
        texts = {}
        for c in columns:
            values = get(c)
            length = len(values) if hasattr(values, "__len__") else -1
            if length != n:
                raise ValueError(
                    f"Inconsistent lengths: p has {n} value(s), segments[{c!r}] has "
                    f"{length} value(s); they must match."
                )
            texts[c] = _level_texts(values, c, edges.get(c))
        return columns, texts

    # -- feeding the stream -------------------------------------------------------------------

    def update(self, p: ArrayLike, y: ArrayLike, segments: object) -> Self:
        """Add a batch of rows: probabilities, their labels and their segments, in time order.

        Batches may be of any size, including one row; the result is the same as one batch of
        all the rows. A batch that is refused changes nothing.

        Parameters
        ----------
        p : array-like of shape (n,) or (n, 2)
            The probabilities the model gave (of the positive class).
        y : array-like of shape (n,)
            Their labels: 0/1 or booleans.
        segments : pandas DataFrame or dict of str -> array-like of shape (n,)
            The segment columns of the rows (every column of ``columns``; others are ignored).

        Returns
        -------
        self : SegmentedCalibrationMonitor

        Examples
        --------
        >>> monitor = SegmentedCalibrationMonitor(["region"])
        >>> _ = monitor.update([0.2, 0.9, 0.4], [0, 1, 1], segments={"region": ["a", "b", "a"]})
        >>> monitor.levels_, monitor.n_seen_
        ({'region': ['a', 'b']}, 3)
        """
        alternatives, edges = self._checked()
        if hasattr(self, "states_"):
            self._check_started(alternatives)
        prob = check_probabilities(p, name="p") if np.size(p) else np.zeros(0)
        labels = check_labels01(y, name="y") if np.size(y) else np.zeros(0, dtype=np.int8)
        check_consistent_length(p=prob, y=labels)
        n = prob.shape[0]
        import pandas as pd

        columns, texts = self._segment_columns(segments, n, edges)
        # the new levels of each column, in order of first appearance (checked before any
        # state changes)
        new_levels: dict[str, list[str]] = {}
        for c in columns:
            known = self.levels_.get(c, []) if hasattr(self, "levels_") else []
            seen = set(known)
            fresh = [v for v in pd.unique(texts[c]) if v not in seen]
            if len(known) + len(fresh) > MAX_LEVELS:
                raise ValueError(
                    f"segments[{c!r}] would take more than {MAX_LEVELS} levels; a segment "
                    "column must hold few distinct values (bin numbers with 'bins')."
                )
            new_levels[c] = fresh
        if not hasattr(self, "states_"):
            self.columns_ = list(columns)
            self.alternatives_ = alternatives
            self.levels_: dict[str, list[str]] = {c: [] for c in columns}
            self.states_: dict[str, list[MonitorState]] = {c: [] for c in columns}
            self.alarm_rows_: dict[str, list[int | None]] = {c: [] for c in columns}
            self.n_seen_ = 0
            self.classes_ = np.array([0, 1])
            self.n_features_in_ = 1
        K = alternatives.shape[0]
        for c in columns:
            for level in new_levels[c]:
                rank = len(self.levels_[c]) + 1
                self.levels_[c].append(level)
                self.states_[c].append(initial_state(K, self._log_threshold(rank), keep_path=False))
                self.alarm_rows_[c].append(None)
        start = self.n_seen_
        for c in columns:
            codes = pd.Index(self.levels_[c]).get_indexer(texts[c]).astype(np.int64)
            order = np.argsort(codes, kind="stable")
            bounds = np.flatnonzero(np.diff(codes[order])) + 1
            for rows in np.split(order, bounds) if n else []:
                i = int(codes[rows[0]])
                state = self.states_[c][i]
                before = state.n_seen
                state = _advance(state, prob[rows], labels[rows], alternatives)
                self.states_[c][i] = state
                if self.alarm_rows_[c][i] is None and state.alarm_index is not None:
                    self.alarm_rows_[c][i] = start + int(rows[state.alarm_index - before])
        self.n_seen_ = start + n
        return self

    # -- what it found ------------------------------------------------------------------------

    def _require_fitted(self, what: str) -> None:
        if not hasattr(self, "states_"):
            raise NotFittedError(
                f"This {type(self).__name__} has seen no rows yet; call update(p, y, "
                f"segments=...) before {what}."
            )

    @property
    def alarm_(self) -> bool:
        self._require_fitted("reading alarm_")
        return any(r is not None for rows in self.alarm_rows_.values() for r in rows)

    @property
    def alarm_index_(self) -> int | None:
        self._require_fitted("reading alarm_index_")
        rows = [r for rs in self.alarm_rows_.values() for r in rs if r is not None]
        return min(rows) if rows else None

    @property
    def alarmed_segments_(self) -> list[tuple[str, str]]:
        self._require_fitted("reading alarmed_segments_")
        found = [
            (row, j, k, c, level)
            for j, c in enumerate(self.columns_)
            for k, (level, row) in enumerate(zip(self.levels_[c], self.alarm_rows_[c]))
            if row is not None
        ]
        return [(c, level) for *_, c, level in sorted(found)]

    def log_martingale(self, column: str, level: object) -> float:
        """The current natural log of the martingale of one segment (0 before its first row).

        ``level`` is compared by its text (``"(missing)"`` for missing values; a bin's
        label, e.g. ``"[18, 30)"``, for a binned column).
        """
        self._require_fitted("log_martingale")
        if column not in self.levels_ or str(level) not in self.levels_[column]:
            raise KeyError(f"no segment {column!r} = {str(level)!r} has been seen")
        i = self.levels_[column].index(str(level))
        return current_log_martingale(self.states_[column][i])

    def report(self) -> pd.DataFrame:
        """One row per segment, the alarmed first (by the row of their alarm), then by evidence.

        Returns
        -------
        pandas.DataFrame
            Columns ``column``, ``level``, ``rank`` (the order in which the level first
            appeared in its column), ``weight`` (``w``), ``n_rows``, ``log_martingale`` (now),
            ``log_max`` (its peak), ``threshold`` (the log of ``1 / (alpha w)``), ``evidence``
            (``log_martingale - threshold``: 0 or more means the martingale is at or above
            its alarm level now), ``alarm`` and ``alarm_row`` (the first row of the stream at
            which it alarmed, or missing). Sorted: alarmed segments by ``alarm_row``, then the
            others by ``evidence``, largest first.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before the first row.
        """
        import pandas as pd

        self._require_fitted("report()")
        rows = []
        for c in self.columns_:
            for k, (level, state, alarm) in enumerate(
                zip(self.levels_[c], self.states_[c], self.alarm_rows_[c]), start=1
            ):
                log_m = current_log_martingale(state)
                rows.append(
                    {
                        "column": c,
                        "level": level,
                        "rank": k,
                        "weight": math.exp(segment_log_weight(len(self.columns_), k)),
                        "n_rows": state.n_seen,
                        "log_martingale": log_m,
                        "log_max": state.log_max,
                        "threshold": state.log_threshold,
                        "evidence": log_m - state.log_threshold,
                        "alarm": alarm is not None,
                        "alarm_row": alarm,
                    }
                )
        frame = pd.DataFrame(rows, columns=_REPORT_COLUMNS)
        frame["alarm_row"] = frame["alarm_row"].astype("Int64")
        frame = frame.sort_values(
            ["alarm", "alarm_row", "evidence"], ascending=[False, True, False], kind="stable"
        )
        return frame.reset_index(drop=True)

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.requires_fit = True
        return tags


_REPORT_COLUMNS = [
    "column",
    "level",
    "rank",
    "weight",
    "n_rows",
    "log_martingale",
    "log_max",
    "threshold",
    "evidence",
    "alarm",
    "alarm_row",
]


def _advance(
    state: MonitorState, prob: FloatArray, labels: AnyArray, alternatives: FloatArray
) -> MonitorState:
    """``advance`` in pieces of bounded memory (the same numbers as one piece)."""
    step = max(1, _CELLS // alternatives.shape[0])
    for lo in range(0, prob.shape[0], step):
        state, _ = advance(state, prob[lo : lo + step], labels[lo : lo + step], alternatives)
    return dataclasses.replace(state, path=None) if state.path is not None else state
