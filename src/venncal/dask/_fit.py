"""venncal.dask.fit and venncal.dask.apply."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._distributed import (
    apply_columns,
    calibrated,
    check_fit_calibrator,
    check_score_values,
    check_weight_column,
    fill_engine_doc,
    weighted_table,
)
from venncal._distributed_classes import (
    class_apply_columns,
    class_calibrated,
    class_score_columns,
    fit_class_passes,
)
from venncal.core.counts import check_decimals, round_scores, table_from_sums
from venncal.dask._labels import frame_classes

if TYPE_CHECKING:
    from collections.abc import Callable

    import dask.dataframe as dd

__all__ = ["fit", "apply"]


def _require_dask(what: str) -> Any:
    try:
        import dask.dataframe  # noqa: F401

        import dask
    except ImportError:
        raise ImportError(
            f'{what} needs dask, which is not installed; pip install "venncal[dask]".'
        ) from None
    return dask


def _check_frame(frame, columns, what):
    if not (hasattr(frame, "map_partitions") and hasattr(frame, "npartitions")):
        raise TypeError(
            f"'frame' of {what} must be a Dask DataFrame (e.g. dask.dataframe.read_parquet), "
            f"got {type(frame).__name__}."
        )
    for role, name in columns.items():
        if name is not None and name not in frame.columns:
            raise ValueError(
                f"'{role}' of {what} names the column {name!r}, which the frame does not have "
                f"(columns: {list(frame.columns)!r})."
            )


def _prepare(pdf, score, label, positive, weight, decimals):
    """One partition as numeric columns: rounded scores, 0/1 labels, and the weights with
    whether each is positive and whether it is a positive fraction."""
    import pandas as pd

    s = round_scores(pdf[score].to_numpy(dtype=np.float64, na_value=np.nan), decimals)
    y = (pdf[label].to_numpy() == positive).astype(np.int64)
    cols = {"s": s, "y": y}
    if weight is not None:
        w = pdf[weight].to_numpy(dtype=np.float64, na_value=np.nan)
        cols["w"] = w
        cols["p"] = (w > 0).astype(np.int64)
        with np.errstate(invalid="ignore"):
            cols["frac"] = ((w > 0) & (w != np.floor(w))).astype(np.int64)
    return pd.DataFrame(cols, index=pdf.index)


def _meta(weight):
    import pandas as pd

    cols = {"s": np.empty(0), "y": np.empty(0, np.int64)}
    if weight is not None:
        cols.update(w=np.empty(0), p=np.empty(0, np.int64), frac=np.empty(0, np.int64))
    return pd.DataFrame(cols)


def _counts(dask, frame, score, label, weight, classes, decimals):
    """The distributed aggregation: per distinct score, the weight of each class, and (with
    weights) the rows on which a fit from rows equals the in-memory fit."""
    prepared = frame.map_partitions(
        _prepare, score, label, classes[1], weight, decimals, meta=_meta(weight)
    )
    if weight is None:
        agg = prepared.groupby("s", dropna=False, sort=False)["y"].agg(
            ["count", "sum"], split_out=1
        )
        (result,) = dask.compute(agg)
        values = result.index.to_numpy(dtype=np.float64)
        n = result["count"].to_numpy(dtype=np.int64)
        check_score_values(values, score, n)
        n1 = result["sum"].to_numpy(dtype=np.int64)
        return table_from_sums(values, n - n1, n1, float(n.sum())), None
    grouped = prepared.groupby(["s", "y"], dropna=False, sort=False)
    agg = grouped.agg({"p": "sum", "w": "sum", "frac": "max"}, split_out=1)
    w = prepared["w"]
    result, low, high, n_nan = dask.compute(agg, w.min(), w.max(), w.isna().sum())
    values = result.index.get_level_values("s").to_numpy(dtype=np.float64)
    check_score_values(values, score)
    n = result["p"].to_numpy(dtype=np.int64)
    exponent = check_weight_column(
        weight, low=float(low), high=float(high), n_nan=int(n_nan), n_positive=int(n.sum())
    )

    def collect(inexact):
        s = prepared["s"]
        part = prepared[s.isin(inexact.tolist()) & (prepared["w"] > 0)]
        (rows,) = dask.compute(part[["s", "y", "w"]])
        return (
            rows["s"].to_numpy(dtype=np.float64),
            rows["y"].to_numpy(dtype=np.int8),
            rows["w"].to_numpy(dtype=np.float64),
        )

    return weighted_table(
        values,
        result.index.get_level_values("y").to_numpy(dtype=np.int64),
        n,
        result["w"].to_numpy(dtype=np.float64),
        result["frac"].to_numpy() != 0,
        collect,
        exponent=exponent,
        weight=weight,
    )


@fill_engine_doc
def fit(
    calibrator: Any,
    frame: dd.DataFrame,
    *,
    score: str | list[str],
    label: str,
    weight: str | None = None,
) -> Any:
    """Fit a calibrator on the columns of a Dask DataFrame.

    Count-based calibrators (:class:`~venncal.VennAbersCalibrator`,
    :class:`~venncal.IsotonicCalibrator`, :class:`~venncal.HistogramCalibrator`,
    :class:`~venncal.BayesianBinningCalibrator`) are fitted from one distributed aggregation:
    each partition is grouped by (rounded) score, the groups are summed across partitions
    (``groupby(score)`` summing the positives and the rows, or the weights of each class and
    score), and
    the table of distinct scores is fitted locally, as :meth:`fit_aggregate` does. With no
    weights, or whole-number weights, the sums are exact integers, so the result is the
    in-memory ``fit`` on the same rows, bit for bit, however the rows are partitioned. With
    fractional weights too: a score whose weights cannot be summed exactly in any order (two
    or more rows, some fractional) has its rows gathered, and only those, where each class's
    weights at the score are added in increasing order, as ``fit`` adds them in memory (an
    order no partitioning changes); Venn-Abers, which fits from rows, is fitted from those
    rows and one row per exact sum. :class:`~venncal.PlattCalibrator` is fitted by Newton
    steps whose gradient and Hessian are summed over the partitions (see :func:`fit_platt`).

    K-class calibrators (:class:`~venncal.TemperatureCalibrator` without a bias,
    :class:`~venncal.MatrixScalingCalibrator`, :class:`~venncal.DirichletCalibrator`) take a
    list of K score columns, one per class in the sorted order of the labels, and are fitted
    by the passes of the in-memory fit, each sum over the rows a sum over the partitions: the
    result equals the in-memory fit up to the rounding of those sums.

    The aggregate has one row per distinct score: it must fit in the memory of the calling
    process (use the calibrator's ``decimals`` to bound it).

    Parameters
    ----------
    {calibrator_to_fit}
    frame : dask.dataframe.DataFrame
        The calibration data.
    score : str or list of str
        Column of the scores, or the K columns of a K-class calibrator's scores.
    label : str
        Column of the labels (any two values; K classes with K score columns).
    {weight}

    {returns_fitted}

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from venncal import VennAbersCalibrator
    >>> pdf = pd.DataFrame({"s": [0.1, 0.2, 0.3, 0.4], "y": [0, 1, 0, 1]})
    >>> cal = fit(VennAbersCalibrator(), dd.from_pandas(pdf, npartitions=2), score="s", label="y")
    >>> cal.predict_interval([0.25]).round(3)
    array([[0.333, 0.667]])
    """
    from venncal.calibration.platt import PlattCalibrator

    dask = _require_dask("venncal.dask.fit")
    if not isinstance(score, str):  # K score columns
        columns = class_score_columns(score, "venncal.dask.fit") or []
        roles = {f"score[{i}]": c for i, c in enumerate(columns)}
        _check_frame(frame, {**roles, "label": label, "weight": weight}, "venncal.dask.fit")
        parts = frame.to_delayed()

        def run(func: Callable[..., Any], *args: Any) -> list[Any]:
            return list(dask.compute(*[dask.delayed(func)(p, *args) for p in parts]))

        return fit_class_passes(
            calibrator, run, score=columns, label=label, weight=weight, what="venncal.dask.fit"
        )
    _check_frame(frame, {"score": score, "label": label, "weight": weight}, "venncal.dask.fit")
    if isinstance(calibrator, PlattCalibrator):
        from venncal.dask._platt import fit_platt

        return fit_platt(calibrator, frame, score=score, label=label, weight=weight)
    check_fit_calibrator(calibrator, "venncal.dask.fit")
    decimals = check_decimals(calibrator.decimals, owner=type(calibrator).__name__)
    classes = frame_classes(dask, frame, label)
    table, rows = _counts(dask, frame, score, label, weight, classes, decimals)
    return calibrator._fit_table_checked(table, classes, rows)


def _apply_classes(pdf: Any, calibrator: Any, score: list[str], columns: list[str]) -> Any:
    S = pdf[score].to_numpy(dtype=np.float64, na_value=np.nan).reshape(-1, len(score))
    out = class_calibrated(calibrator, S, columns)
    return pdf.assign(**{c: out[c] for c in columns})


def _apply_partition(pdf, calibrator, score, columns):
    s = pdf[score].to_numpy(dtype=np.float64, na_value=np.nan)
    out = calibrated(calibrator, s, columns)
    return pdf.assign(**{c: out[c] for c in columns})


@fill_engine_doc
def apply(calibrator: Any, frame: dd.DataFrame, *, score: str | list[str]) -> dd.DataFrame:
    """Add calibrated probabilities to a Dask DataFrame, partition by partition (lazily).

    The result is a new Dask DataFrame with the column ``p`` (the probability of
    ``calibrator.classes_[1]``, as ``predict_proba(scores)[:, 1]``), and ``p0`` and ``p1`` for
    Venn-Abers (``predict_interval``), computed when the frame is (e.g. by ``to_parquet``).
    A K-class calibrator takes its K score columns and adds one column ``p_<class>`` per
    class of ``classes_``, as ``predict_proba(scores)`` (the same code, so the same values).

    Parameters
    ----------
    {fitted_calibrator}
    frame : dask.dataframe.DataFrame
        Holds the scores; its other columns are kept.
    score : str or list of str
        Column of the scores, or the K columns of a K-class calibrator in the order of its
        ``classes_`` (finite; a NaN or infinite score fails the partition with the
        calibrator's one-line error).

    Returns
    -------
    dask.dataframe.DataFrame

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from venncal import IsotonicCalibrator
    >>> cal = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
    >>> frame = dd.from_pandas(pd.DataFrame({"s": [0.15, 0.35]}), npartitions=1)
    >>> apply(cal, frame, score="s").compute()
          s    p
    0  0.15  0.0
    1  0.35  1.0
    """
    _require_dask("venncal.dask.apply")
    if not isinstance(score, str):  # K score columns
        names = class_score_columns(score, "venncal.dask.apply") or []
        _check_frame(frame, {f"score[{i}]": c for i, c in enumerate(names)}, "venncal.dask.apply")
        columns = class_apply_columns(calibrator, names, frame.columns, "venncal.dask.apply")
        meta = frame._meta.assign(**{c: np.empty(0) for c in columns})
        return frame.map_partitions(_apply_classes, calibrator, names, columns, meta=meta)
    _check_frame(frame, {"score": score}, "venncal.dask.apply")
    columns = apply_columns(calibrator, frame.columns, "venncal.dask.apply")
    meta = frame._meta.assign(**{c: np.empty(0) for c in columns})
    return frame.map_partitions(_apply_partition, calibrator, score, columns, meta=meta)
