"""Command-line options that several commands share, as click decorators."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Iterable

    from click.decorators import FC

__all__ = [
    "MAX_BINS",
    "Bins",
    "Probability",
    "backend_options",
    "force_option",
    "group_option",
    "label_option",
    "no_plots_option",
    "out_dir_option",
    "out_option",
    "out_sep_option",
    "out_separator",
    "progress_option",
    "score_option",
    "sep_option",
]


#: the most bins a command takes (the library's limit on ``n_bins``, 2**52): a larger count is
#: refused by the option, not by the calibrator or metric after the input was read
MAX_BINS = 2**52


class Probability(click.FloatRange):
    """A number strictly between 0 and 1, NaN refused (click's FloatRange lets NaN through:
    every comparison with it is false)."""

    def __init__(self) -> None:
        super().__init__(0, 1, min_open=True, max_open=True)

    def convert(self, value, param, ctx):  # type: ignore[no-untyped-def]
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number in the range 0<x<1.", param, ctx)
        return number


class Bins(click.IntRange):
    """A count of bins, 1 to :data:`MAX_BINS` (the help shows ``x>=1``)."""

    def __init__(self) -> None:
        super().__init__(min=1)

    def convert(self, value, param, ctx):  # type: ignore[no-untyped-def]
        number = super().convert(value, param, ctx)
        if number > MAX_BINS:
            self.fail(f"{number} is more than 2**52, the most bins venncal takes.", param, ctx)
        return number


def score_option(help: str = "Column of classifier scores.") -> Callable[[FC], FC]:
    """``--score``: the required column of scores (the parameter ``score_col``)."""
    return click.option("--score", "score_col", required=True, help=help)


def label_option(help: str) -> Callable[[FC], FC]:
    """``--label``: the required column of labels (the parameter ``label_col``)."""
    return click.option("--label", "label_col", required=True, help=help)


def group_option(help: str) -> Callable[[FC], FC]:
    """``--group``: the column of each row's group, for calibration within groups (the
    parameter ``group``; see ``venncal.cli._groups``)."""
    return click.option("--group", "group", default=None, metavar="COLUMN", help=help)


def out_dir_option(help: str) -> Callable[[FC], FC]:
    """``--out-dir``: an optional folder for the outputs."""
    return click.option("--out-dir", type=click.Path(file_okay=False), default=None, help=help)


def no_plots_option(help: str) -> Callable[[FC], FC]:
    """``--no-plots``: with ``--out-dir``, write tables only."""
    return click.option("--no-plots", is_flag=True, help=help)


def out_option(help: str) -> Callable[[FC], FC]:
    """``--out``/``-o``: the required output file."""
    return click.option(
        "--out", "-o", "out", required=True, type=click.Path(dir_okay=False), help=help
    )


def force_option(help: str = "Overwrite --out if it exists.") -> Callable[[FC], FC]:
    """``--force``: overwrite existing outputs."""
    return click.option("--force", is_flag=True, help=help)


def progress_option(
    help: str = "Show a progress bar on stderr [default: only when stderr is a terminal].",
) -> Callable[[FC], FC]:
    """``--progress/--no-progress``: None (the default) shows a bar only on a terminal."""
    return click.option("--progress/--no-progress", default=None, help=help)


def _one_character(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A CSV field separator: one character; ``\\t`` or ``tab`` for a tab."""
    if value is None:
        return None
    sep = {"\\t": "\t", "tab": "\t"}.get(value, value)
    if len(sep) != 1 or sep in "\"'\r\n":
        raise click.BadParameter(
            f"must be one character other than a quote or a line break, e.g. ';' or '\\t' "
            f"for a tab; got {value!r}."
        )
    return sep


def sep_option(
    help: str = "Field separator of CSV inputs [default: tab for .tsv, else comma].",
) -> Callable[[FC], FC]:
    """``--sep``: the field separator of CSV inputs (None: by the file's suffix)."""
    return click.option("--sep", default=None, metavar="CHAR", callback=_one_character, help=help)


def out_sep_option(
    help: str = "Field separator of a CSV output [default: tab for .tsv, else --sep, else comma].",
) -> Callable[[FC], FC]:
    """``--out-sep``: the field separator of a CSV output (None: see :func:`out_separator`)."""
    return click.option(
        "--out-sep", default=None, metavar="CHAR", callback=_one_character, help=help
    )


def out_separator(path: str | os.PathLike[str], sep: str | None, out_sep: str | None) -> str:
    """The separator of the CSV output ``path``: ``out_sep``, else tab for .tsv, else ``sep``
    (that of the inputs), else comma."""
    if out_sep:
        return out_sep
    if str(path).lower().endswith(".tsv"):
        return "\t"
    return sep or ","


def backend_options(backends: Iterable[str], help: str) -> Callable[[FC], FC]:
    """``--backend`` (one of ``backends``, default ``"local"``) and ``--scheduler`` (dask)."""

    def decorate(command: FC) -> FC:
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
