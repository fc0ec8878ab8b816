"""Label shift: the class balance of unlabelled target data, and probabilities adapted to it.

Under *label shift* (prior probability shift) the class-conditional distributions of the
features stay what they were on the source (training and calibration) data, and only the class
probabilities move: ``Q(x | y) = P(x | y)``, ``Q(y) != P(y)``. Two estimators of ``Q(y)`` from
unlabelled target data are here:

- ``method="em"``: the EM algorithm of Saerens, Latinne & Decaestecker (2002). With calibrated
  source posteriors ``p_i(k) = P(y = k | x_i)``, alternate (E) the posteriors under the current
  prior, ``p_i(k) q_k / pi_k`` normalised over k, and (M) the prior as their mean over the target
  rows. It is the maximum-likelihood estimate of the target prior and needs calibrated
  probabilities.
- ``method="bbse"``: black-box shift estimation (Lipton, Wang & Smola 2018). The confusion
  matrix of the hard predictions on labelled source data, ``P(yhat = j | y = i)``, does not move
  under label shift, so the target's rate of predictions ``mu_j = Q(yhat = j)`` solves
  ``mu = C^T q``; a linear system, valid even when the probabilities are not calibrated.

:func:`adjust_for_prior` then moves calibrated probabilities to the new prior by Bayes' rule:
``p_k q_k / pi_k`` normalised (Tasche, Proposition 5.2; :func:`venncal.diagnostics.
prior_shift_posterior` is the binary case).

References
----------
M. Saerens, P. Latinne, C. Decaestecker, "Adjusting the outputs of a classifier to new a priori
probabilities: a simple procedure", Neural Computation 14 (2002), Section 2.2, eqs. (2.4)-(2.5).
Z. Lipton, Y.-X. Wang, A. Smola, "Detecting and correcting for label shift with black box
predictors", ICML 2018, Section 4, eq. (5).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import (
    _as_array,
    check_in_range,
    check_option,
    check_positive_int,
    check_random_state,
    check_scores,
)
from venncal.exceptions import VenncalWarning, user_stacklevel
from venncal.shift._prior_em import prior_em

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import AnyArray, ArrayLike, FloatArray, SeedLike

__all__ = ["PriorEstimate", "estimate_target_prior", "adjust_for_prior"]

_METHODS = ("em", "bbse")

# The smallest class probability a prior may have: the smallest normal double. Below it the
# ratio ``p / prior`` of a probability to it overflows (and subnormal numbers carry too few
# digits to divide by), so such priors are refused rather than turned into NaN.
_PRIOR_FLOOR = float(np.finfo(np.float64).tiny)


@dataclass(frozen=True)
class PriorEstimate:
    """An estimated class balance of target data, with its bootstrap interval.

    ``float(estimate)`` is the estimated positive prior (binary problems only) and
    ``np.asarray(estimate)`` the estimate in the shape of a prior: a 0-d array (binary) or one
    probability per class (multiclass).

    Attributes
    ----------
    prior : ndarray of shape (n_classes,)
        Estimated target probability of every class (binary: negative, positive); sums to 1.
    interval : ndarray of shape (2,) or (n_classes, 2), or None
        Percentile bootstrap interval: ``(low, high)`` of the positive prior (binary) or one
        row per class (multiclass); None without bootstrap (``n_boot=0``).
    method : str
        ``"em"`` or ``"bbse"``.
    n_iter : int
        EM iterations to convergence (0 for BBSE, a direct solve).
    converged : bool
        Whether EM met its tolerance within ``max_iter``; BBSE: whether the raw solution was
        a prior already (no clipping of negative class probabilities was needed).
    confidence_level : float
    binary : bool
        Whether the probabilities were those of the positive class of a binary problem.

    Examples
    --------
    >>> est = PriorEstimate(np.array([0.8, 0.2]), None, "em", 12, True, 0.95, True)
    >>> float(est), np.asarray(est)
    (0.2, array(0.2))
    """

    prior: FloatArray
    interval: FloatArray | None
    method: str
    n_iter: int
    converged: bool
    confidence_level: float
    binary: bool

    def __float__(self) -> float:
        if not self.binary:
            raise TypeError(
                f"a PriorEstimate of {self.prior.shape[0]} classes is not one number; use "
                "np.asarray(estimate) or estimate.prior."
            )
        return float(self.prior[1])

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> AnyArray:
        value = np.asarray(self.prior[1]) if self.binary else self.prior.copy()
        return value if dtype is None else value.astype(dtype)


# ---------------------------------------------------------------------------------------------
# validation


def _class_probabilities(p, name, owner, n_classes=None):
    """(n,) probabilities of the positive class -> (n, 2); (n, K) rows summing to 1 -> as is."""
    arr = _as_array(p, name)
    if arr.ndim == 1:
        s = check_scores(arr, name=name, allow_column=False, noun="probabilities")
        if ((s < 0) | (s > 1)).any():
            raise ValueError(
                f"The '{name}' parameter of {owner} must hold probabilities in [0, 1]."
            )
        probs = np.column_stack([1.0 - s, s])
        binary = True
    elif arr.ndim == 2 and arr.shape[1] >= 2:
        flat = check_scores(arr.reshape(-1), name=name, allow_column=False, noun="probabilities")
        probs = flat.reshape(arr.shape)
        if ((probs < 0) | (probs > 1)).any():
            raise ValueError(
                f"The '{name}' parameter of {owner} must hold probabilities in [0, 1]."
            )
        bad = np.abs(probs.sum(axis=1) - 1.0) > 1e-6
        if bad.any():
            raise ValueError(
                f"The rows of the '{name}' parameter of {owner} must sum to 1 ({int(bad.sum())} "
                f"do not, first at row {int(np.flatnonzero(bad)[0])})."
            )
        binary = False
    else:
        raise ValueError(
            f"The '{name}' parameter of {owner} must be of shape (n,) (positive-class "
            f"probabilities) or (n, n_classes). Got shape {arr.shape} instead."
        )
    if n_classes is not None and probs.shape[1] != n_classes:
        raise ValueError(
            f"The '{name}' parameter of {owner} has {probs.shape[1]} classes, unlike the "
            f"{n_classes} of the other inputs."
        )
    return probs, binary


def _prior_vector(prior: object, n_classes: int, name: str, owner: str) -> FloatArray:
    """A prior given as the positive probability (binary) or one per class -> (K,) in (0, 1)."""
    if isinstance(prior, PriorEstimate):
        prior = prior.prior
    if isinstance(prior, numbers.Real) and not isinstance(prior, bool) and n_classes == 2:
        q = check_in_range(float(prior), 0.0, 1.0, name=name, owner=owner)
        return _prior_vector(np.array([1.0 - q, q]), 2, name, owner)
    arr: FloatArray | None = None
    if not isinstance(prior, str):
        try:
            arr = np.asarray(prior, dtype=np.float64)
        except (TypeError, ValueError):
            arr = None
    if arr is not None and arr.ndim == 0 and n_classes == 2:
        return _prior_vector(float(arr), 2, name, owner)
    if (
        arr is not None
        and arr.shape == (n_classes,)
        and bool(np.isfinite(arr).all())
        and abs(float(arr.sum()) - 1.0) <= 1e-6
        and bool((arr > 0).all())
    ):
        if not bool((arr >= _PRIOR_FLOOR).all()):
            raise ValueError(
                f"The '{name}' parameter of {owner} has a class probability below "
                f"{_PRIOR_FLOOR!r} (the smallest normal double), which probabilities cannot be "
                f"divided by; got {prior!r}."
            )
        return arr / arr.sum()
    what = "a number in (0, 1) or " if n_classes == 2 else ""
    raise ValueError(
        f"The '{name}' parameter of {owner} must be {what}{n_classes} positive class "
        f"probabilities summing to 1. Got {prior!r} instead."
    )


# ---------------------------------------------------------------------------------------------
# the two estimators on clean arrays


def _hard(probs):
    """Hard predictions: the most probable class (the first on a tie)."""
    return np.argmax(probs, axis=1)


def _bbse(conditional, predicted_rate):
    """Solve ``conditional^T q = mu`` (``conditional[i, j] = P(yhat=j | y=i)``); clip to a prior."""
    q, *_ = np.linalg.lstsq(conditional.T, predicted_rate, rcond=None)
    clean = bool((q >= -1e-12).all())
    q = np.clip(q, 0.0, None)
    total = q.sum()
    if not total > 0:
        q = np.full_like(q, 1.0 / q.size)
        clean = False
    return q / total, clean


def _conditional_confusion(counts, owner):
    rows = counts.sum(axis=1)
    if (rows <= 0).any():
        missing = int(np.flatnonzero(rows <= 0)[0])
        raise ValueError(
            f"The confusion matrix of {owner} has no labelled example of class {missing}; BBSE "
            "needs calibration examples of every class."
        )
    return counts / rows[:, None]


def _confusion_counts(y, predicted, n_classes):
    return (
        np.bincount(y * n_classes + predicted, minlength=n_classes * n_classes)
        .reshape(n_classes, n_classes)
        .astype(np.float64)
    )


def _class_labels(y_cal, n_classes, owner):
    arr = _as_array(y_cal, "y_cal")
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"The 'y_cal' parameter of {owner} must be a non-empty 1-D array.")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "f" and np.isfinite(arr).all() and (arr == np.round(arr)).all():
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu" or (arr < 0).any() or (arr >= n_classes).any():
        raise ValueError(
            f"The 'y_cal' parameter of {owner} must hold class indices 0 .. {n_classes - 1} (the "
            "columns of the probabilities; 0/1 for a binary problem)."
        )
    return arr.astype(np.intp)


def _percentile_interval(draws, confidence_level, binary):
    tail = 50.0 * (1.0 - confidence_level)
    low, high = np.percentile(draws, [tail, 100.0 - tail], axis=0)
    interval = np.column_stack([low, high])
    return interval[1] if binary else interval


def estimate_target_prior(
    p: ArrayLike,
    *,
    source_prior: ArrayLike | None = None,
    method: str = "em",
    y_cal: ArrayLike | None = None,
    p_cal: ArrayLike | None = None,
    confusion_matrix: ArrayLike | None = None,
    n_boot: int = 0,
    confidence_level: float = 0.95,
    random_state: SeedLike = None,
    max_iter: int = 1000,
    tol: float = 1e-8,
) -> PriorEstimate:
    """Estimate the class balance of unlabelled target data from its predicted probabilities.

    Parameters
    ----------
    p : array-like of shape (n,) or (n, n_classes)
        Predicted probabilities on the unlabelled target rows: of the positive class (binary)
        or of every class (rows summing to 1), from a model calibrated on the source data.
    source_prior : float or array-like of shape (n_classes,), default=None
        The class probabilities of the source data the probabilities are calibrated to (the
        positive one for a binary problem). Needed by ``"em"``; ``"bbse"`` does not use it.
        Every class probability must be at least the smallest normal double, about 2.2e-308
        (below it the ratio of a probability to the prior overflows), and they must sum to 1.
    method : {"em", "bbse"}, default="em"
        ``"em"``: the maximum-likelihood EM of Saerens et al. (2002), which needs calibrated
        probabilities. ``"bbse"``: black-box shift estimation (Lipton et al. 2018) from the
        confusion matrix of the hard predictions (the most probable class) on labelled
        source data, which needs ``y_cal`` and ``p_cal`` or ``confusion_matrix``.
    y_cal : array-like of shape (n_cal,), default=None
        ``"bbse"``: true classes of labelled source (calibration) rows, as column indices of
        ``p`` (0/1 for a binary problem).
    p_cal : array-like of shape (n_cal,) or (n_cal, n_classes), default=None
        ``"bbse"``: the model's probabilities on those rows.
    confusion_matrix : array-like of shape (n_classes, n_classes), default=None
        ``"bbse"``, instead of ``y_cal`` and ``p_cal``: counts of source rows of true class i
        predicted as class j at ``[i, j]`` (scikit-learn's layout: rows are the truth).
    n_boot : int, default=0
        Bootstrap resamples for the interval (0: no interval). Each resamples the target rows
        and, for BBSE, the calibration rows (or, given only a confusion matrix, each of its rows
        as a multinomial sample of its count).
    confidence_level : float in (0, 1), default=0.95
    random_state : None, int or numpy Generator, default=None
        Seed of the bootstrap.
    max_iter : int, default=1000
        EM: the most accelerated EM cycles. If the estimate has not converged by then, a
        :class:`~venncal.exceptions.VenncalWarning` says so (and ``converged`` is False).
    tol : float, default=1e-8
        EM: stop when no class probability moves by more than this (in the last Newton step
        on the maximum-likelihood face, see Notes).

    Returns
    -------
    PriorEstimate
        ``float(result)`` the positive prior (binary), ``np.asarray(result)`` the estimate,
        ``.interval``, ``.method``, ``.n_iter``.

    Notes
    -----
    ``"em"`` finds the maximum of the concave log-likelihood of Saerens et al.'s EM with the
    EM accelerated by SQUAREM (Varadhan & Roland 2008) and finished by Newton's method on the
    face of the simplex where the maximum lies, with its KKT conditions checked; plain EM
    converges linearly, at a rate near 1 when the classes overlap, and can stop far from the
    maximum. Classes the maximum puts at 0 get the smallest normal double, about 2.2e-308
    (priors must be at least that to be usable: see :func:`adjust_for_prior`).

    Both estimators assume label shift: only the class probabilities differ between the source
    and the target, not ``P(x | y)``. EM is the more accurate when the probabilities are
    calibrated on the source; its estimate is biased by as much as they are miscalibrated.
    BBSE is unbiased with any classifier whose confusion matrix is invertible, at a larger
    variance, and its raw solution can leave the simplex (then negative class probabilities
    are set to 0 and the rest renormalised; ``converged`` is False).

    References
    ----------
    Saerens, Latinne & Decaestecker, Neural Computation 14 (2002), eqs. (2.4)-(2.5). Lipton,
    Wang & Smola, ICML 2018, eq. (5).

    Examples
    --------
    Scores of Gaussian classes, calibrated at a prior of 0.5; the target has 15% positives:

    >>> import numpy as np
    >>> from scipy.special import expit
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(20_000) < 0.15
    >>> x = rng.normal(loc=np.where(y, 1.0, -1.0))
    >>> p = expit(2 * x)  # P(y = 1 | x) when both classes are equally likely
    >>> est = estimate_target_prior(p, source_prior=0.5)
    >>> abs(float(est) - 0.15) < 0.02
    True

    BBSE from labelled source data, with a bootstrap interval that covers the truth:

    >>> y_src = rng.random(5_000) < 0.5
    >>> p_src = expit(2 * rng.normal(loc=np.where(y_src, 1.0, -1.0)))
    >>> est = estimate_target_prior(p, method="bbse", y_cal=y_src, p_cal=p_src, n_boot=200,
    ...                             random_state=0)
    >>> bool(est.interval[0] < 0.15 < est.interval[1])
    True
    """
    owner = "estimate_target_prior"
    check_option(method, _METHODS, name="method", owner=owner)
    probs, binary = _class_probabilities(p, "p", owner)
    n_classes = probs.shape[1]
    n_boot = check_positive_int(n_boot, name="n_boot", owner=owner, minimum=0)
    level = check_in_range(confidence_level, 0.0, 1.0, name="confidence_level", owner=owner)
    max_iter = check_positive_int(max_iter, name="max_iter", owner=owner)
    tol = check_in_range(tol, 0.0, np.inf, name="tol", owner=owner, closed="left")
    rng = check_random_state(random_state, owner=owner) if n_boot else None

    if method == "em":
        if source_prior is None:
            raise ValueError(
                f"The 'source_prior' parameter of {owner} is needed by method='em': the class "
                "probabilities of the data the probabilities were calibrated on."
            )
        source = _prior_vector(source_prior, n_classes, "source_prior", owner)
        prior, n_iter, converged = prior_em(probs, source, max_iter=max_iter, tol=tol)
        if not converged:
            warnings.warn(
                f"{owner}: EM stopped after max_iter={max_iter} iterations before converging "
                f"to the maximum-likelihood prior (tol={tol!r}); raise max_iter or tol.",
                VenncalWarning,
                stacklevel=user_stacklevel(),
            )
        draws = []
        # warm start near the estimate, inside the simplex (a class at 0 would stay there)
        start = np.maximum(prior, 1e-6)
        start /= start.sum()
        for _ in range(n_boot):
            assert rng is not None  # drawn above whenever n_boot > 0
            rows = rng.integers(0, probs.shape[0], probs.shape[0])
            draws.append(prior_em(probs[rows], source, max_iter=max_iter, tol=tol, start=start)[0])
    else:
        if source_prior is not None:
            _prior_vector(source_prior, n_classes, "source_prior", owner)  # checked, not used
        have_rows = y_cal is not None or p_cal is not None
        if have_rows == (confusion_matrix is not None):
            raise ValueError(
                f"{owner} with method='bbse' needs either 'y_cal' and 'p_cal' (labelled source "
                "rows) or 'confusion_matrix', not both and not neither."
            )
        if have_rows:
            if y_cal is None or p_cal is None:
                raise ValueError(f"{owner} with method='bbse' needs both 'y_cal' and 'p_cal'.")
            probs_cal, _ = _class_probabilities(p_cal, "p_cal", owner, n_classes)
            labels = _class_labels(y_cal, n_classes, owner)
            if labels.shape[0] != probs_cal.shape[0]:
                raise ValueError(
                    f"Inconsistent lengths in {owner}: y_cal has {labels.shape[0]} value(s), "
                    f"p_cal has {probs_cal.shape[0]}; they must match."
                )
            pred_cal = _hard(probs_cal)
            counts = _confusion_counts(labels, pred_cal, n_classes)
        else:
            counts = np.asarray(confusion_matrix, dtype=np.float64)
            if (
                counts.shape != (n_classes, n_classes)
                or not np.isfinite(counts).all()
                or (counts < 0).any()
            ):
                raise ValueError(
                    f"The 'confusion_matrix' parameter of {owner} must be a {n_classes} x "
                    f"{n_classes} array of non-negative counts (rows: true class)."
                )
        conditional = _conditional_confusion(counts, owner)
        pred = _hard(probs)
        rate = np.bincount(pred, minlength=n_classes) / pred.shape[0]
        prior, converged = _bbse(conditional, rate)
        n_iter = 0
        draws = []
        for _ in range(n_boot):
            assert rng is not None  # drawn above whenever n_boot > 0
            rows = rng.integers(0, pred.shape[0], pred.shape[0])
            rate_b = np.bincount(pred[rows], minlength=n_classes) / pred.shape[0]
            if have_rows:
                cal = rng.integers(0, labels.shape[0], labels.shape[0])
                counts_b = _confusion_counts(labels[cal], pred_cal[cal], n_classes)
            else:
                sizes = np.round(counts.sum(axis=1)).astype(np.int64)
                counts_b = np.array(
                    [rng.multinomial(m, row) for m, row in zip(sizes, conditional)], dtype=float
                )
            rows_total = counts_b.sum(axis=1)
            if (rows_total <= 0).any():  # a resample without some class: no estimate from it
                continue
            draws.append(_bbse(counts_b / rows_total[:, None], rate_b)[0])
    # classes the estimate puts at (or within a subnormal of) 0 get the smallest probability a
    # prior may have, so that the estimate is a prior adjust_for_prior accepts
    prior = np.maximum(prior, _PRIOR_FLOOR)
    prior /= prior.sum()
    interval = None
    if n_boot and draws:
        interval = _percentile_interval(np.array(draws), level, binary)
    return PriorEstimate(prior, interval, method, int(n_iter), bool(converged), level, binary)


def adjust_for_prior(
    p: ArrayLike, source_prior: ArrayLike, target_prior: ArrayLike | PriorEstimate
) -> FloatArray:
    """Move calibrated probabilities from the source's class balance to the target's.

    Bayes' rule with the prior ratio: ``p_k q_k / pi_k``, normalised over the classes, where
    ``pi`` is the source prior and ``q`` the target prior. Under label shift (same ``P(x | y)``,
    new class probabilities) this turns the source posterior into the target posterior.

    Parameters
    ----------
    p : array-like of shape (n,), (m, 2) or (n, n_classes)
        With a number as ``source_prior`` (binary): probabilities of the positive class, shape
        (n,), or Venn-Abers intervals ``[p0, p1]``, shape (m, 2), whose two ends are mapped
        each (the map is increasing, so an interval stays an interval). With one prior per
        class (multiclass): class probabilities, rows summing to 1.
    source_prior : float or array-like of shape (n_classes,)
        The class balance the probabilities are calibrated to (a number: the positive class
        of a binary problem).
    target_prior : float, array-like of shape (n_classes,) or PriorEstimate
        The class balance of the target, e.g. from :func:`estimate_target_prior`.

        Both priors must sum to 1 (within 1e-6) and give every class a probability of at
        least the smallest normal double, ``np.finfo(float).tiny`` (about 2.2e-308): below it
        the ratio of a probability to the prior overflows, so such priors are refused.

    Returns
    -------
    ndarray of the shape of ``p``

    Notes
    -----
    The binary map is :func:`venncal.diagnostics.prior_shift_posterior` (Tasche, Proposition
    5.2). Mapping the ends of a Venn-Abers interval keeps it an interval, not its guarantee.
    With a known target prior, a Venn-Abers predictor fitted on the calibration examples kept
    with probability proportional to ``q_y / pi_y`` (by class) is exactly valid on the target,
    and one fitted with those ratios as weights approximately (see the user guide, "When the
    data shift").

    Examples
    --------
    >>> adjust_for_prior([0.5, 0.9], 0.5, 0.2).round(4)
    array([0.2   , 0.6923])

    An interval maps end by end:

    >>> adjust_for_prior([[0.4, 0.6]], 0.5, 0.2).round(4)
    array([[0.1429, 0.2727]])

    Three classes:

    >>> adjust_for_prior([[0.2, 0.3, 0.5]], [1/3, 1/3, 1/3], [0.6, 0.2, 0.2]).round(3)
    array([[0.429, 0.214, 0.357]])
    """
    from venncal.diagnostics import prior_shift_posterior

    owner = "adjust_for_prior"
    binary_prior = isinstance(source_prior, numbers.Real) and not isinstance(source_prior, bool)
    binary_prior = binary_prior or (
        np.ndim(source_prior) == 0 and not isinstance(source_prior, str)
    )
    if binary_prior:
        arr = _as_array(p, "p")
        if arr.ndim == 2 and arr.shape[1] == 2:
            ends = check_scores(arr.reshape(-1), name="p", allow_column=False, noun="probabilities")
            ends = ends.reshape(-1, 2)
            if (ends[:, 0] > ends[:, 1] + 1e-12).any():
                raise ValueError(
                    f"The 'p' parameter of {owner}, of shape (m, 2), must hold intervals "
                    "[p0, p1] with p0 <= p1; for class probabilities of two classes pass the "
                    "positive column, or one prior per class."
                )
        elif arr.ndim != 1:
            raise ValueError(
                f"The 'p' parameter of {owner} with a binary 'source_prior' must be of shape (n,) "
                f"or (m, 2) (intervals). Got shape {arr.shape} instead."
            )
        source = _prior_vector(source_prior, 2, "source_prior", owner)
        target = _prior_vector(target_prior, 2, "target_prior", owner)
        flat = check_scores(arr.reshape(-1), name="p", allow_column=False, noun="probabilities")
        if ((flat < 0) | (flat > 1)).any():
            raise ValueError(f"The 'p' parameter of {owner} must hold probabilities in [0, 1].")
        out = prior_shift_posterior(flat, prior=float(source[1]), new_prior=float(target[1]))
        return out.reshape(arr.shape)
    probs, _ = _class_probabilities(p, "p", owner)
    if probs.shape[1] == 2 and _as_array(p, "p").ndim == 1:
        raise ValueError(
            f"The 'p' parameter of {owner} has shape (n,) (binary) but 'source_prior' has one "
            "probability per class; give the positive class's prior as a number."
        )
    n_classes = probs.shape[1]
    source = _prior_vector(source_prior, n_classes, "source_prior", owner)
    target = _prior_vector(target_prior, n_classes, "target_prior", owner)
    scaled = probs * (target / source)
    return scaled / scaled.sum(axis=1, keepdims=True)
