"""Temperature scaling: one inverse temperature for the log-odds or logits, fitted by likelihood.

Temperature scaling (Guo, Pleiss, Sun & Weinberger 2017) divides the logits ``z`` of a classifier
by one number ``T > 0`` shared by every class: ``p = softmax(z / T)``, or
``p = sigmoid(z / T)`` for one binary log-odds. The inverse temperature ``beta = 1 / T`` is the
maximiser of the (weighted) likelihood of the calibration labels, a concave function of
``beta``, so its derivative, the weighted sum of ``E_p[z] - z_y`` over the examples, increases
with ``beta``. Its root is found by a safeguarded Newton iteration inside a bracket ``[lo, hi]``
where the derivative changes sign: a Newton step that leaves the bracket is replaced by
bisection, and the iteration stops only at the root (the derivative below 1e-13 of the total
weight, on standardised logits, or the bracket at the precision of float64). ``beta >= 0``: when
the derivative is already non-negative at 0 (the scores point away from the labels), ``beta``
is 0, the map is constant and a :class:`~venncal.exceptions.VenncalWarning` says so.

With ``bias=True`` a vector ``b`` is added, ``p = softmax(beta z + b)``, fitted jointly with
``beta`` by Newton's method with backtracking (the likelihood is concave in ``(beta, b)``; the
bias is determined up to a constant, and the minimum-norm Newton steps keep it centred; for two
classes, the logistic regression of the label on 1 and ``z_1 - z_0``). For one
binary log-odds this is the affine map ``sigmoid(beta z + b)``, Platt's sigmoid without
smoothing, restricted to ``beta >= 0``: when the unconstrained maximiser has ``beta < 0``, the
constrained one has ``beta = 0`` and ``b`` the log class frequencies.

Logits are standardised first: each row is shifted by its maximum (the softmax does not change)
and every entry divided by one number, the largest gap to a row maximum over the calibration
set, so that the tolerances mean the same for logits of any magnitude.

**Separation.** When the largest logit of every calibration example is its own class (ties
allowed), the likelihood increases towards ``beta = infinity`` and has no finite maximiser.
``beta`` is then the one at which the mean log loss is within 1e-10 of its infimum (a finite,
very sharp map), and a :class:`~venncal.exceptions.VenncalWarning` says so. With a bias, the
same holds when some ``beta z + b`` ranks every example's class first (for two classes: a
threshold on the log-odds puts every negative below and every positive above it; for more,
found by a linear program).

This module is long because the one-parameter fit by passes over blocks of rows (which Dask
and Spark run, the in-memory fit being its one-block case), the joint fit with a bias, and the
standardisation both of them and the fitted map share are one piece of arithmetic.

References
----------
.. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural
   networks", ICML 2017.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import _as_array, check_scores
from venncal.core.beta import fit_logistic
from venncal.core.class_scores import (
    LOG_TINY,
    check_log_floor,
    check_probabilities_as_fitted,
    check_score_matrix,
    class_log_scores,
)
from venncal.core.quadratic import quadratic_log_odds
from venncal.exceptions import VenncalWarning, user_stacklevel

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from venncal._typing import ArrayLike, FloatArray, IntArray

    #: A block of rows: logits (m, K), class indices (m,), non-negative weights (m,).
    Block = tuple[FloatArray, IntArray, FloatArray]
    #: ``run(func, *args)``: ``[func(block, *args) for block in blocks]``.
    Run = Callable[..., list[Any]]
    Derivatives = Callable[[float], tuple[float, float, float]]

#: how the warning of a constant map (a fitted inverse temperature of 0) begins
CONSTANT_MAP = "Temperature scaling: the fitted inverse temperature is 0"

__all__ = [
    "CONSTANT_MAP",
    "TemperatureMap",
    "fit_temperature_passes",
    "fit_temperature_scaling",
    "standardised_logits",
]

# standardised logits below this are clipped (no overflow in beta * x; exp of it is 0)
_X_FLOOR = -1e300
#: in a fit, gaps of a logit to its row's maximum are capped at this many times their geometric
#: mean (over the nonzero gaps): one row of logits 1e308 apart among ordinary ones would
#: otherwise set a scale that leaves every other row's standardised logits subnormal, their
#: precision lost; a gap so far beyond the others has a softmax probability of exactly 0 at
#: every temperature the other rows allow. Relative, so that scores of any magnitude fit alike.
GAP_CAP_FACTOR = 1e150
#: and the standardising scale is at most this many times that mean, so that the rows that
#: carry the fit have standardised logits near 1 (the joint fit with a bias solves with them)
SCALE_CAP_FACTOR = 1e3
# mean excess log loss at which a fit on separated classes stops
_SEPARATED_EXCESS = 1e-10
# the linear program for separation with a bias is solved up to this many constraints
_LP_MAX_ROWS = 1_000_000


def standardised_logits(
    Z: FloatArray, scale: float | None = None, cap: float = np.inf
) -> tuple[FloatArray, float]:
    """Shift each row of ``Z`` by its maximum and divide by ``scale`` (half-units, no overflow).

    Gaps to the row's maximum are capped at ``cap`` half-units first (with ``scale`` None, at
    :data:`GAP_CAP_FACTOR` times their geometric mean, and the scale at most
    :data:`SCALE_CAP_FACTOR` times it: :func:`gap_limits`).

    Parameters
    ----------
    Z : ndarray of shape (n, K)
    scale : float, default=None
        The divisor of the half-differences ``0.5 Z - 0.5 max``; None computes it from ``Z``
        (their largest magnitude, 1 if every row is constant).

    Returns
    -------
    X : ndarray of shape (n, K)
        Non-positive, 0 at each row's maximum; at least -1 when ``scale`` was computed, unless
        a gap is more than :data:`SCALE_CAP_FACTOR` times their geometric mean.
    scale : float

    Examples
    --------
    >>> X, scale = standardised_logits(np.array([[0.0, 2.0], [1.0, 0.0]]))
    >>> X, scale
    (array([[-1. ,  0. ],
           [ 0. , -0.5]]), 1.0)
    """
    top = Z.max(axis=1, keepdims=True)
    half = 0.5 * Z - 0.5 * top
    most = np.inf
    if scale is None:
        most, cap = gap_limits(*_log_gaps(half))
    if cap < np.inf:
        half = np.maximum(half, -cap)
    if scale is None:
        scale = min(float(-half.min()), most) if half.size else 0.0
        scale = scale if scale > 0.0 else 1.0
    with np.errstate(over="ignore"):
        X = half / scale
    return np.maximum(X, _X_FLOOR), float(scale)


def _log_gaps(half: FloatArray) -> tuple[float, int]:
    """The sum of the logarithms of the nonzero gaps ``-half`` and their number."""
    gaps = -half[half < 0.0]
    gaps = gaps[np.isfinite(gaps)]
    return float(np.log(gaps).sum()), int(gaps.size)


def gap_limits(log_sum: float, count: int) -> tuple[float, float]:
    """The largest scale and the cap of the gaps: :data:`SCALE_CAP_FACTOR` and
    :data:`GAP_CAP_FACTOR` times the geometric mean of ``count`` gaps whose logarithms sum to
    ``log_sum`` (infinite when there are none, or beyond the largest float)."""
    if count == 0:
        return float(np.inf), float(np.inf)
    mean = np.exp(log_sum / count)
    with np.errstate(over="ignore"):
        return float(SCALE_CAP_FACTOR * mean), float(GAP_CAP_FACTOR * mean)


def _softmax(L: FloatArray) -> FloatArray:
    E: FloatArray = np.exp(L - L.max(axis=1, keepdims=True))
    P: FloatArray = E / E.sum(axis=1, keepdims=True)
    return P


@dataclass(frozen=True)
class TemperatureMap:
    """A fitted temperature scaling ``softmax(beta z + b)`` on standardised logits.

    Attributes
    ----------
    beta : float
        Inverse temperature on standardised logits (:func:`standardised_logits`); ``>= 0``.
    bias : ndarray of shape (K,)
        Per-class bias, centred (zeros without a bias).
    scale : float
        The standardisation of the logits.
    n_iter : int
        Newton (or bisection) steps taken.
    converged : bool
        Whether the fit met its stopping rule (on separated classes: the rule of
        :func:`fit_temperature_scaling`, as no maximiser exists).
    separated : bool
        Whether the classes were separated (no finite maximiser).
    log_floor : float
        The logits are read as ``max(z, log_floor)``: the logarithm of the probability floor
        of :func:`venncal.core.class_scores.probability_floor` for probabilities, ``-inf``
        (no floor) for logits and binary scores.
    """

    beta: float
    bias: FloatArray
    scale: float
    n_iter: int = 0
    converged: bool = True
    separated: bool = False
    log_floor: float = -np.inf

    def __post_init__(self) -> None:
        check_log_floor(self.log_floor, low=LOG_TINY, owner="TemperatureMap")

    @property
    def inverse_temperature(self) -> float:
        """``1 / T`` on the logits themselves (0.5 beta / scale; may round for extreme scales)."""
        with np.errstate(over="ignore"):
            return float(0.5 * self.beta / self.scale)

    def predict(self, Z: FloatArray) -> FloatArray:
        """Calibrated probabilities of logits ``Z`` (n, K), shape (n, K)."""
        X, _ = standardised_logits(np.maximum(Z, self.log_floor), self.scale)
        with np.errstate(over="ignore", invalid="ignore"):
            L = self.beta * X if self.beta > 0 else np.zeros_like(X)
        return _softmax(L + self.bias)


def binary_logits(s: FloatArray, score_type: str) -> FloatArray:
    """The two-column logits ``[0, z]`` of binary scores: ``softmax`` of a row is ``sigmoid(z)``.

    ``z`` is the score itself for ``score_type="logits"``, its log-odds (clipped as
    :class:`~venncal.BetaCalibrator` clips probabilities) for ``"probabilities"``.

    Examples
    --------
    >>> binary_logits(np.array([0.5, 2.0]), "logits")
    array([[0. , 0.5],
           [0. , 2. ]])
    """
    z = quadratic_log_odds(s, "probability") if score_type == "probabilities" else s
    return np.column_stack([np.zeros_like(z), z])


def matrix_logits(S: FloatArray, score_type: str) -> FloatArray:
    """The logits of a K-class score matrix: itself, or the logarithms of probabilities.

    Logits are kept as they are (the softmax ignores a shift per row, and a log-softmax would
    round away the information of logits of tiny magnitude).
    """
    if score_type == "probabilities":
        return class_log_scores(S, "probabilities")
    return S


def temperature_logits(
    scores: ArrayLike, score_type: str, n_features: int, *, owner: str
) -> FloatArray:
    """Check the test scores of a fitted temperature scaling and return the logits it reads.

    Parameters
    ----------
    scores : array-like of shape (m,), (m, 1) or (m, K)
        Binary scores (``n_features`` 1) or a K-class score matrix (``n_features`` K).
    score_type : {"logits", "probabilities"}
        The score type resolved at fit time.
    n_features : int
        The number of score columns at fit time.
    owner : str
        The name in the error messages.

    Returns
    -------
    Z : ndarray of shape (m, 2) or (m, K)
        For :meth:`TemperatureMap.predict`.

    Examples
    --------
    >>> temperature_logits([[0.2, 0.8]], "probabilities", 2, owner="example").round(3)
    array([[-1.609, -0.223]])
    """
    arr = _as_array(scores, "scores")
    if n_features == 1:
        s = check_scores(arr, name="scores")
        check_probabilities_as_fitted(s, score_type, owner=owner)
        return binary_logits(s, score_type)
    S = check_score_matrix(arr, owner=owner, n_classes=n_features)
    check_probabilities_as_fitted(S, score_type, owner=owner)
    return matrix_logits(S, score_type)


def _derivatives(
    beta: float, X: FloatArray, Xy: FloatArray, w: FloatArray
) -> tuple[float, float, float]:
    """Weighted sums: the log loss, its first and second derivatives in beta."""
    L = beta * X
    E = np.exp(L)  # the row maxima are 0: no overflow
    S = E.sum(axis=1)
    P = E / S[:, None]
    mean = (P * X).sum(axis=1)
    var = np.maximum((P * X * X).sum(axis=1) - mean * mean, 0.0)
    loss = float(w @ (np.log(S) - beta * Xy))
    return loss, float(w @ (mean - Xy)), float(w @ var)


def _root_in_beta(derivs: Derivatives, total: float) -> tuple[float, int]:
    """The root of the derivative of the loss in beta >= 0 (not separated). (beta, n_iter).

    ``derivs(beta)`` is :func:`_derivatives` summed over the rows, ``total`` their weight.
    """
    _, g0, h0 = derivs(0.0)
    if h0 <= 0.0:  # every row constant: every beta gives the same map
        return 1.0, 0
    if g0 >= 0.0:
        return 0.0, 0
    lo, hi = 0.0, 1.0
    doublings = 0
    while derivs(hi)[1] <= 0.0:
        lo, hi = hi, 2.0 * hi
        doublings += 1
    beta = 0.5 * (lo + hi) if lo > 0 else min(1.0, hi)
    it = doublings
    for it in range(doublings + 1, doublings + 2200):  # noqa: B007 - the count is reported
        _, g, h = derivs(beta)
        # converged when the Newton step is below 1e-15 of beta: a test on g alone depends
        # on the scale of the logits (one row far out makes every g tiny at once)
        if g == 0.0 or (h > 0.0 and abs(g) <= 1e-15 * h * beta):
            break
        if g < 0.0:
            lo = beta
        else:
            hi = beta
        if hi - lo <= 4.0 * np.finfo(np.float64).eps * hi:
            break
        new = beta - g / h if h > 0.0 else -1.0
        if not lo < new < hi:
            # bisection: geometric when the bracket spans orders of magnitude
            new = np.sqrt(lo * hi) if lo > 0.0 and hi > 4.0 * lo else 0.5 * (lo + hi)
        beta = float(new)
    return beta, it


def _excess(beta: float, X: FloatArray, w: FloatArray) -> float:
    """Weighted excess log loss over its infimum at ``beta`` (separated rows)."""
    at_top = X == 0.0
    m = at_top.sum(axis=1)  # classes tied at the top; every row's own class is among them
    with np.errstate(under="ignore"):
        rest = np.where(at_top, 0.0, np.exp(beta * X)).sum(axis=1)
    return float(w @ np.log1p(rest / m))


def _separated_beta(excess: Callable[[float], float], total: float) -> float:
    """The beta at which the mean log loss is within _SEPARATED_EXCESS of its infimum.

    ``excess(beta)`` is :func:`_excess` summed over the rows, ``total`` their weight.
    """
    target = _SEPARATED_EXCESS * total
    lo, hi = 0.0, 1.0
    while excess(hi) > target:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = np.sqrt(lo * hi) if lo > 0.0 else 0.5 * hi
        if excess(mid) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 4.0 * np.finfo(np.float64).eps * hi:
            break
    return hi


def _loss_grad_hess(
    theta: FloatArray, X: FloatArray, Y: FloatArray, w: FloatArray
) -> tuple[float, FloatArray, FloatArray]:
    """Loss, gradient and Hessian of softmax(beta X + b) in theta = (beta, b)."""
    beta, b = theta[0], theta[1:]
    L = beta * X + b
    top = L.max(axis=1, keepdims=True)
    E = np.exp(L - top)
    S = E.sum(axis=1, keepdims=True)
    P = E / S
    loss = float(w @ (top[:, 0] + np.log(S[:, 0]) - (L * Y).sum(axis=1)))
    mean = (P * X).sum(axis=1, keepdims=True)
    R = P - Y
    grad = np.r_[float(w @ (R * X).sum(axis=1)), w @ R]
    wP = w[:, None] * P
    K = X.shape[1]
    H = np.empty((K + 1, K + 1))
    H[0, 0] = float(w @ ((P * X * X).sum(axis=1) - mean[:, 0] ** 2))
    cross = (wP * (X - mean)).sum(axis=0)
    H[0, 1:] = cross
    H[1:, 0] = cross
    H[1:, 1:] = np.diag(wP.sum(axis=0)) - P.T @ wP
    return loss, grad, H


def _fit_joint(
    X: FloatArray, y: IntArray, w: FloatArray, max_iter: int, min_step: float = 1e-10
) -> tuple[FloatArray, int, bool]:
    """Newton's method with backtracking on (beta, b). Returns (theta, n_iter, converged)."""
    n, K = X.shape
    Y = np.zeros((n, K))
    Y[np.arange(n), y] = 1.0
    theta = np.r_[1.0, np.zeros(K)]
    fval, grad, H = _loss_grad_hess(theta, X, Y, w)
    scale = float(w.sum()) + 1.0
    for it in range(1, max_iter + 1):
        step = -np.linalg.lstsq(H, grad, rcond=1e-12)[0]
        gd = float(grad @ step)
        if -gd < 1e-13 * (abs(fval) + scale):
            return theta + step, it, True  # the last step moves to ~1e-12 of the maximiser
        t = 1.0
        while t >= min_step:
            new = theta + t * step
            f_new, g_new, H_new = _loss_grad_hess(new, X, Y, w)
            if f_new <= fval + 1e-4 * t * gd:
                theta, fval, grad, H = new, f_new, g_new, H_new
                break
            t /= 2.0
        else:
            return theta, it, -gd < 1e-8 * (abs(fval) + scale)
    return theta, max_iter, False


