"""Learners that absorb one more training example without refitting from scratch.

Full (transductive) Venn-Abers (Vovk & Petej 2014, Algorithm 1) trains the scorer twice per test
object: on the training set plus ``(x, 0)`` and plus ``(x, 1)``. For learners whose fit is a
function of sufficient statistics, or the solution of a smooth convex problem, the augmented fit
follows from the base fit by a cheap update, and rescoring the ``l + 1`` objects is the only
O(l) step. An *updatable scorer* does exactly that, and must give the scores that refitting the
same estimator gives.

The protocol is two methods (see :class:`UpdatableScorer`): ``fit(X, y01)`` on the training set,
then ``augmented_scores(x, y)`` returning the ``l + 1`` scores of the model trained on the
training set plus ``(x, y)``. :func:`register_updatable_scorer` maps an estimator class to a
factory that builds such a scorer from an (unfitted) estimator, or returns None when the
estimator's settings are not covered (the generic refitting path is then used).

Built-in fast paths (binary problems, dense numeric features; naive Bayes here, the others in
:mod:`venncal.classifiers._updatable_scorers`):

* ``GaussianNB``, ``MultinomialNB`` and ``CategoricalNB``: sufficient statistics (counts,
  means, variances; a category first seen in the new object extends its feature).
* ``LinearDiscriminantAnalysis`` (no shrinkage) and ``RidgeClassifier``: rank-one updates of the
  scatter or Gram matrix, then a (d + 1)-dimensional solve.
* ``QuadraticDiscriminantAnalysis`` (``solver="svd"``, any ``reg_param``): rank-one update of the
  growing class's covariance, applied in its eigenbasis by Sherman-Morrison.
* ``KNeighborsClassifier`` (uniform weights, Euclidean): only the objects whose k-th neighbour
  is farther than the new point change their score. The fit finds the neighbours a block of
  rows of the distance matrix at a time, in O(l max(k, 64)) memory.
* ``LogisticRegression`` (L2 penalty, any solver but liblinear): Newton iterations started at
  the base fit (base Hessian plus the new example's term), run until the change still to come
  is below 1e-9, far tighter than the refit's own tolerance.

Agreement with refitting. ``MultinomialNB`` and ``CategoricalNB`` repeat the refit's arithmetic
bit for bit, and ``GaussianNB`` its means and variances. The others agree to rounding (about
1e-12 in the scores). A test object that repeats a training object (and training objects that
repeat one another) must tie exactly, as they do in a refit; :class:`FullVennAbers` ensures
that by giving repeated objects the score of their first occurrence, so scorers need not. The
p0 and p1 of a test object can therefore differ from the refit's only when two distinct scores
are so close that rounding reorders them (a near-tie), and in two further cases: for k-NN, a
tie in distances at the k-th neighbour, which the refit breaks by its own internal order; for
logistic regression, the refit's own stopping tolerance (``tol=1e-4`` by default moves its
scores by up to about 1e-3, enough to reorder near-tied scores; with a tight ``tol`` both
reach the same optimum; where even a refit of the training set stops more than 0.01 in
log-odds from the optimum, as with badly scaled features, the fast path declines). A scorer
whose arithmetic would not reproduce the refit on a given training set (statistics that
overflow, a QDA covariance the refit would reject) declines in ``fit`` by returning None,
and the refitting path is used.

Scorers keep no scratch state: ``augmented_scores`` reads the fitted statistics and writes
only to arrays it allocates, so one fitted scorer (and the estimator holding it) can serve
predictions from several threads at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.classifiers import _updatable_scorers as more
from venncal.classifiers._updatable_base import UpdatableScorer, rows_then

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray

__all__ = [
    "UpdatableScorer",
    "register_updatable_scorer",
    "get_updatable_scorer",
]

_REGISTRY: dict[type, Callable[..., UpdatableScorer | None]] = {}


def register_updatable_scorer(
    estimator_class: type[Any], factory: Callable[[Any, str], UpdatableScorer | None]
) -> Callable[[Any, str], UpdatableScorer | None]:
    """Register a fast path of full Venn-Abers for an estimator class.

    Parameters
    ----------
    estimator_class : type
        The exact class of the estimator (subclasses are not matched, since they may change
        the fit).
    factory : callable
        ``factory(estimator, response_method) -> UpdatableScorer or None``. ``estimator`` is the
        user's unfitted estimator (read its parameters with ``get_params``), and
        ``response_method`` is ``"decision_function"`` or ``"predict_proba"``. Return None when
        the settings are not covered; the refitting path is used then.

    Returns
    -------
    factory : callable
        The factory, so the function can be used as a decorator factory's inner call.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> get_updatable_scorer(GaussianNB(), "predict_proba") is not None
    True
    """
    if not isinstance(estimator_class, type):
        raise TypeError(f"'estimator_class' must be a class, got {type(estimator_class).__name__}.")
    if not callable(factory):
        raise TypeError("'factory' must be callable: factory(estimator, response_method).")
    _REGISTRY[estimator_class] = factory
    return factory


def get_updatable_scorer(estimator: Any, response_method: str) -> UpdatableScorer | None:
    """Return a fresh updatable scorer for ``estimator``, or None if no fast path applies."""
    _register_builtins()
    factory = _REGISTRY.get(type(estimator))
    if factory is None:
        return None
    return factory(estimator, response_method)


# --------------------------------------------------------------------------------------------
# built-in scorers


def _proba_from_jll(j0, j1):
    """P(class 1) from joint log-likelihoods, with scikit-learn's log-sum-exp arithmetic."""
    mx = np.maximum(j0, j1)
    out = np.where(j0 == j1, np.log(2.0) + mx, np.log1p(np.exp(np.minimum(j0, j1) - mx)) + mx)
    return np.exp(j1 - out)


