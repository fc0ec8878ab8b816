"""A saved and loaded calibrator is the same calibrator: parameters, fitted state, predictions."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import venncal
from tests.persistence._cases import CALIBRATORS, assert_same, data, fitted, predictions
from venncal import ACPCalibrator, PlattCalibrator, VennAbersCalibrator
from venncal.persistence import FORMAT_VERSION
from venncal.persistence._registry import model_class


def _fitted_state(cal, with_data=False):
    data = () if with_data else model_class(type(cal).__name__).data
    return {
        k: v
        for k, v in vars(cal).items()
        if k.endswith("_") and not k.startswith("_") and k not in data
    }


@pytest.mark.parametrize("name", list(CALIBRATORS))
@pytest.mark.parametrize(
    "kind",
    [
        {"labels": "int"},
        {"labels": "str", "weighted": True},
        {"labels": "bool", "scale": 1e-200},
        {"labels": "pm1", "scale": 1e200},
    ],
    ids=["int", "str-weighted", "bool-tiny", "pm1-huge"],
)
def test_round_trip_is_exact(name, kind, tmp_path):
    cal, t = fitted(name, **kind)
    path = venncal.save(cal, tmp_path / "model.json")
    loaded = venncal.load(path)
    assert type(loaded) is type(cal)
    assert loaded.get_params() == cal.get_params()
    assert_same(_fitted_state(loaded), _fitted_state(cal), "fitted")
    assert_same(predictions(loaded, t), predictions(cal, t), "predictions")


def test_file_is_strict_json_of_numbers_and_strings(tmp_path):
    """No NaN/Infinity tokens even when fitted values are not finite; only JSON scalars."""
    s, y, _, t = data(1, scale=1e-300)
    cal = ACPCalibrator().fit(s, y)
    assert not np.isfinite(cal.covariance_).all()  # the case the encoding must handle
    path = venncal.save(cal, tmp_path / "acp.json")

    def refuse(name):
        raise AssertionError(f"non-standard JSON token {name}")

    doc = json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)

    def leaves(x):
        if isinstance(x, dict):
            for v in x.values():
                yield from leaves(v)
        elif isinstance(x, list):
            for v in x:
                yield from leaves(v)
        else:
            yield x

    assert all(v is None or type(v) in (str, int, float, bool) for v in leaves(doc))
    assert_same(predictions(venncal.load(path), t), predictions(cal, t))


def test_header(tmp_path):
    cal, _ = fitted("venn-abers")
    doc = json.loads(venncal.save(cal, tmp_path / "m.json").read_text(encoding="utf-8"))
    assert doc["format"] == "venncal-model" and doc["format_version"] == FORMAT_VERSION
    assert doc["venncal_version"] == venncal.__version__
    assert doc["class"] == "VennAbersCalibrator" and doc["params"]["merge"] == "log"
    assert len(doc["sha256"]) == 64


def test_new_fitted_attributes_are_kept(tmp_path):
    """Public attributes ending in '_' beyond the registered ones are saved too."""
    cal, t = fitted("isotonic")
    cal.extra_counts_ = np.array([1.5, -0.0, np.inf])
    cal.decimals_ = None
    loaded = venncal.load(venncal.save(cal, tmp_path / "m.json"))
    assert_same(loaded.extra_counts_, cal.extra_counts_)
    assert loaded.decimals_ is None


def test_extreme_floats_round_trip(tmp_path):
    """Subnormals, the largest float, negative zero: read back bit for bit."""
    s = np.array([5e-324, -0.0, 1.7976931348623157e308, -1.7976931348623157e308, 1e-310, 0.1])
    y = np.array([0, 1, 1, 0, 1, 0])
    for cal in (VennAbersCalibrator(), PlattCalibrator(), ACPCalibrator()):
        cal.fit(s, y, sample_weight=np.array([1e-300, 1e300, 1.0, 2.5, 7.0, 1e-5]))
        loaded = venncal.load(venncal.save(cal, tmp_path / f"{type(cal).__name__}.json"))
        assert_same(predictions(loaded, s), predictions(cal, s))


def test_infinite_total_weight_round_trips(tmp_path):
    cal = VennAbersCalibrator().fit([0.1, 0.2, 0.3], [0, 1, 1], sample_weight=[1e308] * 3)
    assert cal.tables_.n_calibration == math.inf
    loaded = venncal.load(venncal.save(cal, tmp_path / "m.json"))
    assert loaded.tables_.n_calibration == math.inf


_CHILD = """
import sys, json, numpy as np, venncal
from tests.persistence._cases import predictions
out = {}
for name, path in json.loads(sys.argv[1]).items():
    cal = venncal.load(path)
    t = np.array([float.fromhex(h) for h in json.loads(sys.argv[2])])
    out[name] = {k: [float(x).hex() for x in np.ravel(v.astype(float))]
                 for k, v in predictions(cal, t).items()}
