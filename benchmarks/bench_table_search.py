"""Looking up test scores in a Venn-Abers predictor's two step tables: four exact routes.

Run ``python benchmarks/bench_table_search.py [--n-cal 1000000] [--m 1000000] [--rounds 7]``.
A Venn-Abers predictor is fitted on ``--n-cal`` random scores; ``--m`` random test scores are
then looked up in its two tables (p0 and p1) by

- ``searchsorted``: ``np.searchsorted`` of the unsorted scores, the plain route;
- ``sort first``: one ``argsort``, ordered searches, a scatter back (venncal's numpy route
  before the grid);
- ``numpy grid``: :class:`venncal.core._step_lookup.CellTable` (cells holding their exact
  answer; built once per predictor and reused, as in a stream of chunks);
- ``compiled``: the numba kernel of the same module (a grid of first guesses and a galloping
  search), timed after its first call (its import and cache load are not counted).

All four run in this process on the same arrays, in interleaved rounds; medians of CPU time;
every route is checked to give the same values as ``searchsorted``. Nothing is written to
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import machine_note

from venncal.core import _step_lookup
from venncal.core.venn_abers import ivap_fit


def routes(tables):
    b0, v0, b1, v1 = tables.breaks0, tables.values0, tables.breaks1, tables.values1

    def plain(t):
        return v0[np.searchsorted(b0, t, side="right")], v1[np.searchsorted(b1, t, side="left")]

    def sort_first(t):
        order = np.argsort(t)
        ts = t[order]
        p0, p1 = np.empty_like(t), np.empty_like(t)
        p0[order] = v0[np.searchsorted(b0, ts, side="right")]
        p1[order] = v1[np.searchsorted(b1, ts, side="left")]
        return p0, p1

    cells, table0, table1 = tables._cell_tables  # built once, as the predictor does

    def grid(t):
        k = cells.cells_of(t)
        return (
            cells.lookup(b0, v0, table0, k, t, right=True),
            cells.lookup(b1, v1, table1, k, t, right=False),
        )

    out = {"searchsorted": plain, "sort first": sort_first, "numpy grid": grid}
    if _step_lookup.HAVE_NUMBA:
        _step_lookup.warm()

        def compiled(t):
            return (
                _step_lookup.step_lookup(b0, v0, t, right=True),
                _step_lookup.step_lookup(b1, v1, t, right=False),
            )

        out["compiled"] = compiled
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-cal", type=int, default=10**6)
    parser.add_argument("--m", type=int, default=10**6)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    s = rng.normal(size=args.n_cal)
    y = (rng.random(args.n_cal) < 1 / (1 + np.exp(-2 * s))).astype(np.int8)
    tables = ivap_fit(s, y)
    t = rng.normal(size=args.m)
    start = time.process_time()
    tables._cell_tables  # noqa: B018 (the grid, built on first use)
    build = time.process_time() - start
    funcs = routes(tables)
    want = funcs["searchsorted"](t)
    for name, f in funcs.items():
        for got, ref in zip(f(t), want):
            np.testing.assert_array_equal(got, ref, err_msg=name)
    times = {name: [] for name in funcs}
    for _ in range(args.rounds):
        for name, f in funcs.items():
            start = time.process_time()
            f(t)
            times[name].append(time.process_time() - start)
    print(machine_note())
    print(
        f"{args.m:,} test scores, tables of {tables.breaks0.shape[0]:,} + "
        f"{tables.breaks1.shape[0]:,} breakpoints; grid of {tables._cell_tables[0].cells:,} "
        f"cells built once in {1000 * build:.1f} ms"
    )
    base = float(np.median(times["searchsorted"]))
    print("| route | CPU, ms | searchsorted / route |")
    print("|---|---|---|")
    for name, ts in times.items():
        med = float(np.median(ts))
        print(f"| {name} | {1000 * med:.1f} | {base / med:.1f}x |")


if __name__ == "__main__":
    main()
