"""Weighted sums by distinct value: the binning of core and metrics, the count tables and
Venn-Abers' diagram."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from venncal._typing import AnyArray, FloatArray


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


def sum_class_weights(
    s: FloatArray, y01: AnyArray, w: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Distinct sorted scores and the weight of each class at each of them.

    Each class's weights at a score are added in increasing order, over that class's rows
    only, so the sums depend on the rows as a set and not on their order: a distributed fit
    that gathers the rows of a score in another order gets the same sums, bit for bit.

    Parameters
    ----------
    s : ndarray of shape (n,)
        Scores.
    y01 : ndarray of shape (n,)
        Labels 0/1.
    w : ndarray of shape (n,)
        Weights (float64).

    Returns
    -------
    values, n0, n1 : ndarray of shape (k,)
        The distinct scores, increasing, and the weight of class 0 and of class 1 at each
        (0.0 where a class has no row).

    Examples
    --------
    >>> sum_class_weights(np.array([0.3, 0.1, 0.3]), np.array([1, 0, 0]),
    ...                   np.array([0.5, 2.0, 1.0]))
    (array([0.1, 0.3]), array([2., 1.]), array([0. , 0.5]))
    """
    y = y01.astype(bool)
    order = np.lexsort((w, y, s))  # by score, then class, then weight
    s, y, w = s[order], y[order], w[order]
    new_score = np.r_[True, s[1:] != s[:-1]]
    group = np.flatnonzero(new_score | np.r_[True, y[1:] != y[:-1]])
    sums = np.add.reduceat(w, group)
    at = np.cumsum(new_score)[group] - 1  # the distinct score of each (score, class) group
    values = s[new_score]
    n0 = np.zeros(values.shape[0])
    n1 = np.zeros(values.shape[0])
    positive = y[group]
    n1[at[positive]] = sums[positive]
    n0[at[~positive]] = sums[~positive]
    return values, n0, n1
