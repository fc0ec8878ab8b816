"""The CI's type check: errors outside the strict packages fail, a strict baseline only shrinks."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("check_types", ROOT / ".ci" / "check_types.py")
check_types = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_types)

CORE = "src/venncal/core/x.py"
CLI = "src/venncal/cli/y.py"


def _out(*files):
    return "".join(f"{f}:1: error: something  [misc]\n" for f in files)


def test_the_baseline_is_met():
    problems, lowered, _ = check_types.compare(_out(CORE, CORE), {CORE: 2})
    assert problems == [] and lowered == []


def test_more_strict_errors_than_the_baseline_fail():
    problems, _, _ = check_types.compare(_out(CORE, CORE, CORE), {CORE: 2})
    assert problems and "baseline 2" in problems[0]
    problems, _, _ = check_types.compare(_out("src/venncal/metrics/new.py"), {})
    assert problems


def test_any_error_outside_the_strict_packages_fails():
    problems, _, _ = check_types.compare(_out(CLI), {})
    assert problems == [f"{CLI}:1: error: something  [misc]"]


def test_fewer_errors_are_reported_as_room_to_lower_the_baseline():
    problems, lowered, _ = check_types.compare(_out(CORE), {CORE: 2})
    assert problems == [] and lowered == [f"{CORE}: 1 (baseline 2)"]


def test_the_committed_baseline_covers_only_strict_packages():
    import json

    baseline = json.loads((ROOT / ".ci" / "mypy_strict_baseline.json").read_text())
    assert baseline and all(f.startswith(check_types.STRICT) for f in baseline)
    assert all(isinstance(n, int) and n > 0 for n in baseline.values())
