"""Monitoring deployed probabilities for a loss of calibration, with a test martingale."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator

from venncal._validation import (
    check_bool,
    check_consistent_length,
    check_in_range,
    check_labels01,
    check_probabilities,
)
from venncal.core.betting import (
    BLOCK_ROWS,
    MonitorState,
    advance,
    current_log_martingale,
    initial_state,
    monitor_alternatives,
)

if TYPE_CHECKING:
    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import ArrayLike, FloatArray

__all__ = ["CalibrationMonitor"]

_SHIFTS = (-2.0, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0)
_SLOPES = (0.5, 0.75, 1.0, 1.5, 2.0)
#: the most (row, alternative) pairs of one step: a batch is fed in pieces of at most this
#: many cells, so memory stays bounded however many alternatives there are
_CELLS = 64 * BLOCK_ROWS


class CalibrationMonitor(BaseEstimator):
    """Sound an alarm when deployed probabilities stop being calibrated.

    Feed it the probabilities a model gave and the labels as they arrive, in time order, in
    batches of any size (:meth:`update`). It keeps a *test martingale*: the capital of a
    gambler who bets, row by row, that the labels come out more (or less) often than the
    probabilities say. While the probabilities are calibrated no betting strategy can win in
    expectation, so by Ville's inequality the capital ever reaches ``1 / alpha`` with
    probability at most ``alpha``, over the whole stream, however long, and however often you
    look. When it does, the alarm fires.

    Parameters
    ----------
    alpha : float in (0, 1), default=0.05
        The probability of a false alarm over the whole stream while the probabilities stay
        calibrated (NaN and values outside (0, 1) are refused with a ``ValueError``).
    shifts : sequence of float, default=(-2, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 2)
        Intercepts ``a`` of the alternatives ``logit q = a + b logit p`` the gambler bets on
        (log-odds; 0.5 moves a probability of 0.2 to 0.29).
    slopes : sequence of float, default=(0.5, 0.75, 1, 1.5, 2)
        Slopes ``b`` of the alternatives (below 1: the probabilities are over-confident,
        above 1: under-confident).
    n_bins : int in [1, 100], default=1
        With more than one, the intercepts are also bet on within each of ``n_bins``
        equal-width bins of ``p`` alone (a loss of calibration in one range of
        probabilities); each bin adds ``len(shifts) - 1`` alternatives. At most
        ``MAX_BINS`` = 100 bins (of width 0.01), and at most ``MAX_ALTERNATIVES`` = 10,000
        alternatives in all (``venncal.core.betting``): the time per row grows with their
        number.
    keep_path : bool, default=True
        Keep the log martingale after every row in ``martingale_`` (8 bytes a row). Without
        it memory stays constant and :meth:`advance` returns each batch's path.

    Attributes
    ----------
    alarm_ : bool
        Whether the martingale has reached ``1 / alpha``.
    alarm_index_ : int or None
        The first row (counting from 0 over the whole stream) at which it did.
    martingale_ : ndarray of shape (n_seen,) or None
        The natural log of the martingale after each of the ``n_seen_`` rows (None with
        ``keep_path=False``); the alarm level is ``threshold_ = log(1 / alpha)``.
    log_martingale_ : float
        Its current value (0 before any row).
    n_seen_ : int
        Rows seen.
    threshold_ : float
        ``log(1 / alpha)``.
    state_ : MonitorState
        Everything the monitor needs to go on (saved in model files).
    alternatives_ : ndarray of shape (K, 3)
        The alternatives bet on: ``(bin, a, b)``, bin -1 for every probability.
    classes_ : ndarray of shape (2,)
        ``[0, 1]``: the labels read (1 is the class the probabilities are of).

    Notes
    -----
    **The null hypothesis**, in words: *each probability is right for the rows it is given to*,
    ``P(y = 1 | p) = p``, row by row given everything before (so the labels may depend on the
    past only through ``p``). Rows may come from any distribution that changes in any way
    over time; only the link between ``p`` and the label is tested.

    **What it sees**: the positive rate drifting above or below the probabilities
    (calibration in the large), the probabilities becoming over- or under-confident (the
    slope of the log-odds), and with ``n_bins`` a loss of calibration within one range of
    probabilities; abrupt or gradual, early or late (the mixture over start times gives a
    late change the power of an early one at the price of about ``log t`` nats). The larger
    the change, the faster: roughly ``(log(1 / alpha) + log t + log K) / KL`` rows after a
    change at row ``t``, with ``K`` the number of alternatives and ``KL`` the Kullback-Leibler
    divergence per row between the labels' true and stated distributions (about
    ``2 delta^2`` for a change ``delta`` of the positive rate near 0.5).

    **What it cannot see**: a change in the features that leaves the probabilities
    calibrated (covariate shift of a well-specified model: no harm is done to calibration,
    though accuracy may fall), a loss of discrimination at intact calibration, a
    miscalibration that is not of the bet shapes and averages out over them (e.g. too
    high in one narrow range, too low in another, at the same mean log-odds), anything
    before the labels arrive, and dependence between rows that keeps each label calibrated.

    **After an alarm** the martingale keeps running but the alarm stays. To refresh, refit
    or update the calibrator on recent labelled data (``partial_fit`` of the count-based
    calibrators, or a new fit on a sliding window) and start a fresh monitor
    (``sklearn.base.clone(monitor)``). Each restart is a new test at level ``alpha``.

    The martingale is a mixture of betting martingales ``prod (1 + lambda (y - p))`` over the
    alternatives and over the row at which betting starts (:mod:`venncal.core.betting`):
    testing by betting (Shafer & Vovk 2019; Ramdas et al. 2023; Waudby-Smith & Ramdas 2024),
    with capital that may wait before it bets, as in the "sleepy" conformal test martingales
    of Vovk (2021). Conformal test martingales (Volkhonskiy et al. 2017) were the other
    candidate; they test whether the *data* stay exchangeable, so they alarm at any shift of
    the features, harmful or not, and do not use what the probabilities claim. The null here
    is the claim itself, so a harmless covariate shift raises no alarm, and the test needs
    no calibration data of its own.

    References
    ----------
    G. Shafer, V. Vovk, "Game-Theoretic Foundations for Probability and Finance" (2019). A.
    Ramdas, P. Grunwald, V. Vovk, G. Shafer, "Game-theoretic statistics and safe
    anytime-valid inference", Statistical Science 38 (2023). I. Waudby-Smith, A. Ramdas,
    "Estimating means of bounded random variables by betting", JRSS B 86 (2024). V. Vovk,
    "Testing randomness online", Statistical Science 36 (2021). D. Volkhonskiy, E. Burnaev,
    I. Nouretdinov, A. Gammerman, V. Vovk, "Inductive conformal martingales for change-point
    detection", COPA 2017. J. Ville, "Etude critique de la notion de collectif" (1939).

    Examples
    --------
    Calibrated probabilities for 1,000 rows, then the positive rate rises by 0.2:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.1, 0.7, size=2000)
    >>> y = rng.random(2000) < p + np.where(np.arange(2000) >= 1000, 0.2, 0.0)
    >>> monitor = CalibrationMonitor(alpha=0.05)
    >>> for start in range(0, 2000, 100):  # labels arrive in batches
    ...     _ = monitor.update(p[start:start + 100], y[start:start + 100])
    >>> monitor.alarm_, monitor.alarm_index_ > 1000
    (True, True)
    >>> bool(monitor.martingale_[monitor.alarm_index_] >= np.log(1 / 0.05))
    True
    """

    def __init__(
        self,
        alpha: float = 0.05,
        *,
        shifts: ArrayLike = _SHIFTS,
        slopes: ArrayLike = _SLOPES,
        n_bins: int = 1,
        keep_path: bool = True,
    ) -> None:
        self.alpha = alpha
        self.shifts = shifts
        self.slopes = slopes
        self.n_bins = n_bins
        self.keep_path = keep_path

    def _grid(self):
        owner = type(self).__name__
        check_in_range(self.alpha, 0.0, 1.0, name="alpha", owner=owner)
        check_bool(self.keep_path, name="keep_path", owner=owner)
        # sizes are checked before the alternatives are built
        return monitor_alternatives(self.shifts, self.slopes, self.n_bins, owner=owner)

    def _start(self):
        alternatives = self._grid()
        self.alternatives_ = alternatives
        self.state_ = initial_state(
            alternatives.shape[0], -np.log(self.alpha), keep_path=bool(self.keep_path)
        )
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1

    def _check_state(self):
        alternatives = self._grid()
        state = self.state_
        same = (
            isinstance(state, MonitorState)
            and np.array_equal(alternatives, self.alternatives_)
            and state.log_wealth.shape == (alternatives.shape[0],)
            and np.isclose(state.log_threshold, -np.log(self.alpha), rtol=1e-12, atol=0)
        )
        if not same:
            raise ValueError(
                f"This {type(self).__name__}'s parameters were changed after it started; "
                "start a new monitor (sklearn.base.clone) to use other parameters."
            )

    def advance(self, p: ArrayLike, y: ArrayLike) -> FloatArray:
        """Add a batch of rows and return the log martingale after each of them.

        Parameters
        ----------
        p : array-like of shape (n,) or (n, 2)
            The probabilities the model gave (of the positive class), in time order.
        y : array-like of shape (n,)
            The labels that arrived for those rows: 0/1 or booleans.

        Returns
        -------
        log_martingale : ndarray of shape (n,)

        Examples
        --------
        >>> monitor = CalibrationMonitor(keep_path=False)
        >>> monitor.advance([0.5, 0.5], [1, 0]).shape
        (2,)
        """
        if not hasattr(self, "state_"):
            self._start()
        else:
            self._check_state()
        if np.size(p) == 0 and np.size(y) == 0:  # an empty batch changes nothing
            return np.zeros(0)
        prob = check_probabilities(p, name="p")
        labels = check_labels01(y, name="y")
        check_consistent_length(p=prob, y=labels)
        step = max(1, _CELLS // self.alternatives_.shape[0])
        if prob.shape[0] <= step:
            self.state_, path = advance(self.state_, prob, labels, self.alternatives_)
            return path
        # in pieces of bounded memory (the same numbers as one piece); the kept path is
        # joined once at the end
        kept = self.state_.path
        state = dataclasses.replace(self.state_, path=None)
        parts = []
        for lo in range(0, prob.shape[0], step):
            state, part = advance(
                state, prob[lo : lo + step], labels[lo : lo + step], self.alternatives_
            )
            parts.append(part)
        path = np.concatenate(parts)
        joined = None if kept is None else np.concatenate([kept, path])
        self.state_ = dataclasses.replace(state, path=joined)
        return path

    def update(self, p: ArrayLike, y: ArrayLike) -> Self:
        """Add a batch of rows (probabilities and their labels, in time order).

        Batches may be of any size, including one row; the result is the same as one batch
        of all the rows.

        Parameters
        ----------
        p : array-like of shape (n,) or (n, 2)
            The probabilities the model gave (of the positive class).
        y : array-like of shape (n,)
            Their labels: 0/1 or booleans.

        Returns
        -------
        self : CalibrationMonitor

        Examples
        --------
        >>> monitor = CalibrationMonitor().update([0.2, 0.9, 0.4], [0, 1, 1])
        >>> monitor.alarm_, monitor.n_seen_
        (False, 3)
        """
        self.advance(p, y)
        return self

    # the public fitted attributes are views of the state, so a model file holds it once
    @property
    def alarm_(self) -> bool:
        return self.state_.alarm_index is not None

    @property
    def alarm_index_(self) -> int | None:
        return self.state_.alarm_index

    @property
    def martingale_(self) -> FloatArray | None:
        return self.state_.path

    @property
    def log_martingale_(self) -> float:
        path = self.state_.path
        if path is not None and path.size:
            return float(path[-1])
        return current_log_martingale(self.state_)

    @property
    def n_seen_(self) -> int:
        return self.state_.n_seen

    @property
    def threshold_(self) -> float:
        return self.state_.log_threshold

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.requires_fit = True
        return tags
