"""Peak memory of ``venncal fit`` and time of ``venncal apply`` writing CSV, by command line.

Run ``python benchmarks/bench_cli_io.py --folder /tmp/venncal_cli_io [--no-write]``. The input
files are made once in ``--folder`` (outside the repository: about 3 GB for the default sizes)
and reused by later runs. Every measurement runs the command in its own process; the figure is
the median over ``--rounds`` runs:

* ``venncal fit`` (Venn-Abers by default) on ``--rows`` rows of CSV and Parquet, with scores
  rounded to 6 decimals (``s6``), float32 scores (``s32``) and, Parquet only, float64 scores
  all distinct (``s64``): the peak resident memory of the process. ``--baseline-src`` names the
  ``src`` folder of another venncal version (e.g. from ``git archive``) to run the same
  commands with.
* ``venncal apply`` of a Venn-Abers model to 10^7 rows (an integer id and a float64 score)
  Parquet -> CSV and CSV -> CSV, against pyarrow's own reading of the same input
  (``pq.read_table`` or ``pyarrow.csv.read_csv``) and CSV writing (``pyarrow.csv.write_csv``) of
  a table of the same five columns, each in its own process too.

The figures are written to the section "Command line: fit memory and CSV output" of
BENCHMARKS.md unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import command_line, machine_note, report  # noqa: E402

TITLE = "Command line: fit memory and CSV output"

# run a venncal command in this child process; print its peak memory (KiB) and wall time
_CLI = """
import resource, sys, time
from venncal.cli import main
start = time.perf_counter()
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"BENCH {peak} {wall}", file=sys.stderr)
"""

# pyarrow alone: read the input, add three float columns, write CSV
_FLOOR = """
import resource, sys, time
import numpy as np, pyarrow as pa, pyarrow.csv as pcsv, pyarrow.parquet as pq
src, out = sys.argv[1], sys.argv[2]
start = time.perf_counter()
table = pq.read_table(src) if src.endswith(".parquet") else pcsv.read_csv(src)
p = pa.array(np.linspace(0.0, 1.0, table.num_rows))
for name in ("p", "p0", "p1"):
    table = table.append_column(name, p)
pcsv.write_csv(table, out)
wall = time.perf_counter() - start
print(f"BENCH {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} {wall}", file=sys.stderr)
"""


def _tag(n):
    return f"{n:.0e}".replace("+0", "").replace("+", "")


def make_fit_files(folder, n):
    """fit_<n>.parquet (y, s6, s32, s64) and fit_<n>.csv (y, s6, s32), made once."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    pq_path, csv_path = folder / f"fit_{_tag(n)}.parquet", folder / f"fit_{_tag(n)}.csv"
    if pq_path.exists() and csv_path.exists():
        return pq_path, csv_path
    rng = np.random.default_rng(n)
    schema = pa.schema(
        [("y", pa.int8()), ("s6", pa.float64()), ("s32", pa.float32()), ("s64", pa.float64())]
    )
    with pq.ParquetWriter(pq_path, schema) as writer, pa.OSFile(str(csv_path), "wb") as sink:
        for start in range(0, n, 1 << 21):
            m = min(1 << 21, n - start)
            s = rng.beta(2, 2, m)
            y = (rng.random(m) < s).astype(np.int8)
            t = pa.table({"y": y, "s6": np.round(s, 6), "s32": s.astype(np.float32), "s64": s})
            writer.write_table(t)
            options = pcsv.WriteOptions(include_header=start == 0)
            pcsv.write_csv(t.select(["y", "s6", "s32"]), sink, options)
    return pq_path, csv_path


def make_apply_files(folder, n):
    """apply_<n>.parquet and .csv (id, score) and a Venn-Abers model fitted on 10^5 scores."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    pq_path, csv_path = folder / f"apply_{_tag(n)}.parquet", folder / f"apply_{_tag(n)}.csv"
    model = folder / "apply_model.json"
    if not (pq_path.exists() and csv_path.exists()):
        rng = np.random.default_rng(5)
        table = pa.table({"id": np.arange(n), "score": rng.normal(size=n)})
        pq.write_table(table, pq_path)
        pcsv.write_csv(table, csv_path)
    if not model.exists():
        import venncal

        rng = np.random.default_rng(6)
        s = rng.normal(size=10**5)
        y = (rng.random(10**5) < 1 / (1 + np.exp(-2 * s))).astype(int)
        venncal.save(venncal.VennAbersCalibrator().fit(s, y), model, metadata={"score": "score"})
    return pq_path, csv_path, model


def _child(code, args, src=None):
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], env=env, capture_output=True, text=True
    )
    lines = [x for x in done.stderr.splitlines() if x.startswith("BENCH ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{args}: {done.stderr.strip()[-500:]}")
    _, peak, wall = lines[-1].split()
    return int(peak) / 1024, float(wall)  # MiB, s


def _median(runs):
    return tuple(float(np.median([r[i] for r in runs])) for i in range(2))


def fit_memory(folder, rows, scores, rounds, src=None, method="venn-abers", formats=None):
    """{(format, n, score): (peak MiB, wall s)} of venncal fit."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "m.json"
        for n in rows:
            pq_path, csv_path = make_fit_files(folder, n)
            for fmt, path in (("Parquet", pq_path), ("CSV", csv_path)):
                if formats and fmt not in formats:
                    continue
                for score in scores:
                    if fmt == "CSV" and score == "s64":
                        continue
                    args = ["fit", path, "--score", score, "--label", "y", "--method", method,
                            "-o", model, "--force"]  # fmt: skip
                    out[fmt, n, score] = _median([_child(_CLI, args, src) for _ in range(rounds)])
                    print(fmt, n, score, out[fmt, n, score], flush=True)
    return out


