"""The merges of (p0, p1): closed forms against their minimax definitions."""

import numpy as np
import pytest

from venncal.core import merge as m


def _regret_grid(p0, p1, loss):
    grid = np.linspace(1e-6, 1 - 1e-6, 200001)
    if loss == "log":
        r0 = -np.log(1 - grid) + np.log(1 - p0)
        r1 = -np.log(grid) + np.log(p1)
    else:
        r0 = grid**2 - p0**2
        r1 = (1 - grid) ** 2 - (1 - p1) ** 2
    return grid[np.argmin(np.maximum(r0, r1))]


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("loss", ["log", "square"])
def test_merge_minimises_worst_regret(seed, loss):
    rng = np.random.default_rng(seed)
    p0, p1 = np.sort(rng.uniform(0.01, 0.99, size=2))
    merged = (m.merge_log if loss == "log" else m.merge_square)(p0, p1)
    assert abs(merged - _regret_grid(p0, p1, loss)) < 1e-4
    assert p0 - 1e-12 <= merged <= p1 + 1e-12


def test_cross_merges_reduce_to_pairwise_for_one_fold():
    rng = np.random.default_rng(0)
    p0, p1 = np.sort(rng.uniform(0.01, 0.99, size=(2, 50)), axis=0)
    np.testing.assert_allclose(m.merge_cross_log(p0[None], p1[None]), m.merge_log(p0, p1))
    np.testing.assert_allclose(m.merge_cross_square(p0[None], p1[None]), m.merge_square(p0, p1))
    np.testing.assert_allclose(m.merge_cross(p0[None], p1[None], "mean"), m.merge_mean(p0, p1))


def test_cross_log_is_geometric_mean_formula():
    rng = np.random.default_rng(1)
    p0 = rng.uniform(0.0, 0.5, size=(5, 30))
    p1 = p0 + rng.uniform(0.01, 0.5, size=(5, 30))
    gm = lambda a: np.prod(a, axis=0) ** (1 / a.shape[0])  # noqa: E731
    expected = gm(p1) / (gm(1 - p0) + gm(p1))
    np.testing.assert_allclose(m.merge_cross_log(p0, p1), expected, rtol=1e-12)


def test_unknown_merge():
    with pytest.raises(ValueError, match="must be one of"):
        m.merge([0.1], [0.2], "max")
