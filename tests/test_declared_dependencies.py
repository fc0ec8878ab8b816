"""Every third-party package venncal imports at run time is declared in pyproject.toml.

Imports are read from the source, at any depth (inside functions too: they run on first use),
except those under ``if TYPE_CHECKING``. A package imported by the library proper must be a
dependency; one imported only by an optional part may be declared in an extra instead.
"""

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "venncal"

#: import name -> distribution name, where they differ
DISTRIBUTION = {"sklearn": "scikit-learn", "distributed": "dask"}  # dask[distributed]


def _type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_nodes(body):
    for node in body:
        if isinstance(node, ast.If) and _type_checking(node.test):
            yield from _run_time_nodes(node.orelse)
            continue
        yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            sub = getattr(node, field, None)
            if isinstance(sub, list):
                yield from _run_time_nodes(sub)


def run_time_imports(path):
    """Top-level names of the packages ``path`` imports at run time (not under TYPE_CHECKING)."""
    found = set()
    for node in _run_time_nodes(ast.parse(path.read_text()).body):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _names(requirements):
    return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_reader_skips_type_checking_imports(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nimport numpy\nif TYPE_CHECKING:\n    import pandas\n"
        "def f():\n    from sklearn.base import clone\n"
    )
    assert run_time_imports(source) == {"typing", "numpy", "sklearn"}


def test_every_imported_package_is_declared():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    required = _names(project["dependencies"])
    extras = set().union(*(_names(r) for r in project["optional-dependencies"].values()))
    undeclared = {}
    for path in SRC.rglob("*.py"):
        for name in run_time_imports(path) - set(sys.stdlib_module_names) - {"venncal"}:
            distribution = DISTRIBUTION.get(name, name).lower()
            if distribution not in required | extras:
                undeclared.setdefault(distribution, []).append(str(path.relative_to(ROOT)))
    assert not undeclared, f"imported at run time but not declared: {undeclared}"
