"""``venncal fit`` and ``venncal apply``: agreement with the library, chunks, files, errors."""

import json
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import venncal
from venncal.cli import _stream, main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(result, *fragments):
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert sum(line.startswith("Error:") for line in lines) == 1, result.output
    message = lines[-1]
    assert message.startswith("Error: "), result.output
    for fragment in fragments:
        assert fragment in message, message
    return message


def _data(seed, n):
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=n), 3)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    return s, y


@pytest.fixture
def files(tmp_path):
    s, y = _data(0, 500)
    pd.DataFrame({"id": np.arange(500), "score": s, "y": np.where(y, "pos", "neg")}).to_csv(
        tmp_path / "cal.csv", index=False
    )
    t, _ = _data(1, 700)
    test = pd.DataFrame({"id": np.arange(700), "score": t, "group": np.resize(["a", "b"], 700)})
    test.to_parquet(tmp_path / "test.parquet", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    return tmp_path, s, np.where(y, "pos", "neg"), test


def _fit(tmp, *extra, out="model.json"):
    return run("fit", tmp / "cal.csv", "--score", "score", "--label", "y", "-o", tmp / out, *extra)


METHODS = ["venn-abers", "isotonic", "platt", "histogram", "sbb", "abb", "acp"]


@pytest.mark.parametrize("method", METHODS)
def test_fit_then_apply_equals_the_library(files, method):
    """The model file loads as the calibrator the library fits; apply writes its predictions."""
    from venncal.cli._fitting import make_calibrator

    tmp, s, y, test = files
    assert _fit(tmp, "--method", method).exit_code == 0
    expected = make_calibrator(method).fit(s, y)
    loaded = venncal.load(tmp / "model.json")
    assert type(loaded) is type(expected) and loaded.get_params() == expected.get_params()
    res = run("apply", tmp / "model.json", tmp / "test.parquet", "-o", tmp / "out.parquet")
    assert res.exit_code == 0, res.output
    out = pd.read_parquet(tmp / "out.parquet")
    assert list(out.columns[:3]) == ["id", "score", "group"]
    pd.testing.assert_frame_equal(out[test.columns], test)
    np.testing.assert_array_equal(out["p"], expected.predict_proba(test["score"])[:, 1])
    if method == "venn-abers":
        np.testing.assert_array_equal(
            out[["p0", "p1"]].to_numpy(), expected.predict_interval(test["score"])
        )
    else:
        assert "p0" not in out.columns


def test_model_file_remembers_the_columns(files):
    tmp, *_ = files
    assert _fit(tmp, "--positive", "pos").exit_code == 0
    from venncal.persistence import read_model_file

    meta = read_model_file(tmp / "model.json").metadata
    assert meta["score"] == "score" and meta["label"] == "y" and meta["positive"] == "pos"
    assert meta["rows"] == 500


@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet", "out.tsv"])
@pytest.mark.parametrize("inp", ["test.csv", "test.parquet"])
def test_chunks_give_what_one_pass_gives(files, monkeypatch, inp, out_name):
    """Chunks of 64 rows (11 chunks, the last one short) give the rows of one pass, in order."""
    tmp, _, _, test = files
    assert _fit(tmp).exit_code == 0
    args = ("apply", tmp / "model.json", tmp / inp, "--keep", "id,group")
    assert run(*args, "-o", tmp / f"one_{out_name}").exit_code == 0
    monkeypatch.setattr(_stream, "BATCH_ROWS", 64)
    res = run(*args, "-o", tmp / out_name)
    assert res.exit_code == 0, res.output
    assert "700 rows" in res.output

    def read(path):
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",")

    chunked, whole = read(tmp / out_name), read(tmp / f"one_{out_name}")
    pd.testing.assert_frame_equal(chunked, whole)
    assert list(chunked.columns) == ["id", "group", "p", "p0", "p1"]
    model = venncal.load(tmp / "model.json")
    # a kept CSV column is copied as its text: into Parquet as strings
    text = inp.endswith(".csv") and out_name.endswith(".parquet")
    np.testing.assert_array_equal(chunked["id"], test["id"].astype(str) if text else test["id"])
    np.testing.assert_allclose(chunked["p"], model.predict_proba(test["score"])[:, 1], rtol=1e-15)


