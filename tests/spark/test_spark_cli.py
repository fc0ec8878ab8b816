"""venncal fit / apply --backend spark: the same model file and output as the local backend."""

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from tests.cli._helpers import (  # noqa: E402
    assert_same_model,
    check_apply_matches_local,
    check_backend_separators_and_progress,
    check_k_class_model_refused,
    run,
    write_backend_files,
)

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_backend_files(tmp_path_factory.mktemp("spark_cli"), weights=True)


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
    assert_same_model(files / f"{name}-spark.json", files / f"{name}-local.json", method)


def test_spark_apply_writes_the_local_output(spark, files):
    check_apply_matches_local(files, "spark")
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
    check_k_class_model_refused(files, "spark", "k.csv")
    assert not (files / "k.csv").exists()


def test_spark_backend_reads_and_writes_the_separators_given_and_shows_progress(spark, tmp_path):
    check_backend_separators_and_progress(tmp_path, "spark")
