"""Checks of the ``venncal.core`` objects a model file holds, by their type.

Each check takes a decoded object (the Venn-Abers step tables, an isotonic step function,
histogram bins, Bayesian binning, Platt's sigmoid, the ACP table, the beta, quadratic,
temperature, matrix-scaling and Dirichlet maps, the multiclass and top-label tables, a
monitor's state) and raises :class:`~venncal.persistence._fields.FittedStateError` naming where
it is when the object breaks an invariant of the fit that made it. :data:`OBJECT_CHECKS` maps a
type's ``"module.Class"`` name to its check; :mod:`venncal.persistence._checks` applies them
with the rest of a model's expectations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.persistence import _fields as f
from venncal.persistence._fields import FittedStateError

if TYPE_CHECKING:
    from typing import Any

    from venncal._typing import AnyArray
    from venncal.persistence._fields import Check

__all__ = ["OBJECT_CHECKS"]


def _type_name(value: object) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def _float_vector(arr: Any, what: str) -> AnyArray:
    # a fit makes float64 tables: a narrower float would cast the test scores compared with it
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype != np.float64:
        raise FittedStateError(f"{what} must be a 1-D float64 array")
    if not np.isfinite(arr).all():
        raise FittedStateError(f"{what} holds NaN or infinite values")
    return arr


def _increasing(arr: AnyArray, what: str, *, strict: bool = True) -> None:
    steps = np.diff(arr)
    if (steps <= 0).any() if strict else (steps < 0).any():
        raise FittedStateError(f"{what} must be {'strictly ' if strict else ''}increasing")


def _probabilities(arr: AnyArray, what: str) -> None:
    if ((arr < 0) | (arr > 1)).any():
        raise FittedStateError(f"{what} holds values outside [0, 1]")


def _check_ivap(tables: Any, where: str) -> None:
    for k in (0, 1):
        breaks = _float_vector(tables.__dict__.get(f"breaks{k}"), f"{where}.breaks{k}")
        values = _float_vector(tables.__dict__.get(f"values{k}"), f"{where}.values{k}")
        _increasing(breaks, f"{where}.breaks{k}")
        if values.shape[0] != breaks.shape[0] + 1:
            raise FittedStateError(f"{where}.values{k} must hold one value more than breaks{k}")
        _probabilities(values, f"{where}.values{k}")
        _increasing(values, f"{where}.values{k}", strict=False)
    # both are step functions: p0 <= p1 on every piece, at each break and between them
    cuts = np.unique(np.r_[tables.breaks0, tables.breaks1])
    probe = np.r_[cuts, (cuts[:-1] + cuts[1:]) / 2, cuts[:1] - 1.0, cuts[-1:] + 1.0]
    if probe.size == 0:
        probe = np.zeros(1)
    p0 = tables.values0[np.searchsorted(tables.breaks0, probe, side="right")]
    p1 = tables.values1[np.searchsorted(tables.breaks1, probe, side="left")]
    if (p0 > p1).any():  # the fit's p0 <= p1 holds exactly, not up to rounding
        raise FittedStateError(f"{where} gives p0 > p1 at some scores")
    n = tables.__dict__.get("n_calibration")  # a total weight: may overflow to inf
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not n >= 0:
        raise FittedStateError(f"{where}.n_calibration must be a non-negative number")
    f.integer(0, 2**63 - 1)(tables.__dict__.get("n_distinct"), f"{where}.n_distinct")


def _check_isotonic(step: Any, where: str) -> None:
    x = _float_vector(step.__dict__.get("x"), f"{where}.x")
    y = _float_vector(step.__dict__.get("y"), f"{where}.y")
    if x.shape != y.shape or x.size == 0:
        raise FittedStateError(f"{where}.x and .y must be non-empty and of one length")
    _increasing(x, f"{where}.x")
    _probabilities(y, f"{where}.y")
    _increasing(y, f"{where}.y", strict=False)


def _check_histogram(binning: Any, where: str) -> None:
    edges = _float_vector(binning.__dict__.get("edges"), f"{where}.edges")
    _increasing(edges, f"{where}.edges")
    n = edges.shape[0] - 1
    for name in ("values", "counts", "positives"):
        arr = _float_vector(binning.__dict__.get(name), f"{where}.{name}")
        if arr.shape[0] != n:
            raise FittedStateError(f"{where}.{name} must hold one value per bin ({n})")
    _probabilities(binning.values, f"{where}.values")
    if (binning.counts < 0).any() or (binning.positives < 0).any():
        raise FittedStateError(f"{where}.counts and .positives must be non-negative")


def _check_bayesian_binning(binning: Any, where: str) -> None:
    positions = _float_vector(binning.__dict__.get("positions"), f"{where}.positions")
    values = _float_vector(binning.__dict__.get("values"), f"{where}.values")
    _increasing(positions, f"{where}.positions")
    if values.shape != positions.shape or values.size == 0:
        raise FittedStateError(f"{where}.values must hold one value per position")
    if ((values <= 0) | (values >= 1)).any():
        raise FittedStateError(f"{where}.values must lie strictly inside (0, 1)")


def _finite_number(x: Any, what: str) -> None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not f.finite(x):
        raise FittedStateError(f"{what} must be a finite number")


def _check_platt(sigmoid: Any, where: str) -> None:
    fields = sigmoid.__dict__
    _finite_number(fields.get("center"), f"{where}.center")
    _finite_number(fields.get("scale"), f"{where}.scale")
    if not fields["scale"] > 0:
        raise FittedStateError(f"{where}.scale must be positive")
    # a fit (every version that writes model files) stores the sigmoid on standardised scores,
    # which predictions and ACP's intervals use; a and b (which may round to 0 or overflow for
    # scores of extreme magnitude) are only the sigmoid in the user's units
    _finite_number(fields.get("a_scaled"), f"{where}.a_scaled")
    _finite_number(fields.get("b_scaled"), f"{where}.b_scaled")


def _check_acp(table: Any, where: str) -> None:
    fields = table.__dict__
    positions = _float_vector(fields.get("positions"), f"{where}.positions")
    if positions.size == 0:
        raise FittedStateError(f"{where}.positions must not be empty")
    _increasing(positions, f"{where}.positions")
    total = _float_vector(fields.get("cum_total"), f"{where}.cum_total")
    positive = _float_vector(fields.get("cum_positive"), f"{where}.cum_positive")
    for name, arr in (("cum_total", total), ("cum_positive", positive)):
        if arr.shape[0] != positions.shape[0] + 1 or arr[0] != 0:
            raise FittedStateError(
                f"{where}.{name} must start at 0 and hold one value more than positions"
            )
    # cumulative sums round: allow a few ulps of the total weight
    tol = 1e-12 * max(float(total[-1]), 0.0) * positions.shape[0]
    n = np.diff(total)
    n1 = np.diff(positive)
    if (n < -tol).any():
        raise FittedStateError(f"{where}.cum_total must not decrease")
    if (n1 < -tol).any() or (n1 > n + tol).any():
        raise FittedStateError(
            f"{where}.cum_positive must grow by between 0 and the weight at each position"
        )
    _finite_number(fields.get("alpha"), f"{where}.alpha")
    if fields["alpha"] < 0:
        raise FittedStateError(f"{where}.alpha must be non-negative")


def _check_covariance(cov: Any, where: str) -> None:
    if not isinstance(cov, np.ndarray) or cov.shape != (2, 2) or cov.dtype.kind != "f":
        raise FittedStateError(f"{where} must be a 2 x 2 float array")
    if not np.isfinite(cov).all():
        raise FittedStateError(f"{where} holds NaN or infinite values")
    scale = max(float(np.abs(cov).max()), np.finfo(float).tiny)
    if abs(cov[0, 1] - cov[1, 0]) > 1e-9 * scale:
        raise FittedStateError(f"{where} must be symmetric")
    if cov[0, 0] < 0 or cov[1, 1] < 0 or np.linalg.eigvalsh(cov)[0] < -1e-9 * scale:
        raise FittedStateError(f"{where} must be positive semi-definite (a covariance)")


def _check_beta(beta_map: Any, where: str) -> None:
    # a BetaMap was decoded, so its module is loaded (persistence imports no calibrator itself)
    from venncal.core.beta import BETA_PARAMETERS, SCORE_SCALES

    fields = beta_map.__dict__
    for name in ("a", "b", "c"):
        _finite_number(fields.get(name), f"{where}.{name}")
    if fields["a"] < 0 or fields["b"] < 0:
        raise FittedStateError(f"{where}.a and .b must be non-negative (a monotone map)")
    parameters = fields.get("parameters")
    if parameters not in BETA_PARAMETERS:
        raise FittedStateError(f"{where}.parameters must be one of {BETA_PARAMETERS}")
    if fields.get("score_scale") not in SCORE_SCALES:
        raise FittedStateError(f"{where}.score_scale must be one of {SCORE_SCALES}")
    if parameters == "am" and fields["a"] != fields["b"]:
        raise FittedStateError(f"{where} is an 'am' map: a and b must be equal")
    if parameters == "ab" and fields["c"] != np.log(2.0) * (fields["a"] - fields["b"]):
        raise FittedStateError(f"{where} is an 'ab' map: c must put the midpoint at 1/2")


def _check_quadratic(qmap: Any, where: str) -> None:
    # a QuadraticMap was decoded, so its module is loaded
    from venncal.core.beta import SCORE_SCALES
    from venncal.core.quadratic import QUADRATIC_FORMS

    fields = qmap.__dict__
    for name in ("c0", "c1", "c2", "center", "scale"):
        _finite_number(fields.get(name), f"{where}.{name}")
    if not fields["scale"] > 0:
        raise FittedStateError(f"{where}.scale must be positive")
    lower, upper = fields.get("lower"), fields.get("upper")
    for name, value in (("lower", lower), ("upper", upper)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise FittedStateError(f"{where}.{name} must be a number or an infinity")
    c1, c2 = fields["c1"], fields["c2"]
    # non-decreasing between the limits, where it is held constant beyond its vertex
    rising = (
        (c2 > 0 and upper == np.inf and lower == -c1 / (2.0 * c2))
        or (c2 < 0 and lower == -np.inf and upper == -c1 / (2.0 * c2))
        or (c2 == 0 and c1 >= 0 and lower == -np.inf and upper == np.inf)
    )
    if not rising:
        raise FittedStateError(f"{where} must be non-decreasing, held constant beyond its vertex")
    form = fields.get("form")
    if form not in QUADRATIC_FORMS:
        raise FittedStateError(f"{where}.form must be one of {QUADRATIC_FORMS}")
    if (form == "constant") != (c1 == 0 and c2 == 0) or (form == "affine") != (c2 == 0 and c1 > 0):
        raise FittedStateError(f"{where}.form {form!r} does not match its coefficients")
    if fields.get("score_scale") not in SCORE_SCALES:
        raise FittedStateError(f"{where}.score_scale must be one of {SCORE_SCALES}")


def _check_temperature(tmap: Any, where: str) -> None:
    fields = tmap.__dict__
    _finite_number(fields.get("beta"), f"{where}.beta")
    _finite_number(fields.get("scale"), f"{where}.scale")
    if fields["beta"] < 0 or not fields["scale"] > 0:
        raise FittedStateError(f"{where}.beta must be non-negative and .scale positive")
    bias = _float_vector(fields.get("bias"), f"{where}.bias")
    if bias.shape[0] < 2:
        raise FittedStateError(f"{where}.bias must hold one value per class (at least 2)")


def _square_float(arr: Any, where: str) -> None:
    if not isinstance(arr, np.ndarray) or arr.ndim != 2 or arr.dtype.kind != "f":
        raise FittedStateError(f"{where} must be a 2-D float array")
    if arr.shape[0] != arr.shape[1] or arr.shape[0] < 2:
        raise FittedStateError(f"{where} must be a K x K matrix (K >= 2)")
    if not np.isfinite(arr).all():
        raise FittedStateError(f"{where} holds NaN or infinite values")


def _linear_softmax_map(matrix: Any, where: str, matrix_name: str) -> None:
    fields = matrix.__dict__
    _square_float(fields.get(matrix_name), f"{where}.{matrix_name}")
    bias = _float_vector(fields.get("bias"), f"{where}.bias")
    if bias.shape[0] != fields[matrix_name].shape[0]:
        raise FittedStateError(f"{where}.bias must hold one value per class")


#: the least positive smoothing of a matrix-scaling fit, 1 / (n + 1) for the largest total
#: weight n a float holds (a smaller one divided by K may round to 0, whose log is -inf)
_MIN_SMOOTHING = 1.0 / np.finfo(np.float64).max


def _check_matrix_scaling(msmap: Any, where: str) -> None:
    # a MatrixScalingMap was decoded, so its module is loaded
    from venncal.core.matrix_scaling import STRUCTURES

    fields = msmap.__dict__
    if fields.get("structure") not in STRUCTURES:
        raise FittedStateError(f"{where}.structure must be one of {STRUCTURES}")
    _finite_number(fields.get("inverse_temperature"), f"{where}.inverse_temperature")
    if not fields["inverse_temperature"] > 0:
        raise FittedStateError(f"{where}.inverse_temperature must be positive")
    _finite_number(fields.get("smoothing"), f"{where}.smoothing")
    # the fit's smoothing is 0 or 1 / (n + 1) for a total weight n below the largest float
    c = float(fields["smoothing"])
    if not (c == 0 or _MIN_SMOOTHING <= c < 1):
        raise FittedStateError(f"{where}.smoothing must be 0 or lie in [{_MIN_SMOOTHING:.4g}, 1)")
    # the fit searches inverse temperatures in [e^-16, e^16]
    if not abs(np.log(float(fields["inverse_temperature"]))) <= 16.0 + 1e-9:
        raise FittedStateError(f"{where}.inverse_temperature must lie in [e^-16, e^16]")
    _linear_softmax_map(msmap, where, "delta")
    delta = fields["delta"]
    if fields["structure"] in ("svs", "vector") and (delta != np.diag(np.diag(delta))).any():
        raise FittedStateError(f"{where}.delta of a {fields['structure']!r} map must be diagonal")
    # its features are log-probabilities, at least log(smoothing / K), or LOG_FLOOR without
    # smoothing: the logits (I + D) x + b stay finite (predictions stay numbers) when each
    # row's weights and bias are below this
    from venncal.core.matrix_scaling import LOG_FLOOR

    K = delta.shape[0]
    lowest = min(LOG_FLOOR, float(np.log(c / K))) if c > 0 else LOG_FLOOR
    _bounded_logits(np.eye(K) + delta, fields["bias"], lowest, f"{where}.delta")


def _bounded_logits(weights: AnyArray, bias: AnyArray, lowest: float, where: str) -> None:
    """Refuse a linear map ``W x + b`` of features in [lowest, 0] whose logits may overflow
    (or whose differences may: the softmax subtracts the largest)."""
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.abs(weights).sum(axis=1) * -lowest + np.abs(bias)
    if not (reach < 1e300).all():
        raise FittedStateError(f"{where} are so large that its logits overflow")


def _check_dirichlet(dmap: Any, where: str) -> None:
    _linear_softmax_map(dmap, where, "weights")
    # its inputs are log-probabilities floored at LOG_FLOOR: the logits W ln q + b stay
    # finite (predictions stay numbers) when each row's weights and bias are below this
    from venncal.core.matrix_scaling import LOG_FLOOR

    lowest = min(LOG_FLOOR, float(dmap.__dict__.get("log_floor", LOG_FLOOR)))
    _bounded_logits(dmap.weights, dmap.bias, lowest, f"{where}.weights")


def _check_top_label(container: Any, where: str) -> None:
    f.integer(2, 2**31 - 1)(container.__dict__.get("K"), f"{where}.K")
    _check_ivap(container.__dict__.get("table"), f"{where}.table")


_IVAP = "venncal.core.venn_abers.IVAPTables"


def _check_ivap_of(tables: Any, where: str) -> None:
    if _type_name(tables) != _IVAP:
        raise FittedStateError(f"{where} must be an IVAPTables, not {type(tables).__name__}")
    _check_ivap(tables, where)
    # the test object counts in its own fit: p1 > 0 and p0 < 1 (unless extreme weights
    # underflow them; multiclass fits take no such weights), so that one-vs-rest
    # probabilities have a positive sum to normalise by
    if (tables.values1 <= 0).any() or (tables.values0 >= 1).any():
        raise FittedStateError(f"{where} must have p1 > 0 and p0 < 1 at every score")


def _multiclass_tables(*, pairwise: bool, pooled: bool) -> Check:
    """The check of one of the four tables of ``MulticlassVennAbersCalibrator``."""

    def check(container: Any, where: str) -> None:
        # the container was decoded, so its module is loaded
        from venncal.core.multiclass_venn_abers import PAIRWISE_MAX_CLASSES

        K = container.__dict__.get("K")
        f.integer(2, PAIRWISE_MAX_CLASSES if pairwise else 2**31 - 1)(K, f"{where}.K")
        if pooled:
            _check_ivap_of(container.__dict__.get("table"), f"{where}.table")
            return
        tables = container.__dict__.get("tables")
        n = K * (K - 1) // 2 if pairwise else K
        if not isinstance(tables, tuple) or len(tables) != n:
            raise FittedStateError(f"{where}.tables must be a tuple of {n} tables for K = {K}")
        for i, tab in enumerate(tables):
            _check_ivap_of(tab, f"{where}.tables[{i}]")

    return check


_MC = "venncal.core.multiclass_venn_abers."


def _check_monitor_state(state: Any, where: str) -> None:
    """A CalibrationMonitor's state: running sums of one length that match the rows seen, a
    first alarm that is the first row of the kept path at the level, the peak the path's."""
    fields = state.__dict__
    n = fields.get("n_seen")
    f.integer(0, 2**63 - 1)(n, f"{where}.n_seen")
    for name in ("log_wealth", "log_start"):
        arr = fields.get(name)
        if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind != "f":
            raise FittedStateError(f"{where}.{name} must be a 1-D float array")
        if arr.size == 0 or np.isnan(arr).any():
            raise FittedStateError(f"{where}.{name} must be non-empty and hold no NaN")
    wealth, start = fields["log_wealth"], fields["log_start"]
    if wealth.shape != start.shape:
        raise FittedStateError(f"{where}.log_wealth and .log_start must be of one length")
    unstarted = start == -np.inf
    if (wealth == -np.inf).any() or (start == np.inf).any() or unstarted.any() != (n == 0):
        raise FittedStateError(f"{where}: the running sums do not match n_seen")
    if n == 0 and not (unstarted.all() and (wealth == 0).all()):
        raise FittedStateError(f"{where}: the running sums do not match n_seen")
    threshold, log_max = fields.get("log_threshold"), fields.get("log_max")
    f.number(0.0)(threshold, f"{where}.log_threshold")
    ok = isinstance(log_max, float) and log_max >= 0  # +inf after an impossible label
    if not ok:
        raise FittedStateError(f"{where}.log_max must be a number >= 0")
    alarm = fields.get("alarm_index")
    if alarm is not None:
        f.integer(0, max(n - 1, 0))(alarm, f"{where}.alarm_index")
    if (alarm is not None) != (log_max >= threshold):
        raise FittedStateError(f"{where}.alarm_index does not match log_max")
    # the martingale the running sums give now is one of the values log_max is the peak of
    # (the state was decoded, so its module is loaded)
    from venncal.core.betting import current_log_martingale

    with np.errstate(all="ignore"):
        current = current_log_martingale(state)
    if current != current or current > log_max + 1e-9 * max(1.0, abs(log_max)):
        raise FittedStateError(
            f"{where}: the martingale of its running sums ({current:.6g}) is above log_max"
        )
    path = fields.get("path")
    if path is None:
        return
    if not isinstance(path, np.ndarray) or path.shape != (n,) or path.dtype.kind != "f":
        raise FittedStateError(f"{where}.path must hold one float per row seen")
    if np.isnan(path).any() or (n and max(float(path.max()), 0.0) != log_max):
        raise FittedStateError(f"{where}.path must hold no NaN and peak at log_max")
    if n and not (path[-1] == current or abs(path[-1] - current) <= 1e-9 * max(1.0, abs(current))):
        raise FittedStateError(f"{where}.path must end at the martingale of its running sums")
    above = np.flatnonzero(path >= threshold)
    if (-1 if alarm is None else alarm) != (int(above[0]) if above.size else -1):
        raise FittedStateError(f"{where}.alarm_index must be the first row at the alarm level")


