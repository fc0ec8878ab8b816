"""``venncal fit`` and ``venncal apply`` with quadratic and temperature scaling."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.special import expit

import venncal
from venncal.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    z = rng.normal(size=600) * 2
    y = rng.random(600) < expit(0.5 * z + 0.1 * z * z)
    pd.DataFrame({"logit": z, "prob": expit(z), "y": np.where(y, "pos", "neg")}).to_csv(
        tmp_path / "cal.csv", index=False
    )
    t = rng.normal(size=300) * 2
    pd.DataFrame({"id": np.arange(300), "logit": t, "prob": expit(t)}).to_csv(
        tmp_path / "test.csv", index=False
    )
    return tmp_path, z, np.where(y, "pos", "neg"), t


@pytest.mark.parametrize(
    "method, column, cls, params",
    [
        ("quadratic", "prob", venncal.QuadraticCalibrator, {}),
        ("quadratic-logit", "logit", venncal.QuadraticCalibrator, {"score_scale": "logit"}),
        ("temperature", "prob", venncal.TemperatureCalibrator, {}),
        ("temperature", "logit", venncal.TemperatureCalibrator, {}),
    ],
)
def test_fit_then_apply_equals_the_library(files, method, column, cls, params):
    tmp, z, y, t = files
    res = run(
        "fit",
        tmp / "cal.csv",
        "--score",
        column,
        "--label",
        "y",
        "--method",
        method,
        "-o",
        tmp / "model.json",
    )
    assert res.exit_code == 0, res.output
    scores = expit(z) if column == "prob" else z
    expected = cls(**params).fit(scores, y)
    loaded = venncal.load(tmp / "model.json")
    assert type(loaded) is cls and loaded.get_params() == expected.get_params()
    res = run(
        "apply", tmp / "model.json", tmp / "test.csv", "--score", column, "-o", tmp / "out.csv"
    )
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp / "out.csv")
    test_scores = expit(t) if column == "prob" else t
    np.testing.assert_allclose(
        out["p"], expected.predict_proba(test_scores)[:, 1], rtol=1e-12, atol=1e-15
    )


def test_quadratic_on_probabilities_refuses_log_odds(files):
    tmp, *_ = files
    res = run(
        "fit",
        tmp / "cal.csv",
        "--score",
        "logit",
        "--label",
        "y",
        "--method",
        "quadratic",
        "-o",
        tmp / "model.json",
    )
    assert res.exit_code == 2
    assert "score_scale='logit'" in res.output
