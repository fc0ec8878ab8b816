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
    # a range measured on a named machine, with its load, not one number
    wall = re.search(r"--quick` takes (\d+) to (\d+) s", text)
    assert wall and int(wall.group(1)) < int(wall.group(2)), text
    assert re.search(r"\(\d{4}-\d\d-\d\d, [^)]*core[^)]*load [\d.]+ to [\d.]+", text), text
    # the console transcript of the quick study states the same range
    shown = re.findall(r"vovk-petej-2014 (?:--n-jobs -1 )?--quick\s+# (\d+) to (\d+) s", BOTH)
    assert shown and set(shown) == {wall.groups()}
    # and the run it shows printed a time inside it or below (the time it prints leaves out
    # the start of the process)
    transcript = re.findall(r"\(quick mode, (\d+) s\)", BOTH)
    assert transcript and all(int(t) <= int(wall.group(2)) for t in transcript)
    # no other statement of how long the quick study takes
    for stale in ("about two minutes", "about 100 s", "about 1.5 minutes", "about 25 s"):
        assert stale not in BOTH


def test_test_command_duration_is_stated():
    text = timings_paragraph()
    assert re.search(r"`pytest -n 2` \d+ to \d+ minutes", text), text


def test_readme_is_a_landing_page():
    # the user guide, the reproductions and the reference live in docs/; the README stays short
    assert len(README) <= 10_000, len(README)
    for link in ("docs/user_guide/index.md", "docs/reproductions/index.md"):
        assert f"]({link})" in README, link


def test_demo_time_agrees_with_the_timings():
    text = timings_paragraph()
    assert re.search(r"`venncal demo` [\d.]+ to [\d.]+ s", text), text
    assert "one-second" not in README


def test_speed_ratios_are_those_of_the_benchmarks_page():
    """Every "<N>x faster than `venn-abers`" of the README is the figure BENCHMARKS.md gives
    (one source for each headline number; the README once said 318x where the page said 170x)."""
    root = Path(__file__).resolve().parents[1]
    readme = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    bench = " ".join((root / "BENCHMARKS.md").read_text(encoding="utf-8").split())
    claims = re.findall(r"(\d+(?:\.\d+)?)x faster than `venn-abers`", readme)
    assert claims, "the README's headline ratio is gone; update this test"
    page = set(re.findall(r"(\d+(?:\.\d+)?)x faster than the venn-abers package", bench))
    assert set(claims) <= page, (claims, page)
