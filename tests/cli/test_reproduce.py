"""``venncal reproduce``: outputs, exit codes, and no silent overwriting."""

import pytest
from click.testing import CliRunner

from venncal.cli.reproduce import reproduce
from venncal.experiments import studies


def invoke(*args):
    return CliRunner().invoke(reproduce, list(args), catch_exceptions=False)


def test_reproduce_writes_the_report_and_prints_the_headline(tmp_path, tiny):
    out = tmp_path / "report"
    res = invoke("tasche-2022", "--quick", "--out", str(out), "--no-progress")
    assert res.exit_code == 0, res.output
    assert "Brier score decomposition" in res.output
    assert "true posterior" in res.output
    # quick mode judges the claims with their standard errors: the identity is confirmed,
    # nothing is printed as a failure, and the verdicts are counted
    assert "[confirmed] [identity" in res.output
    assert "[FAILED]" not in res.output and "Checks: " in res.output
    for name in ("report.html", "report.md", "results.csv", "cells.csv", "brier_curves.png"):
        assert (out / name).is_file(), name
    assert "data:image/png;base64," in (out / "report.html").read_text()


def test_progress_bar_by_default_only_on_a_terminal(tmp_path, tiny):
    # CliRunner's streams are not terminals: no bar unless asked for
    quiet = CliRunner().invoke(reproduce, ["tasche-2022", "--out", str(tmp_path / "a")])
    assert quiet.exit_code == 0 and "cell/s" not in quiet.stderr
    shown = CliRunner().invoke(
        reproduce, ["tasche-2022", "--out", str(tmp_path / "b"), "--progress"]
    )
    assert shown.exit_code == 0 and "cell" in shown.stderr


def test_existing_output_is_not_overwritten_without_force(tmp_path, tiny):
    out = tmp_path / "report"
    assert invoke("tasche-2022", "--out", str(out), "--no-progress").exit_code == 0
    before = (out / "report.md").read_bytes()
    res = CliRunner().invoke(reproduce, ["tasche-2022", "--out", str(out), "--no-progress"])
    assert res.exit_code == 2
    assert "--force" in res.output and len(res.output.strip().splitlines()) == 1
    assert (out / "report.md").read_bytes() == before
    # --resume finishes in place (every cell is done already); --force starts afresh but
    # replaces only the files venncal wrote
    assert invoke("tasche-2022", "--out", str(out), "--resume", "--no-progress").exit_code == 0
    (out / "notes.txt").write_text("mine")
    assert invoke("tasche-2022", "--out", str(out), "--force", "--no-progress").exit_code == 0
    assert (out / "notes.txt").read_text() == "mine"


def test_output_path_that_is_a_file(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x")
    res = CliRunner().invoke(reproduce, ["tasche-2022", "--out", str(target)])
    assert res.exit_code == 2
    assert "not a folder" in res.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["no-such-study"], "Invalid value"),
        (["tasche-2022", "--n-jobs", "0"], "--n-jobs"),
        (["tasche-2022", "--n-jobs", "-5"], "--n-jobs"),
        (["tasche-2022", "--backend", "spark"], "Invalid value"),
        (["tasche-2022", "--scheduler", "tcp://127.0.0.1:1"], "--backend dask"),
        (["tasche-2022", "--force", "--resume"], "exclude"),
        ([], "Missing argument"),
    ],
)
def test_bad_usage_exits_with_code_2(tmp_path, args, message):
    res = CliRunner().invoke(reproduce, args + ["--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert not (tmp_path / "o").exists()


def test_help_lists_the_studies():
    res = CliRunner().invoke(reproduce, ["--help"])
    assert res.exit_code == 0
    for name in studies.STUDIES:
        assert name in res.output


@pytest.mark.parametrize("flag", ["--force", "--resume"])
@pytest.mark.parametrize("name", ["results.csv", "report.md", "brier_curves.png"])
def test_a_file_the_manifest_does_not_list_is_never_replaced(tmp_path, tiny, flag, name):
    # an interrupted run's manifest lists only cells.csv; a user's file named like a report
    # file must survive --force and --resume
    import json

    out = tmp_path / "r"
    out.mkdir()
    manifest = {"study": "tasche-2022", "mode": "quick", "files": ["cells.csv"],
                "created_folder": False, "written_by": "venncal"}  # fmt: skip
    (out / ".venncal-manifest.json").write_text(json.dumps(manifest))
    (out / name).write_bytes(b"the user's notes\n")
    res = CliRunner().invoke(reproduce, ["tasche-2022", "--out", str(out), flag, "--no-progress"])
    assert res.exit_code == 2, res.output
    assert f"{name!r} exists and was not written by venncal" in res.output
    assert (out / name).read_bytes() == b"the user's notes\n"


@pytest.mark.slow
def test_naeini_quick_mode_prints_no_failure(tmp_path):
    # three draws per panel: a claim within noise is inconclusive, never FAILED
    out = tmp_path / "naeini"
    res = invoke("naeini-2014", "--quick", "--out", str(out), "--no-progress")
    assert res.exit_code == 0, res.output
    assert "[FAILED]" not in res.output
    assert "inconclusive at this size" in res.output
    assert "Quick mode judges each claim" in res.output


def test_full_mode_keeps_strict_verdicts(tmp_path, tiny):
    res = invoke("tasche-2022", "--full", "--out", str(tmp_path / "f"), "--no-progress")
    assert res.exit_code == 0, res.output
    assert "[passed] [identity" in res.output and "inconclusive" not in res.output
