"""Scaling calibrators against probmetrics: likelihood reached on the calibration data, fit time.

Run ``python benchmarks/bench_scaling_rivals.py [--config quick|full] [--out FILE] [--write]``
in an environment where the ``probmetrics`` package (and its torch) is installed; probmetrics
is not a dependency of venncal, and this script is not part of the tests.

Each pair fits the same model twice, once with venncal and once with probmetrics, on the same
calibration set, and evaluates on that set the objective both minimise (the penalised mean
log loss where both penalise the same way, else the plain mean log loss), so that a
difference is a difference of optimisers, not of models. Fit time is CPU time
(``time.process_time``, median of 3 fits; BLAS and torch limited to one thread). The test
log loss of both fits is recorded too.

Binary cells (datasets, classifiers and splits of ``bench_quality.py``), probabilities ``p``
given to probmetrics as ``[1 - p, p]``:

* ``quadratic``: ``QuadraticCalibrator(monotone="clip")`` against ``quadratic-scaling``
  (scikit-learn's unpenalised ``LogisticRegression`` on ``1, z, z^2``); objective: the mean
  log loss of the unconstrained quadratic on the calibration data. Both read the same
  log-odds ``z`` (probmetrics' own, from float32 probabilities, logs clipped at +-87.3).
* ``quadratic (monotone)``: venncal's default, the most likely quadratic that does not
  decrease over the calibration scores, against the same rival; plain mean log loss. Where
  the unconstrained quadratic decreases, ours is a different (constrained) model and loses
  likelihood by construction.
* ``temperature``: ``TemperatureCalibrator()`` against ``temp-scaling``; plain log loss.
* ``temperature+bias``: ``TemperatureCalibrator(bias=True)``, ``sigmoid(beta z + b)`` with
  ``beta >= 0``, against ``affine-scaling`` (``sigmoid(b + w z)``, ``w`` unrestricted);
  plain log loss.

K-class cells (``bench_quality_multiclass.py``):

* ``temperature``: ``TemperatureCalibrator()`` against ``temp-scaling``; plain log loss.
* ``ts step``: the temperature step of matrix scaling
  (``venncal.core.matrix_scaling.fit_temperature``) against ``ts-mix`` (temperature scaling
  whose output is mixed with the uniform distribution, weight ``1 / (n + 1)``; the mixture
  is not part of the fit); plain log loss of ``softmax(a log p)``.
* ``sms``, ``svs``: ``MatrixScalingCalibrator(structure)`` against ``sms`` and ``svs`` (same
  penalties, lambdas 1); objective: each fit's own penalised mean log loss.
* ``dirichlet (lambda)``: ``DirichletCalibrator(reg_lambda=lambda, reg_mu=lambda)`` (ODIR)
  against probmetrics' torch BFGS solver of its SMS calibrator run on the same ODIR objective
  and features (probmetrics' ``dircal`` wraps the ``dirichletcal`` package, which does not
  install from PyPI), for lambda = 1e-3 (``dircal``'s default) and 10 (venncal's default);
  objective: the ODIR penalised mean log loss.

Objectives are evaluated in float64 from the fitted parameters (probmetrics' logistic, SMS
and SVS calibrators predict in float32, which would add noise of about 1e-8).

``--write`` puts the summary into the ``## Scaling calibrators against probmetrics`` section
of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_quality as bq  # noqa: E402
import bench_quality_multiclass as bqm  # noqa: E402
from _timing import command_line, machine_note, report, save_cells  # noqa: E402

TOL = 1e-9  # ours "reaches" theirs when its objective is at most theirs + TOL
REPEAT = 3
CLIP = 1e-15
LOG_FLOOR = float(np.log(np.finfo(np.float32).tiny))

CONFIGS = {
    "quick": {
        "binary": {"datasets": ["labor", "lofstrom_ce/haberman"], "classifiers": ["LR", "GNB"],
                   "n_repeats": 1},
        "multiclass": {"datasets": ["iris", "wine"], "classifiers": ["LR"], "n_repeats": 1},
    },
    "full": {
        "binary": {"datasets": ["australian", "breast-w", "diabetes", "ionosphere", "spect",
                                "lofstrom_ce/haberman", "lofstrom_ce/kc1", "lofstrom_ce/ttt",
                                "adult"],
                   "classifiers": ["LR", "RF", "HGB", "GNB"], "n_repeats": 1},
        "multiclass": {"datasets": ["digits", "wine", "iris", "adult/relationship",
                                    "adult/occupation"],
                       "classifiers": ["LR", "RF", "GNB"], "n_repeats": 1},
    },
}  # fmt: skip


def _cpu_time(fit):
    """Median CPU time of ``fit()`` over REPEAT runs, and the last fitted object."""
    times, out = [], None
    for _ in range(REPEAT):
        t0 = time.process_time()
        out = fit()
        times.append(time.process_time() - t0)
    return float(np.median(times)), out


def _mean_nll(eta, y):
    """Mean log loss of ``sigmoid(eta)`` for labels in {0, 1}, from the log-odds (exact)."""
    return float(np.mean(np.logaddexp(0.0, eta) - y * eta))


def _mean_ce(L, y):
    """Mean log loss of ``softmax(L)`` from the logits."""
    top = L.max(axis=1, keepdims=True)
    lse = top[:, 0] + np.log(np.exp(L - top).sum(axis=1))
    return float(np.mean(lse - L[np.arange(y.shape[0]), y]))


def _proba_nll(P, y):
    """Mean log loss of predicted probabilities (unclipped but for a zero)."""
    p = np.asarray(P, dtype=np.float64)[np.arange(y.shape[0]), y]
    return float(-np.mean(np.log(np.maximum(p, np.finfo(float).tiny))))


def _test_ll(P, y):
    p = np.clip(np.asarray(P, dtype=np.float64)[np.arange(y.shape[0]), y], CLIP, 1 - CLIP)
    return float(-np.log(p).mean())


def _row(pair, ours, theirs, t_ours, t_theirs, ll_ours, ll_theirs, objective):
    return {"pair": pair, "objective": objective, "ours": ours, "theirs": theirs,
            "t_ours": t_ours, "t_theirs": t_theirs, "test_ours": ll_ours,
            "test_theirs": ll_theirs}  # fmt: skip


def _temperature_row(pair, P_cal, y_cal, P_te, y_te, z_cal, z_te):
    """``TemperatureCalibrator`` on the log-scores ``z`` against probmetrics' ``temp-scaling``
    on the probabilities ``P`` (binary or K-class); plain log loss."""
    from probmetrics import calibrators as pm

    import venncal

    t_th, th = _cpu_time(lambda: pm.get_calibrator("temp-scaling").fit(P_cal, y_cal))
    t_us, us = _cpu_time(
        lambda: venncal.TemperatureCalibrator(score_type="logits").fit(z_cal, y_cal)
    )
    return _row(pair, _proba_nll(us.predict_proba(z_cal), y_cal),
                _proba_nll(th.predict_proba(P_cal), y_cal), t_us, t_th,
                _test_ll(us.predict_proba(z_te), y_te), _test_ll(th.predict_proba(P_te), y_te),
                "log loss")  # fmt: skip


# ---------------------------------------------------------------------------------- binary
def _binary_pairs(p_cal, y_cal, p_te, y_te):
    from probmetrics import calibrators as pm
    from probmetrics.utils import binary_probs_to_logits

    import venncal

    def two(p):
        return np.column_stack([1.0 - p, p])

    def z32(p):  # probmetrics' log-odds of its logistic calibrators
        lp, l1p = binary_probs_to_logits(two(p))
        return (lp - l1p)[:, 0].astype(np.float64)

    def z64(p):  # probmetrics' log-odds of temperature scaling: clipped logs of [1 - p, p]
        with np.errstate(divide="ignore"):
            t = np.maximum(np.log(two(p)), LOG_FLOOR)
        return t[:, 1] - t[:, 0]

    P_cal, P_te = two(p_cal), two(p_te)
    zc, zt = z32(p_cal), z32(p_te)
    rows = []

    # quadratic: the unconstrained maximum-likelihood quadratic of z
    feats = np.column_stack([np.ones_like(zc), zc, zc * zc])
    t_th, th = _cpu_time(lambda: pm.get_calibrator("quadratic-scaling").fit(P_cal, y_cal))
    theirs = _mean_nll(feats @ th.cal_.coef_[0], y_cal)
    ll_th = _test_ll(th.predict_proba(P_te), y_te)

    def unclipped(cal):
        m = cal.map_
        u = (zc - m.center) / m.scale
        return m.c0 + u * (m.c1 + m.c2 * u)

    t_us, us = _cpu_time(
        lambda: venncal.QuadraticCalibrator(score_scale="logit", monotone="clip").fit(zc, y_cal)
    )
    rows.append(
        _row(
            "quadratic",
            _mean_nll(unclipped(us), y_cal),
            theirs,
            t_us,
            t_th,
            _test_ll(us.predict_proba(zt), y_te),
            ll_th,
            "log loss (unconstrained)",
        )
    )
    t_us, us = _cpu_time(lambda: venncal.QuadraticCalibrator(score_scale="logit").fit(zc, y_cal))
    rows.append(_row("quadratic (monotone)", _proba_nll(us.predict_proba(zc), y_cal), theirs,
                     t_us, t_th,
                     _test_ll(us.predict_proba(zt), y_te), ll_th, "log loss"))  # fmt: skip

    # temperature: sigmoid(a z) of the clipped log-odds
    rows.append(
        _temperature_row("temperature (binary)", P_cal, y_cal, P_te, y_te, z64(p_cal), z64(p_te))
    )

    # temperature with a bias against affine scaling, on the same log-odds
    t_th, th = _cpu_time(lambda: pm.get_calibrator("affine-scaling").fit(P_cal, y_cal))
    t_us, us = _cpu_time(
        lambda: venncal.TemperatureCalibrator(bias=True, score_type="logits").fit(zc, y_cal)
    )
    w = th.cal_.coef_[0].astype(np.float64)  # in float64: its own predictions are float32
    rows.append(_row("temperature+bias (binary)", _proba_nll(us.predict_proba(zc), y_cal),
                     _mean_nll(w[0] + w[1] * zc, y_cal), t_us, t_th,
                     _test_ll(us.predict_proba(zt), y_te), _test_ll(th.predict_proba(P_te), y_te),
                     "log loss"))  # fmt: skip
    return rows


def run_binary_cell(cell):
    from sklearn.base import clone

    seed = int(cell["seed"])
    X_tr, y_tr, X_cal, y_cal, X_te, y_te = bq._data(cell["dataset"], seed)
    clf = clone(bq._classifier(cell["classifier"], seed)).fit(X_tr, y_tr)
    (s_cal, scale), (s_te, _) = bq._scores(clf, X_cal), bq._scores(clf, X_te)
    if scale == "logit":  # probmetrics takes probabilities
        s_cal, s_te = 1 / (1 + np.exp(-s_cal)), 1 / (1 + np.exp(-s_te))
    rows = _binary_pairs(s_cal, y_cal.astype(int), s_te, y_te.astype(int))
    for row in rows:
        row.update(kind="binary", dataset=cell["dataset"], classifier=cell["classifier"],
                   repeat=cell["repeat"], n_cal=len(y_cal), n_classes=2)  # fmt: skip
    return rows


# -------------------------------------------------------------------------------- K classes
def _log_scores(P):
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(P), LOG_FLOOR)


def _multiclass_pairs(P_cal, y_cal, P_te, y_te):
    from probmetrics import calibrators as pm

    from venncal.calibration import MatrixScalingCalibrator
    from venncal.core.matrix_scaling import fit_temperature

    n, K = P_cal.shape
    t_cal, t_te = _log_scores(P_cal), _log_scores(P_te)
    rows = []

    # temperature scaling
    rows.append(_temperature_row("temperature (K-class)", P_cal, y_cal, P_te, y_te, t_cal, t_te))

    # the temperature step of matrix scaling against ts-mix (its fitted temperature)
    t_th, th = _cpu_time(lambda: pm.get_calibrator("ts-mix").fit(P_cal, y_cal))
    a_th = float(th.cal_.invtemp_)
    t_us, a_us = _cpu_time(lambda: fit_temperature(t_cal, y_cal))
    mix = 1.0 / (n + 1)  # the test predictions mix with the uniform distribution, as ts-mix's
    rows.append(_row("ts step (K-class)", _mean_ce(a_us * t_cal, y_cal),
                     _mean_ce(a_th * t_cal, y_cal), t_us, t_th,
                     _test_ll((1 - mix) * _softmax(a_us * t_te) + mix / K, y_te),
                     _test_ll(th.predict_proba(P_te), y_te),
                     "log loss"))  # fmt: skip

    # structured matrix and vector scaling: each fit's own penalised objective
    cb, cd, co = K / n, K / n, K * (K - 1) / n
    for structure in ("sms", "svs"):
        t_th, th = _cpu_time(lambda s=structure: pm.get_calibrator(s).fit(P_cal, y_cal))
        if structure == "sms":
            D = th.W_[:, :K] - np.eye(K)
            b = th.W_[:, K]
        else:
            D, b = np.diag(th.v_ - 1.0), th.b_
        pen_th = _penalty(D, b, cb, cd, co if structure == "sms" else 0.0)
        t_us, us = _cpu_time(
            lambda s=structure: MatrixScalingCalibrator(s, score_type="probabilities").fit(
                P_cal, y_cal
            )
        )
        pen_us = _penalty(us.map_.delta, us.map_.bias, cb, cd, co if structure == "sms" else 0.0)
        # each fit on its own features, in float64 (probmetrics' predictions are float32)
        x_us = us.map_.features(t_cal)
        x_th = _their_features(th, P_cal)
        rows.append(_row(structure, _mean_ce(x_us + x_us @ us.map_.delta.T + us.map_.bias, y_cal)
                         + pen_us, _mean_ce(x_th + x_th @ D.T + b, y_cal) + pen_th, t_us, t_th,
                         _test_ll(us.predict_proba(P_te), y_te),
                         _test_ll(th.predict_proba(P_te), y_te),
                         "penalised log loss"))  # fmt: skip
        rows.append(_solver_row(structure, th, P_cal, y_cal, (cb, cd, co), D, b))

    # Dirichlet calibration (ODIR): probmetrics' torch BFGS on the same objective, with the
    # penalties of probmetrics' dircal (1e-3) and venncal's default (10)
    for lam in (1e-3, 10.0):
        rows.append(_dirichlet_row(lam, t_cal, y_cal, P_cal, t_te, y_te, P_te))
    return rows


def _their_features(th, P):
    """probmetrics' features of its SMS and SVS: float32 logs of the ts-mix probabilities."""
    from probmetrics.utils import multiclass_probs_to_logits

    return multiclass_probs_to_logits(th.ts_.predict_proba(P)).astype(np.float64)


