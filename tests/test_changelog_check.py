"""The CI's changelog check fails exactly when library code changed after the newest fragment."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "check_changelog.py"


def _git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _commit(repo, path, text, message):
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    _git(repo, "add", path)
    _git(repo, "commit", "-q", "-m", message)


def _check(repo):
    return subprocess.run([sys.executable, str(SCRIPT)], cwd=repo, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path):
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "dev@example.org")
    _git(tmp_path, "config", "user.name", "dev")
    _commit(tmp_path, "CHANGELOG.md", "# Changelog\n", "release 0.1.0")
    return tmp_path


def test_nothing_changed_passes(repo):
    assert _check(repo).returncode == 0


def test_a_change_without_fragment_fails(repo):
    _commit(repo, "src/pkg/a.py", "x = 1\n", "change a")
    result = _check(repo)
    assert result.returncode == 1
    assert "change a" in result.stdout


@pytest.mark.parametrize("fragment_first", [False, True])
def test_only_a_fragment_after_the_change_covers_it(repo, fragment_first):
    steps = [
        ("src/pkg/a.py", "x = 1\n", "change a"),
        ("changelog.d/a.fix.md", "Fixed a.\n", "fragment for a"),
    ]
    for step in reversed(steps) if fragment_first else steps:
        _commit(repo, *step)
    result = _check(repo)
    assert result.returncode == int(fragment_first)
    assert ("change a" in result.stdout) == fragment_first


def test_exempt_commits_and_other_folders_pass(repo):
    _commit(repo, "src/pkg/a.py", "x = 1\n", "comment only\n\nChangelog: none")
    _commit(repo, "docs/page.md", "text\n", "docs")
    _commit(repo, "tests/test_a.py", "pass\n", "tests")
    assert _check(repo).returncode == 0


def test_a_readme_in_the_fragment_folder_is_not_a_fragment(repo):
    _commit(repo, "src/pkg/a.py", "x = 1\n", "change a")
    _commit(repo, "changelog.d/README.md", "How to.\n", "readme")
    assert _check(repo).returncode == 1


def test_a_release_resets_the_range(repo):
    _commit(repo, "src/pkg/a.py", "x = 1\n", "change a")
    _commit(repo, "CHANGELOG.md", "# Changelog\n\n## 0.2.0\n", "release 0.2.0")
    assert _check(repo).returncode == 0
