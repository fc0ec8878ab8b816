"""Compiled kernel of the Venn-Abers predictive distribution: the two sweeps at many cuts.

It assumes clean input and does arithmetic only; ``venncal.core.venn_abers_distribution``
prepares it (the exact integer route only: unweighted rows or integer weights).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal.core._ivap_kernels import hull_sweep
from venncal.core._jit import jit

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from venncal._typing import FloatArray, IntArray

    Int64Array = npt.NDArray[np.int64]

__all__ = ["sweep_cuts"]


@jit
def sweep_cuts(
    cw: Int64Array,
    row_value: IntArray,
    label_start: IntArray,
    row_weight: Int64Array,
    done: int,
    positives: Int64Array,
    cuts: IntArray,
    right: IntArray,
    left: IntArray,
    scratch: Int64Array,
    v0: FloatArray,
    v1: FloatArray,
    out0: FloatArray,
    out1: FloatArray,
) -> int:
    """p0 and p1 at given gap positions for each cut of ``cuts`` (increasing).

    ``positives`` holds the weight of the positives at each distinct score once the rows
    ``row_value[:done]`` (those of the labels below the first cut) are counted; each cut adds
    the rows of its labels, builds the cumulative positives and runs the two stack sweeps of
    :func:`~venncal.core._ivap_kernels.hull_sweep` on the integer diagram ``cw``. Row ``j`` of
    ``out0`` receives p0 at the gaps ``right``, row ``j`` of ``out1`` p1 at the gaps ``left``.
    ``scratch`` has room for 3 (k + 2) integers (the cumulative positives and the two hull
    stacks). Returns the rows counted after the last cut, for the next call.
    """
    k = cw.shape[0] - 1
    ca = scratch[: k + 1]
    sx = scratch[k + 2 : 2 * k + 4]
    sy = scratch[2 * k + 4 : 3 * k + 6]
    for j in range(cuts.shape[0]):
        end = label_start[cuts[j] + 1]
        for r in range(done, end):
            positives[row_value[r]] += row_weight[r]
        done = end
        ca[0] = 0
        for g in range(k):
            ca[g + 1] = ca[g] + positives[g]
        hull_sweep(cw, ca, sx, sy, v1, False, 1)
        hull_sweep(cw, ca, sx, sy, v0, True, 1)
        for i in range(right.shape[0]):
            out0[j, i] = v0[right[i]]
        for i in range(left.shape[0]):
            out1[j, i] = v1[left[i]]
    return done
