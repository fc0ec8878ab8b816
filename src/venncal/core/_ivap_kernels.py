"""Compiled kernels of the fast inductive Venn-Abers predictor.

They assume clean input and do arithmetic only; ``venncal.core.venn_abers`` prepares it and
chooses the route: the compiled sweep on int64 coordinates (exact), on float64 coordinates
(weights whose range keeps float geometry accurate), or :func:`hull_sweep_exact` on Python
integers (any other weights, exact but slower).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.core._jit import jit

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, TypeAlias

    import numpy.typing as npt

    from venncal._typing import FloatArray

    #: Integer coordinates of a cumulative-sum diagram (exact geometry).
    CountArray: TypeAlias = npt.NDArray[np.int32] | npt.NDArray[np.int64]
    #: Coordinates of a cumulative-sum diagram: integers, float64 for weights of moderate
    #: range, or Python integers in an object array (the Python version of the sweep only).
    Coordinates: TypeAlias = (
        npt.NDArray[np.int32] | npt.NDArray[np.int64] | FloatArray | npt.NDArray[np.object_]
    )
    #: One coordinate, as the Python version of a kernel sees it.
    Coordinate: TypeAlias = np.integer[Any] | np.floating[Any] | int

__all__ = [
    "merge_sorted_groups",
    "hull_sweep",
    "hull_sweep_exact",
    "compensated_cumsum",
    "push_points",
    "sweep_points",
    "gap_value",
]


@jit
def merge_sorted_groups(
    neg: FloatArray, pos: FloatArray, u: FloatArray, cw: CountArray, ca: CountArray
) -> int:
    """Merge the sorted scores of negatives and positives into distinct-score groups.

    Writes the distinct scores into ``u`` and the cumulative counts and cumulative positives of
    the cumulative-sum diagram into ``cw`` and ``ca`` (starting at 0); all three are
    preallocated with room for every score (``cw`` and ``ca`` one more). Returns the number k of
    distinct scores: ``u[:k]``, ``cw[:k + 1]`` and ``ca[:k + 1]`` hold the result.
    """
    n0 = neg.shape[0]
    n1 = pos.shape[0]
    cw[0] = 0
    ca[0] = 0
    i = 0
    j = 0
    k = 0
    while i < n0 or j < n1:
        if j >= n1 or (i < n0 and neg[i] < pos[j]):
            v = neg[i]
        else:
            v = pos[j]
        i0 = i
        while i < n0 and neg[i] == v:
            i += 1
        j0 = j
        while j < n1 and pos[j] == v:
            j += 1
        u[k] = v
        cw[k + 1] = cw[k] + (i - i0) + (j - j0)
        ca[k + 1] = ca[k] + (j - j0)
        k += 1
    return k


@jit
def _point(
    cw: Coordinates, ca: Coordinates, idx: int, k: int, mirror: bool, unit: Coordinate
) -> tuple[Coordinate, Coordinate]:
    """Coordinates of stack entry ``idx``: P_j for idx = j <= k, L_j = P_j - (unit, unit) for
    idx = k + 1 + j. With ``mirror`` the diagram is that of (-s, 1 - y): groups reversed and
    labels flipped."""
    j = idx if idx <= k else idx - k - 1
    if mirror:
        x = cw[k] - cw[k - j]
        y = x - (ca[k] - ca[k - j])
    else:
        x = cw[j]
        y = ca[j]
    if idx > k:
        x = x - unit
        y = y - unit
    return x, y


@jit
def _push_left(sx: Coordinates, sy: Coordinates, top: int, x: Coordinate, y: Coordinate) -> int:
    """Push (x, y) onto the left end of a lower hull kept on the stacks (top = leftmost).

    First pops the top while it lies on or above the segment from the new point to the vertex
    under the top. Returns the new index of the top.
    """
    while top >= 1:
        if (sx[top - 1] - x) * (sy[top] - y) - (sy[top - 1] - y) * (sx[top] - x) >= 0:
            top -= 1
        else:
            break
    top += 1
    sx[top] = x
    sy[top] = y
    return top


@jit
def hull_sweep(
    cw: Coordinates,
    ca: Coordinates,
    sx: Coordinates,
    sy: Coordinates,
    out: FloatArray,
    mirror: bool,
    unit: Coordinate,
) -> None:
    """p1 (or, with ``mirror``, p0) for every gap by one stack sweep.

    ``cw`` and ``ca`` hold the cumulative weights W_0 = 0, ..., W_k and positives A_0 = 0, ...,
    A_k (integers when unweighted, so every orientation test is exact), and ``unit`` is the
    test object's weight on that scale. ``sx`` and ``sy`` are scratch stacks of length k + 2
    with the dtype of ``cw``. Without ``mirror``, ``out[g]`` receives p1 for a test score above
    exactly g groups: the slope of the lower convex hull of (L_0, ..., L_g, P_g, ..., P_k),
    L_j = P_j - (unit, unit), over the segment L_g -> P_g. With ``mirror`` the same sweep runs
    on the diagram of (-s, 1 - y), and ``out[k - g]`` receives 1 minus its value, which is p0
    above exactly k - g groups.
    """
    k = cw.shape[0] - 1
    top = -1
    # lower hull of L_0, P_0, ..., P_k, built right to left; the top is the leftmost vertex
    for j in range(k, -2, -1):
        x, y = _point(cw, ca, j if j >= 0 else k + 1, k, mirror, unit)
        top = _push_left(sx, sy, top, x, y)
    # (the step of sweep_points written out: calling gap_value and _advance here measured
    # 15% slower on the whole fit at 2x10^6 scores)
    for g in range(k + 1):
        xt = sx[top]
        yt = sy[top]
        xn = sx[top - 1]
        yn = sy[top - 1]
        dx = xn - xt
        dy = yn - yt
        if mirror:
            out[k - g] = (dx - dy) / dx  # 1 - dy / dx with one rounding
        else:
            out[g] = dy / dx
        if g < k:
            x, y = _point(cw, ca, k + 2 + g, k, mirror, unit)  # L_{g+1}
            # below the line through the top and the next vertex: L_{g+1} replaces the top
            if (xn - xt) * (y - yt) - (yn - yt) * (x - xt) < 0:
                top = _push_left(sx, sy, top - 1, x, y)


@jit
def gap_value(sx: Coordinates, sy: Coordinates, top: int, mirror: bool) -> float:
    """The slope of the hull's leftmost edge: p1 in the current gap, or 1 minus it (p0 of
    the mirrored diagram) with ``mirror``, each rounded once."""
    dx = sx[top - 1] - sx[top]
    dy = sy[top - 1] - sy[top]
    value: float = (dx - dy) / dx if mirror else dy / dx  # 1 - dy / dx rounded once
    return value


@jit
def _advance(sx: Coordinates, sy: Coordinates, top: int, x: Coordinate, y: Coordinate) -> int:
    """Move the test object one gap right: its shifted point (x, y) = L_{g+1} replaces the
    top when it lies below the line through the top and the next vertex."""
    xt = sx[top]
    yt = sy[top]
    if (sx[top - 1] - xt) * (y - yt) - (sy[top - 1] - yt) * (x - xt) < 0:
        top = _push_left(sx, sy, top - 1, x, y)
    return top


@jit
def push_points(
    sx: Coordinates, sy: Coordinates, top: int, xs: Coordinates, ys: Coordinates
) -> int:
    """Push the points (xs[i], ys[i]) in this order onto the left end of the hull on the
    stacks (:func:`_push_left`); returns the new top. A hull is built from blocks of points
    by calls on consecutive blocks."""
    for i in range(xs.shape[0]):
        top = _push_left(sx, sy, top, xs[i], ys[i])
    return top


@jit
def sweep_points(
    sx: Coordinates,
    sy: Coordinates,
    top: int,
    xs: Coordinates,
    ys: Coordinates,
    out: FloatArray,
    mirror: bool,
) -> int:
    """The sweep of :func:`hull_sweep` over a block of gaps: for each i, ``out[i]`` receives
    the value in the current gap, then the test object moves past the point (xs[i], ys[i])
    (the next L). Returns the new top; the value of the last gap is :func:`gap_value`."""
    for i in range(xs.shape[0]):
        out[i] = gap_value(sx, sy, top, mirror)
        top = _advance(sx, sy, top, xs[i], ys[i])
    return top


@jit
def compensated_cumsum(v: FloatArray, out: FloatArray) -> None:
    """Cumulative sums of ``v`` into ``out[1:]`` (``out[0] = 0``), each within about one
    rounding of the exact sum however long ``v`` is (Neumaier's compensated summation)."""
    total = 0.0
    comp = 0.0
    out[0] = 0.0
    for i in range(v.shape[0]):
        x = v[i]
        t = total + x
        if abs(total) >= abs(x):
            comp += (total - t) + x
        else:
            comp += (x - t) + total
        total = t
        out[i + 1] = total + comp


def hull_sweep_exact(cw: Sequence[int], ca: Sequence[int], unit: int, mirror: bool) -> list[float]:
    """:func:`hull_sweep` on Python integers: exact for coordinates of any size.

    ``cw`` and ``ca`` are sequences of Python ints (the diagram scaled so that every weight is
    an integer) and ``unit`` is the test object's weight on that scale. Returns the list of
    k + 1 values, each the exact slope rounded once to float.
    """
    k = len(cw) - 1
    # the Python version of the sweep on arrays of Python ints: every product is exact, and
    # int / int is the exact ratio rounded once
    ints = [np.array(c, dtype=object) for c in (cw, ca)]
    sx, sy = np.empty(k + 2, dtype=object), np.empty(k + 2, dtype=object)
    out = np.empty(k + 1)
    hull_sweep.python(ints[0], ints[1], sx, sy, out, mirror, unit)
    values: list[float] = out.tolist()
    return values
