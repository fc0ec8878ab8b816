"""Which multiclass calibrator? Held-out log loss on real K-class data, and the chooser.

Run ``python benchmarks/bench_quality_multiclass.py [--config quick|full] [-j N] [--write]``.

Each cell is one data set, one base classifier and one random split: 60% proper training set,
20% calibration set and 20% test set, stratified. The classifier's probabilities on the
calibration set train every calibrator; every calibrated probability on the test set is
scored by log loss (clipped to [1e-15, 1 - 1e-15]). Calibrators: temperature scaling,
temperature scaling with a bias, matrix scaling (its default structure, SMS, and vector
scaling), Dirichlet calibration (ODIR), multiclass Venn-Abers (default and top-label), and the
recommendation of ``compare_calibrators`` (refitted on the whole calibration set); with the
``probmetrics`` package installed, its temperature and SMS scaling as rivals.

Data sets (all shipped with scikit-learn or venncal, nothing is downloaded): scikit-learn's
digits (10 classes), wine (3) and iris (3), and three K-class problems made from the Adult
census data shipped with venncal, each predicting one of its categorical columns from the
others: ``relationship`` (6 classes), ``marital-status`` (7) and ``occupation`` (14), on a
stratified sample of 6,000 rows per split. Base classifiers: logistic regression, random
forest, histogram gradient boosting, an MLP and Gaussian naive Bayes.

The summary gives the mean test log loss of each method, the share of cells in which each
lowers the raw model's log loss and the median relative change (Berta et al. 2026's measures),
and the share of cells in which the default matrix scaling beats temperature scaling.
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
from _timing import (  # noqa: E402
    command_line,
    machine_note,
    probmetrics_calibrators,
    report,
    save_cells,
)

CLIP = 1e-15
ADULT_ROWS = 6000
ADULT_TARGETS = {"adult/relationship": "relationship", "adult/marital-status": "marital-status",
                 "adult/occupation": "occupation"}  # fmt: skip
DATASETS = ("digits", "wine", "iris", *ADULT_TARGETS)
CLASSIFIERS = ("LR", "RF", "HGB", "MLP", "GNB")
CONFIGS = {
    "quick": {"datasets": ["iris", "wine"], "classifiers": ["LR"], "n_repeats": 1},
    "full": {"datasets": list(DATASETS), "classifiers": list(CLASSIFIERS), "n_repeats": 5},
}


def _data(name, seed):
    from sklearn import datasets as skd
    from sklearn.model_selection import train_test_split

    if name in ADULT_TARGETS:
        from venncal.datasets import load_dataset

        ds = load_dataset("adult")
        prefix = ADULT_TARGETS[name] + "="
        names = np.asarray(ds.feature_names)
        target = np.array([n.startswith(prefix) for n in names])
        onehot = np.asarray(ds.X, dtype=float)[:, target]
        keep = onehot.sum(axis=1) == 1  # rows with the column known
        X = np.asarray(ds.X, dtype=float)[keep][:, ~target]
        y = onehot[keep].argmax(axis=1)
        counts = np.bincount(y)
        common = np.flatnonzero(counts >= 200)  # classes frequent enough for every split
        rows = np.isin(y, common)
        X, y = X[rows], np.searchsorted(common, y[rows])
        X, _, y, _ = train_test_split(X, y, train_size=ADULT_ROWS, stratify=y, random_state=seed)
    else:
        X, y = getattr(skd, f"load_{name}")(return_X_y=True)
    X_rest, X_te, y_rest, y_te = train_test_split(X, y, test_size=0.2, stratify=y,
                                                  random_state=seed)  # fmt: skip
    X_tr, X_cal, y_tr, y_cal = train_test_split(
        X_rest, y_rest, test_size=0.25, stratify=y_rest, random_state=seed + 1
    )
    return X_tr, y_tr, X_cal, y_cal, X_te, y_te


def _classifier(code, seed):
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return {
        "LR": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "RF": lambda: RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1),
        "HGB": lambda: HistGradientBoostingClassifier(max_iter=100, random_state=seed),
        "MLP": lambda: make_pipeline(
            StandardScaler(), MLPClassifier((64,), max_iter=500, random_state=seed)
        ),
        "GNB": GaussianNB,
    }[code]()


def _calibrators():
    import venncal
    from venncal.calibration import DirichletCalibrator, MatrixScalingCalibrator

    return {
        "temperature": lambda: venncal.TemperatureCalibrator(),
        "temperature+bias": lambda: venncal.TemperatureCalibrator(bias=True),
        "matrix-scaling": lambda: MatrixScalingCalibrator(),
        "vector-scaling": lambda: MatrixScalingCalibrator(structure="vector"),
        "dirichlet": lambda: DirichletCalibrator(),
        "venn-abers": lambda: venncal.MulticlassVennAbersCalibrator(),
        "venn-abers-top": lambda: venncal.MulticlassVennAbersCalibrator(strategy="top-label"),
    }


#: probmetrics' temperature scaling and structured matrix scaling, when installed
PROBMETRICS = {"pm-temperature": "ts-mix", "pm-sms": "sms"}


def _log_loss(y, P):
    p = np.clip(P[np.arange(y.shape[0]), y], CLIP, 1 - CLIP)
    return float(-np.log(p).mean())


def run_cell(cell):
    """One data set, classifier and split: a row per method."""
    from sklearn.base import clone

    from venncal.selection import compare_calibrators, default_multiclass_calibrators

    seed = int(cell["seed"])
    X_tr, y_tr, X_cal, y_cal, X_te, y_te = _data(cell["dataset"], seed)
    rows = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        clf = clone(_classifier(cell["classifier"], seed)).fit(X_tr, y_tr)
        P_cal, P_te = clf.predict_proba(X_cal), clf.predict_proba(X_te)
        rows.append({"method": "uncalibrated", "log_loss": _log_loss(y_te, P_te), "seconds": 0.0})
        for name, make in {**_calibrators(), **probmetrics_calibrators(PROBMETRICS)}.items():
            if cell.get("methods") and name not in cell["methods"]:
                continue
            t0 = time.perf_counter()
            try:
                P = make().fit(P_cal, y_cal).predict_proba(P_te)
            except Exception as exc:  # noqa: BLE001 - a rival's failure is reported, not fatal
                print(f"{cell['dataset']} {cell['classifier']} {name}: {exc}", file=sys.stderr)
                continue
            rows.append({"method": name, "log_loss": _log_loss(y_te, np.asarray(P, float)),
                         "seconds": time.perf_counter() - t0})  # fmt: skip
        t0 = time.perf_counter()
        cv = int(min(5, np.bincount(y_cal).min()))
        chosen = compare_calibrators(P_cal, y_cal, cv=cv, n_boot=300, random_state=seed)
        name = chosen.recommended
        if name == "uncalibrated":
            P = P_te
        else:
            P = default_multiclass_calibrators(True)[name].fit(P_cal, y_cal).predict_proba(P_te)
        rows.append({"method": "chooser", "log_loss": _log_loss(y_te, P),
                     "seconds": time.perf_counter() - t0, "chosen": name})  # fmt: skip
    for row in rows:
        row.update(dataset=cell["dataset"], classifier=cell["classifier"], repeat=cell["repeat"],
                   n_cal=len(y_cal), n_classes=int(np.unique(y_tr).size))  # fmt: skip
    return rows


def cells(config, methods=None):
    return [
        {"dataset": d, "classifier": c, "repeat": r, "seed": 2000 + r, "methods": methods}
        for d in config["datasets"]
        for c in config["classifiers"]
        for r in range(config["n_repeats"])
    ]


def summarise(results):
    """Per method: mean log loss, share of cells below the raw model, median relative change."""
    wide = results.pivot_table(
        index=["dataset", "classifier", "repeat"], columns="method", values="log_loss"
    ).dropna(axis=1, how="any")
    raw = wide["uncalibrated"]
    rel = wide.sub(raw, axis=0).div(raw, axis=0)
    table = pd.DataFrame(
        {
            "mean_log_loss": wide.mean(),
            "share_lower_than_raw": (rel < 0).mean(),
            "median_relative_change": rel.median(),
        }
    ).sort_values("mean_log_loss")
    both = {"matrix-scaling", "temperature"} <= set(wide.columns)
    beats = (wide["matrix-scaling"] < wide["temperature"]).mean() if both else float("nan")
    return table, beats, wide


def render(table, beats, wide, results, command):
    lines = [machine_note(), "", f"Command: `{command}`", ""]
    lines.append(
        f"{len(wide)} cells ({wide.index.get_level_values('dataset').nunique()} data sets x "
        f"{wide.index.get_level_values('classifier').nunique()} classifiers x splits); test "
        "log loss; share of cells where the method lowers the raw model's log loss; median "
        "relative change."
    )
    lines += [
        "",
        "| method | mean log loss | lowers log loss | median change |",
        "|---|---|---|---|",
    ]
    for name, row in table.iterrows():
        lines.append(
            f"| {name} | {row['mean_log_loss']:.4f} | {100 * row['share_lower_than_raw']:.1f}% | "
            f"{100 * row['median_relative_change']:+.2f}% |"
        )
    if beats == beats:  # both methods ran
        per = (wide["matrix-scaling"] < wide["temperature"]).groupby(level="dataset").mean()
        lines += [
            "",
            f"MatrixScalingCalibrator() beats temperature scaling in {100 * beats:.1f}% of "
            "cells; by data set: " + ", ".join(f"{d} {100 * v:.0f}%" for d, v in per.items()) + ".",
        ]
    chosen = results.loc[results["method"] == "chooser", "chosen"].value_counts()
    lines.append(
        "compare_calibrators recommended: " + ", ".join(f"{k} {v}" for k, v in chosen.items()) + "."
    )
    return "\n".join(lines)


def main(argv=None):
    from joblib import Parallel, delayed

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", choices=list(CONFIGS), default="quick")
    ap.add_argument("-j", "--n-jobs", type=int, default=1)
    ap.add_argument("--out", default=None, help="CSV file for the cells.")
    ap.add_argument("--write", action="store_true", help="Write the summary to BENCHMARKS.md.")
    ap.add_argument(
        "--methods", default=None, help="Comma-separated methods to run besides the chooser."
    )
    args = ap.parse_args(argv)
    methods = None if args.methods is None else args.methods.split(",")
    t0 = time.perf_counter()
    parts = Parallel(n_jobs=args.n_jobs)(
        delayed(run_cell)(c) for c in cells(CONFIGS[args.config], methods)
    )
    results = pd.DataFrame([row for part in parts for row in part])
    save_cells(results, args.out)
    table, beats, wide = summarise(results)
    command = command_line("bench_quality_multiclass.py", argv).strip()
    text = render(table, beats, wide, results, command)
    text += f"\n\nWall time of the run: {time.perf_counter() - t0:.0f} s.\n"
    report("Multiclass calibration quality", text, write=args.write)
    return results


if __name__ == "__main__":
    main()
