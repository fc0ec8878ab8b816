"""Venn-Abers prediction of many scores (searched from a grid of first guesses) equals the plain search."""

import numpy as np
import pytest

from venncal.core import venn_abers
from venncal.core.venn_abers import ivap_fit


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
        tables.breaks0,
        tables.breaks1,
        np.nextafter(tables.breaks0, np.inf),
        np.nextafter(tables.breaks1, -np.inf),
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
    b = np.sort(rng.normal(size=2000))
    if kind == "outlier":
        b[-1] = 1e300
    elif kind == "repeated":
        b = np.sort(np.round(b, 1))
    elif kind == "extremes":
        b[0], b[-1] = -1.7976931348623157e308, 1.7976931348623157e308
    elif kind == "tiny":
        b = b * 1e-310
    elif kind == "one":
        b = b[:1]
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
