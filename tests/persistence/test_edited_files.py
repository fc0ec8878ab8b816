"""Model files edited by hand (checksum recomputed): a one-line ModelFileError, never a
calibrator that predicts wrong numbers, a deep traceback or a huge allocation."""

import json

import numpy as np
import pytest

import venncal
from tests.persistence._files import refused_on_load, rewrite
from venncal.persistence import FORMAT_VERSION


def _saved(tmp_path, cal, name="m.json"):
    path = venncal.save(cal, tmp_path / name)
    return path, json.loads(path.read_text())


def _data(n=300):
    rng = np.random.default_rng(0)
    s = rng.random(n)
    return s, (rng.random(n) < s).astype(int)


@pytest.fixture
def va(tmp_path):
    return _saved(tmp_path, venncal.VennAbersCalibrator().fit(*_data()))


def test_an_integer_too_long_to_convert(va):
    path, doc = va
    text = path.read_text().replace(
        f'"format_version": {FORMAT_VERSION}', '"format_version": ' + "9" * 5000
    )
    path.write_text(text)
    refused_on_load(path, "is not a venncal model file")


def _arrays(node):
    if isinstance(node, dict):
        if set(node) == {"array"}:
            yield node["array"]
        for v in node.values():
            yield from _arrays(v)
    elif isinstance(node, list):
        for v in node:
            yield from _arrays(v)


def test_an_array_of_too_many_dimensions(va):
    path, doc = va
    body = next(_arrays(doc["fitted"]))
    body["shape"] = [0] + [1] * 70
    body["data"] = []
    rewrite(path, doc)
    refused_on_load(path, "at most 8")


def test_a_string_dtype_far_wider_than_its_strings(tmp_path):
    s, y = _data()
    labels = np.where(y == 1, "pos", "neg")
    path, doc = _saved(tmp_path, venncal.VennAbersCalibrator().fit(s, labels))
    body = next(b for b in _arrays(doc) if b["dtype"].lstrip("<>|=").startswith("U"))
    body["dtype"] = "<U999999"
    rewrite(path, doc)
    refused_on_load(path, "far wider than its strings")


def _tables(doc):
    return doc["fitted"]["tables_"]["dataclass"]["fields"]


def test_swapped_venn_abers_tables_are_refused(va):
    path, doc = va
    fields = _tables(doc)
    fields["breaks0"], fields["breaks1"] = fields["breaks1"], fields["breaks0"]
    fields["values0"], fields["values1"] = fields["values1"], fields["values0"]
    rewrite(path, doc)
    refused_on_load(path, "p0 > p1", "edited or damaged")


@pytest.mark.parametrize(
    "edit, said",
    [
        (lambda f: f["values0"]["array"].update(data=f["values0"]["array"]["data"][:-1],
                                                 shape=[len(f["values0"]["array"]["data"]) - 1]),
         "one value more than breaks0"),
        (lambda f: f["values1"]["array"]["data"].__setitem__(-1, 7.5), "outside [0, 1]"),
        (lambda f: f["breaks1"]["array"]["data"].reverse(), "strictly increasing"),
    ],
)  # fmt: skip
def test_broken_venn_abers_tables_are_refused(va, edit, said):
    path, doc = va
    edit(_tables(doc))
    rewrite(path, doc)
    refused_on_load(path, said)


def test_a_fitted_attribute_of_the_wrong_type_is_refused(va):
    path, doc = va
    doc["fitted"]["tables_"] = "hello"
    rewrite(path, doc)
    refused_on_load(path, "must be a IVAPTables")


def test_the_command_line_refuses_an_edited_model(va, tmp_path):
    from click.testing import CliRunner

    from venncal.cli import main

    path, doc = va
    fields = _tables(doc)
    fields["values1"]["array"]["data"][-1] = 7.5
    rewrite(path, doc)
    (tmp_path / "t.csv").write_text("score\n0.5\n")
    result = CliRunner().invoke(main, ["apply", str(path), str(tmp_path / "t.csv"), "-o",
                                       str(tmp_path / "o.csv")])  # fmt: skip
    assert result.exit_code == 2 and "outside [0, 1]" in result.output
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize(
    "cal, attr, field, value, said",
    [
        (venncal.HistogramCalibrator(), "binning_", "values", 7.5, "outside [0, 1]"),
        (venncal.HistogramCalibrator(), "binning_", "edges", None, "strictly increasing"),
        (venncal.BayesianBinningCalibrator(), "binning_", "values", 1.0, "strictly inside (0, 1)"),
        (venncal.IsotonicCalibrator(), "step_function_", "y", -0.5, "outside [0, 1]"),
    ],
)
def test_other_tables_are_checked_too(tmp_path, cal, attr, field, value, said):
    path, doc = _saved(tmp_path, cal.fit(*_data()))
    data = doc["fitted"][attr]["dataclass"]["fields"][field]["array"]["data"]
    if value is None:
        data.reverse()
    else:
        data[-1] = value
    rewrite(path, doc)
    refused_on_load(path, said)


