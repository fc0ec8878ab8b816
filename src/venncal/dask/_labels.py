"""The labels of a Dask DataFrame's column: its distinct values and the two classes of a fit."""

from __future__ import annotations

from typing import Any

import numpy as np

from venncal._validation import check_binary_labels

__all__ = ["distinct_values", "frame_classes"]


def distinct_values(series: Any) -> Any:
    """The distinct values of one partition's column, as a pandas Series."""
    import pandas as pd

    return pd.Series(series.unique())


def frame_classes(dask: Any, frame: Any, label: str) -> Any:
    """The two labels, checked as in memory (one class, NaN, more than two: the same error).

    Each partition lists its distinct labels (a tree reduction, no shuffle); reading one
    column, this pass costs a fraction of the aggregation.
    """
    column = frame[label]
    parts = column.map_partitions(distinct_values, meta=column._meta)
    labels = dask.compute(parts)[0].to_numpy()
    if labels.size == 0:
        raise ValueError("'y' is empty; at least one label is needed.")
    labels = np.asarray(list(dict.fromkeys(labels.tolist())), dtype=labels.dtype)
    return check_binary_labels(labels, name="y")[1]