def _fit_binary(
    X: FloatArray, y: IntArray, w: FloatArray, max_iter: int
) -> tuple[FloatArray, int, bool]:
    """Two classes: the joint fit is the logistic regression of the label on 1 and
    ``X_1 - X_0`` (Newton's method on two parameters). Returns (theta, n_iter, converged)."""
    d = X[:, 1] - X[:, 0]
    features = np.column_stack([np.ones_like(d), d])
    (c, beta), n_iter, ok = fit_logistic(
        features, (y == 1).astype(np.float64), w, max_iter=max_iter, polish=True
    )
    return np.array([beta, 0.0, c]), n_iter, ok


def _separable_with_bias(X: FloatArray, y: IntArray, beta: float, b: FloatArray) -> bool:
    """Whether some beta > 0 and b rank every example's own class first (ties allowed).

    A linear program in (beta, b) over the n (K - 1) pairs (example, other class), sparse. It
    is solved only when the fit ``(beta, b)`` itself ranks every example's class first or
    nearly (no fitted probability of an example's own class below 1e-3): on separated classes
    the fit runs towards a separating direction, where those probabilities approach 1 (or
    1 / the number of tied classes).
    """
    n, K = X.shape
    P = _softmax(beta * X + b)
    if P[np.arange(n), y].min() < 1e-3 or n * (K - 1) > _LP_MAX_ROWS:
        return False
    # imported here: a fit that needs no linear program, and prediction, need neither
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix

    # every pair of classes must be separated on its own: a threshold on X_j - X_k with the
    # examples of class j on one side and those of class k on the other (ties allowed). For
    # two classes this is the whole condition, and it spares the linear program.
    low = np.full((K, K), np.inf)  # low[j, k]: min over examples of class j of X_j - X_k
    for j in range(K):
        rows = X[y == j]
        if rows.shape[0]:
            low[j] = (rows[:, j : j + 1] - rows).min(axis=0)
    pair = low + low.T
    if (pair[~np.eye(K, dtype=bool)] < 0.0).any():
        return False
    if K == 2:
        d = X[:, 1] - X[:, 0]
        return bool(d.max() > d.min())
    m = n * (K - 1)
    rows = np.repeat(np.arange(n), K - 1)
    others = np.array([[k for k in range(K) if k != c] for c in range(K)])[y].ravel()
    own = y[rows]
    # beta (X_iy - X_ik) + b_y - b_k >= 0 for every i and k != y_i
    A = csr_matrix(
        (
            np.r_[X[rows, own] - X[rows, others], np.ones(m), -np.ones(m)],
            (
                np.r_[np.arange(m), np.arange(m), np.arange(m)],
                np.r_[np.zeros(m, int), 1 + own, 1 + others],
            ),
        ),
        shape=(m, K + 1),
    )
    res = linprog(
        -np.asarray(A.sum(axis=0)).ravel(),
        A_ub=-A,
        b_ub=np.zeros(m),
        bounds=[(0.0, 1.0)] + [(-1.0, 1.0)] * K,
        method="highs",
    )
    return bool(res.status == 0 and -res.fun > 1e-7 * m)


