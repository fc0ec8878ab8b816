"""Exact inductive Venn-Abers predictors in O(n log n).

For a test score t and a hypothetical label y, p_y(t) is the value at t of the isotonic
least-squares fit to the calibration pairs plus (t, y) (Vovk & Petej 2014, Algorithm 1 with a
fixed scoring function; Vovk 2012, pre-trained Venn-Abers predictors). Vovk, Petej & Fedorova
(2015) compute p0 and p1 for every position of t at once from the cumulative-sum diagram of
the calibration set; this module follows their algorithm with exact integer geometry, the tie
rule for test scores equal to a calibration score, and compressed step tables for prediction.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_consistent_length, check_sample_weight, check_scores
from venncal.core._ivap_kernels import (
    compensated_cumsum,
    hull_sweep,
    hull_sweep_exact,
    merge_sorted_groups,
)
from venncal.core._weighted import sum_class_weights

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt

    from venncal._typing import AnyArray, ArrayLike, FloatArray
    from venncal.core._ivap_kernels import Coordinates, CountArray
    from venncal.core._step_lookup import CellTable

    #: Coordinates of a diagram: an array, or Python ints on the exact route.
    _Diagram: TypeAlias = Coordinates | list[int]
    #: The hull stacks and the output buffer of a sweep.
    _Scratch: TypeAlias = tuple[Coordinates, Coordinates, FloatArray]

__all__ = ["IVAPTables", "ivap_fit", "ivap_fit_counts", "ivap_gap_values", "FLOAT_ROUTE_ATOL"]


# An orientation test multiplies two coordinate differences of at most W + 1 (W the total
# weight, 1 the test object): int64 holds 2 (W + 1)^2 when W <= 2^31 - 2.
_INT64_EXACT_TOTAL = 2**31 - 2
# Float geometry rounds each coordinate (compensated sums) and each test to about one ulp of
# W + 1; a hull edge is at least min(1, smallest weight) wide, so every value is within about
# 8 eps (W + 1) / min(1, smallest weight) of the exact one (in practice far closer, ~1e-12).
# Past this ratio (bound ~5e-7) the exact route runs instead.
_FLOAT_MAX_RATIO = 2.0**28
FLOAT_ROUTE_ATOL = 8 * np.finfo(np.float64).eps * _FLOAT_MAX_RATIO


def _unit_diagram(s: FloatArray, y01: AnyArray) -> tuple[FloatArray, CountArray, CountArray]:
    """Distinct sorted scores and the integer cumulative-sum diagram of unweighted input."""
    n = s.shape[0]
    pos = y01.astype(bool)
    neg_sorted = s[~pos]
    neg_sorted.sort()
    pos_sorted = s[pos]
    pos_sorted.sort()
    del pos
    count_type = np.int32 if n < 2**31 - 1 else np.int64  # exact: products are int64
    u = np.empty(n)
    cw = np.empty(n + 1, dtype=count_type)
    ca = np.empty(n + 1, dtype=count_type)
    k = merge_sorted_groups.for_size(n)(neg_sorted, pos_sorted, u, cw, ca)
    return u[:k], cw[: k + 1], ca[: k + 1]


def _scaled_ints(values: AnyArray) -> tuple[npt.NDArray[np.object_], int]:
    """Python ints ``m`` and a power of two ``d`` with ``values == m / d`` exactly."""
    if values.dtype.kind in "iu":
        return np.array([int(v) for v in values], dtype=object), 1
    ratios = [float(v).as_integer_ratio() for v in values]
    d = max((den for _, den in ratios), default=1)  # powers of two: the largest is the lcm
    return np.array([num * (d // den) for num, den in ratios], dtype=object), d


def _route(w: FloatArray) -> str:
    """'int64', 'float' or 'exact': the geometry that is exact (or accurate) for these weights.

    The choice depends on the weights alone, not on their order: a total within rounding of a
    threshold is recomputed correctly rounded (``math.fsum``), which no order of addition
    changes.
    """
    with np.errstate(over="ignore"):
        total = float(np.sum(w))
    if not np.isfinite(total):
        return "exact"
    if total <= _INT64_EXACT_TOTAL and np.all(w == np.floor(w)):
        return "int64"  # whole numbers: their sum is exact (below 2^53) in any order
    scale = min(1.0, float(w.min()))
    if abs((total + 1.0) / scale / _FLOAT_MAX_RATIO - 1.0) < 1e-9:
        total = math.fsum(w.tolist())
    return "float" if (total + 1.0) / scale <= _FLOAT_MAX_RATIO else "exact"


def _diagram(
    s: FloatArray, y01: AnyArray, w: FloatArray | None
) -> tuple[FloatArray, _Diagram, _Diagram, float]:
    """Distinct sorted scores, the cumulative-sum diagram (W_j, A_j), j = 0..k, and the test
    object's weight on its scale.

    Unit and moderate integer weights give int64 coordinates and weights of moderate range
    float64 ones; other weights give Python-int coordinates (the weights times a power of two).
    Every route depends on the rows as a set, not on their order: the exact routes add exactly,
    and the float route adds each class's weights at a score in increasing order (so a
    distributed fit, which sees the rows in another order, gets the same diagram:
    :func:`~venncal.core._weighted.sum_class_weights`).
    """
    if w is None:
        return (*_unit_diagram(s, y01), 1)
    keep = w > 0
    s, y01, w = s[keep], y01[keep], w[keep]
    route = _route(w)
    if route == "float":
        u, n0, n1 = sum_class_weights(s, y01, w)
        return u, _cumulative_float(n0 + n1), _cumulative_float(n1), 1.0
    order = np.argsort(s, kind="stable")
    s, y01, w = s[order], y01[order].astype(bool), w[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    if route == "exact":
        ints, unit = _scaled_ints(w)
        weight = np.add.reduceat(ints, start)
        positives = np.add.reduceat(np.where(y01, ints, 0), start)
        return s[start], _cumulative_exact(weight), _cumulative_exact(positives), unit
    # int64: every partial sum is an integer below 2^53, exact in float64
    weight = np.add.reduceat(w, start)
    positives = np.add.reduceat(np.where(y01, w, 0.0), start)
    return (
        s[start],
        _cumulative(weight.astype(np.int64)),
        _cumulative(positives.astype(np.int64)),
        1,
    )


def _total(cw: _Diagram, unit: float) -> float:
    """The total weight W_k of a diagram, rounded once (infinite past the largest float)."""
    try:
        return float(cw[-1] / unit)
    except OverflowError:
        return float("inf")


def _cumulative(v: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    out = np.empty(v.shape[0] + 1, dtype=v.dtype)
    out[0] = 0
    np.cumsum(v, out=out[1:])
    return out


def _cumulative_float(v: AnyArray) -> FloatArray:
    out = np.empty(v.shape[0] + 1)
    compensated_cumsum.for_size(v.shape[0])(np.ascontiguousarray(v, dtype=np.float64), out)
    return out


def _cumulative_exact(v: npt.NDArray[np.object_]) -> list[int]:
    return [0, *itertools.accumulate(int(x) for x in v)]


def _scratch(cw: Coordinates) -> _Scratch:
    """Two hull stacks of the coordinates' type, and an output buffer."""
    k = len(cw) - 1
    return np.empty(k + 2, dtype=cw.dtype), np.empty(k + 2, dtype=cw.dtype), np.empty(k + 1)


