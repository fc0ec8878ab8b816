"""``venncal --help`` shows every command's summary whole on an 80-column terminal."""

import re

from click.testing import CliRunner

from venncal.cli import _COMMANDS, main


def test_command_summaries_are_not_cut():
    CliRunner().invoke(main, ["monitor", "--help"])  # a command loaded first keeps its place
    result = CliRunner().invoke(main, ["--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    section = result.output.split("Commands:", 1)[1]
    lines = [line for line in section.splitlines() if line.strip()]
    names = [line.split()[0] for line in lines]
    assert names == list(_COMMANDS)
    for line in lines:
        assert "..." not in line, line
        assert len(line) <= 80, line
        assert re.match(r"  \w+ +\S", line), line  # a name then its summary on the same line
