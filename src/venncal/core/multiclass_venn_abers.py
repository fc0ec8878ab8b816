"""The binary Venn-Abers predictors of K-class Venn-Abers calibration, and their prediction.

:class:`~venncal.MulticlassVennAbersCalibrator` splits a K-class problem into binary ones
(one-vs-rest or pairwise, each with a predictor per class or pair or one pooled predictor;
see :mod:`venncal.calibration.multiclass` for the strategies and their references) and
combines the answers. The fitted tables, their fit and the prediction from them live here, on
arrays only, so that a loaded model file predicts without scikit-learn through the very
functions the estimator calls (:mod:`venncal.persistence._predictor`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._blas import single_blas_thread
from venncal.core.class_scores import (
    ShiftedColumns,
    check_probabilities_as_fitted,
    check_score_matrix,
    class_log_scores,
    finite_difference,
    log_sum_exp,
)
from venncal.core.coupling import couple
from venncal.core.groups import check_groups, group_rows
from venncal.core.merge import merge, merge_cross
from venncal.core.top_label import (
    TOP_LABEL,
    TopLabelScores,
    TopLabelTables,
    predict_top_label,
    top_label_scores,
)
from venncal.core.venn_abers import IVAPTables, ivap_fit

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol, TypeAlias

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray

    #: the binary predictors of one-vs-rest and pairwise strategies
    BinaryTables: TypeAlias = (
        "OneVsRestTables | PairwiseTables | PooledOneVsRestTables | PooledPairwiseTables"
    )
    #: the fitted tables of every strategy
    MulticlassTables: TypeAlias = BinaryTables | TopLabelTables
    #: class scores of the binary strategies: a matrix, or the shifted columns of one-vs-rest
    #: per class
    ClassScores: TypeAlias = FloatArray | ShiftedColumns
    #: the class scores of every strategy (top-label: its own)
    AnyClassScores: TypeAlias = ClassScores | TopLabelScores

    class FittedVennAbers(Protocol):
        """What :func:`predict_fitted` reads: a calibrator or its saved-model predictor."""

        @property
        def tables_(self) -> MulticlassTables: ...
        @property
        def classes_(self) -> AnyArray: ...
        @property
        def score_type_(self) -> str: ...
        @property
        def strategy_(self) -> str: ...
        @property
        def pooled(self) -> bool: ...
        def _predict_tables(
            self, tables: MulticlassTables, t: AnyClassScores
        ) -> tuple[FloatArray, FloatArray]: ...


__all__ = [
    "OneVsRestTables",
    "PairwiseTables",
    "PooledOneVsRestTables",
    "PooledPairwiseTables",
    "PAIRWISE_MAX_CLASSES",
    "fit_tables",
    "combine",
    "combine_batched",
    "venn_abers_class_scores",
    "venn_abers_test_scores",
    "predict_venn_abers",
    "predict_venn_abers_in_groups",
    "predict_fitted",
]

STRATEGIES = ("auto", "ovr", "pairwise")
#: the calibrator's strategies (the classifier's, and top-label)
CALIBRATOR_STRATEGIES = STRATEGIES + (TOP_LABEL,)
PAIRWISE_MAX_CLASSES = 100
_ROWS_PER_BATCH = 2**21  # test rows x pairs held at once by pairwise prediction


def _check_class_weights(y: IntArray, w: FloatArray | None, K: int, owner: str) -> None:
    if w is None:
        return
    total = np.bincount(y, weights=w, minlength=K)
    if (total <= 0).any():
        raise ValueError(
            f"'sample_weight' of {owner} is zero on every example of class index "
            f"{int(np.argmin(total))}; give it positive weight."
        )


def _fitted_on_log_probabilities(tables: MulticlassTables | None) -> bool:
    """Whether one-vs-rest tables of probabilities were fitted on their logarithms (model
    files written before one-vs-rest ranked probabilities as given): a breakpoint below 0 is
    a logarithm, never a probability. Such tables keep predicting from logarithms."""
    if tables is None:  # fitting now
        return False
    inner = tables.tables if hasattr(tables, "tables") else (getattr(tables, "table", None),)
    return any(t is not None and ((t.breaks0 < 0).any() or (t.breaks1 < 0).any()) for t in inner)


def _column(t: ClassScores, k: int) -> FloatArray:
    return t.column(k) if isinstance(t, ShiftedColumns) else t[:, k]


@dataclass(frozen=True)
class OneVsRestTables:
    """K binary Venn-Abers predictors, class k against the rest with the score column k."""

    K: int
    tables: tuple[IVAPTables, ...]

    def pairs(self, t: ClassScores) -> tuple[FloatArray, FloatArray]:
        """(p0, p1), each of shape (m, K)."""
        m = t.shape[0]
        p0 = np.empty((m, self.K))
        p1 = np.empty((m, self.K))
        for k, tab in enumerate(self.tables):
            p0[:, k], p1[:, k] = tab.predict_unchecked(np.ascontiguousarray(_column(t, k)))
        return p0, p1


def _fit_one_vs_rest(t: ClassScores, y: IntArray, w: FloatArray | None, K: int) -> OneVsRestTables:
    tables = tuple(
        ivap_fit(_column(t, k), (y == k).astype(np.int8), sample_weight=w) for k in range(K)
    )
    return OneVsRestTables(int(K), tables)


class _Pairs:
    """The pairs i < j of K classes, and the (m, K, K) matrix of pairwise probabilities."""

    K: int  # a field of the subclasses

    @property
    def iu(self) -> tuple[IntArray, IntArray]:
        return np.triu_indices(self.K, 1)

    def matrix(self, r: FloatArray) -> FloatArray:
        """The (m, K, K) matrix of a pairwise probability r of shape (m, n_pairs)."""
        R = np.full((r.shape[0], self.K, self.K), 0.5)
        i, j = self.iu
        R[:, i, j] = r
        R[:, j, i] = 1.0 - r
        return R


@dataclass(frozen=True)
class PairwiseTables(_Pairs):
    """K(K - 1)/2 binary Venn-Abers predictors, class i against class j on their examples."""

    K: int
    tables: tuple[IVAPTables, ...]

    def pairs(self, t: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(p0, p1), each of shape (m, n_pairs): P(y = i | y in {i, j}) for i < j."""
        m = t.shape[0]
        n_pairs = len(self.tables)
        p0 = np.empty((m, n_pairs))
        p1 = np.empty((m, n_pairs))
        for q, (i, j, tab) in enumerate(zip(*self.iu, self.tables)):
            D = finite_difference(t[:, i], t[:, j])
            p0[:, q], p1[:, q] = tab.predict_unchecked(D)
        return p0, p1


