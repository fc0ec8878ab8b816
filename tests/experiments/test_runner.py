"""The grid runner: deterministic seeds, resumability, and the same table on every backend."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from venncal.experiments.runner import CELL_ID, cell_id, cell_seed, run_grid


def noisy_metric(cell):
    """A cell function with randomness drawn from the cell's own seed and several rows."""
    rng = np.random.default_rng(cell_seed(cell, base_seed=11))
    return [
        {"fold": k, "loss": float(rng.normal()), "label": f"{cell['dataset']}-{k}"}
        for k in range(cell.get("folds", 2))
    ]


def failing_on_c(cell):
    if cell["dataset"] == "c":
        raise RuntimeError("boom")
    return noisy_metric(cell)


def grid():
    return [{"dataset": d, "method": m, "split": s}
            for d in ("a", "b", "c") for m in ("va", "iso") for s in range(2)]  # fmt: skip


# ----------------------------------------------------------------------------- seeds
def test_cell_seed_is_a_stable_hash_of_the_sorted_key():
    cell = {"dataset": "vote", "split": 3, "method": "va"}
    reordered = {"method": "va", "split": 3, "dataset": "vote"}
    assert cell_seed(cell) == cell_seed(reordered)
    assert cell_id(cell) == cell_id(reordered)
    # pinned value: the same in every process and Python session (no salted hash())
    assert cell_seed({"a": 1}) == int(
        __import__("hashlib").sha256(b'0|{"a":1}').hexdigest()[:8], 16
    )
    seeds = {cell_seed(c) for c in grid()}
    assert len(seeds) == len(grid())
    assert cell_seed(cell, 1) != cell_seed(cell, 2)
    assert cell_seed({"x": np.int64(3)}) == cell_seed({"x": 3})


def test_cell_seed_rejects_bad_input():
    with pytest.raises(ValueError, match="not JSON-able"):
        cell_seed({"x": object()})
    with pytest.raises(TypeError, match="must be a dict"):
        cell_seed([("x", 1)])
    with pytest.raises(TypeError, match="base_seed"):
        cell_seed({"x": 1}, base_seed=1.5)


# ----------------------------------------------------------------------------- tables
def test_table_layout_and_keys():
    table = run_grid(grid(), noisy_metric, progress=False)
    assert list(table.columns[:4]) == [CELL_ID, "dataset", "method", "split"]
    assert len(table) == 2 * len(grid())
    # rows follow the order of the cells, the rows of a cell stay together and in order
    expected = [(c["dataset"], c["method"], c["split"], k) for c in grid() for k in range(2)]
    got = list(table[["dataset", "method", "split", "fold"]].itertuples(index=False, name=None))
    assert got == expected
    first = table.iloc[0]
    rng = np.random.default_rng(cell_seed(grid()[0], base_seed=11))
    assert first["loss"] == rng.normal()


