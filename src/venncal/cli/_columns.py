"""The chosen columns of a table read whole: one CSV or Parquet file, or a folder of Parquet
files whose parts may store a column with different number types."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from venncal.cli._io import InputError, get_column, read_table
from venncal.cli._stream import arrow_frame, check_number_columns, open_source

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import pandas as pd

__all__ = ["read_columns"]


def read_columns(
    path: str | os.PathLike[str],
    columns: Sequence[str],
    what: str,
    numbers: Iterable[tuple[str, str]] = (),
    sep: str | None = None,
) -> pd.DataFrame:
    """The given columns of a CSV or Parquet file, or of a folder of Parquet files; Parquet
    columns ``numbers`` (``(name, option)`` pairs) must store numbers, as for apply."""
    path = Path(path)
    if not path.is_dir():
        if path.suffix.lower() in (".parquet", ".pq") and path.is_file():
            source = open_source([path], what)  # checks the file and the column names
            missing = [c for c in columns if c not in (source.columns or [])]
            if not missing:
                import pyarrow.parquet as pq

                check_number_columns(source, numbers)
                # the file's own reader: pq.read_table would import pyarrow.dataset (0.25 s)
                frame = arrow_frame(pq.ParquetFile(path).read(columns=columns))
                if frame.shape[0] == 0:
                    raise InputError(f"{what} {str(path)!r} has no data rows.")
                return frame
        return read_table(path, what, sep)
    source = open_source([path], what)
    missing = [c for c in columns if c not in (source.columns or [])]
    if missing:
        import pandas as pd

        get_column(pd.DataFrame(columns=source.columns), missing[0], path, "--score")
    check_number_columns(source, numbers)
    import pyarrow as pa

    tables = [batch for _, batch in source.chunks(columns)]
    frame = arrow_frame(_combined(pa, tables, what, path)) if tables else None
    if frame is None or frame.shape[0] == 0:
        raise InputError(f"{what} {str(path)!r} has no data rows.")
    return frame


def _combined(pa: Any, batches: list[Any], what: str, path: Path) -> Any:
    """One table of record batches whose files may store a column with different types (an
    integer score in one file, a float score in another): the types are widened when they
    can be, else one line."""
    try:
        return pa.Table.from_batches(batches)
    except pa.ArrowInvalid:
        pass
    try:
        return pa.concat_tables(
            [pa.Table.from_batches([b]) for b in batches], promote_options="permissive"
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        first = str(exc).strip().splitlines()[0]
        raise InputError(
            f"the files of {what} {str(path)!r} store a column with types that cannot be "
            f"combined ({first}); write it with one type in every file."
        ) from None
