"""A paper's claim checked on a run of a study, and its verdict in quick and full mode.

A study returns its checks as ``{statement: Check}``. A :class:`Check` holds the strict verdict
of the study's own rule (``holds``) and, where the claim rests on quantities that vary from draw
to draw, how far the run is past the claim's threshold (``margin``, positive on the claim's
side) with the draw-to-draw standard error of that margin (``se``).

* **Full mode** keeps the strict verdict: ``passed`` or ``FAILED``.
* **Quick mode** runs a few draws, so a strict verdict would often be noise. A claim is
  *confirmed* when the margin exceeds ``k`` standard errors on the claim's side, *contradicted*
  when it exceeds them on the other side, and *inconclusive at this size* otherwise, with ``k``
  the 97.5% quantile of Student's t on the draws' degrees of freedom (at least 2): 4.3 for 3
  draws, 2.1 for 20. A check without a standard error is inconclusive in quick mode unless it
  is ``exact`` (an identity, a count of infinite losses: no sampling noise).

Two kinds of checks are not claims of the paper: ``"design"`` checks that a simulated design
does what it was built to do (e.g. that the logistic score of the XOR data does not rank the
classes: a target the design was fitted to), and ``"contradicted"`` marks a claim of the paper's
text that its own table contradicts; such a check passes when our run agrees with the paper's
table (our run refutes the claim too), and the report says so rather than hiding the claim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["Check", "as_check", "verdict", "quick_state", "summary_counts"]

_KINDS = ("claim", "design", "contradicted")


@dataclass(frozen=True)
class Check:
    """One checked claim.

    Attributes
    ----------
    holds : bool
        Whether the statement holds on this run by the study's strict rule (for
        ``kind="contradicted"``: whether our run fails to refute it).
    margin : float, default=nan
        Distance past the claim's threshold, positive on the claim's side (e.g. a paired
        difference, or a mean minus a bound). NaN when the check has no such quantity.
    se : float, default=nan
        Draw-to-draw standard error of ``margin``; NaN or inf when unknown (e.g. one draw).
    df : float, default=inf
        Degrees of freedom of ``se`` (number of draws minus one).
    exact : bool, default=False
        True when the check involves no sampling noise (an identity checked numerically, a
        count of infinite losses), so quick mode can judge it like full mode.
    kind : {"claim", "design", "contradicted"}, default="claim"
        See the module description.

    Examples
    --------
    A paired difference of 0.03 with a standard error of 0.005 over 20 draws:

    >>> c = Check(holds=True, margin=0.03, se=0.005, df=19)
    >>> bool(c), verdict(c, "full"), verdict(c, "quick")
    (True, 'passed', 'confirmed')

    The same difference over 3 draws with a standard error of 0.01 is within noise:

    >>> verdict(Check(holds=True, margin=0.03, se=0.01, df=2), "quick")
    'inconclusive at this size'
    """

    holds: bool
    margin: float = float("nan")
    se: float = float("nan")
    df: float = float("inf")
    exact: bool = False
    kind: str = "claim"

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(
                f"The 'kind' parameter of Check must be one of {set(_KINDS)}. Got {self.kind!r} "
                "instead."
            )

    @property
    def passed(self) -> bool:
        """The strict verdict: the claim holds (for ``"contradicted"``: our run agrees with the
        paper's table, so the claim does not hold)."""
        return (not self.holds) if self.kind == "contradicted" else bool(self.holds)

    def __bool__(self) -> bool:
        return bool(self.passed)


def as_check(value: object) -> Check:
    """A :class:`Check` from a check value (a Check, or a bare truth value: no standard error).

    Examples
    --------
    >>> as_check(True)
    Check(holds=True, margin=nan, se=nan, df=inf, exact=False, kind='claim')
    """
    if isinstance(value, Check):
        return value
    return Check(holds=bool(value))


def _multiplier(df: float) -> float:
    if not math.isfinite(df):
        return 2.0
    if df < 1:
        return math.inf
    from scipy.stats import t

    return max(2.0, float(t.ppf(0.975, df)))


def quick_state(check: Check | bool) -> bool | None:
    """True (confirmed), False (contradicted) or None (inconclusive) for the statement itself.

    Examples
    --------
    >>> quick_state(Check(holds=False, margin=-0.2, se=0.01, df=2))
    False
    >>> quick_state(Check(holds=False, exact=True)) is False
    True
    >>> quick_state(Check(holds=True)) is None
    True
    """
    c = as_check(check)
    if c.exact or c.se == 0:
        return bool(c.holds)
    if not (math.isfinite(c.se) and math.isfinite(c.margin)):
        return None
    k = _multiplier(c.df)
    if c.margin > k * c.se:
        return True
    if c.margin < -k * c.se:
        return False
    return None


def verdict(check: Check | bool, mode: str) -> str:
    """The verdict printed for a check: strict in full mode, noise-aware in quick mode.

    Parameters
    ----------
    check : Check or bool
    mode : str
        ``"quick"`` judges with the standard error; any other mode (``"full"``, ``"custom"``)
        keeps the strict verdict.

    Returns
    -------
    str
        Full mode: ``"passed"`` or ``"FAILED"`` for claims; ``"design met"`` or ``"design NOT
        met"``; ``"contradicted by the paper's own table; ours agrees"`` or ``"...; ours
        differs"``. Quick mode: ``"confirmed"``, ``"contradicted"`` or ``"inconclusive at this
        size"`` (and the same three states for the other kinds).

    Examples
    --------
    >>> verdict(Check(holds=False, margin=-0.01, se=0.02, df=2), "quick")
    'inconclusive at this size'
    >>> verdict(Check(holds=False, margin=-0.01, se=0.02, df=2), "full")
    'FAILED'
    >>> verdict(Check(holds=False, kind="contradicted", exact=True), "full")
    "contradicted by the paper's own table; ours agrees"
    """
    c = as_check(check)
    state = quick_state(c) if mode == "quick" else bool(c.holds)
    if c.kind == "design":
        if state is None:
            return "design: inconclusive at this size"
        return "design met" if state else "design NOT met"
    if c.kind == "contradicted":
        head = "contradicted by the paper's own table; "
        if state is None:
            return head + "ours inconclusive at this size"
        return head + ("ours differs (not refuted here)" if state else "ours agrees")
    if mode == "quick":
        if state is None:
            return "inconclusive at this size"
        return "confirmed" if state else "contradicted"
    return "passed" if state else "FAILED"


def summary_counts(checks: Mapping[str, Check | bool], mode: str) -> dict[str, int]:
    """How many checks got each verdict, in order of first appearance.

    Examples
    --------
    >>> summary_counts({"a": True, "b": Check(holds=False, exact=True)}, "full")
    {'passed': 1, 'FAILED': 1}
    """
    counts: dict[str, int] = {}
    for value in checks.values():
        v = verdict(value, mode)
        counts[v] = counts.get(v, 0) + 1
    return counts
