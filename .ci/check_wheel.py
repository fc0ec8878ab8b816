"""Inspect a built wheel: it holds what the package needs and nothing of the repository's own.

Usage: ``python .ci/check_wheel.py DIST_DIR``. Checks the single ``venncal-*.whl`` in DIST_DIR:
its version is ``venncal.__version__`` of the source tree; it has ``py.typed``, every module of
``src/venncal``, every bundled data file (datasets and paper tables) byte for byte, each
dataset file named in the bundled ``SOURCES.md`` (its provenance and licence), the licence,
the ``venncal`` command, and no tests, benchmarks, results or documentation sources. With an
sdist beside it (``venncal-*.tar.gz``), the sdist must hold the project files the wheel is
built from. Exit status 1
with one line per problem.
"""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
DATA = ("venncal/datasets/data/", "venncal/experiments/paper_tables/")
FOREIGN = ("tests/", "benchmarks/", "results/", "docs/", "changelog.d/")


def _source_version():
    text = (SRC / "venncal" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def problems(wheel):
    found = []
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        version = _source_version()
        if not Path(wheel).name.startswith(f"venncal-{version}-"):
            found.append(f"wheel {Path(wheel).name} is not version {version}")
        if "venncal/py.typed" not in names:
            found.append("py.typed is missing")
        for path in sorted((SRC / "venncal").rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            name = path.relative_to(SRC).as_posix()
            shipped = path.suffix == ".py" or name.startswith(DATA) or name.endswith("py.typed")
            if not shipped:
                continue
            if name not in names:
                found.append(f"{name} is missing")
            elif zf.read(name) != path.read_bytes():
                found.append(f"{name} differs from the source tree")
        for name in names:
            if name.startswith(FOREIGN):
                found.append(f"{name} does not belong in the wheel")
        sources = "venncal/datasets/data/SOURCES.md"
        listed = zf.read(sources).decode() if sources in names else ""
        for name in names:
            if name.startswith(DATA[0]) and not name.endswith("/") and name != sources:
                relative = name[len(DATA[0]) :]
                # a file is named by its path, or by its file name in its folder's table
                if relative not in listed and f"| {relative.rsplit('/', 1)[-1]} |" not in listed:
                    found.append(f"{name} has no provenance and licence entry in {sources}")
        if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
            found.append("the licence file is missing")
        entry = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        if not entry or "venncal = venncal.cli:main" not in zf.read(entry[0]).decode():
            found.append("the venncal command is not declared")
    return found


SDIST_NEEDS = ("pyproject.toml", "README.md", "LICENSE", "src/venncal/__init__.py")


def sdist_problems(sdist):
    import tarfile

    with tarfile.open(sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    found = [f"the sdist lacks {need}" for need in SDIST_NEEDS if need not in names]
    data = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (SRC / "venncal" / "datasets" / "data").rglob("*")
        if p.is_file()
    )
    found += [f"the sdist lacks {name}" for name in data if name not in names]
    return found


def main(argv):
    sdists = sorted(Path(argv[0]).glob("venncal-*.tar.gz")) if argv else []
    wheels = sorted(Path(argv[0]).glob("venncal-*.whl")) if argv else []
    if len(wheels) != 1:
        print(f"check_wheel: expected one venncal wheel in {argv[:1]}, found {len(wheels)}")
        return 1
    found = problems(wheels[0])
    for sdist in sdists:
        found += sdist_problems(sdist)
    for line in found:
        print(f"check_wheel: {line}")
    if not found:
        print(f"check_wheel: {wheels[0].name} holds the package, its data and py.typed")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
