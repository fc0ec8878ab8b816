"""K-class calibrators on Dask and Spark, free of either engine: the passes of a fit over the
partitions of a frame, and the columns of ``apply``.

A fit runs its passes through ``run(func, *args)``, which calls ``func(pdf, *args)`` on every
partition ``pdf`` (a pandas DataFrame) and returns the results in partition order (Dask and
Spark differ only in it, as for Platt scaling). The first pass checks the score columns and
lists the labels; the passes after it are those of the in-memory fit, whose every sum over
the rows is a sum of per-block sums (:func:`venncal.core.temperature.fit_temperature_passes`,
:func:`venncal.core.matrix_scaling.fit_matrix_scaling_passes`), the partitions being the blocks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Sequence

    import pandas as pd

    from venncal._typing import AnyArray, FloatArray, IntArray

__all__ = [
    "CLASS_PREFIX",
    "class_apply_columns",
    "class_calibrated",
    "class_score_columns",
    "fit_class_passes",
    "is_class_calibrator",
]

#: ``apply`` names the probability of class ``c`` ``f"{CLASS_PREFIX}{c}"``.
CLASS_PREFIX = "p_"


def class_score_columns(score: object, what: str) -> list[str] | None:
    """None for one score column (a string); otherwise the K column names, checked."""
    if isinstance(score, str):
        return None
    if not isinstance(score, (list, tuple)) or not all(isinstance(c, str) for c in score):
        raise TypeError(
            f"'score' of {what} must be a column name or a list of column names (one per "
            f"class), got {score!r}."
        )
    if len(score) < 2:
        raise ValueError(
            f"'score' of {what} lists {len(score)} column(s); a K-class calibrator needs one "
            "score column per class, two or more (a single column: pass its name)."
        )
    if len(set(score)) != len(score):
        raise ValueError(f"'score' of {what} names a column twice: {list(score)!r}.")
    return list(score)


def is_class_calibrator(calibrator: object) -> bool:
    """Whether ``calibrator`` maps a K-class score matrix (not binary scores)."""
    from venncal.calibration._linear_softmax import LinearSoftmaxCalibrator
    from venncal.calibration.multiclass import MulticlassVennAbersCalibrator
    from venncal.calibration.temperature import TemperatureCalibrator

    kinds = (LinearSoftmaxCalibrator, MulticlassVennAbersCalibrator, TemperatureCalibrator)
    return isinstance(calibrator, kinds)


def _check_fit(calibrator: Any, weight: str | None, what: str) -> str:
    """The kind of K-class fit of ``calibrator`` ("temperature" or "linear"), or a refusal."""
    from venncal._validation import check_bool
    from venncal.calibration._linear_softmax import LinearSoftmaxCalibrator
    from venncal.calibration.temperature import TemperatureCalibrator

    owner = type(calibrator).__name__
    if isinstance(calibrator, TemperatureCalibrator):
        if check_bool(calibrator.bias, name="bias", owner=owner):
            raise ValueError(
                f"{what} fits TemperatureCalibrator(bias=False) on K score columns; with "
                "bias=True, fit it in memory (or use MatrixScalingCalibrator(structure="
                "'svs'), which has a bias per class)."
            )
        kind = "temperature"
    elif isinstance(calibrator, LinearSoftmaxCalibrator):
        kind = "linear"
    else:
        raise TypeError(
            f"'calibrator' of {what} with K score columns must be TemperatureCalibrator, "
            f"MatrixScalingCalibrator or DirichletCalibrator; got {owner} (fit it in memory "
            "and use apply)."
        )
    if weight is not None:
        raise ValueError(
            f"{what} fits {owner} on K score columns without weights; drop 'weight' or fit "
            "in memory."
        )
    return kind


def _matrix(pdf: pd.DataFrame, score: list[str]) -> FloatArray:
    S: FloatArray = pdf[score].to_numpy(dtype=np.float64, na_value=np.nan)
    return S.reshape(-1, len(score))


def _first_pass(pdf: pd.DataFrame, score: list[str], label: str) -> dict[str, Any]:
    """One partition's checks: labels, non-finite rows, and what the score type needs."""
    from venncal.core.class_scores import rows_off_one

    S = _matrix(pdf, score)
    labels = pdf[label]
    finite = np.isfinite(S).all(axis=1)
    Sf = S[finite]
    off = rows_off_one(Sf) if Sf.shape[0] else np.empty(0, np.intp)
    return {
        "labels": labels[labels.notna()].unique(),
        "missing": int(labels.isna().sum()),
        "bad": int((~finite).sum()),
        "nan": bool(np.isnan(S).any()),
        "outside": bool((Sf < 0).any() or (Sf > 1).any()),
        "off": int(off.size),
        "off_sum": float(Sf[off[0]].sum()) if off.size else np.nan,
        "zero": bool((Sf == 0).any()),
        "min": float(Sf.min()) if Sf.size else np.inf,
    }


