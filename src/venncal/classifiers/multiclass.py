"""Venn-Abers predictors for more than two classes, wrapping a scikit-learn classifier.

The classifier's per-class scores on calibration examples are calibrated by the binary
Venn-Abers predictors of :mod:`venncal.calibration.multiclass` (one-vs-rest or pairwise with
coupling, per class or pair or pooled; see there for the choices and the default), on one
proper-training/calibration split (``"inductive"``), on the folds of cross Venn-Abers
(``"cross"``), or on the out-of-bag scores of a bagged ensemble (``"oob"``, Johansson et al.
2018).

References
----------
V. Vovk and I. Petej, "Venn-Abers predictors", UAI 2014.
V. Manokhin, "Multi-class probabilistic classification using inductive and cross Venn-Abers
predictors", COPA 2017.
T.-F. Wu, C.-J. Lin and R. C. Weng, "Probability estimates for multi-class classification by
pairwise coupling", JMLR 5, 2004.
U. Johansson, T. Löfström, H. Sundell, H. Linusson, A. Gidenstam and H. Boström, "Venn predictors
for well-calibrated probability estimation trees", COPA 2018.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from venncal._blas import single_blas_thread
from venncal._validation import (
    check_bool,
    check_option,
    check_positive_int,
    check_sample_weight,
)
from venncal.calibration.multiclass import (
    STRATEGIES,
    class_log_scores,
    combine,
    fit_tables,
    most_probable,
    resolve_score_type,
    resolve_strategy,
)
from venncal.classifiers._common import (
    check_cal_size,
    check_fit_data,
    check_frozen_classes,
    copy_fitted_attributes,
    fit_weighted,
    log_proba,
)
from venncal.classifiers._response import check_features, resolve_response_method
from venncal.core.coupling import COUPLINGS, couple_wu2
from venncal.core.merge import MERGES

if TYPE_CHECKING:
    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray
    from venncal.core.multiclass_venn_abers import (
        OneVsRestTables,
        PairwiseTables,
        PooledOneVsRestTables,
        PooledPairwiseTables,
    )

__all__ = ["MulticlassVennAbersClassifier", "couple_pairwise"]

_OWNER = "MulticlassVennAbersClassifier"
METHODS = ("inductive", "cross", "oob")


def couple_pairwise(R: ArrayLike) -> FloatArray:
    """Couple pairwise probabilities by Wu, Lin & Weng (2004), method 2 (deprecated).

    .. deprecated:: 0.2.0
        ``couple_pairwise`` is removed in venncal 0.3.0; use
        :func:`venncal.core.coupling.couple_wu2`, the same function.

    Parameters
    ----------
    R : ndarray of shape (m, K, K)
        ``R[:, i, j]`` estimates P(y = i | y in {i, j}); the diagonal is ignored.

    Returns
    -------
    P : ndarray of shape (m, K)
        Non-negative rows summing to one.

    Examples
    --------
    The replacement:

    >>> from venncal.core.coupling import couple_wu2
    >>> p = np.array([0.5, 0.3, 0.2])
    >>> R = p[:, None] / (p[:, None] + p[None, :])
    >>> couple_wu2(R[None]).round(6)
    array([[0.5, 0.3, 0.2]])
    """
    warnings.warn(
        "venncal.classifiers.multiclass.couple_pairwise is deprecated and will be removed in "
        "venncal 0.3.0; use venncal.core.coupling.couple_wu2, the same function.",
        FutureWarning,
        stacklevel=2,
    )
    return couple_wu2(R)


def _class_scores(estimator, X, method, K):
    out = np.asarray(getattr(estimator, method)(X), dtype=np.float64)
    if out.ndim == 1 and K == 2:
        out = np.column_stack([-out, out]) / 2.0
    if out.ndim != 2 or out.shape[1] != K:
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned shape {out.shape}; {_OWNER} needs one "
            f"score per class ({K} columns)."
        )
    if not np.isfinite(out).all():
        raise ValueError(f"{type(estimator).__name__}.{method} returned NaN or infinite scores.")
    return out


class MulticlassVennAbersClassifier(ClassifierMixin, BaseEstimator):
    """Venn-Abers calibration of a K-class classifier by one-vs-rest or pairwise coupling.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Cloned and trained on the proper training set(s). Wrap a fitted one in
        ``sklearn.frozen.FrozenEstimator`` to calibrate it without refitting
        (``method="inductive"``): then every row given to ``fit`` is a calibration example.
    strategy : {"auto", "ovr", "pairwise"}, default="auto"
        One-vs-rest with normalisation, or pairwise Venn-Abers with coupling;
        ``"auto"`` is pairwise up to 100 classes and one-vs-rest beyond (see
        :class:`venncal.calibration.MulticlassVennAbersCalibrator`).
    pooled : bool, default=True
        One binary Venn-Abers predictor shared by all classes or pairs, instead of one per
        class or pair. Only ``strategy="ovr", pooled=False`` gives per-class Venn-Abers
        intervals with the validity guarantee.
    coupling : {"wu2", "wu1", "price"}, default="wu2"
        Pairwise coupling rule (:mod:`venncal.core.coupling`).
    method : {"inductive", "cross", "oob"}, default="inductive"
        ``"inductive"``: one proper-training/calibration split (``cal_size``). ``"cross"``:
        ``n_splits`` stratified folds, each calibrating the model trained on the others;
        probabilities merge the fold pairs by the cross Venn-Abers merges
        (:func:`venncal.core.merge.merge_cross`; geometric means for ``"log"``) and intervals
        are the envelope ``[min_f p0_f, max_f p1_f]`` of the fold intervals. ``"oob"``:
        out-of-bag calibration of a bagged ensemble (``RandomForestClassifier``,
        ``ExtraTreesClassifier`` or ``BaggingClassifier`` with ``bootstrap=True``): every
        training example calibrates, with the mean ``predict_proba`` of the members that did
        not see it; a test object is scored by the out-of-bag sub-ensemble of a calibration
        example z_r drawn by a hash of its features, and z_r is left out of its calibration set
        (Johansson et al. 2018, eqs. 10-11, as ``VennAbersClassifier(method="oob")``).
    cal_size : float in (0, 1) or int >= 1, default=0.2
        Calibration part held out of the data (``method="inductive"``): a float is a share of
        the examples, an int a number of examples (as ``test_size`` of ``train_test_split``).
        Ignored with a ``FrozenEstimator``.
    n_splits : int, default=5
        Number of folds (``method="cross"``).
    merge : {"log", "square", "mean"}, default="mean"
        Merge of each binary (p0, p1) into one probability (Vovk & Petej 2014, eqs. 10-11;
        ``"mean"`` is (p0 + p1) / 2), before coupling or normalisation; the default is
        :class:`~venncal.calibration.MulticlassVennAbersCalibrator`'s, chosen by measurement.
    response_method : {"auto", "decision_function", "predict_proba"}, default="auto"
        Per-class scores: ``decision_function`` (one column per class, taken as logits) if
        the estimator has it, else ``predict_proba``. ``method="oob"`` always uses the
        sub-ensembles' ``predict_proba``.
    random_state : int, RandomState or None, default=None
        Seeds the split(s) and, for ``"oob"``, the draws of z_r.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    estimators_ : list of fitted estimators (one, or one per fold)
    strategy_ : {"ovr", "pairwise"}
        The resolved ``strategy``.

    Notes
    -----
    **Positive class.** There is no ``pos_label``: every class is calibrated, column ``k`` of
    ``predict_proba`` and ``predict_interval`` is ``classes_[k]`` (the sorted labels of
    ``y``), and the estimator, fitted on the same labels, gives one score per class in that
    order. A ``FrozenEstimator`` must have been fitted on the labels of ``y`` (its
    ``classes_`` are checked).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(900, 2)); y = np.digitize(X[:, 0] + rng.normal(size=900), [-1, 1])
    >>> clf = MulticlassVennAbersClassifier(LogisticRegression(), random_state=0)
    >>> clf = clf.fit(X[:600], y[:600])
    >>> proba = clf.predict_proba(X[600:])
    >>> bool(np.allclose(proba.sum(axis=1), 1.0))
    True

    With ``strategy="ovr", pooled=False`` each interval is a Venn-Abers interval for "y = k":
    averaged over test objects, it contains the frequency of class k (up to sampling error).

    >>> clf = MulticlassVennAbersClassifier(
    ...     LogisticRegression(), strategy="ovr", pooled=False, random_state=0
    ... ).fit(X[:600], y[:600])
    >>> iv = clf.predict_interval(X[600:]).mean(axis=0)
    >>> freq = np.bincount(y[600:], minlength=3) / 300
    >>> bool(((iv[:, 0] - 0.06 <= freq) & (freq <= iv[:, 1] + 0.06)).all())
    True
    """

    estimators_: list[Any]
    calibrations_: list[
        OneVsRestTables | PairwiseTables | PooledOneVsRestTables | PooledPairwiseTables
    ]

    def __init__(
        self,
        estimator: Any,
        *,
        strategy: str = "auto",
        pooled: bool = True,
        coupling: str = "wu2",
        method: str = "inductive",
        cal_size: float = 0.2,
        n_splits: int = 5,
        merge: str = "mean",
        response_method: str = "auto",
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.estimator = estimator
        self.strategy = strategy
        self.pooled = pooled
        self.coupling = coupling
        self.method = method
        self.cal_size = cal_size
        self.n_splits = n_splits
        self.merge = merge
        self.response_method = response_method
        self.random_state = random_state

    def _check_params(self):
        check_option(self.strategy, STRATEGIES, name="strategy", owner=_OWNER)
        check_option(self.method, METHODS, name="method", owner=_OWNER)
        check_option(self.merge, MERGES, name="merge", owner=_OWNER)
        check_option(self.coupling, COUPLINGS, name="coupling", owner=_OWNER)
        check_bool(self.pooled, name="pooled", owner=_OWNER)

    def fit(self, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the classifier(s) and the binary Venn-Abers predictors.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        y : array-like of shape (n,)
            Two or more classes.
        sample_weight : array-like of shape (n,), default=None
            Non-negative weights of the training examples. They are passed to the estimator's
            ``fit`` when it takes ``sample_weight`` (else it is fitted unweighted, with a
            ``VenncalWarning``) and weight the calibration examples of every binary
            Venn-Abers predictor (a weight of 2 counts as a duplicated example).

        Returns
        -------
        self
        """
        self._check_params()
        frozen = isinstance(self.estimator, FrozenEstimator)
        if frozen and self.method != "inductive":
            raise ValueError(
                f"{_OWNER} with method={self.method!r} refits the estimator; a FrozenEstimator "
                "cannot be refitted. Use method='inductive'."
            )
        X, classes, y_enc = check_fit_data(X, y, _OWNER)
        check_features(X, self.estimator, owner=_OWNER)
        check_frozen_classes(self.estimator, classes, owner=_OWNER)
        n = y_enc.shape[0]
        K = classes.shape[0]
        weight = check_sample_weight(sample_weight, n)
        for attr in ("_oob", "estimators_", "calibrations_"):
            if hasattr(self, attr):
                delattr(self, attr)
        self.strategy_ = resolve_strategy(self.strategy, K)
        self.classes_ = classes
        if self.method == "oob":
            self._fit_oob(X, y_enc, weight, K)
            return self
        response = resolve_response_method(self.estimator, self.response_method, owner=_OWNER)
        splits = self._splits(n, y_enc, K, frozen)
        self.estimators_, self.calibrations_ = [], []
        for train, cal in splits:
            if np.unique(y_enc[train]).shape[0] < K or np.unique(y_enc[cal]).shape[0] < K:
                raise ValueError(
                    f"A split of {_OWNER} misses a class; give more examples of every class."
                )
            if frozen:
                est = self.estimator
            else:
                w_train = None if weight is None else weight[train]
                est = fit_weighted(clone(self.estimator), _rows(X, train), y_enc[train], w_train)
            S = _class_scores(est, _rows(X, cal), response, K)
            if not self.calibrations_:
                self.score_type_ = resolve_score_type(S, "auto", owner=_OWNER)
            w_cal = None if weight is None else weight[cal]
            self.estimators_.append(est)
            self.calibrations_.append(
                fit_tables(
                    self._scores(S),
                    y_enc[cal],
                    w_cal,
                    K,
                    self.strategy_,
                    self.pooled,
                    owner=_OWNER,
                )
            )
        self.response_method_ = response
        copy_fitted_attributes(self, self.estimators_[0])
        return self

    def _splits(self, n, y_enc, K, frozen):
        counts = np.bincount(y_enc, minlength=K)
        if self.method == "inductive" and frozen:
            return [(np.arange(n), np.arange(n))]
        if self.method == "inductive":
            test_size = check_cal_size(self.cal_size, n, owner=_OWNER, n_classes=K)
            if counts.min() < 2:
                raise ValueError(
                    f"{_OWNER} needs at least two examples of every class, got counts "
                    f"{counts.tolist()}."
                )
            return [
                train_test_split(
                    np.arange(n),
                    test_size=test_size,
                    random_state=self.random_state,
                    stratify=y_enc,
                )
            ]
        k = check_positive_int(self.n_splits, name="n_splits", owner=_OWNER, minimum=2)
        if counts.min() < k:
            raise ValueError(
                f"method='cross' with n_splits={k} needs at least {k} examples of each "
                f"class, got {counts.tolist()}; lower n_splits."
            )
        folds = StratifiedKFold(k, shuffle=True, random_state=self.random_state)
        return list(folds.split(np.zeros(n), y_enc))

    def _scores(self, S):
        if self.strategy_ == "ovr" and self.score_type_ in ("probabilities", "raw"):
            # Venn-Abers uses only the order of the scores: probabilities are ranked as given,
            # since their logarithm would merge scores one ulp apart (a different answer)
            return S
        # pairwise differences of logits are those of their log-softmax: skip its rounding
        if self.strategy_ == "pairwise" and self.score_type_ == "logits":
            return S
        return class_log_scores(S, self.score_type_)

    def _fit_oob(self, X, y_enc, weight, K):
        from venncal.classifiers._oob import fit_oob_ensemble, seed_from

        if self.response_method not in ("auto", "predict_proba"):
            raise ValueError(
                f"The 'response_method' parameter of {_OWNER} must be 'auto' or "
                f"'predict_proba' with method='oob'. Got {self.response_method!r} instead."
            )
        fit_params = {} if weight is None else {"sample_weight": weight}
        oob, probas, has = fit_oob_ensemble(self.estimator, X, y_enc, fit_params, owner=_OWNER)
        self.score_type_ = "probabilities"
        self._oob = oob
        self.oob_index_ = np.flatnonzero(has)
        self.oob_scores_ = self._scores(probas[has])
        self.oob_y_ = y_enc[has]
        self.oob_weight_ = None if weight is None else weight[has]
        # the full calibration set must hold every class (checked once, here)
        fit_tables(
            self.oob_scores_,
            self.oob_y_,
            self.oob_weight_,
            K,
            self.strategy_,
            self.pooled,
            owner=_OWNER,
        )
        self.oob_seed_ = seed_from(self.random_state)
        self.response_method_ = "predict_proba"
        copy_fitted_attributes(self, oob.ensemble)

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags = get_tags(self.estimator).input_tags
        return tags

    def _predict(self, X):
        """Probabilities (m, K) and intervals (m, K, 2)."""
        check_is_fitted(self, "classes_")
        check_features(X, self.estimator, owner=_OWNER)
        if hasattr(self, "_oob"):
            return self._predict_oob(X)
        return combine(
            self._fold_pairs(X), self.calibrations_[0], self.strategy_, self.merge, self.coupling
        )

    def _fold_pairs(self, X):
        """Per-fold (p0, p1), each of shape (F, m, K) or (F, m, K(K - 1)/2)."""
        K = self.classes_.shape[0]
        p0s, p1s = [], []
        for est, tables in zip(self.estimators_, self.calibrations_):
            S = _class_scores(est, X, self.response_method_, K)
            a, b = tables.pairs(self._scores(S))
            p0s.append(a)
            p1s.append(b)
        return np.array(p0s), np.array(p1s)

    def _predict_oob(self, X):
        from venncal.classifiers._oob import check_test_rows, draw_reference_examples

        K = self.classes_.shape[0]
        m = check_test_rows(X, owner=_OWNER)
        proba, interval = np.empty((m, K)), np.empty((m, K, 2))
        if m == 0:
            return proba, interval
        r = draw_reference_examples(self.oob_seed_, self.oob_index_, X)
        t = self._scores(self._oob.test_probas(X, r))
        pos = np.searchsorted(self.oob_index_, r)  # z_r among the calibration examples
        # one BLAS limit for all the left-out examples' couplings: setting it per example
        # (threadpoolctl finds the process's libraries each time) took most of the time
        with single_blas_thread():
            self._predict_left_out(t, pos, proba, interval)
        return proba, interval

    def _predict_left_out(
        self, t: FloatArray, pos: IntArray, proba: FloatArray, interval: FloatArray
    ) -> None:
        """Fill ``proba`` and ``interval`` at the rows of each left-out example ``pos``."""
        K = self.classes_.shape[0]
        for p in np.unique(pos):
            rows = np.flatnonzero(pos == p)
            keep = np.ones(self.oob_y_.shape[0], dtype=bool)
            keep[p] = False
            w = None if self.oob_weight_ is None else self.oob_weight_[keep]
            tables = fit_tables(
                self.oob_scores_[keep],
                self.oob_y_[keep],
                w,
                K,
                self.strategy_,
                self.pooled,
                owner=_OWNER,
            )
            a, b = tables.pairs(t[rows])
            proba[rows], interval[rows] = combine(
                (a[None], b[None]), tables, self.strategy_, self.merge, self.coupling
            )

    def predict_interval(self, X: Any) -> FloatArray:
        """Per-class probability intervals.

        Returns
        -------
        ndarray of shape (m, K, 2)
            ``[:, k, 0] <= [:, k, 1]``: for ``"ovr"`` the Venn-Abers interval of the event
            y = classes_[k] (for ``"cross"`` the envelope of the folds' intervals); for
            ``"pairwise"`` the span of the couplings of the lower and of the upper pairwise
            probabilities.
        """
        return self._predict(X)[1]

    def predict_proba(self, X: Any) -> FloatArray:
        """Class probabilities, rows summing to one.

        Returns
        -------
        ndarray of shape (m, K)
        """
        return self._predict(X)[0]

    def predict_log_proba(self, X: Any) -> FloatArray:
        """Natural logarithm of :meth:`predict_proba` (-inf where it is zero).

        Returns
        -------
        ndarray of shape (m, K)
        """
        return log_proba(self.predict_proba(X))

    def predict(self, X: Any) -> AnyArray:
        """The class of largest probability."""
        return most_probable(self.predict_proba(X), self.classes_)


def _rows(X, idx):
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    if hasattr(X, "tocsr"):
        return X.tocsr()[idx]
    return np.asarray(X)[idx] if not isinstance(X, np.ndarray) else X[idx]