def _solver_row(structure, th, P_cal, y_cal, coefs, D_th, b_th):
    """The two solvers on the same features: probmetrics' (ts-mix output, float32 logs)."""
    import torch

    from venncal.core.matrix_scaling import fit_linear_softmax

    X = _their_features(th, P_cal)
    K = X.shape[1]
    diagonal = structure == "svs"
    cb, cd, co = coefs[0], coefs[1], coefs[2] if not diagonal else 0.0
    Xt, yt = torch.tensor(X), torch.as_tensor(y_cal, dtype=torch.long)
    if diagonal:
        t_th, _ = _cpu_time(lambda: th._fit_bfgs(Xt, yt, K, reg_intercept=cb, reg_diagonal=cd))
    else:
        t_th, _ = _cpu_time(
            lambda: th._fit_bfgs(Xt, yt, K, reg_intercept=cb, reg_diagonal=cd, reg_off_diagonal=co)
        )
    t_us, fit = _cpu_time(
        lambda: fit_linear_softmax(X, y_cal, diagonal=diagonal, coefs=(cb, cd, co))
    )

    def objective(D, b):
        return _mean_ce(X + X @ D.T + b, y_cal) + _penalty(D, b, cb, cd, co)

    return _row(f"{structure} solver", objective(fit.delta, fit.bias), objective(D_th, b_th),
                t_us, t_th, np.nan, np.nan, "penalised log loss, same features")  # fmt: skip


