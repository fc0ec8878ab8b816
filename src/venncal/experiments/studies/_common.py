"""Helpers shared by the studies: classifiers of the papers, dataset cache, table formatting."""

from __future__ import annotations

import contextlib
import functools
import time
import warnings
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from venncal.experiments.runner import run_grid

if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Iterator, Sequence

    from typing_extensions import Self

    from venncal.experiments.report import StudyResult

    #: ``grid(cells, run_cell)``: the table and wall time of a study's cells (see study_run)
    Grid = Callable[
        [Sequence[dict[str, Any]], Callable[[dict[str, Any]], list[dict[str, Any]] | None]],
        tuple[pd.DataFrame, float],
    ]

__all__ = [
    "make_classifier",
    "load_cached",
    "paired",
    "quiet",
    "Timer",
    "run_cells",
    "study_run",
]

#: Short codes of Vovk & Petej (2014) -> description of our scikit-learn stand-in.
CLASSIFIERS = {
    "J": "CART tree (for Weka's pruned J48), at least 10 examples per leaf, leaf frequencies",
    "JB": "bagging of 10 such trees (for Weka's J48 bagging)",
    "LR": "logistic regression, standardised inputs, almost no penalty (C=1e4)",
    "NB": (
        "naive Bayes as Weka computes it: Laplace-corrected frequencies for nominal attributes, "
        "a normal per class binned at the attribute's precision for numeric ones"
    ),
    "NN": "MLP, one hidden layer of (d + 2) // 2 units (Weka's default size), 200 epochs",
    "SVM": "linear SVM, standardised inputs, Platt's sigmoid (SVC probability=True)",
}


def make_classifier(
    code: str, n_features: int, random_state: int, nominal: Sequence[Sequence[int]] = ()
) -> Any:
    """A fresh scikit-learn classifier for one of the codes of :data:`CLASSIFIERS`.

    ``nominal`` lists the indicator columns of each nominal attribute (see
    :func:`venncal.experiments.studies._naive_bayes.nominal_groups`); only naive Bayes uses it.
    """
    from sklearn.ensemble import BaggingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    rs = int(random_state)
    if code == "J":
        return DecisionTreeClassifier(min_samples_leaf=10, random_state=rs)
    if code == "JB":
        return BaggingClassifier(
            DecisionTreeClassifier(min_samples_leaf=10), n_estimators=10, random_state=rs
        )
    if code == "LR":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1e4, max_iter=5000))
    if code == "NB":
        from venncal.experiments.studies._naive_bayes import WekaNaiveBayes

        return WekaNaiveBayes(nominal=nominal)
    if code == "NN":
        hidden = max(2, (n_features + 2) // 2)
        return make_pipeline(
            StandardScaler(),
            MLPClassifier(hidden_layer_sizes=(hidden,), max_iter=200, random_state=rs),
        )
    if code == "SVM":
        return make_pipeline(
            StandardScaler(), SVC(kernel="linear", probability=True, random_state=rs)
        )
    raise ValueError(f"Unknown classifier code {code!r}; choose one of {sorted(CLASSIFIERS)}.")


@functools.lru_cache(maxsize=64)
def load_cached(name):
    """Load a bundled dataset once per process (the loaders parse text files)."""
    from venncal.datasets import load_dataset

    return load_dataset(name)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence the base classifiers' convergence and numerical warnings inside a cell."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


class Timer:
    """Wall-clock timer: ``with Timer() as t: ...; t.seconds``."""

    def __enter__(self) -> Self:
        self._t0 = time.perf_counter()
        self.seconds = float("nan")
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.seconds = time.perf_counter() - self._t0
        return False


def study_run(
    body: Callable[[dict[str, Any], Grid], StudyResult],
) -> Callable[..., StudyResult]:
    """A study's ``run(config, *, out_csv=None, n_jobs=1, backend="loky", scheduler=None,
    progress=True)``, which returns ``body(config, grid)``.

    ``grid(cells, run_cell)`` is :func:`run_cells` with the runner options given to ``run``;
    ``run`` has the name and the docstring of ``body``.
    """

    def run(
        config: dict[str, Any],
        *,
        out_csv: str | os.PathLike[str] | None = None,
        n_jobs: int | None = 1,
        backend: str = "loky",
        scheduler: Any = None,
        progress: bool | None = True,
    ) -> StudyResult:
        grid = functools.partial(
            run_cells,
            out_csv=out_csv,
            n_jobs=n_jobs,
            backend=backend,
            scheduler=scheduler,
            progress=progress,
        )
        return body(config, grid)

    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(run, name, getattr(body, name))
    return run


def run_cells(
    cells: Sequence[dict[str, Any]],
    run_cell: Callable[[dict[str, Any]], list[dict[str, Any]] | None],
    **grid_options: Any,
) -> tuple[pd.DataFrame, float]:
    """Run a study's cells through :func:`run_grid`, timed.

    Returns the tidy table without the runner's bookkeeping columns, and the wall time in
    seconds. ``grid_options`` go to :func:`run_grid` (``out_csv``, ``n_jobs``, ``backend``,
    ``scheduler``, ``progress``).
    """
    with Timer() as timer:
        raw = run_grid(cells, run_cell, **grid_options)
    return raw.drop(columns=["cell_id", "study"], errors="ignore"), timer.seconds


def fmt(value: float | None, digits: int = 3) -> str:
    """Format a number for a comparison cell (``inf`` for infinity, empty for NaN)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    v = float(value)
    if np.isinf(v):
        return "inf"
    return f"{v:.{digits}f}"


def paired(ours: pd.DataFrame, paper: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """Combine two aligned DataFrames into cells ``"ours (paper)"``.

    Cells where the paper's value is missing show ours alone.
    """
    paper = paper.reindex(index=ours.index, columns=ours.columns)
    out = pd.DataFrame(index=ours.index, columns=ours.columns, dtype=object)
    for c in ours.columns:
        for i in ours.index:
            a, b = fmt(ours.at[i, c], digits), fmt(paper.at[i, c], digits)
            out.at[i, c] = f"{a} ({b})" if b else a
    return out
