"""Looking up many test scores in a step table, exactly and fast.

``step_lookup(breaks, values, t, right=...)`` is ``values[np.searchsorted(breaks, t, side)]``:
the value of a step function at each test score. ``np.searchsorted`` takes about 60 ns a score
on a table of a few thousand breakpoints, most of it in mispredicted branches. Here a uniform
grid over the range of the breakpoints gives each score a first guess, which is then corrected
by a galloping search (steps of 1, 2, 4, ... and a binary search in the last one): a score
lands on or next to its answer, so a lookup costs a few comparisons, and O(log n) whatever the
spacing of the breakpoints (one huge outlier puts every score in one grid cell). The guess
only sets where the search starts, so the result is exact whatever the rounding of the grid.

Without the compiled kernel (numba not loaded: its import and cache load cost more than the
search of a few million scores), :class:`CellTable` answers in numpy alone: a finer uniform grid
whose cells each hold the answer when it is the same at both ends of the cell and of its two
neighbours, so that a score the rounded grid puts in the cell gets it exactly; the few scores in
cells next to a breakpoint (about 3 cells in ``_CELLS_PER_BREAK_NUMPY``) fall back to
``np.searchsorted``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np

from venncal.core._jit import HAVE_NUMBA, jit

if TYPE_CHECKING:
    from typing import Literal, TypeVar

    import numpy.typing as npt

    from venncal._typing import AnyArray, FloatArray, IntArray

    ScalarT = TypeVar("ScalarT", bound=np.generic)

__all__ = ["CellTable", "step_lookup", "use_kernel", "warm"]

#: the compiled search pays for numba's import and cache load (0.5-2 s of CPU) once per
#: process; before that, lookups of fewer scores than this use the numpy grid (CellTable)
KERNEL_MIN = 1 << 25

#: grid cells per breakpoint, and their largest number
_CELLS_PER_BREAK = 4
_MAX_CELLS = 1 << 16


#: cells per breakpoint of the numpy grid, its bounds, and the cells it adds beyond each end
_CELLS_PER_BREAK_NUMPY = 256
_MIN_CELLS_NUMPY = 1 << 12
_MAX_CELLS_NUMPY = 1 << 21
_PAD = 3


class CellTable:
    """The answers of ``np.searchsorted`` on a uniform grid of cells, for lookups in numpy.

    Parameters
    ----------
    lo, hi : float
        The range the cells cover (finite, ``lo < hi``): the breakpoints of every table looked
        up with it. ``_PAD`` cells are added beyond each end, and the cells clipped there hold
        the answers below ``lo`` and above ``hi``.
    n_breaks : int
        The number of breakpoints of the largest table (sets the number of cells).

    Notes
    -----
    A score t falls in cell ``floor((t - lo) * scale)``, computed in floating point. The
    number of cells is capped so that one unit in the last place of ``max(|lo|, |hi|)`` is at
    most 1/8 of a cell: the rounded cell then differs from the true position by less than a
    quarter of a cell, so a score the grid puts in cell k lies strictly between the edges of
    cells k - 1 and k + 2, and if ``np.searchsorted`` gives the same answer at those two edges
    (it is monotone in t) it gives that answer at t. Other cells hold -1 and their scores are
    searched. ``is_usable`` is False when the range is too narrow for a useful grid.

    Examples
    --------
    >>> import numpy as np
    >>> breaks, values = np.array([0.0, 1.0, 2.0]), np.array([0.1, 0.2, 0.3, 0.4])
    >>> grid = CellTable(0.0, 2.0, 3)
    >>> table = grid.table(breaks, right=True)
    >>> t = np.array([-1.0, 0.5, 1.0, 1.5, 9.0])
    >>> grid.lookup(breaks, values, table, grid.cells_of(t), t, right=True)
    array([0.1, 0.2, 0.3, 0.3, 0.4])
    """

    def __init__(self, lo: float, hi: float, n_breaks: int) -> None:
        self.lo = float(lo)
        cells = int(min(_MAX_CELLS_NUMPY, max(_MIN_CELLS_NUMPY, _CELLS_PER_BREAK_NUMPY * n_breaks)))
        width = float(hi) - self.lo
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            ulp = float(np.spacing(max(abs(self.lo), abs(float(hi)))))
            if np.isfinite(width) and width > 0:
                cells = int(min(cells, width / (8.0 * ulp)))
            else:
                cells = 0
        self.cells = cells
        self.scale = cells / width if cells >= 16 else 0.0
        self.is_usable = cells >= 16 and np.isfinite(self.scale) and self.scale > 0

    def cells_of(self, t: FloatArray) -> IntArray:
        """The (clipped, offset) cell of each score: an intp array for :meth:`lookup`."""
        f = np.subtract(t, self.lo)
        with np.errstate(over="ignore", invalid="ignore"):
            np.multiply(f, self.scale, out=f)
        np.clip(f, -_PAD, self.cells + _PAD - 1, out=f)
        np.add(f, _PAD, out=f)
        return f.astype(np.intp)

    def table(self, breaks: FloatArray, *, right: bool) -> npt.NDArray[np.int32]:
        """The answer in each cell (the index ``np.searchsorted`` gives), or -1 if not one."""
        side: Literal["left", "right"] = "right" if right else "left"
        k = np.arange(-_PAD - 1, self.cells + _PAD + 2, dtype=np.float64)
        with np.errstate(over="ignore"):
            edges = self.lo + k / self.scale
        at = np.searchsorted(breaks, edges, side=side)  # at[j] is the answer at edge j - PAD - 1
        # cell c (offset index c + PAD) spans edges c - 1 .. c + 2, i.e. at[c + PAD] .. at[c + PAD + 3]
        lower, upper = at[: self.cells + 2 * _PAD], at[3 : self.cells + 2 * _PAD + 3]
        out = np.where(lower == upper, lower, -1).astype(np.int32)
        out[0] = 0  # below every edge: below lo, so below every breakpoint
        out[-1] = breaks.shape[0]  # above every edge: above hi
        return out

    def lookup(
        self,
        breaks: FloatArray,
        values: npt.NDArray[ScalarT],
        table: npt.NDArray[np.int32],
        cells: IntArray,
        t: FloatArray,
        *,
        right: bool,
    ) -> npt.NDArray[ScalarT]:
        """``values[np.searchsorted(breaks, t, side)]`` from the cells of ``t``."""
        idx = table[cells]
        miss = np.flatnonzero(idx < 0)
        if miss.shape[0]:
            side: Literal["left", "right"] = "right" if right else "left"
            idx[miss] = np.searchsorted(breaks, t[miss], side=side)
        return values[idx]


@jit
def _lookup(
    breaks: FloatArray,
    values: AnyArray,
    lo: float,
    scale: float,
    starts: npt.NDArray[np.int64],
    right: bool,
    t: FloatArray,
    out: AnyArray,
) -> None:
    """out[j] = values[number of breaks <= t[j] (right) or < t[j] (not right)]."""
    n = breaks.shape[0]
    cells = starts.shape[0] - 1
    for j in range(t.shape[0]):
        x = t[j]
        f = (x - lo) * scale
        k = 0
        if f >= cells:
            k = cells
        elif f > 0:
            k = int(f)
        i = starts[k]
        # the answer is the first index whose breakpoint is > x (right) or >= x (left)
        if i < n and (breaks[i] <= x if right else breaks[i] < x):
            a = i + 1  # the answer is in [a, b]
            step = 1
            b = a
            while b < n and (breaks[b] <= x if right else breaks[b] < x):
                a = b + 1
                b = a + step
                step *= 2
            if b > n:
                b = n
        else:
            b = i
            step = 1
            a = b
            while a > 0 and not (breaks[a - 1] <= x if right else breaks[a - 1] < x):
                b = a - 1
                a = b - step
                step *= 2
            if a < 0:
                a = 0
        while a < b:
            mid = (a + b) >> 1
            if breaks[mid] <= x if right else breaks[mid] < x:
                a = mid + 1
            else:
                b = mid
        out[j] = values[a]


def _grid(breaks: FloatArray) -> tuple[npt.NDArray[np.int64], float, float]:
    """Start index for each grid cell, the grid's origin and cells per unit of score."""
    n = breaks.shape[0]
    cells = int(min(_MAX_CELLS, max(16, _CELLS_PER_BREAK * n)))
    lo = float(breaks[0])
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        width = float(breaks[-1]) - lo
        scale = cells / width if np.isfinite(width) and width > 0 else 0.0
        if not np.isfinite(scale) or scale == 0.0:  # all guesses at the start: still exact
            return np.zeros(cells + 1, dtype=np.int64), lo, 0.0
        edges = lo + np.arange(cells + 1) / scale
    return np.searchsorted(breaks, edges, side="left").astype(np.int64), lo, scale