class _GaussianNBScorer(UpdatableScorer):
    """GaussianNB: class means and variances, recomputed for the class that grows.

    The means and variances (and the variance floor ``var_smoothing * max variance``) are
    computed with the same numpy reductions, over the same rows in the same order, as
    ``GaussianNB.fit`` on the augmented data, so they match the refit to the last bit. The
    quadratic term is expanded, ``z^2 . (1/v) - 2 z . (mu/v) + mu^2 . (1/v)``: one matrix
    product scores every object for both classes.
    """

    def __init__(self, var_smoothing, priors):
        self.var_smoothing = var_smoothing
        self.priors = priors

    def fit(self, X, y01):
        self.X = X
        self.d = X.shape[1]
        with np.errstate(over="ignore"):
            self.XX = np.hstack([X * X, X])  # [z^2, z]: one product scores both terms
        if not np.isfinite(self.XX).all():
            return None
        self.rows = [X[y01 == k] for k in (0, 1)]
        self.count = [int((y01 == k).sum()) for k in (0, 1)]
        self.base = [(np.mean(X[y01 == k], axis=0), np.var(X[y01 == k], axis=0)) for k in (0, 1)]
        return self

    def _floor(self, x):
        return self.var_smoothing * np.var(np.vstack([self.X, x]), axis=0).max()

    def augmented_scores(self, x, y):
        return self._scores(x, y, self._floor(x))

    def augmented_scores_both(self, x):
        eps = self._floor(x)
        return self._scores(x, 0, eps), self._scores(x, 1, eps)

    def _scores(self, x, y, eps):
        rows = np.vstack([self.rows[y], x])
        stats = list(self.base)
        stats[y] = (np.mean(rows, axis=0), np.var(rows, axis=0))
        count = list(self.count)
        count[y] += 1
        total = float(count[0] + count[1])
        M = np.empty((2 * self.d, 2))
        const = np.empty(2)
        for k in (0, 1):
            theta, var = stats[k]
            var = var + eps
            inv = 1.0 / var
            prior = self.priors[k] if self.priors is not None else count[k] / total
            M[: self.d, k] = inv
            M[self.d :, k] = -2.0 * theta * inv
            const[k] = (
                np.log(prior)
                - 0.5 * np.sum(np.log(2.0 * np.pi * var))
                - 0.5 * ((theta * theta) @ inv)
            )
        jll = const - 0.5 * rows_then(self.XX, np.concatenate([x * x, x]), M)
        return _proba_from_jll(jll[:, 0], jll[:, 1])


