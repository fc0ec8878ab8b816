"""``venncal apply``: calibrate the scores of any number of rows with a saved model file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from venncal.cli._abstain import abstain_options, abstention
from venncal.cli._extras import require_extra
from venncal.cli._groups import GroupColumns, check_group_column, group_column_of
from venncal.cli._io import InputError, check_not_an_input, check_output_free, check_table_file
from venncal.cli._kclass import (
    apply_kclass,
    is_kclass_model,
    kclass_column_names,
    kclass_names,
    split_columns,
)
from venncal.cli._options import (
    Probability,
    backend_options,
    force_option,
    group_option,
    out_option,
    out_sep_option,
    out_separator,
    progress_option,
    sep_option,
)
from venncal.cli._regression import (
    DistributionColumns,
    SavedDistribution,
    is_distribution,
    parse_levels,
)
from venncal.cli._segments import SegmentColumns, check_segment_columns, is_segment_model
from venncal.cli._stream import (
    Sink,
    apply_stream,
    model_name,
    new_column_names,
    open_source,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from venncal.cli._stream import Source

__all__ = ["apply", "apply_local", "BACKENDS", "read_model", "plan_columns"]


def read_model(
    path: str | os.PathLike[str], *, full: bool = False, max_bytes: int | None = None
) -> tuple[Any, dict[str, Any]]:
    """The model file's calibrator and metadata; a bad file is one line with exit code 2.

    A model whose prediction needs only ``venncal.core`` comes back as its
    :class:`~venncal.persistence._predictor.SavedPredictor` (the predictor behind
    :func:`venncal.load`, no scikit-learn import) unless ``full``, and a predictive
    distribution as a :class:`~venncal.cli._regression.SavedDistribution`; any other model as
    the calibrator itself. A file
    larger than ``max_bytes`` (default: that of :func:`venncal.load`) is refused unread.
    """
    from venncal.persistence import ModelFileError, read_model_file, read_model_state
    from venncal.persistence._predictor import saved_predictor

    try:
        state = read_model_state(path, max_bytes=max_bytes)
        if not full and state.class_name == "VennAbersDistribution":
            return SavedDistribution(state), state.metadata
        light = None if full else saved_predictor(state)
        if light is not None:
            return light, state.metadata
        model = read_model_file(path, max_bytes=max_bytes)
    except ModelFileError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot read MODEL {str(path)!r}: {exc.strerror or exc}.") from None
    if not (hasattr(model.calibrator, "predict_proba") or is_distribution(model.calibrator)):
        raise InputError(
            f"MODEL {str(path)!r} holds {_a(type(model.calibrator).__name__)}, not a calibrator; "
            "give a file written by venncal fit or by venncal.save of a calibrator."
        )
    return model.calibrator, model.metadata


def _a(name: str) -> str:
    """``name`` after its indefinite article: 'an AbstentionRule', 'a VennAbersCalibrator'."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def plan_columns(
    source: Source,
    calibrator: Any,
    *,
    score: str,
    keep: Sequence[str] | None,
    prefix: str,
    interval: Sequence[str] | None,
    what: str = "INPUT",
) -> tuple[list[str], list[str]]:
    """Check the columns an apply needs and return (kept columns, new columns)."""
    where = str(source.files()[0])
    shown = ", ".join(repr(str(c)) for c in source.columns[:12])
    more = ", ..." if len(source.columns) > 12 else ""
    for option, name in [("--score", score), *(("--keep", c) for c in keep or ())] + [
        ("--score-interval", c) for c in interval or ()
    ]:
        if name not in source.columns:
            raise InputError(
                f"{option} {name!r}: no such column in {where!r}; its columns are {shown}{more}."
            )
    kept = list(source.columns) if keep is None else list(dict.fromkeys(keep))
    new = new_column_names(calibrator, prefix)
    clash = [c for c in new if c in kept]
    if clash:
        raise InputError(
            f"{what} already has the column(s) {clash}; pass --prefix to name the new ones."
        )
    return kept, new


