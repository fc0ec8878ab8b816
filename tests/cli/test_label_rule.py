"""Every command reads a label column by one rule (venncal.cli._io.labels_column).

The in-memory reading (fit, evaluate, compare, calibrate), the pooled fit's reading of distinct
keys, the Dask and Spark fits' reading of distinct values and venncal monitor's chunked reading
must give the same 0/1 labels, or the same one-line refusal, on the same file.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from click.testing import CliRunner

from venncal.cli import _stream, main
from venncal.cli._engines import label_values
from venncal.cli._io import InputError, labels_column, read_table
from venncal.cli._labels import StreamLabels
from venncal.cli._pooled import _resolve_labels
from venncal.shift import CalibrationMonitor

#: (the two classes, --positive) of the label columns tried
CASES = [
    ((0, 1), None),
    ((-1, 1), None),
    ((False, True), None),
    ((1.0, 2.0), "2"),
    ((1, 2), "2.0"),
    (("ham", "spam"), None),
    (("ham", "spam"), "ham"),
    (("no", "yes"), "yes"),
    ((1, 2), None),
    (("a", "b", "c"), None),
    ((0, 1, 2), "1"),
    ((0.0, 0.5), None),
]


def _write(tmp_path, y, kind, i):
    frame = pd.DataFrame({"p": np.linspace(0.01, 0.99, len(y)), "y": y})
    path = tmp_path / f"t{i}.{kind}"
    if kind == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    return path


def _outcome(read, *args, **kwargs):
    try:
        return np.asarray(read(*args, **kwargs), dtype=np.int8).tolist()
    except InputError as exc:
        return exc.message.split(": ", 1)[-1] if "holds" in exc.message else exc.message


def _stream_codes(path, positive):
    source = _stream.open_source([path], "STREAM")
    labels = StreamLabels(source, "y", positive)
    return np.concatenate([labels.codes(p, c) for p, c in source.chunks(["y"])])


def _keys_codes(path, positive, kind):
    """The pooled fit's reading: distinct keys of the file (text for CSV), coded by key."""
    source = _stream.open_source([path], "INPUT")
    col = pa.concat_arrays([c.column(0) for _, c in source.chunks(["y"])])
    keys = pc.unique(col).to_pylist()
    y_key, _ = _resolve_labels(keys, "y", "csv" if kind == "csv" else col.type, path, positive)
    return y_key[[keys.index(v) for v in col.to_pylist()]]


def _engine_codes(frame, path, positive):
    """The Dask and Spark fits' reading: the distinct values, then a lookup of the positives."""
    col = frame["y"]
    _, _, positives = label_values(pd.unique(col), col.dtype, "y", path, positive)
    return col.isin(positives)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_every_reading_gives_what_the_in_memory_rule_gives(tmp_path, monkeypatch, kind):
    """Random label columns, read in chunks of 7 rows: each route agrees with labels_column,
    codes and messages alike (one class included: monitor and evaluate accept an unambiguous
    one, fit refuses it)."""
    monkeypatch.setattr(_stream, "BATCH_ROWS", 7)
    rng = np.random.default_rng(5)
    i = 0
    for classes, positive in CASES:
        for n_classes in {1, len(classes)}:
            for _ in range(3):
                i += 1
                used = list(classes[:n_classes]) if n_classes == 1 else list(classes)
                y = [used[k] for k in rng.integers(0, len(used), size=int(rng.integers(1, 40)))]
                path = _write(tmp_path, y, kind, i)
                frame = read_table(path)
                fit_rule = _outcome(labels_column, frame, "y", path, positive)
                eval_rule = _outcome(labels_column, frame, "y", path, positive, one_class_ok=True)
                where = (classes, positive, y)
                assert _outcome(_stream_codes, path, positive) == eval_rule, where
                assert _outcome(_engine_codes, frame, path, positive) == fit_rule, where
                assert _outcome(_keys_codes, path, positive, kind) == fit_rule, where


def test_one_class_with_another_positive_is_all_negative(tmp_path):
    """--positive naming a class absent from a one-class column: every row is negative (the
    numeric route once coded every row positive)."""
    frame = pd.DataFrame({"y": [0, 0, 0]})
    y = labels_column(frame, "y", "t.csv", positive="1", one_class_ok=True)
    assert y.tolist() == [0, 0, 0]
    assert labels_column(frame, "y", "t.csv", positive="0", one_class_ok=True).tolist() == [1] * 3


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize(
    ("y", "positive", "ok"),
    [
        ([-1, 1], None, True),
        (["ham", "spam"], "spam", True),
        ([True, False], None, True),
        (["a", "b", "c"], None, False),
    ],
)
def test_every_command_reads_the_same_labels(tmp_path, y, positive, ok):
    """fit, calibrate, compare, evaluate and monitor on one file: all accept it, or all refuse it
    in one line with exit code 2; monitor codes the rows as the others do."""
    rng = np.random.default_rng(0)
    n = 120
    labels = [y[k] for k in rng.integers(0, len(y), size=n)]
    frame = pd.DataFrame({"p": rng.uniform(0.05, 0.95, size=n), "y": labels})
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    extra = [] if positive is None else ["--positive", positive]
    common = [path, "--label", "y", *extra]
    runs = {
        "fit": _run("fit", *common, "--score", "p", "-o", tmp_path / "m.json"),
        "calibrate": _run(
            "calibrate",
            path,
            path,
            "--score",
            "p",
            "--label",
            "y",
            *extra,
            "--prefix",
            "cal_",
            "-o",
            tmp_path / "c.csv",
        ),  # fmt: skip
        "compare": _run(
            "compare", *common, "--score", "p", "--method", "platt", "--out-dir", tmp_path / "cmp"
        ),
        "evaluate": _run("evaluate", *common, "--proba", "p", "--out-dir", tmp_path / "ev"),
        "monitor": _run("monitor", *common, "--score", "p"),
    }
    for name, result in runs.items():
        if ok:
            assert result.exit_code in (0, 1) if name == "monitor" else result.exit_code == 0, (
                name,
                result.output,
            )
        else:
            lines = result.output.strip().splitlines()
            assert result.exit_code == 2 and len(lines) == 1, (name, result.output)
            assert "3 classes" in lines[0], (name, result.output)
    if ok:
        codes = labels_column(read_table(path), "y", path, positive)
        expected = CalibrationMonitor().update(frame.p.to_numpy(), codes)
        from venncal.cli.monitor import martingale_text

        assert f"peaked at {martingale_text(expected.state_.log_max)}" in runs["monitor"].output
