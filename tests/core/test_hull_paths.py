"""Prefix and suffix hull trees, and bridges between hulls, against their definitions."""

from fractions import Fraction

import numpy as np
import pytest

from venncal.core._hull_paths import hull_trees, path_bridge

NO_ARR = np.zeros(1, dtype=np.int64)
NO_PAR = np.zeros(1, dtype=np.int32)
NO_JUMP = np.zeros((1, 1), dtype=np.int32)


def _lower_hull(points):
    """Indices of the lower hull of points sorted by x (collinear points dropped), naively:
    a point is a vertex when no two others have it on or above their segment."""
    keep = []
    for i, (x, y) in enumerate(points):
        covered = False
        for a in range(len(points)):
            for b in range(len(points)):
                xa, ya = points[a]
                xb, yb = points[b]
                if a == i or b == i or not xa <= x <= xb or xa == xb:
                    continue
                if (y - ya) * (xb - xa) >= (yb - ya) * (x - xa):  # on or above segment ab
                    covered = True
        if not covered:
            keep.append(i)
    return keep


def _bridge(left, right):
    """max over a of min over b of slope(a, b): the definition of the bridge."""
    return max(min(Fraction(by - ay, bx - ax) for bx, by in right) for ax, ay in left)


def _diagram(rng, k, spread):
    w = rng.integers(1, spread + 1, k)
    kind = rng.integers(3)
    if kind == 0:  # labels independent of the order: a random walk
        a = np.where(rng.random(k) < rng.random(), w, 0)
    elif kind == 1:  # increasing frequencies: a convex diagram with long hulls
        a = np.round(w * np.sort(rng.random(k))).astype(np.int64)
    else:  # convex pieces
        a = np.round(w * (np.arange(k) % int(rng.integers(2, 9))) / 8).astype(np.int64)
    px = np.r_[0, np.cumsum(w)].astype(np.int64)
    py = np.r_[0, np.cumsum(a)].astype(np.int64)
    return px, py


def _path(par, v):
    out = [v]
    while par[out[-1]] >= 0:
        out.append(int(par[out[-1]]))
    return out


@pytest.mark.parametrize("seed", range(30))
def test_trees_hold_every_prefix_and_suffix_hull(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 40))
    px, py = _diagram(rng, k, 3)
    pre_par, pre_jump, suf_par, suf_jump = hull_trees(px, py)
    pts = list(zip(px.tolist(), py.tolist()))
    for i in range(k + 1):
        assert _path(pre_par, i)[::-1] == _lower_hull(pts[: i + 1])
        suffix = [j + i for j in _lower_hull(pts[i:])]
        assert _path(suf_par, i) == suffix
    for par, jump in ((pre_par, pre_jump), (suf_par, suf_jump)):
        for v in range(k + 1):
            path = _path(par, v)
            assert jump[v, 0] == len(path) - 1  # depth
            assert 2 ** (jump.shape[1] - 1) >= len(path) - 1
            for t in range(1, jump.shape[1]):
                assert jump[v, t] == path[min(2 ** (t - 1), len(path) - 1)]


def _check(px, py, rng, n_queries):
    k = px.shape[0] - 1
    pre_par, pre_jump, suf_par, suf_jump = hull_trees(px, py)
    pts = list(zip(px.tolist(), py.tolist()))
    for _ in range(n_queries):
        i, j = sorted(int(v) for v in rng.integers(0, k + 1, 2))
        # shift A left-down by (u, v) so it lies strictly left of B, as the callers do
        u = int(rng.integers(1, 4)) if rng.random() < 0.7 else int(rng.integers(1, k + 2))
        v = int(rng.integers(-u, u + 1))
        left = [(x - u, y - v) for x, y in pts[: i + 1]]
        right = pts[j:]
        want = _bridge(left, right)
        hl = np.array(_lower_hull(pts[: i + 1]), dtype=np.int64)
        hr = np.array([j + h for h in _lower_hull(pts[j:])], dtype=np.int64)
        chains_a = [
            (1, NO_ARR, 0, 1, 0, pre_par, pre_jump, i),
            (0, hl, 0, 1, hl.shape[0], NO_PAR, NO_JUMP, 0),
            (0, hl[::-1].copy(), hl.shape[0] - 1, -1, hl.shape[0], NO_PAR, NO_JUMP, 0),
        ]
        chains_b = [
            (2, NO_ARR, 0, 1, 0, suf_par, suf_jump, j),
            (0, hr, 0, 1, hr.shape[0], NO_PAR, NO_JUMP, 0),
            (0, hr[::-1].copy(), hr.shape[0] - 1, -1, hr.shape[0], NO_PAR, NO_JUMP, 0),
        ]
        for a in chains_a:
            for b in chains_b:
                num, den = path_bridge(px, py, *a, -u, -v, *b, 0, 0)
                assert den > 0
                assert Fraction(int(num), int(den)) == want, (i, j, u, v, a[0], b[0])


@pytest.mark.parametrize("seed", range(40))
def test_bridges_equal_the_max_min_slope(seed):
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(1, 70))
    px, py = _diagram(rng, k, int(rng.choice([1, 3, 50])))
    _check(px, py, rng, 25)


@pytest.mark.parametrize("seed", range(6))
def test_bridges_are_exact_at_the_largest_integer_weights(seed):
    # diagrams of total weight near 2^31 (the int64 route's bound): every test must compare
    # without overflow, the one at the separating line included
    rng = np.random.default_rng(200 + seed)
    k = 60
    px, py = _diagram(rng, k, (2**31 - 2) // (k + 2))
    assert px[-1] < 2**31 - 2
    _check(px, py, rng, 40)


@pytest.mark.parametrize("seed", range(10))
def test_the_separating_line_comparison_is_exact(seed):
    from venncal.core._hull_paths import _above_at

    rng = np.random.default_rng(300 + seed)
    big = 2**31 - 2 if seed % 2 else 7  # small values make ties and near-ties common
    for _ in range(2000):
        dxa, dxb = (int(v) for v in rng.integers(1, big, 2))
        dya, dyb = int(rng.integers(0, dxa + 1)), int(rng.integers(0, dxb + 1))
        ea, eb = int(rng.integers(0, big)), -int(rng.integers(1, big))  # x0 - ax1, x0 - bx1
        c = int(rng.integers(-big, big))
        want = c + Fraction(eb * dyb, dxb) >= Fraction(ea * dya, dxa)
        assert _above_at(c, eb, dxb, dyb, ea, dxa, dya) == want


@pytest.mark.parametrize("seed", range(6))
def test_the_separating_line_comparison_on_float_coordinates(seed):
    # float diagrams (fractional weights): right whenever the two sides are not within
    # rounding of each other
    from venncal.core._hull_paths import _above_at

    rng = np.random.default_rng(400 + seed)
    scale = 10.0 ** float(rng.integers(-4, 3))
    for _ in range(2000):
        dxa, dxb = rng.exponential(scale, 2) + 1e-3 * scale
        dya, dyb = dxa * rng.random(), dxb * rng.random()
        ea, eb = rng.exponential(scale * 5), -rng.exponential(scale * 5)
        c = rng.normal(0.0, scale * 3)
        exact = Fraction(c) + Fraction(eb) * Fraction(dyb) / Fraction(dxb)
        exact -= Fraction(ea) * Fraction(dya) / Fraction(dxa)
        if abs(exact) < 1e-9 * scale:
            continue
        assert _above_at(c, eb, dxb, dyb, ea, dxa, dya) == (exact >= 0)