def test_folder_of_parquet_files_and_several_inputs(files):
    tmp, _, _, test = files
    assert _fit(tmp).exit_code == 0
    parts = tmp / "parts"
    (parts / "day=2").mkdir(parents=True)
    test.iloc[:300].to_parquet(parts / "a.parquet", index=False)
    test.iloc[300:301].to_parquet(parts / "day=2" / "b.parquet", index=False)
    test.iloc[301:].to_parquet(parts / "day=2" / "c.parquet", index=False)
    (parts / "_SUCCESS").write_text("")
    (parts / ".hidden.parquet").write_text("not parquet")
    res = run("apply", tmp / "model.json", parts, "-o", tmp / "out.parquet")
    assert res.exit_code == 0, res.output
    out = pd.read_parquet(tmp / "out.parquet")
    np.testing.assert_array_equal(out["id"], test["id"])
    res = run("apply", tmp / "model.json", tmp / "test.csv", parts, "-o", tmp / "two.csv")
    assert res.exit_code == 0, res.output
    assert len(pd.read_csv(tmp / "two.csv")) == 2 * len(test)


def test_the_score_option_and_prefix(files):
    tmp, _, _, test = files
    assert _fit(tmp).exit_code == 0
    renamed = test.rename(columns={"score": "margin"})
    renamed.to_parquet(tmp / "renamed.parquet", index=False)
    one_line_error(
        run("apply", tmp / "model.json", tmp / "renamed.parquet", "-o", tmp / "o.parquet"),
        "--score 'score'",
        "'margin'",
    )
    res = run("apply", tmp / "model.json", tmp / "renamed.parquet", "-o", tmp / "o.parquet",
              "--score", "margin", "--prefix", "cal_", "--keep", "id")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert list(pd.read_parquet(tmp / "o.parquet").columns) == ["id", "cal_p", "cal_p0", "cal_p1"]


def test_acp_takes_intervals_from_columns(files):
    tmp, _, _, test = files
    assert _fit(tmp, "--method", "acp").exit_code == 0
    with_iv = test.assign(lo=test["score"] - 0.4, hi=test["score"] + 0.1)
    with_iv.to_parquet(tmp / "iv.parquet", index=False)
    res = run("apply", tmp / "model.json", tmp / "iv.parquet", "-o", tmp / "o.parquet",
              "--score-interval", "lo", "hi")  # fmt: skip
    assert res.exit_code == 0, res.output
    model = venncal.load(tmp / "model.json")
    want = model.predict_proba(test["score"], interval=with_iv[["lo", "hi"]].to_numpy())[:, 1]
    np.testing.assert_array_equal(pd.read_parquet(tmp / "o.parquet")["p"], want)
    assert _fit(tmp, "--force").exit_code == 0
    one_line_error(
        run(
            "apply",
            tmp / "model.json",
            tmp / "iv.parquet",
            "-o",
            tmp / "x.parquet",
            "--score-interval",
            "lo",
            "hi",
        ),  # fmt: skip
        "--score-interval applies to ACP",
    )


# ----------------------------------------------------------------------------- file safety
def test_never_overwrites_without_force_nor_an_input(files):
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    before = (tmp / "model.json").read_bytes()
    one_line_error(_fit(tmp, "--method", "platt"), "already exists", "--force")
    assert (tmp / "model.json").read_bytes() == before
    one_line_error(_fit(tmp, "--force", out="cal.csv"), ".json")
    (tmp / "cal.json").symlink_to(tmp / "cal.csv")
    one_line_error(
        run(
            "fit",
            tmp / "cal.csv",
            "--score",
            "score",
            "--label",
            "y",
            "-o",
            tmp / "cal.json",
            "--force",
        ),  # fmt: skip
        "input",
    )
    (tmp / "out.csv").write_text("keep me")
    res = run("apply", tmp / "model.json", tmp / "test.csv", "-o", tmp / "out.csv")
    one_line_error(res, "already exists")
    assert (tmp / "out.csv").read_text() == "keep me"
    one_line_error(
        run("apply", tmp / "model.json", tmp / "test.csv", "-o", tmp / "test.csv", "--force"),
        "input",
    )
    parts = tmp / "parts"
    parts.mkdir()
    pd.read_csv(tmp / "test.csv").to_parquet(parts / "a.parquet")
    one_line_error(
        run("apply", tmp / "model.json", parts, "-o", parts / "out.parquet"), "inside the input"
    )
    assert sorted(os.listdir(parts)) == ["a.parquet"]


