"""How many standard errors quick mode needs, calibrated on few-draw subsets of the full runs.

Quick mode judges a check on a few draws with the check's own standard error. With three draws
that standard error is itself very noisy, and Student's t does not stop a lucky subset from
confirming what the full run contradicts. So each check's multiplier is calibrated on the
committed full run: many random subsets of three draws are taken, each check is recomputed on
each subset, and wherever a subset's margin lies on the side opposite to the full verdict, the
multiplier is raised past it (by :data:`HEADROOM`). Quick mode then uses the larger of Student's
t and this multiplier (:attr:`venncal.experiments.claims.Check.quick_k`), so no calibration subset
reverses a full verdict; a test draws 400 fresh subsets and checks that none does.

The multipliers live in ``_quick_margins_table.py`` next to this module, keyed by study and by
the check's statement with its numbers masked (:func:`identity`); ``python -m
venncal.experiments.quick_margins`` recomputes them from ``results/<study>-full/results.csv``.
"""

from __future__ import annotations

import functools
import math
import pprint
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.experiments._margins import identity, load_margins, with_quick_margins
from venncal.experiments.claims import Check, as_check, full_state

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    import pandas as pd

__all__ = [
    "identity",
    "load_margins",
    "with_quick_margins",
    "subsets",
    "calibrate",
    "DRAW_COLUMNS",
    "SUBSET_SIZE",
]

#: the multiplier is set this much above the largest opposite margin seen in calibration
HEADROOM = 1.5
#: draws per subset: quick mode's size
SUBSET_SIZE = 3
#: study -> the column(s) that number its draws; draws of each kind are subsampled apart
DRAW_COLUMNS = {
    "naeini-2014": "repeat",
    "vovk-petej-2014": "split",
    "johansson-2018": "repeat",
    "tasche-2022": "repeat",
}


def results_checks(study: str, raw: pd.DataFrame) -> dict[str, Check | bool]:
    """The checks quick mode can judge, recomputed from a study's tidy results.

    Blocks of cells against a paper's table and Vovk & Petej's resampled counts are left out:
    quick mode never confirms or contradicts them.
    """
    if study == "naeini-2014":
        from venncal.experiments.studies._naeini_checks import study_checks
        from venncal.experiments.studies.naeini_2014 import FAMILY_PANELS

        return study_checks(raw[~raw["panel"].isin(FAMILY_PANELS)])
    if study == "vovk-petej-2014":
        from venncal.experiments.studies import vovk_petej_2014

        vp: Any = vovk_petej_2014
        agg, _ = vp.summarise(raw, vp.default_config("full"))
        return dict(vp.check_claims(agg))
    if study == "johansson-2018":
        from venncal.experiments.studies._johansson_results import checks_from_results

        return dict(checks_from_results(raw))
    if study == "tasche-2022":
        from venncal.experiments.studies import tasche_2022

        tasche: Any = tasche_2022
        return dict(tasche.check_claims(raw))
    raise ValueError(f"Unknown study {study!r}; choose one of {sorted(DRAW_COLUMNS)}.")


#: study -> the column of kinds whose draws are subsampled apart
KIND_COLUMNS = {"vovk-petej-2014": "kind"}


def subsets(
    raw: pd.DataFrame,
    column: str,
    n_subsets: int,
    *,
    size: int = SUBSET_SIZE,
    seed: int = 0,
    kind_column: str | None = None,
) -> Iterator[pd.DataFrame]:
    """Random subsets of ``raw`` keeping ``size`` draws (values of ``column``).

    Rows whose kind (``kind_column``) has at most ``size`` draws are all kept (e.g. SPECT's one
    given split); draws of different kinds (Vovk & Petej's VA splits and the others) are drawn
    apart.
    """
    rng = np.random.default_rng(seed)
    kinds = raw[kind_column].to_numpy() if kind_column else np.zeros(len(raw), dtype=int)
    draws = raw[column].to_numpy()
    groups = {}
    for kind in dict.fromkeys(kinds):
        m = kinds == kind
        groups[kind] = (m, np.unique(draws[m]))
    for _ in range(n_subsets):
        keep = np.zeros(len(raw), dtype=bool)
        for m, values in groups.values():
            if values.size <= size:
                keep |= m
                continue
            chosen = rng.choice(values, size=size, replace=False)
            keep |= m & np.isin(draws, chosen)
        yield raw[keep]


