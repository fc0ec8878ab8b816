"""``venncal fit``: fit a calibrator on a table of scores and labels and save it as a model file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from venncal.cli._extras import require_extra
from venncal.cli._fitting import calibrator_options, make_calibrator
from venncal.cli._io import InputError, check_not_an_input, check_output_free, check_table_file
from venncal.cli._options import (
    backend_options,
    force_option,
    label_option,
    out_option,
    progress_option,
    score_option,
    sep_option,
)
from venncal.cli._pooled import fit_file

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["fit", "BACKENDS"]


def fit_dask(
    calibrator, cal_file, *, score, label, weight=None, positive=None, method, scheduler, **io
):
    """Fit with Dask through ``venncal.cli._dask.cli_fit`` (same arguments and result)."""
    require_extra("distributed", "dask", "--backend dask")
    try:
        from venncal.cli._dask import cli_fit
    except ImportError:
        raise InputError("--backend dask is not available in this venncal installation.") from None
    return cli_fit(
        calibrator,
        cal_file,
        score=score,
        label=label,
        weight=weight,
        positive=positive,
        method=method,
        scheduler=scheduler,
        **io,
    )


def fit_spark(
    calibrator, cal_file, *, score, label, weight=None, positive=None, method, scheduler, **io
):
    """Fit with Spark through ``venncal.cli._spark.cli_fit`` (same arguments and result)."""
    require_extra("pyspark", "spark", "--backend spark")
    if scheduler is not None:
        raise InputError("--scheduler applies to --backend dask only.")
    from venncal.cli._spark import cli_fit

    kwargs = {"score": score, "label": label, "weight": weight, "positive": positive}
    return cli_fit(calibrator, cal_file, method=method, **kwargs, **io)


#: --backend name -> function(calibrator, cal_file, *, score, label, weight, positive, method,
#: sep, progress), and scheduler for Dask and Spark
BACKENDS: dict[str, Callable[..., tuple[Any, dict[str, Any]]]] = {
    "local": fit_file,
    "dask": fit_dask,
    "spark": fit_spark,
}


def _check_model_path(out, force, inputs):
    if Path(out).suffix.lower() != ".json":
        raise InputError(f"--out {out!r} must end in .json (a venncal model file).")
    check_not_an_input(out, inputs, "--out")
    check_output_free(out, force, "--out")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("cal_file", type=click.Path())
@score_option()
@label_option("Column of true labels (any two values).")
@calibrator_options
@out_option("The model file to write (.json).")
@force_option()
@sep_option()
@progress_option()
@backend_options(
    BACKENDS,
    "Where to fit: in this process, on a Dask cluster or on Spark (pip install "
    "'venncal[dask]' or 'venncal[spark]').",
)
def fit(
    cal_file: str,
    score_col: str,
    label_col: str,
    positive: str | None,
    method: str,
    merge: str | None,
    n_bins: int | None,
    strategy: str | None,
    weight_col: str | None,
    out: str,
    force: bool,
    sep: str | None,
    progress: bool | None,
    backend: str,
    scheduler: str | None,
) -> None:
    """Fit a calibrator on CAL_FILE and save it as a model file for venncal apply.

    CAL_FILE is a CSV or Parquet table, or a folder of Parquet files, with a column of
    classifier scores (larger means more likely positive) and a column of true labels. The model
    file is versioned JSON with a checksum (no pickle): load it in Python with venncal.load.

    Memory: venn-abers, isotonic, histogram, sbb and abb read CAL_FILE in chunks and keep the
    count of each class at each distinct score, not the rows. venn-abers, isotonic and
    histogram write those counts to sorted files in the temporary folder (TMPDIR, else TEMP,
    TMP, /tmp) past 2^20 (about a million) distinct scores and read them back in blocks, so
    their memory stays bounded at any size (the disk holds about 48 bytes per distinct score
    while they fit; a folder that cannot be written is an error, no other is tried; the
    folder of a fit that was killed is removed by the next fit); sbb
    and abb keep them in memory (about 70 bytes per distinct score at the peak). The other
    methods, fractional --weight values and input that needs a one-line error read every row
    into memory.

    \b
    Example:
      venncal fit cal.parquet --score score --label y --method venn-abers -o model.json
      venncal apply model.json scores/ -o calibrated.parquet
    """
    if not Path(cal_file).is_dir():
        check_table_file(cal_file, "CAL_FILE")
    _check_model_path(out, force, [cal_file])
    calibrator = make_calibrator(method, merge=merge, n_bins=n_bins, strategy=strategy)
    kwargs: dict[str, Any] = {"score": score_col, "label": label_col, "weight": weight_col}
    kwargs.update(positive=positive, method=method)
    if backend != "local":
        kwargs["scheduler"] = scheduler
    elif scheduler is not None:
        raise InputError("--scheduler applies to --backend dask only.")
    kwargs.update(progress=progress, sep=sep)
    calibrator, info = BACKENDS[backend](calibrator, cal_file, **kwargs)

    import venncal

    metadata = {"score": score_col, "label": label_col, "method": method, **info}
    if positive is not None:
        metadata["positive"] = positive
    if weight_col is not None:
        metadata["weight"] = weight_col
    try:
        venncal.save(calibrator, out, overwrite=force, metadata=metadata)
    except FileExistsError:
        raise InputError(f"--out {out!r} already exists; pass --force to overwrite it.") from None
    except OSError as exc:
        raise InputError(f"cannot write --out {out!r}: {exc.strerror or exc}.") from None
    click.echo(
        f"Fitted {method} on {info['rows']} rows of {cal_file} ({info['positives']} positive); "
        f"wrote the model to {out}."
    )
