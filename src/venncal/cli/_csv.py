"""CSV tables read and written with pyarrow, their values copied as the file stores them.

A column the command line only copies (``--keep``) is read as text and written back as the same
text: ``02134``, ``NA``, ``9007199254740993``, ``TRUE`` and ``1e5`` stay what they are, where a
reader that guesses types would turn them into 2134, a missing value, a float, a boolean and
100000.0. Only the columns venncal computes with (scores, interval ends) are parsed as numbers,
by :func:`parse_numbers`, and a value that is not a number is one line naming its file and row.
"""

from __future__ import annotations

import csv
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli._io import InputError

if TYPE_CHECKING:
    import os
    from collections.abc import Collection, Iterator, Sequence

    import pyarrow as pa

    from venncal._typing import FloatArray

__all__ = [
    "csv_header",
    "csv_batches",
    "parse_numbers",
    "repeated_name",
    "write_csv_batch",
    "check_csv_types",
]

#: bytes of CSV text parsed at once at least (a block holds whole rows; see :func:`csv_batches`);
#: pyarrow's reader reads up to 32 blocks ahead of the caller, so this bounds that memory (64 MiB)
BLOCK_BYTES = 2 << 20

#: the largest block tried for a file whose rows are longer than a block
MAX_BLOCK_BYTES = 1 << 30

#: the texts a CSV reader commonly takes for a missing value (those of pandas' reader)
MISSING_TEXTS = frozenset(
    ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
     "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]
)  # fmt: skip


def repeated_name(names: Collection[str]) -> str | None:
    """The first name of ``names`` that occurs more than once, or None (linear time)."""
    if len(set(names)) == len(names):
        return None
    seen = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def separator(path: str | os.PathLike[str], sep: str | None = None) -> str:
    """The field separator of a CSV file: ``sep`` if given, else tab for .tsv, else comma."""
    if sep:
        return sep
    return "\t" if str(path).lower().endswith(".tsv") else ","


def csv_header(
    path: str | os.PathLike[str], what: str, sep: str | None = None
) -> tuple[list[str], int]:
    """The column names of a CSV file and the length of its header in bytes (about).

    An empty file and a header that is not UTF-8 text are one line each. ``sep``: the field
    separator (None: by the suffix, see :func:`separator`).
    """
    sep = separator(path, sep)
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            header = next(csv.reader(fh, delimiter=sep), None)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"cannot read {what} {str(path)!r}: it is not UTF-8 text (byte {exc.start} cannot "
            "be decoded); save it as UTF-8."
        ) from None
    except csv.Error as exc:
        raise InputError(f"cannot read {what} {str(path)!r} as CSV: {exc}.") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}.") from None
    if not header:
        raise InputError(
            f"cannot read {what} {str(path)!r} as CSV: it is empty or its first line (the "
            "header) is."
        )
    return header, len(sep.join(header).encode("utf-8", "replace"))


def csv_batches(
    path: str | os.PathLike[str],
    columns: Sequence[str],
    what: str,
    *,
    header_bytes: int = 0,
    batch_rows: int = 1 << 20,
    sep: str | None = None,
    one_column: bool = False,
) -> Iterator[pa.RecordBatch]:
    """Yield record batches of ``columns`` of a CSV file, every value as the text it stores.

    Nothing is guessed: an empty field is the empty string, never a missing value. Quoted
    fields may hold separators and line breaks. An empty line is skipped, unless the file has
    ``one_column``: there it is a row whose value is empty (as ``cut`` writes one), not nothing.
    A file whose rows are longer than a block is read again with larger blocks, from the row it
    had reached. Batches hold at most ``batch_rows`` rows.
    """
    block = max(BLOCK_BYTES, 4 * header_bytes)
    done = 0  # rows yielded so far
    while True:
        skip = done
        try:
            for batch in _read_blocks(path, columns, block, separator(path, sep), one_column):
                if skip >= batch.num_rows:
                    skip -= batch.num_rows
                    continue
                batch, skip = batch.slice(skip), 0
                for start in range(0, batch.num_rows, batch_rows):
                    part = batch.slice(start, batch_rows)
                    done += part.num_rows
                    yield part
            return
        except _LongRow:
            if block >= MAX_BLOCK_BYTES:
                raise InputError(
                    f"cannot read {what} {str(path)!r} as CSV: a row after row {done} is longer "
                    f"than {MAX_BLOCK_BYTES >> 20} MiB."
                ) from None
            block *= 4
        except MemoryError:
            raise
        except Exception as exc:  # pyarrow raises ArrowInvalid and OSError for a bad file
            raise _csv_error(exc, path, what, done) from None


class _LongRow(Exception):
    """A row longer than the block being parsed."""


