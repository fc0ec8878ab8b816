"""Venn-Abers predictors for more than two classes.

Venn-Abers predictors are binary; for K classes the problem is split into binary ones, each
calibrated by an exact inductive (or cross) Venn-Abers predictor, and the answers are combined:

* ``"ovr"`` (one-vs-rest): class k against the rest, with the classifier's score for class k.
  Each per-class interval [p0_k, p1_k] is a Venn-Abers interval for the event y = k and keeps
  its validity; the merged per-class probabilities are normalised to sum to one.
* ``"pairwise"``: for each pair i < j, class i against class j on the calibration examples of
  those two classes, with the score difference s_i - s_j. The merged pairwise probabilities
  r_ij are coupled into one distribution by the second method of Wu, Lin & Weng (2004), which
  minimises sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2 subject to sum_i p_i = 1. The per-class
  interval is spanned by the couplings of the lower (p0) and of the upper (p1) pairwise
  probabilities; it is a summary, without the validity guarantee of the binary intervals.

Neither reduction is in the seed papers; they follow common practice (Zadrozny & Elkan 2002 for
one-vs-rest normalisation, Manokhin 2017 for Venn-Abers with pairwise coupling).

References
----------
V. Vovk and I. Petej, "Venn-Abers predictors", UAI 2014.
B. Zadrozny and C. Elkan, "Transforming classifier scores into accurate multiclass probability
estimates", KDD 2002.
T.-F. Wu, C.-J. Lin and R. C. Weng, "Probability estimates for multi-class classification by
pairwise coupling", JMLR 5, 2004, section 4 (method 2).
V. Manokhin, "Multi-class probabilistic classification using inductive and cross Venn-Abers
predictors", COPA 2017.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from venncal._validation import check_option, check_positive_int, check_sample_weight
from venncal.classifiers._response import check_features, resolve_response_method
from venncal.classifiers.venn import (
    check_cal_size,
    check_fit_data,
    copy_fitted_attributes,
    fit_weighted,
    log_proba,
)
from venncal.core.merge import cross_interval, merge_cross
from venncal.core.venn_abers import ivap_fit

__all__ = ["MulticlassVennAbersClassifier", "couple_pairwise"]

_OWNER = "MulticlassVennAbersClassifier"
STRATEGIES = ("ovr", "pairwise")
METHODS = ("inductive", "cross")
MERGES = ("log", "square", "mean")


def couple_pairwise(R):
    """Couple pairwise probabilities into one distribution (Wu, Lin & Weng 2004, method 2).

    Parameters
    ----------
    R : ndarray of shape (m, K, K)
        ``R[:, i, j]`` estimates P(y = i | y in {i, j}); ``R[:, j, i] = 1 - R[:, i, j]``. The
        diagonal is ignored.

    Returns
    -------
    P : ndarray of shape (m, K)
        Non-negative rows summing to one.

    Examples
    --------
    Consistent pairwise probabilities give back the distribution they came from:

    >>> p = np.array([0.5, 0.3, 0.2])
    >>> R = p[:, None] / (p[:, None] + p[None, :])
    >>> couple_pairwise(R[None]).round(6)
    array([[0.5, 0.3, 0.2]])
    """
    R = np.asarray(R, dtype=np.float64)
    m, K, _ = R.shape
    off = ~np.eye(K, dtype=bool)
    Rt = np.swapaxes(R, 1, 2)  # Rt[:, i, j] = R[:, j, i]
    Q = -(Rt * R) * off  # Q_ij = -r_ji r_ij for i != j
    diag = ((Rt**2) * off).sum(axis=2)  # Q_ii = sum_{j != i} r_ji^2
    Q[:, np.arange(K), np.arange(K)] = diag
    A = np.zeros((m, K + 1, K + 1))
    A[:, :K, :K] = Q
    A[:, :K, K] = 1.0
    A[:, K, :K] = 1.0
    b = np.zeros((m, K + 1))
    b[:, K] = 1.0
    P = np.linalg.solve(A, b[..., None])[..., 0][:, :K]
    P = np.clip(P, 0.0, None)
    return P / P.sum(axis=1, keepdims=True)


def _class_scores(estimator, X, method, K):
    out = np.asarray(getattr(estimator, method)(X), dtype=np.float64)
    if out.ndim == 1 and K == 2:
        out = np.column_stack([-out, out])
    if out.ndim != 2 or out.shape[1] != K:
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned shape {out.shape}; {_OWNER} needs one "
            f"score per class ({K} columns)."
        )
    if not np.isfinite(out).all():
        raise ValueError(f"{type(estimator).__name__}.{method} returned NaN or infinite scores.")
    return out


def _resolve(estimator, response_method):
    return resolve_response_method(estimator, response_method, owner=_OWNER)


class _Calibration:
    """The binary Venn-Abers predictors of one proper-training/calibration split."""

    def __init__(self, strategy, K):
        self.strategy = strategy
        self.K = K

    def fit(self, S, y, w=None):
        K = self.K
        if w is not None:
            total = np.bincount(y, weights=w, minlength=K)
            if (total <= 0).any():
                raise ValueError(
                    f"'sample_weight' of {_OWNER} is zero on every calibration example of class "
                    f"index {int(np.argmin(total))}; give it positive weight."
                )
        if self.strategy == "ovr":
            self.tables = [
                ivap_fit(S[:, k], (y == k).astype(np.int8), sample_weight=w) for k in range(K)
            ]
        else:
            self.tables = {}
            for i in range(K):
                for j in range(i + 1, K):
                    sel = (y == i) | (y == j)
                    if not ((y[sel] == i).any() and (y[sel] == j).any()):
                        raise ValueError(
                            f"The calibration set of {_OWNER} lacks class index {i} or {j}; "
                            "give more examples of every class or a larger cal_size."
                        )
                    self.tables[i, j] = ivap_fit(
                        S[sel, i] - S[sel, j],
                        (y[sel] == i).astype(np.int8),
                        sample_weight=None if w is None else w[sel],
                    )
        return self

    def pairs(self, S):
        """(p0, p1) of shape (m, K) for ovr, (m, K, K) for pairwise (i < j filled)."""
        m, K = S.shape[0], self.K
        if self.strategy == "ovr":
            p0 = np.empty((m, K))
            p1 = np.empty((m, K))
            for k, tab in enumerate(self.tables):
                p0[:, k], p1[:, k] = tab.predict_unchecked(np.ascontiguousarray(S[:, k]))
            return p0, p1
        p0 = np.full((m, K, K), np.nan)
        p1 = np.full((m, K, K), np.nan)
        for (i, j), tab in self.tables.items():
            p0[:, i, j], p1[:, i, j] = tab.predict_unchecked(
                np.ascontiguousarray(S[:, i] - S[:, j])
            )
        return p0, p1


class MulticlassVennAbersClassifier(ClassifierMixin, BaseEstimator):
    """Venn-Abers calibration of a K-class classifier by one-vs-rest or pairwise coupling.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Cloned and trained on the proper training set(s).
    strategy : {"ovr", "pairwise"}, default="ovr"
        One-vs-rest with normalisation, or pairwise Venn-Abers with coupling.
    method : {"inductive", "cross"}, default="inductive"
        ``"inductive"``: one proper-training/calibration split (``cal_size``). ``"cross"``:
        ``n_splits`` stratified folds, each calibrating the model trained on the others;
        probabilities merge the fold pairs by the cross Venn-Abers merges
        (:func:`venncal.core.merge.merge_cross`; geometric means for ``"log"``) and intervals
        are the envelope ``[min_f p0_f, max_f p1_f]`` of the fold intervals
        (:func:`venncal.core.merge.cross_interval`), which is ordered and contains the merge.
    cal_size : float in (0, 1) or int >= 1, default=0.2
        Calibration part held out of the data (``method="inductive"``): a float is a share of
        the examples, an int a number of examples (as ``test_size`` of ``train_test_split``).
        With a ``sklearn.frozen.FrozenEstimator`` nothing is held out: the estimator is not
        refitted and every training example calibrates it.
    n_splits : int, default=5
        Number of folds (``method="cross"``).
    merge : {"log", "square", "mean"}, default="log"
        Merge of each binary (p0, p1) into one probability (Vovk & Petej 2014, eqs. 10-11).
    response_method : {"auto", "decision_function", "predict_proba"}, default="auto"
        Per-class scores: ``decision_function`` (one column per class) if the estimator has it,
        else ``predict_proba``.
    random_state : int, RandomState or None, default=None
        Seeds the split(s).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    estimators_ : list of fitted estimators (one, or one per fold)

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

    Each one-vs-rest interval is a Venn-Abers interval for "y = k": averaged over test objects,
    it contains the frequency of class k (up to sampling error).

    >>> iv = clf.predict_interval(X[600:]).mean(axis=0)
    >>> freq = np.bincount(y[600:], minlength=3) / 300
    >>> bool(((iv[:, 0] - 0.06 <= freq) & (freq <= iv[:, 1] + 0.06)).all())
    True
    """

    def __init__(
        self,
        estimator,
        *,
        strategy="ovr",
        method="inductive",
        cal_size=0.2,
        n_splits=5,
        merge="log",
        response_method="auto",
        random_state=None,
    ):
        self.estimator = estimator
        self.strategy = strategy
        self.method = method
        self.cal_size = cal_size
        self.n_splits = n_splits
        self.merge = merge
        self.response_method = response_method
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
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
        check_option(self.strategy, STRATEGIES, name="strategy", owner=_OWNER)
        check_option(self.method, METHODS, name="method", owner=_OWNER)
        check_option(self.merge, MERGES, name="merge", owner=_OWNER)
        response = _resolve(self.estimator, self.response_method)
        X, classes, y_enc = check_fit_data(X, y, _OWNER)
        check_features(X, self.estimator, owner=_OWNER)
        n = y_enc.shape[0]
        K = classes.shape[0]
        weight = check_sample_weight(sample_weight, n)
        counts = np.bincount(y_enc, minlength=K)
        frozen = isinstance(self.estimator, FrozenEstimator)
        if frozen and self.method != "inductive":
            raise ValueError(
                f"{_OWNER} with method={self.method!r} refits the estimator; a FrozenEstimator "
                "cannot be refitted. Use method='inductive'."
            )
        if self.method == "inductive" and frozen:
            splits = [(np.arange(n), np.arange(n))]
        elif self.method == "inductive":
            test_size = check_cal_size(self.cal_size, n, owner=_OWNER)
            if counts.min() < 2:
                raise ValueError(
                    f"{_OWNER} needs at least two examples of every class, got counts "
                    f"{counts.tolist()}."
                )
            splits = [
                train_test_split(
                    np.arange(n),
                    test_size=test_size,
                    random_state=self.random_state,
                    stratify=y_enc,
                )
            ]
        else:
            k = check_positive_int(self.n_splits, name="n_splits", owner=_OWNER, minimum=2)
            if counts.min() < k:
                raise ValueError(
                    f"method='cross' with n_splits={k} needs at least {k} examples of each "
                    f"class, got {counts.tolist()}; lower n_splits."
                )
            folds = StratifiedKFold(k, shuffle=True, random_state=self.random_state)
            splits = list(folds.split(np.zeros(n), y_enc))
        self.estimators_, self.calibrations_ = [], []
        for train, cal in splits:
            if np.unique(y_enc[train]).shape[0] < K or np.unique(y_enc[cal]).shape[0] < K:
                raise ValueError(
                    f"A split of {_OWNER} misses a class; give more examples of every class."
                )
            w_train = None if weight is None else weight[train]
            est = fit_weighted(clone(self.estimator), _rows(X, train), y_enc[train], w_train)
            S = _class_scores(est, _rows(X, cal), response, K)
            self.estimators_.append(est)
            w_cal = None if weight is None else weight[cal]
            self.calibrations_.append(_Calibration(self.strategy, K).fit(S, y_enc[cal], w_cal))
        self.response_method_ = response
        self.classes_ = classes
        copy_fitted_attributes(self, self.estimators_[0])
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags = get_tags(self.estimator).input_tags
        return tags

    def _fold_pairs(self, X):
        """Per-fold pairs (p0, p1), each of shape (F, m, K) or (F, m, K, K)."""
        check_features(
            X, self.estimator, owner=_OWNER, n_features=getattr(self, "n_features_in_", None)
        )
        K = self.classes_.shape[0]
        p0s, p1s = [], []
        for est, cal in zip(self.estimators_, self.calibrations_):
            S = _class_scores(est, X, self.response_method_, K)
            a, b = cal.pairs(S)
            p0s.append(a)
            p1s.append(b)
        return np.array(p0s), np.array(p1s)

    def predict_interval(self, X):
        """Per-class probability intervals.

        Returns
        -------
        ndarray of shape (m, K, 2)
            ``[:, k, 0] <= [:, k, 1]``: for ``"ovr"`` the Venn-Abers interval of the event
            y = classes_[k]; for ``"pairwise"`` the span of the couplings of the lower and of the
            upper pairwise probabilities.
        """
        check_is_fitted(self, "classes_")
        p0, p1 = cross_interval(*self._fold_pairs(X))  # one fold: its own pair
        if self.strategy == "ovr":
            return np.stack([p0, p1], axis=2)
        a = couple_pairwise(self._pair_matrix(p0))
        b = couple_pairwise(self._pair_matrix(p1))
        return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=2)

    def _pair_matrix(self, r):
        K = self.classes_.shape[0]
        R = np.full_like(r, 0.5)
        iu = np.triu_indices(K, 1)
        R[:, iu[0], iu[1]] = r[:, iu[0], iu[1]]
        R[:, iu[1], iu[0]] = 1.0 - r[:, iu[0], iu[1]]
        return R

    def predict_proba(self, X):
        """Class probabilities, rows summing to one.

        Returns
        -------
        ndarray of shape (m, K)
        """
        check_is_fitted(self, "classes_")
        p0, p1 = self._fold_pairs(X)  # merge_cross over one fold is the pairwise merge
        if self.strategy == "ovr":
            p = merge_cross(p0, p1, self.merge)
            return p / p.sum(axis=1, keepdims=True)
        K = self.classes_.shape[0]
        iu = np.triu_indices(K, 1)
        r = np.full_like(p0[0], 0.5)
        r[:, iu[0], iu[1]] = merge_cross(p0[:, :, iu[0], iu[1]], p1[:, :, iu[0], iu[1]], self.merge)
        return couple_pairwise(self._pair_matrix(r))

    def predict_log_proba(self, X):
        """Natural logarithm of :meth:`predict_proba` (-inf where it is zero).

        Returns
        -------
        ndarray of shape (m, K)
        """
        return log_proba(self.predict_proba(X))

    def predict(self, X):
        """The class of largest probability."""
        check_is_fitted(self, "classes_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _rows(X, idx):
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    if hasattr(X, "tocsr"):
        return X.tocsr()[idx]
    return np.asarray(X)[idx] if not isinstance(X, np.ndarray) else X[idx]
