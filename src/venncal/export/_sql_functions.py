"""SQL expressions of exp, expit and log1p that every dialect computes as numpy does (the
query of one calibrator or of K classes builds on them)."""

from __future__ import annotations

__all__ = ["sql_exp", "sql_expit", "sql_log1p"]

# exp(x) rounds to 0 below x = -1075 ln 2 = -745.1332...; from -745.13 on it is not 0
_EXP_ZERO = "-745.13"


def sql_exp(arg: str) -> str:
    """``EXP(arg)``, 0 where it would round to 0 (or to the smallest subnormal, 5e-324):
    PostgreSQL raises an error for an ``EXP`` that underflows, where IEEE engines give 0."""
    return f"CASE WHEN {arg} < {_EXP_ZERO} THEN 0.0 ELSE EXP({arg}) END"


def sql_expit(q: object, t: str) -> str:
    """``1 / (1 + exp(-t))`` as scipy's expit, without an overflow of exp."""
    return f"CASE WHEN {t} < -700.0 THEN {sql_exp(t)} ELSE 1.0 / (1.0 + {sql_exp(f'-{t}')}) END"


def sql_log1p(t: str) -> str:
    """log1p of a column: ``ln(u) t / (u - 1)`` with ``u = 1 + t``, exact when u = 1."""
    u = f"(1.0 + {t})"
    return f"CASE WHEN {u} = 1.0 THEN {t} ELSE LN({u}) * {t} / ({u} - 1.0) END"
