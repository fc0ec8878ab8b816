"""Run a grid of experiment cells in parallel, resumably, with deterministic seeds.

A *cell* is a small dict of JSON-able key fields, e.g.
``{"dataset": "vote", "classifier": "nb", "method": "va", "split": 3}``. A user function turns a
cell into result rows (dicts holding metric columns); :func:`run_grid` runs every cell through
joblib (locally with loky, or on a Dask cluster), shows a progress bar, appends the rows of each
finished cell to a CSV file, and returns one tidy :class:`pandas.DataFrame`.

Seeds never depend on which worker runs a cell or in which order cells finish: a function derives
the seed of a cell from a hash of its sorted key with :func:`cell_seed`.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import importlib.util
import io
import json
import math
import numbers
import os
import sys
import threading
import time
import warnings
import zlib
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from venncal._files import write_bytes, write_text
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


__all__ = ["run_grid", "cell_seed", "cell_id", "check_results_file"]

#: Name of the column that identifies the cell of each row in the table and the CSV file.
CELL_ID = "cell_id"

#: Name of the last column of the CSV file: the check of each record (rows of its cell, CRC-32).
_CHECK = "record_check"

_BACKENDS = ("loky", "dask")


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(
        f"cell values must be JSON-able (str, int, float, bool, None, lists, dicts); "
        f"got {type(value).__name__}"
    )


def _canonical(cell):
    if not isinstance(cell, dict):
        raise TypeError(f"a cell must be a dict of key fields, got {type(cell).__name__}.")
    try:
        return json.dumps(
            cell, sort_keys=True, separators=(",", ":"), default=_json_default, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cell {cell!r} is not JSON-able: {exc}") from None


def cell_id(cell: dict[str, Any]) -> str:
    """Return a stable 16-hex-digit identifier of a cell (a hash of its sorted key).

    Parameters
    ----------
    cell : dict
        JSON-able key fields. The order of the keys does not matter.

    Returns
    -------
    str

    Examples
    --------
    >>> cell_id({"dataset": "vote", "split": 1}) == cell_id({"split": 1, "dataset": "vote"})
    True
    >>> cell_id({"dataset": "vote", "split": 1}) == cell_id({"dataset": "vote", "split": 2})
    False
    """
    return hashlib.sha256(_canonical(cell).encode("utf-8")).hexdigest()[:16]


def cell_seed(cell: dict[str, Any], base_seed: int = 0) -> int:
    """Return the seed of a cell: a hash of its sorted key and a base seed.

    The seed is the same on every machine, in every process and in every Python session
    (unlike the salted built-in ``hash``), whatever the worker or the order in which cells run.

    Parameters
    ----------
    cell : dict
        JSON-able key fields. The order of the keys does not matter.
    base_seed : int, default=0
        Changes every seed of the grid at once (e.g. to repeat a study with fresh randomness).

    Returns
    -------
    seed : int in [0, 2**32 - 1]
        Usable as ``random_state`` by numpy and scikit-learn.

    Examples
    --------
    >>> a = cell_seed({"dataset": "vote", "split": 1})
    >>> a == cell_seed({"split": 1, "dataset": "vote"}), 0 <= a < 2**32
    (True, True)
    >>> a == cell_seed({"dataset": "vote", "split": 1}, base_seed=1)
    False
    """
    if isinstance(base_seed, bool) or not isinstance(base_seed, numbers.Integral):
        raise TypeError(f"'base_seed' must be an integer, got {base_seed!r}.")
    text = f"{int(base_seed)}|{_canonical(cell)}"
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)


def _run_cell(func, cell):
    rows = func(cell)
    if rows is None:
        rows = []
    elif isinstance(rows, dict):
        rows = [rows]
    out = []
    for row in rows:
        if not isinstance(row, dict):
            raise TypeError(
                f"func must return a list of dicts (result rows); got a {type(row).__name__} "
                f"for cell {cell!r}."
            )
        merged = {**cell, **row}
        for key, value in cell.items():
            if merged[key] != value:
                raise ValueError(
                    f"func returned a row whose key field {key!r} is {merged[key]!r}, not the "
                    f"cell's {value!r}; result rows must not change the key fields."
                )
        out.append({k: _flatten(v) for k, v in merged.items()})
    return out


def _flatten(value):
    """Store nested values (lists, dicts) as JSON text so that they fit in one CSV cell."""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, sort_keys=True, default=_json_default)
    if isinstance(value, np.generic):
        return value.item()
    return value


# ----------------------------------------------------------------------------- CSV store
# Every record of the results file ends with a check field "<rows of its cell>:<crc32>", so a
# record torn by a crash (or edited by hand) is recognised, and so is a cell with a row missing.
# Such cells are dropped (with a warning) and run again.


def _text(value):
    """The text of one value in the results file (what ``DataFrame.to_csv`` would write)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _crc(fields):
    data = "\x1f".join(fields).encode("utf-8", "surrogateescape")
    return format(zlib.crc32(data), "08x")


