"""Speed and peak memory of ``venncal apply`` with a K-class model, and of its SQL in DuckDB.

Run ``python benchmarks/bench_apply_multiclass.py [--rows 10000000] [--classes 10]
[--rounds 3] [--method matrix-scaling] [--folder DIR] [--commit REV] [--no-write]``. It writes
once, into ``--folder`` (default a temporary folder, removed at the end):

- ``cal.parquet``: ``--cal-rows`` rows of K log-probability scores ``s0 .. s{K-1}`` of an
  overconfident classifier and a label ``y`` in ``0 .. K-1`` drawn from the true class
  probabilities (a softmax of Gaussian logits);
- the model ``venncal fit cal.parquet --score s0,... --label y --method METHOD`` and the query
  ``venncal export MODEL --to sql --table scores --score-column s0,...`` (DuckDB dialect);
- ``test_<n>.parquet``: n rows of K float64 scores from the same simulation, written in row
  groups of 2^20 rows (memory bounded).

Each command then runs in its own process (interpreter start and imports included), in
interleaved rounds; the medians of wall time, CPU time and peak resident memory (``os.wait4``)
are reported:

- ``floor``: pyarrow reads the test file in record batches of the size ``venncal apply`` reads
  for K classes (``BATCH_ROWS // K`` rows) and writes the K input columns plus K float64 copies
  of them with a ``ParquetWriter``, one batch at a time: pyarrow's own read and write, no
  calibration; ``floor + fsync`` then syncs the output to the disk, as ``venncal apply`` does;
- ``venncal apply``: ``venncal apply MODEL test.parquet -o out.parquet``, the whole command;
- ``duckdb``: the exported query run by DuckDB over a view ``scores`` of
  ``read_parquet('test.parquet')``, written by ``COPY (query) TO 'out.parquet' (FORMAT
  PARQUET)``, with ``SET threads = 2``.

Before the timing, ``venncal apply`` and DuckDB run once on the first ``--check-rows`` rows and
their probabilities are compared; after it, the outputs of the last round are compared at full
size (rows matched by their scores: the query's join does not keep the row order). The page
``docs/benchmarks/command-line-k-class-apply-and-sql.md`` is written unless ``--no-write``
(the headline of its row in BENCHMARKS.md is written by hand). With ``--commit REV`` every
command imports venncal from a copy of ``src/`` at that commit (``git archive``, put first on
``PYTHONPATH``) instead of the installed one.
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
from _timing import command_line, machine_note, report  # noqa: E402

TITLE = "Command line: K-class apply and SQL"
BATCH_ROWS = 1 << 20  # venncal.cli._stream.BATCH_ROWS; K-class apply reads BATCH_ROWS // K rows
GROUP_ROWS = 1 << 20  # row groups of the generated files
THREADS = 2  # DuckDB's threads: the machine's cores
ROOT = Path(__file__).resolve().parent.parent
METHODS = ("matrix-scaling", "vector-scaling", "temperature", "dirichlet")

FLOOR = """
import os, sys, pyarrow as pa, pyarrow.parquet as pq
src, out, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
f = pq.ParquetFile(src, pre_buffer=False)  # as venncal reads (memory bounded)
writer = None
for b in f.iter_batches(batch_size=batch):
    cols = list(b.columns)
    t = pa.record_batch(cols + cols, names=b.schema.names + [f"p_{j}" for j in range(len(cols))])
    if writer is None:
        writer = pq.ParquetWriter(out, t.schema)
    writer.write_batch(t)
