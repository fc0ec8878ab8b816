"""venncal.dask with K-class calibrators: fits by passes over partitions equal the in-memory
fit, apply equals predict_proba, and bad input gets a one-line error."""

import json

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import venncal  # noqa: E402
import venncal.dask as vdask  # noqa: E402
from tests._class_frames import CASES, assert_same_fit, class_data  # noqa: E402
from venncal.calibration import (  # noqa: E402
    MatrixScalingCalibrator,
    MulticlassVennAbersCalibrator,
    TemperatureCalibrator,
)


def new(cal):
    return cal.__class__(**cal.get_params())


@pytest.mark.parametrize(("cal", "kind"), CASES, ids=lambda c: repr(c))
def test_a_dask_fit_reaches_the_in_memory_likelihood(client, cal, kind):
    pdf, S, labels, columns = class_data(kind)
    frame = dd.from_pandas(pdf, npartitions=4, sort=False)
    local = new(cal).fit(S, labels)
    remote = vdask.fit(new(cal), frame, score=columns, label="label")
    assert_same_fit(local, remote, S, labels)


def test_one_partition_is_the_in_memory_fit_bit_for_bit(client):
    pdf, S, labels, columns = class_data("forest")
    frame = dd.from_pandas(pdf, npartitions=1)
    for cal in (TemperatureCalibrator(), MatrixScalingCalibrator()):
        local = new(cal).fit(S, labels)
        remote = vdask.fit(new(cal), frame, score=columns, label="label")
        np.testing.assert_array_equal(remote.predict_proba(S), local.predict_proba(S))


def test_the_model_file_of_a_dask_fit_is_that_of_the_in_memory_fit(client, tmp_path):
    pdf, S, labels, columns = class_data("logits")
    frame = dd.from_pandas(pdf, npartitions=3, sort=False)
    venncal.save(MatrixScalingCalibrator().fit(S, labels), tmp_path / "local.json")
    fitted = vdask.fit(MatrixScalingCalibrator(), frame, score=columns, label="label")
    venncal.save(fitted, tmp_path / "dask.json")
    local = json.loads((tmp_path / "local.json").read_text())["fitted"]
    remote = json.loads((tmp_path / "dask.json").read_text())["fitted"]
    assert sorted(remote) == sorted(local)
    assert remote["classes_"] == local["classes_"]
    assert remote["score_type_"] == local["score_type_"]


@pytest.mark.parametrize(
    "cal",
    [TemperatureCalibrator(), MulticlassVennAbersCalibrator()],
    ids=repr,
)
def test_apply_adds_one_column_per_class_equal_to_predict_proba(client, cal):
    pdf, S, labels, columns = class_data("logits")
    fitted = new(cal).fit(S, labels)
    out = vdask.apply(fitted, dd.from_pandas(pdf, npartitions=3), score=columns).compute()
    added = [f"p_{c}" for c in fitted.classes_]
    assert list(out.columns) == [*pdf.columns, *added]
    np.testing.assert_allclose(out[added].to_numpy(), fitted.predict_proba(S), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(out["other"].to_numpy(), pdf["other"].to_numpy())


def _one_line_error(call, match, kind=ValueError):
    with pytest.raises(kind, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_bad_input_gets_one_line_errors(client):
    pdf, S, labels, columns = class_data("logits", n=60)
    frame = dd.from_pandas(pdf, npartitions=2)
    fit = vdask.fit
    _one_line_error(
        lambda: fit(TemperatureCalibrator(), frame, score=[*columns[:3], "nope"], label="label"),
        "names the column 'nope'",
    )
    _one_line_error(
        lambda: fit(TemperatureCalibrator(), frame, score=columns[:3], label="label"),
        "holds 4 classes but 'score' lists 3",
    )
    _one_line_error(
        lambda: fit(TemperatureCalibrator(), frame, score=["s0"], label="label"),
        "one score column per class",
    )
    bad = pdf.copy()
    bad.loc[7, "s2"] = np.nan
    _one_line_error(
        lambda: fit(
            MatrixScalingCalibrator(),
            dd.from_pandas(bad, npartitions=2),
            score=columns,
            label="label",
        ),
        "hold NaN values in 1 row",
    )
    _one_line_error(
        lambda: fit(TemperatureCalibrator(bias=True), frame, score=columns, label="label"),
        "bias=True",
    )
    _one_line_error(
        lambda: fit(MulticlassVennAbersCalibrator(), frame, score=columns, label="label"),
        "must be TemperatureCalibrator",
        TypeError,
    )
    fitted = TemperatureCalibrator().fit(S, labels)
    _one_line_error(
        lambda: vdask.apply(fitted, frame, score=columns[:3]), "fitted on 4 score column"
    )
    taken = dd.from_pandas(pdf.assign(p_bee=0.0), npartitions=2)
    _one_line_error(lambda: vdask.apply(fitted, taken, score=columns), "already has")