def _gaussian_nb_factory(est, response_method):
    if response_method != "predict_proba":
        return None
    priors = est.priors
    if priors is not None:
        priors = np.asarray(priors, dtype=np.float64)
        if priors.shape != (2,):
            return None
    return _GaussianNBScorer(est.var_smoothing, priors)


class _MultinomialNBScorer(UpdatableScorer):
    """MultinomialNB: per-class feature counts and class counts."""

    def __init__(self, alpha, fit_prior, class_prior):
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def fit(self, X, y01):
        if (X < 0).any():
            raise ValueError("MultinomialNB needs non-negative features.")
        self.X = X
        self.fc = [X[y01 == k].sum(axis=0) for k in (0, 1)]
        self.cc = [int((y01 == k).sum()) for k in (0, 1)]
        return self

    def augmented_scores(self, x, y):
        fc = list(self.fc)
        cc = list(self.cc)
        fc[y] = fc[y] + x
        cc[y] += 1
        flp = _smoothed_log_prob(np.vstack(fc), self.alpha)
        prior = _log_class_prior(self.class_prior, self.fit_prior, cc)
        jll = rows_then(self.X, x, flp.T) + prior
        return _proba_from_jll(jll[:, 0], jll[:, 1])


def _discrete_nb_params(est: Any, response_method: str) -> tuple[float, FloatArray | None] | None:
    """``(alpha, class_prior)`` of a MultinomialNB or CategoricalNB as its fit uses them, or
    None when no update applies (another response method, or an alpha per feature)."""
    if response_method != "predict_proba" or not np.isscalar(est.alpha):
        return None
    given: Any = est.alpha  # a number of any numeric type
    alpha = max(float(given), 1e-10) if est.force_alpha is False else float(given)
    prior = None if est.class_prior is None else np.asarray(est.class_prior, dtype=np.float64)
    return alpha, prior


def _smoothed_log_prob(counts: FloatArray, alpha: float) -> FloatArray:
    """Per-class log-probabilities of the categories (columns) of additively smoothed counts."""
    smoothed = counts + alpha
    log_prob: FloatArray = np.log(smoothed) - np.log(smoothed.sum(axis=1).reshape(-1, 1))
    return log_prob


def _log_class_prior(
    class_prior: FloatArray | None, fit_prior: bool, class_counts: ArrayLike
) -> FloatArray:
    """Log-prior of the two classes as naive Bayes takes it: the given ``class_prior``, else
    the class frequencies (``fit_prior``), else uniform."""
    if class_prior is not None:
        return np.log(class_prior)
    if fit_prior:
        counts = np.asarray(class_counts, dtype=np.float64)
        fitted: FloatArray = np.log(counts) - np.log(counts.sum())
        return fitted
    return np.full(2, -np.log(2.0))


def _multinomial_nb_factory(est, response_method):
    params = _discrete_nb_params(est, response_method)
    if params is None:
        return None
    alpha, prior = params
    return _MultinomialNBScorer(alpha, est.fit_prior, prior)


