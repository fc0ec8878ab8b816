"""``venncal reproduce STUDY``: rerun a paper's experiment and write its report."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

__all__ = ["reproduce"]

from venncal.experiments.studies import STUDIES

_CELLS_FILE = "cells.csv"


class _UsageExit(click.ClickException):
    """A one-line error about what the user gave; exit code 2."""

    exit_code = 2


def _prepare_out(out, force, resume):
    """Create the output folder; refuse to overwrite an existing report unless told to."""
    if out.exists() and not out.is_dir():
        raise _UsageExit(f"--out {out} exists and is not a folder; choose another path.")
    if out.exists() and any(out.iterdir()):
        if force:
            for child in out.iterdir():
                if child.is_dir():
                    shutil.rmtree(child)
                else:
                    child.unlink()
        elif not resume:
            raise _UsageExit(
                f"--out {out} already holds results; pass --force to overwrite them or "
                "--resume to finish an interrupted run."
            )
    out.mkdir(parents=True, exist_ok=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("study", type=click.Choice(list(STUDIES)), metavar="STUDY")
@click.option(
    "--quick/--full",
    "quick",
    default=True,
    show_default=True,
    help="Quick mode (minutes on 2 cores) or the paper's full size (up to about an hour).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=True, dir_okay=True),
    default=None,
    help="Output folder [default: ./venncal-results/STUDY-MODE].",
)
@click.option("--force", is_flag=True, help="Overwrite an existing output folder.")
@click.option(
    "--resume",
    is_flag=True,
    help="Continue an interrupted run in --out, skipping the cells already finished.",
)
@click.option(
    "--n-jobs",
    type=click.IntRange(min=-1),
    default=1,
    show_default=True,
    help="Parallel jobs (-1: every core).",
)
@click.option(
    "--backend",
    type=click.Choice(["loky", "dask"]),
    default="loky",
    show_default=True,
    help="Run cells on local processes (loky) or a Dask cluster.",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Dask scheduler address, e.g. tcp://10.0.0.1:8786 (with --backend dask; "
    "default: a local cluster).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a progress bar on stderr [default: only when stderr is a terminal].",
)
def reproduce(study, quick, out, force, resume, n_jobs, backend, scheduler, progress):
    """Reproduce the experiment of a paper.

    \b
    STUDY is one of:
      vovk-petej-2014  Venn-Abers predictors: log loss and RMSE (Tables 1-3)
      johansson-2018   Venn predictors for random forests, cal vs out-of-bag
      naeini-2014      Bayesian binning against the classic calibrators (Table 2)
      tasche-2022      Brier curves and grouping loss (Figure 2)

    Writes Markdown and CSV tables, PNG figures and a self-contained report.html to --out, and
    prints the headline table. Full mode is the paper's size and takes up to about an hour on
    2 cores.
    """
    from venncal.experiments.report import to_text, write_report
    from venncal.experiments.studies import run_study

    if n_jobs == 0:
        raise click.BadParameter("must be a positive number of jobs or -1.", param_hint="--n-jobs")
    if scheduler is not None and backend != "dask":
        raise click.UsageError("--scheduler needs --backend dask.")
    if force and resume:
        raise click.UsageError("--force and --resume exclude each other; pass one of them.")
    mode = "quick" if quick else "full"
    out = out if out is not None else Path("venncal-results") / f"{study}-{mode}"
    _prepare_out(out, force, resume)

    result = run_study(
        study,
        mode,
        out_csv=out / _CELLS_FILE,
        n_jobs=n_jobs,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    paths = write_report(result, out)
    headline_name, headline = next(iter(result.tables.items()))
    click.echo(f"{result.title} ({mode} mode, {result.wall_time:.0f} s)")
    click.echo("")
    click.echo(headline_name)
    click.echo(to_text(headline, result.digits))
    if result.checks:
        click.echo("")
        for claim, ok in result.checks.items():
            click.echo(f"[{'ok' if ok else 'FAILED'}] {claim}")
    click.echo("")
    click.echo(f"Report: {paths['html']}")
