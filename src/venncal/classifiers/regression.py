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
from venncal.calibration._groups import GROUP_FALLBACKS, check_groups, unseen_groups
from venncal.calibration.regression import VennAbersDistribution, check_thresholds
from venncal.classifiers._common import (
    check_cal_size,
    check_groups_match,
    copy_fitted_attributes,
    fit_weighted,
)
from venncal.core.merge import MERGES
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from collections.abc import Callable

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
    distribution: VennAbersDistribution,
    groups: npt.NDArray[Any] | None,
) -> tuple[Any, VennAbersDistribution]:
    """Fit a clone of ``estimator`` on ``train`` and a clone of ``distribution`` on its
    predictions of ``cal`` (within their ``groups`` if given)."""
    w_train = None if weight is None else weight[train]
    est = fit_weighted(clone(estimator), _safe_indexing(X, train), y[train], w_train, stacklevel=4)
    pred = np.asarray(est.predict(_safe_indexing(X, cal)), dtype=np.float64)
    w_cal = None if weight is None else weight[cal]
    g_cal = None if groups is None else groups[cal]
    dist = clone(distribution).fit(pred, y[cal], sample_weight=w_cal, groups=g_cal)
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
    group_fallback : {"error", "pooled"}, default="error"
        With ``calibration_groups`` at fit: what a group gets that is unknown at prediction
        (or, with ``"cross"``, absent from the calibration fold of a fitted regressor), or
        whose calibration rows all have weight zero (as in
        :class:`~venncal.VennAbersDistribution`): an error naming it, or the distribution of
        all groups pooled, with a warning.

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
        group_fallback: str = "error",
    ) -> None:
        self.estimator = estimator
        self.method = method
        self.cal_size = cal_size
        self.n_splits = n_splits
        self.merge = merge
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.group_fallback = group_fallback

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags = get_tags(self.estimator).input_tags
        return tags

    def fit(
        self,
        X: Any,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        calibration_groups: ArrayLike | None = None,
    ) -> Self:
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
        calibration_groups : array-like of shape (n,), default=None
            Group of each object (integers or strings): each calibration part is fitted within
            groups (one distribution per group, as ``VennAbersDistribution(groups=...)``), so
            the guarantee holds in every group; prediction then needs the groups of the test
            objects (``calibration_groups=`` of the predict methods). The regressor is fitted
            on all groups together.

        Returns
        -------
        self : object
            The fitted regressor.
        """
        owner = type(self).__name__
        check_option(self.method, METHODS, name="method", owner=owner)
        check_option(self.merge, MERGES, name="merge", owner=owner)
        check_option(self.group_fallback, GROUP_FALLBACKS, name="group_fallback", owner=owner)
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
        groups = None
        if calibration_groups is not None:
            groups = check_groups(calibration_groups, n, name="calibration_groups", what="rows")
        dist = VennAbersDistribution(merge=self.merge, group_fallback=self.group_fallback)
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
                delayed(_fit_part)(self.estimator, X, target, weight, train, cal, dist, groups)
                for train, cal in folds.split(np.zeros(n))
            )
        elif isinstance(self.estimator, FrozenEstimator):
            pred = np.asarray(self.estimator.predict(X), dtype=np.float64)
            parts = [(self.estimator, dist.fit(pred, target, weight, groups=groups))]
        else:
            test_size = check_cal_size(self.cal_size, n, owner=owner)
            train, cal = train_test_split(
                np.arange(n), test_size=test_size, random_state=self.random_state
            )
            parts = [_fit_part(self.estimator, X, target, weight, train, cal, dist, groups)]
        self.estimators_ = [est for est, _ in parts]
        self.distributions_ = [dist for _, dist in parts]
        self.grouped_ = groups is not None
        if self.method == "inductive":
            self.estimator_ = self.estimators_[0]
        copy_fitted_attributes(self, self.estimators_[0])
        return self

    def _average(
        self,
        X: Any,
        groups: ArrayLike | None,
        predict: Callable[[VennAbersDistribution, FloatArray, dict[str, Any]], FloatArray],
    ) -> FloatArray:
        """The average over the fitted regressors of ``predict(distribution, predictions,
        {"groups": ...})``; groups unknown to any of them are an error or one warning, naming
        this class."""
        check_is_fitted(self, "distributions_")
        grouped = getattr(self, "grouped_", False)
        check_groups_match(type(self).__name__, grouped, groups)
        preds = [np.asarray(est.predict(X), dtype=np.float64) for est in self.estimators_]
        kwargs: dict[str, Any] = {}
        if groups is not None:  # fitted within groups (checked above)
            g = check_groups(groups, preds[0].shape[0], name="calibration_groups", what="objects")
            unknown: dict[Any, None] = {}
            for label in np.unique(g).tolist():
                for d in self.distributions_:
                    if label not in d.groups_ and label not in d.pooled_groups_:
                        unknown[label] = None
            unseen_groups(type(self).__name__, list(unknown), self.group_fallback)
            kwargs["groups"] = g
        with warnings.catch_warnings():
            # the groups a fold did not see were said once above, naming this class
            warnings.filterwarnings("ignore", message=".*not seen at fit", category=VenncalWarning)
            out = sum(
                predict(d, p, kwargs) for d, p in zip(self.distributions_, preds, strict=True)
            )
        return np.asarray(out) / len(preds)

    def predict_distribution(
        self, X: Any, thresholds: ArrayLike, *, calibration_groups: ArrayLike | None = None
    ) -> FloatArray:
        """Return the band ``(F0(t), F1(t))`` of predictive CDFs at every threshold.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        thresholds : array-like of shape (T,)
            Finite thresholds in increasing order.
        calibration_groups : array-like of shape (m,), default=None
            The groups of the test objects; required when fitted with ``calibration_groups``.

        Returns
        -------
        cdf : ndarray of shape (m, T, 2)
            Lower and upper CDF values (averaged over the folds for ``"cross"``).
        """
        t = check_thresholds(thresholds)
        return self._average(X, calibration_groups, lambda d, p, kw: d.predict_cdf(p, t, **kw))

    def predict_quantiles(
        self, X: Any, q: ArrayLike, *, calibration_groups: ArrayLike | None = None
    ) -> FloatArray:
        """Return quantiles of the merged distribution.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        q : float or array-like of shape (Q,)
            Levels strictly between 0 and 1.
        calibration_groups : array-like of shape (m,), default=None
            The groups of the test objects; required when fitted with ``calibration_groups``.

        Returns
        -------
        quantiles : ndarray of shape (m, Q)
            For ``"cross"``, the average of the folds' quantiles.
        """
        return self._average(
            X, calibration_groups, lambda d, p, kw: d.predict_quantiles(p, q, **kw)
        )

    def predict_interval(
        self,
        X: Any,
        *,
        confidence: float = 0.9,
        calibration_groups: ArrayLike | None = None,
    ) -> FloatArray:
        """Return the central interval of the merged distribution.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        confidence : float, default=0.9
            The probability inside the interval, in (0, 1).
        calibration_groups : array-like of shape (m,), default=None
            The groups of the test objects; required when fitted with ``calibration_groups``.

        Returns
        -------
        interval : ndarray of shape (m, 2)
            The quantiles at ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``.
        """
        return self._average(
            X,
            calibration_groups,
            lambda d, p, kw: d.predict_interval(p, confidence=confidence, **kw),
        )

    def predict(self, X: Any, calibration_groups: ArrayLike | None = None) -> FloatArray:
        """Return the mean of the merged predictive distribution of each object.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        calibration_groups : array-like of shape (m,), default=None
            The groups of the test objects; required when fitted with ``calibration_groups``.

        Returns
        -------
        y_pred : ndarray of shape (m,)
        """
        return self._average(X, calibration_groups, lambda d, p, kw: d.predict_mean(p, **kw))
