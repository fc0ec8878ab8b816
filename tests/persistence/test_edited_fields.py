"""Edited model files (checksum recomputed) whose every value is well-formed but breaks what a
fit guarantees: refused with one ModelFileError line, before the calibrator predicts."""

import json
import tracemalloc

import numpy as np
import pytest

import venncal
from tests.persistence._files import refused_on_load, rewrite
from tests.persistence._savable import fitted_instances, multiclass_data
from venncal.persistence import ModelFileError


def _save(tmp_path, cal, **kwargs):
    path = venncal.save(cal, tmp_path / "m.json", **kwargs)
    return path, json.loads(path.read_text())


def _refused(path, doc, *fragments):
    rewrite(path, doc)
    return refused_on_load(path, *fragments)


def _fields(node):
    return node["dataclass"]["fields"]


def _data(node):
    return node["array"]["data"]


def _multiclass(tmp_path, **params):
    p, y = multiclass_data()
    cal = venncal.MulticlassVennAbersCalibrator(**params).fit(p, y)
    return _save(tmp_path, cal)


def _va(tmp_path, **kwargs):
    return _save(tmp_path, fitted_instances("VennAbersCalibrator")[0], **kwargs)


def test_a_one_vs_rest_table_with_negative_probabilities_is_refused(tmp_path):
    path, doc = _multiclass(tmp_path, strategy="ovr", pooled=False)
    first = _fields(_fields(doc["fitted"]["tables_"])["tables"]["tuple"][0])
    _data(first["values0"])[0] = -0.7
    _refused(path, doc, "tables_.tables[0].values0", "outside [0, 1]")


def test_a_pairwise_table_with_p0_above_p1_is_refused(tmp_path):
    path, doc = _multiclass(tmp_path, strategy="pairwise", pooled=False)
    table = _fields(_fields(doc["fitted"]["tables_"])["tables"]["tuple"][1])
    values0 = _data(table["values0"])
    values0[:] = [0.999] * len(values0)
    _refused(path, doc, "tables_.tables[1]", "p0 > p1")


def test_a_pooled_table_with_p0_above_p1_is_refused(tmp_path):
    path, doc = _multiclass(tmp_path)
    table = _fields(_fields(doc["fitted"]["tables_"])["table"])
    _data(table["values1"])[-1] = _data(table["values0"])[-1] / 2
    _data(table["values1"])[:] = sorted(_data(table["values1"]))
    _refused(path, doc, "p0 > p1")


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
def test_a_changed_number_of_classes_is_refused(tmp_path, strategy):
    path, doc = _multiclass(tmp_path, strategy=strategy, pooled=False)
    _fields(doc["fitted"]["tables_"])["K"] = 4
    _refused(path, doc, "tables_")


def test_a_huge_number_of_classes_is_refused_without_allocating(tmp_path):
    path, doc = _multiclass(tmp_path, strategy="ovr")
    _fields(doc["fitted"]["tables_"])["K"] = 100000
    tracemalloc.start()
    try:
        _refused(path, doc, "number of classes")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20


def test_pairwise_tables_beyond_the_class_limit_are_refused(tmp_path):
    path, doc = _multiclass(tmp_path)
    _fields(doc["fitted"]["tables_"])["K"] = 101
    _refused(path, doc, "tables_.K")


def test_a_strategy_that_does_not_match_the_tables_is_refused(tmp_path):
    path, doc = _multiclass(tmp_path, strategy="ovr")
    doc["fitted"]["strategy_"] = "pairwise"
    _refused(path, doc, "strategy_")


def test_a_pooled_flag_that_does_not_match_the_tables_is_refused(tmp_path):
    path, doc = _multiclass(tmp_path, strategy="ovr")
    doc["params"]["pooled"] = False
    _refused(path, doc, "pooled=False")


@pytest.mark.parametrize(
    "param,value,said",
    [
        ("coupling", "bogus", "'coupling' parameter"),
        ("merge", "geometric", "'merge' parameter"),
        ("score_type", "odds", "'score_type' parameter"),
        ("pooled", "yes", "'pooled' parameter"),
    ],
)
def test_multiclass_parameters_are_validated(tmp_path, param, value, said):
    path, doc = _multiclass(tmp_path)
    doc["params"][param] = value
    _refused(path, doc, said, "MulticlassVennAbersCalibrator")


@pytest.mark.parametrize(
    "param,value,said",
    [
        ("merge", "bogus", "'merge' parameter"),
        ("decimals", 400, "'decimals' parameter"),
        ("group_fallback", "drop", "'group_fallback' parameter"),
    ],
)
def test_binary_parameters_are_validated(tmp_path, param, value, said):
    path, doc = _va(tmp_path)
    doc["params"][param] = value
    _refused(path, doc, said)


def test_repeated_classes_are_refused(tmp_path):
    path, doc = _va(tmp_path)
    _data(doc["fitted"]["classes_"])[:] = [1, 1]
    _refused(path, doc, "classes_", "distinct")


def test_multiclass_repeated_classes_are_refused(tmp_path):
    path, doc = _multiclass(tmp_path)
    _data(doc["fitted"]["classes_"])[:] = [0, 2, 2]
    _refused(path, doc, "classes_", "distinct")


def test_repeated_groups_are_refused(tmp_path):
    path, doc = _save(tmp_path, fitted_instances("VennAbersCalibrator")[1])
    assert doc["fitted"]["groups_"] == ["a", "b"]
    doc["fitted"]["groups_"] = ["a", "a"]
    _refused(path, doc, "groups_", "distinct")


