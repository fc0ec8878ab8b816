"""A model file ends in .json, for ``venncal.save`` and ``venncal fit --out`` alike."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import venncal
from venncal.cli import main


@pytest.fixture
def cal():
    return venncal.PlattCalibrator().fit(np.linspace(0, 1, 20), np.r_[[0] * 10, [1] * 10])


@pytest.mark.parametrize("name", ["model.pkl", "model.joblib", "model", "model.json.bak"])
def test_both_refuse_a_model_file_that_is_not_json(tmp_path, cal, name):
    with pytest.raises(ValueError, match=r"must end in \.json") as excinfo:
        venncal.save(cal, tmp_path / name)
    assert "\n" not in str(excinfo.value)
    assert not (tmp_path / name).exists()

    csv = tmp_path / "cal.csv"
    pd.DataFrame({"s": np.linspace(0, 1, 20), "y": [0] * 10 + [1] * 10}).to_csv(csv, index=False)
    out = tmp_path / f"cli-{name}"
    result = CliRunner().invoke(
        main, ["fit", str(csv), "--score", "s", "--label", "y", "--out", str(out)]
    )
    assert result.exit_code == 2, result.output
    assert "must end in .json" in result.output.strip().splitlines()[-1]
    assert not out.exists()


def test_both_take_json_in_any_case(tmp_path, cal):
    path = venncal.save(cal, tmp_path / "MODEL.JSON")
    assert venncal.load(path).predict([0.5]) == pytest.approx(cal.predict([0.5]))