def opposite_margins(
    full: Mapping[str, Check | bool], part: Mapping[str, Check | bool]
) -> dict[str, float]:
    """For each check of a subset whose margin lies opposite to the full verdict: by how many
    standard errors (the multiplier quick mode must exceed to stay silent)."""
    base = {identity(k): as_check(v) for k, v in full.items()}
    out = {}
    for key, value in part.items():
        c = as_check(value)
        ident = identity(key)
        f = full_state(base[ident]) if ident in base else None
        if f is None or c.exact or c.refuted is not None:
            continue
        if not (math.isfinite(c.margin) and math.isfinite(c.se)) or c.se <= 0:
            continue
        z = c.margin / c.se
        if (f is True and z < 0) or (f is False and z > 0):
            out[ident] = abs(z)
    return out


def calibrate(
    checks_of: Callable[[pd.DataFrame], Mapping[str, Check | bool]],
    raw: pd.DataFrame,
    column: str,
    *,
    n_subsets: int = 400,
    seed: int = 12345,
    kind_column: str | None = None,
) -> dict[str, float]:
    """The multiplier each check needs so that no subset reverses the full verdict.

    Returns ``{identity: k}`` for the checks that some subset put on the opposite side; ``k``
    is :data:`HEADROOM` times the largest such number of standard errors.
    """
    full = checks_of(raw)
    worst: dict[str, float] = {}
    for part in subsets(raw, column, n_subsets, seed=seed, kind_column=kind_column):
        for ident, z in opposite_margins(full, checks_of(part)).items():
            worst[ident] = max(worst.get(ident, 0.0), z)
    return {k: round(HEADROOM * z + 0.01, 2) for k, z in sorted(worst.items())}


def quick_verdicts_against_full(
    checks_of: Callable[[pd.DataFrame], Mapping[str, Check | bool]],
    raw: pd.DataFrame,
    study: str,
    *,
    n_subsets: int = 400,
    seed: int = 0,
    kind_column: str | None = None,
    margins: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Any]:
    """Count, over random subsets, quick verdicts that reverse the full verdict, per check."""
    from venncal.experiments.claims import quick_state

    full = {identity(k): full_state(v) for k, v in checks_of(raw).items()}
    reversed_: dict[str, int] = {}
    for part in subsets(raw, DRAW_COLUMNS[study], n_subsets, seed=seed, kind_column=kind_column):
        checks = with_quick_margins(study, checks_of(part), margins)
        for key, value in checks.items():
            ident = identity(key)
            f, q = full.get(ident), quick_state(value)
            if f is not None and q is not None and q != f:
                reversed_[ident] = reversed_.get(ident, 0) + 1
    return reversed_


def main(results: str = "results", n_subsets: int = 400, seed: int = 12345) -> None:
    """Recompute every study's multipliers from its committed full results and write the table."""
    from pathlib import Path

    import pandas as pd

    out = {}
    for study, column in DRAW_COLUMNS.items():
        raw = pd.read_csv(Path(results) / f"{study}-full" / "results.csv")
        k = calibrate(
            functools.partial(results_checks, study),
            raw,
            column,
            n_subsets=n_subsets,
            seed=seed,
            kind_column=KIND_COLUMNS.get(study),
        )
        if k:
            out[study] = k
    target = Path(__file__).with_name("_quick_margins_table.py")
    head = target.read_text(encoding="utf-8").split("MARGINS:")[0]
    body = pprint.pformat(out, width=100, sort_dicts=True)
    target.write_text(head + "MARGINS: dict[str, dict[str, float]] = " + body + "\n", "utf-8")


if __name__ == "__main__":
    main()
