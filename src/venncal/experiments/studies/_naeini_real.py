"""Naeini, Cooper & Hauskrecht on the real data: every printed number of Table 2(c)-(h) against
ours, and DeLong's paired comparison of AUCs on SPECT's given split.

**Agreement.** Adult (panels c-e): the paper reports one run of each method, so a published
number is one draw; the tolerance is our replicate spread of one draw about our mean,
``2 sqrt(sd**2 + sd**2 / n)`` over our ``n`` draws, plus 0.0005 for the paper's rounding.
SPECT (panels f-h) is one given split, so there is no replicate spread: its AUCs are compared
within two DeLong standard errors of our AUC (the sampling uncertainty of an AUC on SPECT's 187
test objects), and its other metrics are not comparable. The simulated panels (a, b) are not
comparable cell by cell: the paper does not give the designs (see
:mod:`venncal.experiments.studies._naeini_agreement`). Each (panel, metric) row gets a
three-way check (:mod:`venncal.experiments.agreement`).

**Paired AUCs.** On SPECT every method scores the same test objects, so two methods' AUCs are
compared with the standard error of their difference (DeLong, DeLong & Clarke-Pearson 1988),
which is far smaller than the unpaired one when the two scores rank alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from venncal.experiments.agreement import block_check, block_words, cell_status

if TYPE_CHECKING:
    from collections.abc import Mapping

    from numpy.typing import ArrayLike

    from venncal.experiments.claims import Check

__all__ = ["delong", "paired_auc_columns", "real_cells", "agreement_checks", "RIVALS"]

#: the rivals every SPECT method is paired with
RIVALS = ("base", "IsoReg", "Platt")
#: real panels -> the paper's panel letter
_LETTERS = {
    "Adult/NB": "c",
    "Adult/SVM": "d",
    "Adult/LR": "e",
    "SPECT/NB": "f",
    "SPECT/SVM": "g",
    "SPECT/LR": "h",
}
ROUNDING = 0.0005


def _placements(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's structural components: V10 over the positives, V01 over the negatives."""
    pos, neg = s[y == 1], s[y == 0]
    m, n = pos.size, neg.size
    r_all = rankdata(np.concatenate([pos, neg]))
    v10 = (r_all[:m] - rankdata(pos)) / n
    v01 = 1.0 - (r_all[m:] - rankdata(neg)) / m
    return v10, v01


def delong(
    y_true: ArrayLike, scores: Mapping[str, ArrayLike]
) -> tuple[dict[str, float], np.ndarray]:
    """AUCs of several scores of the same objects and the covariance matrix of their estimates.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 labels.
    scores : mapping of str -> array-like of shape (n,)

    Returns
    -------
    aucs : dict of str -> float
    cov : ndarray of shape (k, k)
        DeLong's covariance of the AUCs, in the order of ``scores``.

    Examples
    --------
    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> aucs, cov = delong(y, {"a": [0.1, 0.4, 0.35, 0.8, 0.2, 0.9], "b": y * 1.0})
    >>> round(aucs["a"], 4), float(cov[1, 1])
    (0.8889, 0.0)
    """
    y = np.asarray(y_true).astype(int)
    names = list(scores)
    v10, v01 = [], []
    for name in names:
        a, b = _placements(y, np.asarray(scores[name], dtype=float))
        v10.append(a)
        v01.append(b)
    V10, V01 = np.array(v10), np.array(v01)
    m, n = V10.shape[1], V01.shape[1]
    cov = np.atleast_2d(np.cov(V10)) / m + np.atleast_2d(np.cov(V01)) / n
    return {k: float(V10[i].mean()) for i, k in enumerate(names)}, cov


def paired_auc_columns(
    y_true: ArrayLike, scores: Mapping[str, ArrayLike]
) -> dict[str, dict[str, float]]:
    """For each method: its DeLong standard error and that of its difference with each rival.

    Returns ``{method: {"auc_se": ..., "auc_se_vs_base": ..., ...}}`` (NaN for a missing
    rival).
    """
    aucs, cov = delong(y_true, scores)
    names = list(scores)
    out = {}
    for i, m in enumerate(names):
        row = {"auc_se": float(np.sqrt(cov[i, i]))}
        for r in RIVALS:
            if r in names:
                j = names.index(r)
                var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
                row[f"auc_se_vs_{r}"] = float(np.sqrt(max(var, 0.0)))
            else:
                row[f"auc_se_vs_{r}"] = float("nan")
        out[m] = row
    return out


def real_cells(raw: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """One row per printed cell of Table 2(c)-(h): ours, the paper's, the tolerance, the status.

    Returns
    -------
    DataFrame
        Columns ``panel``, ``letter``, ``metric``, ``method``, ``ours``, ``paper``, ``n_draws``,
        ``tolerance``, ``basis`` and ``status``.
    """
    rows = []
    present = set(raw["panel"])
    for panel, letter in _LETTERS.items():
        if panel not in present:
            continue
        sub = raw[raw["panel"] == panel]
        pp = paper[paper["panel"] == letter]
        for _, cell in pp.iterrows():
            metric, method = cell["metric"], cell["method"]
            if metric not in sub.columns:
                continue
            v = sub.loc[sub["method"] == method, metric].astype(float)
            n = int(v.size)
            ours = float(v.mean()) if n else np.nan
            if panel.startswith("Adult/"):
                sd = float(v.std(ddof=1)) if n > 1 else np.nan
                tol = 2 * np.sqrt(sd**2 + sd**2 / n) + ROUNDING if n > 1 else np.nan
                basis = f"replicate spread of one draw ({n} draws)"
            elif metric == "AUC" and "auc_se" in sub.columns:
                se = sub.loc[sub["method"] == method, "auc_se"].astype(float)
                tol = 2 * float(se.iloc[0]) + ROUNDING if len(se) else np.nan
                basis = "2 DeLong standard errors (one given split)"
            else:
                tol = np.nan
                basis = "not comparable: one given split, no replicate spread"
            rows.append(
                {
                    "panel": panel,
                    "letter": letter,
                    "metric": metric,
                    "method": method,
                    "ours": ours,
                    "paper": float(cell["value"]),
                    "n_draws": n,
                    "tolerance": tol,
                    "basis": basis,
                }
            )
    out = pd.DataFrame(rows)
    if len(out):
        out["status"] = cell_status(out["ours"], out["paper"], out["tolerance"])
    return out


def agreement_checks(cells: pd.DataFrame) -> dict[str, Check]:
    """A three-way check per (panel, metric) row of Table 2(c)-(h) that has comparable cells."""
    checks: dict[str, Check] = {}
    if not len(cells):
        return checks
    for (panel, metric), g in cells.groupby(["panel", "metric"], sort=False):
        if (g["status"] == "not comparable").all():
            continue
        letter = g["letter"].iloc[0]
        detail = ", ".join(
            f"{m} {o:.3f} ({p:.3f})"
            for m, o, p in zip(g["method"], g["ours"], g["paper"], strict=True)
        )
        checks[
            f"Ours reproduces the paper's Table 2({letter}) {panel} {metric} row: "
            f"{block_words(g['status'])}; ours (paper): {detail}; tolerance "
            f"{g['basis'].iloc[0]}"
        ] = block_check(g["status"])
    return checks