def apply_local(
    calibrator: Any,
    source: Source,
    out: str,
    *,
    overwrite: bool | None = None,
    out_sep: str | None = None,
    **kwargs: Any,
) -> int:
    """Stream ``source`` through ``calibrator`` into ``out`` (atomically); return the rows.

    ``overwrite``: whether an existing ``out`` may be replaced, as decided when the command
    started (None: only a file existing when writing starts). ``out_sep``: the field separator
    of a CSV output (None: by its suffix).
    """
    with Sink(out, overwrite=overwrite, sep=out_sep) as sink:
        return apply_stream(calibrator, source, sink, **kwargs)


def apply_dask(calibrator, source, out, **kwargs):
    """Apply with Dask: :func:`venncal.cli._engines.apply_on` with the batches of
    ``venncal.cli._dask.calibrated`` (same arguments and result as the local backend, and
    ``scheduler``)."""
    from venncal.cli._engines import apply_on

    require_extra("distributed", "dask", "--backend dask")
    try:
        from venncal.cli._dask import calibrated
    except ImportError:
        raise InputError("--backend dask is not available in this venncal installation.") from None
    return apply_on(calibrated, calibrator, source, out, **kwargs)


def apply_spark(calibrator, source, out, **kwargs):
    """Apply with Spark: :func:`venncal.cli._engines.apply_on` with the batches of
    ``venncal.cli._spark.calibrated`` (same arguments and result as the local backend)."""
    from venncal.cli._engines import apply_on

    require_extra("pyspark", "spark", "--backend spark")
    from venncal.cli._spark import calibrated

    return apply_on(calibrated, calibrator, source, out, **kwargs)


#: --backend name -> function(calibrator, source, out, **apply_stream keywords)
BACKENDS: dict[str, Callable[..., int]] = {
    "local": apply_local,
    "dask": apply_dask,
    "spark": apply_spark,
}


def _check_not_inside(out, inputs):
    # real paths: a symbolic link to the input folder (or from it) is the same folder
    target = Path(os.path.realpath(out))
    for source in inputs:
        folder = Path(os.path.realpath(source))
        if folder.is_dir() and folder in target.parents:
            raise InputError(
                f"--out {out!r} is inside the input folder {str(source)!r}; a later run would "
                "read it as input: write it elsewhere."
            )


def _keep_list(keep):
    if not keep:
        return None
    return [c.strip() for item in keep for c in item.split(",") if c.strip()]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("model", type=click.Path(dir_okay=False))
@click.argument("inputs", nargs=-1, required=True, type=click.Path())
@out_option("Output file (.csv, .tsv or .parquet): the kept columns plus p (and p0, p1).")
@click.option(
    "--score",
    "score_col",
    default=None,
    help="Column of classifier scores; for a K-class model, the K columns, comma-separated, "
    "in the order of its classes [default: the column(s) the model was fitted on].",
)
@click.option(
    "--keep",
    multiple=True,
    help="Input column to copy to the output (repeat, or separate by commas) "
    "[default: every column].",
)
@click.option("--prefix", default="", help="Prefix of the new column names, e.g. 'cal_'.")
@click.option(
    "--score-interval",
    "interval",
    nargs=2,
    default=None,
    metavar="LOW HIGH",
    help="acp: columns of the lower and upper end of each score's confidence interval.",
)
@click.option("--interval", "old_interval", nargs=2, default=None, hidden=True,
              help="Old name of --score-interval.")  # fmt: skip
