"""Checks of decoded fitted state: a hand-edited model file must not predict wrong numbers.

The checksum of a model file detects damage, not edits (anyone can recompute it), so the
decoded tables are checked against the invariants of the fit that made them: the Venn-Abers
step tables (breaks strictly increasing and finite, one more value than breaks, values in
[0, 1] and non-decreasing, and p0 <= p1 at every piece of the two step functions), the points
of an isotonic step function (increasing, finite, values in [0, 1]), histogram bins (increasing
edges, one value, count and positive total per bin, values in [0, 1]), Bayesian binning
(increasing positions, values strictly inside (0, 1)) and Platt's sigmoid (finite
coefficients, a positive scale).
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


_CHECKS = {
    "venncal.core.venn_abers.IVAPTables": _check_ivap,
    "venncal.core.isotonic.IsotonicStepFunction": _check_isotonic,
    "venncal.core.histogram.HistogramBinning": _check_histogram,
    "venncal.core.bayesian_binning.BayesianBinning": _check_bayesian_binning,
    "venncal.core.platt.PlattSigmoid": _check_platt,
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
