"""Histogram binning fitted from pooled data read in blocks, against the in-memory fit."""

import numpy as np
import pytest

from venncal.core._histogram_stream import histogram_fit_blocks, streams
from venncal.core.histogram import fit_histogram_counts

FIELDS = ("edges", "values", "counts", "positives")


def _table(rng, k, kind):
    values = np.sort(rng.choice(10 * k + 10, size=k, replace=False) / 8.0 - k)
    n0, n1 = rng.integers(0, 6, k), rng.integers(0, 6, k)
    if kind == "large counts":
        n0, n1 = n0 * 1_000_003, n1 * 999_983
    elif kind == "one heavy score":  # quantile levels pile up on one score
        n0[k // 2] = 10_000
    elif kind == "huge range":
        values = np.sort(rng.choice([-1.0, 1.0], k) * 10.0 ** rng.uniform(-300, 307, k))
        values = np.unique(values)
        n0, n1 = n0[: values.size], n1[: values.size]
    empty = n0 + n1 == 0
    n0[empty] = 1
    return values, n0, n1


@pytest.mark.parametrize("kind", ["random", "large counts", "one heavy score", "huge range"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("seed", range(15))
def test_equals_the_in_memory_fit_bit_for_bit(seed, strategy, kind):
    rng = np.random.default_rng(seed)
    values, n0, n1 = _table(rng, int(rng.integers(1, 300)), kind)
    k = values.size
    n_bins = int(rng.choice([1, 2, 7, 10, 50, 2 * k + 3]))
    alpha = float(rng.choice([0.0, 0.5, 2.0]))
    want = fit_histogram_counts(values, n0, n1, n_bins=n_bins, strategy=strategy, alpha=alpha)
    total = float(np.sum(n0 + n1))
    for block, total_weight in ((1, None), (3, total), (64, None), (1000, total)):
        got = histogram_fit_blocks(
            lambda i, j: (values[i:j], n0[i:j], n1[i:j]),
            k,
            n_bins=n_bins,
            strategy=strategy,
            alpha=alpha,
            block=block,
            total_weight=total_weight,
        )
        for field in FIELDS:
            np.testing.assert_array_equal(getattr(got, field), getattr(want, field))


def test_refuses_what_it_does_not_list():
    """Bins past max(k, 100_000) keep only the occupied ones in memory: not served here."""
    assert streams(100_000, 5) and not streams(100_001, 5) and streams(10**6, 10**6)
    one = np.ones(1)
    with pytest.raises(ValueError, match="n_bins <= max"):
        histogram_fit_blocks(lambda i, j: (one, one, one), 1, n_bins=10**6, strategy="uniform")
    with pytest.raises(ValueError, match="the blocks hold a weight of 3.0, not 4.0"):
        histogram_fit_blocks(
            lambda i, j: (one, 2 * one, one), 1, n_bins=3, strategy="quantile", total_weight=4.0
        )
    with pytest.raises(ValueError, match="k >= 1"):
        histogram_fit_blocks(lambda i, j: (one, one, one), 0, n_bins=3, strategy="uniform")
