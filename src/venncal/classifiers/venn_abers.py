"""Venn-Abers calibration of any scikit-learn binary classifier."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.exceptions import DataConversionWarning
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils import _safe_indexing, get_tags, indexable
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    _routing_enabled,
    process_routing,
)
from sklearn.utils.validation import _num_samples, check_is_fitted, has_fit_parameter

from venncal._validation import (
    check_binary_labels,
    check_consistent_length,
    check_option,
    check_positive_int,
    check_sample_weight,
    check_weighted_classes,
)
from venncal.classifiers._common import (
    check_cal_size,
    check_frozen_classes,
    check_groups_match,
    log_proba,
)
from venncal.classifiers._docs import fill_predict_doc
from venncal.classifiers._response import (
    check_features,
    positive_scores,
    resolve_response_method,
)
from venncal.core.merge import MERGES, cross_interval, merge, merge_cross
from venncal.core.venn_abers import ivap_fit
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray
    from venncal.classifiers._full import FullVennAbers
    from venncal.classifiers._oob import OOBVennAbers

__all__ = ["VennAbersClassifier"]

METHODS = ("inductive", "cross", "simplified", "full", "oob")


def _split_fit_params(fit_params, indices, n_samples):
    """Index the per-sample entries of ``fit_params``; pass the others through."""
    out = {}
    for key, value in fit_params.items():
        if hasattr(value, "__len__") and not isinstance(value, str) and len(value) == n_samples:
            out[key] = _safe_indexing(value, indices)
        else:
            out[key] = value
    return out


def _calibrate(scores, y01, weight, groups, merge_rule, group_fallback):
    """Venn-Abers step tables of calibration scores, or a calibrator fitted within groups."""
    if groups is None:
        return ivap_fit(scores, y01, sample_weight=weight)
    from venncal.calibration.venn_abers import VennAbersCalibrator

    cal = VennAbersCalibrator(merge=merge_rule, group_fallback=group_fallback)
    return cal.fit(scores, y01, weight, groups=groups)


def _fit_fold(estimator, X, y, train, cal, y01, weight, fit_params, response_method, grouping):
    """Fit a clone on ``train`` and a Venn-Abers predictor on its scores of ``cal``.

    ``grouping`` is None, or ``(groups, merge, group_fallback)`` to calibrate within groups.
    """
    n = len(y01)
    est = clone(estimator).fit(
        _safe_indexing(X, train),
        _safe_indexing(y, train),
        **_split_fit_params(fit_params, train, n),
    )
    scores = positive_scores(est, _safe_indexing(X, cal), response_method)
    w = None if weight is None else weight[cal]
    if grouping is None:
        return est, _calibrate(scores, y01[cal], w, None, None, None)
    groups, merge_rule, fallback = grouping
    return est, _calibrate(scores, y01[cal], w, groups[cal], merge_rule, fallback)


class VennAbersClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """A binary classifier whose probabilities come from a Venn-Abers predictor.

    The wrapped estimator scores objects (its ``decision_function``, else
    ``predict_proba[:, 1]``) and a Venn-Abers predictor turns each score into an interval
    [p0, p1] for the positive class, one end of which is calibrated under exchangeability.

    Parameters
    ----------
    estimator : scikit-learn classifier
        The scoring classifier. Wrap a fitted one in ``sklearn.frozen.FrozenEstimator`` to
        calibrate it without refitting (``method="inductive"`` or ``"simplified"``).
    method : {"inductive", "cross", "simplified", "full", "oob"}, default="inductive"
        - ``"inductive"``: fit the estimator once on a proper training part and calibrate on
          the remaining ``cal_size`` (Vovk 2012, pre-trained Venn-Abers predictor).
        - ``"cross"``: cross Venn-Abers: ``n_splits`` folds, the estimator fitted once per fold
          on the others and a Venn-Abers predictor on the fold; per-fold pairs are merged
          (Vovk, Petej & Fedorova 2015).
        - ``"simplified"``: fit once on all the data and calibrate on its own training scores
          (Vovk & Petej 2014, Algorithm 2).
        - ``"full"``: the transductive Venn-Abers predictor (Vovk & Petej 2014, Algorithm 1),
          which refits the estimator with each test object labelled 0 and 1. It suits stable
          learners, whose score for an object changes little when one training example is
          added (naive Bayes, linear models, LDA/QDA, k-NN with k > 1), not learners that
          memorise their training set (unpruned trees, forests of them, 1-NN): their
          intervals are [0, 1] for most objects, and a ``VenncalWarning`` says so.
        - ``"oob"``: out-of-bag calibration of a bagged ensemble (Johansson et al. 2018).
    cal_size : float in (0, 1) or int >= 1, default=0.2
        Calibration part of the training data when ``method="inductive"``: a float is a
        fraction of the examples, an int a number of examples (as ``test_size`` of
        ``train_test_split``).
    n_splits : int >= 2, default=5
        Number of folds when ``method="cross"``.
    merge : {"log", "square", "mean"}, default="log"
        How ``predict_proba`` merges (p0, p1); for ``"cross"`` the fold-wise versions
        (geometric-mean merge for ``"log"``).
    response_method : {"auto", "decision_function", "predict_proba"}, default="auto"
        Which output of the estimator is the score.
    random_state : int, RandomState instance or None, default=None
        Seeds the calibration split, the folds, and the out-of-bag draws.
    n_jobs : int, default=None
        Parallel jobs through joblib for the folds of ``"cross"`` and the test objects of
        ``"full"``; any joblib backend (including Dask) applies.
    group_fallback : {"error", "pooled"}, default="error"
        With ``calibration_groups`` at fit: what a group gets whose calibration examples are of one class
        only, or that is unknown at prediction (as in
        :class:`~venncal.VennAbersCalibrator`): an error naming it, or the predictor of all
        groups pooled, with a warning.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    estimator_ : estimator
        The fitted estimator (``"inductive"``, ``"simplified"``).
    estimators_ : list of estimators
        The per-fold estimators (``"cross"``).
    calibrators_ : list of IVAPTables
        Venn-Abers step tables, one per fitted estimator.
    n_features_in_ : int
        Present when the estimator defines it.

    Notes
    -----
    **Positive class.** Unlike the score calibrators, whose ``fit`` takes ``pos_label`` because
    their scores come from outside with no labels attached, this classifier takes none: the
    estimator is fitted on the same labels, so its score (``decision_function``, or
    ``predict_proba[:, 1]``) points to ``classes_[1]`` by scikit-learn's convention, the larger
    label in sorted order. The order of the labels in ``y`` does not matter (strings, integers,
    or a categorical whose categories come in any order give the same probabilities):
    ``predict_proba`` has one column per class of ``classes_``, so read the probability of a
    class from its column, e.g. ``proba[:, list(clf.classes_).index("malignant")]``.
    Renaming the labels so that their sorted order flips gives the same probability of each
    class from the same calibration examples, since the Venn-Abers predictor and its merges
    are symmetric in the two labels; the random calibration split and folds (``"inductive"``,
    ``"cross"``) are stratified like scikit-learn's splitters, which draw the classes in sorted
    order of their labels, so they can change with such a renaming. ``predict_interval``
    is the interval of ``classes_[1]``; that of ``classes_[0]`` is ``1 - interval[:, ::-1]``.
    A ``FrozenEstimator`` must have been fitted on the labels of ``y`` (its ``classes_`` are
    checked), since its scores point to its own ``classes_[1]``.

    References
    ----------
    Vovk & Petej, "Venn-Abers predictors", UAI 2014. Vovk, "Venn predictors and isotonic
    regression" (2012). Vovk, Petej & Fedorova, "Large-scale probabilistic predictors with and
    without guarantees of validity", NeurIPS 2015.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = VennAbersClassifier(GaussianNB(), random_state=0).fit(X[:400], y[:400])
    >>> interval = clf.predict_interval(X[400:])
    >>> bool((interval[:, 0] <= interval[:, 1]).all())
    True
    >>> clf.predict_proba(X[400:]).shape
    (169, 2)

    With preprocessing, wrap the whole pipeline: it is fitted on the training part and its scores
    are calibrated (a ``Pipeline`` ending in this classifier hides ``predict_interval``; use
    :func:`venncal.predict_interval` for one).

    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> piped = VennAbersClassifier(make_pipeline(StandardScaler(), GaussianNB()), random_state=0)
    >>> piped.fit(X[:400], y[:400]).predict_interval(X[400:]).shape
    (169, 2)
    """

    # the calibration consumes sample_weight under metadata routing
    __metadata_request__fit = {"sample_weight": True}

    def __init__(
        self,
        estimator: Any,
        *,
        method: str = "inductive",
        cal_size: float = 0.2,
        n_splits: int = 5,
        merge: str = "log",
        response_method: str = "auto",
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        group_fallback: str = "error",
    ) -> None:
        self.estimator = estimator
        self.method = method
        self.cal_size = cal_size
        self.n_splits = n_splits
        self.merge = merge
        self.response_method = response_method
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.group_fallback = group_fallback

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags = inner.input_tags
        tags.classifier_tags.multi_class = False
        return tags

    def _validate_params(self):
        owner = type(self).__name__
        check_option(self.method, METHODS, name="method", owner=owner)
        check_option(self.merge, MERGES, name="merge", owner=owner)
        from venncal.calibration._groups import GROUP_FALLBACKS

        check_option(self.group_fallback, GROUP_FALLBACKS, name="group_fallback", owner=owner)
        if self.method == "cross":
            check_positive_int(self.n_splits, name="n_splits", owner=owner, minimum=2)
            if isinstance(self.estimator, FrozenEstimator):
                raise ValueError(
                    f"{owner} with method='cross' refits the estimator on each fold; "
                    "a FrozenEstimator cannot be refitted. Use method='inductive'."
                )
        self._response_ = resolve_response_method(self.estimator, self.response_method, owner=owner)

    def fit(
        self,
        X: Any,
        y: ArrayLike,
        calibration_groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        **fit_params: Any,
    ) -> Self:
        """Fit the estimator(s) and the Venn-Abers calibration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training objects, in any form the estimator takes (arrays, DataFrames, ...).
        y : array-like of shape (n_samples,)
            Binary labels (any two values); ``classes_[1]`` is the positive class.
        calibration_groups : array-like of shape (n_samples,), default=None
            Group of each object (integers or strings): the calibration is done within each
            group (methods ``"inductive"``, ``"simplified"`` and ``"cross"``), so the validity
            guarantee holds in every group; prediction then needs the groups of the test
            objects (``calibration_groups=`` of the predict methods). The estimator is fitted on
            all groups together. The name differs from the calibrator's ``groups=`` because a
            ``groups`` fit parameter goes to the estimator's ``fit``, as in scikit-learn.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the training examples: passed to the estimator's ``fit``
            with the other fit parameters (see below) and weighting the calibration examples,
            so a weight of ``k`` counts as ``k`` copies of the example in the Venn-Abers
            predictor. ``method="full"`` refuses weights.
        **fit_params : dict
            Passed to the estimator's ``fit``; per-sample entries are split with the data.
            A ``sample_weight`` also weights the calibration examples; when the
            estimator's ``fit`` takes no ``sample_weight`` (a ``Pipeline``, k-nearest
            neighbours), it is fitted unweighted with a ``VenncalWarning`` and the weights
            still weight the calibration. With scikit-learn's metadata routing enabled
            (``sklearn.set_config(enable_metadata_routing=True)``), the estimator receives
            only the parameters it requested (``estimator.set_fit_request(...)``), and
            ``sample_weight`` always weights the calibration.

        Returns
        -------
        self : object
        """
        self._validate_params()
        if sample_weight is not None:
            fit_params = {**fit_params, "sample_weight": sample_weight}
        y01, classes = check_binary_labels(y, name="y")
        check_frozen_classes(self.estimator, classes, owner=type(self).__name__)
        X = indexable(X)[0]
        check_features(X, self.estimator, owner=type(self).__name__)
        n = _num_samples(X)
        check_consistent_length(X=range(n), y=y01)
        self._grouping = None
        groups = calibration_groups
        if groups is not None:
            from venncal.calibration._groups import check_groups

            owner = type(self).__name__
            if self.method not in ("inductive", "simplified", "cross"):
                raise ValueError(
                    f"{owner}: calibration_groups= works with method 'inductive', 'simplified' or "
                    "'cross', "
                    f"not {self.method!r}."
                )
            groups = check_groups(groups, n, name="calibration_groups", what="rows")
            self._grouping = (groups, self.merge, self.group_fallback)
        weight = check_sample_weight(fit_params.get("sample_weight"), n)
        check_weighted_classes(y01, weight)
        if weight is not None:  # an array, so that the folds and splits can index it
            fit_params = {**fit_params, "sample_weight": weight}
        if self.method == "inductive" and not isinstance(self.estimator, FrozenEstimator):
            self._test_size = check_cal_size(
                self.cal_size, n, owner=type(self).__name__, n_classes=2
            )
        y_arr = np.asarray(y)
        if y_arr.ndim == 2 and self.method in ("full", "oob"):  # the estimator sees y01 only
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; pass y of shape "
                "(n_samples,), e.g. with ravel().",
                DataConversionWarning,
                stacklevel=2,
            )
        for attr in ("estimator_", "estimators_", "calibrators_", "_delegate", "n_features_in_"):
            if hasattr(self, attr):
                delattr(self, attr)
        if _routing_enabled():
            fit_params = dict(process_routing(self, "fit", **fit_params).estimator.fit)
        elif (
            weight is not None
            and self.method in ("inductive", "simplified", "cross")
            and not isinstance(self.estimator, FrozenEstimator)
            and not has_fit_parameter(self.estimator, "sample_weight")
        ):
            warnings.warn(
                f"{type(self.estimator).__name__}.fit does not take sample_weight, so the "
                "weights are used for the Venn-Abers calibration only and the estimator is "
                "fitted unweighted (as scikit-learn's CalibratedClassifierCV does).",
                VenncalWarning,
                stacklevel=2,
            )
            fit_params = {k: v for k, v in fit_params.items() if k != "sample_weight"}
        getattr(self, f"_fit_{self.method}")(X, y_arr, y01, weight, fit_params)
        self.grouped_ = self._grouping is not None
        del self._grouping
        self.classes_ = classes
        fitted = (
            getattr(self, "estimator_", None)
            or getattr(self, "estimators_", [None])[0]
            or getattr(getattr(self, "_delegate", None), "estimator_", None)
        )
        if fitted is not None and hasattr(fitted, "n_features_in_"):
            self.n_features_in_ = fitted.n_features_in_
        elif len(np.shape(X)) == 2:  # full and out-of-bag keep no single fitted estimator
            self.n_features_in_ = np.shape(X)[1]
        if fitted is not None and hasattr(fitted, "feature_names_in_"):
            self.feature_names_in_ = fitted.feature_names_in_
        return self

    def _fit_inductive(self, X, y, y01, weight, fit_params):
        n = len(y01)
        if isinstance(self.estimator, FrozenEstimator):
            est, cal = self.estimator, np.arange(n)
        else:
            train, cal = train_test_split(
                np.arange(n),
                test_size=self._test_size,
                stratify=y01,
                random_state=self.random_state,
            )
            if np.unique(y01[cal]).size < 2 or np.unique(y01[train]).size < 2:
                raise ValueError(
                    "The calibration split left one class only on one side; "
                    "give more examples of the rarer class or change cal_size."
                )
            est = clone(self.estimator).fit(
                _safe_indexing(X, train),
                _safe_indexing(y, train),
                **_split_fit_params(fit_params, train, n),
            )
        scores = positive_scores(est, _safe_indexing(X, cal), self._response_)
        w = None if weight is None else weight[cal]
        self.estimator_ = est
        self.calibrators_ = [self._calibrate_rows(scores, y01, w, cal)]

    def _calibrate_rows(self, scores, y01, weight, rows):
        """Calibrate the scores of ``rows``, within their groups when fitted with groups."""
        if self._grouping is None:
            return _calibrate(scores, y01[rows], weight, None, None, None)
        groups, merge_rule, fallback = self._grouping
        return _calibrate(scores, y01[rows], weight, groups[rows], merge_rule, fallback)

    def _fit_simplified(self, X, y, y01, weight, fit_params):
        if isinstance(self.estimator, FrozenEstimator):
            est = self.estimator
        else:
            est = clone(self.estimator).fit(X, y, **fit_params)
        scores = positive_scores(est, X, self._response_)
        self.estimator_ = est
        self.calibrators_ = [self._calibrate_rows(scores, y01, weight, np.arange(len(y01)))]

    def _fit_cross(self, X, y, y01, weight, fit_params):
        counts = np.bincount(y01, minlength=2)
        if counts.min() < self.n_splits:
            raise ValueError(
                f"method='cross' with n_splits={self.n_splits} needs at least {self.n_splits} "
                f"examples of each class, got {counts.tolist()}; lower n_splits."
            )
        folds = StratifiedKFold(self.n_splits, shuffle=True, random_state=self.random_state)
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_fold)(
                self.estimator,
                X,
                y,
                train,
                cal,
                y01,
                weight,
                fit_params,
                self._response_,
                self._grouping,
            )
            for train, cal in folds.split(np.zeros(len(y01)), y01)
        )
        self.estimators_ = [est for est, _ in results]
        self.calibrators_ = [tables for _, tables in results]

    def _fit_full(self, X, y, y01, weight, fit_params):
        from venncal.classifiers._full import FullVennAbers

        self._fit_delegate(FullVennAbers, X, y01, fit_params, n_jobs=self.n_jobs)

    def _fit_oob(self, X, y, y01, weight, fit_params):
        from venncal.classifiers._oob import OOBVennAbers

        self._fit_delegate(OOBVennAbers, X, y01, fit_params, random_state=self.random_state)

    def _fit_delegate(
        self,
        predictor: type[FullVennAbers | OOBVennAbers],
        X: Any,
        y01: AnyArray,
        fit_params: dict[str, Any],
        **params: Any,
    ) -> None:
        """Fit the predictor of ``method`` that predicts in this classifier's place (full or
        out-of-bag Venn-Abers) on the training set."""
        self._delegate = predictor(
            self.estimator, response_method=self.response_method, fit_params=fit_params, **params
        ).fit(X, y01)

    def _check_test_objects(self, X):
        check_is_fitted(self, "classes_")
        check_features(X, self.estimator, owner=type(self).__name__)

    def _check_groups(self, groups):
        check_groups_match(type(self).__name__, getattr(self, "grouped_", False), groups)

    def _fold_pairs(self, X, groups=None):
        """Per-estimator (p0, p1), each of shape (K, m)."""
        estimators = getattr(self, "estimators_", None) or [self.estimator_]
        if groups is not None:
            from venncal.calibration._groups import check_groups, unseen_groups

            m = _num_samples(X)
            groups = check_groups(groups, m, name="calibration_groups", what="objects")
        p0, p1 = [], []
        unknown = {}
        for est, tables in zip(estimators, self.calibrators_):
            scores = positive_scores(est, X, self._response_)
            if groups is None:
                a, b = tables.predict_unchecked(scores)
            else:
                a, b, new = tables._grouped_interval(tables._check_predict_input(scores), groups)
                unknown.update(dict.fromkeys(new))
            p0.append(a)
            p1.append(b)
        if groups is not None:  # one error or warning for all folds, naming this class
            unseen_groups(type(self).__name__, list(unknown), self.group_fallback)
        return np.array(p0), np.array(p1)

    @fill_predict_doc
    def predict_interval(self, X: Any, calibration_groups: ArrayLike | None = None) -> FloatArray:
        """Return the Venn-Abers interval [p0, p1] for the positive class.

        For ``method="cross"`` the interval is the envelope ``[min_k p0_k, max_k p1_k]`` of the
        folds' Venn-Abers intervals (:func:`venncal.core.merge.cross_interval`, which gives
        the reasons): always ordered, and it contains the probability ``predict_proba``
        returns, for every ``merge``.

        {groups_parameters}

        Returns
        -------
        interval : ndarray of shape (m, 2)
            Columns p0 and p1, probabilities of ``classes_[1]``; p0 <= p1 always (for
            ``method="cross"`` too), except
            for ``method="full"``, whose two refitted scorers can order them the other way
            (Algorithm 1 of Vovk & Petej 2014 allows it).
        """
        self._check_test_objects(X)
        self._check_groups(calibration_groups)
        if hasattr(self, "_delegate"):
            return self._delegate.predict_interval(X)
        p0, p1 = self._fold_pairs(X, calibration_groups)
        if p0.shape[0] == 1:
            return np.column_stack([p0[0], p1[0]])
        return np.column_stack(cross_interval(p0, p1))

    @fill_predict_doc
    def predict_proba(self, X: Any, calibration_groups: ArrayLike | None = None) -> FloatArray:
        """Return merged probabilities of both classes.

        {groups_parameters}

        Returns
        -------
        proba : ndarray of shape (m, 2)
            Probabilities of ``classes_[0]`` and ``classes_[1]``.
        """
        self._check_test_objects(X)
        self._check_groups(calibration_groups)
        if hasattr(self, "_delegate"):
            interval = self._delegate.predict_interval(X)
            p = merge(interval[:, 0], interval[:, 1], self.merge)
        else:
            p0, p1 = self._fold_pairs(X, calibration_groups)
            if p0.shape[0] == 1:
                p = merge(p0[0], p1[0], self.merge)
            else:
                p = merge_cross(p0, p1, self.merge)
        return np.column_stack([1.0 - p, p])

    @fill_predict_doc
    def predict_log_proba(self, X: Any, calibration_groups: ArrayLike | None = None) -> FloatArray:
        """Return the natural logarithm of :meth:`predict_proba` (-inf where it is zero).

        {derived_parameters}

        Returns
        -------
        log_proba : ndarray of shape (m, 2)
        """
        if calibration_groups is None:
            return log_proba(self.predict_proba(X))
        return log_proba(self.predict_proba(X, calibration_groups=calibration_groups))

    def get_metadata_routing(self) -> MetadataRouter:
        """Return the metadata routing of this classifier.

        ``sample_weight`` is consumed by the calibration; the parameters of ``fit`` go to the
        estimator's ``fit`` when it requested them.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
        """
        return (
            MetadataRouter(owner=type(self).__name__)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
        )

    @fill_predict_doc
    def predict(self, X: Any, calibration_groups: ArrayLike | None = None) -> AnyArray:
        """Return the more probable class (``classes_[0]`` when p = 1/2, as argmax does).

        {derived_parameters}

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        if calibration_groups is None:
            p = self.predict_proba(X)[:, 1]
        else:
            p = self.predict_proba(X, calibration_groups=calibration_groups)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]
