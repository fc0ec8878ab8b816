"""scikit-learn's estimator checks for calibrators that take one column of scores.

A score calibrator declares ``one_d_array`` in its tags, and scikit-learn's checks then reduce
their feature matrices to the first column before fitting. A few checks cannot work with such an
estimator, for reasons inside the checks themselves (scikit-learn exempts its own 1-D estimator,
``IsotonicRegression``, from the whole suite). Each is listed here with its reason, and
``SCORE_CALIBRATOR_SIGNS`` gives, for each, what the failure looks like when that reason is the
cause: ``tests/calibration/test_declared_check_failures.py`` runs every listed check and matches
the failure against it (type, message, the failing line of the check and the error it wrapped),
so a listed check that starts to pass, or fails for another reason, is noticed. Every other
check must pass.

What the listed checks would have tested is tested on one-column scores in venncal's own tests:
weight k equals k copies (tests/reliability/test_weight_copies.py), NaN and infinite scores and
multi-column scores refused (test_sklearn_checks_calibrators.py), one class left by zero weights
refused.
"""

import traceback

_ONE_D = "the check indexes X[:, 0] after reducing X to one column for a one_d_array estimator"
_MULTI_COL = (
    "the check fits a feature matrix of several columns without the one_d_array reduction "
    "({}); a calibrator refuses more than one score column by design"
)

SCORE_CALIBRATOR_XFAILS = {
    "check_dont_overwrite_parameters": _ONE_D,
    "check_dtype_object": _ONE_D,
    "check_f_contiguous_array_estimator": _ONE_D,
    "check_methods_sample_order_invariance": _ONE_D,
    "check_methods_subset_invariance": _ONE_D,
    "check_fit2d_1sample": _ONE_D,
    "check_fit2d_1feature": _ONE_D,
    "check_dict_unchanged": _ONE_D,
    "check_fit2d_predict1d": _ONE_D,
    "check_estimators_partial_fit_n_features": _ONE_D + " (calibrators with partial_fit only)",
    "check_n_features_in": "the check reads X.shape[1] of the reduced 1-D X",
    "check_n_features_in_after_fitting": "the check reads X.shape[1] of the reduced 1-D X",
    "check_estimator_sparse_array": "the check cannot build its 1-D sparse input (lil format)",
    "check_sample_weights_shape": _MULTI_COL.format("two columns"),
    "check_sample_weights_not_overwritten": _MULTI_COL.format("two columns"),
    "check_sample_weight_equivalence_on_dense_data": _MULTI_COL.format(
        "30 columns; weight k equals k copies is tested on scores instead"
    ),
    "check_classifiers_one_label_sample_weights": _MULTI_COL.format(
        "ten columns, so the refusal names the columns, not the one class left"
    ),
    "check_estimators_nan_inf": _MULTI_COL.format(
        "three columns, so the refusal names the columns, not the NaN"
    ),
    "check_classifiers_train": (
        "the check expects accuracy > 0.83 on blobs that are separable only with both "
        "features; a calibrator sees the first one"
    ),
    "check_fit1d": "the check expects 1-D X to be rejected, which contradicts one_d_array",
}

_INDEX = r"IndexError: too many indices .*\| y = X\[:, 0\]"
_COLUMNS = r"must be 1-D or have exactly one column .*got shape \(\d+, {}\)"
SCORE_CALIBRATOR_SIGNS = {
    "check_dont_overwrite_parameters": _INDEX,
    "check_dtype_object": r"IndexError: too many indices .*\| X\[0, 0\] = ",
    "check_f_contiguous_array_estimator": _INDEX,
    "check_methods_sample_order_invariance": _INDEX,
    "check_methods_subset_invariance": _INDEX,
    "check_fit2d_1sample": _INDEX,
    "check_fit2d_1feature": _INDEX,
    "check_dict_unchanged": _INDEX,
    "check_fit2d_predict1d": _INDEX,
    "check_estimators_partial_fit_n_features": r"number of features changes.*IndexError: too many",
    "check_n_features_in": r"IndexError: tuple index out of range \| .*X\.shape\[1\]",
    "check_n_features_in_after_fitting": r"IndexError: tuple index out of range \| .*X\.shape\[1\]",
    "check_estimator_sparse_array": r"Cannot convert a 1d sparse array to lil format",
    "check_sample_weights_shape": _COLUMNS.format(2),
    "check_sample_weights_not_overwritten": _COLUMNS.format(2),
    "check_sample_weight_equivalence_on_dense_data": _COLUMNS.format(30),
    "check_classifiers_one_label_sample_weights": r"should have 'class'.*" + _COLUMNS.format(10),
    "check_estimators_nan_inf": r"check for NaN and inf in fit.*" + _COLUMNS.format(3),
    "check_classifiers_train": r"AssertionError: +\| assert accuracy_score\(y, y_pred\) > 0\.83",
    "check_fit1d": r"AssertionError: Did not raise: \[<class 'ValueError'>\]",
}