def _fit_pairwise(t: FloatArray, y: IntArray, w: FloatArray | None, K: int) -> PairwiseTables:
    members = [np.flatnonzero(y == k) for k in range(K)]
    tables = []
    for i, j in zip(*np.triu_indices(K, 1)):
        idx = np.concatenate([members[i], members[j]])
        y01 = np.zeros(idx.shape[0], dtype=np.int8)
        y01[: members[i].shape[0]] = 1
        d = finite_difference(t[idx, i], t[idx, j])
        tables.append(ivap_fit(d, y01, sample_weight=None if w is None else w[idx]))
    return PairwiseTables(int(K), tuple(tables))


@dataclass(frozen=True)
class PooledOneVsRestTables:
    """One binary Venn-Abers predictor shared by the K one-vs-rest problems.

    Its calibration pairs are (t_k(x_i), [y_i = k]) for every example i and class k: n K pairs,
    n of them positive, so that small classes borrow strength from the others (as temperature
    scaling shares one parameter among the classes).
    """

    K: int
    table: IVAPTables

    def pairs(self, t: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(p0, p1), each of shape (m, K)."""
        p0, p1 = self.table.predict_unchecked(np.ascontiguousarray(t).ravel())
        return p0.reshape(t.shape), p1.reshape(t.shape)


def _fit_pooled_one_vs_rest(
    t: FloatArray, y: IntArray, w: FloatArray | None, K: int
) -> PooledOneVsRestTables:
    y01 = (y[:, None] == np.arange(K)[None, :]).astype(np.int8).ravel()
    ww = None if w is None else np.repeat(w, K)
    return PooledOneVsRestTables(int(K), ivap_fit(t.ravel(), y01, sample_weight=ww))


@dataclass(frozen=True)
class PooledPairwiseTables(_Pairs):
    """One binary Venn-Abers predictor shared by the K(K - 1)/2 pairwise problems.

    Its calibration pairs are, for every example i and every class j != y_i, the score
    difference d = t_{y_i}(x_i) - t_j(x_i) labelled 1 and its mirror -d labelled 0: 2 n (K - 1)
    pairs, symmetric, so that r(-d) = 1 - r(d) for the log and mean merges, and the orientation of a pair
    does not matter.
    """

    K: int
    table: IVAPTables

    def pairs(self, t: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(p0, p1), each of shape (m, n_pairs): P(y = i | y in {i, j}) for i < j."""
        i, j = self.iu
        D = finite_difference(t[:, i], t[:, j])
        p0, p1 = self.table.predict_unchecked(D.ravel())
        return p0.reshape(D.shape), p1.reshape(D.shape)


def _fit_pooled_pairwise(
    t: FloatArray, y: IntArray, w: FloatArray | None, K: int
) -> PooledPairwiseTables:
    n = t.shape[0]
    d = finite_difference(t[np.arange(n), y][:, None], t)
    other = np.arange(K)[None, :] != y[:, None]
    d = d[other]
    scores = np.concatenate([d, -d])
    y01 = np.zeros(scores.shape[0], dtype=np.int8)
    y01[: d.shape[0]] = 1
    ww = None if w is None else np.tile(np.repeat(w, K - 1), 2)
    return PooledPairwiseTables(int(K), ivap_fit(scores, y01, sample_weight=ww))


def resolve_strategy(strategy: str, K: int) -> str:
    """``"auto"``: pairwise up to ``PAIRWISE_MAX_CLASSES`` classes, one-vs-rest beyond."""
    if strategy == "auto":
        return "pairwise" if K <= PAIRWISE_MAX_CLASSES else "ovr"
    return strategy


def fit_tables(
    t: ClassScores,
    y: IntArray,
    w: FloatArray | None,
    K: int,
    strategy: str,
    pooled: bool,
    *,
    owner: str,
) -> BinaryTables:
    """Fit the binary predictors of ``strategy`` on class scores ``t`` (n, K), labels 0..K-1."""
    counts = np.bincount(y, minlength=K)
    if (counts == 0).any():
        raise ValueError(
            f"The calibration examples of {owner} lack class index {int(np.argmin(counts))}; "
            "every class needs calibration examples."
        )
    _check_class_weights(y, w, K, owner)
    if strategy == "ovr" and not pooled:
        return _fit_one_vs_rest(t, y, w, K)
    assert not isinstance(t, ShiftedColumns)  # only one-vs-rest per class ranks them
    if strategy == "ovr":
        return _fit_pooled_one_vs_rest(t, y, w, K)
    if K > PAIRWISE_MAX_CLASSES:
        raise ValueError(
            f"strategy='pairwise' of {owner} needs K(K - 1)/2 = {K * (K - 1) // 2} pairwise "
            f"probabilities and a K x K coupling per object; it is offered up to "
            f"{PAIRWISE_MAX_CLASSES} classes, got {K}. Use strategy='ovr'."
        )
    return (_fit_pooled_pairwise if pooled else _fit_pairwise)(t, y, w, K)


def combine(
    pairs: tuple[FloatArray, FloatArray],
    tables: BinaryTables,
    strategy: str,
    merge_rule: str,
    coupling: str,
) -> tuple[FloatArray, FloatArray]:
    """Probabilities (m, K) and intervals (m, K, 2) from per-fold pairs of shape (F, m, ...)."""
    p0, p1 = pairs
    if strategy == "ovr":
        p = merge_cross(p0, p1, merge_rule) if p0.shape[0] > 1 else merge(p0[0], p1[0], merge_rule)
        lo, hi = p0.min(axis=0), p1.max(axis=0)
        return p / p.sum(axis=1, keepdims=True), np.stack([lo, hi], axis=2)
    r = merge_cross(p0, p1, merge_rule) if p0.shape[0] > 1 else merge(p0[0], p1[0], merge_rule)
    assert isinstance(tables, _Pairs)  # the pairwise strategies' tables
    # many small K x K systems: one BLAS thread each is much faster than threads per system
    with single_blas_thread():
        proba = couple(tables.matrix(r), coupling)
        a = couple(tables.matrix(p0.min(axis=0)), coupling)
        b = couple(tables.matrix(p1.max(axis=0)), coupling)
    return proba, np.stack([np.minimum(a, b), np.maximum(a, b)], axis=2)


def combine_batched(
    predict_pairs: Callable[[slice], tuple[FloatArray, FloatArray]],
    m: int,
    tables: BinaryTables,
    strategy: str,
    merge_rule: str,
    coupling: str,
) -> tuple[FloatArray, FloatArray]:
    """:func:`combine` over row batches, so that pairwise prediction has bounded memory."""
    n_pairs = tables.K if strategy == "ovr" else tables.K * tables.K
    step = max(1, _ROWS_PER_BATCH // max(n_pairs, 1))
    probas: list[FloatArray] = []
    intervals: list[FloatArray] = []
    for lo in range(0, m, step):
        pr, iv = combine(
            predict_pairs(slice(lo, min(m, lo + step))), tables, strategy, merge_rule, coupling
        )
        probas.append(pr)
        intervals.append(iv)
    return np.concatenate(probas), np.concatenate(intervals)


def venn_abers_class_scores(
    S: FloatArray,
    score_type: str,
    strategy: str,
    pooled: bool,
    tables: MulticlassTables | None = None,
) -> AnyClassScores:
    """The class scores the binary predictors of ``strategy`` rank, from a score matrix.

    Parameters
    ----------
    S : ndarray of shape (m, K)
        A checked score matrix.
    score_type : {"logits", "probabilities", "raw"}
    strategy : {"ovr", "pairwise", "top-label"}
    pooled : bool
    tables : fitted tables, default=None
        The tables to predict with (None while fitting): one-vs-rest tables of probabilities
        fitted on their logarithms (model files of older versions) keep ranking logarithms.

    Returns
    -------
    t : ndarray, ShiftedColumns or TopLabelScores of shape (m, K)

    Examples
    --------
    >>> S = np.array([[2.0, 0.0, -1.0]])
    >>> venn_abers_class_scores(S, "logits", "pairwise", True) is S
    True
    >>> venn_abers_class_scores(S, "logits", "ovr", True).round(3)
    array([[-0.17, -2.17, -3.17]])
    """
    if strategy == TOP_LABEL:
        scale = tables.score_scale if isinstance(tables, TopLabelTables) else "probability"
        return top_label_scores(S, score_type, scale)
    if strategy == "ovr" and score_type in ("probabilities", "raw"):
        # Venn-Abers uses only the order of the scores: probabilities are ranked as given,
        # since their logarithm would merge scores one ulp apart (a different answer)
        if not _fitted_on_log_probabilities(tables):
            return S
    if score_type == "logits":
        # pairwise differences of logits are those of their log-softmax: skip its rounding
        if strategy == "pairwise":
            return S
        if not pooled:
            return ShiftedColumns(S, log_sum_exp(S))
    return class_log_scores(S, score_type)


def venn_abers_test_scores(
    scores: ArrayLike,
    tables: MulticlassTables,
    *,
    n_classes: int,
    score_type: str,
    strategy: str,
    pooled: bool,
    owner: str,
) -> AnyClassScores:
    """Check the test scores of fitted tables; return the class scores they rank.

    Parameters
    ----------
    scores : array-like of shape (m, K)
    tables : fitted tables
    n_classes : int
        K, the number of classes at fit time.
    score_type, strategy, pooled
        As fitted (see :func:`venn_abers_class_scores`).
    owner : str
        The name in the error messages.

    Returns
    -------
    t : ndarray or ShiftedColumns of shape (m, K)
        For :func:`predict_venn_abers`.
    """
    S = check_score_matrix(scores, owner=owner, n_classes=n_classes)
    check_probabilities_as_fitted(S, score_type, owner=owner)
    return venn_abers_class_scores(S, score_type, strategy, pooled, tables)


def predict_venn_abers(
    tables: MulticlassTables, t: AnyClassScores, strategy: str, merge_rule: str, coupling: str
) -> tuple[FloatArray, FloatArray]:
    """Probabilities (m, K) and intervals (m, K, 2) of fitted tables at class scores ``t``.

    Parameters
    ----------
    tables : OneVsRestTables, PairwiseTables, their pooled versions, or TopLabelTables
    t : ndarray or ShiftedColumns of shape (m, K)
        The class scores of :func:`venn_abers_class_scores`.
    strategy : {"ovr", "pairwise", "top-label"}
    merge_rule : {"log", "square", "mean"}
    coupling : {"wu2", "wu1", "price"}

    Returns
    -------
    proba : ndarray of shape (m, K)
    interval : ndarray of shape (m, K, 2)

    Examples
    --------
    >>> t = np.log(np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.5, 0.4, 0.1]]))
    >>> tables = fit_tables(t, np.array([0, 1, 2, 1]), None, 3, "ovr", True, owner="example")
    >>> proba, interval = predict_venn_abers(tables, t[:1], "ovr", "mean", "wu2")
    >>> bool(np.isclose(proba.sum(), 1.0)), interval.shape
    (True, (1, 3, 2))
    """
    if strategy == TOP_LABEL:
        assert isinstance(tables, TopLabelTables) and isinstance(t, TopLabelScores)
        return predict_top_label(tables, t, merge_rule)
    assert not isinstance(tables, TopLabelTables)  # the strategy says which tables
    assert not isinstance(t, TopLabelScores)
    binary: ClassScores = t

    def pairs(rows: slice) -> tuple[FloatArray, FloatArray]:
        part = binary[rows]
        if isinstance(part, ShiftedColumns):
            assert isinstance(tables, OneVsRestTables)  # the only tables that rank them
            p0, p1 = tables.pairs(part)
        else:
            p0, p1 = tables.pairs(part)
        return p0[None], p1[None]

    return combine_batched(pairs, t.shape[0], tables, strategy, merge_rule, coupling)


def predict_venn_abers_in_groups(
    t: AnyClassScores,
    groups: ArrayLike | None,
    *,
    fitted_groups: Sequence[Any] | None,
    group_tables: Sequence[MulticlassTables] | None,
    predict: Callable[[MulticlassTables, AnyClassScores], tuple[FloatArray, FloatArray]],
    owner: str,
) -> tuple[FloatArray, FloatArray]:
    """``(proba, interval)`` of class scores ``t``, each row from its group's tables.

    Parameters
    ----------
    t : ndarray or ShiftedColumns of shape (m, K)
        Class scores (:func:`venn_abers_test_scores`).
    groups : array-like of shape (m,) or None
        The group of each row.
    fitted_groups : list or None
        The groups seen at fit (None when fitted without groups: an error).
    group_tables : list
        Their tables, in the order of ``fitted_groups``.
    predict : callable
        ``predict(tables, t)`` -> ``(proba, interval)`` (:func:`predict_venn_abers` with the
        fitted strategy, merge and coupling).
    owner : str
        The name in the error messages.

    Returns
    -------
    proba : ndarray of shape (m, K)
    interval : ndarray of shape (m, K, 2)
    """
    if fitted_groups is None:
        raise ValueError(
            f"{owner} was fitted without groups; pass groups= to fit to calibrate within groups."
        )
    if groups is None:
        raise ValueError(
            f"{owner} was fitted within groups: pass groups= with the group of each test row."
        )
    assert group_tables is not None  # fitted within groups: a table per group
    g = check_groups(groups, t.shape[0], what="rows")
    index = {label: k for k, label in enumerate(fitted_groups)}
    parts = group_rows(g)
    unknown = [label for label, _ in parts if label not in index]
    if unknown:
        raise ValueError(
            f"{owner}: groups {unknown!r} were not seen at fit, so they have no predictor; "
            "calibrate on data of every group."
        )
    m, K = t.shape
    proba = np.empty((m, K))
    interval = np.empty((m, K, 2))
    for label, rows in parts:
        proba[rows], interval[rows] = predict(group_tables[index[label]], t[rows])
    return proba, interval


def predict_fitted(
    fitted: FittedVennAbers, scores: ArrayLike, groups: ArrayLike | None, *, owner: str
) -> tuple[FloatArray, FloatArray]:
    """``(proba, interval)`` of a fitted multiclass Venn-Abers calibrator at ``scores``.

    ``fitted`` is the estimator or its saved-model predictor: anything with the fitted
    attributes ``tables_``, ``classes_``, ``score_type_``, ``strategy_``, ``pooled``, the
    optional ``groups_`` and ``group_tables_``, and ``_predict_tables(tables, t)``. The one
    prediction path of both, so that a loaded model predicts what the estimator does.
    """
    t = venn_abers_test_scores(
        scores,
        fitted.tables_,
        n_classes=fitted.classes_.shape[0],
        score_type=fitted.score_type_,
        strategy=fitted.strategy_,
        pooled=fitted.pooled,
        owner=owner,
    )
    fitted_groups = getattr(fitted, "groups_", None)
    if groups is not None or fitted_groups is not None:
        return predict_venn_abers_in_groups(
            t,
            groups,
            fitted_groups=fitted_groups,
            group_tables=getattr(fitted, "group_tables_", None),
            predict=fitted._predict_tables,
            owner=owner,
        )
    return fitted._predict_tables(fitted.tables_, t)
