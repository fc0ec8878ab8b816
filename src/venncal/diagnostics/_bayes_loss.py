"""Cost-weighted losses and Brier curves of calibrated classifiers (Tasche, Sections 3 and 5).

With ``eta = P(A | H)`` the posterior given some information ``H`` and a cost ``c`` in [0, 1],
the *cost-weighted mean loss* of predicting the positive class on the event ``G`` is

    L_c(G) = c P(A^c and G) + (1 - c) P(A and not G)                             (6a)

and the *cost-weighted Bayes loss* of ``H`` is its minimum over the events ``G`` in ``H``,

    L*_c(H) = E[min(c (1 - eta), (1 - c) eta)]        attained by G = {eta > c}   (6b)

The curve ``c -> L*_c(H)`` is the Brier curve of the calibrated classifier ``eta``
(Definition 5.1), its area is half the refinement loss ``E[eta (1 - eta)]`` (15b), and a
sub-information ``H`` of ``G`` is sufficient exactly when the two curves coincide (Theorem 3.4).

This module computes the curves from probabilities (no labels needed when the posterior is
known, e.g. in a simulation), in closed form for two Gaussian classes with a common variance
(Figure 1 and Example 3.12: bivariate normal features with independent components), and moves
a calibrated Brier curve to another prior (Proposition 5.2, item 6).

References
----------
D. Tasche, "Calibrating sufficiently" (2021), Definition 3.3, Theorem 3.4, Example 3.12 and
Figure 1, Definition 5.1 and Proposition 5.2.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.integrate import quad
from scipy.special import logit
from scipy.stats import norm

from venncal._params import check_finite_pair
from venncal._validation import check_in_range, check_probabilities, check_sample_weight

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import ArrayLike, FloatArray

__all__ = [
    "BayesLossCurves",
    "bivariate_normal_bayes_loss_curves",
    "cost_weighted_bayes_loss",
    "cost_weighted_loss",
    "gaussian_bayes_loss",
    "gaussian_refinement_loss",
    "prior_shift_brier_curve",
    "prior_shift_posterior",
]


def _costs(costs: ArrayLike, owner: str) -> FloatArray:
    c = np.asarray(costs, dtype=np.float64)
    if c.ndim > 1 or not np.isfinite(c).all() or (c < 0).any() or (c > 1).any():
        raise ValueError(
            f"The 'costs' parameter of {owner} must be a number or a 1-D array of numbers in "
            f"[0, 1]. Got {costs!r} instead."
        )
    return c


def _check_same_length(
    first: FloatArray, second: FloatArray, names: tuple[str, str], owner: str
) -> None:
    """Raise unless the two arrays named ``names`` have the same length."""
    if first.shape != second.shape:
        raise ValueError(
            f"'{names[0]}' and '{names[1]}' of {owner} must have the same length, got "
            f"{first.shape[0]} and {second.shape[0]}."
        )


def _open_unit(value: Any, name: str, owner: str) -> float:
    return check_in_range(value, 0, 1, name=name, owner=owner)


def cost_weighted_loss(
    posterior: ArrayLike,
    prediction: ArrayLike,
    costs: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float | FloatArray:
    """Cost-weighted mean loss of thresholding ``prediction`` at each cost (Tasche, eq. 6a).

    ``L_c = E[c (1 - eta) 1{prediction > c} + (1 - c) eta 1{prediction <= c}]``: the expected
    loss of predicting the positive class where ``prediction > c``, with ``eta`` the
    probability of the positive class of each object. With the labels as ``posterior`` it
    is the empirical Brier curve (:func:`venncal.metrics.brier_curve`); with the true
    posterior of a simulation it is the population curve without label noise.

    Parameters
    ----------
    posterior : array-like of shape (n,)
        ``P(Y = 1)`` of each object given all that is known (or its 0/1 label).
    prediction : array-like of shape (n,)
        Probabilities of the classifier under study, in [0, 1].
    costs : float or array-like of shape (k,)
        Costs ``c`` in [0, 1].
    sample_weight : array-like of shape (n,), default=None
        Weights of the objects (the expectation is a weighted mean).

    Returns
    -------
    float or ndarray of shape (k,)

    Examples
    --------
    >>> eta = np.array([0.1, 0.4, 0.8]); p = np.array([0.2, 0.6, 0.9])
    >>> float(cost_weighted_loss(eta, p, 0.5))  # 0.5 * 0.6 for the middle object, / 3
    0.1
    """
    owner = "cost_weighted_loss"
    eta = check_probabilities(posterior, name="posterior")
    p = check_probabilities(prediction, name="prediction")
    _check_same_length(eta, p, ("posterior", "prediction"), owner)
    c = _costs(costs, owner)
    w = check_sample_weight(sample_weight, eta.shape[0])
    w = np.ones(eta.shape[0]) if w is None else w
    total = w.sum()
    if not total > 0:
        raise ValueError(f"The sample weights of {owner} must not all be zero.")
    order = np.argsort(p, kind="stable")
    ps = p[order]
    pos = np.concatenate(([0.0], np.cumsum((w * eta)[order])))
    neg = np.concatenate(([0.0], np.cumsum((w * (1.0 - eta))[order])))
    j = np.searchsorted(ps, c, side="right")  # objects with prediction <= c
    out = (c * (neg[-1] - neg[j]) + (1.0 - c) * pos[j]) / total
    return float(out) if np.ndim(out) == 0 else out


def cost_weighted_bayes_loss(
    posterior: ArrayLike, costs: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float | FloatArray:
    """Cost-weighted Bayes loss ``E[min(c (1 - eta), (1 - c) eta)]`` (Tasche, eq. 6b).

    The smallest cost-weighted loss of any classifier that uses the information the
    posterior ``eta`` is based on; as a function of ``c``, the Brier curve of the calibrated
    ``eta``.

    Parameters
    ----------
    posterior : array-like of shape (n,)
        ``eta``: calibrated probabilities given the information (``P(A | H)``).
    costs : float or array-like of shape (k,)
    sample_weight : array-like of shape (n,), default=None

    Returns
    -------
    float or ndarray of shape (k,)

    Examples
    --------
    Twice the area under the curve is the refinement loss ``E[eta (1 - eta)]`` (15b):

    >>> eta = np.array([0.1, 0.3, 0.9])
    >>> c = np.linspace(0, 1, 20001)
    >>> area = np.trapezoid(cost_weighted_bayes_loss(eta, c), c)
    >>> round(float(2 * area), 6), round(float(np.mean(eta * (1 - eta))), 6)
    (0.13, 0.13)
    """
    return cost_weighted_loss(posterior, posterior, costs, sample_weight=sample_weight)


def gaussian_bayes_loss(
    costs: ArrayLike, *, separation: float, prior: float = 0.5
) -> float | FloatArray:
    """Cost-weighted Bayes loss of a Gaussian statistic with a common variance, in closed form.

    When the information ``H`` is generated by a real statistic ``T`` with ``T | Y = k`` normal
    with means ``m_k`` and one variance ``s^2``, the posterior is increasing in ``T`` (for
    ``m_1 > m_0``) and, with ``D = (m_1 - m_0) / s`` and ``l = logit(c) - logit(prior)``,

        L*_c(H) = c (1 - prior) Phi(-t_c) + (1 - c) prior Phi(t_c - D),   t_c = D/2 + l/D

    (the threshold of the Bayes classifier is ``eta > c``). ``D = 0`` (no information) gives
    ``min(c (1 - prior), (1 - c) prior)``. For a linear statistic of a Gaussian feature vector
    with a common covariance ``Sigma``, ``D`` is the Mahalanobis distance of the class means
    (``sqrt(delta' Sigma^-1 delta)`` for all features, ``|delta_j| / sigma_j`` for one).

    Parameters
    ----------
    costs : float or array-like of shape (k,)
        Costs in [0, 1].
    separation : float >= 0
        ``D``, the standardised distance of the class means.
    prior : float in (0, 1), default=0.5
        ``P(Y = 1)``.

    Returns
    -------
    float or ndarray of shape (k,)

    References
    ----------
    Tasche, "Calibrating sufficiently", eq. (6b), Figures 1 and 2.

    Examples
    --------
    >>> float(gaussian_bayes_loss(0.5, separation=0.0))  # no information: min(c, 1 - c) / 2
    0.25
    >>> bool(gaussian_bayes_loss(0.5, separation=2.0) < gaussian_bayes_loss(0.5, separation=1.0))
    True
    """
    owner = "gaussian_bayes_loss"
    c = _costs(costs, owner)
    p = _open_unit(prior, "prior", owner)
    ok = isinstance(separation, numbers.Real) and not isinstance(separation, bool)
    if not (ok and np.isfinite(separation) and separation >= 0):
        raise ValueError(
            f"The 'separation' parameter of {owner} must be a finite number >= 0. "
            f"Got {separation!r} instead."
        )
    d = float(separation)
    if d == 0.0:
        out = np.minimum(c * (1.0 - p), (1.0 - c) * p)
    else:
        with np.errstate(divide="ignore"):
            t = d / 2.0 + (logit(c) - logit(p)) / d
        out = c * (1.0 - p) * norm.sf(t) + (1.0 - c) * p * norm.cdf(t - d)
        out = np.where((c == 0.0) | (c == 1.0), 0.0, out)
    return float(out) if np.ndim(out) == 0 else out


def gaussian_refinement_loss(*, separation: float, prior: float = 0.5) -> float:
    """Refinement loss ``E[eta (1 - eta)]`` of the Gaussian statistic of :func:`gaussian_bayes_loss`.

    Twice the area under its Bayes-loss curve (Tasche, eq. 15b), by numerical integration: the
    Brier score of the calibrated posterior given that statistic.

    Returns
    -------
    float

    Examples
    --------
    >>> round(gaussian_refinement_loss(separation=0.0), 6)  # no information: prior (1 - prior)
    0.25
    """
    value, _ = quad(
        lambda c: gaussian_bayes_loss(c, separation=separation, prior=prior),
        0.0,
        1.0,
        points=[prior],
        epsabs=1e-13,
        epsrel=1e-11,
        limit=200,
    )
    return 2.0 * value


@dataclass(frozen=True)
class BayesLossCurves:
    """Cost-weighted Bayes-loss curves of Tasche's bivariate normal model (Figure 1).

    Attributes
    ----------
    costs : ndarray of shape (k,)
    both : ndarray of shape (k,)
        ``L*_c`` given both components: the full information (the dashed curve).
    first, second : ndarray of shape (k,)
        ``L*_c`` given the first, or the second, component only.
    prior : ndarray of shape (k,)
        ``L*_c`` of the constant prior estimate (no information; the solid curve).
    separations : dict
        The Mahalanobis separations ``D`` of the class means for ``"both"``, ``"first"``,
        ``"second"`` and ``"prior"`` (0).
    refinement_losses : dict
        ``E[eta (1 - eta)]`` for each information, twice the area under its curve; the
        grouping loss of the first component's posterior is
        ``refinement_losses["first"] - refinement_losses["both"]``.
    """

    costs: FloatArray
    both: FloatArray
    first: FloatArray
    second: FloatArray
    prior: FloatArray
    separations: dict[str, float]
    refinement_losses: dict[str, float]


def bivariate_normal_bayes_loss_curves(
    costs: ArrayLike | None = None,
    *,
    mean0: tuple[float, float] = (0.0, 0.0),
    mean1: tuple[float, float] = (1.0, 1.5),
    std: tuple[float, float] = (1.0, 1.0),
    rho: float = 0.0,
    prior: float = 0.5,
) -> BayesLossCurves:
    """Bayes-loss curves given both, one or no component of bivariate normal features.

    Given the class, the features are normal with means ``mean0``, ``mean1`` and one
    covariance (standard deviations ``std``, correlation ``rho``). Each curve is
    :func:`gaussian_bayes_loss` with the separation of the information: both components
    (``sqrt(delta' Sigma^-1 delta)``), one component (``|delta_j| / std_j``), none (0).

    With ``rho = 0`` (the default) this is the setting of Tasche's Figure 1 and Example 3.12:
    the components are independent given the class. If the first component separates the
    classes better, its curve lies below the second's for every cost (inequality (11)), yet the
    first component is not sufficient with respect to both (condition (10) fails): that would
    make the second component independent of the class (Lemma 3.11), and its curve would be
    the prior's, which it is not.

    Parameters
    ----------
    costs : array-like of shape (k,), default=None
        Costs in [0, 1]; by default 201 equally spaced costs.
    mean0, mean1 : tuple of 2 floats, default=(0, 0), (1, 1.5)
    std : tuple of 2 positive floats, default=(1, 1)
    rho : float in (-1, 1), default=0.0
    prior : float in (0, 1), default=0.5

    Returns
    -------
    BayesLossCurves

    References
    ----------
    Tasche, "Calibrating sufficiently", Example 3.12 and Figure 1 (the seed's copy prints no
    parameters; the defaults are those of venncal.datasets.BivariateNormalModel with
    ``rho = 0``).

    Examples
    --------
    >>> curves = bivariate_normal_bayes_loss_curves(mean1=(1.5, 1.0))
    >>> bool(np.all(curves.first <= curves.second))  # (11): the first dominates
    True
    >>> bool(np.max(curves.prior - curves.second) > 0.01)  # the second is informative
    True
    >>> gl = curves.refinement_losses["first"] - curves.refinement_losses["both"]
    >>> round(gl, 4)  # grouping loss of P(A | first component): (10) fails
    0.0263
    """
    owner = "bivariate_normal_bayes_loss_curves"
    c = np.linspace(0.0, 1.0, 201) if costs is None else _costs(costs, owner)
    pairs = {
        name: check_finite_pair(value, name=name, owner=owner)
        for name, value in (("mean0", mean0), ("mean1", mean1), ("std", std))
    }
    sd = pairs["std"]
    if (sd <= 0).any():
        raise ValueError(f"The 'std' parameter of {owner} must be positive. Got {std!r} instead.")
    check_in_range(rho, -1, 1, name="rho", owner=owner)
    p = _open_unit(prior, "prior", owner)
    delta = pairs["mean1"] - pairs["mean0"]
    cov = np.array([[sd[0] ** 2, rho * sd[0] * sd[1]], [rho * sd[0] * sd[1], sd[1] ** 2]])
    seps = {
        "both": float(np.sqrt(delta @ np.linalg.solve(cov, delta))),
        "first": float(abs(delta[0]) / sd[0]),
        "second": float(abs(delta[1]) / sd[1]),
        "prior": 0.0,
    }
    curves = {k: np.asarray(gaussian_bayes_loss(c, separation=d, prior=p)) for k, d in seps.items()}
    refinement = {k: gaussian_refinement_loss(separation=d, prior=p) for k, d in seps.items()}
    return BayesLossCurves(
        costs=c,
        both=curves["both"],
        first=curves["first"],
        second=curves["second"],
        prior=curves["prior"],
        separations=seps,
        refinement_losses=refinement,
    )


def prior_shift_posterior(posterior: ArrayLike, *, prior: float, new_prior: float) -> FloatArray:
    """The posterior after a prior probability shift from ``prior`` to ``new_prior``.

    Under prior shift the class-conditional distributions stay and the class probability
    moves; Bayes' formula gives ``eta_Q = a eta / (a eta + b (1 - eta))`` with
    ``a = new_prior / prior`` and ``b = (1 - new_prior) / (1 - prior)``.

    Parameters
    ----------
    posterior : array-like of shape (n,)
        ``P(A | H)`` under the old prior.
    prior, new_prior : float in (0, 1)

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> prior_shift_posterior([0.5, 0.9], prior=0.5, new_prior=0.2).round(4)
    array([0.2   , 0.6923])
    """
    owner = "prior_shift_posterior"
    eta = check_probabilities(posterior, name="posterior")
    p = _open_unit(prior, "prior", owner)
    q = _open_unit(new_prior, "new_prior", owner)
    a, b = q / p, (1.0 - q) / (1.0 - p)
    return a * eta / (a * eta + b * (1.0 - eta))


def prior_shift_brier_curve(
    costs: ArrayLike,
    brier_curve: Callable[[FloatArray], ArrayLike],
    *,
    prior: float,
    new_prior: float,
) -> float | FloatArray:
    """Brier curve of a calibrated classifier after a prior shift (Tasche, Prop. 5.2, item 6).

    If ``P`` and ``Q`` differ by prior probability shift on the information ``H`` (same
    class-conditional distributions, ``P(A) = prior``, ``Q(A) = new_prior``), the Brier curve
    of ``Q(A | H)`` under ``Q`` follows from that of ``P(A | H)`` under ``P``:

        B_Q(c) = (a + b) B_P(a / (a + b)),   a = c (1 - q) / (1 - p),   b = (1 - c) q / p

    with ``p = prior`` and ``q = new_prior``. It follows from (6b): ``B_Q(c)`` integrates
    ``min(c (1 - q) f_0, (1 - c) q f_1)`` over the class-conditional densities, and the two
    weights are ``a (1 - p)`` and ``b p``. (The seed's copy of the paper lost the formulas of
    (22a)-(22b); this is the transform derived from the definitions.)

    Parameters
    ----------
    costs : float or array-like of shape (k,)
        Costs in [0, 1] at which to evaluate the new curve.
    brier_curve : callable
        ``brier_curve(c) -> B_P(c)`` for an array of costs: the curve of a calibrated
        classifier under the old prior, e.g. a :class:`venncal.metrics.BrierCurve` of the
        calibrated probabilities, or :func:`cost_weighted_bayes_loss` with the posterior.
    prior, new_prior : float in (0, 1)

    Returns
    -------
    float or ndarray of shape (k,)

    References
    ----------
    Tasche, "Calibrating sufficiently", Proposition 5.2, item 6.

    Examples
    --------
    The curve of a Gaussian statistic moves to the curve of the same statistic under the new
    prior:

    >>> c = np.linspace(0, 1, 11)
    >>> old = lambda t: gaussian_bayes_loss(t, separation=1.5, prior=0.5)
    >>> moved = prior_shift_brier_curve(c, old, prior=0.5, new_prior=0.2)
    >>> bool(np.allclose(moved, gaussian_bayes_loss(c, separation=1.5, prior=0.2)))
    True
    """
    owner = "prior_shift_brier_curve"
    c = _costs(costs, owner)
    if not callable(brier_curve):
        raise TypeError(
            f"The 'brier_curve' parameter of {owner} must be callable: brier_curve(costs)."
        )
    p = _open_unit(prior, "prior", owner)
    q = _open_unit(new_prior, "new_prior", owner)
    a = c * (1.0 - q) / (1.0 - p)
    b = (1.0 - c) * q / p
    scale = a + b  # > 0 for every c in [0, 1]
    out = scale * np.asarray(brier_curve(np.atleast_1d(a / scale)), dtype=np.float64).reshape(
        np.shape(np.atleast_1d(c))
    )
    return float(out[0]) if np.ndim(c) == 0 else out