def failure_signature(exc):
    """``"Type: first line | failing source line | wrapped error"`` of a check's failure."""
    frames = traceback.extract_tb(exc.__traceback__)
    line = frames[-1].line if frames else ""
    lines = str(exc).strip().splitlines()
    wrapped = exc.__cause__ or exc.__context__
    inner = f"{type(wrapped).__name__}: {wrapped}" if wrapped is not None else ""
    return f"{type(exc).__name__}: {lines[0] if lines else ''} | {line} | {inner}"


_PROBABILITY = (
    "with score_scale='probability' (the default) scores must lie in [0, 1], and the check's "
    "data leave it; score_scale='logit' passes this check"
)
_NEGATIVE = (
    "negative scores are refused (the positive_only tag says so), but the message says the "
    "scores leave [0, 1] rather than scikit-learn's 'Negative values in data passed to'"
)
#: further checks a calibrator of probabilities (BetaCalibrator, QuadraticCalibrator with
#: score_scale="probability") cannot pass, with their reason
PROBABILITY_SCALE_XFAILS = {
    **{
        name: _PROBABILITY
        for name in (
            "check_estimators_overwrite_params",
            "check_estimators_fit_returns_self",
            "check_readonly_memmap_input",
            "check_estimators_dtypes",
            "check_sample_weights_pandas_series",
            "check_sample_weights_not_an_array",
            "check_pipeline_consistency",
            "check_estimators_pickle",
            "check_classifier_data_not_an_array",
            "check_non_transformer_estimators_n_iter",
            "check_fit_idempotent",
            "check_fit_check_is_fitted",
        )
    },
    "check_positive_only_tag_during_fit": _NEGATIVE,
}
_LEAVE = r"reads scores as probabilities, but they leave \[0, 1\]"
PROBABILITY_SCALE_SIGNS = {
    **{name: _LEAVE for name in PROBABILITY_SCALE_XFAILS},
    "check_positive_only_tag_during_fit": r"should contain one of the following patterns.*"
    + _LEAVE,
}


def score_calibrator_xfails(estimator):
    """The checks ``estimator`` (a score calibrator) is declared to fail, with their reasons."""
    out = dict(SCORE_CALIBRATOR_XFAILS)
    if getattr(estimator, "score_scale", None) == "probability":
        out = {name: f"{reason} (or: {_PROBABILITY})" for name, reason in out.items()}
    if not hasattr(estimator, "partial_fit"):
        del out["check_estimators_partial_fit_n_features"]
    if getattr(estimator, "score_scale", None) == "probability":
        out.update(PROBABILITY_SCALE_XFAILS)
        # the check wants 1-D X refused, and its 1-D data are: they leave [0, 1]
        del out["check_fit1d"]
    return out


def score_calibrator_signs(estimator):
    """The failure signature (a regular expression) of each declared check of ``estimator``."""
    signs = dict(SCORE_CALIBRATOR_SIGNS)
    if getattr(estimator, "score_scale", None) == "probability":
        # a check whose data leave [0, 1] fails on the range before it reaches its own reason
        signs = {name: f"{_LEAVE}|{sign}" for name, sign in signs.items()}
        signs.update(PROBABILITY_SCALE_SIGNS)
    return {name: signs[name] for name in score_calibrator_xfails(estimator)}


def run_declared_checks(estimator, declared):
    """Run every scikit-learn check on ``estimator``; assert that nothing undeclared fails and
    that each check of ``declared`` (name -> reason) ran and failed; return each check's runs
    (scikit-learn's result records) by name."""
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, on_fail=None, expected_failed_checks=declared)
    failed = sorted({r["check_name"] for r in results if r["status"] == "failed"})
    assert not failed, f"undeclared failures: {failed}"
    by_name = {}
    for r in results:
        by_name.setdefault(r["check_name"], []).append(r)
    for name in declared:
        for r in by_name.get(name, []):
            assert r["status"] == "xfail", f"{name} is declared to fail but {r['status']}"
    return by_name
