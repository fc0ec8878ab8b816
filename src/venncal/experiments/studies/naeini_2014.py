"""Naeini, Cooper & Hauskrecht, "Binary classifier calibration: a Bayesian non-parametric
approach": Table 2 (a)-(h).

Base classifiers' probabilities are recalibrated by ACP (with logistic regression only, as in the
paper), isotonic regression, Platt scaling, histogram binning (10 equal-width bins), and the
Bayesian binnings SBB (selection) and ABB (averaging), each fitted on a calibration set and
scored on a test set by AUC, accuracy, RMSE, ECE and MCE (10 equal-width bins, section 4).

ACP bins each test prediction with the logistic model's own 95% Wald interval
(:func:`venncal.calibration.acp.logistic_wald_interval`), as Jiang et al. define it.

* XOR and circular simulated data (:func:`venncal.datasets.make_xor`, ``make_circular``):
  600 training, 600 calibration and 600 test objects, logistic regression. A linear model cannot
  separate these classes, so its score is not monotone in the posterior: isotonic regression and
  Platt scaling, which keep the order of the scores, cannot repair it, while binning methods can.
* Adult: 2,000 / 600 / 600 objects drawn at random; logistic regression, naive Bayes and a linear
  SVM.
* SPECT: the given split; the 80 training objects train the classifier and the calibrator, the
  187 test objects score them; logistic regression, naive Bayes and a quadratic-kernel SVM.

The paper's panels (i)-(k) use the private CAP data and are not rerun.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from venncal.experiments.report import StudyResult
from venncal.experiments.runner import cell_seed
from venncal.experiments.studies._common import fmt, load_cached, quiet, run_cells

NAME = "naeini-2014"
TITLE = "Naeini, Cooper & Hauskrecht (2015), Bayesian binning: calibrators compared (Table 2)"

#: column -> (public calibrator name in venncal, keyword arguments)
CALIBRATORS = {
    "ACP": ("ACPCalibrator", {}),
    "IsoReg": ("IsotonicCalibrator", {}),
    "Platt": ("PlattCalibrator", {}),
    "Hist": ("HistogramCalibrator", {"n_bins": 10}),
    "SBB": ("BayesianBinningCalibrator", {"method": "selection"}),
    "ABB": ("BayesianBinningCalibrator", {"method": "averaging"}),
}
METHODS = ("base",) + tuple(CALIBRATORS)
METRICS = ("AUC", "Acc", "RMSE", "MCE", "ECE")

#: (dataset, classifier) -> paper panel
PANELS = {
    ("XOR", "LR"): "a",
    ("Circular", "LR"): "b",
    ("Adult", "NB"): "c",
    ("Adult", "SVM"): "d",
    ("Adult", "LR"): "e",
    ("SPECT", "NB"): "f",
    ("SPECT", "SVM"): "g",
    ("SPECT", "LR"): "h",
}


def default_config(mode="quick"):
    """Quick: 3 repetitions of each random panel; full: 20 (the paper reports one run)."""
    return {
        "mode": mode,
        "panels": [f"{d}/{c}" for d, c in PANELS],
        "n_repeats": 20 if mode == "full" else 3,
        "n_train": 600,
        "n_cal": 600,
        "n_test": 600,
        "n_train_adult": 2000,
        "base_seed": 0,
    }


def available_calibrators():
    """The columns whose calibrator exists in this installation."""
    import venncal

    out = {}
    for col, (public, kwargs) in CALIBRATORS.items():
        try:
            out[col] = (getattr(venncal, public), kwargs)
        except (AttributeError, ImportError):
            continue
    return out


def _classifier(code, dataset, seed):
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import BernoulliNB, GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if code == "LR":
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
    if code == "NB":
        return BernoulliNB() if dataset == "SPECT" else GaussianNB()
    if code == "SVM":
        kernel = dict(kernel="poly", degree=2) if dataset == "SPECT" else dict(kernel="linear")
        return make_pipeline(StandardScaler(), SVC(**kernel, random_state=seed))
    raise ValueError(f"unknown classifier {code!r}")


def _score(clf, X):
    """The base classifier's probability; an SVM's margin goes through the logistic function."""
    if hasattr(clf, "predict_proba") and not _is_svm(clf):
        return clf.predict_proba(X)[:, 1]
    f = clf.decision_function(X)
    return 1.0 / (1.0 + np.exp(-f))


def _is_svm(clf):
    from sklearn.svm import SVC

    last = clf.steps[-1][1] if hasattr(clf, "steps") else clf
    return isinstance(last, SVC)


def _lr_intervals(clf, X_train, X):
    """95% Wald intervals of the pipeline's logistic-regression probabilities."""
    from venncal.calibration.acp import logistic_wald_interval

    scaler, lr = clf[0], clf[-1]
    return logistic_wald_interval(lr, scaler.transform(X_train), scaler.transform(X))


