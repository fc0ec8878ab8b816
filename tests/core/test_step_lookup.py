"""Venn-Abers prediction of many scores (searched from a grid of first guesses) equals the plain search."""

import numpy as np
import pytest

from venncal.core import venn_abers
from venncal.core.venn_abers import ivap_fit


def _at_and_beside_breaks(tables):
    """Scores on the breakpoints of ``tables``, one float above those of p0, below those of p1."""
    return np.r_[
        tables.breaks0,
        tables.breaks1,
        np.nextafter(tables.breaks0, np.inf),
        np.nextafter(tables.breaks1, -np.inf),
    ]


def _plain(tables, t):
    return (
        tables.values0[np.searchsorted(tables.breaks0, t, side="right")],
        tables.values1[np.searchsorted(tables.breaks1, t, side="left")],
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_cal", [50, 3000])
def test_sorted_search_gives_the_plain_values(seed, n_cal):
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=n_cal), 2 + seed % 2)
    y = (rng.random(n_cal) < 1 / (1 + np.exp(-2 * s))).astype(int)
    tables = ivap_fit(s, y)
    # test scores on, just beside and between the breakpoints, repeated, signed zeros
    t = np.r_[
        rng.normal(size=venn_abers._FAST_LOOKUP_MIN),
        _at_and_beside_breaks(tables),
        s,
        -0.0,
        0.0,
        -1e308,
        1e308,
    ]
    rng.shuffle(t)
    for m in (venn_abers._FAST_LOOKUP_MIN - 1, venn_abers._FAST_LOOKUP_MIN, t.shape[0]):
        got = tables.predict_unchecked(t[:m])
        want = _plain(tables, t[:m])
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert g.flags.c_contiguous and g.dtype == np.float64


@pytest.mark.parametrize("kind", ["normal", "outlier", "repeated", "extremes", "tiny", "one"])
@pytest.mark.parametrize("right", [True, False])
def test_step_lookup_equals_searchsorted(kind, right):
    """Exact for any spacing of the breakpoints (the guess only sets where the search starts)."""
    from venncal.core._step_lookup import _lookup, step_lookup

    rng = np.random.default_rng(len(kind))
    b = _breaks(kind, rng)
    v = rng.random(b.shape[0] + 1)
    with np.errstate(over="ignore"):
        t = np.r_[
            rng.normal(size=3000), b, np.nextafter(b, np.inf), np.nextafter(b, -np.inf),
            -0.0, 0.0, -1e308, 1e308, b * 1e-310,
        ]  # fmt: skip
    t = t[np.isfinite(t)]  # test scores are finite
    want = v[np.searchsorted(b, t, side="right" if right else "left")]
    np.testing.assert_array_equal(step_lookup(b, v, t, right=right), want)
    python = getattr(_lookup, "py_func", None)
    if python is not None:  # the kernel's Python original agrees too
        from venncal.core._step_lookup import _grid

        starts, lo, scale = _grid(b)
        out = np.empty(200)
        python(b, v, lo, scale, starts, right, t[:200], out)
        np.testing.assert_array_equal(out, want[:200])


