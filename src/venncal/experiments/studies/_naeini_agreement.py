"""Agreement of the simulated panels with the paper, cell by cell, and across the design family.

Every cell of Table 2(a)-(b) (a metric of a method) is marked **fitted** when a number of it
chose the design, and **held out** otherwise. Only the uncalibrated LR row (``base``) informed
the designs (see :mod:`venncal.experiments.studies._naeini_designs`), so it is the fitted row
and every calibrator cell is held out, except Platt scaling's: a monotone map of the LR score
(the same AUC, its other metrics close to LR's), counted apart as "monotone map of the fitted
row" so that it does not inflate the held-out agreement. Each cell carries our mean over the draws of the central
design, the spread of one draw (the paper reports one run, so this is the yardstick for a
single published number), the standard error of our mean, and the band: the smallest and
largest mean of the cell over the sensitivity family of designs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from venncal.experiments.studies._naeini_designs import family_panels

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["FITTED_METHODS", "cell_table", "summary", "conclusions", "CLAIMS"]

#: the paper's rows that chose the designs: the uncalibrated logistic regression only
FITTED_METHODS = ("base",)
#: rows that are a monotone map of the fitted row (Platt scaling of the LR score: the same AUC,
#: the other metrics close to LR's), so they are not held out either and are counted apart
FOLLOWS_FITTED = ("Platt",)
#: how close counts as agreeing, in the summary
NEAR = 0.03
#: (method, rival): the paper's comparisons on the simulated data (section 4 and 5)
CLAIMS = (
    ("SBB", "IsoReg"),
    ("ABB", "IsoReg"),
    ("SBB", "Platt"),
    ("ABB", "Platt"),
    ("ABB", "SBB"),
    ("ABB", "Hist"),
    ("ABB", "ACP"),
)
#: metric -> +1 when higher is better, -1 when lower is better
_BETTER = {"AUC": 1, "Acc": 1, "RMSE": -1, "MCE": -1, "ECE": -1}


def _values(raw, panel, method, metric):
    sub = raw[(raw["panel"] == panel) & (raw["method"] == method)]
    return sub.set_index("repeat")[metric].astype(float)


def cell_table(
    raw: pd.DataFrame,
    paper: pd.DataFrame,
    dataset: str,
    letter: str,
    metrics: Sequence[str] = ("AUC", "Acc", "RMSE", "MCE", "ECE"),
) -> pd.DataFrame:
    """One row per cell of the paper's panel ``letter``, for our ``dataset`` and its family.

    Parameters
    ----------
    raw : DataFrame
        The study's tidy results (``panel``, ``repeat``, ``method`` and the metrics).
    paper : DataFrame
        The paper's Table 2 (``panel``, ``metric``, ``method``, ``value``).
    dataset : {"XOR", "Circular"}
    letter : {"a", "b"}

    Returns
    -------
    DataFrame
        Columns ``metric``, ``method``, ``role`` ("fitted" or "held out"), ``paper``, ``ours``,
        ``sd_draw``, ``se_mean``, ``n_draws``, ``diff`` (ours - paper), ``band_low``,
        ``band_high`` and ``n_designs``; a cell the run lacks has NaN values.
    """
    panels = list(family_panels(dataset))
    central = panels[0]
    pp = paper[paper["panel"] == letter]
    rows = []
    for metric in metrics:
        for method in pp[pp["metric"] == metric]["method"]:
            theirs = float(pp[(pp["metric"] == metric) & (pp["method"] == method)]["value"].iloc[0])
            v = _values(raw, central, method, metric)
            n = int(v.size)
            sd = float(v.std(ddof=1)) if n > 1 else np.nan
            means = [_values(raw, p, method, metric).mean() for p in panels]
            means = [m for m in means if np.isfinite(m)]
            ours = float(v.mean()) if n else np.nan
            rows.append(
                {
                    "metric": metric,
                    "method": method,
                    "role": (
                        "fitted"
                        if method in FITTED_METHODS
                        else "monotone map of the fitted row"
                        if method in FOLLOWS_FITTED
                        else "held out"
                    ),
                    "paper": theirs,
                    "ours": ours,
                    "sd_draw": sd,
                    "se_mean": sd / np.sqrt(n) if n > 1 else np.nan,
                    "n_draws": n,
                    "diff": ours - theirs,
                    "band_low": min(means) if means else np.nan,
                    "band_high": max(means) if means else np.nan,
                    "n_designs": len(means),
                }
            )
    return pd.DataFrame(rows)


def summary(table: pd.DataFrame, near: float = NEAR) -> dict[str, dict[str, float | int]]:
    """Per role: number of cells, median ``|ours - paper|``, how many within ``near``, the median
    spread of one draw and of our mean, and how many paper values fall inside the band."""
    out = {}
    for role, sub in table.groupby("role", sort=False):
        sub = sub[np.isfinite(sub["ours"])]
        if not len(sub):
            continue
        gap = sub["diff"].abs()
        inside = (sub["band_low"] - 1e-12 <= sub["paper"]) & (
            sub["paper"] <= sub["band_high"] + 1e-12
        )
        out[role] = {
            "cells": int(len(sub)),
            "median |ours - paper|": float(gap.median()),
            f"within {near}": int((gap <= near).sum()),
            "median sd of one draw": float(sub["sd_draw"].median()),
            "median se of our mean": float(sub["se_mean"].median()),
            "paper inside the band": int(inside.sum()),
        }
    return out


def _paired(raw, panel, method, rival, metric):
    a = _values(raw, panel, method, metric)
    b = _values(raw, panel, rival, metric)
    common = a.index.intersection(b.index)
    d = (a[common] - b[common]).to_numpy(dtype=float)
    if d.size < 2:
        return (float(d.mean()) if d.size else np.nan), np.inf
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))


def conclusions(
    raw: pd.DataFrame,
    dataset: str,
    metrics: Sequence[str] = ("AUC", "RMSE", "ECE"),
    claims: Sequence[tuple[str, str]] = CLAIMS,
) -> pd.DataFrame:
    """Which of the paper's comparisons hold on every design of the family.

    For each ``(method, rival)`` and metric, the mean paired difference (``method - rival``,
    signed so that positive means ``method`` is better) on each design with two standard
    errors; a comparison *holds on a design* when the difference exceeds its two standard
    errors.

    Returns
    -------
    DataFrame
        Columns ``comparison``, ``metric``, ``central`` (difference on the central design),
        ``central_2se``, ``low``, ``high`` (smallest and largest difference over the family),
        ``holds`` (designs on which it holds) and ``designs``.
    """
    panels = list(family_panels(dataset))
    present = set(raw["panel"])
    panels = [p for p in panels if p in present]
    rows = []
    for method, rival in claims:
        for metric in metrics:
            sign = _BETTER[metric]
            diffs = []
            for p in panels:
                d, se = _paired(raw, p, method, rival, metric)
                diffs.append((sign * d, 2 * se))
            finite = [d for d, _ in diffs if np.isfinite(d)]
            if not finite:
                continue
            rows.append(
                {
                    "comparison": f"{method} better than {rival}",
                    "metric": metric,
                    "central": diffs[0][0],
                    "central_2se": diffs[0][1],
                    "low": min(finite),
                    "high": max(finite),
                    "holds": sum(int(d > m) for d, m in diffs),
                    "designs": len(diffs),
                }
            )
    return pd.DataFrame(rows)