@click.option(
    "--confidence",
    type=Probability(),
    default=None,
    help="Regression models: the probability inside the interval [lower, upper] of each "
    "row's predictive distribution [default: 0.9].",
)
@click.option(
    "--band",
    is_flag=True,
    default=False,
    help="Regression models: lower and upper read from the Venn-Abers band (never covering "
    "less than --confidence; infinite where the calibration rows cannot bound a tail) "
    "instead of the merged distribution's quantiles.",
)
@click.option(
    "--quantiles",
    default=None,
    metavar="LEVELS",
    help="Regression models: more quantiles of each row's predictive distribution, as "
    "levels between 0 and 1, comma-separated (e.g. 0.05,0.95); one column q_<level> each.",
)
@group_option(
    "For a model fitted within groups (venncal fit --group): the column of each row's group "
    "[default: the column the model was fitted on]."
)
@force_option()
@sep_option()
@out_sep_option()
@progress_option()
@backend_options(
    BACKENDS, "Where to apply: in this process (in chunks), on a Dask cluster, or on Spark."
)
@abstain_options
@click.option(
    "--max-model-bytes",
    type=click.IntRange(min=1),
    default=None,
    help=(
        "Refuse a MODEL file larger than this many bytes [default: 256 MiB for a file as "
        "venncal wrote it, 32 MiB for one laid out anew or written by an earlier venncal]."
    ),
)
def apply(
    model: str,
    inputs: tuple[str, ...],
    out: str,
    score_col: str | None,
    keep: tuple[str, ...],
    prefix: str,
    interval: tuple[str, str] | None,
    old_interval: tuple[str, str] | None,
    confidence: float | None,
    band: bool,
    quantiles: str | None,
    group: str | None,
    force: bool,
    sep: str | None,
    out_sep: str | None,
    progress: bool | None,
    backend: str,
    scheduler: str | None,
    max_model_bytes: int | None,
    abstain_at: float | None = None,
    abstain_rule: str | None = None,
    abstain_data: str | None = None,
    delta: float | None = None,
    abstain_label: str | None = None,
    abstain_positive: str | None = None,
) -> None:
    """Calibrate the scores of INPUT... with MODEL (written by venncal fit or venncal.save).

    Each INPUT is a CSV or Parquet file, or a folder of Parquet files; all need the same
    columns. They are read in chunks, so memory stays bounded whatever their size, and the
    output is written to a temporary file moved into place at the end: it appears complete or
    not at all.

    A K-class model (venncal fit --score a,b,c) reads its K score columns and writes one
    column p_<class> per class (and p_<class>_lower, p_<class>_upper for multiclass
    Venn-Abers), in this process only.

    With --abstain-at TARGET, a column 'accept' says which rows to answer: the threshold on
    the probability of the predicted class is fitted on --abstain-data (labelled rows not used
    to fit MODEL) so that, with probability 1 - delta, the error among accepted rows is at most
    TARGET (venncal.AbstentionRule); --abstain-rule applies a rule saved by venncal.save
    instead.

    A regression model (venncal fit --task regression) reads a column of a regressor's
    predictions and writes, from each row's predictive distribution, its median and the
    lower and upper ends of its central interval of --confidence (columns median, lower,
    upper; --band: read from the Venn-Abers band, never covering less than --confidence), and
    a column q_<level> per level of --quantiles; in chunks, in this process.

    A model fitted within groups (venncal fit --group) reads the group column it was fitted
    on (or --group) and predicts each row with its own group's calibrator, as
    venncal.load(MODEL).predict_proba(scores, groups=...) does; a missing group, or one not
    seen at fit, is an error naming its row.

    \b
    Example:
      venncal apply model.json scores/ -o calibrated.parquet --keep id
      venncal apply model.json new.csv -o new_calibrated.csv
      venncal apply model.json new.csv -o out.csv --abstain-at 0.05 --abstain-data held.csv
      venncal apply dist.json new.csv -o intervals.csv --confidence 0.8 --quantiles 0.5
      venncal apply by_region.json new.csv -o out.csv --group region
    """
    check_table_file(out, "--out", doing="writing")
    if scheduler is not None and backend != "dask":
        raise InputError("--scheduler applies to --backend dask only.")
    for path in inputs:
        if not Path(path).is_dir():
            check_table_file(path, "INPUT")
    calibrator, metadata = read_model(model, full=backend != "local", max_bytes=max_model_bytes)
    group_col = group_column_of(calibrator, metadata, group, model, backend)
    # the options of abstention given, which binary models only take
    abstain_given = [
        name
        for name, value in (
            ("--abstain-at", abstain_at),
            ("--abstain-rule", abstain_rule),
            ("--abstain-data", abstain_data),
            ("--delta", delta),
            ("--label", abstain_label),
            ("--positive", abstain_positive),
        )
        if value is not None
    ]
    if is_distribution(calibrator):
        scored = interval or old_interval
        given = (["--score-interval"] if scored is not None else []) + abstain_given
        if backend != "local":
            given.insert(0, f"--backend {backend}")
        if given:
            raise InputError(f"{given[0]} does not apply to regression models.")
        levels = [] if quantiles is None else parse_levels(quantiles)
        calibrator = DistributionColumns(calibrator, 0.9 if confidence is None else confidence,
                                         levels, band=band, group_column=group_col)  # fmt: skip
    elif confidence is not None or quantiles is not None or band:
        option = (
            "--confidence" if confidence is not None else "--quantiles" if quantiles else "--band"
        )
        raise InputError(f"{option} applies to regression models only (venncal fit --task "
                         f"regression), not {model_name(calibrator)}.")  # fmt: skip
    if is_segment_model(calibrator):
        refused: list[tuple[str, object]] = [
            ("--score-interval", interval or old_interval), *((o, o) for o in abstain_given),
            ("--backend " + backend, None if backend == "local" else backend)]  # fmt: skip
        for option, value in refused:
            if value is not None:
                raise InputError(f"{option} does not apply to {model_name(calibrator)} models.")
        calibrator = SegmentColumns(calibrator)
    if is_kclass_model(calibrator, metadata):
        _apply_kclass(calibrator, metadata, model, inputs, out, score_col, keep, prefix, force,
                      sep, out_sep, progress, backend, interval or old_interval,
                      abstain_given, group_col)  # fmt: skip
        return
    score = score_col or metadata.get("score")
    if not isinstance(score, str):
        raise InputError(
            f"MODEL {model!r} does not name its score column; pass --score with the column of "
            "scores."
        )
    if old_interval is not None:
        # --interval means the columns of a probability interval [p0, p1] (venncal evaluate);
        # the score's confidence interval of ACP is --score-interval
        if interval is not None:
            raise InputError("give --score-interval once (--interval is its old name).")
        click.echo(
            "venncal apply: --interval is now --score-interval (the old name goes in a later "
            "release).",
            err=True,
        )
        interval = old_interval
    if interval is not None and model_name(calibrator) != "ACPCalibrator":
        raise InputError(
            f"--score-interval applies to ACP models only, not {model_name(calibrator)}."
        )
    if group_col is not None and not isinstance(calibrator, DistributionColumns):
        calibrator = GroupColumns(calibrator, group_col)  # binary Venn-Abers within groups
    decision = abstention(
        calibrator,
        metadata,
        at=abstain_at,
        rule_path=abstain_rule,
        data=abstain_data,
        delta=delta,
        score=score,
        label=abstain_label,
        positive=abstain_positive,
        sep=sep,
        backend=backend,
        group=group_col,
    )
    source = open_source(inputs, "INPUT", sep)
    check_not_an_input(out, [model, *source.files()], "--out")
    _check_not_inside(out, inputs)
    check_output_free(out, force, "--out")
    # decided now, once: a file that appears at --out later is never replaced
    overwrite = force and os.path.lexists(out)
    if isinstance(calibrator, SegmentColumns):
        check_segment_columns(
            source, calibrator.input_columns, f"MODEL {model!r} reads the segment column"
        )
    if group_col is not None:
        check_group_column(source, group_col, f"MODEL {model!r} reads the group column")
    keep_cols, new_cols = plan_columns(
        source,
        calibrator,
        score=score,
        keep=_keep_list(keep),
        prefix=prefix,
        interval=interval,
    )
    if decision is not None:
        new_cols.append(prefix + "accept")
        if new_cols[-1] in keep_cols:
            raise InputError(
                f"INPUT already has the column {new_cols[-1]!r}; pass --prefix to name the new "
                "ones."
            )
    rows = BACKENDS[backend](
        calibrator,
        source,
        out,
        score=score,
        keep=keep_cols,
        prefix=prefix,
        interval=interval,
        method=model_name(calibrator),
        fitted_on=str(model),
        progress=progress,
        overwrite=overwrite,
        **({"scheduler": scheduler} if backend == "dask" else {}),
        out_sep=out_separator(out, sep, out_sep),
        **({} if decision is None else decision.stream_options()),
    )
    n_files = len(source.files())
    click.echo(
        f"Applied {model_name(calibrator)} from {model} to {rows} rows of {n_files} "
        f"file{'s' if n_files != 1 else ''}; wrote {', '.join(new_cols)} to {out}."
    )
    if decision is not None:
        click.echo(decision.summary)