def _check_field(fields, n_rows):
    return f"{n_rows}:{_crc(fields)}"


def _csv_text(records):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(records)
    return buf.getvalue()


def _parse(text):
    """Records of a CSV text; a line the csv module cannot parse is kept as one broken field."""
    try:
        return list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error:
        records = []
        for line in text.split("\n"):
            try:
                records += list(csv.reader([line]))
            except csv.Error:
                records.append([None])
        return records


def _load_store(path):
    """Read a results file: (header, valid records with their check field, records dropped).

    Returns ``(None, [], 0)`` when the file is missing or empty. Raises ValueError when the file
    is not a results file of this runner.
    """
    if os.path.isdir(path):
        raise ValueError(
            f"cannot use {path!r} as the results file: it is a folder; move it away or choose "
            "another output."
        )
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None, [], 0
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        text = fh.read()
    records = [r for r in _parse(text) if r]
    header = records[0] if records else []
    if CELL_ID not in header or len(set(header)) != len(header) or None in header:
        raise ValueError(
            f"cannot resume from {path!r}: it has no {CELL_ID!r} column, so it was not "
            "written by run_grid; move it away or choose another output."
        )
    body = records[1:]
    checked = header[-1] == _CHECK
    if not checked:  # a file of an older venncal: count the rows of each cell
        header = header + [_CHECK]
    width = len(header)
    where = header.index(CELL_ID)
    good = []
    for k, rec in enumerate(body):
        last = k == len(body) - 1
        if None in rec or (last and not text.endswith("\n")):
            continue
        if not checked:
            rec = rec + [""]
        if len(rec) != width:
            continue
        if checked:
            n_rows, _, crc = rec[-1].partition(":")
            if not n_rows.isdigit() or crc != _crc(rec[:-1]):
                continue
        good.append(rec)
    counts = {}
    for rec in good:
        counts[rec[where]] = counts.get(rec[where], 0) + 1
    if not checked:
        good = [rec[:-1] + [_check_field(rec[:-1], counts[rec[where]])] for rec in good]
    # a cell is finished only if every one of its rows is intact
    valid = [rec for rec in good if int(rec[-1].partition(":")[0]) == counts[rec[where]]]
    return header, valid, len(body) - len(valid)


def check_results_file(path: str | os.PathLike[str]) -> None:
    """Check that ``path`` is missing, empty, or a results file written by :func:`run_grid`.

    Parameters
    ----------
    path : str or path-like

    Raises
    ------
    ValueError
        If ``path`` is a folder or a file this runner did not write (no ``cell_id`` column).
    """
    _load_store(os.fspath(path))


def _read_store(path, dtype=None):
    """The rows of a results file as a DataFrame (without the check column), or None."""
    header, records, _ = _load_store(path)
    if header is None:
        return None
    text = _csv_text([header[:-1]] + [r[:-1] for r in records])
    return pd.read_csv(io.StringIO(text), dtype=dtype)


def _read_done(out_csv):
    """Open the results file: drop torn or corrupt cells and return the finished cell ids."""
    if out_csv is None:
        return None, set()
    header, records, dropped = _load_store(out_csv)
    if header is None:
        return None, set()
    if dropped:
        warnings.warn(
            f"{out_csv!r}: {dropped} torn or corrupt record(s) dropped; their cells are run again.",
            VenncalWarning,
            stacklevel=3,
        )
    with open(out_csv, "rb") as fh:
        on_disk = fh.read()
    clean = _csv_text([header] + records).encode("utf-8", "surrogateescape")
    if on_disk != clean:
        write_bytes(out_csv, clean)
    where = header.index(CELL_ID)
    return header, {rec[where] for rec in records}


class _CsvAppender:
    """Append the rows of each finished cell to the results file, one fsync per cell.

    The file is created (and rewritten when a new column appears) atomically; appended records
    carry a check field, so a record torn by a crash is recognised when the run is resumed.
    """

    def __init__(self, path, header):
        self.path = path
        self.columns = None if header is None else header[:-1]

    def _records(self, rows, columns):
        out = []
        for row in rows:
            fields = [_text(row.get(c)) for c in columns]
            out.append(fields + [_check_field(fields, len(rows))])
        return out

    def append(self, rows):
        if not rows:
            return
        seen = list(dict.fromkeys(k for r in rows for k in r))
        if self.columns is None:
            self.columns = seen
            text = _csv_text([self.columns + [_CHECK]] + self._records(rows, self.columns))
            write_text(self.path, text)
            return
        new = [c for c in seen if c not in self.columns]
        if new:
            _, old, _ = _load_store(self.path)
            counts = {}
            where = self.columns.index(CELL_ID)
            for rec in old:
                counts[rec[where]] = counts.get(rec[where], 0) + 1
            padded = [rec[:-1] + [""] * len(new) for rec in old]
            old = [f + [_check_field(f, counts[f[where]])] for f in padded]
            self.columns = self.columns + new
            text = _csv_text([self.columns + [_CHECK]] + old + self._records(rows, self.columns))
            write_text(self.path, text)
            return
        with open(self.path, "a", encoding="utf-8", newline="") as fh:
            fh.write(_csv_text(self._records(rows, self.columns)))
            fh.flush()
            os.fsync(fh.fileno())


