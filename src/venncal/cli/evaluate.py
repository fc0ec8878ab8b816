"""``venncal evaluate``: the metrics table, reliability diagram and Brier curve of predictions."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np
import pandas as pd

from venncal.cli._io import (
    InputError,
    check_table_file,
    labels_column,
    probabilities_column,
    read_table,
    write_table,
)
from venncal.cli._options import (
    Bins,
    force_option,
    label_option,
    no_plots_option,
    out_dir_option,
    progress_option,
    sep_option,
)
from venncal.cli._outputs import (
    describe_write_error,
    plan_out_dir,
    plan_overwrites,
    write_figure,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from venncal._typing import AnyArray, FloatArray

__all__ = ["evaluate", "metrics_table", "interval_table"]

_FILES = {
    "metrics": "metrics.csv",
    "reliability": "reliability.png",
    "brier": "brier_curve.png",
    "intervals": "intervals.csv",
    "venn": "venn_intervals.png",
}
_PLOTS = ("reliability", "brier", "venn")
_INTERVAL_FILES = ("intervals", "venn")

#: How many standard errors a miss may be and still count as sampling noise.
N_STD_ERRORS = 2


def metrics_table(
    y: AnyArray, columns: Mapping[str, FloatArray], *, n_bins: int = 10, strategy: str = "uniform"
) -> pd.DataFrame:
    """Return one row of metrics per prediction column.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {0, 1}.
    columns : dict
        Column name -> probabilities of the positive class, shape (n,).
    n_bins, strategy
        Binning of ECE and MCE (Naeini et al. 2015 use 10 equal-width bins).

    Returns
    -------
    pandas.DataFrame
        Index: the column names; columns ``n``, ``log_loss``, ``brier``, ``rmse``, ``ece``,
        ``mce``, ``auc``, ``accuracy``, the Murphy decomposition of the Brier score
        (``reliability``, ``resolution``, ``uncertainty`` with the same bins) and Spiegelhalter's
        z test of calibration (``spiegelhalter_p``).
    """
    from venncal import metrics

    rows = {}
    for name, p in columns.items():
        decomposition = metrics.brier_decomposition(y, p, n_bins=n_bins)
        rows[name] = {
            "n": int(p.shape[0]),
            "log_loss": metrics.log_loss(y, p),
            "brier": metrics.brier_score(y, p),
            "rmse": metrics.rmse(y, p),
            "ece": metrics.ece(y, p, n_bins=n_bins, strategy=strategy),
            "mce": metrics.mce(y, p, n_bins=n_bins, strategy=strategy),
            "auc": _auc(metrics, y, p),
            "accuracy": metrics.accuracy(y, p),
            "reliability": decomposition.reliability,
            "resolution": decomposition.resolution,
            "uncertainty": decomposition.uncertainty,
            "spiegelhalter_p": _spiegelhalter_p(metrics, y, p),
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "prediction"
    return table


def interval_table(
    y: AnyArray, p0: FloatArray, p1: FloatArray, *, n_bins: int = 10, strategy: str = "uniform"
) -> pd.Series:
    """Return the containment of the observed frequency in Venn-Abers intervals, with its noise.

    The observed frequency of positives ``f`` is compared with the mean interval
    ``[mean p0, mean p1]``. A miss counts as sampling noise when it is at most
    :data:`N_STD_ERRORS` binomial standard errors ``sqrt(f (1 - f) / n)``; the same check is
    made in each occupied bin of the interval midpoints, with the bin's own standard error.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {0, 1}.
    p0, p1 : ndarray of shape (n,)
        The Venn-Abers probabilities, ``p0 <= p1``.
    n_bins, strategy
        Bins of the interval midpoints for the per-bin check.

    Returns
    -------
    pandas.Series
        ``interval_width`` (mean ``p1 - p0``), ``observed_frequency``, ``mean_p0``, ``mean_p1``,
        ``frequency_std_error``, ``interval_miss`` (distance from the frequency to the mean
        interval, 0 inside), ``interval_valid_within_2se`` (a bool, printed yes or no) and
        ``bins_valid_within_2se`` (share of occupied bins inside their mean interval widened
        by two of their standard errors).
    """
    from venncal import metrics

    v = metrics.interval_validity(y, p0, p1, n_bins=n_bins, strategy=strategy)
    occupied = np.asarray(v.counts) > 0
    assert v.bin_std_error is not None  # interval_validity always gives it
    slack = N_STD_ERRORS * v.bin_std_error[occupied]
    bins_ok = v.bin_miss[occupied] <= slack + 1e-12
    return pd.Series(
        {
            "interval_width": float(metrics.interval_width(p0, p1)),
            "observed_frequency": v.observed,
            "mean_p0": v.lower,
            "mean_p1": v.upper,
            "frequency_std_error": v.std_error,
            "interval_miss": v.miss,
            f"interval_valid_within_{N_STD_ERRORS}se": bool(
                v.miss <= N_STD_ERRORS * v.std_error + 1e-12
            ),
            f"bins_valid_within_{N_STD_ERRORS}se": float(np.mean(bins_ok)),
        },
        name="interval",
    )


def _auc(metrics, y, p):
    if y.min() == y.max():
        return math.nan
    return metrics.roc_auc(y, p)


def _spiegelhalter_p(metrics, y, p):
    result = metrics.spiegelhalter_z(y, p)
    return float(result.pvalue)


def _format(table):
    """Metrics as rows and predictions as columns, 4 decimals (``inf`` stays visible)."""
    shown = table.T.astype(object)
    for metric in shown.index:
        for col in shown.columns:
            value = table.loc[col, metric]
            if metric == "n":
                shown.loc[metric, col] = f"{int(value)}"
            elif isinstance(value, (bool, np.bool_)):
                shown.loc[metric, col] = "yes" if value else "no"
            else:
                shown.loc[metric, col] = "nan" if pd.isna(value) else f"{value:.4f}"
    shown.index.name = None
    shown.columns.name = None
    return shown.to_string()


def _plot(y, columns, out_dir, n_bins, strategy, intervals=None, overwrite=None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from venncal.plotting import BrierCurveDisplay, ReliabilityDisplay

    overwrite = overwrite or {}

    paths = {}
    k = len(columns)
    fig, axes = plt.subplots(1, k, figsize=(5.5 * k, 5), squeeze=False)
    try:
        for ax, (name, p) in zip(axes[0], columns.items()):
            ReliabilityDisplay.from_predictions(
                y, p, n_bins=n_bins, strategy=strategy, name=name, ax=ax
            )
            ax.set_title(f"Reliability diagram: {name}")
        fig.tight_layout()
        paths["reliability"] = out_dir / _FILES["reliability"]
        write_figure(
            fig,
            paths["reliability"],
            overwrite.get("reliability", False),
            dpi=120,
            bbox_inches="tight",
        )
    finally:
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    try:
        BrierCurveDisplay.from_predictions(y, dict(columns), ax=ax)
        ax.set_title("Brier curves (area = Brier score / 2)")
        paths["brier"] = out_dir / _FILES["brier"]
        write_figure(
            fig, paths["brier"], overwrite.get("brier", False), dpi=120, bbox_inches="tight"
        )
    finally:
        plt.close(fig)
    if intervals is not None:
        from venncal.plotting import VennIntervalDisplay

        fig, ax = plt.subplots(figsize=(6, 5))
        try:
            VennIntervalDisplay.from_predictions(
                y, *intervals, n_bins=n_bins, strategy=strategy, ax=ax
            )
            paths["venn"] = out_dir / _FILES["venn"]
            write_figure(
                fig, paths["venn"], overwrite.get("venn", False), dpi=120, bbox_inches="tight"
            )
        finally:
            plt.close(fig)
    return paths


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@label_option("Column of true labels (two values).")
@click.option(
    "--proba",
    "proba_cols",
    required=True,
    multiple=True,
    help="Column of probabilities of the positive class; repeat to compare several.",
)
@click.option(
    "--positive",
    default=None,
    help="The label value of the positive class, the one the --proba columns give the "
    "probability of [default: the larger label, e.g. 1]. A warning says when a column ranks "
    "it below the other label (AUC below 0.5).",
)
@click.option(
    "--interval",
    nargs=2,
    default=None,
    metavar="P0 P1",
    help="Columns of the lower and upper end of each row's probability interval (e.g. p0 p1, "
    "as venncal apply writes for Venn-Abers): adds its width and coverage, within two "
    "standard errors of sampling, and venn_intervals.png.",
)
@click.option("--n-bins", type=Bins(), default=10, show_default=True,
              help="Bins of ECE, MCE, the Brier decomposition and the reliability diagram.")  # fmt: skip
@click.option("--strategy", type=click.Choice(["uniform", "quantile"]), default="uniform",
              show_default=True, help="Equal-width or equal-mass bins.")  # fmt: skip
@out_dir_option(
    "Folder for metrics.csv, reliability.png and brier_curve.png, with --interval also "
    "intervals.csv and venn_intervals.png (created if needed)."
)
@no_plots_option("With --out-dir, write metrics.csv only.")
@force_option("Overwrite existing files in --out-dir.")
@sep_option()
@progress_option()
def evaluate(
    file: str,
    label_col: str,
    proba_cols: tuple[str, ...],
    positive: str | None,
    interval: tuple[str, str] | None,
    n_bins: int,
    strategy: str,
    out_dir: str | Path | None,
    no_plots: bool,
    force: bool,
    sep: str | None = None,
    progress: bool | None = None,
) -> None:
    """Print calibration and accuracy metrics of probability columns of FILE (CSV or Parquet).

    The table has, for each --proba column: log loss, Brier score, RMSE, ECE and MCE, ROC AUC,
    accuracy at 0.5, the Murphy decomposition of the Brier score and Spiegelhalter's test of
    calibration. With --out-dir it is also saved as metrics.csv, next to a reliability diagram
    and Brier curves (PNG).

    With --interval P0 P1, a second table, printed once, compares the observed frequency of
    positives with the mean interval [mean P0, mean P1]: the distance by which it misses (0
    inside), its binomial standard error, whether the miss is within two standard errors, and
    the share of bins (of the interval midpoints) inside their mean interval widened by two of
    their own standard errors. With --out-dir it is saved as intervals.csv, next to a picture
    of the intervals per bin (venn_intervals.png).

    \b
    Example:
      venncal evaluate calibrated.csv --label y --proba p --interval p0 p1 --out-dir ev
    """
    if len(set(proba_cols)) != len(proba_cols):
        raise InputError("each --proba column may be given once.")
    check_table_file(file, "FILE")
    paths = {}
    if out_dir is not None:
        out_dir = Path(out_dir)
        wanted = [k for k in _FILES if not (no_plots and k in _PLOTS)]
        if interval is None:
            wanted = [k for k in wanted if k not in _INTERVAL_FILES]
        paths = plan_out_dir(out_dir, {k: _FILES[k] for k in wanted}, [file], force)
        replace = plan_overwrites(paths, force)  # decided now: a file appearing later is kept
    from venncal.cli._progress import Steps

    steps = ["reading", "metrics"] + ["intervals"] * (interval is not None)
    steps += ["writing"] * (out_dir is not None)
    with Steps(steps, progress) as bar:
        return _evaluate(
            bar, file, label_col, proba_cols, positive, interval, n_bins, strategy, out_dir,
            no_plots, force, paths, replace if out_dir is not None else None, sep,
        )  # fmt: skip


def _evaluate(
    bar, file, label_col, proba_cols, positive, interval, n_bins, strategy, out_dir, no_plots,
    force, paths, replace, sep,
):  # fmt: skip
    bar.start(f"reading {file}")
    frame = read_table(file, "FILE", sep)
    y = labels_column(frame, label_col, file, positive=positive, one_class_ok=True)
    columns = {name: probabilities_column(frame, name, file) for name in proba_cols}
    from venncal.cli._fitting import warn_if_ranked_below

    for name, p in columns.items():
        warn_if_ranked_below(frame[label_col], y, p, None, column=name, positive=positive)
    intervals = None
    if interval is not None:
        p0 = probabilities_column(frame, interval[0], file, option="--interval")
        p1 = probabilities_column(frame, interval[1], file, option="--interval")
        if (p0 > p1 + 1e-12).any():
            raise InputError(f"--interval: {interval[0]!r} must not exceed {interval[1]!r}.")
        intervals = (p0, p1)

    bar.start("metrics")
    table = metrics_table(y, columns, n_bins=n_bins, strategy=strategy)
    click.echo(f"{file}: {len(y)} rows, {int(y.sum())} positive")
    click.echo(_format(table))
    if y.min() == y.max():
        click.echo(
            "auc is not defined (nan): the labels hold one class only, so no pair of a "
            "positive and a negative can be ranked.",
            err=True,
        )
    if intervals is not None:
        bar.start("intervals")
        coverage = interval_table(y, *intervals, n_bins=n_bins, strategy=strategy)
        click.echo("")
        click.echo(
            f"Venn-Abers interval [{interval[0]}, {interval[1]}] ({n_bins} {strategy} bins of the "
            f"midpoint; a miss within {N_STD_ERRORS} standard errors counts as valid):"
        )
        click.echo(_format(coverage.to_frame().T))
    if out_dir is None:
        return
    bar.start(f"writing {out_dir}")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_table(
            table.reset_index(), paths["metrics"], force, "output", overwrite=replace["metrics"]
        )
        written = [paths["metrics"]]
        if intervals is not None:
            # a number per row, the verdict as 1.0 or 0.0 (printed as yes or no)
            values = coverage.astype(float).to_numpy()
            saved = pd.DataFrame({"metric": coverage.index, "value": values})
            write_table(saved, paths["intervals"], force, "output", overwrite=replace["intervals"])
            written.append(paths["intervals"])
        if not no_plots:
            plots = _plot(y, columns, out_dir, n_bins, strategy, intervals, replace)
            written += list(plots.values())
    except OSError as exc:
        raise describe_write_error(exc) from None
    click.echo("Wrote " + ", ".join(str(p) for p in written))
