"""Venn predictors with a pluggable taxonomy around a scikit-learn classifier."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split
from sklearn.utils import _safe_indexing, get_tags, indexable
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from venncal._validation import check_option, check_positive_int, check_sample_weight
from venncal.classifiers._common import (
    check_cal_size,
    check_fit_data,
    check_frozen_classes,
    copy_fitted_attributes,
    fit_weighted,
    log_proba,
    model_scores,
    warn_unweighted_fit,
)
from venncal.classifiers._docs import fill_predict_doc
from venncal.classifiers._response import check_features
from venncal.classifiers._venn_taxonomies import bins_by_label, isotonic_venn
from venncal.core.venn import VennPrediction, equal_mass_venn_predict, venn_predict

if TYPE_CHECKING:
    from collections.abc import Callable

    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = ["VennClassifier"]

TAXONOMIES = ("label", "bins", "isotonic")
METHODS = ("inductive", "oob", "full")
MERGES = ("log", "square", "mean")
_OWNER = "VennClassifier"


class VennClassifier(ClassifierMixin, BaseEstimator):
    """Venn predictor with a taxonomy of the underlying classifier's output.

    The calibration examples are put into categories by a *taxonomy* of the classifier's
    scores; a test object's lower and upper probability of each label are the label's frequency
    in its category with the test object added under the least and the most favourable label
    (eqs. 3-4 of Johansson et al. 2018); the prediction is the label of largest lower
    probability (eq. 5). Whatever the taxonomy, one of the probability distributions obtained by
    trying the labels is perfectly calibrated (Vovk & Petej 2014, Theorem 1).

    Parameters
    ----------
    estimator : scikit-learn classifier
        The underlying model; cloned. Its ``predict_proba`` (else ``decision_function``) gives
        the scores the taxonomy reads: shape (n,) for two classes (score of ``classes_[1]``),
        (n, n_classes) otherwise.
    taxonomy : {"label", "bins", "isotonic"} or callable, default="label"
        - ``"label"``: the predicted label (argmax of the probabilities; for a binary
          ``decision_function``, its sign), the taxonomy of Johansson et al. (2018);
        - ``"bins"``: ``n_bins`` equal-mass bins of the score (binary); for more classes, the
          predicted label and then ``n_bins`` equal-mass bins of its probability among the
          examples with that predicted label. Edges are taken from the calibration scores and
          the test score together, so the taxonomy is a function of the bag;
        - ``"isotonic"`` (binary only): the level sets of the isotonic fit to the calibration
          scores plus the test object, i.e. the inductive Venn-Abers predictor;
        - a callable ``taxonomy(scores) -> categories`` mapping an array of scores (one row per
          object) to one category per object (any comparable values); it is applied to
          calibration and test objects alike and must not look at labels.
    method : {"inductive", "oob", "full"}, default="inductive"
        ``"inductive"``: train on a proper training set, calibrate on a held-out part
        (``cal_size``). ``"oob"``: bagged ensembles only; calibrate on the out-of-bag scores of
        every training example and score a test object with the out-of-bag sub-ensemble of a
        random example z_r, which is left out of its category (eqs. 10-11). ``"full"``: the
        transductive Venn predictor of Vovk & Petej (2014), section 2: for each test object
        and each hypothetical label ``k``, the estimator is trained on the whole training set
        extended with the test object labelled ``k`` (refitted, or updated when an updatable
        scorer is registered for it, see :func:`venncal.register_updatable_scorer`), the
        taxonomy is computed on the scores of the extended set, and the prediction for ``k`` is
        the label distribution of the test object's category. Nothing is held out, the
        taxonomy ``"isotonic"`` gives the full Venn-Abers predictor, and prediction costs
        ``n_classes`` fits per test object. A callable taxonomy receives the scores of the
        ``l + 1`` objects of the extended set (the test object last) and may use the whole bag,
        but not the order of the objects.
    cal_size : float in (0, 1) or int >= 1, default=0.2
        Calibration part held out of the training set (``method="inductive"``): a float is a
        share of the examples, an int a number of examples (as ``test_size`` of
        ``train_test_split``). With a ``sklearn.frozen.FrozenEstimator`` nothing is held out:
        the estimator is not refitted and every training example calibrates it.
    n_bins : int, default=10
        Number of bins of ``taxonomy="bins"``.
    merge : {"log", "square", "mean"}, default="log"
        How :meth:`predict_proba` turns the Venn bounds into one distribution. ``"log"``
        normalises the upper probabilities, ``U_j / sum_k U_k`` (for two classes, the log-loss
        minimax merge p1 / (1 - p0 + p1) of Vovk & Petej 2014, eq. 10); ``"mean"`` normalises
        ``(L_j + U_j) / 2``; ``"square"`` (two classes) is eq. (11).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the calibration split and the out-of-bag draws of z_r.
    group_fallback : {"error", "pooled"}, default="error"
        With ``calibration_groups`` at fit (calibration within groups): what a group gets that
        cannot be calibrated on its own (no calibration example; with ``taxonomy="isotonic"``,
        calibration examples of one class, as for :class:`~venncal.VennAbersCalibrator`) or
        that is unknown at prediction. ``"error"``: a ValueError naming the group.
        ``"pooled"``: the predictor of all groups pooled, i.e. the prediction of the fit
        without groups, with a warning naming the groups (at fit for the groups listed in
        ``pooled_groups_``, at prediction for unknown ones).
    n_jobs : int, default=None
        ``method="full"``: parallel jobs through joblib over the test objects, whose extended
        fits are refits (``None`` is 1 unless in a ``joblib.parallel_config`` context; any
        joblib backend, including Dask, applies). The predictions do not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimator_ : fitted estimator
    cal_scores_ : ndarray of shape (n_cal,) or (n_cal, n_classes)
        Scores of the calibration examples.
    cal_labels_ : ndarray of shape (n_cal,)
        Their label indices. With ``method="full"``, the training set's scores and labels.
    cal_weights_ : ndarray of shape (n_cal,)
        Their weights; present only when fitted with ``sample_weight``.
    uses_update_ : bool
        ``method="full"`` only: whether the extended fits come from an updatable scorer
        instead of refits.
    cal_groups_ : ndarray of shape (n_cal,) or None
        Group of each calibration example (None when fitted without groups).
    groups_ : list or None
        The groups calibrated on their own (None when fitted without groups).
    pooled_groups_ : list or None
        Groups seen at fit that use the pooled predictor (``group_fallback="pooled"``).

    Notes
    -----
    **Within groups.** With ``calibration_groups=`` at fit and at prediction (methods
    ``"inductive"`` and ``"oob"``), the category of an object is the pair (group, taxonomy
    category): a test object is compared with the calibration examples of its own group only,
    the bin edges of ``"bins"`` and the isotonic fit of ``"isotonic"`` are computed within the
    group, and the out-of-bag z_r is drawn from the group. Each group gets the Venn predictor
    of its calibration examples alone (a Mondrian taxonomy), so the validity guarantee holds
    within every group, not only on average. The estimator and the calibration split are
    those of the fit without groups. ``method="full"`` takes no groups: fit one predictor per
    group instead.

    **Positive class.** There is no ``pos_label`` (the score calibrators' ``fit`` has one
    because their scores come with no labels attached): the estimator is fitted on the same
    labels, so its scores are of its ``classes_``, the sorted labels of ``y``, and the binary
    score is that of ``classes_[1]``. Every output has one column per class of ``classes_``:
    read the probability of a class from its column, whatever the order of the labels in
    ``y``: strings, integers, or a categorical whose categories come in any order give the
    same probabilities. The taxonomies ``"label"`` and ``"isotonic"`` are symmetric in the two
    labels, so renaming the labels so that their sorted order flips gives the same probability
    of each class from the same calibration examples. Three things can still differ after
    such a renaming, each a valid Venn predictor: the random calibration split, stratified
    like scikit-learn's splitters, which draw the classes in sorted order of their labels
    (with ``method="oob"``, a ``FrozenEstimator`` or ``method="full"`` nothing is split); an
    object whose scores tie exactly between the labels (a probability of exactly 1/2, which
    out-of-bag forests often give), which is in the category of the model's predicted label,
    tied towards ``classes_[0]`` as scikit-learn's ``predict`` does; and the equal-mass bins
    of ``"bins"``, counted from the smallest score of ``classes_[1]``, whose edges can move
    by one object. A ``FrozenEstimator`` must have been fitted on the labels of ``y`` (its
    ``classes_`` are checked).

    References
    ----------
    U. Johansson, T. Löfström, H. Sundell, H. Linusson, A. Gidenstam, H. Boström, "Venn
    predictors for well-calibrated probability estimation trees" (2018), eqs. (3)-(6), (10)-(11).
    V. Vovk and I. Petej, "Venn-Abers predictors", UAI 2014, Theorem 1 and Corollary 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 2)); y = (X[:, 0] + rng.normal(size=600) > 0).astype(int)
    >>> vp = VennClassifier(LogisticRegression(), taxonomy="bins", n_bins=5, random_state=0)
    >>> vp = vp.fit(X[:400], y[:400])
    >>> p = vp.predict_interval(X[400:])
    >>> bool((p[:, 0] < p[:, 1]).all())
    True

    Corollary 1: the frequency of the positive class lies between the mean lower and the
    mean upper probability, up to sampling error.

    >>> lo, hi = p.mean(axis=0); freq = y[400:].mean()
    >>> bool(lo - 0.07 < freq < hi + 0.07)
    True

    The transductive predictor (``method="full"``) trains on all 60 examples plus the test
    object under each label; its multiprobability prediction holds one distribution per
    hypothetical label:

    >>> from sklearn.naive_bayes import GaussianNB
    >>> full = VennClassifier(GaussianNB(), taxonomy="bins", n_bins=3, method="full")
    >>> full = full.fit(X[:60], y[:60])
    >>> P = full.predict_multiprobability(X[400:403])
    >>> P.shape, bool(np.allclose(P.sum(axis=2), 1.0))
    ((3, 2, 2), True)
    >>> bool(np.allclose(full.predict_interval(X[400:403]),
    ...                  np.sort(P[:, :, 1], axis=1)))  # [min, max] of p0 = P[:, 0, 1], p1
    True

    Within groups (a Mondrian taxonomy), each group is calibrated on its own calibration
    examples. Group "b" is mostly positive, which the model cannot see:

    >>> g = np.where(rng.random(600) < 0.3, "b", "a")
    >>> y = np.where(g == "b", rng.random(600) < 0.8, y).astype(int)
    >>> vg = VennClassifier(LogisticRegression(), cal_size=0.5, random_state=0)
    >>> vg = vg.fit(X[:400], y[:400], calibration_groups=g[:400])
    >>> b = g[400:] == "b"; freq = y[400:][b].mean()
    >>> lo, hi = vg.predict_interval(X[400:], calibration_groups=g[400:])[b].mean(axis=0)
    >>> bool(lo - 0.07 < freq < hi + 0.07)
    True
    >>> from sklearn.base import clone
    >>> lo, hi = clone(vg).fit(X[:400], y[:400]).predict_interval(X[400:])[b].mean(axis=0)
    >>> bool(hi < freq - 0.1)  # calibrated on all groups pooled, it under-predicts group "b"
    True
    """

    def __init__(
        self,
        estimator: Any,
        *,
        taxonomy: str | Callable[[AnyArray], ArrayLike] = "label",
        method: str = "inductive",
        cal_size: float = 0.2,
        n_bins: int = 10,
        merge: str = "log",
        random_state: int | np.random.RandomState | None = None,
        group_fallback: str = "error",
        n_jobs: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.taxonomy = taxonomy
        self.method = method
        self.cal_size = cal_size
        self.n_bins = n_bins
        self.merge = merge
        self.random_state = random_state
        self.group_fallback = group_fallback
        self.n_jobs = n_jobs

    def _check_params(self, n_classes):
        if not (
            hasattr(self.estimator, "predict_proba") or hasattr(self.estimator, "decision_function")
        ):
            from venncal.classifiers._response import no_scores_message

            raise TypeError(no_scores_message(self.estimator, _OWNER))
        check_option(self.method, METHODS, name="method", owner=_OWNER)
        check_option(self.merge, MERGES, name="merge", owner=_OWNER)
        if not callable(self.taxonomy):
            check_option(self.taxonomy, TAXONOMIES, name="taxonomy", owner=_OWNER)
        check_positive_int(self.n_bins, name="n_bins", owner=_OWNER)
        if n_classes > 2 and self.taxonomy == "isotonic":
            raise ValueError(
                "Only binary classification is supported with taxonomy='isotonic' of "
                f"{_OWNER}: it is for two classes, got {n_classes}; use "
                "'label', 'bins' or MulticlassVennAbersClassifier."
            )
        if n_classes > 2 and self.merge == "square":
            raise ValueError(
                f"merge='square' of {_OWNER} is for two classes, got {n_classes}; "
                "use 'log' or 'mean'."
            )

    def fit(
        self,
        X: Any,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        calibration_groups: ArrayLike | None = None,
    ) -> Self:
        """Fit the underlying classifier and keep the calibration scores.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        y : array-like of shape (n,)
            Labels, two or more classes.
        sample_weight : array-like of shape (n,), default=None
            Non-negative weights of the training examples. They are passed to the estimator's
            ``fit`` when it takes ``sample_weight`` (else it is fitted unweighted, with a
            ``VenncalWarning``). They weight the calibration examples too, for every
            taxonomy: the label frequencies of a category are sums of weights, and the
            equal-mass bin edges of ``"bins"`` are weighted order statistics, so a weight of
            ``k`` counts as ``k`` copies of the example and a weight of zero leaves it out
            (the test object counts once). ``method="full"`` refuses weights.
        calibration_groups : array-like of shape (n,), default=None
            Group of each example (integers, strings or booleans): calibrate within groups
            (``method="inductive"`` or ``"oob"``; see Notes), and prediction then needs the
            groups of the test objects. The estimator is fitted on all groups together.

        Returns
        -------
        self
        """
        X, classes, y_enc = check_fit_data(X, y, _OWNER)
        check_features(X, self.estimator, owner=_OWNER)
        check_frozen_classes(self.estimator, classes, owner=_OWNER)
        K = classes.shape[0]
        self._check_params(K)
        n = y_enc.shape[0]
        weight = check_sample_weight(sample_weight, n)
        from venncal.classifiers._venn_groups import check_fit_groups, set_calibration_groups

        groups = check_fit_groups(self, calibration_groups, n)
        frozen = isinstance(self.estimator, FrozenEstimator)
        if self.method == "inductive" and not frozen:
            stratified = np.bincount(y_enc, minlength=K).min() >= 2  # as the split below
            test_size = check_cal_size(
                self.cal_size, n, owner=_OWNER, n_classes=K if stratified else 1
            )
        if self.method == "full":
            from venncal.classifiers._venn_full import check_full

            check_full(frozen, weight, owner=_OWNER)
        for attr in ("oob_", "cal_index_", "cal_weights_", "X_fit_", "updater_", "uses_update_"):
            # a refit forgets the last fit
            if hasattr(self, attr):
                delattr(self, attr)
        from venncal.classifiers._oob import seed_from

        self.seed_ = seed_from(self.random_state)
        if self.method == "full":
            self._fit_full(X, y_enc, K)
        elif self.method == "inductive":
            if frozen:
                train = cal = np.arange(n)
            else:
                counts = np.bincount(y_enc, minlength=K)
                stratify = y_enc if counts.min() >= 2 else None
                train, cal = train_test_split(
                    np.arange(n), test_size=test_size, random_state=self.seed_, stratify=stratify
                )
                if np.unique(y_enc[train]).shape[0] < K:
                    raise ValueError(
                        f"The proper training set of {_OWNER} misses a class; give more "
                        "examples of every class or a smaller cal_size."
                    )
            w_train = None if weight is None else weight[train]
            self.estimator_ = fit_weighted(
                clone(self.estimator), _safe_indexing(X, train), y_enc[train], w_train
            )
            self.cal_scores_ = model_scores(self.estimator_, _safe_indexing(X, cal), K)
            self.cal_labels_ = y_enc[cal]
            if weight is not None:
                self.cal_weights_ = weight[cal]
            set_calibration_groups(self, groups, cal)
        else:
            from venncal.classifiers._oob import check_bagged_ensemble, fit_oob_ensemble

            fit_params = None
            if weight is not None:
                check_bagged_ensemble(self.estimator, owner=_OWNER)
                if has_fit_parameter(self.estimator, "sample_weight"):
                    fit_params = {"sample_weight": weight}
                else:
                    warn_unweighted_fit(self.estimator, stacklevel=2)
            oob, probas, has = fit_oob_ensemble(self.estimator, X, y_enc, fit_params, owner=_OWNER)
            self.oob_ = oob
            self.estimator_ = oob.ensemble
            self.cal_index_ = np.flatnonzero(has)
            self.cal_scores_ = probas[has, 1] if K == 2 else probas[has]
            self.cal_labels_ = y_enc[has]
            if weight is not None:
                self.cal_weights_ = weight[has]
            set_calibration_groups(self, groups, self.cal_index_)
        self.classes_ = classes
        copy_fitted_attributes(self, self.estimator_)
        return self

    def _fit_full(self, X, y_enc, K):
        """Keep the training set; fit the estimator on it and prepare the update route."""
        from venncal.classifiers._venn_full import updater_for

        self.estimator_ = clone(self.estimator).fit(X, y_enc)
        self.X_fit_ = X.copy() if hasattr(X, "copy") else X  # later edits of X change nothing
        self.cal_scores_ = model_scores(self.estimator_, X, K)
        self.cal_labels_ = y_enc
        self.updater_ = updater_for(self.estimator, X, y_enc, K)
        self.uses_update_ = self.updater_ is not None
        self.cal_groups_ = self.groups_ = self.pooled_groups_ = None

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags = get_tags(self.estimator).input_tags
        # the isotonic taxonomy orders objects by one score: two classes only
        tags.classifier_tags.multi_class = self.taxonomy != "isotonic"
        return tags

    def _test_scores(self, X, members=None):
        """Test scores, and for ``"oob"`` the calibration example z_r left out for each object,
        drawn from the calibration examples ``members`` (all by default)."""
        check_features(X, self.estimator, owner=_OWNER)
        K = self.classes_.shape[0]
        if self.method == "inductive":
            return model_scores(self.estimator_, X, K), None
        X = indexable(X)[0]
        from venncal.classifiers._oob import draw_reference_examples

        valid = self.cal_index_ if members is None else self.cal_index_[members]
        r = draw_reference_examples(self.seed_, valid, X)
        probas = self.oob_.test_probas(X, r)
        exclude = np.searchsorted(self.cal_index_, r)
        return (probas[:, 1] if K == 2 else probas), exclude

    def _categories(self, scores):
        if callable(self.taxonomy):
            cats = np.asarray(self.taxonomy(scores))
            if cats.ndim != 1 or cats.shape[0] != scores.shape[0]:
                raise ValueError(
                    f"The taxonomy of {_OWNER} must return one category per object, got shape "
                    f"{cats.shape} for {scores.shape[0]} objects."
                )
            return cats
        # "label"
        if scores.ndim == 1:
            threshold = 0.5 if hasattr(self.estimator_, "predict_proba") else 0.0
            return (scores > threshold).astype(np.int64)
        return np.argmax(scores, axis=1)

    @fill_predict_doc
    def predict_multiprobability(
        self, X: Any, calibration_groups: ArrayLike | None = None
    ) -> FloatArray:
        """Return the multiprobability prediction: one distribution per hypothetical label.

        {venn_parameters}

        Returns
        -------
        ndarray of shape (m, n_classes, n_classes)
            ``P[i, k]`` is the probability distribution over the labels (columns in the order
            of ``classes_``) that the Venn predictor outputs for object ``i`` when it is given
            the hypothetical label ``classes_[k]``: the label frequencies of its category with
            it included (Vovk & Petej 2014, section 2). For two classes ``P[i, 0, 1]`` and
            ``P[i, 1, 1]`` are the paper's ``p0`` and ``p1``. The lower and upper
            probabilities of :meth:`predict_venn` are the minimum and maximum over ``k``.

        Examples
        --------
        >>> from sklearn.naive_bayes import GaussianNB
        >>> rng = np.random.default_rng(1)
        >>> X = rng.normal(size=(40, 2)); y = (X[:, 0] > 0).astype(int)
        >>> vp = VennClassifier(GaussianNB(), method="full").fit(X, y)
        >>> P = vp.predict_multiprobability(X[:2] + 0.1)
        >>> bool(np.allclose(P.min(axis=1), vp.predict_venn(X[:2] + 0.1).lower))
        True
        """
        check_is_fitted(self, "classes_")
        if self.method == "full" and calibration_groups is None:
            return self._full_multiprobability(X)
        pred = self.predict_venn(X, calibration_groups)
        K = self.classes_.shape[0]
        # test object labelled k: label k at its upper probability, the others at their lower
        eye = np.eye(K, dtype=bool)
        return np.where(eye[None, :, :], pred.upper[:, None, :], pred.lower[:, None, :])

    def _full_multiprobability(self, X):
        from venncal.classifiers._venn_full import full_venn_multiprobability

        check_features(X, self.estimator, owner=_OWNER)
        K = self.classes_.shape[0]
        return full_venn_multiprobability(
            self.estimator,
            self.X_fit_,
            self.cal_labels_,
            indexable(X)[0],
            n_classes=K,
            taxonomy=self.taxonomy,
            n_bins=self.n_bins,
            score_fn=lambda est, Z: model_scores(est, Z, K),
            threshold=0.5 if hasattr(self.estimator_, "predict_proba") else 0.0,
            updater=self.updater_,
            owner=_OWNER,
            n_jobs=self.n_jobs,
        )

    @fill_predict_doc
    def predict_venn(self, X: Any, calibration_groups: ArrayLike | None = None) -> VennPrediction:
        """Return the Venn prediction: lower and upper probabilities of every class.

        {venn_parameters}

        Returns
        -------
        VennPrediction
            ``lower`` and ``upper`` of shape (m, n_classes) (eqs. 3-4, columns in the order of
            ``classes_``), ``label`` the index of the eq. (5) prediction, ``category_size``.
            With ``method="full"`` they are the minimum and maximum over the hypothetical
            labels of :meth:`predict_multiprobability`, and ``category_size`` is -1 (the
            category changes with the hypothetical label).
        """
        check_is_fitted(self, "classes_")
        from venncal.classifiers._venn_groups import check_predict_groups, grouped_venn

        check_predict_groups(self, calibration_groups)
        if self.method == "full":
            P = self._full_multiprobability(X)
            lower, upper = P.min(axis=1), P.max(axis=1)
            m = lower.shape[0]
            return VennPrediction(lower, upper, np.argmax(lower, axis=1), np.full(m, -1))
        if calibration_groups is not None:
            return grouped_venn(self, X, calibration_groups)
        return self._venn(*self._test_scores(X))

    def _venn(self, scores, exclude, members=None):
        """Venn prediction of scored test objects from the calibration examples ``members``
        (indices into ``cal_scores_``, sorted; all by default)."""
        K = self.classes_.shape[0]
        cs, cl, w = self.cal_scores_, self.cal_labels_, getattr(self, "cal_weights_", None)
        if members is not None:
            cs, cl, w = cs[members], cl[members], None if w is None else w[members]
            if exclude is not None:  # z_r is one of the members
                exclude = np.searchsorted(members, exclude)
        if self.taxonomy == "isotonic":
            return isotonic_venn(cs, cl, w, scores, exclude)
        if self.taxonomy == "bins":
            if scores.ndim == 1:
                return equal_mass_venn_predict(
                    cs,
                    cl,
                    scores,
                    n_bins=self.n_bins,
                    n_classes=K,
                    exclude=exclude,
                    sample_weight=w,
                )
            return bins_by_label(cs, cl, scores, exclude, w, n_bins=self.n_bins, n_classes=K)
        return venn_predict(
            self._categories(cs),
            cl,
            self._categories(scores),
            n_classes=K,
            exclude=exclude,
            sample_weight=w,
        )

    @fill_predict_doc
    def predict_interval(self, X: Any, calibration_groups: ArrayLike | None = None) -> FloatArray:
        """Return ``[p0, p1]``: lower and upper probability of ``classes_[1]`` (two classes).

        {venn_parameters}

        Returns
        -------
        ndarray of shape (m, 2)
        """
        check_is_fitted(self, "classes_")
        if self.classes_.shape[0] != 2:
            raise ValueError(
                f"predict_interval of {_OWNER} is for two classes, got "
                f"{self.classes_.shape[0]}; use predict_venn for per-class bounds."
            )
        return self.predict_venn(X, calibration_groups).p0_p1

    @fill_predict_doc
    def predict_proba(self, X: Any, calibration_groups: ArrayLike | None = None) -> FloatArray:
        """Return one probability distribution per object, merged from the Venn bounds.

        {venn_parameters}

        Returns
        -------
        ndarray of shape (m, n_classes)
        """
        pred = self.predict_venn(X, calibration_groups)
        if self.merge == "log":
            p = pred.upper / pred.upper.sum(axis=1, keepdims=True)
        elif self.merge == "mean":
            mid = pred.lower + pred.upper
            p = mid / mid.sum(axis=1, keepdims=True)
        else:
            from venncal.core.merge import merge_square

            q = merge_square(pred.lower[:, 1], pred.upper[:, 1])
            p = np.column_stack([1.0 - q, q])
        return p

    @fill_predict_doc
    def predict_log_proba(self, X: Any, calibration_groups: ArrayLike | None = None) -> FloatArray:
        """Return the natural logarithm of :meth:`predict_proba` (-inf where it is zero).

        {venn_parameters}

        Returns
        -------
        ndarray of shape (m, n_classes)
        """
        if calibration_groups is None:  # predict_proba(X) as without groups
            return log_proba(self.predict_proba(X))
        return log_proba(self.predict_proba(X, calibration_groups))

    @fill_predict_doc
    def predict(self, X: Any, calibration_groups: ArrayLike | None = None) -> AnyArray:
        """Return the label of largest lower probability (eq. 5).

        {venn_parameters}

        Returns
        -------
        ndarray of shape (m,)
        """
        check_is_fitted(self, "classes_")
        return self.classes_[self.predict_venn(X, calibration_groups).label]
