"""``venncal reproduce STUDY``: rerun a paper's experiment and write its report."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import click

from venncal._files import MANIFEST, TMP_PREFIX, read_manifest, write_manifest
from venncal.cli._extras import require_extra
from venncal.exceptions import VenncalWarning
from venncal.experiments.studies import STUDIES

__all__ = ["reproduce"]

_CELLS_FILE = "cells.csv"


class _UsageExit(click.ClickException):
    """A one-line error about what the user gave; exit code 2."""

    exit_code = 2

    def __init__(self, message):
        super().__init__(" ".join(str(message).split()))


def _os_error(exc, doing):
    where = f" {exc.filename!r}" if getattr(exc, "filename", None) else ""
    return _UsageExit(f"cannot {doing}{where}: {exc.strerror or exc}.")


def _prepare_out(out, study, mode, force, resume):
    """Check and prepare the output folder; return its manifest (what venncal wrote there).

    venncal writes only into a new or empty folder, or one holding its own manifest. ``force``
    deletes the files the manifest lists (never others, never through a symbolic link);
    ``resume`` continues a run of the same study and mode.
    """
    if out.is_symlink():
        raise _UsageExit(
            f"--out {out} is a symbolic link; give the folder it points to (venncal does not "
            "write through links)."
        )
    if out.exists() and not out.is_dir():
        raise _UsageExit(f"--out {out} exists and is not a folder; choose another path.")
    fresh = {"study": study, "mode": mode, "files": []}
    if not out.exists():
        try:
            out.mkdir(parents=True)
        except OSError as exc:
            raise _os_error(exc, "create the --out folder") from None
        return {**fresh, "created_folder": True}
    try:
        entries = list(os.scandir(out))
        manifest = read_manifest(out)
    except OSError as exc:
        raise _os_error(exc, "read the --out folder") from None
    except ValueError as exc:
        raise _UsageExit(f"--out {out}: {exc} Choose another folder.") from None
    others = [e for e in entries if e.name != MANIFEST]
    if manifest is None:
        if others:
            raise _UsageExit(
                f"--out {out} is not empty and was not written by venncal reproduce (it has no "
                f"{MANIFEST}); venncal never replaces files it did not write: choose a new or "
                "empty folder."
            )
        return {**fresh, "created_folder": False}
    if others and not (force or resume):
        raise _UsageExit(
            f"--out {out} already holds results; pass --force to replace the files venncal "
            "wrote there or --resume to finish an interrupted run."
        )
    links = [e.name for e in entries if e.is_symlink()]
    if links:
        raise _UsageExit(
            f"--out {out} holds the symbolic link {links[0]!r}; remove it first (venncal does "
            "not follow links with --force or --resume)."
        )
    if resume and (manifest.get("study"), manifest.get("mode")) != (study, mode):
        raise _UsageExit(
            f"--out {out} holds a run of {manifest.get('study')} in {manifest.get('mode')} mode, "
            f"not {study} in {mode} mode; resume with the same study and mode, or choose "
            "another folder."
        )
    listed = set(manifest["files"])
    ours = [e for e in entries if e.name in listed or e.name.startswith(TMP_PREFIX)]
    if resume:
        ours = [e for e in ours if e.name.startswith(TMP_PREFIX)]
        fresh["files"] = list(listed)
    for entry in ours:
        if not entry.is_file(follow_symlinks=False):
            raise _UsageExit(
                f"--out {out}: {entry.name!r} is not a regular file, but venncal wrote a file "
                "of that name; move it away first."
            )
    try:
        for entry in ours:
            os.unlink(entry.path)
    except OSError as exc:
        raise _os_error(exc, "replace") from None
    return {**fresh, "created_folder": bool(manifest.get("created_folder", False))}


def _check_cells_file(out, manifest, resume):
    from venncal.experiments.runner import check_results_file

    path = out / _CELLS_FILE
    if not (path.exists() or path.is_symlink()):
        return path
    if path.is_symlink() or not path.is_file():
        raise _UsageExit(f"{path} is not a regular file; move it away or choose another --out.")
    if resume and _CELLS_FILE not in manifest["files"]:
        raise _UsageExit(
            f"{path} was not written by venncal; move it away or choose another --out."
        )
    try:
        check_results_file(path)
    except ValueError as exc:
        raise _UsageExit(str(exc)) from None
    except OSError as exc:
        raise _os_error(exc, "read") from None
    return path


def _save_manifest(out, manifest):
    try:
        write_manifest(out, manifest)
    except OSError as exc:
        raise _os_error(exc, "write to the --out folder") from None


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
@click.option(
    "--force",
    is_flag=True,
    help="Replace the files an earlier run wrote in --out (never other files).",
)
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
def reproduce(
    study: str,
    quick: bool,
    out: Path | None,
    force: bool,
    resume: bool,
    n_jobs: int,
    backend: str,
    scheduler: str | None,
    progress: bool | None,
) -> None:
    """Reproduce the experiment of a paper.

    \b
    STUDY is one of:
      vovk-petej-2014  Venn-Abers predictors: log loss and RMSE (Tables 1-3)
      johansson-2018   Venn predictors for random forests, cal vs out-of-bag
      naeini-2014      Bayesian binning against the classic calibrators (Table 2)
      tasche-2022      Brier curves and grouping loss (Figure 2)

    Writes Markdown and CSV tables, PNG figures and a self-contained report.html to --out, and
    prints the headline table and the paper's claims checked on the results. Full mode is the
    paper's size and takes up to about an hour on 2 cores; its verdicts are strict (passed or
    FAILED). Quick mode judges each claim with its standard error: confirmed, contradicted, or
    inconclusive at this size.
    """
    from venncal.experiments.report import report_files, to_text, write_report
    from venncal.experiments.studies import run_study

    if n_jobs == 0:
        raise click.BadParameter("must be a positive number of jobs or -1.", param_hint="--n-jobs")
    if scheduler is not None and backend != "dask":
        raise click.UsageError("--scheduler needs --backend dask.")
    if force and resume:
        raise click.UsageError("--force and --resume exclude each other; pass one of them.")
    if backend == "dask":
        require_extra("distributed", "dask", "--backend dask")
    mode = "quick" if quick else "full"
    out = out if out is not None else Path("venncal-results") / f"{study}-{mode}"
    manifest = _prepare_out(out, study, mode, force, resume)
    cells = _check_cells_file(out, manifest, resume)
    manifest["files"] = sorted(set(manifest["files"]) | {_CELLS_FILE})
    _save_manifest(out, manifest)

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", VenncalWarning)
            result = run_study(
                study,
                mode,
                out_csv=cells,
                n_jobs=n_jobs,
                backend=backend,
                scheduler=scheduler,
                progress=progress,
            )
        for w in caught:
            if issubclass(w.category, VenncalWarning):
                click.echo(f"Warning: {' '.join(str(w.message).split())}", err=True)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    except ConnectionError as exc:
        raise _UsageExit(f"--scheduler: {exc}") from None
    except OSError as exc:
        raise _os_error(exc, "write") from None
    report = set(report_files(result))
    strangers = sorted(n for n in report - set(manifest["files"]) if os.path.lexists(out / n))
    if strangers:
        raise _UsageExit(
            f"--out {out}: {strangers[0]!r} exists and was not written by venncal; move it "
            "away (venncal never replaces files it did not write). The results are in "
            f"{_CELLS_FILE}: rerun with --resume to write the report."
        )
    manifest["files"] = sorted(set(manifest["files"]) | report)
    _save_manifest(out, manifest)
    try:
        paths = write_report(result, out)
    except OSError as exc:
        raise _os_error(exc, "write the report") from None
    headline_name, headline = next(iter(result.tables.items()))
    click.echo(f"{result.title} ({mode} mode, {result.wall_time:.0f} s)")
    click.echo("")
    click.echo(headline_name)
    click.echo(to_text(headline, result.digits))
    if result.checks:
        from venncal.experiments.claims import summary_counts, verdict

        click.echo("")
        for claim, value in result.checks.items():
            click.echo(f"[{verdict(value, result.mode)}] {claim}")
        counts = summary_counts(result.checks, result.mode)
        click.echo("")
        click.echo("Checks: " + ", ".join(f"{n} {v}" for v, n in counts.items()) + ".")
        if result.mode == "quick":
            click.echo(
                "Quick mode judges each claim with its draw-to-draw standard error; "
                "--full gives the strict verdicts."
            )
    click.echo("")
    click.echo(f"Report: {paths['html']}")
