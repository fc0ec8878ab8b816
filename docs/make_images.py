"""Draw the example images of the README into docs/images/.

Run from the repository root: ``python docs/make_images.py``. Deterministic (fixed seeds);
takes about a minute on two cores.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402

import venncal  # noqa: E402
from venncal import metrics  # noqa: E402
from venncal.datasets import list_datasets, load_dataset, make_bivariate_normal  # noqa: E402
from venncal.metrics.ranking import (  # noqa: E402
    average_ranks,
    friedman_test,
    nemenyi_critical_difference,
)
from venncal.plotting import (  # noqa: E402
    BrierCurveDisplay,
    CriticalDifferenceDisplay,
    PITDisplay,
    PredictiveBandDisplay,
    ReliabilityDisplay,
    SmoothReliabilityDisplay,
    VennIntervalDisplay,
)

OUT = Path(__file__).resolve().parent / "images"


def _naive_bayes_on_adult(cal_size, seed=0):
    data = load_dataset("adult")
    X_train, X_rest, y_train, y_rest = train_test_split(
        data.X, data.y, test_size=0.5, random_state=seed, stratify=data.y
    )
    X_cal, X_test, y_cal, y_test = train_test_split(
        X_rest, y_rest, train_size=cal_size, random_state=seed, stratify=y_rest
    )
    model = GaussianNB().fit(X_train, y_train)
    return model.predict_proba(X_cal)[:, 1], y_cal, model.predict_proba(X_test)[:, 1], y_test


def _before_and_after_venn_abers(display, filename):
    """``display`` of naive Bayes on Adult, beside that of its Venn-Abers calibration."""
    s_cal, y_cal, s_test, y_test = _naive_bayes_on_adult(cal_size=5000)
    va = venncal.VennAbersCalibrator().fit(s_cal, y_cal)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), constrained_layout=True)
    display.from_predictions(y_test, s_test, name="Gaussian naive Bayes", ax=axes[0])
    display.from_predictions(
        y_test, va.predict_proba(s_test)[:, 1], name="+ Venn-Abers", ax=axes[1]
    )
    axes[0].set_title("Adult: raw naive Bayes probabilities")
    axes[1].set_title("after inductive Venn-Abers calibration (5,000 examples)")
    fig.savefig(OUT / filename, dpi=110)


def reliability():
    _before_and_after_venn_abers(ReliabilityDisplay, "reliability.png")


def smooth_reliability():
    _before_and_after_venn_abers(SmoothReliabilityDisplay, "smooth_reliability.png")


def venn_intervals():
    s_cal, y_cal, s_test, y_test = _naive_bayes_on_adult(cal_size=1000)
    va = venncal.VennAbersCalibrator().fit(s_cal, y_cal)
    p0, p1 = va.predict_interval(s_test).T
    fig, ax = plt.subplots(figsize=(5.6, 4.8), constrained_layout=True)
    VennIntervalDisplay.from_predictions(
        y_test, p0, p1, n_bins=10, name="Venn-Abers, 1,000 calibration examples", ax=ax
    )
    fig.savefig(OUT / "venn_intervals.png", dpi=110)


def brier_curves():
    data = make_bivariate_normal(50_000, random_state=0)
    model = data.meta["model"]
    preds = {
        "posterior P(Y=1 | X1, X2)": model.posterior(data.X),
        "partial posterior P(Y=1 | X1)": model.partial_posterior(data.X),
        "naive Bayes score": model.naive_bayes_score(data.X),
        "naive Bayes, recalibrated": model.naive_bayes_recalibrated(data.X),
    }
    fig, ax = plt.subplots(figsize=(7, 4.8), constrained_layout=True)
    disp = BrierCurveDisplay.from_predictions(data.y, preds, ax=ax)
    styles = ["-", "-.", "--", ":"]
    for line, style in zip(disp.lines_.values(), styles, strict=True):
        line.set_linestyle(style)
        line.set_linewidth(1.8)
    ax.legend(loc="upper center", fontsize="small", ncols=2)
    ax.set_title("Brier curves for the bivariate normal model of Tasche, Section 5.2")
    fig.savefig(OUT / "brier_curves.png", dpi=110)


def critical_difference():
    names = [n for n in list_datasets()["name"] if n.startswith("lofstrom_ce/")]
    methods = ["naive Bayes", "Platt", "isotonic", "Venn-Abers"]
    rows = []
    for name in names:
        data = load_dataset(name)
        X_fit, X_test, y_fit, y_test = train_test_split(
            data.X, data.y, test_size=1 / 3, random_state=0, stratify=data.y
        )
        X_train, X_cal, y_train, y_cal = train_test_split(
            X_fit, y_fit, test_size=1 / 3, random_state=0, stratify=y_fit
        )
        model = GaussianNB().fit(X_train, y_train)
        s_cal, s_test = model.predict_proba(X_cal)[:, 1], model.predict_proba(X_test)[:, 1]
        row = [metrics.brier_score(y_test, s_test)]
        for cal in (
            venncal.PlattCalibrator(),
            venncal.IsotonicCalibrator(),
            venncal.VennAbersCalibrator(),
        ):
            p = cal.fit(s_cal, y_cal).predict_proba(s_test)[:, 1]
            row.append(metrics.brier_score(y_test, p))
        rows.append(row)
    table = np.asarray(rows)
    ranks = dict(zip(methods, average_ranks(table), strict=True))
    cd = nemenyi_critical_difference(len(methods), len(names), 0.05)
    friedman = friedman_test(table, names=methods)
    fig, ax = plt.subplots(figsize=(7, 2.6), constrained_layout=True)
    CriticalDifferenceDisplay.from_ranks(ranks, cd, ax=ax)
    pvalue = getattr(friedman, "pvalue", None)
    note = f", Friedman p = {pvalue:.2g}" if pvalue is not None else ""
    ax.set_title(
        f"Brier score of Gaussian naive Bayes and three calibrators on {len(names)} data sets"
        f"\n(Nemenyi, alpha = 0.05{note})",
        fontsize="medium",
    )
    fig.savefig(OUT / "critical_difference.png", dpi=110)


def predictive_distributions():
    """CDF bands and the PIT histogram on the heteroscedastic simulation of the regression
    guide (prediction f + N(0, 0.1), 3,000 calibration and 2,000 test rows)."""
    rng = np.random.default_rng(0)

    def simulate(n):
        x = rng.uniform(-2, 2, n)
        f = np.sin(2 * x) + x
        return f + rng.normal(0, 0.1, n), f + rng.normal(size=n) * (0.2 + 0.3 * np.abs(x))

    pred_cal, y_cal = simulate(3000)
    pred_test, y_test = simulate(2000)
    vad = venncal.VennAbersDistribution().fit(pred_cal, y_cal)
    small = venncal.VennAbersDistribution().fit(pred_cal[:300], y_cal[:300])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), constrained_layout=True)
    PredictiveBandDisplay.from_distribution(
        small, pred_test[:3], y_true=y_test[:3], thresholds=np.linspace(-4, 4, 801), ax=axes[0]
    )
    axes[0].set_title("bands [F0, F1] and merged CDFs, 300 calibration rows")
    PITDisplay.from_distribution(
        vad, pred_test, y_test, n_bins=20, random_state=0, name="Venn-Abers", ax=axes[1]
    )
    axes[1].set_title("PIT histogram, 2,000 test objects")
    fig.savefig(OUT / "regression.png", dpi=110)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for draw in (
        reliability,
        smooth_reliability,
        venn_intervals,
        brier_curves,
        critical_difference,
        predictive_distributions,
    ):
        draw()
        plt.close("all")
        print(f"drew {draw.__name__}")


if __name__ == "__main__":
    main()
