"""What the command line writes: never a file it did not write, never through a link, whole."""

import errno
import os

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from venncal._files import MANIFEST
from venncal.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def reproduce(out, *extra):
    return run("reproduce", "tasche-2022", "--out", out, "--no-progress", *extra)


def one_line_error(res, *words):
    """Exit code 2 and a single line of error, no traceback."""
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert "Traceback" not in res.output
    errors = [line for line in res.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, res.output  # click may print the usage above a usage error
    for word in words:
        assert word in res.output, res.output
    return res.output


def user_files(folder):
    (folder / "code").mkdir(parents=True)
    (folder / "thesis.tex").write_text("\\documentclass{article}")
    (folder / "code" / "analysis.py").write_text("print(1)")
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def unchanged(files):
    return all(p.is_file() and p.read_bytes() == data for p, data in files.items())


# ----------------------------------------------------------------------------- --force
def test_force_never_deletes_a_folder_venncal_did_not_write(tmp_path, tiny, monkeypatch):
    files = user_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    one_line_error(reproduce(".", "--force"), MANIFEST)
    assert unchanged(files) and sorted(os.listdir(tmp_path)) == ["code", "thesis.tex"]


def test_force_refuses_a_symlinked_out(tmp_path, tiny):
    target = tmp_path / "target"
    files = user_files(target)
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    one_line_error(reproduce(link, "--force"), "symbolic link")
    assert unchanged(files)


def test_force_replaces_only_the_files_it_wrote(tmp_path, tiny):
    out = tmp_path / "out"
    assert reproduce(out).exit_code == 0
    (out / "mine.txt").write_text("mine")
    (out / "sub").mkdir()
    (out / "sub" / "x.txt").write_text("x")
    (out / "report.md").write_text("stale")
    res = reproduce(out, "--force")
    assert res.exit_code == 0, res.output
    assert (out / "mine.txt").read_text() == "mine"
    assert (out / "sub" / "x.txt").read_text() == "x"
    assert (out / "report.md").read_text().startswith("# ")


def test_force_refuses_a_symlink_inside_out(tmp_path, tiny):
    out = tmp_path / "out"
    assert reproduce(out).exit_code == 0
    precious = tmp_path / "precious.html"
    precious.write_text("keep me")
    (out / "report.html").unlink()
    (out / "report.html").symlink_to(precious)
    one_line_error(reproduce(out, "--force"), "symbolic link")
    assert precious.read_text() == "keep me"
    assert (out / "report.html").is_symlink()


# ----------------------------------------------------------------------------- --resume
def test_resume_refuses_a_folder_venncal_did_not_write(tmp_path, tiny):
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("<p>my report</p>")
    (out / "results.csv").write_text("a,b\n1,2\n")
    files = {p: p.read_bytes() for p in out.iterdir()}
    one_line_error(reproduce(out, "--resume"), "not written by venncal")
    assert unchanged(files) and len(list(out.iterdir())) == 2


def test_resume_refuses_another_study_or_mode(tmp_path, tiny):
    out = tmp_path / "out"
    assert reproduce(out).exit_code == 0
    one_line_error(reproduce(out, "--resume", "--full"), "same study and mode")


def test_resume_with_a_foreign_cells_file_or_a_folder_of_that_name(tmp_path, tiny):
    out = tmp_path / "out"
    assert reproduce(out).exit_code == 0
    (out / "cells.csv").write_text("x,y\n1,2\n")
    one_line_error(reproduce(out, "--resume"), "cells.csv")
    assert (out / "cells.csv").read_text() == "x,y\n1,2\n"
    (out / "cells.csv").unlink()
    (out / "cells.csv").mkdir()
    one_line_error(reproduce(out, "--resume"), "cells.csv")
    assert (out / "cells.csv").is_dir()


def test_resume_recomputes_a_torn_last_record(tmp_path, tiny):
    fresh, out = tmp_path / "fresh", tmp_path / "out"
    first = reproduce(fresh)
    assert first.exit_code == 0
    assert reproduce(out).exit_code == 0
    cells = out / "cells.csv"
    data = cells.read_bytes()
    cells.write_bytes(data[: len(data) - 30])  # killed in the middle of the last append
    res = reproduce(out, "--resume")
    assert res.exit_code == 0, res.output
    assert "Warning: " in res.stderr and "torn or corrupt record" in res.stderr
    tables = sorted(p.name for p in fresh.glob("*.csv") if p.name != "cells.csv")
    assert "results.csv" in tables and len(tables) >= 2
    for name in tables:
        pd.testing.assert_frame_equal(
            pd.read_csv(out / name), pd.read_csv(fresh / name), check_exact=True
        )

    def claims(output):
        return [line for line in output.splitlines() if line.startswith("[")]

    assert claims(res.output) == claims(first.output) != []


# ----------------------------------------------------------------------------- environment
def test_output_folder_that_cannot_be_created(tmp_path, tiny):
    (tmp_path / "file").write_text("x")
    one_line_error(reproduce(tmp_path / "file" / "out"), "cannot create")


def test_read_only_file_system(tmp_path, tiny, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), kwargs.get("dir"))

    monkeypatch.setattr("venncal._files.tempfile.mkstemp", refuse)
    out = one_line_error(reproduce(tmp_path / "out"), "cannot")
    assert os.strerror(errno.EROFS) in out


def test_unreachable_dask_scheduler(tmp_path, tiny):
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        res = reproduce(tmp_path / "o", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9")
    one_line_error(res, "Dask scheduler")


@pytest.mark.parametrize("seed", ["-1", str(2**32)])
def test_demo_seed_out_of_range(seed):
    one_line_error(run("demo", "--seed", seed), "--seed")


def test_evaluate_and_calibrate_on_an_unwritable_output(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    s = rng.normal(size=60)
    frame = pd.DataFrame({"score": s, "y": (s > 0).astype(int), "prob": 1 / (1 + np.exp(-s))})
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "file").write_text("x")
    res = run("evaluate", tmp_path / "d.csv", "--label", "y", "--proba", "prob",
              "--out-dir", tmp_path / "file" / "ev")  # fmt: skip
    one_line_error(res, "--out-dir")

    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), kwargs.get("dir"))

    monkeypatch.setattr("venncal._files.tempfile.mkstemp", refuse)
    res = run("calibrate", tmp_path / "d.csv", tmp_path / "d.csv", "--score", "score",
              "--label", "y", "-o", tmp_path / "o.csv")  # fmt: skip
    one_line_error(res, os.strerror(errno.EROFS))
    res = run("evaluate", tmp_path / "d.csv", "--label", "y", "--proba", "prob",
              "--out-dir", tmp_path / "ev")  # fmt: skip
    one_line_error(res, os.strerror(errno.EROFS))
    assert not (tmp_path / "o.csv").exists()