def fit_temperature_scaling(
    Z: FloatArray,
    y: IntArray,
    sample_weight: FloatArray | None = None,
    *,
    bias: bool = False,
    max_iter: int = 100,
    log_floor: float = -np.inf,
) -> TemperatureMap:
    """Fit temperature scaling to logits ``Z`` (n, K) and class indices ``y``.

    Parameters
    ----------
    Z : ndarray of shape (n, K)
        Finite logits (or log-probabilities); for one binary log-odds ``z`` pass
        ``np.column_stack([0 * z, z])``.
    y : ndarray of shape (n,)
        Class indices 0..K-1.
    sample_weight : ndarray of shape (n,), default=None
        Non-negative weights (a weight of k counts as k copies of a row).
    bias : bool, default=False
        Fit a per-class bias jointly with the inverse temperature.
    max_iter : int, default=100
        Most Newton iterations of the joint fit (with a bias).
    log_floor : float, default=-inf
        The logits are read as ``max(Z, log_floor)`` (kept in the map for prediction): the
        logarithm of the probability floor for log-probabilities
        (:func:`venncal.core.class_scores.probability_floor`).

    Returns
    -------
    TemperatureMap

    Warns
    -----
    VenncalWarning
        If the classes are separated (no finite maximiser) or the joint fit did not converge.

    Examples
    --------
    Logits three times too sharp get a temperature of 3:

    >>> rng = np.random.default_rng(0)
    >>> Z = rng.normal(size=(20000, 3))
    >>> P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    >>> y = (rng.random((20000, 1)) > P.cumsum(axis=1)).sum(axis=1)
    >>> fit = fit_temperature_scaling(3.0 * Z, y)
    >>> round(1 / fit.inverse_temperature, 1)
    3.0
    """
    check_log_floor(log_floor, low=LOG_TINY, owner="fit_temperature_scaling")
    n, K = Z.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    block = (Z, y, w)
    if not bias:
        # the in-memory fit is the one-block case of the fit by sums over blocks of rows
        def run(func: Callable[..., Any], *args: Any) -> list[Any]:
            return [func(block, *args)]

        def rows_runner(consts: tuple[float, ...]) -> Run:
            rows = _block_rows(block, *consts)
            return lambda func, *args: [func(rows, *args)]

        return fit_temperature_passes(run, K, log_floor=log_floor, rows_runner=rows_runner)
    keep = w > 0
    Z = np.maximum(Z, log_floor)
    if not keep.all():
        Z, y, w = Z[keep], y[keep], w[keep]
    # only the ratios of the weights matter: scale them to average one (no overflow)
    w = w / float(np.mean(w / w.max())) / w.max()
    X, scale = standardised_logits(Z)
    converged, separated = True, False
    fit = _fit_binary if K == 2 else _fit_joint
    theta, n_iter, converged = fit(X, y, w, max_iter)
    beta, b = float(theta[0]), theta[1:]
    if beta < 0.0:
        # the constrained maximiser: beta = 0 and the bias of the class frequencies
        freq = np.bincount(y, weights=w, minlength=K)
        beta, b, converged = 0.0, np.log(freq / freq.sum()), True
    elif (X < 0.0).any():
        separated = _separable_with_bias(X, y, beta, b)
    b = b - b.mean()
    return _finish(beta, b, scale, n_iter, converged, separated, log_floor)


