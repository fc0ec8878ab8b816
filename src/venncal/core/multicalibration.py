"""Multicalibration by boosting on segment features: the fitted state and its prediction.

The fitted state is plain data: how segment columns become numbers (:class:`SegmentCoding`)
and the boosted trees as arrays (:class:`TreeEnsemble`). Prediction needs numpy only; the
trees are grown by the estimator layer (:class:`venncal.MulticalibrationCalibrator`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Mapping

    from venncal._typing import AnyArray, FloatArray, IntArray

__all__ = ["SegmentCoding", "TreeEnsemble", "score_logit", "MISSING_LEVEL"]

#: the level of a missing categorical value
MISSING_LEVEL = "<missing>"

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
