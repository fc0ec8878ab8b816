"""Venn-Abers predictive distributions for any scikit-learn regressor."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, MetaEstimatorMixin, RegressorMixin, clone
from sklearn.exceptions import DataConversionWarning
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import KFold, train_test_split
from sklearn.utils import _safe_indexing, get_tags, indexable
from sklearn.utils.validation import _num_samples, check_is_fitted

from venncal._validation import (
    check_consistent_length,
    check_option,
    check_positive_int,
    check_sample_weight,
    check_scores,
)
from venncal.calibration.regression import VennAbersDistribution, check_thresholds
from venncal.classifiers._common import check_cal_size, copy_fitted_attributes, fit_weighted
from venncal.core.merge import MERGES

if TYPE_CHECKING:
    import numpy.typing as npt
    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import ArrayLike, FloatArray

__all__ = ["VennAbersRegressor"]

METHODS = ("inductive", "cross")


def _fit_part(
    estimator: Any,
    X: Any,
    y: FloatArray,
    weight: FloatArray | None,
    train: npt.NDArray[np.intp],
    cal: npt.NDArray[np.intp],
    merge_rule: str,
) -> tuple[Any, VennAbersDistribution]:
    """Fit a clone of ``estimator`` on ``train`` and a distribution on its predictions of
    ``cal``."""
    w_train = None if weight is None else weight[train]
    est = fit_weighted(clone(estimator), _safe_indexing(X, train), y[train], w_train, stacklevel=4)
    pred = np.asarray(est.predict(_safe_indexing(X, cal)), dtype=np.float64)
    w_cal = None if weight is None else weight[cal]
    dist = VennAbersDistribution(merge=merge_rule).fit(pred, y[cal], sample_weight=w_cal)
    return est, dist


class VennAbersRegressor(RegressorMixin, MetaEstimatorMixin, BaseEstimator):
    """A regressor whose predictive distributions come from inductive Venn-Abers.

    The wrapped regressor predicts, and a :class:`~venncal.VennAbersDistribution` fitted on
    its predictions of held-out calibration examples turns each prediction into a band of
    CDFs ``[F0, F1]``: at every threshold t, the inductive Venn-Abers pair of the event
    ``y <= t`` (Nouretdinov et al. 2018). ``predict`` gives the mean of the merged
    distribution and ``predict_interval`` its central interval.

    Parameters
    ----------
    estimator : scikit-learn regressor
        The regressor. Wrap a fitted one in ``sklearn.frozen.FrozenEstimator`` to calibrate it
        on all the rows given to ``fit`` without refitting it (``method="inductive"``).
    method : {"inductive", "cross"}, default="inductive"
        - ``"inductive"``: fit the estimator once on a proper training part and the
          distribution on its predictions of the remaining ``cal_size``.
        - ``"cross"``: ``n_splits`` folds, the estimator fitted once per fold on the others and
          a distribution on the fold. The folds' CDF pairs are averaged (the bounds of a
          mixture of the folds' distributions); the mean is the average of the folds' means
          and a quantile the average of the folds' quantiles (quantile averaging), as the
          venn-abers package averages its folds' intervals.
    cal_size : float in (0, 1) or int >= 1, default=0.2
        Calibration part of the training data when ``method="inductive"``: a fraction, or a
        number of examples.
    n_splits : int >= 2, default=5
        Number of folds when ``method="cross"``.
    merge : {"mean", "square", "log"}, default="mean"
        How each threshold's pair is merged into the merged distribution (see
        :class:`~venncal.VennAbersDistribution`).
    random_state : int, RandomState instance or None, default=None
        Seeds the calibration split and the folds.
    n_jobs : int, default=None
        Folds fitted in parallel (joblib) when ``method="cross"``.

    Attributes
    ----------
    estimator_ : estimator
        The fitted regressor (``"inductive"``).
    estimators_ : list of estimators
        One fitted regressor per fold (``"cross"``; ``[estimator_]`` for ``"inductive"``).
    distributions_ : list of VennAbersDistribution
        The distribution fitted on each calibration part, in the order of ``estimators_``.
    n_features_in_ : int
        Number of features seen by the estimator (when it records it).

    References
    ----------
    Nouretdinov, Volkhonskiy, Lim, Toccaceli & Gammerman, "Inductive Venn-Abers predictive
    distribution", COPA 2018 (PMLR 91).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(3000, 1))
    >>> y = 2 * X[:, 0] + rng.normal(scale=0.5, size=3000)
    >>> reg = VennAbersRegressor(LinearRegression(), cal_size=0.5, random_state=0)
    >>> reg = reg.fit(X[:2000], y[:2000])
    >>> lo, hi = reg.predict_interval(X[2000:], confidence=0.9).T

    About 90% of the test values fall inside their interval:

    >>> bool(0.86 <= np.mean((lo <= y[2000:]) & (y[2000:] <= hi)) <= 0.94)
    True
    """

    def __init__(
        self,
        estimator: Any,
        *,
        method: str = "inductive",
        cal_size: float = 0.2,
        n_splits: int = 5,
        merge: str = "mean",
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.method = method
        self.cal_size = cal_size
        self.n_splits = n_splits
        self.merge = merge
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags = get_tags(self.estimator).input_tags
        return tags

    def fit(self, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the regressor and the predictive distribution(s).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
            Training objects, in any form the estimator takes.
        y : array-like of shape (n,)
            Their finite target values.
        sample_weight : array-like of shape (n,), default=None
            Non-negative weights, passed to the estimator when its ``fit`` takes them and to
            the calibration (a weight of 2 counts as a duplicated calibration example).

        Returns
        -------
        self : object
            The fitted regressor.
        """
        owner = type(self).__name__
        check_option(self.method, METHODS, name="method", owner=owner)
        check_option(self.merge, MERGES, name="merge", owner=owner)
        if y is None:
            raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
        X, y = indexable(X, y)
        if len(getattr(y, "shape", ())) == 2:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled.",
                DataConversionWarning,
                stacklevel=2,
            )
        target = check_scores(y, name="y", noun="target values")
        n = _num_samples(X)
        check_consistent_length(X=range(n), y=target)
        weight = check_sample_weight(sample_weight, n)
        if self.method == "cross":
            check_positive_int(self.n_splits, name="n_splits", owner=owner, minimum=2)
            if isinstance(self.estimator, FrozenEstimator):
                raise ValueError(
                    f"{owner} with method='cross' refits the estimator on each fold; "
                    "a FrozenEstimator cannot be refitted. Use method='inductive'."
                )
            if n < self.n_splits:
                raise ValueError(
                    f"{owner} with method='cross' and n_splits={self.n_splits} needs at least "
                    f"{self.n_splits} samples; got {n} sample(s), lower n_splits."
                )
            folds = KFold(self.n_splits, shuffle=True, random_state=self.random_state)
            parts = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_part)(self.estimator, X, target, weight, train, cal, self.merge)
                for train, cal in folds.split(np.zeros(n))
            )
        elif isinstance(self.estimator, FrozenEstimator):
            pred = np.asarray(self.estimator.predict(X), dtype=np.float64)
            dist = VennAbersDistribution(merge=self.merge).fit(pred, target, weight)
            parts = [(self.estimator, dist)]
        else:
            test_size = check_cal_size(self.cal_size, n, owner=owner)
            train, cal = train_test_split(
                np.arange(n), test_size=test_size, random_state=self.random_state
            )
            parts = [_fit_part(self.estimator, X, target, weight, train, cal, self.merge)]
        self.estimators_ = [est for est, _ in parts]
        self.distributions_ = [dist for _, dist in parts]
        if self.method == "inductive":
            self.estimator_ = self.estimators_[0]
        copy_fitted_attributes(self, self.estimators_[0])
        return self

    def _predictions(self, X: Any) -> list[FloatArray]:
        """Each fitted regressor's predictions of ``X``."""
        check_is_fitted(self, "distributions_")
        return [np.asarray(est.predict(X), dtype=np.float64) for est in self.estimators_]

    def predict_distribution(self, X: Any, thresholds: ArrayLike) -> FloatArray:
        """Return the band ``(F0(t), F1(t))`` of predictive CDFs at every threshold.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        thresholds : array-like of shape (T,)
            Finite thresholds in increasing order.

        Returns
        -------
        cdf : ndarray of shape (m, T, 2)
            Lower and upper CDF values (averaged over the folds for ``"cross"``).
        """
        t = check_thresholds(thresholds)
        preds = self._predictions(X)
        out = sum(d.predict_cdf(p, t) for d, p in zip(self.distributions_, preds, strict=True))
        return np.asarray(out) / len(preds)

    def predict_quantiles(self, X: Any, q: ArrayLike) -> FloatArray:
        """Return quantiles of the merged distribution.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        q : float or array-like of shape (Q,)
            Levels strictly between 0 and 1.

        Returns
        -------
        quantiles : ndarray of shape (m, Q)
            For ``"cross"``, the average of the folds' quantiles.
        """
        preds = self._predictions(X)
        out = sum(
            d.predict_quantiles(p, q) for d, p in zip(self.distributions_, preds, strict=True)
        )
        return np.asarray(out) / len(preds)

    def predict_interval(self, X: Any, *, confidence: float = 0.9) -> FloatArray:
        """Return the central interval of the merged distribution.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        confidence : float, default=0.9
            The probability inside the interval, in (0, 1).

        Returns
        -------
        interval : ndarray of shape (m, 2)
            The quantiles at ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``.
        """
        preds = self._predictions(X)
        parts = [
            d.predict_interval(p, confidence=confidence)
            for d, p in zip(self.distributions_, preds, strict=True)
        ]
        return np.asarray(sum(parts)) / len(parts)

    def predict(self, X: Any) -> FloatArray:
        """Return the mean of the merged predictive distribution of each object.

        Parameters
        ----------
        X : array-like of shape (m, n_features)

        Returns
        -------
        y_pred : ndarray of shape (m,)
        """
        preds = self._predictions(X)
        out = sum(d.predict_mean(p) for d, p in zip(self.distributions_, preds, strict=True))
        return np.asarray(out) / len(preds)
