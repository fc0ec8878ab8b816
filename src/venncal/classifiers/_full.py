"""Full (transductive) Venn-Abers predictors: Algorithm 1 of Vovk & Petej (2014).

For each test object x and each hypothetical label y in {0, 1}: train the scorer on the training
set plus (x, y), score the l + 1 objects with that scorer, fit the isotonic calibrator to the
l + 1 (score, label) pairs (tied scores pooled), and read its value at x. That value is p_y.

Two routes compute exactly this:

* the generic path clones and refits the estimator 2m times, in parallel over test objects
  through joblib (any backend, Dask included, via ``joblib.parallel_config``);
* the fast paths of :mod:`venncal.classifiers._updatable` add (x, y) to the base fit by an
  update instead of a refit; rescoring and the isotonic fit are then the O(l) steps. They
  give what refitting gives, except where two scores are so close that rounding (or the
  refit's own stopping tolerance) orders them differently: a near-tie, documented in that
  module. Objects that repeat one another (a test object repeating a training object
  included) are given one score, that of their first occurrence, as a refit scores them.

Which learners suit full Venn-Abers: stable ones, whose score for an object changes smoothly
when one training example is added (naive Bayes, linear models, LDA/QDA, k-NN with k > 1).
A learner that memorises its training set (an unpruned tree, a forest of them, 1-NN) scores
the test object labelled 0 below every positive and labelled 1 above every negative, so the
interval is [0, 1] and p = 1/2: :class:`FullVennAbers` warns when most of its intervals are
that wide (:data:`VACUOUS_WIDTH`, :data:`VACUOUS_SHARE`, :data:`VACUOUS_MIN_COUNT`).

Prediction keeps no scratch state, so one fitted predictor can serve several threads.

This module is used by ``VennAbersClassifier(method="full")``.
"""

from __future__ import annotations

import warnings
import zlib
from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone

from venncal.classifiers._response import positive_scores, resolve_response_method
from venncal.classifiers._updatable import get_updatable_scorer
from venncal.core._jit import jit
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from typing_extensions import Self

    from venncal._typing import AnyArray, FloatArray

__all__ = [
    "FullVennAbers",
    "isotonic_value_at_last",
    "VACUOUS_WIDTH",
    "VACUOUS_SHARE",
    "VACUOUS_MIN_COUNT",
]

#: An interval [p0, p1] at least this wide counts as vacuous (it says little more than [0, 1]).
VACUOUS_WIDTH = 0.9
#: ``predict_interval`` warns when more than this share of its intervals are vacuous.
VACUOUS_SHARE = 0.5
#: ... and at least this many (one wide interval alone may be an outlier, not the learner).
VACUOUS_MIN_COUNT = 5


@jit
def _pava_value_at(sorted_s, sorted_y, t, y_t):
    """Isotonic fit of the sorted pairs plus (t, y_t), ties pooled; return its value at t."""
    n = sorted_s.shape[0]
    mean = np.empty(n + 1)
    weight = np.empty(n + 1)
    b = -1
    target = -1  # block index holding t
    i = 0
    placed = False
    while i < n or not placed:
        # next distinct value: t is inserted before the first calibration score >= t
        if not placed and (i == n or sorted_s[i] >= t):
            v = t
            tot = y_t
            w = 1.0
            placed = True
            is_test = True
        else:
            v = sorted_s[i]
            tot = 0.0
            w = 0.0
            is_test = False
        while i < n and sorted_s[i] == v:
            tot += sorted_y[i]
            w += 1.0
            i += 1
        b += 1
        mean[b] = tot / w
        weight[b] = w
        if is_test:
            target = b
        while b > 0 and mean[b - 1] >= mean[b]:
            tw = weight[b - 1] + weight[b]
            mean[b - 1] = (weight[b - 1] * mean[b - 1] + weight[b] * mean[b]) / tw
            weight[b - 1] = tw
            if target >= b:
                target = b - 1
            b -= 1
    return mean[target]


