"""The HTML report seen in a real browser (headless Chromium): wide tables scroll inside their box,
the page is no wider than the window, and the notes' Markdown is rendered, not shown."""

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._browser import WINDOW, find_browser, png_size, run_browser
from venncal.experiments.report import StudyResult, write_report


def _wide_result():
    """A study result shaped like the Vovk & Petej tables: 25 columns of 'loss (classifier)'."""
    rng = np.random.default_rng(0)
    columns = [f"log loss (MLE) / method {j}" for j in range(24)]
    index = pd.Index(["Australian", "Breast", "Diabetes", "Echo"], name="dataset")
    cells = [[f"{v:.3f} ({c})" for v, c in zip(rng.random(24), "J JB LR NB NN SVM".split() * 4)]]
    table = pd.DataFrame(cells * 4, index=index, columns=columns)  # 1 index + 24 = 25 columns
    return StudyResult(
        name="vovk-petej-2014",
        title="Vovk & Petej (2014), Venn-Abers predictors <wide>",
        mode="quick",
        tables={"Table 1: log loss, ours (paper)": table},
        notes=[
            "Classifiers are stand-ins: `J` CART tree, `JB` bagging; **Breast** is "
            "the `<Ljubljana>` set & more.",
            "- one `item`\n- two **items**",
        ],
        config={"n_splits": 3, "datasets": ["Australian", "Breast"]},
        wall_time=1.5,
        checks={"`VA` log loss is finite": True, "DIR is *infinite* somewhere": False},
    )


class _Dom(HTMLParser):
    """Tables with their parents' classes, the visible text, and the style sheets."""

    def __init__(self):
        super().__init__()
        self.stack, self.tables, self.text, self.css = [], [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append(self.stack[-1] if self.stack else ("", ""))
        if tag not in {"meta", "br", "img", "link", "hr", "input"}:
            self.stack.append((tag, dict(attrs).get("class") or ""))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        inside = [t for t, _ in self.stack]
        if "style" in inside:
            self.css.append(data)
        elif "script" not in inside and "head" not in inside:
            self.text.append(data)


def _measuring_copy(report, tmp_path):
    """The report plus a script that writes the page's and the tables' widths into the DOM."""
    script = (
        "<script>var d = document.documentElement;"
        "d.setAttribute('data-scroll-width', d.scrollWidth);"
        "d.setAttribute('data-window-width', window.innerWidth);"
        "d.setAttribute('data-table-width', Math.max.apply(null, Array.from("
        "document.querySelectorAll('table'), function (t) { return t.scrollWidth; })));"
        "</script>"
    )
    page = report.read_text(encoding="utf-8").replace("</body>", script + "</body>")
    copy = tmp_path / "measure.html"
    copy.write_text(page, encoding="utf-8")
    return copy


@pytest.fixture(scope="module")
def browser():
    return find_browser()


@pytest.fixture
def report(tmp_path):
    return write_report(_wide_result(), tmp_path / "out")["html"]


def test_screenshot_of_the_report_is_a_png_of_the_window(browser, report, tmp_path):
    shot = tmp_path / "report.png"
    run_browser(browser, tmp_path, f"--screenshot={shot}", report.resolve().as_uri())
    data = shot.read_bytes()
    assert png_size(data) == WINDOW
    assert len(data) > 1000


def test_wide_tables_scroll_inside_their_box_and_the_page_fits_the_window(
    browser, report, tmp_path
):
    page = _measuring_copy(report, tmp_path)
    dom_text = run_browser(
        browser,
        tmp_path,
        "--run-all-compositor-stages-before-draw",
        "--virtual-time-budget=5000",
        "--dump-dom",
        page.resolve().as_uri(),
    ).stdout
    widths = {
        k: int(v) for k, v in re.findall(r'data-(scroll|window|table)-width="(\d+)"', dom_text)
    }
    assert set(widths) == {"scroll", "window", "table"}, dom_text[:500]
    assert widths["table"] > widths["window"]  # the table is wider than the window ...
    assert widths["scroll"] <= widths["window"]  # ... yet the page does not scroll sideways

    dom = _Dom()
    dom.feed(dom_text)
    assert dom.tables, "no table in the report"
    assert all("table-scroll" in cls.split() for _, cls in dom.tables), dom.tables
    css = re.sub(r"\s+", "", "".join(dom.css))
    rule = re.search(r"\.table-scroll\{([^}]*)\}", css)
    assert rule and "overflow-x:auto" in rule.group(1) and "max-width:100%" in rule.group(1)


def test_rendered_text_shows_no_markdown(browser, report, tmp_path):
    dom_text = run_browser(browser, tmp_path, "--dump-dom", report.resolve().as_uri()).stdout
    dom = _Dom()
    dom.feed(dom_text)
    text = "".join(dom.text)
    assert "Study vovk-petej-2014, mode quick" in text
    assert "`" not in text
    assert "**" not in text
    assert "<Ljubljana>" in text and "<wide>" in text  # escaped in the file, shown as written
    assert "<code>J</code>" in dom_text and "<strong>Breast</strong>" in dom_text
    assert "<li>one <code>item</code></li>" in dom_text
    assert "<em>infinite</em>" in dom_text


@pytest.mark.slow
def test_report_of_a_real_study_renders_in_the_browser(browser, tmp_path):
    out = tmp_path / "tasche"
    subprocess.run(
        ["venncal", "reproduce", "tasche-2022", "--quick", "--out", str(out)],
        capture_output=True,
        check=True,
        timeout=300,
    )
    page = _measuring_copy(Path(out) / "report.html", tmp_path)
    dom_text = run_browser(browser, tmp_path, "--dump-dom", page.resolve().as_uri()).stdout
    widths = dict(re.findall(r'data-(scroll|window)-width="(\d+)"', dom_text))
    assert int(widths["scroll"]) <= int(widths["window"])
    dom = _Dom()
    dom.feed(dom_text)
    assert dom.tables and all("table-scroll" in cls.split() for _, cls in dom.tables)
    assert "`" not in "".join(dom.text)
