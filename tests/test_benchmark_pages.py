"""BENCHMARKS.md is a one-screen summary: one row per benchmark page, every page listed."""

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("_pages", ROOT / "benchmarks" / "_pages.py")
pages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pages)


def test_the_summary_lists_every_page_and_only_pages_that_exist():
    text = (ROOT / "BENCHMARKS.md").read_text()
    linked = re.findall(r"\]\(docs/benchmarks/([^)]+\.md)\)", text)
    on_disk = sorted(p.name for p in (ROOT / "docs" / "benchmarks").glob("*.md"))
    assert sorted(linked) == [n for n in on_disk if n != "index.md"]
    assert len(text.splitlines()) <= 60  # one screen


def test_every_page_has_one_title():
    for path in (ROOT / "docs" / "benchmarks").glob("*.md"):
        if path.name == "index.md":
            continue
        text = path.read_text()
        assert text.startswith("# "), path.name
        assert "\n# " not in text[2:], f"{path.name} has a second level-1 heading"


def test_record_writes_the_page_and_marks_the_headline(tmp_path, monkeypatch):
    monkeypatch.setattr(pages, "PAGES", tmp_path / "docs" / "benchmarks")
    monkeypatch.setattr(pages, "SUMMARY", tmp_path / "BENCHMARKS.md")
    pages.write_summary([("Speed", "2x faster", "2026-01-01", "speed.md")])
    pages.record("Speed", "2026-02-02, x86_64\n\n### Table\n\n| a |\n|---|\n| 1 |\n")
    page = (tmp_path / "docs" / "benchmarks" / "speed.md").read_text()
    assert page.startswith("# Speed\n") and "\n## Table\n" in page
    summary = (tmp_path / "BENCHMARKS.md").read_text()
    assert "rerun 2026-02-02: see the page (was: 2x faster)" in summary
    assert "| 2026-02-02 |" in summary
    # a new benchmark gets its own row and a place in the index
    pages.record("New one", "2026-03-03\n\nbody\n")
    summary = (tmp_path / "BENCHMARKS.md").read_text()
    assert "[New one](docs/benchmarks/new-one.md) | see the page | 2026-03-03 |" in summary
    assert "new-one" in (tmp_path / "docs" / "benchmarks" / "index.md").read_text()
