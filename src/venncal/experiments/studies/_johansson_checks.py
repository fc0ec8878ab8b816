"""Johansson et al. (2018): the statements of section 5 about Tables 1-2, and the two interval
sizes the text prints, checked on our per-dataset means.

The paper's six tables are images in the available text, so only what section 5 and 6 say in
words can be checked (``paper_tables/johansson_2018_text_claims.csv``):

* Table 1 (estimate minus accuracy, averaged over the datasets): the forest's estimates are too
  pessimistic, by approximately 1.5 percentage points; Platt scaling and isotonic regression and
  VAP-cal are optimistic; the Venn predictor is the best calibrated; out-of-bag calibration
  gives better estimates than a calibration set for every technique.
* Table 2 (reliability, K = 100): isotonic regression is worse than the raw forest; all four
  Venn setups are better than the raw forest; and section 6: better than Platt scaling and
  isotonic regression too.
* Table 4 discussion: mean interval sizes .006 (VP-oob) and .075 (VAP-cal).

Table 3 (which of the 45 pairwise reliability differences are significant) is not in the text
beyond "only a few", so it is not checked.

A claim about a mean over the datasets is judged with the standard error over the datasets
(the paper's 22 and our 25 are samples of data sets; the claim is about them, not about one).
A printed number is compared within our replicate spread: two such standard errors, plus half
of the paper's last printed digit.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from venncal.experiments.agreement import block_check, cell_status
from venncal.experiments.claims import Check

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["per_dataset", "text_checks"]

#: Table 4 discussion (section 5): mean interval size over the data sets
PAPER_INTERVAL = {"VP-oob": 0.006, "VAP-cal": 0.075}
#: Table 1 discussion (section 5): the forest's estimate minus accuracy, "approximately 1.5
#: percentage points" too pessimistic
PAPER_RF_BIAS = -0.015


def per_dataset(raw: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Datasets x setups: the mean of ``metric`` over the repetitions."""
    datasets = list(dict.fromkeys(raw["dataset"]))
    setups = list(dict.fromkeys(raw["setup"]))
    m = raw.groupby(["dataset", "setup"], sort=False)[metric].mean().unstack("setup")
    return m.reindex(index=datasets, columns=setups)


def _mean_se(d: pd.Series) -> tuple[float, float, int]:
    d = pd.Series(d).dropna()
    n = len(d)
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else float("inf")
    return float(d.mean()), se, n


def _all(parts: Sequence[tuple[float, float, int]], kind: str = "claim") -> Check:
    """Every part's margin must be positive; the weakest (in standard errors) speaks for all."""
    z = [m / s if s > 0 else (math.inf if m > 0 else -math.inf) for m, s, _ in parts]
    k = int(np.argmin(z))
    m, s, n = parts[k]
    holds = all(mi > 0 for mi, _, _ in parts)
    return Check(holds=bool(holds), margin=m, se=s, df=n - 1, kind=kind)


def _table1(raw: pd.DataFrame, checks: dict[str, Check]) -> None:
    t1 = per_dataset(raw, "estimate_minus_accuracy")
    have = set(t1.columns)
    rf = [s for s in ("RF-cal", "RF-oob") if s in have]
    if rf:
        parts = [_mean_se(-t1[s]) for s in rf]
        words = ", ".join(f"{s} {t1[s].mean():+.3f}" for s in rf)
        checks[
            f"Table 1: the forest's estimates are too pessimistic on average (section 5): mean "
            f"estimate - accuracy {words} below 0 (2 standard errors over "
            f"{parts[0][2]} datasets)"
        ] = _all(parts)
        # the printed size, "approximately 1.5 percentage points"
        ours = [t1[s].mean() for s in rf]
        tol = [2 * _mean_se(t1[s])[1] + 0.0025 for s in rf]
        status = cell_status(ours, [PAPER_RF_BIAS] * len(rf), tol)
        checks[
            f"Table 1: the forest's estimates are too pessimistic by approximately 1.5 "
            f"percentage points (section 5): ours {words} against -0.015, tolerance 2 standard "
            f"errors over the datasets plus 0.0025 for 'approximately': "
            + ", ".join(f"{s} {st}" for s, st in zip(rf, status, strict=True))
        ] = block_check(status)
    optimistic = [
        s for s in ("Platt-cal", "Platt-oob", "Iso-cal", "Iso-oob", "VAP-cal") if s in have
    ]
    if optimistic:
        parts = [_mean_se(t1[s]) for s in optimistic]
        checks[
            "Table 1: Platt scaling, isotonic regression and VAP-cal give optimistic estimates "
            "(section 5): mean estimate - accuracy "
            + ", ".join(f"{s} {t1[s].mean():+.3f}" for s in optimistic)
            + f" above 0 (2 standard errors over {parts[0][2]} datasets)"
        ] = _all(parts)
    absd = t1.abs()
    if {"VP-cal", "VP-oob"} & have and len(have) > 2:
        vp = min((s for s in ("VP-cal", "VP-oob") if s in have), key=lambda s: absd[s].mean())
        others = [s for s in absd.columns if not s.startswith("VP-")]
        rival = min(others, key=lambda s: absd[s].mean())
        m = _mean_se(absd[rival] - absd[vp])
        checks[
            f"Table 1: the Venn predictor is the best calibrated (section 5): smallest mean "
            f"|estimate - accuracy| {vp} {absd[vp].mean():.4f}, the best other setup {rival} "
            f"{absd[rival].mean():.4f} (paired over {m[2]} datasets)"
        ] = _all([m])
    pairs = [(s, s[:-4] + "-oob") for s in absd.columns if s.endswith("-cal")]
    pairs = [(c, o) for c, o in pairs if o in have]
    if pairs:
        parts = [_mean_se(absd[c] - absd[o]) for c, o in pairs]
        checks[
            "Table 1: out-of-bag calibration gives better estimates than a calibration set for "
            "every technique (section 5): mean |estimate - accuracy| "
            + ", ".join(f"{o} {absd[o].mean():.4f} vs {c} {absd[c].mean():.4f}" for c, o in pairs)
            + " (paired over the datasets)"
        ] = _all(parts)


