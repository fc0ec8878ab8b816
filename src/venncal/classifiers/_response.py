"""Turning a fitted scikit-learn classifier's output into one score per object."""

from __future__ import annotations

import numpy as np

from venncal._validation import check_option

__all__ = [
    "RESPONSE_METHODS",
    "check_features",
    "resolve_response_method",
    "positive_scores",
    "no_scores_message",
    "check_is_classifier",
]

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


def check_is_classifier(estimator, *, owner):
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


def _input_tags(estimator):
    """The input tags of what first sees ``X``: a pipeline's first step, a frozen estimator's
    inner one (a text vectorizer takes a list of documents, not a 2-D table)."""
    from dataclasses import replace

    from sklearn.utils import get_tags

    tags = get_tags(estimator).input_tags
    inner = getattr(estimator, "estimator", None)  # FrozenEstimator
    if inner is not None and not hasattr(estimator, "steps"):
        return _input_tags(inner)
    steps = [s for _, s in getattr(estimator, "steps", []) if s not in (None, "passthrough")]
    if steps:
        first = _input_tags(steps[0])
        return replace(
            tags, two_d_array=first.two_d_array, allow_nan=tags.allow_nan or first.allow_nan
        )
    return tags


def check_features(X, estimator, *, owner, n_features=None):
    """Check objects for a wrapped estimator; raise one line naming X for what it would refuse.

    The wrappers pass ``X`` on to the estimator in the form the user gave it (DataFrames,
    sparse matrices, strings for a pipeline with an encoder). Before that, this checks what
    every estimator requires: a 2-D table, the number of features of the fit, and finite
    values unless the estimator's tags say it takes missing values. scikit-learn's own errors
    for these span several lines and name the inner estimator; these name ``X`` and ``owner``.

    Parameters
    ----------
    X : array-like or sparse matrix
    estimator : scikit-learn estimator
        The wrapped estimator (its ``allow_nan`` tag is read).
    owner : str
        The wrapper's name, for the message.
    n_features : int, default=None
        The number of features seen at fit; None skips that check.

    Returns
    -------
    X : the input, unchanged

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> check_features([[0.0, np.nan]], GaussianNB(), owner="VennAbersClassifier")
    Traceback (most recent call last):
    ...
    ValueError: 'X' of VennAbersClassifier contains NaN or infinity (inf), which GaussianNB does not accept; impute or remove them, or use an estimator that takes missing values.
    """
    from sklearn.utils.validation import check_array

    check_is_classifier(estimator, owner=owner)
    tags = _input_tags(estimator)
    if not tags.two_d_array:  # e.g. a text pipeline that takes a list of documents
        return X
    try:
        arr = check_array(
            X,
            accept_sparse=True,
            dtype=None,
            ensure_all_finite=False,
            ensure_2d=False,
            allow_nd=True,
            ensure_min_samples=0,
            ensure_min_features=0,
        )
    except (TypeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"'X' of {owner} could not be read as a table: {first}") from None
    if arr.ndim != 2:
        raise ValueError(
            f"'X' of {owner} must be 2-D (n_samples, n_features), got shape {arr.shape}; "
            "Reshape your data with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) "
            "for a single object."
        )
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(
            f"X has {arr.shape[1]} features, but {owner} is expecting {n_features} features "
            "as input."
        )
    if hasattr(arr, "tocsr"):  # sparse: the stored values (dok and lil keep no flat array)
        data = arr.data if isinstance(getattr(arr, "data", None), np.ndarray) else arr.tocsr().data
    else:
        data = arr
    if data.dtype.kind in "fc":
        finite = np.isfinite(data).all()
    elif data.dtype.kind == "O":
        finite = not np.any(data != data)  # NaN (or None-like) cells of a mixed table
    else:
        finite = True
    if not finite and not tags.allow_nan:
        raise ValueError(
            f"'X' of {owner} contains NaN or infinity (inf), which "
            f"{type(estimator).__name__} does not accept; impute or remove them, or use an "
            "estimator that takes missing values."
        )
    return X
