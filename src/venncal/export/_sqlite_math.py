"""SQLite's ``LN``, ``EXP`` and ``FLOOR`` for builds without its math functions:
:func:`register_sqlite_math`, which the queries of :func:`venncal.export.to_sql` need for
parametric maps."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

__all__ = ["register_sqlite_math"]


def register_sqlite_math(connection: sqlite3.Connection) -> list[str]:
    """Give an SQLite connection ``LN``, ``EXP`` and ``FLOOR`` if it lacks them.

    SQLite has them when built with its math functions (``SELECT ln(2)`` answers); some builds
    are not. This registers Python's ``math.log``, ``math.exp`` and ``math.floor`` under those
    names on ``connection`` (a :class:`sqlite3.Connection`) for the ones missing, and returns
    the names it registered. NULL gives NULL; ``EXP`` of a large argument gives ``inf`` (SQLite
    keeps it), as the built-in function does.

    Parameters
    ----------
    connection : sqlite3.Connection

    Returns
    -------
    list of str
        The functions registered (empty when the build has them all).

    Examples
    --------
    >>> import sqlite3
    >>> con = sqlite3.connect(":memory:")
    >>> _ = register_sqlite_math(con)
    >>> con.execute("SELECT LN(1.0), EXP(0.0), FLOOR(2.5)").fetchone()
    (0.0, 1.0, 2.0)
    """
    import sqlite3

    def _ln(x: float | None) -> float | None:
        if x is None:
            return None
        return math.log(x) if x > 0 else (-math.inf if x == 0 else None)

    def _exp(x: float | None) -> float | None:
        if x is None:
            return None
        try:
            return math.exp(x)
        except OverflowError:
            return math.inf

    def _floor(x: float | None) -> float | None:
        return None if x is None else float(math.floor(x)) if math.isfinite(x) else x

    added: list[str] = []
    for name, func in (("LN", _ln), ("EXP", _exp), ("FLOOR", _floor)):
        try:
            connection.execute(f"SELECT {name}(1.0)")
        except sqlite3.OperationalError:
            connection.create_function(name, 1, func, deterministic=True)
            added.append(name)
    return added
