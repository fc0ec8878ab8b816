"""venncal fit / apply --backend spark: the same model file and output as the local backend."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

import venncal  # noqa: E402
from venncal.cli import main  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("spark_cli")
    rng = np.random.default_rng(0)
    s = np.round(rng.random(3000), 2)
    y = np.where(rng.random(3000) < s, "yes", "no")
    w = rng.integers(0, 3, 3000).astype(float)
    pd.DataFrame({"score": s, "label": y, "w": w}).to_parquet(tmp_path / "cal.parquet")
    pd.DataFrame({"score": s, "label": y}).to_csv(tmp_path / "cal.csv", index=False)
    folder = tmp_path / "scores"
    folder.mkdir()
    for i in range(3):
        part = pd.DataFrame({"id": np.arange(1000) + 1000 * i, "score": rng.random(1000)})
        part.to_parquet(folder / f"part-{i}.parquet")
    return tmp_path


@pytest.mark.parametrize(
    "method, cal, extra",
    [
        ("venn-abers", "cal.parquet", []),
        ("venn-abers", "cal.csv", []),
        ("isotonic", "cal.parquet", ["--weight", "w"]),
        ("abb", "cal.csv", ["--positive", "no"]),
        ("platt", "cal.parquet", []),
    ],
)
def test_spark_fit_writes_the_local_model(spark, files, method, cal, extra):
    args = [files / cal, "--score", "score", "--label", "label", "--method", method, *extra]
    name = f"{method}-{cal}-{len(extra)}"
    local = run("fit", *args, "-o", files / f"{name}-local.json")
    assert local.exit_code == 0, local.output
    result = run("fit", *args, "-o", files / f"{name}-spark.json", "--backend", "spark")
    assert result.exit_code == 0, result.output
    # the same rows and positives
    fitted = [line.split("; wrote")[0] for line in (result.output, local.output)]
    assert fitted[0].splitlines()[-1] == fitted[1].splitlines()[-1]
    # the warning about scores that rank the classes the wrong way round (abb, --positive no)
    assert ("warning: " in result.output) == ("warning: " in local.output)
    local = venncal.load(files / f"{name}-local.json")
    spark_model = venncal.load(files / f"{name}-spark.json")
    t = np.linspace(-0.1, 1.1, 2001)
    if method == "platt":
        np.testing.assert_allclose(spark_model.predict_proba(t), local.predict_proba(t), atol=1e-9)
    else:
        np.testing.assert_array_equal(spark_model.predict_proba(t), local.predict_proba(t))


def test_spark_apply_writes_the_local_output(spark, files):
    fit = run(
        "fit", files / "cal.parquet", "--score", "score", "--label", "label", "-o", files / "m.json"
    )
    assert fit.exit_code == 0
    for backend, out in (("local", "a.parquet"), ("spark", "b.parquet")):
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
        "spark",
        "--keep",
        "id",
        "--prefix",
        "cal_",
    )
    assert result.exit_code == 0, result.output
    c = pd.read_csv(files / "c.csv")
    assert list(c.columns) == ["id", "cal_p", "cal_p0", "cal_p1"]
    np.testing.assert_allclose(c["cal_p"], a["p"], rtol=1e-15)
    # nothing but the outputs was written next to the inputs
    assert sorted(p.name for p in (files / "scores").iterdir()) == [
        f"part-{i}.parquet" for i in range(3)
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["fit", "{cal}", "-o", "{m}", "--method", "acp"], "--backend spark fits"),
        (["fit", "{cal}", "-o", "{m}", "--scheduler", "x:1"], "--scheduler applies"),
        (["fit", "{cal}", "-o", "{m}", "--positive", "maybe"], "maybe"),
        (["apply", "{model}", "{bad}", "-o", "{o}"], "1 missing or infinite score"),
    ],
)
def test_spark_backend_errors_are_one_line_exit_2(spark, files, args, message):
    pd.DataFrame({"score": [0.2, np.nan, 0.5]}).to_parquet(files / "bad.parquet")
    run(
        "fit", files / "cal.parquet", "--score", "score", "--label", "label", "-o", files / "e.json"
    )
    paths = {
        "cal": files / "cal.parquet",
        "m": files / "m2.json",
        "model": files / "e.json",
        "o": files / "o.parquet",
        "bad": files / "bad.parquet",
    }
    args = [a.format(**paths) for a in args]
    if args[0] == "fit":
        args += ["--score", "score", "--label", "label"]
    result = run(*args, "--backend", "spark")
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (files / "o.parquet").exists() and not (files / "m2.json").exists()


def test_apply_refuses_a_k_class_model_in_one_line(spark, files):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 3)), rng.integers(0, 3, 300)
    venncal.save(venncal.MatrixScalingCalibrator().fit(X, y), files / "k.json")
    result = run(
        "apply", files / "k.json", files / "scores", "-o", files / "k.csv",
        "--score", "score", "--backend", "spark",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "3 score columns" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not (files / "k.csv").exists()
