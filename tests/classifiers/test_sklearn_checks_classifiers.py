"""scikit-learn's estimator checks on every configuration of the wrapper classifiers.

The checks a configuration is declared to fail (tests/classifiers/sklearn_checks.py) run in
strict xfail mode: one that starts to pass fails here, so its declaration must go.
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from tests.classifiers.sklearn_checks import (
    CONFIGURATIONS,
    SLOW_CONFIGURATIONS,
    declared_failures,
)

# scikit-learn's check_classifiers_one_label_sample_weights gives one class zero weight;
# GaussianNB then takes the log of that class's zero prior (its own warning, not ours)
pytestmark = pytest.mark.filterwarnings("ignore:divide by zero encountered in log:RuntimeWarning")


@parametrize_with_checks(
    CONFIGURATIONS, expected_failed_checks=declared_failures, xfail_strict=True
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks(
    SLOW_CONFIGURATIONS, expected_failed_checks=declared_failures, xfail_strict=True
)
def test_sklearn_compatible_transductive(estimator, check):
    check(estimator)
