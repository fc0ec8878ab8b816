"""What runs where: every public estimator's support in every part of venncal, declared once.

One row per public estimator class and task (``"binary"`` scores, ``"multiclass"``
score matrices, or ``"regression"`` predictions), one entry per surface: ``True`` where the
surface supports it, otherwise the reason it is refused, in the words a user reads. The
command line's entry names its ``--method`` values instead of ``True``.

Nothing here runs an engine: the table is data, below every layer, so the documentation can
print it and the test suite (``tests/test_support.py`` and ``tests/spark/test_support_spark.py``)
walks every public class through every surface and fails where the behaviour and the
declaration differ, or where a public estimator has no row. A new calibrator adds its row here.

Examples
--------
>>> support("VennAbersCalibrator", "binary")["sql"]
True
>>> support("MulticlassVennAbersCalibrator", "multiclass")["onnx"].endswith("score_type)")
True
"""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["SURFACES", "SUPPORT", "support", "support_rows"]

#: surface -> what it is, as the documentation names it
SURFACES: dict[str, str] = {
    "file": "model file (`venncal.save`, `venncal.load`)",
    "cli": "`venncal fit --method`",
    "sql": "`venncal.export.to_sql`",
    "onnx": "`venncal.export.to_onnx`",
    "dask": "`venncal.dask.fit`",
    "spark": "`venncal.spark.fit`",
    "chooser": "`compare_calibrators` candidate",
}

Entry: TypeAlias = bool | str | tuple[str, ...]

_COUNTS = True
_NOT_COUNTS = (
    "only count-based calibrators (Venn-Abers, isotonic, histogram, Bayesian binning) and "
    "Platt scaling are fitted on Dask and Spark"
)
_FEATURES = "it wraps a classifier of features; fit and export a score calibrator on its scores"
_NO_PICKLE = (
    "it keeps the classifier it wraps, which a model file cannot hold (model files hold no "
    "pickle); save the score calibrator fitted on the classifier's scores"
)
_NOT_CHOSEN = "not among the candidates compared by default (pass it in 'calibrators=')"
_K_ENGINES = (
    "its per-class Venn-Abers fit is not distributed yet: fit it in memory, then "
    "venncal.dask.apply and venncal.spark.apply apply it on K score columns"
)
_MULTICLASS_VENN_ABERS_EXPORT = (
    "the default strategy (pairwise, coupled by a linear solve per row) is not exported; "
    "strategy='ovr' is (pooled or not, every merge and score_type)"
)
_MONITOR = "a monitor of calibration over time, not a calibrator"
_ABSTAIN = "a rule that abstains on calibrated probabilities, not a calibrator"
_ABSTAIN_EXPORT = (
    "exported with the calibrator it reads: to_sql(calibrator, ..., abstain=rule) and "
    "to_onnx(calibrator, abstain=rule) add its accept column (binary rules)"
)
_ABSTAIN_CLI = (
    "fitted by `venncal apply --abstain-at` on held-out rows (or saved and applied with "
    "--abstain-rule), not by --method"
)
_REGRESSION = "regression (predictive distributions) is not supported there yet"
_NO_PICKLE_REGRESSOR = (
    "it keeps the regressor it wraps, which a model file cannot hold (model files hold no pickle)"
)
_REGRESSOR_CLI = (
    "it wraps a regressor of features; fit a VennAbersDistribution on its predictions "
    "(`venncal fit --task regression`)"
)


def _row(**entries: Entry) -> dict[str, Entry]:
    missing = set(SURFACES) - set(entries)
    if missing or set(entries) - set(SURFACES):
        raise ValueError(f"a support row must name every surface; missing {sorted(missing)}")
    return entries


