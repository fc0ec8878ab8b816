"""The papers' experiments, reproduced on the bundled datasets.

Each study is a module with a ``NAME`` (its command-line name), a ``TITLE``, a
``default_config(mode)`` giving the sizes of ``"quick"`` and ``"full"`` mode, and
``run(config, *, out_csv=None, n_jobs=1, backend="loky", scheduler=None, progress=True)``
returning a :class:`venncal.experiments.report.StudyResult`. The cells of a study run through
:func:`venncal.experiments.runner.run_grid`, so results are deterministic, resumable and can run on
a Dask cluster. ``venncal reproduce STUDY`` is the command-line front end.

Examples
--------
>>> sorted(STUDIES)
['johansson-2018', 'naeini-2014', 'tasche-2022', 'vovk-petej-2014']
>>> get_study("vovk-petej-2014").NAME
'vovk-petej-2014'
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

    from venncal.experiments.report import StudyResult

__all__ = ["STUDIES", "get_study", "run_study"]

#: command-line name -> module implementing the study
STUDIES = {
    "vovk-petej-2014": "venncal.experiments.studies.vovk_petej_2014",
    "johansson-2018": "venncal.experiments.studies.johansson_2018",
    "naeini-2014": "venncal.experiments.studies.naeini_2014",
    "tasche-2022": "venncal.experiments.studies.tasche_2022",
}

MODES = ("quick", "full")


def get_study(name: str) -> ModuleType:
    """Return the module of the study called ``name`` (see :data:`STUDIES`)."""
    if name not in STUDIES:
        opts = ", ".join(repr(k) for k in STUDIES)
        raise ValueError(f"Unknown study {name!r}; choose one of {{{opts}}}.")
    return import_module(STUDIES[name])


def run_study(
    name: str, mode: str = "quick", *, overrides: dict[str, Any] | None = None, **run_kwargs: Any
) -> StudyResult:
    """Run a study in ``"quick"`` or ``"full"`` mode and return its StudyResult.

    Parameters
    ----------
    name : str
        A key of :data:`STUDIES`.
    mode : {"quick", "full"}, default="quick"
    overrides : dict, default=None
        Entries replacing those of the mode's configuration (e.g. fewer datasets); the mode is
        then reported as ``"custom"``.
    **run_kwargs
        ``out_csv``, ``n_jobs``, ``backend``, ``scheduler``, ``progress``: passed to the runner.
    """
    if mode not in MODES:
        raise ValueError(f"Unknown mode {mode!r}; choose 'quick' or 'full'.")
    study = get_study(name)
    config = dict(study.default_config(mode))
    if overrides:
        unknown = set(overrides) - set(config)
        if unknown:
            raise ValueError(
                f"Unknown configuration key(s) {sorted(unknown)} for study {name!r}; "
                f"known: {sorted(config)}."
            )
        config.update(overrides)
        config["mode"] = "custom"
    return study.run(config, **run_kwargs)
