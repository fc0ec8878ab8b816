"""The rows of the table of expectations (:mod:`venncal.persistence._checks`) for
:class:`~venncal.AbstentionRule`: a threshold, coverage and bound in [0, 1], a bound within the
target the rule was fitted to guarantee, and the groups' thresholds one per group."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_in_range, check_option, check_positive_int
from venncal.persistence import _fields as f
from venncal.persistence._fields import FittedStateError

if TYPE_CHECKING:
    from venncal.persistence._checks import Row

__all__ = ["ABSTENTION_ROWS"]

_NAME = "AbstentionRule"


def _unit_vector(value: Any, where: str) -> None:
    """None, or a 1-D float array of values in [0, 1]."""
    if value is None:
        return
    if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype.kind != "f":
        raise FittedStateError(f"{where} must be None or a 1-D float array")
    if not (np.isfinite(value).all() and (value >= 0).all() and (value <= 1).all()):
        raise FittedStateError(f"{where} must hold values in [0, 1]")


def _relations(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """Every group has its threshold and bound; no bound passes the target; one score column
    (binary) or one per class."""
    groups, thresholds, group_bounds = (
        fitted.get(a) for a in ("groups_", "group_thresholds_", "group_error_bounds_")
    )
    set_ = [v is not None for v in (groups, thresholds, group_bounds)]
    if any(set_) and not all(set_):
        raise FittedStateError(f"{where}.groups_, .group_thresholds_ and .group_error_bounds_ "
                               "must all be None or all set")  # fmt: skip
    if groups is not None and thresholds is not None and group_bounds is not None:
        if not len(groups) == thresholds.shape[0] == group_bounds.shape[0]:
            raise FittedStateError(f"{where}: one threshold and one bound per group of groups_")
    target = params.get("target_error")
    bounds = [fitted.get("error_bound_")] + ([] if group_bounds is None else list(group_bounds))
    if isinstance(target, float) and any(b is not None and b > target for b in bounds):
        raise FittedStateError(f"{where}: an error bound above target_error")
    classes, k = fitted.get("classes_"), fitted.get("n_features_in_")
    if classes is not None and isinstance(k, int):
        if (k == 1 and classes.shape[0] != 2) or (k > 1 and classes.shape[0] != k):
            raise FittedStateError(
                f"{where}.n_features_in_ must be 1 (binary) or the number of classes"
            )


ABSTENTION_ROWS: dict[tuple[str, str], Row] = {
    (_NAME, "classes_"): f.labels(2),
    (_NAME, "n_features_in_"): f.integer(1, 2**31 - 1),
    (_NAME, "threshold_"): f.number(0.0, 1.0),
    (_NAME, "coverage_"): f.number(0.0, 1.0),
    (_NAME, "error_bound_"): f.number(0.0, 1.0),
    (_NAME, "n_accepted_"): f.number(0.0),
    (_NAME, "groups_"): f.group_labels,
    (_NAME, "group_thresholds_"): _unit_vector,
    (_NAME, "group_error_bounds_"): _unit_vector,
    (_NAME, "target_error"): f.param(check_in_range, 0, 1),
    (_NAME, "delta"): f.param(check_in_range, 0, 1),
    (_NAME, "confidence"): f.param(check_option, ("probability", "lower")),
    (_NAME, "n_thresholds"): f.param(check_positive_int, minimum=2),
    (_NAME, "min_accepted"): f.param(f.none_or(check_positive_int)),
    (_NAME, "group_fallback"): f.param(check_option, ("error", "pooled")),
    (_NAME, "*"): (_relations,),
}
