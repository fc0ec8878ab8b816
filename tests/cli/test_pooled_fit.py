"""``venncal fit`` pooled by distinct score: the model file of the in-memory fit, byte for byte."""

import tempfile

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from venncal.cli import _fitting, _pooled, _spill, _stream, main
from venncal.core.counts import count_table


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _frame(seed, n, *, decimals=2, labels=("neg", "pos"), weights=False):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    if decimals is not None:
        s = np.round(s, decimals)  # many ties, across chunk boundaries with small chunks
    y = rng.random(n) < 1 / (1 + np.exp(-2 * s))
    frame = pd.DataFrame({"id": np.arange(n), "score": s, "y": np.where(y, *labels[::-1])})
    if weights:
        frame["w"] = rng.integers(0, 4, n)
    return frame


def _write(frame, path):
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    elif path.suffix == ".tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:  # a folder of three Parquet files
        path.mkdir()
        for k, part in enumerate(np.array_split(np.arange(len(frame)), 3)):
            frame.iloc[part].to_parquet(path / f"part{k}.parquet", index=False)
    return path


def _spill_small(monkeypatch, tmp_path):
    """Runs of 40 distinct scores at most, read back in blocks of 16, in a temporary folder
    of the test; returns the folder and the list of the runs written."""
    monkeypatch.setattr(_spill, "SPILL_DISTINCT", 40)
    monkeypatch.setattr(_spill, "READ_BLOCK", 16)
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    runs, write = [], _spill.write_run
    monkeypatch.setattr(_spill, "write_run", lambda *a: runs.append(write(*a)) or runs[-1])
    return temp, runs


def _both(monkeypatch, tmp_path, data, *options, spill=False):
    """The model files of the pooled fit and of the in-memory fit (pooling turned off);
    ``spill``: the pooled fit writes runs of a few distinct scores to disk."""
    monkeypatch.setattr(_stream, "BATCH_ROWS", 37)  # many chunks; ties straddle them
    args = ["fit", data, "--score", "score", "--label", "y", *options]

    def refuse(*a, **k):
        raise AssertionError("the pooled fit read the rows in memory")

    with monkeypatch.context() as m:
        m.setattr(_fitting, "read_calibration", refuse)
        if spill:
            temp, runs = _spill_small(m, tmp_path)
        pooled = run(*args, "-o", tmp_path / "pooled.json")
    assert pooled.exit_code == 0, pooled.output
    if spill:
        assert len(runs) >= 3  # the table on disk was merged from several runs
        assert list(temp.iterdir()) == []  # and removed, with its folder
    with monkeypatch.context() as m:
        m.setattr(_pooled, "POOLED_METHODS", frozenset())
        rows = run(*args, "-o", tmp_path / "rows.json")
    assert rows.exit_code == 0, rows.output
    assert pooled.output == rows.output.replace("rows.json", "pooled.json")
    return (tmp_path / "pooled.json").read_bytes(), (tmp_path / "rows.json").read_bytes()


@pytest.mark.parametrize("method", sorted(_pooled.POOLED_METHODS))
@pytest.mark.parametrize("suffix", [".csv", ".parquet", "folder"])
def test_pooled_fit_writes_the_model_of_the_in_memory_fit(monkeypatch, tmp_path, method, suffix):
    data = _write(_frame(0, 600), tmp_path / f"cal{suffix if suffix != 'folder' else ''}")
    pooled, rows = _both(monkeypatch, tmp_path, data, "--method", method)
    assert pooled == rows


@pytest.mark.parametrize(
    "options,frame_kw",
    [
        (["--weight", "w"], {"weights": True}),
        (["--weight", "w", "--method", "isotonic"], {"weights": True, "decimals": 1}),
        (["--positive", "neg"], {}),
        (["--positive", "0"], {"labels": (0, 1)}),
        ([], {"labels": (-1, 1), "decimals": None}),  # all scores distinct
        ([], {"labels": (False, True), "decimals": 4}),
        (["--merge", "square"], {"labels": (0.0, 1.0)}),
        (["--method", "histogram", "--n-bins", "7", "--strategy", "quantile"], {}),
        (["--method", "histogram", "--n-bins", "5"], {"weights": True}),
    ],
)
@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".tsv"])
def test_pooled_fit_options(monkeypatch, tmp_path, options, frame_kw, suffix):
    data = _write(_frame(1, 500, **frame_kw), tmp_path / f"cal{suffix}")
    pooled, rows = _both(monkeypatch, tmp_path, data, *options)
    assert pooled == rows


