"""Every prefix and suffix lower hull of a point chain at once, and bridges between hulls in
O(log n).

A monotone-chain sweep over points sorted by x keeps the lower hull of the points seen so far
as a stack; the vertex below a point when it is pushed is its parent, so the hull of every
prefix (of a forward sweep) or suffix (of a backward sweep) is the path from its last point to
the root of one tree, O(n) integers for all n hulls. A table of 2^t-th ancestors (binary
lifting) reaches the vertex halfway along any window of such a path in O(1).

The bridge of two lower hulls A and B, A strictly left of B, is the segment a* b* whose line
has every point of A and B on or above it; its slope s* = max_a min_b slope(a, b). It is found
by a simultaneous binary search over edges (after Overmars and van Leeuwen 1981), with d(s) =
min_B (y - s x) - min_A (y - s x), which falls as s grows and vanishes at s*: a point of B
strictly below the line of an edge of A (slope alpha) shows s* < alpha, so a* is at or left of
the edge; a point of A strictly below the line of an edge of B (slope beta) shows s* > beta. For
probe edges e_A of A and e_B of B:

* alpha >= beta: if the right end of e_A lies below the line of e_B, s* > beta; otherwise the
  left end of e_B lies on or below the line of e_A (the steeper line cannot be above the other
  at e_A and below it at e_B), and s* <= alpha;
* alpha < beta, and neither end test applies: the lines meet at X. If X is on or left of a
  vertical line x0 with A on or left of it and B strictly right of it (x0 the largest x of A),
  B lies strictly above the line of e_A (right of X it is the lower one), so s* > alpha;
  otherwise A lies strictly above the line of e_B, so s* < beta. X is on or left of x0
  exactly when the line of e_B is on or above that of e_A at x0, a comparison of two
  fractions decided by their integer parts and, when those are equal, their remainders;
* one hull narrowed to one vertex v (then v is a*, or b*): s* < alpha exactly when b* lies
  strictly below the line of e_A, and s* > beta exactly when a* does below that of e_B.

Each step halves the window of one hull, so a bridge costs O(log |A| + log |B|) tests, each
exact on integer coordinates whose span S has 2 S^2 < 2^63 (every product is of two
differences), the bound of the other integer kernels of :mod:`venncal.core._ivap_kernels`.

A chain is given in one of three ways: an array of point indices read left to right
(``kind`` 0), the path of a prefix tree from its rightmost vertex (``kind`` 1: parents to the
left), or that of a suffix tree from its leftmost vertex (``kind`` 2: parents to the right).
A path window (d, t) holds the vertices 0 .. 2^t steps from d (clamped at the root); t = -1
is the single vertex d.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.core._jit import jit

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt

    #: Point coordinates: int64 (exact), float64, or Python integers in an object array (the
    #: plain-Python versions of the kernels only).
    Points: TypeAlias = npt.NDArray[np.int64] | npt.NDArray[np.float64] | npt.NDArray[np.object_]
    #: One coordinate, or a shift of the coordinates: a Python int or float, or the numpy
    #: scalar read from an int64 or float64 array.
    Coord: TypeAlias = float | np.int64
    #: A point index (an integer: numba's, or the numpy integer read from an index array in
    #: the plain-Python versions).
    Index: TypeAlias = int
    #: Point indices, and the parents and ancestor tables of the hull trees.
    Indices: TypeAlias = npt.NDArray[np.int64]
    Tree: TypeAlias = npt.NDArray[np.int32]

__all__ = ["hull_trees", "path_bridge"]


@jit
def _orient(ox: Coord, oy: Coord, ax: Coord, ay: Coord, bx: Coord, by: Coord) -> Coord:
    """Twice the signed area of (o, a, b): positive for a counter-clockwise turn."""
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@jit
def hull_trees(px: Points, py: Points) -> tuple[Tree, Tree, Tree, Tree]:
    """Parents and ancestor tables of the prefix and suffix hull trees of P_0 .. P_n-1.

    Returns (pre_par, pre_jump, suf_par, suf_jump): ``pre_par[i]`` is the vertex left of i on
    the lower hull of P_0..P_i (-1 at i = 0), ``suf_par[j]`` the vertex right of j on that of
    P_j..P_n-1 (-1 at j = n - 1). ``jump[v, 0]`` is the depth of v (its number of
    ancestors), ``jump[v, t]`` for 1 <= t <= T its 2^(t-1)-th ancestor, clamped at the root,
    with 2^T at least the largest depth; a row holds all of a vertex's entries, so a walk that
    stays at a vertex stays in a cache line.

    Examples
    --------
    The lower hull of P_0..P_3 is P_0, P_2, P_3 (P_1 lies above the segment P_0 P_2):

    >>> px, py = np.array([0, 1, 2, 3]), np.array([0, 1, 1, 2])
    >>> pre_par, pre_jump, suf_par, suf_jump = hull_trees(px, py)
    >>> pre_par.tolist(), pre_jump[3].tolist()  # P_3: depth 2, parent (2^0-th ancestor) P_2
    ([-1, 0, 0, 2], [2, 2])
    """
    n = px.shape[0]
    pre_par = np.empty(n, dtype=np.int32)
    suf_par = np.empty(n, dtype=np.int32)
    pre_depth = np.empty(n, dtype=np.int32)
    suf_depth = np.empty(n, dtype=np.int32)
    stack = np.empty(n, dtype=np.int64)
    _tree_sweep(px, py, stack, pre_par, pre_depth, True)
    _tree_sweep(px, py, stack, suf_par, suf_depth, False)
    return (
        pre_par,
        _ancestors(pre_par, pre_depth),
        suf_par,
        _ancestors(suf_par, suf_depth),
    )


@jit
def _tree_sweep(px: Points, py: Points, stack: Indices, par: Tree, depth: Tree,
                forward: bool) -> None:  # fmt: skip
    """Parents and depths of the prefix (``forward``) or suffix hull tree, by one sweep."""
    # (the monotone-chain step is written out here and in the other sweeps: a shared inlined
    # helper per point measured 20-40% slower on the whole out-of-bag prediction at 400,000
    # scores)
    n = px.shape[0]
    top = 0
    for i in range(n):
        p = i if forward else n - 1 - i
        while top >= 2:
            i1 = stack[top - 2]
            i2 = stack[top - 1]
            turn = _orient(px[i1], py[i1], px[i2], py[i2], px[p], py[p])
            # left to right the lower hull keeps counter-clockwise turns, right to left
            # clockwise ones
            if turn <= 0 if forward else turn >= 0:
                top -= 1
            else:
                break
        par[p] = stack[top - 1] if top > 0 else -1
        depth[p] = top
        stack[top] = p
        top += 1


@jit
def _ancestors(par: Tree, depth: Tree) -> Tree:
    """The table described in :func:`hull_trees`, built level by level."""
    n = par.shape[0]
    levels = _levels_for(depth.max()) if n > 0 else 0
    jump = np.empty((n, levels + 1), dtype=np.int32)
    for v in range(n):
        jump[v, 0] = depth[v]
    if levels == 0:
        return jump
    for v in range(n):
        jump[v, 1] = v if par[v] < 0 else par[v]
    for t in range(2, levels + 1):
        for v in range(n):
            jump[v, t] = jump[jump[v, t - 1], t - 1]
    return jump


@jit
def _levels_for(depth: Index) -> int:
    """The least t with 2^t >= depth: a window (d, t) then holds the whole path from d."""
    t = 0
    while (1 << t) < depth:
        t += 1
    return t


@jit
def _probe(
    kind: int,
    arr: Indices,
    base: Index,
    step: int,
    lo: Index,
    hi: Index,
    par: Tree,
    jump: Tree,
    d: Index,
    t: Index,
) -> tuple[Index, Index]:
    """The probe edge (left vertex, right vertex) of a window, (-1, -1) when it has one
    vertex, (-2, -2) when its probe ran past the root (the window then shrinks to t - 1)."""
    if kind == 0:
        if lo >= hi:
            return -1, -1
        mid = (lo + hi) // 2
        return arr[base + step * mid], arr[base + step * (mid + 1)]
    if t < 0:
        return -1, -1
    c = d if t == 0 else jump[d, t]
    p = par[c]
    if p < 0:
        return -2, -2
    if kind == 1:
        return p, c
    return c, p


@jit
def _above_at(
    c: Coord, eb: Coord, dxb: Coord, dyb: Coord, ea: Coord, dxa: Coord, dya: Coord
) -> bool | np.bool_:
    """Whether c + eb dyb / dxb >= ea dya / dxa (dxa, dxb > 0, 0 <= dy <= dx): the line of e_B
    on or above that of e_A at x0, with c the height of e_B's start over e_A's, eb and ea the
    offsets of x0 from their starts.

    The integer parts decide unless they leave the sum in [-1, 1); then the remainders (in
    [0, dxb) and [0, dxa)) do, with products of two differences only on integers. On floats
    (the inexact route) the last comparison divides instead.
    """
    nb = eb * dyb
    na = ea * dya
    qb = nb // dxb
    qa = na // dxa
    ci = c // 1
    whole = ci + qb - qa
    if whole >= 1:
        return True
    if whole <= -2:
        return False
    rb = nb - qb * dxb
    ra = na - qa * dxa
    fc = c - ci
    if fc == 0:
        # whole is 0 or -1: c + eb dyb / dxb - ea dya / dxa = whole + rb / dxb - ra / dxa
        return rb * dxa - ra * dxb >= -whole * dxa * dxb
    return (whole + fc) + rb / dxb - ra / dxa >= 0


@jit
def _vertex(kind: int, arr: Indices, base: Index, step: int, lo: Index, d: Index) -> Index:
    return arr[base + step * lo] if kind == 0 else d


@jit
def path_bridge(
    px: Points,
    py: Points,
    lkind: int,
    larr: Indices,
    lbase: Index,
    lstep: int,
    llen: Index,
    lpar: Tree,
    ljump: Tree,
    ld: Index,
    lx: Coord,
    ly: Coord,
    rkind: int,
    rarr: Indices,
    rbase: Index,
    rstep: int,
    rlen: Index,
    rpar: Tree,
    rjump: Tree,
    rd: Index,
    rx: Coord,
    ry: Coord,
) -> tuple[Coord, Coord]:
    """Slope (num, den > 0) of the bridge from chain A (shifted by (lx, ly)) to chain B
    (shifted by (rx, ry)), A strictly left of B.

    A is an array (``lkind`` 0: ``larr[lbase + lstep * i]``, i < ``llen``, left to right) or
    the path of a prefix tree from its vertex ``ld`` (``lkind`` 1); B an array (``rkind`` 0)
    or the path of a suffix tree from ``rd`` (``rkind`` 2). Unused arguments are ignored.

    Examples
    --------
    The bridge from the hull of P_0..P_1 to that of P_2..P_3, as paths of the two trees, is the
    segment P_0 P_2 (slope 1/2), every point on or above its line:

    >>> px, py = np.array([0, 1, 2, 3]), np.array([0, 1, 1, 2])
    >>> pre_par, pre_jump, suf_par, suf_jump = hull_trees(px, py)
    >>> none = np.zeros(1, dtype=np.int64)
    >>> path_bridge(px, py, 1, none, 0, 1, 0, pre_par, pre_jump, 1, 0, 0,
    ...             2, none, 0, 1, 0, suf_par, suf_jump, 2, 0, 0)
    (1, 2)
    """
    llo = 0
    lhi = llen - 1
    lt = _levels_for(ljump[ld, 0]) if lkind != 0 else 0
    rlo = 0
    rhi = rlen - 1
    rt = _levels_for(rjump[rd, 0]) if rkind != 0 else 0
    # x0: the rightmost x of A
    if lkind == 0:
        x0 = px[larr[lbase + lstep * lhi]] + lx
    else:
        x0 = px[ld] + lx
    while True:
        a1, a2 = _probe(lkind, larr, lbase, lstep, llo, lhi, lpar, ljump, ld, lt)
        if a1 == -2:
            lt -= 1
            continue
        b1, b2 = _probe(rkind, rarr, rbase, rstep, rlo, rhi, rpar, rjump, rd, rt)
        if b1 == -2:
            rt -= 1
            continue
        # 1: keep the left part of A, 2: its right part, 3: B's left part, 4: B's right part
        keep = 0
        if a1 < 0 and b1 < 0:
            break
        if b1 < 0:
            b = _vertex(rkind, rarr, rbase, rstep, rlo, rd)
            below = _orient(
                px[a1] + lx, py[a1] + ly, px[a2] + lx, py[a2] + ly, px[b] + rx, py[b] + ry
            )
            keep = 1 if below < 0 else 2
        elif a1 < 0:
            a = _vertex(lkind, larr, lbase, lstep, llo, ld)
            below = _orient(
                px[b1] + rx, py[b1] + ry, px[b2] + rx, py[b2] + ry, px[a] + lx, py[a] + ly
            )
            keep = 4 if below < 0 else 3
        else:
            ax1 = px[a1] + lx
            ay1 = py[a1] + ly
            ax2 = px[a2] + lx
            ay2 = py[a2] + ly
            bx1 = px[b1] + rx
            by1 = py[b1] + ry
            bx2 = px[b2] + rx
            by2 = py[b2] + ry
            dxa = ax2 - ax1
            dya = ay2 - ay1
            dxb = bx2 - bx1
            dyb = by2 - by1
            if _orient(bx1, by1, bx2, by2, ax2, ay2) < 0:
                keep = 4  # A's edge end below B's edge line: s* > beta
            elif dya * dxb >= dyb * dxa:
                keep = 1  # alpha >= beta: B's edge start lies on or below A's edge line
            elif _orient(ax1, ay1, ax2, ay2, bx1, by1) < 0:
                keep = 1
            else:
                keep = 2 if _above_at(by1 - ay1, x0 - bx1, dxb, dyb, x0 - ax1, dxa, dya) else 3
        if keep == 1:
            if lkind == 0:
                lhi = (llo + lhi) // 2
            else:
                ld = a1
                lt -= 1
        elif keep == 2:
            if lkind == 0:
                llo = (llo + lhi) // 2 + 1
            else:
                lt -= 1
        elif keep == 3:
            if rkind == 0:
                rhi = (rlo + rhi) // 2
            else:
                rt -= 1
        else:
            if rkind == 0:
                rlo = (rlo + rhi) // 2 + 1
            else:
                rd = b2
                rt -= 1
    a = _vertex(lkind, larr, lbase, lstep, llo, ld)
    b = _vertex(rkind, rarr, rbase, rstep, rlo, rd)
    return py[b] + ry - py[a] - ly, px[b] + rx - px[a] - lx
