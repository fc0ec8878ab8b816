"""Naive Bayes as Weka's ``NaiveBayes`` computes it, on one-hot encoded nominal attributes.

Vovk & Petej (2014) use Weka's naive Bayes. Weka treats the two kinds of attribute differently:

* a nominal attribute with ``k`` declared values contributes the frequency of its value in the
  class with the Laplace correction, ``(count + 1) / (n_class + k)``;
* a numeric attribute contributes the mass that a normal distribution per class (mean and
  standard deviation of the class's values, rounded to the attribute's *precision*) gives to
  the interval of width ``precision`` around the value. The precision is the mean gap between
  the distinct sorted training values, and the standard deviation is at least precision / 6.

The class prior is ``(n_class + 1) / (n + n_classes)``, each attribute's factor is at least
1e-75, and the posterior is the normalised product (computed here in log space). A Gaussian
naive Bayes on one-hot columns, by contrast, fits a normal density to every 0/1 indicator and
can push probabilities to 0 and 1; this one keeps them away from the extremes as Weka does.

The bundled loaders encode a nominal attribute with two values as one 0/1 column and one with
more values as one indicator column per declared value; :func:`nominal_groups` recovers the
attributes from the column names ``"<attribute>=<value>"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import logsumexp, ndtr
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

if TYPE_CHECKING:
    from collections.abc import Sequence

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = ["WekaNaiveBayes", "nominal_groups"]

#: Weka's floor on each attribute's factor of the likelihood
_FLOOR = 1e-75
#: Weka's precision of a numeric attribute seen with fewer than two distinct values
_DEFAULT_PRECISION = 0.01


def nominal_groups(feature_names: Sequence[str]) -> list[list[int]]:
    """Column indices of each nominal attribute, from the names ``"<attribute>=<value>"``.

    Parameters
    ----------
    feature_names : sequence of str

    Returns
    -------
    list of list of int
        One list per nominal attribute, in order of first appearance; columns whose name has
        no ``"="`` are numeric and belong to no group.

    Examples
    --------
    >>> nominal_groups(["age", "sex=f", "colour=red", "colour=blue"])
    [[1], [2, 3]]
    """
    groups: dict[str, list[int]] = {}
    for j, name in enumerate(feature_names):
        attribute, sep, _ = str(name).partition("=")
        if sep:
            groups.setdefault(attribute, []).append(j)
    return list(groups.values())


class WekaNaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes with Weka's estimators: Laplace counts for nominal, binned normal for numeric.

    Parameters
    ----------
    nominal : sequence of sequence of int, default=()
        The nominal attributes: each entry lists the 0/1 indicator columns of one attribute.
        One column is an attribute with two values (0 and 1); ``k >= 2`` columns are a one-hot
        block of an attribute with ``k`` declared values, and each row must hold exactly one 1
        among them. Every other column is numeric.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    log_prior_ : ndarray of shape (n_classes,)
        Log of the Laplace-corrected class frequencies.
    numeric_ : ndarray of int
        The numeric columns.
    precision_, mean_, std_ : ndarrays
        Precision of each numeric column, shape (n_numeric,), and the per-class mean and
        standard deviation, shape (n_classes, n_numeric).
    log_freq_ : list of ndarray
        For each nominal attribute, the log of the Laplace-corrected frequency of each value in
        each class, shape (n_classes, k).

    References
    ----------
    G. H. John and P. Langley. Estimating continuous distributions in Bayesian classifiers.
    UAI 1995 (the estimators of Weka's ``NaiveBayes``).

    Examples
    --------
    >>> X = np.array([[0.0, 1.2], [0.0, 0.8], [1.0, 2.9], [1.0, 3.1], [0.0, 3.0]])
    >>> y = np.array([0, 0, 1, 1, 1])
    >>> nb = WekaNaiveBayes(nominal=[[0]]).fit(X, y)
    >>> p = nb.predict_proba(X)[:, 1]
    >>> bool(((p > 0) & (p < 1)).all()), nb.predict(X).tolist()
    (True, [0, 0, 1, 1, 1])

    The nominal factor of the first column is a Laplace-corrected frequency, (count + 1) /
    (n_class + 2): in class 1, value 1 occurs twice among three objects.

    >>> np.round(np.exp(nb.log_freq_[0][1]), 3).tolist()
    [0.4, 0.6]
    """

    def __init__(self, nominal: Sequence[Sequence[int]] = ()) -> None:
        self.nominal = nominal

    def _groups(self, n_features):
        groups = []
        for g in self.nominal:
            cols = [int(c) for c in np.atleast_1d(np.asarray(g))]
            if not cols or any(c < 0 or c >= n_features for c in cols):
                raise ValueError(
                    f"The 'nominal' parameter of WekaNaiveBayes must list column indices in "
                    f"[0, {n_features}); got {list(g)!r}."
                )
            groups.append(cols)
        flat = [c for g in groups for c in g]
        if len(set(flat)) != len(flat):
            raise ValueError("The 'nominal' parameter of WekaNaiveBayes repeats a column.")
        return groups

    def _codes(self, X, cols):
        block = X[:, cols]
        if not np.isin(block, (0.0, 1.0)).all():
            raise ValueError(f"nominal columns {cols} of X must hold only 0 and 1.")
        if len(cols) == 1:
            return block[:, 0].astype(np.intp)
        if not (block.sum(axis=1) == 1).all():
            raise ValueError(f"each row of the one-hot columns {cols} of X must hold one 1.")
        return block.argmax(axis=1)

    def fit(self, X, y):
        """Fit the class prior, the nominal frequencies and the numeric normals.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, yi = np.unique(y, return_inverse=True)
        n_classes = self.classes_.size
        groups = self._groups(X.shape[1])
        self.groups_ = groups
        self.class_count_ = np.bincount(yi, minlength=n_classes).astype(np.float64)
        self.log_prior_ = np.log((self.class_count_ + 1.0) / (X.shape[0] + n_classes))
        self.log_freq_ = []
        for cols in groups:
            k = max(2, len(cols))
            counts = np.zeros((n_classes, k))
            np.add.at(counts, (yi, self._codes(X, cols)), 1.0)
            self.log_freq_.append(np.log((counts + 1.0) / (self.class_count_[:, None] + k)))
        in_group = np.zeros(X.shape[1], dtype=bool)
        in_group[[c for g in groups for c in g]] = True
        self.numeric_ = np.flatnonzero(~in_group)
        Z = X[:, self.numeric_]
        self.precision_ = np.array([_precision(z) for z in Z.T])
        Zr = _round(Z, self.precision_)
        self.mean_ = np.zeros((n_classes, Z.shape[1]))
        self.std_ = np.zeros((n_classes, Z.shape[1]))
        for c in range(n_classes):
            rows = Zr[yi == c]
            mean = rows.mean(axis=0)
            sd = np.sqrt(np.abs((rows * rows).sum(axis=0) - mean * rows.sum(axis=0)) / len(rows))
            self.mean_[c] = mean
            # Weka keeps its initial precision / 6 when the values do not vary
            self.std_[c] = np.where(sd > 1e-10, np.maximum(self.precision_ / 6.0, sd), 1.0)
            self.std_[c] = np.where(sd > 1e-10, self.std_[c], self.precision_ / 6.0)
        return self

    def _joint_log_likelihood(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        jll = np.tile(self.log_prior_, (X.shape[0], 1))
        for cols, log_freq in zip(self.groups_, self.log_freq_, strict=True):
            jll += np.maximum(log_freq[:, self._codes(X, cols)].T, np.log(_FLOOR))
        if self.numeric_.size:
            z = _round(X[:, self.numeric_], self.precision_)
            half = self.precision_ / 2.0
            for c in range(self.classes_.size):
                lo = (z - self.mean_[c] - half) / self.std_[c]
                hi = (z - self.mean_[c] + half) / self.std_[c]
                with np.errstate(divide="ignore"):
                    mass = np.log(np.maximum(ndtr(hi) - ndtr(lo), _FLOOR))
                jll[:, c] += mass.sum(axis=1)
        return jll

    def predict_log_proba(self, X: ArrayLike) -> FloatArray:
        """Log of :meth:`predict_proba`."""
        jll = self._joint_log_likelihood(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X: ArrayLike) -> FloatArray:
        """Posterior probability of each class, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: ArrayLike) -> AnyArray:
        """The class of highest posterior probability."""
        jll = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(jll, axis=1)]


def _precision(z):
    """Weka's precision of a numeric attribute: the mean gap between its distinct values."""
    distinct = np.unique(z)
    if distinct.size < 2:
        return _DEFAULT_PRECISION
    # Weka adds the gaps one by one; the same sum matters, as values exactly half a precision
    # from a multiple round one way or the other
    return float(np.cumsum(np.diff(distinct))[-1] / (distinct.size - 1))


def _round(Z, precision):
    """Values rounded to a multiple of the precision (half to even, as Java's ``Math.rint``)."""
    return np.rint(Z / precision) * precision
