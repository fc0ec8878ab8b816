"""``venncal calibrate``: fit a calibrator on one file of scores and apply it to another.

The one-step convenience over ``venncal fit`` and ``venncal apply``, with the same code: the
calibration file is read and fitted in memory, the test file is read, calibrated and written in
chunks.
"""

from __future__ import annotations

import os

import click

from venncal.cli._fitting import (
    CALIBRATORS,
    calibrator_options,
    fit_calibrator,
    make_calibrator,
    read_calibration,
)
from venncal.cli._io import check_not_an_input, check_output_free, check_table_file
from venncal.cli._options import (
    force_option,
    label_option,
    out_option,
    out_sep_option,
    out_separator,
    progress_option,
    score_option,
    sep_option,
)
from venncal.cli._stream import Sink, apply_stream, open_source
from venncal.cli.apply import plan_columns

__all__ = ["calibrate", "CALIBRATORS", "make_calibrator"]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("cal_file", type=click.Path(dir_okay=False))
@click.argument("test_file", type=click.Path(dir_okay=False))
@score_option()
@label_option("Column of true labels in CAL_FILE (any two values).")
@calibrator_options
@out_option("Output file (.csv, .tsv or .parquet): TEST_FILE's columns plus p (and p0, p1).")
@click.option("--prefix", default="", help="Prefix of the new column names, e.g. 'cal_'.")
@force_option()
@sep_option()
@out_sep_option()
@progress_option()
def calibrate(
    cal_file: str,
    test_file: str,
    score_col: str,
    label_col: str,
    positive: str | None,
    method: str,
    merge: str | None,
    n_bins: int | None,
    strategy: str | None,
    weight_col: str | None,
    out: str,
    prefix: str,
    force: bool,
    sep: str | None,
    out_sep: str | None,
    progress: bool | None,
) -> None:
    """Fit a calibrator on CAL_FILE and write calibrated probabilities for TEST_FILE.

    Both files are CSV or Parquet tables holding a column of scores from the same classifier
    (any real numbers where larger means more likely positive). The output holds every column of
    TEST_FILE plus p, the calibrated probability of the positive class; venn-abers also writes
    p0 and p1, the ends of its probability interval. To keep the fitted calibrator, use
    venncal fit and venncal apply instead.

    \b
    Example:
      venncal calibrate cal.csv test.csv --score score --label y -o calibrated.csv
      venncal calibrate cal.parquet test.parquet --score s --label y --method abb -o out.parquet
    """
    check_table_file(cal_file, "CAL_FILE")
    check_table_file(test_file, "TEST_FILE")
    check_table_file(out, "--out", doing="writing")
    check_not_an_input(out, [cal_file, test_file], "--out")
    check_output_free(out, force, "--out")
    # decided now, once: a file that appears at --out during the fit is never replaced
    overwrite = force and os.path.lexists(out)
    calibrator = make_calibrator(
        method, merge=merge, n_bins=n_bins, strategy=strategy, unweighted=weight_col is None
    )
    s_cal, y_cal, weights = read_calibration(
        cal_file, score_col, label_col, weight_col, positive, sep=sep
    )
    source = open_source([test_file], "TEST_FILE", sep)
    _, new_cols = plan_columns(
        source,
        calibrator,
        score=score_col,
        keep=None,
        prefix=prefix,
        interval=None,
        what="TEST_FILE",
    )
    fit_calibrator(calibrator, s_cal, y_cal, weights, method=method, source=cal_file)
    with Sink(out, overwrite=overwrite, sep=out_separator(out, sep, out_sep)) as sink:
        rows = apply_stream(
            calibrator,
            source,
            sink,
            score=score_col,
            prefix=prefix,
            method=method,
            fitted_on=repr(cal_file),
            weighted=weights is not None,
            progress=progress,
        )
    click.echo(
        f"Fitted {method} on {s_cal.shape[0]} rows of {cal_file} "
        f"({int(y_cal.sum())} positive); wrote {rows} rows with "
        f"{', '.join(new_cols)} to {out}."
    )
