"""Probing reduction: class probabilities from cost-sensitive classifiers.

Langford & Zadrozny (2005) estimate ``P(y = 1 | x)`` with nothing but a classifier learner. For
each cost ``c`` on a grid in (0, 1), the learner is trained on the data re-weighted so that a
negative example weighs ``c`` and a positive one ``1 - c``. The Bayes classifier of that
weighted problem predicts 1 exactly when ``P(y = 1 | x) > c``, so the fraction of costs at which
the c-classifier predicts 1 estimates ``P(y = 1 | x)``: it is the average over ``c`` of the
indicators, Tasche (2021) eq. (16a). Langford & Zadrozny first sort each object's decisions so
that they are monotone in ``c`` (all ones before all zeros); the average of the indicators is the
same as the average of the sorted sequence (Tasche 2021, Remark 4.3, 2)), and it is what
:meth:`ProbingClassifier.predict_proba` returns. Theorem 4.2 of Tasche (2021) bounds the
calibration loss of this estimate by the average excess cost-weighted loss of the probes.

References
----------
.. [1] J. Langford and B. Zadrozny, "Estimating class membership probabilities using classifier
   learners", AISTATS 2005.
.. [2] D. Tasche, "Calibrating sufficiently", Statistics 55(6), 2021, Section 4, Theorem 4.2 and
   eq. (16a).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import indexable
from sklearn.utils.validation import _num_samples, check_is_fitted, has_fit_parameter

from venncal._validation import (
    check_binary_labels,
    check_consistent_length,
    check_positive_int,
    check_sample_weight,
)

if TYPE_CHECKING:
    import numpy.typing as npt
    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = ["ProbingClassifier", "probe_costs"]


def probe_costs(n_probes: int) -> FloatArray:
    """Return the cost grid of the probes: the midpoints ``(k - 1/2) / n_probes``.

    The midpoint rule makes the average of the ideal indicators ``1{eta > c}`` equal to ``eta``
    up to ``1 / (2 n_probes)``.

    Examples
    --------
    >>> probe_costs(4)
    array([0.125, 0.375, 0.625, 0.875])
    """
    n_probes = check_positive_int(n_probes, name="n_probes", owner="probe_costs")
    return (np.arange(n_probes) + 0.5) / n_probes


def _fit_probe(estimator, X, y, weight):
    return estimator.fit(X, y, sample_weight=weight)


class ProbingClassifier(ClassifierMixin, BaseEstimator):
    """Probing reduction: turn a classifier learner into a class-probability estimator.

    Parameters
    ----------
    estimator : classifier, default=None
        A scikit-learn classifier whose ``fit`` accepts ``sample_weight``; one clone is trained
        per probe. None means ``LogisticRegression()``.
    n_probes : int, default=20
        Number of costs, the midpoints ``(k - 1/2) / n_probes`` of a regular grid of (0, 1).
        The estimate moves in steps of ``1 / n_probes``.
    n_jobs : int, default=None
        Probes trained in parallel through joblib (None: one, -1: all processors).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    costs_ : ndarray of shape (n_probes,)
        The costs, increasing.
    estimators_ : list of fitted classifiers
        The probe trained with cost ``costs_[k]`` (negatives weigh ``c``, positives ``1 - c``).
    n_features_in_ : int
        When the estimator defines it.

    Notes
    -----
    The estimate is a fraction of probes, so it can be exactly 0 or 1 (where every probe agrees);
    this is the method as published.

    References
    ----------
    .. [1] J. Langford and B. Zadrozny, "Estimating class membership probabilities using
       classifier learners", AISTATS 2005.
    .. [2] D. Tasche, "Calibrating sufficiently", Statistics 55(6), 2021, Theorem 4.2, eq. (16a).

    Examples
    --------
    Logistic data and a logistic learner: the probes find the posterior (0.12, 0.5, 0.88 at the
    three points below) to within the step 1 / n_probes.

    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(2000, 1))
    >>> y = rng.random(2000) < 1 / (1 + np.exp(-2 * X[:, 0]))
    >>> clf = ProbingClassifier(LogisticRegression(), n_probes=20).fit(X, y)
    >>> clf.predict_proba([[-1.0], [0.0], [1.0]])[:, 1].round(2)
    array([0.1, 0.5, 0.9])
    """

    def __init__(
        self, estimator: Any = None, *, n_probes: int = 20, n_jobs: int | None = None
    ) -> None:
        self.estimator = estimator
        self.n_probes = n_probes
        self.n_jobs = n_jobs

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        est = self._base_estimator()
        try:
            inner = est.__sklearn_tags__()
            tags.input_tags.sparse = inner.input_tags.sparse
            tags.input_tags.allow_nan = inner.input_tags.allow_nan
        except AttributeError:  # pragma: no cover - estimators without tags
            pass
        return tags

    def _base_estimator(self):
        if self.estimator is None:
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression()
        return self.estimator

    def fit(self, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Train one cost-weighted classifier per probe.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training objects, in any form the estimator takes.
        y : array-like of shape (n_samples,)
            Binary labels (any two values); ``classes_[1]`` is the positive class.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies the cost weights.

        Returns
        -------
        self : object
        """
        owner = type(self).__name__
        n_probes = check_positive_int(self.n_probes, name="n_probes", owner=owner)
        base = self._base_estimator()
        if not is_classifier(base):
            raise TypeError(
                f"The 'estimator' parameter of {owner} must be a classifier (probes predict "
                f"labels); got {type(base).__name__}, which is not a scikit-learn classifier."
            )
        if not has_fit_parameter(base, "sample_weight"):
            raise TypeError(
                f"The estimator of {owner} ({type(base).__name__}) does not accept sample_weight "
                "in fit; probing needs cost-weighted training."
            )
        X = indexable(X)[0]
        if np.asarray(y).ndim == 2:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; pass y of shape "
                "(n_samples,), e.g. with ravel().",
                DataConversionWarning,
                stacklevel=2,
            )
        y01, classes = check_binary_labels(y, name="y")
        n = _num_samples(X)
        check_consistent_length(X=range(n), y=y01)
        w = check_sample_weight(sample_weight, n)
        w = np.ones(n) if w is None else w
        if not (w[y01 == 1] > 0).any() or not (w[y01 == 0] > 0).any():
            raise ValueError(
                "'sample_weight' leaves one class with zero total weight; both classes need "
                "positive weight."
            )
        costs = (np.arange(n_probes) + 0.5) / n_probes
        # the labels the probes see: the original ones, so their classes_ match ours
        y_arr = classes[y01]
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_probe)(clone(base), X, y_arr, w * np.where(y01 == 1, 1.0 - c, c))
            for c in costs
        )
        self.costs_ = costs
        self.classes_ = classes
        first = self.estimators_[0]
        if hasattr(first, "n_features_in_"):
            self.n_features_in_ = first.n_features_in_
        if hasattr(first, "feature_names_in_"):
            self.feature_names_in_ = first.feature_names_in_
        return self

    def decision_path(self, X: Any) -> npt.NDArray[np.int8]:
        """Return each probe's decision, made monotone in the cost.

        Parameters
        ----------
        X : array-like of shape (m, n_features)

        Returns
        -------
        decisions : ndarray of shape (m, n_probes), dtype int8
            ``decisions[i, k]`` is 1 when the probe at ``costs_[k]`` would predict the positive
            class, after sorting each row so that the ones come first (Langford & Zadrozny's
            monotone sequence; the row sum is unchanged).
        """
        raw = self._raw_decisions(X)
        ones = raw.sum(axis=1)
        return (np.arange(raw.shape[1])[None, :] < ones[:, None]).astype(np.int8)

    def _raw_decisions(self, X):
        check_is_fitted(self, "estimators_")
        X = indexable(X)[0]
        pos = self.classes_[1]
        cols = [np.asarray(est.predict(X)) == pos for est in self.estimators_]
        return np.column_stack(cols).astype(np.int8)

    def predict_proba(self, X: Any) -> FloatArray:
        """Return the probing estimate of the class probabilities.

        Parameters
        ----------
        X : array-like of shape (m, n_features)

        Returns
        -------
        proba : ndarray of shape (m, 2)
            The second column is the fraction of probes that predict ``classes_[1]``.
        """
        p = self._raw_decisions(X).mean(axis=1)
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> AnyArray:
        """Return the more probable class (``classes_[0]`` on a tie, as argmax does).

        Parameters
        ----------
        X : array-like of shape (m, n_features)

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        p = self.predict_proba(X)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]
