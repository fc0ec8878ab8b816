"""Inductive Venn-Abers fitted from pooled calibration data read in blocks.

:func:`ivap_fit_blocks` fits the predictor of :func:`~venncal.core.venn_abers.ivap_fit_counts`
from distinct scores with their class counts that a caller reads block by block (from files,
say), in memory bounded by a block and the convex hulls of the cumulative-sum diagram, not by
the number of distinct scores. The stack sweep of Vovk, Petej & Fedorova (2015) needs each
diagram point twice: once while its hull is built, once while the test object passes it. Both
passes of the two sweeps (p1 on the diagram, p0 on its mirror) read the points in order, one
going up and one going down, so three passes over the blocks do all four (up: p0's hull;
down: p1's hull and p0's sweep; up: p1's sweep). The values of the gaps are compressed into
step tables as they come, as :func:`~venncal.core.venn_abers.ivap_fit_counts` compresses them.
The geometry is the same exact int64 geometry on the same points, so the tables are the same
bit for bit (tested).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.core._ivap_kernels import gap_value, push_points, sweep_points
from venncal.core.venn_abers import _INT64_EXACT_TOTAL, IVAPTables

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    import numpy.typing as npt

    from venncal._typing import FloatArray

    Ints = npt.NDArray[np.int64]
    #: reads groups [start, stop): their scores, weights and weighted positives
    BlockReader = Callable[[int, int], tuple[FloatArray, Ints, Ints]]

__all__ = ["ivap_fit_blocks", "BLOCK"]

#: distinct scores per block read
BLOCK = 1 << 20


class _Steps:
    """A step table compressed from the values of consecutive gaps as they are produced.

    Each value comes with the breakpoint between its gap and the gap produced just before
    (``nan`` for the first); only the values that differ from the one before are kept.
    """

    def __init__(self) -> None:
        self.last: float | None = None
        self.breaks: list[FloatArray] = []
        self.values: list[FloatArray] = []

    def add(self, values: FloatArray, breaks: FloatArray) -> None:
        if values.shape[0] == 0:
            return
        if self.last is None:
            self.values.append(values[:1].copy())
            self.last, values, breaks = float(values[0]), values[1:], breaks[1:]
        changes = np.r_[self.last, values[:-1]] != values
        self.breaks.append(breaks[changes])
        self.values.append(values[changes])
        if values.shape[0]:
            self.last = float(values[-1])

    def table(self, *, reverse: bool) -> tuple[FloatArray, FloatArray]:
        """Breakpoints and values, increasing in score; ``reverse``: they came decreasing."""
        breaks, values = np.concatenate(self.breaks), np.concatenate(self.values)
        if reverse:
            return breaks[::-1].copy(), values[::-1].copy()
        return breaks, values


class _Hull:
    """A lower hull on two int64 stacks (top = leftmost vertex) that grow as needed, so that
    memory follows the hull's size, not the number of points pushed."""

    def __init__(self) -> None:
        self.sx, self.sy = np.empty(1024, np.int64), np.empty(1024, np.int64)
        self.top = -1

    def _room(self, n: int) -> None:
        """Room for ``n`` more vertices (a push adds at most one)."""
        need = self.top + 2 + n
        if need > self.sx.shape[0]:
            size = max(need, 2 * self.sx.shape[0])
            for name in ("sx", "sy"):
                grown = np.empty(size, np.int64)
                grown[: self.top + 1] = getattr(self, name)[: self.top + 1]
                setattr(self, name, grown)

    def push(self, xs: Ints, ys: Ints) -> None:
        """Push the points in this order (:func:`~venncal.core._ivap_kernels.push_points`)."""
        self._room(xs.shape[0])
        self.top = push_points(self.sx, self.sy, self.top, xs, ys)

    def sweep(self, xs: Ints, ys: Ints, mirror: bool) -> FloatArray:
        """The values of as many gaps as points, the test object passing each point in turn
        (:func:`~venncal.core._ivap_kernels.sweep_points`)."""
        self._room(xs.shape[0])
        out = np.empty(xs.shape[0])
        self.top = sweep_points(self.sx, self.sy, self.top, xs, ys, out, mirror)
        return out

    def value(self, mirror: bool) -> FloatArray:
        """The value of the gap the test object stands in, as a one-element array."""
        return np.array([gap_value(self.sx, self.sy, self.top, mirror)])


def _blocks(
    read: BlockReader, k: int, block: int, *, down: bool
) -> Iterator[tuple[FloatArray, Ints, Ints]]:
    """(scores, weights, positives) of each block of groups, going up or down."""
    starts = range(0, k, block)
    for start in reversed(starts) if down else starts:
        values, weight, positives = read(start, min(start + block, k))
        yield values, np.asarray(weight, np.int64), np.asarray(positives, np.int64)


