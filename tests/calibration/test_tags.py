"""The classifier tags that the calibrators declare to scikit-learn: the calibrators of a score
matrix take any number of classes, those of 1-D scores two."""

import pytest
from sklearn.utils import get_tags

from venncal import (
    DirichletCalibrator,
    IsotonicCalibrator,
    MatrixScalingCalibrator,
    MulticlassVennAbersCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
    VennAbersCalibrator,
)


@pytest.mark.parametrize(
    "cal",
    [
        MulticlassVennAbersCalibrator(),
        TemperatureCalibrator(),
        DirichletCalibrator(),
        MatrixScalingCalibrator(),
    ],
    ids=repr,
)
def test_score_matrix_calibrators_are_multiclass(cal):
    assert get_tags(cal).classifier_tags.multi_class is True


@pytest.mark.parametrize(
    "cal", [VennAbersCalibrator(), IsotonicCalibrator(), PlattCalibrator()], ids=repr
)
def test_score_calibrators_are_binary(cal):
    assert get_tags(cal).classifier_tags.multi_class is False
