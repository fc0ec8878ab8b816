"""Headless Chromium for the tests that look at HTML pages (reports, documentation)."""

import shutil
import subprocess

import pytest

WINDOW = (1400, 1000)
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser():
    """The path of a Chromium binary, or skip the test saying how to install one."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(
        "no Chromium binary found (looked for " + ", ".join(BROWSERS) + "); "
        "install it with `apt-get install chromium` to check HTML pages in a browser"
    )


def run_browser(browser, tmp_path, *args):
    """Run headless Chromium with a private profile in ``tmp_path`` and the test window size."""
    profile = tmp_path / "chromium-profile"
    cmd = [
        browser,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)


def png_size(data):
    """(width, height) of PNG bytes; fails unless they are a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
