"""Shared test helpers of calibrators that take one score column per class: toy data, the
scikit-learn checks they are expected to fail (and why) and the test that runs the checks."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from venncal.exceptions import VenncalWarning

COLUMNS = "the check fits a feature matrix whose number of columns is not the number of classes"
#: where the check's features happen to be as many as its classes, the fit runs, reading the
#: features as class scores, and the accuracy the check asks of a classifier is not reached
FEATURES_AS_SCORES = COLUMNS + ", or (as many columns as classes) reads its features as scores"
#: features in [0, 1] whose rows do not sum to one are neither probabilities nor clearly logits:
#: score_type="auto" refuses them, asking for score_type
AMBIGUOUS = (
    "the check's features lie in [0, 1] without rows summing to one: an ambiguous score type"
)
XFAILS = {
    "check_classifiers_train": FEATURES_AS_SCORES,
    **{
        name: AMBIGUOUS
        for name in (
            "check_fit_score_takes_y",
            "check_sample_weights_list",
            "check_supervised_y_2d",
        )
    },
    **{
        name: COLUMNS
        for name in (
            "check_classifiers_classes",
            "check_dtype_object",
            "check_estimators_dtypes",
            "check_estimators_fit_returns_self",
            "check_estimators_nan_inf",
            "check_estimators_overwrite_params",
            "check_estimators_pickle",
            "check_n_features_in_after_fitting",
            "check_pipeline_consistency",
            "check_positive_only_tag_during_fit",
            "check_readonly_memmap_input",
            "check_sample_weight_equivalence_on_dense_data",
        )
    },
}
# estimators that report n_iter_ run this check too (on features, not one column per class)
N_ITER_XFAILS = {**XFAILS, "check_non_transformer_estimators_n_iter": COLUMNS}


def make(seed, n=150, m=20, K=3, sharp=2.0):
    """Noisy multinomial data: logits of a true model, shown to the calibrator too sharp and
    shifted, so that every structure has a finite optimum."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n + m, K))
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    y = (rng.random((n + m, 1)) > P.cumsum(axis=1)).sum(axis=1)
    y[:K] = np.arange(K)
    S = sharp * Z + rng.normal(size=K)
    return S[:n], y[:n], S[n:]


def log_softmax(S):
    top = S.max(axis=1, keepdims=True)
    return S - top - np.log(np.exp(S - top).sum(axis=1, keepdims=True))


def check_bad_parameter_one_line(estimator, match):
    """Fitting ``estimator`` (with a bad parameter) raises a one-line ValueError."""
    S, y, _ = make(0)
    with pytest.raises(ValueError, match=match) as info:
        estimator.fit(S, y)
    assert "\n" not in str(info.value)


def sklearn_checks_test(estimators, xfails, *, ignore_warnings_because=None):
    """The test that runs scikit-learn's checks on ``estimators``; the checks of ``xfails``
    must fail. With ``ignore_warnings_because`` (the reason), VenncalWarning is ignored."""

    @parametrize_with_checks(
        [clone(e) for e in estimators], expected_failed_checks=lambda e: xfails
    )
    def test_sklearn_compatible(estimator, check):
        if ignore_warnings_because is None:
            check(estimator)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VenncalWarning)
            check(estimator)

    return test_sklearn_compatible


def forest_like(seed, n=900, m=900, K=4, trees=30):
    """Probabilities of a forest-like model: vote shares of ``trees`` overconfident trees, so
    that many are exact zeros and some of those zeros come true. Returns
    ``(P, y, Pt, yt)``."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n + m, K)) * 1.5
    Q = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    y = (rng.random((n + m, 1)) > Q.cumsum(axis=1)).sum(axis=1)
    y[:K] = np.arange(K)
    sharp = Q**3 / (Q**3).sum(axis=1, keepdims=True)
    votes = np.stack([rng.multinomial(trees, q) for q in sharp])
    P = votes / trees
    return P[:n], y[:n], P[n:], y[n:]


def bad_score_matrices(K=3):
    """``(scores, y, params, match)`` that every K-class calibrator's ``fit`` refuses with a
    one-line ValueError matching ``match`` (``params`` set on the calibrator first)."""
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(K), size=30)
    y = np.arange(30) % K
    zero_row = P.copy()
    zero_row[5] = 0.0
    half = P.copy()
    half[7] *= 0.5
    return [
        (zero_row, y, {"score_type": "probabilities"}, "row 5 .* sums to 0"),
        (half, y, {"score_type": "probabilities"}, "row 7 .* sums to"),
        (half, y, {}, "score_type="),  # auto: in [0, 1], a row far from one: ambiguous
        (zero_row, y, {}, "score_type="),
        (np.where(P > 0.5, 1.5, P), y, {"score_type": "probabilities"}, r"\[0, 1\]"),
        (np.r_[P[:-1], [[np.nan] * K]], y, {}, "NaN"),
        (np.r_[P[:-1], [[np.inf] * K]], y, {}, "infinite"),
        (P[:, :-1], y, {}, "column"),
        (P[:0], y[:0], {}, "empty"),
    ]
