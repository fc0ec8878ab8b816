"""Inductive Venn-Abers with one calibration example left out, for many queries at once.

Out-of-bag Venn-Abers (Johansson et al. 2018, eqs. 10-11) predicts test object i from the
calibration set without one example z_r(i). Refitting per distinct z_r costs O(l log l) each.
Here every query is answered from one cumulative-sum diagram of the whole calibration set.

Geometry. Let P_0 = (0, 0), ..., P_k be the cumulative-sum diagram of the k distinct
calibration scores (cumulative weight, cumulative weighted positives). For a test score above
exactly g groups, p1 = max_{i <= g} min_{j >= g} slope(P_i - (1, 1), P_j): the value of the
isotonic fit at the test object is the mean of its block, and the min-max formula ranges over
the blocks (i, j] that contain it. Leaving out an example of weight w and label y in group q
moves every P_j with j >= q by -(w, w y). Every left point lies strictly left of every right
point, so max_a min_b slope(a, b) is the slope of the bridge of the two lower hulls, and a
union on the max side (or on the min side) splits into a max (a min) of bridges:

* q <= g: the left set is {P_i + (w, w y) - (1, 1) : i < q} and {P_i - (1, 1) : q <= i <= g},
  the right set the suffix {P_j : j >= g} (after a common shift by (w, w y));
* q > g: the left set is the prefix {P_i - (1, 1) : i <= g}, the right set
  {P_j : g <= j < q} and {P_j - (w, w y) : j >= q}.

Every prefix hull and every suffix hull is a path in one of two trees built by a
monotone-chain sweep (:mod:`venncal.core._hull_paths`), and the bridge of two such paths (or
of a path and the stack of a sweep) is a simultaneous binary search of O(log k) steps. The
sets moved by the removal (the first set for q <= g, the last one for q > g) are a prefix or a
suffix. The other set is an index range,
[q, g] or [g, q - 1]: it splits at the highest bit where its ends differ into a suffix of a
dyadic block [s, mid] and a prefix of the next block [mid + 1, e]; one sweep down from mid and
one up from mid + 1 per block and level holds the hulls of all these pieces in turn, in the
order of the queries' ends, so the range costs two more bridges. p0 is p1 of the mirrored
diagram (scores negated, labels flipped), as in :mod:`venncal.core._ivap_kernels`.

Most queries need no bridge. Without removal, p1 is the slope of the line through L_a and P_b
(a = left[g] <= g <= b = right[g]: the test object's block holds groups a + 1 .. b), and every
point lies on or above it. An example left out of group q <= a leaves [q, g] holding L_a, so
that bridge is p1 itself; if it is positive, its shift (w, w) along a line of slope 1 lowers
every slope from the points moved, so p1 is unchanged; if it is negative, p1 grows exactly when
a moved point P_i + (w, 0) - (1, 1), i < q, falls below the line, a test of the vertex of the
prefix hull of P_0..P_{q-1} lowest under it. Mirrored, an example left out of group q > b
changes nothing when negative and lowers p1 exactly when a moved point P_j - (w, w), j >= q,
falls below the line. Only the queries whose left-out example lies in the test object's block,
or outside it and moving p1, need bridges; in the block, a negative left of the test object
(or a positive right of it) needs only the moved points' bridge, since L_a + (w, 0) (or
P_b - (w, w)) lies on or below the line.

Cost: O(k log k) for the trees, their ancestor tables and the sweeps (O(k) per level, for
the levels that hold a query), O(m + k) to order the queries by counting, and O(log k) per
query, so O((l + m) log l) in all. The earlier route, bridges folded over a segment tree of
hulls (O(log^2 l log h) per query that folds ranges), lives on in the test suite as an
independent route (``tests/_reference/loo_ranges.py``), through the ``kernel`` argument of
:func:`loo_ivap_predict`.

Each value comes out as an exact integer ratio (num, den) on integer coordinates, so the float
the caller forms with one division equals the one the refitting algorithm gives. The kernels
take the coordinates of whichever geometry the inductive predictor picks for the weights:
int64 for unit and integer weights, float64 for fractional ones (as accurate as
:func:`~venncal.core.venn_abers.ivap_fit`'s float route), and Python integers, through the
kernels' plain-Python versions, for weights of extreme range.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.core._hull_paths import _orient, hull_trees, path_bridge
from venncal.core._jit import jit

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy.typing as npt

    from venncal._typing import ArrayLike, FloatArray, IntArray
    from venncal.core._hull_paths import Coord, Index, Indices, Points, Tree
    from venncal.core._jit import Kernel

__all__ = ["loo_p1", "loo_ivap_predict"]

#: Index ranges of fewer groups than this get their hull by a sweep of their own rather than
#: from the blocks of the dyadic split (a constant: the cost stays O(1) per query).
SHORT_RANGE = 32


@jit
def _coords(px: Points, py: Points, unit: Coord, k: int, idx: Index) -> tuple[Coord, Coord]:
    """P_idx for idx <= k, L_j = P_j - (unit, unit) for idx = k + 1 + j."""
    if idx <= k:
        return px[idx], py[idx]
    j = idx - k - 1
    return px[j] - unit, py[j] - unit


@jit
def _gap_bridges(px: Points, py: Points, unit: Coord, vnum: Points, vden: Points,
                 left: Indices, right: Indices) -> None:  # fmt: skip
    """Without removal, p1 = vnum[g] / vden[g] for a test score above exactly g groups, the
    slope of the bridge from L_left[g] to P_right[g] (the test object's block holds groups
    left[g] + 1 .. right[g]); the stack sweep of :func:`~venncal.core._ivap_kernels.hull_sweep`
    on point indices."""
    k = px.shape[0] - 1
    st = np.empty(k + 3, dtype=np.int64)
    top = -1
    for j in range(k, -2, -1):
        idx = j if j >= 0 else k + 1
        x, y = _coords(px, py, unit, k, idx)
        while top >= 1:
            x1, y1 = _coords(px, py, unit, k, st[top - 1])
            x2, y2 = _coords(px, py, unit, k, st[top])
            if (x1 - x) * (y2 - y) - (y1 - y) * (x2 - x) >= 0:
                top -= 1
            else:
                break
        top += 1
        st[top] = idx
    for g in range(k + 1):
        xt, yt = _coords(px, py, unit, k, st[top])
        xn, yn = _coords(px, py, unit, k, st[top - 1])
        vnum[g] = yn - yt
        vden[g] = xn - xt
        left[g] = st[top] - k - 1
        right[g] = st[top - 1]
        if g < k:
            x, y = _coords(px, py, unit, k, k + 2 + g)
            if (xn - xt) * (y - yt) - (yn - yt) * (x - xt) < 0:
                top -= 1
                while top >= 1:
                    x1, y1 = _coords(px, py, unit, k, st[top - 1])
                    x2, y2 = _coords(px, py, unit, k, st[top])
                    if (x1 - x) * (y2 - y) - (y1 - y) * (x2 - x) >= 0:
                        top -= 1
                    else:
                        break
                top += 1
                st[top] = k + 2 + g


@jit
def _extreme(px: Points, py: Points, stack: Indices, lo: Index, hi: Index, step: int,
             vnum: Coord, vden: Coord) -> Index:  # fmt: skip
    """Vertex of the lower chain ``stack[lo], stack[lo + step], ...`` (``hi - lo`` edges,
    left to right) that minimises vden y - vnum x, the lowest under lines of slope vnum / vden."""
    n = (hi - lo) * step
    a = 0
    b = n
    while a < b:
        mid = (a + b) // 2
        i1 = stack[lo + step * mid]
        i2 = stack[lo + step * (mid + 1)]
        if vden * (py[i2] - py[i1]) - vnum * (px[i2] - px[i1]) < 0:
            a = mid + 1
        else:
            b = mid
    vertex: Index = stack[lo + step * a]
    return vertex


@jit
def _outside_changes(px: Points, py: Points, unit: Coord, gaps: Indices, groups: Indices,
                     dw: Points, da: Points, vnum: Points, vden: Points, left: Indices,
                     right: Indices, change: npt.NDArray[np.int8]) -> None:  # fmt: skip
    """Mark the queries whose left-out example lies outside the test object's block, on the side
    where it can move p1 (a negative left of the block, a positive right of it), and does.

    Without removal p1 is the slope of the line through L_left[g] and P_right[g], below every
    point. A negative left of the block (q <= left[g]) moves the points P_i, i < q, of the left
    set by (w, 0), and p1 grows exactly when one of them falls below that line; a positive right
    of the block (q > right[g]) moves the points P_j, j >= q, of the right set by -(w, w), and
    p1 falls exactly when one of them falls below it. Each is a test of the vertex of a prefix
    (or suffix) hull lowest under the line, found by a binary search on the stack of a
    monotone-chain sweep over q.
    """
    k = px.shape[0] - 1
    m = gaps.shape[0]
    qkey = np.full(m, -1, dtype=np.int64)
    for t in range(m):
        g = gaps[t]
        q = groups[t]
        if dw[t] == 0:
            continue
        if q <= left[g] and da[t] < dw[t]:
            qkey[t] = q
        elif q > right[g] and da[t] > 0:
            qkey[t] = q
    order = _bucket_order(qkey, k + 1)
    stack = np.empty(k + 1, dtype=np.int64)
    # left of the block: the prefix hull of P_0 .. P_{q-1}, q increasing
    ptr = 0
    while ptr < m and qkey[order[ptr]] < 0:
        ptr += 1
    first = ptr
    top = 0
    for p in range(k + 1):
        x = px[p]
        y = py[p]
        while top >= 2:
            i1 = stack[top - 2]
            i2 = stack[top - 1]
            if _orient(px[i1], py[i1], px[i2], py[i2], x, y) <= 0:
                top -= 1
            else:
                break
        stack[top] = p
        top += 1
        while ptr < m and qkey[order[ptr]] == p + 1:
            t = order[ptr]
            ptr += 1
            g = gaps[t]
            if groups[t] > g:
                continue
            v = _extreme(px, py, stack, 0, top - 1, 1, vnum[g], vden[g])
            a = left[g]
            b = right[g]
            cx = px[v] + dw[t] - unit
            cy = py[v] + da[t] - unit
            if _orient(px[a] - unit, py[a] - unit, px[b], py[b], cx, cy) < 0:
                change[t] = 1
    # right of the block: the suffix hull of P_q .. P_k, q decreasing
    ptr = m - 1
    top = 0
    for p in range(k, -1, -1):
        x = px[p]
        y = py[p]
        while top >= 2:
            i1 = stack[top - 2]
            i2 = stack[top - 1]
            if _orient(px[i1], py[i1], px[i2], py[i2], x, y) >= 0:
                top -= 1
            else:
                break
        stack[top] = p
        top += 1
        while ptr >= first and qkey[order[ptr]] == p:
            t = order[ptr]
            ptr -= 1
            g = gaps[t]
            if groups[t] <= g:
                continue
            # the stack lists the hull right to left: walk it from its top
            v = _extreme(px, py, stack, top - 1, 0, -1, vnum[g], vden[g])
            a = left[g]
            b = right[g]
            cx = px[v] - dw[t]
            cy = py[v] - da[t]
            if _orient(px[a] - unit, py[a] - unit, px[b], py[b], cx, cy) < 0:
                change[t] = 1


@jit
def _bucket_order(keys: Indices, nb: int) -> Indices:
    """A stable order of ``keys`` (integers in -1 .. nb - 1) by counting, in O(len + nb)."""
    count = np.zeros(nb + 2, dtype=np.int64)
    for key in keys:
        count[key + 2] += 1
    for b in range(1, nb + 2):
        count[b] += count[b - 1]
    order = np.empty(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        b = keys[i] + 1
        order[count[b]] = i
        count[b] += 1
    return order


@jit
def _fold(num: Points, den: Points, t: Index, n2: Coord, d2: Coord, side: int) -> None:
    """num[t] / den[t] becomes the max (side 0) or min (side 1) of itself and n2 / d2; a zero
    den[t] holds no value yet."""
    if den[t] == 0 or (n2 * den[t] > num[t] * d2 if side == 0 else n2 * den[t] < num[t] * d2):
        num[t] = n2
        den[t] = d2


@jit
def _range_part(px: Points, py: Points, unit: Coord, arr: Indices, base: Index, step: int,
                n: Index, t: Index, g: Index, need: int, num: Points, den: Points,
                pre_par: Tree, pre_jump: Tree, suf_par: Tree, suf_jump: Tree, no_par: Tree,
                no_jump: Tree) -> None:  # fmt: skip
    """Fold the bridge of a piece of a query's range (the chain ``arr[base + step * i]``,
    i < n) into its value: L-points against the suffix from g (max), or P-points against the
    prefix hull up to g, shifted to L (min)."""
    if need == 1:
        n2, d2 = path_bridge(
            px, py, 0, arr, base, step, n, no_par, no_jump, 0, -unit, -unit,
            2, arr, 0, 1, 0, suf_par, suf_jump, g, 0, 0,
        )  # fmt: skip
        _fold(num, den, t, n2, d2, 0)
    else:
        n2, d2 = path_bridge(
            px, py, 1, arr, 0, 1, 0, pre_par, pre_jump, g, -unit, -unit,
            0, arr, base, step, n, no_par, no_jump, 0, 0, 0,
        )  # fmt: skip
        _fold(num, den, t, n2, d2, 1)


@jit
def _loo_paths(px: Points, py: Points, unit: Coord, gaps: Indices, groups: Indices, dw: Points,
               da: Points, num: Points, den: Points, vnum: Points, vden: Points, left: Indices,
               right: Indices, change: npt.NDArray[np.int8]) -> None:  # fmt: skip
    """p1 = num / den for each query through the prefix and suffix hull trees, O(log k) each.

    A query needs the bridges of at most three pairs of hulls: a prefix hull against a suffix
    hull (the points the removal moves against the other side: a path of one tree against the
    stack of a sweep over the gaps, which holds the other hull when the query's turn comes),
    and the hull of an index range [q, g] (or [g, q - 1]) against the suffix hull from g (the
    prefix hull up to g). Such a range splits at the highest bit where its ends differ into
    a suffix of a left block [s, mid] and a prefix of a right block [mid + 1, e] of an aligned
    dyadic partition; per level, one sweep down from mid and one up from mid + 1 of each block
    that holds a query end has the hulls of all those pieces on its stack, in query order:
    O(k) per level, O(k log k) in all.
    """
    k = px.shape[0] - 1
    pre_par, pre_jump, suf_par, suf_jump = hull_trees(px, py)
    no_arr = np.zeros(1, dtype=np.int64)
    no_par = np.zeros(1, dtype=np.int32)
    no_jump = np.zeros((1, 1), dtype=np.int32)
    m = gaps.shape[0]
    need = np.zeros(m, dtype=np.int8)
    # in the order of the test objects' gaps: neighbouring queries share their hull paths
    by_gap = _bucket_order(gaps, k + 1)
    sweep = np.empty(k + 1, dtype=np.int64)
    # q <= g, g decreasing: the sweep's stack is the suffix hull from g, read from its top
    top = 0
    p = k
    for r in range(m - 1, -1, -1):
        t = by_gap[r]
        g = gaps[t]
        q = groups[t]
        if q > g:
            continue
        while p >= g:
            while top >= 2:
                i1 = sweep[top - 2]
                i2 = sweep[top - 1]
                if _orient(px[i1], py[i1], px[i2], py[i2], px[p], py[p]) >= 0:
                    top -= 1
                else:
                    break
            sweep[top] = p
            top += 1
            p -= 1
        num[t] = vnum[g]
        den[t] = vden[g]
        if dw[t] == 0 or (q <= left[g] and (da[t] == dw[t] or change[t] == 0)):
            continue
        if q > left[g]:  # (else [q, g] holds the block's left end: that bridge is p1 itself)
            den[t] = 0
        # the moved points P_0..P_q-1 + (w, w y) - (1, 1) against the suffix from g
        n2, d2 = path_bridge(
            px, py, 1, no_arr, 0, 1, 0, pre_par, pre_jump, q - 1, dw[t] - unit,
            da[t] - unit, 0, sweep, top - 1, -1, top, no_par, no_jump, 0, 0, 0,
        )  # fmt: skip
        _fold(num, den, t, n2, d2, 0)
        # a negative in the block: L_left + (w, 0) lies below the unremoved line, so the
        # moved points' bridge exceeds p1, and the bridge from [q, g] is at most p1
        if q > left[g] and da[t] > 0:
            need[t] = 1
    # q > g, g increasing: the sweep's stack is the prefix hull up to g
    top = 0
    p = 0
    for r in range(m):
        t = by_gap[r]
        g = gaps[t]
        q = groups[t]
        if q <= g:
            continue
        while p <= g:
            while top >= 2:
                i1 = sweep[top - 2]
                i2 = sweep[top - 1]
                if _orient(px[i1], py[i1], px[i2], py[i2], px[p], py[p]) <= 0:
                    top -= 1
                else:
                    break
            sweep[top] = p
            top += 1
            p += 1
        num[t] = vnum[g]
        den[t] = vden[g]
        if dw[t] == 0 or (q > right[g] and (da[t] == 0 or change[t] == 0)):
            continue
        if q <= right[g]:  # (else [g, q - 1] holds the block's right end: that bridge is p1)
            den[t] = 0
            if da[t] < dw[t]:
                # (a positive in the block needs no range: P_right - (w, w) lies on or below
                # the unremoved line, whose slope is at most 1, so the moved points' bridge is
                # at most p1, and the range's bridge at least p1)
                need[t] = 2
        n2, d2 = path_bridge(
            px, py, 0, sweep, 0, 1, top, no_par, no_jump, 0, -unit, -unit,
            2, no_arr, 0, 1, 0, suf_par, suf_jump, q, -dw[t], -da[t],
        )  # fmt: skip
        _fold(num, den, t, n2, d2, 1)
    # the range [lo, hi] of each query that needs one, split at the highest differing bit
    levels = 1
    while (1 << levels) <= k:
        levels += 1
    n_tasks = 0
    for t in range(m):
        n_tasks += 2 if need[t] != 0 else 0
    pos = np.empty(n_tasks, dtype=np.int64)
    lvl = np.empty(n_tasks, dtype=np.int64)
    owner = np.empty(n_tasks, dtype=np.int64)
    short = np.empty(SHORT_RANGE, dtype=np.int64)
    n_tasks = 0
    for t in range(m):
        if need[t] == 0:
            continue
        g = gaps[t]
        q = groups[t]
        lo, hi = (q, g) if need[t] == 1 else (g, q - 1)
        if hi - lo < SHORT_RANGE:  # a short range: its hull by one sweep, in O(1)
            top = 0
            for p in range(lo, hi + 1):
                while top >= 2 and _orient(
                    px[short[top - 2]], py[short[top - 2]], px[short[top - 1]],
                    py[short[top - 1]], px[p], py[p],
                ) <= 0:  # fmt: skip
                    top -= 1
                short[top] = p
                top += 1
            _range_part(px, py, unit, short, 0, 1, top, t, g, need[t], num, den, pre_par,
                        pre_jump, suf_par, suf_jump, no_par, no_jump)  # fmt: skip
            continue
        h = 0
        while (lo ^ hi) >> (h + 1):
            h += 1
        for end in (lo, hi):
            pos[n_tasks] = end
            lvl[n_tasks] = h
            owner[n_tasks] = t
            n_tasks += 1
    # by level, then position (two stable counting sorts)
    order = _bucket_order(pos[:n_tasks], k + 1)
    order = order[_bucket_order(lvl[order], levels)]
    stack = np.empty(k + 1, dtype=np.int64)
    i = 0
    while i < n_tasks:
        # one block pair: the tasks of level h whose positions lie in [s, s + 2^(h+1))
        h = lvl[order[i]]
        s = pos[order[i]] >> (h + 1) << (h + 1)
        mid = s + (1 << h) - 1
        j = i
        while j < n_tasks and lvl[order[j]] == h and pos[order[j]] < s + (2 << h):
            j += 1
        split = i
        while split < j and pos[order[split]] <= mid:
            split += 1
        # the left block, swept down from mid: the stack is the hull of P_pos..P_mid
        top = 0
        p = mid
        for r in range(split - 1, i - 1, -1):
            while p >= pos[order[r]]:
                while top >= 2 and _orient(
                    px[stack[top - 2]], py[stack[top - 2]], px[stack[top - 1]],
                    py[stack[top - 1]], px[p], py[p],
                ) >= 0:  # fmt: skip
                    top -= 1
                stack[top] = p
                top += 1
                p -= 1
            t = owner[order[r]]
            _range_part(px, py, unit, stack, top - 1, -1, top, t, gaps[t], need[t], num, den,
                        pre_par, pre_jump, suf_par, suf_jump, no_par, no_jump)  # fmt: skip
        # the right block, swept up from mid + 1: the stack is the hull of P_mid+1..P_pos
        top = 0
        p = mid + 1
        for r in range(split, j):
            while p <= pos[order[r]]:
                while top >= 2 and _orient(
                    px[stack[top - 2]], py[stack[top - 2]], px[stack[top - 1]],
                    py[stack[top - 1]], px[p], py[p],
                ) <= 0:  # fmt: skip
                    top -= 1
                stack[top] = p
                top += 1
                p += 1
            t = owner[order[r]]
            _range_part(px, py, unit, stack, 0, 1, top, t, gaps[t], need[t], num, den,
                        pre_par, pre_jump, suf_par, suf_jump, no_par, no_jump)  # fmt: skip
        i = j


@jit
def _bridges(px: Points, py: Points, unit: Coord, gaps: Indices, groups: Indices, dw: Points,
             da: Points, outside: bool
             ) -> tuple[Points, Points, Indices, Indices, npt.NDArray[np.int8]]:  # fmt: skip
    """The gap bridges and their ranges, and, with ``outside``, the marks of the queries whose
    left-out example lies outside the test object's block (without: no query is outside)."""
    k = px.shape[0] - 1
    vnum = np.empty_like(px)
    vden = np.empty_like(px)
    left = np.empty(k + 1, dtype=np.int64)
    right = np.empty(k + 1, dtype=np.int64)
    _gap_bridges(px, py, unit, vnum, vden, left, right)
    change = np.zeros(gaps.shape[0], dtype=np.int8)
    if outside:
        _outside_changes(px, py, unit, gaps, groups, dw, da, vnum, vden, left, right, change)
    else:
        left[:] = -1
        right[:] = k + 1
    return vnum, vden, left, right, change


@jit
def loo_p1(px: Points, py: Points, unit: Coord, gaps: Indices, groups: Indices, dw: Points,
           da: Points, num: Points, den: Points) -> None:  # fmt: skip
    """p1 = num / den for each query (test above ``gaps[i]`` groups, the example of weight
    ``dw[i]`` and weighted positives ``da[i]`` in group ``groups[i]`` (1-based) left out),
    answered through the prefix and suffix hull trees.

    ``px``, ``py`` are the cumulative-sum diagram P_0..P_k (int64, float64, or Python integers
    in the plain-Python version); ``unit`` the test object's weight on their scale.
    """
    vnum, vden, left, right, change = _bridges(px, py, unit, gaps, groups, dw, da, True)
    _loo_paths(px, py, unit, gaps, groups, dw, da, num, den, vnum, vden, left, right, change)


def loo_ivap_predict(
    scores: FloatArray,
    y01: ArrayLike,
    sample_weight: FloatArray | None,
    left_out: IntArray,
    test_scores: FloatArray,
    *,
    kernel: Kernel[..., None] | None = None,
    route: tuple[bool, ...] = (),
) -> tuple[FloatArray, FloatArray]:
    """(p0, p1) of test score i by the inductive Venn-Abers predictor fitted to the calibration
    set without example ``left_out[i]``.

    Unit and integer weights give exact values (the refit's, bit for bit); other weights the
    geometry the inductive predictor (:func:`~venncal.core.venn_abers.ivap_fit`) picks for
    them: float coordinates, within about 8 eps (W + 1) / min(1, smallest weight) of the exact
    values (W the total weight), or for weights of more extreme range Python integers, exact
    again, through the kernels' plain-Python versions (the same O((l + m) log l) steps, each
    some hundred times slower).

    Parameters
    ----------
    scores, y01 : ndarrays of shape (l,)
        Clean calibration scores and 0/1 labels.
    sample_weight : ndarray of shape (l,) or None
    left_out : ndarray of shape (m,) of int
        Position of the example to leave out, per query.
    test_scores : ndarray of shape (m,)
    kernel : Kernel or None, default=None
        The p1 kernel, called as ``kernel(px, py, unit, gaps, groups, dw, da, num, den,
        *route)``: None is :func:`loo_p1`, which answers each query in O(log l) through the
        prefix and suffix hull trees. The tests and benchmarks pass other routes to the same
        values here (``tests/_reference/loo_ranges.py``).
    route : tuple of bool, default=()
        Extra arguments of ``kernel``.

    Returns
    -------
    (p0, p1) : ndarrays of shape (m,)

    Examples
    --------
    Leaving out example 3 (score 0.4, positive) is refitting on the first three:

    >>> from venncal.core.venn_abers import ivap_fit
    >>> s, y = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0, 1, 0, 1])
    >>> p0, p1 = loo_ivap_predict(s, y, None, np.array([3]), np.array([0.25]))
    >>> ref = ivap_fit(s[:3], y[:3]).predict([0.25])
    >>> bool(p0[0] == ref[0][0] and p1[0] == ref[1][0])
    True
    """
    from venncal.core._step_lookup import step_lookup
    from venncal.core.venn_abers import _diagram

    y = np.asarray(y01).astype(np.int8, copy=False)
    u, cw, ca, unit = _diagram(scores, y, sample_weight)
    k = u.shape[0]
    kind: type
    if kernel is None:
        kernel = loo_p1
    p1_kernel: Callable[..., None]
    if isinstance(cw, list):
        # weights of extreme range: Python integers (the weights times a power of two, unit),
        # through the kernels' plain-Python versions
        kind, p1_kernel = object, kernel.python
        px = np.array(cw, dtype=object)
        py = np.array(ca, dtype=object)
        ratios = (float(v).as_integer_ratio() for v in np.asarray(sample_weight)[left_out])
        dw = np.array([a * (unit // b) for a, b in ratios], dtype=object)
        da = np.where(y[left_out] == 1, dw, 0).astype(object)
        unit = int(unit)
    else:
        # integer coordinates (unit or integer weights): exact; float ones: as accurate as the
        # inductive predictor's float geometry
        kind, p1_kernel = (np.int64 if cw.dtype.kind == "i" else np.float64), kernel
        assert not isinstance(ca, list)  # cw and ca take the same route
        px = cw.astype(kind)
        py = ca.astype(kind)
        if sample_weight is None:
            dw = np.ones(left_out.shape[0], dtype=kind)
        else:
            dw = np.asarray(sample_weight)[left_out].astype(kind)
        da = dw * y[left_out].astype(kind)
        unit = kind(unit)
    index = np.arange(k + 1, dtype=np.int64)  # step_lookup(u, index, t) is np.searchsorted
    q = step_lookup(u, index, np.asarray(scores, dtype=np.float64)[left_out], right=False) + 1
    np.clip(q, 1, k, out=q)  # a left-out weight of zero lies in no group and moves nothing
    m = test_scores.shape[0]
    num = np.empty(m, dtype=kind)
    den = np.empty(m, dtype=kind)
    test_scores = np.asarray(test_scores, dtype=np.float64)
    g1 = step_lookup(u, index, test_scores, right=False)
    p1_kernel(px, py, unit, g1, q, dw, da, num, den, *route)
    p1 = (num / den).astype(np.float64)
    # p0: p1 of the mirrored diagram (scores negated, labels flipped), 1 minus its value
    mx = px[k] - px[::-1]
    my = mx - (py[k] - py[::-1])
    # the groups at or below each test score: one more than g1 where it equals a score
    g0 = k - g1 - (u[np.minimum(g1, k - 1)] == test_scores)
    p1_kernel(mx, my, unit, g0, k + 1 - q, dw, dw - da, num, den, *route)
    p0 = ((den - num) / den).astype(np.float64)
    return p0, p1
