"""Multicalibration on Adult: MulticalibrationCalibrator against Venn-Abers and isotonic.

Run ``python benchmarks/bench_multicalibration.py``; prints the Markdown tables of
BENCHMARKS.md (section "Calibration within segments").

Design (both seeds 0 and 1): adult.data shuffled by the seed, its first 60% train the base
model and the other 40% calibrate; adult.test is the test set. Base model blind to the segment
features: LogisticRegression on log1p of education_num, capital_gain, capital_loss and
hours_per_week; strong model: HistGradientBoostingClassifier on all features. Segments: sex,
race, marital_status, relationship, workclass (categorical), age and hours_per_week
(numerical). Reported: test log loss, the MCE of ``venncal.metrics.multicalibration_error``,
the largest |sum(y - p)| / sqrt(sum p (1 - p)) over single-feature segments with at least 200
test rows (numerical columns in tertiles), the share of those segments whose mean [p0, p1]
contains the test frequency within two binomial standard errors, and CPU seconds per fit.
When ``mcgrad`` is importable, the MCE is compared with ``mcgrad.metrics.MulticalibrationError``
(precision float64).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from venncal import IsotonicCalibrator, MulticalibrationCalibrator, VennAbersCalibrator
from venncal.datasets import load_adult
from venncal.metrics import log_loss, multicalibration_error

CAT = ["sex", "race", "marital_status", "relationship", "workclass"]
NUM = ["age", "hours_per_week"]
BASE = ["education_num", "capital_gain", "capital_loss", "hours_per_week"]


def adult_frame(subset):
    """Adult's features with the one-hot nominal columns decoded back to one column each."""
    ds = load_adult(subset=subset)
    names = list(ds.feature_names)
    out, groups = {}, {}
    for j, c in enumerate(names):
        if "=" in c:
            k, v = c.split("=", 1)
            groups.setdefault(k, []).append((j, v))
        else:
            out[c.replace("-", "_")] = ds.X[:, j]
    for k, cols in groups.items():
        idx = [j for j, _ in cols]
        if len(cols) == 1:  # a two-level feature is one column
            other = "Female" if k == "sex" else "not " + cols[0][1]
            values = np.where(ds.X[:, idx[0]] == 1, cols[0][1], other)
        else:
            values = np.array([v for _, v in cols], dtype=object)[ds.X[:, idx].argmax(axis=1)]
        out[k.replace("-", "_")] = values
    return pd.DataFrame(out), ds.y.astype(int), ds.X


def design(seed, strong):
    tr, ytr, Xtr = adult_frame("train")
    te, yte, Xte = adult_frame("test")
    perm = np.random.default_rng(seed).permutation(len(tr))
    tr, ytr, Xtr = tr.iloc[perm].reset_index(drop=True), ytr[perm], Xtr[perm]
    k = int(0.6 * len(tr))
    if strong:
        model = HistGradientBoostingClassifier(random_state=seed).fit(Xtr[:k], ytr[:k])
        p_cal, p_te = model.predict_proba(Xtr[k:])[:, 1], model.predict_proba(Xte)[:, 1]
    else:
        model = LogisticRegression(max_iter=1000).fit(np.log1p(tr[BASE].iloc[:k]), ytr[:k])
        p_cal = model.predict_proba(np.log1p(tr[BASE].iloc[k:]))[:, 1]
        p_te = model.predict_proba(np.log1p(te[BASE]))[:, 1]
    seg_cal = tr.iloc[k:][CAT + NUM].reset_index(drop=True)
    return p_cal, ytr[k:], seg_cal, p_te, yte, te[CAT + NUM]


def single_segments(seg):
    for c in CAT + NUM:
        col = seg[c] if c in CAT else pd.qcut(seg[c], 3, duplicates="drop")
        for v in pd.unique(col):
            mask = (col == v).to_numpy()
            if mask.sum() >= 200:
                yield f"{c}={v}", mask


