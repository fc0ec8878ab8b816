"""Naeini, Cooper & Hauskrecht, "Binary classifier calibration: a Bayesian non-parametric
approach": Table 2 (a)-(h).

Base classifiers' probabilities are recalibrated by ACP (with logistic regression only, as in the
paper), isotonic regression, Platt scaling, histogram binning, and the Bayesian binnings SBB
(selection) and ABB (averaging), each fitted on a calibration set and scored on a test set by
AUC, accuracy, RMSE, ECE and MCE (10 equal-width bins, section 4).

Calibrator settings:

* **Histogram binning** is Zadrozny & Elkan's (the paper's reference [11]): 10 bins holding equal
  numbers of calibration examples (``HistogramCalibrator(strategy="quantile")``). Equal-width
  bins (``hist_strategy="uniform"``) leave most bins nearly empty when the scores crowd together,
  as naive Bayes' do on Adult.
* **ABB** computes the exact model average over binnings (eq. 7) by default;
  ``abb_averaging="paper"`` uses the paper's eq. (8) as written, which differs from eq. (7) by up
  to about 0.1 per value. The prior's form and ``lam`` are the library's choices (see
  :class:`venncal.BayesianBinningCalibrator`); the paper does not print them.
* **ACP** bins each test prediction with the logistic model's own 95% Wald interval
  (:func:`venncal.calibration.acp.logistic_wald_interval`), adjusted into a bin of the same length
  centred on the prediction (``acp_adjustment="symmetric"``, see :mod:`venncal.core.acp`);
  ``acp_adjustment="none"`` uses the raw interval.

Panels:

* XOR and circular (``XOR/LR``, ``Circular/LR``): designs chosen from the paper's description
  of the data and its uncalibrated LR row only, never from a calibrator's result (the derivation
  is in :mod:`venncal.experiments.studies._naeini_designs`): standard normal features labelled
  by the signs' agreement (XOR) or by a circle holding half the mass, with one side of the
  plane stretched by a factor fitted to the LR row on draws of their own; 600 training, 600
  calibration and 600 test objects, logistic regression. LR's score ranks the classes no better
  than chance, and the positives lie at both ends of it (XOR) or in its middle (circular):
  isotonic regression and Platt scaling, which keep the order of the scores, cannot repair it,
  while binning methods can.
* ``XOR [...]/LR``, ``Circular [...]/LR``: the sensitivity family, designs the description and
  the LR row do not rule out, each one parameter away from the central design (the stretch
  times 0.8 and 1.2, the symmetric design, correlated or elliptical features, 10% of labels
  flipped, a gap between the classes). They give the band of each cell
  (:mod:`venncal.experiments.studies._naeini_agreement`) and show which comparisons hold on
  every design; they have no tables of their own.
* ``Separable/LR``: the linearly separable data the paper also simulates
  (:func:`venncal.datasets.make_separable`); the paper gives no numbers for it ("uniformly
  excellent").
* Adult: 2,000 / 600 / 600 objects drawn at random; logistic regression, naive Bayes and a linear
  SVM.
* SPECT: the given split; the 80 training objects train the classifier and the calibrator, the
  187 test objects (172 abnormal, 15 normal) score them; logistic regression, naive Bayes and a
  quadratic-kernel SVM.

**Ceiling.** On every simulated panel the method ``ceiling`` is the best any calibrator of the
one-dimensional LR score can do: the true ``P(y = 1 | score)`` of that draw's LR, estimated on a
large fresh sample from the generator (``ceiling_samples``) in fine equal-frequency bins of the
score (500 examples each), and scored on a second fresh sample of the same size. A calibrator
above it is noise; the gap below it is the method's. ACP is not bound by it: its bins also use the
standard error of each prediction, which depends on ``x`` beyond the score.

The paper's panels (i)-(k) use the private CAP data and are not rerun.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from venncal.experiments._margins import with_quick_margins
from venncal.experiments.report import StudyResult
from venncal.experiments.runner import cell_seed
from venncal.experiments.studies import _naeini_agreement as agreement
from venncal.experiments.studies import _naeini_designs as designs
from venncal.experiments.studies._common import fmt, load_cached, quiet, study_run
from venncal.experiments.studies._naeini_acp import (
    acp_variant_rows,
    acp_variants_note,
    with_acp_variants,
)
from venncal.experiments.studies._naeini_checks import study_checks
from venncal.experiments.studies._naeini_real import agreement_checks as real_agreement_checks
from venncal.experiments.studies._naeini_real import paired_auc_columns, real_cells

if TYPE_CHECKING:
    from venncal.experiments.studies._common import Grid

NAME = "naeini-2014"
TITLE = "Naeini, Cooper & Hauskrecht (2015), Bayesian binning: calibrators compared (Table 2)"

#: column -> (public calibrator name in venncal, keyword arguments); the study's options are
#: applied in :func:`_calibrator_kwargs`
CALIBRATORS = {
    "ACP": ("ACPCalibrator", {}),
    "IsoReg": ("IsotonicCalibrator", {}),
    "Platt": ("PlattCalibrator", {}),
    "Hist": ("HistogramCalibrator", {"n_bins": 10}),
    "SBB": ("BayesianBinningCalibrator", {"method": "selection"}),
    "ABB": ("BayesianBinningCalibrator", {"method": "averaging"}),
}
METHODS = ("base",) + tuple(CALIBRATORS) + ("ceiling",)
METRICS = ("AUC", "Acc", "RMSE", "MCE", "ECE")

#: simulated dataset -> its design, for the XOR and circular designs and their sensitivity
#: family (``"XOR [offset +0.2]"``, ...); the central designs are ``"XOR"`` and ``"Circular"``
DESIGNS = {
    (ds if label == "central" else f"{ds} [{label}]"): design
    for ds in ("XOR", "Circular")
    for label, design in designs.design_family(ds).items()
}
#: the panels of the sensitivity family other than the central designs: no tables of their own
FAMILY_PANELS = {
    p for ds in ("XOR", "Circular") for p in designs.family_panels(ds) if p != f"{ds}/LR"
}

#: (dataset, classifier) -> paper panel whose numbers are shown beside ours
PANELS = {
    ("XOR", "LR"): "a",
    ("Circular", "LR"): "b",
    ("Separable", "LR"): "separable",
    ("Adult", "NB"): "c",
    ("Adult", "SVM"): "d",
    ("Adult", "LR"): "e",
    ("SPECT", "NB"): "f",
    ("SPECT", "SVM"): "g",
    ("SPECT", "LR"): "h",
    **{(name, "LR"): "a" if name.startswith("XOR") else "b" for name in DESIGNS if "[" in name},
}

#: simulated dataset from venncal.datasets -> name of its generator
SIMULATED = {"Separable": "make_separable"}

#: table titles of the panels that are not the paper's own
_TITLES = {
    "Separable": "Linearly separable data (section 3; no numbers in the paper), LR, ours",
}


def default_config(mode: str = "quick") -> dict[str, Any]:
    """Quick: 3 repetitions of each random panel; full: 20 (the paper reports one run)."""
    full = mode == "full"
    return {
        "mode": mode,
        "panels": [f"{d}/{c}" for d, c in PANELS],
        "n_repeats": 20 if full else 3,
        "n_train": 600,
        "n_cal": 600,
        "n_test": 600,
        "n_train_adult": 2000,
        "hist_strategy": "quantile",
        "abb_averaging": "exact",
        "acp_adjustment": "symmetric",
        "acp_variants": [0.5],
        "ceiling_samples": 200_000 if full else 50_000,
        "base_seed": 0,
    }


def _calibrator_kwargs(col, kwargs, config):
    """The calibrator's keyword arguments with the study's options applied."""
    kw = dict(kwargs)
    if col == "Hist":
        kw["strategy"] = config.get("hist_strategy", "quantile")
    elif col == "ABB" and config.get("abb_averaging", "exact") != "exact":
        kw["averaging"] = config["abb_averaging"]
    elif col == "ACP":
        kw["interval_adjustment"] = config.get("acp_adjustment", "symmetric")
    return kw


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
    if _simulated(dataset):
        n1, n2, n3 = config["n_train"], config["n_cal"], config["n_test"]
        X, y = _model(dataset).sample(n1 + n2 + n3, random_state=seed)
        X, y = np.asarray(X, float), np.asarray(y)
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


def _simulated(dataset):
    return dataset in DESIGNS or dataset in SIMULATED


def _model(dataset):
    """The simulated dataset's model: ``model.sample(n, random_state)`` draws from it."""
    if dataset in DESIGNS:
        return DESIGNS[dataset]
    import venncal.datasets

    return getattr(venncal.datasets, SIMULATED[dataset])(1, random_state=0).meta["model"]