def step_lookup(
    breaks: FloatArray, values: npt.NDArray[ScalarT], t: FloatArray, *, right: bool
) -> npt.NDArray[ScalarT]:
    """``values[np.searchsorted(breaks, t, side="right" if right else "left")]``, exactly.

    Parameters
    ----------
    breaks : ndarray of shape (n,)
        Non-decreasing float64 breakpoints, finite.
    values : ndarray of shape (n + 1,)
        The value on each step.
    t : ndarray of shape (m,)
        Finite float64 test scores.
    right : bool
        Count the breakpoints ``<= t`` (True) or ``< t`` (False).

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> breaks, values = np.array([0.0, 1.0, 2.0]), np.array([0.1, 0.2, 0.3, 0.4])
    >>> step_lookup(breaks, values, np.array([-1.0, 1.0, 1.5, 9.0]), right=True)
    array([0.1, 0.3, 0.3, 0.4])
    >>> step_lookup(breaks, values, np.array([-1.0, 1.0, 1.5, 9.0]), right=False)
    array([0.1, 0.2, 0.3, 0.4])
    """
    side: Literal["left", "right"] = "right" if right else "left"
    if breaks.shape[0] == 0:
        return np.full(t.shape[0], values[0])
    if not use_kernel(t.shape[0]):
        cells = CellTable(breaks[0], breaks[-1], breaks.shape[0])
        if cells.is_usable:
            table = cells.table(breaks, right=right)
            return cells.lookup(breaks, values, table, cells.cells_of(t), t, right=right)
        return values[np.searchsorted(breaks, t, side=side)]
    starts, lo, scale = _grid(breaks)
    out = np.empty(t.shape[0], dtype=values.dtype)
    _lookup(breaks, values, lo, scale, starts, bool(right), t, out)
    return out


def use_kernel(m: int) -> bool:
    """Whether a lookup of ``m`` scores should use the compiled kernel (else the numpy grid)."""
    return HAVE_NUMBA and (m >= KERNEL_MIN or "numba" in sys.modules)


def warm() -> None:
    """Load the compiled search now (for a caller about to look up many scores in chunks)."""
    if HAVE_NUMBA:
        breaks, t = np.zeros(1), np.zeros(1)
        _lookup(breaks, np.zeros(2), 0.0, 0.0, np.zeros(17, dtype=np.int64), True, t, t.copy())
