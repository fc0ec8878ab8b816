"""Multicalibration by boosting on segment features: the fitted state and its prediction.

The fitted state is plain data: how segment columns become numbers (:class:`SegmentCoding`),
the boosted trees as arrays (:class:`TreeEnsemble`) and the Venn-Abers predictors fitted
within the levels of each segment column (:class:`LevelPredictors`). Prediction needs numpy
only; the trees are grown by the estimator layer (:class:`venncal.MulticalibrationCalibrator`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._params import owner_prefix
from venncal.core.venn_abers import ivap_fit

if TYPE_CHECKING:
    from collections.abc import Mapping

    from venncal._typing import AnyArray, FloatArray, IntArray
    from venncal.core.venn_abers import IVAPTables

__all__ = ["SegmentCoding", "TreeEnsemble", "LevelPredictors", "score_logit", "MISSING_LEVEL"]

#: the level of a missing categorical value
MISSING_LEVEL = "<missing>"
#: a categorical level is kept when it has at least this many calibration rows ...
MIN_LEVEL_ROWS = 10
#: ... and is among this many most frequent levels of its column
MAX_LEVELS = 50
#: the levels of a numerical column for the intervals within segments: its tertiles (the
#: levels of multicalibration_error's default max_values=3)
INTERVAL_BINS = 3
#: the most folds of the cross-fitting (each fold boosts its own trees)
MAX_FOLDS = 100


def check_n_folds(value: object, *, name: str, owner: str | None) -> int:
    """Raise unless ``value`` is an integer from 2 to :data:`MAX_FOLDS`.

    Examples
    --------
    >>> check_n_folds(300, name="n_folds", owner="MulticalibrationCalibrator")
    Traceback (most recent call last):
    ...
    ValueError: The 'n_folds' parameter of MulticalibrationCalibrator must be an integer from 2 to 100. Got 300 instead.
    """
    folds = -1
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        folds = int(value)
    if not 2 <= folds <= MAX_FOLDS:
        raise ValueError(
            f"{owner_prefix(name, owner)} must be an integer from 2 to {MAX_FOLDS}. "
            f"Got {value!r} instead."
        )
    return folds


#: probabilities are clipped to [EPS, 1 - EPS] before their logit is taken
EPS = 1e-12


def score_logit(s: FloatArray, score_scale: str) -> FloatArray:
    """The base model's log-odds: ``s`` itself (``"logit"``) or the logit of ``s`` clipped to
    [1e-12, 1 - 1e-12] (``"probability"``)."""
    if score_scale == "logit":
        return s
    q = np.clip(s, EPS, 1.0 - EPS)
    return np.log(q) - np.log1p(-q)


@dataclass(frozen=True)
class SegmentCoding:
    """How segment columns become the numeric features of the trees.

    A categorical column becomes one 0/1 indicator per kept level (a value not among them,
    unknown at fit or too rare, has every indicator 0: the level "other"). A numerical column
    becomes its bucket number: the count of cut points at or below the value (0 to
    ``len(edges)``), and -1 for a missing value.

    Attributes
    ----------
    categorical : tuple of str
        Names of the categorical columns.
    levels : tuple of tuple of str
        The kept levels of each categorical column, as text.
    numerical : tuple of str
        Names of the numerical columns.
    edges : tuple of ndarray
        The increasing cut points of each numerical column.

    Examples
    --------
    >>> coding = SegmentCoding(("sex",), (("F", "M"),), ("age",), (np.array([30.0, 50.0]),))
    >>> coding.encode({"sex": np.array(["M", "X"]), "age": np.array([30.0, np.nan])})
    array([[ 0.,  1.,  1.],
           [ 0.,  0., -1.]])
    """

    categorical: tuple[str, ...]
    levels: tuple[tuple[str, ...], ...]
    numerical: tuple[str, ...]
    edges: tuple[FloatArray, ...]

    @property
    def n_features(self) -> int:
        """Number of numeric features (indicators and bucket numbers)."""
        return sum(len(lv) for lv in self.levels) + len(self.numerical)

    def encode(self, columns: Mapping[str, AnyArray]) -> FloatArray:
        """The (n, ``n_features``) feature matrix of the columns (text for the categorical
        ones, with missing values as :data:`MISSING_LEVEL`; float for the numerical ones)."""
        parts: list[FloatArray] = []
        for name, levels in zip(self.categorical, self.levels, strict=True):
            values = columns[name]
            parts.extend((values == level).astype(np.float64) for level in levels)
        for name, edges in zip(self.numerical, self.edges, strict=True):
            x = columns[name]
            code = np.searchsorted(edges, x, side="right").astype(np.float64)
            parts.append(np.where(np.isnan(x), -1.0, code))
        n = len(next(iter(columns.values()))) if columns else 0
        if not parts:
            return np.zeros((n, 0))
        return np.column_stack(parts)


@dataclass(frozen=True)
class TreeEnsemble:
    """Regression trees stored as arrays; their leaf values add up to a correction of the
    base model's log-odds.

    Node ``j`` is a leaf when ``feature[j] < 0`` (its value is ``value[j]``); otherwise a row
    goes to ``left[j]`` when its feature ``feature[j]`` is at most ``threshold[j]`` and to
    ``right[j]`` otherwise. Indices are absolute; tree ``t`` starts at node ``roots[t]``.

    Examples
    --------
    One stump on feature 0 (below 0.5: -1, above: +1):

    >>> trees = TreeEnsemble(
    ...     feature=np.array([0, -1, -1]), threshold=np.array([0.5, 0.0, 0.0]),
    ...     left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
    ...     value=np.array([0.0, -1.0, 1.0]), roots=np.array([0]), max_depth=1,
    ... )
    >>> trees.decision(np.array([[0.0], [1.0]]))
    array([-1.,  1.])
    """

    feature: IntArray
    threshold: FloatArray
    left: IntArray
    right: IntArray
    value: FloatArray
    roots: IntArray
    max_depth: int

    @property
    def n_trees(self) -> int:
        """Number of trees."""
        return int(self.roots.shape[0])

    def decision(self, X: FloatArray, *, block: int = 4096) -> FloatArray:
        """Sum over the trees of each row's leaf value: shape (n,)."""
        n = X.shape[0]
        out = np.zeros(n)
        if self.n_trees == 0:
            return out
        for start in range(0, n, block):
            rows = X[start : start + block]
            node = np.broadcast_to(self.roots, (rows.shape[0], self.n_trees)).copy()
            index = np.arange(rows.shape[0])[:, None]
            for _ in range(self.max_depth):
                feat = self.feature[node]
                inner = feat >= 0
                if not inner.any():
                    break
                go_left = rows[index, np.where(inner, feat, 0)] <= self.threshold[node]
                node = np.where(inner, np.where(go_left, self.left[node], self.right[node]), node)
            out[start : start + block] = self.value[node].sum(axis=1)
        return out

    @classmethod
    def concatenate(cls, parts: list[TreeEnsemble], scale: float = 1.0) -> TreeEnsemble:
        """One ensemble of the trees of ``parts``, every value times ``scale`` (``1 / K`` makes
        the decision the mean of ``K`` ensembles' decisions)."""
        offset = 0
        feats, thr, left, right, value, roots = [], [], [], [], [], []
        for p in parts:
            size = p.feature.shape[0]
            feats.append(p.feature)
            thr.append(p.threshold)
            left.append(np.where(p.left >= 0, p.left + offset, -1))
            right.append(np.where(p.right >= 0, p.right + offset, -1))
            value.append(p.value * scale)
            roots.append(p.roots + offset)
            offset += size

        def cat(a: list[AnyArray], dtype: type) -> AnyArray:
            return np.concatenate(a).astype(dtype) if a else np.zeros(0, dtype=dtype)

        return cls(
            feature=cat(feats, np.int64),
            threshold=cat(thr, np.float64),
            left=cat(left, np.int64),
            right=cat(right, np.int64),
            value=cat(value, np.float64),
            roots=cat(roots, np.int64),
            max_depth=max((p.max_depth for p in parts), default=0),
        )


