"""Looking up many test scores in a step table, exactly and fast.

``step_lookup(breaks, values, t, right=...)`` is ``values[np.searchsorted(breaks, t, side)]``:
the value of a step function at each test score. ``np.searchsorted`` takes about 60 ns a score
on a table of a few thousand breakpoints, most of it in mispredicted branches. Here a uniform
grid over the range of the breakpoints gives each score a first guess, which is then corrected
by a galloping search (steps of 1, 2, 4, ... and a binary search in the last one): a score
lands on or next to its answer, so a lookup costs a few comparisons, and O(log n) whatever the
spacing of the breakpoints (one huge outlier puts every score in one grid cell). The guess
only sets where the search starts, so the result is exact whatever the rounding of the grid.
"""

from __future__ import annotations

import sys

import numpy as np

from venncal.core._jit import HAVE_NUMBA, jit

__all__ = ["step_lookup", "warm"]

#: the compiled search pays for numba's import and cache load (0.5-2 s of CPU) once per
#: process; before that, lookups of fewer scores than this sort them instead
KERNEL_MIN = 1 << 25

#: grid cells per breakpoint, and their largest number
_CELLS_PER_BREAK = 4
_MAX_CELLS = 1 << 16


@jit
def _lookup(breaks, values, lo, scale, starts, right, t, out):
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


def _grid(breaks):
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


def step_lookup(breaks, values, t, *, right):
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
    side = "right" if right else "left"
    if breaks.shape[0] == 0:
        return np.full(t.shape[0], values[0])
    if not (HAVE_NUMBA and (t.shape[0] >= KERNEL_MIN or "numba" in sys.modules)):
        # one sort, then searches in order: about twice the speed of the plain search
        order = np.argsort(t)
        out = np.empty(t.shape[0], dtype=values.dtype)
        out[order] = values[np.searchsorted(breaks, t[order], side=side)]
        return out
    starts, lo, scale = _grid(breaks)
    out = np.empty(t.shape[0], dtype=values.dtype)
    _lookup(breaks, values, lo, scale, starts, bool(right), t, out)
    return out


def warm():
    """Load the compiled search now (for a caller about to look up many scores in chunks)."""
    if HAVE_NUMBA:
        breaks, t = np.zeros(1), np.zeros(1)
        _lookup(breaks, np.zeros(2), 0.0, 0.0, np.zeros(17, dtype=np.int64), True, t, t.copy())
