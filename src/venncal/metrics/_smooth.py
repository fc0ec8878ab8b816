"""Smooth calibration error and the kernel-smoothed calibration curve (numpy and scipy only).

Blasiok & Nakkiran (2024) replace the bins of the ECE by a Gaussian kernel that is reflected at
0 and 1: a prediction ``f`` spreads over ``[0, 1]`` with the density ``K(t, f)`` of
``pi(f + eta)``, ``eta ~ N(0, sigma^2)``, where ``pi`` folds the real line onto ``[0, 1]``
(``pi(x) = x`` on ``[0, 1]``, ``pi(-x) = pi(x)``, ``pi(x + 2) = pi(x)``), so that

.. math:: K(t, f) = \\sum_{k \\in \\mathbb{Z}} \\varphi_\\sigma(t - f + 2k)
          + \\varphi_\\sigma(t + f + 2k).

With weights ``w_i`` summing to ``W``, the kernel density and the kernel regression of the
residual are

.. math:: \\hat\\delta(t) = \\frac{1}{W} \\sum_i w_i K(t, f_i), \\qquad
          \\hat r(t) = \\frac{\\sum_i w_i K(t, f_i) (y_i - f_i)}{\\sum_i w_i K(t, f_i)},

and ``smECE_sigma = int_0^1 |r(t)| delta(t) dt = (1/W) int_0^1 |sum_i w_i K(t, f_i)
(y_i - f_i)| dt``. The bandwidth is the fixed point ``sigma* = smECE_sigma*``, which exists and
is unique because ``smECE_sigma`` does not increase with ``sigma`` (the paper's Section 5).

Computation. The sums over the predictions are evaluated on the grid ``t_j = j / m``: each
prediction is split between its two neighbouring grid points in proportion to its distance
(linear binning, which keeps the weight and the mean of every prediction), the grid is mirrored
into a circle of length 2 (the reflections of ``K`` are then a circular convolution, with every
reflection counted), and the convolution with the Gaussian is a product of discrete Fourier
transforms with the Gaussian's characteristic function ``exp(-(pi sigma k)^2 / 2)``. The grid
spacing is at most ``sigma / 32`` (``m`` a power of two, at least 1024): the linear binning
then changes every kernel value by at most ``h^2 / 8`` times its second derivative, about
``1e-4`` of its height, and the integral is the trapezoid rule on the same grid. The result
agrees with the definition evaluated directly to about ``1e-5`` (the tests compare with a
direct sum over every prediction). The work is ``O(n + m log m)`` per bandwidth.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from venncal._validation import check_positive_int
from venncal.metrics._common import fill_doc, prepare

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import ArrayLike, FloatArray

__all__ = ["SmoothCalibrationCurve", "smooth_calibration_curve", "smooth_ece"]

#: Grid points per bandwidth (the grid spacing is at most ``sigma / _POINTS_PER_SIGMA``).
_POINTS_PER_SIGMA = 32
#: Smallest and largest number of grid intervals.
_MIN_GRID = 2**10
_MAX_GRID = 2**19
#: Smallest bandwidth accepted, and the smallest the automatic choice returns.
MIN_BANDWIDTH = 1e-4
#: The automatic bandwidth is searched in ``[_SEARCH_LOW, 1]``: below 0.001 the error itself is
#: below 0.001 and the search stops there (as the authors' implementation does).
_SEARCH_LOW = 1e-3
#: Halvings of ``[0, 1]`` in the reference implementation's bandwidth search.
_HALVINGS = 10
#: Where the density falls below this share of its largest value the smoothed curve is NaN:
#: the convolution's rounding (about 1e-16 of the largest value) dominates there.
_DENSITY_FLOOR = 1e-9


def _grid_size(sigma: float) -> int:
    m = _MIN_GRID
    while m < _MAX_GRID and m * sigma < _POINTS_PER_SIGMA:
        m *= 2
    return m


class _Smoother:
    """Kernel sums ``sum_i c_i K(t_j, f_i)`` on grids ``t_j = j / m`` for several columns ``c``.

    The predictions are binned once, on the finest grid needed (that of the smallest bandwidth
    ``min_sigma``); a coarser grid (``m`` a power of two, so its points are among the fine
    ones) gets the linear binning of the fine grid's masses, which equals the linear binning of
    the predictions themselves (linear interpolation within a coarse cell composes exactly).
    """

    def __init__(self, p: FloatArray, columns: list[FloatArray], min_sigma: float) -> None:
        self.columns = columns
        self.fine = _grid_size(min_sigma)
        pos = p * self.fine
        j = np.minimum(pos.astype(np.intp), self.fine - 1)  # floor: pos >= 0
        frac = pos - j
        self._fine: list[FloatArray] = []
        for c in columns:
            # numpy's stubs type every bincount as integer; with weights it is float64
            v = cast(
                "FloatArray", np.bincount(j, weights=(1.0 - frac) * c, minlength=self.fine + 1)
            )
            v += np.bincount(j + 1, weights=frac * c, minlength=self.fine + 1)
            self._fine.append(v)
        self._binned: dict[tuple[int, int], FloatArray] = {}

    def _bin(self, m: int, i: int) -> FloatArray:
        if m == self.fine:
            return self._fine[i]
        key = (m, i)
        if key not in self._binned:
            v = self._fine[i]
            r = self.fine // m
            share = np.arange(r, dtype=np.float64) / r
            cells = v[:-1].reshape(m, r)
            coarse = np.zeros(m + 1)
            coarse[:-1] += cells @ (1.0 - share)
            coarse[1:] += cells @ share
            coarse[m] += v[-1]
            self._binned[key] = coarse
        return self._binned[key]

    def sums(self, sigma: float, count: int | None = None) -> tuple[FloatArray, list[FloatArray]]:
        """Grid ``t`` of ``m + 1`` points and the kernel sums of the first ``count`` columns
        (all when None) on it."""
        m = min(_grid_size(sigma), self.fine)
        count = len(self.columns) if count is None else count
        # mirror [0, 1] into a circle of length 2: interior points appear at t and at -t (= 2 -
        # t), the end points once with twice their mass (each is its own reflection)
        k = np.arange(m + 1, dtype=np.float64)
        multiplier = np.exp(-0.5 * (np.pi * sigma * k) ** 2) * m  # density per unit of t
        out = []
        for i in range(count):
            v = self._bin(m, i)
            circle = np.concatenate((v, v[-2:0:-1]))
            circle[0] *= 2.0
            circle[m] *= 2.0
            smoothed = np.fft.irfft(np.fft.rfft(circle) * multiplier, n=2 * m)[: m + 1]
            out.append(smoothed)
        return np.linspace(0.0, 1.0, m + 1), out


def _trapezoid(values: FloatArray, m: int) -> float:
    inner: np.float64 = values.sum() - 0.5 * (values[0] + values[-1])
    return inner / m


class _DefinitionSmoother(_Smoother):
    """The definition's error: the trapezoid integral of ``|sum_i w_i K(t, f_i)(y_i - f_i)|``
    on the grid, over the total weight."""

    def error(self, sigma: float, total: float) -> float:
        t, (resid,) = self.sums(sigma, count=1)
        return _trapezoid(np.abs(resid), t.shape[0] - 1) / total

    def curve(self, sigma: float, total: float) -> tuple[FloatArray, list[FloatArray], float]:
        grid, columns = self.sums(sigma)
        return grid, columns, _trapezoid(np.abs(columns[0]), grid.shape[0] - 1) / total


class _ReferenceSmoother:
    """Kernel sums discretised as in the authors' published implementation (``relplot``).

    For a bandwidth ``sigma`` the predictions are linearly binned on ``g = max(2000,
    round(20 / sigma)) // 2 + 1`` evenly spaced points of ``[0, 1]``; the binned masses are
    mirrored once about each end (the end points themselves are not repeated, so a mass on an
    end point spreads only inwards: half of what the reflected kernel gives it) and convolved
    with the Gaussian sampled on the same spacing and cut at distance 1/2; the result is read
    by linear interpolation at ``e = max(round(10 / sigma), 200)`` evenly spaced points, and the
    error is ``sum_j |R(t_j)| / sum_j D(t_j)`` over them, ``R`` the smoothed residual and ``D``
    the smoothed weight. The binning of a grid size is kept for the next bandwidth that uses it.
    """

    def __init__(self, p: FloatArray, columns: list[FloatArray]) -> None:
        self.p = p
        self.columns = columns
        self._binned: dict[int, list[FloatArray]] = {}

    def _bin(self, g: int) -> list[FloatArray]:
        if g not in self._binned:
            pos = self.p * (g - 1)
            j = np.clip(pos.astype(np.intp), 0, g - 2)
            frac = pos - j
            masses = []
            for c in self.columns:
                v = cast("FloatArray", np.bincount(j, weights=(1.0 - frac) * c, minlength=g))
                v += np.bincount(j + 1, weights=frac * c, minlength=g)
                masses.append(v[:g])
            self._binned = {g: masses}  # one grid size at a time: the search moves slowly
        return self._binned[g]

    def sums(self, sigma: float, count: int | None = None) -> tuple[FloatArray, list[FloatArray]]:
        """Evaluation points and the kernel sums of the first ``count`` columns on them."""
        from scipy.signal import fftconvolve  # loaded on first use: slow to import

        g = max(2000, round(20.0 / sigma)) // 2 + 1
        offsets = np.linspace(0.0, 1.0, g) - 0.5
        kernel = np.exp(-0.5 * (offsets / sigma) ** 2) / (np.sqrt(2.0 * np.pi) * sigma)
        grid = np.linspace(0.0, 1.0, g)
        points = np.linspace(0.0, 1.0, max(round(10.0 / sigma), 200))
        count = len(self.columns) if count is None else count
        out = []
        for v in self._bin(g)[:count]:
            mirrored = np.concatenate((v[:0:-1], v, v[-2::-1]))
            smoothed = fftconvolve(mirrored, kernel, mode="valid")[g // 2 : g // 2 + g]
            out.append(np.interp(points, grid, smoothed))
        return points, out

    @staticmethod
    def _value(resid: FloatArray, dens: FloatArray) -> float:
        mass = dens.sum()
        return float(np.abs(resid).sum() / mass) if mass > 0 else 0.0

    def error(self, sigma: float, total: float) -> float:
        points, (resid, dens) = self.sums(sigma, count=2)
        return self._value(resid, dens)

    def curve(self, sigma: float, total: float) -> tuple[FloatArray, list[FloatArray], float]:
        points, columns = self.sums(sigma)
        resid, dens = columns[0], columns[1]
        value = self._value(resid, dens)
        # the density integrates to the total weight, as the definition's sums do
        scale = total / _trapezoid(np.maximum(dens, 0.0), points.shape[0] - 1)
        return points, [c * scale for c in columns], value


_METHODS = ("reference", "definition")


def _smoother(
    p: FloatArray, columns: list[FloatArray], method: str, min_sigma: float
) -> _ReferenceSmoother | _DefinitionSmoother:
    if method == "reference":
        return _ReferenceSmoother(p, columns)
    return _DefinitionSmoother(p, columns, min_sigma)


def _bisected(gap: Callable[[float], float]) -> float:
    """The reference implementation's search: ten halvings of ``[0, 1]``, keeping the upper
    end, a bandwidth at most ``2**-10`` above the fixed point and never below it."""
    if gap(1.0) > 0.0:
        return 1.0
    high, low = 1.0, 0.0
    for _ in range(_HALVINGS):
        mid = 0.5 * (high + low)
        if mid < _SEARCH_LOW or gap(mid) > 0.0:
            low = mid
        else:
            high = mid
    return high


def _fixed_point(smoother: _ReferenceSmoother | _DefinitionSmoother, total: float) -> float:
    """The bandwidth ``sigma*`` with ``smECE_sigma* = sigma*`` (at least 0.001)."""

    def gap(sigma: float) -> float:
        return smoother.error(sigma, total) - sigma

    if isinstance(smoother, _ReferenceSmoother):
        return _bisected(gap)
    from scipy.optimize import brentq  # loaded on first use: slow to import

    if gap(_SEARCH_LOW) <= 0.0:
        return _SEARCH_LOW
    if gap(1.0) >= 0.0:  # only when every prediction is wrong by 1 (smECE = 1)
        return 1.0
    return float(brentq(gap, _SEARCH_LOW, 1.0, xtol=1e-7, rtol=1e-10))


def _check_bandwidth(bandwidth: float | None, owner: str) -> float | None:
    if bandwidth is None:
        return None
    ok = (
        isinstance(bandwidth, numbers.Real)
        and not isinstance(bandwidth, bool)
        and np.isfinite(bandwidth)
        and bandwidth >= MIN_BANDWIDTH
    )
    if not ok:
        raise ValueError(
            f"The 'bandwidth' parameter of {owner} must be None (the automatic choice) or a "
            f"finite number >= {MIN_BANDWIDTH}. Got {bandwidth!r} instead."
        )
    return float(bandwidth)


def _prepare_smooth(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    sample_weight: ArrayLike | None,
    pos_label: object,
    bandwidth: float | None,
    method: str,
    owner: str,
    curve: bool,
) -> tuple[_ReferenceSmoother | _DefinitionSmoother, float, float]:
    sigma = _check_bandwidth(bandwidth, owner)
    if not (isinstance(method, str) and method in _METHODS):
        raise ValueError(
            f"The 'method' parameter of {owner} must be one of {list(_METHODS)}. "
            f"Got {method!r} instead."
        )
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    columns = [w * (y - p), w]
    if curve:
        columns += [w * y, w * p]
    smoother = _smoother(p, columns, method, _SEARCH_LOW if sigma is None else sigma)
    total = float(w.sum())
    if sigma is None:
        sigma = _fixed_point(smoother, total)
    return smoother, sigma, total


@fill_doc
def smooth_ece(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    bandwidth: float | None = None,
    method: str = "reference",
    pos_label: object = None,
) -> float:
    """Smooth expected calibration error (smECE) of Blasiok & Nakkiran (2024).

    The predictions are smoothed by a Gaussian kernel reflected at 0 and 1 instead of being
    binned, and the calibration error is the integral of the absolute kernel regression of the
    residual ``y - p`` against the kernel density of the predictions:
    ``smECE_sigma = int_0^1 |sum_i w_i K_sigma(t, p_i) (y_i - p_i)| dt / sum_i w_i``. By default
    the bandwidth is the paper's automatic choice, the fixed point ``sigma* = smECE_sigma*``.
    Unlike the binned ECE, the result changes continuously with the predictions and needs no
    choice of bins.

    Parameters
    ----------
    {y_true, y_proba, sample_weight_copies}
    bandwidth : float, default=None
        The kernel's standard deviation ``sigma``, at least 1e-4. None: the fixed point
        ``sigma* = smECE_sigma*``, searched in ``[0.001, 1]`` (when the error at
        ``sigma = 0.001`` is already below 0.001, the search stops there); with
        ``method="reference"`` by ten halvings of ``[0, 1]`` as the reference
        implementation does (a bandwidth at most ``2**-10`` above the fixed point, where the
        error is at most the bandwidth), with ``"definition"`` to 1e-7.
    method : {{"reference", "definition"}}, default="reference"
        How the kernel sums are discretised. ``"reference"``: as in the authors' published
        implementation (the ``relplot`` package), so that the numbers agree with those
        reported with it (to about 1e-4 for a handful of predictions, much closer for more): a
        grid of about ``10 / sigma`` points, the kernel reflected once at each end and cut at
        distance 1/2, and a prediction on an end point (or within one grid step of it)
        spreading only inwards, with up to half the weight the definition gives it. This
        matters where many predictions are 0, 1 or nearly so (trees, isotonic and histogram
        maps): there the reference value can be smaller by several hundredths.
        ``"definition"``: the paper's Definition 3 itself, every reflection counted, within
        about 1e-5.
    {pos_label}

    Returns
    -------
    smece : float
        In [0, 1]. With the automatic bandwidth it equals the bandwidth (or is below 0.001)
        with ``method="definition"``, and is at most the bandwidth, within about 0.001 of
        it, with ``"reference"``.
        :func:`smooth_calibration_curve` returns the bandwidth and the smoothed curve as well.

    Notes
    -----
    The kernel sums are computed with linear binning on a grid and a fast Fourier transform,
    in time ``O(n)`` per grid size plus ``O(m log m)`` per bandwidth tried (about 30 for the
    automatic choice). With ``method="definition"`` the grid spacing is at most
    ``sigma / 32`` and changes the result by about 1e-5 compared with the sums over every
    prediction. A million predictions take a fraction of a second.

    With ``method="definition"`` the kernel is reflected infinitely often (every fold of
    ``pi``), as in the paper's definition; the reference discretisation reflects once on each
    side and cuts the kernel at distance 0.5, which changes the numbers only when ``sigma`` is
    large (badly miscalibrated predictions) or when predictions sit at the ends.

    References
    ----------
    Blasiok & Nakkiran, "Smooth ECE: principled reliability diagrams via kernel smoothing"
    (ICLR 2024), Definition 3 (smECE_sigma with the reflected Gaussian kernel) and Section 5
    (the fixed-point bandwidth).

    Examples
    --------
    Labels drawn from the predicted probabilities give a small smooth ECE, predictions pushed
    towards the ends a larger one:

    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(20_000)
    >>> y = rng.random(p.size) < p
    >>> bool(smooth_ece(y, p) < 0.02)
    True
    >>> over = np.clip(1.5 * p - 0.25, 0, 1)  # overconfident
    >>> round(smooth_ece(y, over), 2)
    0.09

    A fixed bandwidth, and weights that count as copies:

    >>> y4, p4 = [0, 1, 1, 0], [0.2, 0.6, 0.9, 0.3]
    >>> a = smooth_ece(y4, p4, bandwidth=0.1, sample_weight=[1, 2, 1, 1])
    >>> b = smooth_ece([0, 1, 1, 1, 0], [0.2, 0.6, 0.6, 0.9, 0.3], bandwidth=0.1)
    >>> bool(abs(a - b) < 1e-12)
    True
    """
    smoother, sigma, total = _prepare_smooth(
        y_true, y_proba, sample_weight, pos_label, bandwidth, method, "smooth_ece", curve=False
    )
    return float(min(max(smoother.error(sigma, total), 0.0), 1.0))


@dataclass(frozen=True)
class SmoothCalibrationCurve:
    """The kernel-smoothed calibration curve of Blasiok & Nakkiran (2024).

    Attributes
    ----------
    points : ndarray of shape (n_points,)
        Evenly spaced points ``t`` from 0 to 1.
    observed : ndarray of shape (n_points,)
        Kernel regression of the labels at ``t``:
        ``sum_i w_i K(t, p_i) y_i / sum_i w_i K(t, p_i)``; NaN where the density is below
        1e-9 of its largest value (no prediction within reach of the kernel).
    predicted : ndarray of shape (n_points,)
        Kernel regression of the predictions at ``t`` (close to ``t`` where predictions are
        dense); NaN where ``observed`` is.
    density : ndarray of shape (n_points,)
        Kernel density of the predictions on ``[0, 1]`` (integrates to one).
    bandwidth : float
        The kernel's standard deviation ``sigma``.
    smooth_ece : float
        ``int_0^1 |observed - predicted| density dt``, the value of :func:`smooth_ece` at this
        bandwidth.
    """

    points: FloatArray
    observed: FloatArray
    predicted: FloatArray
    density: FloatArray
    bandwidth: float
    smooth_ece: float

    @property
    def residual(self) -> FloatArray:
        """``observed - predicted``: the kernel regression of ``y - p`` at each point."""
        return self.observed - self.predicted


@fill_doc
def smooth_calibration_curve(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    bandwidth: float | None = None,
    method: str = "reference",
    n_points: int = 201,
    pos_label: object = None,
) -> SmoothCalibrationCurve:
    """Kernel-smoothed reliability curve, its density and bandwidth (Blasiok & Nakkiran 2024).

    The curve is the kernel regression of the labels on the predictions with the reflected
    Gaussian kernel of :func:`smooth_ece` and the same bandwidth; the density of the
    predictions under the same kernel shows where the curve rests on data. The smooth ECE is
    the density-weighted mean distance between the curve and the kernel regression of the
    predictions (which is close to the diagonal).

    Parameters
    ----------
    {y_true, y_proba, sample_weight_copies}
    bandwidth : float, default=None
        The kernel's standard deviation, at least 1e-4; None is the automatic choice of
        :func:`smooth_ece` (the fixed point ``sigma* = smECE_sigma*``).
    method : {{"reference", "definition"}}, default="reference"
        The discretisation of the kernel sums, as in :func:`smooth_ece`.
    n_points : int, default=201
        Number of evenly spaced points in ``[0, 1]`` at which the curve is returned (at least
        2, at most 10**6).
    pos_label : int, float, bool or str, default=None
        The label of the positive class, as in :func:`smooth_ece`.

    Returns
    -------
    SmoothCalibrationCurve

    References
    ----------
    Blasiok & Nakkiran, "Smooth ECE: principled reliability diagrams via kernel smoothing"
    (ICLR 2024), Section 6 (the smoothed reliability diagram).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> p = rng.beta(2, 5, size=5_000)
    >>> y = rng.random(p.size) < p**2 / (p**2 + (1 - p) ** 2)  # overconfident below 1/2
    >>> curve = smooth_calibration_curve(y, p)
    >>> bool(curve.smooth_ece == smooth_ece(y, p)), bool(curve.bandwidth > 0)
    (True, True)
    >>> i = np.searchsorted(curve.points, 0.2)
    >>> bool(curve.observed[i] < 0.2)  # fewer positives than predicted at 0.2
    True
    """
    owner = "smooth_calibration_curve"
    n_points = check_positive_int(n_points, name="n_points", owner=owner, minimum=2)
    if n_points > 10**6:
        raise ValueError(
            f"The 'n_points' parameter of {owner} must be at most 1000000. Got {n_points} instead."
        )
    smoother, sigma, total = _prepare_smooth(
        y_true, y_proba, sample_weight, pos_label, bandwidth, method, owner, curve=True
    )
    grid, (resid, dens, pos, pred), value = smoother.curve(sigma, total)
    value = float(min(max(value, 0.0), 1.0))
    points = np.linspace(0.0, 1.0, n_points)
    dens_t = np.interp(points, grid, dens)
    pos_t = np.interp(points, grid, pos)
    pred_t = np.interp(points, grid, pred)
    defined = dens_t > _DENSITY_FLOOR * dens.max()
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.where(defined, np.clip(pos_t / dens_t, 0.0, 1.0), np.nan)
        predicted = np.where(defined, np.clip(pred_t / dens_t, 0.0, 1.0), np.nan)
    density = np.maximum(dens_t, 0.0) / total
    return SmoothCalibrationCurve(points, observed, predicted, density, sigma, value)
