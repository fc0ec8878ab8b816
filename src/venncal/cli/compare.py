"""``venncal compare``: which calibrator for these scores? Cross-validated, with intervals."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np

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
from venncal.cli._kclass import read_kclass_calibration, split_columns
from venncal.cli._options import (
    Bins,
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
    """The comparison as aligned text: one row per calibrator (named with its configuration,
    e.g. ``venn-abers (merge='mean')``), ``estimate [low, high]``."""
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
    rows = [
        [result.label(name), *(cells[name][m] for m in metrics), f"{seconds[name]:.4f}"]
        for name in names
    ]
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
            y, p = _top_label(oof, name)
            ReliabilityDisplay.from_predictions(y, p, name=name, ax=ax)
            ax.set_title(f"{name} (out-of-fold)")
        fig.tight_layout()
        write_figure(fig, path, overwrite, dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)


def _top_label(oof: Any, name: str) -> tuple[Any, Any]:
    """Labels and probabilities of a diagram: binary ones as they are; for K classes, whether
    the predicted class was right and its probability."""
    if name in oof.columns:
        return oof["y"], oof[name]
    P = oof[[c for c in oof.columns if c.startswith(name + "[")]].to_numpy()
    return (P.argmax(axis=1) == oof["y"].to_numpy()).astype(int), P.max(axis=1)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("cal_file", type=click.Path(dir_okay=False))
@score_option(
    "Column of classifier scores; for K classes, the K columns, comma-separated, one per class."
)
@label_option("Column of true labels (two values, or the K classes of K score columns).")
@click.option(
    "--classes",
    default=None,
    help="K score columns: the label of each column, comma-separated (as for venncal fit).",
)
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
    "--n-boot", type=click.IntRange(10, 10**6), default=1000, show_default=True,
    help="Bootstrap resamples of the intervals.",
)  # fmt: skip
@click.option("--n-bins", type=Bins(), default=10, show_default=True, help="Bins of the ECE.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed.")
@out_dir_option(
    "Folder for comparison.csv and reliability.png (the reliability diagram of each "
    "calibrator's out-of-fold probabilities, side by side)."
)
@no_plots_option("With --out-dir: write the table only.")
@click.option(
    "--save-model",
    "save_model",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the recommended calibrator, exactly as compared and fitted on all of CAL_FILE, "
    "as a model file (.json) for venncal apply.",
)
@force_option("Overwrite files in --out-dir and --save-model.")
@progress_option("Show a progress bar on standard error [default: when it is a terminal].")
@sep_option()
def compare(
    cal_file: str,
    score_col: str,
    label_col: str,
    classes: str | None,
    positive: str | None,
    methods: tuple[str, ...],
    cv: int,
    n_boot: int,
    n_bins: int,
    seed: int,
    out_dir: str | None,
    no_plots: bool,
    save_model: str | None,
    force: bool,
    progress: bool | None,
    sep: str | None = None,
) -> None:
    """Compare calibrators on the scores and labels of CAL_FILE (CSV or Parquet).

    Each calibrator is fitted by stratified cross-validation over CAL_FILE's rows only (the
    classifier that made the scores is not refitted), and scored on the rows it did not see by
    log loss, Brier score and ECE, each with a 95% bootstrap interval (* marks the best). When
    the scores are probabilities, the scores themselves ("uncalibrated") are a candidate too.
    The recommendation is inductive Venn-Abers with the mean merge unless another calibrator has
    a clearly lower log loss (the 95% interval of the paired difference lies below 0), never one
    that puts probability 0 or 1 on a row (see venncal.selection.compare_calibrators). Names
    say each calibrator's configuration where it differs from the defaults of venncal fit.
    --save-model writes the recommended calibrator, fitted on all rows of CAL_FILE.

    K classes: --score p_cat,p_dog,p_eel compares K-class calibrators (default: those of
    venncal.selection.compare_calibrators); the reliability diagram is then that of the
    predicted class (its probability against whether it was right).

    \b
    Example:
      venncal compare cal.csv --score score --label y --out-dir choice
      venncal compare cal.csv --score score --label y --save-model model.json
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
    if save_model is not None:
        if Path(save_model).suffix.lower() != ".json":
            raise InputError(
                f"--save-model {save_model!r} must end in .json (a venncal model file)."
            )
        check_not_an_input(save_model, [cal_file], "--save-model")
        check_output_free(save_model, force, "--save-model")
    k_class = "," in score_col
    class_names: list[str] | None = None
    if k_class:
        if positive is not None:
            raise InputError("--positive does not apply to K score columns.")
        columns = split_columns(score_col)
        names = None if classes is None else split_columns(classes, "--classes")
        s, y_k, _, class_names = read_kclass_calibration(
            cal_file, columns, label_col, names, sep=sep
        )
        smallest = int(np.bincount(y_k, minlength=len(columns)).min())
        y: Any = y_k
    else:
        if classes is not None:
            raise InputError("--classes applies to K score columns only (--score a,b,...).")
        frame = read_table(cal_file, "CAL_FILE", sep)
        s = scores_column(frame, score_col, cal_file)
        y = labels_column(frame, label_col, cal_file, positive=positive)
        smallest = int(min(np.sum(y == 0), np.sum(y == 1)))
    if smallest < cv:
        raise InputError(
            f"--cv {cv} needs at least {cv} rows of each class in {cal_file!r}; the smaller "
            f"class has {smallest}: pass a smaller --cv."
        )
    calibrators = {m: make_calibrator(m, k_class=k_class) for m in methods} if methods else None
    try:
        with np.errstate(all="ignore"):
            result = compare_calibrators(
                s, y, calibrators=calibrators, cv=cv, n_boot=n_boot, n_bins=n_bins,
                progress=progress, random_state=seed,
            )  # fmt: skip
    except (ValueError, ArithmeticError) as exc:
        text = str(exc) or type(exc).__name__
        raise InputError(f"cannot compare calibrators on {cal_file!r}: {text}") from None
    what = f"{len(class_names)} classes" if class_names else f"{int(y.sum())} positive"
    click.echo(
        f"{cal_file}: {len(y)} rows, {what}; {cv}-fold cross-validation, "
        f"{n_boot} bootstrap resamples"
    )
    click.echo(format_comparison(result))
    click.echo("")
    chosen = result.recommended_estimator
    detail = "" if chosen is None else f" = {chosen!r}"
    click.echo(f"Recommended: {result.label(result.recommended)}{detail}. {result.rule}")
    if save_model is not None:
        _save(result, save_model, force, cal_file, score_col, label_col, positive, class_names)
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