def apply_times(folder, n, rounds):
    """{input format: (venncal apply wall s, pyarrow floor wall s)} writing CSV."""
    pq_path, csv_path, model = make_apply_files(folder, n)
    out = {}
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        target = Path(tmp) / "out.csv"
        for fmt, path in (("Parquet", pq_path), ("CSV", csv_path)):
            ours, floor = [], []
            for _ in range(rounds):  # interleaved: the load of the machine hits both alike
                ours.append(_child(_CLI, ["apply", model, path, "-o", target, "--force"]))
                floor.append(_child(_FLOOR, [path, target]))
            out[fmt] = (_median(ours)[1], _median(floor)[1], _median(ours)[0])
            print(fmt, out[fmt], flush=True)
    return out


def _body(fits, base, applies, rows, args, argv):
    lines = [
        f"`{command_line('bench_cli_io.py', argv)}` ({machine_note()}; load average "
        f"{os.getloadavg()[0]:.0f} at the end, the two cores shared with other jobs; medians of "
        f"{args.rounds} runs, each command in its own process).",
        "",
        "`venncal fit` (Venn-Abers) peak resident memory, MiB (wall time, s). Scores: `s6` "
        "rounded to 6 decimals (at most 10^6 distinct values in [0, 1]), `s32` float32 "
        "scores, `s64` float64 scores, all distinct. The baseline columns are the same "
        "command of another version of venncal (`--baseline-src`, named below).",
        "",
    ]
    n0, n1 = rows[0], rows[-1]
    head = "| input | scores | " + " | ".join(f"n = {n:.0e}" for n in rows)
    head += f" | ratio {n1 // n0}x rows |"
    if base:
        head += " baseline, " + " | baseline, ".join(f"n = {n:.0e}" for n in rows) + " |"
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    for fmt in ("Parquet", "CSV"):
        for score in ("s6", "s32", "s64"):
            if (fmt, n0, score) not in fits:
                continue
            cells = [f"{fits[fmt, n, score][0]:.0f} ({fits[fmt, n, score][1]:.1f})" for n in rows]
            ratio = fits[fmt, n1, score][0] / fits[fmt, n0, score][0]
            row = f"| {fmt} | {score} | " + " | ".join(cells) + f" | {ratio:.2f} |"
            if base:
                row += " " + " | ".join(
                    f"{base[fmt, n, score][0]:.0f} ({base[fmt, n, score][1]:.1f})"
                    if (fmt, n, score) in base
                    else "-"
                    for n in rows
                )
                row += " |"
            lines.append(row)
    if applies:
        lines += [
            "",
            f"`venncal apply` of a Venn-Abers model to {args.apply_rows:.0e} rows (id, score), "
            "writing CSV (id, score, p, p0, p1), against pyarrow alone reading the input and "
            "writing a CSV table of the same five columns:",
            "",
            "| input -> output | venncal apply, s | pyarrow read + write_csv, s | ratio "
            "| apply peak memory, MiB |",
            "|---|---|---|---|---|",
        ]
        for fmt, (ours, floor, peak) in applies.items():
            lines.append(
                f"| {fmt} -> CSV | {ours:.1f} | {floor:.1f} | {ours / floor:.2f} | {peak:.0f} |"
            )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--folder", type=Path, default=Path(tempfile.gettempdir()) / "venncal_cli_io"
    )
    parser.add_argument("--rows", type=int, nargs="+", default=[10**7, 4 * 10**7])
    parser.add_argument("--scores", nargs="+", default=["s6", "s32", "s64"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--apply-rows", type=int, default=10**7)
    parser.add_argument("--formats", nargs="+", default=["Parquet", "CSV"])
    parser.add_argument("--skip-fit", action="store_true")
    parser.add_argument("--skip-apply", action="store_true")
    parser.add_argument("--baseline-src", type=Path, default=None,
                        help="src folder of another venncal version for the fit columns")  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="do not update BENCHMARKS.md")
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    fits, base, formats = {}, {}, args.formats
    if not args.skip_fit:
        fits = fit_memory(args.folder, args.rows, args.scores, args.rounds, formats=formats)
    if args.baseline_src is not None and not args.skip_fit:
        base = fit_memory(
            args.folder, args.rows, args.scores, 1, src=args.baseline_src, formats=formats
        )
    applies = {} if args.skip_apply else apply_times(args.folder, args.apply_rows, args.rounds)
    body = _body(fits, base, applies, args.rows, args, argv) if fits else ""
    if not fits:
        body = _body({}, {}, applies, args.rows, args, argv).split("\n\n", 2)[-1]
    report(TITLE, body, write=not args.no_write)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
