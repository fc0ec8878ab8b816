"""Venn-Abers fitted from pooled data read in blocks: the definition, and the in-memory fit."""

import numpy as np
import pytest

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal.core._ivap_stream import ivap_fit_blocks
from venncal.core.venn_abers import ivap_fit_counts

FIELDS = ("breaks0", "values0", "breaks1", "values1", "n_calibration", "n_distinct")


def _table(rng, k, kind):
    """Distinct scores with counts of negatives and positives (each score holds one at least)."""
    values = np.sort(rng.choice(10 * k + 10, size=k, replace=False) / 8.0 - k)
    top = 1 if kind == "distinct" else 6
    n0, n1 = rng.integers(0, top + 1, k), rng.integers(0, top + 1, k)
    if kind == "ranked":  # positives above negatives: a convex diagram, its hull all vertices
        n1[: k // 2], n0[k // 2 :] = 0, 0
    elif kind == "reversed":
        n0[: k // 2], n1[k // 2 :] = 0, 0
    elif kind == "one class":
        n1[:] = 0
    empty = n0 + n1 == 0
    n0[empty] = 1
    return values, n0, n1


def _fit(values, n0, n1, block):
    weight = n0 + n1
    calls = []

    def read(start, stop):
        calls.append((start, stop))
        return values[start:stop], weight[start:stop], n1[start:stop]

    tables = ivap_fit_blocks(read, values.shape[0], int(weight.sum()), int(n1.sum()), block=block)
    return tables, calls


KINDS = ["random", "distinct", "ranked", "reversed", "one class"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(12))
def test_equals_the_definition_exactly(seed, kind):
    """Every gap and every calibration score: the correctly rounded exact p0 and p1."""
    rng = np.random.default_rng(seed)
    values, n0, n1 = _table(rng, int(rng.integers(1, 14)), kind)
    tables, _ = _fit(values, n0, n1, block=int(rng.integers(1, 5)))
    scores = np.repeat(np.r_[values, values], np.r_[n0, n1])
    y = np.repeat(np.r_[np.zeros_like(n0), np.ones_like(n1)], np.r_[n0, n1])
    t = np.r_[values, (values[:-1] + values[1:]) / 2, values[0] - 1, values[-1] + 1]
    p0, p1 = tables.predict(t)
    q0, q1 = venn_abers_naive(scores, y, t)
    np.testing.assert_array_equal(p0, q0)
    np.testing.assert_array_equal(p1, q1)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(20))
def test_equals_the_in_memory_fit_bit_for_bit(seed, kind):
    rng = np.random.default_rng(100 + seed)
    values, n0, n1 = _table(rng, int(rng.integers(1, 400)), kind)
    want = ivap_fit_counts(values, n0, n1)
    for block in (1, 2, 7, 64, 1000):
        got, calls = _fit(values, n0, n1, block)
        for field in FIELDS:
            np.testing.assert_array_equal(getattr(got, field), getattr(want, field), err_msg=field)
        # three passes, each block read whole, up, down and up again
        up = [(a, min(a + block, len(values))) for a in range(0, len(values), block)]
        assert calls == up + up[::-1] + up


def test_large_counts_and_many_scores():
    """Counts near the int64 geometry's limit (orientation products near 2^62)."""
    rng = np.random.default_rng(7)
    k = 5000
    values = np.sort(rng.random(k))
    n1 = rng.integers(0, 200_000, k)
    n0 = rng.integers(1, 200_000, k)
    want = ivap_fit_counts(values, n0, n1)
    got, _ = _fit(values, n0, n1, 333)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field))


@pytest.mark.parametrize(
    "k,weight,positives,match",
    [
        (0, 0, 0, "k >= 1"),
        (2, 3, 4, "positives <= weight"),
        (2, 2**31, 1, "positives <= weight"),
        (3, 6, 2, "the blocks hold"),
    ],
)
def test_bad_input(k, weight, positives, match):
    values, w, a = np.array([0.1, 0.2, 0.3]), np.array([2, 1, 1]), np.array([1, 0, 1])
    with pytest.raises(ValueError, match=match):
        ivap_fit_blocks(lambda i, j: (values[i:j], w[i:j], a[i:j]), k, weight, positives)