# ----------------------------------------------------------------------------- backends
@contextlib.contextmanager
def _dask_client(scheduler, n_jobs):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ImportError(
            "backend='dask' needs dask.distributed; pip install \"venncal[dask]\"."
        ) from None
    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is None:
        n_workers = os.cpu_count() if n_jobs in (None, -1) else max(1, int(n_jobs))
        with (
            LocalCluster(
                n_workers=n_workers, threads_per_worker=1, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = Client(scheduler)  # an address, or a cluster object
    except (OSError, TimeoutError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConnectionError(f"cannot reach the Dask scheduler {scheduler!r}: {first}") from None
    with client:
        yield client


def _has_distributed():
    try:
        return importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):
        return False


def _check_args(cells, func, n_jobs, backend, scheduler, progress):
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"'progress' must be True, False or None, got {progress!r}.")
    if not callable(func):
        raise TypeError(f"'func' must be callable (cell -> list of row dicts), got {func!r}.")
    if isinstance(cells, dict) or not hasattr(cells, "__iter__"):
        raise TypeError("'cells' must be a list of dicts of key fields.")
    if backend not in _BACKENDS:
        raise ValueError(
            f"The 'backend' parameter of run_grid must be one of {{'loky', 'dask'}}. "
            f"Got {backend!r} instead."
        )
    if scheduler is not None and backend != "dask":
        raise ValueError("'scheduler' is only used with backend='dask'; pass backend='dask'.")
    if backend == "dask" and not _has_distributed():
        raise ImportError("backend='dask' needs dask.distributed; pip install \"venncal[dask]\".")
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0
    ):
        raise ValueError(f"'n_jobs' must be a non-zero integer or None, got {n_jobs!r}.")


def run_grid(
    cells: Sequence[dict[str, Any]],
    func: Callable[[dict[str, Any]], list[dict[str, Any]] | None],
    *,
    out_csv: str | os.PathLike[str] | None = None,
    n_jobs: int | None = 1,
    backend: str = "loky",
    scheduler: Any = None,
    progress: bool | None = True,
) -> pd.DataFrame:
    """Run ``func`` on every cell of a grid and collect the result rows in one table.

    Parameters
    ----------
    cells : list of dict
        The grid: each cell is a dict of JSON-able key fields (e.g. dataset, classifier, method,
        split). Cells must be distinct.
    func : callable
        ``func(cell) -> list[dict]``: the result rows of one cell. Each row holds metric columns;
        the cell's key fields are added to it (a row may repeat them, not change them). It must
        be picklable (a module-level function) for parallel runs, and should derive its
        randomness from ``cell_seed(cell, base_seed)``.
    out_csv : str or path-like, default=None
        The results file. The rows of each cell are appended as soon as it finishes, so an
        interrupted run loses only the cells that were running. Cells already in the file are
        skipped: rerunning the same grid resumes it. A cell that returns no rows is not
        recorded and is run again next time.
    n_jobs : int or None, default=1
        Number of parallel jobs (joblib's meaning: -1 uses every core). With ``backend="dask"``
        and no scheduler, the number of workers of the local cluster.
    backend : {"loky", "dask"}, default="loky"
        ``"loky"`` runs on local processes. ``"dask"`` runs through joblib's Dask backend on the
        cluster at ``scheduler``.
    scheduler : str, distributed.Client or cluster, default=None
        With ``backend="dask"``: the scheduler's address (e.g. ``"tcp://10.0.0.1:8786"``), a
        connected client, or a cluster object. ``None`` starts a ``LocalCluster`` for the run.
    progress : bool or None, default=True
        Show a progress bar (tqdm, on standard error). ``None`` shows it only when standard
        error is a terminal, so that logs and pipes are not filled with redrawn bars.

    Returns
    -------
    table : pandas.DataFrame
        One row per result row, the rows of each cell together and the cells in the order given
        (finished ones read back from ``out_csv``), with a ``cell_id`` column and then the key
        and metric columns. The table does not depend on ``n_jobs``, the backend, or the order in
        which cells finish.

    Raises
    ------
    ValueError
        If cells repeat, are not JSON-able, or ``out_csv`` is not a results file of this runner.

    Examples
    --------
    >>> def square(cell):
    ...     rng = np.random.default_rng(cell_seed(cell))
    ...     return [{"value": cell["x"] ** 2, "noise": rng.random() < 2}]
    >>> cells = [{"x": x} for x in range(4)]
    >>> table = run_grid(cells, square, progress=False)
    >>> table.drop(columns="cell_id")
       x  value  noise
    0  0      0   True
    1  1      1   True
    2  2      4   True
    3  3      9   True
    >>> bool(table["cell_id"].nunique() == 4)
    True
    """
    _check_args(cells, func, n_jobs, backend, scheduler, progress)
    cells = list(cells)
    ids = [cell_id(c) for c in cells]
    if len(set(ids)) != len(ids):
        seen, dup = set(), None
        for c, i in zip(cells, ids):
            if i in seen:
                dup = c
                break
            seen.add(i)
        raise ValueError(f"'cells' repeats the cell {dup!r}; every cell must be distinct.")
    out_csv = None if out_csv is None else os.fspath(out_csv)
    header, done_ids = _read_done(out_csv)
    todo = [(i, c) for i, c in zip(ids, cells) if i not in done_ids]
    appender = _CsvAppender(out_csv, header) if out_csv is not None else None

    results = {}
    if todo:
        results = _execute(todo, func, appender, n_jobs, backend, scheduler, progress)
    return _assemble(ids, cells, results, out_csv)


