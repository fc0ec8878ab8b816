"""Vovk & Petej (2014): our mean losses against the numbers of the paper's Tables 1-2.

Every cell of Table 1 (log loss) and Table 2 (RMSE) that the text conversion kept (216 cells
each, less the 27 and 36 lost rows of the lower halves, see ``paper_tables/README.md``) is
compared with our mean over splits. The paper's number is itself a mean over 100 random splits
(16 for VA, section 5), and gives no uncertainty, so the tolerance is our replicate spread: two
standard errors of the difference of two such means, ``2 sd sqrt(1/n_paper + 1/n_ours)`` with
``sd`` our split-to-split standard deviation, plus 0.0005 for the paper's rounding to three
decimals. Two infinite losses agree; an infinite loss against a finite one differs.

Each (table, method) column block gets a three-way check (:mod:`venncal.experiments.agreement`),
so a uniform shift of every loss away from the paper's is contradicted.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from venncal.experiments.agreement import block_check, block_words, cell_status
from venncal.experiments.claims import Check

__all__ = ["agreement_table", "agreement_checks", "PAPER_SPLITS"]

#: how many splits the paper averages per method (section 5)
PAPER_SPLITS = {"W": 100, "VA": 16, "SVA": 100, "DIR": 100}
#: loss column -> (paper table, words)
_TABLES = {
    "log_loss": ("vovk_petej_2014_table1", "Table 1 (log loss)"),
    "rmse": ("vovk_petej_2014_table2", "Table 2 (RMSE)"),
}
#: half a unit of the paper's last printed decimal
ROUNDING = 0.0005


def agreement_table(raw: pd.DataFrame) -> pd.DataFrame:
    """One row per cell of Tables 1-2: ours, the paper's, the tolerance and the status.

    Parameters
    ----------
    raw : DataFrame
        The study's tidy results: ``dataset``, ``classifier``, ``method``, ``split``,
        ``log_loss`` and ``rmse``, one row per split.

    Returns
    -------
    DataFrame
        Columns ``loss``, ``dataset``, ``classifier``, ``method``, ``ours``, ``sd``,
        ``n_splits``, ``paper``, ``tolerance`` and ``status``.
    """
    from venncal.experiments.paper_tables import load_paper_table

    sub = raw[raw["method"].isin(list(PAPER_SPLITS))]
    out = []
    for loss, (name, _) in _TABLES.items():
        g = sub.groupby(["dataset", "classifier", "method"], sort=False)[loss]
        with np.errstate(invalid="ignore"):
            t = pd.DataFrame({"ours": g.mean(), "sd": g.std(ddof=1), "n_splits": g.size()})
        t = t.reset_index()
        paper = load_paper_table(name).rename(columns={loss: "paper"})
        t = t.merge(paper, on=["dataset", "classifier", "method"], how="left")
        n_paper = t["method"].map(PAPER_SPLITS).astype(float)
        tol = 2 * t["sd"] * np.sqrt(1 / n_paper + 1 / t["n_splits"]) + ROUNDING
        infinite = np.isinf(t["ours"]) | np.isinf(t["paper"])
        t["tolerance"] = np.where(infinite, 0.0, tol)
        t["status"] = cell_status(t["ours"], t["paper"], t["tolerance"])
        t.insert(0, "loss", loss)
        out.append(t)
    return pd.concat(out, ignore_index=True)


def agreement_checks(raw: pd.DataFrame) -> dict[str, Check]:
    """A three-way check per (table, method): do our losses reproduce the paper's column?

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rows = [{"dataset": "Australian", "classifier": "LR", "method": "VA", "split": s,
    ...          "log_loss": 0.340 + 0.01 * rng.standard_normal(), "rmse": 0.319}
    ...         for s in range(16)]
    >>> checks = agreement_checks(pd.DataFrame(rows))
    >>> [bool(c) for c in checks.values()]
    [True, True]
    """
    table = agreement_table(raw)
    checks: dict[str, Check] = {}
    for loss, (_, words) in _TABLES.items():
        for method in PAPER_SPLITS:
            cells = table[(table["loss"] == loss) & (table["method"] == method)]
            if not len(cells):
                continue
            n_ours = int(cells["n_splits"].max())
            checks[
                f"Ours reproduces the paper's {words}, method {method}: "
                f"{block_words(cells['status'])}; tolerance 2 standard errors of the "
                f"difference of the paper's mean over {PAPER_SPLITS[method]} splits and ours "
                f"over {n_ours}, plus {ROUNDING} for rounding"
            ] = block_check(cells["status"])
    return checks


#: section 5, on Table 3 (best classifier per method): loss -> statement -> the paper's count of
#: the 9 datasets
PAPER_COUNTS = {
    "log_loss": {"VA or SVA is the best method": 8, "VA is the best method": 4,
                 "SVA is the best method": 4, "SVA beats W": 7, "VA beats W": 6},
    "rmse": {"VA or SVA is the best method": 6, "VA is the best method": 3,
             "SVA is the best method": 3, "SVA beats W": 5, "VA beats W": 5},
}  # fmt: skip
_COUNT_METHODS = ("W", "VA", "SVA", "DIR")


def _cube(raw: pd.DataFrame, loss: str) -> tuple[dict[str, np.ndarray], list[str]]:
    """Per-split losses as {method: array (dataset, classifier, split)} and the axes."""
    sub = raw[raw["method"].isin(_COUNT_METHODS)]
    datasets = list(dict.fromkeys(sub["dataset"]))
    classifiers = list(dict.fromkeys(sub["classifier"]))
    cube = {}
    for m in _COUNT_METHODS:
        t = sub[sub["method"] == m].pivot_table(
            index=["dataset", "classifier"], columns="split", values=loss, aggfunc="first"
        )
        if not len(t):
            continue
        idx = pd.MultiIndex.from_product([datasets, classifiers])
        a = t.reindex(idx).to_numpy(float).reshape(len(datasets), len(classifiers), -1)
        cube[m] = a
    return cube, datasets


def _means(a: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted means over the split axis for each row of ``weights`` (B, n_splits), shape
    (B, dataset, classifier); a drawn split with an infinite loss makes the mean infinite, as
    in the paper's averages, and a cell without splits is NaN."""
    present = ~np.isnan(a)
    finite = np.where(np.isfinite(a), a, 0.0)
    total = np.tensordot(present.astype(float), weights, axes=([-1], [1]))
    s = np.tensordot(finite, weights, axes=([-1], [1]))
    inf = np.tensordot(np.isinf(a).astype(float), weights, axes=([-1], [1])) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.where(inf, np.inf, np.where(total > 0, s / total, np.nan))
    return np.moveaxis(m, -1, 0)


