"""Isotonic regression fitted from pooled data read in blocks, against the in-memory fit."""

import numpy as np
import pytest

from venncal.core._isotonic_stream import isotonic_fit_blocks
from venncal.core.counts import CountTable
from venncal.core.isotonic import fit_isotonic


def _table(rng, k, kind):
    values = np.sort(rng.choice(10 * k + 10, size=k, replace=False) / 8.0 - k)
    n0, n1 = rng.integers(0, 6, k), rng.integers(0, 6, k)
    if kind == "large counts":
        n0, n1 = n0 * 1_000_003, n1 * 999_983
    elif kind == "reversed":  # one block: every value pooled
        n0[: k // 2], n1[k // 2 :] = 0, 0
    elif kind == "ranked":  # no pooling at all
        n1[: k // 2], n0[k // 2 :] = 0, 0
    elif kind == "weights":
        n0, n1 = rng.integers(0, 6, k) * 0.5, rng.integers(0, 6, k) * 0.25
    empty = n0 + n1 == 0
    n0[empty] = 1
    return values, n0, n1


@pytest.mark.parametrize("kind", ["random", "large counts", "reversed", "ranked", "weights"])
@pytest.mark.parametrize("seed", range(25))
def test_equals_the_in_memory_fit_bit_for_bit(seed, kind):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 300))
    values, n0, n1 = _table(rng, k, kind)
    table = CountTable(values, n0, n1, float(np.sum(n0 + n1)), 0)
    s, y, w = table.rows(absolute=False)
    want = fit_isotonic(s, y, sample_weight=w)
    weight = n0 + n1
    for block in (1, 3, 64, 1000):
        got = isotonic_fit_blocks(lambda i, j: (values[i:j], weight[i:j], n1[i:j]), k, block=block)
        np.testing.assert_array_equal(got.x, want.x)
        np.testing.assert_array_equal(got.y, want.y)


def test_the_fit_is_the_least_squares_monotone_fit():
    """An independent check: no monotone step function at the same scores does better."""
    rng = np.random.default_rng(3)
    values, n0, n1 = _table(rng, 40, "random")
    weight = n0 + n1
    g = isotonic_fit_blocks(lambda i, j: (values[i:j], weight[i:j], n1[i:j]), 40, block=7)
    fitted = g.predict(values, rule="interpolate")
    assert np.all(np.diff(fitted) >= 0)
    loss = np.sum(n1 * (1 - fitted) ** 2 + n0 * fitted**2)
    for _ in range(200):  # monotone perturbations never lower the loss
        other = np.maximum.accumulate(np.clip(fitted + rng.normal(0, 0.05, 40), 0, 1))
        assert np.sum(n1 * (1 - other) ** 2 + n0 * other**2) >= loss - 1e-12


def test_no_scores_is_an_error():
    with pytest.raises(ValueError, match="k >= 1"):
        isotonic_fit_blocks(lambda i, j: (np.empty(0), np.empty(0), np.empty(0)), 0)
