"""Unbiasedness in the large of an interval predictor, checked by simulation.

Every Venn predictor satisfies Corollary 1 of Vovk & Petej (2014): over independent draws of a
training set and a test object,

    P(Y = 1)  in  [E lower(X), E upper(X)]                                   (2)

where ``[lower, upper]`` is the probability interval. Simplified Venn-Abers predictors are not
Venn predictors and can violate (2) (Proposition 2). :func:`unbiasedness_in_the_large`
estimates both sides of (2) for any predictor with ``predict_interval`` by Monte Carlo, with
standard errors, so that a violation can be told from sampling noise.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_positive_int, check_random_state

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import ArrayLike, SeedLike

__all__ = ["UnbiasednessInTheLarge", "unbiasedness_in_the_large"]


@dataclass(frozen=True)
class UnbiasednessInTheLarge:
    """Monte-Carlo estimate of the two sides of Corollary 1 (Vovk & Petej 2014, eq. 2).

    Attributes
    ----------
    positive_rate : float
        ``P(Y = 1)``: the value given as ``positive_rate``, else the frequency of label 1
        among the simulated test objects.
    mean_lower, mean_upper : float
        Mean lower and upper end of the probability intervals.
    excess_lower : float
        ``E[lower] - P(Y = 1)``: positive when (2) is violated from below.
    excess_upper : float
        ``P(Y = 1) - E[upper]``: positive when (2) is violated from above.
    excess_lower_se, excess_upper_se : float
        Standard errors of the two excesses (paired with the test labels when
        ``positive_rate`` is estimated).
    violation : float
        ``max(excess_lower, excess_upper, 0)``: how far P(Y = 1) lies outside the interval
        of the mean bounds.
    n_trials : int
        Number of training sets drawn (each with ``n_test`` test objects).
    """

    positive_rate: float
    mean_lower: float
    mean_upper: float
    excess_lower: float
    excess_upper: float
    excess_lower_se: float
    excess_upper_se: float
    violation: float
    n_trials: int


def _mean_se(v):
    v = np.asarray(v, dtype=np.float64)
    se = v.std(ddof=1) / np.sqrt(v.shape[0]) if v.shape[0] > 1 else np.inf
    return float(v.mean()), float(se)


def unbiasedness_in_the_large(
    predictor: Any,
    sampler: Callable[[int, np.random.Generator], tuple[Any, ArrayLike]],
    *,
    n_train: int,
    n_test: int = 1,
    n_trials: int = 200,
    positive_rate: float | None = None,
    random_state: SeedLike = None,
) -> UnbiasednessInTheLarge:
    """Estimate by simulation whether ``P(Y = 1)`` lies between the mean interval bounds.

    For each of ``n_trials`` trials, ``n_train + n_test`` i.i.d. observations are drawn with
    ``sampler``, a clone of ``predictor`` is fitted on the first ``n_train`` and its
    ``predict_interval`` is applied to the others. A Venn predictor satisfies
    ``E[lower] <= P(Y = 1) <= E[upper]`` for every training size (Corollary 1 of Vovk & Petej
    2014); the result reports both excesses with their standard errors.

    Parameters
    ----------
    predictor : estimator with ``fit(X, y)`` and ``predict_interval(X)``
        Unfitted; cloned for every trial (e.g. ``VennAbersClassifier``, ``VennClassifier``).
        ``predict_interval`` returns an array of shape (m, 2) whose convex hull per row is the
        probability interval of label 1.
    sampler : callable
        ``sampler(n, rng) -> (X, y)``: ``n`` i.i.d. observations with 0/1 labels, drawn with
        the numpy ``Generator`` ``rng``. A draw whose training part holds one class only is
        drawn again.
    n_train : int
        Size ``l`` of each training set (at least 2).
    n_test : int, default=1
        Test objects per training set.
    n_trials : int, default=200
        Number of training sets (at least 2).
    positive_rate : float in [0, 1], default=None
        ``P(Y = 1)`` when it is known; by default it is estimated from the simulated test
        labels (and the excesses are paired with them, which keeps their errors small).
    random_state : int, numpy Generator or None, default=None

    Returns
    -------
    UnbiasednessInTheLarge

    References
    ----------
    V. Vovk and I. Petej, "Venn-Abers predictors", UAI 2014, Corollary 1 and Proposition 2.

    Examples
    --------
    Proposition 2 of Vovk & Petej: the objects are real numbers, ``X`` uniform on (-1, 1),
    ``P(Y = 1 | X < 0) = 1/3`` and ``P(Y = 1 | X > 0) = 2/3``, so ``P(Y = 1) = 1/2``. The
    scorer gives the training objects 0 (negative ``x``) or 1 (positive ``x``) and any other
    object 2 (the seed's text puts the rate 2/3 on the side ``X < 0``; with that assignment
    the two training blocks pool to 1/2 and (2) holds, so the rate 2/3 goes with the larger
    score here, as the proof needs):

    >>> from sklearn.base import BaseEstimator, ClassifierMixin
    >>> class SeenOrNot(ClassifierMixin, BaseEstimator):
    ...     def fit(self, X, y):
    ...         self.seen_, self.classes_ = np.asarray(X)[:, 0], np.unique(y)
    ...         return self
    ...     def decision_function(self, X):
    ...         x = np.asarray(X)[:, 0]
    ...         return np.where(np.isin(x, self.seen_), (x > 0).astype(float), 2.0)
    >>> def sampler(n, rng):
    ...     x = rng.uniform(-1, 1, size=(n, 1))
    ...     return x, (rng.random(n) < np.where(x[:, 0] > 0, 2 / 3, 1 / 3)).astype(int)

    Simplified Venn-Abers scores the test object with the scorer of the training set: it gets
    2, above every training score, so labelled 0 it joins the block of score 1 and
    ``lower ~ 2/3``: (2) fails by about 1/6. Full Venn-Abers refits the scorer with the
    test object, which then scores 0 or 1 like the training objects: it is a Venn predictor.

    >>> from venncal import VennAbersClassifier
    >>> simplified = unbiasedness_in_the_large(
    ...     VennAbersClassifier(SeenOrNot(), method="simplified"), sampler, n_train=40,
    ...     n_trials=100, positive_rate=0.5, random_state=0)
    >>> full = unbiasedness_in_the_large(
    ...     VennAbersClassifier(SeenOrNot(), method="full"), sampler, n_train=40,
    ...     n_trials=100, positive_rate=0.5, random_state=0)
    >>> round(simplified.mean_lower, 1), bool(simplified.violation > 0.1)
    (0.6, True)
    >>> bool(full.violation < 3 * max(full.excess_lower_se, full.excess_upper_se))
    True
    """
    from sklearn.base import clone

    owner = "unbiasedness_in_the_large"
    if not (hasattr(predictor, "fit") and hasattr(predictor, "predict_interval")):
        raise TypeError(
            f"The 'predictor' parameter of {owner} must have fit and predict_interval "
            f"(e.g. VennAbersClassifier). Got {type(predictor).__name__} instead."
        )
    if not callable(sampler):
        raise TypeError(f"The 'sampler' parameter of {owner} must be callable: sampler(n, rng).")
    n_train = check_positive_int(n_train, name="n_train", owner=owner, minimum=2)
    n_test = check_positive_int(n_test, name="n_test", owner=owner)
    n_trials = check_positive_int(n_trials, name="n_trials", owner=owner, minimum=2)
    if positive_rate is not None:
        ok = isinstance(positive_rate, numbers.Real) and not isinstance(positive_rate, bool)
        if not (ok and 0.0 <= positive_rate <= 1.0):
            raise ValueError(
                f"The 'positive_rate' parameter of {owner} must be a number in [0, 1] or None. "
                f"Got {positive_rate!r} instead."
            )
    rng = check_random_state(random_state, owner=owner)
    lower, upper, labels = [], [], []
    for _ in range(n_trials):
        for _attempt in range(100):
            X, y = sampler(n_train + n_test, rng)
            y = np.asarray(y)
            if y.shape != (n_train + n_test,) or not np.isin(y, (0, 1)).all():
                raise ValueError(
                    f"The sampler of {owner} must return y of shape ({n_train + n_test},) "
                    f"with labels 0 and 1, got shape {y.shape}."
                )
            if np.unique(y[:n_train]).shape[0] == 2:
                break
        else:
            raise ValueError(
                f"The sampler of {owner} gave one class only in 100 training sets of "
                f"{n_train}; use a larger n_train."
            )
        X = np.asarray(X)
        fitted = clone(predictor).fit(X[:n_train], y[:n_train])
        interval = np.asarray(fitted.predict_interval(X[n_train:]), dtype=np.float64)
        lower.append(interval.min(axis=1))
        upper.append(interval.max(axis=1))
        labels.append(y[n_train:])
    # one value per trial (the mean over its test objects), so trials are independent
    lo = np.array([v.mean() for v in lower])
    hi = np.array([v.mean() for v in upper])
    ys = np.array([v.mean() for v in labels])
    if positive_rate is None:
        rate = float(ys.mean())
        ex_lo, se_lo = _mean_se(lo - ys)
        ex_hi, se_hi = _mean_se(ys - hi)
    else:
        rate = float(positive_rate)
        ex_lo, se_lo = _mean_se(lo - rate)
        ex_hi, se_hi = _mean_se(rate - hi)
    return UnbiasednessInTheLarge(
        positive_rate=rate,
        mean_lower=float(lo.mean()),
        mean_upper=float(hi.mean()),
        excess_lower=ex_lo,
        excess_upper=ex_hi,
        excess_lower_se=se_lo,
        excess_upper_se=se_hi,
        violation=max(ex_lo, ex_hi, 0.0),
        n_trials=n_trials,
    )
