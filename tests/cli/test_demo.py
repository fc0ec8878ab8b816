"""The demo command."""

from click.testing import CliRunner

from venncal.cli import main
from venncal.cli.demo import run_demo


def test_demo_prints_rows_and_improves_log_loss():
    result = CliRunner().invoke(main, ["demo", "--rows", "4"])
    assert result.exit_code == 0, result.output
    assert "p0" in result.output and "log loss" in result.output
    rows, scores = run_demo(n_rows=4)
    assert len(rows) == 4 and (rows["p0"] <= rows["p1"]).all()
    # naive Bayes is overconfident: Venn-Abers must lower its test log loss
    assert scores["log loss"].iloc[1] < scores["log loss"].iloc[0]


def test_demo_bad_option_exits_2():
    result = CliRunner().invoke(main, ["demo", "--classifier", "nope"])
    assert result.exit_code == 2
