"""Exact inductive Venn-Abers predictive distributions for regression.

For a regressor's prediction s of a test object and a threshold t, the pair (F0(t), F1(t)) is
the inductive Venn-Abers pair (p0, p1) of the binary event ``y <= t``, calibrated on the
calibration pairs (s_i, 1{y_i <= t}) with the score -s, so that a larger prediction means a
larger y (Nouretdinov, Volkhonskiy, Lim, Toccaceli & Gammerman, "Inductive Venn-Abers
predictive distribution", COPA 2018). As t grows the labels 1{y_i <= t} change only at the
calibration labels: with the distinct labels z_0 < ... < z_{K-1}, every threshold falls into
one of K + 1 *cuts*, c = -1 (below z_0), 0, ..., K - 1 (from z_{K-1} on), and the pair is
constant within a cut.

This module sorts the calibration scores once and keeps their cumulative-sum diagram; a cut
then only changes the positives of the diagram, and the two stack sweeps of the inductive
Venn-Abers predictor (:func:`venncal.core._ivap_kernels.hull_sweep`, Vovk, Petej & Fedorova
2015) give p0 and p1 of every test score at that cut in O(k) for k distinct scores, with the
same exact geometry as :func:`venncal.core.venn_abers.ivap_fit`, so each pair equals the
one-threshold predictor exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal.core._ivap_kernels import hull_sweep
from venncal.core._vad_kernels import sweep_cuts
from venncal.core.merge import merge
from venncal.core.venn_abers import _cumulative, _cumulative_float, _route, ivap_fit

if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy.typing as npt

    from venncal._typing import FloatArray, IntArray

__all__ = [
    "VADistributionTables",
    "band_interval",
    "gap_columns",
    "merged_blocks",
    "merged_quantiles",
    "vad_fit",
]


@dataclass(frozen=True)
class VADistributionTables:
    """A fitted inductive Venn-Abers predictive distribution (clean input assumed).

    Attributes
    ----------
    values : ndarray of shape (k,)
        The distinct negated calibration scores (-s), increasing.
    labels : ndarray of shape (K,)
        The distinct calibration labels z_0 < ... < z_{K-1}.
    row_value : ndarray of shape (n,)
        Index into ``values`` of each calibration row, the rows ordered by label.
    label_start : ndarray of shape (K + 1,)
        The rows of label ``z_j`` are ``label_start[j]:label_start[j + 1]``.
    row_weight : ndarray of shape (n,) or None
        The rows' weights in that order (None when unweighted).
    weight : ndarray of shape (k,)
        The total weight at each distinct score (int64 on the exact integer route).
    route : {"int64", "float", "exact"}
        The geometry of :func:`venncal.core.venn_abers.ivap_fit` for these weights.
    n_calibration : float
        The total weight (the number of rows when unweighted).
    """

    values: FloatArray
    labels: FloatArray
    row_value: IntArray
    label_start: IntArray
    row_weight: FloatArray | None
    weight: npt.NDArray[np.int64] | FloatArray
    route: str
    n_calibration: float

    def cuts(self, thresholds: FloatArray) -> IntArray:
        """The cut of each threshold: -1 below the smallest label, else the index of the
        largest label at most the threshold."""
        cut: IntArray = np.searchsorted(self.labels, thresholds, side="right") - 1
        return cut

    def positions(self, scores: FloatArray) -> tuple[IntArray, IntArray]:
        """Gap indices of test scores in the tables of p0 and p1 (the tie rule of
        :class:`~venncal.core.venn_abers.IVAPTables`, on the negated scores)."""
        t = -scores
        return (
            np.searchsorted(self.values, t, side="right"),
            np.searchsorted(self.values, t, side="left"),
        )

    def sweep(self, cuts: IntArray) -> Iterator[tuple[int, FloatArray, FloatArray]]:
        """Yield ``(c, v0, v1)`` for each distinct cut in ``cuts``, in increasing order.

        ``v0[g]`` and ``v1[g]`` are p0 and p1 for a test score whose negation lies above
        exactly ``g`` distinct calibration values (arrays of shape (k + 1,), valid until the
        next cut is yielded).
        """
        wanted = np.unique(cuts)
        if self.route == "int64":
            yield from self._sweep_int(wanted)
        elif self.route == "float":
            yield from self._sweep_float(wanted)
        else:
            yield from self._sweep_exact(wanted)

    def pair_chunks(
        self, cuts: IntArray, right: IntArray, left: IntArray, *, max_elements: int = 1 << 21
    ) -> Iterator[tuple[int, int, FloatArray, FloatArray]]:
        """p0 and p1 at many cuts and a few gap positions, in blocks of cuts.

        Parameters
        ----------
        cuts : ndarray of shape (C,)
            Distinct cuts, increasing.
        right, left : ndarray of shape (G,)
            Gap positions of p0 and of p1 (from :meth:`positions`).
        max_elements : int
            Largest number of values in a block of one of the two outputs.

        Yields
        ------
        lo, hi, p0, p1
            ``p0[j, i]`` and ``p1[j, i]`` are p0 at ``right[i]`` and p1 at ``left[i]`` for the
            cut ``cuts[lo + j]``; blocks cover ``cuts[lo:hi]`` in order.
        """
        g = max(right.shape[0], 1)
        step = max(1, max_elements // g)
        if self.route != "int64":  # weights on the float or exact route: one cut at a time
            for lo in range(0, cuts.shape[0], step):
                block = cuts[lo : lo + step]
                p0 = np.empty((block.shape[0], right.shape[0]))
                p1 = np.empty((block.shape[0], left.shape[0]))
                for j, (_, v0, v1) in enumerate(self.sweep(block)):
                    p0[j], p1[j] = v0[right], v1[left]
                yield lo, lo + block.shape[0], p0, p1
            return
        k = self.values.shape[0]
        cw = _cumulative(np.asarray(self.weight, dtype=np.int64))
        rw = (
            np.ones(self.row_value.shape[0], dtype=np.int64)
            if self.row_weight is None
            else self.row_weight.astype(np.int64)
        )
        positives = np.zeros(k, dtype=np.int64)
        scratch = np.empty(3 * (k + 2), dtype=np.int64)
        v0, v1 = np.empty(k + 1), np.empty(k + 1)
        kernel = sweep_cuts.for_size(k * cuts.shape[0])
        done = 0
        for lo in range(0, cuts.shape[0], step):
            block = np.ascontiguousarray(cuts[lo : lo + step])
            p0 = np.empty((block.shape[0], right.shape[0]))
            p1 = np.empty((block.shape[0], left.shape[0]))
            done = kernel(
                cw, self.row_value, self.label_start, rw, done, positives, block,
                right, left, scratch, v0, v1, p0, p1,
            )  # fmt: skip
            yield lo, lo + block.shape[0], p0, p1

    def _sweep_int(self, wanted: IntArray) -> Iterator[tuple[int, FloatArray, FloatArray]]:
        k = self.values.shape[0]
        cw = _cumulative(np.asarray(self.weight, dtype=np.int64))
        positives = np.zeros(k, dtype=np.int64)
        rw = None if self.row_weight is None else self.row_weight.astype(np.int64)
        sx, sy = np.empty(k + 2, dtype=np.int64), np.empty(k + 2, dtype=np.int64)
        v0, v1 = np.empty(k + 1), np.empty(k + 1)
        kernel = hull_sweep.for_size(k * wanted.shape[0])  # the work of every cut
        done = 0  # rows of the labels below the current cut already counted as positive
        for c in wanted.tolist():
            end = int(self.label_start[c + 1])
            if end > done:
                rows = self.row_value[done:end]
                if rw is None:
                    positives += np.bincount(rows, minlength=k)
                else:
                    np.add.at(positives, rows, rw[done:end])
                done = end
            ca = _cumulative(positives)
            kernel(cw, ca, sx, sy, v1, False, 1)
            kernel(cw, ca, sx, sy, v0, True, 1)
            yield c, v0, v1

    def _sweep_float(self, wanted: IntArray) -> Iterator[tuple[int, FloatArray, FloatArray]]:
        # the class sums of venncal.core._weighted.sum_class_weights, bit for bit: each
        # class's weights at a score added in increasing order of weight
        assert self.row_weight is not None  # the float route is weighted
        k = self.values.shape[0]
        order = np.lexsort((self.row_weight, self.row_value))  # by score, then weight
        value = self.row_value[order]
        w = self.row_weight[order]
        label_rank = np.repeat(np.arange(self.labels.shape[0]), np.diff(self.label_start))[order]
        sx, sy = np.empty(k + 2), np.empty(k + 2)
        v0, v1 = np.empty(k + 1), np.empty(k + 1)
        kernel = hull_sweep.for_size(k * wanted.shape[0])  # the work of every cut
        for c in wanted.tolist():
            pos = label_rank <= c
            n1 = _class_sums(value[pos], w[pos], k)
            n0 = _class_sums(value[~pos], w[~pos], k)
            cw, ca = _cumulative_float(n0 + n1), _cumulative_float(n1)
            kernel(cw, ca, sx, sy, v1, False, 1)
            np.clip(v1, 0.0, 1.0, out=v1)
            kernel(cw, ca, sx, sy, v0, True, 1)
            np.clip(v0, 0.0, 1.0, out=v0)
            yield c, v0, v1

    def _sweep_exact(self, wanted: IntArray) -> Iterator[tuple[int, FloatArray, FloatArray]]:
        # weights of very wide range: the one-threshold predictor on exact Python integers
        assert self.row_weight is not None  # the exact route is weighted
        label_rank = np.repeat(np.arange(self.labels.shape[0]), np.diff(self.label_start))
        s = self.values[self.row_value]
        for c in wanted.tolist():
            tables = ivap_fit(s, (label_rank <= c).astype(np.int8), self.row_weight)
            # gap g > 0 lies just above values[g - 1]: the breaks up to it are behind
            above0 = np.searchsorted(tables.breaks0, self.values, side="right")
            above1 = np.searchsorted(tables.breaks1, self.values, side="right")
            v0 = tables.values0[np.r_[0, above0]]
            v1 = tables.values1[np.r_[0, above1]]
            yield c, v0, v1


def _class_sums(value: IntArray, w: FloatArray, k: int) -> FloatArray:
    """Weight at each of the k distinct scores of rows sorted by (score, weight)."""
    out = np.zeros(k)
    if value.shape[0]:
        start = np.flatnonzero(np.r_[True, value[1:] != value[:-1]])
        out[value[start]] = np.add.reduceat(w, start)
    return out


def vad_fit(
    scores: FloatArray, y: FloatArray, sample_weight: FloatArray | None = None
) -> VADistributionTables:
    """Fit an inductive Venn-Abers predictive distribution to clean calibration data.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Finite predictions of the calibration objects (larger means larger y).
    y : ndarray of shape (n,)
        Their finite labels.
    sample_weight : ndarray of shape (n,) or None
        Non-negative weights, not all zero (rows of weight zero are left out, as in
        :func:`~venncal.core.venn_abers.ivap_fit`).

    Returns
    -------
    VADistributionTables

    Examples
    --------
    >>> tables = vad_fit(np.array([0.0, 1.0, 2.0]), np.array([0.1, 1.2, 1.9]))
    >>> tables.labels
    array([0.1, 1.2, 1.9])
    """
    w = sample_weight
    if w is not None:
        keep = w > 0
        scores, y, w = scores[keep], y[keep], w[keep]
    values, row_value = np.unique(-scores, return_inverse=True)
    labels, label_rank = np.unique(y, return_inverse=True)
    order = np.argsort(label_rank, kind="stable")
    label_start = np.searchsorted(label_rank[order], np.arange(labels.shape[0] + 1))
    k = values.shape[0]
    weight: npt.NDArray[np.int64] | FloatArray
    if w is None:
        route, row_weight = "int64", None
        weight = np.bincount(row_value, minlength=k).astype(np.int64)
        total = float(scores.shape[0])
    else:
        route = _route(w)
        row_weight = w[order]
        # summed in the order the tables keep the rows: the tables are a function of their own
        # rows, so a model file's tables can be checked by fitting them again
        weight = np.bincount(row_value[order], weights=row_weight, minlength=k)
        if route == "int64":
            weight = weight.astype(np.int64)
        with np.errstate(over="ignore"):
            total = float(np.sum(row_weight))
    return VADistributionTables(
        values=values,
        labels=labels,
        row_value=row_value[order].astype(np.intp),
        label_start=label_start.astype(np.intp),
        row_weight=row_weight,
        weight=weight,
        route=route,
        n_calibration=total,
    )


def gap_columns(tables: VADistributionTables, s: FloatArray) -> tuple[IntArray, IntArray, IntArray]:
    """The distinct gap positions (of p0, of p1) of clean test scores, and the column of each
    test object among them.

    The values are distinct, so the position of p0 is that of p1 or one more, and their sum
    tells the pair: the distinct sums are found in O(m + k) for m test objects (a sort of the
    objects took two thirds of the time of the quantiles of 10^6 of them).
    """
    right, left = tables.positions(s)
    key = right + left
    present = np.zeros(2 * tables.values.shape[0] + 1, dtype=bool)
    present[key] = True
    found = np.flatnonzero(present)
    objects: IntArray = (np.cumsum(present) - 1)[key]
    return (found + 1) // 2, found // 2, objects


def merged_blocks(
    tables: VADistributionTables, s: FloatArray, cuts: IntArray, merge_rule: str
) -> Iterator[tuple[int, int, FloatArray, IntArray]]:
    """Blocks ``(lo, hi, F, objects)`` of the merged CDF at ``cuts[lo:hi]`` (distinct cuts,
    increasing, below the largest label) of clean test scores: ``F[j, g]`` for the g-th
    distinct gap position, ``objects`` the column of each test object."""
    right, left, objects = gap_columns(tables, s)
    for lo, hi, p0, p1 in tables.pair_chunks(cuts, right, left):
        yield lo, hi, merge(p0, p1, merge_rule), objects


def merged_quantiles(
    tables: VADistributionTables, s: FloatArray, levels: FloatArray, merge_rule: str
) -> FloatArray:
    """Quantiles of the merged distributions of clean test scores at probability levels in
    (0, 1): the smallest calibration label at which the merged CDF reaches each level.

    Parameters
    ----------
    tables : VADistributionTables
    s : ndarray of shape (m,)
        Finite test scores.
    levels : ndarray of shape (Q,)
        Levels strictly between 0 and 1.
    merge_rule : {"mean", "square", "log"}
        How the pair is merged (:func:`venncal.core.merge.merge`).

    Returns
    -------
    ndarray of shape (m, Q)

    Examples
    --------
    >>> tables = vad_fit(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.5, 1.5, 2.5, 3.5]))
    >>> merged_quantiles(tables, np.array([-9.0, 9.0]), np.array([0.5]), "mean")
    array([[0.5],
           [3.5]])
    """
    z = tables.labels
    # the merged CDF rises with the label: the quantile is the label after those below q
    below = np.zeros((s.shape[0], levels.shape[0]), dtype=np.intp)
    for _, _, cdf, objects in merged_blocks(tables, s, np.arange(z.shape[0] - 1), merge_rule):
        counts = (cdf[:, :, None] < levels[None, None, :]).sum(axis=0)
        below += counts[objects]
    out: FloatArray = z[below]
    return out


def band_interval(tables: VADistributionTables, s: FloatArray, tail: float) -> FloatArray:
    """The interval of clean test scores read from the band (F0, F1) itself, ``tail`` the
    largest probability it leaves on each side.

    The lower end is the label after the last cut whose upper bound F1 is at most ``tail``
    (P(y < lower) <= F1 there), ``-inf`` when F1 below the smallest label already exceeds it;
    the upper end is the first label at which the lower bound F0 reaches ``1 - tail`` (P(y >
    upper) <= 1 - F0), ``+inf`` when F0 at the largest label stays below it. Both bounds are
    non-decreasing in the threshold, so the counts of cuts on each side give the ends.

    Parameters
    ----------
    tables : VADistributionTables
    s : ndarray of shape (m,)
        Finite test scores.
    tail : float
        In (0, 0.5).

    Returns
    -------
    ndarray of shape (m, 2)

    Examples
    --------
    Four calibration rows cannot bound a tail of 5%: the interval is the whole line.

    >>> tables = vad_fit(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.5, 1.5, 2.5, 3.5]))
    >>> band_interval(tables, np.array([1.5]), 0.05)
    array([[-inf,  inf]])
    >>> band_interval(tables, np.array([1.5]), 0.4)
    array([[0.5, 3.5]])
    """
    z = tables.labels
    K = z.shape[0]
    cuts = np.arange(-1, K)  # every cut: below z_0, then from each label on
    right, left, objects = gap_columns(tables, s)
    n_upper = np.zeros(left.shape[0], dtype=np.intp)  # cuts -1..K-2 with F1 <= tail
    n_lower = np.zeros(right.shape[0], dtype=np.intp)  # cuts 0..K-1 with F0 < 1 - tail
    for lo, hi, p0, p1 in tables.pair_chunks(cuts, right, left):
        c = cuts[lo:hi]
        n_upper += ((p1 <= tail) & (c <= K - 2)[:, None]).sum(axis=0)
        n_lower += ((p0 < 1.0 - tail) & (c >= 0)[:, None]).sum(axis=0)
    out = np.empty((s.shape[0], 2))
    up, low = n_upper[objects], n_lower[objects]
    out[:, 0] = np.where(up > 0, z[np.maximum(up - 1, 0)], -np.inf)
    out[:, 1] = np.where(low < K, z[np.minimum(low, K - 1)], np.inf)
    return out
