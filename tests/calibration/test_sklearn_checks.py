"""scikit-learn's estimator checks on the score calibrators."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from tests.calibration.sklearn_checks import SCORE_CALIBRATOR_XFAILS
from venncal import IsotonicCalibrator, VennAbersCalibrator


@parametrize_with_checks(
    [
        VennAbersCalibrator(merge="square"),
        IsotonicCalibrator(rule="nearest"),
    ],
    expected_failed_checks=lambda est: SCORE_CALIBRATOR_XFAILS,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
