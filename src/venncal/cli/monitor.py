"""``venncal monitor``: watch a stream of deployed probabilities and labels for lost calibration."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from venncal.cli._io import InputError, check_not_an_input, check_output_free, check_table_file
from venncal.cli._labels import StreamLabels
from venncal.cli._options import (
    Probability,
    force_option,
    label_option,
    out_sep_option,
    out_separator,
    progress_option,
    score_option,
    sep_option,
)
from venncal.cli._outputs import check_picture_file
from venncal.cli._stream import Sink, open_source, score_array
from venncal.core.betting import MAX_BINS

if TYPE_CHECKING:
    import os

    import pandas as pd

    from venncal._typing import AnyArray, FloatArray
    from venncal.cli._stream import Source

__all__ = ["monitor", "PathSketch", "martingale_text"]

#: points of the martingale path kept for the plot (thinned by halves beyond this)
PLOT_POINTS = 1 << 14


class PathSketch:
    """At most about :data:`PLOT_POINTS` points of a long path, evenly thinned, for a plot."""

    def __init__(self, limit: int = PLOT_POINTS) -> None:
        self.limit = limit
        self.stride = 1
        self.rows: list[AnyArray] = []
        self.values: list[FloatArray] = []

    def add(self, start: int, path: FloatArray) -> None:
        first = (-start) % self.stride
        idx = np.arange(first, path.shape[0], self.stride)
        self.rows.append(start + idx)
        self.values.append(path[idx])
        while sum(r.shape[0] for r in self.rows) > self.limit:
            rows, values = np.concatenate(self.rows), np.concatenate(self.values)
            self.stride *= 2
            keep = rows % self.stride == 0
            self.rows, self.values = [rows[keep]], [values[keep]]

    def arrays(self) -> tuple[AnyArray, FloatArray]:
        if not self.rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return np.concatenate(self.rows), np.concatenate(self.values)


def _probabilities(
    chunk: Any, score_col: str, path: str | os.PathLike[str], file_offset: int
) -> FloatArray:
    """The --score column of a chunk: probabilities in [0, 1], or one line naming the row."""
    p = score_array(chunk, score_col, path, file_offset)
    bad = (p < 0) | (p > 1)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{str(path)!r}: column {score_col!r} (--score) must hold probabilities in "
            f"[0, 1]; row {file_offset + first} holds {float(p[first])!r}."
        )
    return p


def _plot(sketch, threshold, alarm, alpha, out, overwrite):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from venncal._files import save_figure

    rows, values = sketch.arrays()
    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        ax.plot(rows, values / np.log(10), lw=1, label="log10 of the test martingale")
        ax.axhline(
            threshold / np.log(10), color="C3", ls="--", label=f"alarm: 1/alpha = {1 / alpha:g}"
        )
        if alarm is not None:
            ax.axvline(alarm, color="C3", lw=0.8, alpha=0.6)
            ax.annotate(f"alarm at row {alarm}", (alarm, threshold / np.log(10)),
                        textcoords="offset points", xytext=(5, 8), color="C3")  # fmt: skip
        ax.set_xlabel("row")
        ax.set_ylabel("log10 martingale")
        ax.set_title("Calibration monitor")
        ax.legend(loc="upper left")
        fig.tight_layout()
        try:
            save_figure(fig, out, overwrite=overwrite, dpi=120)
        except FileExistsError:
            raise InputError(
                f"--plot {str(out)!r} appeared while venncal was writing it and was left as it "
                "is; pass --force to overwrite it."
            ) from None
        except OSError as exc:
            raise InputError(f"cannot write --plot {str(out)!r}: {exc.strerror or exc}.") from None
    finally:
        plt.close(fig)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("stream", nargs=-1, required=True, type=click.Path())
@score_option("Column of the deployed probabilities of the positive class.")
@label_option("Column of the labels (any two values, read as fit and evaluate read them).")
@click.option(
    "--positive",
    default=None,
    help="The label value of the positive class [default: the larger label, e.g. 1].",
)
@click.option("--alpha", type=Probability(), default=0.05,
              show_default=True, help="Probability of a false alarm over the whole stream.")  # fmt: skip
@click.option("--n-bins", type=click.IntRange(min=1, max=MAX_BINS), default=1, show_default=True,
              help="Also bet on a loss of calibration within each of this many bins of p.")  # fmt: skip
@click.option("--out", "-o", "out", type=click.Path(dir_okay=False), default=None,
              help="Write the martingale path (row, log_martingale, alarm) to this CSV or Parquet file.")  # fmt: skip
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None,
              help="Draw the martingale path to this picture (e.g. monitor.png).")  # fmt: skip
@click.option("--segments", "segments", default=None, metavar="COLUMNS",
              help="Test calibration per segment: comma-separated columns (e.g. region,device), "
                   "one test per level, false-alarm probability at most alpha over all segments "
                   "together; -o then writes the report of every segment.")  # fmt: skip
@click.option("--segment-bins", "segment_bins", multiple=True, metavar="COLUMN=EDGES",
              help="Cut points of a numerical --segments column, e.g. age=18,30,50 (levels "
                   "(-inf, 18), [18, 30), [30, 50), [50, inf)); repeat for more columns.")  # fmt: skip
@force_option("Overwrite --out and --plot if they exist.")
@sep_option()
@out_sep_option()
@progress_option()
def monitor(
    stream: tuple[str, ...],
    score_col: str,
    label_col: str,
    positive: str | None,
    alpha: float,
    n_bins: int,
    out: str | None,
    plot: str | None,
    force: bool,
    segments: str | None = None,
    segment_bins: tuple[str, ...] = (),
    sep: str | None = None,
    out_sep: str | None = None,
    progress: bool | None = None,
) -> None:
    """Test whether the probabilities in STREAM stay calibrated, row by row, in time order.

    STREAM is one or more CSV or Parquet files (or folders of Parquet files), read in order and
    in chunks, so memory stays bounded. The test is a martingale: a gambler's capital betting
    that the labels come out more (or less) often than the probabilities say. While the
    probabilities are calibrated (P(y = 1 | p) = p) it reaches 1/alpha with probability at most
    alpha over the whole stream, so an alarm is strong evidence of a change.

    With --segments, one test per level of each segment column (e.g. region, device), each on
    that segment's rows alone; the alarm names the segments that lost calibration, and the
    chance of any false alarm over all segments is at most alpha.

    Exit code 0: no alarm; 1: the alarm fired (where is printed); 2: bad input.

    \b
    Example:
      venncal monitor scored_2024*.parquet --score p --label y -o path.csv --plot path.png
      venncal monitor scored.csv --score p --label y --segments region,age --segment-bins age=30,50
    """
    from venncal.shift import CalibrationMonitor

    if score_col == label_col:
        raise InputError(
            f"--score and --label name the same column {score_col!r}; give the column of "
            "probabilities and the column of labels."
        )
    names, bins = _segment_options(segments, segment_bins, plot, (score_col, label_col))
    if out is not None:
        check_table_file(out, "--out", doing="writing")
    if plot is not None:
        check_picture_file(plot, "--plot")
    for path in stream:
        if not Path(path).is_dir():
            check_table_file(path, "STREAM")
    source = open_source(stream, "STREAM", sep)
    for option, name in (("--score", score_col), ("--label", label_col)):
        if name not in source.columns:
            shown = ", ".join(repr(str(c)) for c in source.columns[:12])
            raise InputError(
                f"{option} {name!r}: no such column in {str(source.files()[0])!r}; its columns "
                f"are {shown}."
            )
    if names:
        from venncal.cli._segments import check_segment_columns

        check_segment_columns(source, names, "--segments")
    outputs = [(o, p) for o, p in (("--out", out), ("--plot", plot)) if p is not None]
    for option, path in outputs:
        check_not_an_input(path, source.files(), option)
        check_output_free(path, force, option)
    if out is not None and plot is not None and Path(out).resolve() == Path(plot).resolve():
        raise InputError("--out and --plot name the same file; give two files.")
    import os

    plot_overwrite = plot is not None and force and os.path.lexists(plot)
    if names:
        _monitor_segments(source, score_col, label_col, positive, alpha, n_bins, names, bins,
                          out, force, progress)  # fmt: skip
        return
    mon = CalibrationMonitor(alpha=alpha, n_bins=n_bins, keep_path=False)
    sketch = PathSketch() if plot is not None else None
    where = None  # (file, row in file) of the alarm
    columns = list(dict.fromkeys([score_col, label_col]))
    offset, file_offset, current = 0, 0, None
    from venncal.cli._progress import progress_bar

    labels = StreamLabels(source, label_col, positive)  # the rule of fit and evaluate
    bar = progress_bar(source.num_rows, progress, desc="monitoring")
    out_sink: _NoSink | Sink = _NoSink()
    if out is not None:
        out_sink = Sink(out, "--out", sep=out_separator(out, sep, out_sep))
    with bar, out_sink as sink:
        for path, chunk in source.chunks(columns):
            if path != current:
                current, file_offset = path, 0
            p = _probabilities(chunk, score_col, path, file_offset)
            y = labels.codes(path, chunk)
            before = mon.alarm_index_ if hasattr(mon, "state_") else None
            values = mon.advance(p, y)
            if before is None and mon.alarm_index_ is not None:
                where = (path, file_offset + mon.alarm_index_ - offset)
            rows = np.arange(offset, offset + p.shape[0], dtype=np.int64)
            if sketch is not None:
                sketch.add(offset, values)
            if out is not None:
                _write_path(sink, rows, values, mon.alarm_index_)
            offset += p.shape[0]
            file_offset += p.shape[0]
            bar.update(p.shape[0])
        if offset == 0:
            raise InputError("STREAM has no data rows; nothing to monitor.")
    if plot is not None:
        _plot(sketch, mon.threshold_, mon.alarm_index_, alpha, plot, plot_overwrite)
    click.echo(
        f"Monitored {offset} rows at alpha = {alpha:g}: the martingale peaked at "
        f"{martingale_text(mon.state_.log_max)} and ended at "
        f"{martingale_text(mon.log_martingale_)}; the alarm level is 1/alpha = "
        f"{martingale_text(np.log(1 / alpha))}."
    )
    written = [p for _, p in outputs]
    if written:
        click.echo("Wrote " + ", ".join(str(p) for p in written))
    if mon.alarm_:
        assert where is not None  # set at the chunk where the alarm fired
        click.echo(
            f"ALARM: the probabilities are not calibrated; the martingale reached 1/alpha at row "
            f"{mon.alarm_index_} of the stream (row {where[1]} of {str(where[0])!r})."
        )
        raise SystemExit(1)
    click.echo("No alarm: no evidence against calibration.")


class _NoSink:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def martingale_text(log_value: float) -> str:
    """A martingale for the summary, with its natural log as the path file holds it: the value
    itself while it is readable, a power of ten past 10^6 (a float cannot hold e^710 or more).

    Examples
    --------
    >>> martingale_text(1.5)
    '4.482 (log 1.5)'
    >>> martingale_text(720.360933203786)
    '10^312.85 (log 720.361)'
    """
    decades = log_value / np.log(10.0)
    if decades < 6:
        return f"{np.exp(log_value):.4g} (log {log_value:.6g})"
    return f"10^{decades:.2f} (log {log_value:.6g})"


def _write_path(sink, rows, values, alarm_index):
    import pandas as pd

    fired = np.zeros(rows.shape[0], dtype=np.int64)
    if alarm_index is not None:
        fired[rows >= alarm_index] = 1
    kept = pd.DataFrame({"row": rows, "alarm": fired})
    sink.write(kept, {"log_martingale": np.ascontiguousarray(values, dtype=np.float64)})


def _segment_options(
    segments: str | None, segment_bins: tuple[str, ...], plot: str | None, taken: tuple[str, str]
) -> tuple[list[str], dict[str, list[float]]]:
    """The columns of --segments and the cut points of --segment-bins, checked (one line)."""
    from venncal.cli._segments import split_names

    if segments is None:
        if segment_bins:
            raise InputError("--segment-bins needs --segments: name its columns there too.")
        return [], {}
    names = split_names(segments, "--segments")
    both = [c for c in names if c in taken]
    if both:
        raise InputError(
            f"--segments names {both[0]!r}, the column of --score or --label; give segment columns."
        )
    if plot is not None:
        raise InputError(
            "--plot draws the martingale of the whole stream; with --segments, -o writes the "
            "report of every segment instead."
        )
    bins: dict[str, list[float]] = {}
    for text in segment_bins:
        column, eq, edges = text.partition("=")
        column = column.strip()
        try:
            cuts = [float(e) for e in edges.split(",")] if eq and edges.strip() else []
        except ValueError:
            cuts = []
        ok = bool(cuts) and all(np.isfinite(cuts)) and all(a < b for a, b in zip(cuts, cuts[1:]))
        if not (column and ok):
            raise InputError(
                f"--segment-bins {text!r} must be COLUMN=EDGES with strictly increasing finite "
                "numbers, e.g. age=18,30,50."
            )
        if column not in names:
            raise InputError(
                f"--segment-bins names {column!r}, which is not one of --segments "
                f"({', '.join(names)}); name it in --segments too."
            )
        if column in bins:
            raise InputError(f"--segment-bins gives the cut points of {column!r} twice.")
        bins[column] = cuts
    return names, bins


def _monitor_segments(
    source: Source,
    score_col: str,
    label_col: str,
    positive: str | None,
    alpha: float,
    n_bins: int,
    names: list[str],
    bins: dict[str, list[float]],
    out: str | None,
    force: bool,
    progress: bool | None,
) -> None:
    """``venncal monitor --segments``: a SegmentedCalibrationMonitor over the stream."""
    from venncal.cli._progress import progress_bar
    from venncal.cli._segments import segment_frame
    from venncal.shift import SegmentedCalibrationMonitor

    mon = SegmentedCalibrationMonitor(names, alpha=alpha, bins=bins or None, n_bins=n_bins)
    categorical = [c for c in names if c not in bins]
    numerical = [c for c in names if c in bins]
    columns = list(dict.fromkeys([score_col, label_col, *names]))
    labels = StreamLabels(source, label_col, positive)
    where: dict[tuple[str, str], tuple[Path, int]] = {}  # segment -> (file, row in file)
    offset, file_offset, current = 0, 0, None
    with progress_bar(source.num_rows, progress, desc="monitoring") as bar:
        for path, chunk in source.chunks(columns):
            if path != current:
                current, file_offset = path, 0
            p = _probabilities(chunk, score_col, path, file_offset)
            y = labels.codes(path, chunk)
            seg = segment_frame(chunk, categorical, numerical, path, file_offset)
            _refuse_unbinned_numbers(seg, categorical, path, file_offset)
            try:
                mon.update(p, y, segments=seg)
            except ValueError as exc:
                raise InputError(f"{str(path)!r}: {exc}") from None
            for c in mon.columns_:
                for level, row in zip(mon.levels_[c], mon.alarm_rows_[c]):
                    if row is not None and (c, level) not in where:
                        where[(c, level)] = (path, file_offset + row - offset)
            offset += p.shape[0]
            file_offset += p.shape[0]
            bar.update(p.shape[0])
        if offset == 0:
            raise InputError("STREAM has no data rows; nothing to monitor.")
    report = mon.report()
    if out is not None:
        from venncal.cli._io import write_table

        write_table(report, out, force, "--out")
    n_levels = sum(len(v) for v in mon.levels_.values())
    click.echo(
        f"Monitored {offset} rows in {n_levels} segment{'s' * (n_levels != 1)} of "
        f"{len(names)} column{'s' * (len(names) != 1)} at alpha = "
        f"{alpha:g} (over all segments together)."
    )
    if out is not None:
        click.echo(f"Wrote {out}")
    if mon.alarm_:
        click.echo(
            f"ALARM: calibration lost in {len(mon.alarmed_segments_)} segment(s); the first at "
            f"row {mon.alarm_index_} of the stream."
        )
        alarmed = report[report.alarm]
        for row in alarmed.itertuples():
            file, line = where[(row.column, row.level)]
            click.echo(
                f"  {row.column} = {row.level}: at row {row.alarm_row} of the stream (row "
                f"{line} of {str(file)!r}), {row.n_rows} rows of the segment, martingale now "
                f"{martingale_text(row.log_martingale)}, its alarm level "
                f"{martingale_text(row.threshold)}."
            )
        raise SystemExit(1)
    top = report.iloc[0]
    click.echo(
        f"No alarm: no evidence against calibration in any segment (closest: {top.column} = "
        f"{top.level}, martingale {martingale_text(top.log_martingale)} of "
        f"{martingale_text(top.threshold)})."
    )


def _refuse_unbinned_numbers(
    seg: pd.DataFrame, categorical: list[str], path: str | os.PathLike[str], offset: int
) -> None:
    """One line for a --segments column of non-integer numbers without --segment-bins (each
    number would be a level of its own)."""
    import pandas as pd

    for c in categorical:
        text = seg[c].dropna()
        numbers = pd.to_numeric(text, errors="coerce")
        if len(text) and not numbers.isna().any():
            fraction = numbers.to_numpy(dtype=np.float64) % 1 != 0
            if fraction.any():
                row = int(text.index[np.flatnonzero(fraction)[0]])
                raise InputError(
                    f"{str(path)!r}: --segments column {c!r} holds numbers that are not "
                    f"integers (row {offset + row} holds {text[row]!r}); give its cut points, "
                    f"e.g. --segment-bins {c}=18,30,50."
                )
