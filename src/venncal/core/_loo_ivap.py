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

The hull of a prefix or suffix is the stack of a monotone-chain sweep over g; the hull of any
index range is the union of O(log k) nodes of a segment tree whose nodes hold the hulls of
their ranges (O(k log k) vertices in all). A bridge of two chains is found by a binary search
over one chain of a binary search over the other. p0 is p1 of the mirrored diagram (scores
negated, labels flipped), as in :mod:`venncal.core._ivap_kernels`.

Most queries need no range. Without removal, p1 is the slope of the line through L_a and P_b
(a = left[g] <= g <= b = right[g]: the test object's block holds groups a + 1 .. b), and every
point lies on or above it. An example left out of group q <= a leaves [q, g] holding L_a, so
that bridge is p1 itself; if it is positive, its shift (w, w) along a line of slope 1 lowers
every slope from the points moved, so p1 is unchanged; if it is negative, p1 grows exactly when
a moved point P_i + (w, 0) - (1, 1), i < q, falls below the line, a test of the vertex of the
prefix hull of P_0..P_{q-1} lowest under it. Mirrored, an example left out of group q > b
changes nothing when negative and lowers p1 exactly when a moved point P_j - (w, w), j >= q,
falls below the line. Only the queries whose left-out example lies in the test object's block,
or outside it and moving p1, fold bridges over ranges; in the block, a negative left of the
test object (or a positive right of it) needs only the range of the moved points, since
L_a + (w, 0) (or P_b - (w, w)) lies on or below the line.

Cost: O(l log l) for the tree and the sweeps, O(log l) per query outside the block that leaves
p1 alone, and O(log^2 l log h) per other query (O(log l) tree nodes, a binary search of binary
searches per node, h a node's hull size).

Each value comes out as an exact integer ratio (num, den) on integer coordinates, so the float
the caller forms with one division equals the one the refitting algorithm gives.
"""

from __future__ import annotations

import numpy as np

from venncal.core._jit import jit

__all__ = ["build_hull_tree", "loo_p1", "loo_ivap_predict"]


@jit
def _orient(ox, oy, ax, ay, bx, by):
    """Twice the signed area of (o, a, b): positive for a counter-clockwise turn."""
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@jit
def build_hull_tree(px, py, size):
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
def _tangent(qx, qy, px, py, arr, s, nb, step, tx, ty):
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
def _bridge(px, py, a_arr, a_s, na, a_step, ax, ay, b_arr, b_s, nb, b_step, bx, by):
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
    px,
    py,
    begin,
    count,
    verts,
    size,
    lo,
    hi,
    tx,
    ty,
    c_arr,
    c_s,
    nc,
    c_step,
    cx,
    cy,
    side,
    best_num,
    best_den,
):
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
def _coords(px, py, unit, k, idx):
    """P_idx for idx <= k, L_j = P_j - (unit, unit) for idx = k + 1 + j."""
    if idx <= k:
        return px[idx], py[idx]
    j = idx - k - 1
    return px[j] - unit, py[j] - unit


@jit
def _gap_bridges(px, py, unit, vnum, vden, left, right):
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
def _extreme(px, py, stack, lo, hi, step, vnum, vden):
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
    return stack[lo + step * a]


@jit
def _outside_changes(px, py, unit, gaps, groups, dw, da, vnum, vden, left, right, change):
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
    order = np.argsort(qkey, kind="mergesort")
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
def loo_p1(px, py, unit, gaps, groups, dw, da, num, den, shortcuts=True):
    """p1 = num / den for each query (test above ``gaps[i]`` groups, the example of weight
    ``dw[i]`` and weighted positives ``da[i]`` in group ``groups[i]`` (1-based) left out).

    ``px``, ``py`` are the cumulative-sum diagram P_0..P_k (integers); ``unit`` the test
    object's weight on their scale. ``shortcuts=False`` folds the bridges over both ranges for
    every query (the same values by another route, for tests and benchmarks).
    """
    k = px.shape[0] - 1
    size = 1
    while size < k + 1:
        size *= 2
    begin, count, verts = build_hull_tree(px, py, size)
    vnum = np.empty(k + 1, dtype=np.int64)
    vden = np.empty(k + 1, dtype=np.int64)
    left = np.empty(k + 1, dtype=np.int64)
    right = np.empty(k + 1, dtype=np.int64)
    _gap_bridges(px, py, unit, vnum, vden, left, right)
    m = gaps.shape[0]
    change = np.zeros(m, dtype=np.int8)
    if shortcuts:
        _outside_changes(px, py, unit, gaps, groups, dw, da, vnum, vden, left, right, change)
    else:  # no query is outside the test object's block
        left[:] = -1
        right[:] = k + 1
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
            bn = 0
            bd = 0
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


def loo_ivap_predict(scores, y01, sample_weight, left_out, test_scores, *, shortcuts=True):
    """(p0, p1) of test score i by the inductive Venn-Abers predictor fitted to the calibration
    set without example ``left_out[i]``; None when the weights need float or Python-integer
    geometry (the caller then refits per left-out example).

    Parameters
    ----------
    scores, y01 : ndarrays of shape (l,)
        Clean calibration scores and 0/1 labels.
    sample_weight : ndarray of shape (l,) or None
    left_out : ndarray of shape (m,) of int
        Position of the example to leave out, per query.
    test_scores : ndarray of shape (m,)
    shortcuts : bool, default=True
        Answer the queries whose left-out example lies outside the test object's block from
        the unremoved bridge; False folds bridges over ranges for every query (the same
        values, slower: for tests and benchmarks).

    Returns
    -------
    (p0, p1) : ndarrays of shape (m,), or None

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
    from venncal.core.venn_abers import _diagram

    y = np.asarray(y01).astype(np.int8, copy=False)
    u, cw, ca, unit = _diagram(scores, y, sample_weight)
    if isinstance(cw, list) or cw.dtype.kind != "i":
        return None
    k = u.shape[0]
    px = cw.astype(np.int64)
    py = ca.astype(np.int64)
    if sample_weight is None:
        dw = np.ones(left_out.shape[0], dtype=np.int64)
    else:
        dw = np.asarray(sample_weight)[left_out].astype(np.int64)
    da = dw * y[left_out].astype(np.int64)
    q = np.searchsorted(u, scores[left_out], side="left") + 1
    np.clip(q, 1, k, out=q)  # a left-out weight of zero lies in no group and moves nothing
    q = q.astype(np.int64)
    m = test_scores.shape[0]
    num = np.empty(m, dtype=np.int64)
    den = np.empty(m, dtype=np.int64)
    g1 = np.searchsorted(u, test_scores, side="left").astype(np.int64)
    loo_p1(px, py, int(unit), g1, q, dw, da, num, den, shortcuts)
    p1 = num / den
    # p0: p1 of the mirrored diagram (scores negated, labels flipped), 1 minus its value
    mx = px[k] - px[::-1]
    my = mx - (py[k] - py[::-1])
    g0 = k - np.searchsorted(u, test_scores, side="right").astype(np.int64)
    loo_p1(mx, my, int(unit), g0, k + 1 - q, dw, dw - da, num, den, shortcuts)
    p0 = (den - num) / den
    return p0, p1
