"""The README states each measured time once: every other mention of it must agree."""

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


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
    for shown in re.findall(r"vovk-petej-2014 --quick\s+# about (\d+) s", README):
        assert shown == wall.group(1)
    transcript = re.findall(r"\(quick mode, (\d+) s\)", README)
    assert transcript and set(transcript) == {printed.group(1)}
    # no other statement of how long the quick study takes
    for stale in ("about two minutes", "about 100 s", "about 1.5 minutes"):
        assert stale not in README


def test_demo_time_agrees_with_the_timings():
    text = timings_paragraph()
    assert re.search(r"`venncal demo` [\d.]+ to [\d.]+ s", text), text
    assert "one-second" not in README