print(json.dumps(out))
"""


def test_fresh_process_predicts_bit_identically(tmp_path):
    """Load in a new interpreter (nothing cached) and compare predictions as float.hex."""
    paths, expected = {}, {}
    _, _, _, t = data(5, labels="int")
    for name in CALIBRATORS:
        cal, _ = fitted(name, seed=3, labels="int", weighted=True)
        paths[name] = str(venncal.save(cal, tmp_path / f"{name}.json"))
        expected[name] = {
            k: [float(x).hex() for x in np.ravel(v.astype(float))]
            for k, v in predictions(cal, t).items()
        }
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(paths), json.dumps([x.hex() for x in t])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected


@pytest.mark.parametrize("name", list(CALIBRATORS))
def test_with_data_keeps_what_partial_fit_needs(name, tmp_path):
    """Without ``with_data`` the pooled calibration data stay out; with it, updates continue."""
    cal, t = fitted(name, labels="str")
    small = venncal.save(cal, tmp_path / "small.json")
    full = venncal.save(cal, tmp_path / "full.json", with_data=True)
    assert "aggregate_" not in json.loads(small.read_text(encoding="utf-8"))["fitted"]
    loaded = venncal.load(full)
    assert_same(_fitted_state(loaded, True), _fitted_state(cal, True), "fitted")
    if not hasattr(cal, "partial_fit") or not hasattr(cal, "aggregate_"):
        return
    assert small.stat().st_size < full.stat().st_size
    s_new, y_new, _, _ = data(9, n=120, labels="str")
    cal.partial_fit(s_new, y_new)
    loaded.partial_fit(s_new, y_new)
    assert_same(predictions(loaded, t), predictions(cal, t), "after partial_fit")


def test_metadata_round_trips_and_is_checked(tmp_path):
    from venncal.persistence import read_model_file

    cal, _ = fitted("venn-abers")
    notes = {"score": "margin", "rows": 300, "rate": 0.25, "positive": None, "weighted": False}
    model = read_model_file(venncal.save(cal, tmp_path / "m.json", metadata=notes))
    assert model.metadata == notes and model.format_version == FORMAT_VERSION
    assert model.venncal_version == venncal.__version__
    assert read_model_file(venncal.save(cal, tmp_path / "n.json")).metadata == {}
    with pytest.raises(TypeError, match="metadata"):
        venncal.save(cal, tmp_path / "o.json", metadata={"a": [1]})
    with pytest.raises(ValueError, match="finite"):
        venncal.save(cal, tmp_path / "o.json", metadata={"a": math.nan})


def test_venn_abers_within_groups_round_trips(tmp_path):
    """A Mondrian (per-group) Venn-Abers model keeps its groups and per-group tables."""
    s, y, _, t = data(4, labels="str")
    rng = np.random.default_rng(4)
    groups = rng.choice(np.array(["north", "south", "east"]), size=s.shape[0])
    try:
        cal = VennAbersCalibrator().fit(s, y, groups=groups)
    except TypeError:
        pytest.skip("no groups in this version")
    loaded = venncal.load(venncal.save(cal, tmp_path / "groups.json"))
    test_groups = rng.choice(np.array(["north", "south", "east"]), size=t.shape[0])
    assert_same(
        loaded.predict_interval(t, groups=test_groups), cal.predict_interval(t, groups=test_groups)
    )
    assert_same(_fitted_state(loaded), _fitted_state(cal), "fitted")
