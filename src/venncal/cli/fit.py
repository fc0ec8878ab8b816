"""``venncal fit``: fit a calibrator on a table of scores and labels and save it as a model file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from venncal.cli._extras import require_extra
from venncal.cli._fitting import fit_calibrator_options, make_calibrator
from venncal.cli._io import InputError, check_not_an_input, check_output_free, check_table_file
from venncal.cli._kclass import (
    K_ONLY,
    kclass_column_names,
    read_kclass_calibration,
    split_columns,
)
from venncal.cli._options import (
    backend_options,
    force_option,
    group_option,
    label_option,
    out_option,
    progress_option,
    score_option,
    sep_option,
)
from venncal.cli._pooled import fit_file
from venncal.cli._regression import REGRESSION_METHODS, read_regression_calibration
from venncal.cli._segments import SEGMENT_METHODS

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
@score_option(
    "Column of classifier scores; for K classes, a comma-separated list of K columns, one per "
    "class (see --classes)."
)
@label_option(
    "Column of true labels (any two values; for K score columns, the K classes; for "
    "--task regression, real numbers)."
)
@click.option(
    "--task",
    type=click.Choice(["classification", "regression"]),
    default=None,
    help="classification: calibrate a classifier's scores; regression: --score holds a "
    "regressor's predictions and --label real numbers, and venn-abers-distribution fits "
    "their predictive distributions [default: regression for --method "
    "venn-abers-distribution, else classification].",
)
@click.option(
    "--classes",
    default=None,
    help="K score columns: the label of each column, comma-separated, in the order of --score "
    "[default: labels equal to the column names, or to the names without their common prefix "
    "(p_cat,p_dog for labels cat, dog), or 0 .. K-1 as column positions].",
)
@click.option(
    "--segments",
    default=None,
    metavar="COLUMNS",
    help="multicalibration: the segment columns of CAL_FILE, comma-separated (venncal apply "
    "reads the same columns of its inputs).",
)
@click.option(
    "--categorical",
    default=None,
    metavar="COLUMNS",
    help="multicalibration: the columns of --segments that are categorical [default: those "
    "the file does not store as numbers].",
)
@click.option(
    "--numerical",
    default=None,
    metavar="COLUMNS",
    help="multicalibration: the columns of --segments that are numerical [default: those "
    "the file stores as numbers].",
)
@group_option(
    "Calibrate within groups (Mondrian): one calibrator per value of this column of CAL_FILE "
    "(read as text), for --method venn-abers, venn-abers-distribution and "
    "multiclass-venn-abers; venncal apply reads the same column of its inputs."
)
@fit_calibrator_options
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
    task: str | None,
    classes: str | None,
    segments: str | None,
    categorical: str | None,
    numerical: str | None,
    group: str | None,
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

    K classes: --score p_cat,p_dog,p_eel with --method temperature, matrix-scaling,
    vector-scaling, dirichlet or multiclass-venn-abers. These fits read every row into memory
    (8 bytes per score and row, and the calibrator's working copies; more than 2^28 scores is
    refused), in this process only.

    Segments: --method multicalibration --segments region,age fits a calibrator that is
    calibrated within every segment of those columns (categorical, or numerical: see
    --categorical, --numerical); venncal apply then reads the same columns of its inputs. The
    fit reads every row into memory, in this process only.

    Regression: --task regression with a column of a regressor's predictions (--score) and
    of real labels (--label) fits a Venn-Abers predictive distribution
    (venn-abers-distribution); venncal apply then writes the median and a central interval
    of each row's distribution. The fit reads every row into memory, in this process only.

    Groups: --group region fits one calibrator per value of the column region (venn-abers,
    venn-abers-distribution, multiclass-venn-abers), each on its group's rows alone, so its
    guarantee holds within every group; the model file records the column, and venncal apply
    predicts each row with its own group's calibrator (a group not seen at fit is an error).
    Group values are text (in Python: groups=df["region"].astype(str)); a missing group is an
    error naming its row. The fit reads every row into memory, in this process only.

    \b
    Example:
      venncal fit cal.parquet --score score --label y --method venn-abers -o model.json
      venncal apply model.json scores/ -o calibrated.parquet
      venncal fit cal.csv --score p_cat,p_dog --label y --method matrix-scaling -o k.json
      venncal fit cal.csv --score pred --label y --task regression -o dist.json
      venncal fit cal.csv --score s --label y --method multicalibration --segments g,age -o m.json
      venncal fit cal.csv --score s --label y --group region -o by_region.json
    """
    if not Path(cal_file).is_dir():
        check_table_file(cal_file, "CAL_FILE")
    _check_model_path(out, force, [cal_file])
    method = _method_of_task(task, method)
    if method in SEGMENT_METHODS or (segments, categorical, numerical) != (None, None, None):
        others: dict[str, object] = {"--classes": classes, "--n-bins": n_bins}
        others.update({"--strategy": strategy, "--scheduler": scheduler, "--group": group})
        others["--backend"] = None if backend == "local" else backend
        _check_segment_options(method, (segments, categorical, numerical), others,
                               "," in score_col)  # fmt: skip
        fit_segments(cal_file, score_col, label_col, method, merge, weight_col, positive,
                     (str(segments), categorical, numerical), out, force, sep)  # fmt: skip
        return
    if method in REGRESSION_METHODS:
        options = {"--positive": positive, "--classes": classes, "--n-bins": n_bins}
        options.update({"--strategy": strategy, "--scheduler": scheduler})
        given = [o for o, v in options.items() if v is not None]
        if backend != "local":
            given.insert(0, "--backend " + backend)
        if "," in score_col:
            given.insert(0, "--score with several columns")
        if group is not None:
            _check_group(method, backend, group, [score_col], label_col, weight_col)
        if given:
            raise InputError(f"{given[0]} does not apply to --task regression.")
        fit_regression(cal_file, score_col, label_col, method, merge, weight_col, out, force, sep,
                       group)  # fmt: skip
        return
    if "," in score_col or method in K_ONLY:
        options = {"--positive": positive, "--merge": merge, "--n-bins": n_bins}
        options.update({"--strategy": strategy, "--scheduler": scheduler})
        given = [o for o, v in options.items() if v is not None]
        if backend != "local":
            given.insert(0, "--backend " + backend)
        if group is not None:
            _check_group(method, backend, group, score_col.split(","), label_col, weight_col)
        if given:
            raise InputError(f"{given[0]} does not apply to K-class score columns.")
        fit_kclass(cal_file, score_col, label_col, classes, method, weight_col, out, force, sep,
                   group)  # fmt: skip
        return
    if classes is not None:
        raise InputError("--classes applies to K score columns only (--score a,b,...).")
    if group is not None:
        _check_group(method, backend, group, [score_col], label_col, weight_col)
    calibrator = make_calibrator(method, merge=merge, n_bins=n_bins, strategy=strategy)
    if group is not None:
        if scheduler is not None:
            raise InputError("--scheduler applies to --backend dask only.")
        fit_binary_groups(calibrator, cal_file, score_col, label_col, weight_col, positive,
                          group, method, out, force, sep)  # fmt: skip
        return
    kwargs: dict[str, Any] = {"score": score_col, "label": label_col, "weight": weight_col}
    kwargs.update(positive=positive, method=method)
    if backend != "local":
        kwargs["scheduler"] = scheduler
    elif scheduler is not None:
        raise InputError("--scheduler applies to --backend dask only.")
    kwargs.update(progress=progress, sep=sep)
    calibrator, info = BACKENDS[backend](calibrator, cal_file, **kwargs)

    metadata = _metadata(score_col, label_col, method, positive, weight_col, **info)
    _save(calibrator, out, force, metadata)
    click.echo(
        f"Fitted {method} on {info['rows']} rows of {cal_file} ({info['positives']} positive); "
        f"wrote the model to {out}."
    )


