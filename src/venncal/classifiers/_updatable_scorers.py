"""Built-in updatable scorers for ridge, discriminant analysis, k-NN and logistic regression.

The rank-one and Newton updates described in :mod:`venncal.classifiers._updatable` (which holds
the protocol, the registry and the naive Bayes scorers): ``RidgeClassifier`` and
``LinearDiscriminantAnalysis`` update the Gram or scatter matrix, ``QuadraticDiscriminantAnalysis``
the growing class's covariance in its eigenbasis, ``KNeighborsClassifier`` only the objects whose
k-th neighbour is farther than the new point, and ``LogisticRegression`` runs Newton iterations
from the base fit.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.special import expit
from sklearn.base import clone

from venncal.classifiers._updatable_base import UpdatableScorer, rows_then

__all__ = [
    "ridge_factory",
    "lda_factory",
    "qda_factory",
    "knn_factory",
    "logistic_factory",
]


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
        return rows_then(self.Xd, z, coef)


def ridge_factory(est: Any, response_method: str) -> UpdatableScorer | None:
    if response_method != "decision_function" or est.class_weight is not None:
        return None
    if not np.isscalar(est.alpha) or est.positive:
        return None
    # np.isscalar narrows to any scalar type, complex and text included; a real alpha passed
    return _RidgeClassifierScorer(float(est.alpha), bool(est.fit_intercept))  # type: ignore[arg-type]


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
        s = rows_then(self.X, x, w) + b
        return expit(s) if self.proba else s


def lda_factory(est: Any, response_method: str) -> UpdatableScorer | None:
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
        quad = rows_then(Y2, yx * yx, ia) - 2.0 * rows_then(Y, yx, m * ia) + (m * m) @ ia
        proj = rows_then(Y, yx, u * ia) - (m * ia) @ u
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


def qda_factory(est: Any, response_method: str) -> UpdatableScorer | None:
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


def knn_factory(est: Any, response_method: str) -> UpdatableScorer | None:
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
        out = rows_then(self.Xd, z, beta)
        return expit(out) if self.proba else out


def logistic_factory(est: Any, response_method: str) -> UpdatableScorer | None:
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
