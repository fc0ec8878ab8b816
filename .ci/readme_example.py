"""Run README.md's "In Python" example against the installed venncal (CI, from the wheel).

The example uses the reader's data (``scores_cal``, ``y_cal``, ``region_cal``, ``logits_cal``,
...); small synthetic stand-ins are defined first. Run from a folder outside the source tree so
that ``import venncal`` finds the installed package. Usage: ``python readme_example.py README``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

rng = np.random.default_rng(0)


def _binary(n):
    s = rng.normal(size=n)
    return s, (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)


def _logits(n):
    labels = rng.integers(0, 3, n)
    return rng.normal(size=(n, 3)) + 2 * np.eye(3)[labels], labels


def main(readme):
    text = Path(readme).read_text()
    section = text[text.index("## In Python") :]
    block = re.search(r"^```python\n(.*?)^```", section, re.S | re.M).group(1)
    scores_cal, y_cal = _binary(400)
    scores_test, _ = _binary(50)
    logits_cal, labels_cal = _logits(400)
    logits_test, _ = _logits(50)
    namespace = {
        "scores_cal": scores_cal,
        "y_cal": y_cal,
        "scores_test": scores_test,
        "region_cal": np.where(rng.random(400) < 0.5, "north", "south"),
        "region_test": np.where(rng.random(50) < 0.5, "north", "south"),
        "logits_cal": logits_cal,
        "labels_cal": labels_cal,
        "logits_test": logits_test,
    }
    exec(compile(block, f"{readme} (In Python)", "exec"), namespace)
    venncal = namespace["venncal"]
    if "site-packages" not in venncal.__file__:
        print(f"readme_example: venncal was imported from {venncal.__file__}, not the wheel")
        return 1
    print(f"readme_example: README's Python example ran against {venncal.__file__}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
