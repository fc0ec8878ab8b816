"""The range route of out-of-bag Venn-Abers: bridges folded over index ranges of a segment
tree of hulls.

Every query's p1 is a max (or min) of bridges between the hull of an index range of the
cumulative-sum diagram (the union of O(log k) tree nodes, each holding the lower hull of its
range) and a prefix or suffix hull, each bridge a binary search of binary searches:
O(log^2 k log h) per query. It was the route of :mod:`venncal.core._loo_ivap` before the
O(log k) bridges of :mod:`venncal.core._hull_paths`, and is kept here as an independent route
for the tests and benchmarks: ``loo_ivap_predict(..., **folded("shortcuts" or "ranges"))``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.core._hull_paths import _orient
from venncal.core._jit import jit
from venncal.core._loo_ivap import _bridges

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal.core._hull_paths import Coord, Index, Indices, Points

__all__ = ["build_hull_tree", "loo_p1_ranges", "loo_p1_folded", "folded", "ROUTES"]


@jit
def build_hull_tree(px: Points, py: Points, size: int) -> tuple[Indices, Indices, Indices]:
    """Lower hulls of the nodes of a segment tree over the points (px[i], py[i]), x increasing.

    Node v (1 <= v < 2 size) covers leaves [lo, hi); its hull is ``verts[start[v]:start[v+1]]``
    (point indices, left to right) is ``verts[begin[v]:begin[v] + count[v]]``. Returns
    (begin, count, verts).
    """
    n = px.shape[0]
    levels = 1
    s = 1
    while s < size:
        s *= 2
        levels += 1
    cap = n * levels + 1
    verts = np.empty(cap, dtype=np.int64)
    # leaves first, then each parent from its children's hulls (a monotone chain over their
    # vertices: a point off a child's hull is off the parent's), in decreasing v
    begin = np.zeros(2 * size, dtype=np.int64)
    count = np.zeros(2 * size, dtype=np.int64)
    pos = 0
    for v in range(2 * size - 1, size - 1, -1):
        i = v - size
        begin[v] = pos
        if i < n:
            verts[pos] = i
            pos += 1
            count[v] = 1
    for v in range(size - 1, 0, -1):
        begin[v] = pos
        top = 0
        for child in (2 * v, 2 * v + 1):
            b = begin[child]
            for t in range(count[child]):
                idx = verts[b + t]
                x = px[idx]
                y = py[idx]
                while top >= 2:
                    i1 = verts[pos + top - 2]
                    i2 = verts[pos + top - 1]
                    if _orient(px[i1], py[i1], px[i2], py[i2], x, y) <= 0:
                        top -= 1
                    else:
                        break
                verts[pos + top] = idx
                top += 1
        count[v] = top
        pos += top
    return begin, count, verts


@jit
def _tangent(
    qx: Coord,
    qy: Coord,
    px: Points,
    py: Points,
    arr: Indices,
    s: Index,
    nb: Index,
    step: int,
    tx: Coord,
    ty: Coord,
) -> Index:
    """Index (0..nb-1, along the chain) of the vertex b minimising slope(q, b + t) over a lower
    chain ``arr[s + step * i]`` lying right of q."""
    lo = 0
    hi = nb - 1
    while lo < hi:
        mid = (lo + hi) // 2
        i1 = arr[s + step * mid]
        i2 = arr[s + step * (mid + 1)]
        if _orient(qx, qy, px[i1] + tx, py[i1] + ty, px[i2] + tx, py[i2] + ty) < 0:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def _bridge(
    px: Points,
    py: Points,
    a_arr: Indices,
    a_s: Index,
    na: Index,
    a_step: int,
    ax: Coord,
    ay: Coord,
    b_arr: Indices,
    b_s: Index,
    nb: Index,
    b_step: int,
    bx: Coord,
    by: Coord,
) -> tuple[Coord, Coord]:
    """Slope (num, den > 0) of the bridge from chain A (shifted by (ax, ay)) to chain B
    (shifted by (bx, by)), A strictly left of B: max over a in A of min over b in B."""
    lo = 0
    hi = na - 1
    while lo < hi:
        mid = (lo + hi) // 2
        i1 = a_arr[a_s + a_step * mid]
        x1 = px[i1] + ax
        y1 = py[i1] + ay
        jb = b_arr[b_s + b_step * _tangent(x1, y1, px, py, b_arr, b_s, nb, b_step, bx, by)]
        i2 = a_arr[a_s + a_step * (mid + 1)]
        # the next vertex of A below the line from a to its tangent point: the bridge is right
        if _orient(x1, y1, px[jb] + bx, py[jb] + by, px[i2] + ax, py[i2] + ay) < 0:
            lo = mid + 1
        else:
            hi = mid
    i1 = a_arr[a_s + a_step * lo]
    x1 = px[i1] + ax
    y1 = py[i1] + ay
    jb = b_arr[b_s + b_step * _tangent(x1, y1, px, py, b_arr, b_s, nb, b_step, bx, by)]
    return py[jb] + by - y1, px[jb] + bx - x1


@jit
def _range_best(
    px: Points,
    py: Points,
    begin: Indices,
    count: Indices,
    verts: Indices,
    size: int,
    lo: Index,
    hi: Index,
    tx: Coord,
    ty: Coord,
    c_arr: Indices,
    c_s: Index,
    nc: Index,
    c_step: int,
    cx: Coord,
    cy: Coord,
    side: int,
    best_num: Coord,
    best_den: Coord,
) -> tuple[Coord, Coord]:
    """Fold the bridges between the tree nodes covering [lo, hi] (shifted by t) and chain C
    into (best_num, best_den): the max with side 0 (nodes left of C), the min with side 1."""
    l = lo + size
    r = hi + 1 + size
    while l < r:
        for take in range(2):
            v = -1
            if take == 0 and (l & 1) == 1:
                v = l
                l += 1
            elif take == 1 and (r & 1) == 1:
                r -= 1
                v = r
            if v < 0:
                continue
            if side == 0:
                num, den = _bridge(
                    px, py, verts, begin[v], count[v], 1, tx, ty, c_arr, c_s, nc, c_step, cx, cy
                )
                if best_den == 0 or num * best_den > best_num * den:
                    best_num, best_den = num, den
            else:
                num, den = _bridge(
                    px, py, c_arr, c_s, nc, c_step, cx, cy, verts, begin[v], count[v], 1, tx, ty
                )
                if best_den == 0 or num * best_den < best_num * den:
                    best_num, best_den = num, den
        l //= 2
        r //= 2
    return best_num, best_den


@jit
def loo_p1_ranges(
    px: Points,
    py: Points,
    unit: Coord,
    gaps: Indices,
    groups: Indices,
    dw: Points,
    da: Points,
    num: Points,
    den: Points,
    shortcuts: bool,
    vnum: Points,
    vden: Points,
    left: Indices,
    right: Indices,
    change: npt.NDArray[np.int8],
) -> None:
    """p1 = num / den for each query by folding bridges over index ranges (the arguments of
    :func:`venncal.core._loo_ivap.loo_p1_folded`, with the gap bridges and the marks of
    :func:`~venncal.core._loo_ivap._outside_changes`); ``shortcuts=False`` folds the bridges
    over both ranges for every query.
    """
    k = px.shape[0] - 1
    size = 1
    while size < k + 1:
        size *= 2
    begin, count, verts = build_hull_tree(px, py, size)
    m = gaps.shape[0]
    order = np.argsort(gaps, kind="mergesort")
    stack = np.empty(k + 1, dtype=np.int64)
    # right of the removed group (q <= g): sweep g down, the stack is the hull of P_g..P_k
    top = 0
    qi = m - 1
    for g in range(k, -1, -1):
        x = px[g]
        y = py[g]
        while top >= 2:
            i1 = stack[top - 2]
            i2 = stack[top - 1]
            # right to left: keep clockwise turns
            if _orient(px[i1], py[i1], px[i2], py[i2], x, y) >= 0:
                top -= 1
            else:
                break
        stack[top] = g
        top += 1
        while qi >= 0 and gaps[order[qi]] == g:
            t = order[qi]
            qi -= 1
            q = groups[t]
            if q > g:
                continue
            if shortcuts and (dw[t] == 0 or (q <= left[g] and (da[t] == dw[t] or change[t] == 0))):
                num[t] = vnum[g]
                den[t] = vden[g]
                continue
            bn: Coord = 0
            bd: Coord = 0
            if q <= left[g]:  # [q, g] holds the block's left end: that bridge is p1 itself
                bn = vnum[g]
                bd = vden[g]
            bn, bd = _range_best(
                px,
                py,
                begin,
                count,
                verts,
                size,
                0,
                q - 1,
                dw[t] - unit,
                da[t] - unit,
                stack,
                top - 1,
                top,
                -1,
                0,
                0,
                0,
                bn,
                bd,
            )
            if q <= left[g] or (shortcuts and da[t] == 0):
                # a negative in the block: L_left + (w, 0) lies below the unremoved line (of
                # positive slope), so the moved points' bridge exceeds p1, and the bridge
                # from [q, g] is at most p1
                num[t] = bn
                den[t] = bd
                continue
            bn, bd = _range_best(
                px,
                py,
                begin,
                count,
                verts,
                size,
                q,
                g,
                -unit,
                -unit,
                stack,
                top - 1,
                top,
                -1,
                0,
                0,
                0,
                bn,
                bd,
            )
            num[t] = bn
            den[t] = bd
    # left of the removed group (q > g): sweep g up, the stack is the hull of P_0..P_g
    top = 0
    qi = 0
    for g in range(k + 1):
        x = px[g]
        y = py[g]
        while top >= 2:
            i1 = stack[top - 2]
            i2 = stack[top - 1]
            if _orient(px[i1], py[i1], px[i2], py[i2], x, y) <= 0:
                top -= 1
            else:
                break
        stack[top] = g
        top += 1
        while qi < m and gaps[order[qi]] == g:
            t = order[qi]
            qi += 1
            q = groups[t]
            if q <= g:
                continue
            if shortcuts and (dw[t] == 0 or (q > right[g] and (da[t] == 0 or change[t] == 0))):
                num[t] = vnum[g]
                den[t] = vden[g]
                continue
            bn = 0
            bd = 0
            if q > right[g]:  # [g, q - 1] holds the block's right end: that bridge is p1
                bn = vnum[g]
                bd = vden[g]
            elif not shortcuts or da[t] < dw[t]:
                # (a positive in the block needs no range here: P_right - (w, w) lies on or
                # below the unremoved line, whose slope is at most 1, so the moved points'
                # bridge is at most p1, and this range's bridge at least p1)
                bn, bd = _range_best(
                    px,
                    py,
                    begin,
                    count,
                    verts,
                    size,
                    g,
                    q - 1,
                    0,
                    0,
                    stack,
                    0,
                    top,
                    1,
                    -unit,
                    -unit,
                    1,
                    bn,
                    bd,
                )
            bn, bd = _range_best(
                px,
                py,
                begin,
                count,
                verts,
                size,
                q,
                k,
                -dw[t],
                -da[t],
                stack,
                0,
                top,
                1,
                -unit,
                -unit,
                1,
                bn,
                bd,
            )
            num[t] = bn
            den[t] = bd


@jit
def loo_p1_folded(px: Points, py: Points, unit: Coord, gaps: Indices, groups: Indices,
                  dw: Points, da: Points, num: Points, den: Points, shortcuts: bool) -> None:  # fmt: skip
    """:func:`venncal.core._loo_ivap.loo_p1` by other routes: bridges folded over the segment
    tree of hulls, after the same shortcuts with ``shortcuts``, else for every query."""
    vnum, vden, left, right, change = _bridges(px, py, unit, gaps, groups, dw, da, shortcuts)
    loo_p1_ranges(px, py, unit, gaps, groups, dw, da, num, den, shortcuts, vnum, vden, left,
                  right, change)  # fmt: skip


#: The routes to the same values: "paths" (the library's), "shortcuts" (the queries whose
#: left-out example lies outside the test object's block from the unremoved bridge, folded
#: ranges for the others) and "ranges" (folded ranges for every query).
ROUTES = ("paths", "shortcuts", "ranges")


def folded(route: str) -> dict[str, object]:
    """The keyword arguments of ``loo_ivap_predict`` that take ``route`` (one of ROUTES)."""
    if route == "paths":
        return {}
    return {"kernel": loo_p1_folded, "route": (route == "shortcuts",)}
