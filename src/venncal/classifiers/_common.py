"""Helpers shared by the classifiers: fit-data checks, weighted fitting, scores, logs."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.frozen import FrozenEstimator
from sklearn.utils import indexable
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, has_fit_parameter

from venncal._validation import _is_missing, plain_label
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray

__all__ = [
    "check_fit_data",
    "check_cal_size",
    "fit_weighted",
    "warn_unweighted_fit",
    "log_proba",
    "copy_fitted_attributes",
    "model_scores",
    "check_frozen_classes",
]


def _check_labels(y):
    arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"'y' must be a non-empty 1-D array of labels, got shape {arr.shape}.")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError("'y' holds NaN or infinite values; every object needs a label.")
    try:
        classes, y_enc = np.unique(arr, return_inverse=True)
    except TypeError:
        raise TypeError(
            "'y' mixes label types that cannot be compared; use one type for every label."
        ) from None
    if classes.shape[0] < 2:
        raise ValueError(
            f"'y' holds one class only ({plain_label(classes[0])!r}); a Venn predictor needs at least two."
        )
    return classes, y_enc.reshape(-1).astype(np.int64)


def check_fit_data(X: Any, y: ArrayLike, owner: str) -> tuple[Any, AnyArray, IntArray]:
    """Validate (X, y) of a classifier's fit: X indexable, y class labels (two or more).

    Returns
    -------
    X, classes, y_enc
        ``y_enc`` holds indices into ``classes``.
    """
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
    X = indexable(X)[0]
    arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = column_or_1d(arr, warn=True)
    if arr.dtype.kind == "f" and arr.ndim == 1 and not np.isfinite(arr).all():
        raise ValueError("'y' holds NaN or infinite values; every object needs a label.")
    if arr.dtype.kind == "O" and arr.ndim == 1 and any(_is_missing(v) for v in arr):
        # pandas' NA, None or NaN among the labels (nullable and categorical columns)
        raise ValueError("'y' holds missing values; every object needs a label.")
    if arr.ndim == 1 and arr.shape[0] > 0:
        try:
            check_classification_targets(arr)
        except TypeError:  # sorting labels of types that do not compare
            raise TypeError(
                "'y' mixes label types that cannot be compared; use one type for every label."
            ) from None
    classes, y_enc = _check_labels(arr)
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if n != y_enc.shape[0]:
        raise ValueError(
            f"Inconsistent lengths: X has {n} row(s), y has {y_enc.shape[0]}; they must match."
        )
    return X, classes, y_enc


def check_cal_size(cal_size: Any, n_samples: int, *, owner: str, n_classes: int = 1) -> int | float:
    """Validate ``cal_size``: an int count in [1, n_samples) or a float fraction in (0, 1),
    leaving at least ``n_classes`` examples on each side of the split (a stratified split
    needs one per class).

    Returns
    -------
    int or float
        The value to pass as ``test_size`` to ``train_test_split``.

    Examples
    --------
    >>> check_cal_size(0.99, 60, owner="VennAbersClassifier")
    Traceback (most recent call last):
    ...
    ValueError: The 'cal_size' parameter of VennAbersClassifier is 0.99: of 60 samples it leaves 0 to train the estimator and 60 to calibrate it, and each side needs at least 1; lower cal_size or give more rows.
    """
    if isinstance(cal_size, numbers.Integral) and not isinstance(cal_size, (bool, np.bool_)):
        # typeshed's numbers.Integral and numbers.Real declare no comparison with an int
        if 1 <= cal_size < n_samples:  # type: ignore[operator]
            return _sides(int(cal_size), int(cal_size), n_samples, owner, n_classes)
        raise ValueError(
            f"The 'cal_size' parameter of {owner} as an int is a number of calibration "
            f"examples in [1, {n_samples}) for {n_samples} samples. Got {cal_size!r} instead."
        )
    if (
        isinstance(cal_size, numbers.Real)
        and not isinstance(cal_size, (bool, np.bool_))
        and 0 < cal_size < 1  # type: ignore[operator]  # as above, for numbers.Real
    ):
        # as train_test_split counts: the calibration side rounded up
        n_cal = math.ceil(float(cal_size) * n_samples)
        return _sides(float(cal_size), n_cal, n_samples, owner, n_classes)
    raise ValueError(
        f"The 'cal_size' parameter of {owner} must be a float in (0, 1) (a fraction) or an int "
        f">= 1 (a number of examples). Got {cal_size!r} instead."
    )


def _sides(
    cal_size: int | float, n_cal: int, n_samples: int, owner: str, n_classes: int
) -> int | float:
    n_train = n_samples - n_cal
    if min(n_train, n_cal) < max(n_classes, 1):
        raise ValueError(
            f"The 'cal_size' parameter of {owner} is {cal_size!r}: of {n_samples} samples it "
            f"leaves {n_train} to train the estimator and {n_cal} to calibrate it, and each "
            f"side needs at least {max(n_classes, 1)}"
            f"{' (one per class)' if n_classes > 1 else ''}; "
            f"{'lower' if n_train < n_cal else 'raise'} cal_size or give more rows."
        )
    return cal_size


def fit_weighted(
    estimator: Any, X: Any, y: ArrayLike, sample_weight: FloatArray | None, *, stacklevel: int = 3
) -> Any:
    """Fit ``estimator`` with ``sample_weight`` when its ``fit`` takes it, else unweighted.

    Unweighted fitting of weighted data is announced with a ``VenncalWarning``.
    """
    if sample_weight is None or isinstance(estimator, FrozenEstimator):
        return estimator.fit(X, y)
    if has_fit_parameter(estimator, "sample_weight"):
        return estimator.fit(X, y, sample_weight=sample_weight)
    warn_unweighted_fit(estimator, stacklevel=stacklevel + 1)
    return estimator.fit(X, y)


def warn_unweighted_fit(estimator: Any, *, stacklevel: int) -> None:
    """Warn that ``estimator`` is fitted unweighted because its ``fit`` takes no weights."""
    warnings.warn(
        f"{type(estimator).__name__}.fit does not take sample_weight, so the weights are used "
        "for the calibration only and the estimator is fitted unweighted.",
        VenncalWarning,
        stacklevel=stacklevel + 1,
    )


def log_proba(proba: FloatArray) -> FloatArray:
    """Natural logarithm of probabilities; a zero gives -inf without a warning."""
    with np.errstate(divide="ignore"):
        return np.log(proba)


def copy_fitted_attributes(dst: object, fitted: object) -> None:
    """Expose the fitted estimator's ``n_features_in_`` and ``feature_names_in_``."""
    for attr in ("n_features_in_", "feature_names_in_"):
        if hasattr(fitted, attr):
            setattr(dst, attr, getattr(fitted, attr))


