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

Built-in fast paths (binary problems, dense numeric features):

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

import warnings

import numpy as np
from scipy.special import expit
from sklearn.base import clone

__all__ = [
    "UpdatableScorer",
    "register_updatable_scorer",
    "get_updatable_scorer",
]

_REGISTRY = {}


class UpdatableScorer:
    """Protocol of a scorer that can add one training example cheaply.

    Subclasses implement ``fit`` and ``augmented_scores``. Instances are created by a factory
    registered with :func:`register_updatable_scorer`.

    Methods
    -------
    fit(X, y01)
        Fit on the training set: ``X`` a float64 array of shape (l, d), ``y01`` int 0/1 labels.
        Returns self, or None when the scorer cannot reproduce a refit on this training set
        (the refitting path is used then).
    augmented_scores(x, y)
        Scores of the model trained on the training set plus ``(x, y)`` (``x`` of shape (d,),
        ``y`` 0 or 1), for the l training objects followed by ``x``: shape (l + 1,), a new
        array. The scores must equal
        ``positive_scores(clone(est).fit(X_aug, y_aug), X_aug, response_method)``. It must not
        modify the scorer: one fitted scorer serves several threads at once.
    augmented_scores_both(x)
        ``(augmented_scores(x, 0), augmented_scores(x, 1))``; override it to share the work
        the two labels have in common.

    Examples
    --------
    A scorer for a nearest-centroid rule (score = distance to the negative centroid minus
    distance to the positive one):

    >>> class CentroidScorer(UpdatableScorer):
    ...     def fit(self, X, y01):
    ...         self.X, self.sums = X, [X[y01 == k].sum(0) for k in (0, 1)]
    ...         self.counts = [int((y01 == k).sum()) for k in (0, 1)]
    ...         return self
    ...     def augmented_scores(self, x, y):
    ...         sums, counts = list(self.sums), list(self.counts)
    ...         sums[y] = sums[y] + x; counts[y] += 1
    ...         c0, c1 = sums[0] / counts[0], sums[1] / counts[1]
    ...         Z = np.vstack([self.X, x])
    ...         return np.linalg.norm(Z - c0, axis=1) - np.linalg.norm(Z - c1, axis=1)
    >>> sc = CentroidScorer().fit(np.array([[0.0], [1.0], [3.0]]), np.array([0, 0, 1]))
    >>> sc.augmented_scores(np.array([2.0]), 1)
    array([-2., -1.,  2.,  1.])
    """

    def fit(self, X, y01):  # pragma: no cover - interface
        raise NotImplementedError

    def augmented_scores(self, x, y):  # pragma: no cover - interface
        raise NotImplementedError

    def augmented_scores_both(self, x):
        """Scores with ``x`` labelled 0 and with ``x`` labelled 1, as a pair of arrays."""
        return self.augmented_scores(x, 0), self.augmented_scores(x, 1)


def register_updatable_scorer(estimator_class, factory):
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


def get_updatable_scorer(estimator, response_method):
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
        jll = const - 0.5 * _rows_then(self.XX, np.concatenate([x * x, x]), M)
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
        smoothed = np.vstack(fc) + self.alpha
        flp = np.log(smoothed) - np.log(smoothed.sum(axis=1).reshape(-1, 1))
        if self.class_prior is not None:
            prior = np.log(self.class_prior)
        elif self.fit_prior:
            counts = np.array(cc, dtype=np.float64)
            prior = np.log(counts) - np.log(counts.sum())
        else:
            prior = np.full(2, -np.log(2.0))
        jll = _rows_then(self.X, x, flp.T) + prior
        return _proba_from_jll(jll[:, 0], jll[:, 1])


def _multinomial_nb_factory(est, response_method):
    if response_method != "predict_proba" or not np.isscalar(est.alpha):
        return None
    alpha = max(float(est.alpha), 1e-10) if est.force_alpha is False else float(est.alpha)
    prior = None if est.class_prior is None else np.asarray(est.class_prior, dtype=np.float64)
    return _MultinomialNBScorer(alpha, est.fit_prior, prior)