def ceiling(model, clf, n_samples, random_state):
    """Metrics of the ideal calibrator of ``clf``'s score: ``P(y = 1 | score)`` from the model.

    ``P(y = 1 | score)`` is estimated on ``n_samples`` fresh draws from ``model`` in
    equal-frequency bins of the score holding 500 draws each (at least 10 bins), and the
    estimate is scored on a second sample of ``n_samples`` draws.
    """
    rng = np.random.default_rng(random_state)
    Xa, ya = model.sample(n_samples, random_state=rng)
    Xb, yb = model.sample(n_samples, random_state=rng)
    sa, sb = _score(clf, Xa), _score(clf, Xb)
    n_bins = max(10, n_samples // 500)
    edges = np.unique(np.quantile(sa, np.linspace(0, 1, n_bins + 1)[1:-1]))
    ia = np.searchsorted(edges, sa, side="right")
    ib = np.searchsorted(edges, sb, side="right")
    counts = np.bincount(ia, minlength=edges.size + 1)
    pos = np.bincount(ia, weights=ya, minlength=edges.size + 1)
    rate = np.where(counts > 0, pos / np.maximum(counts, 1), ya.mean())
    return _metrics(yb, rate[ib])


def _metrics(y, p):
    from venncal.metrics import accuracy, ece, mce, rmse, roc_auc

    return {
        "AUC": float(roc_auc(y, p)),
        "Acc": float(accuracy(y, p)),
        "RMSE": float(rmse(y, p)),
        "MCE": float(mce(y, p, n_bins=10)),
        "ECE": float(ece(y, p, n_bins=10)),
    }


def run_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """One panel and repetition: rows for the base classifier and every calibrator."""
    dataset, code = cell["panel"].split("/")
    seed = cell_seed({"panel": cell["panel"], "repeat": cell["repeat"]}, cell["base_seed"])
    Xtr, ytr, Xcal, ycal, Xte, yte = _data(dataset, cell, seed)
    rows = []
    scores = {}  # the test scores of every method, for SPECT's paired comparisons
    with quiet():
        clf = _classifier(code, dataset, seed).fit(Xtr, ytr)
        s_cal, s_test = _score(clf, Xcal), _score(clf, Xte)
        rows.append({"method": "base", **_metrics(yte, s_test)})
        scores["base"] = s_test
        for col, (cls, kwargs) in available_calibrators().items():
            if col == "ACP" and code != "LR":
                continue
            cal = cls(**_calibrator_kwargs(col, kwargs, cell)).fit(s_cal, ycal)
            if col == "ACP":
                # ACP's bins come from the logistic model's own 95% Wald intervals (Jiang et al.)
                proba = cal.predict_proba(s_test, interval=_lr_intervals(clf, Xtr, Xte))
            else:
                proba = cal.predict_proba(s_test)
            rows.append({"method": col, **_metrics(yte, proba[:, 1])})
            scores[col] = proba[:, 1]
            if col == "ACP":  # the same calibrator with narrower intervals
                rows += acp_variant_rows(cal, clf, Xtr, Xte, s_test, yte, cell, _metrics)
        if _simulated(dataset) and cell.get("ceiling_samples", 0) > 0:
            model = _model(dataset)
            rows.append(
                {"method": "ceiling", **ceiling(model, clf, cell["ceiling_samples"], seed + 1)}
            )
    if dataset == "SPECT":
        # one given split: DeLong's standard errors, of each AUC and of paired differences
        paired = paired_auc_columns(yte, scores)
        for row in rows:
            row.update(paired.get(row["method"], {}))
    return rows


def _paper():
    from venncal.experiments.paper_tables import load_paper_table

    return load_paper_table("naeini_2014_table2")


@study_run
def run(config: dict[str, Any], grid: Grid) -> StudyResult:
    """Run the panels and lay the results out as Table 2, with the paper's numbers beside."""
    keys = (
        "n_train",
        "n_cal",
        "n_test",
        "n_train_adult",
        "hist_strategy",
        "abb_averaging",
        "acp_adjustment",
        "acp_variants",
        "ceiling_samples",
        "base_seed",
    )
    cells = []
    for panel in config["panels"]:
        # SPECT's split is given and its classifiers are deterministic: one run
        n = 1 if panel.startswith("SPECT/") else config["n_repeats"]
        for r in range(n):
            cells.append(
                {"study": NAME, "panel": panel, "repeat": r, **{k: config[k] for k in keys}}
            )
    raw, wall_time = grid(cells, run_cell)
    mean = raw.groupby(["panel", "method"], sort=False)[list(METRICS)].mean()
    paper = _paper()
    present = with_acp_variants(METHODS, set(raw["method"]))

    tables = {}
    head: dict[str, dict[str, str]] = {}
    for panel in config["panels"]:
        if panel in FAMILY_PANELS:  # shown in the agreement tables only
            continue
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
                if metric == "ECE" and m != "ceiling":
                    key = f"({letter}) {dataset} {code}" if dataset not in _TITLES else panel
                    head.setdefault(key, {})[m] = row[m]
            rows[metric] = row
        title = _TITLES.get(dataset, f"Table 2({letter}): {dataset}, {code}, ours (paper)")
        tables[title] = pd.DataFrame.from_dict(rows, orient="index")[
            [m for m in present if any(m in r for r in rows.values())]
        ]
    headline = pd.DataFrame.from_dict(head, orient="index")[
        [m for m in present if any(m in r for r in head.values())]
    ]
    tables = {"ECE of every calibrator, ours (paper)": headline, **tables}
    agree_tables, agree_notes = _agreement(raw, paper, config)
    tables.update(agree_tables)
    real = real_cells(raw, paper)
    if len(real):
        tables["Agreement, Table 2(c)-(h): every printed cell of the real data"] = pd.DataFrame(
            {
                "cell": real["panel"] + " " + real["method"] + " " + real["metric"],
                "ours": real["ours"].map(fmt),
                "paper": real["paper"].map(fmt),
                "tolerance": real["tolerance"].map(fmt),
                "status": real["status"],
            }
        ).set_index("cell")

    # the paper's claims are checked on the central designs; the family has its own table
    checks = study_checks(raw[~raw["panel"].isin(FAMILY_PANELS)])
    checks.update(real_agreement_checks(real))
    checks = with_quick_margins(NAME, checks)

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
        f"Histogram binning: 10 bins, strategy `{config['hist_strategy']}` (`quantile` is "
        "Zadrozny & Elkan's equal-frequency binning, the paper's reference [11]). ABB: "
        f"`{config['abb_averaging']}` averaging (`exact` is eq. 7; `paper` is eq. 8 as "
        "printed). ACP: the logistic model's 95% Wald interval, adjustment "
        f"`{config['acp_adjustment']}` (`symmetric`: a bin of the interval's length centred on "
        "the prediction).",
        "XOR and Circular are designs chosen from the paper's description of the data and its "
        "uncalibrated LR row only (standard normal features; the signs' agreement, or a circle "
        "holding half the mass; one side stretched by a factor fitted to the LR row on separate "
        "draws; see venncal.experiments.studies._naeini_designs): every calibrator cell is held "
        "out. The sensitivity family (`XOR [...]`, `Circular [...]`) "
        "changes one design parameter at a time and gives each cell's band. "
        "`ceiling` is the ideal calibrator of the LR score, "
        "P(y = 1 | score) estimated from "
        f"{config['ceiling_samples']:,} fresh draws of the generator and scored on as many "
        "others: no calibrator of the score can do better, except by chance (ACP's bins also use "
        "each prediction's standard error, so it is not bound by it).",
        "Checks compare methods on the same draws: a claim holds when the mean paired "
        "difference exceeds two of its standard errors (over the draws stated in each line).",
        *agree_notes,
    ]
    notes.append(acp_variants_note(config))
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


