"""Calibration within groups (a Mondrian taxonomy) on the command line: ``--group COLUMN``.

``venncal fit --group g`` fits one calibrator per value of the column ``g`` (binary Venn-Abers,
the Venn-Abers predictive distribution, multiclass Venn-Abers: the calibrators whose ``fit``
takes ``groups=``) and records the column's name in the model file (metadata ``group``);
``venncal apply`` of such a model reads the same column of its inputs, chunk by chunk, and
predicts each row with its own group's calibrator: the numbers of
``venncal.load(model).predict_proba(scores, groups=g)`` (or ``predict_interval``,
``predict_quantiles``), bit for bit.

Group values are text, read the same way at fit and at apply (as segment columns are: see
:mod:`venncal.cli._segments`): a CSV value as the file stores it, a Parquet value as Python
prints it (``1``, ``True``). A missing value (an empty CSV field, ``NA``, a Parquet null) is
one line naming its row, as a missing score is, and so is a Parquet column of floats (the
library takes integers, strings or booleans: a categorical variable). In Python, pass the
groups of a model fitted by the command line as text (``df["g"].astype(str)``).

A group not seen at fit follows the model's ``group_fallback``: ``"error"`` (the default,
and what ``venncal fit`` writes) is one line naming the first such row; ``"pooled"`` (a model
fitted so in Python) gives it the calibrator of all groups pooled, with the library's warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli._io import InputError

if TYPE_CHECKING:
    import os
    from collections.abc import Mapping, Sequence

    from venncal._typing import AnyArray, FloatArray
    from venncal.cli._stream import Source

__all__ = [
    "GROUP_METHODS",
    "GroupColumns",
    "WithGroups",
    "check_group_fit",
    "check_seen",
    "group_column_of",
    "group_values",
    "read_groups",
]

#: the ``--method`` values whose calibrator's ``fit`` takes ``groups=``
GROUP_METHODS = ("venn-abers", "venn-abers-distribution", "multiclass-venn-abers")


def check_group_fit(method: str, backend: str, column: str, used: Sequence[str]) -> None:
    """One line for ``--group`` with a method whose calibrator is not fitted within groups,
    with ``--backend dask``/``spark``, or naming the score, label or weight column (a column
    the calibration table does not have is one line of :func:`read_groups`)."""
    if method not in GROUP_METHODS:
        raise InputError(
            f"--group applies to --method {', '.join(GROUP_METHODS)} only (the calibrators "
            f"fitted within groups), not {method!r}."
        )
    if backend != "local":
        raise InputError(
            f"--group runs with --backend local only: --backend {backend} does not fit within "
            "groups."
        )
    if column in used:
        raise InputError(f"--group {column!r} is the score, label or weight column.")


def check_group_column(source: Source, column: str, what: str) -> None:
    """One line when the group column is not in the input."""
    from venncal.cli._segments import check_segment_columns

    check_segment_columns(source, [column], what)


def group_values(chunk: Any, name: str, path: str | os.PathLike[str], offset: int) -> AnyArray:
    """The group of each row of a chunk (a pyarrow record batch) as text; a missing value, or a
    Parquet column of floats, is one line naming the row or the type. ``offset``: the rows of
    the file before the chunk, for messages."""
    import pyarrow as pa

    from venncal.cli._segments import _categorical, _is_csv

    col = chunk.column(list(chunk.schema.names).index(name))
    if pa.types.is_floating(col.type) or pa.types.is_decimal(col.type):
        raise InputError(
            f"{str(path)!r}: column {name!r} (--group) must hold integers, strings or booleans "
            f"(a categorical variable); it is of type {col.type}."
        )
    values = _categorical(col, _is_csv(path))
    missing = np.fromiter((v is None for v in values), dtype=bool, count=values.shape[0])
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InputError(
            f"{str(path)!r}: column {name!r} (--group) has a missing value at row {offset + row}; "
            "every row needs a group."
        )
    return values.astype(str) if values.shape[0] else np.array([], dtype="<U1")


def read_groups(
    path: str | os.PathLike[str],
    name: str,
    rows: int,
    sep: str | None = None,
    what: str = "CAL_FILE",
) -> AnyArray:
    """The group column of a whole table (every file of a folder, in order), read as
    :func:`group_values` reads a chunk at apply; ``rows``: the rows of the table's scores (a
    different count is one line)."""
    from venncal.cli._stream import open_source

    source = open_source([path], what, sep)
    check_group_column(source, name, "--group")
    parts, offset, current = [], 0, None
    for file, chunk in source.chunks([name]):
        if file != current:
            offset, current = 0, file
        parts.append(group_values(chunk, name, file, offset))
        offset += chunk.num_rows
    g = np.concatenate(parts) if parts else np.array([], dtype="<U1")
    if g.shape[0] != rows:
        raise InputError(
            f"{what} {str(path)!r}: the group column has {g.shape[0]} rows but the scores "
            f"{rows}; check the file for blank or malformed lines."
        )
    return g


class WithGroups:
    """A calibrator whose ``fit(scores, y, sample_weight)`` passes ``groups=`` too."""

    def __init__(self, calibrator: Any, groups: AnyArray) -> None:
        self.calibrator = calibrator
        self.groups = groups

    def fit(self, scores: Any, y: Any, sample_weight: Any = None) -> Any:
        return self.calibrator.fit(scores, y, sample_weight, groups=self.groups)


def is_grouped(calibrator: Any) -> bool:
    """Whether a loaded model was fitted within groups."""
    inner = getattr(calibrator, "distribution", calibrator)
    return getattr(inner, "groups_", None) is not None


def group_column_of(
    calibrator: Any, metadata: Mapping[str, Any], given: str | None, model: str, backend: str
) -> str | None:
    """The column ``venncal apply`` reads the groups from: ``--group``, else the one recorded
    at fit; None for a model fitted without groups (where ``--group`` is one line)."""
    from venncal.cli._stream import model_name

    if not is_grouped(calibrator):
        if given is not None:
            raise InputError(
                f"--group {given!r}: MODEL {model!r} was fitted without groups "
                f"({model_name(calibrator)}); fit it with venncal fit --group to calibrate "
                "within groups."
            )
        return None
    if backend != "local":
        raise InputError(
            f"MODEL {model!r} was fitted within groups: it is applied with --backend local "
            f"only, not {backend}."
        )
    column = given if given is not None else metadata.get("group")
    if not isinstance(column, str) or not column:
        raise InputError(
            f"MODEL {model!r} was fitted within groups and does not name its group column; "
            "pass --group COLUMN with the group of each row."
        )
    return column


def check_seen(
    calibrator: Any, g: AnyArray, column: str, path: str | os.PathLike[str], offset: int
) -> None:
    """One line naming the first row whose group was not seen at fit, for a model whose
    ``group_fallback`` is ``"error"`` (the library's rule; ``"pooled"`` lets it through)."""
    inner = getattr(calibrator, "distribution", calibrator)
    if (getattr(inner, "group_fallback", None) or "error") != "error" or not g.shape[0]:
        return
    known = list(inner.groups_) + list(getattr(inner, "pooled_groups_", None) or [])
    labels, inverse = np.unique(g, return_inverse=True)
    texts = {k for k in known if isinstance(k, str)}
    unseen = np.array([label not in texts for label in labels.tolist()], dtype=bool)
    if not unseen.any():
        return
    row = int(np.flatnonzero(unseen[inverse])[0])
    shown = ", ".join(repr(k) for k in known[:8]) + (", ..." if len(known) > 8 else "")
    raise InputError(
        f"{str(path)!r}: row {offset + row} has the group {str(g[row])!r} (column {column!r}), "
        f"which MODEL did not see at fit (its groups: {shown}); a model fitted within groups "
        "calibrates only the groups it was fitted on."
    )


class GroupColumns:
    """A binary Venn-Abers model fitted within groups and the columns ``venncal apply`` writes
    of it: ``p``, ``p0``, ``p1`` of each row by its own group's tables.

    :func:`venncal.cli._stream.apply_stream` reads :attr:`input_columns` (the group column)
    besides the scores and calls :meth:`chunk_columns` on each chunk.
    """

    def __init__(self, calibrator: Any, column: str) -> None:
        from venncal.cli._stream import model_name

        self.calibrator = calibrator
        self.column = column
        self.input_columns = [column]
        self.model_name = model_name(calibrator)
        self.merge = calibrator.merge

    def column_names(self, prefix: str = "") -> list[str]:
        """The names of the new columns."""
        return [prefix + "p", prefix + "p0", prefix + "p1"]

    def grouped_columns(
        self, scores: FloatArray, g: AnyArray, prefix: str = ""
    ) -> dict[str, FloatArray]:
        """The new columns for clean scores and their (checked) groups."""
        from venncal.cli._stream import venn_abers_columns

        interval = self.calibrator.predict_interval(scores, groups=g)
        return venn_abers_columns(interval[:, 0], interval[:, 1], self.merge, prefix)

    def chunk_columns(
        self,
        scores: FloatArray,
        chunk: Any,
        path: str | os.PathLike[str],
        offset: int,
        prefix: str = "",
    ) -> dict[str, FloatArray]:
        """The new columns for clean scores and the group column of their chunk."""
        g = group_values(chunk, self.column, path, offset)
        check_seen(self.calibrator, g, self.column, path, offset)
        return self.grouped_columns(scores, g, prefix)