def _rows_then(A, a, w):
    """``A @ w`` followed by ``a @ w`` (the training objects, then the new one), a new array."""
    out = np.empty((A.shape[0] + 1,) + w.shape[1:])
    np.matmul(A, w, out=out[:-1])
    out[-1] = a @ w
    return out


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
        smoothed = c + self.alpha
        return np.log(smoothed) - np.log(smoothed.sum(axis=1).reshape(-1, 1))

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
        if self.class_prior is not None:
            prior = np.log(self.class_prior)
        elif self.fit_prior:
            prior = np.log(cc) - np.log(cc.sum())
        else:
            prior = np.full(2, -np.log(2.0))
        jll = jll + prior
        return _proba_from_jll(jll[:, 0], jll[:, 1])


def _categorical_nb_factory(est, response_method):
    if response_method != "predict_proba" or not np.isscalar(est.alpha):
        return None
    alpha = max(float(est.alpha), 1e-10) if est.force_alpha is False else float(est.alpha)
    prior = None if est.class_prior is None else np.asarray(est.class_prior, dtype=np.float64)
    return _CategoricalNBScorer(alpha, est.fit_prior, prior, est.min_categories)


def _aug(X):
    return np.column_stack([X, np.ones(X.shape[0])])


class _RidgeClassifierScorer(UpdatableScorer):
    """RidgeClassifier: targets -1/+1, unpenalised intercept, Sherman-Morrison update."""

    def __init__(self, alpha, fit_intercept):
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def _design(self, X):
        return _aug(X) if self.fit_intercept else X

    def fit(self, X, y01):
        self.Xd = self._design(X)
        p = self.Xd.shape[1]
        pen = np.full(p, self.alpha)
        if self.fit_intercept:
            pen[-1] = 0.0
        A = self.Xd.T @ self.Xd + np.diag(pen)
        self.A_inv = np.linalg.inv(A)
        self.c = self.Xd.T @ (2.0 * y01 - 1.0)
        return self

    def augmented_scores(self, x, y):
        z = self._design(x[None, :])[0]
        Az = self.A_inv @ z
        c = self.c + z * (2.0 * y - 1.0)
        coef = self.A_inv @ c - Az * (Az @ c) / (1.0 + z @ Az)
        return _rows_then(self.Xd, z, coef)


def _ridge_factory(est, response_method):
    if response_method != "decision_function" or est.class_weight is not None:
        return None
    if not np.isscalar(est.alpha) or est.positive:
        return None
    return _RidgeClassifierScorer(float(est.alpha), bool(est.fit_intercept))


class _LDAScorer(UpdatableScorer):
    """Linear discriminant analysis: class means and pooled within-class scatter."""

    def __init__(self, divisor_offset, priors, proba):
        self.divisor_offset = divisor_offset
        self.priors = priors
        self.proba = proba

    def fit(self, X, y01):
        self.X = X
        self.n = [int((y01 == k).sum()) for k in (0, 1)]
        self.mean = [X[y01 == k].mean(axis=0) for k in (0, 1)]
        self.S = sum((X[y01 == k] - self.mean[k]).T @ (X[y01 == k] - self.mean[k]) for k in (0, 1))
        return self

    def augmented_scores(self, x, y):
        n = list(self.n)
        mean = list(self.mean)
        delta = x - mean[y]
        S = self.S + (n[y] / (n[y] + 1.0)) * np.outer(delta, delta)
        n[y] += 1
        mean[y] = mean[y] + delta / n[y]
        n_all = n[0] + n[1]
        cov = S / (n_all - self.divisor_offset)
        diff = mean[1] - mean[0]
        w = np.linalg.solve(cov, diff)
        pri = self.priors if self.priors is not None else np.array(n, dtype=float) / n_all
        b = (
            -0.5
            * (mean[1] @ np.linalg.solve(cov, mean[1]) - mean[0] @ np.linalg.solve(cov, mean[0]))
            + np.log(pri[1])
            - np.log(pri[0])
        )
        s = _rows_then(self.X, x, w) + b
        return expit(s) if self.proba else s


def _lda_factory(est, response_method):
    if est.shrinkage is not None or getattr(est, "covariance_estimator", None) is not None:
        return None
    if est.solver not in ("svd", "lsqr", "eigen"):
        return None
    offset = 0  # every solver uses the within-class scatter divided by n
    priors = None if est.priors is None else np.asarray(est.priors, dtype=np.float64)
    return _LDAScorer(offset, priors, response_method == "predict_proba")


