"""Numerical checks of sufficiency (Tasche, "Calibrating sufficiently", Section 3.1).

A score ``S`` is *sufficient* (for the positive class, with respect to the full information
``G``) when ``P(A | S) = P(A | G)``: calibrating it then loses nothing, and its grouping loss is
zero. Tasche gives three criteria, each checkable on a sample where the full-information
posterior ``eta = P(A | G)`` is known (a simulation) or replaced by a trusted reference:

* Theorem 3.4 / Corollary 3.5, eq. (7): sufficiency holds exactly when the cost-weighted Bayes
  loss of the score's information equals that of the full information for every cost. With
  the calibrated score ``q = P(A | S)``, the curve ``L*_c(S)`` is
  ``E[min(c (1 - q), (1 - c) q)]``.
* Proposition 3.6, eq. (8): if thresholding ``S`` attains the Bayes loss ``L*_c(G)`` for every
  cost ``c`` (at a threshold increasing in ``c``), then ``S`` is sufficient. The check takes,
  for every cost, the best threshold of ``S``.
* Proposition 3.7: if ``S`` and ``eta`` are strongly comonotonic (``eta`` a non-decreasing
  function of ``S``), then ``S`` is sufficient; Kendall's tau of ``(S, eta)`` is then 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_probabilities, check_sample_weight, check_scores
from venncal.diagnostics._bayes_loss import _check_same_length, _costs, cost_weighted_bayes_loss

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray

__all__ = ["SufficiencyCheck", "sufficiency_check"]


@dataclass(frozen=True)
class SufficiencyCheck:
    """Sufficiency criteria of Tasche (Section 3.1) evaluated on a sample.

    Attributes
    ----------
    costs : ndarray of shape (k,)
    bayes_loss : ndarray of shape (k,)
        ``L*_c(G)``: the cost-weighted Bayes loss of the full information, from ``eta``.
    threshold_loss : ndarray of shape (k,)
        The smallest cost-weighted loss of ``{S > t}`` over all thresholds ``t``, for each cost
        (Proposition 3.6). Never below ``bayes_loss``.
    threshold_gap : float
        ``max_c (threshold_loss - bayes_loss)``: 0 (up to rounding) when thresholds of the
        score are Bayes-optimal for every cost, which makes the score sufficient.
    kendall_tau : float
        Kendall's tau-b of the score and ``eta``: 1 when they are strongly comonotonic
        (Proposition 3.7), in which case the score is sufficient.
    calibrated_loss : ndarray of shape (k,) or None
        ``L*_c`` of the score's information from its calibrated version ``q`` (when given).
    curve_gap : float or None
        ``max_c (calibrated_loss - bayes_loss)``: 0 exactly when the score is sufficient
        (Theorem 3.4, eq. 7).
    grouping_loss : float or None
        ``E[(eta - q)^2]``: the Brier-score grouping loss of the calibrated score (Proposition
        2.4, eq. 1c), twice the area between the two curves (eq. 15b).
    """

    costs: FloatArray
    bayes_loss: FloatArray
    threshold_loss: FloatArray
    threshold_gap: float
    kendall_tau: float
    calibrated_loss: FloatArray | None = None
    curve_gap: float | None = None
    grouping_loss: float | None = None


def _best_threshold_loss(score, eta, w, costs):
    """min over thresholds t of E[c (1 - eta) 1{S > t} + (1 - c) eta 1{S <= t}], per cost."""
    order = np.argsort(score, kind="stable")
    s = score[order]
    last = np.r_[s[1:] != s[:-1], True]  # split only between distinct scores
    fn = np.concatenate(([0.0], np.cumsum((w * eta)[order])[last]))
    neg = np.cumsum((w * (1.0 - eta))[order])[last]
    fp = neg[-1] - np.concatenate(([0.0], neg))
    total = w.sum()
    out = np.empty(costs.shape[0])
    step = max(1, 2_000_000 // fn.shape[0])  # bound the (costs x splits) table
    for a in range(0, costs.shape[0], step):
        c = costs[a : a + step, None]
        out[a : a + step] = np.min(c * fp[None, :] + (1.0 - c) * fn[None, :], axis=1) / total
    return out


def sufficiency_check(
    score: ArrayLike,
    posterior: ArrayLike,
    *,
    calibrated: ArrayLike | None = None,
    costs: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> SufficiencyCheck:
    """Check on a sample whether a score is sufficient for the full information.

    Parameters
    ----------
    score : array-like of shape (n,)
        The score ``S`` under study (any real values; larger means more likely positive).
    posterior : array-like of shape (n,)
        ``eta = P(A | G)``, the posterior given all the information, known in a simulation.
    calibrated : array-like of shape (n,), default=None
        ``q = P(A | S)``, the score calibrated exactly (known in a simulation). Enables the
        criterion of Theorem 3.4 and the grouping loss.
    costs : array-like of shape (k,), default=None
        Costs at which the curves are compared; by default 201 equally spaced costs.
    sample_weight : array-like of shape (n,), default=None

    Returns
    -------
    SufficiencyCheck

    References
    ----------
    Tasche, "Calibrating sufficiently", Theorem 3.4, Corollary 3.5, Propositions 3.6 and 3.7.

    Examples
    --------
    Two Gaussian classes with independent components: the log-odds ``x1 + 1.5 x2`` is
    sufficient, the first component alone is not.

    >>> from scipy.special import expit
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(20000) < 0.5
    >>> X = rng.normal(size=(20000, 2)) + np.where(y[:, None], [1.0, 1.5], [0.0, 0.0])
    >>> eta = expit(X[:, 0] + 1.5 * X[:, 1] - 1.625)
    >>> good = sufficiency_check(X[:, 0] + 1.5 * X[:, 1], eta)
    >>> good.threshold_gap < 1e-12, round(good.kendall_tau, 12)
    (True, 1.0)
    >>> partial = sufficiency_check(X[:, 0], eta, calibrated=expit(X[:, 0] - 0.5))
    >>> bool(partial.threshold_gap > 0.02), round(partial.grouping_loss, 2)
    (True, 0.07)
    """
    from scipy.stats import kendalltau

    owner = "sufficiency_check"
    s = check_scores(score, name="score")
    eta = check_probabilities(posterior, name="posterior")
    _check_same_length(s, eta, ("score", "posterior"), owner)
    c = np.linspace(0.0, 1.0, 201) if costs is None else np.atleast_1d(_costs(costs, owner))
    w = check_sample_weight(sample_weight, s.shape[0])
    w = np.ones(s.shape[0]) if w is None else w
    bayes = np.atleast_1d(cost_weighted_bayes_loss(eta, c, sample_weight=w))
    thr = _best_threshold_loss(s, eta, w, c)
    tau = kendalltau(s, eta).statistic if s.shape[0] > 1 else np.nan
    result = {
        "costs": c,
        "bayes_loss": bayes,
        "threshold_loss": thr,
        "threshold_gap": float(np.max(thr - bayes)),
        "kendall_tau": float(tau),
    }
    if calibrated is not None:
        q = check_probabilities(calibrated, name="calibrated")
        if q.shape != eta.shape:
            raise ValueError(
                f"'calibrated' of {owner} must have one value per object ({eta.shape[0]}), got "
                f"{q.shape[0]}."
            )
        cal = np.atleast_1d(cost_weighted_bayes_loss(q, c, sample_weight=w))
        result["calibrated_loss"] = cal
        result["curve_gap"] = float(np.max(cal - bayes))
        result["grouping_loss"] = float(np.sum(w * (eta - q) ** 2) / w.sum())
    return SufficiencyCheck(**result)
