"""The CI's type check: any error in the strict packages fails, a baseline elsewhere only shrinks."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("check_types", ROOT / ".ci" / "check_types.py")
check_types = importlib.util.module_from_spec(spec)
sys.modules["check_types"] = check_types
spec.loader.exec_module(check_types)

CORE = "src/venncal/core/x.py"
CLI = "src/venncal/cli/y.py"


def _out(*files):
    return "".join(f"{f}:1: error: something  [misc]\n" for f in files)


def test_any_error_in_a_strict_package_fails_whatever_the_baseline():
    problems, _, _ = check_types.compare(_out(CORE), {CORE: 5})
    assert problems == [f"{CORE}:1: error: something  [misc]"]
    for package in ("calibration", "metrics", "persistence"):
        problems, _, _ = check_types.compare(_out(f"src/venncal/{package}/new.py"), {})
        assert problems


def test_the_baseline_elsewhere_is_met():
    problems, lowered, _ = check_types.compare(_out(CLI, CLI), {CLI: 2})
    assert problems == [] and lowered == []


def test_more_errors_than_the_baseline_elsewhere_fail():
    problems, _, _ = check_types.compare(_out(CLI, CLI, CLI), {CLI: 2})
    assert problems == [f"{CLI}: 3 errors, baseline 2"]
    problems, _, _ = check_types.compare(_out("src/venncal/plotting/new.py"), {})
    assert problems


def test_fewer_errors_are_reported_as_room_to_lower_the_baseline():
    problems, lowered, _ = check_types.compare(_out(CLI), {CLI: 2})
    assert problems == [] and lowered == [f"{CLI}: 1 (baseline 2)"]


def test_the_committed_baseline_lists_no_strict_package():
    baseline = json.loads((ROOT / ".ci" / "mypy_baseline.json").read_text())
    assert not any(f.startswith(check_types.STRICT) for f in baseline)
    assert all(isinstance(n, int) and n > 0 for n in baseline.values())


def test_the_strict_settings_apply_to_the_whole_package():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["files"] == ["src/venncal"]
    for flag in ("disallow_untyped_defs", "disallow_untyped_calls", "disallow_any_generics"):
        assert config[flag] is True
    assert "overrides" not in config  # no package is exempt