def _block_extent(block: Block, log_floor: float) -> tuple[float, int, float, float, int]:
    """Of one block's rows of positive weight: the largest weight, their number, the largest
    gap of a floored logit to its row's maximum (in half-units), and the sum of the logarithms
    of the nonzero gaps and their number (for :func:`gap_limits`)."""
    Z, _, w = block
    keep = w > 0
    Zk = np.maximum(Z[keep], log_floor)
    half = 0.5 * Zk - 0.5 * Zk.max(axis=1, keepdims=True) if Zk.shape[0] else Zk
    log_sum, count = _log_gaps(half)
    return (
        float(w[keep].max()) if keep.any() else 0.0,
        int(keep.sum()),
        float(-half.min()) if half.size else 0.0,
        log_sum,
        count,
    )


def _block_weight_sum(block: Block, wmax: float) -> float:
    w = block[2]
    return float(np.sum(w[w > 0] / wmax))


def _block_rows(
    block: Block, log_floor: float, scale: float, wmax: float, mean: float, cap: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One block's standardised logits, those of each row's class, and scaled weights."""
    Z, y, w = block
    keep = w > 0
    Z = np.maximum(Z[keep], log_floor)
    X, _ = standardised_logits(Z, scale, cap)
    return X, X[np.arange(X.shape[0]), y[keep]], w[keep] / mean / wmax


def _rows_shape(rows: tuple[FloatArray, FloatArray, FloatArray]) -> list[float]:
    X, Xy, w = rows
    return [float((Xy != 0.0).any()), float((X < 0.0).any()), float(w.sum())]


def _rows_derivatives(rows: tuple[FloatArray, FloatArray, FloatArray], beta: float) -> list[float]:
    return list(_derivatives(beta, *rows))


def _rows_excess(rows: tuple[FloatArray, FloatArray, FloatArray], beta: float) -> list[float]:
    return [_excess(beta, rows[0], rows[2])]


def _on_rows(block: Block, consts: tuple[float, ...], func: Callable[..., Any], *args: Any) -> Any:
    return func(_block_rows(block, *consts), *args)


def _summed(results: list[Any]) -> list[float]:
    """Per-block results (lists of numbers) added in block order."""
    out = [float(v) for v in results[0]]
    for r in results[1:]:
        out = [a + float(v) for a, v in zip(out, r, strict=True)]
    return out


def fit_temperature_passes(
    run: Run,
    n_classes: int,
    *,
    log_floor: float = -np.inf,
    rows_runner: Callable[[tuple[float, ...]], Run] | None = None,
) -> TemperatureMap:
    """Temperature scaling without a bias, fitted by passes over blocks of rows.

    The fit of :func:`fit_temperature_scaling` (``bias=False``), its every sum over the rows a
    sum of per-block sums added in block order: the largest weight, the count and the scale of
    the logits first, then the weight total, the separation test, and the derivatives of the
    loss at each step. The in-memory fit is the one-block case; Dask and Spark run the
    passes over partitions.

    Parameters
    ----------
    run : callable
        ``run(func, *args)`` returns ``[func(block, *args) for block in blocks]``, a block a
        tuple ``(Z, y, w)``: logits (m, K), class indices (m,) and non-negative weights (m,).
    n_classes : int
        K.
    log_floor : float, default=-inf
        As in :func:`fit_temperature_scaling`.
    rows_runner : callable, default=None
        ``rows_runner(consts)`` returns a ``run`` over the blocks' standardised rows (an
        in-memory fit prepares them once); None runs ``run`` on the raw blocks.

    Returns
    -------
    TemperatureMap

    Examples
    --------
    >>> Z = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
    >>> y, w = np.array([0, 1, 1, 0]), np.ones(4)
    >>> blocks = [(Z[:2], y[:2], w[:2]), (Z[2:], y[2:], w[2:])]
    >>> fit = fit_temperature_passes(lambda f, *a: [f(b, *a) for b in blocks], 2)
    >>> round(fit.beta, 6) == round(fit_temperature_scaling(Z, y).beta, 6)
    True
    """
    check_log_floor(log_floor, low=LOG_TINY, owner="fit_temperature_passes")
    extents = run(_block_extent, log_floor)
    wmax = max(e[0] for e in extents)
    n_keep = sum(e[1] for e in extents)
    if not wmax > 0.0:
        raise ValueError("Temperature scaling needs rows of positive weight.")
    most, cap = gap_limits(_summed([[e[3]] for e in extents])[0], sum(e[4] for e in extents))
    scale = min(max(e[2] for e in extents), most)
    scale = scale if scale > 0.0 else 1.0
    # only the ratios of the weights matter: scale them to average one (no overflow)
    mean = _summed([[s] for s in run(_block_weight_sum, wmax)])[0] / n_keep
    consts = (float(log_floor), scale, wmax, mean, cap)
    if rows_runner is None:

        def run_rows(func: Callable[..., Any], *args: Any) -> list[Any]:
            return run(_on_rows, consts, func, *args)
    else:
        run_rows = rows_runner(consts)
    off_top, below, total = _summed(run_rows(_rows_shape))
    if not off_top and below:
        beta = _separated_beta(lambda b: _summed(run_rows(_rows_excess, b))[0], total)
        return _finish(beta, np.zeros(n_classes), scale, 0, True, True, log_floor)

    def derivs(beta: float) -> tuple[float, float, float]:
        loss, g, h = _summed(run_rows(_rows_derivatives, beta))
        return loss, g, h

    beta, n_iter = _root_in_beta(derivs, total)
    return _finish(beta, np.zeros(n_classes), scale, n_iter, True, False, log_floor)


def _finish(
    beta: float,
    b: FloatArray,
    scale: float,
    n_iter: int,
    converged: bool,
    separated: bool,
    log_floor: float,
) -> TemperatureMap:
    if separated or not converged:
        warnings.warn(
            "Temperature scaling: the largest logits separate the classes or the fit did not "
            "converge; no finite maximum-likelihood temperature exists for separated classes "
            "(it tends to 0), so the map is very sharp and may be inaccurate.",
            VenncalWarning,
            stacklevel=user_stacklevel(),
        )
    elif beta == 0.0:
        warnings.warn(
            f"{CONSTANT_MAP}, so every row gets the same probabilities (1/K, or the class frequencies with a bias): weighted by their "
            "logit gaps, the scores point away from the labels. A few calibration rows "
            "confidently wrong at gaps far beyond the others are enough (one row at 10^6 times "
            "the typical gap outweighs a million right ones); check those rows, or clip the "
            "scores.",
            VenncalWarning,
            stacklevel=user_stacklevel(),
        )
    return TemperatureMap(
        float(beta),
        np.asarray(b, dtype=np.float64),
        scale,
        int(n_iter),
        converged,
        separated,
        float(log_floor),
    )
