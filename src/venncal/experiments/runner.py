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
import hashlib
import json
import numbers
import os
import sys

import numpy as np
import pandas as pd

__all__ = ["run_grid", "cell_seed", "cell_id"]

#: Name of the column that identifies the cell of each row in the table and the CSV file.
CELL_ID = "cell_id"

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


def cell_id(cell):
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


def cell_seed(cell, base_seed=0):
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
def _read_done(out_csv):
    """Return the rows already in ``out_csv`` (or None) and the set of finished cell ids."""
    if out_csv is None or not os.path.exists(out_csv) or os.path.getsize(out_csv) == 0:
        return None, set()
    try:
        done = pd.read_csv(out_csv)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"cannot resume from {out_csv!r}: it is not a results CSV ({exc}); "
            "move it away or choose another output."
        ) from None
    if CELL_ID not in done.columns:
        raise ValueError(
            f"cannot resume from {out_csv!r}: it has no {CELL_ID!r} column, so it was not "
            "written by run_grid; move it away or choose another output."
        )
    return done, set(done[CELL_ID].astype(str))


class _CsvAppender:
    """Append rows to a CSV file; rewrite it when a new column appears."""

    def __init__(self, path, existing):
        self.path = path
        self.columns = list(existing.columns) if existing is not None else None

    def append(self, rows):
        if not rows:
            return
        frame = pd.DataFrame(rows)
        if self.columns is None:
            self._write(frame, mode="w", header=True)
            self.columns = list(frame.columns)
            return
        new = [c for c in frame.columns if c not in self.columns]
        if new:
            old = pd.read_csv(self.path)
            self.columns = self.columns + new
            merged = pd.concat([old, frame], ignore_index=True)[self.columns]
            tmp = self.path + ".tmp"
            merged.to_csv(tmp, index=False)
            os.replace(tmp, self.path)
            return
        self._write(frame.reindex(columns=self.columns), mode="a", header=False)

    def _write(self, frame, mode, header):
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        frame.to_csv(self.path, mode=mode, header=header, index=False)


# ----------------------------------------------------------------------------- backends
@contextlib.contextmanager
def _dask_client(scheduler, n_jobs):
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - dask is a declared optional dependency
        raise ImportError(
            "backend='dask' needs dask.distributed; install it with pip install 'venncal[dask]'."
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
    with Client(scheduler) as client:  # an address, or a cluster object
        yield client


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
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0
    ):
        raise ValueError(f"'n_jobs' must be a non-zero integer or None, got {n_jobs!r}.")


def run_grid(cells, func, *, out_csv=None, n_jobs=1, backend="loky", scheduler=None, progress=True):
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
    done_rows, done_ids = _read_done(out_csv)
    todo = [(i, c) for i, c in zip(ids, cells) if i not in done_ids]
    appender = _CsvAppender(out_csv, done_rows) if out_csv is not None else None

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
            parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            consume(parallel(delayed(_tagged_call)(func, cid, cell) for cid, cell in todo))
        else:
            with _dask_client(scheduler, n_jobs), parallel_config(backend="dask", n_jobs=-1):
                parallel = Parallel(return_as="generator_unordered")
                consume(parallel(delayed(_tagged_call)(func, cid, cell) for cid, cell in todo))
    finally:
        bar.close()
    return results


def _tagged_call(func, cid, cell):
    return cid, _run_cell(func, cell)


def _assemble(ids, cells, results, out_csv):
    if out_csv is not None and os.path.exists(out_csv) and os.path.getsize(out_csv) > 0:
        # key fields that are text in every cell stay text (e.g. "007" is not read as 7)
        text_keys = {
            k
            for k in {k for c in cells for k in c}
            if all(isinstance(c.get(k), str) for c in cells)
        }
        table = pd.read_csv(out_csv, dtype={CELL_ID: str, **dict.fromkeys(text_keys, str)})
    else:
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
