"""Venn-Abers prediction of many scores (searched in sorted order) equals the plain search."""

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
        rng.normal(size=venn_abers._SORTED_SEARCH_MIN),
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
    for m in (venn_abers._SORTED_SEARCH_MIN - 1, venn_abers._SORTED_SEARCH_MIN, t.shape[0]):
        got = tables.predict_unchecked(t[:m])
        want = _plain(tables, t[:m])
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert g.flags.c_contiguous and g.dtype == np.float64
