"""Command-line options that several commands share, as click decorators."""

from __future__ import annotations

import click

__all__ = ["backend_options", "force_option", "out_option", "progress_option"]


def out_option(help):
    """``--out``/``-o``: the required output file."""
    return click.option(
        "--out", "-o", "out", required=True, type=click.Path(dir_okay=False), help=help
    )


def force_option(help="Overwrite --out if it exists."):
    """``--force``: overwrite existing outputs."""
    return click.option("--force", is_flag=True, help=help)


def progress_option(
    help="Show a progress bar on stderr [default: only when stderr is a terminal].",
):
    """``--progress/--no-progress``: None (the default) shows a bar only on a terminal."""
    return click.option("--progress/--no-progress", default=None, help=help)


def backend_options(backends, help):
    """``--backend`` (one of ``backends``, default ``"local"``) and ``--scheduler`` (dask)."""

    def decorate(command):
        command = click.option("--scheduler", default=None, help="dask: address of the scheduler.")(
            command
        )
        return click.option(
            "--backend",
            type=click.Choice(list(backends)),
            default="local",
            show_default=True,
            help=help,
        )(command)

    return decorate
