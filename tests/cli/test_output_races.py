"""Outputs that appear while venncal writes, links at the output path, linked input folders,
and inputs the streaming commands must refuse in one line."""

import os

import numpy as np
import pandas as pd
import pytest

from tests.cli.test_fit_apply import _data, _fit, one_line_error, run
from venncal._files import TMP_PREFIX, atomic_open, move_into_place
from venncal.cli._io import InputError, write_table
from venncal.cli._stream import Sink


@pytest.fixture
def files(tmp_path):
    s, y = _data(0, 300)
    pd.DataFrame({"score": s, "y": y}).to_csv(tmp_path / "cal.csv", index=False)
    test = pd.DataFrame({"score": _data(1, 200)[0]})
    test.to_csv(tmp_path / "test.csv", index=False)
    test.to_parquet(tmp_path / "test.parquet", index=False)
    return (tmp_path,)


def _leftovers(folder):
    return [p for p in os.listdir(folder) if p.startswith(TMP_PREFIX)]


@pytest.mark.parametrize("name", ["out.csv", "out.parquet"])
def test_a_file_that_appears_while_the_output_is_written_is_kept(tmp_path, name):
    out = tmp_path / name
    frame = pd.DataFrame({"p": np.linspace(0, 1, 5)})
    with pytest.raises(InputError, match="appeared while venncal was writing it") as info:
        with Sink(out, background=False) as sink:
            sink.write(frame[[]], {"p": frame["p"].to_numpy()})
            out.write_text("the user's own file\n")
    assert "\n" not in str(info.value)
    assert out.read_text() == "the user's own file\n"
    assert _leftovers(tmp_path) == []


def test_an_output_existing_when_forced_is_replaced(tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    with Sink(out, background=False) as sink:
        frame = pd.DataFrame({"p": [0.5]})
        sink.write(frame[[]], {"p": frame["p"].to_numpy()})
    assert pd.read_csv(out)["p"].tolist() == [0.5]


def test_atomic_open_without_overwrite_keeps_a_file_that_appeared(tmp_path):
    dest = tmp_path / "report.md"
    with pytest.raises(FileExistsError):
        with atomic_open(dest, overwrite=False) as fh:
            fh.write("venncal's text")
            dest.write_text("mine")
    assert dest.read_text() == "mine"
    assert _leftovers(tmp_path) == []
    with atomic_open(tmp_path / "new.md", overwrite=False) as fh:
        fh.write("fresh")
    assert (tmp_path / "new.md").read_text() == "fresh"
    assert _leftovers(tmp_path) == []


def test_move_into_place_refuses_an_existing_name_and_a_dangling_link(tmp_path):
    tmp = tmp_path / "t"
    tmp.write_text("new")
    (tmp_path / "kept").write_text("old")
    with pytest.raises(FileExistsError):
        move_into_place(tmp, tmp_path / "kept", overwrite=False)
    os.symlink(tmp_path / "nowhere", tmp_path / "link")
    with pytest.raises(FileExistsError):
        move_into_place(tmp, tmp_path / "link", overwrite=False)
    assert (tmp_path / "kept").read_text() == "old" and os.path.islink(tmp_path / "link")


def test_write_table_never_replaces_a_file_it_was_not_forced_for(tmp_path, monkeypatch):
    import venncal.cli._io as io

    out = tmp_path / "table.csv"
    real = io.write_csv

    def racing(frame, path, **kwargs):  # the file appears between the check and the move
        out.write_text("appeared\n")
        return real(frame, path, **kwargs)

    monkeypatch.setattr(io, "write_csv", racing)
    with pytest.raises(InputError, match="appeared while venncal was writing it"):
        write_table(pd.DataFrame({"a": [1]}), out, force=True)
    assert out.read_text() == "appeared\n"


def test_a_dangling_link_at_the_output_needs_force(files):
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    os.symlink(tmp / "nowhere.csv", tmp / "d.csv")
    result = run("apply", tmp / "model.json", tmp / "test.csv", "-o", tmp / "d.csv")
    one_line_error(result, "already exists", "--force")
    assert os.path.islink(tmp / "d.csv") and not os.path.exists(tmp / "nowhere.csv")


def test_an_output_inside_a_linked_input_folder_is_refused(files):
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    folder = tmp / "pqin"
    folder.mkdir()
    os.replace(tmp / "test.parquet", folder / "part-0.parquet")
    os.symlink(folder, tmp / "pqlink")
    for source, out in (
        (folder, tmp / "pqlink" / "out.parquet"),
        (tmp / "pqlink", folder / "o.parquet"),
    ):
        result = run("apply", tmp / "model.json", source, "-o", out)
        one_line_error(result, "is inside the input folder")
    assert sorted(os.listdir(folder)) == ["part-0.parquet"]


def test_an_output_whose_folder_is_a_file_says_so(files):
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    result = run("apply", tmp / "model.json", tmp / "test.csv", "-o", tmp / "test.csv" / "x.csv")
    one_line_error(result, "is a file, not a folder")


@pytest.mark.parametrize("method", ["venn-abers", "isotonic"])
def test_a_header_only_csv_is_one_line_for_every_model(files, method):
    tmp, *_ = files
    assert _fit(tmp, "--method", method).exit_code == 0
    (tmp / "hdr.csv").write_text("score,y\n")
    one_line_error(run("apply", tmp / "model.json", tmp / "hdr.csv", "-o", tmp / "o.csv"))
    one_line_error(
        run("calibrate", tmp / "cal.csv", tmp / "hdr.csv", "--score", "score", "--label", "y",
            "--method", method, "-o", tmp / "o.csv")
    )  # fmt: skip
    assert not (tmp / "o.csv").exists() and _leftovers(tmp) == []


def test_a_csv_that_is_not_utf8_is_one_line_in_apply_and_calibrate(files):
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    (tmp / "lat.csv").write_bytes("score,y,name\n0.1,0,caf\xe9\n".encode("latin-1"))
    one_line_error(
        run("apply", tmp / "model.json", tmp / "lat.csv", "-o", tmp / "o.csv"), "not UTF-8 text"
    )
    result = run(
        "calibrate", tmp / "cal.csv", tmp / "lat.csv", "--score", "score", "--label", "y",
        "-o", tmp / "o.csv",
    )  # fmt: skip
    one_line_error(result, "not UTF-8 text")