def _sweep(
    cw: _Diagram, ca: _Diagram, unit: float, mirror: bool, scratch: _Scratch | None
) -> FloatArray:
    """p1 (p0 with ``mirror``) in every gap, through the route the coordinates' type says."""
    if isinstance(cw, list):
        assert isinstance(ca, list) and isinstance(unit, int)  # the exact route's types
        return np.array(hull_sweep_exact(cw, ca, unit, mirror), dtype=np.float64)
    assert not isinstance(ca, list) and scratch is not None  # the array routes' types
    sx, sy, out = scratch
    hull_sweep.for_size(cw.shape[0])(cw, ca, sx, sy, out, mirror, 1)
    if cw.dtype.kind == "f":  # rounding may carry a slope of 0 or 1 just past it
        np.clip(out, 0.0, 1.0, out=out)
    return out


def ivap_gap_values(weight: ArrayLike, positives: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """p0 and p1 for a test score in each gap between the distinct calibration scores.

    Parameters
    ----------
    weight : ndarray of shape (k,)
        Weight (count) of each distinct calibration score, in increasing score order; positive.
    positives : ndarray of shape (k,)
        Weighted number of positives at each distinct score (``0 <= positives <= weight``).

    Returns
    -------
    v0, v1 : ndarrays of shape (k + 1,)
        ``v0[g]`` and ``v1[g]`` are p0 and p1 for a test score above exactly ``g`` groups.

    Notes
    -----
    Integer weights give exact integer geometry, in int64 while it cannot overflow and in
    Python integers beyond; see :func:`ivap_fit` for float weights.

    Examples
    --------
    >>> v0, v1 = ivap_gap_values(np.array([1, 1]), np.array([0, 1]))
    >>> v0, v1
    (array([0. , 0. , 0.5]), array([0.5, 1. , 1. ]))
    """
    weight = np.asarray(weight)
    positives = np.asarray(positives)
    route = _route(weight.astype(np.float64))
    cw: _Diagram
    ca: _Diagram
    unit: float
    scratch: _Scratch | None
    if route == "exact":
        ints, unit = _scaled_ints(np.r_[weight, positives])
        k = weight.shape[0]
        cw, ca, scratch = _cumulative_exact(ints[:k]), _cumulative_exact(ints[k:]), None
    elif route == "int64":
        cw = _cumulative(weight.astype(np.int64))
        ca, unit = _cumulative(positives.astype(np.int64)), 1
        scratch = _scratch(cw)
    else:
        cw, ca, unit = _cumulative_float(weight), _cumulative_float(positives), 1.0
        scratch = _scratch(cw)
    v1 = _sweep(cw, ca, unit, False, scratch).copy()
    v0 = _sweep(cw, ca, unit, True, scratch)
    return v0, v1


def _compress(u: FloatArray, v: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Keep only the breakpoints of a step table where its value changes."""
    changes = v[1:] != v[:-1]
    return u[changes], np.concatenate([v[:1], v[1:][changes]])


# from this many test scores on, prediction searches the tables from a grid of first guesses
_FAST_LOOKUP_MIN = 1 << 16


@dataclass(frozen=True)
class IVAPTables:
    """A fitted inductive Venn-Abers predictor: two compressed step tables.

    ``p0(t) = values0[searchsorted(breaks0, t, "right")]`` and
    ``p1(t) = values1[searchsorted(breaks1, t, "left")]``.

    Attributes
    ----------
    breaks0, values0 : ndarray
        Breakpoints (calibration scores) and values of p0; ``len(values0) == len(breaks0) + 1``.
    breaks1, values1 : ndarray
        The same for p1.
    n_calibration : float
        Total weight (the number, when unweighted) of calibration examples.
    n_distinct : int
        The number of distinct calibration scores.
    """

    breaks0: FloatArray
    values0: FloatArray
    breaks1: FloatArray
    values1: FloatArray
    n_calibration: float
    n_distinct: int

    def predict(self, t: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Return (p0, p1) for test scores.

        Parameters
        ----------
        t : array-like of shape (m,)
            Test scores (finite).

        Returns
        -------
        p0, p1 : ndarrays of shape (m,)
            Lower and upper probabilities of the positive class, ``0 <= p0 <= p1 <= 1``.
        """
        t = check_scores(t, name="scores", min_samples=0)
        return self.predict_unchecked(t)

    def predict_unchecked(self, t: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Like :meth:`predict` for a clean float64 array (no checks).

        From ``_FAST_LOOKUP_MIN`` test scores on, against tables of 64 breakpoints or more,
        the tables are searched by the compiled kernel when numba is loaded
        (:func:`venncal.core._step_lookup.step_lookup`), else from a numpy grid of cells
        (:class:`venncal.core._step_lookup.CellTable`, built once): the same values as the
        plain search, several times faster.
        """
        if t.shape[0] >= _FAST_LOOKUP_MIN and self.breaks0.shape[0] >= 64:
            from venncal.core._step_lookup import step_lookup, use_kernel

            if use_kernel(t.shape[0]):
                p0 = step_lookup(self.breaks0, self.values0, t, right=True)
                p1 = step_lookup(self.breaks1, self.values1, t, right=False)
                return p0, p1
            grid = self._cell_tables
            if grid is not None:
                cells, table0, table1 = grid
                k = cells.cells_of(t)
                p0 = cells.lookup(self.breaks0, self.values0, table0, k, t, right=True)
                p1 = cells.lookup(self.breaks1, self.values1, table1, k, t, right=False)
                return p0, p1
        p0 = self.values0[np.searchsorted(self.breaks0, t, side="right")]
        p1 = self.values1[np.searchsorted(self.breaks1, t, side="left")]
        return p0, p1

    @functools.cached_property
    def _cell_tables(
        self,
    ) -> tuple[CellTable, npt.NDArray[np.int32], npt.NDArray[np.int32]] | None:
        """The numpy grid of both tables (:class:`~venncal.core._step_lookup.CellTable`) and
        their cells' answers, built on first use; None when the grid cannot serve."""
        from venncal.core._step_lookup import CellTable

        lo = min(self.breaks0[0], self.breaks1[0])
        hi = max(self.breaks0[-1], self.breaks1[-1])
        cells = CellTable(lo, hi, max(self.breaks0.shape[0], self.breaks1.shape[0]))
        if not cells.is_usable:
            return None
        return cells, cells.table(self.breaks0, right=True), cells.table(self.breaks1, right=False)

    def __getstate__(self) -> dict[str, Any]:
        """The fields only: the lookup grid is rebuilt when needed, not pickled."""
        state = dict(self.__dict__)
        state.pop("_cell_tables", None)
        return state


def ivap_fit(
    scores: ArrayLike, y01: ArrayLike, sample_weight: ArrayLike | None = None
) -> IVAPTables:
    """Fit an inductive (pre-trained) Venn-Abers predictor to calibration scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Calibration scores.
    y01 : array-like of shape (n,)
        Labels encoded 0/1.
    sample_weight : array-like of shape (n,), default=None
        Non-negative finite weights of any magnitude; a weight of 2 is the same as a duplicated
        example. The test object always has weight one, so scaling every weight changes the
        predictor (Venn-Abers is not scale-invariant).

    Returns
    -------
    IVAPTables

    Notes
    -----
    Fit costs one sort plus two O(k) stack sweeps over the k distinct scores; prediction is a
    binary search per test score. A test score equal to a calibration score u_j is pooled with
    it: p1 is then the value just below u_j and p0 the value just above it.

    The result equals the definition (the two weighted isotonic fits with the test object
    added at weight one) for every weight vector. Unweighted input, and integer weights
    totalling at most 2**31 - 2, run on exact int64 geometry. Other weights whose total W and
    smallest positive weight w_min keep (W + 1) / min(1, w_min) <= 2**28 run on float64
    geometry, within ``FLOAT_ROUTE_ATOL`` (about 5e-7; in practice about 1e-12) of the exact
    values. Any other weights (huge, tiny, or of very wide range) run on exact Python-integer
    geometry: the exact values rounded once, at some tens of times the cost.

    References
    ----------
    Vovk, Petej & Fedorova, "Large-scale probabilistic predictors with and without guarantees
    of validity" (NeurIPS 2015), Algorithms 1-4; Vovk & Petej, "Venn-Abers predictors"
    (UAI 2014).

    Examples
    --------
    >>> tables = ivap_fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> p0, p1 = tables.predict([0.0, 0.25, 0.5])
    >>> p0, p1
    (array([0. , 0.33333333, 0.5 ]), array([0.5 , 0.66666667, 1. ]))

    The two probabilities are ordered, and neither reaches the far end of [0, 1]:

    >>> bool((p0 <= p1).all() and (p0 < 1).all() and (p1 > 0).all())
    True
    """
    s = check_scores(scores, name="scores")
    y = np.asarray(y01)
    check_consistent_length(scores=s, y=y)
    w = check_sample_weight(sample_weight, s.shape[0])
    u, cw, ca, unit = _diagram(s, y.astype(np.int8, copy=False), w)
    total = float(s.shape[0]) if w is None else _total(cw, unit)
    # one sweep at a time into one buffer, compressed before the next: low peak memory
    scratch = None if isinstance(cw, list) else _scratch(cw)
    b1, vals1 = _compress(u, _sweep(cw, ca, unit, False, scratch))
    b0, vals0 = _compress(u, _sweep(cw, ca, unit, True, scratch))
    del scratch, cw, ca
    return IVAPTables(b0, vals0, b1, vals1, total, int(u.shape[0]))


def ivap_fit_counts(values: ArrayLike, n0: ArrayLike, n1: ArrayLike) -> IVAPTables:
    """Fit an inductive Venn-Abers predictor on pooled data: distinct scores with class counts.

    The predictor :func:`ivap_fit` gives on rows that pool to these counts: integer counts
    (or whole-number floats) totalling at most 2**31 - 2 run on the same exact int64 geometry
    as unweighted rows, so aggregated rows with their counts give the fit on the expanded rows
    bit for bit; other weights take the routes of :func:`ivap_gap_values`.

    Parameters
    ----------
    values : ndarray of shape (k,)
        The distinct scores, increasing.
    n0, n1 : ndarray of shape (k,)
        Non-negative weight (count) of negatives and positives at each score, their sum
        positive.

    Returns
    -------
    IVAPTables

    Examples
    --------
    >>> t = ivap_fit_counts(np.array([0.1, 0.2, 0.3, 0.4]), np.array([1, 0, 1, 0]),
    ...                     np.array([0, 1, 0, 1]))
    >>> t.predict([0.25])
    (array([0.33333333]), array([0.66666667]))
    """
    values = np.asarray(values, dtype=np.float64)
    n0, n1 = np.asarray(n0), np.asarray(n1)
    weight = n0 + n1
    cw: _Diagram
    ca: _Diagram
    unit: float
    if weight.dtype.kind in "iu" and int(weight.sum()) <= _INT64_EXACT_TOTAL:
        cw = _cumulative(weight.astype(np.int64, copy=False))
        ca, unit = _cumulative(n1.astype(np.int64, copy=False)), 1
        total = float(cw[-1])
    else:
        weight = weight.astype(np.float64, copy=False)
        positives = n1.astype(np.float64, copy=False)
        with np.errstate(over="ignore"):
            total = float(np.sum(weight))
        route = _route(weight)
        if route == "exact":
            ints, unit = _scaled_ints(np.r_[weight, positives])
            k = weight.shape[0]
            cw, ca = _cumulative_exact(ints[:k]), _cumulative_exact(ints[k:])
        elif route == "int64":
            cw = _cumulative(weight.astype(np.int64))
            ca, unit = _cumulative(positives.astype(np.int64)), 1
        else:
            cw, ca, unit = _cumulative_float(weight), _cumulative_float(positives), 1.0
    scratch = None if isinstance(cw, list) else _scratch(cw)
    b1, vals1 = _compress(values, _sweep(cw, ca, unit, False, scratch))
    b0, vals0 = _compress(values, _sweep(cw, ca, unit, True, scratch))
    return IVAPTables(b0, vals0, b1, vals1, total, int(values.shape[0]))