@jit
def _insertion_sort_pairs(s, y, budget):
    """Sort ``s`` in place (carrying ``y``) by insertion; False if more than ``budget`` moves.

    Stable, and O(n + moves): fast for the almost sorted scores of a model that absorbed one
    more example.
    """
    moves = 0
    for i in range(1, s.shape[0]):
        v = s[i]
        lab = y[i]
        j = i - 1
        while j >= 0 and s[j] > v:
            s[j + 1] = s[j]
            y[j + 1] = y[j]
            j -= 1
            moves += 1
        s[j + 1] = v
        y[j + 1] = lab
        if moves > budget:
            return False
    return True


def isotonic_value_at_last(scores: FloatArray, labels: AnyArray) -> float:
    """Value at the last score of the isotonic fit to all pairs (ties pooled).

    Parameters
    ----------
    scores : ndarray of shape (l + 1,)
        Scores; the last one is the test object's.
    labels : ndarray of shape (l + 1,)
        Labels 0/1; the last one is the hypothetical label.

    Returns
    -------
    float

    Examples
    --------
    >>> isotonic_value_at_last(np.array([0.1, 0.3, 0.2]), np.array([0, 0, 1]))
    0.5
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if not np.isfinite(s).all():
        raise ValueError(
            "scores hold NaN or infinite values; isotonic regression needs finite ones."
        )
    order = np.argsort(s[:-1], kind="stable")
    return float(_pava_value_at(s[:-1][order], y[:-1][order], s[-1], y[-1]))


def check_joinable(X, X_test, owner="VennAbersClassifier"):
    """Raise one line unless test objects have the training objects' shape (a test object
    joins the training set)."""
    try:
        train, test = _shape(X)[1:], _shape(X_test)[1:]
    except (TypeError, ValueError):  # ragged objects: the estimator judges them
        return
    if train == test:
        return
    if len(test) < len(train):
        raise ValueError(
            f"X of {owner} has shape {_shape(X_test)}, but each test object joins the "
            f"training objects, of shape {train}. Reshape your data, e.g. with "
            "X.reshape(1, -1) for a single object."
        )
    have = test[0] if len(test) == 1 else test
    want = train[0] if len(train) == 1 else train
    raise ValueError(
        f"X has {have} features, but {owner} is expecting {want} features as input: with "
        "method='full' each test object joins the training objects, so it needs their shape."
    )


def _shape(X):
    shape = getattr(X, "shape", None)
    return tuple(shape) if shape is not None else np.asarray(X).shape


def _append_row(X, X_test, i):
    """The training objects followed by test object i, in the training set's container type
    (see :func:`check_joinable`)."""
    if hasattr(X, "iloc"):
        import pandas as pd

        row = (
            X_test.iloc[[i]]
            if hasattr(X_test, "iloc")
            else pd.DataFrame(np.asarray(X_test)[[i]], columns=X.columns)
        )
        return pd.concat([X, row.set_axis(X.columns, axis=1)], ignore_index=True)
    if hasattr(X, "tocsr"):
        import scipy.sparse as sp

        return sp.vstack([X, X_test.tocsr()[[i]]], format="csr")
    return np.concatenate([np.asarray(X), np.asarray(X_test)[[i]]], axis=0)


def _n_rows(X):
    from sklearn.utils.validation import _num_samples

    return _num_samples(X)


def _refit_one(estimator, method, fit_params, X, y01, X_test, i):
    X_aug = _append_row(X, X_test, i)
    out = np.empty(2)
    for y in (0, 1):
        y_aug = np.r_[y01, y].astype(y01.dtype)
        est = clone(estimator).fit(X_aug, y_aug, **fit_params)
        s = positive_scores(est, X_aug, method)
        if not np.isfinite(s).all():
            raise _non_finite_scores(i)
        out[y] = isotonic_value_at_last(s, y_aug)
    return out


def _non_finite_scores(i):
    return ValueError(
        f"The estimator's scores are NaN or infinite once test object {i} of X joins the "
        "training set; X probably holds values too large or too small for it: rescale X."
    )


def _too_large():
    return ValueError(
        "X holds values so large (or infinite) that sums over the training set overflow; "
        "rescale X, e.g. with sklearn.preprocessing.StandardScaler."
    )


def _dense_numeric(X):
    """``X`` as a float64 array, or None for sparse, non-numeric or ragged input."""
    if hasattr(X, "tocsr"):
        return None
    try:
        arr = np.asarray(X)
        if arr.dtype.kind == "c":  # complex: left to the estimator, which refuses it
            return None
        return arr.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        return None


def _row_key(row):
    """A checksum of a row's values (-0.0 counts as 0.0); unequal rows may share one."""
    return zlib.crc32(np.ascontiguousarray(row + 0.0).tobytes())


