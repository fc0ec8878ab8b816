"""Tables read and written in chunks, so memory stays bounded whatever their size.

A :class:`Source` reads one or more CSV or Parquet files, or folders of Parquet files, as a
sequence of chunks (pyarrow record batches; a CSV file's values as the text it stores). A
:class:`Sink` writes chunks to a temporary file in the output's folder and moves it into place
only when every chunk is written, so a reader, or a crash, sees no output or the complete one.
:func:`apply_stream` joins them with a fitted calibrator: the one loop behind ``venncal apply``
and ``venncal calibrate``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._files import make_temporary, move_into_place
from venncal.cli._extras import require_extra
from venncal.cli._io import _CSV, _PARQUET, InputError, _kind, appeared_meanwhile, path_kind

# the predictor of saved models, shared with venncal.load (no scikit-learn)
from venncal.persistence._predictor import SavedVennAbers

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    import numpy.typing as npt
    import pandas as pd

    from venncal._typing import FloatArray

__all__ = [
    "Source",
    "Sink",
    "SavedVennAbers",
    "open_source",
    "apply_stream",
    "calibrated_columns",
    "model_name",
    "BATCH_ROWS",
]

#: rows per chunk: about 8 MB per float column, large enough for full speed
BATCH_ROWS = 1 << 20


def _parquet_files(folder: str | os.PathLike[str], what: str) -> list[Path]:
    files = sorted(
        p
        for p in Path(folder).rglob("*")
        if p.is_file() and p.suffix.lower() in _PARQUET and not p.name.startswith((".", "_"))
    )
    if not files:
        raise InputError(f"{what} {str(folder)!r} is a folder without .parquet files.")
    return files


class Source:
    """Chunks of one or more input tables, all with the same columns.

    Parameters
    ----------
    paths : list of path
        CSV or Parquet files, or folders of Parquet files.
    what : str
        How the inputs are called in messages (e.g. ``"INPUT"``).
    sep : str or None
        Field separator of the CSV inputs (None: tab for .tsv, else comma).
    """

    def __init__(
        self, paths: Iterable[str | os.PathLike[str]], what: str = "INPUT", sep: str | None = None
    ) -> None:
        self.what = what
        self.sep = sep
        self.parts: list[tuple[str, Path]] = []  # (kind, path)
        self._header_bytes: dict[Path, int] = {}  # CSV path -> length of its header
        for path in map(Path, paths):
            found = path_kind(path, what)
            if found == "dir":
                require_extra("pyarrow", "parquet", f"reading Parquet ({what} {str(path)!r})")
                self.parts += [("parquet", p) for p in _parquet_files(path, what)]
                continue
            kind = _kind(path, what)
            if found != "file" or not path.is_file():
                raise InputError(f"{what} {str(path)!r} does not exist or is not a file.")
            # CSV too: its values are read as the text they are by pyarrow's reader
            require_extra("pyarrow", "parquet", f"reading {kind.upper()} ({what} {str(path)!r})")
            self.parts.append((kind, path))
        self.columns, self.num_rows = self._inspect()

    def files(self) -> list[Path]:
        """Every file read (folders expanded)."""
        return [p for _, p in self.parts]

    def _inspect(self) -> tuple[list[str], int | None]:
        columns: list[str] | None = None
        total, counted = 0, True
        for kind, path in self.parts:
            if kind == "parquet":
                import pyarrow.parquet as pq

                try:
                    meta = pq.ParquetFile(path)
                except Exception as exc:  # pyarrow raises several types for a bad file
                    raise InputError(
                        f"cannot read {self.what} {str(path)!r} as PARQUET: {_first_line(exc)}"
                    ) from None
                names = list(meta.schema_arrow.names)
                total += meta.metadata.num_rows
            else:
                from venncal.cli._csv import csv_header

                # the rows are checked as they are read (a field count other than the header's)
                names, self._header_bytes[path] = csv_header(path, self.what, self.sep)
                counted = False  # counting CSV rows means reading the file: not up front
            from venncal.cli._csv import repeated_name

            repeated = repeated_name(names)
            if repeated is not None:
                raise InputError(
                    f"{self.what} {str(path)!r} has the column name {repeated!r} more "
                    "than once; column names must be unique."
                )
            if columns is None:
                columns = names
            elif names != columns:
                raise InputError(
                    f"{self.what} {str(path)!r} has the columns {names[:8]}, unlike "
                    f"{str(self.parts[0][1])!r} ({columns[:8]}); every input needs the same columns."
                )
        if columns is None:
            raise InputError(f"{self.what}: no input table given.")
        return columns, (total if counted else None)

    def chunks(
        self, columns: Sequence[str] | None, batch_rows: int | None = None
    ) -> Iterator[tuple[Any, Any]]:
        """Yield ``(path, chunk)`` with the given columns, in order, ``batch_rows`` (default
        ``BATCH_ROWS``) at a time."""
        batch_rows = batch_rows or BATCH_ROWS
        for kind, path in self.parts:
            if kind == "parquet":
                import pyarrow.parquet as pq

                # without pre-buffering: pyarrow would keep every chunk it read until the end
                reader = pq.ParquetFile(path, pre_buffer=False)
                try:
                    for batch in reader.iter_batches(batch_size=batch_rows, columns=columns):
                        yield path, batch
                except OSError as exc:
                    raise InputError(
                        f"cannot read {self.what} {str(path)!r} as PARQUET: {_first_line(exc)}"
                    ) from None
            else:
                yield from ((path, c) for c in self._csv_chunks(path, columns, batch_rows))

    def _csv_chunks(
        self, path: Path, columns: Sequence[str] | None, batch_rows: int = BATCH_ROWS
    ) -> Iterator[Any]:
        """Record batches of text: a CSV value is copied as the file stores it (see _csv)."""
        from venncal.cli._csv import csv_batches

        header_bytes = self._header_bytes.get(path, 0)
        yield from csv_batches(
            path,
            columns,
            self.what,
            header_bytes=header_bytes,
            batch_rows=batch_rows,
            sep=self.sep,
            one_column=len(self.columns) == 1,
        )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def open_source(
    paths: Iterable[str | os.PathLike[str]], what: str = "INPUT", sep: str | None = None
) -> Source:
    """A :class:`Source` over ``paths``; one-line :class:`InputError` for a bad input."""
    return Source(paths, what, sep)


def _column(chunk: Any, name: str) -> Any:
    """Column ``name`` of a chunk as a numpy array (float64 when numeric)."""
    if hasattr(chunk, "schema"):  # pyarrow record batch
        return chunk.column(chunk.schema.get_field_index(name))
    return chunk[name]


def score_array(
    chunk: Any, name: str, path: str | os.PathLike[str], offset: int, option: str = "--score"
) -> FloatArray:
    """Finite float64 scores of a chunk; anything else is one line naming the first bad row."""
    col = _column(chunk, name)
    if hasattr(col, "type") and str(path).lower().endswith(_CSV):  # text as the file stores it
        from venncal.cli._csv import parse_numbers

        values = parse_numbers(col, name, path, offset, option)
    elif hasattr(col, "type"):  # pyarrow
        check_number_type(col.type, name, path, option)
        if col.null_count:
            import pyarrow.compute as pc

            first = int(pc.index(pc.is_null(col), True).as_py())
            raise InputError(
                f"{str(path)!r}: column {name!r} ({option}) has a missing value at row "
                f"{offset + first}; every row needs a score."
            )
        values = _arrow_numbers(col).astype(np.float64, copy=False)
    else:  # a pandas column from CSV
        import pandas as pd

        numbers = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(numbers).any():
            first = int(np.flatnonzero(np.isnan(numbers))[0])
            raise InputError(
                f"{str(path)!r}: column {name!r} ({option}) must hold numbers; row "
                f"{offset + first} holds {str(col.iloc[first])!r}."
            )
        values = numbers
    if not np.isfinite(values).all():
        nan = np.isnan(values)
        if nan.any():
            first = int(np.flatnonzero(nan)[0])
            text = "holds NaN values; remove or impute them first"
        else:
            first = int(np.flatnonzero(~np.isfinite(values))[0])
            text = "holds infinite values; scores must be finite"
        raise InputError(
            f"{str(path)!r}: column {name!r} ({option}) {text} (first at row {offset + first})."
        )
    return values


def check_number_type(
    arrow_type: Any, name: str, path: str | os.PathLike[str], option: str = "--score"
) -> None:
    """Refuse a Parquet column that does not store numbers (integers or floats)."""
    import pyarrow as pa

    if not (pa.types.is_floating(arrow_type) or pa.types.is_integer(arrow_type)):
        raise InputError(
            f"{str(path)!r}: column {name!r} ({option}) must hold numbers; it is of type "
            f"{arrow_type}."
        )


def check_number_columns(source: Source, columns: Iterable[tuple[str, str]]) -> None:
    """Refuse, before reading, a Parquet input whose ``(name, option)`` columns do not store
    numbers: the same one line as :func:`score_array` gives while reading."""
    for kind, path in source.parts:
        if kind != "parquet":
            continue
        import pyarrow.parquet as pq

        schema = pq.ParquetFile(path).schema_arrow
        for name, option in columns:
            if name in schema.names:
                check_number_type(schema.field(name).type, name, path, option)


def _arrow_numbers(col: Any) -> Any:
    """The values of a numeric pyarrow array without nulls, as a numpy array.

    Read from its data buffer (no copy) where the type is a plain number of fixed width:
    pyarrow's own ``to_numpy`` imports pandas, a fifth of a second at the start of a command.
    """
    dtype = _ARROW_NUMPY.get(str(col.type))
    if dtype is None or len(col.buffers()) != 2:
        return col.to_numpy(zero_copy_only=False)
    data = col.buffers()[1]
    return np.frombuffer(data, dtype=dtype, count=len(col), offset=col.offset * dtype.itemsize)


#: pyarrow's names of the fixed-width number types, and their numpy types
_ARROW_NUMPY: dict[str, np.dtype[Any]] = {
    "halffloat": np.dtype(np.float16),
    "float": np.dtype(np.float32),
    "double": np.dtype(np.float64),
    **{name: np.dtype(name) for name in ("int8", "int16", "int32", "int64")},
    **{name: np.dtype(name) for name in ("uint8", "uint16", "uint32", "uint64")},
}


def arrow_frame(table: Any) -> pd.DataFrame:
    """A pandas frame of a pyarrow table; numeric columns without nulls are not copied.

    pyarrow's ``to_pandas`` copies every column into pandas' blocks (0.4 s for two columns of
    10^7 rows); a frame over the columns' own buffers holds the same values.
    """
    import pandas as pd

    columns = {}
    for name, col in zip(table.column_names, table.columns):
        if col.num_chunks == 1:
            col = col.chunk(0)
        elif str(col.type) in _ARROW_NUMPY and col.null_count == 0:
            col = col.combine_chunks()
        if str(col.type) not in _ARROW_NUMPY or col.null_count:
            return table.to_pandas()
        columns[name] = _arrow_numbers(col)
    return pd.DataFrame(columns, copy=False)


def arrow_float64(values: npt.ArrayLike) -> Any:
    """A pyarrow float64 array over a numpy float64 array, without a copy (nor pandas)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values, dtype=np.float64)
    return pa.Array.from_buffers(pa.float64(), values.shape[0], [None, pa.py_buffer(values)])


