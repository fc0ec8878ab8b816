"""``venncal compare``: which calibrator for these scores? Cross-validated, with intervals."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np

from venncal.cli._io import (
    InputError,
    check_table_file,
    labels_column,
    read_table,
    scores_column,
    write_table,
)
from venncal.cli._options import (
    force_option,
    label_option,
    no_plots_option,
    out_dir_option,
    progress_option,
    score_option,
    sep_option,
)
from venncal.cli._outputs import (
    describe_write_error,
    plan_out_dir,
    plan_overwrites,
    write_figure,
)
from venncal.cli.calibrate import CALIBRATORS, make_calibrator

if TYPE_CHECKING:
    from venncal.selection import CalibratorComparison

__all__ = ["compare", "format_comparison"]

_FILES = {"table": "comparison.csv", "reliability": "reliability.png"}


def format_comparison(result: CalibratorComparison) -> str:
    """The comparison as aligned text: one row per calibrator, ``estimate [low, high]``."""
    table = result.table
    names = list(dict.fromkeys(table["calibrator"]))
    metrics = list(dict.fromkeys(table["metric"]))
    cells: dict[str, dict[str, str]] = {name: {} for name in names}
    for row in table.itertuples(index=False):
        mark = " *" if row.is_best else "  "
        cells[row.calibrator][row.metric] = (
            f"{row.estimate:.4f} [{row.low:.4f}, {row.high:.4f}]{mark}"
        )
    seconds = table.drop_duplicates("calibrator").set_index("calibrator")["fit_seconds"]
    header = ["calibrator", *metrics, "fit (s)"]
    rows = [[name, *(cells[name][m] for m in metrics), f"{seconds[name]:.4f}"] for name in names]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            str(c).ljust(w) if i == 0 else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(r, widths))
        )
        for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _plot(oof, names, path, overwrite=False):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from venncal.plotting import ReliabilityDisplay

    k = len(names)
    cols = min(k, 3)
    rows = -(-k // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 4.6 * rows), squeeze=False)
    try:
        for ax in axes.flat[k:]:
            ax.set_visible(False)
        for ax, name in zip(axes.flat, names):
            ReliabilityDisplay.from_predictions(oof["y"], oof[name], name=name, ax=ax)
            ax.set_title(f"{name} (out-of-fold)")
        fig.tight_layout()
        write_figure(fig, path, overwrite, dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("cal_file", type=click.Path(dir_okay=False))
@score_option()
@label_option("Column of true labels (two values).")
@click.option(
    "--positive",
    default=None,
    help="The label value of the positive class [default: the larger label, e.g. 1].",
)
@click.option(
    "--method",
    "methods",
    multiple=True,
    type=click.Choice(list(CALIBRATORS)),
    help="A calibrator to compare (repeat the option) [default: venn-abers, isotonic, platt, "
    "beta, histogram with 10 equal-frequency bins, quadratic, temperature].",
)
@click.option("--cv", type=click.IntRange(min=2), default=5, show_default=True, help="Folds.")
@click.option(
    "--n-boot", type=click.IntRange(min=10), default=1000, show_default=True,
    help="Bootstrap resamples of the intervals.",
)  # fmt: skip
@click.option(
    "--n-bins", type=click.IntRange(min=1), default=10, show_default=True, help="Bins of the ECE."
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed.")
@out_dir_option(
    "Folder for comparison.csv and reliability.png (the reliability diagram of each "
    "calibrator's out-of-fold probabilities, side by side)."
)
@no_plots_option("With --out-dir: write the table only.")
@force_option("Overwrite files in --out-dir.")
@progress_option("Show a progress bar on standard error [default: when it is a terminal].")
@sep_option()
def compare(
    cal_file: str,
    score_col: str,
    label_col: str,
    positive: str | None,
    methods: tuple[str, ...],
    cv: int,
    n_boot: int,
    n_bins: int,
    seed: int,
    out_dir: str | None,
    no_plots: bool,
    force: bool,
    progress: bool | None,
    sep: str | None = None,
) -> None:
    """Compare calibrators on the scores and labels of CAL_FILE (CSV or Parquet).

    Each calibrator is fitted by stratified cross-validation over CAL_FILE's rows only (the
    classifier that made the scores is not refitted), and scored on the rows it did not see by
    log loss, Brier score and ECE, each with a 95% bootstrap interval (* marks the best). When
    the scores are probabilities, the scores themselves ("uncalibrated") are a candidate too.
    The recommendation is inductive Venn-Abers unless another calibrator has a clearly lower log
    loss (the 95% interval of the paired difference lies below 0), never one that puts
    probability 0 or 1 on a row (see venncal.selection.compare_calibrators).

    \b
    Example:
      venncal compare cal.csv --score score --label y --out-dir choice
    """
    from venncal.selection import compare_calibrators

    if len(set(methods)) != len(methods):
        raise InputError("each --method may be given once.")
    check_table_file(cal_file, "CAL_FILE")
    paths = {}
    if out_dir is not None:
        wanted = {k: v for k, v in _FILES.items() if not (no_plots and k == "reliability")}
        paths = plan_out_dir(Path(out_dir), wanted, [cal_file], force)
    replace = plan_overwrites(paths, force)  # decided now: a file appearing later is kept
    frame = read_table(cal_file, "CAL_FILE", sep)
    s = scores_column(frame, score_col, cal_file)
    y = labels_column(frame, label_col, cal_file, positive=positive)
    smallest = int(min(np.sum(y == 0), np.sum(y == 1)))
    if smallest < cv:
        raise InputError(
            f"--cv {cv} needs at least {cv} rows of each class in {cal_file!r}; the smaller "
            f"class has {smallest}: pass a smaller --cv."
        )
    calibrators = {m: make_calibrator(m) for m in methods} if methods else None
    try:
        with np.errstate(all="ignore"):
            result = compare_calibrators(
                s, y, calibrators=calibrators, cv=cv, n_boot=n_boot, n_bins=n_bins,
                progress=progress, random_state=seed,
            )  # fmt: skip
    except (ValueError, ArithmeticError) as exc:
        text = str(exc) or type(exc).__name__
        raise InputError(f"cannot compare calibrators on {cal_file!r}: {text}") from None
    click.echo(
        f"{cal_file}: {len(y)} rows, {int(y.sum())} positive; {cv}-fold cross-validation, "
        f"{n_boot} bootstrap resamples"
    )
    click.echo(format_comparison(result))
    click.echo("")
    assert result.candidates is not None  # compare_calibrators always gives them
    chosen = result.candidates.get(result.recommended)
    detail = "" if chosen is None else f" ({chosen!r})"
    click.echo(f"Recommended: {result.recommended}{detail}. {result.rule}")
    if out_dir is None:
        return
    try:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        write_table(result.table, paths["table"], force, "output", overwrite=replace["table"])
        written = [paths["table"]]
        if "reliability" in paths:
            names = list(dict.fromkeys(result.table["calibrator"]))
            _plot(result.oof, names, paths["reliability"], replace["reliability"])
            written.append(paths["reliability"])
    except OSError as exc:
        raise describe_write_error(exc) from None
    click.echo("Wrote " + ", ".join(str(p) for p in written))