def ivap_fit_blocks(
    read: BlockReader, k: int, total_weight: int, total_positives: int, *, block: int = BLOCK
) -> IVAPTables:
    """Fit an inductive Venn-Abers predictor on pooled data read in blocks.

    Parameters
    ----------
    read : callable
        ``read(start, stop)`` returns the distinct scores ``start`` to ``stop - 1`` (increasing
        over all blocks), the count of examples at each and the count of positives among
        them (whole numbers), as three arrays; it is called three times for every block.
    k : int
        The number of distinct scores, at least one.
    total_weight, total_positives : int
        The sums of the counts and of the positives, at most ``2**31 - 2`` examples in all
        (exact int64 geometry); a block that disagrees is a ValueError.
    block : int, default=BLOCK
        Distinct scores per call of ``read``.

    Returns
    -------
    IVAPTables
        The tables :func:`~venncal.core.venn_abers.ivap_fit_counts` gives on the same data.

    Examples
    --------
    >>> values = np.array([0.1, 0.2, 0.3, 0.4])
    >>> n0, n1 = np.array([1, 0, 1, 0]), np.array([0, 1, 0, 1])
    >>> def read(start, stop):
    ...     return values[start:stop], (n0 + n1)[start:stop], n1[start:stop]
    >>> t = ivap_fit_blocks(read, 4, 4, 2, block=3)
    >>> t.predict([0.25])
    (array([0.33333333]), array([0.66666667]))
    """
    W, A = int(total_weight), int(total_positives)
    if k < 1 or not 0 <= A <= W or W > _INT64_EXACT_TOTAL:
        raise ValueError(
            f"ivap_fit_blocks needs k >= 1 and 0 <= positives <= weight <= {_INT64_EXACT_TOTAL}; "
            f"got k={k}, weight={W}, positives={A}."
        )
    one = np.ones(1, np.int64)
    # p0 runs the sweep on the mirrored diagram, whose point j is (W - W_i, (W - W_i) -
    # (A - A_i)) for i = k - j: its hull is built from i = 0 up, then L_0 = (-1, -1)
    hull0 = _Hull()
    hull0.push(W * one, (W - A) * one)
    cw = ca = 0
    for _, w, a in _blocks(read, k, block, down=False):
        cws, cas = cw + np.cumsum(w), ca + np.cumsum(a)
        hull0.push(W - cws, (W - cws) - (A - cas))
        cw, ca = int(cws[-1]), int(cas[-1])
    if (cw, ca) != (W, A):
        raise ValueError(f"the blocks hold {cw} examples ({ca} positive), not {W} ({A}).")
    hull0.push(-one, -one)
    # down: p1's hull (P_k, ..., P_0, then L_0) and p0's sweep, whose test object passes the
    # mirrored points L = (W - W_i - 1, (W - W_i) - (A - A_i) - 1) for i = k - 1 down to 0
    hull1 = _Hull()
    steps0 = _Steps()
    above: float = np.nan  # the score just above the block (the break before its first gap)
    for values, w, a in _blocks(read, k, block, down=True):
        cws = np.cumsum(w)
        cws = np.r_[cw - cws[-1], cw - cws[-1] + cws]  # W_start, ..., W_stop
        cas = np.cumsum(a)
        cas = np.r_[ca - cas[-1], ca - cas[-1] + cas]
        hull1.push(cws[:0:-1], cas[:0:-1])
        xs = (W - cws[-2::-1]) - 1  # i = stop - 1 down to start
        out = hull0.sweep(xs, xs - (A - cas[-2::-1]), True)  # p0 above stop, ..., start + 1
        steps0.add(out, np.r_[above, values[:0:-1]])
        above = float(values[0])
        cw, ca = int(cws[0]), int(cas[0])
    steps0.add(hull0.value(True), np.array([above]))
    hull1.push(np.array([0, -1]), np.array([0, -1]))
    # up: p1's sweep, whose test object passes L_{g+1} = P_{g+1} - (1, 1)
    steps1, below = _Steps(), np.nan  # below: the score just below the block
    for values, w, a in _blocks(read, k, block, down=False):
        cws, cas = cw + np.cumsum(w), ca + np.cumsum(a)
        out = hull1.sweep(cws - 1, cas - 1, False)  # p1 above start, ..., stop - 1 groups
        steps1.add(out, np.r_[below, values[:-1]])
        below = float(values[-1])
        cw, ca = int(cws[-1]), int(cas[-1])
    steps1.add(hull1.value(False), np.array([below]))
    b0, vals0 = steps0.table(reverse=True)
    b1, vals1 = steps1.table(reverse=False)
    return IVAPTables(b0, vals0, b1, vals1, float(W), int(k))
