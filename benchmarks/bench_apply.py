"""Speed and peak memory of ``venncal apply`` and ``venncal calibrate`` on Parquet files.

Run ``python benchmarks/bench_apply.py [--rows 10000000 ...] [--rounds 3] [--calibrate]
[--folder DIR]``. It writes (once, into ``--folder``, default a temporary folder) a Parquet file
of n random scores per row count, a calibration file of 10^6 scores and labels, and a Venn-Abers
model file fitted on it. Each command then runs in its own process, in interleaved rounds, and
the medians of wall time and peak resident memory (``os.wait4``) are printed:

- ``floor``: pyarrow reads the input in record batches and writes the same number of float64
  columns as ``venncal apply`` writes (score, and three copies of it for p, p0, p1), with the
  same writer settings: the I/O floor, no calibration;
- ``copy floor``: pyarrow reads the output of ``apply`` (score, p, p0, p1) and writes it again:
  the same values and encodings written as ``apply`` writes (the calibrated columns hold a few
  thousand distinct values, which Parquet's dictionary encoding writes cheaply, while copies of
  the score do not), with three more columns read;
- ``apply``: ``venncal apply model.json scores.parquet -o out.parquet``, the whole command
  (interpreter start and imports included);
- with ``--calibrate``: ``venncal calibrate`` with a calibration file and a test file of n rows
  each (as measured for the command-line issue), against pandas reading both tables and writing
  the test table with three more columns (``pandas floor``).

Nothing is written to BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine_note  # noqa: E402

BATCH = 1 << 20

FLOOR = """
import sys, pyarrow as pa, pyarrow.parquet as pq
src, out, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
f = pq.ParquetFile(src, pre_buffer=False)  # as venncal reads (memory bounded)
writer = None
for b in f.iter_batches(batch_size=batch, columns=["score"]):
    s = b.column(0)
    t = pa.record_batch([s, s, s, s], names=["score", "p", "p0", "p1"])
    if writer is None:
        writer = pq.ParquetWriter(out, t.schema)
    writer.write_batch(t)
writer.close()
"""

COPY_FLOOR = """
import sys, pyarrow.parquet as pq
src, out, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
f = pq.ParquetFile(src, pre_buffer=False)
writer = None
for b in f.iter_batches(batch_size=batch):
    if writer is None:
        writer = pq.ParquetWriter(out, b.schema)
    writer.write_batch(b)
writer.close()
"""

PANDAS_FLOOR = """
import sys, pandas as pd
cal = pd.read_parquet(sys.argv[1])
test = pd.read_parquet(sys.argv[2])
out = test.copy()
for c in ("p", "p0", "p1"):
    out[c] = test["score"].to_numpy()
out.to_parquet(sys.argv[3], index=False)
"""


def run(args):
    """Wall time (s), CPU time (s, user + system) and peak resident memory (MiB) of a process."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{args[:3]} failed: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def make_data(folder, rows, *, n_cal=10**6):
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    import venncal

    folder.mkdir(parents=True, exist_ok=True)
    cal = folder / "cal.parquet"
    if not cal.exists():
        rng = np.random.default_rng(0)
        s = rng.normal(size=n_cal)
        y = (rng.random(n_cal) < 1 / (1 + np.exp(-2 * s))).astype(np.int64)
        pd.DataFrame({"score": s, "y": y}).to_parquet(cal, index=False)
        model = venncal.VennAbersCalibrator().fit(s, y)
        venncal.save(model, folder / "model.json", overwrite=True)
    for n in rows:
        path = folder / f"scores_{n}.parquet"
        if path.exists():
            continue
        rng = np.random.default_rng(n)
        with pq.ParquetWriter(path, pa.schema([("score", pa.float64())])) as writer:
            for start in range(0, n, 10**7):
                m = min(10**7, n - start)
                writer.write_table(pa.table({"score": rng.normal(size=m)}))
        labelled = folder / f"labelled_{n}.parquet"
        if n <= 10**7 and not labelled.exists():
            s = pq.read_table(path).column("score").to_numpy()
            y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(np.int64)
            pq.write_table(pa.table({"score": s, "y": y}), labelled)