def _check_group(
    method: str,
    backend: str,
    group: str,
    scores: list[str],
    label: str,
    weight: str | None,
) -> None:
    """One line for a --group that cannot be fitted (``venncal.cli._groups``)."""
    from venncal.cli._groups import check_group_fit

    check_group_fit(method, backend, group, [*scores, label, *([weight] if weight else [])])


def fit_binary_groups(
    calibrator: Any,
    cal_file: str,
    score_col: str,
    label_col: str,
    weight_col: str | None,
    positive: str | None,
    group: str,
    method: str,
    out: str,
    force: bool,
    sep: str | None,
) -> None:
    """Fit binary Venn-Abers within the groups of the column ``group`` (every row in
    memory) and save it with the column's name (``venncal.cli._groups``)."""
    from venncal.cli._fitting import fit_calibrator, read_calibration
    from venncal.cli._groups import WithGroups, read_groups

    s, y, w = read_calibration(cal_file, score_col, label_col, weight_col, positive, sep=sep)
    g = read_groups(cal_file, group, s.shape[0], sep)
    calibrator = fit_calibrator(WithGroups(calibrator, g), s, y, w, method=method, source=cal_file)
    facts = {"rows": int(s.shape[0]), "positives": int(y.sum()), "group": group}
    metadata = _metadata(score_col, label_col, method, positive, weight_col, **facts)
    _save(calibrator, out, force, metadata)
    click.echo(
        f"Fitted {method} on {s.shape[0]} rows of {cal_file} ({int(y.sum())} positive)"
        f"{_within(calibrator, group)}; wrote the model to {out}."
    )