def _data(dataset, config, seed):
    """(X_train, y_train, X_cal, y_cal, X_test, y_test) for one repetition."""
    rng = np.random.default_rng(seed)
    if dataset in ("XOR", "Circular"):
        from venncal.datasets import make_circular, make_xor

        make = make_xor if dataset == "XOR" else make_circular
        n1, n2, n3 = config["n_train"], config["n_cal"], config["n_test"]
        ds = make(n1 + n2 + n3, random_state=seed)
        X, y = np.asarray(ds.X, float), np.asarray(ds.y)
        idx = rng.permutation(len(y))
        a, b, c = idx[:n1], idx[n1 : n1 + n2], idx[n1 + n2 :]
    elif dataset == "Adult":
        ds = load_cached("adult")
        X, y = np.asarray(ds.X, float), np.asarray(ds.y)
        n1, n2, n3 = config["n_train_adult"], config["n_cal"], config["n_test"]
        idx = rng.choice(len(y), size=n1 + n2 + n3, replace=False)
        a, b, c = idx[:n1], idx[n1 : n1 + n2], idx[n1 + n2 :]
    elif dataset == "SPECT":
        ds = load_cached("spect")
        X, y = np.asarray(ds.X, float), np.asarray(ds.y)
        split = np.asarray(ds.meta["split"])
        a = b = np.flatnonzero(split == "train")
        c = np.flatnonzero(split == "test")
    else:
        raise ValueError(f"unknown dataset {dataset!r}")
    return X[a], y[a], X[b], y[b], X[c], y[c]


def _metrics(y, p):
    from venncal.metrics import accuracy, ece, mce, rmse, roc_auc

    return {
        "AUC": float(roc_auc(y, p)),
        "Acc": float(accuracy(y, p)),
        "RMSE": float(rmse(y, p)),
        "MCE": float(mce(y, p, n_bins=10)),
        "ECE": float(ece(y, p, n_bins=10)),
    }


def run_cell(cell):
    """One panel and repetition: rows for the base classifier and every calibrator."""
    dataset, code = cell["panel"].split("/")
    seed = cell_seed({"panel": cell["panel"], "repeat": cell["repeat"]}, cell["base_seed"])
    Xtr, ytr, Xcal, ycal, Xte, yte = _data(dataset, cell, seed)
    rows = []
    with quiet():
        clf = _classifier(code, dataset, seed).fit(Xtr, ytr)
        s_cal, s_test = _score(clf, Xcal), _score(clf, Xte)
        rows.append({"method": "base", **_metrics(yte, s_test)})
        for col, (cls, kwargs) in available_calibrators().items():
            if col == "ACP" and code != "LR":
                continue
            cal = cls(**kwargs).fit(s_cal, ycal)
            if col == "ACP":
                # ACP's bins are the logistic model's own 95% Wald intervals (Jiang et al.)
                proba = cal.predict_proba(s_test, interval=_lr_intervals(clf, Xtr, Xte))
            else:
                proba = cal.predict_proba(s_test)
            rows.append({"method": col, **_metrics(yte, proba[:, 1])})
    return rows


def _paper():
    from venncal.experiments.paper_tables import load_paper_table

    return load_paper_table("naeini_2014_table2")