@pytest.mark.parametrize(
    "options,frame_kw",
    [
        ([], {}),
        ([], {"labels": (-1, 1), "decimals": None}),  # all scores distinct
        (["--weight", "w"], {"weights": True, "decimals": None}),
        (["--positive", "neg"], {"decimals": 1}),
        (["--positive", "0", "--merge", "square"], {"labels": (0, 1)}),
    ],
)
@pytest.mark.parametrize("suffix", [".csv", ".parquet", "folder"])
@pytest.mark.parametrize("method", sorted(_pooled.SPILLED_METHODS))
def test_fit_from_runs_on_disk(monkeypatch, tmp_path, options, frame_kw, suffix, method):
    """A pooled table written to disk in sorted runs, merged and read back in blocks, gives
    the model file of the in-memory fit byte for byte, and its folder is removed."""
    frame = _frame(5, 700, **frame_kw)
    frame.loc[::50, "score"] = -0.0  # zeros of both signs across runs: the first row's sign
    frame.loc[25::50, "score"] = 0.0
    data = _write(frame, tmp_path / f"cal{suffix if suffix != 'folder' else ''}")
    if method != "venn-abers":
        options = [o for o in options if o not in ("--merge", "square")]
    if method == "histogram":  # equal-mass bins unless weighted; more bins than the default
        options += ["--n-bins", "13"] + (["--strategy", "quantile"] * ("--weight" not in options))
    options = [*options, "--method", method]
    pooled, rows = _both(monkeypatch, tmp_path, data, *options, spill=True)
    assert pooled == rows


@pytest.mark.parametrize("spill", [False, True])
def test_reversed_scores_warn_as_in_memory(monkeypatch, tmp_path, spill):
    frame = _frame(2, 400)
    frame["score"] = -frame["score"]
    data = _write(frame, tmp_path / "cal.parquet")
    monkeypatch.setattr(_stream, "BATCH_ROWS", 50)
    if spill:
        _spill_small(monkeypatch, tmp_path)
    runner = CliRunner()
    pooled = runner.invoke(main, ["fit", str(data), "--score", "score", "--label", "y", "-o",
                                  str(tmp_path / "a.json")])  # fmt: skip
    monkeypatch.setattr(_pooled, "POOLED_METHODS", frozenset())
    rows = runner.invoke(main, ["fit", str(data), "--score", "score", "--label", "y", "-o",
                                str(tmp_path / "b.json")])  # fmt: skip
    assert "rank the positive class 'pos'" in pooled.output
    assert pooled.output.splitlines()[0] == rows.output.splitlines()[0]
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.assign(w=f["w"] * 0.3),  # fractional weights: summed in row order
        lambda f: f.assign(y=np.resize(["a", "b", "c"], len(f))),  # three classes
        lambda f: f.assign(y=np.where(f.index == 300, "", f["y"])),  # a missing label
        lambda f: f.assign(score=np.where(f.index == 300, np.nan, f["score"])),
        lambda f: f.assign(w=np.where(f.index == 3, -1, f["w"])),
        lambda f: f.assign(y="pos"),  # one class
    ],
)
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_what_pooling_cannot_decide_is_read_in_memory(monkeypatch, tmp_path, change, suffix):
    """The same model or the same one-line error as the in-memory reading."""
    data = _write(change(_frame(3, 500, weights=True)), tmp_path / f"cal{suffix}")
    monkeypatch.setattr(_stream, "BATCH_ROWS", 64)
    args = ["fit", data, "--score", "score", "--label", "y", "--weight", "w"]
    first = run(*args, "-o", tmp_path / "a.json")
    monkeypatch.setattr(_pooled, "POOLED_METHODS", frozenset())
    second = run(*args, "-o", tmp_path / "b.json")
    assert first.exit_code == second.exit_code
    assert first.output.replace("a.json", "b.json") == second.output
    if first.exit_code == 0:
        assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


