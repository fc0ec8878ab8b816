"""Write the support table (``user_guide/support.md``) from ``venncal._support.SUPPORT``."""

from __future__ import annotations

from pathlib import Path

#: short column headings (the legend under the table gives the full names)
SHORT = {
    "file": "file",
    "cli": "CLI",
    "sql": "SQL",
    "onnx": "ONNX",
    "dask": "Dask",
    "spark": "Spark",
    "chooser": "chooser",
}


def _cell(entry):
    if entry is True:
        return "yes"
    if isinstance(entry, tuple):
        return "yes: " + ", ".join(f"`{m}`" for m in entry)
    return "no"


def write_support_table(path):
    from venncal._support import SURFACES, support_rows

    rows = support_rows()
    lines = [
        "# What runs where",
        "",
        "Which public estimator each part of venncal supports, generated from the declarations",
        "in `venncal._support` (one row per class and task). The test suite walks every row",
        "through every surface (`tests/test_support.py`, `tests/spark/test_support_spark.py`):",
        "a supported one must give the estimator's own numbers, a refused one a one-line error",
        "that says why. The reasons are listed under the table.",
        "",
        "| class | task | " + " | ".join(SHORT[s] for s in SURFACES) + " |",
        "|---|---|" + "---|" * len(SURFACES),
    ]
    for name, task, entries in rows:
        cells = " | ".join(_cell(entries[s]) for s in SURFACES)
        lines.append(f"| `{name}` | {task} | {cells} |")
    lines += [""] + [f"- {SHORT[s]}: {what}" for s, what in SURFACES.items()]
    lines += ["", "## Why not", ""]
    for name, task, entries in rows:
        reasons = {s: e for s, e in entries.items() if isinstance(e, str)}
        if reasons:
            lines.append(f"- `{name}` ({task}):")
            for surface, why in reasons.items():
                lines.append(f"  - {SURFACES[surface]}: {why}.")
    new = "\n".join(lines) + "\n"
    path = Path(path)
    if not path.exists() or path.read_text() != new:
        path.write_text(new)
