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
calibrator's copies of a, b and c equal to the map's).
"""

from __future__ import annotations

import numpy as np

__all__ = ["FittedStateError", "check_fitted_state", "check_fitted_value"]


class FittedStateError(ValueError):
    """A decoded fitted value that breaks the invariants of its fit (one-line reason)."""


def _float_vector(arr, what):
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind != "f":
        raise FittedStateError(f"{what} must be a 1-D float array")
    if not np.isfinite(arr).all():
        raise FittedStateError(f"{what} holds NaN or infinite values")
    return arr


def _increasing(arr, what, *, strict=True):
    steps = np.diff(arr)
    if (steps <= 0).any() if strict else (steps < 0).any():
        raise FittedStateError(f"{what} must be {'strictly ' if strict else ''}increasing")


def _probabilities(arr, what):
    if ((arr < 0) | (arr > 1)).any():
        raise FittedStateError(f"{what} holds values outside [0, 1]")


def _check_ivap(tables, where):
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
    if (p0 > p1 + 1e-9).any():
        raise FittedStateError(f"{where} gives p0 > p1 at some scores")


def _check_isotonic(step, where):
    x = _float_vector(step.__dict__.get("x"), f"{where}.x")
    y = _float_vector(step.__dict__.get("y"), f"{where}.y")
    if x.shape != y.shape or x.size == 0:
        raise FittedStateError(f"{where}.x and .y must be non-empty and of one length")
    _increasing(x, f"{where}.x")
    _probabilities(y, f"{where}.y")
    _increasing(y, f"{where}.y", strict=False)


def _check_histogram(binning, where):
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


def _check_bayesian_binning(binning, where):
    positions = _float_vector(binning.__dict__.get("positions"), f"{where}.positions")
    values = _float_vector(binning.__dict__.get("values"), f"{where}.values")
    _increasing(positions, f"{where}.positions")
    if values.shape != positions.shape or values.size == 0:
        raise FittedStateError(f"{where}.values must hold one value per position")
    if ((values <= 0) | (values >= 1)).any():
        raise FittedStateError(f"{where}.values must lie strictly inside (0, 1)")


def _finite_number(x, what):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not np.isfinite(x):
        raise FittedStateError(f"{what} must be a finite number")


def _check_platt(sigmoid, where):
    fields = sigmoid.__dict__
    _finite_number(fields.get("center"), f"{where}.center")
    _finite_number(fields.get("scale"), f"{where}.scale")
    if not fields["scale"] > 0:
        raise FittedStateError(f"{where}.scale must be positive")
    if fields.get("a_scaled") is None or fields.get("b_scaled") is None:
        # predictions use a and b: they must be numbers
        _finite_number(fields.get("a"), f"{where}.a")
        _finite_number(fields.get("b"), f"{where}.b")
    else:
        _finite_number(fields["a_scaled"], f"{where}.a_scaled")
        _finite_number(fields["b_scaled"], f"{where}.b_scaled")


def _check_acp(table, where):
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


def _check_covariance(cov, where):
    if not isinstance(cov, np.ndarray) or cov.shape != (2, 2) or cov.dtype.kind != "f":
        raise FittedStateError(f"{where} must be a 2 x 2 float array")
    if not np.isfinite(cov).all():
        raise FittedStateError(f"{where} holds NaN or infinite values")
    scale = max(float(np.abs(cov).max()), np.finfo(float).tiny)
    if abs(cov[0, 1] - cov[1, 0]) > 1e-9 * scale:
        raise FittedStateError(f"{where} must be symmetric")
    if cov[0, 0] < 0 or cov[1, 1] < 0 or np.linalg.eigvalsh(cov)[0] < -1e-9 * scale:
        raise FittedStateError(f"{where} must be positive semi-definite (a covariance)")


def _check_beta(beta_map, where):
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


_CHECKS = {
    "venncal.core.venn_abers.IVAPTables": _check_ivap,
    "venncal.core.isotonic.IsotonicStepFunction": _check_isotonic,
    "venncal.core.histogram.HistogramBinning": _check_histogram,
    "venncal.core.bayesian_binning.BayesianBinning": _check_bayesian_binning,
    "venncal.core.platt.PlattSigmoid": _check_platt,
    "venncal.core.acp.ACPTable": _check_acp,
    "venncal.core.beta.BetaMap": _check_beta,
}


#: the type of the main fitted attribute of each built-in class (module.qualname)
_EXPECTED = {
    ("VennAbersCalibrator", "tables_"): "venncal.core.venn_abers.IVAPTables",
    ("IsotonicCalibrator", "step_function_"): "venncal.core.isotonic.IsotonicStepFunction",
    ("PlattCalibrator", "sigmoid_"): "venncal.core.platt.PlattSigmoid",
    ("HistogramCalibrator", "binning_"): "venncal.core.histogram.HistogramBinning",
    ("BayesianBinningCalibrator", "binning_"): "venncal.core.bayesian_binning.BayesianBinning",
    ("ACPCalibrator", "table_"): "venncal.core.acp.ACPTable",
    ("BetaCalibrator", "map_"): "venncal.core.beta.BetaMap",
}


def _type_name(value):
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def check_fitted_state(class_name, state):
    """Check every fitted attribute of a decoded model of class ``class_name``; raise
    :class:`FittedStateError` naming the first one that breaks its fit's invariants."""
    for attr, value in state.items():
        expected = _EXPECTED.get((class_name, attr))
        if expected is not None and _type_name(value) != expected:
            raise FittedStateError(
                f"{class_name}.{attr} must be a {expected.rsplit('.', 1)[1]}, not "
                f"{type(value).__name__}"
            )
        check_fitted_value(value, f"{class_name}.{attr}")
    if class_name == "ACPCalibrator" and "covariance_scaled_" in state:
        _check_covariance(state["covariance_scaled_"], f"{class_name}.covariance_scaled_")
    if class_name == "BetaCalibrator" and "map_" in state:
        for name in ("a", "b", "c"):
            copy = state.get(f"{name}_")
            if copy is not None and copy != getattr(state["map_"], name):
                raise FittedStateError(f"{class_name}.{name}_ must equal {class_name}.map_.{name}")


def check_fitted_value(value, where):
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
