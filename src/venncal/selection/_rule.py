"""The recommendation rule of :func:`~venncal.compare_calibrators`: the default unless beaten.

Choosing the candidate with the best cross-validated loss is noisy on small calibration sets,
and a wrong switch can cost far more than a right one gains: a map that is confidently wrong on
a few new rows (a step function with an empty end bin, a sigmoid fitted to a dozen rows) costs
many nats on each. So the rule starts from a default that is safe everywhere, inductive
Venn-Abers for two classes (its probabilities stay away from 0 and 1 by construction) and
structured matrix scaling for K classes (temperature scaling followed by a regularised linear map,
which shrinks to temperature scaling on small data), and moves away from it only on evidence:

1. candidates that put probability 0 or 1 on a calibration row (fitted on all rows), or whose
   out-of-fold probabilities do, are never recommended: one counterexample costs an infinite
   log loss;
2. with fewer than ``MIN_CLASS_ROWS`` rows in the smallest class, the default is kept (a fold
   then holds a handful of that class, and the cross-validated losses are noise);
3. otherwise a candidate replaces the default only when the upper end of the interval of its
   paired difference to the default is below 0 (better on the data at the comparison's
   confidence level); among those, the one with the best estimate.

The rule was set on the cells of ``benchmarks/bench_quality.py`` with splits 0-2 (the minimum
class size and the level) and checked on splits 3-5; see the "Choosing a calibrator" guide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MIN_CLASS_ROWS", "recommend"]

#: below this many rows in the smallest class, the default is kept
MIN_CLASS_ROWS = 20


def recommend(
    estimates: Mapping[str, float],
    diffs: Mapping[str, tuple[float, float]],
    eligible: Mapping[str, bool],
    default: str,
    smallest_class: int,
    select_by: str,
    level: float,
    *,
    labels: Mapping[str, str] | None = None,
) -> tuple[str, str]:
    """The recommended candidate and the rule in words.

    Parameters
    ----------
    estimates : dict of str to float
        The ``select_by`` estimate of every candidate (lower is better).
    diffs : dict of str to (float, float)
        The interval of every candidate's paired difference to the default.
    eligible : dict of str to bool
        False for a candidate that puts probability 0 or 1 on a row.
    default : str
        The default candidate.
    smallest_class : int
        Rows of the smallest class.
    select_by : str
    level : float
        The confidence level of the intervals.
    labels : dict of str to str, optional
        The names to print, with the configuration (default: the names).

    Returns
    -------
    (str, str)

    Examples
    --------
    >>> est = {"venn-abers": 0.40, "platt": 0.35, "isotonic": 0.30}
    >>> diffs = {"venn-abers": (0.0, 0.0), "platt": (-0.08, -0.02), "isotonic": (-0.2, 0.0)}
    >>> ok = {"venn-abers": True, "platt": True, "isotonic": False}
    >>> recommend(est, diffs, ok, "venn-abers", 200, "log_loss", 0.95)[0]
    'platt'
    """
    labels = labels or {}
    pct = f"{100 * level:g}%"
    excluded = sorted(labels.get(name, name) for name, ok in eligible.items() if not ok)
    note = ""
    if excluded:
        note = f" Not eligible, as they put probability 0 or 1 on a row: {', '.join(excluded)}."
    shown = labels.get(default, default)
    if smallest_class < MIN_CLASS_ROWS:
        return default, (
            f"{shown} is the default, kept because the smallest class has {smallest_class} "
            f"rows (fewer than {MIN_CLASS_ROWS}): cross-validated losses are too noisy to "
            "switch on." + note
        )
    better = [
        name for name in estimates if name != default and eligible[name] and diffs[name][1] < 0.0
    ]
    if not better:
        return default, (
            f"{shown} is the default, and no eligible candidate has a {select_by} below it "
            f"at the {pct} level (the upper end of every paired difference's interval is at "
            "or above 0)." + note
        )
    chosen = min(better, key=lambda name: estimates[name])
    low, high = diffs[chosen]
    return chosen, (
        f"{labels.get(chosen, chosen)} has a lower {select_by} than the default {shown} "
        f"({estimates[chosen]:.4g} against {estimates[default]:.4g}; the {pct} interval of "
        f"the difference is [{low:.3g}, {high:.3g}])"
        + (f", the best of {len(better)} candidates that beat it." if len(better) > 1 else ".")
        + note
    )
