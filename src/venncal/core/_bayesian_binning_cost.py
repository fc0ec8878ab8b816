"""What an exact Bayesian-binning fit costs: its expected time, and the warning before a slow
one (split from :mod:`venncal.core.bayesian_binning`)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from venncal.core import _bayesian_binning_scan as _scan
from venncal.core._jit import HAVE_NUMBA
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from venncal._typing import FloatArray

__all__ = ["expected_seconds"]

_MAX_TABLE = 4_000_000  # largest total count for the log-factorial tables (32 MB each)

#: Warn before a fit expected to take longer than this many seconds.
_WARN_SECONDS = 10.0
#: Seconds per N^2 (N distinct scores) measured on one core of a 2020s laptop CPU: the compiled
#: kernels with whole-number counts, and the numpy loops (fractional counts or no numba). The
#: exact ABB carries the rows of positions that hold at most 8 examples at a tenth of that cost
#: (``_SECONDS_PER_N2_CARRIED``, labels independent of the scores: the slowest case).
_SECONDS_PER_N2 = {
    ("averaging", True): 5e-9,
    ("selection", True): 1.5e-9,
    ("averaging", False): 8e-8,
    ("selection", False): 2.6e-8,
}
_SECONDS_PER_N2_CARRIED = 4e-10


def _is_integer(n0: FloatArray, n1: FloatArray) -> bool:
    total = float(np.sum(n0) + np.sum(n1))
    return bool(total <= _MAX_TABLE and np.all(n0 == np.rint(n0)) and np.all(n1 == np.rint(n1)))


def expected_seconds(
    n_positions: int,
    method: str = "averaging",
    *,
    compiled: bool = True,
    averaging: str = "exact",
    carried: float = 1.0,
) -> float:
    """Rough time of an exact Bayesian-binning fit of ``n_positions`` distinct scores.

    Parameters
    ----------
    n_positions : int
        Number of distinct calibration scores ``N``.
    method : {"averaging", "selection"}, default="averaging"
    compiled : bool, default=True
        Whether the compiled kernels run (numba installed and whole-number counts).
    averaging : {"exact", "paper"}, default="exact"
        The ABB weighting (see :func:`fit_bayesian_binning`).
    carried : float, default=1.0
        The share of the distinct scores that hold at most 8 calibration examples (1 when
        scores rarely tie). The compiled exact ABB carries their rows from the previous row,
        at about a tenth of the cost of the others.

    Returns
    -------
    float
        Seconds, from the O(N^2) growth measured on one laptop core; take it as an order of
        magnitude.

    Examples
    --------
    >>> round(expected_seconds(200_000))
    16
    >>> round(expected_seconds(200_000, carried=0.0))
    200
    """
    rate = _SECONDS_PER_N2[(method, bool(compiled))]
    if method == "averaging" and compiled and averaging == "exact":
        rate = carried * _SECONDS_PER_N2_CARRIED + (1.0 - carried) * rate
    return rate * float(n_positions) ** 2


def _warn_if_slow(
    big_n: int, n0: FloatArray, n1: FloatArray, method: str, engine: str, averaging: str = "exact"
) -> None:
    compiled = HAVE_NUMBA and engine != "numpy" and _is_integer(n0, n1)
    carried = float(np.mean((n0 + n1) <= _scan._MAX_CARRY)) if big_n else 1.0
    seconds = expected_seconds(
        big_n, method, compiled=compiled, averaging=averaging, carried=carried
    )
    if seconds > _WARN_SECONDS:
        # pooled groups hold many examples each: the rate of positions that are not carried
        suggested = int(np.sqrt(_WARN_SECONDS / _SECONDS_PER_N2[(method, compiled)]))
        warnings.warn(
            f"Bayesian binning of {big_n} distinct scores takes O(N^2) time, about "
            f"{seconds:.0f} s here; pass max_positions={suggested} to pool neighbouring scores "
            "(or round the scores) for a faster fit.",
            VenncalWarning,
            stacklevel=3,
        )
