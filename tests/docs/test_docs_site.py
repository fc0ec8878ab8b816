"""The documentation site: every public name has a page, and the built pages render in a browser.

The site is built by ``make -C docs html`` (CI does it before the tests). Without a build these
tests skip, unless ``VENNCAL_REQUIRE_DOCS=1`` says a build must be there (CI sets it).
"""

import importlib
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests._browser import WINDOW, find_browser, png_size, run_browser

DOCS = Path(__file__).resolve().parents[2] / "docs"
HTML = DOCS / "_build" / "html"

MEASURE = (
    "<script>window.addEventListener('load', function () {"
    "var d = document.documentElement;"
    "var imgs = Array.from(document.images);"
    "var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });"
    "d.setAttribute('data-images', imgs.length);"
    "d.setAttribute('data-broken', broken.map(function (i) { return i.src; }).join(' '));"
    "d.setAttribute('data-scroll-width', d.scrollWidth);"
    "d.setAttribute('data-window-width', window.innerWidth);"
    "var over = Array.from(document.querySelectorAll('table')).filter(function (t) {"
    "  var r = t.getBoundingClientRect(); return r.right > window.innerWidth + 1; });"
    "d.setAttribute('data-overflowing-tables', over.length);"
    "d.setAttribute('data-text-length', document.body.innerText.length);"
    "});</script>"
)


@pytest.fixture(scope="module")
def site():
    if not (HTML / "index.html").exists():
        if os.environ.get("VENNCAL_REQUIRE_DOCS") == "1":
            pytest.fail("docs/_build/html is missing: run `make -C docs html` first")
        pytest.skip("the documentation is not built (make -C docs html)")
    return HTML


def test_every_public_name_has_a_page(site):
    sys.path.insert(0, str(DOCS))
    try:
        api = importlib.import_module("_api")
    finally:
        sys.path.remove(str(DOCS))
    groups = api.public_names()
    names = [n for _, _, group in groups for n in group]
    assert len(names) == len(set(names))
    missing = [n for n in names if not (site / "generated" / f"{n}.html").exists()]
    assert not missing, missing
    # and the generator misses no public name: every name of the top level is there
    import venncal

    top = {f"venncal.{n}" for n in venncal._LAZY}
    assert top <= set(names), sorted(top - set(names))


def test_every_public_module_of_the_core_is_in_the_reference():
    """A public module of ``venncal.core`` is documented without editing the generator (seven
    were missing when the list was written by hand); this needs no built site."""
    import pkgutil

    import venncal.core

    sys.path.insert(0, str(DOCS))
    try:
        api = importlib.import_module("_api")
    finally:
        sys.path.remove(str(DOCS))
    listed = {m for _, _, modules in api.LAYERS for m in modules}
    public = {
        f"venncal.core.{m.name}"
        for m in pkgutil.iter_modules(venncal.core.__path__)
        if not m.name.startswith("_")
    }
    assert public <= listed, sorted(public - listed)


def test_gallery_ran_and_drew_its_figures(site):
    pages = sorted((site / "auto_examples").glob("plot_*.html"))
    assert len(pages) >= 5, pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert re.search(r'<img[^>]+src="\.\./_images/sphx_glr_plot_', text), page.name


def test_support_table_lists_every_declared_row(site):
    from venncal._support import SUPPORT

    text = (site / "user_guide" / "support.html").read_text(encoding="utf-8")
    table = text[text.index("<table") : text.index("</table>")]
    body = table[table.index("<tbody") :]
    assert body.count("<tr") == len(SUPPORT)
    for name, task in SUPPORT:
        assert re.search(rf">{name}<.*?>{task}<", body, re.S), (name, task)


@pytest.mark.parametrize(
    "page",
    [
        "index.html",
        "auto_examples/plot_reliability.html",
        "user_guide/guarantees.html",
        "user_guide/support.html",
    ],
)
def test_page_renders_in_a_browser(site, page, tmp_path):
    browser = find_browser()
    copy = tmp_path / "html"
    shutil.copytree(site, copy)
    target = copy / page
    target.write_text(
        target.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"),
        encoding="utf-8",
    )
    shot = tmp_path / "shot.png"
    run_browser(browser, tmp_path, f"--screenshot={shot}", target.resolve().as_uri())
    data = shot.read_bytes()
    assert png_size(data) == WINDOW and len(data) > 10_000  # a page, not a blank window
    dom = run_browser(
        browser,
        tmp_path,
        "--run-all-compositor-stages-before-draw",
        "--virtual-time-budget=5000",
        "--dump-dom",
        target.resolve().as_uri(),
    ).stdout
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', dom))
    assert "broken" in attrs, dom[:500]
    assert attrs["broken"] == "", f"broken images: {attrs['broken']}"
    assert int(attrs["overflowing-tables"]) == 0
    assert int(attrs["scroll-width"]) <= int(attrs["window-width"])
    assert int(attrs["text-length"]) > 500
    if page.startswith("auto_examples"):
        assert int(attrs["images"]) >= 1
