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
        # Spark's CSV reader drops empty lines: in a one-column file one is a missing score
        (["apply", "{model}", "{blank}", "-o", "{o}"], "line 3 is empty, a missing value"),
    ],
)
def test_spark_backend_errors_are_one_line_exit_2(spark, files, args, message):
    pd.DataFrame({"score": [0.2, np.nan, 0.5]}).to_parquet(files / "bad.parquet")
    (files / "blank.csv").write_text("score\n0.2\n\n0.5\n")
    run(
        "fit", files / "cal.parquet", "--score", "score", "--label", "label", "-o", files / "e.json"
    )
    paths = {
        "cal": files / "cal.parquet",
        "m": files / "m2.json",
        "model": files / "e.json",
        "o": files / "o.parquet",
        "bad": files / "bad.parquet",
        "blank": files / "blank.csv",
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


def test_spark_apply_by_full_path_from_an_environment_not_activated(tmp_path):
    """``venncal apply --backend spark`` run by its full path, with a ``python3`` on PATH that
    is not this interpreter (a cron job, a container calling /opt/venv/bin/venncal): the Spark
    session venncal starts runs its workers on venncal's own interpreter. They used to start
    the ``python3`` on PATH and fail with a Java stack trace and exit code 1."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import venncal

    files = write_backend_files(tmp_path)
    rng = np.random.default_rng(1)
    s = rng.random(500)
    cal = venncal.VennAbersCalibrator().fit(s, (rng.random(500) < s).astype(int))
    venncal.save(cal, tmp_path / "m.json")
    # a python3 on PATH that is not this interpreter (it knows nothing of venncal)
    decoy = tmp_path / "bin"
    decoy.mkdir()
    (decoy / "python3").write_text("#!/bin/sh\necho 'not the python venncal runs on' >&2\nexit 3\n")
    (decoy / "python3").chmod(0o755)
    java = shutil.which("java")
    path = [str(decoy), "/usr/bin", "/bin"] + ([str(Path(java).parent)] if java else [])
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join(path)
    script = Path(sys.executable).parent / "venncal"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "venncal"]
    out = tmp_path / "out.csv"
    args = ["apply", str(tmp_path / "m.json"), str(files / "scores"), "--score", "score"]
    done = subprocess.run(
        [*command, *args, "-o", str(out), "--backend", "spark"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    written = pd.read_csv(out)
    scores = pd.concat(pd.read_parquet(p) for p in sorted((files / "scores").iterdir()))
    np.testing.assert_allclose(written["p"], cal.predict_proba(scores["score"].to_numpy())[:, 1])