def model_name(calibrator: object) -> str:
    """The class name of a calibrator (or of the calibrator a :class:`SavedVennAbers` was)."""
    return getattr(calibrator, "model_name", type(calibrator).__name__)


def calibrated_columns(
    calibrator: Any, scores: FloatArray, prefix: str = "", interval: FloatArray | None = None
) -> dict[str, FloatArray]:
    """The calibrated columns for clean scores: ``p``, and ``p0``, ``p1`` when there are.

    Venn-Abers computes (p0, p1) once and merges them into p (no second prediction).
    ``interval`` (an (m, 2) array) goes to an ACP calibrator's ``predict_proba``. A
    regressor's predictive distribution (:class:`venncal.cli._regression.DistributionColumns`)
    gives its own columns (the median, an interval, quantiles).
    """
    if _is_distribution(calibrator):
        columns: dict[str, FloatArray] = calibrator.distribution_columns(scores, prefix)
        return columns
    if _has_interval(calibrator):
        if isinstance(calibrator, SavedVennAbers):  # the two columns, no (m, 2) array
            p0, p1 = calibrator.predict_p0_p1(scores)
            return venn_abers_columns(p0, p1, calibrator.merge, prefix)
        interval = calibrator.predict_interval(scores)  # prepares the scores itself
        return venn_abers_columns(interval[:, 0], interval[:, 1], calibrator.merge, prefix)
    if interval is not None:
        p = calibrator.predict_proba(scores, interval=interval)[:, 1]
    else:
        # the calibrator's own preparation of test scores (e.g. the rounding of ``decimals``)
        p = calibrator._predict_positive(calibrator._check_predict_input(scores))
    return {prefix + "p": np.ascontiguousarray(p, dtype=np.float64)}