def run(config, *, out_csv=None, n_jobs=1, backend="loky", scheduler=None, progress=True):
    """Run the panels and lay the results out as Table 2, with the paper's numbers beside."""
    keys = ("n_train", "n_cal", "n_test", "n_train_adult", "base_seed")
    cells = []
    for panel in config["panels"]:
        # SPECT's split is given and its classifiers are deterministic: one run
        n = 1 if panel.startswith("SPECT/") else config["n_repeats"]
        for r in range(n):
            cells.append(
                {"study": NAME, "panel": panel, "repeat": r, **{k: config[k] for k in keys}}
            )
    raw, wall_time = run_cells(
        cells,
        run_cell,
        out_csv=out_csv,
        n_jobs=n_jobs,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    mean = raw.groupby(["panel", "method"], sort=False)[list(METRICS)].mean()
    paper = _paper()
    present = [m for m in METHODS if m in set(raw["method"])]

    tables = {}
    head = {}
    for panel in config["panels"]:
        dataset, code = panel.split("/")
        letter = PANELS[(dataset, code)]
        pp = paper[paper["panel"] == letter]
        rows = {}
        for metric in METRICS:
            row = {}
            for m in present:
                if (panel, m) not in mean.index:
                    continue
                ours = mean.loc[(panel, m), metric]
                theirs = pp[(pp["metric"] == metric) & (pp["method"] == m)]["value"]
                tv = fmt(theirs.iloc[0]) if len(theirs) else ""
                row[m] = f"{fmt(ours)} ({tv})" if tv else fmt(ours)
                if metric == "ECE":
                    head.setdefault(f"({letter}) {dataset} {code}", {})[m] = row[m]
            rows[metric] = row
        label = "SVM" if code == "SVM" else code
        tables[f"Table 2({letter}): {dataset}, {label}, ours (paper)"] = pd.DataFrame.from_dict(
            rows, orient="index"
        )[[m for m in present if any(m in r for r in rows.values())]]
    headline = pd.DataFrame.from_dict(head, orient="index")[
        [m for m in present if any(m in r for r in head.values())]
    ]
    tables = {"ECE of every calibrator, ours (paper)": headline, **tables}

    checks = {}
    for ds in ("XOR", "Circular"):
        panel = f"{ds}/LR"
        for rival in ("IsoReg", "Platt"):
            if (panel, rival) not in mean.index:
                continue
            for m in ("SBB", "ABB"):
                if (panel, m) not in mean.index:
                    continue
                ours, theirs = mean.loc[(panel, m)], mean.loc[(panel, rival)]
                checks[
                    f"{m} beats {rival} on {ds}: AUC {ours['AUC']:.3f} > {theirs['AUC']:.3f} "
                    f"and RMSE {ours['RMSE']:.3f} < {theirs['RMSE']:.3f}"
                ] = bool(ours["AUC"] > theirs["AUC"] and ours["RMSE"] < theirs["RMSE"])
                checks[
                    f"{m} has lower ECE than {rival} on {ds} "
                    f"({ours['ECE']:.3f} < {theirs['ECE']:.3f})"
                ] = bool(ours["ECE"] < theirs["ECE"])

    missing = [c for c in CALIBRATORS if c not in present]
    notes = [
        "Cells read `ours (paper)`; ours are means over "
        f"{config['n_repeats']} random draws (SPECT: the given split, one run), the paper's one "
        "run each. LR has standardised inputs; NB is Gaussian on Adult and Bernoulli on SPECT's "
        "binary features; an SVM's margin f becomes 1 / (1 + exp(-f)) before calibration "
        "(the paper does not say how it turned margins into probabilities, and its SVM base "
        "column has accuracies of 0.25, far below chance, which we do not try to reproduce).",
        "Adult rows are drawn from the bundled 48,842 rows, whose missing values are imputed "
        "(the paper drops them).",
    ]
    if missing:
        notes.append("Not available in this installation, so left out: " + ", ".join(missing) + ".")
    return StudyResult(
        name=NAME,
        title=TITLE,
        mode=config["mode"],
        tables=tables,
        figures=_figures(config),
        notes=notes,
        raw=raw,
        config={k: v for k, v in config.items() if k != "mode"},
        wall_time=wall_time,
        checks=checks,
    )


def _figures(config):
    """Scatter plots of the simulated data and each calibrator's map on XOR and circular."""
    from matplotlib.figure import Figure

    figs = {}
    for ds in ("XOR", "Circular"):
        if f"{ds}/LR" not in config["panels"]:
            continue
        seed = cell_seed({"panel": f"{ds}/LR", "repeat": 0}, config["base_seed"])
        Xtr, ytr, Xcal, ycal, Xte, yte = _data(ds, config, seed)
        fig = Figure(figsize=(10, 4))
        ax1, ax2 = fig.subplots(1, 2)
        ax1.scatter(Xte[:, 0], Xte[:, 1], c=yte, s=6, cmap="coolwarm")
        ax1.set_title(f"{ds} configuration (test set)")
        with quiet():
            clf = _classifier("LR", ds, seed).fit(Xtr, ytr)
            s_cal = _score(clf, Xcal)
            grid = np.linspace(s_cal.min(), s_cal.max(), 300)
            for col, (cls, kwargs) in available_calibrators().items():
                if col == "ACP":  # its bins come from the model's intervals, not the score
                    continue
                cal = cls(**kwargs).fit(s_cal, ycal)
                ax2.plot(grid, cal.predict_proba(grid)[:, 1], label=col)
        ax2.set_xlabel("logistic regression score")
        ax2.set_ylabel("calibrated probability")
        ax2.set_title("calibration maps learned on the calibration set")
        ax2.legend(fontsize=8)
        fig.tight_layout()
        figs[f"{ds.lower()}_calibration_maps"] = fig
    return figs