class _CategoricalNBScorer(UpdatableScorer):
    """CategoricalNB: category counts per class and feature (integer-coded features)."""

    def __init__(self, alpha, fit_prior, class_prior, min_categories):
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories

    def fit(self, X, y01):
        Xi = X.astype(np.int64)
        if (Xi != X).any() or (Xi < 0).any():
            raise ValueError("CategoricalNB needs features coded as non-negative integers.")
        self.Xi = Xi
        self.cc = np.array([(y01 == k).sum() for k in (0, 1)], dtype=np.float64)
        n_cat = Xi.max(axis=0) + 1
        if self.min_categories is not None:
            n_cat = np.maximum(n_cat, self.min_categories)
        self.counts = []
        for f in range(Xi.shape[1]):
            c = np.zeros((2, int(n_cat[f])))
            for k in (0, 1):
                b = np.bincount(Xi[y01 == k, f], minlength=int(n_cat[f]))
                c[k, : b.shape[0]] += b
            self.counts.append(c)
        # per-class log-likelihood columns of the training objects under the base counts,
        # accumulated feature by feature as CategoricalNB does; the class that does not grow
        # reuses them unless the new object brings a new category
        self.flp = [self._log_prob(c) for c in self.counts]
        self.base_cols = []
        for k in (0, 1):
            acc = np.zeros(Xi.shape[0])
            for f, flp in enumerate(self.flp):
                acc += flp[k, Xi[:, f]]
            self.base_cols.append(acc)
        return self

    def _log_prob(self, c):
        return _smoothed_log_prob(c, self.alpha)

    def augmented_scores(self, x, y):
        xi = x.astype(np.int64)
        if (xi != x).any() or (xi < 0).any():
            raise ValueError("CategoricalNB needs features coded as non-negative integers.")
        n1 = self.Xi.shape[0] + 1
        jll = np.zeros((n1, 2))
        if all(xi[f] < c.shape[1] for f, c in enumerate(self.counts)):
            o = 1 - y
            jll[:-1, o] = self.base_cols[o]
            acc = 0.0
            for f, flp in enumerate(self.flp):
                acc += flp[o, xi[f]]
            jll[-1, o] = acc
            col = np.zeros(n1)
            for f, c in enumerate(self.counts):
                c = c.copy()
                c[y, xi[f]] += 1.0
                flp = self._log_prob(c)[y]
                col[:-1] += flp[self.Xi[:, f]]
                col[-1] += flp[xi[f]]
            jll[:, y] = col
        else:  # a category never seen: the feature gains categories for both classes
            for f, c in enumerate(self.counts):
                if xi[f] >= c.shape[1]:
                    c = np.pad(c, [(0, 0), (0, xi[f] + 1 - c.shape[1])])
                else:
                    c = c.copy()
                c[y, xi[f]] += 1.0
                flp = self._log_prob(c)
                jll[:-1] += flp[:, self.Xi[:, f]].T
                jll[-1] += flp[:, xi[f]]
        cc = self.cc.copy()
        cc[y] += 1.0
        jll = jll + _log_class_prior(self.class_prior, self.fit_prior, cc)
        return _proba_from_jll(jll[:, 0], jll[:, 1])


def _categorical_nb_factory(est, response_method):
    params = _discrete_nb_params(est, response_method)
    if params is None:
        return None
    alpha, prior = params
    return _CategoricalNBScorer(alpha, est.fit_prior, prior, est.min_categories)


_BUILTINS_DONE = False


def _register_builtins():
    global _BUILTINS_DONE
    if _BUILTINS_DONE:
        return
    from sklearn.discriminant_analysis import (
        LinearDiscriminantAnalysis,
        QuadraticDiscriminantAnalysis,
    )
    from sklearn.linear_model import LogisticRegression, RidgeClassifier
    from sklearn.naive_bayes import CategoricalNB, GaussianNB, MultinomialNB
    from sklearn.neighbors import KNeighborsClassifier

    for cls, factory in (
        (GaussianNB, _gaussian_nb_factory),
        (MultinomialNB, _multinomial_nb_factory),
        (CategoricalNB, _categorical_nb_factory),
        (RidgeClassifier, more.ridge_factory),
        (LinearDiscriminantAnalysis, more.lda_factory),
        (QuadraticDiscriminantAnalysis, more.qda_factory),
        (KNeighborsClassifier, more.knn_factory),
        (LogisticRegression, more.logistic_factory),
    ):
        _REGISTRY.setdefault(cls, factory)
    _BUILTINS_DONE = True
