"""Held-out log loss of quadratic scaling's three monotonicity rules on bundled datasets.

Run ``python benchmarks/bench_quadratic.py [--splits 10] [--write]`` (about a minute).

For each dataset and each of three classifiers (Gaussian naive Bayes and a random forest, whose
probabilities are read on the probability scale, and a linear SVM, whose decision values are
read as log-odds), every split trains the classifier on half the rows, calibrates on a quarter
and measures the log loss on the last quarter. Quadratic scaling is fitted with each rule of
``venncal.core.quadratic.MONOTONE_RULES``; Platt's sigmoid without smoothing (the affine fit)
is the reference. The table gives the mean held-out log loss over all fits, the number of fits
where the unconstrained quadratic decreased over the calibration scores (where the rules
differ), and the mean log loss on those fits alone.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine_note, report  # noqa: E402

DATASETS = ["adult", "australian", "breast-w", "diabetes", "ionosphere", "liver", "spect", "vote"]


def _log_loss(y, p):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)))


def _models():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    return {
        "naive Bayes": (lambda: GaussianNB(), "probability"),
        "random forest": (
            lambda: RandomForestClassifier(n_estimators=100, min_samples_leaf=2, random_state=0),
            "probability",
        ),
        "linear SVM": (lambda: make_pipeline(StandardScaler(), LinearSVC(C=0.1)), "logit"),
    }


def _scores(model, X, scale):
    if scale == "logit":
        return model.decision_function(X)
    return model.predict_proba(X)[:, 1]


def main(argv=None):
    from venncal.core.platt import fit_platt
    from venncal.core.quadratic import MONOTONE_RULES, fit_quadratic
    from venncal.datasets import load_dataset

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--max-rows", type=int, default=8000)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    names = list(MONOTONE_RULES) + ["affine (Platt, no smoothing)"]
    losses = {k: [] for k in names}
    differ = {k: [] for k in names}
    per_set = {}
    for ds in DATASETS:
        data = load_dataset(ds)
        X, y = np.asarray(data.X, dtype=float), np.asarray(data.y).astype(int)
        for model_name, (make, scale) in _models().items():
            for split in range(args.splits):
                rng = np.random.default_rng(1000 * split + 7)
                idx = rng.permutation(y.shape[0])[: args.max_rows]
                a, b = idx.shape[0] // 2, 3 * idx.shape[0] // 4
                tr, ca, te = idx[:a], idx[a:b], idx[b:]
                if min(np.bincount(y[ca], minlength=2)) == 0:
                    continue
                model = make().fit(X[tr], y[tr])
                s_cal, s_test = _scores(model, X[ca], scale), _scores(model, X[te], scale)
                row = {}
                for rule in MONOTONE_RULES:
                    fit = fit_quadratic(s_cal, y[ca], score_scale=scale, monotone=rule)
                    row[rule] = _log_loss(y[te], fit.predict(s_test))
                from venncal.core.quadratic import quadratic_log_odds

                platt = fit_platt(quadratic_log_odds(s_cal, scale), y[ca], smoothing=False)
                row[names[-1]] = _log_loss(y[te], platt.predict(quadratic_log_odds(s_test, scale)))
                bent = len({round(row[r], 12) for r in MONOTONE_RULES}) > 1
                for k in names:
                    losses[k].append(row[k])
                    if bent:
                        differ[k].append(row[k])
                per_set.setdefault((ds, model_name), []).append(row)
    lines = [
        f"{machine_note()}; {len(DATASETS)} datasets ({', '.join(DATASETS)}), naive Bayes, "
        f"random forest and linear SVM, {args.splits} splits of at most {args.max_rows} rows "
        "(train 1/2, calibrate 1/4, test 1/4).",
        "",
        "| rule | mean held-out log loss (all fits) | mean log loss where the rules differ |",
        "| --- | --- | --- |",
    ]
    n_all = len(losses[names[0]])
    n_differ = len(differ[names[0]])
    for k in names:
        d = f"{np.mean(differ[k]):.5f}" if differ[k] else "-"
        lines.append(f"| {k} | {np.mean(losses[k]):.5f} | {d} |")
    lines += [
        "",
        f"{n_all} fits; the unconstrained quadratic decreased over the calibration scores in "
        f"{n_differ} of them.",
        "",
        "| dataset, model | " + " | ".join(names) + " |",
        "| --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for (ds, m), rows in per_set.items():
        cells = [f"{np.mean([r[k] for r in rows]):.4f}" for k in names]
        lines.append(f"| {ds}, {m} | " + " | ".join(cells) + " |")
    body = "\n".join(lines)
    report("Quadratic scaling: monotonicity rules", body, write=args.write)


if __name__ == "__main__":
    main()