OBJECT_CHECKS: dict[str, Check] = {
    "venncal.core.venn_abers.IVAPTables": _check_ivap,
    "venncal.core.counts.CountTable": f.count_table,
    "venncal.core.betting.MonitorState": _check_monitor_state,
    _MC + "OneVsRestTables": _multiclass_tables(pairwise=False, pooled=False),
    _MC + "PairwiseTables": _multiclass_tables(pairwise=True, pooled=False),
    _MC + "PooledOneVsRestTables": _multiclass_tables(pairwise=False, pooled=True),
    _MC + "PooledPairwiseTables": _multiclass_tables(pairwise=True, pooled=True),
    "venncal.core.top_label.TopLabelTables": _check_top_label,
    "venncal.core.matrix_scaling.MatrixScalingMap": _check_matrix_scaling,
    "venncal.core.dirichlet.DirichletMap": _check_dirichlet,
    "venncal.core.isotonic.IsotonicStepFunction": _check_isotonic,
    "venncal.core.histogram.HistogramBinning": _check_histogram,
    "venncal.core.bayesian_binning.BayesianBinning": _check_bayesian_binning,
    "venncal.core.platt.PlattSigmoid": _check_platt,
    "venncal.core.acp.ACPTable": _check_acp,
    "venncal.core.beta.BetaMap": _check_beta,
    "venncal.core.quadratic.QuadraticMap": _check_quadratic,
    "venncal.core.temperature.TemperatureMap": _check_temperature,
}
