"""Pooled calibration tables too large to keep: sorted runs on disk, merged in blocks.

``venncal fit`` pools its calibration rows by distinct score (:mod:`venncal.cli._pooled`). When
the pooled table passes :data:`SPILL_DISTINCT` distinct scores it is written to a temporary
folder as a sorted run and pooling starts again; at the end the runs are merged, block by
block, into one sorted table on disk (:class:`FileTable`), which the fit reads in blocks. So
memory stays bounded however many distinct scores the rows hold; the disk holds about 24
bytes per distinct score, twice over during the merge. The folder is made on first need in the
temporary folder, :func:`temporary_root`, and removed, with everything in it, when the fit
ends, failed or not. A temporary folder that cannot be used is a one-line error, never a silent
move to another folder. The folder's name carries the process and its machine
(:func:`venncal._files.make_temporary_folder`, as for the temporary files of
``venncal apply``): a fit killed before it could remove its folder leaves it to the next fit,
which removes it once that process no longer runs.

A table in memory (:class:`ArrayTable`) and on disk answer the same two questions: ``read``
a range of distinct scores, and their ``blocks`` in order.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np

from venncal._files import make_temporary_folder, remove_leftovers
from venncal.cli._io import InputError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    import numpy.typing as npt

    from venncal._typing import FloatArray

    Counts = npt.NDArray[Any]
    Arrays = tuple[FloatArray, Counts, Counts]

__all__ = [
    "SPILL_DISTINCT",
    "SpillError",
    "READ_BLOCK",
    "SpillFolder",
    "temporary_root",
    "ArrayTable",
    "FileTable",
    "merge_runs",
    "write_run",
    "pool_arrays",
]

#: distinct scores pooled in memory before they are written out as a sorted run
SPILL_DISTINCT = 1 << 20
#: distinct scores per block read back (all runs together, at the merge)
READ_BLOCK = 1 << 18


def temporary_root() -> str:
    """The folder of the fit's temporary files: ``tempfile.tempdir`` if a program set it, else
    the first of the environment variables TMPDIR, TEMP and TMP that is set, else ``/tmp``
    (Windows: the system's temporary folder).

    Unlike :func:`tempfile.gettempdir`, no other folder is tried when this one cannot be
    written: the fit stops with one line naming it.
    """
    if tempfile.tempdir is not None:
        return os.fspath(tempfile.tempdir)
    for name in ("TMPDIR", "TEMP", "TMP"):
        value = os.environ.get(name)
        if value:
            return value
    return tempfile.gettempdir() if sys.platform == "win32" else "/tmp"


class SpillError(InputError):
    """The temporary files cannot be written or read (a one-line error of the command)."""


P = ParamSpec("P")
R = TypeVar("R")


def _disk(func: Callable[P, R]) -> Callable[P, R]:
    """A failure of the temporary files (no room, no permission) as one line."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except OSError as exc:
            raise SpillError(
                f"cannot use the temporary files of the fit in {temporary_root()!r}: "
                f"{exc.strerror or exc}; point TMPDIR to a folder with room (about 48 bytes "
                "per distinct score)."
            ) from None

    return wrapper


def _record(count_dtype: npt.DTypeLike) -> np.dtype[Any]:
    return np.dtype([("value", "<f8"), ("c0", count_dtype), ("c1", count_dtype)])


class SpillFolder:
    """A temporary folder made on first need and removed with its contents on exit; entering
    removes the folders of fits that were killed (:func:`remove_leftovers`)."""

    def __init__(self) -> None:
        self._path: Path | None = None
        self._files = 0

    @_disk
    def new_file(self) -> Path:
        """A fresh file name in the folder (the folder is made on the first call)."""
        if self._path is None:
            self._path = Path(make_temporary_folder(temporary_root(), "fit"))
        self._files += 1
        return self._path / f"table-{self._files}.bin"  # as TMP_FOLDER_FILE says

    def __enter__(self) -> SpillFolder:
        remove_leftovers(temporary_root())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._path is not None:
            shutil.rmtree(self._path, ignore_errors=True)
            self._path = None


def pool_arrays(values: FloatArray, c0: Counts, c1: Counts) -> Arrays:
    """Sort scores (stably: a score's first occurrence gives the sign of a zero) and sum the
    counts of equal scores."""
    order = np.argsort(values, kind="stable")
    values, c0, c1 = values[order], c0[order], c1[order]
    start = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    if start.shape[0] < values.shape[0]:
        c0, c1 = np.add.reduceat(c0, start), np.add.reduceat(c1, start)
        values = values[start]
    return values, c0, c1


class ArrayTable:
    """A pooled table in memory: distinct scores (increasing) and the counts of label keys 0
    and 1 at each."""

    def __init__(self, values: FloatArray, c0: Counts, c1: Counts) -> None:
        self.values, self.c0, self.c1 = values, c0, c1
        self.k = int(values.shape[0])

    @property
    def count_dtype(self) -> np.dtype[Any]:
        """The type of the counts: int64 (unweighted rows) or float64 (sums of weights)."""
        return self.c0.dtype

    def read(self, start: int, stop: int) -> Arrays:
        """Distinct scores ``start`` to ``stop - 1`` and their counts."""
        return self.values[start:stop], self.c0[start:stop], self.c1[start:stop]

    def blocks(self, size: int | None = None) -> Iterator[Arrays]:
        """The table in blocks of ``size`` distinct scores (default :data:`READ_BLOCK`),
        increasing."""
        size = size or READ_BLOCK
        for start in range(0, self.k, size):
            yield self.read(start, start + size)

    def arrays(self) -> Arrays:
        """The whole table."""
        return self.values, self.c0, self.c1


class FileTable(ArrayTable):
    """A pooled table in a file of records (score, count 0, count 1), read in blocks."""

    def __init__(self, path: Path, record: np.dtype[Any], k: int) -> None:
        self.path, self.record, self.k = path, record, k

    @property
    def count_dtype(self) -> np.dtype[Any]:
        return self.record["c0"]

    @_disk
    def read(self, start: int, stop: int) -> Arrays:
        stop = min(stop, self.k)
        with open(self.path, "rb") as f:
            f.seek(start * self.record.itemsize)
            rec = np.fromfile(f, dtype=self.record, count=max(stop - start, 0))
        return rec["value"].copy(), rec["c0"].copy(), rec["c1"].copy()

    def arrays(self) -> Arrays:
        return self.read(0, self.k)


class _RunReader:
    """One sorted run, read a block at a time."""

    def __init__(self, table: ArrayTable, size: int) -> None:
        self.table, self.size, self.at = table, size, 0
        self.buf: Arrays = table.read(0, 0)
        self.pos = 0

    def fill(self) -> None:
        if self.pos == self.buf[0].shape[0] and self.at < self.table.k:
            self.buf, self.pos = self.table.read(self.at, self.at + self.size), 0
            self.at += self.buf[0].shape[0]

    @property
    def done(self) -> bool:
        return self.pos == self.buf[0].shape[0] and self.at >= self.table.k

    @property
    def bound(self) -> float:
        """Every score of the run up to this one is in the buffer."""
        return float(self.buf[0][-1]) if self.at < self.table.k else np.inf

    def take(self, bound: float) -> Arrays:
        stop = int(np.searchsorted(self.buf[0], bound, side="right"))
        part = tuple(a[self.pos : stop] for a in self.buf)
        self.pos = max(stop, self.pos)
        return part  # type: ignore[return-value]


@_disk
def merge_runs(runs: list[ArrayTable], folder: SpillFolder) -> ArrayTable:
    """One sorted table of the union of sorted runs (counts of equal scores summed), on disk.

    Runs are given in the order of the rows they pooled: at equal scores the earliest run's
    score comes first (the sign of a zero).
    """
    if len(runs) == 1:
        return runs[0]
    record = _record(runs[0].count_dtype)
    size = max(READ_BLOCK // len(runs), 64)  # memory of about one block in all
    readers = [_RunReader(run, size) for run in runs]
    path, k = folder.new_file(), 0
    with open(path, "wb") as out:
        while True:
            for r in readers:
                r.fill()
            active = [r for r in readers if not r.done]
            if not active:
                break
            bound = min(r.bound for r in active)
            parts = [r.take(bound) for r in active]
            values, c0, c1 = pool_arrays(*(np.concatenate(p) for p in zip(*parts)))
            _write_records(out, record, values, c0, c1)
            k += values.shape[0]
    for run in runs:  # the runs are merged: their files go now, not with the folder
        if isinstance(run, FileTable):
            run.path.unlink()
    return FileTable(path, record, k)


@_disk
def write_run(table: ArrayTable, folder: SpillFolder) -> FileTable:
    """Write a sorted table to a fresh file of the folder."""
    values, c0, c1 = table.arrays()
    record = _record(table.count_dtype)
    path = folder.new_file()
    with open(path, "wb") as out:
        for start in range(0, table.k, READ_BLOCK):
            part = slice(start, start + READ_BLOCK)
            _write_records(out, record, values[part], c0[part], c1[part])
    return FileTable(path, record, table.k)


def _write_records(
    out: Any, record: np.dtype[Any], values: FloatArray, c0: Counts, c1: Counts
) -> None:
    """Append (score, count 0, count 1) records to the open file ``out``."""
    rec = np.empty(values.shape[0], dtype=record)
    rec["value"], rec["c0"], rec["c1"] = values, c0, c1
    rec.tofile(out)