def _first_occurrences(X):
    """For each row of ``X`` the index of the first row equal to it."""
    _, first, inverse = np.unique(X + 0.0, axis=0, return_index=True, return_inverse=True)
    return first[inverse.reshape(-1)]


def _refit_batch(estimator, method, fit_params, X, y01, X_test, rows):
    return np.array([_refit_one(estimator, method, fit_params, X, y01, X_test, i) for i in rows])


class FullVennAbers:
    """Full (transductive) Venn-Abers predictor around a scikit-learn classifier.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Unfitted; cloned for every refit.
    response_method : {"auto", "decision_function", "predict_proba"}, default="auto"
        The score: ``decision_function`` when the estimator has one, else
        ``predict_proba[:, 1]``.
    n_jobs : int, default=None
        Parallel refits of the generic path, over test objects (joblib; ``None`` is 1 unless
        inside a ``joblib.parallel_config`` context).
    fit_params : dict, default=None
        Extra keyword arguments of ``estimator.fit`` (not per-sample ones).
    fast_path : bool, default=True
        Use an updatable scorer when one is registered for the estimator's class and settings.

    Attributes
    ----------
    response_method_ : str
        The resolved scoring method.
    uses_fast_path_ : bool
        Whether predictions come from an updatable scorer.

    Notes
    -----
    Full Venn-Abers suits stable learners, whose score for an object changes smoothly when one
    training example is added: naive Bayes, linear models (logistic, ridge), LDA/QDA, k-NN
    with k > 1, kernel machines. Learners that memorise their training set (unpruned trees,
    forests of them, 1-NN, distance-weighted k-NN) score the test object labelled 0 as a
    negative and labelled 1 as a positive whatever it is, so ``[p0, p1]`` is about
    ``[0, 1]`` and p is 1/2: ``predict_interval`` then warns (``VenncalWarning``) when more
    than ``VACUOUS_SHARE`` (half) of its intervals, and at least ``VACUOUS_MIN_COUNT`` (5),
    are at least ``VACUOUS_WIDTH`` (0.9) wide. For such learners use the inductive or cross
    Venn-Abers predictors.

    A fitted instance keeps no scratch state while predicting: several threads may share it.

    References
    ----------
    V. Vovk and I. Petej, "Venn-Abers predictors", UAI 2014, Algorithm 1.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    >>> full = FullVennAbers(GaussianNB()).fit(X, y)
    >>> p = full.predict_interval(rng.normal(size=(5, 2)))
    >>> p.shape, bool(((p > 0) & (p < 1)).any(axis=1).all())
    ((5, 2), True)
    >>> slow = FullVennAbers(GaussianNB(), fast_path=False).fit(X, y)
    >>> bool(np.allclose(slow.predict_interval(X[:5]), full.predict_interval(X[:5])))
    True
    """

    def __init__(
        self,
        estimator: Any,
        *,
        response_method: str = "auto",
        n_jobs: int | None = None,
        fit_params: dict[str, Any] | None = None,
        fast_path: bool = True,
    ) -> None:
        self.estimator = estimator
        self.response_method = response_method
        self.n_jobs = n_jobs
        self.fit_params = fit_params
        self.fast_path = fast_path

    def fit(self, X: Any, y01: AnyArray) -> Self:
        """Store the training set (and prepare the fast path when there is one).

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (l, d)
            Training objects, in any form the estimator takes.
        y01 : ndarray of shape (l,)
            Labels encoded 0/1, both present.

        Returns
        -------
        self
        """
        y01 = np.asarray(y01)
        if y01.ndim != 1 or _n_rows(X) != y01.shape[0]:
            raise ValueError(
                f"X has {_n_rows(X)} rows and y01 has shape {y01.shape}; give one 0/1 label "
                "per row."
            )
        if not np.isin(y01, (0, 1)).all() or np.unique(y01).size != 2:
            raise ValueError("y01 must hold both labels 0 and 1 and nothing else.")
        if self.fit_params and "sample_weight" in self.fit_params:
            raise ValueError(
                "method='full' of VennAbersClassifier does not take sample_weight: the test "
                "object joins the training set with weight one; drop sample_weight or use "
                "method='inductive'."
            )
        self.response_method_ = resolve_response_method(
            self.estimator, self.response_method, owner="VennAbersClassifier"
        )
        self.X_ = X
        self.y_ = y01.astype(np.int64)
        self.scorer_ = self.first_row_ = self.repeat_of_ = self.X_float_ = None
        Xn = _dense_numeric(X)
        Xn = Xn if Xn is not None and Xn.ndim == 2 else None
        # sums over the training set plus a test object must not overflow (every numeric
        # learner takes them, and some, e.g. an SVD of infinite values, then never return)
        self.abs_sum_ = None if Xn is None else np.nansum(np.abs(Xn), axis=0)
        if self.abs_sum_ is not None and np.isinf(self.abs_sum_).any():
            raise _too_large()
        # the estimator judges the training objects at fit, as with every other method (it
        # refuses NaN, no features or sparse input with its own error); its fit also gives
        # the number and names of the features
        self.estimator_ = clone(self.estimator).fit(X, y01, **(self.fit_params or {}))
        if self.fast_path and self.fit_params in (None, {}) and Xn is not None:
            scorer = get_updatable_scorer(self.estimator, self.response_method_)
            if scorer is not None:
                Xn = np.array(Xn, dtype=np.float64)  # a copy: later edits of X change nothing
                if Xn.shape[1] > 0 and np.isfinite(Xn).all():
                    try:
                        self.scorer_ = scorer.fit(Xn, self.y_)  # None: not for this data
                    except np.linalg.LinAlgError:
                        self.scorer_ = None
                    self.n_features_ = Xn.shape[1]
                    self.X_float_ = Xn
                    canon = _first_occurrences(Xn)
                    repeats = (canon != np.arange(canon.shape[0])).any()
                    # a training object that repeats an earlier one takes its score
                    self.repeat_of_ = np.r_[canon, canon.shape[0]] if repeats else None
                    # first occurrences sorted by a checksum, to find a test object
                    first = np.unique(canon)
                    keys = np.fromiter((_row_key(Xn[j]) for j in first), np.uint32, first.size)
                    order = np.argsort(keys, kind="stable")
                    self.first_row_ = (keys[order], first[order])
        self.uses_fast_path_ = self.scorer_ is not None
        return self

    def predict_interval(self, X: Any) -> FloatArray:
        """Return ``[p0, p1]`` for each test object.

        Parameters
        ----------
        X : array-like of shape (m, d)
            Test objects.

        Returns
        -------
        ndarray of shape (m, 2)
            ``p0`` and ``p1`` as Algorithm 1 defines them. The scorer is refitted for each
            label, so unlike the inductive predictor ``p0 > p1`` can happen; the probability
            interval is their convex hull. Always ``p0 < 1`` and ``p1 > 0`` (Lemma 2).

        Raises
        ------
        ValueError
            If X holds values so large that sums over the training set overflow, or if the
            estimator's scores are not finite once a test object joins the training set.

        Warns
        -----
        VenncalWarning
            When more than half of the intervals are vacuous (see Notes of the class).
        """
        if not hasattr(self, "y_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("This FullVennAbers instance is not fitted yet; call fit first.")
        check_joinable(self.X_, X)
        m = _n_rows(X)
        if m == 0:
            return np.empty((0, 2))
        if self.abs_sum_ is not None:
            Xn = _dense_numeric(X)
            with np.errstate(over="ignore"):
                if (
                    Xn is not None
                    and Xn.ndim == 2
                    and Xn.shape[1] == self.abs_sum_.shape[0]
                    and np.isinf(self.abs_sum_ + np.abs(Xn)).any()
                ):
                    raise _too_large()
        if self.scorer_ is not None:
            out = self._predict_fast(X)
        else:
            fit_params = self.fit_params or {}
            n_jobs = self.n_jobs
            batches = np.array_split(np.arange(m), min(m, max(1, 4 * _effective_jobs(n_jobs))))
            parts = Parallel(n_jobs=n_jobs)(
                delayed(_refit_batch)(
                    self.estimator, self.response_method_, fit_params, self.X_, self.y_, X, rows
                )
                for rows in batches
            )
            out = np.concatenate(parts, axis=0)
        _warn_if_vacuous(out, self.estimator)
        return out

    def _augmented_pair(self, x):
        """Scores with x labelled 0 and 1, repeated objects given their first one's score."""
        both = getattr(self.scorer_, "augmented_scores_both", None)
        pair = (
            both(x)
            if both is not None
            else tuple(self.scorer_.augmented_scores(x, lab) for lab in (0, 1))
        )
        j = self._find_training_row(x)
        out = []
        for s in pair:
            s = np.asarray(s, dtype=np.float64)
            if self.repeat_of_ is not None:
                s = s[self.repeat_of_]
            if j is not None:
                s = s.copy() if self.repeat_of_ is None else s
                s[-1] = s[j]
            out.append(s)
        return out

    def _find_training_row(self, x):
        """Index of the first training object equal to ``x``, or None."""
        keys, first = self.first_row_
        v = np.uint32(_row_key(x))
        lo = keys.searchsorted(v)
        if lo == keys.shape[0] or keys[lo] != v:
            return None
        candidates = first[lo : keys.searchsorted(v, "right")]
        hit = np.flatnonzero((self.X_float_[candidates] == x).all(axis=1))
        return int(candidates[hit[0]]) if hit.size else None

    def _predict_fast(self, X):
        Xt = np.asarray(X, dtype=np.float64)
        if Xt.ndim != 2 or Xt.shape[1] != self.n_features_:
            have = Xt.shape[1] if Xt.ndim == 2 else Xt.shape
            raise ValueError(
                f"X has {have} features, but VennAbersClassifier is expecting "
                f"{self.n_features_} features as input: with method='full' each test object "
                "joins the training objects, so it needs their shape."
            )
        if not np.isfinite(Xt).all():
            raise ValueError("X holds NaN or infinite values; remove or impute them first.")
        y = self.y_.astype(np.float64)
        out = np.empty((Xt.shape[0], 2))
        base_order = None
        for i in range(Xt.shape[0]):
            try:
                pair = self._augmented_pair(Xt[i])
            except np.linalg.LinAlgError:
                pair = None
            if pair is None or not all(np.isfinite(s).all() for s in pair):
                # the update's arithmetic failed (overflow, a singular matrix): refit
                out[i] = _refit_one(
                    self.estimator, self.response_method_, {}, self.X_, self.y_, X, i
                )
                continue
            for lab, s in enumerate(pair):
                train = s[:-1]
                if base_order is None:
                    base_order = np.argsort(train, kind="stable")
                    y_base = y[base_order]
                # the order barely changes with one more example: finish sorting an almost
                # sorted copy by insertion, or sort afresh if it moved too much
                ss = train[base_order]
                yy = y_base.copy()
                if not _insertion_sort_pairs(ss, yy, 8 * ss.shape[0]):
                    order = np.argsort(train, kind="stable")
                    ss, yy = train[order], y[order]
                out[i, lab] = _pava_value_at(ss, yy, s[-1], float(lab))
        return out


def _warn_if_vacuous(interval, estimator):
    """Warn when most intervals (and at least VACUOUS_MIN_COUNT) are VACUOUS_WIDTH wide."""
    width = np.abs(interval[:, 1] - interval[:, 0])
    n_vacuous = int((width >= VACUOUS_WIDTH).sum())
    if n_vacuous > VACUOUS_SHARE * interval.shape[0] and n_vacuous >= VACUOUS_MIN_COUNT:
        warnings.warn(
            f"Full Venn-Abers gave {n_vacuous} of {interval.shape[0]} test objects an interval "
            f"at least {VACUOUS_WIDTH} wide, so p is near 1/2 for them: "
            f"{type(estimator).__name__} probably memorises its training set (as unpruned "
            "trees, forests of them and 1-NN do), or the training set is very small. Use a "
            "stable learner (naive Bayes, a linear model, LDA/QDA, k-NN with k > 1), or "
            "method='inductive' or 'cross'.",
            VenncalWarning,
            stacklevel=4,  # the user's call of VennAbersClassifier.predict_interval/proba
        )


def _effective_jobs(n_jobs):
    from joblib import effective_n_jobs

    return effective_n_jobs(n_jobs)
