"""scikit-learn's estimator checks for calibrators that take one column of scores.

A score calibrator declares ``one_d_array`` in its tags, and scikit-learn's checks then reduce
their feature matrices to the first column before fitting. A few checks cannot work with such an
estimator, for reasons inside the checks themselves (scikit-learn exempts its own 1-D estimator,
``IsotonicRegression``, from the whole suite). Each is listed here with the reason; every other
check must pass.
"""

_ONE_D = "the check indexes X[:, 0] after reducing X to one column for a one_d_array estimator"
_TWO_COL = (
    "the check passes a multi-column X without the one_d_array reduction; a calibrator "
    "rejects more than one score column by design"
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
    "check_estimators_partial_fit_n_features": _ONE_D,
    "check_n_features_in": "the check reads X.shape[1] of the reduced 1-D X",
    "check_n_features_in_after_fitting": "the check reads X.shape[1] of the reduced 1-D X",
    "check_estimator_sparse_array": "the check cannot build its 1-D sparse input (lil format)",
    "check_sample_weights_shape": _TWO_COL,
    "check_sample_weights_not_overwritten": _TWO_COL,
    "check_sample_weight_equivalence_on_dense_data": _TWO_COL,
    "check_classifiers_one_label_sample_weights": _TWO_COL,
    "check_estimators_nan_inf": (
        "the NaN the check plants is not in the first column, so the reduced X has none; "
        "NaN scores are rejected (tested in venncal's own tests)"
    ),
    "check_classifiers_train": (
        "the check expects accuracy > 0.83 on blobs that are separable only with both "
        "features; a calibrator sees the first one"
    ),
    "check_fit1d": "the check expects 1-D X to be rejected, which contradicts one_d_array",
}