def test_a_platt_sigmoid_with_a_non_finite_coefficient_is_refused(tmp_path):
    path, doc = _saved(tmp_path, venncal.PlattCalibrator().fit(*_data()))
    doc["fitted"]["sigmoid_"]["dataclass"]["fields"]["a_scaled"] = {"float": "nan"}
    rewrite(path, doc)
    refused_on_load(path, "a_scaled must be a finite number")


@pytest.mark.parametrize(
    "field, edit, said",
    [
        ("cum_positive", lambda d: d.__setitem__(-1, d[-1] + 50.0), "grow by between 0"),
        ("cum_total", lambda d: d.__setitem__(0, 1.0), "start at 0"),
        ("cum_total", lambda d: d.__setitem__(slice(None), d[::-1]), "start at 0"),
        ("positions", lambda d: d.reverse(), "strictly increasing"),
        ("cum_positive", lambda d: d.pop(), "one value more than positions"),
    ],
)
def test_an_edited_acp_table_is_refused(tmp_path, field, edit, said):
    path, doc = _saved(tmp_path, venncal.ACPCalibrator().fit(*_data()))
    body = doc["fitted"]["table_"]["dataclass"]["fields"][field]["array"]
    edit(body["data"])
    body["shape"] = [len(body["data"])]
    rewrite(path, doc)
    refused_on_load(path, said)


def test_an_acp_table_that_loses_positives_is_refused(tmp_path):
    # positives that fall at one position: the fractions of the intervals would change
    path, doc = _saved(tmp_path, venncal.ACPCalibrator().fit(*_data()))
    data = doc["fitted"]["table_"]["dataclass"]["fields"]["cum_positive"]["array"]["data"]
    data[len(data) // 2] = data[len(data) // 2 - 1] - 1.0
    rewrite(path, doc)
    refused_on_load(path, "grow by between 0")


@pytest.mark.parametrize(
    "value, said",
    [([[1.0, 0.5], [0.0, 1.0]], "symmetric"), ([[-1.0, 0.0], [0.0, 1.0]], "semi-definite"),
     ([[1.0, 2.0], [2.0, 1.0]], "semi-definite"), ([[1.0, 0.0, 0.0]], "2 x 2")],
)  # fmt: skip
def test_an_edited_acp_covariance_is_refused(tmp_path, value, said):
    path, doc = _saved(tmp_path, venncal.ACPCalibrator().fit(*_data()))
    body = doc["fitted"]["covariance_scaled_"]["array"]
    body["data"] = [x for row in value for x in row]
    body["shape"] = [len(value), len(value[0])]
    rewrite(path, doc)
    refused_on_load(path, said)


@pytest.mark.parametrize(
    "parameters, field, value, said",
    [
        ("abm", "a", -1.0, "non-negative"),
        ("abm", "c", {"float": "inf"}, "c must be a finite number"),
        ("abm", "parameters", "abc", "parameters must be one of"),
        ("abm", "score_scale", "odds", "score_scale must be one of"),
        ("am", "b", 123.0, "a and b must be equal"),
        ("ab", "c", 0.75, "midpoint at 1/2"),
    ],
)
def test_an_edited_beta_map_is_refused(tmp_path, parameters, field, value, said):
    cal = venncal.BetaCalibrator(parameters=parameters).fit(*_data())
    path, doc = _saved(tmp_path, cal)
    doc["fitted"]["map_"]["dataclass"]["fields"][field] = value
    rewrite(path, doc)
    refused_on_load(path, said)


def test_beta_coefficients_that_disagree_with_the_map_are_refused(tmp_path):
    path, doc = _saved(tmp_path, venncal.BetaCalibrator().fit(*_data()))
    doc["fitted"]["a_"] = 99.0
    rewrite(path, doc)
    refused_on_load(path, "a_ must equal")


@pytest.mark.parametrize(
    "cal", [venncal.ACPCalibrator(), venncal.ACPCalibrator(alpha=0.5), venncal.BetaCalibrator(),
            venncal.BetaCalibrator(parameters="am"), venncal.BetaCalibrator(parameters="ab")],
)  # fmt: skip
def test_genuine_acp_and_beta_files_still_load(tmp_path, cal):
    rng = np.random.default_rng(1)
    s = rng.random(2000)
    y = (rng.random(2000) < s).astype(int)
    w = rng.exponential(size=2000) * 10.0 ** rng.integers(-6, 6, 2000)  # wide weights
    fitted = cal.fit(s, y, sample_weight=w)
    path = venncal.save(fitted, tmp_path / "m.json")
    loaded = venncal.load(path)
    t = rng.random(50)
    np.testing.assert_array_equal(loaded.predict_proba(t), fitted.predict_proba(t))