def _apply_kclass(
    calibrator: Any,
    metadata: dict[str, Any],
    model: str,
    inputs: Sequence[str],
    out: str,
    score_col: str | None,
    keep: Sequence[str],
    prefix: str,
    force: bool,
    sep: str | None,
    out_sep: str | None,
    progress: bool | None,
    backend: str,
    interval: Sequence[str] | None,
    abstain: Sequence[str],
    group: str | None = None,
) -> None:
    """``venncal apply`` of a K-class model: one column ``p_<class>`` per class, in chunks;
    ``abstain``: the options of abstention given (refused); ``group``: the group column of a
    model fitted within groups."""
    if interval is not None or abstain:
        option = "--score-interval" if interval is not None else abstain[0]
        raise InputError(f"{option} does not apply to K-class models.")
    saved = metadata.get("score")
    if score_col is not None:
        columns = split_columns(score_col)
    elif isinstance(saved, str) and saved:
        columns = split_columns(saved)
    else:
        raise InputError(
            f"MODEL {model!r} does not name its score columns; pass --score with the K columns, "
            "comma-separated, in the order of its classes."
        )
    names = kclass_names(calibrator, metadata)
    if len(columns) != len(names):
        raise InputError(
            f"MODEL {model!r} calibrates {len(names)} score columns (one per class) but --score "
            f"names {len(columns)}; give the K columns, comma-separated, in the order of its "
            "classes."
        )
    if backend != "local":
        raise InputError(
            f"MODEL {model!r} calibrates {len(names)} score columns: K-class models are applied "
            "in this process only (--backend local)."
        )
    source = open_source(inputs, "INPUT", sep)
    check_not_an_input(out, [model, *source.files()], "--out")
    _check_not_inside(out, inputs)  # type: ignore[no-untyped-call]
    check_output_free(out, force, "--out")
    overwrite = force and os.path.lexists(out)
    where = str(source.files()[0])
    wanted: list[str] = _keep_list(keep) or []  # type: ignore[no-untyped-call]
    if group is not None:
        check_group_column(source, group, f"MODEL {model!r} reads the group column")
    for name in [*columns, *wanted]:
        if name not in source.columns:
            shown = ", ".join(repr(str(c)) for c in source.columns[:12])
            raise InputError(f"{name!r}: no such column in {where!r}; its columns are {shown}.")
    kept = list(source.columns) if not wanted else list(dict.fromkeys(wanted))
    new = kclass_column_names(calibrator, names, prefix)
    clash = [c for c in new if c in kept]
    if clash:
        raise InputError(
            f"INPUT already has the column(s) {clash}; pass --prefix to name the new ones."
        )
    rows = apply_kclass(
        calibrator, source, out, columns=columns, new=new, keep=kept, overwrite=overwrite,
        out_sep=out_separator(out, sep, out_sep), progress=progress, group=group,
    )  # fmt: skip
    n_files = len(source.files())
    click.echo(
        f"Applied {model_name(calibrator)} from {model} to {rows} rows of {n_files} "
        f"file{'s' if n_files != 1 else ''}; wrote {', '.join(new)} to {out}."
    )
