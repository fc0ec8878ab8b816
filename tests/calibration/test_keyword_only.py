"""Every public estimator takes its parameters by keyword only, as in scikit-learn."""

import importlib
import inspect
import pkgutil

import pytest
from sklearn.base import BaseEstimator

import venncal
import venncal.calibration
import venncal.classifiers  # noqa: F401  (the wrapper classifiers below)

CALIBRATORS = [
    obj
    for obj in (getattr(venncal.calibration, name) for name in venncal.calibration.__all__)
    if inspect.isclass(obj)
]

# classifiers wrapping a scikit-learn estimator: only ``estimator`` may be positional,
# as in scikit-learn's CalibratedClassifierCV
WRAPPERS = [
    venncal.VennAbersClassifier,
    venncal.VennClassifier,
    venncal.ProbingClassifier,
    venncal.MulticlassVennAbersClassifier,
    venncal.VennAbersRegressor,
]


def _positional(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]  # drop self
    return [
        p.name
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]


def test_every_calibrator_is_listed():
    """Every public estimator class the package defines is in ``venncal.calibration.__all__``
    (and so in the checks below)."""
    defined = set()
    for module in pkgutil.iter_modules(venncal.calibration.__path__):
        if module.name.startswith("_"):
            continue
        mod = importlib.import_module(f"venncal.calibration.{module.name}")
        defined |= {
            name
            for name, obj in vars(mod).items()
            if inspect.isclass(obj)
            and issubclass(obj, BaseEstimator)  # calibrators and predictive distributions
            and not name.startswith("_")
            and obj.__module__ == mod.__name__
        }
    assert len(defined) >= 13
    assert {c.__name__ for c in CALIBRATORS} == defined


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