writer.close()
if sys.argv[4:] == ["fsync"]:  # to the disk, as venncal apply does before moving its output
    fd = os.open(out, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
"""

DUCKDB = """
import sys, duckdb
src, out, query, threads, tmp = sys.argv[1:6]
con = duckdb.connect()
con.execute(f"SET threads = {int(threads)}")
con.execute(f"SET temp_directory = '{tmp}'")
con.execute(f"CREATE VIEW scores AS SELECT * FROM read_parquet('{src}')")
with open(query) as fh:
    sql = fh.read()
con.execute(f"COPY ({sql}) TO '{out}' (FORMAT PARQUET)")
con.close()
"""


# A small interpreter starts each timed command and reports its wall time, CPU time and peak
# resident memory: on Linux a child's peak memory (ru_maxrss) starts from the peak of the
# process that started it, and this script's own peak is that of the data it generated.
LAUNCH = """
import os, sys, time
start = time.perf_counter()
null = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=null)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
print(code, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024)
"""


def run(args):
    """Wall time (s), CPU time (s, user + system) and peak resident memory (MiB) of a process."""
    proc = subprocess.run(
        [sys.executable, "-S", "-c", LAUNCH, *map(str, args)], capture_output=True, text=True
    )
    fields = proc.stdout.split()
    if proc.returncode != 0 or len(fields) != 4 or fields[0] != "0":
        raise RuntimeError(f"{' '.join(map(str, args[:3]))} failed: {proc.stderr[-3000:]}")
    return float(fields[1]), float(fields[2]), float(fields[3])


def venncal_exe():
    """The ``venncal`` executable next to this interpreter."""
    exe = Path(sys.executable).with_name("venncal")
    return str(exe) if exe.exists() else shutil.which("venncal") or "venncal"


def use_source(folder, commit):
    """Put a copy of ``src/`` at ``commit`` first on every child's path (none: the installed
    venncal); return a tag for the model files and the page's words for the version."""
    import io
    import tarfile

    def git(*argv):
        return subprocess.run(
            ["git", "-C", str(ROOT), *argv], capture_output=True, check=True
        ).stdout

    if commit is None:
        head = git("rev-parse", "--short", "HEAD").decode().strip()
        dirty = git("status", "--porcelain", "--", "src").strip()
        extra = ", with uncommitted changes in src/" if dirty else ""
        return "", f"venncal from the working tree at commit {head}{extra}"
    sha = git("rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()[:12]
    dest = folder / f"venncal_{sha}"
    if not dest.exists():
        with tarfile.open(fileobj=io.BytesIO(git("archive", sha, "src"))) as tar:
            tar.extractall(dest.with_suffix(".part"), filter="data")
        dest.with_suffix(".part").rename(dest)
    path = [str(dest / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    os.environ["PYTHONPATH"] = os.pathsep.join(path)
    return f"_{sha}", f"venncal at commit {sha[:7]} (a copy of its src/)"


def simulate(rng, n, K):
    """Log-probability scores (n, K) of an overconfident classifier and labels drawn from the
    true probabilities."""
    z = rng.normal(scale=1.5, size=(n, K)) + np.linspace(-0.5, 0.5, K)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = (rng.random((n, 1)) > np.cumsum(p, axis=1)).sum(axis=1).clip(max=K - 1)
    # the classifier: sharper than the truth, with its own class biases and noise
    a = 1.8 * z + rng.normal(scale=0.3, size=(n, K)) - np.linspace(0.3, -0.3, K)
    a -= a.max(axis=1, keepdims=True)
    s = a - np.log(np.exp(a).sum(axis=1, keepdims=True))
    return s, y.astype(np.int64)


def make_data(folder, n, K, n_cal, method, tag=""):
    """Calibration file, model, query and test file (each written once into ``folder``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    cols = [f"s{j}" for j in range(K)]
    cal = folder / f"cal_{K}_{n_cal}.parquet"
    if not cal.exists():
        s, y = simulate(np.random.default_rng(0), n_cal, K)
        table = pa.table({**{c: s[:, j] for j, c in enumerate(cols)}, "y": y})
        pq.write_table(table, cal)
    model = folder / f"model_{method}_{K}_{n_cal}{tag}.json"
    if not model.exists():
        exe = venncal_exe()
        start = time.perf_counter()
        subprocess.run(
            [exe, "fit", str(cal), "--score", ",".join(cols), "--label", "y"]
            + ["--method", method, "-o", str(model), "--force"],
            check=True,
        )
        print(f"venncal fit ({method}, {n_cal:,} rows): {time.perf_counter() - start:.1f} s")
    query = model.with_suffix(".sql")
    if not query.exists():
        subprocess.run(
            [venncal_exe(), "export", str(model), "--to", "sql", "--table", "scores"]
            + ["--score-column", ",".join(cols), "--dialect", "duckdb", "-o", str(query)]
            + ["--force"],
            check=True,
        )
    test = folder / f"test_{K}_{n}.parquet"
    if not test.exists():
        rng = np.random.default_rng(n)
        schema = pa.schema([(c, pa.float64()) for c in cols])
        part = test.with_suffix(".part")
        with pq.ParquetWriter(part, schema) as writer:
            for start in range(0, n, GROUP_ROWS):
                s, _ = simulate(rng, min(GROUP_ROWS, n - start), K)
                writer.write_table(pa.table({c: s[:, j] for j, c in enumerate(cols)}))
        part.rename(test)
    return model, query, test


def jobs(folder, model, query, src, K):
    """The three commands on ``src``: name -> (arguments, output file)."""
    outs = {name: folder / f"out_{name}.parquet" for name in ("floor", "apply", "duckdb")}
    floor = [sys.executable, "-c", FLOOR, str(src), str(outs["floor"]), str(BATCH_ROWS // K)]
    return {
        "floor": (floor, outs["floor"]),
        "floor + fsync": ([*floor, "fsync"], outs["floor"]),
        "venncal apply": (
            [venncal_exe(), "apply", str(model), str(src), "-o", str(outs["apply"]), "--force"],
            outs["apply"],
        ),
        "duckdb": (
            [sys.executable, "-c", DUCKDB, str(src), str(outs["duckdb"]), str(query)]
            + [str(THREADS), str(folder / "duckdb_tmp")],
            outs["duckdb"],
        ),
    }


def compare(apply_out, duckdb_out, K):
    """Rows, largest absolute difference of the K probabilities, and the number of rows
    where one output has a probability and the other none (rows matched by their scores)."""
    import pyarrow.parquet as pq

    a, d = pq.ParquetFile(apply_out), pq.ParquetFile(duckdb_out)
    keys = [f"s{j}" for j in range(K)]
    if a.metadata.num_rows != d.metadata.num_rows:
        raise RuntimeError(f"apply wrote {a.metadata.num_rows} rows, DuckDB {d.metadata.num_rows}")

    def order(f):
        t = f.read(columns=keys)
        cols = [t.column(c).to_numpy() for c in reversed(keys)]
        return np.lexsort(cols), cols[::-1]

    ia, ka = order(a)
    id_, kd = order(d)
    for x, y in zip(ka, kd):
        if not np.array_equal(x[ia], y[id_]):
            raise RuntimeError("the two outputs do not hold the same score rows")
    del ka, kd
    worst, missing = 0.0, 0
    for j in range(K):
        pa_ = a.read(columns=[f"p_{j}"]).column(0).to_numpy(zero_copy_only=False)[ia]
        pd_ = d.read(columns=[f"p_{j}"]).column(0).to_numpy(zero_copy_only=False)[id_]
        pa_, pd_ = np.asarray(pa_, dtype=float), np.asarray(pd_, dtype=float)
        na, nd = np.isnan(pa_), np.isnan(pd_)
        missing += int(np.count_nonzero(na != nd))
        both = ~na & ~nd
        if both.any():
            worst = max(worst, float(np.max(np.abs(pa_[both] - pd_[both]))))
    return a.metadata.num_rows, worst, missing


def check_small(folder, model, query, test, K, rows):
    """apply and DuckDB on the first ``rows`` rows of the test file: (rows, max diff, missing)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    small = folder / f"check_{K}_{rows}.parquet"
    f = pq.ParquetFile(test)
    batch = next(f.iter_batches(batch_size=rows))
    pq.write_table(pa.Table.from_batches([batch]), small)
    todo = jobs(folder / "check", model, query, small, K)
    (folder / "check").mkdir(exist_ok=True)
    for name in ("venncal apply", "duckdb"):
        run(todo[name][0])
    return compare(todo["venncal apply"][1], todo["duckdb"][1], K)


def busy_seconds():
    """CPU seconds the whole machine has been busy since boot (``/proc/stat``; None elsewhere):
    with the timed command's own CPU time, what the other processes used meanwhile."""
    try:
        with open("/proc/stat") as fh:
            fields = [int(v) for v in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def bench(folder, model, query, test, K, rounds):
    """Medians (wall, CPU, peak) of each command; every run; the 1-minute load averages
    before and after each run; and the cores the other processes used on average."""
    todo = jobs(folder, model, query, test, K)
    times = {name: [] for name in todo}
    loads, others, walls = [], 0.0, 0.0
    for r in range(rounds):
        for name, (args, out) in todo.items():
            out.unlink(missing_ok=True)
            loads.append(os.getloadavg()[0])
            before = busy_seconds()
            times[name].append(run(args))
            after = busy_seconds()
            loads.append(os.getloadavg()[0])
            w, c, m = times[name][-1]
            if before is not None and after is not None:
                others += max(0.0, after - before - c)
                walls += w
            print(
                f"round {r + 1}: {name:<14} wall {w:7.2f} s  cpu {c:7.2f} s  peak {m:7.0f} MiB  "
                f"load {loads[-1]:.2f}",
                flush=True,
            )
    medians = {name: tuple(float(np.median(v)) for v in zip(*runs)) for name, runs in times.items()}
    return medians, times, loads, (others / walls if walls else None), todo


def encodings(path, column):
    """How a Parquet file stores ``column``: row groups, rows per group, encodings."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    group = meta.row_group(0)
    names = [group.column(j).path_in_schema for j in range(group.num_columns)]
    chunk = group.column(names.index(column))
    return (
        f"{meta.num_row_groups} row groups of {group.num_rows:,} rows, `{column}` stored as "
        f"{'/'.join(chunk.encodings)} ({chunk.compression}, "
        f"{chunk.total_compressed_size / group.num_rows:.1f} bytes a value)"
    )


def page(args, n, K, sizes, medians, times, load, small, full, fit_note, encoding, version):
    def mb(b):
        return b / 1e6

    rows = []
    for name in ("floor", "floor + fsync", "venncal apply", "duckdb"):
        w, c, m = medians[name]
        walls = ", ".join(f"{t[0]:.2f}" for t in times[name])
        label = f"`{name}`" if name in ("venncal apply", "duckdb") else name
        rows.append(
            f"| {label} | {w:.2f} | {walls} | {c:.2f} | {n / w / 1e6:.2f} | "
            f"{mb(sizes['test']) / w:.0f} | {m:,.0f} | {mb(sizes[name]):,.0f} |"
        )
    (wf, cf, mf), (ws, _, _), (wa, ca, ma), (wd, cd, md) = (
        medians[k] for k in ("floor", "floor + fsync", "venncal apply", "duckdb")
    )

    def by_round(a, b):
        return ", ".join(f"{x[0] / y[0]:.2f}" for x, y in zip(times[a], times[b]))

    cols = ",".join(f"s{j}" for j in range(K))
    others = ", ".join(f"`--method {m}`" for m in METHODS if m != args.method)
    lines = [
        f"`{command_line('bench_apply_multiclass.py', None)}` ({machine_note()}, "
        f"pyarrow {_version('pyarrow')}, DuckDB {_version('duckdb')}, {version}; {load}). "
        "Each command runs in its own process (interpreter start and imports included), once "
        f"per round, interleaved, {args.rounds} round{'s' * (args.rounds != 1)}; medians; peak "
        "memory is the process's maximum resident set (`os.wait4`).",
        "",
        f"The test file holds {n:,} rows of {K} float64 scores `{cols}` (log-probabilities of a "
        f"simulated overconfident {K}-class classifier; {mb(sizes['test']):,.0f} MB of Parquet, "
        f"row groups of {GROUP_ROWS:,} rows). The model is `venncal fit cal.parquet --score "
        f"{cols} --label y --method {args.method}` on {args.cal_rows:,} rows of the same "
        f"simulation with labels drawn from the true probabilities ({fit_note}).",
        "",
        f"- **floor**: pyarrow reads the test file in record batches of {BATCH_ROWS // K:,} rows "
        f"(`BATCH_ROWS // K`, as `venncal apply` reads {K} columns) and writes the {K} score "
        f"columns plus {K} float64 copies of them with a `ParquetWriter` (default settings, one "
        "`write_batch` per batch, as `venncal apply` writes): pyarrow's own read and write, no "
        "calibration. The copies are as incompressible as the probabilities (all distinct "
        "doubles), so both write the same amount of data. **floor + fsync**: the same, then "
        "`os.fsync` of the output, as `venncal apply` does before moving its output into place.",
        f"- **`venncal apply`**: `venncal apply model.json test.parquet -o out.parquet`, which "
        f"writes the {K} scores and `p_0 .. p_{K - 1}`.",
        f"- **duckdb**: `venncal export model.json --to sql --table scores --score-column {cols}` "
        f"(DuckDB dialect), run by DuckDB in its own Python process with `SET threads = "
        f"{THREADS}` (the machine's cores) over `CREATE VIEW scores AS SELECT * FROM "
        "read_parquet('test.parquet')`, written by `COPY (query) TO 'out.parquet' (FORMAT "
        "PARQUET)` (DuckDB's default memory limit, 80% of RAM, spill folder on the same disk). "
        "The query selects the distinct score rows, maps them with one CTE per step, and joins "
        "every row of the table back to its probabilities (a hash join on the "
        f"{K} score columns), so its output is not in the input's order.",
        "",
        "| command | wall, s (median) | wall, s (each round) | CPU, s | M rows/s | "
        "input MB/s | peak memory, MiB | output, MB |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"- **apply / floor: {wa / wf:.2f}x** wall (by round: "
        f"{by_round('venncal apply', 'floor')}), {ca / cf:.2f}x CPU, {ma / mf:.2f}x peak memory; "
        f"apply / (floor + fsync): {wa / ws:.2f}x wall (by round: "
        f"{by_round('venncal apply', 'floor + fsync')}).",
        f"- **duckdb / apply: {wd / wa:.2f}x** wall (by round: "
        f"{by_round('duckdb', 'venncal apply')}), {cd / ca:.2f}x CPU, {md / ma:.2f}x peak memory.",
        "",
        f"Output sizes: {encoding}.",
        "",
        "Same numbers: DuckDB's probabilities against `venncal apply`'s, rows matched by their "
        f"{K} scores (both outputs sorted by them): on the first {small[0]:,} rows, largest "
        f"absolute difference **{small[1]:.2e}** ({small[2]} rows with a probability in one "
        "output and none in the other)",
    ]
    if full is not None:
        lines[-1] += (
            f"; on the full outputs of the last round ({full[0]:,} rows), **{full[1]:.2e}** "
            f"({full[2]} such rows)."
        )
    else:
        lines[-1] += "; the full outputs were not compared (`--no-full-check`)."
    lines += [
        "",
        "Not measured: other numbers of rows or classes on this page, the other K-class methods "
        f"({others}), DuckDB with more threads than the machine's two cores, or reading the "
        "query's result in DuckDB without writing it. No goal was set for these ratios.",
    ]
    return "\n".join(lines)


def _version(name):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # pragma: no cover - only for the page
        return "?"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--cal-rows", type=int, default=10**5)
    parser.add_argument("--check-rows", type=int, default=10**5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--method",
        default="matrix-scaling",
        choices=METHODS,
    )
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument(
        "--commit", default=None, help="time venncal at this commit (default: as installed)"
    )
    parser.add_argument("--no-full-check", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="do not write the page")
    args = parser.parse_args(argv)
    temporary = args.folder is None
    folder = args.folder or Path(tempfile.mkdtemp(prefix="venncal-bench-kapply-"))
    n, K = args.rows, args.classes
    try:
        print(machine_note(), f"load {os.getloadavg()[0]:.2f}", flush=True)
        start = time.perf_counter()
        tag, version = use_source(folder, args.commit)
        print(version, flush=True)
        model, query, test = make_data(folder, n, K, args.cal_rows, args.method, tag)
        print(f"data ready in {time.perf_counter() - start:.1f} s", flush=True)
        small = check_small(folder, model, query, test, K, min(args.check_rows, n))
        print(
            f"check on {small[0]:,} rows: max abs diff {small[1]:.3e}, {small[2]} NULL mismatches"
        )
        medians, times, loads, busy, todo = bench(folder, model, query, test, K, args.rounds)
        if busy is not None:
            print(f"other processes: {busy:.2f} cores on average", flush=True)
        sizes = {name: out.stat().st_size for name, (_, out) in todo.items()}
        apply_out, duckdb_out = todo["venncal apply"][1], todo["duckdb"][1]
        written = encodings(apply_out, "p_0")
        encoding = f"pyarrow's writer (the floor and `venncal apply`) writes {written}"
        if BATCH_ROWS // K * 8 < 1 << 20:
            encoding += (
                ": the dictionary is kept because a row group's distinct doubles fit in its "
                "1 MiB dictionary page"
            )
        encoding += f"; DuckDB writes {encodings(duckdb_out, 'p_0')}"
        sizes["test"] = test.stat().st_size
        full = None
        if not args.no_full_check:
            full = compare(todo["venncal apply"][1], todo["duckdb"][1], K)
            print(f"full check: max abs diff {full[1]:.3e}, {full[2]} NULL mismatches")
        fit_note = f"{model.stat().st_size / 1024:.0f} KiB model file"
        load = f"load average {min(loads):.2f} to {max(loads):.2f}, median {np.median(loads):.2f}"
        if busy is not None:
            load += (
                f" (the timed commands' own threads included); the other processes used "
                f"{busy:.2f} cores on average while the commands ran (`/proc/stat`)"
            )
        body = page(
            args, n, K, sizes, medians, times, load, small, full, fit_note, encoding, version
        )
        report(TITLE, body, write=not args.no_write)
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
