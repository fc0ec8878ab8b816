"""Every public subpackage is reachable as an attribute once ``import venncal`` has run."""

import subprocess
import sys

import pytest

import venncal

SUBPACKAGES = [
    "calibration",
    "classifiers",
    "core",
    "datasets",
    "diagnostics",
    "metrics",
    "persistence",
    "plotting",
    "shift",
]


def test_subpackages_are_attributes_after_import_venncal():
    # a fresh interpreter: no earlier import has put a subpackage on the module
    code = (
        "import venncal\n"
        f"for name in {SUBPACKAGES!r}:\n"
        "    assert getattr(venncal, name).__name__ == 'venncal.' + name, name\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_metrics_function_through_the_package():
    assert venncal.metrics.log_loss([0, 1], [0.5, 0.5]) == pytest.approx(0.6931471805599453)
    assert {"metrics", "calibration"} <= set(dir(venncal))


def test_unknown_attribute_still_raises():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        venncal.nope  # noqa: B018