def venn_abers_columns(
    p0: FloatArray, p1: FloatArray, how: str, prefix: str = ""
) -> dict[str, FloatArray]:
    """The columns ``p`` (the merge ``how`` of the pair), ``p0`` and ``p1`` of Venn-Abers."""
    from venncal.core.merge import merge

    p0, p1 = np.ascontiguousarray(p0), np.ascontiguousarray(p1)
    return {prefix + "p": merge(p0, p1, how), prefix + "p0": p0, prefix + "p1": p1}


def _has_interval(calibrator: object) -> bool:
    """Whether the calibrator gives (p0, p1) merged into p (Venn-Abers)."""
    return hasattr(calibrator, "predict_interval") and isinstance(
        getattr(calibrator, "merge", None), str
    )


def _is_distribution(calibrator: object) -> bool:
    """Whether the columns are values of predictive distributions, not probabilities."""
    return hasattr(calibrator, "distribution_columns")


def new_column_names(calibrator: object, prefix: str = "") -> list[str]:
    """Names of the columns :func:`calibrated_columns` adds."""
    if hasattr(calibrator, "column_names"):  # a wrapper that names its own columns
        wrapper: Any = calibrator
        names: list[str] = wrapper.column_names(prefix)
        return names
    extra = [prefix + "p0", prefix + "p1"] if _has_interval(calibrator) else []
    return [prefix + "p", *extra]


