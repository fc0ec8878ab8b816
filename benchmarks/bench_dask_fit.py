"""Dask fit of Venn-Abers against a plain Dask ``groupby(score).size()`` over the same Parquet.

Writes ``--rows`` calibration rows (a score with ``--distinct`` distinct values and a 0/1
label) as Parquet files of 2.5 x 10^6 rows under ``--data`` (once; reused), starts a
``distributed.LocalCluster`` with 2 worker processes of 1 thread, and times in interleaved
rounds:

* baseline: ``dd.read_parquet(path).groupby("score").size().compute()``;
* venncal: ``venncal.dask.fit(VennAbersCalibrator(), dd.read_parquet(path), ...)``, which
  reads the labels' distinct values, aggregates the class counts per score, and fits the
  table locally.

Reports the median wall time of each, their ratio, and the peak resident memory of the whole
process tree (this process, the nannies and the workers; sampled every 0.1 s) during each.
The fitted predictor is checked against the in-memory fit on a 10^6-row sample first.

Usage::

    python benchmarks/bench_dask_fit.py --rows 100000000 --distinct 100000 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import threading
import time
import warnings
from pathlib import Path

import numpy as np
from _timing import machine_note

CHUNK = 2_500_000


def write_data(path, rows, distinct, seed=0):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.mkdir(parents=True, exist_ok=True)
    done = path / "_complete"
    if done.exists():
        return
    rng = np.random.default_rng(seed)
    for i, start in enumerate(range(0, rows, CHUNK)):
        n = min(CHUNK, rows - start)
        score = np.floor(rng.random(n) * distinct) / distinct
        label = (rng.random(n) < score).astype(np.int8)
        table = pa.table({"score": score, "label": label})
        pq.write_table(table, path / f"part-{i:04d}.parquet")
    done.write_text("ok")


class PeakMemory:
    """Peak of the summed RSS of this process and all its descendants, sampled in a thread."""

    def __init__(self, interval=0.1):
        import psutil

        self._proc = psutil.Process(os.getpid())
        self._interval = interval
        self.peak = 0

    def _rss(self):
        total = 0
        for p in [self._proc, *self._proc.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except Exception:  # noqa: BLE001 - a process may end while sampled
                pass
        return total

    def __enter__(self):
        self._stop = threading.Event()
        self.peak = self._rss()

        def run():
            while not self._stop.wait(self._interval):
                self.peak = max(self.peak, self._rss())

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._rss())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**8)
    parser.add_argument("--distinct", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path("/tmp/venncal-bench-dask"))
    args = parser.parse_args()

    import dask.dataframe as dd
    import distributed

    import venncal.dask
    from venncal import VennAbersCalibrator

    path = args.data / f"rows-{args.rows}-distinct-{args.distinct}"
    t0 = time.perf_counter()
    write_data(path, args.rows, args.distinct)
    print(f"data: {path} ({time.perf_counter() - t0:.0f} s to prepare)")
    print(machine_note())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = distributed.Client(cluster)
    try:
        # correctness first: the Dask fit on the first file equals the in-memory fit
        first = sorted(path.glob("part-*.parquet"))[0]
        sample = dd.read_parquet(first).compute().iloc[:1_000_000]
        mem = VennAbersCalibrator().fit(sample["score"], sample["label"])
        dist = venncal.dask.fit(
            VennAbersCalibrator(),
            dd.from_pandas(sample, npartitions=4),
            score="score",
            label="label",
        )
        probe = np.linspace(-0.1, 1.1, 10_001)
        assert np.array_equal(mem.predict_interval(probe), dist.predict_interval(probe))
        print("check: Dask fit == in-memory fit on a 10^6-row sample (bit for bit)")

        def baseline():
            return dd.read_parquet(path).groupby("score").size().compute()

        def ours():
            frame = dd.read_parquet(path)
            return venncal.dask.fit(VennAbersCalibrator(), frame, score="score", label="label")

        times = {"groupby(score).size()": [], "venncal.dask.fit": []}
        peaks = {k: [] for k in times}
        for r in range(args.rounds):
            for name, func in (("groupby(score).size()", baseline), ("venncal.dask.fit", ours)):
                with PeakMemory() as peak:
                    start = time.perf_counter()
                    result = func()
                    elapsed = time.perf_counter() - start
                times[name].append(elapsed)
                peaks[name].append(peak.peak)
                print(
                    f"round {r + 1} {name}: {elapsed:.2f} s, peak RSS {peak.peak / 2**30:.2f} GiB"
                )
        n_distinct = result.aggregate_.n_distinct
        base = float(np.median(times["groupby(score).size()"]))
        mine = float(np.median(times["venncal.dask.fit"]))
        print(
            f"\nrows {args.rows:,}, distinct scores {n_distinct:,}, "
            f"{len(list(path.glob('part-*.parquet')))} Parquet files, 2 workers x 1 thread"
        )
        for name in times:
            med = float(np.median(times[name]))
            print(
                f"{name:24s} median {med:8.2f} s  ({args.rows / med / 1e6:.1f} M rows/s), "
                f"peak RSS {max(peaks[name]) / 2**30:.2f} GiB"
            )
        print(f"ratio venncal / groupby: {mine / base:.2f}x")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