def test_same_table_with_one_and_two_jobs(tmp_path):
    one = run_grid(grid(), noisy_metric, n_jobs=1, progress=False)
    two = run_grid(grid(), noisy_metric, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(one, two)
    a = run_grid(grid(), noisy_metric, out_csv=tmp_path / "a.csv", n_jobs=1, progress=False)
    b = run_grid(grid(), noisy_metric, out_csv=tmp_path / "b.csv", n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, one, check_dtype=False)


def test_same_table_on_a_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    reference = run_grid(grid(), noisy_metric, progress=False)
    with distributed.LocalCluster(
        n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        by_cluster = run_grid(grid(), noisy_metric, backend="dask", scheduler=cluster,
                              progress=False)  # fmt: skip
        with distributed.Client(cluster) as client:
            by_client = run_grid(grid(), noisy_metric, backend="dask", scheduler=client,
                                 progress=False)  # fmt: skip
            by_address = run_grid(grid(), noisy_metric, backend="dask",
                                  scheduler=cluster.scheduler_address, progress=False)  # fmt: skip
            assert client.status == "running"  # a client we were given is left open
    for other in (by_cluster, by_client, by_address):
        pd.testing.assert_frame_equal(reference, other)


# ----------------------------------------------------------------------------- resuming
def test_rerun_skips_finished_cells(tmp_path):
    out = tmp_path / "res.csv"
    calls = []

    def counting(cell):
        calls.append(cell_id(cell))
        return noisy_metric(cell)

    first = run_grid(grid()[:5], counting, out_csv=out, progress=False)
    assert len(calls) == 5 and len(first) == 10
    full = run_grid(grid(), counting, out_csv=out, progress=False)
    assert len(calls) == len(grid())  # only the 7 new cells ran
    again = run_grid(grid(), counting, out_csv=out, progress=False)
    assert len(calls) == len(grid())  # nothing ran
    pd.testing.assert_frame_equal(full, again)
    fresh = run_grid(grid(), noisy_metric, out_csv=tmp_path / "fresh.csv", progress=False)
    pd.testing.assert_frame_equal(full, fresh)
    assert len(pd.read_csv(out)) == 2 * len(grid())


def test_interrupted_run_keeps_finished_cells(tmp_path):
    out = tmp_path / "res.csv"
    with pytest.raises(RuntimeError, match="boom"):
        run_grid(grid(), failing_on_c, out_csv=out, progress=False)
    saved = pd.read_csv(out)
    assert set(saved["dataset"]) == {"a", "b"}  # appended as each cell finished
    table = run_grid(grid(), noisy_metric, out_csv=out, progress=False)
    pd.testing.assert_frame_equal(table, run_grid(grid(), noisy_metric, progress=False),
                                  check_dtype=False)  # fmt: skip


def test_subset_of_a_larger_results_file(tmp_path):
    out = tmp_path / "res.csv"
    run_grid(grid(), noisy_metric, out_csv=out, progress=False)
    part = run_grid(grid()[2:4], noisy_metric, out_csv=out, progress=False)
    assert len(part) == 4 and set(part["split"]) == {0, 1}


def test_new_metric_column_rewrites_the_file(tmp_path):
    out = tmp_path / "res.csv"

    def extra(cell):
        rows = noisy_metric(cell)
        if cell["dataset"] == "b":
            rows[0]["extra"] = 1.5
        return rows

    table = run_grid(grid(), extra, out_csv=out, progress=False)
    assert "extra" in table.columns
    assert table["extra"].notna().sum() == 4  # one row of each of the 4 "b" cells
    assert list(pd.read_csv(out).columns)[-2:] == ["extra", "record_check"]


def test_nested_values_and_empty_results(tmp_path):
    def nested(cell):
        if cell["x"] == 2:
            return []
        return {"params": {"C": cell["x"]}, "sizes": [1, 2]}

    cells = [{"x": 1}, {"x": 2}, {"x": 3, "tags": ["p", "q"]}]
    table = run_grid(cells, nested, out_csv=tmp_path / "r.csv", progress=False)
    assert list(table["x"]) == [1, 3]
    assert json.loads(table["params"].iloc[1]) == {"C": 3}
    assert json.loads(table["tags"].iloc[1]) == ["p", "q"]


def test_progress_bar_goes_to_stderr(capsys):
    run_grid(grid()[:3], noisy_metric, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "3/3" in captured.err


def test_progress_none_shows_the_bar_only_on_a_terminal(capsys, monkeypatch):
    # pytest's captured stderr is not a terminal: no bar
    run_grid(grid()[:3], noisy_metric, progress=None)
    assert capsys.readouterr().err == ""

    class Terminal:
        """Stands for a terminal's stderr: tqdm asks it isatty()."""

        def __init__(self):
            self.text = []

        def isatty(self):
            return True

        def write(self, s):
            self.text.append(s)

        def flush(self):
            pass

    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    run_grid(grid()[:3], noisy_metric, progress=None)
    assert "3/3" in "".join(term.text)


# ----------------------------------------------------------------------------- errors
def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="repeats the cell"):
        run_grid([{"a": 1}, {"a": 1}], noisy_metric, progress=False)
    with pytest.raises(ValueError, match="'backend' parameter of run_grid"):
        run_grid(grid(), noisy_metric, backend="ray", progress=False)
    with pytest.raises(ValueError, match="only used with backend='dask'"):
        run_grid(grid(), noisy_metric, scheduler="tcp://x:1", progress=False)
    with pytest.raises(ValueError, match="n_jobs"):
        run_grid(grid(), noisy_metric, n_jobs=0, progress=False)
    with pytest.raises(TypeError, match="callable"):
        run_grid(grid(), "f", progress=False)
    with pytest.raises(TypeError, match="'progress' must be True, False or None"):
        run_grid(grid(), noisy_metric, progress="yes")
    with pytest.raises(TypeError, match="list of dicts"):
        run_grid({"a": 1}, noisy_metric, progress=False)
    with pytest.raises(TypeError, match="list of dicts"):
        run_grid([{"a": 1}], lambda c: [1, 2], progress=False)
    with pytest.raises(ValueError, match="must not change the key fields"):
        run_grid([{"a": 1}], lambda c: [{"a": 2}], progress=False)
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("x,y\n1,2\n")
    with pytest.raises(ValueError, match="no 'cell_id' column"):
        run_grid(grid(), noisy_metric, out_csv=foreign, progress=False)
    assert os.path.getsize(foreign) == len("x,y\n1,2\n")  # untouched


@pytest.mark.slow
def test_dask_without_scheduler_starts_a_local_cluster():
    pytest.importorskip("distributed")
    cells = grid()[:4]
    table = run_grid(cells, noisy_metric, backend="dask", n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(table, run_grid(cells, noisy_metric, progress=False))


def test_text_keys_that_look_like_numbers_survive_the_csv(tmp_path):
    cells = [{"code": "007", "n": 1}, {"code": "1e3", "n": 2}]
    table = run_grid(cells, noisy_metric_ds, out_csv=tmp_path / "r.csv", progress=False)
    assert list(table["code"]) == ["007", "007", "1e3", "1e3"]
    assert list(table["n"]) == [1, 1, 2, 2]


def noisy_metric_ds(cell):
    return noisy_metric({**cell, "dataset": cell["code"]})[:2]


# ----------------------------------------------------------------------------- torn records
def _finished(tmp_path):
    out = tmp_path / "res.csv"
    reference = run_grid(grid(), noisy_metric, out_csv=out, progress=False)
    return out, reference


def _counting():
    """``noisy_metric`` that records the cells it is called on, and that record."""
    calls = []

    def counting(cell):
        calls.append(cell)
        return noisy_metric(cell)

    return calls, counting


def test_torn_last_record_is_recomputed(tmp_path):
    out, reference = _finished(tmp_path)
    data = out.read_bytes()
    # a crash in the middle of the last append: the line stops inside a number
    out.write_bytes(data[: len(data) - 12])
    calls, counting = _counting()
    with pytest.warns(UserWarning, match="torn or corrupt"):
        table = run_grid(grid(), counting, out_csv=out, progress=False)
    assert calls == [grid()[-1]]  # only the cell of the torn line ran again
    pd.testing.assert_frame_equal(table, reference)
    # the file is whole again: a further run computes nothing and warns nothing
    again = run_grid(grid(), counting, out_csv=out, progress=False)
    assert len(calls) == 1
    pd.testing.assert_frame_equal(again, reference)


def test_cell_missing_a_row_or_with_an_edited_value_is_recomputed(tmp_path):
    out, reference = _finished(tmp_path)
    lines = out.read_text().splitlines(keepends=True)
    # drop the second row of the last cell (whole lines, so the count of fields is right)
    # and change one digit of a loss in the first cell
    first = lines[1]
    digit = next(i for i, ch in enumerate(first) if ch.isdigit() and i > 20)
    edited = first[:digit] + str((int(first[digit]) + 1) % 10) + first[digit + 1 :]
    out.write_text("".join([lines[0], edited] + lines[2:-1]))
    calls, counting = _counting()
    with pytest.warns(UserWarning, match="torn or corrupt"):
        table = run_grid(grid(), counting, out_csv=out, progress=False)
    assert sorted(map(cell_id, calls)) == sorted(map(cell_id, [grid()[0], grid()[-1]]))
    pd.testing.assert_frame_equal(table, reference)


def test_results_file_of_an_older_version_is_still_resumed(tmp_path):
    out, reference = _finished(tmp_path)
    old = pd.read_csv(out).drop(columns="record_check")
    old.iloc[:10].to_csv(out, index=False)  # the first 5 cells, without the check column
    table = run_grid(grid(), noisy_metric, out_csv=out, progress=False)
    pd.testing.assert_frame_equal(table, reference, check_dtype=False)


def test_results_file_that_is_a_folder(tmp_path):
    folder = tmp_path / "res.csv"
    folder.mkdir()
    with pytest.raises(ValueError, match="is a folder"):
        run_grid(grid(), noisy_metric, out_csv=folder, progress=False)


def test_unreachable_dask_scheduler_is_a_connection_error():
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(ConnectionError, match="cannot reach the Dask scheduler"):
            run_grid(grid(), noisy_metric, backend="dask", scheduler="tcp://127.0.0.1:9",
                     progress=False)  # fmt: skip


# ----------------------------------------------------------------------------- killed parent
_KILLED_PARENT = """
import os, sys, time
from venncal.experiments.runner import run_grid

folder = sys.argv[1]

def slow(cell):
    open(os.path.join(folder, str(os.getpid())), "w").close()
    time.sleep(0.3)
    return [{"v": 1}]

run_grid([{"i": i} for i in range(400)], slow, n_jobs=2, progress=False)
"""


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has exited


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc to see processes")
def test_workers_leave_when_the_main_process_is_killed(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-c", _KILLED_PARENT, str(tmp_path)])
    try:
        deadline = time.monotonic() + 120
        workers = set()
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            workers = {int(p.name) for p in tmp_path.iterdir()} - {proc.pid}
        if not workers:
            pytest.skip("the parallel workers did not start")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 30
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [w for w in workers if _alive(w)]
    for w in left:  # do not leave them behind even when the test fails
        os.kill(w, signal.SIGKILL)
    assert not left, f"workers {left} outlived the killed main process"
