"""Data shift: label-shift estimation and adaptation, and importance-weighted calibration under
covariate shift, on simulated data with known truth.

Run ``python benchmarks/bench_shift.py [--reps 20]``; prints Markdown tables for BENCHMARKS.md
(section "When the data shift").

Label shift: Gaussian classes ``x | y ~ N(+-1, 1)``, probabilities calibrated at a source prior
of 0.5 (``expit(2x)``); the target prior moves. For each target prior and size: the mean
absolute error of the EM and BBSE estimates (BBSE's confusion matrix from 5,000 labelled
source rows), the 95% bootstrap interval's coverage (EM, 100 resamples), and the log loss of
the unadapted, adapted (EM) and true posteriors on the target.

Covariate shift: features ``x1, x2 ~ N(0, 1)`` on the source, ``x2 ~ N(1.5, 1)`` on the
target, ``P(y = 1 | x) = expit(2 x1 + 1.5 x2 - 1)``; the score is ``x1`` (a model that does not
see ``x2``), so ``P(y | score)`` moves with ``x2``. Venn-Abers and isotonic calibrators are
fitted on source calibration rows, unweighted and weighted by
:func:`venncal.covariate_shift_weights` from a logistic-regression domain classifier (3,000
source and 3,000 target rows, unlabelled), with and without clipping, and scored on 20,000
target rows: ECE (10 equal-width bins) and log loss.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import machine_note  # noqa: E402

from venncal import (  # noqa: E402
    IsotonicCalibrator,
    VennAbersCalibrator,
    adjust_for_prior,
    covariate_shift_weights,
    estimate_target_prior,
)
from venncal.metrics import ece, log_loss  # noqa: E402


def label_shift_table(reps, rng):
    lines = [
        "| target prior | target rows | EM abs. error | BBSE abs. error | EM 95% coverage | "
        "log loss unadapted | adapted | true posterior |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for prior in (0.02, 0.15, 0.5, 0.9):
        for n in (1_000, 10_000, 100_000):
            err_em, err_bb, cover, ll = [], [], [], []
            for _ in range(reps):
                y = (rng.random(n) < prior).astype(int)
                p = expit(2 * rng.normal(loc=np.where(y == 1, 1.0, -1.0)))
                ys = (rng.random(5_000) < 0.5).astype(int)
                ps = expit(2 * rng.normal(loc=np.where(ys == 1, 1.0, -1.0)))
                boot = 100 if n <= 10_000 else 0
                em = estimate_target_prior(p, source_prior=0.5, n_boot=boot, random_state=rng)
                bb = estimate_target_prior(p, method="bbse", y_cal=ys, p_cal=ps)
                err_em.append(abs(float(em) - prior))
                err_bb.append(abs(float(bb) - prior))
                if em.interval is not None:
                    cover.append(em.interval[0] <= prior <= em.interval[1])
                truth = adjust_for_prior(p, 0.5, prior)
                ll.append(
                    (log_loss(y, p), log_loss(y, adjust_for_prior(p, 0.5, em)), log_loss(y, truth))
                )
            ll = np.mean(ll, axis=0)
            cov = f"{np.mean(cover):.2f}" if cover else "-"
            lines.append(
                f"| {prior} | {n:,} | {np.mean(err_em):.4f} | {np.mean(err_bb):.4f} | {cov} | "
                f"{ll[0]:.4f} | {ll[1]:.4f} | {ll[2]:.4f} |"
            )
    return lines


def _covariate_sample(rng, n, target):
    x1 = rng.normal(size=n)
    x2 = rng.normal(loc=1.5 if target else 0.0, size=n)
    y = (rng.random(n) < expit(2 * x1 + 1.5 * x2 - 1)).astype(int)
    return np.column_stack([x1, x2]), y


def covariate_table(reps, rng, n_cal):
    from sklearn.linear_model import LogisticRegression

    names = ["unweighted", "weighted, no clip", "weighted, clip 0.99", "weighted, clip 0.9"]
    scores = {(c, w): [] for c in ("Venn-Abers", "isotonic") for w in names}
    for _ in range(reps):
        x_cal, y_cal = _covariate_sample(rng, n_cal, False)
        xs, _ = _covariate_sample(rng, 3_000, False)
        xt, _ = _covariate_sample(rng, 3_000, True)
        x_test, y_test = _covariate_sample(rng, 20_000, True)
        domain = LogisticRegression().fit(np.r_[xs, xt], np.r_[np.zeros(3_000), np.ones(3_000)])
        prob = domain.predict_proba(x_cal)[:, 1]
        weights = {
            "unweighted": None,
            "weighted, no clip": covariate_shift_weights(
                prob, n_source=3_000, n_target=3_000, clip_quantile=None
            ),
            "weighted, clip 0.99": covariate_shift_weights(prob, n_source=3_000, n_target=3_000),
            "weighted, clip 0.9": covariate_shift_weights(
                prob, n_source=3_000, n_target=3_000, clip_quantile=0.9
            ),
        }
        for cname, cal in (
            ("Venn-Abers", VennAbersCalibrator()),
            ("isotonic", IsotonicCalibrator()),
        ):
            for wname, w in weights.items():
                p = cal.fit(x_cal[:, 0], y_cal, sample_weight=w).predict_proba(x_test[:, 0])[:, 1]
                pc = np.clip(p, 1e-15, 1 - 1e-15)
                scores[(cname, wname)].append((ece(y_test, p), log_loss(y_test, pc)))
    lines = [
        f"| calibrator ({n_cal:,} source rows) | weights | ECE on target | log loss on target |",
        "|---|---|---|---|",
    ]
    for (cname, wname), vals in scores.items():
        e, ll = np.mean(vals, axis=0)
        lines.append(f"| {cname} | {wname} | {e:.4f} | {ll:.4f} |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    out = [machine_note(), "", f"Label shift ({args.reps} repetitions per row):", ""]
    out += label_shift_table(args.reps, rng)
    out += ["", f"Covariate shift ({args.reps} repetitions per row):", ""]
    out += covariate_table(args.reps, rng, 2_000)
    out += [""]
    out += covariate_table(args.reps, rng, 10_000)
    out += ["", f"Total {time.perf_counter() - start:.0f} s."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