def bench(folder, rows, rounds, calibrate, skip_apply=False):
    venncal = shutil.which("venncal") or "venncal"
    results = {}
    for n in rows:
        src = folder / f"scores_{n}.parquet"
        jobs = {
            "floor": [
                sys.executable,
                "-c",
                FLOOR,
                str(src),
                str(folder / "floor.parquet"),
                str(BATCH),
            ],
            "apply": [
                venncal,
                "apply",
                str(folder / "model.json"),
                str(src),
                "-o",
                str(folder / "out.parquet"),
                "--force",
                "--score",
                "score",
            ],
            # after apply in each round: it copies apply's output of this size
            "copy floor": [
                sys.executable,
                "-c",
                COPY_FLOOR,
                str(folder / "out.parquet"),
                str(folder / "copy.parquet"),
                str(BATCH),
            ],
        }
        if skip_apply:
            jobs = {}
        if calibrate and n <= 10**7:
            lab = folder / f"labelled_{n}.parquet"
            jobs["pandas floor"] = [
                sys.executable,
                "-c",
                PANDAS_FLOOR,
                str(lab),
                str(src),
                str(folder / "pfloor.parquet"),
            ]
            jobs["calibrate"] = [
                venncal,
                "calibrate",
                str(lab),
                str(src),
                "--score",
                "score",
                "--label",
                "y",
                "-o",
                str(folder / "cal_out.parquet"),
                "--force",
            ]
        times = {k: [] for k in jobs}
        for _ in range(rounds):
            for name, args in jobs.items():
                for leftover in ("floor.parquet", "pfloor.parquet", "copy.parquet"):
                    (folder / leftover).unlink(missing_ok=True)
                times[name].append(run(args))
        for name, runs in times.items():
            wall, cpu, peak = (float(np.median(v)) for v in zip(*runs))
            results[(n, name)] = (wall, cpu, peak)
            print(
                f"n={n:>11,}  {name:<13} wall {wall:7.2f} s ({n / wall / 1e6:5.2f} M rows/s)  "
                f"cpu {cpu:7.2f} s  peak {peak:6.0f} MiB",
                flush=True,
            )
        for a, b in (("apply", "floor"), ("apply", "copy floor"), ("calibrate", "pandas floor")):
            if a in times:
                (wa, ca, _), (wb, cb, _) = results[(n, a)], results[(n, b)]
                print(f"n={n:>11,}  {a} / {b}: wall {wa / wb:.2f}, cpu {ca / cb:.2f}")
    return results


def bench_model_file(folder, n=10**6, repeat=5):
    """Size, save and load time of a Venn-Abers model file fitted on n distinct scores."""
    import venncal

    rng = np.random.default_rng(0)
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(np.int64)
    cal = venncal.VennAbersCalibrator().fit(s, y)
    path = folder / "va_model.json"
    saves, loads = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        venncal.save(cal, path, overwrite=True)
        saves.append(time.perf_counter() - start)
        start = time.perf_counter()
        venncal.load(path)
        loads.append(time.perf_counter() - start)
    fresh = [
        run([sys.executable, "-c", f"import venncal; venncal.load({str(path)!r})"])
        for _ in range(3)
    ]
    bare = [run([sys.executable, "-c", "import venncal.calibration.venn_abers"]) for _ in range(3)]
    t = cal.tables_
    print(
        f"model file, Venn-Abers on {n:,} scores: {path.stat().st_size / 1024:.0f} KiB, "
        f"{len(t.breaks0):,} + {len(t.breaks1):,} breakpoints; save {np.median(saves) * 1e3:.0f} ms, "
        f"load {np.median(loads) * 1e3:.0f} ms in process; a fresh process loading it takes "
        f"{np.median([w for w, _, _ in fresh]):.2f} s wall, one importing the calibrator "
        f"{np.median([w for w, _, _ in bare]):.2f} s"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10**6, 10**7])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--skip-apply", action="store_true", help="(for versions without apply)")
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument("--model-file", action="store_true", help="size and load time only")
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="venncal-bench-apply-"))
    print(machine_note())
    if args.model_file:
        bench_model_file(folder)
        return
    make_data(folder, args.rows)
    bench(folder, args.rows, args.rounds, args.calibrate, args.skip_apply)


if __name__ == "__main__":
    main()