def _dirichlet_row(lam, t_cal, y_cal, P_cal, t_te, y_te, P_te):
    import torch
    from probmetrics import calibrators as pm

    from venncal.calibration import DirichletCalibrator

    K = t_cal.shape[1]
    cb, co = lam / K, lam / (K * (K - 1))
    solver = pm.SMSCalibrator()
    tt, yt = torch.tensor(t_cal), torch.as_tensor(y_cal, dtype=torch.long)

    def theirs_fit():
        W = solver._fit_bfgs(tt, yt, K, reg_intercept=cb, reg_diagonal=0.0, reg_off_diagonal=co)
        return W[:, :K], W[:, K]

    t_th, (W_th, b_th) = _cpu_time(theirs_fit)
    t_us, us = _cpu_time(
        lambda: DirichletCalibrator(reg_lambda=lam, reg_mu=lam, score_type="probabilities").fit(
            P_cal, y_cal
        )
    )

    def odir(W, b):
        return _mean_ce(t_cal @ W.T + b, y_cal) + _penalty(W - np.eye(K), b, cb, 0.0, co)

    return _row(f"dirichlet ({lam:g})", odir(us.map_.weights, us.map_.bias), odir(W_th, b_th),
                t_us, t_th, _test_ll(us.predict_proba(P_te), y_te),
                _test_ll(_softmax(t_te @ W_th.T + b_th), y_te),
                "penalised log loss (ODIR)")  # fmt: skip


