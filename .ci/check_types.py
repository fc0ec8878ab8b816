"""mypy on src/venncal, strict everywhere: zero errors in the strict packages, a baseline elsewhere.

pyproject.toml applies mypy's strict settings to the whole package. In the strict packages
(``venncal.core``, ``calibration``, ``metrics``, ``persistence``) mypy must report nothing.
Elsewhere the errors still there (mostly private helpers without annotations) are counted per
file in ``.ci/mypy_baseline.json``: the check fails when a file has more errors than its
baseline (or any error in a file the baseline does not list), and says which counts went down
so that the baseline can be lowered with ``--update`` (which never raises a count). Exit
status 1 on failure.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / ".ci" / "mypy_baseline.json"
STRICT = tuple(f"src/venncal/{p}/" for p in ("core", "calibration", "metrics", "persistence"))
ERROR = re.compile(r"^(?P<file>[^:\n]+\.py):\d+: error: ", re.M)


def run_mypy() -> str:
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if out.returncode not in (0, 1):
        raise SystemExit(f"check_types: mypy failed to run:\n{out.stderr or out.stdout}")
    return out.stdout


def compare(output: str, baseline: dict[str, int]) -> tuple[list[str], list[str], Counter[str]]:
    """(problems, lowered, counts): lines that fail the check, files whose count went down."""
    counts = Counter(m.group("file") for m in ERROR.finditer(output))
    problems, lowered = [], []
    for file, n in sorted(counts.items()):
        if file.startswith(STRICT):
            problems += [ln for ln in output.splitlines() if ln.startswith(f"{file}:")]
        elif n > baseline.get(file, 0):
            problems.append(f"{file}: {n} errors, baseline {baseline.get(file, 0)}")
    for file, n in sorted(baseline.items()):
        if counts.get(file, 0) < n:
            lowered.append(f"{file}: {counts.get(file, 0)} (baseline {n})")
    return problems, lowered, counts


def main(argv: list[str]) -> int:
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    output = run_mypy()
    problems, lowered, counts = compare(output, baseline)
    if "--update" in argv:
        outside = {f: n for f, n in counts.items() if not f.startswith(STRICT)}
        new = {f: min(n, baseline.get(f, n)) if baseline else n for f, n in outside.items()}
        BASELINE.write_text(json.dumps(dict(sorted(new.items())), indent=1) + "\n")
        print(f"check_types: baseline written ({sum(new.values())} errors)")
        return 0
    for line in problems:
        print(f"check_types: {line}")
    if lowered:
        print("check_types: fewer errors than the baseline (lower it with --update):")
        print(*(f"  {line}" for line in lowered), sep="\n")
    strict = sum(n for f, n in counts.items() if f.startswith(STRICT))
    rest = sum(n for f, n in counts.items() if not f.startswith(STRICT))
    print(
        f"check_types: {strict} errors in the strict packages, {rest} elsewhere "
        f"({len(baseline)} baseline files); {'FAILED' if problems else 'passed'}"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