def _table2(raw: pd.DataFrame, checks: dict[str, Check]) -> None:
    rel = per_dataset(raw, "reliability")
    have = set(rel.columns)
    iso = [(i, r) for i, r in (("Iso-cal", "RF-cal"), ("Iso-oob", "RF-oob")) if {i, r} <= have]
    if iso:
        parts = [_mean_se(rel[i] - rel[r]) for i, r in iso]
        worse = sum(int((rel[i] > rel[r]).sum()) for i, r in iso)
        checks[
            "Table 2: isotonic regression is clearly worse calibrated (higher reliability) than "
            "the raw forest (section 5): mean reliability "
            + ", ".join(f"{i} {rel[i].mean():.4f} vs {r} {rel[r].mean():.4f}" for i, r in iso)
            + f"; isotonic worse in {worse} of {sum(len(rel) for _ in iso)} dataset pairs"
        ] = _all(parts)
    venn = [s for s in ("VP-cal", "VP-oob", "VAP-cal", "VAP-oob") if s in have]
    rivals = [s for s in ("RF-cal", "RF-oob") if s in have]
    if venn and rivals:
        parts = [_mean_se(rel[r] - rel[v]) for v in venn for r in rivals]
        checks[
            "Table 2: all four Venn setups are better calibrated (lower reliability) than the "
            "raw forest (section 5): mean reliability "
            + ", ".join(f"{s} {rel[s].mean():.4f}" for s in venn + rivals)
            + " (paired over the datasets)"
        ] = _all(parts)
    rivals = [s for s in ("Platt-cal", "Platt-oob", "Iso-cal", "Iso-oob") if s in have]
    if venn and rivals:
        vparts: list[tuple[float, float, int]] = []
        venn_worse: list[str] = []
        for v in venn:
            for r in rivals:
                vparts.append(_mean_se(rel[r] - rel[v]))
                n_worse = int((rel[v] > rel[r]).sum())
                if rel[v].mean() > rel[r].mean():
                    venn_worse.append(f"{v} worse than {r} on {n_worse} of {len(rel)} datasets")
        checks[
            "Table 2: all four Venn setups are better calibrated than Platt scaling and isotonic "
            "regression (section 6): mean reliability "
            + ", ".join(f"{s} {rel[s].mean():.4f}" for s in venn + rivals)
            + (f"; {'; '.join(venn_worse)}" if venn_worse else "")
            + " (paired over the datasets)"
        ] = _all(vparts)


def _intervals(raw: pd.DataFrame, checks: dict[str, Check]) -> None:
    size = per_dataset(raw, "interval_size")
    setups = [s for s in PAPER_INTERVAL if s in size.columns]
    if not setups:
        return
    ours = [float(size[s].mean()) for s in setups]
    tol = [2 * _mean_se(size[s])[1] + 0.0005 for s in setups]
    status = cell_status(ours, [PAPER_INTERVAL[s] for s in setups], tol)
    checks[
        "Table 4: mean interval size over the datasets as printed (section 5): "
        + ", ".join(
            f"{s} ours {o:.4f} against {PAPER_INTERVAL[s]:.3f} (tolerance {t:.4f}: {st})"
            for s, o, t, st in zip(setups, ours, tol, status, strict=True)
        )
        + "; tolerance 2 standard errors over the datasets plus 0.0005 for rounding"
    ] = block_check(status)


def text_checks(raw: pd.DataFrame) -> dict[str, Check]:
    """The checks of Tables 1, 2 and 4's printed numbers on the study's tidy results.

    Parameters
    ----------
    raw : DataFrame
        One row per dataset, repetition and setup with ``estimate_minus_accuracy``,
        ``reliability`` and ``interval_size``.
    """
    checks: dict[str, Check] = {}
    _table1(raw, checks)
    _table2(raw, checks)
    _intervals(raw, checks)
    return checks
