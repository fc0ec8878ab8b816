"""Quadratic scaling: a logistic regression on the log-odds and their square.

Quadratic scaling maps a score to ``p = 1 / (1 + exp(-(b + w1 z + w2 z^2)))``, where ``z`` is the
log-odds of the score: ``logit(s)`` for a probability ``s`` in [0, 1] (clipped to
``[eps, 1 - eps]``, as beta calibration does, so that 0 and 1 have finite log-odds), or the score
itself for log-odds and margins. It extends Platt's sigmoid (``w2 = 0``) by one parameter that
bends the map, as in the binary case of the structured matrix scaling of Berta, Holzmueller,
Jordan & Bach (2026). The coefficients are the unpenalised maximum-likelihood logistic regression
of the label on the features 1, ``z`` and ``z^2``, fitted by Newton's method with backtracking on
standardised features (:func:`venncal.core.beta.fit_logistic`), to a gradient of about 1e-12 of
the total weight.

**Monotonicity.** A quadratic in ``z`` is not monotone: beyond its vertex ``v = -w1 / (2 w2)``
the map decreases, so that a larger score would get a smaller probability. Three rules
(:data:`MONOTONE_RULES`) make the map non-decreasing on the whole line:

* ``"constrained"`` (the default): the maximum-likelihood quadratic among those that are
  non-decreasing over the calibration scores. When the unconstrained fit has its vertex inside
  the range of the calibration log-odds, the constrained maximum lies on the boundary of that
  convex set: a quadratic whose vertex is one end of the range (``b + a (z - z_min)^2`` with
  ``a >= 0``, or ``b - a (z - z_max)^2``), or a constant; both are fitted and the more likely
  is kept. Beyond the vertex the map is held constant.
* ``"affine"``: when the vertex lies inside the range, the affine fit (Platt's sigmoid of ``z``
  without smoothing; a constant if its slope is negative) replaces the quadratic.
* ``"clip"``: the quadratic is held constant beyond its vertex, wherever the vertex lies (the
  map then differs from the fit over part of the calibration scores).

When the vertex lies outside the range, every rule keeps the unconstrained fit and holds it
constant beyond the vertex, which changes only extrapolation. On eight benchmark datasets the
constrained rule gave the lowest held-out log loss where the rules differ
(``benchmarks/bench_quadratic.py``, BENCHMARKS.md).

**Separation.** When a quadratic of the score splits the classes (every positive on one side of
the zero set of some quadratic, every negative on the other, ties on it), the likelihood has no
finite maximiser: the fit approaches a step. Newton's method is then stopped where the
decrease of the likelihood reaches the rounding level, which gives a finite, very steep map, and
a :class:`~venncal.exceptions.VenncalWarning` says so.

References
----------
.. [1] E. Berta, D. Holzmueller, M. I. Jordan and F. Bach, "Structured matrix scaling for
   multi-class calibration", AISTATS 2026 (arXiv:2511.03685).
.. [2] A. Albert and J. A. Anderson, "On the existence of maximum likelihood estimates in
   logistic regression models", Biometrika 71(1), 1-10, 1984 (separation).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit

from venncal._validation import (
    check_positive_int,
    check_sample_weight,
    rescale_sample_weight,
)
from venncal.core._inputs import check_one_of, check_scores_y01, fill_fit_doc
from venncal.core.beta import SCORE_SCALES, beta_features, check_beta_scores, fit_logistic
from venncal.core.platt import _standardise, standardisation
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = [
    "MONOTONE_RULES",
    "QUADRATIC_FORMS",
    "QuadraticMap",
    "fit_quadratic",
    "quadratic_log_odds",
    "separated_by",
]

#: how a fitted quadratic that decreases somewhere is made monotone (see the module docstring)
MONOTONE_RULES = ("constrained", "affine", "clip")
#: what the fitted map is
QUADRATIC_FORMS = ("quadratic", "affine", "constant")

# standardised log-odds beyond this magnitude are clipped before squaring (no overflow; the
# map is monotone, so it is saturated there for any coefficients a fit can give)
_U_BOUND = 1e150
_METHOD = "Quadratic scaling"


def quadratic_log_odds(scores: ArrayLike, score_scale: str = "probability") -> FloatArray:
    """Return the log-odds ``z`` of the scores, shape (n,).

    ``"probability"``: ``logit(s)`` of scores clipped to ``[eps, 1 - eps]`` (the convention of
    :func:`venncal.core.beta.beta_features`, so 0 and 1 map to about -36 and 36).
    ``"logit"``: the scores themselves.

    Examples
    --------
    >>> quadratic_log_odds(np.array([0.5, 0.75, 1.0])).round(4)
    array([ 0.    ,  1.0986, 36.0437])
    """
    if score_scale == "logit":
        return np.asarray(scores, dtype=np.float64)
    feats = beta_features(scores, "probability")
    return feats[:, 0] + feats[:, 1]


@dataclass(frozen=True)
class QuadraticMap:
    """A fitted monotone quadratic map of the log-odds.

    On standardised log-odds ``u = (z - center) / scale``, clipped to ``[lower, upper]``, the
    calibrated log-odds are ``c0 + c1 u + c2 u^2``.

    Attributes
    ----------
    c0, c1, c2 : float
        Coefficients on standardised log-odds.
    center, scale : float
        The standardisation of the calibration log-odds.
    lower, upper : float
        The map is held constant below ``lower`` and above ``upper`` (the vertex, or an
        infinity); between them it is non-decreasing.
    form : {"quadratic", "affine", "constant"}
        What the map is.
    score_scale : {"probability", "logit"}
        How scores are read.
    n_iter : int
        Newton systems solved by the last logistic fit.
    converged : bool
        Whether every logistic fit converged.
    """

    c0: float
    c1: float
    c2: float
    center: float
    scale: float
    lower: float = -np.inf
    upper: float = np.inf
    form: str = "quadratic"
    score_scale: str = "probability"
    n_iter: int = 0
    converged: bool = True

    @property
    def coefficients(self) -> tuple[float, float, float]:
        """``(b, w1, w2)`` on the log-odds ``z`` themselves (may overflow for extreme scales)."""
        c, s = self.center, self.scale
        with np.errstate(over="ignore", invalid="ignore"):
            w2 = self.c2 / s / s
            w1 = self.c1 / s - 2.0 * w2 * c
            b = self.c0 - self.c1 * c / s + w2 * c * c
        return float(b), float(w1), float(w2)

    def log_odds(self, scores: ArrayLike) -> FloatArray:
        """Calibrated log-odds of each score, shape (m,)."""
        z = quadratic_log_odds(scores, self.score_scale)
        with np.errstate(over="ignore", invalid="ignore"):
            u = _standardise(z, self.center, self.scale)
        u = np.clip(u, max(self.lower, -_U_BOUND), min(self.upper, _U_BOUND))
        v = self._vertex_bound()
        if v is None:
            return self.c0 + u * (self.c1 + self.c2 * u)
        # about the vertex, where the map is held constant: top + c2 (u - v)^2 is a chain of
        # monotone roundings (subtract, square, scale, shift), so it never decreases by an ulp
        # where the slope is below rounding, as c0 + u (c1 + c2 u) can
        d = u - v
        return (self.c0 + v * (self.c1 + self.c2 * v)) + self.c2 * (d * d)

    def _vertex_bound(self) -> float | None:
        """The finite bound that is the vertex (``lower`` for c2 > 0, ``upper`` for c2 < 0)."""
        if self.c2 == 0.0:
            return None
        v = self.lower if self.c2 > 0 else self.upper
        vertex = -self.c1 / (2.0 * self.c2)
        if not (np.isfinite(v) and np.isfinite(vertex)):
            return None
        return v if abs(v - vertex) <= 1e-9 * max(1.0, abs(vertex)) else None

    def predict(self, scores: ArrayLike) -> FloatArray:
        """Return ``P(y = 1 | score)`` for each score, shape (m,)."""
        p: FloatArray = expit(self.log_odds(scores))
        return p


# one character per distinct score: P only positives there, N only negatives, M both
_SEPARABLE = {
    # a nonzero quadratic q >= 0 at P, <= 0 at N, = 0 at M: its sign pattern along the line is
    # s, -s, s with its (at most two) roots between or on the scores
    "quadratic": re.compile(r"P*.?N*.?P*|N*.?P*.?N*"),
    # an increasing line: negatives, then at most one score on the root, then positives
    "increasing": re.compile(r"N*.?P*"),
}


def separated_by(u: FloatArray, y: AnyArray, kind: str = "quadratic") -> bool:
    """Whether a ``kind`` of function of the score separates the classes (ties allowed).

    ``"quadratic"``: some quadratic ``q``, not zero at every score, has ``q >= 0`` at the
    positives and ``q <= 0`` at the negatives (quasi-complete separation of the features 1,
    ``u``, ``u^2``: no finite maximum-likelihood fit exists). ``"increasing"``: the same with
    an increasing affine ``q``.

    Parameters
    ----------
    u : ndarray of shape (n,)
    y : ndarray of shape (n,)
        Labels in {0, 1}; every row counts (drop rows of zero weight first).
    kind : {"quadratic", "increasing"}

    Examples
    --------
    >>> u = np.array([0.0, 1.0, 2.0, 3.0])
    >>> separated_by(u, np.array([0, 1, 1, 0])), separated_by(u, np.array([0, 1, 0, 1]))
    (True, False)
    >>> separated_by(u, np.array([0, 1, 1, 0]), "increasing")
    False
    """
    values, inverse = np.unique(u, return_inverse=True)
    pos = np.bincount(inverse, weights=(y == 1).astype(float), minlength=values.shape[0]) > 0
    neg = np.bincount(inverse, weights=(y == 0).astype(float), minlength=values.shape[0]) > 0
    code = np.where(pos & neg, 2, np.where(pos, 0, 1))
    if not (code != 2).any():  # every score holds both classes
        return False
    # runs of one character; a pattern above holds at most 5 runs
    starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    if starts.shape[0] > 5:
        return False
    lengths = np.diff(np.r_[starts, code.shape[0]])
    # two single-character slots at most: runs longer than 3 match as runs of 3
    text = "".join("PNM"[code[i]] * min(int(k), 3) for i, k in zip(starts, lengths))
    return _SEPARABLE[kind].fullmatch(text) is not None


def _nll(eta: FloatArray, y: FloatArray, w: FloatArray) -> float:
    return float(np.sum(w * (np.logaddexp(0.0, eta) - y * eta)))


@fill_fit_doc
def fit_quadratic(
    scores: ArrayLike,
    y01: ArrayLike,
    sample_weight: ArrayLike | None = None,
    *,
    score_scale: str = "probability",
    monotone: str = "constrained",
    max_iter: int = 100,
) -> QuadraticMap:
    """Fit quadratic scaling by maximum likelihood, made monotone by a rule.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Calibration scores: probabilities in [0, 1], or log-odds with ``score_scale="logit"``.
    {y01}
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights (a weight of k counts as k copies of a row).
    score_scale : {"probability", "logit"}, default="probability"
        How scores are read (see :func:`quadratic_log_odds`).
    monotone : {"constrained", "affine", "clip"}, default="constrained"
        What happens when the fitted quadratic decreases over the calibration scores (see the
        module docstring).
    max_iter : int, default=100
        Most Newton iterations of each logistic fit.

    Returns
    -------
    QuadraticMap

    Warns
    -----
    VenncalWarning
        If the scores separate the classes (no finite maximum-likelihood map exists) or a
        logistic fit does not converge.

    Examples
    --------
    Scores whose log-odds need a bend get it back:

    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=50000)
    >>> y = rng.random(50000) < 1 / (1 + np.exp(-(0.5 + 1.5 * z + 0.1 * z**2)))
    >>> fit = fit_quadratic(z, y, score_scale="logit")
    >>> [round(c, 1) for c in fit.coefficients], fit.form
    ([0.5, 1.5, 0.1], 'quadratic')
    """
    owner = "fit_quadratic"
    check_one_of(score_scale, SCORE_SCALES, name="score_scale", owner=owner)
    check_one_of(monotone, MONOTONE_RULES, name="monotone", owner=owner)
    max_iter = check_positive_int(max_iter, name="max_iter", owner=owner)
    s, y = check_scores_y01(scores, y01)
    check_beta_scores(s, score_scale, method=_METHOD)
    w = rescale_sample_weight(check_sample_weight(sample_weight, s.shape[0]))
    if w is None:
        w = np.ones(s.shape[0])
    elif not (w > 0).all():
        keep = w > 0
        s, y, w = s[keep], y[keep], w[keep]
    y = y.astype(np.float64)
    z = quadratic_log_odds(s, score_scale)
    center, scale = standardisation(z)
    u = _standardise(z, center, scale)
    # the square, centred and scaled, conditions the Newton systems
    u2 = u * u
    m2 = float(np.mean(u2))
    s2 = float(np.std(u2))
    s2 = s2 if s2 > 0 else 1.0
    ones = np.ones(u.shape[0])
    converged = True
    n_iter = 0

    def fit(columns: list[FloatArray]) -> FloatArray:
        nonlocal converged, n_iter
        coef, n_iter, ok = fit_logistic(
            np.column_stack(columns), y, w, max_iter=max_iter, polish=True
        )
        converged = converged and ok
        return coef

    b, a1, a2 = fit([ones, u, (u2 - m2) / s2])
    c0, c1, c2 = b - a2 * m2 / s2, a1, a2 / s2
    lo, hi = float(u.min()), float(u.max())
    kind: str | None
    form, kind = "quadratic", "quadratic"
    # the derivative c1 + 2 c2 u is affine in u: non-negative over the scores iff at both ends
    if monotone != "clip" and min(c1 + 2.0 * c2 * lo, c1 + 2.0 * c2 * hi) < 0.0:
        if monotone == "affine":
            c0, c1 = fit([ones, u])
            c2, form, kind = 0.0, "affine", "increasing"
        else:
            # the constrained maximum lies on the boundary of the monotone set: the vertex at
            # the lowest score (c2 >= 0) or at the highest (c2 <= 0), or a constant
            best: tuple[float, float, float, float] | None = None
            for end, sign in ((lo, 1.0), (hi, -1.0)):
                feature = sign * (u - end) ** 2
                f0, fa = fit([ones, feature])
                value = _nll(f0 + fa * feature, y, w)
                if fa > 0.0 and (best is None or value < best[0]):
                    # f0 + sign fa (u - end)^2 expanded in powers of u
                    best = (value, f0 + sign * fa * end * end, -2.0 * sign * fa * end, sign * fa)
            if best is not None:
                _, c0, c1, c2 = best
                kind = "increasing"  # sign (u - end)^2 grows with u over the scores
            else:
                c1 = c2 = 0.0
    if c2 == 0.0 and c1 < 0.0:  # an affine map that decreases: the best monotone one is flat
        c1 = 0.0
    if c2 == 0.0 and c1 == 0.0:
        (c0,) = fit([ones])
        form, kind = "constant", None
    elif c2 == 0.0:
        form = "affine"
    lower, upper = -np.inf, np.inf
    if c2 > 0.0:
        lower = -c1 / (2.0 * c2)
    elif c2 < 0.0:
        upper = -c1 / (2.0 * c2)
    separated = kind is not None and separated_by(u, y, kind)
    if separated or not converged:
        warnings.warn(
            "Quadratic scaling: the scores separate the classes or the logistic fit did not "
            "converge; no finite maximum-likelihood map exists for separated classes (it tends "
            "to a step), so the map is steep and may be inaccurate.",
            VenncalWarning,
            stacklevel=2,
        )
    return QuadraticMap(
        float(c0),
        float(c1),
        float(c2),
        float(center),
        float(scale),
        float(lower),
        float(upper),
        form,
        score_scale,
        int(n_iter),
        bool(converged),
    )