def _method_of_task(task: str | None, method: str) -> str:
    """The --method to fit: venn-abers-distribution for --task regression without a
    --method; a method of the other task is one line."""
    given = click.get_current_context().get_parameter_source("method")
    chosen = given is not None and given.name not in ("DEFAULT", "DEFAULT_MAP")
    if method in REGRESSION_METHODS:
        if task == "classification":
            raise InputError(
                f"--method {method} fits a regressor's predictions: pass --task regression "
                "(or leave --task out)."
            )
        return method
    if task == "regression":
        if chosen:
            raise InputError(
                f"--method {method} calibrates a classifier's scores; --task regression takes "
                f"--method {', '.join(REGRESSION_METHODS)} (the default)."
            )
        return next(iter(REGRESSION_METHODS))
    return method


def fit_regression(
    cal_file: str,
    score_col: str,
    label_col: str,
    method: str,
    merge: str | None,
    weight_col: str | None,
    out: str,
    force: bool,
    sep: str | None,
    group: str | None = None,
) -> None:
    """Fit a predictive distribution of the predictions ``score_col`` and real labels
    ``label_col`` (within the groups of the column ``group``, if given) and save it
    (``venncal.cli._regression``)."""
    from importlib import import_module

    from venncal.cli._fitting import fit_calibrator

    public, fixed, _ = REGRESSION_METHODS[method]
    params = {**fixed, **({} if merge is None else {"merge": merge})}
    calibrator = getattr(import_module("venncal"), public)(**params)
    s, y, w = read_regression_calibration(cal_file, score_col, label_col, weight_col, sep=sep)
    fitting: Any = calibrator
    if group is not None:
        from venncal.cli._groups import WithGroups, read_groups

        fitting = WithGroups(calibrator, read_groups(cal_file, group, s.shape[0], sep))
    calibrator = fit_calibrator(fitting, s, y, w, method=method, source=cal_file)
    facts = {"task": "regression", "rows": int(s.shape[0]), "group": group}
    metadata = _metadata(score_col, label_col, method, None, weight_col, **facts)
    _save(calibrator, out, force, metadata)
    k = calibrator.labels_.shape[0]
    click.echo(
        f"Fitted {method} on {s.shape[0]} rows of {cal_file} ({k} distinct "
        f"label{'s' if k != 1 else ''}, from {float(y.min()):g} to {float(y.max()):g})"
        f"{_within(calibrator, group)}; wrote the model to {out}."
    )


def _check_segment_options(
    method: str,
    columns: tuple[str | None, str | None, str | None],
    given: dict[str, object],
    several_scores: bool,
) -> None:
    """One line for --segments (--categorical, --numerical) without multicalibration,
    multicalibration without --segments, or an option that does not apply to it."""
    if method not in SEGMENT_METHODS:
        options = ("--segments", "--categorical", "--numerical")
        option = next(o for o, v in zip(options, columns) if v is not None)
        raise InputError(
            f"{option} applies to --method {', '.join(SEGMENT_METHODS)} only, not {method!r}."
        )
    if not columns[0]:
        raise InputError(
            f"--method {method} needs --segments: the segment columns of CAL_FILE, "
            "comma-separated (e.g. --segments region,age)."
        )
    if several_scores:
        raise InputError(f"--method {method} takes one column of binary scores (--score).")
    for option, value in given.items():
        if value is not None:
            shown = f"{option} {value}" if option == "--backend" else option
            raise InputError(f"{shown} does not apply to --method {method}.")


