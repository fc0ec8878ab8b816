"""``venncal evaluate``: the metrics table, reliability diagram and Brier curve of predictions."""

from __future__ import annotations

import math
from pathlib import Path

import click
import numpy as np
import pandas as pd

from venncal.cli._io import (
    InputError,
    check_not_an_input,
    check_output_free,
    check_table_file,
    labels_column,
    probabilities_column,
    read_table,
    write_table,
)

__all__ = ["evaluate", "metrics_table"]

_FILES = {"metrics": "metrics.csv", "reliability": "reliability.png", "brier": "brier_curve.png"}


def metrics_table(y, columns, *, n_bins=10, strategy="uniform", intervals=None):
    """Return one row of metrics per prediction column.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {0, 1}.
    columns : dict
        Column name -> probabilities of the positive class, shape (n,).
    n_bins, strategy
        Binning of ECE and MCE (Naeini et al. 2015 use 10 equal-width bins).
    intervals : tuple of two ndarrays, default=None
        Venn-Abers (p0, p1): adds the mean interval width, whether the observed frequency of
        positives lies between the means of p0 and p1 (``interval_valid``), and the fraction of
        occupied bins of p where it does (``interval_bins_valid``), the same for every row.

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
    if intervals is not None:
        p0, p1 = intervals
        validity = metrics.interval_validity(y, p0, p1)
        occupied = np.asarray(validity.counts) > 0
        table["interval_width"] = float(metrics.interval_width(p0, p1))
        table["interval_valid"] = float(validity.valid)
        table["interval_bins_valid"] = float(np.mean(np.asarray(validity.bin_valid)[occupied]))
    table.index.name = "prediction"
    return table


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
            else:
                shown.loc[metric, col] = "nan" if pd.isna(value) else f"{value:.4f}"
    shown.index.name = None
    shown.columns.name = None
    return shown.to_string()


def _plot(y, columns, out_dir, n_bins, strategy):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from venncal.experiments._files import save_figure
    from venncal.plotting import BrierCurveDisplay, ReliabilityDisplay

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
        save_figure(fig, paths["reliability"], dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    try:
        BrierCurveDisplay.from_predictions(y, dict(columns), ax=ax)
        ax.set_title("Brier curves (area = Brier score / 2)")
        paths["brier"] = out_dir / _FILES["brier"]
        save_figure(fig, paths["brier"], dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)
    return paths


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--label", "label_col", required=True, help="Column of true labels (two values).")
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
    help="The label value of the positive class [default: the larger label, e.g. 1].",
)
@click.option(
    "--interval",
    nargs=2,
    default=None,
    metavar="P0 P1",
    help="Columns of a Venn-Abers interval (e.g. p0 p1): adds its width and coverage.",
)
@click.option("--n-bins", type=click.IntRange(min=1), default=10, show_default=True,
              help="Bins of ECE, MCE, the Brier decomposition and the reliability diagram.")  # fmt: skip
@click.option("--strategy", type=click.Choice(["uniform", "quantile"]), default="uniform",
              show_default=True, help="Equal-width or equal-mass bins.")  # fmt: skip
@click.option(
    "--out-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for metrics.csv, reliability.png and brier_curve.png (created if needed).",
)
@click.option("--no-plots", is_flag=True, help="With --out-dir, write metrics.csv only.")
@click.option("--force", is_flag=True, help="Overwrite existing files in --out-dir.")
def evaluate(
    file, label_col, proba_cols, positive, interval, n_bins, strategy, out_dir, no_plots, force
):
    """Print calibration and accuracy metrics of probability columns of FILE (CSV or Parquet).

    The table has, for each --proba column: log loss, Brier score, RMSE, ECE and MCE, ROC AUC,
    accuracy at 0.5, the Murphy decomposition of the Brier score and Spiegelhalter's test of
    calibration. With --out-dir it is also saved as metrics.csv, next to a reliability diagram
    and Brier curves (PNG).

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
        if out_dir.exists() and not out_dir.is_dir():
            raise InputError(f"--out-dir {str(out_dir)!r} is a file; give a folder.")
        wanted = ["metrics"] if no_plots else list(_FILES)
        paths = {k: out_dir / _FILES[k] for k in wanted}
        for path in paths.values():
            check_not_an_input(path, [file], "output")
            if path.is_symlink():
                raise InputError(
                    f"output {str(path)!r} is a symbolic link; venncal does not write through "
                    "links: remove it or choose another --out-dir."
                )
            check_output_free(path, force, "output", need_folder=False)
    frame = read_table(file, "FILE")
    y = labels_column(frame, label_col, file, positive=positive, one_class_ok=True)
    columns = {name: probabilities_column(frame, name, file) for name in proba_cols}
    intervals = None
    if interval is not None:
        p0 = probabilities_column(frame, interval[0], file, option="--interval")
        p1 = probabilities_column(frame, interval[1], file, option="--interval")
        if (p0 > p1 + 1e-12).any():
            raise InputError(f"--interval: {interval[0]!r} must not exceed {interval[1]!r}.")
        intervals = (p0, p1)

    table = metrics_table(y, columns, n_bins=n_bins, strategy=strategy, intervals=intervals)
    click.echo(f"{file}: {len(y)} rows, {int(y.sum())} positive")
    click.echo(_format(table))
    if out_dir is None:
        return
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_table(table.reset_index(), paths["metrics"], force, "output")
        written = [paths["metrics"]]
        if not no_plots:
            written += list(_plot(y, columns, out_dir, n_bins, strategy).values())
    except OSError as exc:
        where = f" {exc.filename!r}" if exc.filename else ""
        raise InputError(f"cannot write to --out-dir{where}: {exc.strerror or exc}.") from None
    click.echo("Wrote " + ", ".join(str(p) for p in written))
