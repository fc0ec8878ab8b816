"""Agreement of reproduced numbers with the numbers a paper prints, cell by cell.

Each cell compares our value with the paper's within a tolerance stated with it: the paper's
own uncertainty where it gives one, otherwise our replicate spread (see each study). A cell
**agrees** when ``|ours - paper| <= tolerance``, is **higher** or **lower** when it differs, and
is **not comparable** when the paper's value is missing or the design that produced it is
unknown. Two infinite values of the same sign agree.

A block of cells (a row of a paper's table) gets one :class:`~venncal.experiments.claims.Check`
with three verdicts:

* **confirmed**: at least half of the comparable cells agree and the differing cells show no
  systematic direction (a two-sided sign test on higher against lower, p >= 0.05);
* **contradicted**: no comparable cell agrees, or the differing cells are systematically on
  one side (sign test p < 0.05); a uniform shift of our numbers away from the paper's is caught
  here;
* **inconclusive**: otherwise (most cells differ, in both directions).

Examples
--------
>>> cells = cell_status([0.50, 0.31, 0.72], [0.50, 0.30, 0.60], [0.01, 0.02, 0.05])
>>> list(cells)
['agrees', 'agrees', 'higher']
>>> block_check(cells).holds
True
>>> shifted = cell_status([0.60, 0.41, 0.82], [0.50, 0.30, 0.60], [0.01, 0.02, 0.05])
>>> list(shifted), block_check(shifted).holds
(['higher', 'higher', 'higher'], False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.experiments.claims import Check

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

__all__ = ["STATUSES", "cell_status", "block_counts", "block_check", "block_words"]

STATUSES = ("agrees", "higher", "lower", "not comparable")
#: two-sided level of the sign test for a systematic direction
ALPHA = 0.05


def cell_status(ours: ArrayLike, paper: ArrayLike, tolerance: ArrayLike) -> np.ndarray:
    """The status of each cell: ``"agrees"``, ``"higher"``, ``"lower"`` or ``"not comparable"``.

    Parameters
    ----------
    ours, paper, tolerance : array-like of shape (n_cells,)
        Our value, the paper's (NaN: not comparable) and the tolerance of the comparison (NaN:
        not comparable, e.g. a design we cannot know).

    Returns
    -------
    ndarray of str, shape (n_cells,)
    """
    a = np.asarray(ours, dtype=float)
    b = np.asarray(paper, dtype=float)
    t = np.broadcast_to(np.asarray(tolerance, dtype=float), a.shape)
    out = np.full(a.shape, "not comparable", dtype=object)
    known = ~(np.isnan(a) | np.isnan(b) | np.isnan(t))
    both_inf = known & np.isinf(a) & np.isinf(b) & (np.sign(a) == np.sign(b))
    with np.errstate(invalid="ignore"):
        d = np.where(both_inf, 0.0, a - b)
    out[known & (np.abs(d) <= t)] = "agrees"
    out[known & (d > t)] = "higher"
    out[known & (d < -t)] = "lower"
    return out


def block_counts(status: Sequence[str] | np.ndarray) -> dict[str, int]:
    """How many cells of a block have each status."""
    s = list(status)
    return {k: s.count(k) for k in STATUSES}


def _sign_p(higher: int, lower: int) -> float:
    if higher + lower == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(higher, higher + lower, 0.5).pvalue)


def block_check(status: Sequence[str] | np.ndarray) -> Check:
    """The three-way verdict of a block of cells (see the module description).

    Examples
    --------
    >>> from venncal.experiments.claims import full_state
    >>> full_state(block_check(["higher", "lower", "higher", "agrees"])) is None
    True
    >>> full_state(block_check(["lower"]))
    False
    """
    c = block_counts(status)
    n = c["agrees"] + c["higher"] + c["lower"]
    if n == 0:
        return Check(holds=False, refuted=False)
    differ = c["higher"] + c["lower"]
    p = _sign_p(c["higher"], c["lower"])
    systematic = differ == n or p < ALPHA
    confirmed = not systematic and 2 * c["agrees"] >= n
    return Check(holds=bool(confirmed), refuted=bool(systematic))


def block_words(status: Sequence[str] | np.ndarray) -> str:
    """The counts of a block in words, for a check's statement.

    Examples
    --------
    >>> block_words(["agrees", "higher", "not comparable"])
    'agrees in 1 of 2 comparable cells; ours higher in 1, lower in 0 (sign test p = 1)'
    """
    c = block_counts(status)
    n = c["agrees"] + c["higher"] + c["lower"]
    p = _sign_p(c["higher"], c["lower"])
    return (
        f"agrees in {c['agrees']} of {n} comparable cells; ours higher in {c['higher']}, lower "
        f"in {c['lower']} (sign test p = {p:.2g})"
    )
