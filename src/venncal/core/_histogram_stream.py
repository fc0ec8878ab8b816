"""Histogram binning fitted from pooled calibration data read in blocks.

:func:`histogram_fit_blocks` fits the binning of :func:`~venncal.core.histogram.
fit_histogram_counts` from distinct scores with their class counts that a caller reads block
by block, in memory bounded by a block and the bins. Equal-width edges need the smallest and
the largest score; equal-mass edges need the cumulative weight, which one pass carries from
block to block; a second pass sums each bin's weights. Sums of whole-number weights (counts)
are exact in any order, so the binning is the same bit for bit (tested); the caller keeps
fractional weights in memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.core.histogram import _DENSE_BINS, HistogramBinning, _uniform_edge

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import AnyArray, FloatArray

    #: reads groups [start, stop): their scores, negatives' and positives' weights
    BlockReader = Callable[[int, int], tuple[FloatArray, AnyArray, AnyArray]]

__all__ = ["histogram_fit_blocks", "streams"]


def streams(n_bins: int, k: int) -> bool:
    """Whether :func:`histogram_fit_blocks` serves ``n_bins`` bins over ``k`` distinct scores:
    the edges of :func:`~venncal.core.histogram.histogram_edges` are then listed in full."""
    return n_bins <= max(k, _DENSE_BINS)


def _total(read: BlockReader, k: int, block: int) -> float:
    """The total weight of the table, by one pass."""
    total = 0.0
    for start in range(0, k, block):
        _, n0, n1 = read(start, min(start + block, k))
        total += float(np.sum(np.asarray(n0, np.float64) + np.asarray(n1, np.float64)))
    return total


def _quantile_inner(read: BlockReader, k: int, n_bins: int, block: int, total: float) -> FloatArray:
    """The inner edges of equal-mass bins: for each level j / n_bins, the smallest score whose
    cumulative weight reaches it (as ``histogram_edges`` computes them)."""
    targets = total * np.arange(1, n_bins) / n_bins * (1 - 1e-12)
    inner, carry, last = [], 0.0, np.nan
    for start in range(0, k, block):
        values, n0, n1 = read(start, min(start + block, k))
        cw = carry + np.cumsum(np.asarray(n0, np.float64) + np.asarray(n1, np.float64))
        reached = targets[(targets > carry) & (targets <= cw[-1])]  # first reached here
        inner.append(values[np.searchsorted(cw, reached, side="left")])
        carry, last = float(cw[-1]), float(values[-1])
    beyond = targets.shape[0] - sum(a.shape[0] for a in inner)  # past the total by rounding
    return np.concatenate([*inner, np.full(beyond, last)])


def histogram_fit_blocks(
    read: BlockReader,
    k: int,
    *,
    n_bins: int,
    strategy: str,
    alpha: float = 0.0,
    block: int = 1 << 20,
    total_weight: float | None = None,
) -> HistogramBinning:
    """Fit histogram binning on pooled data (whole-number weights) read in blocks.

    Parameters
    ----------
    read : callable
        ``read(start, stop)`` returns the distinct scores ``start`` to ``stop - 1`` (increasing
        over all blocks) and the weights of the negatives and of the positives at each.
    k : int
        The number of distinct scores, at least one.
    n_bins : int
        Number of bins, at most ``max(k, 100_000)`` (:func:`streams`).
    strategy : {"uniform", "quantile"}
        Equal widths over ``[min, max]``, or equal weighted counts.
    alpha : float, default=0.0
        Pseudo-count, as in :func:`~venncal.core.histogram.fit_histogram`.
    block : int, default=2**20
        Distinct scores per call of ``read``.
    total_weight : float, default=None
        The sum of all the weights, when the caller knows it (equal-mass edges then take one
        pass less); a sum the bins do not reach is a ValueError. None: summed here.

    Returns
    -------
    HistogramBinning
        The binning :func:`~venncal.core.histogram.fit_histogram_counts` gives on the same
        data.

    Examples
    --------
    >>> values = np.array([0.1, 0.2, 0.6, 0.9])
    >>> n0, n1 = np.array([2, 1, 0, 1]), np.array([0, 1, 1, 3])
    >>> b = histogram_fit_blocks(lambda i, j: (values[i:j], n0[i:j], n1[i:j]), 4, n_bins=2,
    ...                          strategy="uniform", block=3)
    >>> b.values, b.counts
    (array([0.25, 0.8 ]), array([4., 5.]))
    """
    if k < 1 or not streams(n_bins, k):
        raise ValueError(
            f"histogram_fit_blocks needs k >= 1 and n_bins <= max(k, {_DENSE_BINS}); got "
            f"k={k}, n_bins={n_bins}."
        )
    lo, hi = float(read(0, 1)[0][0]), float(read(k - 1, k)[0][-1])
    if strategy == "uniform":
        edges = _uniform_edge(np.arange(n_bins + 1), lo, hi, n_bins)
    else:
        total = _total(read, k, block) if total_weight is None else float(total_weight)
        edges = np.concatenate([[lo], _quantile_inner(read, k, n_bins, block, total), [hi]])
    edges = np.unique(edges)
    if edges.size == 1:  # every score equal: one bin
        edges = np.array([lo, hi])
    counts = np.zeros(edges.size - 1)
    positives = np.zeros(edges.size - 1)
    for start in range(0, k, block):
        values, n0, n1 = read(start, min(start + block, k))
        idx = np.searchsorted(edges[1:-1], values, side="right")
        n1 = np.asarray(n1, np.float64)
        counts += np.bincount(idx, weights=np.asarray(n0, np.float64) + n1, minlength=counts.size)
        positives += np.bincount(idx, weights=n1, minlength=counts.size)
    if total_weight is not None and counts.sum() != total_weight:
        raise ValueError(f"the blocks hold a weight of {counts.sum()}, not {total_weight}.")
    overall = positives.sum() / counts.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (positives + alpha) / (counts + 2.0 * alpha)
    out = np.where(counts > 0, out, overall)
    return HistogramBinning(edges, out, counts, positives)
