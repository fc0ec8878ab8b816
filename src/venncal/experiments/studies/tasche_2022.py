"""Tasche, "Calibrating sufficiently", section 5.2 and Figure 2: Brier curves and grouping loss.

Two classes with bivariate normal features sharing one covariance matrix with positively
correlated components (:func:`venncal.datasets.make_bivariate_normal`). Four probability
estimates are compared, as in Figure 2:

* the true posterior ``eta(x)`` (both components and their correlation);
* the partial posterior ``P(Y = 1 | x1)``, calibrated but blind to ``x2``;
* the naive-Bayes score: the posterior formula with the correlation set to zero (miscalibrated);
* the naive-Bayes score recalibrated exactly, ``P(Y = 1 | naive-Bayes score)``.

Because the model is known, the Brier score of each estimate ``p`` splits exactly (Tasche,
Proposition 2.4) into the irreducible loss ``BS(eta)``, the grouping loss
``BS(c(p)) - BS(eta)`` and the calibration loss ``BS(p) - BS(c(p))``, where ``c(p) =
P(Y = 1 | p)`` is the true calibration map. The area under each Brier curve is half the Brier
score (Definition 5.1); the gap between a curve and the true posterior's is half that estimate's
excess loss. The calibration loss is also estimated from the sample alone by isotonic
recalibration (:func:`venncal.metrics.corp_decomposition`), as a user without the model would.
"""

from __future__ import annotations

import numpy as np

from venncal.experiments.report import StudyResult
from venncal.experiments.runner import cell_seed
from venncal.experiments.studies._common import run_cells

NAME = "tasche-2022"
TITLE = "Tasche (2022), Calibrating sufficiently: Brier curves and grouping loss (Figure 2)"

ESTIMATES = {
    "true posterior": "posterior",
    "partial posterior (x1 only)": "partial_posterior",
    "naive Bayes score": "naive_bayes_score",
    "naive Bayes, recalibrated": "naive_bayes_recalibrated",
}
#: the true calibration map c(p) of each estimate, as a method of the model
CALIBRATED = {
    "true posterior": "posterior",
    "partial posterior (x1 only)": "partial_posterior",
    "naive Bayes score": "naive_bayes_recalibrated",
    "naive Bayes, recalibrated": "naive_bayes_recalibrated",
}


def default_config(mode="quick"):
    """Quick: 5 samples of 20,000; full: 20 samples of 200,000 (the model's default parameters)."""
    if mode == "full":
        return {"mode": mode, "n_samples": 200_000, "n_repeats": 20, "base_seed": 0}
    return {"mode": mode, "n_samples": 20_000, "n_repeats": 5, "base_seed": 0}


def _estimates(n_samples, seed):
    from venncal.datasets import make_bivariate_normal

    ds = make_bivariate_normal(n_samples, random_state=seed)
    model = ds.meta["model"]
    probs = {name: getattr(model, attr)(ds.X) for name, attr in ESTIMATES.items()}
    calib = {name: getattr(model, attr)(ds.X) for name, attr in CALIBRATED.items()}
    return np.asarray(ds.y), probs, calib


def run_cell(cell):
    """One sample: Brier score, Brier-curve area and the exact and estimated loss components."""
    from venncal.metrics import brier_curve, brier_score, corp_decomposition

    seed = cell_seed({"repeat": cell["repeat"], "n": cell["n_samples"]}, cell["base_seed"])
    y, probs, calib = _estimates(cell["n_samples"], seed)
    irreducible = brier_score(y, probs["true posterior"])
    rows = []
    for name, p in probs.items():
        bs = brier_score(y, p)
        bs_cal = brier_score(y, calib[name])
        curve = brier_curve(y, p, recalibrate=False)
        corp = corp_decomposition(y, p)
        rows.append(
            {
                "estimate": name,
                "brier": bs,
                "curve_area": curve.area,
                "irreducible": irreducible,
                "grouping_loss": bs_cal - irreducible,
                "calibration_loss": bs - bs_cal,
                "calibration_loss_isotonic": float(corp.calibration_loss),
            }
        )
    return rows


