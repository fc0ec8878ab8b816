"""ROC AUC by its definition: every (positive, negative) pair, weighted, ties one half."""

from __future__ import annotations


def weighted_pair_auc(y, s, w=None):
    """Sum over pairs (i positive, j negative) of w_i w_j [s_i > s_j] (+ half on ties), over the
    sum of w_i w_j; O(n^2) loops over plain floats."""
    w = [1.0] * len(y) if w is None else [float(v) for v in w]
    good = total = 0.0
    for yi, si, wi in zip(y, s, w, strict=True):
        if yi != 1:
            continue
        for yj, sj, wj in zip(y, s, w, strict=True):
            if yj != 0:
                continue
            total += wi * wj
            good += wi * wj * (1.0 if si > sj else 0.5 if si == sj else 0.0)
    return good / total
