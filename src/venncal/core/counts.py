"""Calibration data as counts: distinct scores with the weight of each class.

Venn-Abers, isotonic regression, histogram binning and Bayesian binning see their calibration
set only through a :class:`CountTable`: the distinct scores, increasing, with the total weight
(the number, when unweighted) of negatives and of positives at each. A table is what a
``GROUP BY score, label`` computes, two tables of disjoint data merge into the table of their
union, and a calibrator fitted on a table is the calibrator fitted on the rows behind it.

Sums of whole-number weights (unit weights, counts) are exact in float64 up to 2^53 in any
order of addition, so tables of such data are bit-identical however the rows are split, ordered
or grouped; sums of fractional weights are exact up to the rounding of each addition.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal.core._weighted import sum_class_weights

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = [
    "CountTable",
    "count_table",
    "table_from_sums",
    "merge_count_tables",
    "round_scores",
    "check_decimals",
]

# weights are rescaled by a power of two (exactly) only when the largest is above 2^960, so
# that sums of up to 2^63 of them cannot overflow; moderate weights are summed as they are
_RESCALE_ABOVE = 960


def table_exponent(largest: float) -> int:
    """The power of two a count table divides weights by, given the largest weight: 0 unless
    that weight is above 2^960 (see :class:`CountTable`'s ``exponent``)."""
    top = int(np.frexp(largest)[1])
    return top - _RESCALE_ABOVE if top > _RESCALE_ABOVE else 0


@dataclass(frozen=True)
class CountTable:
    """Calibration data pooled by distinct score.

    Attributes
    ----------
    values : ndarray of shape (k,)
        The distinct scores, increasing.
    n0, n1 : ndarray of shape (k,)
        Total weight of the negatives and of the positives at each score, in units of
        ``2**exponent`` (positive in at least one class at every score); int64 counts for
        unweighted rows, float64 otherwise.
    n_examples : float
        The number of examples behind the table: rows of positive weight, or the sum of the
        counts of aggregated rows.
    exponent : int
        The weights are ``n0 * 2**exponent`` and ``n1 * 2**exponent`` (0 unless the weights
        are above 2^960).
    """

    values: FloatArray
    n0: AnyArray
    n1: AnyArray
    n_examples: float
    exponent: int = 0

    @property
    def n_distinct(self) -> int:
        """The number of distinct scores."""
        return int(self.values.shape[0])

    def weights(self) -> tuple[AnyArray, AnyArray]:
        """Return ``(n0, n1)`` in the units of the weights (may overflow past 1.8e308)."""
        if not self.exponent:
            return self.n0, self.n1
        with np.errstate(over="ignore"):
            return np.ldexp(self.n0, self.exponent), np.ldexp(self.n1, self.exponent)

    def rows(self, *, absolute: bool = True) -> tuple[FloatArray, npt.NDArray[np.int8], AnyArray]:
        """Return the table as aggregated rows ``(scores, y01, weight)``, negatives first.

        One row per distinct score and class of positive weight, in the units of the weights
        (``absolute=False``: in the table's units, a power of two apart).
        """
        w0, w1 = self.weights() if absolute else (self.n0, self.n1)
        neg, pos = self.n0 > 0, self.n1 > 0
        scores = np.concatenate([self.values[neg], self.values[pos]])
        y01 = np.concatenate([np.zeros(int(neg.sum()), np.int8), np.ones(int(pos.sum()), np.int8)])
        return scores, y01, np.concatenate([w0[neg], w1[pos]])


def count_table(
    scores: ArrayLike,
    y01: ArrayLike,
    sample_weight: ArrayLike | None = None,
    *,
    counts: bool = False,
) -> CountTable:
    """Pool calibration rows into a :class:`CountTable`.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Finite float64 scores (not checked).
    y01 : ndarray of shape (n,)
        Labels 0/1 (not checked).
    sample_weight : ndarray of shape (n,) or None
        Non-negative finite weights (not checked); rows of weight zero are dropped.
    counts : bool, default=False
        Whether the weights are counts of examples (aggregated rows): ``n_examples`` is then
        their sum, not the number of rows.

    Returns
    -------
    CountTable

    Examples
    --------
    >>> t = count_table(np.array([0.3, 0.1, 0.3, 0.3]), np.array([1, 0, 0, 1]))
    >>> t.values, t.n0, t.n1, t.n_examples
    (array([0.1, 0.3]), array([1, 1]), array([0, 2]), 4.0)
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y01)
    if sample_weight is None:
        from venncal.core.venn_abers import _unit_diagram

        u, cw, ca = _unit_diagram(s, y.astype(np.int8, copy=False))
        n1: AnyArray = np.diff(ca.astype(np.int64, copy=False))
        n0: AnyArray = np.diff(cw.astype(np.int64, copy=False)) - n1
        if u.shape[0] < s.shape[0]:  # a view of a buffer of n scores: keep only k
            u = u.copy()
        return CountTable(u, n0, n1, float(s.shape[0]), 0)
    w = np.asarray(sample_weight, dtype=np.float64)
    keep = w > 0
    if not keep.all():
        s, y, w = s[keep], y[keep], w[keep]
    exponent = table_exponent(float(np.max(w))) if w.size else 0
    if exponent:
        w = np.ldexp(w, -exponent)
    u, n0, n1 = sum_class_weights(s, y, w)
    if counts:
        total = float(np.sum(n0) + np.sum(n1))
        n_examples = float(np.ldexp(total, exponent)) if exponent else total
    else:
        n_examples = float(s.shape[0])
    return CountTable(u, n0, n1, n_examples, exponent)


def table_from_sums(
    values: ArrayLike, n0: ArrayLike, n1: ArrayLike, n_examples: float
) -> CountTable:
    """Build a :class:`CountTable` from per-score class sums computed elsewhere.

    The sums (e.g. the result of a distributed ``groupby``) may come in any order and may
    repeat a score (``-0.0`` and ``0.0``, or partial sums): equal scores are pooled, and
    scores without weight dropped.

    Parameters
    ----------
    values : ndarray of shape (m,)
        Finite scores.
    n0, n1 : ndarray of shape (m,)
        Weight (count) of negatives and positives at each score; integer arrays stay integer.
    n_examples : float
        The number of examples behind the sums.

    Returns
    -------
    CountTable

    Examples
    --------
    >>> t = table_from_sums(np.array([0.5, -0.0, 0.0]), np.array([1, 2, 0]), np.array([0, 1, 3]), 7)
    >>> t.values, t.n0, t.n1
    (array([-0. ,  0.5]), array([2, 1]), array([4, 0]))
    """
    values = np.asarray(values, dtype=np.float64)
    n0, n1 = np.asarray(n0), np.asarray(n1)
    keep = (n0 > 0) | (n1 > 0)
    order = np.argsort(values[keep], kind="stable")
    v, n0, n1 = values[keep][order], n0[keep][order], n1[keep][order]
    if v.size == 0:
        return CountTable(v, n0, n1, float(n_examples), 0)
    start = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    if start.size < v.size:
        n0, n1 = np.add.reduceat(n0, start), np.add.reduceat(n1, start)
        v = v[start]
    return CountTable(v, n0, n1, float(n_examples), 0)


def merge_count_tables(a: CountTable, b: CountTable) -> CountTable:
    """Return the table of the union of the data behind two tables.

    Examples
    --------
    >>> a = count_table(np.array([0.1, 0.2]), np.array([0, 1]))
    >>> b = count_table(np.array([0.2, 0.3]), np.array([0, 1]))
    >>> m = merge_count_tables(a, b)
    >>> m.values, m.n0, m.n1
    (array([0.1, 0.2, 0.3]), array([1, 1, 0]), array([0, 1, 1]))
    """
    exponent = max(a.exponent, b.exponent)
    values = np.union1d(a.values, b.values)
    dtype = np.result_type(a.n0, b.n0)
    n0 = np.zeros(values.shape[0], dtype=dtype)
    n1 = np.zeros(values.shape[0], dtype=dtype)
    for t in (a, b):
        idx = np.searchsorted(values, t.values)
        shift = t.exponent - exponent
        n0[idx] += np.ldexp(t.n0, shift) if shift else t.n0
        n1[idx] += np.ldexp(t.n1, shift) if shift else t.n1
    return CountTable(values, n0, n1, a.n_examples + b.n_examples, exponent)


def check_decimals(decimals: object, *, owner: str) -> int | None:
    """Return ``decimals`` (None or an int in [-300, 300]) or raise naming the parameter."""
    if decimals is None:
        return None
    if (
        isinstance(decimals, bool)
        or not isinstance(decimals, numbers.Integral)
        or not -300 <= int(decimals) <= 300
    ):
        raise ValueError(
            f"The 'decimals' parameter of {owner} must be None or an integer in [-300, 300]. "
            f"Got {decimals!r} instead."
        )
    return int(decimals)


def round_scores(scores: FloatArray, decimals: int | None) -> FloatArray:
    """Round scores to ``decimals`` decimal places (half to even), safely at any magnitude.

    ``rint(s * 10**d) / 10**d`` (``rint(s / 10**-d) * 10**-d`` for negative ``d``), as
    ``np.round`` computes it; scores too large to have digits at that place (or whose scaling
    would overflow) are kept as they are. The same function rounds calibration and test scores,
    so equal inputs always give equal rounded scores.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Finite float64 scores.
    decimals : int or None
        Decimal places; None returns ``scores`` unchanged.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> round_scores(np.array([0.12345, 0.5, 1e300, -2.5e-9]), 3)
    array([ 1.23e-001,  5.00e-001,  1.00e+300, -0.00e+000])
    """
    if decimals is None:
        return scores
    s = np.asarray(scores, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if decimals >= 0:
            factor = 10.0**decimals
            scaled = s * factor
            out = np.rint(scaled) / factor
        else:
            factor = 10.0**-decimals
            scaled = s / factor
            out = np.rint(scaled) * factor
    keep = ~(np.abs(scaled) < 2.0**52)  # already whole at this place, or out of range
    if keep.any():
        out[keep] = s[keep]
    return out
