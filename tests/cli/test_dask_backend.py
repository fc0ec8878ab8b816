"""venncal fit / apply --backend dask: the same model file and output as the local backend."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

import venncal  # noqa: E402
from venncal.cli import main  # noqa: E402


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    s = np.round(rng.random(3000), 2)
    y = np.where(rng.random(3000) < s, "yes", "no")
    pd.DataFrame({"score": s, "label": y}).to_parquet(tmp_path / "cal.parquet")
    pd.DataFrame({"score": s, "label": y}).to_csv(tmp_path / "cal.csv", index=False)
    folder = tmp_path / "scores"
    folder.mkdir()
    for i in range(3):
        part = pd.DataFrame({"id": np.arange(1000) + 1000 * i, "score": rng.random(1000)})
        part.to_parquet(folder / f"part-{i}.parquet")
    return tmp_path


@pytest.mark.parametrize(
    "method, cal",
    [
        ("venn-abers", "cal.parquet"),
        ("venn-abers", "cal.csv"),
        ("isotonic", "cal.parquet"),
        ("abb", "cal.csv"),
        ("platt", "cal.parquet"),
    ],
)
def test_dask_fit_writes_the_local_model(files, method, cal):
    args = [files / cal, "--score", "score", "--label", "label", "--method", method]
    assert run("fit", *args, "-o", files / "local.json").exit_code == 0
    result = run("fit", *args, "-o", files / "dask.json", "--backend", "dask")
    assert result.exit_code == 0, result.output
    assert "on 3000 rows" in result.output
    local, dask = venncal.load(files / "local.json"), venncal.load(files / "dask.json")
    t = np.linspace(-0.1, 1.1, 2001)
    if method == "platt":
        np.testing.assert_allclose(dask.predict_proba(t), local.predict_proba(t), atol=1e-9)
    else:
        np.testing.assert_array_equal(dask.predict_proba(t), local.predict_proba(t))


def test_dask_apply_writes_the_local_output(files):
    fit = run(
        "fit", files / "cal.parquet", "--score", "score", "--label", "label", "-o", files / "m.json"
    )
    assert fit.exit_code == 0
    for backend, out in (("local", "a.parquet"), ("dask", "b.parquet")):
        result = run(
            "apply", files / "m.json", files / "scores", "-o", files / out, "--backend", backend
        )
        assert result.exit_code == 0, result.output
    a, b = pd.read_parquet(files / "a.parquet"), pd.read_parquet(files / "b.parquet")
    assert list(b.columns) == ["id", "score", "p", "p0", "p1"] and len(b) == 3000
    pd.testing.assert_frame_equal(a, b)
    result = run(
        "apply",
        files / "m.json",
        files / "scores",
        "-o",
        files / "c.csv",
        "--backend",
        "dask",
        "--keep",
        "id",
        "--prefix",
        "cal_",
    )
    assert result.exit_code == 0, result.output
    c = pd.read_csv(files / "c.csv")
    assert list(c.columns) == ["id", "cal_p", "cal_p0", "cal_p1"]
    np.testing.assert_allclose(c["cal_p"], a["p"], rtol=1e-15)


def _fit(*extra, score="score"):
    """The arguments of ``venncal fit`` on the calibration file, then ``extra``."""
    return ["fit", "{cal}", "--score", score, "--label", "label", "-o", "{m}", *extra]


@pytest.mark.parametrize(
    "args, message",
    [
        (
            _fit("--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"),
            "cannot reach the Dask scheduler",
        ),
        (_fit("--method", "acp", "--backend", "dask"), "--backend dask fits"),
        (_fit("--backend", "dask", score="nope"), "--score 'nope': no such column"),
        (_fit("--positive", "maybe", "--backend", "dask"), "maybe"),
        (
            ["apply", "{model}", "{cal}", "-o", "{o}", "--scheduler", "tcp://127.0.0.1:1"],
            "--scheduler applies to --backend dask only",
        ),
    ],
)
def test_dask_backend_errors_are_one_line_exit_2(files, args, message):
    run(
        "fit",
        files / "cal.parquet",
        "--score",
        "score",
        "--label",
        "label",
        "-o",
        files / "model.json",
    )
    paths = {
        "cal": files / "cal.parquet",
        "m": files / "m2.json",
        "model": files / "model.json",
        "o": files / "o.parquet",
    }
    result = run(*[a.format(**paths) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_apply_refuses_a_k_class_model_in_one_line(files, backend):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 3)), rng.integers(0, 3, 300)
    venncal.save(venncal.MatrixScalingCalibrator().fit(X, y), files / "k.json")
    result = run(
        "apply", files / "k.json", files / "scores", "-o", files / "out.csv",
        "--score", "score", "--backend", backend,
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "3 score columns" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not (files / "out.csv").exists()
