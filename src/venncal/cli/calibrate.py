"""``venncal calibrate``: fit a calibrator on one file of scores and apply it to another."""

from __future__ import annotations

from importlib import import_module

import click
import numpy as np

from venncal._validation import check_sample_weight
from venncal.cli._io import (
    InputError,
    check_not_an_input,
    check_output_free,
    check_table_file,
    labels_column,
    read_table,
    scores_column,
    write_table,
)

__all__ = ["calibrate", "CALIBRATORS", "make_calibrator"]

# command-line name -> (public name in venncal, fixed parameters, what it is)
CALIBRATORS = {
    "venn-abers": ("VennAbersCalibrator", {}, "inductive Venn-Abers: p0, p1 and merged p"),
    "isotonic": ("IsotonicCalibrator", {}, "isotonic regression (PAVA)"),
    "platt": ("PlattCalibrator", {}, "Platt scaling (logistic on the score)"),
    "histogram": ("HistogramCalibrator", {}, "histogram binning"),
    "sbb": ("BayesianBinningCalibrator", {"method": "selection"}, "selection of Bayesian binnings"),
    "abb": ("BayesianBinningCalibrator", {"method": "averaging"}, "averaging of Bayesian binnings"),
    "acp": ("ACPCalibrator", {}, "adaptive calibration of predictions"),
    "beta": ("BetaCalibrator", {}, "beta calibration (scores are probabilities, in [0, 1])"),
    "beta-logit": (
        "BetaCalibrator",
        {"score_scale": "logit"},
        "beta calibration of log-odds or margins (any real score)",
    ),
}


def make_calibrator(method, *, merge=None, n_bins=None, strategy=None):
    """Build the calibrator named ``method`` with the options that apply to it."""
    public, fixed, _ = CALIBRATORS[method]
    params = dict(fixed)
    if merge is not None:
        if method != "venn-abers":
            raise InputError(f"--merge applies to --method venn-abers only, not {method!r}.")
        params["merge"] = merge
    for option, value, key in (
        ("--n-bins", n_bins, "n_bins"),
        ("--strategy", strategy, "strategy"),
    ):
        if value is not None:
            if method != "histogram":
                raise InputError(f"{option} applies to --method histogram only, not {method!r}.")
            params[key] = value
    try:
        cls = getattr(import_module("venncal"), public)
    except (AttributeError, ImportError):
        raise InputError(
            f"the calibrator {method!r} ({public}) is not available in this venncal "
            "installation; choose another --method."
        ) from None
    return cls(**params)


_METHOD_HELP = "Calibrator: " + "; ".join(f"{k} = {v[2]}" for k, v in CALIBRATORS.items()) + "."


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("cal_file", type=click.Path(dir_okay=False))
@click.argument("test_file", type=click.Path(dir_okay=False))
@click.option("--score", "score_col", required=True, help="Column of classifier scores.")
@click.option(
    "--label",
    "label_col",
    required=True,
    help="Column of true labels in CAL_FILE (any two values).",
)
@click.option(
    "--positive",
    default=None,
    help="The label value of the positive class [default: the larger label, e.g. 1].",
)
@click.option(
    "--method",
    type=click.Choice(list(CALIBRATORS)),
    default="venn-abers",
    show_default=True,
    help=_METHOD_HELP,
)
@click.option(
    "--merge",
    type=click.Choice(["log", "square", "mean"]),
    default=None,
    help="venn-abers: how p0 and p1 are merged into p [default: log].",
)
@click.option("--n-bins", type=click.IntRange(min=1), default=None, help="histogram: bins.")
@click.option(
    "--strategy",
    type=click.Choice(["uniform", "quantile"]),
    default=None,
    help="histogram: equal-width or equal-mass bins.",
)
@click.option("--weight", "weight_col", default=None, help="Column of sample weights in CAL_FILE.")
@click.option(
    "--out",
    "-o",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    help="Output file (.csv, .tsv or .parquet): TEST_FILE's columns plus p (and p0, p1).",
)
@click.option("--prefix", default="", help="Prefix of the new column names, e.g. 'cal_'.")
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
def calibrate(
    cal_file,
    test_file,
    score_col,
    label_col,
    positive,
    method,
    merge,
    n_bins,
    strategy,
    weight_col,
    out,
    prefix,
    force,
):
    """Fit a calibrator on CAL_FILE and write calibrated probabilities for TEST_FILE.

    Both files are CSV or Parquet tables holding a column of scores from the same classifier
    (any real numbers where larger means more likely positive). The output holds every column of
    TEST_FILE plus p, the calibrated probability of the positive class; venn-abers also writes
    p0 and p1, the ends of its probability interval.

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
    calibrator = make_calibrator(method, merge=merge, n_bins=n_bins, strategy=strategy)
    cal = read_table(cal_file, "CAL_FILE")
    test = read_table(test_file, "TEST_FILE")
    s_cal = scores_column(cal, score_col, cal_file)
    y_cal = labels_column(cal, label_col, cal_file, positive=positive)
    weights = None
    if weight_col is not None:
        raw = scores_column(cal, weight_col, cal_file, option="--weight")
        try:
            weights = check_sample_weight(raw, raw.shape[0])
        except ValueError as exc:
            raise InputError(f"{cal_file!r}: column {weight_col!r} (--weight): {exc}") from None
    s_test = scores_column(test, score_col, test_file)

    new_cols = [prefix + "p"] + ([prefix + "p0", prefix + "p1"] if method == "venn-abers" else [])
    clash = [c for c in new_cols if c in test.columns]
    if clash:
        raise InputError(
            f"TEST_FILE already has the column(s) {clash}; pass --prefix to name the new ones."
        )
    try:
        with np.errstate(all="ignore"):
            calibrator.fit(s_cal, y_cal, sample_weight=weights)
            new = {prefix + "p": calibrator.predict_proba(s_test)[:, 1]}
            if method == "venn-abers":
                interval = np.asarray(calibrator.predict_interval(s_test))
                new[prefix + "p0"] = interval[:, 0]
                new[prefix + "p1"] = interval[:, 1]
    except (ValueError, ArithmeticError) as exc:
        text = str(exc) or type(exc).__name__
        raise InputError(f"cannot fit {method} on {cal_file!r}: {text}") from None
    for column, values in new.items():
        values = np.asarray(values, dtype=np.float64)
        bad = ~(np.isfinite(values) & (values >= 0) & (values <= 1))
        if bad.any():
            hint = " (rescale --weight)" if weights is not None else ""
            raise InputError(
                f"{method} fitted on {cal_file!r} gave {int(bad.sum())} probabilities {column} "
                f"that are not numbers in [0, 1] (first: {float(values[bad][0])!r}){hint}; nothing "
                "was written."
            )

    result = test.copy()
    for column, values in new.items():
        result[column] = values
    write_table(result, out, force, "--out")
    click.echo(
        f"Fitted {method} on {s_cal.shape[0]} rows of {cal_file} "
        f"({int(y_cal.sum())} positive); wrote {len(result)} rows with "
        f"{', '.join(new_cols)} to {out}."
    )
