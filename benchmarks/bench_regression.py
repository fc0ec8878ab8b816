"""Regression: Venn-Abers predictive distributions against crepes' conformal predictive systems.

Run: ``python benchmarks/bench_regression.py [--repeats 10] [--write]``. Every contender gets
the same predictions of the same regressor on the same split, in this process. ``--write``
records the tables on the benchmark page and in BENCHMARKS.md.

Contenders: venncal's ``VennAbersDistribution`` (the midpoint merge, its default, and the
square and log merges), crepes' ``ConformalPredictiveSystem`` on the calibration residuals
(the split conformal predictive system: the CDF of prediction + residuals), and the
normalised one, whose residuals are divided by crepes' ``DifficultyEstimator`` (the spread of the targets of the 25 nearest proper-training
neighbours, features scaled), as in crepes' documentation. CRPS: venncal's exact
``VennAbersDistribution.crps`` and crepes' own ``evaluate(metrics=["CRPS"])``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
from _timing import command_line, machine_note, report

from venncal import VennAbersDistribution

TITLE = "Regression: predictive distributions"


def _heteroscedastic(n, rng):
    x = rng.uniform(-2, 2, n)
    f = np.sin(2 * x) + x
    return x.reshape(-1, 1), f, f + rng.normal(size=n) * (0.2 + 0.3 * np.abs(x))


def hetero_given(seed):
    """The design of the issue: the prediction is f + N(0, 0.1), no learner."""
    rng = np.random.default_rng(seed)
    parts = [_heteroscedastic(n, rng) for n in (3000, 3000, 2000)]  # proper, cal, test
    out = {}
    for name, (X, f, y) in zip(("proper", "cal", "test"), parts, strict=True):
        out[name] = (X, f + rng.normal(0, 0.1, f.shape[0]), y)
    return out


def _learned(X, y, sizes, seed, learner):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    cuts = np.cumsum(sizes)[:-1]
    proper, cal, test = np.split(order[: sum(sizes)], cuts)
    model = learner().fit(X[proper], y[proper])
    return {
        name: (X[rows], model.predict(X[rows]), y[rows])
        for name, rows in (("proper", proper), ("cal", cal), ("test", test))
    }


def _gbr():
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(max_iter=100, random_state=0)


def hetero_learned(seed):
    rng = np.random.default_rng(1000 + seed)
    X, _, y = _heteroscedastic(8000, rng)
    return _learned(X, y, (3000, 3000, 2000), seed, _gbr)


def friedman(seed):
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(6000, noise=1.0, random_state=seed)
    return _learned(X, y, (2000, 2000, 2000), seed, _gbr)


def diabetes(seed):
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge

    X, y = load_diabetes(return_X_y=True)
    return _learned(X, y, (221, 110, 111), seed, lambda: Ridge(alpha=0.01))


DATASETS = {
    "heteroscedastic (prediction f + N(0, 0.1))": (hetero_given, 1.0),
    "heteroscedastic, gradient boosting on x": (hetero_learned, 1.0),
    "Friedman #1 (noise 1), gradient boosting": (friedman, 1.0),
    "diabetes (442 rows), ridge": (diabetes, 2.0),
}

DESCRIPTIONS = {
    "heteroscedastic (prediction f + N(0, 0.1))": (
        "x ~ U(-2, 2), f = sin(2x) + x, y = f + N(0, 0.2 + 0.3|x|), prediction f + N(0, 0.1); "
        "3,000 calibration and 2,000 test rows (3,000 proper-training rows for crepes' "
        "difficulty estimator)"
    ),
    "heteroscedastic, gradient boosting on x": (
        "the same y, predicted by scikit-learn's HistGradientBoostingRegressor (100 iterations) "
        "fitted on 3,000 proper-training rows; 3,000 calibration, 2,000 test"
    ),
    "Friedman #1 (noise 1), gradient boosting": (
        "scikit-learn's make_friedman1 (10 features, 5 informative, noise sd 1), simulated "
        "offline; 2,000 proper-training, 2,000 calibration, 2,000 test rows"
    ),
    "diabetes (442 rows), ridge": (
        "scikit-learn's bundled diabetes data (disease progression after one year, 10 "
        "features); ridge regression (alpha 0.01); random splits of 221 proper-training, 110 "
        "calibration and 111 test rows"
    ),
}


def run_venncal(parts, merge):
    _, p_cal, y_cal = parts["cal"]
    _, p_test, y_test = parts["test"]
    t0 = time.process_time()
    vad = VennAbersDistribution(merge=merge).fit(p_cal, y_cal)
    t1 = time.process_time()
    lo, hi = vad.predict_interval(p_test, confidence=0.9).T
    t2 = time.process_time()
    crps = vad.crps(p_test, y_test).mean()
    return _row(y_test, lo, hi, crps, t1 - t0, t2 - t1)


def run_crepes(parts, normalized):
    from crepes import ConformalPredictiveSystem
    from crepes.extras import DifficultyEstimator

    X_prop, _, y_prop = parts["proper"]
    X_cal, p_cal, y_cal = parts["cal"]
    X_test, p_test, y_test = parts["test"]
    t0 = time.process_time()
    if normalized:
        de = DifficultyEstimator().fit(X=X_prop, y=y_prop, scaler=True)
        s_cal, s_test = de.apply(X_cal), de.apply(X_test)
        cps = ConformalPredictiveSystem().fit(y_cal - p_cal, sigmas=s_cal)
    else:
        s_test = None
        cps = ConformalPredictiveSystem().fit(y_cal - p_cal)
    t1 = time.process_time()
    iv = cps.predict(p_test, sigmas=s_test, lower_percentiles=5, higher_percentiles=95)
    t2 = time.process_time()
    crps = cps.evaluate(p_test, y_test, sigmas=s_test, confidence=0.9, metrics=["CRPS"])["CRPS"]
    return _row(y_test, iv[:, 0], iv[:, 1], crps, t1 - t0, t2 - t1)


def _row(y, lo, hi, crps, fit, predict):
    return {
        "crps": float(crps),
        "coverage": float(np.mean((lo <= y) & (y <= hi))),
        "width": float(np.mean(hi - lo)),
        "fit": fit,
        "predict": predict,
    }


METHODS = {
    "venncal VennAbersDistribution": lambda parts: run_venncal(parts, "mean"),
    "venncal, merge='square'": lambda parts: run_venncal(parts, "square"),
    "venncal, merge='log'": lambda parts: run_venncal(parts, "log"),
    "crepes CPS": lambda parts: run_crepes(parts, normalized=False),
    "crepes CPS, normalised": lambda parts: run_crepes(parts, normalized=True),
}


def _mean_se(values):
    v = np.asarray(values, dtype=float)
    se = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else float("nan")
    return v.mean(), se


def bench(repeats):
    tables, summary = [], []
    for name, (make, factor) in DATASETS.items():
        n_rep = int(round(repeats * factor))
        results = {m: [] for m in METHODS}
        for seed in range(n_rep):
            parts = make(seed)
            for method, run in METHODS.items():
                results[method].append(run(parts))
        base = np.array([r["crps"] for r in results["crepes CPS"]])
        lines = [
            f"### {name}",
            "",
            DESCRIPTIONS[name] + f"; {n_rep} draws.",
            "",
            "| method | CRPS (mean ± se) | CRPS / split CPS (paired mean ± se) | 90% coverage | "
            "90% width | fit ms | predict ms |",
            "|---|---|---|---|---|---|---|",
        ]
        for method, rows in results.items():
            crps = np.array([r["crps"] for r in rows])
            c, cse = _mean_se(crps)
            ratio, rse = _mean_se(crps / base)
            cov, _ = _mean_se([r["coverage"] for r in rows])
            width, _ = _mean_se([r["width"] for r in rows])
            fit = 1000 * np.median([r["fit"] for r in rows])
            pred = 1000 * np.median([r["predict"] for r in rows])
            lines.append(
                f"| {method} | {c:.4f} ± {cse:.4f} | {ratio:.4f} ± {rse:.4f} | {cov:.3f} | "
                f"{width:.3f} | {fit:.1f} | {pred:.1f} |"
            )
            if method == "venncal VennAbersDistribution":
                covs = [r["coverage"] for r in rows]
                slow = np.median([r["predict"] for r in rows]) / np.median(
                    [r["predict"] for r in results["crepes CPS"]]
                )
                summary.append((name, ratio, rse, min(covs), max(covs), crps / base, slow))
        tables.append("\n".join(lines))
    return tables, summary


def bench_scale(n=100_000, m=1000, thresholds=100):
    """CPU seconds at scale: fit on n rows, the band of m objects at T thresholds, and the
    90% intervals of the m objects (which need the CDF at every calibration label)."""
    from crepes import ConformalPredictiveSystem

    rng = np.random.default_rng(0)
    X, f, y = _heteroscedastic(n, rng)
    pred = f + rng.normal(0, 0.1, n)
    test = rng.uniform(-2, 2, m)
    t = np.linspace(-3, 3, thresholds)
    VennAbersDistribution().fit(pred[:5000], y[:5000]).predict_cdf(test, t)  # load kernels
    rows = []
    for _ in range(3):
        t0 = time.process_time()
        vad = VennAbersDistribution().fit(pred, y)
        t1 = time.process_time()
        vad.predict_cdf(test, t)
        t2 = time.process_time()
        cps = ConformalPredictiveSystem().fit(y - pred)
        t3 = time.process_time()
        cps.predict(test, lower_percentiles=5, higher_percentiles=95)
        t4 = time.process_time()
        rows.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3))
    small = VennAbersDistribution().fit(pred[:3000], y[:3000])
    t5 = time.process_time()
    small.predict_interval(test)
    t6 = time.process_time()
    fit, cdf, cfit, cpred = np.median(rows, axis=0)
    return "\n".join(
        [
            "### Speed at scale",
            "",
            f"Heteroscedastic design, {n:,} calibration rows, {m:,} test objects, {thresholds} "
            "thresholds; CPU seconds, medians of 3 runs after the kernels are loaded.",
            "",
            "| step | venncal | crepes CPS |",
            "|---|---|---|",
            f"| fit on {n:,} rows | {fit:.3f} | {cfit:.3f} |",
            f"| band at {thresholds} thresholds, {m:,} objects | {cdf:.3f} | (no band) |",
            f"| 90% intervals, {m:,} objects | (every label: O(n^2)) | {cpred:.3f} |",
            f"| 90% intervals, {m:,} objects, 3,000 calibration rows | {t6 - t5:.3f} | |",
        ]
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # crepes' and scikit-learn's own warnings
    import crepes

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    tables, summary = bench(args.repeats)
    scale = bench_scale()
    verdicts = []
    for name, ratio, rse, cmin, cmax, ratios, slow in summary:
        wins = int(np.sum(ratios < 1))
        word = "better" if ratio + 2 * rse < 1 else "worse" if ratio - 2 * rse > 1 else "tied"
        verdicts.append(
            f"- {name}: venncal's CRPS is {ratio:.4f} ± {rse:.4f} times the split CPS's "
            f"({word} at two standard errors; lower in {wins} of {ratios.size} draws); its "
            f"90% coverage ranges over [{cmin:.3f}, {cmax:.3f}]; its intervals take {slow:.0f}x "
            "the split CPS's time (a loss: they need the CDF at every calibration label)."
        )
    body = "\n".join(
        [
            f"{machine_note()}, load {load:.1f}, crepes {crepes.__version__}",
            "",
            f"`{command_line('bench_regression.py', argv)}`",
            "",
            __doc__.split("\n\n", 2)[2].strip(),
            "Fit time is CPU time of the calibration alone (with the difficulty estimator for "
            "the normalised CPS), predict time that of the 90% intervals of the test rows; the "
            "regressor is fitted outside the clock. Medians over draws.",
            "",
            "### Wins and losses on CRPS",
            "",
            *verdicts,
            "",
            *[t + "\n" for t in tables],
            scale,
        ]
    )
    report(TITLE, body, write=args.write)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(__file__))
    main()