def test_groups_without_their_tables_are_refused(tmp_path):
    path, doc = _save(tmp_path, fitted_instances("VennAbersCalibrator")[1])
    doc["fitted"]["group_tables_"] = doc["fitted"]["group_tables_"][:1]
    _refused(path, doc, "one table per group")


def test_decimals_out_of_range_are_refused(tmp_path):
    path, doc = _va(tmp_path)
    doc["fitted"]["decimals_"] = 400
    _refused(path, doc, "decimals_")


def test_a_file_that_drops_the_rounding_is_refused(tmp_path):
    path, doc = _save(tmp_path, fitted_instances("VennAbersCalibrator")[1])
    del doc["fitted"]["decimals_"]
    _refused(path, doc, "decimals_ is missing")


def test_negative_counts_for_partial_fit_are_refused(tmp_path):
    path, doc = _va(tmp_path, with_data=True)
    n0 = _data(_fields(doc["fitted"]["aggregate_"])["n0"])
    n0[0] = -3
    _refused(path, doc, "aggregate_.n0", "non-negative")


def test_p0_above_p1_by_a_hair_is_refused(tmp_path):
    """The fit's p0 <= p1 is exact: no tolerance."""
    path, doc = _va(tmp_path)
    fields = _fields(doc["fitted"]["tables_"])
    values0, values1 = _data(fields["values0"]), _data(fields["values1"])
    assert values1[0] < 0.5
    values0[0] = float(np.nextafter(values1[0], 2.0))  # one ulp above p1 at low scores
    for k in range(1, len(values0)):
        values0[k] = max(values0[k], values0[0])
    _refused(path, doc, "p0 > p1")


def test_histogram_copies_must_match_their_bins(tmp_path):
    cal = fitted_instances("HistogramCalibrator")[0]
    path, doc = _save(tmp_path, cal)
    _data(doc["fitted"]["bin_edges_"])[1] += 1e-3
    _refused(path, doc, "bin_edges_ must equal")


def test_platt_copies_must_match_their_sigmoid(tmp_path):
    cal = fitted_instances("PlattCalibrator")[0]
    path, doc = _save(tmp_path, cal)
    doc["fitted"]["a_"] = doc["fitted"]["a_"] + 1.0
    _refused(path, doc, "a_ must equal")


def test_a_missing_registered_attribute_is_refused_before_the_class_is_built(tmp_path):
    path, doc = _multiclass(tmp_path)
    del doc["fitted"]["strategy_"]
    rewrite(path, doc)
    with pytest.raises(ModelFileError, match="'strategy_'"):
        venncal.persistence.read_model_state(path)


@pytest.mark.parametrize("value", [10**400, -(10**309)])
def test_integers_beyond_a_float_are_refused_as_coefficients(tmp_path, value):
    cal = fitted_instances("PlattCalibrator")[0]
    path, doc = _save(tmp_path, cal)
    _fields(doc["fitted"]["sigmoid_"])["a_scaled"] = value
    _fields(doc["fitted"]["sigmoid_"])["b_scaled"] = value
    text = _refused(path, doc)
    assert "finite" in text or "equal" in text or "number" in text, text


def test_a_float_tag_holding_an_object_is_refused(tmp_path):
    cal = fitted_instances("PlattCalibrator")[0]
    path, doc = _save(tmp_path, cal)
    doc["params"]["max_iter"] = {"float": {"float": "inf"}}
    _refused(path, doc, "is not inf, -inf or nan")


def test_a_large_integer_coefficient_is_a_number(tmp_path):
    cal = fitted_instances("PlattCalibrator")[0]
    path, doc = _save(tmp_path, cal)
    _fields(doc["fitted"]["sigmoid_"])["b_scaled"] = 10**20
    rewrite(path, doc)
    p = venncal.load(path).predict_proba(np.linspace(0, 1, 5))
    assert np.isfinite(p).all() and ((p >= 0) & (p <= 1)).all()


def test_dirichlet_weights_whose_logits_overflow_are_refused(tmp_path):
    p, y = multiclass_data()
    cal = venncal.DirichletCalibrator().fit(p, y)
    path, doc = _save(tmp_path, cal)
    _data(_fields(doc["fitted"]["map_"])["weights"])[2] = -1e308
    _refused(path, doc, "logits overflow")


@pytest.mark.parametrize("value", [1e308, -1e308])
def test_matrix_scaling_coefficients_whose_logits_overflow_are_refused(tmp_path, value):
    p, y = multiclass_data()
    cal = venncal.MatrixScalingCalibrator(structure="full").fit(p, y)
    path, doc = _save(tmp_path, cal)
    _data(_fields(doc["fitted"]["map_"])["delta"])[1] = value
    _refused(path, doc, "map_.delta", "logits overflow")


def test_matrix_scaling_inverse_temperature_beyond_the_fit_is_refused(tmp_path):
    p, y = multiclass_data()
    path, doc = _save(tmp_path, venncal.MatrixScalingCalibrator().fit(p, y))
    _fields(doc["fitted"]["map_"])["inverse_temperature"] = 1e300
    _refused(path, doc, "inverse_temperature")


@pytest.mark.parametrize("digits", [401, 4000])
def test_integers_of_any_size_are_one_line(tmp_path, digits):
    path, doc = _save(tmp_path, venncal.QuadraticCalibrator().fit(*_binary()))
    doc["fitted"]["intercept_"] = 10 ** (digits - 1)
    _refused(path, doc, "intercept_")


def _binary():
    rng = np.random.default_rng(0)
    s = rng.random(100)
    return s, (rng.random(100) < s).astype(int)