def _check_probabilities(
    new: Mapping[str, FloatArray], method: str, source: str | os.PathLike[str], weighted: bool
) -> None:
    for column, values in new.items():
        if values.size == 0:  # a chunk without rows (a file with a header only)
            continue
        low, high = np.min(values), np.max(values)  # NaN propagates: it fails the test below
        if low >= 0 and high <= 1:
            continue
        bad = ~((values >= 0) & (values <= 1))  # False for NaN too
        if bad.any():
            hint = " (rescale --weight)" if weighted else ""
            raise InputError(
                f"{method} fitted on {source} gave {int(bad.sum())} probabilities {column} that "
                f"are not numbers in [0, 1] (first: {float(values[bad][0])!r}){hint}; nothing "
                "was written."
            )


class Sink:
    """Write chunks to a CSV or Parquet file, atomically (temporary file, then ``os.replace``).

    Use as a context manager: the output appears only if the block ends without error; a
    failure (or an interrupt) removes the temporary file and leaves any old output as it was.

    With ``background=True`` (the default) chunks are written by one writer thread, in order,
    while the caller prepares the next ones (pyarrow and the file system release the GIL): at
    most ``QUEUED`` chunks wait, so memory stays bounded. A failure of the writer is raised by
    the next :meth:`write` or at the end of the block, and nothing is moved into place.
    """

    #: chunks waiting for the writer thread at most
    QUEUED = 2

    def __init__(
        self,
        path: str | os.PathLike[str],
        what: str = "--out",
        background: bool = True,
        overwrite: bool | None = None,
        sep: str | None = None,
    ) -> None:
        self.path = Path(path)
        self._overwrite = overwrite
        self.what = what
        self.kind = _kind(self.path, what)
        self.sep = sep or ("\t" if self.path.suffix.lower() == ".tsv" else ",")
        # pyarrow's writer, the open file and its temporary path, from the first write on
        self._writer: Any = None
        self._fh: Any = None
        self._tmp: Any = None
        self._schema: Any = None
        self.rows = 0
        self._background = bool(background)
        self._queue: Any = None
        self._thread: Any = None
        self._error: BaseException | None = None
        self._csv_header = False  # whether the CSV header line is written

    def __enter__(self):
        folder = self.path.parent if str(self.path.parent) else Path(".")
        # the command decided at its start whether an existing output may be replaced (given
        # as ``overwrite``); without it, only a file existing now, never one that appears while
        # the output is written
        if self._overwrite is None:
            self._overwrite = os.path.lexists(self.path)
        try:
            fd, tmp = make_temporary(folder, self.path.name)
        except OSError as exc:
            raise InputError(
                f"cannot write {self.what} {str(self.path)!r}: {exc.strerror or exc}."
            ) from None
        self._tmp = tmp
        try:  # __exit__ does not run if this fails (or is interrupted): remove the file here
            os.close(fd)  # pyarrow writes to the path itself (no Python file layer)
            if self.kind == "csv":
                import pyarrow as pa

                self._fh = pa.OSFile(tmp, "wb")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return self

    def write(self, kept, new):
        """Write the kept columns of a chunk (a record batch or a frame) and the new arrays."""
        self.rows += len(next(iter(new.values())))
        if not self._background:
            self._write_now(kept, new)
            return
        if self._thread is None:
            import queue
            import threading

            self._queue = queue.Queue(maxsize=self.QUEUED)
            self._thread = threading.Thread(target=self._drain, name="venncal-sink", daemon=True)
            self._thread.start()
        if self._error is not None:
            self._raise_error()
        self._queue.put((kept, new))

    def _raise_error(self):
        """Raise the writer thread's error (a file system error as one line)."""
        if isinstance(self._error, OSError):
            raise self._cannot_write(self._error) from None
        raise self._error

    def _cannot_write(self, err):
        return InputError(f"cannot write {self.what} {str(self.path)!r}: {err.strerror or err}.")

    def _drain(self):
        """The writer thread: write queued chunks in order until None; keep the first error."""
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._error is None:
                try:
                    self._write_now(*item)
                except BaseException as exc:  # raised again in the caller's thread
                    self._error = exc

    def _finish_thread(self):
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def _write_now(self, kept, new):
        if self.kind == "parquet":
            self._write_parquet(kept, new)
        else:
            self._write_csv(kept, new)

    def _write_parquet(self, kept, new):
        import pyarrow as pa
        import pyarrow.parquet as pq

        batch = _record_batch(kept, new)
        if self._writer is None:
            self._schema = batch.schema
            self._writer = pq.ParquetWriter(self._tmp, batch.schema)
        elif batch.schema != self._schema:
            try:
                batch = batch.cast(self._schema)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
                raise InputError(
                    f"the inputs' column types differ between files ({batch.schema} against "
                    f"{self._schema}); they cannot go into one Parquet file."
                ) from None
        self._writer.write_batch(batch)

    def _write_csv(self, kept, new):
        from venncal.cli._csv import check_csv_types, write_csv_batch

        batch = _record_batch(kept, new)
        if batch.schema != self._schema:  # the first chunk, or the types of another file
            check_csv_types(batch.schema, self.path, self.what)
            self._schema = batch.schema
        write_csv_batch(batch, self._fh, self.sep, header=not self._csv_header)
        self._csv_header = True

    def __exit__(self, exc_type, exc, tb):
        try:
            self._finish_thread()
            with contextlib.ExitStack() as closing:
                if self._error is not None or exc_type is not None:  # a half-written file
                    closing.enter_context(contextlib.suppress(Exception))
                if self._writer is not None:
                    self._writer.close()
                if self._fh is not None:
                    self._fh.close()
            if self._error is not None and exc_type is None:
                self._raise_error()
            if exc_type is None:
                if self.rows == 0:
                    raise InputError(f"the input has no data rows; {self.what} was not written.")
                _fsync(self._tmp)
                os.chmod(self._tmp, 0o666 & ~_umask())
                try:
                    move_into_place(self._tmp, self.path, overwrite=self._overwrite)
                except FileExistsError:
                    raise appeared_meanwhile(self.path, self.what) from None
        except OSError as err:
            raise self._cannot_write(err) from None
        finally:
            if os.path.exists(self._tmp):
                with contextlib.suppress(OSError):
                    os.unlink(self._tmp)
        return False


