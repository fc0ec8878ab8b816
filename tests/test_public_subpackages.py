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


def test_every_public_name_is_exported_by_its_subpackage():
    # one rule for the public surface: a name public at the top is public in its subpackage
    # too, so ``from venncal.classifiers import VennAbersClassifier`` works like
    # ``venncal.VennAbersClassifier``, and it is the same object
    import importlib

    missing = []
    for name, module in venncal._LAZY.items():
        package = importlib.import_module(".".join(module.split(".")[:2]))
        if name not in getattr(package, "__all__", ()) or getattr(package, name) is not getattr(
            venncal, name
        ):
            missing.append(f"{name} ({package.__name__})")
    assert not missing, f"public names their subpackage does not export: {missing}"


def test_every_subpackage_name_in_all_exists():
    import importlib

    for sub in SUBPACKAGES:
        package = importlib.import_module(f"venncal.{sub}")
        for name in getattr(package, "__all__", ()):
            assert hasattr(package, name), f"venncal.{sub}.__all__ names {name!r}, not defined"
