"""Checks of decoded fitted state: a hand-edited model file must not predict wrong numbers.

The checksum of a model file detects damage, not edits (anyone can recompute it), so the
decoded tables are checked against the invariants of the fit that made them: the Venn-Abers
step tables (breaks strictly increasing and finite, one more value than breaks, values in
[0, 1] and non-decreasing, and p0 <= p1 at every piece of the two step functions), the points
of an isotonic step function (increasing, finite, values in [0, 1]), histogram bins (increasing
edges, one value, count and positive total per bin, values in [0, 1]), Bayesian binning
(increasing positions, values strictly inside (0, 1)), Platt's sigmoid (finite
coefficients, a positive scale), the ACP table (increasing positions, cumulative weights from
0 that grow at each position by the weight there and the positives by at most that, a finite
non-negative smoothing) with the covariance of its sigmoid (2 x 2, finite, symmetric, positive
semi-definite), and the beta map (finite non-negative a and b, a finite c, a known
parametrisation and score scale, a = b for "am" and the midpoint 1/2 for "ab", and the
calibrator's copies of a, b and c equal to the map's), the multiclass tables (K classes, K or
K(K - 1)/2 binary tables of the kind above, at most 100 classes for pairwise ones, p1 > 0 and
p0 < 1), the pooled counts kept for ``partial_fit`` (non-negative), and the tables of a
Venn-Abers predictive distribution (the fit of their own rows, bit for bit:
:mod:`venncal.persistence._distribution_checks`), and the segment coding, boosted trees and
Venn-Abers predictors within levels of a multicalibration calibrator
(:mod:`venncal.persistence._multicalibration_checks`).

The checks of each core object are in :mod:`venncal.persistence._object_checks`. Which check
applies to which value is one table, ``_EXPECTED``: a row per class and fitted
attribute, parameter or whole-model relation (labels distinct, copies equal to their table,
K equal to the number of classes, the strategy matching its tables). Parameters are checked by
the helpers the estimators call at fit. tests/persistence/test_expectations.py proves the table
complete: every attribute a fit of a savable class sets, and every parameter, has a row.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_bool, check_in_range, check_option, check_positive_int
from venncal.persistence import _fields as f
from venncal.persistence._abstention_checks import ABSTENTION_ROWS
from venncal.persistence._distribution_checks import DISTRIBUTION_OBJECT_CHECKS, DISTRIBUTION_ROWS
from venncal.persistence._fields import FittedStateError
from venncal.persistence._multicalibration_checks import (
    MULTICALIBRATION_OBJECT_CHECKS,
    MULTICALIBRATION_ROWS,
)
from venncal.persistence._object_checks import (
    _MC,
    OBJECT_CHECKS,
    _check_covariance,
    _check_ivap_of,
    _float_vector,
    _type_name,
)
from venncal.persistence._registry import required_fitted
from venncal.persistence._segmented_monitor_checks import SEGMENTED_MONITOR_ROWS

if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from venncal.persistence._fields import Check, Relation

    #: a row of the table of expectations: a fitted-state type name, a check of one value, or
    #: (for "*") the whole-model checks
    Row: TypeAlias = str | Check | tuple[Relation, ...]

__all__ = ["FittedStateError", "check_fitted_state", "check_fitted_value", "expectations"]


def _monitor_grid(value: Any, *, name: str, owner: str) -> None:
    from venncal.core.betting import check_grid

    check_grid(value, name=name, owner=owner)


def _monitor_bins(value: Any, *, name: str, owner: str) -> None:
    from venncal.core.betting import check_n_bins

    check_n_bins(value, name=name, owner=owner)


def _monitor_alternatives(value: Any, where: str) -> None:
    if not isinstance(value, np.ndarray) or value.ndim != 2 or value.shape[1] != 3:
        raise FittedStateError(f"{where} must be a K x 3 float array")
    if value.dtype.kind != "f" or not np.isfinite(value).all() or value.shape[0] == 0:
        raise FittedStateError(f"{where} must hold finite floats, one row per alternative")


def _monitor(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """The state belongs to the grid and the level of the parameters (the number of
    alternatives is checked before the grid is built)."""
    state, alternatives = fitted.get("state_"), fitted.get("alternatives_")
    if state is None or alternatives is None:
        return
    from venncal.core.betting import monitor_alternatives

    try:
        grid = monitor_alternatives(
            params.get("shifts"), params.get("slopes"), params.get("n_bins", 1), owner=where
        )
    except (TypeError, ValueError) as exc:
        raise FittedStateError(str(exc).rstrip(".")) from None
    if not np.array_equal(grid, alternatives) or state.log_wealth.shape[0] != grid.shape[0]:
        raise FittedStateError(f"{where}.alternatives_ and .state_ must be those of its grid")
    alpha = params.get("alpha")
    if isinstance(alpha, float) and not np.isclose(state.log_threshold, -np.log(alpha), rtol=1e-12):
        raise FittedStateError(f"{where}.state_ must have the alarm level log(1 / alpha)")
    if (state.path is None) != (params.get("keep_path") is False):
        raise FittedStateError(f"{where}.state_ must keep its path exactly when keep_path")


_CHECKS = {**OBJECT_CHECKS, **DISTRIBUTION_OBJECT_CHECKS, **MULTICALIBRATION_OBJECT_CHECKS}


def _binary_rows(name: str, *, counts: bool = False) -> dict[tuple[str, str], Row]:
    """The rows every binary score calibrator shares (``BaseScoreCalibrator.fit``), and those
    of the count calibrators (``CountCalibratorMixin``: rounding and ``partial_fit`` data)."""
    rows: dict[tuple[str, str], Row] = {
        (name, "classes_"): f.labels(2, 2),
        (name, "n_features_in_"): f.n_columns(1),
    }
    rows[(name, "pos_label_")] = _pos_label
    if counts:
        rows[(name, "decimals_")] = f.decimals_value
        rows[(name, "aggregate_")] = "venncal.core.counts.CountTable"
        rows[(name, "decimals")] = f.param(f.decimals_param)
    return rows


def _pos_label(value: Any, where: str) -> None:
    """``pos_label_``: the positive class, one label (absent in files of older versions)."""
    if value is not None and not isinstance(value, (str, int, float, bool)):
        raise FittedStateError(f"{where} must be a label (a string, number or boolean)")


def _list_of_multiclass_tables(value: Any, where: str) -> None:
    """``group_tables_`` of MulticlassVennAbersCalibrator: None, or a list of its tables."""
    if value is None:
        return
    if not isinstance(value, list):
        raise FittedStateError(f"{where} must be None or a list of multiclass tables")
    for i, tables in enumerate(value):
        _MULTICLASS_TABLES(tables, f"{where}[{i}]")


def _list_of_ivap(value: Any, where: str) -> None:
    if not isinstance(value, list):
        raise FittedStateError(f"{where} must be a list of IVAPTables")
    for i, tables in enumerate(value):
        _check_ivap_of(tables, f"{where}[{i}]")


def _real(value: Any, where: str) -> None:
    """A real number, possibly infinite (e.g. a coefficient of scores near 1e-300)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FittedStateError(f"{where} must be a number")
    if isinstance(value, int) and abs(value) > sys.float_info.max:
        raise FittedStateError(f"{where} must be a number a float can hold")