def _read_blocks(path, columns, block, sep, one_column=False):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    try:
        reader = pcsv.open_csv(
            path,
            # one thread: pyarrow's messages then give the row (no slower for one stream)
            read_options=pcsv.ReadOptions(block_size=block, use_threads=False),
            parse_options=pcsv.ParseOptions(
                delimiter=sep, newlines_in_values=True, ignore_empty_lines=not one_column
            ),
            convert_options=pcsv.ConvertOptions(
                include_columns=list(columns),
                column_types={c: pa.string() for c in columns},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
        with reader:
            yield from reader
    except pa.ArrowInvalid as exc:
        if "straddling" in str(exc) or "block size" in str(exc):
            raise _LongRow() from None
        raise


_COLUMNS = re.compile(r"(?:Row #(\d+): )?Expected (\d+) columns?, got (\d+)")


def _csv_error(exc, path, what, done):
    text = str(exc).strip()
    if isinstance(exc, InputError):
        return exc
    found = _COLUMNS.search(text)
    if found:
        row, expected, got = found.groups()
        # pyarrow counts the header as row 1; messages count data rows from 0
        where = f"row {int(row) - 2}" if row else f"a row after row {done}"
        return InputError(
            f"cannot read {what} {str(path)!r} as CSV: {where} has {got} fields but the "
            f"header has {expected}; every row needs one value per column."
        )
    if "UTF8" in text or "UTF-8" in text:
        return InputError(
            f"cannot read {what} {str(path)!r}: it is not UTF-8 text (a value after row {done} "
            "cannot be decoded); save it as UTF-8."
        )
    first = text.splitlines()[0][:200] if text else type(exc).__name__
    if isinstance(exc, OSError) and getattr(exc, "strerror", None):
        first = exc.strerror
    return InputError(f"cannot read {what} {str(path)!r} as CSV: {first}")


def parse_numbers(
    col: pa.Array, name: str, path: str | os.PathLike[str], offset: int, option: str = "--score"
) -> FloatArray:
    """The values of a text column as float64; the first one that is not a number is one line.

    Surrounding spaces are allowed; ``nan`` and ``inf`` are numbers here (the caller refuses
    them with its own message); an empty field or ``NA`` is a missing value.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        values = pc.cast(col, pa.float64())
    except pa.ArrowInvalid:
        col = pc.utf8_trim_whitespace(col)
        try:
            values = pc.cast(col, pa.float64())
        except pa.ArrowInvalid:
            row = _first_failure(col, pa, pc)
            text = col[row].as_py()
            if text in MISSING_TEXTS:
                raise InputError(
                    f"{str(path)!r}: column {name!r} ({option}) has a missing value at row "
                    f"{offset + row} ({text!r}); every row needs a score."
                ) from None
            raise InputError(
                f"{str(path)!r}: column {name!r} ({option}) must hold numbers; row "
                f"{offset + row} holds {text[:80]!r}."
            ) from None
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    # the data buffer itself (a cast result has no nulls): pyarrow's to_numpy imports pandas
    return np.frombuffer(values.buffers()[1], np.float64, len(values), values.offset * 8)


def _first_failure(col, pa, pc):
    """The first row whose text is not a number (a failing cast is found by bisection)."""
    low, high = 0, len(col)  # the prefix [0, high) fails, [0, low) casts
    while high - low > 1:
        mid = (low + high) // 2
        try:
            pc.cast(col.slice(low, mid - low), pa.float64())
            low = mid
        except pa.ArrowInvalid:
            high = mid
    return low


def _write_options(sep, header):
    import pyarrow.csv as pcsv

    return pcsv.WriteOptions(include_header=header, delimiter=sep, batch_size=1 << 16)


def check_csv_types(schema, path, what):
    """Refuse up front a column of a type that CSV cannot hold (lists, structs, maps)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    def empty(fields):  # (schema.empty_table would import pandas)
        fields = pa.schema(fields)
        arrays = [pa.nulls(0, f.type) for f in fields]
        return pa.RecordBatch.from_arrays(arrays, schema=fields)

    kinds = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)
    try:
        pcsv.write_csv(empty(schema), pa.BufferOutputStream())
        return
    except kinds:
        pass
    for field in schema:
        try:
            pcsv.write_csv(empty([field]), pa.BufferOutputStream())
        except kinds:
            raise InputError(
                f"column {field.name!r} holds values of type {field.type}, which CSV cannot "
                f"hold; write {what} {str(path)!r} as Parquet, or leave the column out with "
                "--keep."
            ) from None


def write_csv_batch(batch: pa.RecordBatch, sink: Any, sep: str, header: bool) -> None:
    """Write a record batch as CSV text: values exactly (floats in their shortest form that
    reads back as the same number), text quoted, missing values as empty fields."""
    import pyarrow.csv as pcsv

    pcsv.write_csv(batch, sink, write_options=_write_options(sep, header))
