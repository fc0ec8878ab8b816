"""The decision of an abstention rule in the exports: a column ``accept`` next to ``p``.

:func:`venncal.export.to_sql` and :func:`venncal.export.to_onnx` take ``abstain=rule``, a
fitted binary :class:`~venncal.AbstentionRule` (or what :func:`venncal.load` returns for one)
whose threshold applies to the calibrator's probabilities. A row is accepted when the
probability of its predicted class, ``max(p, 1 - p)``, reaches the rule's threshold (with
``confidence="lower"``, the larger lower end ``max(p0, 1 - p1)`` of a Venn-Abers calibrator):
exactly what ``rule.accept`` computes, in float64 comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal.export._plan import Plan

__all__ = ["Decision", "decision_of"]


@dataclass(frozen=True)
class Decision:
    """The rule's threshold (pooled), which columns its confidence reads, and the thresholds
    of its groups with what an unseen group gets (None: no groups)."""

    threshold: float
    lower: bool  # max(p0, 1 - p1) rather than max(p, 1 - p)
    groups: tuple[tuple[Any, float], ...] | None = None
    fallback: str = "error"


def decision_of(rule: Any, plan: Plan, *, grouped_ok: bool = False) -> Decision:
    """The :class:`Decision` of a fitted binary abstention rule for the calibrator of
    ``plan``, or a one-line refusal; a rule of groups only where ``grouped_ok`` (SQL, with a
    column of groups)."""
    name = type(rule).__name__
    if name != "AbstentionRule":
        raise TypeError(f"'abstain' must be a fitted AbstentionRule, got {name}.")
    threshold = getattr(rule, "threshold_", None)
    if not isinstance(threshold, float):
        raise ValueError("'abstain' is an AbstentionRule that is not fitted; call fit first.")
    groups = getattr(rule, "groups_", None)
    if groups is not None and not grouped_ok:
        raise ValueError(
            "'abstain' was fitted within groups: pass group_column= to to_sql (ONNX does not "
            "take the thresholds of groups yet)."
        )
    if rule.n_features_in_ != 1 or plan.classes is not None:
        raise ValueError(
            "'abstain' must be a binary AbstentionRule and the calibrator a binary one: the "
            "exports add the decision to one probability column."
        )
    lower = rule.confidence == "lower"
    if lower and plan.venn_abers is None:
        raise ValueError(
            "'abstain' reads the lower end of Venn-Abers intervals (confidence='lower'); "
            f"{plan.name} gives no interval."
        )
    pairs = None
    if groups is not None:
        pairs = tuple(zip(groups, (float(t) for t in rule.group_thresholds_)))
    return Decision(threshold, lower, pairs, getattr(rule, "group_fallback", "error"))


def _group_literal(label: Any) -> str:
    if isinstance(label, str):
        return "'" + label.replace("'", "''") + "'"
    return str(int(label))  # integers and booleans (check_groups allows no other kind)


def sql_accept(
    query: str,
    decision: Decision,
    literal: Callable[[float], str],
    prefix: str,
    group_column: str | None = None,
) -> str:
    """``query`` with one more column ``{prefix}accept``: 1, 0, or NULL where ``p`` is
    NULL (and, within groups, for a group not seen at fit unless its fallback is the pooled
    threshold); ``literal`` writes a float for the dialect."""
    if decision.groups is None:
        threshold = literal(decision.threshold)
    else:
        cases = " ".join(
            f"WHEN venncal_a.{group_column} = {_group_literal(g)} THEN {literal(t)}"
            for g, t in decision.groups
        )
        other = literal(decision.threshold) if decision.fallback == "pooled" else "NULL"
        threshold = f"(CASE {cases} ELSE {other} END)"
    if decision.lower:
        p0, p1 = prefix + "p0", prefix + "p1"
        test = f"{p0} >= {threshold} OR 1.0 - {p1} >= {threshold}"
        null = f"{p0} IS NULL OR {threshold} IS NULL"
    else:
        p = prefix + "p"
        test = f"{p} >= {threshold} OR 1.0 - {p} >= {threshold}"
        null = f"{p} IS NULL OR {threshold} IS NULL"
    return (
        f"SELECT venncal_a.*, CASE WHEN {null} THEN NULL WHEN {test} THEN 1 ELSE 0 END AS "
        f"{prefix}accept FROM ({query}) AS venncal_a"
    )


def onnx_accept(g: Any, outs: dict[str, str], decision: Decision) -> str:
    """The graph's ``accept`` tensor: 1.0 or 0.0 (float64), from the outputs ``outs``."""
    if decision.lower:
        conf = g.op("Max", outs["p0"], g.sub(g.num(1.0), outs["p1"]))
    else:
        conf = g.op("Max", outs["p"], g.sub(g.num(1.0), outs["p"]))
    passed = g.op("GreaterOrEqual", conf, g.num(decision.threshold))
    accept: str = g.where(passed, g.num(1.0), g.num(0.0))
    return accept
