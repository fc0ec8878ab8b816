"""``--progress/--no-progress`` on the long commands: a bar on standard error when asked for,
none when refused, and by default only on a terminal (CliRunner's stderr is not one)."""

import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from venncal.cli import main


@pytest.fixture
def tables(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    s = np.round(rng.normal(size=n), 2)
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    p = np.clip(1 / (1 + np.exp(-s)), 0, 1)
    frame = pd.DataFrame({"score": s, "y": y, "p": p, "p0": p * 0.9, "p1": p})
    frame.to_csv(tmp_path / "cal.csv", index=False)
    frame.to_parquet(tmp_path / "cal.parquet", index=False)
    model = tmp_path / "model.json"
    CliRunner().invoke(
        main,
        ["fit", str(tmp_path / "cal.csv"), "--score", "score", "--label", "y", "-o", str(model)],
    )
    return tmp_path


def _commands(tmp):
    cal, pq, model = tmp / "cal.csv", tmp / "cal.parquet", tmp / "model.json"
    fit = f"--score score --label y -o {tmp / 'm.json'}"
    lines = {
        "fit": f"fit {cal} {fit}",
        "fit-parquet": f"fit {pq} {fit}",
        "fit-platt": f"fit {pq} {fit} --method platt",
        "apply": f"apply {model} {pq} --prefix c_ -o {tmp / 'o.csv'}",
        "calibrate": f"calibrate {cal} {pq} --score score --label y --prefix c_ -o {tmp / 'c.pq'}",
        "evaluate": f"evaluate {pq} --label y --proba p --interval p0 p1",
        "monitor": f"monitor {pq} --score p --label y",
    }
    return {name: line.split() for name, line in lines.items()}


def _run(args, *flag):
    result = CliRunner().invoke(main, [*args, *flag, "--force"] if "-o" in args else [*args, *flag])
    assert result.exit_code == 0, result.output
    return result.stderr


def _has_bar(stderr):
    """tqdm's rate field: rows or steps per second (or seconds per step)."""
    return re.search(r"(row|step)/s|s/(row|step)", stderr) is not None


@pytest.mark.parametrize(
    "name", ["fit", "fit-parquet", "fit-platt", "apply", "calibrate", "evaluate", "monitor"]
)
def test_progress_shows_a_bar_when_asked(tables, name):
    args = _commands(tables)[name]
    assert _has_bar(_run(args, "--progress"))
    assert not _has_bar(_run(args, "--no-progress"))
    assert not _has_bar(_run(args))  # standard error is not a terminal here


@pytest.mark.parametrize("command", ["fit", "apply", "calibrate", "evaluate", "monitor", "compare"])
def test_every_long_command_offers_the_option(command):
    text = CliRunner().invoke(main, [command, "--help"]).output
    assert "--progress / --no-progress" in text
