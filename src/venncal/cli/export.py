"""``venncal export``: a saved calibrator as one SQL query or an ONNX model file."""

from __future__ import annotations

import os

import click

from venncal.cli._io import InputError, check_not_an_input, check_output_free
from venncal.cli._kclass import split_columns
from venncal.cli._options import force_option, out_option

__all__ = ["export"]


def _calibrator(model):
    from venncal.cli._regression import SavedDistribution
    from venncal.cli.apply import read_model

    calibrator, _ = read_model(model)
    if isinstance(calibrator, SavedDistribution):
        raise InputError(
            f"MODEL {model!r} holds a VennAbersDistribution (a regression model), which cannot "
            "be exported to SQL or ONNX; apply it with venncal apply."
        )
    return calibrator


@click.command()
@click.argument("model", type=click.Path(dir_okay=False))
@click.option(
    "--to",
    "target",
    type=click.Choice(["sql", "onnx"]),
    required=True,
    help="sql: one query selecting the table's columns plus p (and p0, p1); onnx: a model "
    "with input 'score' and outputs p (and p0, p1), float64.",
)
@click.option("--table", default=None, help="sql: the table of scores.")
@click.option(
    "--score-column",
    default=None,
    help="sql: the column of scores; for a K-class model, the K columns, comma-separated, in "
    "the order of its classes.",
)
@click.option(
    "--dialect",
    type=click.Choice(["duckdb", "sqlite", "ansi"]),
    default="duckdb",
    show_default=True,
    help="sql: the engine the query is written for.",
)
@out_option("Output file: the query (.sql) or the ONNX model (.onnx).")
@force_option()
def export(
    model: str,
    target: str,
    table: str | None,
    score_column: str | None,
    dialect: str,
    out: str,
    force: bool,
) -> None:
    """Write MODEL (written by venncal fit or venncal.save) as SQL or ONNX.

    The query or model gives the calibrator's own numbers: step maps (Venn-Abers, histogram,
    Bayesian binning) bit for bit, maps with logarithms and exponentials within about 1e-15.
    A NULL or NaN score gives NULL (NaN in ONNX); infinite scores are read as the largest
    finite score.

    \b
    Example:
      venncal export model.json --to sql --table scores --score-column s -o calibrate.sql
      venncal export model.json --to onnx -o calibrator.onnx
      venncal export k.json --to sql --table t --score-column p_cat,p_dog -o k.sql
    """
    if target == "sql":
        missing = [o for o, v in (("--table", table), ("--score-column", score_column)) if not v]
        if missing:
            raise InputError(f"--to sql needs {' and '.join(missing)}.")
    elif table is not None or score_column is not None:
        raise InputError("--table and --score-column apply to --to sql only.")
    # a query in a file named .onnx, or a binary ONNX model in one named .sql, is a mistake
    suffix = os.path.splitext(out)[1].lower()
    if suffix in {"sql": (".onnx",), "onnx": (".sql", ".txt")}[target]:
        what = "a query" if target == "sql" else "a binary ONNX model"
        raise InputError(
            f"--out {out!r} ends in {suffix} but --to {target} writes {what}; name it .{target}."
        )
    check_not_an_input(out, [model], "--out")
    check_output_free(out, force, "--out")
    overwrite = force and os.path.lexists(out)  # decided now: a later file is never replaced
    calibrator = _calibrator(model)
    from venncal.export import to_onnx, to_sql

    try:
        if target == "sql":
            assert table is not None and score_column is not None  # refused above when missing
            # K-class models: one column per class, comma-separated, in the order of its classes
            columns = split_columns(score_column, "--score-column")
            column = columns[0] if len(columns) == 1 else columns
            text = to_sql(calibrator, table=table, score_column=column, dialect=dialect)
            data, mode = text, "w"
        else:
            data, mode = to_onnx(calibrator).SerializeToString(), "wb"
    except (ValueError, TypeError) as exc:
        raise InputError(f"MODEL {model!r}: {exc}") from None
    except ImportError as exc:
        raise InputError(str(exc)) from None
    _write(out, data, mode, overwrite)
    what = "query" if target == "sql" else "ONNX model"
    click.echo(f"venncal export: wrote the {what} of {model} to {out}.")


def _write(out, data, mode, overwrite):
    from venncal._files import atomic_open

    try:
        kwargs = {"encoding": "utf-8", "newline": "\n"} if mode == "w" else {}
        with atomic_open(out, mode, overwrite=overwrite, **kwargs) as fh:
            fh.write(data)
    except FileExistsError:
        raise InputError(
            f"--out {out!r} appeared while venncal was writing it and was left as it is; "
            "pass --force to overwrite it."
        ) from None
    except OSError as exc:
        raise InputError(f"cannot write --out {out!r}: {exc.strerror or exc}.") from None