def test_a_failure_midway_leaves_no_output(files, monkeypatch):
    """A bad score in a late chunk: exit 2, no output, no temporary file, old output kept."""
    tmp, _, _, test = files
    assert _fit(tmp).exit_code == 0
    bad = test.assign(score=test["score"].where(test.index != 650, np.nan))
    bad.to_parquet(tmp / "bad.parquet", index=False)
    (tmp / "out.parquet").write_bytes(b"old")
    monkeypatch.setattr(_stream, "BATCH_ROWS", 100)
    res = run("apply", tmp / "model.json", tmp / "bad.parquet", "-o", tmp / "out.parquet",
              "--force")  # fmt: skip
    one_line_error(res, "row 650")
    assert (tmp / "out.parquet").read_bytes() == b"old"
    assert not [p for p in os.listdir(tmp) if p.startswith(".venncal-tmp")]


@pytest.mark.parametrize("out_name", ["out.parquet", "out.csv"])
@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), RuntimeError("boom")])
def test_a_failing_writer_leaves_no_output(files, monkeypatch, out_name, error):
    """The writer thread fails on the third chunk: the error reaches the command, exit 2 for a
    file system error (a traceback for a bug), no output, no temporary file, old output kept."""
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    (tmp / out_name).write_bytes(b"old")
    monkeypatch.setattr(_stream, "BATCH_ROWS", 100)
    original, calls = _stream.Sink._write_now, []

    def failing(self, kept, new):
        calls.append(threading.current_thread().name)
        if len(calls) == 3:
            raise error
        return original(self, kept, new)

    import threading

    monkeypatch.setattr(_stream.Sink, "_write_now", failing)
    res = run("apply", tmp / "model.json", tmp / "test.parquet", "-o", tmp / out_name, "--force")
    if isinstance(error, OSError):
        one_line_error(res, "No space left on device", out_name)
    else:
        assert res.exit_code != 0 and isinstance(res.exception, RuntimeError)
    assert 3 <= len(calls) <= 3 + _stream.Sink.QUEUED + 1  # stopped soon after the failure
    assert set(calls) == {"venncal-sink"}  # written in the writer thread
    assert (tmp / out_name).read_bytes() == b"old"
    assert not [p for p in os.listdir(tmp) if p.startswith(".venncal-tmp")]


@pytest.mark.parametrize("background", [True, False])
def test_the_writer_thread_writes_what_the_caller_would(tmp_path, background):
    """Chunks written in the background are the chunks written in line, in order."""
    from venncal.cli._stream import Sink

    rng = np.random.default_rng(0)
    chunks = [rng.normal(size=n) for n in (5, 1, 7, 3)]
    for name in ("o.parquet", "o.csv"):
        with Sink(tmp_path / name, background=background) as sink:
            for k, c in enumerate(chunks):
                sink.write(None, {"p": c, "k": np.full(c.shape[0], float(k))})
        got = (pd.read_parquet if name.endswith("parquet") else pd.read_csv)(tmp_path / name)
        np.testing.assert_array_equal(got["p"], np.concatenate(chunks))
        np.testing.assert_array_equal(got["k"], np.repeat(np.arange(4.0), [5, 1, 7, 3]))
        assert sink.rows == 16


@pytest.mark.parametrize(
    "table,fragments",
    [
        (pa.table({"score": pa.array(["a", "b"])}), ["must hold numbers"]),
        (pa.table({"score": pa.array([0.1, None])}), ["missing value at row 1"]),
        (pa.table({"score": pa.array([0.1, np.inf])}), ["'score'", "row 1"]),
        (pa.table({"score": pa.array([], pa.float64())}), ["no data rows"]),
    ],
)
def test_bad_scores_in_parquet(files, table, fragments):
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    pq.write_table(table, tmp / "bad.parquet")
    one_line_error(
        run("apply", tmp / "model.json", tmp / "bad.parquet", "-o", tmp / "o.parquet"), *fragments
    )
    assert not (tmp / "o.parquet").exists()


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_a_bad_score_is_named_by_its_row_in_the_file(files, monkeypatch, bad):
    """Read in chunks of 4 rows, a bad score at row 9 is row 9, not index 1 of its chunk."""
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    score = np.linspace(-1, 1, 12)
    score[9] = bad
    pq.write_table(pa.table({"score": score}), tmp / "bad.parquet")
    monkeypatch.setattr(_stream, "BATCH_ROWS", 4)
    res = run("apply", tmp / "model.json", tmp / "bad.parquet", "-o", tmp / "o.parquet")
    message = one_line_error(res, "row 9", "NaN" if np.isnan(bad) else "infinite")
    assert "index" not in message
    assert not (tmp / "o.parquet").exists()