def _save(
    result: CalibratorComparison,
    path: str,
    force: bool,
    cal_file: str,
    score_col: str,
    label_col: str,
    positive: str | None,
    class_names: list[str] | None = None,
) -> None:
    """Write the recommended calibrator as a model file, or say why there is none."""
    import venncal

    model = result.recommended_estimator
    if model is None:
        click.echo(
            f"No model written to {path}: the recommendation is to use the scores as they are."
        )
        return
    metadata: dict[str, str] = {
        "score": score_col,
        "label": label_col,
        "method": result.recommended,
        "calibrator": result.label(result.recommended),
        "chosen_by": f"venncal compare {Path(cal_file).name}",
    }
    if positive is not None:
        metadata["positive"] = positive
    if class_names is not None:  # as venncal fit writes a K-class model
        import json

        metadata["score"] = ",".join(split_columns(score_col))
        metadata["classes"] = json.dumps(class_names)
    try:
        venncal.save(model, path, overwrite=force, metadata=metadata)
    except FileExistsError:
        raise InputError(
            f"--save-model {path!r} already exists; pass --force to overwrite it."
        ) from None
    except OSError as exc:
        raise InputError(f"cannot write --save-model {path!r}: {exc.strerror or exc}.") from None
    click.echo(f"Wrote the recommended calibrator to {path}")
