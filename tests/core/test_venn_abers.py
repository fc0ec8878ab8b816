"""The fast inductive Venn-Abers predictor against its definition, and its properties."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal.core import _ivap_kernels
from venncal.core.venn_abers import (
    _FLOAT_MAX_RATIO,
    FLOAT_ROUTE_ATOL,
    _diagram,
    _route,
    ivap_fit,
    ivap_gap_values,
)


def _problem(rng, n, kind):
    if kind == "ties":
        s = rng.integers(0, max(2, n // 4), size=n).astype(float)
    elif kind == "separated":
        y = rng.integers(0, 2, size=n)
        return y * 3.0 + rng.normal(size=n), y
    elif kind == "constant":
        s = np.zeros(n)
    else:
        s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-s + s.mean()))).astype(int)
    return s, y


def _tests_for(rng, s):
    """Test scores: calibration values (ties), gaps, and points outside the range."""
    u = np.unique(s)
    mids = (u[:-1] + u[1:]) / 2 if u.size > 1 else u + 0.5
    t = np.r_[u, mids, u.min() - 1, u.max() + 1, rng.choice(s, 5)]
    return t


KINDS = ["random", "ties", "separated", "constant"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(60))
def test_agrees_with_naive_definition(seed, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    s, y = _problem(rng, n, kind)
    t = _tests_for(rng, s)
    p0, p1 = ivap_fit(s, y).predict(t)
    q0, q1 = venn_abers_naive(s, y, t)
    np.testing.assert_allclose(p0, q0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p1, q1, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_weighted_agrees_with_naive_definition(seed):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(1, 20))
    s, y = _problem(rng, n, "ties" if seed % 2 else "random")
    w = rng.uniform(0.05, 3.0, size=n)
    w[rng.random(n) < 0.2] = 0.0
    if w.sum() == 0:
        w[0] = 1.0
    keep = w > 0
    t = _tests_for(rng, s[keep])
    p0, p1 = ivap_fit(s, y, sample_weight=w).predict(t)
    q0, q1 = venn_abers_naive(s[keep], y[keep], t, sample_weight=w[keep])
    np.testing.assert_allclose(p0, q0, rtol=0, atol=1e-10)
    np.testing.assert_allclose(p1, q1, rtol=0, atol=1e-10)


@pytest.mark.parametrize("seed", range(20))
def test_weight_two_equals_duplicated_row(seed):
    rng = np.random.default_rng(seed)
    s, y = _problem(rng, 40, "ties")
    w = rng.integers(1, 4, size=s.size)
    t = _tests_for(rng, s)
    a0, a1 = ivap_fit(s, y, sample_weight=w).predict(t)
    b0, b1 = ivap_fit(np.repeat(s, w), np.repeat(y, w)).predict(t)
    np.testing.assert_array_equal(a0, b0)
    np.testing.assert_array_equal(a1, b1)
    # a non-integer weight path gives the same up to rounding
    c0, c1 = ivap_fit(s, y, sample_weight=w * 1.0000000001).predict(t)
    np.testing.assert_allclose(c0, a0, atol=1e-8)
    np.testing.assert_allclose(c1, a1, atol=1e-8)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(10))
def test_properties(seed, kind):
    rng = np.random.default_rng(seed)
    s, y = _problem(rng, 300, kind)
    t = np.sort(np.r_[rng.normal(size=500) * 3, s])
    p0, p1 = ivap_fit(s, y).predict(t)
    assert np.all(p0 >= 0) and np.all(p1 <= 1)
    assert np.all(p0 <= p1)
    assert np.all(p0 < 1) and np.all(p1 > 0)
    assert np.all(np.diff(p0) >= 0) and np.all(np.diff(p1) >= 0)
    # invariant to permuting the calibration set
    perm = rng.permutation(s.size)
    r0, r1 = ivap_fit(s[perm], y[perm]).predict(t)
    np.testing.assert_array_equal(p0, r0)
    np.testing.assert_array_equal(p1, r1)


def test_boundary_values():
    rng = np.random.default_rng(0)
    s, y = _problem(rng, 200, "random")
    tables = ivap_fit(s, y)
    p0, p1 = tables.predict([s.min() - 1, s.max() + 1])
    assert p0[0] == 0.0 and p1[1] == 1.0
    v0, v1 = ivap_gap_values(np.bincount(np.zeros(3, int), minlength=1), np.array([1]))
    assert v0[0] == 0 and v1[-1] == 1


@pytest.mark.parametrize("seed", range(5))
def test_compiled_kernels_equal_python(seed):
    rng = np.random.default_rng(seed)
    s, y = _problem(rng, 500, "ties")
    neg, pos = np.sort(s[y == 0]), np.sort(s[y == 1])
    merge = _ivap_kernels.merge_sorted_groups
    outputs = []
    for kernel in (merge, getattr(merge, "py_func", merge)):
        u, cw, ca = np.empty(500), np.empty(501, np.int64), np.empty(501, np.int64)
        k = kernel(neg, pos, u, cw, ca)
        outputs.append((u[:k], cw[: k + 1], ca[: k + 1]))
    for a, b in zip(*outputs):
        np.testing.assert_array_equal(a, b)
    _, cw, ca = outputs[0]
    sweep = _ivap_kernels.hull_sweep
    for mirror in (False, True):
        out_c, out_p = np.empty(cw.size), np.empty(cw.size)
        stacks = [np.empty(cw.size + 1, cw.dtype) for _ in range(4)]
        sweep(cw, ca, stacks[0], stacks[1], out_c, mirror, 1)
        getattr(sweep, "py_func", sweep)(cw, ca, stacks[2], stacks[3], out_p, mirror, 1)
        np.testing.assert_array_equal(out_c, out_p)


@pytest.mark.parametrize(
    "scores, y, match",
    [
        ([0.1, np.nan], [0, 1], "NaN"),
        ([0.1, np.inf], [0, 1], "infinite"),
        ([], [], "empty"),
        ([0.1, 0.2], [0], "Inconsistent lengths"),
        ([[0.1, 0.2], [0.3, 0.4]], [0, 1], "one column"),
    ],
)
def test_bad_input(scores, y, match):
    with pytest.raises(ValueError, match=match):
        ivap_fit(scores, y)


def test_bad_test_scores():
    tables = ivap_fit([0.1, 0.2], [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        tables.predict([np.nan])


def test_thousands_of_small_problems():
    """2,000 small problems with heavy ties, every tie, gap and outside position tested."""
    rng = np.random.default_rng(20141)
    worst = 0.0
    for _ in range(2000):
        n = int(rng.integers(1, 9))
        s = rng.integers(0, 4, size=n).astype(float)
        y = rng.integers(0, 2, size=n)
        t = np.r_[np.arange(-1, 5, 0.5)]
        p0, p1 = ivap_fit(s, y).predict(t)
        q0, q1 = venn_abers_naive(s, y, t)
        worst = max(worst, np.abs(p0 - q0).max(), np.abs(p1 - q1).max())
    assert worst <= 1e-12, worst


# --- any weight vector: equal to the definition (exact reference in fractions) -------------

_weights = st.one_of(
    st.floats(0, 1e308, allow_subnormal=True),
    st.integers(0, 2**63).map(float),
    st.sampled_from([0.0, 1.0, 0.5, 3.0, 2.0**31 - 1, 2.4e15, 1e16, 1e-300, 5e-324, 1e308]),
)


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 1), _weights), min_size=1, max_size=7)
)
def test_any_weights_equal_the_definition(data):
    s = np.array([d[0] for d in data], dtype=float)
    y = np.array([d[1] for d in data])
    w = np.array([d[2] for d in data])
    assume((w > 0).any())
    keep = w > 0
    t = _tests_for(np.random.default_rng(0), s[keep])
    p0, p1 = ivap_fit(s, y, sample_weight=w).predict(t)
    q0, q1 = venn_abers_naive(s[keep], y[keep], t, sample_weight=w[keep])
    if _route(w[keep]) == "float":
        np.testing.assert_allclose(p0, q0, rtol=0, atol=FLOAT_ROUTE_ATOL)
        np.testing.assert_allclose(p1, q1, rtol=0, atol=FLOAT_ROUTE_ATOL)
    else:  # exact geometry: the exact value rounded once
        np.testing.assert_array_equal(p0, q0)
        np.testing.assert_array_equal(p1, q1)
    assert np.all(p0 <= p1) and np.all(np.isfinite(p0)) and np.all(np.isfinite(p1))


@pytest.mark.parametrize(
    "s, w",
    [
        ([0.1, 0.2, 0.3, 0.4], [2**31 - 1] * 4),
        ([0.0, 0.0, 0.0, 1.0], [2**31 - 1] * 4),  # int64 products overflowed
        ([0.1, 0.2, 0.3, 0.4], [1e16] * 4),  # float geometry lost the test object's unit
        ([0.0, 0.0, 1.0, 1.0], [2.4e15] * 4),  # ZeroDivisionError on collapsed coordinates
        ([0.1, 0.2, 0.3, 0.4], [1e308] * 4),  # the total weight overflows float64
    ],
)
def test_large_weights_equal_the_definition(s, w):
    y = [0, 0, 0, 1] if s[0] == s[2] else [0, 1, 0, 1]
    t = [-1.0, 0.0, 0.1, 0.15, 0.25, 0.3, 0.5, 1.0, 2.0]
    p0, p1 = ivap_fit(s, y, sample_weight=w).predict(t)
    q0, q1 = venn_abers_naive(s, y, t, sample_weight=w)
    np.testing.assert_array_equal(p0, q0)
    np.testing.assert_array_equal(p1, q1)


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 1), st.floats(2.0**-20, 1.0)),
        min_size=1,
        max_size=6,
    ),
    scale=st.floats(2.0**-20, 2.0**20),
)
def test_float_route_equals_the_definition(data, scale):
    s = np.array([d[0] for d in data], dtype=float)
    y = np.array([d[1] for d in data])
    w = np.array([d[2] for d in data]) * scale
    assume(_route(w) == "float")
    t = _tests_for(np.random.default_rng(0), s)
    p0, p1 = ivap_fit(s, y, sample_weight=w).predict(t)
    q0, q1 = venn_abers_naive(s, y, t, sample_weight=w)
    np.testing.assert_allclose(p0, q0, rtol=0, atol=FLOAT_ROUTE_ATOL)
    np.testing.assert_allclose(p1, q1, rtol=0, atol=FLOAT_ROUTE_ATOL)


@pytest.mark.parametrize("seed", range(6))
def test_float_route_accuracy_near_its_limit(seed):
    """Float weights with the widest range the float route takes, against the exact value."""
    rng = np.random.default_rng(seed)
    n = 30
    s = rng.integers(0, 12, size=n).astype(float)
    y = rng.integers(0, 2, size=n)
    w = np.exp(rng.uniform(np.log(1e-3), np.log(30.0), size=n))
    w *= 0.9 * _FLOAT_MAX_RATIO / ((w.sum() + 1) / min(1, w.min()))  # just inside the float route
    assert _route(w) == "float"
    t = _tests_for(rng, s)
    p0, p1 = ivap_fit(s, y, sample_weight=w).predict(t)
    q0, q1 = venn_abers_naive(s, y, t, sample_weight=w)
    np.testing.assert_allclose(p0, q0, rtol=0, atol=FLOAT_ROUTE_ATOL)
    np.testing.assert_allclose(p1, q1, rtol=0, atol=FLOAT_ROUTE_ATOL)


def test_integer_gap_values_beyond_int64_products():
    big = 2**40
    v0, v1 = ivap_gap_values(np.array([big, big]), np.array([0, big]))
    np.testing.assert_array_equal(v0, [0.0, 0.0, big / (big + 1)])
    np.testing.assert_array_equal(v1, [1 / (big + 1), 1.0, 1.0])


def test_exact_sweep_equals_compiled_sweep():
    rng = np.random.default_rng(3)
    s, y = _problem(rng, 300, "ties")
    w = rng.integers(1, 5, size=s.size).astype(float)
    a = ivap_fit(s, y, sample_weight=w)
    b = ivap_fit(s, y, sample_weight=w * 2.0**40)  # same geometry up to the test object's weight
    assert a.n_distinct == b.n_distinct
    u, cw, ca, unit = _diagram(s, y, w)
    for mirror in (False, True):
        compiled = np.empty(cw.size)
        stacks = [np.empty(cw.size + 1, cw.dtype) for _ in range(2)]
        _ivap_kernels.hull_sweep(cw, ca, *stacks, compiled, mirror, 1)
        exact = _ivap_kernels.hull_sweep_exact(
            [int(x) for x in cw], [int(x) for x in ca], 1, mirror
        )
        np.testing.assert_array_equal(compiled, exact)
