"""Turning a fitted scikit-learn classifier's output into one score per object."""

from __future__ import annotations

import numpy as np

from venncal._validation import check_option

__all__ = ["RESPONSE_METHODS", "resolve_response_method", "positive_scores", "no_scores_message"]

RESPONSE_METHODS = ("auto", "decision_function", "predict_proba")


def resolve_response_method(estimator, response_method, *, owner):
    """Return the name of the method that scores objects.

    ``"auto"`` means ``decision_function`` when the estimator has it, else ``predict_proba``.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.linear_model import LogisticRegression
    >>> resolve_response_method(LogisticRegression(), "auto", owner="x")
    'decision_function'
    >>> resolve_response_method(GaussianNB(), "auto", owner="x")
    'predict_proba'
    """
    check_option(response_method, RESPONSE_METHODS, name="response_method", owner=owner)
    if response_method == "auto":
        if hasattr(estimator, "decision_function"):
            return "decision_function"
        if hasattr(estimator, "predict_proba"):
            return "predict_proba"
        raise TypeError(no_scores_message(estimator, owner))
    if not hasattr(estimator, response_method):
        raise TypeError(
            f"The 'estimator' parameter of {owner} ({type(estimator).__name__}) has no "
            f"{response_method}; choose another response_method."
        )
    return response_method


def no_scores_message(estimator, owner):
    """The one-line message for an estimator that cannot score objects (e.g. a regressor).

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression
    >>> no_scores_message(LinearRegression(), "VennClassifier")
    "The 'estimator' parameter of VennClassifier must be a classifier with predict_proba or decision_function; got LinearRegression, which has neither (a regressor gives no class scores)."
    """
    return (
        f"The 'estimator' parameter of {owner} must be a classifier with predict_proba or "
        f"decision_function; got {type(estimator).__name__}, which has neither (a regressor "
        "gives no class scores)."
    )


def positive_scores(estimator, X, method):
    """Score objects with a fitted binary classifier: larger means more likely positive.

    Parameters
    ----------
    estimator : fitted scikit-learn classifier
    X : array-like
        Objects, in whatever form the estimator takes.
    method : {"decision_function", "predict_proba"}

    Returns
    -------
    scores : ndarray of shape (n,), float64, finite
        ``decision_function(X)`` or ``predict_proba(X)[:, 1]``.
    """
    out = np.asarray(getattr(estimator, method)(X), dtype=np.float64)
    if method == "predict_proba":
        if out.ndim != 2 or out.shape[1] != 2:
            raise ValueError(
                f"predict_proba of {type(estimator).__name__} returned shape {out.shape}; "
                "a binary classifier with two columns is needed."
            )
        out = out[:, 1]
    elif out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1:
        raise ValueError(
            f"decision_function of {type(estimator).__name__} returned shape {out.shape}; "
            "one score per object is needed."
        )
    if not np.isfinite(out).all():
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned NaN or infinite scores; "
            "check the input features."
        )
    return out
