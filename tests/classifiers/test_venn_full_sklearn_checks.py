"""scikit-learn's estimator checks on the transductive VennClassifier."""

import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

from venncal import VennClassifier

_WEIGHTS = (
    "method='full' refuses sample_weight: the test object joins the training set with weight "
    "one, so weights would break the exchangeability that makes the predictor valid"
)
_EQ5 = (
    "predict is the label of largest lower probability (Johansson et al. 2018, eq. 5), while "
    "predict_proba normalises the upper probabilities; they can rank two labels differently"
)
_EXPECTED = {
    "check_sample_weights_pandas_series": _WEIGHTS,
    "check_sample_weights_not_an_array": _WEIGHTS,
    "check_sample_weights_list": _WEIGHTS,
    "check_sample_weights_shape": _WEIGHTS,
    "check_sample_weights_not_overwritten": _WEIGHTS,
    "check_sample_weight_equivalence_on_dense_data": _WEIGHTS,
    "check_sample_weight_equivalence_on_sparse_data": _WEIGHTS,
    "check_classifiers_one_label_sample_weights": _WEIGHTS,
    "check_classifiers_train": _EQ5,
}


@pytest.mark.slow
@parametrize_with_checks(
    [VennClassifier(GaussianNB(), method="full", taxonomy="bins", n_bins=3)],
    expected_failed_checks=lambda est: _EXPECTED,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