def _codes(pdf: pd.DataFrame, label: str, classes: AnyArray) -> IntArray:
    import pandas as pd

    codes: IntArray = pd.Index(classes).get_indexer(pdf[label]).astype(np.intp)
    return codes


def _floor_pass(pdf: pd.DataFrame, score: list[str], label: str, classes: AnyArray) -> list[int]:
    """Zero (example, class) pairs and their hits (the sums of ``probability_floor``)."""
    zero = _matrix(pdf, score) == 0.0
    y = _codes(pdf, label, classes)
    return [int(zero.sum()), int(zero[np.arange(y.shape[0]), y].sum())]


def _block(
    pdf: pd.DataFrame, score: list[str], label: str, classes: AnyArray, kind: str, score_type: str
) -> tuple[FloatArray, IntArray, FloatArray]:
    """One partition as the block the in-memory fit reads: (log-scores, class indices, weights)."""
    from venncal.core.class_scores import class_log_scores
    from venncal.core.temperature import matrix_logits

    S = _matrix(pdf, score)
    t = matrix_logits(S, score_type) if kind == "temperature" else class_log_scores(S, score_type)
    return t, _codes(pdf, label, classes), np.ones(S.shape[0])


def _on_block(
    pdf: pd.DataFrame, prep: tuple[Any, ...], func: Callable[..., Any], *args: Any
) -> Any:
    return func(_block(pdf, *prep), *args)


def _classes(stats: list[dict[str, Any]], label: str) -> AnyArray:
    """The sorted labels of every partition, checked as ``fit`` checks them in memory."""
    if sum(s["missing"] for s in stats):
        raise ValueError(f"The label column {label!r} holds missing (null or NaN) labels.")
    found = [s["labels"] for s in stats if len(s["labels"])]
    if not found:
        raise ValueError("'y' is empty; at least one label is needed.")
    values = np.concatenate([np.asarray(f) for f in found])
    if values.dtype.kind == "f" and (values != np.round(values)).any():
        raise ValueError(
            f"The label column {label!r} holds non-integer numbers; it must hold classes."
        )
    classes: AnyArray = np.unique(values)
    return classes


def _score_type(stats: list[dict[str, Any]], score_type: str, score: list[str]) -> str:
    """``score_type`` resolved over every partition, as ``resolve_score_type`` in memory."""
    from venncal.core.class_scores import SUM_TOLERANCE_PER_CLASS

    outside = any(s["outside"] for s in stats)
    off = [s["off_sum"] for s in stats if s["off"]]
    tol = f"within {SUM_TOLERANCE_PER_CLASS:g} per class"
    if score_type == "auto":
        if outside:
            return "logits"
        if not off:
            return "probabilities"
        raise ValueError(
            f"The score columns {score!r} lie in [0, 1] but {sum(s['off'] for s in stats)} "
            f"row(s) do not sum to 1 ({tol}; one sums to {off[0]:.6g}): pass "
            "score_type='probabilities' with rows renormalised to sum to one, or "
            "score_type='logits' to read them as scores."
        )
    if score_type == "probabilities" and (outside or off):
        raise ValueError(
            f"score_type='probabilities' needs the score columns {score!r} to hold rows of "
            f"probabilities in [0, 1] summing to one ({tol}); use score_type='logits' for "
            "unnormalised scores."
        )
    return score_type


