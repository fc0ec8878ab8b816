"""One version number: the package, its metadata, and the command line agree."""

import re
from importlib.metadata import version
from pathlib import Path

from click.testing import CliRunner

import venncal
from venncal.cli import main

ROOT = Path(__file__).resolve().parent.parent
TYPES = {"feature", "change", "fix", "deprecation"}


def test_the_version_is_the_same_everywhere():
    out = CliRunner().invoke(main, ["--version"])
    assert out.exit_code == 0, out.output
    assert out.output.strip() == f"venncal, version {venncal.__version__}"
    assert version("venncal") == venncal.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", venncal.__version__)


def test_the_changelog_has_an_entry_for_every_release_up_to_this_one():
    text = (ROOT / "CHANGELOG.md").read_text()
    released = re.findall(r"^## (\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\)$", text, re.M)
    assert "0.1.0" in released
    assert venncal.__version__ in released or all(
        tuple(map(int, v.split("."))) < tuple(map(int, venncal.__version__.split(".")))
        for v in released
    )


def test_changelog_fragments_are_named_by_type():
    folder = ROOT / "changelog.d"
    for path in folder.iterdir():
        if path.name == "README.md":
            continue
        parts = path.name.split(".")
        assert len(parts) == 3 and parts[2] == "md", path.name
        assert parts[1] in TYPES, path.name
        assert path.read_text().strip(), path.name
