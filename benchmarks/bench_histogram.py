"""Speed of ``HistogramCalibrator(strategy="uniform")``, fit and predict, against numpy.

Run ``python benchmarks/bench_histogram.py [--quick] [--no-write]``. It fits the calibrator
(10 equal-width bins) on n distinct uniform scores with labels drawn from them and predicts the
same n scores, against numpy's floor for the same work: ``np.histogram`` of the counts and of
the positives over 10 equal-width bins and ``np.digitize`` of the scores into the bins. CPU
time of this process, one call of each per round, rounds interleaved, medians reported, ratio
the median of the per-round ratios. Writes the ``## Histogram binning`` section of BENCHMARKS.md
unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import interleaved_times, machine_note, report  # noqa: E402


def bench(n, rounds):
    from venncal import HistogramCalibrator

    rng = np.random.default_rng(n)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(np.int64)

    def ours():
        return HistogramCalibrator(n_bins=10).fit(s, y).predict_proba(s)[:, 1]

    def floor():
        counts, edges = np.histogram(s, bins=10)
        positives, _ = np.histogram(s, bins=10, weights=y)
        idx = np.clip(np.digitize(s, edges[1:-1]), 0, 9)
        return (positives / counts)[idx]

    if not np.allclose(ours(), floor(), rtol=1e-12):
        raise AssertionError("the calibrator and numpy's binning disagree")
    times = interleaved_times({"venncal": ours, "numpy": floor}, rounds, clock=time.process_time)
    row = {k: float(np.median(v)) for k, v in times.items()}
    row["ratio"] = float(np.median(np.array(times["venncal"]) / np.array(times["numpy"])))
    print(f"n={n:,}: " + ", ".join(f"{k} {v:.4g}" for k, v in row.items()), flush=True)
    return n, row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 and 10^6 only")
    parser.add_argument("--no-write", action="store_true", help="do not update BENCHMARKS.md")
    args = parser.parse_args(argv)
    sizes = (10**5, 10**6) if args.quick else (10**5, 10**6, 10**7)
    rows = [bench(n, 15 if n <= 10**6 else 5) for n in sizes]
    lines = [
        f"`python benchmarks/bench_histogram.py` ({machine_note()}; the 2 cores are shared with "
        "other jobs). `HistogramCalibrator(n_bins=10)` fit on n distinct uniform scores and "
        "predicting them, against `np.histogram` (counts and positives) plus `np.digitize`; CPU "
        "time, rounds interleaved, medians; ratio = median of per-round ratios.",
        "",
        "| n | venncal fit + predict, ms | numpy, ms | venncal / numpy |",
        "|---|---|---|---|",
    ]
    for n, row in rows:
        lines.append(
            f"| {n:,} | {row['venncal'] * 1e3:.1f} | {row['numpy'] * 1e3:.1f} | {row['ratio']:.2f} |"
        )
    body = "\n".join(lines)
    report("Histogram binning", body, write=not args.no_write)


if __name__ == "__main__":
    main()
