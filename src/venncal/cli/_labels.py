"""Labels on the command line: one rule for every command.

:func:`~venncal.cli._io.labels_column` is the rule: any two classes, ``--positive`` naming the
positive one, else the larger (1 of 0/1 or -1/1, True of booleans, the later name in sorted
order); a third class, fractions or a missing label is one line with exit code 2. Commands that
read a table in memory (``fit``, ``evaluate``, ``compare``, ``calibrate``) apply it to the
column; the others apply it to the column's distinct values, read as the in-memory reading
would read them (:func:`keys_frame`), and code the rows from the result: the pooled fit, the
Dask and Spark fits, and ``venncal monitor`` (:class:`StreamLabels`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli._io import _CSV, InputError, labels_column

if TYPE_CHECKING:
    import os

    import numpy.typing as npt
    import pandas as pd

__all__ = ["keys_frame", "StreamLabels"]

#: distinct label texts a stream may show before its classes are counted (many more than two
#: only when a CSV writes one class in several ways, such as 1 and 1.0)
_KEYS_CHECKED = 64


def keys_frame(keys: list[Any], label: str, kind: Any) -> pd.DataFrame | None:
    """The distinct label values ``keys`` of a file, read as the whole column would be.

    ``kind`` is ``"csv"`` for the text a CSV stores (read by pandas, which infers the type from
    the values, as :func:`~venncal.cli._io.read_table` does) or the pyarrow type of a Parquet
    column (values by their own type). None when a key reads as a missing value.
    """
    if kind == "csv":
        import csv
        import io

        import pandas as pd

        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow([label])
        writer.writerows([k] for k in keys)
        frame = pd.read_csv(io.StringIO(text.getvalue()), index_col=False)
    else:
        import pyarrow as pa

        from venncal.cli._stream import arrow_frame

        frame = arrow_frame(pa.table({label: pa.array(keys, type=kind)}))  # type: ignore[no-untyped-call]
    if frame.shape[0] != len(keys) or frame[label].isna().any():
        return None
    return frame


class StreamLabels:
    """0/1 labels of a stream read chunk by chunk, by the rule of every other command.

    The label column is scanned once up front for its distinct values (and its first missing
    label); :func:`~venncal.cli._io.labels_column` decides on them, as evaluation does (one
    class is accepted when it is unambiguous). :meth:`codes` then codes each chunk by lookup.

    Parameters
    ----------
    source : venncal.cli._stream.Source
        The stream.
    name : str
        The label column.
    positive : str or None
        The ``--positive`` label.
    option : str, default="--label"
        The option named in messages.
    """

    def __init__(
        self, source: Any, name: str, positive: str | None, option: str = "--label"
    ) -> None:
        self.name, self.option = name, option
        keys: dict[Any, dict[Any, None]] = {}  # kind -> its distinct keys, in order
        where = None
        for path, chunk, offset in _with_offsets(source.chunks([name])):
            col = chunk.column(0)
            self._check_present(col, path, offset)
            kind = _kind_of(path, col)
            seen = keys.setdefault(kind, {})
            before = len(seen)
            try:
                seen.update(dict.fromkeys(_unique(col)))
            except TypeError:  # unhashable values: lists, maps
                raise InputError(
                    f"{str(path)!r}: column {name!r} ({option}) holds values of type {col.type}; "
                    "labels must be numbers, booleans or names."
                ) from None
            if len(seen) > before:
                where = path
            if sum(map(len, keys.values())) > _KEYS_CHECKED:
                break  # more classes than two: the rule says so below
        if where is None:
            raise InputError("STREAM has no data rows; nothing to monitor.")
        self.positives = self._decide(keys, where, positive)

    def _check_present(self, col: Any, path: Any, offset: int) -> None:
        """One line naming the first missing label of a chunk (null, NaN, or a CSV's NA text)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from venncal.cli._csv import MISSING_TEXTS

        missing = pc.is_null(col, nan_is_null=True)
        if _is_csv(path):
            missing = pc.or_(missing, pc.is_in(col, value_set=pa.array(sorted(MISSING_TEXTS))))
        if pc.any(missing).as_py():
            first = int(pc.index(missing, True).as_py())
            raise InputError(
                f"{str(path)!r}: column {self.name!r} ({self.option}) has a missing label at "
                f"row {offset + first}; every row needs a label."
            )

    def _decide(
        self, keys: dict[Any, dict[Any, None]], path: Any, positive: str | None
    ) -> dict[Any, Any]:
        """The positive keys of each kind, by :func:`~venncal.cli._io.labels_column`."""
        import pandas as pd

        parts = []
        for kind, seen in keys.items():
            frame = keys_frame(list(seen), self.name, kind)
            if frame is None:
                raise InputError(
                    f"{str(path)!r}: column {self.name!r} ({self.option}) has missing labels; "
                    "every row needs a label."
                )
            parts.append(frame[self.name])
        values = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
        y = labels_column(
            pd.DataFrame({self.name: values}), self.name, path, positive, self.option,
            one_class_ok=True,
        )  # fmt: skip
        out, start = {}, 0
        for kind, seen in keys.items():
            flags = y[start : start + len(seen)]
            out[kind] = [k for k, f in zip(seen, flags) if f == 1]
            start += len(seen)
        return out

    def codes(self, path: str | os.PathLike[str], chunk: Any) -> npt.NDArray[np.int8]:
        """The 0/1 labels of a chunk (a pyarrow batch) of the scanned stream."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from venncal.cli._stream import _column

        col = _column(chunk, self.name)  # type: ignore[no-untyped-call]
        kind = _kind_of(path, col)
        found = pc.is_in(col, value_set=pa.array(self.positives[kind], type=col.type))
        return np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int8)


def _is_csv(path: Any) -> bool:
    return str(path).lower().endswith(_CSV)


def _kind_of(path: Any, col: Any) -> Any:
    return "csv" if _is_csv(path) else col.type


def _unique(col: Any) -> list[Any]:
    import pyarrow.compute as pc

    return pc.unique(col).to_pylist()  # type: ignore[no-any-return]


def _with_offsets(chunks: Any) -> Any:
    """``(path, chunk, row of the chunk's first row in its file)`` for each chunk."""
    current, offset = None, 0
    for path, chunk in chunks:
        if path != current:
            current, offset = path, 0
        yield path, chunk, offset
        offset += chunk.num_rows