def _agreement(raw, paper, config):
    """The agreement tables of the simulated panels and one summary note per panel."""
    tables, notes = {}, []
    for dataset, letter in (("XOR", "a"), ("Circular", "b")):
        if f"{dataset}/LR" not in config["panels"]:
            continue
        cells = agreement.cell_table(raw, paper, dataset, letter)
        n_designs = int(cells["n_designs"].max())
        tables[f"Agreement, Table 2({letter}) {dataset}: every cell, fitted or held out"] = (
            pd.DataFrame(
                {
                    "cell": cells["method"] + " " + cells["metric"],
                    "role": cells["role"],
                    "status": "not comparable (design unknown)",
                    "ours": cells["ours"].map(fmt),
                    "paper": cells["paper"].map(fmt),
                    "ours - paper": cells["diff"].map(lambda v: f"{v:+.3f}"),
                    "sd of one draw": cells["sd_draw"].map(fmt),
                    "se of our mean": cells["se_mean"].map(fmt),
                    f"band over {n_designs} designs": cells["band_low"].map(fmt)
                    + " to "
                    + cells["band_high"].map(fmt),
                }
            ).set_index("cell")
        )
        for role, s in agreement.summary(cells).items():
            notes.append(
                f"{dataset}, {role} cells ({s['cells']}): median |ours - paper| "
                f"{s['median |ours - paper|']:.3f}, {s[f'within {agreement.NEAR}']} within "
                f"{agreement.NEAR}; median spread of one draw {s['median sd of one draw']:.3f}, "
                f"of our mean {s['median se of our mean']:.3f}; the paper's value inside the "
                f"band of the {n_designs} designs in {s['paper inside the band']} of them."
            )
        concl = agreement.conclusions(raw, dataset)
        if len(concl):
            tables[f"Comparisons on every design, {dataset} (positive: the first is better)"] = (
                pd.DataFrame(
                    {
                        "comparison": concl["comparison"] + ", " + concl["metric"],
                        "central design": concl["central"].map(lambda v: f"{v:+.3f}")
                        + " +- "
                        + concl["central_2se"].map(fmt),
                        "band over the designs": concl["low"].map(lambda v: f"{v:+.3f}")
                        + " to "
                        + concl["high"].map(lambda v: f"{v:+.3f}"),
                        "holds (beyond 2 se) on": concl["holds"].astype(str)
                        + " of "
                        + concl["designs"].astype(str),
                    }
                ).set_index("comparison")
            )
    return tables, notes


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
                cal = cls(**_calibrator_kwargs(col, kwargs, config)).fit(s_cal, ycal)
                ax2.plot(grid, cal.predict_proba(grid)[:, 1], label=col)
            # the ideal calibrator of this score, P(y = 1 | score), from fresh draws
            model = _model(ds)
            Xbig, ybig = model.sample(50_000, random_state=np.random.default_rng(seed + 1))
            s_big = _score(clf, Xbig)
            order = np.argsort(s_big)
            groups = np.array_split(order, 100)
            ax2.plot(
                [s_big[g].mean() for g in groups],
                [ybig[g].mean() for g in groups],
                "k--",
                lw=1.2,
                label="P(y=1 | score) (ceiling)",
            )
        ax2.set_xlabel("logistic regression score")
        ax2.set_ylabel("calibrated probability")
        ax2.set_title("calibration maps learned on the calibration set")
        ax2.legend(fontsize=8)
        fig.tight_layout()
        figs[f"{ds.lower()}_calibration_maps"] = fig
    return figs