def test_both_routes_agree_in_a_fresh_process():
    """Before numba is loaded lookups sort the scores; after, the compiled search runs."""
    import subprocess
    import sys

    code = """
import sys, numpy as np
from venncal.core import _step_lookup as sl
rng = np.random.default_rng(0)
b = np.sort(np.round(rng.normal(size=3000), 2)); v = rng.random(b.shape[0] + 1)
t = np.r_[rng.normal(size=50000), b, np.nextafter(b, 1.0)]
want = [v[np.searchsorted(b, t, side=s)] for s in ("right", "left")]
first = [sl.step_lookup(b, v, t, right=r) for r in (True, False)]
assert "numba" not in sys.modules
sl.warm()
second = [sl.step_lookup(b, v, t, right=r) for r in (True, False)]
for got in (first, second):
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
print("ok", sl.HAVE_NUMBA and "numba" in sys.modules)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok")


def _naive_search(breaks, t, right):
    """Count of breakpoints <= t (right) or < t, by comparison of every pair."""
    b = np.asarray(breaks)[None, :]
    tt = np.asarray(t)[:, None]
    return ((b <= tt) if right else (b < tt)).sum(axis=1)


def _breaks(kind, rng):
    b = np.sort(rng.normal(size=2000))
    if kind == "outlier":
        b[-1] = 1e300
    elif kind == "repeated":
        b = np.sort(np.round(b, 1))
    elif kind == "extremes":
        b[0], b[-1] = -1.7976931348623157e308, 1.7976931348623157e308
    elif kind == "tiny":
        b = b * 1e-310
    elif kind == "offset":  # a narrow range far from zero: few ulps per cell
        b = 1e6 + b * 1e-7
    elif kind == "clustered":
        b = np.sort(np.r_[b[:1000] * 1e-9, b[1000:]])
    elif kind == "two":
        b = np.array([0.0, 1e-300])
    elif kind == "one":
        b = b[:1]
    return b


@pytest.mark.parametrize(
    "kind", ["normal", "outlier", "repeated", "extremes", "tiny", "offset", "clustered", "two"]
)
@pytest.mark.parametrize("right", [True, False])
def test_cell_table_equals_the_naive_search(kind, right):
    """The numpy grid gives np.searchsorted's index for every score, or says it cannot serve."""
    from venncal.core._step_lookup import CellTable

    rng = np.random.default_rng(len(kind))
    b = _breaks(kind, rng)
    v = rng.random(b.shape[0] + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        t = np.r_[
            rng.normal(size=3000), b, np.nextafter(b, np.inf), np.nextafter(b, -np.inf),
            np.nextafter(np.nextafter(b, np.inf), np.inf), -0.0, 0.0, -1e308, 1e308,
            b * 1e-310, b[0] - 1.0, b[-1] + 1.0, 1e6 + rng.normal(size=200) * 1e-7,
            np.linspace(b[0], b[-1], 5000),
        ]  # fmt: skip
    t = t[np.isfinite(t)]
    want = v[_naive_search(b, t, right)]
    cells = CellTable(b[0], b[-1], b.shape[0])
    if kind in ("extremes", "tiny"):
        assert not cells.is_usable
    if cells.is_usable:
        table = cells.table(b, right=right)
        got = cells.lookup(b, v, table, cells.cells_of(t), t, right=right)
        np.testing.assert_array_equal(got, want)
        # most scores are answered by their cell, not searched
        if kind == "normal":
            assert (table[cells.cells_of(t[:3000])] >= 0).mean() > 0.9
    np.testing.assert_array_equal(step_lookup_numpy(b, v, t, right), want)


def step_lookup_numpy(b, v, t, right):
    from venncal.core import _step_lookup

    original = _step_lookup.use_kernel
    _step_lookup.use_kernel = lambda m: False
    try:
        return _step_lookup.step_lookup(b, v, t, right=right)
    finally:
        _step_lookup.use_kernel = original


@pytest.mark.parametrize("seed", range(3))
def test_venn_abers_numpy_grid_gives_the_plain_values(seed, monkeypatch):
    """IVAPTables answers from its cached numpy grid exactly, and does not pickle the grid."""
    import pickle

    from venncal.core import _step_lookup

    monkeypatch.setattr(_step_lookup, "use_kernel", lambda m: False)
    rng = np.random.default_rng(seed)
    s = rng.normal(size=20000) * 10.0 ** (seed - 1)
    y = (rng.random(s.shape[0]) < 1 / (1 + np.exp(-2 * s))).astype(int)
    tables = ivap_fit(s, y)
    t = np.r_[
        rng.normal(size=venn_abers._FAST_LOOKUP_MIN) * 10.0 ** (seed - 1),
        _at_and_beside_breaks(tables),
        -1e308,
        1e308,
    ]
    rng.shuffle(t)
    for _ in range(2):  # built on first use, then reused
        got = tables.predict_unchecked(t)
        for g, w in zip(got, _plain(tables, t)):
            np.testing.assert_array_equal(g, w)
    assert tables._cell_tables is not None
    copy = pickle.loads(pickle.dumps(tables))
    assert "_cell_tables" not in copy.__dict__
    for g, w in zip(copy.predict_unchecked(t), _plain(tables, t)):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("right", [True, False])
def test_cell_table_property(right):
    """Random breakpoints at random scales and offsets, scores on and beside them."""
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    from venncal.core._step_lookup import CellTable

    @hypothesis.settings(max_examples=150, deadline=None)
    @hypothesis.given(
        st.integers(0, 2**32 - 1),
        st.integers(2, 300),
        st.floats(-300, 300),
        st.floats(-1e12, 1e12),
    )
    def check(seed, n, log_scale, offset):
        rng = np.random.default_rng(seed)
        with np.errstate(over="ignore", under="ignore"):
            b = np.sort(offset + rng.standard_cauchy(size=n) * 10.0**log_scale)
            if not np.isfinite(b).all():
                return
            t = np.r_[b, np.nextafter(b, np.inf), np.nextafter(b, -np.inf)]
            t = np.r_[t, offset + rng.standard_cauchy(size=500) * 10.0**log_scale]
        t = t[np.isfinite(t)]
        v = np.arange(b.shape[0] + 1, dtype=np.float64)
        cells = CellTable(b[0], b[-1], b.shape[0])
        if not cells.is_usable:
            return
        got = cells.lookup(b, v, cells.table(b, right=right), cells.cells_of(t), t, right=right)
        np.testing.assert_array_equal(got, v[_naive_search(b, t, right)])

    check()