class _QDAScorer(UpdatableScorer):
    """Quadratic discriminant analysis ('svd' solver): per-class means and scatter matrices.

    With S_k = V_k diag(lam_k) V_k^T computed once, the growing class's covariance is
    ``A + v v^T`` with ``A`` diagonal in the basis V_k, so the Mahalanobis distances of all
    objects follow from three matrix-vector products in rotated coordinates
    (Sherman-Morrison) and the log-determinant from the matrix determinant lemma: O(l d) per
    update instead of O(l d^2). The class that does not grow keeps its base scores.

    ``fit`` declines (returns None) where a refit would not be reproduced: a class with fewer
    objects than features, statistics that overflow, a covariance so ill-conditioned that
    eigenvalues from the scatter matrix and the refit's SVD differ beyond rounding, or one
    whose scalings come near ``tol`` (scikit-learn >= 1.9 rejects such a fit).
    """

    def __init__(self, reg_param, priors, proba, tol, divisor_offset):
        self.reg_param = reg_param
        self.priors = priors
        self.proba = proba
        self.tol = tol
        self.divisor_offset = divisor_offset

    def fit(self, X, y01):
        r, off = self.reg_param, self.divisor_offset
        self.n = [int((y01 == k).sum()) for k in (0, 1)]
        if min(self.n) < max(X.shape[1], 2):
            return None
        self.mean = [X[y01 == k].mean(axis=0) for k in (0, 1)]
        self.V, self.lam, self.Y, self.Y2 = [], [], [], []
        self.dec_base, self.ia_base, self.m_base, self.const_base = [], [], [], []
        with np.errstate(over="ignore", invalid="ignore"):
            for k in (0, 1):
                Xc = X[y01 == k] - self.mean[k]
                scatter = Xc.T @ Xc
                if not np.isfinite(scatter).all():
                    return None
                lam, V = np.linalg.eigh(scatter)
                lam = np.maximum(lam, 0.0)
                # the scalings of the base fit, and their floor once one object joins (a
                # rank-one update only raises the scatter's eigenvalues)
                a = (1.0 - r) * lam / (self.n[k] - off) + r
                floor = (1.0 - r) * lam / (self.n[k] + 1 - off) + r
                top = a.max()
                if not (
                    np.isfinite(a).all()
                    and floor.min() > self.tol + 1e-9 * top
                    and floor.min() > 1e-6 * top
                ):
                    return None
                Y = X @ V
                if not np.isfinite(Y).all():
                    return None
                ia = 1.0 / a
                m = self.mean[k] @ V
                self.lam.append(lam)
                self.V.append(V)
                self.Y.append(Y)
                self.Y2.append(Y * Y)
                self.ia_base.append(ia)
                self.m_base.append(m)
                self.const_base.append((m * m) @ ia + np.log(a).sum())
                self.dec_base.append(self.Y2[k] @ ia - 2.0 * (Y @ (m * ia)) + self.const_base[k])
        return self

    def augmented_scores(self, x, y):
        r, off = self.reg_param, self.divisor_offset
        n = list(self.n)
        dec = [None, None]
        # the growing class y
        delta = x - self.mean[y]
        n_new = n[y] + 1
        mean = self.mean[y] + delta / n_new
        a = (1.0 - r) * self.lam[y] / (n_new - off) + r
        u = np.sqrt((1.0 - r) * n[y] / (n[y] + 1.0) / (n_new - off)) * (delta @ self.V[y])
        m = mean @ self.V[y]
        ia = 1.0 / a
        Y, Y2, yx = self.Y[y], self.Y2[y], x @ self.V[y]
        quad = _rows_then(Y2, yx * yx, ia) - 2.0 * _rows_then(Y, yx, m * ia) + (m * m) @ ia
        proj = _rows_then(Y, yx, u * ia) - (m * ia) @ u
        c = 1.0 + (u * u) @ ia
        dec[y] = quad - proj * proj / c + (np.log(a).sum() + np.log(c))
        # the other class, as in the base fit
        o = 1 - y
        ia, m, yx = self.ia_base[o], self.m_base[o], x @ self.V[o]
        dec[o] = np.empty(Y.shape[0] + 1)
        dec[o][:-1] = self.dec_base[o]
        dec[o][-1] = (yx * yx) @ ia - 2.0 * (yx @ (m * ia)) + self.const_base[o]
        n[y] = n_new
        total = n[0] + n[1]
        pri = self.priors if self.priors is not None else np.array(n, dtype=float) / total
        s = -0.5 * (dec[1] - dec[0]) + (np.log(pri[1]) - np.log(pri[0]))
        return expit(s) if self.proba else s


