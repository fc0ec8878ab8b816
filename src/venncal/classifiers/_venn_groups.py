"""Venn predictors within groups (a Mondrian taxonomy) for ``VennClassifier``.

With groups, the category of an object is the pair (group, taxonomy category): a test object is
compared with the calibration examples of its own group only, and the taxonomy is computed
within the group (the bin edges of ``"bins"`` from the group's scores, the isotonic fit of
``"isotonic"`` on the group's examples, the out-of-bag z_r drawn from the group's calibration
examples). Each group's prediction is thus the Venn predictor fitted on that group's
calibration examples alone, and the validity guarantee holds within every group.

A group seen at fit with no calibration example (its rows all went to the proper training set,
or have no out-of-bag score) cannot be calibrated; with ``taxonomy="isotonic"`` neither can a
group whose calibration examples are of one class, as for ``VennAbersCalibrator``. Such groups,
and groups unseen at fit, raise an error naming them, or with ``group_fallback="pooled"`` get
the predictor of all groups pooled (the prediction of the fit without groups), with a warning.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils import _safe_indexing, indexable
from sklearn.utils.validation import _num_samples

from venncal._validation import check_option
from venncal.calibration._groups import (
    GROUP_FALLBACKS,
    check_groups,
    group_rows,
    unseen_groups,
)
from venncal.classifiers._common import check_groups_match
from venncal.core.venn import VennPrediction
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from venncal._typing import AnyArray, ArrayLike, IntArray
    from venncal.classifiers.venn import VennClassifier

__all__ = ["check_fit_groups", "set_calibration_groups", "check_predict_groups", "grouped_venn"]

_OWNER = "VennClassifier"
_NAME = "calibration_groups"


def check_fit_groups(vc: VennClassifier, groups: ArrayLike | None, n: int) -> AnyArray | None:
    """Validate ``group_fallback`` and the groups given to fit; return them checked, or None."""
    check_option(vc.group_fallback, GROUP_FALLBACKS, name="group_fallback", owner=_OWNER)
    if groups is None:
        return None
    if vc.method == "full":
        raise ValueError(
            f"{_OWNER}: calibration_groups= works with method 'inductive' or 'oob', not 'full'; "
            "use method='inductive', or fit one VennClassifier(method='full') per group."
        )
    return check_groups(groups, n, name=_NAME, what="rows")


def set_calibration_groups(
    vc: VennClassifier, groups: AnyArray | None, cal_rows: IntArray, *, stacklevel: int = 3
) -> None:
    """Set ``cal_groups_``, ``groups_`` and ``pooled_groups_`` of a fitted ``vc``.

    ``groups`` holds the group of every training row (None without groups), ``cal_rows`` the
    training rows of the calibration examples.
    """
    if groups is None:
        vc.cal_groups_ = vc.groups_ = vc.pooled_groups_ = None
        return
    cal_groups = groups[cal_rows]
    members = dict(group_rows(cal_groups))
    calibrated, pooled = [], []
    for label, rows in group_rows(groups):
        own = members.get(label)
        if own is None:
            where = (
                "all went to the proper training set; give it more rows or a larger cal_size"
                if vc.method == "inductive"
                else "have no out-of-bag score; give it more rows or the ensemble more members"
            )
            reason = f"has no calibration example: its {rows.shape[0]} row(s) {where}"
        elif vc.taxonomy == "isotonic" and np.unique(vc.cal_labels_[own]).shape[0] < 2:
            reason = (
                f"has calibration examples of one class only ({own.shape[0]}); merge small "
                "groups or give them more data"
            )
        else:
            calibrated.append(label)
            continue
        if vc.group_fallback == "error":
            raise ValueError(
                f"{_OWNER}: group {label!r} {reason}, or pass group_fallback='pooled'."
            )
        pooled.append(label)
    if pooled:
        warnings.warn(
            f"{_OWNER}: groups {pooled!r} cannot be calibrated on their own and use the predictor "
            "of all groups pooled (group_fallback='pooled').",
            VenncalWarning,
            stacklevel=stacklevel,
        )
    vc.cal_groups_, vc.groups_, vc.pooled_groups_ = cal_groups, calibrated, pooled


def check_predict_groups(vc: VennClassifier, groups: ArrayLike | None) -> None:
    """Raise when groups are given to a model fitted without them, or missing for one with."""
    check_groups_match(_OWNER, getattr(vc, "groups_", None) is not None, groups)


def grouped_venn(vc: VennClassifier, X: Any, groups: ArrayLike) -> VennPrediction:
    """The Venn prediction of each test object from the calibration examples of its group."""
    X = indexable(X)[0]
    m = _num_samples(X)
    g = check_groups(groups, m, name=_NAME, what="objects")
    parts = group_rows(g)
    own = dict(group_rows(vc.cal_groups_))
    calibrated = set(vc.groups_)
    unknown = [lab for lab, _ in parts if lab not in calibrated and lab not in vc.pooled_groups_]
    unseen_groups(_OWNER, unknown, vc.group_fallback)
    jobs = [(rows, own[lab]) for lab, rows in parts if lab in calibrated]
    pooled = [rows for lab, rows in parts if lab not in calibrated]
    if pooled:
        jobs.append((np.sort(np.concatenate(pooled)), None))
    K = vc.classes_.shape[0]
    lower, upper = np.empty((m, K)), np.empty((m, K))
    weighted = getattr(vc, "cal_weights_", None) is not None
    size = np.empty(m, dtype=np.float64 if weighted else np.intp)
    for rows, members in jobs:
        scores, exclude = vc._test_scores(_safe_indexing(X, rows), members)
        pred = vc._venn(scores, exclude, members)
        lower[rows], upper[rows], size[rows] = pred.lower, pred.upper, pred.category_size
    return VennPrediction(lower, upper, np.argmax(lower, axis=1), size)
