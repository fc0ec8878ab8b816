"""Multiclass Venn-Abers calibration within groups (a Mondrian taxonomy).

``MulticlassVennAbersCalibrator.fit(scores, y, groups=g)`` fits, besides the predictor of all
groups pooled (``tables_``), the same strategy on each group's calibration examples alone
(``group_tables_``, in the order of ``groups_``); prediction with ``groups=`` uses each test
object's own group, so the validity of one-vs-rest Venn-Abers holds within every group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.core.groups import check_groups, group_rows

if TYPE_CHECKING:
    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray
    from venncal.calibration.multiclass import MulticlassTables, MulticlassVennAbersCalibrator
    from venncal.core.class_scores import ShiftedColumns
    from venncal.core.top_label import TopLabelScores

__all__ = ["fit_group_tables"]


def fit_group_tables(
    calibrator: MulticlassVennAbersCalibrator,
    S: FloatArray,
    t: FloatArray | ShiftedColumns | TopLabelScores,
    y_enc: IntArray,
    w: FloatArray | None,
    classes: AnyArray,
    groups: ArrayLike,
    *,
    owner: str,
) -> tuple[list[Any], list[MulticlassTables]]:
    """Return ``(labels, tables)``: the predictor of each group, fitted on its rows alone.

    A group needs calibration examples (of positive weight) of every class: a raise of one
    line names the group and the missing class otherwise. ``S`` is the score matrix whose
    class scores are ``t``.
    """
    g = check_groups(groups, t.shape[0])
    K = classes.shape[0]
    labels: list[Any] = []
    tables: list[MulticlassTables] = []
    for label, rows in group_rows(g):
        present = y_enc[rows] if w is None else y_enc[rows][w[rows] > 0]
        missing = np.setdiff1d(np.arange(K), present)
        if missing.size:
            raise ValueError(
                f"{owner}: group {label!r} has no calibration example of class "
                f"{classes[missing[0]].item()!r}; each group is calibrated on its own examples "
                "and needs every class: merge small groups or give them more data."
            )
        part_w = None if w is None else w[rows]
        tables.append(calibrator._fit_tables(S[rows], t[rows], y_enc[rows], part_w, K, owner=owner))
        labels.append(label)
    return labels, tables
