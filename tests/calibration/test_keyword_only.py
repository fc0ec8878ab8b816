"""Every public estimator takes its parameters by keyword only, as in scikit-learn."""

import inspect

import pytest

import venncal
import venncal.calibration
import venncal.classifiers  # noqa: F401  (the wrapper classifiers below)

CALIBRATORS = [getattr(venncal.calibration, name) for name in venncal.calibration.__all__]

# classifiers wrapping a scikit-learn estimator: only ``estimator`` may be positional,
# as in scikit-learn's CalibratedClassifierCV
WRAPPERS = [
    venncal.VennAbersClassifier,
    venncal.VennClassifier,
    venncal.ProbingClassifier,
    venncal.MulticlassVennAbersClassifier,
]


def _positional(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]  # drop self
    return [
        p.name
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]


def test_every_calibrator_is_listed():
    assert {c.__name__ for c in CALIBRATORS} == {
        "VennAbersCalibrator",
        "IsotonicCalibrator",
        "PlattCalibrator",
        "HistogramCalibrator",
        "BayesianBinningCalibrator",
        "ACPCalibrator",
        "BetaCalibrator",
        "MulticlassVennAbersCalibrator",
        "QuadraticCalibrator",
        "TemperatureCalibrator",
        "ScalingBinningCalibrator",
        "MatrixScalingCalibrator",
        "DirichletCalibrator",
    }


@pytest.mark.parametrize("cls", CALIBRATORS, ids=lambda c: c.__name__)
def test_calibrator_parameters_are_keyword_only(cls):
    assert _positional(cls) == []


@pytest.mark.parametrize("cls", CALIBRATORS, ids=lambda c: c.__name__)
def test_calibrator_refuses_a_positional_parameter(cls):
    first = next(iter(cls().get_params()), None)
    if first is None:
        pytest.skip("no parameters")
    with pytest.raises(TypeError):
        cls(cls().get_params()[first])


@pytest.mark.parametrize("cls", WRAPPERS, ids=lambda c: c.__name__)
def test_wrapper_takes_only_the_estimator_positionally(cls):
    assert _positional(cls) == ["estimator"]