def _two_reals(value: Any, where: str) -> None:
    if not isinstance(value, np.ndarray) or value.shape != (2,) or value.dtype.kind != "f":
        raise FittedStateError(f"{where} must be a float array of 2 values")


def _positive_or_inf(value: Any, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise FittedStateError(f"{where} must be a positive number or inf")


def _bias_value(value: Any, where: str) -> None:
    if isinstance(value, np.ndarray):
        _float_vector(value, where)
    else:
        f.number()(value, where)


def _not_nan(value: Any, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise FittedStateError(f"{where} must be a number")


def _one_of_types(*names: str) -> Check:
    def check(value: Any, where: str) -> None:
        if _type_name(value) not in names:
            kinds = ", ".join(n.rsplit(".", 1)[1] for n in names)
            raise FittedStateError(f"{where} must be one of {kinds}, not {type(value).__name__}")

    return check


def _needs(attr: str, param: str) -> Relation:
    """A file whose parameter ``param`` is set (not None) was written by a fit that recorded
    it in ``attr`` (without it, e.g. the rounding of the scores would be skipped). A file of
    an older version, or its calibrator saved again, has neither."""

    def check(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
        if params.get(param) is not None and attr not in fitted:
            raise FittedStateError(f"{where}.{attr} is missing")

    return check


def _two_by_two(cov: Any, where: str) -> None:
    if not isinstance(cov, np.ndarray) or cov.shape != (2, 2) or cov.dtype.kind != "f":
        raise FittedStateError(f"{where} must be a 2 x 2 float array")


def _acp_covariance(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """``covariance_`` is ``covariance_scaled_`` in the units of the score (it may overflow)."""
    sig, scaled, cov = (fitted.get(a) for a in ("sigmoid_", "covariance_scaled_", "covariance_"))
    if sig is None or scaled is None or cov is None:
        return
    jac = np.array([[1.0 / sig.scale, 0.0], [-sig.center / sig.scale, 1.0]])
    with np.errstate(over="ignore", invalid="ignore"):
        expected = jac @ scaled @ jac.T
    if not np.allclose(cov, expected, rtol=1e-9, atol=0.0, equal_nan=True):
        raise FittedStateError(f"{where}.covariance_ must be covariance_scaled_ in score units")


def _multiclass(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    tables, classes = fitted.get("tables_"), fitted.get("classes_")
    if tables is None or classes is None:
        return
    K = classes.shape[0]
    if tables.K != K or fitted.get("n_features_in_", K) != K:
        raise FittedStateError(
            f"{where}.tables_.K and .n_features_in_ must be the number of classes ({K})"
        )
    kind = type(tables).__name__
    strategy = fitted.get("strategy_")
    top_label = kind == "TopLabelTables"
    if strategy is not None and (
        ("Pairwise" in kind) != (strategy == "pairwise") or top_label != (strategy == "top-label")
    ):
        raise FittedStateError(f"{where}.strategy_ {strategy!r} does not match its {kind}")
    pooled = params.get("pooled")
    if isinstance(pooled, bool) and not top_label and kind.startswith("Pooled") != pooled:
        raise FittedStateError(f"{where}: pooled={pooled} does not match its {kind}")


def _multiclass_groups(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """Fitted within groups, ``groups_`` and ``group_tables_`` are both set: one table per
    group (at least one), each of the kind and the classes of ``tables_``."""
    groups, tables, pooled = (fitted.get(a) for a in ("groups_", "group_tables_", "tables_"))
    if groups is None and tables is None:
        return
    if groups is None or tables is None or not groups or len(tables) != len(groups):
        raise FittedStateError(
            f"{where}.groups_ and .group_tables_ must both be None or hold one table per group"
        )
    if pooled is not None and any(type(t) is not type(pooled) or t.K != pooled.K for t in tables):
        raise FittedStateError(
            f"{where}.group_tables_ must be tables of the kind and the classes of tables_"
        )


def _quadratic_copies(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """``intercept_`` and ``coef_`` are the map's coefficients in the units of the log-odds."""
    qmap, b, coef = (fitted.get(a) for a in ("map_", "intercept_", "coef_"))
    if qmap is None or b is None or coef is None:
        return
    if not isinstance(coef, np.ndarray) or coef.shape != (2,) or coef.dtype.kind != "f":
        raise FittedStateError(f"{where}.coef_ must be a float array of 2 values")
    if not np.array_equal(np.r_[b, coef], np.array(qmap.coefficients), equal_nan=True):
        raise FittedStateError(f"{where}.intercept_ and .coef_ must equal the map's coefficients")


def _scaling_binning_bins(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """The bins cut the sigmoid's values, from 0 to 1, and each bin's value (the mean of the
    sigmoid over the bin) lies inside its bin."""
    binning = fitted.get("binning_")
    if binning is None:
        return
    edges, values = binning.edges, binning.values
    if edges[0] != 0.0 or edges[-1] != 1.0:
        raise FittedStateError(f"{where}.binning_.edges must run from 0 to 1 (sigmoid values)")
    if ((values < edges[:-1]) | (values > edges[1:])).any():
        raise FittedStateError(f"{where}.binning_: each bin's value must lie inside its bin")


def _temperature_copies(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    """The map has one bias per class (two for binary scores); the copies match it."""
    tmap, classes = fitted.get("map_"), fitted.get("classes_")
    if tmap is None or classes is None:
        return
    if tmap.bias.shape[0] != classes.shape[0]:
        raise FittedStateError(f"{where}.map_.bias must hold one value per class")
    n_features = fitted.get("n_features_in_")
    if n_features is not None and n_features not in (1, classes.shape[0]):
        raise FittedStateError(f"{where}.n_features_in_ must be 1 or the number of classes")
    if n_features == 1 and classes.shape[0] != 2:
        raise FittedStateError(f"{where}: binary scores (n_features_in_ = 1) need two classes")
    beta = tmap.inverse_temperature
    expected = np.inf if beta == 0 else 1.0 / beta
    if "temperature_" in fitted and fitted["temperature_"] != expected:
        raise FittedStateError(f"{where}.temperature_ must be 1 / map_.inverse_temperature")
    bias = fitted.get("bias_")
    if bias is not None:
        want = float(tmap.bias[1] - tmap.bias[0]) if n_features == 1 else tmap.bias
        if not np.array_equal(np.asarray(bias), np.asarray(want)):
            raise FittedStateError(f"{where}.bias_ must equal the map's bias")


def _linear_softmax_rows(name: str, map_type: str) -> dict[tuple[str, str], Row]:
    """The rows of the calibrators on (n, K) scores built on ``LinearSoftmaxCalibrator``."""
    return {
        (name, "classes_"): f.labels(2),
        (name, "n_features_in_"): f.integer(2, 2**31 - 1),
        (name, "map_"): map_type,
        (name, "score_type_"): f.one_of("logits", "probabilities", "raw"),
        (name, "n_iter_"): f.integer(0, 2**31 - 1),
        (name, "score_type"): f.param(check_option, ("auto", "logits", "probabilities", "raw")),
        (name, "max_iter"): f.param(check_positive_int),
        (name, "tol"): f.param(check_in_range, 0, np.inf),
    }


_penalty = f.param(check_in_range, 0, np.inf, closed="left")


def _linear_softmax_size(matrix_name: str) -> Relation:
    """The map is K x K for the K classes of ``classes_``."""

    def check(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
        m, classes = fitted.get("map_"), fitted.get("classes_")
        if m is None or classes is None:
            return
        K = classes.shape[0]
        if getattr(m, matrix_name).shape[0] != K or fitted.get("n_features_in_", K) != K:
            raise FittedStateError(
                f"{where}.map_.{matrix_name} and .n_features_in_ must match the {K} classes"
            )

    return check


def _structure_matches(fitted: dict[str, Any], params: dict[str, Any], where: str) -> None:
    m = fitted.get("map_")
    if m is not None and "structure" in params and m.structure != params["structure"]:
        raise FittedStateError(f"{where}.map_.structure must equal the 'structure' parameter")


# The table of expectations: what a model file of each class may hold, one row per
# (class name, name). Loading checks every value against its row, and
# tests/persistence/test_expectations.py fails for a savable class whose fitted instance has
# an attribute (or a parameter) without a row. Attributes without a row (a user's additions to
# a fitted calibrator, which no method reads) are kept, checked only by their types.
#
#   name ending in "_"  a fitted attribute; the row is a type "module.QualName" (the value
#                       must be of that fitted-state type, checked by its entry in _CHECKS)
#                       or a check ``check(value, where)`` (see _fields.py). The attributes
#                       the registry lists as fitted must be present; others may be absent
#                       (files of older versions).
#   other names         a parameter (``get_params()``): ``check(value, where)``, usually
#                       ``f.param(helper, ...)`` with the helper the estimator calls at fit.
#   "*"                 a tuple of whole-model checks ``check(fitted, params, where)``:
#                       relations between attributes (copies equal to their table, sizes).
#
# Rows of a new class: its fitted attributes (fit it, list ``vars`` ending in "_"), its
# parameters and its relations. A check raises FittedStateError with one line.
# the tables of MulticlassVennAbersCalibrator (pooled, and of each group)
_MULTICLASS_TABLES = _one_of_types(
    *(_MC + name for name in ("OneVsRestTables", "PairwiseTables")),
    *(_MC + name for name in ("PooledOneVsRestTables", "PooledPairwiseTables")),
    "venncal.core.top_label.TopLabelTables",
)

_EXPECTED: dict[tuple[str, str], Row] = {
    ("VennAbersCalibrator", "tables_"): "venncal.core.venn_abers.IVAPTables",
    ("IsotonicCalibrator", "step_function_"): "venncal.core.isotonic.IsotonicStepFunction",
    ("PlattCalibrator", "sigmoid_"): "venncal.core.platt.PlattSigmoid",
    ("HistogramCalibrator", "binning_"): "venncal.core.histogram.HistogramBinning",
    ("BayesianBinningCalibrator", "binning_"): "venncal.core.bayesian_binning.BayesianBinning",
    ("ACPCalibrator", "table_"): "venncal.core.acp.ACPTable",
    ("BetaCalibrator", "map_"): "venncal.core.beta.BetaMap",
    **_binary_rows("VennAbersCalibrator", counts=True),
    ("VennAbersCalibrator", "groups_"): f.group_labels,
    ("VennAbersCalibrator", "group_tables_"): f.optional(_list_of_ivap),
    ("VennAbersCalibrator", "pooled_groups_"): f.group_labels,
    ("VennAbersCalibrator", "merge"): f.param(check_option, "venncal.core.merge:MERGES"),
    ("VennAbersCalibrator", "group_fallback"): f.param(check_option, ("error", "pooled")),
    ("VennAbersCalibrator", "*"): (
        _needs("decimals_", "decimals"),
        f.groups_together,
    ),
    **_binary_rows("IsotonicCalibrator", counts=True),
    ("IsotonicCalibrator", "rule"): f.param(check_option, ("interpolate", "nearest")),
    ("IsotonicCalibrator", "*"): (_needs("decimals_", "decimals"),),
    **_binary_rows("PlattCalibrator"),
    ("PlattCalibrator", "a_"): f.number(),
    ("PlattCalibrator", "b_"): f.number(),
    ("PlattCalibrator", "n_iter_"): f.integer(0, 2**31 - 1),
    ("PlattCalibrator", "smoothing"): f.param(check_bool),
    ("PlattCalibrator", "max_iter"): f.param(check_positive_int),
    ("PlattCalibrator", "*"): (
        f.same_as("a_", "sigmoid_", "a"),
        f.same_as("b_", "sigmoid_", "b"),
        f.same_as("n_iter_", "sigmoid_", "n_iter"),
    ),
    **_binary_rows("HistogramCalibrator", counts=True),
    ("HistogramCalibrator", "bin_edges_"): _float_vector,
    ("HistogramCalibrator", "bin_counts_"): _float_vector,
    ("HistogramCalibrator", "n_bins"): f.param(check_positive_int),
    ("HistogramCalibrator", "strategy"): f.param(check_option, ("uniform", "quantile")),
    ("HistogramCalibrator", "alpha"): f.param(check_in_range, 0, np.inf, closed="left"),
    ("HistogramCalibrator", "*"): (
        _needs("decimals_", "decimals"),
        f.same_as("bin_edges_", "binning_", "edges"),
        f.same_as("bin_counts_", "binning_", "counts"),
    ),
    **_binary_rows("BayesianBinningCalibrator", counts=True),
    ("BayesianBinningCalibrator", "log_score_"): _not_nan,
    ("BayesianBinningCalibrator", "method"): f.param(check_option, ("averaging", "selection")),
    ("BayesianBinningCalibrator", "lam"): f.param(check_in_range, 0, np.inf),
    ("BayesianBinningCalibrator", "max_positions"): f.param(
        f.none_or(check_positive_int), minimum=2
    ),
    ("BayesianBinningCalibrator", "averaging"): f.param(check_option, ("exact", "paper")),
    ("BayesianBinningCalibrator", "*"): (
        _needs("decimals_", "decimals"),
        f.same_as("log_score_", "binning_", "log_score"),
    ),
    **_binary_rows("ACPCalibrator"),
    ("ACPCalibrator", "sigmoid_"): "venncal.core.platt.PlattSigmoid",
    ("ACPCalibrator", "covariance_scaled_"): _check_covariance,
    ("ACPCalibrator", "covariance_"): _two_by_two,
    ("ACPCalibrator", "confidence"): f.param(check_in_range, 0, 1),
    ("ACPCalibrator", "alpha"): f.param(check_in_range, 0, np.inf, closed="left"),
    ("ACPCalibrator", "interval_adjustment"): f.param(check_option, ("symmetric", "none")),
    ("ACPCalibrator", "*"): (_acp_covariance,),
    **_binary_rows("BetaCalibrator"),
    ("BetaCalibrator", "a_"): f.number(),
    ("BetaCalibrator", "b_"): f.number(),
    ("BetaCalibrator", "c_"): f.number(),
    ("BetaCalibrator", "m_"): f.optional(_real),
    ("BetaCalibrator", "n_iter_"): f.integer(0, 2**31 - 1),
    ("BetaCalibrator", "parameters"): f.param(check_option, "venncal.core.beta:BETA_PARAMETERS"),
    ("BetaCalibrator", "score_scale"): f.param(check_option, "venncal.core.beta:SCORE_SCALES"),
    ("BetaCalibrator", "max_iter"): f.param(check_positive_int),
    ("BetaCalibrator", "*"): tuple(
        f.same_as(f"{name}_", "map_", name) for name in ("a", "b", "c", "m", "n_iter")
    ),
    **_binary_rows("ScalingBinningCalibrator"),
    ("ScalingBinningCalibrator", "sigmoid_"): "venncal.core.platt.PlattSigmoid",
    ("ScalingBinningCalibrator", "binning_"): "venncal.core.histogram.HistogramBinning",
    ("ScalingBinningCalibrator", "n_iter_"): f.integer(0, 2**31 - 1),
    ("ScalingBinningCalibrator", "n_bins"): f.param(check_positive_int),
    ("ScalingBinningCalibrator", "scaling_fraction"): f.param(check_in_range, 0, 1),
    ("ScalingBinningCalibrator", "smoothing"): f.param(check_bool),
    ("ScalingBinningCalibrator", "max_iter"): f.param(check_positive_int),
    ("ScalingBinningCalibrator", "*"): (
        f.same_as("n_iter_", "sigmoid_", "n_iter"),
        _scaling_binning_bins,
    ),
    **_binary_rows("QuadraticCalibrator"),
    ("QuadraticCalibrator", "map_"): "venncal.core.quadratic.QuadraticMap",
    ("QuadraticCalibrator", "intercept_"): _real,
    ("QuadraticCalibrator", "coef_"): _two_reals,
    ("QuadraticCalibrator", "form_"): f.one_of("quadratic", "affine", "constant"),
    ("QuadraticCalibrator", "n_iter_"): f.integer(0, 2**31 - 1),
    ("QuadraticCalibrator", "score_scale"): f.param(check_option, "venncal.core.beta:SCORE_SCALES"),
    ("QuadraticCalibrator", "monotone"): f.param(
        check_option, "venncal.core.quadratic:MONOTONE_RULES"
    ),
    ("QuadraticCalibrator", "max_iter"): f.param(check_positive_int),
    ("QuadraticCalibrator", "*"): (
        _quadratic_copies,
        f.same_as("form_", "map_", "form"),
        f.same_as("n_iter_", "map_", "n_iter"),
    ),
    ("TemperatureCalibrator", "classes_"): f.labels(2),
    ("TemperatureCalibrator", "n_features_in_"): f.integer(1, 2**31 - 1),
    ("TemperatureCalibrator", "map_"): "venncal.core.temperature.TemperatureMap",
    ("TemperatureCalibrator", "score_type_"): f.one_of("logits", "probabilities"),
    ("TemperatureCalibrator", "temperature_"): _positive_or_inf,
    ("TemperatureCalibrator", "bias_"): _bias_value,
    ("TemperatureCalibrator", "n_iter_"): f.integer(0, 2**31 - 1),
    ("TemperatureCalibrator", "bias"): f.param(check_bool),
    ("TemperatureCalibrator", "score_type"): f.param(
        check_option, ("auto", "logits", "probabilities")
    ),
    ("TemperatureCalibrator", "max_iter"): f.param(check_positive_int),
    ("TemperatureCalibrator", "*"): (
        _temperature_copies,
        f.same_as("n_iter_", "map_", "n_iter"),
    ),
    ("MulticlassVennAbersCalibrator", "classes_"): f.labels(2),
    ("MulticlassVennAbersCalibrator", "n_features_in_"): f.integer(2, 2**31 - 1),
    ("MulticlassVennAbersCalibrator", "tables_"): _MULTICLASS_TABLES,
    ("MulticlassVennAbersCalibrator", "groups_"): f.group_labels,
    ("MulticlassVennAbersCalibrator", "group_tables_"): _list_of_multiclass_tables,
    ("MulticlassVennAbersCalibrator", "score_type_"): f.one_of("logits", "probabilities", "raw"),
    ("MulticlassVennAbersCalibrator", "strategy_"): f.one_of("ovr", "pairwise", "top-label"),
    ("MulticlassVennAbersCalibrator", "strategy"): f.param(
        check_option, "venncal.core.multiclass_venn_abers:CALIBRATOR_STRATEGIES"
    ),
    ("MulticlassVennAbersCalibrator", "pooled"): f.param(check_bool),
    ("MulticlassVennAbersCalibrator", "coupling"): f.param(
        check_option, "venncal.core.coupling:COUPLINGS"
    ),
    ("MulticlassVennAbersCalibrator", "merge"): f.param(check_option, "venncal.core.merge:MERGES"),
    ("MulticlassVennAbersCalibrator", "score_type"): f.param(
        check_option, ("auto", "logits", "probabilities", "raw")
    ),
    ("MulticlassVennAbersCalibrator", "*"): (_multiclass, _multiclass_groups),
    ("CalibrationMonitor", "classes_"): f.labels(2, 2),
    ("CalibrationMonitor", "n_features_in_"): f.n_columns(1),
    ("CalibrationMonitor", "state_"): "venncal.core.betting.MonitorState",
    ("CalibrationMonitor", "alternatives_"): _monitor_alternatives,
    ("CalibrationMonitor", "alpha"): f.param(check_in_range, 0, 1),
    ("CalibrationMonitor", "shifts"): f.param(_monitor_grid),
    ("CalibrationMonitor", "slopes"): f.param(_monitor_grid),
    ("CalibrationMonitor", "n_bins"): f.param(_monitor_bins),
    ("CalibrationMonitor", "keep_path"): f.param(check_bool),
    ("CalibrationMonitor", "*"): (_monitor,),
    **_linear_softmax_rows(
        "MatrixScalingCalibrator", "venncal.core.matrix_scaling.MatrixScalingMap"
    ),
    ("MatrixScalingCalibrator", "structure"): f.param(
        check_option, "venncal.core.matrix_scaling:STRUCTURES"
    ),
    ("MatrixScalingCalibrator", "lambda_intercept"): _penalty,
    ("MatrixScalingCalibrator", "lambda_diagonal"): _penalty,
    ("MatrixScalingCalibrator", "lambda_off_diagonal"): _penalty,
    ("MatrixScalingCalibrator", "*"): (
        _linear_softmax_size("delta"),
        _structure_matches,
    ),
    **_linear_softmax_rows("DirichletCalibrator", "venncal.core.dirichlet.DirichletMap"),
    ("DirichletCalibrator", "reg_lambda"): _penalty,
    ("DirichletCalibrator", "reg_mu"): _penalty,
    ("DirichletCalibrator", "*"): (_linear_softmax_size("weights"),),
    **ABSTENTION_ROWS,
    **DISTRIBUTION_ROWS,
    **MULTICALIBRATION_ROWS,
    **SEGMENTED_MONITOR_ROWS,
}


def expectations(class_name: str) -> dict[str, Row]:
    """The rows of the table for ``class_name``, as ``{name: check}`` (empty if it has none)."""
    return {name: row for (cls, name), row in _EXPECTED.items() if cls == class_name}


def check_fitted_state(
    class_name: str, state: dict[str, Any], params: dict[str, Any] | None = None
) -> None:
    """Check every fitted attribute (and parameter) of a decoded model of class ``class_name``
    against its row in the table of expectations; raise :class:`FittedStateError` naming the
    first one that breaks its fit's invariants.

    A class without rows (registered by a user) gets only the checks of its values' types.
    """
    rows = expectations(class_name)
    params = {} if params is None else params
    if rows:
        required = required_fitted(class_name)
        missing = [a for a in required if a not in state]
        if missing:
            raise FittedStateError(
                f"the fitted attribute {missing[0]!r} of {class_name} is missing"
            )
    for attr, value in state.items():
        where = f"{class_name}.{attr}"
        row = rows.get(attr)
        if isinstance(row, str):
            if _type_name(value) != row:
                raise FittedStateError(
                    f"{where} must be a {row.rsplit('.', 1)[1]}, not {type(value).__name__}"
                )
        elif callable(row):
            row(value, where)
        check_fitted_value(value, where)
    for name, value in params.items():
        row = rows.get(name)
        # a parameter's row is a check; the name of a fitted attribute or "*" is no parameter
        # (refused, as an unknown parameter is, when the calibrator is built)
        if callable(row) and not name.endswith("_"):
            row(value, f"{class_name}.{name}")
    relations = rows.get("*", ())
    for relation in relations if isinstance(relations, tuple) else ():
        relation(state, params, class_name)


def check_fitted_value(value: Any, where: str) -> None:
    """Check ``value`` (and the values in its lists, tuples and dicts) against the invariants
    of its type; raise :class:`FittedStateError` with one line naming ``where``."""
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            check_fitted_value(item, f"{where}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            check_fitted_value(item, f"{where}[{key!r}]")
        return
    check = _CHECKS.get(_type_name(value))
    if check is not None:
        check(value, where)
