"""Compiled kernels of the fast inductive Venn-Abers predictor.

They assume clean input and do arithmetic only; ``venncal.core.venn_abers`` prepares it.
"""

from __future__ import annotations

import numpy as np

from venncal.core._jit import jit

__all__ = ["merge_sorted_groups", "hull_sweep"]


@jit
def merge_sorted_groups(neg, pos):
    """Merge the sorted scores of negatives and positives into distinct-score groups.

    Returns the distinct scores ``u``, the count ``w`` and the number of positives ``a`` at each.
    """
    n0 = neg.shape[0]
    n1 = pos.shape[0]
    u = np.empty(n0 + n1)
    w = np.empty(n0 + n1, dtype=np.int64)
    a = np.empty(n0 + n1, dtype=np.int64)
    i = 0
    j = 0
    k = 0
    while i < n0 or j < n1:
        if j >= n1 or (i < n0 and neg[i] < pos[j]):
            v = neg[i]
        else:
            v = pos[j]
        c0 = 0
        while i < n0 and neg[i] == v:
            i += 1
            c0 += 1
        c1 = 0
        while j < n1 and pos[j] == v:
            j += 1
            c1 += 1
        u[k] = v
        w[k] = c0 + c1
        a[k] = c1
        k += 1
    return u[:k], w[:k], a[:k]


@jit
def hull_sweep(cw, ca):
    """p1 for every gap by one stack sweep over the cumulative-sum diagram.

    ``cw`` and ``ca`` hold the cumulative weights W_0 = 0, ..., W_k and positives A_0 = 0, ...,
    A_k (integers when unweighted, so every orientation test is exact). Returns ``v1`` of
    length k + 1: v1[g] is the isotonic fit at a test point labelled 1 placed above exactly g
    groups, i.e. the slope of the lower convex hull of
    (L_0, ..., L_g, P_g, ..., P_k), L_j = P_j - (1, 1), over the unit segment L_g -> P_g.
    """
    k = cw.shape[0] - 1
    one = cw[0] - cw[0] + 1  # 1 in the coordinates' own type
    sx = np.empty(k + 2, dtype=cw.dtype)
    sy = np.empty(k + 2, dtype=ca.dtype)
    top = -1
    # lower hull of L_0, P_0, ..., P_k, built right to left; the top is the leftmost vertex
    for j in range(k, -2, -1):
        if j >= 0:
            x = cw[j]
            y = ca[j]
        else:
            x = cw[0] - one
            y = ca[0] - one
        while top >= 1:
            # pop the top while it lies on or above the segment (x, y) -> element under it
            cross = (sx[top - 1] - x) * (sy[top] - y) - (sy[top - 1] - y) * (sx[top] - x)
            if cross >= 0:
                top -= 1
            else:
                break
        top += 1
        sx[top] = x
        sy[top] = y
    v1 = np.empty(k + 1)
    for g in range(k + 1):
        v1[g] = (sy[top - 1] - sy[top]) / (sx[top - 1] - sx[top])
        if g < k:
            x = cw[g + 1] - one
            y = ca[g + 1] - one
            # is L_{g+1} strictly below the line through the top and the next vertex?
            cross = (sx[top - 1] - sx[top]) * (y - sy[top]) - (sy[top - 1] - sy[top]) * (
                x - sx[top]
            )
            if cross < 0:
                top -= 1
                while top >= 1:
                    c2 = (sx[top - 1] - x) * (sy[top] - y) - (sy[top - 1] - y) * (sx[top] - x)
                    if c2 >= 0:
                        top -= 1
                    else:
                        break
                top += 1
                sx[top] = x
                sy[top] = y
    return v1
