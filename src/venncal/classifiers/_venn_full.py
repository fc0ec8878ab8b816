"""Transductive (full) Venn predictors for any taxonomy: Vovk & Petej (2014), section 2.

For a test object ``x`` and each hypothetical label ``k``, the underlying model is trained on the
training set extended with ``(x, k)``, the ``l + 1`` objects of the extended set are scored by
that model, the taxonomy puts them into categories (computed on the extended set, so it is a
function of the bag), and the prediction for label ``k`` is the distribution of the labels in
the test object's category:

    p_k(j) = |{i in A(l + 1 | z_1, ..., z_l, (x, k)) : y_i = j}| / |A(l + 1 | ...)|

The *multiprobability prediction* is the set of the ``K`` distributions ``p_0, ..., p_{K-1}``;
one of them (the one of the true label) is perfectly calibrated (Theorem 1). For two classes,
``(p_0(1), p_1(1))`` is the pair ``(p0, p1)`` of the paper, and the probability interval is their
convex hull (``p0 > p1`` can happen: the model changes with the hypothetical label).

Two routes train the model on the extended set: a refit of a clone (any estimator, any number of
classes), or, for two classes and an estimator with an updatable scorer
(:mod:`venncal.classifiers._updatable`), an update of the base fit that gives the refit's
scores.

This module is used by ``VennClassifier(method="full")``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone

from venncal.classifiers._full import (
    _append_row,
    _n_rows,
    check_joinable,
    isotonic_value_at_last,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray
    from venncal.classifiers._full import FullVennAbers

__all__ = [
    "bag_categories",
    "check_full",
    "equal_mass_categories",
    "full_venn_multiprobability",
    "updater_for",
]


def check_full(frozen: bool, weight: FloatArray | None, *, owner: str) -> None:
    """Refuse what the transductive predictor cannot do: a frozen estimator, sample weights."""
    if frozen:
        raise ValueError(
            f"method='full' of {owner} refits the estimator with each test object, which a "
            "FrozenEstimator cannot do; use method='inductive'."
        )
    if weight is not None:
        raise ValueError(
            f"method='full' of {owner} does not take sample_weight: the test object joins "
            "the training set with weight one; drop sample_weight or use method='inductive'."
        )


def updater_for(estimator: Any, X: Any, y: AnyArray, n_classes: int) -> FullVennAbers | None:
    """A fitted FullVennAbers whose updatable scorer replaces refits, or None (refit).

    Two classes only; the score is ``predict_proba[:, 1]`` when the estimator has
    ``predict_proba``, else ``decision_function``, as in VennClassifier.
    """
    from venncal.classifiers._full import FullVennAbers

    if n_classes != 2:
        return None
    response = "predict_proba" if hasattr(estimator, "predict_proba") else "decision_function"
    updater = FullVennAbers(estimator, response_method=response).fit(X, y)
    return updater if updater.uses_fast_path_ else None


def equal_mass_categories(scores: FloatArray, n_bins: int) -> IntArray:
    """Equal-mass bins of a bag of 1-D scores, as one category index per score.

    The edges are order statistics of the bag (positions ``floor(j n / n_bins)``,
    ``j = 1..n_bins-1``, of the ``n`` sorted scores), and bin ``b`` holds the scores ``s`` with
    ``edge_b <= s < edge_{b+1}``: the rule of :func:`venncal.core.venn.equal_mass_venn_predict`
    applied to the whole bag, so tied scores share a bin and the bins do not depend on the
    order of the scores.

    Parameters
    ----------
    scores : ndarray of shape (n,)
    n_bins : int

    Returns
    -------
    ndarray of shape (n,), dtype int

    Examples
    --------
    >>> equal_mass_categories(np.array([3.0, 0.0, 1.0, 2.0, 2.0, 5.0]), 3)
    array([2, 0, 0, 1, 1, 2])
    """
    s = np.asarray(scores, dtype=np.float64)
    n = s.shape[0]
    if n_bins <= 1 or n == 0:
        return np.zeros(n, dtype=np.int64)
    q = (np.arange(1, n_bins) * n) // n_bins
    edges = np.sort(s)[q]
    return np.searchsorted(edges, s, side="right").astype(np.int64)


def bag_categories(
    scores: FloatArray,
    taxonomy: str | Callable[[AnyArray], ArrayLike],
    *,
    n_bins: int,
    threshold: float,
    owner: str,
) -> AnyArray:
    """Categories of every object of a bag from the scores of the model trained on the bag.

    Parameters
    ----------
    scores : ndarray of shape (n,) or (n, n_classes)
        Scores of the ``n`` objects of the bag (binary: the positive class's score).
    taxonomy : {"label", "bins"} or callable
        See :class:`venncal.classifiers.venn.VennClassifier`; ``"isotonic"`` is handled by
        the caller (its categories depend on the labels).
    n_bins : int
    threshold : float
        Score above which a binary ``"label"`` taxonomy predicts the positive class.
    owner : str
        Name for error messages.

    Returns
    -------
    ndarray of shape (n,)
    """
    n = scores.shape[0]
    if callable(taxonomy):
        cats = np.asarray(taxonomy(scores))
        if cats.ndim != 1 or cats.shape[0] != n:
            raise ValueError(
                f"The taxonomy of {owner} must return one category per object, got shape "
                f"{cats.shape} for {n} objects."
            )
        return cats
    if scores.ndim == 1:
        if taxonomy == "label":
            return (scores > threshold).astype(np.int64)
        return equal_mass_categories(scores, n_bins)
    lab = np.argmax(scores, axis=1)
    if taxonomy == "label":
        return lab
    # multiclass bins: the predicted label, then equal-mass bins of its probability among the
    # objects of the bag with that predicted label
    cats = np.empty(n, dtype=np.int64)
    for c in np.unique(lab):
        rows = np.flatnonzero(lab == c)
        cats[rows] = c * n_bins + equal_mass_categories(scores[rows, c], n_bins)
    return cats


def _distribution(cats, labels, n_classes):
    """Label frequencies in the category of the last object of the bag."""
    members = cats == cats[-1]
    counts = np.bincount(labels[members], minlength=n_classes).astype(np.float64)
    return counts / counts.sum()


def _from_scores(scores, labels, taxonomy, n_classes, *, n_bins, threshold, owner):
    if taxonomy == "isotonic":
        p = isotonic_value_at_last(scores, labels)
        return np.array([1.0 - p, p])
    cats = bag_categories(scores, taxonomy, n_bins=n_bins, threshold=threshold, owner=owner)
    return _distribution(cats, labels, n_classes)


def _fast_pair(updater, x):
    """Scores of the extended set under labels 0 and 1 by an update, or None to refit."""
    try:
        pair = updater._augmented_pair(x)
    except np.linalg.LinAlgError:
        return None
    if not all(np.isfinite(s).all() for s in pair):
        return None
    return pair


def full_venn_multiprobability(
    estimator: Any,
    X: Any,
    y: IntArray,
    X_test: Any,
    *,
    n_classes: int,
    taxonomy: str | Callable[[AnyArray], ArrayLike],
    n_bins: int,
    score_fn: Callable[[Any, Any], FloatArray],
    threshold: float,
    updater: FullVennAbers | None = None,
    owner: str = "VennClassifier",
    n_jobs: int | None = None,
) -> FloatArray:
    """Multiprobability prediction of the transductive Venn predictor.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Unfitted; cloned for every refit.
    X : array-like, DataFrame or sparse matrix of shape (l, d)
        Training objects.
    y : ndarray of shape (l,), dtype int
        Training label indices in ``0..n_classes-1``.
    X_test : array-like of shape (m, d)
        Test objects, in the training set's form.
    n_classes : int
    taxonomy : {"label", "bins", "isotonic"} or callable
    n_bins : int
    score_fn : callable
        ``score_fn(fitted_estimator, X) -> scores`` of shape (n,) (two classes) or
        (n, n_classes).
    threshold : float
        Threshold of the binary ``"label"`` taxonomy.
    updater : FullVennAbers or None, default=None
        A fitted :class:`venncal.classifiers._full.FullVennAbers` whose updatable scorer gives
        the extended set's scores for two classes without a refit.
    owner : str
    n_jobs : int or None, default=None
        Parallel jobs (joblib) over batches of test objects; the result does not depend on it.

    Returns
    -------
    ndarray of shape (m, n_classes, n_classes)
        Row ``[i, k]`` is the label distribution of test object ``i``'s category when it is
        labelled ``k``.
    """
    check_joinable(X, X_test, owner)
    m = _n_rows(X_test)
    X_dense = None
    if updater is not None:
        X_dense = np.asarray(X_test, dtype=np.float64)
        if not np.isfinite(X_dense).all():  # NaN or inf: the estimator's own refit decides
            updater, X_dense = None, None
    args = (estimator, X, y, X_test, X_dense, n_classes, taxonomy, n_bins, score_fn, threshold)
    jobs = effective_n_jobs(n_jobs)
    if jobs == 1 or m < 2:
        return _multiprobability_rows(np.arange(m), *args, updater, owner)
    batches = np.array_split(np.arange(m), min(m, 4 * jobs))
    parts = Parallel(n_jobs=n_jobs)(
        delayed(_multiprobability_rows)(rows, *args, updater, owner) for rows in batches
    )
    return np.concatenate(parts)


def _multiprobability_rows(
    rows,
    estimator,
    X,
    y,
    X_test,
    X_dense,
    n_classes,
    taxonomy,
    n_bins,
    score_fn,
    threshold,
    updater,
    owner,
):
    """The rows ``rows`` of :func:`full_venn_multiprobability`'s result."""
    out = np.empty((rows.shape[0], n_classes, n_classes))
    for r, i in enumerate(rows):
        pair = None
        if updater is not None:
            pair = _fast_pair(updater, X_dense[i])
        X_aug = None
        for k in range(n_classes):
            y_aug = np.r_[y, k].astype(np.int64)
            if pair is not None:
                scores = pair[k]
            else:
                if X_aug is None:
                    X_aug = _append_row(X, X_test, i)
                est = clone(estimator).fit(X_aug, y_aug)
                scores = score_fn(est, X_aug)
                if not np.isfinite(scores).all():
                    raise ValueError(
                        f"The estimator's scores are NaN or infinite once test object {i} of X "
                        f"joins the training set of {owner}; rescale X."
                    )
            out[r, k] = _from_scores(
                scores,
                y_aug,
                taxonomy,
                n_classes,
                n_bins=n_bins,
                threshold=threshold,
                owner=owner,
            )
    return out
