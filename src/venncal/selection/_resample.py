"""Paired bootstrap of per-row losses, with intervals that contain their estimates.

Every metric the comparison reports is a function of sums over rows: the log loss and the Brier
score are means of per-row losses, and the binned ECE is the sum over bins of the absolute sum
of ``y - p`` in each bin, divided by ``n``. So a resample needs only the row multiplicities and
the per-row values, never a refit: ``counts @ values``. Above ``MAX_BLOCKS`` rows, rows are
grouped into ``MAX_BLOCKS`` blocks at random and the blocks are resampled; for sums of
independent rows this has the same first two moments as resampling the rows, at a cost that
does not grow with ``n`` (10^6 rows take about as long as 10^4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from venncal._typing import FloatArray, IntArray

__all__ = ["MAX_BLOCKS", "RowValues", "paired_bootstrap", "recentred_interval"]

#: rows above this number are resampled in this many random blocks
MAX_BLOCKS = 10_000

#: resamples drawn at once (bounds the memory of the multiplicity matrix)
_CHUNK_CELLS = 2_000_000


class RowValues:
    """Per-row values of the metrics of one candidate.

    Parameters
    ----------
    means : dict of str to ndarray of shape (n,)
        Metrics that are the mean of a per-row value (log loss, Brier score).
    binned : dict of str to (ndarray of int, ndarray of float, int)
        Metrics that are ``sum over bins |sum of d in the bin|`` / n (the binned ECE): each
        row's bin, its ``d = y - p`` and the number of bins.

    Examples
    --------
    >>> import numpy as np
    >>> v = RowValues({"loss": np.array([0.1, 0.3])}, {"ece": (np.array([0, 1]), np.array([0.2, -0.4]), 2)})
    >>> {m: round(x, 6) for m, x in v.point(2).items()}
    {'loss': 0.2, 'ece': 0.3}
    """

    def __init__(
        self,
        means: Mapping[str, FloatArray],
        binned: Mapping[str, tuple[IntArray, FloatArray, int]],
    ) -> None:
        self.means = dict(means)
        self.binned = dict(binned)

    def point(self, n: int) -> dict[str, float]:
        """The metrics on the data itself."""
        out = {m: float(v.sum() / n) for m, v in self.means.items()}
        for m, (idx, d, n_bins) in self.binned.items():
            out[m] = float(np.abs(np.bincount(idx, d, minlength=n_bins)).sum() / n)
        return out

    def units(self, group=None, n_groups=None):
        """Dense per-unit values: rows (``group=None``) or sums over groups of rows."""
        if group is None:
            means = dict(self.means)
            binned = {}
            for m, (idx, d, n_bins) in self.binned.items():
                dense = np.zeros((idx.shape[0], n_bins))
                dense[np.arange(idx.shape[0]), idx] = d
                binned[m] = dense
            return means, binned
        means = {m: np.bincount(group, v, minlength=n_groups) for m, v in self.means.items()}
        binned = {}
        for m, (idx, d, n_bins) in self.binned.items():
            flat = np.bincount(group * n_bins + idx, d, minlength=n_groups * n_bins)
            binned[m] = flat.reshape(n_groups, n_bins)
        return means, binned


def _evaluate(means, binned, counts, n):
    out = {m: counts @ v / n for m, v in means.items()}
    for m, v in binned.items():
        out[m] = np.abs(counts @ v).sum(axis=1) / n
    return out


def paired_bootstrap(
    values: Mapping[str, RowValues],
    n: int,
    n_boot: int,
    rng: np.random.Generator,
    *,
    progress: Callable[[int], object] | None = None,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, FloatArray]]]:
    """Point estimates and ``n_boot`` paired bootstrap replicates of every candidate's metrics.

    Parameters
    ----------
    values : dict of str to RowValues
        Per-row values of each candidate, all over the same ``n`` rows.
    n : int
        Rows.
    n_boot : int
        Resamples; the same multiplicities serve every candidate (paired).
    rng : numpy.random.Generator
    progress : callable or None
        Called with the number of resamples done after each chunk.

    Returns
    -------
    point : dict of str to dict of str to float
    boot : dict of str to dict of str to ndarray of shape (n_boot,)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> v = {"a": RowValues({"loss": rng.random(50)}, {})}
    >>> point, boot = paired_bootstrap(v, 50, 200, rng)
    >>> boot["a"]["loss"].shape
    (200,)
    """
    point = {name: v.point(n) for name, v in values.items()}
    if n > MAX_BLOCKS:
        group = rng.permutation(n) % MAX_BLOCKS
        dense = {name: v.units(group, MAX_BLOCKS) for name, v in values.items()}
        units = MAX_BLOCKS
    else:
        dense = {name: v.units() for name, v in values.items()}
        units = n
    chunk = max(1, min(n_boot, _CHUNK_CELLS // units))
    parts: dict[str, dict[str, list[FloatArray]]] = {
        name: {m: [] for m in point[name]} for name in dense
    }
    done = 0
    uniform = np.full(units, 1.0 / units)
    while done < n_boot:
        b = min(chunk, n_boot - done)
        counts = rng.multinomial(units, uniform, size=b).astype(np.float64)
        for name, (means, binned) in dense.items():
            for m, x in _evaluate(means, binned, counts, n).items():
                parts[name][m].append(x)
        done += b
        if progress is not None:
            progress(b)
    boot = {name: {m: np.concatenate(x) for m, x in d.items()} for name, d in parts.items()}
    return point, boot


def recentred_interval(
    estimate: float,
    replicates: FloatArray,
    confidence_level: float,
    *,
    lower_bound: float | None = None,
) -> tuple[float, float]:
    """A percentile interval moved so that the replicates' median sits on the estimate.

    A percentile interval need not contain its estimate when the bootstrap distribution is
    shifted: the binned ECE of a resample is biased upward (noise adds to every bin's gap), so
    its replicates can all lie above the estimate. Moving the interval by the median bias
    ``median(replicates) - estimate`` keeps its width and puts the estimate inside it, always
    (the median lies between any two quantiles around it). For a mean of per-row losses the
    median bias is near 0 and the interval is the percentile interval.

    Parameters
    ----------
    estimate : float
    replicates : ndarray
    confidence_level : float
    lower_bound : float or None
        Clip the low end here (0 for a non-negative metric).

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> import numpy as np
    >>> reps = np.linspace(0.02, 0.04, 101)  # all above the estimate
    >>> low, high = recentred_interval(0.01, reps, 0.9)
    >>> low <= 0.01 <= high
    True
    """
    alpha = (1.0 - confidence_level) / 2.0
    low, mid, high = np.quantile(replicates, [alpha, 0.5, 1.0 - alpha])
    shift = mid - estimate
    low, high = float(low - shift), float(high - shift)
    # the quantiles bracket the median; rounding in the subtraction must not undo that
    low, high = min(low, estimate), max(high, estimate)
    if lower_bound is not None:
        low = max(low, lower_bound)
    return low, high
