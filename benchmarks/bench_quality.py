"""Which calibrator? Calibration quality on every bundled binary dataset.

Run ``python benchmarks/bench_quality.py [--config quick|medium|full] [--out DIR] [-j N]
[--backend loky|dask] [--write]``.

Each cell is one dataset, one base classifier and one random split: 60% proper training set, 20%
calibration set and 20% test set, stratified. The base classifier is fitted on the proper
training set, and every calibrator learns from the calibration set (the methods that refit the
classifier, cross and simplified Venn-Abers, use the proper training and calibration sets
together, the same data). Every calibrated probability on the test set is scored by log loss
(probabilities clipped to [1e-15, 1 - 1e-15]), Brier score and ECE (10 equal-width bins), and
each calibrator's fit is timed.

Datasets: the 10 of Vovk & Petej, the 25 of Johansson et al. (Lofstrom et al.'s preprocessing),
Adult (a stratified sample of 6,000 rows per split, to keep the cells of the same size class)
and SPECT. Base classifiers: logistic regression, random forest, histogram gradient boosting,
Gaussian naive Bayes, an RBF SVM (its margin is the score; "uncalibrated" is its sigmoid) and an
MLP. Calibrators: inductive Venn-Abers with the log, square and mean merges, cross Venn-Abers
(5 folds, log merge), simplified Venn-Abers, Platt scaling, isotonic regression, histogram
binning (10 equal-frequency bins), SBB, ABB, beta calibration, and as outside references
scikit-learn's ``CalibratedClassifierCV`` (sigmoid, isotonic and temperature, on a frozen
classifier and the calibration set) and the ``venn-abers`` package's ``VennAbers``.

The cells go through venncal's experiment runner, so a run is resumable (``--out`` keeps
``cells.csv``) and runs on joblib or Dask. The summary gives, per metric, the mean rank of each
calibrator over the (dataset, classifier) blocks, the Friedman test, Nemenyi's critical
difference and its diagram, mean ranks by base classifier and by calibration-set size, and the
time per fit. ``--write`` puts the summary into the ``## Calibration quality`` section of
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine_note, probmetrics_calibrators, write_section  # noqa: E402

CLASSIFIERS = ("LR", "RF", "HGB", "GNB", "SVM", "MLP")
METRICS = ("log_loss", "brier", "ece")
ADULT_ROWS = 6000
CLIP = 1e-15
CHOOSER_BOOT = 300  # bootstrap resamples of the chooser (its rule reads the log-loss intervals)

CONFIGS = {
    # CI: two small datasets, two classifiers, one split
    "quick": {"datasets": ["labor", "lofstrom_ce/haberman"], "classifiers": ["LR", "GNB"],
              "n_repeats": 1},
    # every dataset and classifier, 2 splits
    "medium": {"datasets": None, "classifiers": list(CLASSIFIERS), "n_repeats": 2},
    # every dataset and classifier, 10 splits
    "full": {"datasets": None, "classifiers": list(CLASSIFIERS), "n_repeats": 10},
}  # fmt: skip


def all_binary_datasets():
    from venncal.datasets import list_datasets

    return list(list_datasets()["name"])


def _classifier(code, seed):
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if code == "LR":
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
    if code == "RF":
        return RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
    if code == "HGB":
        return HistGradientBoostingClassifier(random_state=seed)
    if code == "GNB":
        return GaussianNB()
    if code == "SVM":
        return make_pipeline(StandardScaler(), SVC(kernel="rbf", random_state=seed))
    if code == "MLP":
        return make_pipeline(
            StandardScaler(),
            MLPClassifier(hidden_layer_sizes=(32,), max_iter=500, random_state=seed),
        )
    raise ValueError(f"unknown classifier {code!r}")


def _scores(clf, X):
    """The classifier's score: P(y = 1) where it has probabilities, the SVM's margin."""
    if hasattr(clf, "predict_proba") and not _is_svm(clf):
        return clf.predict_proba(X)[:, 1], "probability"
    return clf.decision_function(X), "logit"


def _is_svm(clf):
    from sklearn.svm import SVC

    last = clf.steps[-1][1] if hasattr(clf, "steps") else clf
    return isinstance(last, SVC)


def _data(name, seed):
    from sklearn.model_selection import train_test_split

    from venncal.datasets import load_dataset

    ds = load_dataset(name)
    X, y = np.asarray(ds.X, dtype=float), np.asarray(ds.y).astype(int)
    if name == "adult":
        X, _, y, _ = train_test_split(X, y, train_size=ADULT_ROWS, stratify=y, random_state=seed)
    X_rest, X_te, y_rest, y_te = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=seed
    )
    X_tr, X_cal, y_tr, y_cal = train_test_split(
        X_rest, y_rest, test_size=0.25, stratify=y_rest, random_state=seed + 1
    )
    return X_tr, y_tr, X_cal, y_cal, X_te, y_te


def _score_calibrators(scale):
    import venncal

    beta_scale = {"score_scale": scale}
    out = {
        "VA-log": lambda: venncal.VennAbersCalibrator(merge="log"),
        "VA-square": lambda: venncal.VennAbersCalibrator(merge="square"),
        "VA-mean": lambda: venncal.VennAbersCalibrator(merge="mean"),
        "Platt": venncal.PlattCalibrator,
        "Isotonic": venncal.IsotonicCalibrator,
        "Histogram": lambda: venncal.HistogramCalibrator(n_bins=10, strategy="quantile"),
        "SBB": lambda: venncal.BayesianBinningCalibrator(method="selection"),
        "ABB": lambda: venncal.BayesianBinningCalibrator(method="averaging"),
        "Beta": lambda: venncal.BetaCalibrator(**beta_scale),
        "Quadratic": lambda: venncal.QuadraticCalibrator(**beta_scale),
        "Temperature": lambda: venncal.TemperatureCalibrator(
            score_type="probabilities" if scale == "probability" else "logits"
        ),
    }
    if "ScalingBinningCalibrator" in venncal.__all__:
        out["ScalingBinning"] = lambda: venncal.ScalingBinningCalibrator()
    return out


def _chooser(s_cal, y_cal, s_te, scale, seed):
    """The recommendation of compare_calibrators on the calibration set, refitted on all of it."""
    from venncal.selection import compare_calibrators, default_calibrators

    t0 = time.perf_counter()
    cv = int(min(5, np.bincount(np.asarray(y_cal, dtype=int)).min()))  # tiny sets: fewer folds
    result = compare_calibrators(s_cal, y_cal, cv=cv, n_boot=CHOOSER_BOOT, random_state=seed)
    name = result.recommended
    if name == "uncalibrated":
        return s_te, time.perf_counter() - t0, name
    model = default_calibrators(scale == "probability")[name].fit(s_cal, y_cal)
    return model.predict_proba(s_te)[:, 1], time.perf_counter() - t0, name


#: probmetrics' quadratic, temperature and affine scaling, when the package is installed
PROBMETRICS = {
    "pm-quadratic": "quadratic-scaling",
    "pm-temperature": "ts-mix",
    "pm-affine": "affine-scaling",
}


def _metrics(y, p):
    from venncal.metrics import brier_score, ece, log_loss

    return {
        "log_loss": float(log_loss(y, p, clip=CLIP)),
        "brier": float(brier_score(y, p)),
        "ece": float(ece(y, p, n_bins=10)),
    }


def _timed(fit, predict):
    t0 = time.perf_counter()
    model = fit()
    seconds = time.perf_counter() - t0
    return np.clip(np.asarray(predict(model), dtype=float), 0.0, 1.0), seconds


def run_cell(cell):
    """One dataset, classifier and split: a row per calibrator."""
    from scipy.special import expit
    from sklearn.base import clone
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    import venncal

    seed = int(cell["seed"])
    X_tr, y_tr, X_cal, y_cal, X_te, y_te = _data(cell["dataset"], seed)
    base = _classifier(cell["classifier"], seed)
    rows = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        clf = clone(base).fit(X_tr, y_tr)
        base_seconds = time.perf_counter() - t0
        s_cal, scale = _scores(clf, X_cal)
        s_te, _ = _scores(clf, X_te)
        raw = expit(s_te) if scale == "logit" else s_te
        rows.append({"method": "uncalibrated", **_metrics(y_te, raw), "fit_seconds": base_seconds})

        for name, make in _score_calibrators(scale).items():
            p, sec = _timed(
                lambda m=make: m().fit(s_cal, y_cal), lambda c: c.predict_proba(s_te)[:, 1]
            )
            rows.append({"method": name, **_metrics(y_te, p), "fit_seconds": sec})

        p, sec, chosen = _chooser(s_cal, y_cal, s_te, scale, seed)
        rows.append({"method": "chooser", **_metrics(y_te, np.clip(p, 0, 1)), "fit_seconds": sec,
                     "chosen": chosen})  # fmt: skip

        c_cal, c_te = (expit(s_cal), expit(s_te)) if scale == "logit" else (s_cal, s_te)
        P_cal = np.column_stack([1 - c_cal, c_cal])
        for name, make in probmetrics_calibrators(PROBMETRICS).items():
            p, sec = _timed(
                lambda m=make: m().fit(P_cal, y_cal),
                lambda c: c.predict_proba(np.column_stack([1 - c_te, c_te]))[:, 1],
            )
            rows.append({"method": name, **_metrics(y_te, p), "fit_seconds": sec})

        X_all = np.vstack([X_tr, X_cal])
        y_all = np.concatenate([y_tr, y_cal])
        for name, method in (
            () if cell.get("no_refit") else (("CVA-log", "cross"), ("SVA", "simplified"))
        ):
            p, sec = _timed(
                lambda m=method: venncal.VennAbersClassifier(
                    clone(base), method=m, random_state=seed
                ).fit(X_all, y_all),
                lambda c: c.predict_proba(X_te)[:, 1],
            )
            rows.append({"method": name, **_metrics(y_te, p), "fit_seconds": sec})

        for name, method in (("sk-sigmoid", "sigmoid"), ("sk-isotonic", "isotonic"),
                             ("sk-temperature", "temperature")):  # fmt: skip
            try:
                p, sec = _timed(
                    lambda m=method: CalibratedClassifierCV(FrozenEstimator(clf), method=m).fit(
                        X_cal, y_cal
                    ),
                    lambda c: c.predict_proba(X_te)[:, 1],
                )
            except (ValueError, TypeError):  # a method this scikit-learn does not have
                continue
            rows.append({"method": name, **_metrics(y_te, p), "fit_seconds": sec})

        try:
            from venn_abers import VennAbers
        except ImportError:
            VennAbers = None
        if VennAbers is not None:
            c_cal, c_te = (expit(s_cal), expit(s_te)) if scale == "logit" else (s_cal, s_te)
            p, sec = _timed(
                lambda: VennAbers().fit(np.column_stack([1 - c_cal, c_cal]), y_cal),
                lambda c: c.predict_proba(np.column_stack([1 - c_te, c_te]))[0][:, 1],
            )
            rows.append({"method": "venn-abers pkg", **_metrics(y_te, p), "fit_seconds": sec})
    for row in rows:
        row["n_cal"] = int(len(y_cal))
    return rows


def cells(config, no_refit=False, first_repeat=0):
    datasets = config["datasets"] or all_binary_datasets()
    extra = {"no_refit": True} if no_refit else {}
    repeats = range(first_repeat, first_repeat + config["n_repeats"])
    return [
        {
            "study": "bench-quality",
            "dataset": d,
            "classifier": c,
            "repeat": r,
            "seed": 1000 + r,
            **extra,
        }
        for d in datasets
        for c in config["classifiers"]
        for r in repeats
    ]


def summarise(results):
    """Mean ranks, Friedman test and critical difference per metric; mean ranks by group."""
    from venncal.metrics import ranking

    out = {}
    blocks = results.groupby(["dataset", "classifier", "method"], as_index=False)[
        list(METRICS) + ["fit_seconds", "n_cal"]
    ].mean()
    for metric in METRICS:
        table = blocks.pivot_table(index=["dataset", "classifier"], columns="method", values=metric)
        table = table.dropna(axis=0)

        def avg(frame):
            return pd.Series(ranking.average_ranks(frame.to_numpy()), index=frame.columns)

        ranks = avg(table)
        fried = ranking.friedman_test(table.to_numpy())
        cd = ranking.nemenyi_critical_difference(table.shape[1], table.shape[0])
        by_clf = {
            clf: avg(table.xs(clf, level="classifier"))
            for clf in table.index.get_level_values("classifier").unique()
            if (table.index.get_level_values("classifier") == clf).sum() >= 2
        }
        n_cal = blocks.groupby(["dataset", "classifier"])["n_cal"].first().reindex(table.index)
        size_class = pd.cut(n_cal, [0, 100, 300, np.inf], labels=["<100", "100-300", ">300"])
        by_size = {
            str(k): avg(table[size_class == k])
            for k in size_class.cat.categories
            if (size_class == k).sum() >= 2
        }
        out[metric] = {
            "ranks": ranks, "friedman": fried, "cd": cd, "n_blocks": table.shape[0],
            "by_classifier": by_clf, "by_size": by_size, "table": table,
        }  # fmt: skip
    out["seconds"] = blocks.groupby("method")["fit_seconds"].median()
    out["against_raw"] = against_raw(results)
    return out


def against_raw(results):
    """Per method, over cells: mean test log loss, the share of cells where it lowers the log
    loss of the raw model ("uncalibrated"), and the median relative change (the measures of
    Berta et al. 2026), on the cells where every method ran."""
    wide = results.pivot_table(
        index=["dataset", "classifier", "repeat"], columns="method", values="log_loss"
    ).dropna(axis=0)
    if "uncalibrated" not in wide:
        return pd.DataFrame()
    raw = wide["uncalibrated"]
    rel = wide.sub(raw, axis=0).div(raw, axis=0)
    return pd.DataFrame(
        {
            "mean_log_loss": wide.mean(),
            "share_lower_than_raw": (rel < 0).mean(),
            "median_relative_change": rel.median(),
            "n_cells": len(wide),
        }
    ).drop(index="uncalibrated")


def render(summary, command):
    lines = [machine_note(), "", f"Command: `{command}`", ""]
    metric_names = {"log_loss": "log loss", "brier": "Brier score", "ece": "ECE (10 bins)"}
    first = summary[METRICS[0]]
    lines.append(
        f"{first['n_blocks']} (dataset, classifier) blocks; each block's value is the mean over "
        "its splits; ranks: 1 is best."
    )
    lines.append("")
    header = (
        "| calibrator | " + " | ".join(metric_names[m] for m in METRICS) + " | median fit (ms) |"
    )
    lines += [header, "|" + "---|" * (len(METRICS) + 2)]
    ranks = {m: summary[m]["ranks"] for m in METRICS}
    order = sorted(ranks[METRICS[0]].index, key=lambda k: ranks[METRICS[0]][k])
    for name in order:
        cells_ = " | ".join(f"{ranks[m][name]:.2f}" for m in METRICS)
        lines.append(f"| {name} | {cells_} | {1000 * summary['seconds'][name]:.2f} |")
    lines.append("")
    for m in METRICS:
        f = summary[m]["friedman"]
        lines.append(
            f"- {metric_names[m]}: Friedman chi2 = {f.statistic:.1f} (p = {f.pvalue:.2g}); "
            f"Nemenyi critical difference at 5%: {summary[m]['cd']:.2f} ranks."
        )
    anchor = summary.get("against_raw")
    if anchor is not None and len(anchor):
        lines += [
            "",
            f"Against the raw model, over {int(anchor['n_cells'].iloc[0])} cells (mean test log "
            "loss; share of cells where the method lowers the raw model's log loss; median "
            "relative change):",
            "",
            "| calibrator | mean log loss | lowers log loss | median change |",
            "|---|---|---|---|",
        ]
        for name, row in anchor.sort_values("mean_log_loss").iterrows():
            lines.append(
                f"| {name} | {row['mean_log_loss']:.4f} | {100 * row['share_lower_than_raw']:.1f}% "
                f"| {100 * row['median_relative_change']:+.2f}% |"
            )
    for group, title in (("by_classifier", "base classifier"), ("by_size", "calibration-set size")):
        lines += ["", f"Mean rank by log loss, by {title}:", ""]
        groups = summary["log_loss"][group]
        names = order
        lines.append("| calibrator | " + " | ".join(groups) + " |")
        lines.append("|" + "---|" * (len(groups) + 1))
        for name in names:
            lines.append(
                f"| {name} | " + " | ".join(f"{groups[g][name]:.1f}" for g in groups) + " |"
            )
    return "\n".join(lines)


def draw_cd(summary, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from venncal.plotting import CriticalDifferenceDisplay

    s = summary["log_loss"]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    CriticalDifferenceDisplay.from_ranks(s["ranks"].to_dict(), s["cd"], ax=ax)
    ax.set_title("Calibrators by log loss: mean ranks and Nemenyi critical difference")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def main(argv=None):
    from venncal.experiments.runner import run_grid

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", choices=list(CONFIGS), default="quick")
    ap.add_argument("--out", default=None, help="Folder for cells.csv (resumable) and figures.")
    ap.add_argument("-j", "--n-jobs", type=int, default=1)
    ap.add_argument("--backend", choices=["loky", "dask"], default="loky")
    ap.add_argument("--write", action="store_true", help="Write the summary to BENCHMARKS.md.")
    ap.add_argument(
        "--no-refit",
        action="store_true",
        help="Leave out cross and simplified Venn-Abers (they refit the classifier).",
    )
    ap.add_argument(
        "--first-repeat",
        type=int,
        default=0,
        help="Index of the first split (seed 1000 + index): e.g. 3 for splits never used to set "
        "the recommendation rule of compare_calibrators (it was set on splits 0-2).",
    )
    args = ap.parse_args(argv)
    config = CONFIGS[args.config]
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    raw = run_grid(
        cells(config, args.no_refit, args.first_repeat),
        run_cell,
        out_csv=None if out is None else out / "cells.csv",
        n_jobs=args.n_jobs,
        backend=args.backend,
        progress=True,
    )
    wall = time.perf_counter() - t0
    summary = summarise(raw)
    command = "python benchmarks/bench_quality.py " + " ".join(argv or sys.argv[1:])
    text = render(summary, command.strip()) + f"\n\nWall time of the run: {wall:.0f} s.\n"
    print(text)
    if out is not None:
        draw_cd(summary, out / "critical_difference_log_loss.png")
    if args.write:
        write_section("Calibration quality", text)
    return summary


if __name__ == "__main__":
    main()