def segment_figures(y, p, interval, seg):
    worst, covered, total = 0.0, 0, 0
    for _, m in single_segments(seg):
        worst = max(worst, abs((y[m] - p[m]).sum()) / np.sqrt((p[m] * (1 - p[m])).sum()))
        if interval is not None:
            freq, se = y[m].mean(), np.sqrt(y[m].mean() * (1 - y[m].mean()) / m.sum())
            lo, hi = interval[m].mean(axis=0)
            covered += lo - 2 * se <= freq <= hi + 2 * se
            total += 1
    return worst, (covered / total if total else float("nan"))


def methods(p_cal, y_cal, seg_cal):
    def timed(fit):
        t0 = time.process_time()
        out = fit()
        return out, time.process_time() - t0

    va, t_va = timed(lambda: VennAbersCalibrator().fit(p_cal, y_cal))
    iso, t_iso = timed(lambda: IsotonicCalibrator().fit(p_cal, y_cal))
    mc, t_mc = timed(
        lambda: MulticalibrationCalibrator(categorical=CAT, numerical=NUM).fit(
            p_cal, y_cal, segments=seg_cal
        )
    )
    return {
        "uncalibrated": (None, 0.0),
        "isotonic, global": (iso, t_iso),
        "Venn-Abers, global": (va, t_va),
        "MulticalibrationCalibrator": (mc, t_mc),
    }


def predict(name, est, p, seg):
    if est is None:
        return p, None
    if name == "MulticalibrationCalibrator":
        return est.predict_proba(p, segments=seg)[:, 1], est.predict_interval(p, segments=seg)
    if name.startswith("Venn"):
        return est.predict_proba(p)[:, 1], est.predict_interval(p)
    return est.predict_proba(p)[:, 1], None


def mcgrad_check(y, p, seg):
    try:
        from mcgrad.metrics import MulticalibrationError
    except ImportError:
        return None
    df = seg.reset_index(drop=True).assign(y=y, p=p)
    theirs = MulticalibrationError(
        df, "y", "p", categorical_segment_columns=CAT, numerical_segment_columns=NUM,
        precision_dtype="float64",
    )  # fmt: skip
    ours = multicalibration_error(y, p, segments=seg, categorical=CAT, numerical=NUM)
    return abs(theirs.mce - ours.mce), abs(theirs.mce_sigma - ours.mce_sigma)


def main():
    for strong in (False, True):
        title = (
            "strong model (HistGradientBoosting, all features)" if strong else "blind base model"
        )
        print(f"\n### Adult, {title}\n")
        print("| seed | method | test log loss | MCE | worst single-segment z | "
              "[p0, p1] covers (share of segments) | CPU s per fit |")  # fmt: skip
        print("|---|---|---|---|---|---|---|")
        for seed in (0, 1):
            p_cal, y_cal, seg_cal, p_te, y_te, seg_te = design(seed, strong)
            for name, (est, cpu) in methods(p_cal, y_cal, seg_cal).items():
                p, interval = predict(name, est, p_te, seg_te)
                mce = multicalibration_error(
                    y_te, p, segments=seg_te, categorical=CAT, numerical=NUM
                )
                z, cover = segment_figures(y_te, p, interval, seg_te)
                cov = "" if interval is None else f"{cover:.2f}"
                print(f"| {seed} | {name} | {log_loss(y_te, p):.4f} | {mce.mce:.4f} | {z:.2f} | "
                      f"{cov} | {cpu:.2f} |")  # fmt: skip
                diff = mcgrad_check(y_te, p, seg_te)
                if diff is not None and diff[0] > 1e-6:
                    print(f"  mcgrad disagrees: |MCE diff| {diff[0]:.2e}, sigma {diff[1]:.2e}")
            diff = mcgrad_check(y_te, p_te, seg_te)
            if diff is not None:
                print(f"\n(seed {seed}: MCE of the uncalibrated model vs mcgrad 0.1.5: "
                      f"|diff| {diff[0]:.1e}, sigma |diff| {diff[1]:.1e})\n")  # fmt: skip


if __name__ == "__main__":
    main()
