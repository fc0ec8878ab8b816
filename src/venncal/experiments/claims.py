"""A paper's claim checked on a run of a study, and its three verdicts in quick and full mode.

A study returns its checks as ``{statement: Check}``. A :class:`Check` holds the study's own rule
for the claim (``holds``) and, where the claim rests on quantities that vary from draw to draw,
how far the run is past the claim's threshold (``margin``, positive on the claim's side) with
the draw-to-draw standard error of that margin (``se``).

Every check gets one of three verdicts, in both modes:

* **confirmed** (full mode prints ``passed``): the rule holds;
* **contradicted**: the run is past the threshold on the other side by more than ``k``
  standard errors (``k`` the 97.5% quantile of Student's t on the draws' degrees of freedom, at
  least 2), or the check has no noise (``exact``, or no standard error) and its rule fails, or
  the check says so itself (``refuted``, e.g. an agreement with a paper's table);
* **inconclusive** (full mode prints ``not shown``): neither.

**Quick mode** runs a few draws: it confirms only when the margin exceeds ``k`` standard errors
on the claim's side, contradicts only when it exceeds them on the other side, and ``k`` is at
least the check's ``quick_k``, a multiplier calibrated on resampled few-draw subsets of the
committed full run (see :mod:`venncal.experiments.quick_margins`), so that a few draws that
happen to agree cannot confirm what the full run contradicts. A check without a standard error
is inconclusive in quick mode unless it is ``exact`` (an identity, a count of infinite losses:
no sampling noise).

Two kinds of checks are not claims of the paper: ``"design"`` checks that a simulated design
does what it was built to do, and ``"contradicted"`` marks a claim of the paper's text that its
own table contradicts; such a check passes when our run refutes the claim too (agrees with the
paper's table), and the report says so rather than hiding the claim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["Check", "as_check", "verdict", "full_state", "quick_state", "summary_counts"]

_KINDS = ("claim", "design", "contradicted")


@dataclass(frozen=True)
class Check:
    """One checked claim.

    Attributes
    ----------
    holds : bool
        Whether the statement holds on this run by the study's rule (for
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
    refuted : bool or None, default=None
        For a check whose rule decides between all three verdicts itself (an agreement with a
        paper's table): when ``holds`` is false, whether the run contradicts the statement
        (True) or leaves it open (False). None: decided by ``margin`` and ``se``.
    quick_k : float, default=nan
        The smallest number of standard errors quick mode needs to confirm or contradict, as
        calibrated on subsets of the full run; NaN: Student's t alone.

    Examples
    --------
    A paired difference of 0.03 with a standard error of 0.005 over 20 draws:

    >>> c = Check(holds=True, margin=0.03, se=0.005, df=19)
    >>> bool(c), verdict(c, "full"), verdict(c, "quick")
    (True, 'passed', 'confirmed')

    The same difference over 3 draws with a standard error of 0.01 is within noise:

    >>> verdict(Check(holds=True, margin=0.03, se=0.01, df=2), "quick")
    'inconclusive at this size'

    A rule that fails within noise is not shown, one that fails past noise is contradicted:

    >>> verdict(Check(holds=False, margin=-0.01, se=0.01, df=19), "full")
    'not shown'
    >>> verdict(Check(holds=False, margin=-0.05, se=0.01, df=19), "full")
    'contradicted'
    """

    holds: bool
    margin: float = float("nan")
    se: float = float("nan")
    df: float = float("inf")
    exact: bool = False
    kind: str = "claim"
    refuted: bool | None = None
    quick_k: float = float("nan")

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(
                f"The 'kind' parameter of Check must be one of {set(_KINDS)}. Got {self.kind!r} "
                "instead."
            )

    @property
    def passed(self) -> bool:
        """The full verdict is the good one: the claim is confirmed (for ``"contradicted"``:
        our run refutes the claim, as the paper's table does)."""
        state = full_state(self)
        return state is False if self.kind == "contradicted" else state is True

    def __bool__(self) -> bool:
        return bool(self.passed)


def as_check(value: object) -> Check:
    """A :class:`Check` from a check value (a Check, or a bare truth value: no standard error).

    Examples
    --------
    >>> as_check(True).holds
    True
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


def _judged(c: Check, k: float) -> bool | None:
    if not (math.isfinite(c.se) and math.isfinite(c.margin)):
        return None
    if c.margin > k * c.se:
        return True
    if c.margin < -k * c.se:
        return False
    return None


def full_state(check: Check | bool) -> bool | None:
    """True (confirmed), False (contradicted) or None (inconclusive) for the statement, on the
    full run.

    Examples
    --------
    >>> full_state(Check(holds=True)), full_state(Check(holds=False))
    (True, False)
    >>> full_state(Check(holds=False, margin=-0.01, se=0.02, df=19)) is None
    True
    >>> full_state(Check(holds=False, refuted=False)) is None
    True
    """
    c = as_check(check)
    if c.kind == "contradicted":
        # ``holds`` is "not refuted": the claim is confirmed only past noise
        if not c.holds:
            return False
        if c.exact:
            return True
        return True if _judged(c, _multiplier(c.df)) is True else None
    if c.holds:
        return True
    if c.refuted is not None:
        return False if c.refuted else None
    if c.exact or c.se == 0 or not (math.isfinite(c.se) and math.isfinite(c.margin)):
        return False
    return False if c.margin < -_multiplier(c.df) * c.se else None


def quick_state(check: Check | bool) -> bool | None:
    """True (confirmed), False (contradicted) or None (inconclusive) on a quick run.

    Examples
    --------
    >>> quick_state(Check(holds=False, margin=-0.2, se=0.01, df=2))
    False
    >>> quick_state(Check(holds=False, exact=True)) is False
    True
    >>> quick_state(Check(holds=True)) is None
    True

    A calibrated multiplier raises the bar:

    >>> quick_state(Check(holds=True, margin=0.2, se=0.01, df=2, quick_k=25.0)) is None
    True
    """
    c = as_check(check)
    if c.exact:
        return full_state(c)
    if c.refuted is not None or c.se == 0:
        # a block of cells needs the full run's spread; a zero standard error from a few equal
        # draws is not certainty
        return None
    k = _multiplier(c.df)
    if math.isfinite(c.quick_k):
        k = max(k, c.quick_k)
    return _judged(c, k)


def verdict(check: Check | bool, mode: str) -> str:
    """The verdict printed for a check.

    Parameters
    ----------
    check : Check or bool
    mode : str
        ``"quick"`` judges with the calibrated multiplier of standard errors; any other mode
        (``"full"``, ``"custom"``) uses the full run's rule.

    Returns
    -------
    str
        Full mode: ``"passed"`` (confirmed), ``"contradicted"`` or ``"not shown"``
        (inconclusive); quick mode: ``"confirmed"``, ``"contradicted"`` or ``"inconclusive at
        this size"``. Design checks: ``"design met"``, ``"design NOT met"`` or ``"design: not
        shown"`` (quick: ``"design: inconclusive at this size"``). Claims the paper's own table
        contradicts: ``"contradicted by the paper's own table; ours agrees"``, ``"...; ours
        differs (not refuted here)"`` or ``"...; ours inconclusive"``.

    Examples
    --------
    >>> verdict(Check(holds=False, margin=-0.01, se=0.02, df=2), "quick")
    'inconclusive at this size'
    >>> verdict(Check(holds=False, margin=-0.01, se=0.02, df=2), "full")
    'not shown'
    >>> verdict(Check(holds=False, kind="contradicted", exact=True), "full")
    "contradicted by the paper's own table; ours agrees"
    """
    c = as_check(check)
    quick = mode == "quick"
    state = quick_state(c) if quick else full_state(c)
    open_ = "inconclusive at this size" if quick else "not shown"
    if c.kind == "design":
        if state is None:
            return "design: " + open_
        return "design met" if state else "design NOT met"
    if c.kind == "contradicted":
        head = "contradicted by the paper's own table; "
        if state is None:
            return head + "ours inconclusive" + (" at this size" if quick else "")
        return head + ("ours differs (not refuted here)" if state else "ours agrees")
    if state is None:
        return open_
    if state:
        return "confirmed" if quick else "passed"
    return "contradicted"


def summary_counts(checks: Mapping[str, Check | bool], mode: str) -> dict[str, int]:
    """How many checks got each verdict, in order of first appearance.

    Examples
    --------
    >>> summary_counts({"a": True, "b": Check(holds=False, exact=True)}, "full")
    {'passed': 1, 'contradicted': 1}
    """
    counts: dict[str, int] = {}
    for value in checks.values():
        v = verdict(value, mode)
        counts[v] = counts.get(v, 0) + 1
    return counts
