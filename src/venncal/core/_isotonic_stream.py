"""Isotonic regression fitted from pooled calibration data read in blocks.

:func:`isotonic_fit_blocks` fits the calibrator of :func:`~venncal.core.isotonic.fit_isotonic`
from distinct scores with their class counts that a caller reads block by block, in memory
bounded by a block and the blocks of the fit, not by the number of distinct scores. The pool
adjacent violators algorithm reads the values in order and keeps a stack of blocks, so one pass
does it; each block on the stack keeps its first and last score, which is all the step function
needs (:class:`~venncal.core.isotonic.IsotonicStepFunction`). The arithmetic is that of
:func:`~venncal.core.isotonic.fit_isotonic` on the same values, so the step function is the same
bit for bit (tested).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.core.isotonic import IsotonicStepFunction, pava_extend

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import AnyArray, FloatArray

    #: reads groups [start, stop): their scores, weights and weighted positives
    BlockReader = Callable[[int, int], tuple[FloatArray, AnyArray, AnyArray]]

__all__ = ["isotonic_fit_blocks"]


def isotonic_fit_blocks(read: BlockReader, k: int, *, block: int = 1 << 20) -> IsotonicStepFunction:
    """Fit isotonic regression on pooled data read in blocks.

    Parameters
    ----------
    read : callable
        ``read(start, stop)`` returns the distinct scores ``start`` to ``stop - 1`` (increasing
        over all blocks), the positive weight of the examples at each, and the weight of the
        positives among them, as three arrays.
    k : int
        The number of distinct scores, at least one.
    block : int, default=2**20
        Distinct scores per call of ``read``.

    Returns
    -------
    IsotonicStepFunction
        The step function :func:`~venncal.core.isotonic.fit_isotonic` gives on rows that pool
        to these weights.

    Notes
    -----
    ``fit_isotonic`` scales the weights by a power of two before it pools them; a power of two
    changes no rounding of the products, sums and ratios of the pooling (away from the ends of
    the float range), so the weights are used as they are.

    Examples
    --------
    >>> values = np.array([0.1, 0.2, 0.3, 0.4])
    >>> weight, positives = np.array([1, 1, 1, 1]), np.array([0, 1, 0, 1])
    >>> g = isotonic_fit_blocks(lambda i, j: (values[i:j], weight[i:j], positives[i:j]), 4,
    ...                         block=3)
    >>> g.x, g.y
    (array([0.1, 0.2, 0.3, 0.4]), array([0. , 0.5, 0.5, 1. ]))
    """
    if k < 1:
        raise ValueError(f"isotonic_fit_blocks needs k >= 1 distinct scores; got k={k}.")
    size = 1024
    stacks = [np.empty(size) for _ in range(4)]  # mean, weight, first score, last score
    b = -1
    for start in range(0, k, block):
        values, weight, positives = read(start, min(start + block, k))
        weight = np.asarray(weight, dtype=np.float64)
        if b + 1 + values.shape[0] > size:  # room for a block more per value
            size = max(2 * size, b + 1 + values.shape[0])
            grown = [np.empty(size) for _ in range(4)]
            for old, new in zip(stacks, grown):
                new[: b + 1] = old[: b + 1]
            stacks = grown
        y = np.asarray(positives, dtype=np.float64) / weight
        mean, pooled, first, last = stacks
        b = pava_extend(
            y, weight, np.asarray(values, dtype=np.float64), mean, pooled, first, last, b
        )
    mean, _, first, last = (a[: b + 1] for a in stacks)
    # each block's first and last score (one of them for a block of one score)
    two = first != last
    x = np.empty(mean.shape[0] + int(two.sum()))
    at = np.arange(mean.shape[0]) + np.cumsum(two) - two  # where each block's first goes
    x[at], x[at[two] + 1] = first, last[two]
    fitted = np.empty_like(x)
    fitted[at], fitted[at[two] + 1] = mean, mean[two]
    return IsotonicStepFunction(x=x, y=fitted)
