"""The maintainer's map (CONTRIBUTING.md) names files and tests that exist: a renamed module or
test makes the map fail here instead of misleading its reader."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "CONTRIBUTING.md"


def _quoted():
    return re.findall(r"`([^`\s]+)`", MAP.read_text(encoding="utf-8"))


def test_every_test_the_map_names_exists():
    named = [q for q in _quoted() if q.startswith("tests/")]
    assert len(named) >= 10
    missing = []
    for item in named:
        path, _, test = item.partition("::")
        if not (ROOT / path).exists():
            missing.append(item)
        elif test and f"def {test}(" not in (ROOT / path).read_text(encoding="utf-8"):
            missing.append(item)
    assert not missing, f"CONTRIBUTING.md names tests that do not exist: {missing}"


def test_every_module_the_map_names_exists():
    src = ROOT / "src" / "venncal"
    missing = []
    for item in _quoted():
        if re.fullmatch(r"(venncal\.)?[a-z_]+(\.[a-z_]+)*", item) and item.startswith("venncal."):
            parts = item.split(".")[1:]
            base = src.joinpath(*parts)
            if not (base.with_suffix(".py").exists() or (base / "__init__.py").exists()):
                missing.append(item)
        elif re.fullmatch(r"[a-z_]+/[a-z_*]+\.py", item) and (src / item.split("/")[0]).is_dir():
            if not list(src.glob(item)):  # e.g. persistence/_predictor*.py
                missing.append(item)
    assert not missing, f"CONTRIBUTING.md names modules that do not exist: {missing}"