@pytest.mark.parametrize("weighted", [False, True])
def test_pool_of_chunks_is_the_count_table(weighted):
    """Chunks pooled in any split give the table of all rows (an independent route)."""
    rng = np.random.default_rng(4)
    for _ in range(20):
        n = int(rng.integers(1, 3000))
        s = np.round(rng.normal(size=n), int(rng.integers(0, 4)))
        y = rng.integers(0, 2, n).astype(np.int8)
        w = rng.integers(0, 5, n).astype(float) if weighted else None
        pool = _pooled._Pool(weighted)
        cuts = np.sort(rng.integers(0, n + 1, int(rng.integers(0, 30))))
        for part in np.split(np.arange(n), cuts):
            pool.add(s[part], y[part], None if w is None else w[part])
        values, c0, c1 = pool.result().arrays()
        want = count_table(s, y, w)
        np.testing.assert_array_equal(values, want.values)
        np.testing.assert_array_equal(c0, want.n0)
        np.testing.assert_array_equal(c1, want.n1)


def _traced_peak(path, method):
    import tracemalloc

    calibrator = _fitting.make_calibrator(method)
    tracemalloc.start()
    try:
        _pooled.fit_file(calibrator, path, "score", "y", method=method)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("method", sorted(_pooled.SPILLED_METHODS))
def test_fit_memory_does_not_grow_with_distinct_scores(monkeypatch, tmp_path, method):
    """Four times the rows, all scores distinct: about the same peak of memory (numpy's and
    Python's allocations), where a table in memory would need four times as much."""
    monkeypatch.setattr(_stream, "BATCH_ROWS", 1 << 11)
    monkeypatch.setattr(_spill, "SPILL_DISTINCT", 1 << 11)
    monkeypatch.setattr(_spill, "READ_BLOCK", 1 << 13)  # 1 << 7 of it for each of 59 runs
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    peaks = []
    for n in (30_000, 30_000, 120_000):  # the first compiles and imports what the fit needs
        rng = np.random.default_rng(n)
        s = rng.random(n)
        frame = pd.DataFrame({"score": s, "y": (rng.random(n) < s).astype(int)})
        peaks.append(_traced_peak(_write(frame, tmp_path / f"cal{n}.parquet"), method))
    assert peaks[2] < 1.3 * peaks[1], peaks
    assert peaks[2] < 120_000 * 24  # less than the pooled table itself (24 bytes a score)


def test_no_room_for_the_runs_is_one_line(monkeypatch, tmp_path):
    """A temporary folder that cannot be written: exit code 2 and one line, no traceback."""
    data = _write(_frame(6, 300, decimals=None), tmp_path / "cal.parquet")
    _spill_small(monkeypatch, tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    result = run("fit", data, "--score", "score", "--label", "y", "-o", tmp_path / "m.json")
    assert result.exit_code == 2
    assert "cannot use the temporary files of the fit" in result.output
    assert "TMPDIR" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("weights", [False, True])
def test_venn_abers_past_exact_int64_geometry_reads_the_table_back(monkeypatch, tmp_path, weights):
    """Counts past the exact int64 geometry of the block fit: the table on disk is read back
    into memory and fitted as before, with the model file of the in-memory fit."""
    monkeypatch.setattr(_pooled, "_INT64_EXACT", 100)
    blocks = []
    monkeypatch.setitem(_pooled._STREAMED, "venn-abers", lambda c, p: blocks.append(p))
    data = _write(_frame(7, 400, decimals=None, weights=weights), tmp_path / "cal.parquet")
    options = ["--weight", "w"] if weights else []
    pooled, rows = _both(monkeypatch, tmp_path, data, *options, spill=True)
    assert pooled == rows
    assert blocks == []
