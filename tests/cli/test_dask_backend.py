"""venncal fit / apply --backend dask: the same model file and output as the local backend."""

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

from tests.cli._helpers import (  # noqa: E402
    assert_same_model,
    check_apply_matches_local,
    check_k_class_model_refused,
    run,
    write_backend_files,
)


@pytest.fixture
def files(tmp_path):
    return write_backend_files(tmp_path)


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
    assert_same_model(files / "dask.json", files / "local.json", method)


def test_dask_apply_writes_the_local_output(files):
    check_apply_matches_local(files, "dask")


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
def test_dask_backend_errors_are_one_line_exit_2(files, args, message, monkeypatch):
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
    # an unreachable scheduler is given up after 1 s instead of 10 s
    monkeypatch.setattr("venncal.cli._dask.CONNECT_TIMEOUT", "1s")
    result = run(*[a.format(**paths) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_apply_refuses_a_k_class_model_in_one_line(files, backend):
    check_k_class_model_refused(files, backend, "out.csv")
    assert not (files / "out.csv").exists()
