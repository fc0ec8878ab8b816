"""The README states each measured time once: every other mention of it must agree."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# the quick study's console transcript lives on its reproduction page
QUICKSTART_PAGE = (ROOT / "docs" / "reproductions" / "quickstart.md").read_text(encoding="utf-8")
BOTH = README + "\n" + QUICKSTART_PAGE


def timings_paragraph():
    match = re.search(r"\*\*Timings\*\*(.*?)\n\n", README, re.S)
    assert match, "README.md needs one **Timings** paragraph with the measured times"
    return " ".join(match.group(1).split())


def test_one_timings_paragraph():
    assert README.count("**Timings**") == 1


def test_quick_study_times_agree_with_the_timings():
    text = timings_paragraph()
    wall = re.search(r"--quick` takes (\d+) s wall time", text)
    printed = re.search(r"quick mode, (\d+) s", text)
    assert wall and printed, text
    # the console transcript of the quick study prints the time the timings paragraph gives
    shown = re.findall(r"vovk-petej-2014 (?:--n-jobs -1 )?--quick\s+# about (\d+) s", BOTH)
    assert shown and set(shown) == {wall.group(1)}
    transcript = re.findall(r"\(quick mode, (\d+) s\)", BOTH)
    assert transcript and set(transcript) == {printed.group(1)}
    # no other statement of how long the quick study takes
    for stale in ("about two minutes", "about 100 s", "about 1.5 minutes"):
        assert stale not in BOTH


def test_readme_is_a_landing_page():
    # the user guide, the reproductions and the reference live in docs/; the README stays short
    assert len(README) <= 10_000, len(README)
    for link in ("docs/user_guide/index.md", "docs/reproductions/index.md"):
        assert f"]({link})" in README, link


def test_demo_time_agrees_with_the_timings():
    text = timings_paragraph()
    assert re.search(r"`venncal demo` [\d.]+ to [\d.]+ s", text), text
    assert "one-second" not in README
