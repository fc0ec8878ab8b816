"""Fixtures of the plotting tests."""

import sys

import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every figure a test leaves open (pyplot only if the test imported it)."""
    yield
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")