def fit_class_passes(
    calibrator: Any,
    run: Callable[..., list[Any]],
    *,
    score: list[str],
    label: str,
    weight: str | None,
    what: str,
) -> Any:
    """Fit a K-class calibrator by passes over the partitions that ``run`` visits.

    The result equals the in-memory ``fit`` on the same rows up to the rounding of sums added
    partition by partition (one partition: bit for bit).
    """
    from venncal._validation import check_option, check_positive_int, plain_label
    from venncal.calibration import multiclass, temperature
    from venncal.core.class_scores import check_matrix_classes

    kind = _check_fit(calibrator, weight, what)
    owner = type(calibrator).__name__
    types = temperature.SCORE_TYPES if kind == "temperature" else multiclass.SCORE_TYPES
    check_option(calibrator.score_type, types, name="score_type", owner=owner)
    check_positive_int(calibrator.max_iter, name="max_iter", owner=owner)
    params = calibrator._check_params(owner) if kind == "linear" else ()
    stats = run(_first_pass, score, label)
    n_bad = sum(s["bad"] for s in stats)
    if n_bad:
        what_bad = "NaN" if any(s["nan"] for s in stats) else "infinite"
        raise ValueError(
            f"The score columns {score!r} hold {what_bad} values in {n_bad} row(s); remove or "
            "impute them first (scores must be finite)."
        )
    classes = _classes(stats, label)
    K = len(score)
    if classes.shape[0] < 2:
        raise ValueError(
            f"'y' of {owner} holds one class only ({plain_label(classes[0])!r}); calibration needs at least two."
        )
    if classes.shape[0] != K:
        raise ValueError(
            f"The label column {label!r} holds {classes.shape[0]} classes but 'score' lists {K} "
            "columns; pass one score column per class, in the sorted order of the labels."
        )
    if kind == "linear" and calibrator._fits_full_matrix():
        check_matrix_classes(K, owner=owner, what="a K x K matrix")
    score_type = _score_type(stats, calibrator.score_type, score)
    floor = None
    if score_type == "probabilities":
        if any(s["zero"] for s in stats):
            m0, h0 = (float(v) for v in np.sum(run(_floor_pass, score, label, classes), axis=0))
            tiny = float(np.finfo(np.float64).tiny)
            floor = min(max((h0 + 0.5) / (m0 + 1.0), tiny), 1.0)
        else:
            floor = max(min(s["min"] for s in stats), float(np.finfo(np.float64).tiny))
    prep = (score, label, classes, kind, score_type)

    def run_blocks(func: Callable[..., Any], *args: Any) -> list[Any]:
        return run(_on_block, prep, func, *args)

    if kind == "temperature":
        from venncal.core.temperature import fit_temperature_passes

        log_floor = -np.inf if floor is None else float(np.log(floor))
        calibrator.score_type_ = score_type
        calibrator._set_map(fit_temperature_passes(run_blocks, K, log_floor=log_floor), classes, K)
        return calibrator
    from venncal.core.matrix_scaling import LOG_FLOOR

    log_floor = LOG_FLOOR if floor is None else max(float(np.log(floor)), LOG_FLOOR)
    calibrator.score_type_ = score_type
    map_, fit = calibrator._fit_map_passes(run_blocks, K, params, log_floor)
    calibrator._set_fit(map_, fit, classes, K)
    return calibrator


def class_apply_columns(
    calibrator: Any, score: Sequence[str], frame_columns: Container[str], what: str
) -> list[str]:
    """The columns ``apply`` adds for a fitted K-class calibrator: ``p_<class>`` for each of
    ``classes_``; the calibrator checked fitted on ``len(score)`` classes, the names free."""
    from sklearn.utils.validation import check_is_fitted

    if not is_class_calibrator(calibrator):
        raise TypeError(
            f"{what} with K score columns needs a K-class calibrator (TemperatureCalibrator, "
            f"MatrixScalingCalibrator, DirichletCalibrator, MulticlassVennAbersCalibrator); got "
            f"{type(calibrator).__name__}."
        )
    check_is_fitted(calibrator)
    classes = calibrator.classes_
    if calibrator.n_features_in_ != len(score) or classes.shape[0] != len(score):
        raise ValueError(
            f"{type(calibrator).__name__} was fitted on {calibrator.n_features_in_} score "
            f"column(s) for {classes.shape[0]} classes, but 'score' of {what} lists "
            f"{len(score)}; pass one column per class, in the order of classes_."
        )
    columns = [f"{CLASS_PREFIX}{c}" for c in classes.tolist()]
    taken = [c for c in columns if c in frame_columns]
    if taken:
        raise ValueError(
            f"The frame already has the column(s) {taken!r} that {what} adds; rename them first."
        )
    if len(set(columns)) != len(columns):
        raise ValueError(
            f"The classes {classes.tolist()!r} give equal column names; {what} names the "
            f"probability of class c '{CLASS_PREFIX}c'."
        )
    return columns


def class_calibrated(
    calibrator: Any, S: FloatArray, columns: Sequence[str]
) -> dict[str, FloatArray]:
    """The probability columns for the score matrix ``S`` (m, K) of one batch (a NaN score:
    the calibrator's own error)."""
    if S.shape[0] == 0:
        return {c: np.empty(0) for c in columns}
    proba = calibrator.predict_proba(S)
    return {c: np.ascontiguousarray(proba[:, k]) for k, c in enumerate(columns)}
