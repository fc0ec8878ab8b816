"""Platt scaling on a Dask DataFrame: Newton steps with sums over the partitions.

The same fit as :func:`venncal.core.platt.fit_platt`, step for step: a weight of k is k copies
(Platt's smoothed targets count the class totals of the weights; the likelihood is summed with
the weights divided by the power of two that brings the largest into [0.5, 1)), standardised
scores (midpoint and half-range, then mean and
standard deviation), and the Newton method with backtracking of Lin, Lin & Weng (2007). Every
sum over the rows (class totals, moments, gradient, Hessian, objective) is a sum of
per-partition sums, added in partition order; the step sizes of a line search are tried in one
pass. Sums added in another order round differently, so the result agrees with the in-memory
fit to the rounding of those sums, far inside the fit's own tolerance.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit

from venncal._validation import check_bool, check_positive_int
from venncal.calibration._base import _scalar
from venncal.core.platt import (
    PlattSigmoid,
    _objective,
    _standardise,
    initial_intercept,
    newton_sigmoid,
    smoothed_targets,
)
from venncal.dask._labels import frame_classes
from venncal.exceptions import VenncalWarning, user_stacklevel

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["fit_platt", "fit_platt_passes"]

_TOL, _MIN_STEP, _SIGMA = 1e-5, 1e-10, 1e-12
# step sizes 1, 1/2, ..., tried in one pass over the data (the line search takes the first
# that decreases the objective enough, as the sequential search does)
_STEPS_PER_PASS = 12


def _columns(pdf, score, label, positive, weight):
    f = pdf[score].to_numpy(dtype=np.float64, na_value=np.nan)
    y = (pdf[label].to_numpy() == positive).astype(np.float64)
    w = None if weight is None else pdf[weight].to_numpy(dtype=np.float64, na_value=np.nan)
    return f, y, w


def _first_pass(pdf, score, label, positive, weight):
    """Counts, extremes, and the largest weight of one partition."""
    f, y, w = _columns(pdf, score, label, positive, weight)
    n_bad = int((~np.isfinite(f)).sum())
    keep = np.ones(f.shape[0], bool) if w is None else w > 0
    fk, yk = f[keep], y[keep]
    out = {
        "n": int(keep.sum()),
        "bad": n_bad,
        "lo": float(fk.min()) if fk.size else np.inf,
        "hi": float(fk.max()) if fk.size else -np.inf,
        "wmax": 1.0 if w is None else (float(np.nanmax(w)) if w.size else 0.0),
        "wmin": 1.0 if w is None else (float(np.nanmin(w)) if w.size else 1.0),
        "wnan": 0 if w is None else int(np.isnan(w).sum()),
    }
    for cls in (0, 1):
        sel = fk[yk == cls]
        out[f"lo{cls}"] = float(sel.min()) if sel.size else np.inf
        out[f"hi{cls}"] = float(sel.max()) if sel.size else -np.inf
    return out


def _weights(w, keep, exponent):
    if w is None:
        return np.ones(int(keep.sum()))
    return np.ldexp(w[keep], -exponent)


def _second_pass(pdf, score, label, positive, weight, exponent, mid, half):
    """Scaled weight totals per class and the sum of the half-range-standardised scores."""
    f, y, w = _columns(pdf, score, label, positive, weight)
    keep = np.ones(f.shape[0], bool) if w is None else w > 0
    ws = np.ones(int(keep.sum())) if w is None else np.ldexp(w[keep], -exponent)
    g = _standardise(f[keep], mid, half)
    return np.array([np.sum(ws), np.sum(ws * y[keep]), np.sum(g)])


def _third_pass(pdf, score, label, positive, weight, mid, half, m):
    f, y, w = _columns(pdf, score, label, positive, weight)
    keep = np.ones(f.shape[0], bool) if w is None else w > 0
    d = _standardise(f[keep], mid, half) - m
    return np.array([np.sum(d * d)])


def _rows(pdf, score, label, positive, weight, exponent, center, scale, tp, tn):
    f, y, w = _columns(pdf, score, label, positive, weight)
    keep = np.ones(f.shape[0], bool) if w is None else w > 0
    ww = _weights(w, keep, exponent)
    yk = y[keep]
    t = np.where(yk == 1, tp, tn)
    return _standardise(f[keep], center, scale), t, ww


def _newton_pass(pdf, args, a, b):
    f, t, w = _rows(pdf, *args)
    q = expit(a * f + b)
    p = 1.0 - q
    d2 = w * p * q
    d1 = w * (t - p)
    return np.array([np.sum(f * f * d2), np.sum(d2), np.sum(f * d2), np.sum(f * d1), np.sum(d1)])


def _objective_pass(pdf, args, points):
    f, t, w = _rows(pdf, *args)
    return np.array([_objective(pa * f + pb, t, w) for pa, pb in points])


def _total(run, func, *args):
    """Sum of ``func`` over the partitions, added in partition order."""
    results = run(func, *args)
    out = results[0]
    for r in results[1:]:
        out = out + r
    return out


def fit_platt(
    calibrator: Any, frame: dd.DataFrame, *, score: str, label: str, weight: str | None = None
) -> Any:
    """Fit a :class:`~venncal.PlattCalibrator` on a Dask DataFrame (see venncal.dask.fit)."""
    import dask

    owner = type(calibrator).__name__
    check_positive_int(calibrator.max_iter, name="max_iter", owner=owner)
    check_bool(calibrator.smoothing, name="smoothing", owner=owner)
    classes = frame_classes(dask, frame, label)
    parts = frame.to_delayed()

    def run(func, *args):
        return dask.compute(*[dask.delayed(func)(p, *args) for p in parts])

    return fit_platt_passes(calibrator, classes, run, score=score, label=label, weight=weight)


def fit_platt_passes(calibrator, classes, run, *, score, label, weight=None):
    """The Newton fit of :func:`fit_platt`, its passes over the data run by ``run``.

    ``run(func, *args)`` calls ``func(pdf, *args)`` on every partition ``pdf`` (a pandas
    DataFrame) and returns the results in partition order; the Dask and Spark fits differ only
    in it.
    """
    owner = type(calibrator).__name__
    max_iter = check_positive_int(calibrator.max_iter, name="max_iter", owner=owner)
    smoothing = check_bool(calibrator.smoothing, name="smoothing", owner=owner)
    base = (score, label, classes[1], weight)
    stats = run(_first_pass, *base)
    if sum(s["bad"] for s in stats):
        raise ValueError(
            f"The score column {score!r} holds {sum(s['bad'] for s in stats)} NaN or infinite "
            "value(s); remove or impute them first (scores must be finite)."
        )
    if weight is not None:
        if sum(s["wnan"] for s in stats):
            raise ValueError(f"The weight column {weight!r} holds NaN value(s).")
        if min(s["wmin"] for s in stats) < 0:
            raise ValueError(f"The weight column {weight!r} must be non-negative.")
    n = sum(s["n"] for s in stats)
    lo, hi = min(s["lo"] for s in stats), max(s["hi"] for s in stats)
    lo_c = [min(s[f"lo{c}"] for s in stats) for c in (0, 1)]
    hi_c = [max(s[f"hi{c}"] for s in stats) for c in (0, 1)]
    if not (np.isfinite(lo_c[0]) and np.isfinite(lo_c[1])):
        raise ValueError(
            "'sample_weight' is zero on every example of one class; calibration needs both "
            "classes with positive weight."
        )
    exponent = 0 if weight is None else int(np.frexp(max(s["wmax"] for s in stats))[1])
    # the standardisation of fit_platt: midpoint and half-range, then mean and deviation
    mid, half = 0.5 * lo + 0.5 * hi, 0.5 * hi - 0.5 * lo
    total_scaled, pos_scaled, g_sum = _total(
        run, _second_pass, *base, exponent, mid if half > 0 else 0.0, half or 1.0
    )
    if half > 0:
        m = g_sum / n
        sd = float(np.sqrt(_total(run, _third_pass, *base, mid, half, m)[0] / n))
        center, scale = (mid + m * half, half * sd) if sd > 0 else (mid, half)
    else:
        center, scale = mid, 1.0
    # class totals of the weights (a weight of k is k examples; unit weights: the counts)
    if weight is None:
        n_pos, n_neg = float(pos_scaled), float(n - pos_scaled)
    else:
        with np.errstate(over="ignore"):
            n_pos = float(np.ldexp(pos_scaled, exponent))
            n_neg = float(np.ldexp(total_scaled - pos_scaled, exponent))
    if smoothing:
        tp, tn = smoothed_targets(n_pos, n_neg)
    else:
        tp, tn = 1.0, 0.0
        if lo_c[1] >= hi_c[0] or hi_c[1] <= lo_c[0]:
            warnings.warn(
                "Platt scaling without smoothing: the classes are separated by the score, so no "
                "finite maximum-likelihood sigmoid exists and the fit approaches a step; use "
                "smoothing=True.",
                VenncalWarning,
                stacklevel=user_stacklevel(),
            )
    args = (*base, exponent, center, scale, tp, tn)
    a, b = 0.0, initial_intercept(n_pos, n_neg)
    fval = float(_total(run, _objective_pass, args, [(a, b)])[0])
    gtol = _TOL * float(total_scaled) / n
    a, b, it, converged = newton_sigmoid(
        lambda pa, pb: tuple(float(v) for v in _total(run, _newton_pass, args, pa, pb)),
        lambda points: _total(run, _objective_pass, args, points),
        a,
        b,
        fval,
        gtol,
        max_iter=max_iter,
        min_step=_MIN_STEP,
        sigma=_SIGMA,
        steps_per_call=_STEPS_PER_PASS,
    )
    with np.errstate(over="ignore", invalid="ignore"):
        a_user = a / scale
        b_user = b - a_user * center if a != 0 else b
    sig = PlattSigmoid(
        float(a_user), float(b_user), int(it), converged, center, scale, float(a), float(b)
    )
    calibrator.sigmoid_ = sig
    calibrator.a_, calibrator.b_, calibrator.n_iter_ = sig.a, sig.b, sig.n_iter
    calibrator.classes_ = np.asarray(classes)
    calibrator.pos_label_ = _scalar(calibrator.classes_[1])  # as ``fit`` records it
    calibrator.n_features_in_ = 1
    return calibrator
