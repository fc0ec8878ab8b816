"""A test martingale for the calibration of a stream of probabilities (testing by betting).

The null hypothesis: every probability ``p_t`` is calibrated given the past,
``P(y_t = 1 | p_t, past) = p_t``. A gambler who starts with capital 1 and, at each row, buys
the payoff ``q_t / p_t`` if ``y_t = 1`` and ``(1 - q_t) / (1 - p_t)`` if ``y_t = 0`` for an
alternative probability ``q_t`` chosen before ``y_t`` is seen, multiplies the capital by a
factor of conditional mean 1 under the null (at most 1 where ``p_t`` is 0 or 1). The capital is
then a nonnegative (super)martingale, and by Ville's inequality it ever reaches ``1 / alpha``
with probability at most ``alpha``, over the whole stream however long (Shafer & Vovk 2019;
Ramdas, Grunwald, Vovk & Shafer 2023). Each factor is ``1 + lambda_t (y_t - p_t)`` with
``lambda_t = (q_t - p_t) / (p_t (1 - p_t))``: a bet on the sign of ``y - p``.

The alternatives are recalibrations in log-odds, ``logit q = a + b logit p`` for a grid of
intercepts ``a`` (the positive rate moved up or down) and slopes ``b`` (over- or
under-confidence), optionally with the intercept moved within one bin of ``p`` only. The test
capital is a mixture with fixed weights of

- every alternative (uniform weights), and
- every time ``j`` at which the gambler starts betting (capital 1 until then), with weights
  ``w_j = g(j - 1) - g(j)``, ``g(t) = 1 / log(t + e)``, which sum to 1.

A mixture of test martingales with weights summing to one is a test martingale. The mixture
over start times lets capital wait, so a change late in the stream is seen about as fast as one
early: a start at row ``j`` costs ``-log w_j ~ log j + 2 log log j`` nats, where a single
product from row 1 would first have to win back what it lost to a calibrated past. With
``S_k(t)`` the log capital of alternative ``k`` betting from row 1,

    M_t = (1 / K) sum_k exp(S_k(t)) sum_{j <= t} w_j exp(-S_k(j - 1))  +  g(t)

(the last term is the weight of the start times still to come). Both sums are running sums,
computed in log space by ``cumsum`` and ``logaddexp.accumulate``, so a stream fed in batches of
any sizes gives exactly the numbers of one batch.

References
----------
G. Shafer, V. Vovk, "Game-Theoretic Foundations for Probability and Finance", Wiley 2019.
A. Ramdas, P. Grunwald, V. Vovk, G. Shafer, "Game-theoretic statistics and safe anytime-valid
inference", Statistical Science 38 (2023). V. Vovk, "Testing randomness online", Statistical
Science 36 (2021) (test martingales whose capital may wait: "sleepy" jumpers). I. Waudby-Smith, A. Ramdas,
"Estimating means of bounded random variables by betting", JRSS B 86 (2024).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

import numpy as np
from scipy.special import log_expit

if TYPE_CHECKING:
    from collections.abc import Collection

    from venncal._typing import AnyArray, FloatArray

__all__ = [
    "MonitorState",
    "betting_alternatives",
    "initial_state",
    "advance",
    "current_log_martingale",
    "log_factors",
    "check_grid",
    "check_n_bins",
    "monitor_alternatives",
    "MAX_BINS",
    "MAX_ALTERNATIVES",
]

#: log-odds of the probabilities are clipped to [-LOGIT_CLIP, LOGIT_CLIP] to form alternatives
LOGIT_CLIP = 30.0
#: rows processed at once (bounds the memory of one step to rows x alternatives floats)
BLOCK_ROWS = 8192
#: the most bins of ``p`` a monitor bets within (bins of width 0.01; each bin adds
#: ``len(shifts) - 1`` alternatives)
MAX_BINS = 100
#: the most alternatives a monitor bets on (its time per row grows with their number)
MAX_ALTERNATIVES = 10_000


@dataclass(frozen=True)
class MonitorState:
    """The state of a calibration test martingale after ``n_seen`` rows.

    Attributes
    ----------
    n_seen : int
        Rows seen.
    log_wealth : ndarray of shape (K,)
        ``S_k``: log capital of each alternative betting from the first row.
    log_start : ndarray of shape (K,)
        ``log sum_{j <= n_seen} w_j exp(-S_k(j - 1))`` (``-inf`` before the first row).
    log_threshold : float
        ``log(1 / alpha)``: the alarm level.
    alarm_index : int or None
        The first row (from 0) at which the log martingale reached ``log_threshold``.
    log_max : float
        The largest log martingale so far (0 before the first row).
    path : ndarray of shape (n_seen,) or None
        The log martingale after each row, when kept.

    Examples
    --------
    >>> state = initial_state(3, np.log(20))
    >>> state.n_seen, state.alarm_index, state.path
    (0, None, array([], dtype=float64))
    """

    n_seen: int
    log_wealth: FloatArray
    log_start: FloatArray
    log_threshold: float
    alarm_index: int | None
    log_max: float
    path: FloatArray | None


def check_grid(values: object, *, name: str, owner: str) -> FloatArray:
    """Return a non-empty sequence of finite numbers (intercepts or slopes) as a float array.

    Examples
    --------
    >>> check_grid([0.5, 1], name="shifts", owner="CalibrationMonitor")
    array([0.5, 1. ])
    >>> check_grid(1.0, name="shifts", owner="CalibrationMonitor")
    Traceback (most recent call last):
    ...
    ValueError: The 'shifts' parameter of CalibrationMonitor must be a non-empty sequence of finite numbers. Got 1.0 instead.
    """
    arr = None
    if isinstance(values, (list, tuple, np.ndarray)):
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):  # e.g. an integer past a float
            arr = None
    if arr is None or arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
        raise ValueError(
            f"The '{name}' parameter of {owner} must be a non-empty sequence of finite "
            f"numbers. Got {_short(values)} instead."
        )
    return arr


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


def check_n_bins(value: object, *, name: str = "n_bins", owner: str = "CalibrationMonitor") -> int:
    """Return ``n_bins``, an integer in [1, MAX_BINS], or raise one line.

    Examples
    --------
    >>> check_n_bins(10**6)
    Traceback (most recent call last):
    ...
    ValueError: The 'n_bins' parameter of CalibrationMonitor must be an integer in [1, 100]. Got 1000000 instead.
    """
    count = (
        int(value)
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
        else None
    )
    if count is None or not 1 <= count <= MAX_BINS:
        raise ValueError(
            f"The '{name}' parameter of {owner} must be an integer in [1, {MAX_BINS}]. "
            f"Got {_short(value)} instead."
        )
    return count


def monitor_alternatives(
    shifts: object, slopes: object, n_bins: object, *, owner: str = "CalibrationMonitor"
) -> FloatArray:
    """The alternatives of a monitor's parameters, checked (sizes before anything is built).

    Raises
    ------
    ValueError
        With one line, for a bad grid or ``n_bins``, more than ``MAX_ALTERNATIVES``
        alternatives, or only the null to bet on.

    Examples
    --------
    >>> monitor_alternatives([0.0, 1.0], [1.0], 1)
    array([[-1.,  1.,  1.]])
    >>> monitor_alternatives(list(range(200)), list(range(100)), 1)
    Traceback (most recent call last):
    ...
    ValueError: CalibrationMonitor would bet on 20000 alternatives, more than 10000: give fewer shifts, slopes or bins.
    """
    a = check_grid(shifts, name="shifts", owner=owner)
    b = check_grid(slopes, name="slopes", owner=owner)
    bins = check_n_bins(n_bins, owner=owner)
    nonzero = int(np.count_nonzero(a))
    count = a.size * b.size + (bins * nonzero if bins > 1 else 0)
    if count > MAX_ALTERNATIVES:
        raise ValueError(
            f"{owner} would bet on {count} alternatives, more than {MAX_ALTERNATIVES}: give "
            "fewer shifts, slopes or bins."
        )
    alternatives = betting_alternatives(a, b, bins)
    if alternatives.shape[0] == 0:
        raise ValueError(
            f"{owner} has nothing to bet on: 'shifts' and 'slopes' give only the null "
            "(intercept 0, slope 1)."
        )
    return alternatives


def betting_alternatives(
    shifts: Collection[float], slopes: Collection[float], n_bins: int = 1
) -> FloatArray:
    """The alternatives of the mixture as rows ``(bin, a, b)``.

    Every pair of an intercept in ``shifts`` and a slope in ``slopes`` except ``(0, 1)`` (the
    null itself) applies to every probability (``bin = -1``); with ``n_bins > 1``, every
    nonzero intercept also applies within each of ``n_bins`` equal-width bins of ``p`` alone.

    Examples
    --------
    >>> betting_alternatives([-1.0, 0.0, 1.0], [1.0, 2.0])
    array([[-1., -1.,  1.],
           [-1., -1.,  2.],
           [-1.,  0.,  2.],
           [-1.,  1.,  1.],
           [-1.,  1.,  2.]])
    """
    rows = [(-1.0, a, b) for a in shifts for b in slopes if not (a == 0 and b == 1)]
    if n_bins > 1:
        rows += [(float(m), a, 1.0) for m in range(n_bins) for a in shifts if a != 0]
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


def initial_state(
    n_alternatives: int, log_threshold: float, keep_path: bool = True
) -> MonitorState:
    """The state before the first row: capital 1 everywhere.

    Examples
    --------
    >>> initial_state(2, np.log(20)).log_start
    array([-inf, -inf])
    """
    return MonitorState(
        n_seen=0,
        log_wealth=np.zeros(n_alternatives),
        log_start=np.full(n_alternatives, -np.inf),
        log_threshold=float(log_threshold),
        alarm_index=None,
        log_max=0.0,
        path=np.zeros(0) if keep_path else None,
    )


def _log_g(t: FloatArray | float) -> FloatArray | np.float64:
    """``log g(t) = -log log(t + e)``."""
    return -np.log(np.log(t + np.e))


def _log_start_weights(j: FloatArray) -> FloatArray:
    """``log w_j`` for start times ``j >= 1``: ``w_j = g(j-1) - g(j)``, computed stably."""
    low = np.log(j - 1 + np.e)
    high = np.log(j + np.e)
    return np.log(np.log1p(1.0 / (j - 1 + np.e))) - np.log(low) - np.log(high)


def log_factors(p: FloatArray, y: AnyArray, alternatives: FloatArray) -> FloatArray:
    """Log betting factors, shape (n, K): ``log(q/p)`` where ``y = 1``, ``log((1-q)/(1-p))``
    where ``y = 0``, for clean ``p`` in [0, 1] and ``y`` in {0, 1}.

    Rows outside an alternative's bin get factor 1 (log 0). A factor is ``+inf`` where the
    null says the label was impossible (``p = 0`` and ``y = 1``, or ``p = 1`` and ``y = 0``).

    Examples
    --------
    >>> alt = betting_alternatives([1.0], [1.0])
    >>> np.exp(log_factors(np.array([0.5, 0.5]), np.array([1, 0]), alt)).round(4)
    array([[1.4621],
           [0.5379]])
    """
    with np.errstate(divide="ignore"):
        logit = np.log(p) - np.log1p(-p)
        log_p, log_1mp = np.log(p), np.log1p(-p)
    z = np.clip(logit, -LOGIT_CLIP, LOGIT_CLIP)[:, None]
    positive = y == 1
    sign = np.where(positive, 1.0, -1.0)[:, None]
    # log q where y = 1, log(1 - q) where y = 0, with logit q = a + b z
    eta = sign * (alternatives[:, 1] + alternatives[:, 2] * z)
    out: FloatArray = log_expit(eta) - np.where(positive, log_p, log_1mp)[:, None]
    binned = alternatives[:, 0] >= 0
    if binned.any():
        n_bins = int(alternatives[binned, 0].max()) + 1
        bins = np.minimum((p * n_bins).astype(np.intp), n_bins - 1)
        outside = binned[None, :] & (bins[:, None] != alternatives[None, :, 0])
        out[outside] = 0.0
    return out


def advance(
    state: MonitorState, p: FloatArray, y: AnyArray, alternatives: FloatArray
) -> tuple[MonitorState, FloatArray]:
    """The state after the rows ``(p, y)``, and the log martingale after each of them.

    Parameters
    ----------
    state : MonitorState
    p : ndarray of shape (n,)
        Clean probabilities in [0, 1].
    y : ndarray of shape (n,)
        Labels in {0, 1}.
    alternatives : ndarray of shape (K, 3)
        From :func:`betting_alternatives`.

    Returns
    -------
    state : MonitorState
    log_martingale : ndarray of shape (n,)

    Examples
    --------
    >>> alt = betting_alternatives([-1.0, 1.0], [1.0])
    >>> state = initial_state(len(alt), np.log(20))
    >>> state, path = advance(state, np.full(4, 0.1), np.ones(4, dtype=int), alt)
    >>> bool(path[-1] > path[0] > 0), state.n_seen
    (True, 4)
    """
    log_wealth, log_start = state.log_wealth, state.log_start
    paths = []
    n0 = state.n_seen
    for lo in range(0, p.shape[0], BLOCK_ROWS):
        pb, yb = p[lo : lo + BLOCK_ROWS], y[lo : lo + BLOCK_ROWS]
        m = pb.shape[0]
        factors = log_factors(pb, yb, alternatives)
        # S_k after each row; running sums carried across blocks and batches exactly
        wealth = np.cumsum(np.vstack([log_wealth[None, :], factors]), axis=0)
        before = wealth[:-1]  # S_k(j - 1) for the rows j of this block
        wealth = wealth[1:]
        t = np.arange(n0 + lo + 1, n0 + lo + m + 1, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            terms = _log_start_weights(t)[:, None] - before
        terms = np.where(np.isnan(terms), -np.inf, terms)
        start = np.logaddexp.accumulate(np.vstack([log_start[None, :], terms]), axis=0)[1:]
        paths.append(_combine(wealth, start, t))
        log_wealth, log_start = wealth[-1], start[-1]
    path = np.concatenate(paths) if paths else np.zeros(0)
    alarm = state.alarm_index
    if alarm is None:
        crossed = np.flatnonzero(path >= state.log_threshold)
        if crossed.size:
            alarm = n0 + int(crossed[0])
    log_max = max(state.log_max, float(path.max())) if path.size else state.log_max
    kept = None if state.path is None else np.concatenate([state.path, path])
    new = MonitorState(
        n0 + p.shape[0],
        np.array(log_wealth, dtype=np.float64),
        np.array(log_start, dtype=np.float64),
        state.log_threshold,
        alarm,
        log_max,
        kept,
    )
    return new, path


@overload
def _combine(log_wealth: FloatArray, log_start: FloatArray, t: FloatArray) -> FloatArray: ...


@overload
def _combine(log_wealth: FloatArray, log_start: FloatArray, t: float) -> np.float64: ...


def _combine(
    log_wealth: FloatArray, log_start: FloatArray, t: FloatArray | float
) -> FloatArray | np.float64:
    """``log M_t`` from the running sums (rows of ``log_wealth`` and ``log_start``) at ``t``."""
    with np.errstate(invalid="ignore"):
        combined = log_wealth + log_start
    combined[np.isnan(combined)] = np.inf  # +inf wealth meets a start sum of -inf: still +inf
    top = np.max(combined, axis=-1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(np.exp(combined - top), axis=-1)
        mixed = np.log(total) + top[..., 0] - np.log(log_wealth.shape[-1])
    log_m: FloatArray | np.float64 = np.logaddexp(mixed, _log_g(t))
    return log_m


def current_log_martingale(state: MonitorState) -> float:
    """The log martingale after the last row of ``state`` (0 before the first).

    Examples
    --------
    >>> alt = betting_alternatives([-1.0, 1.0], [1.0])
    >>> state, path = advance(initial_state(2, np.log(20)), np.array([0.3]), np.array([1]), alt)
    >>> bool(current_log_martingale(state) == path[-1])
    True
    """
    if state.n_seen == 0:
        return 0.0
    return float(_combine(state.log_wealth, state.log_start, float(state.n_seen)))