def fit_segments(
    cal_file: str,
    score_col: str,
    label_col: str,
    method: str,
    merge: str | None,
    weight_col: str | None,
    positive: str | None,
    columns: tuple[str, str | None, str | None],
    out: str,
    force: bool,
    sep: str | None,
) -> None:
    """Fit a calibrator within the segments ``columns`` (--segments, --categorical,
    --numerical) and save it (``venncal.cli._segments``)."""
    from importlib import import_module

    from venncal.cli._columns import read_columns
    from venncal.cli._fitting import fit_calibrator, warn_if_ranked_below
    from venncal.cli._io import labels_column, scores_column, weight_column
    from venncal.cli._segments import (
        check_segment_columns,
        read_segments,
        segment_kinds,
        split_names,
    )
    from venncal.cli._stream import open_source

    names = split_names(columns[0], "--segments")
    cat = [] if columns[1] is None else split_names(columns[1], "--categorical")
    num = [] if columns[2] is None else split_names(columns[2], "--numerical")
    check_segment_columns(open_source([cal_file], "CAL_FILE", sep), names, "--segments")
    used = [score_col, label_col, *([weight_col] if weight_col else [])]
    clash = [c for c in names if c in used]
    if clash:
        raise InputError(f"--segments {clash[0]!r} is the score, label or weight column.")
    numbers = [(score_col, "--score")] + ([(weight_col, "--weight")] if weight_col else [])
    frame = read_columns(cal_file, [*used, *names], "CAL_FILE", numbers, sep)
    s = scores_column(frame, score_col, cal_file)
    y = labels_column(frame, label_col, cal_file, positive=positive)
    w = weight_column(frame, weight_col, cal_file)
    warn_if_ranked_below(frame[label_col], y, s, w, column=score_col, positive=positive)
    cat, num = segment_kinds(frame, names, cat, num)
    segments = read_segments(cal_file, cat, num, s.shape[0], sep)
    public, fixed, _ = SEGMENT_METHODS[method]
    params = {**fixed, "categorical": cat, "numerical": num}
    if merge is not None:
        params["merge"] = merge
    calibrator = getattr(import_module("venncal"), public)(**params)
    fitted = fit_calibrator(
        _WithSegments(calibrator, segments), s, y, w, method=method, source=cal_file
    )
    facts = {"segments": ",".join(names), "rows": int(s.shape[0])}
    metadata = _metadata(score_col, label_col, method, positive, weight_col, **facts)
    _save(fitted, out, force, metadata)
    kinds = [f"{c} (categorical)" for c in cat] + [f"{c} (numerical)" for c in num]
    click.echo(
        f"Fitted {method} on {s.shape[0]} rows of {cal_file} ({int(y.sum())} positive) within "
        f"the segments {', '.join(kinds)}; wrote the model to {out}."
    )


class _WithSegments:
    """A calibrator whose ``fit(scores, y, sample_weight)`` passes the segment frame too."""

    def __init__(self, calibrator: Any, segments: Any) -> None:
        self.calibrator = calibrator
        self.segments = segments

    def fit(self, scores: Any, y: Any, sample_weight: Any = None) -> Any:
        return self.calibrator.fit(scores, y, sample_weight, segments=self.segments)


def _metadata(
    score: str,
    label: str,
    method: str,
    positive: str | None = None,
    weight: str | None = None,
    **facts: Any,
) -> dict[str, Any]:
    """What a model file records of its fit: the columns read, the method and the facts of the
    fit (rows, positives, group, ...); what was not given (None) is left out."""
    given = {"positive": positive, "weight": weight, **facts}
    notes = {"score": score, "label": label, "method": method}
    return notes | {k: v for k, v in given.items() if v is not None}


def _save(calibrator: Any, out: str, force: bool, metadata: dict[str, Any]) -> None:
    import venncal

    try:
        venncal.save(calibrator, out, overwrite=force, metadata=metadata)
    except FileExistsError:
        raise InputError(f"--out {out!r} already exists; pass --force to overwrite it.") from None
    except OSError as exc:
        raise InputError(f"cannot write --out {out!r}: {exc.strerror or exc}.") from None


def fit_kclass(
    cal_file: str,
    score_col: str,
    label_col: str,
    classes: str | None,
    method: str,
    weight_col: str | None,
    out: str,
    force: bool,
    sep: str | None,
    group: str | None = None,
) -> None:
    """Fit a K-class calibrator on the score columns ``score_col`` (comma-separated), within
    the groups of the column ``group`` if given, and save it with its columns and class names
    (``venncal.cli._kclass``)."""
    from venncal.cli._fitting import fit_calibrator

    columns = split_columns(score_col)
    names = None if classes is None else split_columns(classes, "--classes")
    calibrator = make_calibrator(method, k_class=True)
    S, y, w, class_names = read_kclass_calibration(
        cal_file, columns, label_col, names, weight_col, sep=sep
    )
    kclass_column_names(calibrator, class_names)  # the columns venncal apply would write
    fitting: Any = calibrator
    if group is not None:
        from venncal.cli._groups import WithGroups, read_groups

        fitting = WithGroups(calibrator, read_groups(cal_file, group, S.shape[0], sep))
    calibrator = fit_calibrator(fitting, S, y, w, method=method, source=cal_file)
    import json

    metadata: dict[str, Any] = {"score": ",".join(columns), "classes": json.dumps(class_names)}
    metadata.update(label=label_col, method=method)
    metadata["rows"] = int(S.shape[0])
    if weight_col is not None:
        metadata["weight"] = weight_col
    if group is not None:
        metadata["group"] = group
    _save(calibrator, out, force, metadata)
    click.echo(
        f"Fitted {method} on {S.shape[0]} rows of {cal_file} ({len(columns)} classes: "
        f"{', '.join(class_names)}){_within(calibrator, group)}; wrote the model to {out}."
    )


def _within(calibrator: Any, group: str | None) -> str:
    """`` within N groups of 'g'`` for a model fitted within groups, else nothing."""
    if group is None:
        return ""
    n = len(calibrator.groups_)
    return f" within {n} group{'s' if n != 1 else ''} of {group!r}"
