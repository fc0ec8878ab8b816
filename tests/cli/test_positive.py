"""``--positive``: the label larger scores point to. Scores that rank the chosen positive class
below the other (AUC < 0.5) get one line on stderr naming both labels, in ``fit``,
``calibrate`` and ``evaluate``; with the right ``--positive`` nothing is said."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from venncal.cli import main


@pytest.fixture
def benign(tmp_path):
    rng = np.random.default_rng(0)
    s = np.clip(rng.random(400), 0.01, 0.99)  # P(benign)
    y = np.where(rng.random(400) < s, "benign", "malignant")
    pd.DataFrame({"s": s, "y": y}).to_csv(tmp_path / "cal.csv", index=False)
    return tmp_path


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def warning_lines(result):
    return [line for line in result.stderr.splitlines() if "rank the positive class" in line]


def test_fit_warns_in_one_line_when_the_scores_point_to_the_other_label(benign):
    result = invoke("fit", benign / "cal.csv", "--score", "s", "--label", "y", "-o",
                    benign / "m.json")  # fmt: skip
    lines = warning_lines(result)
    assert len(lines) == 1, result.stderr
    assert "'malignant'" in lines[0] and "--positive benign" in lines[0]
    assert "VenncalWarning" not in result.stderr  # not the library's two-line warning


def test_the_right_positive_says_nothing(benign):
    for command in (
        ["fit", benign / "cal.csv", "--score", "s", "--label", "y", "-o", benign / "m.json"],
        ["evaluate", benign / "cal.csv", "--label", "y", "--proba", "s"],
    ):
        result = invoke(*command, "--positive", "benign")
        assert warning_lines(result) == [], result.stderr


def test_evaluate_warns_for_a_column_ranking_the_positive_class_below(benign):
    result = invoke("evaluate", benign / "cal.csv", "--label", "y", "--proba", "s")
    lines = warning_lines(result)
    assert len(lines) == 1 and "'s'" in lines[0], result.stderr