def _execute(todo, func, appender, n_jobs, backend, scheduler, progress):
    from joblib import Parallel, delayed, parallel_config
    from tqdm.auto import tqdm

    results = {}
    # tqdm's disable=None means: off unless the stream is a terminal
    disable = None if progress is None else not progress
    bar = tqdm(total=len(todo), disable=disable, file=sys.stderr, unit="cell")

    def consume(pairs):
        for cid, rows in pairs:
            rows = [{CELL_ID: cid, **r} for r in rows]
            results[cid] = rows
            if appender is not None:
                appender.append(rows)
            bar.update(1)

    def tagged(cid, cell):
        return cid, _run_cell(func, cell)

    try:
        if backend == "loky" and (n_jobs == 1 or len(todo) == 1):
            consume(tagged(cid, cell) for cid, cell in todo)
        elif backend == "loky":
            # workers leave as soon as this process dies (instead of idling for minutes)
            with parallel_config(
                backend="loky", initializer=_exit_with_parent, initargs=(os.getpid(),)
            ):
                parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
                consume(parallel(delayed(_tagged_call)(func, cid, cell) for cid, cell in todo))
        else:
            with _dask_client(scheduler, n_jobs), parallel_config(backend="dask", n_jobs=-1):
                parallel = Parallel(return_as="generator_unordered")
                consume(parallel(delayed(_tagged_call)(func, cid, cell) for cid, cell in todo))
    finally:
        bar.close()
    return results


def _watch_parent(parent_pid, interval):
    while True:
        time.sleep(interval)
        if os.getppid() != parent_pid:
            os._exit(1)


def _exit_with_parent(parent_pid, interval=0.5):
    """Worker initializer: end this worker process when the process that started it dies.

    A loky worker otherwise waits for work until its idle timeout (minutes) after the main
    process was killed. On POSIX a process whose parent died gets a new parent, which a daemon
    thread notices within ``interval`` seconds.
    """
    if os.name != "posix" or os.getppid() != parent_pid:
        return
    threading.Thread(
        target=_watch_parent, args=(parent_pid, interval), daemon=True, name="venncal-parent"
    ).start()


def _tagged_call(func, cid, cell):
    return cid, _run_cell(func, cell)


def _assemble(ids, cells, results, out_csv):
    table = None
    if out_csv is not None:
        # key fields that are text in every cell stay text (e.g. "007" is not read as 7)
        text_keys = {
            k
            for k in {k for c in cells for k in c}
            if all(isinstance(c.get(k), str) for c in cells)
        }
        table = _read_store(out_csv, dtype={CELL_ID: str, **dict.fromkeys(text_keys, str)})
    if table is None:
        rows = [r for cid in ids for r in results.get(cid, [])]
        table = pd.DataFrame(rows)
    if table.empty:
        keys = list(dict.fromkeys(k for c in cells for k in c))
        return pd.DataFrame(columns=[CELL_ID, *keys])
    order = {cid: k for k, cid in enumerate(ids)}
    table = table[table[CELL_ID].isin(order)]
    rank = table[CELL_ID].map(order).to_numpy()
    position = np.arange(len(table))
    table = table.iloc[np.lexsort((position, rank))].reset_index(drop=True)
    keys = list(dict.fromkeys(k for c in cells for k in c))
    first = [CELL_ID] + [k for k in keys if k in table.columns]
    rest = [c for c in table.columns if c not in first]
    return table[first + rest]
