"""Loading refuses what venncal did not write, with one line; saving refuses what it cannot."""

import json
import os
import sys

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.naive_bayes import GaussianNB

import venncal
from tests.persistence._cases import fitted
from venncal.persistence import FORMAT_VERSION, ModelFileError, checksum


@pytest.fixture
def model(tmp_path):
    cal, _ = fitted("venn-abers")
    path = venncal.save(cal, tmp_path / "model.json")
    return path, path.read_text(encoding="utf-8")


def _load_error(path):
    with pytest.raises(ModelFileError) as info:
        venncal.load(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    assert isinstance(info.value, ValueError)
    return message


def _resign(doc):
    doc = {k: v for k, v in doc.items() if k != "sha256"}
    return {**doc, "sha256": checksum(doc)}


def _write(tmp_path, doc, name="x.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_truncated_anywhere(model, tmp_path):
    path, text = model
    for cut in sorted({1, 2, 10, len(text) // 3, len(text) // 2, len(text) - 3, len(text) - 2}):
        bad = tmp_path / "cut.json"
        bad.write_text(text[:cut], encoding="utf-8")
        _load_error(bad)


def test_empty_and_binary_files(tmp_path):
    (tmp_path / "empty.json").write_bytes(b"")
    assert "malformed JSON" in _load_error(tmp_path / "empty.json")
    (tmp_path / "bin.json").write_bytes(b"\x80\x04\x95pickle")
    assert "UTF-8" in _load_error(tmp_path / "bin.json")


@pytest.mark.parametrize(
    "old,new",
    [
        ('"merge": "log"', '"merge": "mean"'),  # a parameter
        ("0.3333333333333333", "0.3333333333333334"),  # one digit of a table
        ('"n_features_in_": 1', '"n_features_in_": 2'),
    ],
)
def test_tampered_content_fails_the_checksum(model, tmp_path, old, new):
    path, text = model
    assert old in text
    bad = tmp_path / "tampered.json"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert "checksum" in _load_error(bad)


def test_layout_changes_keep_the_checksum(model, tmp_path):
    """The checksum covers values, not whitespace: a re-indented file still loads."""
    path, text = model
    again = tmp_path / "compact.json"
    again.write_text(json.dumps(json.loads(text)), encoding="utf-8")
    venncal.load(again)


def test_newer_format(model, tmp_path):
    doc = json.loads(model[1])
    doc["format_version"] = FORMAT_VERSION + 1
    doc["venncal_version"] = "9.0"
    message = _load_error(_write(tmp_path, _resign(doc)))
    assert f"format {FORMAT_VERSION + 1}" in message and "upgrade venncal" in message


@pytest.mark.parametrize(
    "cls", ["subprocess.Popen", "os.system", "VennAbersClassifier", "builtins.eval", ""]
)
def test_unknown_class_is_refused_without_importing(model, tmp_path, cls):
    doc = json.loads(model[1])
    doc["class"] = cls
    path = _write(tmp_path, _resign(doc))
    before = set(sys.modules)
    assert "cannot load" in _load_error(path)
    assert set(sys.modules) == before


def test_a_class_that_cannot_be_imported_is_one_line(model, monkeypatch):
    """A built-in class whose module is missing (a partial installation): the file's types
    are found but the class is not; loading says so in one line."""
    import venncal.persistence._model_file as model_file

    monkeypatch.setattr(model_file, "model_class", lambda name: None)
    assert "cannot import its class VennAbersCalibrator" in _load_error(model[0])


@pytest.mark.parametrize(
    "edit,fragment",
    [
        (lambda d: d.pop("fitted"), "'fitted'"),
        (lambda d: d.update(extra=1), "'extra'"),
        (lambda d: d["fitted"].pop("tables_"), "'tables_'"),
        (lambda d: d["params"].update(bogus=1), "no parameter 'bogus'"),
        # names with rows in the table that are not parameter checks
        (lambda d: d["params"].update({"*": 1}), "no parameter '*'"),
        (lambda d: d["params"].update(tables_=1), "no parameter 'tables_'"),
        (lambda d: d["params"].update(classes_=1), "no parameter 'classes_'"),
        (lambda d: d["fitted"].update(n_features_in_={"code": "print(1)"}), "one key among"),
        (
            lambda d: d["fitted"].update(
                x_={"array": {"dtype": "<c16", "shape": [1], "data": [1]}}
            ),
            "dtype",
        ),
        (
            lambda d: d["fitted"].update(
                x_={"array": {"dtype": "<f8", "shape": [3], "data": [1.0]}}
            ),
            "1 values",
        ),
        (
            lambda d: d["fitted"].update(
                x_={"array": {"dtype": "<f8", "shape": [1], "data": ["x"]}}
            ),
            "not a number",
        ),
        (
            lambda d: d["fitted"].update(
                x_={"array": {"dtype": "<i1", "shape": [1], "data": [999]}}
            ),
            "range",
        ),
        (
            lambda d: d["fitted"].update(x_={"dataclass": {"type": "Popen", "fields": {}}}),
            "unknown type",
        ),
        (lambda d: d["fitted"].update(__class__="x"), "fitted attribute name"),
        (lambda d: d["fitted"]["tables_"]["dataclass"]["fields"].pop("breaks0"), "breaks0"),
        (lambda d: d["fitted"]["tables_"]["dataclass"]["fields"].update(evil=1), "evil"),
    ],
)
def test_malformed_content(model, tmp_path, edit, fragment):
    """Even with a valid checksum (recomputed), a file outside the format is refused."""
    doc = json.loads(model[1])
    edit(doc)
    assert fragment in _load_error(_write(tmp_path, _resign(doc)))


@pytest.mark.parametrize(
    "text,fragment",
    [
        ('{"format": "venncal-model", "format": "x"}', "twice"),
        ('{"a": NaN}', "NaN"),
        ("[1, 2]", "not a venncal model file"),
        ('{"format": "something-else"}', "not a venncal model file"),
        ("[" * 100000 + "]" * 100000, "nested"),
    ],
)
def test_not_a_model_file(tmp_path, text, fragment):
    path = tmp_path / "odd.json"
    path.write_text(text, encoding="utf-8")
    assert fragment in _load_error(path)


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        venncal.load(tmp_path / "nowhere.json")


# ----------------------------------------------------------------------------- saving
def test_refuses_to_overwrite(model, tmp_path):
    path, text = model
    cal, _ = fitted("platt")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        venncal.save(cal, path)
    assert path.read_text(encoding="utf-8") == text
    venncal.save(cal, path, overwrite=True)
    assert type(venncal.load(path)).__name__ == "PlattCalibrator"
    assert sorted(os.listdir(tmp_path)) == ["model.json"]  # no temporary file left


def test_failed_save_leaves_nothing(tmp_path):
    cal, _ = fitted("isotonic")
    cal.odd_ = object()
    with pytest.raises(TypeError, match="odd_"):
        venncal.save(cal, tmp_path / "m.json")
    assert os.listdir(tmp_path) == []


def test_save_into_a_folder_or_missing_folder(tmp_path):
    cal, _ = fitted("isotonic")
    with pytest.raises(IsADirectoryError):
        venncal.save(cal, tmp_path)
    with pytest.raises(FileNotFoundError):
        venncal.save(cal, tmp_path / "no" / "m.json")


@pytest.mark.parametrize(
    "wrapper",
    ["VennAbersClassifier", "VennClassifier", "MulticlassVennAbersClassifier", "ProbingClassifier"],
)
def test_wrappers_get_a_type_error_that_says_what_to_do(wrapper, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = getattr(venncal, wrapper)(GaussianNB()).fit(X, y)
    with pytest.raises(TypeError) as info:
        venncal.save(clf, tmp_path / "m.json")
    message = str(info.value)
    assert "\n" not in message and wrapper in message
    assert "venncal.save" in message and "estimator" in message
    assert os.listdir(tmp_path) == []


def test_other_objects_and_unfitted(tmp_path):
    with pytest.raises(TypeError, match="score calibrators"):
        venncal.save({"a": 1}, tmp_path / "m.json")
    with pytest.raises(NotFittedError, match="not fitted"):
        venncal.save(venncal.IsotonicCalibrator(), tmp_path / "m.json")
    with pytest.raises(TypeError, match="overwrite"):
        venncal.save(fitted("isotonic")[0], tmp_path / "m.json", overwrite="yes")