def level_edges(x: FloatArray, n_bins: int) -> FloatArray:
    """Cut points of ``n_bins`` buckets at the quantiles of the non-missing values of ``x``
    (one bucket per value when it has at most ``n_bins`` distinct values)."""
    x = x[~np.isnan(x)]
    distinct = np.unique(x)
    if distinct.shape[0] <= n_bins:
        return distinct[1:].astype(np.float64)
    return np.unique(np.quantile(x, np.linspace(0.0, 1.0, n_bins + 1)[1:-1]))


@dataclass(frozen=True)
class LevelPredictors:
    """Venn-Abers predictors fitted within the levels of each segment column.

    The levels of a categorical column are the kept levels of its :class:`SegmentCoding`
    (code ``k`` for ``levels[k]``) and "other" (code ``len(levels)``: every other value,
    unknown or missing ones included). A numerical column has the buckets of its own cut
    points ``edges`` (code 0 to ``len(edges)``) and -1 for a missing value. A level has a
    predictor of its own when it had enough calibration rows; :meth:`widen` stretches an
    interval [p0, p1] to contain the interval of every level the row is in: a Venn predictor
    valid within each of those levels is then inside it.

    Attributes
    ----------
    edges : tuple of ndarray
        Cut points of the levels of each numerical column (in the coding's order).
    levels : tuple of ndarray of int
        For each column (categorical first, then numerical), the codes that have a predictor.
    tables : tuple of tuple of IVAPTables
        Their predictors, in the order of ``levels``.

    Examples
    --------
    One categorical column with levels "a" and "b"; level "a" has a predictor of its own,
    whose interval at score 0.5 is [1/3, 2/3]:

    >>> coding = SegmentCoding(("g",), (("a", "b"),), (), ())
    >>> within_a = ivap_fit(np.arange(-2.0, 4.0), np.array([0, 0, 1, 0, 1, 1]))
    >>> preds = LevelPredictors((), (np.array([0]),), ((within_a,),))
    >>> codes = preds.codes(coding, {"g": np.array(["a", "b"])})
    >>> codes.ravel().tolist()
    [0, 1]

    The pooled interval [0.4, 0.5] of both rows: row "a" takes in a's interval, row "b"
    keeps its own.

    >>> p0, p1 = preds.widen(np.full(2, 0.5), codes, np.full(2, 0.4), np.full(2, 0.5))
    >>> np.round(p0, 3).tolist(), np.round(p1, 3).tolist()
    ([0.333, 0.4], [0.667, 0.5])
    """

    edges: tuple[FloatArray, ...]
    levels: tuple[IntArray, ...]
    tables: tuple[tuple[IVAPTables, ...], ...]

    def codes(self, coding: SegmentCoding, columns: Mapping[str, AnyArray]) -> IntArray:
        """The (n, number of columns) level codes of the rows (columns as for
        :meth:`SegmentCoding.encode`)."""
        parts: list[IntArray] = []
        for name, levels in zip(coding.categorical, coding.levels, strict=True):
            values = columns[name]
            code = np.full(values.shape[0], len(levels), dtype=np.int64)
            for k, level in enumerate(levels):
                code[values == level] = k
            parts.append(code)
        for name, edges in zip(coding.numerical, self.edges, strict=True):
            x = columns[name]
            code = np.searchsorted(edges, x, side="right").astype(np.int64)
            parts.append(np.where(np.isnan(x), -1, code))
        n = len(next(iter(columns.values()))) if columns else 0
        if not parts:
            return np.zeros((n, 0), dtype=np.int64)
        return np.column_stack(parts)

    @classmethod
    def fit(
        cls,
        edges: tuple[FloatArray, ...],
        codes: IntArray,
        t: FloatArray,
        y01: AnyArray,
        sample_weight: FloatArray | None,
        min_rows: int,
    ) -> LevelPredictors:
        """A predictor within each level with at least ``min_rows`` calibration rows, fitted
        on their scores ``t`` (the scores the pooled predictor was fitted on)."""
        levels: list[IntArray] = []
        tables: list[tuple[IVAPTables, ...]] = []
        for j in range(codes.shape[1]):
            found, counts = np.unique(codes[:, j], return_counts=True)
            kept = found[counts >= min_rows]
            fits = []
            for k in kept:
                rows = codes[:, j] == k
                w = None if sample_weight is None else sample_weight[rows]
                fits.append(ivap_fit(t[rows], y01[rows], sample_weight=w))
            levels.append(kept.astype(np.int64))
            tables.append(tuple(fits))
        return cls(tuple(edges), tuple(levels), tuple(tables))

    def widen(
        self, t: FloatArray, codes: IntArray, p0: FloatArray, p1: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """[p0, p1] stretched to contain the interval of each level of each row (its score
        ``t``, its level codes ``codes``)."""
        lo, hi = p0.copy(), p1.copy()
        for j, (levels, tables) in enumerate(zip(self.levels, self.tables, strict=True)):
            for k, table in zip(levels, tables, strict=True):
                rows = np.flatnonzero(codes[:, j] == k)
                if rows.shape[0]:
                    a, b = table.predict_unchecked(t[rows])
                    lo[rows] = np.minimum(lo[rows], a)
                    hi[rows] = np.maximum(hi[rows], b)
        return lo, hi
