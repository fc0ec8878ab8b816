"""K-class calibrators on the command line: ``--score s0,s1,...`` with one column per class.

Class names and columns
-----------------------
The score columns are the classes, in the order given. Each label of the calibration file is
matched to one column:

* ``--classes a,b,c`` names the label of each column, in order (labels are compared as text);
* without it, labels equal to the column names match them (columns ``cat,dog``, labels
  ``cat``/``dog``); else labels equal to the column names without their common prefix match
  them (columns ``p_cat,p_dog``, labels ``cat``/``dog``); else integer labels ``0 .. K-1``
  are column positions (columns ``s0,...,s9``, labels ``0 .. 9``);
* anything else is one line asking for ``--classes``.

The model file keeps the columns and the class names (metadata ``score``, the columns
comma-separated, and ``classes``, a JSON list);
``venncal apply`` writes one column ``p_<class>`` per class (and ``p_<class>_lower``,
``p_<class>_upper`` for multiclass Venn-Abers).

These fits read every row into memory (about ``8 K`` bytes per row for the scores, plus the
calibrator's own copies); they are not streamed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli._csv import repeated_name
from venncal.cli._io import InputError, get_column, scores_column, weight_column

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from venncal._typing import FloatArray

__all__ = [
    "K_CALIBRATORS",
    "K_ONLY",
    "MAX_CELLS",
    "split_columns",
    "class_indices",
    "read_kclass_calibration",
    "is_kclass_model",
    "kclass_names",
    "kclass_column_names",
    "apply_kclass",
]

#: command-line name -> (public name in venncal, fixed parameters) of the K-class calibrators
K_CALIBRATORS: dict[str, tuple[str, dict[str, Any]]] = {
    "temperature": ("TemperatureCalibrator", {}),
    "matrix-scaling": ("MatrixScalingCalibrator", {}),
    "vector-scaling": ("MatrixScalingCalibrator", {"structure": "svs"}),
    "dirichlet": ("DirichletCalibrator", {}),
    "multiclass-venn-abers": ("MulticlassVennAbersCalibrator", {}),
}
#: the methods that take K-class scores only
K_ONLY = ("matrix-scaling", "vector-scaling", "dirichlet", "multiclass-venn-abers")
#: the largest number of score cells (rows times classes) a K-class fit reads into memory
MAX_CELLS = 2**28  # 2 GiB of float64 scores
_K_ONLY_NAMES = {"MatrixScalingCalibrator", "DirichletCalibrator", "MulticlassVennAbersCalibrator"}


def split_columns(text: str, option: str = "--score") -> list[str]:
    """The comma-separated column names of ``text``; empty or repeated names are one line."""
    names = [c.strip() for c in text.split(",")]
    if any(not c for c in names):
        raise InputError(f"{option} {text!r} has an empty column name.")
    repeated = sorted({c for c in names if names.count(c) > 1})
    if repeated:
        raise InputError(f"{option} {text!r} names {repeated[0]!r} twice.")
    return names


def _label_text(col: Any) -> npt.NDArray[np.str_]:
    values = col.to_numpy()
    if col.dtype.kind == "f" and np.all(np.mod(values, 1) == 0):
        values = values.astype(np.int64)  # 1.0 read as the label 1
    return np.asarray(values).astype(str)


def _names_after_prefix(columns: Sequence[str], found: set[str]) -> list[str] | None:
    """The column names without a prefix they all share, when every label is among them (the
    longest such prefix: ``p_`` of ``p_cat,p_cow``, not ``p_c``, when the labels say so)."""
    shared = os.path.commonprefix(list(columns))
    for i in range(len(shared), 0, -1):
        names = [c[i:] for c in columns]
        if all(names) and found <= set(names):
            return names
    return None


def class_indices(
    labels: npt.NDArray[np.str_], columns: Sequence[str], classes: Sequence[str] | None, what: str
) -> tuple[npt.NDArray[np.int64], list[str]]:
    """The column index of each label and the class name of each column (module docstring)."""
    found = np.unique(labels)
    K = len(columns)
    if found.size == 1:  # named here: the calibrator would name its index, not the label
        raise InputError(
            f"{what}: the labels hold one class only ({str(found[0])!r}); a K-class fit needs "
            "examples of at least two classes."
        )
    if classes is not None:
        if len(classes) != K:
            raise InputError(
                f"--classes names {len(classes)} classes but --score names {K} columns; give "
                "one class per score column, in the same order."
            )
        names = list(classes)
    elif set(found) <= set(columns):
        names = list(columns)
    elif (stripped := _names_after_prefix(columns, set(found))) is not None:
        names = stripped
    elif set(found) <= {str(j) for j in range(K)}:
        names = [str(j) for j in range(K)]
    else:
        shown = ", ".join(repr(str(v)) for v in found[:6]) + (", ..." if found.size > 6 else "")
        raise InputError(
            f"{what}: the labels ({shown}) do not match the --score columns {list(columns)}; "
            "pass --classes with the label of each score column, in order."
        )
    index = {name: j for j, name in enumerate(names)}
    unknown = [v for v in found if v not in index]
    if unknown:
        raise InputError(
            f"{what}: the label {str(unknown[0])!r} is not among the classes {names}; every "
            "label must be one of them."
        )
    y = np.fromiter((index[v] for v in labels), dtype=np.int64, count=labels.shape[0])
    return y, names


def read_kclass_calibration(
    path: str | os.PathLike[str],
    columns: Sequence[str],
    label: str,
    classes: Sequence[str] | None,
    weight: str | None = None,
    what: str = "CAL_FILE",
    sep: str | None = None,
) -> tuple[FloatArray, npt.NDArray[np.int64], FloatArray | None, list[str]]:
    """Score matrix (n, K), class indices, weights (or None) and class names of a table."""
    from venncal.cli._columns import read_columns
    from venncal.cli._stream import open_source

    if len(columns) < 2:
        raise InputError("a K-class fit needs at least two --score columns (one per class).")
    if not os.path.isdir(path) and str(path).lower().endswith((".parquet", ".pq")):
        rows = open_source([path], what).num_rows
        if rows is not None and rows * len(columns) > MAX_CELLS:
            raise InputError(
                f"{what} {str(path)!r} has {rows} rows of {len(columns)} scores, more than "
                f"{MAX_CELLS} cells: K-class fits hold every score in memory; fit on a sample."
            )
    names = list(dict.fromkeys([*columns, label] + ([weight] if weight else [])))
    numbers = [(c, "--score") for c in columns] + ([(weight, "--weight")] if weight else [])
    frame = read_columns(path, names, what, numbers, sep)  # type: ignore[no-untyped-call]
    if frame.shape[0] * len(columns) > MAX_CELLS:
        raise InputError(
            f"{what} {str(path)!r} has {frame.shape[0]} rows of {len(columns)} scores, more "
            f"than {MAX_CELLS} cells: K-class fits hold every score in memory; fit on a sample."
        )
    S = np.column_stack([scores_column(frame, c, path) for c in columns])
    col = get_column(frame, label, path, "--label")
    if col.isna().any():
        first = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise InputError(
            f"{str(path)!r}: column {label!r} (--label) has missing labels (first at row "
            f"{first}); every row needs a label."
        )
    y, class_names = class_indices(_label_text(col), columns, classes, f"{str(path)!r}")
    w = weight_column(frame, weight, path)
    return S, y, w, class_names


def is_kclass_model(calibrator: Any, metadata: dict[str, Any]) -> bool:
    """Whether a model file holds a K-class calibrator (its scores are a matrix)."""
    from venncal.cli._stream import model_name

    if "classes" in metadata:
        return True
    if model_name(calibrator) in _K_ONLY_NAMES:
        return True
    return len(getattr(calibrator, "classes_", ())) > 2


def kclass_names(calibrator: Any, metadata: dict[str, Any]) -> list[str]:
    """The class names of a K-class model: those the command line saved, else its classes."""
    import json

    try:
        classes = json.loads(metadata.get("classes") or "null")
    except (TypeError, ValueError):
        classes = None
    if isinstance(classes, list):
        return [str(c) for c in classes]
    return [str(c) for c in getattr(calibrator, "classes_", ())]


def _has_interval(calibrator: Any) -> bool:
    return hasattr(calibrator, "predict_interval")


def kclass_column_names(calibrator: Any, names: Sequence[str], prefix: str = "") -> list[str]:
    """The columns ``venncal apply`` adds for a K-class model; class names that give a column
    name twice (classes ``a`` and ``a_lower`` with intervals) are one line."""
    new = [f"{prefix}p_{c}" for c in names]
    if _has_interval(calibrator):
        new += [f"{prefix}p_{c}_{end}" for c in names for end in ("lower", "upper")]
    repeated = repeated_name(new)
    if repeated is not None:
        raise InputError(
            f"the classes {list(names)} give the output column {repeated!r} twice (p_<class>, "
            "p_<class>_lower, p_<class>_upper); rename the classes (their labels) so that they "
            "differ."
        )
    return new


def apply_kclass(
    calibrator: Any,
    source: Any,
    out: str,
    *,
    columns: Sequence[str],
    new: Sequence[str],
    keep: Sequence[str] | None,
    overwrite: bool | None,
    out_sep: str | None,
    progress: bool | None,
    group: str | None = None,
) -> int:
    """Stream ``source`` through a K-class ``calibrator`` into ``out`` (atomically);
    ``group``: the column of each row's group, for a model fitted within groups."""
    from venncal.cli._progress import progress_bar
    from venncal.cli._stream import BATCH_ROWS, Sink, _first_line, _select, score_array

    keep = list(source.columns) if keep is None else list(keep)
    needed = list(dict.fromkeys([*keep, *columns, *([group] if group else [])]))
    K = len(columns)
    offset, rows, current = 0, 0, None
    with (
        Sink(out, overwrite=overwrite, sep=out_sep) as sink,
        progress_bar(source.num_rows, progress) as bar,
    ):
        # chunks of about BATCH_ROWS scores, as a binary apply reads: memory does not grow with K
        for path, chunk in source.chunks(needed, max(1024, BATCH_ROWS // K)):
            if path != current:
                offset, current = 0, path
            S = np.column_stack([score_array(chunk, c, path, offset) for c in columns])
            given: dict[str, Any] = {}
            if group is not None:
                from venncal.cli._groups import check_seen, group_values

                given["groups"] = group_values(chunk, group, path, offset)
                check_seen(calibrator, given["groups"], group, path, offset)
            try:
                with np.errstate(all="ignore"):
                    P = calibrator.predict_proba(S, **given)
                    iv = (
                        calibrator.predict_interval(S, **given)
                        if _has_interval(calibrator)
                        else None
                    )
            except ValueError as exc:
                raise InputError(f"{str(path)!r}: {_first_line(exc)}") from None  # type: ignore[no-untyped-call]
            arrays = [np.ascontiguousarray(P[:, j], dtype=np.float64) for j in range(K)]
            if iv is not None:
                arrays += [np.ascontiguousarray(iv[:, j, e]) for j in range(K) for e in (0, 1)]
            sink.write(_select(chunk, keep) if keep else None, dict(zip(new, arrays)))  # type: ignore[no-untyped-call]
            offset += S.shape[0]
            rows += S.shape[0]
            bar.update(S.shape[0])
    return rows
