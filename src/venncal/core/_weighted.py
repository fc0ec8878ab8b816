"""Weighted cumulative shares of sorted values, shared by the binning of core and metrics."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from venncal._typing import FloatArray


def distinct_cumulative_share(
    values: FloatArray, weights: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Distinct sorted values and the cumulative share of the weight at each of them.

    Returns ``u``, the distinct values in increasing order, and ``cum``, where ``cum[k]`` is
    the total weight of the values at most ``u[k]`` divided by the total weight (so
    ``cum[-1] == 1``). Tied values are pooled, so duplicating a row equals doubling its weight.

    Examples
    --------
    >>> distinct_cumulative_share(np.array([0.3, 0.1, 0.3]), np.array([1.0, 2.0, 1.0]))
    (array([0.1, 0.3]), array([0.5, 1. ]))
    """
    order = np.argsort(values, kind="stable")
    v = values[order]
    start = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    u = v[start]
    cum = np.cumsum(np.add.reduceat(weights[order], start))
    cum /= cum[-1]
    return u, cum
