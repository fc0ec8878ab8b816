"""A calibrator class added later plugs into model files by one registration."""

from dataclasses import dataclass

import numpy as np
import pytest

import venncal
from tests.persistence._cases import assert_same
from venncal.calibration._base import BaseScoreCalibrator
from venncal.persistence import register_model_class, registered_names


@dataclass(frozen=True)
class _Shift:
    offset: float
    edges: np.ndarray


class ShiftCalibratorForModelFiles(BaseScoreCalibrator):
    def __init__(self, *, offset=0.25, tag=("a", 1)):
        self.offset = offset
        self.tag = tag

    def _fit(self, s, y01, w):
        self.shift_ = _Shift(self.offset, np.quantile(s, [0.25, 0.5, 0.75]))
        self.rate_ = np.float64(y01.mean())

    def _predict_positive(self, s):
        i = np.searchsorted(self.shift_.edges, s)
        return np.clip(self.rate_ + self.shift_.offset * (i - 1.5) / 2, 0, 1)


def test_registered_class_round_trips(tmp_path):
    cal = ShiftCalibratorForModelFiles(offset=0.1).fit([0.1, 0.5, 0.7, 0.9], [0, 1, 0, 1])
    with pytest.raises(TypeError, match="register"):
        venncal.save(cal, tmp_path / "m.json")
    register_model_class(ShiftCalibratorForModelFiles, fitted=["shift_", "rate_"], types=[_Shift])
    assert "ShiftCalibratorForModelFiles" in registered_names()
    loaded = venncal.load(venncal.save(cal, tmp_path / "m.json"))
    assert loaded.get_params() == {"offset": 0.1, "tag": ("a", 1)}
    assert_same(loaded.rate_, cal.rate_)
    assert_same(loaded.shift_, cal.shift_)
    t = np.linspace(0, 1, 11)
    np.testing.assert_array_equal(loaded.predict_proba(t), cal.predict_proba(t))


def test_registration_checks_its_input():
    with pytest.raises(ValueError, match="ending in '_'"):
        register_model_class(ShiftCalibratorForModelFiles, fitted=["shift"])
    with pytest.raises(TypeError, match="dataclasses"):
        register_model_class(ShiftCalibratorForModelFiles, fitted=["shift_"], types=[dict])
    other = type("VennAbersCalibrator", (BaseScoreCalibrator,), {})
    with pytest.raises(ValueError, match="registered already"):
        register_model_class(other, fitted=[])
