"""The benchmark pages: one page per benchmark in docs/benchmarks, a summary in BENCHMARKS.md.

Each benchmark script records its figures with :func:`write_page` (through
``_timing.write_section``): the page ``docs/benchmarks/<slug>.md`` holds the full tables with
their date, machine and command, and the benchmark's row of the summary table in BENCHMARKS.md
gets the new date (its one-line headline, written by hand, is marked for review when the page
changes, so the summary never shows a figure the page no longer has).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "benchmarks"
SUMMARY = ROOT / "BENCHMARKS.md"
_ROW = re.compile(
    r"^\| \[(?P<title>[^\]]+)\]\(docs/benchmarks/(?P<file>[^)]+)\) \| (?P<rest>.*)$", re.M
)
_HEADER = """# Benchmarks

Every figure is measured on this project's machines (x86_64, 2 cores, often shared with other
jobs: each page gives the load, the command and the date). The rival runs in the same process
(the PyPI package, or numpy's own primitive as the physical floor), and the pages report ratios.
One row per benchmark; the page has the tables, the method and what was not reached.

| benchmark | headline | measured |
|---|---|---|
"""


def slug(title):
    """File name of a benchmark's page: the title in lower case, words joined by dashes."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") + ".md"


def measured(body):
    """The first date (YYYY-MM-DD) in a page's body, or an empty string."""
    match = re.search(r"20\d\d-\d\d-\d\d", body)
    return match.group(0) if match else ""


def _page_text(title, body):
    body = body.strip()
    # one level up: the page's title is the only level-1 heading
    body = re.sub(r"^(#{3,6}) ", lambda m: m.group(1)[1:] + " ", body, flags=re.M)
    # links and images relative to the repository root become relative to docs/benchmarks
    body = re.sub(r"\]\(docs/", "](../", body)
    body = re.sub(r"\]\((?!\.\./|https?://|#)([^)]+)\)", r"](../../\1)", body)
    return f"# {title}\n\n{body}\n"


def write_page(title, body):
    """Write the page of benchmark ``title`` and list it in the index; return its path."""
    PAGES.mkdir(parents=True, exist_ok=True)
    path = PAGES / slug(title)
    path.write_text(_page_text(title, body))
    index = PAGES / "index.md"
    names = sorted(p.stem for p in PAGES.glob("*.md") if p.name != "index.md")
    index.write_text(
        "# Benchmarks\n\nThe summary is in the repository's BENCHMARKS.md; one page per "
        "benchmark:\n\n```{toctree}\n:maxdepth: 1\n\n" + "\n".join(names) + "\n```\n"
    )
    return path


def _rows():
    text = SUMMARY.read_text() if SUMMARY.exists() else ""
    rows = []
    for m in _ROW.finditer(text):
        cells = [c.strip() for c in m.group("rest").rstrip("|").split(" | ")]
        rows.append(
            (m.group("title"), cells[0], cells[1] if len(cells) > 1 else "", m.group("file"))
        )
    return rows


def write_summary(rows):
    """Write BENCHMARKS.md from ``(title, headline, date, page file)`` rows."""
    lines = [f"| [{t}](docs/benchmarks/{f}) | {h} | {d} |" for t, h, d, f in rows]
    SUMMARY.write_text(_HEADER + "\n".join(lines) + "\n")


def record(title, body):
    """Write the page of ``title`` and update its summary row (date; headline to review)."""
    path = write_page(title, body)
    rows, date, found = _rows(), measured(body), False
    for i, (t, headline, _, f) in enumerate(rows):
        if t == title:
            found = True
            if not headline.startswith("rerun"):
                headline = f"rerun {date}: see the page (was: {headline})"
            rows[i] = (t, headline, date, f)
    if not found:
        rows.append((title, "see the page", date, path.name))
    write_summary(rows)
    return path
