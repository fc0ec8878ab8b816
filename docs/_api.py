"""Write the API reference (``api.rst``) from the ``__all__`` of every public module.

Every public name gets a page of its own, under the layer it belongs to. A name that the top
level ``venncal`` also exports is documented once, as ``venncal.<name>``, the way users import
it. Run by ``conf.py`` before each build, so a name added to an ``__all__`` appears without
editing the docs.
"""

from __future__ import annotations

import importlib
from pathlib import Path

#: the core modules listed first, in this order (the rest follow alphabetically); the monitor's
#: betting module is listed under data shift
_CORE_FIRST = ["venn_abers", "merge", "venn", "isotonic", "platt", "beta", "quadratic"]
_CORE_ELSEWHERE = {"betting"}


def core_modules():
    """Every public module of ``venncal.core`` (a new one appears without editing this file)."""
    import pkgutil

    import venncal.core

    found = [
        m.name
        for m in pkgutil.iter_modules(venncal.core.__path__)
        if not m.name.startswith("_") and m.name not in _CORE_ELSEWHERE
    ]
    first = [m for m in _CORE_FIRST if m in found]
    return [f"venncal.core.{m}" for m in first + sorted(set(found) - set(first))]


#: (title, description, modules) in the order of the layers, bottom up
LAYERS = [
    (
        "Score calibrators",
        "scikit-learn estimators on 1-D scores (``fit(scores, y)``); the usual entry point.",
        ["venncal.calibration"],
    ),
    (
        "Classifiers",
        "Wrap any scikit-learn classifier and calibrate its scores (inductive, cross, "
        "simplified, full and out-of-bag Venn-Abers; Venn predictors; multiclass).",
        [
            "venncal.classifiers",
            "venncal.classifiers.venn_abers",
            "venncal.classifiers.venn",
            "venncal.classifiers.multiclass",
            "venncal.classifiers.probing",
        ],
    ),  # fmt: skip
    (
        "Choosing a calibrator",
        "Cross-validated comparison with bootstrap intervals.",
        ["venncal.selection"],
    ),
    (
        "Model files",
        "Versioned, checksummed JSON model files (no pickle).",
        ["venncal.persistence"],
    ),
    ("Dask", "Exact fits from distributed aggregates, lazy application.", ["venncal.dask"]),
    (
        "Spark",
        "Exact fits from one Spark aggregation, application with the model broadcast.",
        ["venncal.spark"],
    ),
    (
        "SQL and ONNX",
        "A fitted score calibrator as one SQL query or an ONNX graph.",
        ["venncal.export"],
    ),
    (
        "Metrics",
        "Scores, calibration errors, decompositions, Venn interval metrics and rank statistics "
        "(numpy and scipy only).",
        ["venncal.metrics", "venncal.metrics.ranking"],
    ),
    (
        "Plotting",
        "Displays in scikit-learn's style (``from_predictions``, ``from_estimator``, ``plot``).",
        ["venncal.plotting"],
    ),
    (
        "Core algorithms",
        "The algorithms on 1-D scores, with numpy and scipy only.",
        core_modules(),
    ),  # fmt: skip
    (
        "Diagnostics",
        "Diagnostics that need the features, a model or simulation.",
        ["venncal.diagnostics"],
    ),
    (
        "Data shift",
        "Label shift (class balance, adapted probabilities), covariate-shift weights, and a test "
        "martingale that monitors calibration over time.",
        ["venncal.shift", "venncal.core.betting"],
    ),
    (
        "Datasets",
        "Bundled datasets and simulated data with known posteriors.",
        ["venncal.datasets"],
    ),
    (
        "Experiments",
        "The experiment runner and the reports of the reproductions.",
        ["venncal.experiments.runner", "venncal.experiments.report", "venncal.experiments.claims"],
    ),
    ("Warnings and errors", "", ["venncal.exceptions"]),
]


def public_names():
    """``[(title, description, [qualified names])]``, each object once."""
    import venncal

    seen = set()
    out = []
    for title, text, modules in LAYERS:
        names = []
        for modname in modules:
            try:
                module = importlib.import_module(modname)
            except ImportError:
                continue
            for name in getattr(module, "__all__", []):
                obj = getattr(module, name)
                if isinstance(obj, type(importlib)) or isinstance(obj, (str, int, float, tuple)):
                    continue  # submodules and constants are described in their module's page
                if id(obj) in seen:
                    continue
                seen.add(id(obj))
                top = name in venncal._LAZY and getattr(venncal, name, None) is obj
                names.append(f"venncal.{name}" if top else f"{modname}.{name}")
        out.append((title, text, names))
    # top-level names that no listed module exports in its __all__: under the layer whose
    # package defines them
    for name, modname in venncal._LAZY.items():
        obj = getattr(venncal, name)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        package = ".".join(modname.split(".")[:2])
        for title, _, names in out:
            modules = next(m for t, _, m in LAYERS if t == title)
            if any(m.startswith(package) for m in modules):
                names.append(f"venncal.{name}")
                break
    return [group for group in out if group[2]]


def write_api(path):
    lines = [
        ".. _api:",
        "",
        "API reference",
        "=============",
        "",
        "Every public name of venncal, grouped by layer. Names exported by the top level are "
        "written ``venncal.Name``, as you import them.",
        "",
    ]
    for title, text, names in public_names():
        lines += [title, "-" * len(title), ""]
        if text:
            lines += [text, ""]
        lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in names]
        lines.append("")
    new = "\n".join(lines)
    path = Path(path)
    if not path.exists() or path.read_text() != new:
        path.write_text(new)
