"""What :mod:`venncal.dask` and :mod:`venncal.spark` share: the checks of ``fit`` and ``apply``
and the calibration of one batch of scores, free of either engine (neither is imported here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Container, Sequence

    from venncal._typing import FloatArray

__all__ = ["apply_columns", "calibrated", "check_fit_calibrator"]


def check_fit_calibrator(calibrator: object, what: str) -> None:
    """Refuse a calibrator that ``what`` (``venncal.dask.fit``, ...) cannot fit."""
    from venncal.calibration._counts import CountCalibratorMixin

    if not isinstance(calibrator, CountCalibratorMixin):
        raise TypeError(
            f"'calibrator' of {what} must be VennAbersCalibrator, IsotonicCalibrator, "
            f"HistogramCalibrator, BayesianBinningCalibrator or PlattCalibrator; got "
            f"{type(calibrator).__name__}."
        )


def apply_columns(calibrator: Any, frame_columns: Container[str], what: str) -> list[str]:
    """The columns ``what`` (``venncal.dask.apply``, ...) adds to a frame of ``frame_columns``:
    ``p``, and ``p0`` and ``p1`` for Venn-Abers; the calibrator checked fitted, without
    groups, and the columns checked free."""
    from sklearn.utils.validation import check_is_fitted

    from venncal.calibration.venn_abers import VennAbersCalibrator

    check_is_fitted(calibrator)
    if getattr(calibrator, "groups_", None) is not None:
        raise ValueError(
            f"{type(calibrator).__name__} was fitted within groups; {what} "
            "calibrates without groups: apply it per group, or fit it without groups."
        )
    columns = ["p", "p0", "p1"] if isinstance(calibrator, VennAbersCalibrator) else ["p"]
    taken = [c for c in columns if c in frame_columns]
    if taken:
        raise ValueError(
            f"The frame already has the column(s) {taken!r} that {what} adds; rename them first."
        )
    return columns


def calibrated(calibrator: Any, s: FloatArray, columns: Sequence[str]) -> dict[str, FloatArray]:
    """The new columns for the scores ``s`` of one batch (NaN for a null score: the
    calibrator's own error)."""
    if s.shape[0] == 0:
        return {c: np.empty(0) for c in columns}
    if "p0" in columns:
        from venncal.core.merge import merge

        p0, p1 = calibrator.tables_.predict_unchecked(calibrator._check_predict_input(s))
        return {"p": merge(p0, p1, calibrator.merge), "p0": p0, "p1": p1}
    return {"p": calibrator.predict_proba(s)[:, 1]}
