"""Quick mode's calibrated multipliers, set on a study's checks.

How they are calibrated is :mod:`venncal.experiments.quick_margins`; the studies only read
them, here (so that the calibration, which runs the studies, and the studies do not import
each other).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from venncal.experiments.claims import Check

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["identity", "load_margins", "with_quick_margins"]


def identity(statement: str) -> str:
    """A check's statement with every number masked: the same check on any run.

    Examples
    --------
    >>> identity("SBB beats IsoReg on XOR: AUC 0.756 vs 0.642 (+0.114); 20 draws")
    'SBB beats IsoReg on XOR: AUC # vs # (#); # draws'
    """
    return re.sub(r"[-+]?\d+(\.\d+)?%?", "#", statement)


def load_margins() -> dict[str, dict[str, float]]:
    """The calibrated multipliers, ``{study: {identity: k}}``."""
    from venncal.experiments._quick_margins_table import MARGINS

    return {s: dict(d) for s, d in MARGINS.items()}


def with_quick_margins(
    study: str,
    checks: Mapping[str, Check | bool],
    margins: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Check | bool]:
    """``checks`` with each check's calibrated quick-mode multiplier set (where one is stored).

    Examples
    --------
    >>> c = {"A beats B by 0.3": Check(holds=True, margin=0.3, se=0.05, df=2)}
    >>> out = with_quick_margins("s", c, {"s": {"A beats B by #": 9.0}})
    >>> out["A beats B by 0.3"].quick_k
    9.0
    """
    table = (load_margins() if margins is None else margins).get(study, {})
    out: dict[str, Check | bool] = {}
    for key, value in checks.items():
        k = table.get(identity(key))
        if k is not None and isinstance(value, Check):
            value = dataclasses.replace(value, quick_k=float(k))
        out[key] = value
    return out