def _figure(config):
    from matplotlib.figure import Figure

    from venncal.plotting import BrierCurveDisplay

    seed = cell_seed({"repeat": 0, "n": config["n_samples"]}, config["base_seed"])
    y, probs, _ = _estimates(config["n_samples"], seed)
    fig = Figure(figsize=(7, 4.5))
    ax = fig.subplots()
    BrierCurveDisplay.from_predictions(y, probs, ax=ax)
    ax.set_title("Brier curves (Tasche, Figure 2): area = Brier score / 2")
    fig.tight_layout()
    return fig


def run(config, *, out_csv=None, n_jobs=1, backend="loky", scheduler=None, progress=True):
    """Run the study: one cell per sample, tables of the loss components, Figure 2."""
    cells = [
        {
            "study": NAME,
            "repeat": r,
            "n_samples": config["n_samples"],
            "base_seed": config["base_seed"],
        }
        for r in range(config["n_repeats"])
    ]
    raw, wall_time = run_cells(
        cells,
        run_cell,
        out_csv=out_csv,
        n_jobs=n_jobs,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    cols = [
        "brier",
        "curve_area",
        "irreducible",
        "grouping_loss",
        "calibration_loss",
        "calibration_loss_isotonic",
    ]
    table = raw.groupby("estimate", sort=False)[cols].mean().reindex(list(ESTIMATES))
    table.columns = [
        "Brier score",
        "area under Brier curve",
        "irreducible loss",
        "grouping loss",
        "calibration loss",
        "calibration loss (isotonic estimate)",
    ]
    sd = raw.groupby("estimate", sort=False)["brier"].std().reindex(list(ESTIMATES))

    t = table
    tol = 3 * float(sd.max() if np.isfinite(sd.max()) else 0.0) + 1e-3
    checks = {
        "area under every Brier curve equals half its Brier score": bool(
            np.allclose(raw["curve_area"], raw["brier"] / 2, atol=1e-12)
        ),
        "the true posterior has the lowest Brier score": bool(
            t["Brier score"].idxmin() == "true posterior"
        ),
        "the partial posterior is calibrated: its loss is grouping loss": bool(
            abs(t.loc["partial posterior (x1 only)", "calibration loss"]) < 1e-12
            and t.loc["partial posterior (x1 only)", "grouping loss"] > tol
        ),
        "the naive-Bayes score has both calibration and grouping loss": bool(
            t.loc["naive Bayes score", "calibration loss"] > 0
            and t.loc["naive Bayes score", "grouping loss"] > 0
        ),
        "recalibrating naive Bayes removes its calibration loss, not its grouping loss": bool(
            t.loc["naive Bayes, recalibrated", "Brier score"]
            < t.loc["naive Bayes score", "Brier score"]
            and t.loc["naive Bayes, recalibrated", "grouping loss"] > 0
        ),
    }
    notes = [
        "Model: classes with means (0, 0) and (1, 1.5), unit variances, correlation 0.5, equal "
        "priors (the paper does not print its parameters; these are our choice). "
        "Losses are means over the samples; the exact components use the known posterior.",
        "The isotonic estimate of the calibration loss needs no model: it is what a user can "
        "measure, and it is close to the exact value for every estimate except where it fits "
        "sample noise (it is slightly positive even for calibrated estimates).",
    ]
    return StudyResult(
        name=NAME,
        title=TITLE,
        mode=config["mode"],
        tables={"Brier score decomposition (means over samples)": table},
        figures={"brier_curves": _figure(config)},
        notes=notes,
        raw=raw,
        config={k: v for k, v in config.items() if k != "mode"},
        wall_time=wall_time,
        checks=checks,
        digits=4,
    )
