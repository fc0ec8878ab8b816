"""The one fitted parameter of Naeini et al.'s simulated designs: the stretch that brings the
uncalibrated LR row closest to the paper's (the designs are in
:mod:`venncal.experiments.studies._naeini_designs`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.experiments.studies import naeini_2014
from venncal.experiments.studies._naeini_designs import (
    PAPER_LR_ROW,
    TUNING_SEEDS,
    DiscDesign,
    SignXorDesign,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["fit_stretch_to_lr_row"]


def fit_stretch_to_lr_row(
    dataset: str, stretches: Sequence[float], seeds: Iterable[int] = TUNING_SEEDS
) -> tuple[float, dict[float, Any]]:
    """The distance of each ``stretch`` from the paper's LR row, and the closest one.

    For each value, LR (standardised inputs, as in the study) is trained on 600 draws and
    scored on 600 others (of 1,800 per seed, split as in the study) for every seed; the
    distance is ``sum_m (mean_m - paper_m)^2 / var_m`` over the five metrics ``m``, with
    ``var_m`` the variance of one draw. Only the LR row enters: no calibrator is fitted.

    Parameters
    ----------
    dataset : {"XOR", "Circular"}
    stretches : sequence of float
    seeds : iterable of int, default=TUNING_SEEDS

    Returns
    -------
    best : float
        The value of ``stretches`` with the smallest distance.
    table : dict
        ``{stretch: (distance, {metric: mean})}``.
    """
    study: Any = naeini_2014  # its helpers are untyped
    paper = PAPER_LR_ROW[dataset]
    make = SignXorDesign if dataset == "XOR" else DiscDesign
    seeds = list(seeds)
    table = {}
    for k in stretches:
        rows = []
        for seed in seeds:
            X, y = make(stretch=float(k)).sample(1800, random_state=seed)
            idx = np.random.default_rng(seed).permutation(1800)
            train, test = idx[:600], idx[1200:]
            with study.quiet():
                clf = study._classifier("LR", dataset, seed).fit(X[train], y[train])
                rows.append(study._metrics(y[test], study._score(clf, X[test])))
        means = {m: float(np.mean([r[m] for r in rows])) for m in paper}
        var = {m: float(np.var([r[m] for r in rows], ddof=1)) for m in paper}
        distance = sum((means[m] - paper[m]) ** 2 / var[m] for m in paper)
        table[float(k)] = (float(distance), means)
    best = min(table, key=lambda k: table[k][0])
    return best, table