def _record_batch(kept, new):
    """One pyarrow record batch of the kept columns (a batch, or a pandas frame) and the new
    float arrays; the kept values are passed on as they are."""
    import pyarrow as pa

    if kept is None:
        arrays, names = [], []
    elif hasattr(kept, "schema"):
        arrays, names = list(kept.columns), list(kept.schema.names)
    else:
        arrays = [pa.array(kept[c].to_numpy(), from_pandas=True) for c in kept.columns]
        names = list(kept.columns)
    arrays += [pa.array(v) if v.dtype == np.bool_ else arrow_float64(v) for v in new.values()]
    names += list(new)
    return pa.record_batch(arrays, names=names)


def _fsync(path: str | os.PathLike[str]) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    from venncal._files import _umask as umask

    return umask()


def apply_stream(
    calibrator: Any,
    source: Source,
    sink: Sink,
    *,
    score: str,
    keep: Sequence[str] | None = None,
    prefix: str = "",
    interval: Sequence[str] | None = None,
    method: str = "the calibrator",
    fitted_on: str = "its calibration data",
    weighted: bool = False,
    progress: bool | None = None,
    accept_threshold: float | None = None,
    accept_lower: bool = False,
) -> int:
    """Calibrate every chunk of ``source`` and write it to ``sink``; return the rows written.

    Parameters
    ----------
    calibrator : fitted score calibrator
    source : Source
    sink : Sink
        Entered already (inside its ``with`` block).
    score : str
        The score column.
    keep : list of str or None
        Columns of the input copied to the output, in this order (None: every column).
    prefix : str
        Prefix of the new column names.
    interval : (str, str) or None
        Columns of the lower and upper end of each score's interval (ACP).
    progress : bool or None
        Progress bar on standard error; None: only on a terminal.
    accept_threshold : float or None
        Add a boolean column ``accept``: the probability of the predicted class,
        ``max(p, 1 - p)``, at least this (an abstention rule's threshold).
    accept_lower : bool
        With ``accept_threshold``: the larger lower end of the Venn-Abers interval,
        ``max(p0, 1 - p1)``, instead of ``max(p, 1 - p)``.
    """
    keep = list(source.columns) if keep is None else list(keep)
    extra = list(getattr(calibrator, "input_columns", ()))  # read besides the scores (segments)
    needed = list(dict.fromkeys([*keep, score, *(interval or ()), *extra]))
    offset, rows, current = 0, 0, None  # offset: rows of the current file before the chunk
    from venncal.cli._progress import progress_bar

    with progress_bar(source.num_rows, progress) as bar:
        for path, chunk in source.chunks(needed):
            if path != current:  # row numbers in messages count from the start of each file
                offset, current = 0, path
            s = score_array(chunk, score, path, offset)
            iv = None
            if interval is not None:
                iv = np.column_stack(
                    [score_array(chunk, c, path, offset, "--interval") for c in interval]
                )
            with np.errstate(all="ignore"):
                try:  # a model that needs more columns of the chunk (segments) reads them
                    new: dict[str, Any] = (
                        calibrator.chunk_columns(s, chunk, path, offset, prefix)
                        if extra
                        else calibrated_columns(calibrator, s, prefix, iv)
                    )
                except ValueError as exc:
                    raise InputError(f"{str(path)!r}: {_first_line(exc)}") from None
            if not _is_distribution(calibrator):
                _check_probabilities(new, method, fitted_on, weighted)
            if accept_threshold is not None:  # as AbstentionRule.accept computes it
                if accept_lower:
                    conf = np.maximum(1.0 - new[prefix + "p1"], new[prefix + "p0"])
                else:
                    conf = np.maximum(1.0 - new[prefix + "p"], new[prefix + "p"])
                new[prefix + "accept"] = conf >= accept_threshold
            kept = _select(chunk, keep) if keep else None
            sink.write(kept, new)
            offset += s.shape[0]
            rows += s.shape[0]
            bar.update(s.shape[0])
    return rows


def _select(chunk: Any, columns: list[str]) -> Any:
    if hasattr(chunk, "schema"):
        if list(chunk.schema.names) == columns:
            return chunk
        return chunk.select(columns)
    return chunk[columns]
