"""Beta calibration: logistic regression on ``ln s`` and ``-ln(1 - s)``.

Kull, Silva Filho and Flach (2017) map a probability-like score ``s`` in [0, 1] to

.. math:: \\mu(s; a, b, c) = \\frac{1}{1 + 1 / \\left(e^{c} \\, s^{a} / (1 - s)^{b}\\right)},

the likelihood ratio of two Beta densities, so ``logit(mu) = a ln s - b ln(1 - s) + c``. The
family contains the identity (``a = b = 1, c = 0``), sigmoids of ``logit(s)`` (``a = b``) and
maps that are not sigmoids (``a != b``: S-shaped or inverse-S-shaped). The parameters are the
maximum-likelihood logistic regression of the label on the two features ``ln s`` and
``-ln(1 - s)``. The paper's three parametrisations:

* ``"abm"`` (the full model): ``a``, ``b`` and the intercept ``c`` (the midpoint ``m``, where
  ``mu(m) = 1/2``, follows from them);
* ``"am"``: ``a = b``, a sigmoid of ``logit(s)`` with slope ``a`` and intercept ``c``;
* ``"ab"``: the midpoint fixed at ``m = 1/2``, that is ``logit(mu) = a ln(2 s) - b ln(2 (1 - s))``
  without an intercept.

The map is monotonically non-decreasing exactly when ``a >= 0`` and ``b >= 0``. When the fit
gives a negative coefficient, the paper's rule (EJS 2017, section 3.3) is applied: the feature
of the negative coefficient is removed and the model refitted with that coefficient fixed at 0.
If the remaining coefficient is negative as well, it is fixed at 0 too, which leaves a constant
(the intercept alone, for ``"abm"`` and ``"am"``).

Scores are clipped to ``[eps, 1 - eps]`` with ``eps`` the machine epsilon of float64, so that
scores of exactly 0 or 1 have finite features.

References
----------
.. [1] M. Kull, T. Silva Filho and P. Flach, "Beta calibration: a well-founded and easily
   implemented improvement on logistic calibration for binary classifiers", AISTATS 2017.
.. [2] M. Kull, T. M. Silva Filho and P. Flach, "Beyond sigmoids: how to obtain well-calibrated
   probabilities from binary classifiers with beta calibration", Electronic Journal of
   Statistics 11(2), 5052-5080, 2017.
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
    relative_sample_weight,
)
from venncal.core._inputs import check_one_of, check_scores_y01, fill_fit_doc
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from collections.abc import Sequence

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = [
    "BETA_PARAMETERS",
    "SCORE_SCALES",
    "BetaMap",
    "beta_features",
    "check_beta_scores",
    "fit_beta",
    "fit_logistic",
]

#: the parametrisations of Kull et al.
BETA_PARAMETERS = ("abm", "am", "ab")
#: how scores are read: probabilities in [0, 1], or log-odds
SCORE_SCALES = ("probability", "logit")

_EPS = float(np.finfo(np.float64).eps)
_LN2 = float(np.log(2.0))


def beta_features(scores: ArrayLike, score_scale: str = "probability") -> FloatArray:
    """Return the features ``ln s`` and ``-ln(1 - s)``, shape (n, 2).

    Parameters
    ----------
    scores : ndarray of shape (n,)
    score_scale : {"probability", "logit"}, default="probability"
        ``"probability"``: scores in [0, 1], clipped to ``[eps, 1 - eps]``. ``"logit"``: any
        real scores ``f``, read as ``s = 1 / (1 + e^-f)``; the features are then computed
        without rounding ``s`` (``ln s = -ln(1 + e^-f)``, ``-ln(1 - s) = ln(1 + e^f)``).

    Examples
    --------
    >>> beta_features(np.array([0.5])).round(4)
    array([[-0.6931,  0.6931]])
    >>> beta_features(np.array([0.0]), "logit").round(4)
    array([[-0.6931,  0.6931]])
    """
    return np.column_stack(_feature_columns(scores, score_scale))


def _feature_columns(scores: ArrayLike, score_scale: str) -> tuple[FloatArray, FloatArray]:
    """The two features of :func:`beta_features` as two 1-D arrays."""
    if score_scale == "logit":
        f = np.asarray(scores, dtype=np.float64)
        return -np.logaddexp(0.0, -f), np.logaddexp(0.0, f)
    s = np.clip(np.asarray(scores, dtype=np.float64), _EPS, 1.0 - _EPS)
    return np.log(s), -np.log1p(-s)


def check_beta_scores(
    scores: FloatArray, score_scale: str = "probability", *, method: str = "Beta calibration"
) -> None:
    """Raise a one-line ValueError if probability-scale scores leave [0, 1].

    ``method`` names the calibration in the message (other maps of ``logit(s)`` share the
    check).

    Examples
    --------
    >>> check_beta_scores(np.array([0.2, 1.5]))
    Traceback (most recent call last):
    ...
    ValueError: Beta calibration reads scores as probabilities, but they leave [0, 1] (1.5); pass score_scale='logit' for log-odds or margins.
    """
    if score_scale == "probability" and scores.size:
        lo, hi = float(np.min(scores)), float(np.max(scores))
        if lo < 0.0 or hi > 1.0:
            bad = lo if lo < 0.0 else hi
            raise ValueError(
                f"{method} reads scores as probabilities, but they leave [0, 1] "
                f"({bad:g}); pass score_scale='logit' for log-odds or margins."
            )


@dataclass(frozen=True)
class BetaMap:
    """A fitted beta calibration map ``logit(mu) = a ln s - b ln(1 - s) + c``.

    Attributes
    ----------
    a, b, c : float
        The coefficients; ``a >= 0`` and ``b >= 0``.
    parameters : str
        The parametrisation that was fitted (``"abm"``, ``"am"`` or ``"ab"``).
    score_scale : str
        How scores are read (``"probability"`` or ``"logit"``, see :func:`beta_features`).
    n_iter : int
        Newton systems solved in the last logistic fit (the last one finds convergence).
    converged : bool
        Whether every logistic fit converged.
    """

    a: float
    b: float
    c: float
    parameters: str = "abm"
    score_scale: str = "probability"
    n_iter: int = 0
    converged: bool = True

    @property
    def m(self) -> float | None:
        """The midpoint ``m`` with ``mu(m) = 1/2``, or None if the map never crosses 1/2."""
        a, b, c = self.a, self.b, self.c
        if a == 0.0 and b == 0.0:
            return None
        # a ln m - b ln(1 - m) + c is increasing in m; bisect on the logit scale for accuracy
        lo, hi = -745.0, 745.0

        def g(t: float) -> np.float64:
            ln_m: np.float64 = -np.logaddexp(0.0, -t)
            ln_1m: np.float64 = -np.logaddexp(0.0, t)
            return a * ln_m - b * ln_1m + c

        # huge coefficients overflow to an infinity of the right sign (no NaN: a, b >= 0)
        with np.errstate(over="ignore"):
            if g(lo) > 0.0 or g(hi) < 0.0:
                return None
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                if g(mid) < 0.0:
                    lo = mid
                else:
                    hi = mid
        return float(expit(0.5 * (lo + hi)))

    def predict(self, scores: ArrayLike) -> FloatArray:
        """Return ``mu(s)`` for each score, shape (m,)."""
        f = beta_features(scores, self.score_scale)
        # a ln s of a score near 0 (or b ln(1 - s) near 1) past the largest float is an
        # infinite log-odds, whose probability is 0 (or 1): both never at once (a, b >= 0 and
        # ln s and -ln(1 - s) are not both of magnitude above 1)
        with np.errstate(over="ignore"):
            z = self.a * f[:, 0] + self.b * f[:, 1] + self.c
        mu: FloatArray = expit(z)
        return mu


def _nll(z: FloatArray, y: AnyArray, w: FloatArray) -> float:
    """Weighted negative log-likelihood of labels ``y`` under ``expit(z)``, free of overflow."""
    # -[y log p + (1 - y) log(1 - p)] = log(1 + e^z) - y z
    return float(np.sum(w * (np.logaddexp(0.0, z) - y * z)))


def fit_logistic(
    X: ArrayLike,
    y: AnyArray,
    w: FloatArray | None,
    *,
    offset: ArrayLike | None = None,
    max_iter: int = 100,
    rcond: float = 1e-12,
    min_step: float = 1e-10,
    polish: bool = False,
) -> tuple[FloatArray, int, bool]:
    """Maximum-likelihood logistic regression by Newton's method with backtracking.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Features; include a column of ones for an intercept.
    y : ndarray of shape (n,)
        Labels in {0, 1}.
    w : ndarray of shape (n,)
        Positive weights.
    offset : ndarray of shape (n,), default=None
        A fixed term added to the linear predictor.
    max_iter : int, default=100
        Most Newton iterations.
    rcond : float, default=1e-12
        Singular values of the Hessian below ``rcond`` times the largest count as zero: the
        Newton step is the minimum-norm solution, so directions the data leave undetermined
        stay at 0 and the result is unique.
    min_step : float, default=1e-10
        Smallest step of the line search.
    polish : bool, default=False
        At convergence, take the last Newton step as well (its decrease of the objective is
        below rounding, but it moves the coefficients from about 1e-6 to about 1e-12 of the
        minimiser, Newton's method converging quadratically).

    Returns
    -------
    coef : ndarray of shape (d,)
    n_iter : int
        Newton systems solved (the last one finds the decrement below tolerance).
    converged : bool

    Examples
    --------
    >>> X = np.column_stack([np.ones(4), [0.0, 1.0, 2.0, 3.0]])
    >>> coef, n_iter, ok = fit_logistic(X, np.array([0, 1, 0, 1]), np.ones(4))
    >>> ok, coef.round(3)
    (True, array([-1.362,  0.908]))
    """
    X = np.asarray(X, dtype=np.float64)
    columns = [X[:, k] for k in range(X.shape[1])]
    return _fit_columns(
        columns,
        y,
        w,
        offset=offset,
        max_iter=max_iter,
        rcond=rcond,
        min_step=min_step,
        polish=polish,
    )


def _dot(a: FloatArray, b: FloatArray) -> float:
    """``sum(a * b)`` of two 1-D arrays in one pass, without BLAS (whose threads cost more CPU
    time than the sum on a shared machine)."""
    return float(np.einsum("i,i->", a, b))


def _loss_and_probability(
    z: FloatArray, y: AnyArray, w: FloatArray | None
) -> tuple[float, FloatArray]:
    """The negative log-likelihood of ``y`` under ``expit(z)``, and ``expit(z)``, from one
    exponential: with ``e = exp(-|z|)``, ``log(1 + e^z) = max(z, 0) + log1p(e)`` and
    ``expit(z)`` is ``1 / (1 + e)`` for ``z >= 0``, ``e / (1 + e)`` otherwise."""
    e = np.exp(-np.abs(z))
    one_e = 1.0 + e
    terms = np.log1p(e)
    terms += np.maximum(z, 0.0)
    terms -= y * z
    loss = float(np.sum(terms) if w is None else _dot(w, terms))
    p = np.where(z >= 0.0, 1.0, e)
    p /= one_e
    return loss, p


def _fit_columns(
    columns: Sequence[FloatArray],
    y: AnyArray,
    w: FloatArray | None,
    *,
    offset: ArrayLike | None = None,
    max_iter: int = 100,
    rcond: float = 1e-12,
    min_step: float = 1e-10,
    polish: bool = False,
) -> tuple[FloatArray, int, bool]:
    """:func:`fit_logistic` on the features as a list of 1-D columns (``w=None``: unit
    weights). Each Newton step is a few vectorised passes: the linear predictor, one
    exponential for both the objective and the probabilities, and the ``d`` gradient and
    ``d (d + 1) / 2`` Hessian sums as dot products; no ``(n, d)`` temporary."""
    d = len(columns)
    n = y.shape[0]
    if d == 0:
        return np.zeros(0), 0, True
    # columns scaled to at most 1 in absolute value: the Hessian stays finite for features of
    # any magnitude (log-odds near the largest float), and the fit is the same up to rounding
    col_scale = np.array([np.max(np.abs(c)) if n else 1.0 for c in columns])
    col_scale = np.where(col_scale > 0, col_scale, 1.0)
    cols = [c / k for c, k in zip(columns, col_scale, strict=True)]
    beta = np.zeros(d)

    def linear(coef: FloatArray) -> FloatArray:
        z = np.zeros(n) if offset is None else np.array(offset, dtype=np.float64)
        for k in range(d):
            if coef[k] != 0.0:
                z += coef[k] * cols[k]
        return z

    fval, p = _loss_and_probability(linear(beta), y, w)
    scale = float(n if w is None else np.sum(w)) + 1.0
    for it in range(1, max_iter + 1):
        r = p - y
        v = p * (1.0 - p)
        if w is not None:
            r *= w
            v *= w
        grad = np.array([_dot(c, r) for c in cols])
        vc = [v * c for c in cols]
        hess = np.empty((d, d))
        for i in range(d):
            for k in range(i + 1):
                hess[i, k] = hess[k, i] = _dot(vc[i], cols[k])
        # the minimum-norm Newton step: directions the data do not determine (collinear
        # features, fewer distinct scores than parameters) get no step, so the iterates stay
        # in the row space and the fit is the unique minimum-norm maximum-likelihood solution
        step_dir = -np.linalg.lstsq(hess, grad, rcond=rcond)[0]
        gd = float(grad @ step_dir)
        # the Newton decrement at the rounding level of the objective: converged
        if -gd < 1e-13 * (abs(fval) + scale):
            if polish:
                beta = beta + step_dir
            return beta / col_scale, it, True
        step = 1.0
        while step >= min_step:
            new = beta + step * step_dir
            new_f, new_p = _loss_and_probability(linear(new), y, w)
            if new_f <= fval + 1e-4 * step * gd:
                beta, fval, p = new, new_f, new_p
                break
            step /= 2.0
        else:
            return beta / col_scale, it, -gd < 1e-8 * (abs(fval) + scale)
    return beta / col_scale, max_iter, False


@fill_fit_doc
def fit_beta(
    scores: ArrayLike,
    y01: ArrayLike,
    sample_weight: ArrayLike | None = None,
    *,
    parameters: str = "abm",
    score_scale: str = "probability",
    max_iter: int = 100,
) -> BetaMap:
    """Fit a beta calibration map by maximum likelihood.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Calibration scores in [0, 1].
    {y01}
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights (only their ratios matter).
    parameters : {"abm", "am", "ab"}, default="abm"
        The parametrisation (see the module's description).
    score_scale : {"probability", "logit"}, default="probability"
        ``"probability"``: scores must lie in [0, 1]. ``"logit"``: scores are log-odds (any real
        number), read as ``1 / (1 + e^-score)``.
    max_iter : int, default=100
        Most Newton iterations of each logistic fit.

    Returns
    -------
    BetaMap

    Warns
    -----
    VenncalWarning
        If the scores separate the classes (the maximum-likelihood map is then a step, with no
        finite coefficients) or a logistic fit does not converge.

    Examples
    --------
    Scores whose true calibration map is a beta map get it back:

    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.01, 0.99, size=50000)
    >>> y = rng.random(50000) < 1 / (1 + np.exp(-(2 * np.log(s) - 0.5 * np.log1p(-s) + 1)))
    >>> fit = fit_beta(s, y)
    >>> round(fit.a, 1), round(fit.b, 1), round(fit.c)
    (2.0, 0.5, 1)
    """
    owner = "fit_beta"
    check_one_of(parameters, BETA_PARAMETERS, name="parameters", owner=owner)
    check_one_of(score_scale, SCORE_SCALES, name="score_scale", owner=owner)
    max_iter = check_positive_int(max_iter, name="max_iter", owner=owner)
    s, y = check_scores_y01(scores, y01)
    check_beta_scores(s, score_scale)
    w = relative_sample_weight(check_sample_weight(sample_weight, s.shape[0]))[0]
    if w is not None and not (w > 0).all():  # w None: unit weights
        keep = w > 0
        s, y, w = s[keep], y[keep], w[keep]
    y = y.astype(np.float64)
    f0, f1 = _feature_columns(s, score_scale)
    ones = np.ones(s.shape[0])
    converged = True

    def fit(
        columns: list[FloatArray], *, offset: ArrayLike | None = None
    ) -> tuple[FloatArray, int]:
        nonlocal converged
        coef, n_it, ok = _fit_columns(columns, y, w, offset=offset, max_iter=max_iter)
        converged = converged and ok
        return coef, n_it

    if parameters == "am":
        # a = b: one slope on logit(s) = ln s + (-ln(1 - s)), and an intercept
        coef, n_it = fit([f0 + f1, ones])
        a, c = float(coef[0]), float(coef[1])
        if a < 0.0:
            coef, n_it = fit([ones])
            a, c = 0.0, float(coef[0])
        b = a
    else:
        # "abm": a, b and an intercept; "ab": m = 1/2, no intercept, features ln(2 s) and
        # -ln(2 (1 - s)) so that mu(1/2) = 1/2 whatever a and b
        if parameters == "ab":
            cols = [f0 + _LN2, f1 - _LN2]
            extra = []
        else:
            cols = [f0, f1]
            extra = [ones]
        coef, n_it = fit(cols + extra)
        a, b = float(coef[0]), float(coef[1])
        c = float(coef[2]) if extra else 0.0
        if a < 0.0 or b < 0.0:
            # the paper's rule: drop the feature of the negative coefficient and refit
            keep_feature = 1 if a < 0.0 else 0
            coef, n_it = fit([cols[keep_feature]] + extra)
            kept = float(coef[0])
            if kept < 0.0:
                kept = 0.0
                if extra:
                    coef, n_it = fit(extra)
                    c = float(coef[0])
                else:
                    c = 0.0
            else:
                c = float(coef[1]) if extra else 0.0
            a, b = (0.0, kept) if keep_feature == 1 else (kept, 0.0)
        if parameters == "ab":
            # back to the form a ln s - b ln(1 - s) + c
            c = _LN2 * (a - b)
    pos, neg = s[y == 1], s[y == 0]
    separated = pos.size and neg.size and pos.min() > neg.max()
    if separated or not converged:
        warnings.warn(
            "Beta calibration: the scores separate the classes or the logistic fit did not "
            "converge; no finite maximum-likelihood map exists for separated classes (it tends "
            "to a step), so the map may be inaccurate.",
            VenncalWarning,
            stacklevel=2,
        )
    return BetaMap(a, b, c, parameters, score_scale, int(n_it), converged)