def model_scores(estimator: Any, X: Any, n_classes: int) -> FloatArray:
    """Class probabilities (or decision values) of a fitted estimator: (m, K), or (m,) binary."""
    if hasattr(estimator, "predict_proba"):
        out = np.asarray(estimator.predict_proba(X), dtype=np.float64)
        return out[:, 1] if n_classes == 2 else out
    out = np.asarray(estimator.decision_function(X), dtype=np.float64)
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    return out


def check_frozen_classes(estimator: Any, classes: AnyArray, *, owner: str) -> None:
    """Raise one line when a ``FrozenEstimator``'s ``classes_`` are not the labels of ``y``.

    A wrapper reads the frozen model's scores as scores of its own ``classes_`` (column ``k``
    of ``predict_proba`` is ``classes[k]``; a binary ``decision_function`` points to
    ``classes[1]``), which holds only when the model was fitted on the same labels.

    Examples
    --------
    >>> from sklearn.frozen import FrozenEstimator
    >>> from sklearn.naive_bayes import GaussianNB
    >>> model = FrozenEstimator(GaussianNB().fit([[0.0], [1.0]], [0, 1]))
    >>> check_frozen_classes(model, np.array(["benign", "malignant"]), owner="VennClassifier")
    Traceback (most recent call last):
    ...
    ValueError: The FrozenEstimator of VennClassifier was fitted on the classes [0, 1], but y holds ['benign', 'malignant']; its scores are of its own classes_, so calibrate it with the labels it was fitted on.
    """
    if not isinstance(estimator, FrozenEstimator):
        return
    fitted = getattr(estimator, "classes_", None)
    if fitted is None:
        return
    fitted = np.asarray(fitted)
    same = fitted.shape == classes.shape and all(a == b for a, b in zip(fitted, classes))
    if not same:
        raise ValueError(
            f"The FrozenEstimator of {owner} was fitted on the classes {fitted.tolist()!r}, "
            f"but y holds {classes.tolist()!r}; its scores are of its own classes_, so "
            "calibrate it with the labels it was fitted on."
        )


def check_groups_match(owner: str, grouped: bool, groups: ArrayLike | None) -> None:
    """Raise one line when prediction groups are given to a model fitted without them, or are
    missing for one fitted within groups (``grouped``)."""
    if groups is not None and not grouped:
        raise ValueError(
            f"{owner} was fitted without groups; pass calibration_groups= to fit to calibrate "
            "within groups."
        )
    if grouped and groups is None:
        raise ValueError(
            f"{owner} was fitted within groups: pass calibration_groups= with the group of each "
            "test object."
        )