def _counts(best: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The statements' counts from the best loss per (replicate, dataset) of each method."""
    out = {}
    if {"VA", "SVA", "W", "DIR"} <= set(best):
        stack = np.stack([best[m] for m in _COUNT_METHODS], axis=-1)
        winner = np.argmin(np.where(np.isnan(stack), np.inf, stack), axis=-1)
        va, sva = _COUNT_METHODS.index("VA"), _COUNT_METHODS.index("SVA")
        out["VA or SVA is the best method"] = ((winner == va) | (winner == sva)).sum(axis=-1)
        out["VA is the best method"] = (winner == va).sum(axis=-1)
        out["SVA is the best method"] = (winner == sva).sum(axis=-1)
    for m in ("SVA", "VA"):
        if m in best and "W" in best:
            out[f"{m} beats W"] = (best[m] < best["W"]).sum(axis=-1)
    return out


def count_checks(raw: pd.DataFrame, n_boot: int = 400, seed: int = 0) -> dict[str, Check]:
    """The counts of section 5 (Table 3's basis), ours against the paper's, with their noise.

    Each method's loss on a dataset is that of its best classifier (as in Table 3). Our count is
    resampled ``n_boot`` times over the splits (W, SVA and DIR share theirs, VA has its own):
    the paper's count is **contradicted** when fewer than 2.5% of the resampled counts reach it
    (on its side of ours), **confirmed** when ours equals it, and **inconclusive** otherwise.

    Examples
    --------
    >>> rows = [{"dataset": d, "classifier": "LR", "method": m, "split": s,
    ...          "log_loss": {"W": 0.5, "VA": 0.4, "SVA": 0.41, "DIR": np.inf}[m], "rmse": 0.3}
    ...         for d in "abcdefghi" for m in ("W", "VA", "SVA", "DIR") for s in range(3)]
    >>> checks = count_checks(pd.DataFrame(rows), n_boot=20)
    >>> next(iter(checks))[:78]
    "Section 5, log loss: VA or SVA is the best method on 9 of 9 datasets (paper's "
    """
    rng = np.random.default_rng(seed)
    checks: dict[str, Check] = {}
    for loss, statements in PAPER_COUNTS.items():
        cube, datasets = _cube(raw, loss)
        if not cube:
            continue
        best_obs, best_boot = {}, {}
        for m, a in cube.items():
            n = a.shape[-1]
            ones = np.ones((1, n))
            boot = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot).astype(float)
            best_obs[m] = np.nanmin(_means(a, ones), axis=-1)
            best_boot[m] = np.nanmin(_means(a, boot), axis=-1)
        obs, resampled = _counts(best_obs), _counts(best_boot)
        words = _TABLES[loss][1].split("(")[1].rstrip(")")
        for statement, paper in statements.items():
            if statement not in obs:
                continue
            ours = int(obs[statement][0])
            dist = resampled[statement]
            if paper > ours:
                p = float(np.mean(dist >= paper))
            elif paper < ours:
                p = float(np.mean(dist <= paper))
            else:
                p = 1.0
            refuted = p < 0.025
            status = ["agrees" if ours == paper else ("lower" if ours < paper else "higher")]
            chk = block_check(status)
            checks[
                f"Section 5, {words}: {statement} on {ours} of {len(datasets)} datasets "
                f"(paper's Table 3: {paper} of 9); the paper's count or beyond in "
                f"{p:.0%} of {n_boot} resamplings of our splits"
            ] = Check(holds=chk.holds, refuted=bool(refuted))
    return checks