def _qda_divisor_offset():
    """1 if the installed QDA divides a class's scatter by n - 1 (before 1.9), 0 if by n."""
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

    X = np.array([[0.0], [1.0], [3.0], [0.0], [2.0], [5.0]])
    scaling = QuadraticDiscriminantAnalysis().fit(X, [0, 0, 0, 1, 1, 1]).scalings_[0][0]
    scatter = 42.0 / 9.0  # of 0, 1, 3
    for offset in (0, 1):
        if abs(scaling - scatter / (3 - offset)) <= 1e-12 * scatter:
            return offset
    return None


def _qda_factory(est, response_method):
    if est.solver != "svd" or est.shrinkage is not None:
        return None
    if getattr(est, "covariance_estimator", None) is not None:
        return None
    offset = _qda_divisor_offset()
    if offset is None:
        return None
    priors = None if est.priors is None else np.asarray(est.priors, dtype=np.float64)
    return _QDAScorer(
        float(est.reg_param), priors, response_method == "predict_proba", float(est.tol), offset
    )


# entries of one block of squared distances in the k-NN scorer's fit (2 MiB of float64)
_KNN_BLOCK_ENTRIES = 2**18


class _KNNScorer(UpdatableScorer):
    """k nearest neighbours with uniform weights and Euclidean distance."""

    def __init__(self, k):
        self.k = k

    def fit(self, X, y01):
        k = self.k
        if k > X.shape[0]:
            raise ValueError(f"n_neighbors={k} exceeds the {X.shape[0]} training objects.")
        self.X = X
        self.y = y01.astype(np.float64)
        n = X.shape[0]
        with np.errstate(over="ignore", invalid="ignore"):
            sq = (X * X).sum(axis=1)
        tiny = np.abs(X[X != 0]).min(initial=np.inf)
        if tiny * tiny == 0.0:  # squares underflow
            return None
        # squared distances a block of rows at a time: O(block * l) memory instead of l x l.
        # Blocks start at multiples of 64 rows, so the matrix product gives every row the
        # values the whole product X @ X.T gives (BLAS kernels work on aligned row panels).
        block = 64 * max(1, -(-max(k, _KNN_BLOCK_ENTRIES // max(n, 1)) // 64))
        self.radius2 = np.empty(n)
        self.sum_k = np.empty(n)
        self.y_kth = np.empty(n)
        for start in range(0, n, block):
            rows = slice(start, min(start + block, n))
            with np.errstate(over="ignore", invalid="ignore"):
                D = np.maximum(sq[rows, None] + sq[None, :] - 2.0 * X[rows] @ X.T, 0.0)
            if not np.isfinite(D).all():  # squares overflow
                return None
            b = D.shape[0]
            D[np.arange(b), np.arange(start, start + b)] = -1.0  # its own nearest neighbour
            if k < n:
                idx = np.argpartition(D, k - 1, axis=1)[:, :k]
                dk = np.take_along_axis(D, idx, axis=1)
                kth = idx[np.arange(b), np.argmax(dk, axis=1)]
                self.sum_k[rows] = self.y[idx].sum(axis=1)
            else:  # every object is a neighbour
                dk = D
                kth = np.argmax(D, axis=1)
                self.sum_k[rows] = self.y[np.broadcast_to(np.arange(n), (b, n))].sum(axis=1)
            self.radius2[rows] = np.max(dk, axis=1)
            self.y_kth[rows] = self.y[kth]
            del D, dk
        self.sq = sq
        return self

    def augmented_scores(self, x, y):
        k = self.k
        d2 = np.maximum(self.sq + x @ x - 2.0 * self.X @ x, 0.0)
        if not np.isfinite(d2).all():
            return np.full(d2.shape[0] + 1, np.nan)  # overflow: FullVennAbers refits instead
        enters = d2 < self.radius2
        s = (self.sum_k + enters * (y - self.y_kth)) / k
        if k > 1:
            near = np.argpartition(d2, k - 2)[: k - 1] if k - 1 < d2.shape[0] else slice(None)
            own = (y + self.y[near].sum()) / k
        else:
            own = float(y)
        out = np.empty(s.shape[0] + 1)
        out[:-1] = s
        out[-1] = own
        return out


def _knn_factory(est, response_method):
    if response_method != "predict_proba" or est.weights != "uniform":
        return None
    metric = est.metric
    if not (metric == "euclidean" or (metric == "minkowski" and est.p == 2)):
        return None
    if est.metric_params:
        return None
    return _KNNScorer(int(est.n_neighbors))


class _LogisticScorer(UpdatableScorer):
    """L2 logistic regression: Newton steps from the base optimum.

    The refit stops at its solver's tolerance, near the optimum when the features are
    reasonably scaled. ``fit`` refits the estimator once on the training set and declines
    when that fit stops farther than ``max_gap`` (in log-odds) from the optimum, as the
    solvers do on features of very different or extreme scales (1e6 and beyond).
    """

    def __init__(self, C, fit_intercept, proba, estimator, tol=1e-9, max_iter=50, max_gap=1e-2):
        self.C = C
        self.fit_intercept = fit_intercept
        self.proba = proba
        self.estimator = estimator
        self.tol = tol
        self.max_iter = max_iter
        self.max_gap = max_gap

    def _design(self, X):
        return _aug(X) if self.fit_intercept else X

    def _reg(self, p):
        r = np.ones(p)
        if self.fit_intercept:
            r[-1] = 0.0
        return r

    def fit(self, X, y01):
        Xd = self._design(X)
        self.Xd = Xd
        self.y = y01.astype(np.float64)
        reg = self._reg(Xd.shape[1])
        beta = np.zeros(Xd.shape[1])
        for _ in range(200):  # full Newton on the training set
            p = expit(Xd @ beta)
            g = self.C * Xd.T @ (p - self.y) + reg * beta
            H = self.C * (Xd.T * (p * (1 - p))) @ Xd + np.diag(reg)
            step = np.linalg.solve(H, g)
            beta = beta - step
            if np.max(np.abs(step)) < 1e-13 * max(1.0, np.max(np.abs(beta))):
                break
        s = Xd @ beta
        p = expit(s)
        self.beta = beta
        self.s = s
        self.H_inv = np.linalg.inv(self.C * (Xd.T * (p * (1 - p))) @ Xd + np.diag(reg))
        self.reg = reg
        if not (np.isfinite(s).all() and np.isfinite(self.H_inv).all()):
            return None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a refit that does not converge is declined
                ref = clone(self.estimator).fit(X, y01).decision_function(X)
        except (ValueError, FloatingPointError, np.linalg.LinAlgError):
            return None
        if not np.abs(ref - s).max() <= self.max_gap:
            return None
        return self

    def augmented_scores(self, x, y):
        z = self._design(x[None, :])[0]
        beta = self.beta.copy()
        s = self.s.copy()
        pz = expit(z @ beta)
        hz = self.C * pz * (1 - pz)
        Hz = self.H_inv @ z
        denom = 1.0 + hz * (z @ Hz)
        # Newton steps with the base Hessian plus the new example's term (Sherman-Morrison);
        # the training scores are updated along with the coefficients
        last = np.inf
        for _ in range(self.max_iter):
            sz = z @ beta
            g = self.C * (self.Xd.T @ (expit(s) - self.y) + z * (expit(sz) - y)) + self.reg * beta
            Hg = self.H_inv @ g
            step = Hg - Hz * (hz * (z @ Hg)) / denom
            beta -= step
            s -= self.Xd @ step
            size = np.max(np.abs(step))
            # linear convergence with ratio rho: the steps still to come add up to at most
            # size * rho / (1 - rho)
            rho = size / last if np.isfinite(last) and last > 0 else 1.0
            last = size
            remaining = size if rho >= 0.5 else size * rho / (1.0 - rho)
            if remaining < self.tol * max(1.0, np.max(np.abs(beta))):
                break
        out = _rows_then(self.Xd, z, beta)
        return expit(out) if self.proba else out


def _logistic_factory(est, response_method):
    penalty = getattr(est, "penalty", "deprecated")
    l1_ratio = getattr(est, "l1_ratio", None)
    if penalty not in ("deprecated", "l2") or l1_ratio not in (None, 0, 0.0):
        return None
    if est.solver == "liblinear" or est.class_weight is not None:
        return None
    C = float(est.C)
    if not np.isfinite(C) or C <= 0:
        return None
    return _LogisticScorer(C, bool(est.fit_intercept), response_method == "predict_proba", est)


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
        (RidgeClassifier, _ridge_factory),
        (LinearDiscriminantAnalysis, _lda_factory),
        (QuadraticDiscriminantAnalysis, _qda_factory),
        (KNeighborsClassifier, _knn_factory),
        (LogisticRegression, _logistic_factory),
    ):
        _REGISTRY.setdefault(cls, factory)
    _BUILTINS_DONE = True
