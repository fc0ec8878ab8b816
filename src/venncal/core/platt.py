"""Platt scaling: a sigmoid of the score fitted by maximum likelihood.

Platt (1999) maps a score ``f`` to ``P(y = 1 | f) = 1 / (1 + exp(A f + B))`` and fits ``A`` and
``B`` on a calibration set by minimising the cross-entropy against smoothed targets: a positive
example counts as ``(N+ + 1) / (N+ + 2)`` and a negative one as ``1 / (N- + 2)`` instead of 1 and
0, a Bayesian correction that keeps the fit finite on separable data. The minimisation is the
Newton method with backtracking line search of Lin, Lin & Weng (2007), which fixed the numerical
troubles of Platt's original pseudo-code: the objective is evaluated without overflow, the Hessian
gets a tiny ridge, and each step is halved until the objective decreases enough (Armijo rule).

References
----------
.. [1] J. Platt, "Probabilistic outputs for support vector machines and comparisons to
   regularized likelihood methods", Advances in Large Margin Classifiers, 1999.
.. [2] H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's probabilistic outputs for support
   vector machines", Machine Learning 68, 267-276, 2007, Algorithm 1.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit

from venncal._validation import (
    check_positive_int,
    check_sample_weight,
    check_scores,
    scaled_sample_weight,
)
from venncal.core._inputs import check_scores_y01, fill_fit_doc
from venncal.exceptions import VenncalWarning, user_stacklevel

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from venncal._typing import ArrayLike, FloatArray

__all__ = [
    "PlattSigmoid",
    "class_totals",
    "fit_platt",
    "initial_intercept",
    "newton_sigmoid",
    "platt_targets",
    "smoothed_targets",
    "standardisation",
]

# largest Newton step (on standardised scores) at which the fit counts as converged
_STEP_TOL = 1e-7


@dataclass(frozen=True)
class PlattSigmoid:
    """A fitted sigmoid ``p = 1 / (1 + exp(a * score + b))``.

    Attributes
    ----------
    a, b : float
        Slope and intercept in Platt's sign convention (``a < 0`` when larger scores mean
        positive).
    n_iter : int
        Newton iterations run.
    converged : bool
        Whether the gradient and the Newton step fell below their tolerances.
    center, scale : float
        The standardisation ``(score - center) / scale`` the fit ran on (0 and 1 by default).
    a_scaled, b_scaled : float or None
        Slope and intercept on standardised scores; when given, :meth:`predict` uses them
        (``a`` and ``b`` may round to 0 or overflow for scores of extreme magnitude).
    """

    a: float
    b: float
    n_iter: int
    converged: bool
    center: float = 0.0
    scale: float = 1.0
    a_scaled: float | None = None
    b_scaled: float | None = None

    def predict(self, scores: ArrayLike) -> FloatArray:
        """Return ``P(y = 1 | score)`` for each score, shape (m,).

        A fit stores the sigmoid on standardised scores ``(score - center) / scale`` as well
        (``a_scaled``, ``b_scaled``), and predicts from it, so that scores of any magnitude
        give the same probabilities as their rescaled versions.
        """
        s = check_scores(scores, name="scores")
        p: FloatArray
        if self.a_scaled is None or self.b_scaled is None:
            p = expit(-(self.a * s + self.b))
            return p
        with np.errstate(over="ignore", invalid="ignore"):
            z = self.a_scaled * _standardise(s, self.center, self.scale) + self.b_scaled
        p = expit(-np.nan_to_num(z, nan=self.b_scaled))
        return p


def platt_targets(
    y01: ArrayLike, sample_weight: ArrayLike | None = None, *, smoothing: bool = True
) -> FloatArray:
    """Return the regression targets of Platt scaling.

    Parameters
    ----------
    y01 : ndarray of shape (n,)
        Labels in {0, 1}.
    sample_weight : ndarray of shape (n,), default=None
        Weights; a weight of k is k copies of the example, so ``N+`` and ``N-`` are the
        weighted class totals (the class counts for unit weights).
    smoothing : bool, default=True
        Platt's targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``; False gives 1 and 0.

    Returns
    -------
    targets : ndarray of shape (n,)

    Examples
    --------
    >>> platt_targets(np.array([1, 0, 0, 1, 1]))
    array([0.8 , 0.25, 0.25, 0.8 , 0.8 ])

    A weight of 2 is a duplicated example:

    >>> platt_targets(np.array([1, 0, 0, 1]), np.array([2.0, 1.0, 1.0, 1.0]))
    array([0.8 , 0.25, 0.25, 0.8 ])
    """
    y = np.asarray(y01, dtype=np.float64)
    if not smoothing:
        labels: FloatArray = y.copy()
        return labels
    n_pos, n_neg = class_totals(y, sample_weight)
    target_pos, target_neg = smoothed_targets(n_pos, n_neg)
    targets: FloatArray = np.where(y == 1, target_pos, target_neg)
    return targets


def class_totals(y01: ArrayLike, sample_weight: ArrayLike | None = None) -> tuple[float, float]:
    """Return the total weight ``(N+, N-)`` of the positives and of the negatives.

    Summed in units of a power of two, so that weights near the largest float give totals
    rounded to infinity rather than an overflow part-way through the sum.

    Examples
    --------
    >>> class_totals(np.array([1, 0, 1]), np.array([1e308, 1.0, 1e308]))
    (inf, 1.0)
    """
    y = np.asarray(y01, dtype=np.float64)
    if sample_weight is None:
        n_pos = float(np.sum(y))
        return n_pos, float(y.shape[0]) - n_pos
    w, exponent = scaled_sample_weight(np.asarray(sample_weight, dtype=np.float64))
    with np.errstate(over="ignore"):
        return (
            float(np.ldexp(np.sum(w * y), exponent)),
            float(np.ldexp(np.sum(w * (1.0 - y)), exponent)),
        )


def smoothed_targets(n_pos: float, n_neg: float) -> tuple[float, float]:
    """Platt's targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)`` for class totals.

    Totals of infinity (weights past the largest float) give their limits 1 and 0.

    Examples
    --------
    >>> smoothed_targets(3.0, 2.0)
    (0.8, 0.25)
    """
    target_pos = (n_pos + 1.0) / (n_pos + 2.0) if np.isfinite(n_pos) else 1.0
    return float(target_pos), float(1.0 / (n_neg + 2.0))


def initial_intercept(n_pos: float, n_neg: float) -> float:
    """Platt's starting intercept ``log((N- + 1) / (N+ + 1))``, finite for any totals.

    Examples
    --------
    >>> round(initial_intercept(3.0, 1.0), 4), initial_intercept(np.inf, 1.0) < -700
    (-0.6931, True)
    """
    big = np.finfo(np.float64).max

    def log1(n: float) -> float:  # log(n + 1), finite for n = inf
        return float(np.log1p(min(n, big)))

    return log1(n_neg) - log1(n_pos)


def _standardise(s: FloatArray, center: float, scale: float) -> FloatArray:
    """``(s - center) / scale`` without overflow in the difference."""
    with np.errstate(over="ignore"):  # an infinite difference takes the halved route below
        diff = s - center
    if np.all(np.isfinite(diff)):
        return diff / scale
    return (0.5 * s - 0.5 * center) / (0.5 * scale)


def standardisation(scores: FloatArray) -> tuple[float, float]:
    """Return ``center`` and ``scale`` that map the scores to mean 0 and standard deviation 1.

    Computed without overflow or underflow for any finite scores: first by the midpoint and
    half-range, then by the mean and standard deviation of the result. The scale is 1 when
    every score is the same.

    Examples
    --------
    >>> standardisation(np.array([1e-12, 3e-12]))
    (2e-12, 1e-12)
    """
    lo, hi = float(np.min(scores)), float(np.max(scores))
    mid = 0.5 * lo + 0.5 * hi
    half = 0.5 * hi - 0.5 * lo
    if not half > 0.0:
        return mid, 1.0
    f = _standardise(scores, mid, half)  # in [-1, 1]
    m = float(np.mean(f))
    sd = float(np.std(f))
    if not sd > 0.0:  # pragma: no cover - at least two distinct scores
        return mid, half
    return mid + m * half, half * sd


def _objective(z: FloatArray, t: FloatArray, w: FloatArray) -> float:
    """Weighted cross-entropy sum of ``t`` against ``1 / (1 + exp(z))``, free of overflow."""
    # -[t log p + (1 - t) log(1 - p)] with p = 1 / (1 + e^z)  ==  t z + log(1 + e^-z) for z >= 0
    # and (t - 1) z + log(1 + e^z) for z < 0; np.logaddexp(0, -|z|) is log(1 + e^-|z|)
    return float(
        np.sum(w * (np.where(z >= 0, t * z, (t - 1.0) * z) + np.logaddexp(0.0, -np.abs(z))))
    )


@fill_fit_doc
def fit_platt(
    scores: ArrayLike,
    y01: ArrayLike,
    sample_weight: ArrayLike | None = None,
    *,
    smoothing: bool = True,
    max_iter: int = 100,
    tol: float = 1e-5,
    min_step: float = 1e-10,
    sigma: float = 1e-12,
) -> PlattSigmoid:
    """Fit Platt's sigmoid by the Newton method of Lin, Lin & Weng (2007).

    Parameters
    ----------
    {scores, y01}
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights; a weight of k is k copies of the example (fractional weights
        extend this), so the class totals ``N+`` and ``N-`` of the targets are weight sums.
    smoothing : bool, default=True
        Use Platt's smoothed targets. Without them the fit is plain logistic regression on the
        score, which diverges (and warns) on separable data.
    max_iter : int, default=100
        Most Newton iterations.
    tol : float, default=1e-5
        Stop when both gradient components are below ``tol`` in absolute value (as in the
        paper), scaled by the total weight divided by the number of examples, and the Newton
        step on standardised scores is below 1e-7 (a flat objective, where most of the weight
        sits on a few rows, has a small gradient far from its minimiser). The iteration also
        stops, converged, when the predicted decrease of the Newton step falls below 1e-12 of
        the objective, where rounding makes further progress unmeasurable (large sets).
    min_step : float, default=1e-10
        Smallest step of the backtracking line search.
    sigma : float, default=1e-12
        Ridge added to the Hessian's diagonal.

    Returns
    -------
    PlattSigmoid

    Warns
    -----
    VenncalWarning
        If the line search fails, ``max_iter`` is reached before convergence, or (without
        smoothing) the score separates the classes.

    References
    ----------
    .. [1] Lin, Lin & Weng (2007), Algorithm 1; targets from Platt (1999), Section 2.2.

    Examples
    --------
    On data simulated from a sigmoid, the fit recovers it:

    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=20000)
    >>> y = (rng.random(20000) < 1 / (1 + np.exp(-2.0 * s + 0.5))).astype(int)
    >>> fit = fit_platt(s, y)
    >>> round(fit.a, 1), round(fit.b, 1)
    (-2.0, 0.5)
    """
    owner = "fit_platt"
    max_iter = check_positive_int(max_iter, name="max_iter", owner=owner)
    f, y = check_scores_y01(scores, y01)
    # a weight of k is k copies: the smoothed targets count the class totals in examples;
    # the likelihood is summed with the weights divided by a power of two, which moves
    # neither its minimiser nor (up to rounding) the Newton iterates, and cannot overflow
    w = check_sample_weight(sample_weight, f.shape[0])
    if w is not None and not (w > 0).all():  # rows of weight zero take no part at all
        keep = w > 0
        f, y, w = f[keep], y[keep], w[keep]
    n_pos, n_neg = class_totals(y, w)
    w = np.ones(f.shape[0]) if w is None else scaled_sample_weight(w)[0]
    if smoothing:
        target_pos, target_neg = smoothed_targets(n_pos, n_neg)
        t = np.where(y == 1, target_pos, target_neg)
    else:
        t = y.astype(np.float64)
    scores_in = f
    # the fit is affine-equivariant in the score: run it on standardised scores, where the
    # tolerances are meaningful whatever the units (scores of 1e-10 or 1e300)
    center, scale = standardisation(f)
    f = _standardise(f, center, scale)
    if not smoothing:
        pos, neg = scores_in[(y == 1) & (w > 0)], scores_in[(y == 0) & (w > 0)]
        if pos.size and neg.size and (pos.min() >= neg.max() or pos.max() <= neg.min()):
            warnings.warn(
                "Platt scaling without smoothing: the classes are separated by the score, so no "
                "finite maximum-likelihood sigmoid exists and the fit approaches a step; use "
                "smoothing=True.",
                VenncalWarning,
                stacklevel=2,
            )
    a, b = 0.0, initial_intercept(n_pos, n_neg)
    fval = _objective(a * f + b, t, w)
    gtol = tol * float(np.sum(w)) / f.shape[0]

    def derivatives(a: float, b: float) -> tuple[float, float, float, float, float]:
        q = expit(a * f + b)  # 1 - p
        p = 1.0 - q
        d2 = w * p * q
        d1 = w * (t - p)
        return (
            float(np.sum(f * f * d2)),
            float(np.sum(d2)),
            float(np.sum(f * d2)),
            float(np.sum(f * d1)),
            float(np.sum(d1)),
        )

    def objectives(points: list[tuple[float, float]]) -> list[float]:
        return [_objective(pa * f + pb, t, w) for pa, pb in points]

    a, b, it, converged = newton_sigmoid(
        derivatives, objectives, a, b, fval, gtol, max_iter=max_iter, min_step=min_step, sigma=sigma
    )
    # back to the user's units: a s + b == a_scaled (s - center) / scale + b_scaled (these may
    # round to 0 or overflow for extreme scales; predict uses the scaled form)
    with np.errstate(over="ignore", invalid="ignore"):
        a_user = a / scale
        b_user = b - a_user * center if a != 0 else b
    return PlattSigmoid(
        float(a_user), float(b_user), int(it), converged, center, scale, float(a), float(b)
    )


def _final_step(a: float, b: float, da: float, db: float) -> tuple[float, float]:
    """Take the last (tiny) Newton step of a converged fit, without a line search.

    Near the minimiser Newton's method converges quadratically, so from the point where the
    iteration stops the step lands within rounding of the minimiser itself: fits that stop at
    slightly different points (the same data as weights or as repeated rows, summed in another
    order) then agree to rounding, not to the stopping tolerance.
    """
    if np.isfinite(da) and np.isfinite(db):
        return a + da, b + db
    return a, b


def newton_sigmoid(
    derivatives: Callable[[float, float], tuple[float, float, float, float, float]],
    objectives: Callable[[list[tuple[float, float]]], Iterable[float]],
    a: float,
    b: float,
    fval: float,
    gtol: float,
    *,
    max_iter: int,
    min_step: float,
    sigma: float,
    steps_per_call: int = 1,
) -> tuple[float, float, int, bool]:
    """The Newton iteration with backtracking of Lin, Lin & Weng (2007) on a sigmoid (a, b).

    ``derivatives(a, b)`` gives the sums (f^2 d2, d2, f d2, f d1, d1) of the Hessian and the
    gradient, ``objectives(points)`` the objective at each (a, b) of a list: in memory or
    summed over the partitions of a distributed frame. The line search tries the step sizes
    1, 1/2, 1/4, ... in that order and takes the first that decreases the objective enough
    (Armijo rule), asking ``objectives`` for ``steps_per_call`` of them at a time. Warns, at
    the user's call, when the line search fails or ``max_iter`` is reached.

    Returns
    -------
    (a, b, n_iter, converged)

    Examples
    --------
    The objective (a - 1)^2 + (b + 2)^2 has a constant Hessian: one full step reaches it.

    >>> def derivatives(a, b):  # Hessian 2 I, gradient 2 (a - 1, b + 2)
    ...     return 2.0, 2.0, 0.0, 2.0 * (a - 1.0), 2.0 * (b + 2.0)
    >>> def objectives(points):
    ...     return [(pa - 1.0) ** 2 + (pb + 2.0) ** 2 for pa, pb in points]
    >>> newton_sigmoid(derivatives, objectives, 0.0, 0.0, 5.0, 1e-8,
    ...                max_iter=10, min_step=1e-10, sigma=0.0)
    (1.0, -2.0, 1, True)
    """
    converged, it = False, 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        h11, h22, h21, g1, g2 = derivatives(a, b)
        h11, h22 = sigma + h11, sigma + h22
        det = h11 * h22 - h21 * h21
        da = -(h22 * g1 - h21 * g2) / det
        db = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * da + g2 * db
        # a small gradient is not enough where the objective is flat (most weight on a few
        # rows): the Newton step, the distance to the minimiser, must be small as well
        if abs(g1) < gtol and abs(g2) < gtol and max(abs(da), abs(db)) < _STEP_TOL:
            converged = True
            it -= 1
            a, b = _final_step(a, b, da, db)
            break
        if -gd < 1e-12 * (abs(fval) + 1.0):
            # the Newton decrement is at the rounding level of the objective: no step can
            # measurably decrease it any more
            converged = True
            a, b = _final_step(a, b, da, db)
            break
        step, accepted = 1.0, False
        while step >= min_step and not accepted:
            steps = [step / 2.0**k for k in range(steps_per_call)]
            steps = [st for st in steps if st >= min_step]
            points = [(a + st * da, b + st * db) for st in steps]
            for st, (na, nb), nf in zip(steps, points, objectives(points), strict=True):
                if nf < fval + 1e-4 * st * gd:
                    a, b, fval, accepted = na, nb, float(nf), True
                    break
            step = steps[-1] / 2.0
        if not accepted:
            warnings.warn(
                "Platt scaling: the line search failed to decrease the objective; the sigmoid "
                "may be inaccurate (separable data? try smoothing=True).",
                VenncalWarning,
                stacklevel=user_stacklevel(),
            )
            break
    else:
        warnings.warn(
            f"Platt scaling did not converge in {max_iter} iterations (separable data? try "
            "smoothing=True or a larger max_iter).",
            VenncalWarning,
            stacklevel=user_stacklevel(),
        )
    return a, b, it, converged
