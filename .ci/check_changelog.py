"""Fail when library code changed after the newest changelog fragment.

Every change a user can notice adds a fragment to ``changelog.d/`` (see its README). Since the
last release (the last commit that changed ``CHANGELOG.md``, or ``--base REV``), walk the
commits from the newest: the first one that adds a fragment ends the walk; a commit before that
(newer than every fragment) which changes ``src/`` fails the check, unless its message carries a
line ``Changelog: none`` (a change no user can notice: a comment, a refactoring with the same
results). So a series of commits that changes the library must end with its fragments.

Usage: ``python .ci/check_changelog.py [--base REV]``; exit status 1 with the offending commits
listed, 0 otherwise (also when the folder is not a git repository with history: then it says
so and checks nothing).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

FRAGMENTS = "changelog.d/"
LIBRARY = "src/"
EXEMPT = "changelog: none"


def _git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def _commits(base):
    """(sha, subject, exempt, added fragment?, changed library?) from the newest commit."""
    out = _git("log", "--format=%x00%H%x01%B%x01", "--name-status", f"{base}..HEAD")
    for record in out.split("\x00")[1:]:
        sha, message, files = record.split("\x01")
        subject = message.strip().splitlines()[0] if message.strip() else ""
        exempt = any(line.strip().lower() == EXEMPT for line in message.splitlines())
        added = changed = False
        for line in files.strip().splitlines():
            status, *paths = line.split("\t")
            for path in paths:
                if status.startswith("A") and path.startswith(FRAGMENTS) and path.endswith(".md"):
                    added = added or not path.endswith("README.md")
                changed = changed or path.startswith(LIBRARY)
        yield sha, subject, exempt, added, changed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="first commit not checked (default: the last release)")
    args = parser.parse_args(argv)
    try:
        base = args.base or _git("log", "-1", "--format=%H", "--", "CHANGELOG.md").strip()
    except (OSError, subprocess.CalledProcessError):
        print("changelog check: not a git repository with history; nothing checked")
        return 0
    if not base:
        print("changelog check: no release commit found; nothing checked")
        return 0
    offending = []
    for sha, subject, exempt, added, changed in _commits(base):
        if added:
            break
        if changed and not exempt:
            offending.append(f"  {sha[:10]} {subject[:90]}")
    if offending:
        print(
            "changelog check: these commits change src/ after the newest fragment in "
            f"{FRAGMENTS} (add one, see {FRAGMENTS}README.md, or end the commit message with "
            "a line 'Changelog: none'):",
            *offending,
            sep="\n",
        )
        return 1
    print("changelog check: every change to src/ is followed by a fragment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