def test_a_nan_after_an_infinite_score_is_named_with_its_own_row(files):
    """The message and the row it gives name the same value."""
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    pq.write_table(pa.table({"score": [0.1, np.inf, 0.2, np.nan]}), tmp / "bad.parquet")
    res = run("apply", tmp / "model.json", tmp / "bad.parquet", "-o", tmp / "o.parquet")
    one_line_error(res, "NaN", "row 3")


def test_bad_model_files(files):
    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    doc = json.loads((tmp / "model.json").read_text())
    doc["params"]["merge"] = "mean"
    (tmp / "tampered.json").write_text(json.dumps(doc))
    one_line_error(
        run("apply", tmp / "tampered.json", tmp / "test.csv", "-o", tmp / "o.csv"), "checksum"
    )
    (tmp / "cut.json").write_text((tmp / "model.json").read_text()[:100])
    one_line_error(run("apply", tmp / "cut.json", tmp / "test.csv", "-o", tmp / "o.csv"), "JSON")
    one_line_error(
        run("apply", tmp / "none.json", tmp / "test.csv", "-o", tmp / "o.csv"), "cannot read"
    )
    assert not (tmp / "o.csv").exists()


def test_inputs_that_do_not_match(files):
    tmp, _, _, test = files
    assert _fit(tmp).exit_code == 0
    test[["id", "score"]].to_parquet(tmp / "other.parquet", index=False)
    one_line_error(
        run(
            "apply",
            tmp / "model.json",
            tmp / "test.parquet",
            tmp / "other.parquet",
            "-o",
            tmp / "o.parquet",
        ),  # fmt: skip
        "same columns",
    )
    one_line_error(
        run(
            "apply",
            tmp / "model.json",
            tmp / "test.parquet",
            "-o",
            tmp / "o.parquet",
            "--keep",
            "nope",
        ),  # fmt: skip
        "--keep 'nope'",
    )
    test.assign(p=1.0).to_parquet(tmp / "has_p.parquet", index=False)
    one_line_error(
        run("apply", tmp / "model.json", tmp / "has_p.parquet", "-o", tmp / "o.parquet"),
        "--prefix",
    )
    empty = tmp / "empty"
    empty.mkdir()
    one_line_error(
        run("apply", tmp / "model.json", empty, "-o", tmp / "o.parquet"), "without .parquet"
    )
    one_line_error(run("apply", tmp / "model.json", tmp / "test.xlsx", "-o", tmp / "o.parquet"))


def test_fit_bad_input(files):
    tmp, *_ = files
    one_line_error(_fit(tmp, "--scheduler", "tcp://x:1"), "--scheduler")
    one_line_error(
        run("fit", tmp / "cal.csv", "--score", "nope", "--label", "y", "-o", tmp / "m.json"),
        "--score 'nope'",
    )
    pd.DataFrame({"score": [0.1, 0.2], "y": [1, 1]}).to_parquet(tmp / "one.parquet")
    one_line_error(
        run("fit", tmp / "one.parquet", "--score", "score", "--label", "y", "-o", tmp / "m.json"),
        "one class only",
    )
    assert not (tmp / "m.json").exists()


def test_fit_reads_a_folder_of_parquet_files(files):
    tmp, s, y, _ = files
    parts = tmp / "calparts"
    parts.mkdir()
    frame = pd.DataFrame({"score": s, "y": y, "extra": 1})
    frame.iloc[:200].to_parquet(parts / "a.parquet", index=False)
    frame.iloc[200:].to_parquet(parts / "b.parquet", index=False)
    res = run("fit", parts, "--score", "score", "--label", "y", "-o", tmp / "m.json")
    assert res.exit_code == 0, res.output
    want = venncal.VennAbersCalibrator().fit(s, y)
    np.testing.assert_array_equal(
        venncal.load(tmp / "m.json").predict_interval(s), want.predict_interval(s)
    )


# ----------------------------------------------------------------------------- labels
@pytest.mark.parametrize(
    "labels,positive",
    [
        (np.array([0, 1] * 50), None),
        (np.array([-1, 1] * 50), None),
        (np.array([True, False] * 50), None),
        (np.array([1.0, 0.0] * 50), None),
        (np.array([1, 2] * 50), "1"),
        (np.array([3.0, 7.0] * 50), "7.0"),
    ],
)
def test_numeric_labels_agree_with_the_text_route(labels, positive):
    """The numeric check gives what the text route (the labels as strings) gives."""
    from venncal.cli._io import labels_column

    frame = pd.DataFrame({"y": labels})
    as_text = pd.DataFrame({"y": labels.astype(str)})
    got = labels_column(frame, "y", "f", positive=positive)
    want = labels_column(as_text, "y", "f", positive=positive or str(labels.max()))
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int8


