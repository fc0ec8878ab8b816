"""Turning a fitted scikit-learn classifier's output into one score per object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_option

if TYPE_CHECKING:
    from venncal._typing import FloatArray

__all__ = [
    "RESPONSE_METHODS",
    "check_features",
    "resolve_response_method",
    "positive_scores",
    "no_scores_message",
    "check_is_classifier",
]

RESPONSE_METHODS = ("auto", "decision_function", "predict_proba")


def resolve_response_method(estimator: Any, response_method: str, *, owner: str) -> str:
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


def check_is_classifier(estimator: Any, *, owner: str) -> None:
    """Raise one line unless ``estimator`` is an estimator object (it has ``fit``) that can
    score objects (``predict_proba`` or ``decision_function``).

    Examples
    --------
    >>> check_is_classifier(None, owner="VennClassifier")
    Traceback (most recent call last):
    ...
    TypeError: The 'estimator' parameter of VennClassifier must be a scikit-learn classifier (an object with fit, and predict_proba or decision_function); got None.
    """
    if not hasattr(estimator, "fit"):
        shown = "None" if estimator is None else f"{type(estimator).__name__} {estimator!r:.40}"
        raise TypeError(
            f"The 'estimator' parameter of {owner} must be a scikit-learn classifier (an object "
            f"with fit, and predict_proba or decision_function); got {shown}."
        )
    if not (hasattr(estimator, "predict_proba") or hasattr(estimator, "decision_function")):
        raise TypeError(no_scores_message(estimator, owner))


def no_scores_message(estimator: Any, owner: str) -> str:
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


def positive_scores(estimator: Any, X: Any, method: str) -> FloatArray:
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


def check_features(X: Any, estimator: Any, *, owner: str) -> int:
    """Check the estimator and count the objects; leave judging ``X`` to the estimator.

    The wrappers pass ``X`` on to the estimator exactly as the user gave it (lists,
    DataFrames, sparse matrices, n-dimensional arrays, documents for a text pipeline), as
    scikit-learn's ``CalibratedClassifierCV`` does: what the estimator accepts, the wrapper
    accepts, and what it refuses it refuses with its own error. Only what the wrapper itself
    needs is checked here: that ``X`` has a number of rows.

    Parameters
    ----------
    X : object
        The objects, in any form the estimator takes.
    estimator : scikit-learn classifier
        The wrapped estimator.
    owner : str
        The wrapper's name, for the message.

    Returns
    -------
    int
        The number of objects (rows) in ``X``.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> check_features(np.zeros((4, 2, 3)), GaussianNB(), owner="VennAbersClassifier")
    4
    >>> check_features(3.0, GaussianNB(), owner="VennAbersClassifier")
    Traceback (most recent call last):
    ...
    TypeError: 'X' of VennAbersClassifier must hold one object per row (an array-like, a DataFrame or a sparse matrix), got float.
    """
    from sklearn.utils.validation import _num_samples

    check_is_classifier(estimator, owner=owner)
    try:
        return _num_samples(X)
    except TypeError:
        raise TypeError(
            f"'X' of {owner} must hold one object per row (an array-like, a DataFrame or a "
            f"sparse matrix), got {type(X).__name__}."
        ) from None