def _softmax(L):
    E = np.exp(L - L.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def _penalty(D, b, cb, cd, co):
    diag = np.diag(D)
    off = float((D**2).sum() - (diag**2).sum())
    return cb * float(b @ b) + cd * float(diag @ diag) + co * off


def run_multiclass_cell(cell):
    from sklearn.base import clone

    seed = int(cell["seed"])
    X_tr, y_tr, X_cal, y_cal, X_te, y_te = bqm._data(cell["dataset"], seed)
    clf = clone(bqm._classifier(cell["classifier"], seed)).fit(X_tr, y_tr)
    P_cal, P_te = clf.predict_proba(X_cal), clf.predict_proba(X_te)
    rows = _multiclass_pairs(P_cal, np.asarray(y_cal, int), P_te, np.asarray(y_te, int))
    for row in rows:
        row.update(kind="multiclass", dataset=cell["dataset"], classifier=cell["classifier"],
                   repeat=cell["repeat"], n_cal=len(y_cal), n_classes=P_cal.shape[1])  # fmt: skip
    return rows


def cells(config):
    return [
        {"dataset": d, "classifier": c, "repeat": r, "seed": 2000 + r}
        for d in config["datasets"]
        for c in config["classifiers"]
        for r in range(config["n_repeats"])
    ]


# ---------------------------------------------------------------------------------- summary
PAIR_ORDER = ("quadratic", "quadratic (monotone)", "temperature (binary)",
              "temperature+bias (binary)", "temperature (K-class)", "ts step (K-class)", "sms",
              "sms solver", "svs", "svs solver", "dirichlet (0.001)", "dirichlet (10)")  # fmt: skip
RIVAL = {"quadratic": "quadratic-scaling", "quadratic (monotone)": "quadratic-scaling",
         "temperature (binary)": "temp-scaling", "temperature+bias (binary)": "affine-scaling",
         "temperature (K-class)": "temp-scaling", "ts step (K-class)": "ts-mix", "sms": "sms",
         "svs": "svs", "sms solver": "sms (torch BFGS)", "svs solver": "svs (torch BFGS)",
         "dirichlet (0.001)": "ODIR by torch BFGS", "dirichlet (10)": "ODIR by torch BFGS"}  # fmt: skip


NOTES = """\
How the pairs differ. *quadratic*: both fit the unconstrained quadratic of the same float32
log-odds (ours `monotone="clip"`, whose coefficients are that fit); *quadratic (monotone)* is
venncal's default model, the most likely quadratic that does not decrease over the calibration
scores, a constrained (different) model that gives up likelihood on the calibration data where
the unconstrained fit bends back. *temperature+bias* restricts the slope to be non-negative,
affine scaling does not. *ts step*: the unpenalised temperature fit inside matrix scaling
(inverse temperature searched in [e^-16, e^16], as in ts-mix) against ts-mix's fitted
temperature; the test log loss of both includes the mixture with the uniform distribution.
*sms*, *svs*: the same objective and penalties (lambda K / n per intercept and diagonal entry,
lambda K (K - 1) / n per off-diagonal entry) but not quite the same features: probmetrics
takes float32 logarithms of its float32 ts-mix probabilities and fits in float32, venncal works
in float64; the *solver* rows give both solvers probmetrics' features in float64. *dirichlet*:
probmetrics' torch BFGS (its SMS solver, with the diagonal unpenalised) on venncal's features,
as `dircal` needs the `dirichletcal` package; with lambda = 1e-3 the diagonal is nearly free
and separated data have no finite optimum, so a tighter optimum of the calibration objective
is a sharper map. When temperature scaling meets separated classes, venncal stops where the
mean log loss is within 1e-10 of its infimum (the +1e-10 of *temperature (K-class)*)."""


def summarise(results):
    r = results.assign(diff=results["ours"] - results["theirs"],
                       ratio=results["t_ours"] / results["t_theirs"])  # fmt: skip
    out = []
    for pair in PAIR_ORDER:
        g = r[r["pair"] == pair]
        if g.empty:
            continue
        out.append({"pair": pair, "rival": RIVAL[pair], "objective": g["objective"].iloc[0],
                    "cells": len(g), "reaches": float((g["diff"] <= TOL).mean()),
                    "median_diff": float(g["diff"].median()), "worst_diff": float(g["diff"].max()),
                    "best_diff": float(g["diff"].min()),
                    "median_ratio": float(g["ratio"].median()),
                    "max_ratio": float(g["ratio"].max()),
                    "ms_ours": 1e3 * float(g["t_ours"].median()),
                    "ms_theirs": 1e3 * float(g["t_theirs"].median()),
                    "test_ours": float(g["test_ours"].mean()),
                    "test_theirs": float(g["test_theirs"].mean())})  # fmt: skip
    return pd.DataFrame(out)


def render(table, results, command, wall):
    nb = results.loc[results["kind"] == "binary", ["dataset", "classifier", "repeat"]]
    nm = results.loc[results["kind"] == "multiclass", ["dataset", "classifier", "repeat"]]
    lines = [machine_note() + "; BLAS and torch on one thread", "", f"Command: `{command}`", ""]
    lines.append(
        f"{len(nb.drop_duplicates())} binary cells ({nb['dataset'].nunique()} data sets x "
        f"{nb['classifier'].nunique()} classifiers x splits) and {len(nm.drop_duplicates())} "
        f"K-class cells ({nm['dataset'].nunique()} data sets x {nm['classifier'].nunique()} "
        "classifiers x splits). Objective on the calibration data (lower is better); ours "
        f"reaches theirs when ours <= theirs + {TOL:g}; difference = ours - theirs; CPU time "
        "per fit, median of 3; test log loss is the mean over cells."
    )
    lines += [
        "",
        "| ours | theirs | objective | cells | reaches | median diff | worst diff | best diff "
        "| time ours / theirs (median, max) | ms ours / theirs | test LL ours / theirs |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, t in table.iterrows():
        lines.append(
            f"| {t['pair']} | {t['rival']} | {t['objective']} | {t['cells']} | "
            f"{100 * t['reaches']:.0f}% | {t['median_diff']:+.1e} | {t['worst_diff']:+.1e} | "
            f"{t['best_diff']:+.1e} | {t['median_ratio']:.2f}, {t['max_ratio']:.2f} | "
            f"{t['ms_ours']:.2f} / {t['ms_theirs']:.2f} | " + (
                "- |" if np.isnan(t["test_ours"])
                else f"{t['test_ours']:.4f} / {t['test_theirs']:.4f} |"
            )
        )  # fmt: skip
    lines += ["", NOTES, "", f"Wall time of the run: {wall:.0f} s."]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", choices=list(CONFIGS), default="quick")
    ap.add_argument("--out", default=None, help="CSV file for the per-cell rows.")
    ap.add_argument("--write", action="store_true", help="Write the summary to BENCHMARKS.md.")
    args = ap.parse_args(argv)
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(1)
    config = CONFIGS[args.config]
    t0 = time.perf_counter()
    rows = []
    with threadpool_limits(1), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        todo = [(run_binary_cell, c) for c in cells(config["binary"])]
        todo += [(run_multiclass_cell, c) for c in cells(config["multiclass"])]
        for i, (run, cell) in enumerate(todo, 1):
            rows += run(cell)
            print(f"[{i}/{len(todo)}] {cell['dataset']} {cell['classifier']} {cell['repeat']}"
                  f" {time.perf_counter() - t0:.0f} s", file=sys.stderr)  # fmt: skip
    results = pd.DataFrame(rows)
    save_cells(results, args.out)
    table = summarise(results)
    command = command_line("bench_scaling_rivals.py", argv).strip()
    text = render(table, results, command, time.perf_counter() - t0)
    report("Scaling calibrators against probmetrics", text, write=args.write)
    return results


if __name__ == "__main__":
    main()