#: (class name, task) -> surface -> True, the command line's method names, or why not
SUPPORT: dict[tuple[str, str], dict[str, Entry]] = {
    ("VennAbersCalibrator", "binary"): _row(
        file=True,
        cli=("venn-abers",),
        sql=True,
        onnx=True,
        dask=_COUNTS,
        spark=_COUNTS,
        chooser=True,
    ),
    ("IsotonicCalibrator", "binary"): _row(
        file=True,
        cli=("isotonic",),
        sql=True,
        onnx=True,
        dask=_COUNTS,
        spark=_COUNTS,
        chooser=True,
    ),
    ("HistogramCalibrator", "binary"): _row(
        file=True,
        cli=("histogram",),
        sql=True,
        onnx=True,
        dask=_COUNTS,
        spark=_COUNTS,
        chooser=True,
    ),
    ("BayesianBinningCalibrator", "binary"): _row(
        file=True,
        cli=("sbb", "abb"),
        sql=True,
        onnx=True,
        dask=_COUNTS,
        spark=_COUNTS,
        chooser=_NOT_CHOSEN,
    ),
    ("PlattCalibrator", "binary"): _row(
        file=True,
        cli=("platt",),
        sql=True,
        onnx=True,
        dask=True,
        spark=True,
        chooser=True,
    ),
    ("BetaCalibrator", "binary"): _row(
        file=True,
        cli=("beta", "beta-logit"),
        sql=True,
        onnx=True,
        dask=_NOT_COUNTS,
        spark=_NOT_COUNTS,
        chooser=True,
    ),
    ("QuadraticCalibrator", "binary"): _row(
        file=True,
        cli=("quadratic", "quadratic-logit"),
        sql=True,
        onnx=True,
        dask=_NOT_COUNTS,
        spark=_NOT_COUNTS,
        chooser=True,
    ),
    ("ScalingBinningCalibrator", "binary"): _row(
        file=True,
        cli=("scaling-binning",),
        sql=True,
        onnx=True,
        dask=_NOT_COUNTS,
        spark=_NOT_COUNTS,
        chooser=_NOT_CHOSEN,
    ),
    ("TemperatureCalibrator", "binary"): _row(
        file=True,
        cli=("temperature",),
        sql=True,
        onnx=True,
        dask=_NOT_COUNTS,
        spark=_NOT_COUNTS,
        chooser=True,
    ),
    ("ACPCalibrator", "binary"): _row(
        file=True,
        cli=("acp",),
        sql="its probability is a fitted logistic model's, not a map of one score column",
        onnx="its probability is a fitted logistic model's, not a map of one score column",
        dask=_NOT_COUNTS,
        spark=_NOT_COUNTS,
        chooser=_NOT_CHOSEN,
    ),
    ("TemperatureCalibrator", "multiclass"): _row(
        file=True,
        cli=("temperature",),
        sql=True,
        onnx=True,
        dask=True,
        spark=True,
        chooser=True,
    ),
    ("MatrixScalingCalibrator", "multiclass"): _row(
        file=True,
        cli=("matrix-scaling", "vector-scaling"),
        sql=True,
        onnx=True,
        dask=True,
        spark=True,
        chooser=True,
    ),
    ("DirichletCalibrator", "multiclass"): _row(
        file=True,
        cli=("dirichlet",),
        sql=True,
        onnx=True,
        dask=True,
        spark=True,
        chooser=_NOT_CHOSEN,
    ),
    ("MulticlassVennAbersCalibrator", "multiclass"): _row(
        file=True,
        cli=("multiclass-venn-abers",),
        sql=_MULTICLASS_VENN_ABERS_EXPORT,
        onnx=_MULTICLASS_VENN_ABERS_EXPORT,
        dask=_K_ENGINES,
        spark=_K_ENGINES,
        chooser=True,
    ),
    ("MulticalibrationCalibrator", "binary"): _row(
        file=True,
        cli=("multicalibration",),
        sql="its boosted trees on segment columns are not exported yet",
        onnx="its boosted trees on segment columns are not exported yet",
        dask="it needs segment columns, which the engines do not pass yet",
        spark="it needs segment columns, which the engines do not pass yet",
        chooser=(
            "it needs segment columns: compare_calibrators(..., segments=frame) adds it to the "
            "default candidates (venncal compare does not pass segments yet)"
        ),
    ),
    ("VennAbersClassifier", "binary"): _row(
        file=_NO_PICKLE,
        cli=_FEATURES,
        sql=_FEATURES,
        onnx=_FEATURES,
        dask=_FEATURES,
        spark=_FEATURES,
        chooser=_FEATURES,
    ),
    ("VennClassifier", "binary"): _row(
        file=_NO_PICKLE,
        cli=_FEATURES,
        sql=_FEATURES,
        onnx=_FEATURES,
        dask=_FEATURES,
        spark=_FEATURES,
        chooser=_FEATURES,
    ),
    ("ProbingClassifier", "binary"): _row(
        file=_NO_PICKLE,
        cli=_FEATURES,
        sql=_FEATURES,
        onnx=_FEATURES,
        dask=_FEATURES,
        spark=_FEATURES,
        chooser=_FEATURES,
    ),
    ("MulticlassVennAbersClassifier", "multiclass"): _row(
        file=_NO_PICKLE,
        cli=_FEATURES,
        sql=_FEATURES,
        onnx=_FEATURES,
        dask=_FEATURES,
        spark=_FEATURES,
        chooser=_FEATURES,
    ),
    ("VennAbersDistribution", "regression"): _row(
        file=True,
        cli=("venn-abers-distribution",),
        sql=_REGRESSION,
        onnx=_REGRESSION,
        dask=_REGRESSION,
        spark=_REGRESSION,
        chooser=_REGRESSION,
    ),
    ("AbstentionRule", "binary"): _row(
        file=True,
        cli=_ABSTAIN_CLI,
        sql=_ABSTAIN_EXPORT,
        onnx=_ABSTAIN_EXPORT,
        dask=_ABSTAIN,
        spark=_ABSTAIN,
        chooser=_ABSTAIN,
    ),
    ("AbstentionRule", "multiclass"): _row(
        file=True,
        cli=_ABSTAIN,
        sql="the decision of a K-class rule is not exported yet",
        onnx="the decision of a K-class rule is not exported yet",
        dask=_ABSTAIN,
        spark=_ABSTAIN,
        chooser=_ABSTAIN,
    ),
    ("VennAbersRegressor", "regression"): _row(
        file=_NO_PICKLE_REGRESSOR,
        cli=_REGRESSOR_CLI,
        sql=_REGRESSION,
        onnx=_REGRESSION,
        dask=_REGRESSION,
        spark=_REGRESSION,
        chooser=_REGRESSION,
    ),
    # the monitors: saved, run by `venncal monitor`, nothing else applies to them
    **{
        (name, "binary"): _row(
            file=True,
            cli=_MONITOR,
            sql=_MONITOR,
            onnx=_MONITOR,
            dask=_MONITOR,
            spark=_MONITOR,
            chooser=_MONITOR,
        )
        for name in ("CalibrationMonitor", "SegmentedCalibrationMonitor")
    },
}


def support(name: str, task: str) -> dict[str, Entry]:
    """The declared support of the public class ``name`` for ``task`` (a copy).

    Parameters
    ----------
    name : str
        A public class name, e.g. ``"VennAbersCalibrator"``.
    task : {"binary", "multiclass", "regression"}

    Returns
    -------
    dict
        Surface -> ``True``, the command line's method names, or the reason it is refused.

    Raises
    ------
    KeyError
        If the class has no row for that task.
    """
    return dict(SUPPORT[(name, task)])


def support_rows() -> list[tuple[str, str, dict[str, Entry]]]:
    """Every row as (class name, task, entries), sorted by task then name."""
    return [(n, t, dict(e)) for (n, t), e in sorted(SUPPORT.items(), key=lambda i: i[0][::-1])]
