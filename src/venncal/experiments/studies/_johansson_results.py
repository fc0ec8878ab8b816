"""Every check of Johansson et al.'s study recomputed from its tidy results (quick mode's
calibration reads them): the study's interval and accuracy checks and the text claims of
:mod:`venncal.experiments.studies._johansson_checks`."""

from __future__ import annotations

from typing import Any

import pandas as pd

from venncal.experiments.claims import Check
from venncal.experiments.studies import johansson_2018
from venncal.experiments.studies._johansson_checks import text_checks

__all__ = ["checks_from_results"]


def checks_from_results(raw: pd.DataFrame, n_sim: int = 100) -> dict[str, Check]:
    """Every check of the study recomputed from its tidy results (one row per dataset,
    repetition and setup): the intervals, the accuracies and :func:`text_checks`."""
    study: Any = johansson_2018

    metrics = ["accuracy", "lower", "upper", "interval_size"]
    per_ds = raw.groupby(["dataset", "setup"], sort=False)[metrics].mean()
    datasets = list(dict.fromkeys(raw["dataset"]))
    n_objects = raw.groupby("dataset")["n_objects"].first().reindex(datasets)

    def wide(metric: str) -> pd.DataFrame:
        return per_ds[metric].unstack("setup").reindex(index=datasets)

    per_setup = {
        s: pd.DataFrame(
            {
                "lower": wide("lower")[s],
                "upper": wide("upper")[s],
                "accuracy": wide("accuracy")[s],
                "interval_size": wide("interval_size")[s],
                "n_objects": n_objects,
            }
        )
        for s in study.VENN_SETUPS
        if s in set(raw["setup"])
    }
    n_repeats = int(raw["repeat"].nunique())
    n_folds = int(raw["n_folds"].iloc[0]) if "n_folds" in raw.columns else 10
    checks, _ = study.interval_checks(
        per_setup, n_folds=n_folds, n_repeats=n_repeats, n_sim=n_sim, seed=0
    )
    checks.update(study.accuracy_checks(wide("accuracy")))
    checks.update(text_checks(raw))
    return dict(checks)
