"""Checks of a saved :class:`~venncal.MulticalibrationCalibrator`: its segment coding, its
boosted trees and its Venn-Abers predictors within levels must be those a fit can make.

The segment coding (:class:`~venncal.core.multicalibration.SegmentCoding`) names distinct
columns, each categorical one with at most ``MAX_LEVELS`` distinct levels and each numerical
one with strictly increasing finite cut points (at most ``n_bins - 1``). The trees
(:class:`~venncal.core.multicalibration.TreeEnsemble`) are a forest: every node is a root or
the child of exactly one node, a child's index is larger than its parent's (so there is no
cycle), a leaf has no children and an inner node no value, the features are columns of the
coding (or the log-odds, the last one), thresholds and values are finite, and
``max_depth`` is the depth of the deepest leaf, so the walk of :meth:`TreeEnsemble.decision`
ends at a leaf for every row. The predictors within levels
(:class:`~venncal.core.multicalibration.LevelPredictors`) hold, per segment column, distinct
level codes the coding can give and one Venn-Abers table of the usual invariants per code.
The rows of the table of expectations (:mod:`venncal.persistence._checks`) for the class are
:data:`MULTICALIBRATION_ROWS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_in_range, check_option, check_positive_int
from venncal.persistence import _fields as f
from venncal.persistence._fields import FittedStateError
from venncal.persistence._object_checks import OBJECT_CHECKS, _float_vector, _type_name

if TYPE_CHECKING:
    from venncal._typing import AnyArray
    from venncal.persistence._checks import Row
    from venncal.persistence._fields import Check

__all__ = ["MULTICALIBRATION_OBJECT_CHECKS", "MULTICALIBRATION_ROWS"]

_NAME = "MulticalibrationCalibrator"
_CORE = "venncal.core.multicalibration."
_IVAP = "venncal.core.venn_abers.IVAPTables"
#: the candidates of the held-out check (``chosen_``; absent in files of older versions)
_CANDIDATES = ("identity", "venn_abers", "boosted")


def _constant(name: str) -> Any:
    # the module of a decoded coding is loaded already (numpy only)
    from venncal.core import multicalibration

    return getattr(multicalibration, name)


def _names(value: Any, where: str) -> tuple[str, ...]:
    """A tuple of distinct non-empty strings."""
    if not isinstance(value, tuple) or not all(isinstance(v, str) and v for v in value):
        raise FittedStateError(f"{where} must be a tuple of non-empty strings")
    if len(set(value)) != len(value):
        raise FittedStateError(f"{where} must hold distinct names")
    return value


def _edges(value: Any, where: str, most: int | None = None) -> AnyArray:
    """Strictly increasing finite cut points (at most ``most``)."""
    edges = _float_vector(value, where)
    if (np.diff(edges) <= 0).any():
        raise FittedStateError(f"{where} must be strictly increasing")
    if most is not None and edges.shape[0] > most:
        raise FittedStateError(f"{where} must hold at most {most} cut points")
    return edges


def _int_vector(value: Any, where: str) -> AnyArray:
    if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype != np.int64:
        raise FittedStateError(f"{where} must be a 1-D int64 array")
    return value


def _check_coding(coding: Any, where: str) -> None:
    fields = coding.__dict__
    cat = _names(fields.get("categorical"), f"{where}.categorical")
    num = _names(fields.get("numerical"), f"{where}.numerical")
    if set(cat) & set(num):
        raise FittedStateError(f"{where}: a column is both categorical and numerical")
    levels, edges = fields.get("levels"), fields.get("edges")
    if not isinstance(levels, tuple) or len(levels) != len(cat):
        raise FittedStateError(f"{where}.levels must be a tuple of one tuple per column")
    most = _constant("MAX_LEVELS")
    for j, kept in enumerate(levels):
        if not isinstance(kept, tuple) or not all(isinstance(v, str) for v in kept):
            raise FittedStateError(f"{where}.levels[{j}] must be a tuple of strings")
        if len(set(kept)) != len(kept) or len(kept) > most:
            raise FittedStateError(f"{where}.levels[{j}] must hold at most {most} distinct levels")
    if not isinstance(edges, tuple) or len(edges) != len(num):
        raise FittedStateError(f"{where}.edges must be a tuple of one array per column")
    for j, cuts in enumerate(edges):
        _edges(cuts, f"{where}.edges[{j}]")


def _depths(left: AnyArray, right: AnyArray, inner: AnyArray, n: int) -> AnyArray:
    """The depth of every node of a checked forest (each node has one parent, of a smaller
    index): ancestors counted by pointer doubling, log2(depth) passes."""
    parent = np.arange(n)
    rows = np.flatnonzero(inner)
    parent[left[rows]] = rows
    parent[right[rows]] = rows
    depth: AnyArray = (parent != np.arange(n)).astype(np.int64)
    while True:
        grand = parent[parent]
        if np.array_equal(grand, parent):
            return depth
        depth = depth + depth[parent]  # a root is its own parent, at depth 0
        parent = grand


def _check_trees(trees: Any, where: str) -> None:
    fields = trees.__dict__
    feature = _int_vector(fields.get("feature"), f"{where}.feature")
    left = _int_vector(fields.get("left"), f"{where}.left")
    right = _int_vector(fields.get("right"), f"{where}.right")
    roots = _int_vector(fields.get("roots"), f"{where}.roots")
    threshold = _float_vector(fields.get("threshold"), f"{where}.threshold")
    value = _float_vector(fields.get("value"), f"{where}.value")
    n = feature.shape[0]
    if not (left.shape[0] == right.shape[0] == threshold.shape[0] == value.shape[0] == n):
        raise FittedStateError(
            f"{where}: feature, threshold, left, right and value differ in length"
        )
    f.integer(0, max(n, 0))(fields.get("max_depth"), f"{where}.max_depth")
    if (n == 0) != (roots.shape[0] == 0):
        raise FittedStateError(f"{where}.roots must hold one root per tree (none without nodes)")
    if n == 0:
        if fields["max_depth"] != 0:
            raise FittedStateError(f"{where}.max_depth must be 0 without trees")
        return
    if roots[0] != 0 or (np.diff(roots) <= 0).any() or roots[-1] >= n:
        raise FittedStateError(f"{where}.roots must rise strictly from 0 within the nodes")
    inner = feature >= 0
    leaf = ~inner
    if (feature[leaf] != -1).any() or (left[leaf] != -1).any() or (right[leaf] != -1).any():
        raise FittedStateError(f"{where}: a leaf must have feature, left and right -1")
    index = np.arange(n)
    for side, child in (("left", left), ("right", right)):
        if ((child[inner] <= index[inner]) | (child[inner] >= n)).any():
            raise FittedStateError(
                f"{where}.{side} of an inner node must be a later node of the ensemble"
            )
    if (value[inner] != 0).any():
        raise FittedStateError(f"{where}.value of an inner node must be 0")
    parents = np.bincount(np.r_[left[inner], right[inner], roots], minlength=n)
    if (parents != 1).any():
        raise FittedStateError(f"{where}: every node must be a root or the child of one node")
    deepest = int(_depths(left, right, inner, n).max())
    if fields["max_depth"] != deepest:
        raise FittedStateError(f"{where}.max_depth must be the depth of its deepest leaf")


def _check_levels(preds: Any, where: str) -> None:
    fields = preds.__dict__
    edges, levels, tables = (fields.get(k) for k in ("edges", "levels", "tables"))
    if not isinstance(edges, tuple):
        raise FittedStateError(f"{where}.edges must be a tuple of arrays")
    for j, cuts in enumerate(edges):
        _edges(cuts, f"{where}.edges[{j}]", _constant("INTERVAL_BINS") - 1)
    if not isinstance(levels, tuple) or not isinstance(tables, tuple):
        raise FittedStateError(f"{where}.levels and .tables must be tuples")
    if len(tables) != len(levels):
        raise FittedStateError(f"{where}.tables must hold one tuple per column of levels")
    for j, (codes, fits) in enumerate(zip(levels, tables, strict=True)):
        codes = _int_vector(codes, f"{where}.levels[{j}]")
        if (np.diff(codes) <= 0).any():
            raise FittedStateError(f"{where}.levels[{j}] must be strictly increasing")
        if not isinstance(fits, tuple) or len(fits) != codes.shape[0]:
            raise FittedStateError(f"{where}.tables[{j}] must hold one table per level")
        for k, table in enumerate(fits):
            if _type_name(table) != _IVAP:
                raise FittedStateError(f"{where}.tables[{j}][{k}] must be an IVAPTables")
            OBJECT_CHECKS[_IVAP](table, f"{where}.tables[{j}][{k}]")


def _columns(value: Any, where: str) -> None:
    """``categorical_`` and ``numerical_``: lists of distinct column names."""
    if not isinstance(value, list):
        raise FittedStateError(f"{where} must be a list of column names")
    _names(tuple(value), where)


def _column_param(value: Any, *, name: str, owner: str) -> None:
    """``categorical`` or ``numerical``: None or a list of column names (fit checks that the
    segments hold them)."""
    if value is not None and not (
        isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    ):
        raise ValueError(f"The '{name}' parameter of {owner} must be None or a list of names.")


def _n_folds(value: Any, *, name: str, owner: str) -> None:
    from venncal.core.multicalibration import check_n_folds

    check_n_folds(value, name=name, owner=owner)


def _n_trees(value: Any, where: str) -> None:
    if not isinstance(value, list):
        raise FittedStateError(f"{where} must be a list of tree counts")
    for k, count in enumerate(value):
        f.integer(0, 2**31 - 1)(count, f"{where}[{k}]")


def _pos_label(value: Any, where: str) -> None:
    """``pos_label_``: the positive class, one label."""
    if not isinstance(value, (str, int, float, bool)):
        raise FittedStateError(f"{where} must be a label (a string, number or boolean)")


def _cv_log_loss(value: Any, where: str) -> None:
    """``cv_log_loss_``: the held-out log loss of each candidate of the held-out check."""
    if not isinstance(value, dict) or set(value) != set(_CANDIDATES):
        raise FittedStateError(f"{where} must map {', '.join(_CANDIDATES)} to log losses")
    for name in _CANDIDATES:
        f.number(0.0)(value[name], f"{where}[{name!r}]")


def _optional_levels(value: Any, where: str) -> None:
    """``level_predictors_``: None or a LevelPredictors (checked by its type's check)."""
    if value is not None and _type_name(value) != _CORE + "LevelPredictors":
        raise FittedStateError(f"{where} must be None or a LevelPredictors")


def _relations(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """The fitted parts belong together and to the parameters: the columns are the coding's,
    the trees read its features (and the log-odds), one tree count per fold adding up to the
    trees (none unless ``chosen_`` is "boosted"), the cut points within ``n_bins``, and
    predictors within levels exactly with ``interval="segments"``, for the coding's columns
    and levels."""
    coding, trees = fitted.get("coding_"), fitted.get("trees_")
    if coding is None or trees is None:
        return
    if fitted.get("categorical_", list(coding.categorical)) != list(coding.categorical) or (
        fitted.get("numerical_", list(coding.numerical)) != list(coding.numerical)
    ):
        raise FittedStateError(f"{where}.categorical_ and .numerical_ must be coding_'s columns")
    width = sum(len(kept) for kept in coding.levels) + len(coding.numerical) + 1
    if (trees.feature >= width).any():
        raise FittedStateError(f"{where}.trees_ reads a feature beyond the {width} of coding_")
    counts = fitted.get("n_trees_")
    folds, most = params.get("n_folds"), params.get("max_iter")
    if isinstance(counts, list):
        if sum(counts) != trees.roots.shape[0] or (isinstance(folds, int) and len(counts) != folds):
            raise FittedStateError(f"{where}.n_trees_ must count the trees of each fold")
        if isinstance(most, int) and any(c > most for c in counts):
            raise FittedStateError(f"{where}.n_trees_ must be at most max_iter per fold")
    if fitted.get("chosen_", "boosted") != "boosted" and trees.roots.shape[0]:
        raise FittedStateError(f"{where}.trees_ must be empty unless chosen_ is 'boosted'")
    n_bins = params.get("n_bins")
    if isinstance(n_bins, int) and any(e.shape[0] > n_bins - 1 for e in coding.edges):
        raise FittedStateError(f"{where}.coding_ must cut a numerical column into n_bins buckets")
    _level_relations(fitted.get("level_predictors_"), coding, params, where)


def _level_relations(preds: Any, coding: Any, params: dict[str, Any], where: str) -> None:
    interval = params.get("interval", "pooled" if preds is None else "segments")
    if (preds is None) != (interval == "pooled"):
        raise FittedStateError(
            f"{where}.level_predictors_ must be set exactly when interval='segments'"
        )
    if preds is None:
        return
    n_cat = len(coding.categorical)
    if len(preds.edges) != len(coding.numerical) or len(preds.levels) != n_cat + len(
        coding.numerical
    ):
        raise FittedStateError(f"{where}.level_predictors_ must have the columns of coding_")
    for j, codes in enumerate(preds.levels):
        if j < n_cat:
            low, high = 0, len(coding.levels[j])  # a kept level, or "other"
        else:
            low, high = -1, preds.edges[j - n_cat].shape[0]  # missing, or a bucket
        if codes.shape[0] and (codes[0] < low or codes[-1] > high):
            raise FittedStateError(
                f"{where}.level_predictors_.levels[{j}] must hold codes in [{low}, {high}]"
            )


MULTICALIBRATION_OBJECT_CHECKS: dict[str, Check] = {
    _CORE + "SegmentCoding": _check_coding,
    _CORE + "TreeEnsemble": _check_trees,
    _CORE + "LevelPredictors": _check_levels,
}

_positive = f.param(check_positive_int)

MULTICALIBRATION_ROWS: dict[tuple[str, str], Row] = {
    (_NAME, "classes_"): f.labels(2, 2),
    (_NAME, "n_features_in_"): f.n_columns(1),
    (_NAME, "pos_label_"): _pos_label,
    (_NAME, "categorical_"): _columns,
    (_NAME, "numerical_"): _columns,
    (_NAME, "coding_"): _CORE + "SegmentCoding",
    (_NAME, "trees_"): _CORE + "TreeEnsemble",
    (_NAME, "n_trees_"): _n_trees,
    (_NAME, "tables_"): _IVAP,
    (_NAME, "level_predictors_"): _optional_levels,
    (_NAME, "chosen_"): f.one_of(*_CANDIDATES),
    (_NAME, "cv_log_loss_"): _cv_log_loss,
    (_NAME, "categorical"): f.param(_column_param),
    (_NAME, "numerical"): f.param(_column_param),
    (_NAME, "score_scale"): f.param(check_option, ("probability", "logit")),
    (_NAME, "n_bins"): f.param(check_positive_int, minimum=2),
    (_NAME, "learning_rate"): f.param(check_in_range, 0, 1, closed="right"),
    (_NAME, "max_leaf_nodes"): f.param(check_positive_int, minimum=2),
    (_NAME, "min_samples_leaf"): _positive,
    (_NAME, "l2_regularization"): f.param(check_in_range, 0, np.inf, closed="left"),
    (_NAME, "max_iter"): f.param(check_positive_int, minimum=0),
    (_NAME, "n_iter_no_change"): _positive,
    (_NAME, "n_folds"): f.param(_n_folds),
    (_NAME, "merge"): f.param(check_option, "venncal.core.merge:MERGES"),
    (_NAME, "interval"): f.param(check_option, ("segments", "pooled")),
    (_NAME, "random_state"): f.param(check_positive_int, minimum=0),
    (_NAME, "*"): (_relations,),
}