@pytest.mark.parametrize("cls", ["VennAbersCalibrator", "IsotonicCalibrator"])
def test_apply_rounds_scores_like_the_model(files, cls):
    """A model fitted with ``decimals`` rounds the test scores too, as predict_proba does."""
    tmp, s, y, test = files
    try:
        model = getattr(venncal, cls)(decimals=1).fit(s, y)
    except TypeError:
        pytest.skip("no decimals in this version")
    venncal.save(model, tmp / "rounded.json")
    res = run("apply", tmp / "rounded.json", tmp / "test.parquet", "-o", tmp / "o.parquet",
              "--score", "score")  # fmt: skip
    assert res.exit_code == 0, res.output
    want = model.predict_proba(test["score"])[:, 1]
    np.testing.assert_array_equal(pd.read_parquet(tmp / "o.parquet")["p"], want)


_NO_SKLEARN = """
import sys
from venncal.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print("sklearn imported:", "sklearn" in sys.modules)
    print("pandas imported:", "pandas" in sys.modules)
    print("numba imported:", "numba" in sys.modules)
"""


def test_applying_a_venn_abers_model_needs_no_scikit_learn(files):
    """The saved tables predict by themselves: a fast start, the same numbers."""
    import subprocess
    import sys

    tmp, *_ = files
    assert _fit(tmp).exit_code == 0
    args = ["apply", tmp / "model.json", tmp / "test.parquet", "-o", tmp / "o.parquet"]
    result = subprocess.run(
        [sys.executable, "-c", _NO_SKLEARN, *map(str, args)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "sklearn imported: False" in result.stdout
    # Parquet in and out through pyarrow's buffers, the tables searched in numpy
    assert "pandas imported: False" in result.stdout
    assert "numba imported: False" in result.stdout
    got = pq.read_table(tmp / "o.parquet")
    model = venncal.load(tmp / "model.json")
    score = pq.read_table(tmp / "test.parquet").column("score").to_numpy()
    np.testing.assert_array_equal(got.column("p").to_numpy(), model.predict_proba(score)[:, 1])
    np.testing.assert_array_equal(
        np.column_stack([got.column("p0").to_numpy(), got.column("p1").to_numpy()]),
        model.predict_interval(score),
    )


@pytest.mark.parametrize(
    "arrow_type",
    ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint32",
     "uint64"],
)  # fmt: skip
def test_arrow_columns_become_the_same_numbers(arrow_type):
    """Read from the data buffer, slices included, as pyarrow's own conversion reads them."""
    from venncal.cli._stream import _arrow_numbers, arrow_float64

    rng = np.random.default_rng(0)
    values = (rng.normal(size=1000) * 50).astype(np.dtype(arrow_type).type)
    if arrow_type.startswith("uint"):
        values = np.abs(values)
    arr = pa.array(values, type=getattr(pa, arrow_type)())
    for piece in (arr, arr.slice(3), arr.slice(17, 500), arr.slice(1000)):
        got = _arrow_numbers(piece)
        np.testing.assert_array_equal(got, piece.to_numpy(zero_copy_only=False))
        assert got.dtype == np.dtype(arrow_type)
    back = arrow_float64(values.astype(np.float64)[5:])
    assert back.type == pa.float64() and back.null_count == 0
    np.testing.assert_array_equal(back.to_numpy(), values.astype(np.float64)[5:])


def test_a_model_fitted_within_groups_is_not_applied_as_a_pooled_one(files):
    """Its predictions need each row's group: one line, no output (never the pooled tables)."""
    tmp, s, y, _ = files
    try:
        model = venncal.VennAbersCalibrator().fit(s, y, groups=np.resize(["a", "b"], len(s)))
    except TypeError:
        pytest.skip("no groups in this version")
    venncal.save(model, tmp / "grouped.json")
    res = run("apply", tmp / "grouped.json", tmp / "test.parquet", "-o", tmp / "o.parquet",
              "--score", "score")  # fmt: skip
    one_line_error(res, "groups")
    assert not (tmp / "o.parquet").exists()
