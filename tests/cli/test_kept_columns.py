"""Columns that ``venncal apply`` and ``venncal calibrate`` copy are copied, never parsed.

The reference for a CSV file is Python's own ``csv`` module: the field texts it reads from the
input must be the field texts it reads from the output (or the strings in a Parquet output).
"""

import csv
import decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.cli.test_fit_apply import one_line_error, run
from venncal.cli import _csv, _stream

TRICKY = [
    "02134", "NA", "null", "", "9007199254740993", "TRUE", "1e5", "a,b", "line one\nline two",
    'say "hi"', " padded ", "NaN", "-0", "0x1F", "1.10", "\u00e9t\u00e9", "None", "#N/A",
]  # fmt: skip


def _write_csv(path, columns, sep=","):
    """A CSV file written by the csv module (the independent reference), every field quoted
    only where it must be."""
    names = list(columns)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter=sep, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(zip(*columns.values()))


def _read_csv_texts(path, sep=","):
    """``{column: [field text, ...]}`` of a CSV file, read by the csv module."""
    limit = csv.field_size_limit()
    csv.field_size_limit(1 << 30)  # fields of any length
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh, delimiter=sep))
    finally:
        csv.field_size_limit(limit)
    header, body = rows[0], rows[1:]
    return {name: [row[i] for row in body] for i, name in enumerate(header)}


@pytest.fixture
def model(tmp_path):
    rng = np.random.default_rng(3)
    s = np.round(rng.normal(size=300), 3)
    y = (rng.random(300) < 1 / (1 + np.exp(-2 * s))).astype(int)
    pd.DataFrame({"score": s, "y": y}).to_csv(tmp_path / "cal.csv", index=False)
    res = run("fit", tmp_path / "cal.csv", "--score", "score", "--label", "y", "-o",
              tmp_path / "model.json")  # fmt: skip
    assert res.exit_code == 0, res.output
    return tmp_path / "model.json"


def _tricky_columns(n):
    rng = np.random.default_rng(0)
    big = [str(2**62 + int(k)) for k in rng.permutation(50)]
    big[17] = ""  # one missing id among ids above 2^53
    # a column holding integers in its first rows and text after them (past the first chunk)
    changing = [str(i) for i in range(n - 5)] + ["x", "2.5", "", "TRUE", "7"]
    return {
        "text": [TRICKY[i % len(TRICKY)] for i in range(n)],
        "big": [big[i % 50] for i in range(n)],
        "changing": changing,
        "score": [repr(float(v)) for v in np.round(rng.normal(size=n), 4)],
    }


@pytest.mark.parametrize("sep,suffix", [(",", ".csv"), ("\t", ".tsv")])
@pytest.mark.parametrize("out_suffix", [".csv", ".tsv", ".parquet"])
def test_kept_csv_fields_come_out_as_the_file_stores_them(
    tmp_path, model, monkeypatch, sep, suffix, out_suffix
):
    n = 230
    columns = _tricky_columns(n)
    source = tmp_path / f"in{suffix}"
    _write_csv(source, columns, sep)
    # small chunks and small blocks: types that change after the first chunk, and a row
    # longer than a block (read again with larger blocks)
    monkeypatch.setattr(_stream, "BATCH_ROWS", 16)
    monkeypatch.setattr(_csv, "BLOCK_BYTES", 1 << 10)
    columns["text"][200] = "z" * 3000
    _write_csv(source, columns, sep)
    out = tmp_path / f"out{out_suffix}"
    res = run("apply", model, source, "-o", out, "--keep", "text,big,changing,score")
    assert res.exit_code == 0, res.output
    if out_suffix == ".parquet":
        table = pq.read_table(out)
        for name in ("text", "big", "changing", "score"):
            assert table.schema.field(name).type == pa.string()
            assert table.column(name).to_pylist() == columns[name], name
        p = table.column("p").to_numpy()
    else:
        got = _read_csv_texts(out, "\t" if out_suffix == ".tsv" else ",")
        for name in ("text", "big", "changing", "score"):
            assert got[name] == columns[name], name
        p = np.array([float(v) for v in got["p"]])
    assert p.shape == (n,) and np.all((p >= 0) & (p <= 1))


def test_fifty_ids_near_2_to_the_62_with_one_missing_stay_distinct(tmp_path, model):
    ids = [str(2**62 + 3 * k) for k in range(50)]
    ids[7] = ""
    _write_csv(tmp_path / "in.csv", {"id": ids, "score": ["0.5"] * 50})
    for name in ("o.csv", "o.parquet"):
        res = run("apply", model, tmp_path / "in.csv", "-o", tmp_path / name, "--keep", "id")
        assert res.exit_code == 0, res.output
    assert _read_csv_texts(tmp_path / "o.csv")["id"] == ids
    assert pq.read_table(tmp_path / "o.parquet").column("id").to_pylist() == ids


def test_calibrate_copies_every_column_as_stored(tmp_path):
    rng = np.random.default_rng(1)
    s = np.round(rng.normal(size=200), 3)
    y = (rng.random(200) < 1 / (1 + np.exp(-2 * s))).astype(int)
    pd.DataFrame({"score": s, "y": y}).to_csv(tmp_path / "cal.csv", index=False)
    columns = _tricky_columns(60)
    _write_csv(tmp_path / "test.csv", columns)
    res = run("calibrate", tmp_path / "cal.csv", tmp_path / "test.csv", "--score", "score",
              "--label", "y", "-o", tmp_path / "o.csv")  # fmt: skip
    assert res.exit_code == 0, res.output
    got = _read_csv_texts(tmp_path / "o.csv")
    for name in columns:
        assert got[name] == columns[name], name


def _arrow_table(n=40):
    big = pa.array([2**62 + k if k != 5 else None for k in range(n)], pa.int64())
    return pa.table(
        {
            "id": big,
            "flag": pa.array([bool(k % 2) if k != 3 else None for k in range(n)]),
            "amount": pa.array(
                [decimal.Decimal("12345678901234567.89") + k for k in range(n)],
                pa.decimal128(20, 2),
            ),
            "name": pa.array([TRICKY[k % len(TRICKY)] if k != 9 else None for k in range(n)]),
            "when": pa.array(np.arange(n).astype("datetime64[s]")),
            "ratio": pa.array(np.random.default_rng(2).random(n) * 10.0 ** np.arange(-20, 20)),
            "score": pa.array(np.linspace(-2, 2, n)),
        }
    )


def test_parquet_kept_columns_keep_their_arrow_values(tmp_path, model, monkeypatch):
    pq.write_table(_arrow_table(), tmp_path / "a.parquet")
    table = pq.read_table(tmp_path / "a.parquet")  # what the file stores
    monkeypatch.setattr(_stream, "BATCH_ROWS", 7)
    res = run("apply", model, tmp_path / "a.parquet", "-o", tmp_path / "o.parquet")
    assert res.exit_code == 0, res.output
    got = pq.read_table(tmp_path / "o.parquet")
    for name in table.column_names:
        assert got.column(name).combine_chunks().equals(table.column(name).combine_chunks()), name


def test_parquet_to_csv_writes_exact_values(tmp_path, model):
    table = _arrow_table()
    pq.write_table(table, tmp_path / "a.parquet")
    res = run("apply", model, tmp_path / "a.parquet", "-o", tmp_path / "o.csv")
    assert res.exit_code == 0, res.output
    got = _read_csv_texts(tmp_path / "o.csv")
    assert got["id"] == [str(v) if v is not None else "" for v in table.column("id").to_pylist()]
    assert got["name"] == [v if v is not None else "" for v in table.column("name").to_pylist()]
    assert [decimal.Decimal(v) for v in got["amount"]] == table.column("amount").to_pylist()
    # floats: the shortest text that reads back as the same number
    assert [float(v) for v in got["ratio"]] == table.column("ratio").to_pylist()
    assert got["flag"][3] == "" and got["flag"][:3] == ["false", "true", "false"]


def test_calibrated_floats_read_back_exactly_from_csv(tmp_path, model):
    rng = np.random.default_rng(5)
    pq.write_table(pa.table({"score": rng.normal(size=500) * 3}), tmp_path / "a.parquet")
    for name in ("o.csv", "o.parquet"):
        res = run("apply", model, tmp_path / "a.parquet", "-o", tmp_path / name)
        assert res.exit_code == 0, res.output
    exact = pq.read_table(tmp_path / "o.parquet")
    got = _read_csv_texts(tmp_path / "o.csv")
    for name in ("score", "p", "p0", "p1"):
        assert [float(v) for v in got[name]] == exact.column(name).to_pylist(), name


def test_a_field_longer_than_128_kib_is_copied(tmp_path, model):
    long = "v" * (200 << 10)
    _write_csv(tmp_path / "in.csv", {"note": ["a", long, "b"], "score": ["0.1", "0.2", "0.3"]})
    res = run("apply", model, tmp_path / "in.csv", "-o", tmp_path / "o.csv")
    assert res.exit_code == 0, res.output
    assert _read_csv_texts(tmp_path / "o.csv")["note"] == ["a", long, "b"]


def test_a_column_csv_cannot_hold_is_one_line(tmp_path, model):
    pq.write_table(
        pa.table({"score": [0.1, 0.2], "tags": pa.array([[1, 2], [3]])}), tmp_path / "a.parquet"
    )
    res = run("apply", model, tmp_path / "a.parquet", "-o", tmp_path / "o.csv")
    one_line_error(res, "'tags'", "CSV cannot hold")
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize(
    "value,fragments",
    [("abc", ["must hold numbers", "row 4 holds 'abc'"]), ("NA", ["missing value at row 4"]),
     ("", ["missing value at row 4"]), ("nan", ["NaN", "row 4"]), ("inf", ["infinite", "row 4"])],
)  # fmt: skip
def test_bad_scores_in_csv_are_named_by_file_and_row(tmp_path, model, value, fragments):
    """Row numbers count the data rows of each file from 0, in the file the message names."""
    scores = ["0.1", " 0.2 ", "+0.3", "1e-1", value, "0.5"]
    _write_csv(tmp_path / "good.csv", {"score": ["0.1"] * 9})
    _write_csv(tmp_path / "bad.csv", {"score": scores})
    res = run("apply", model, tmp_path / "good.csv", tmp_path / "bad.csv", "-o",
              tmp_path / "o.csv")  # fmt: skip
    message = one_line_error(res, "bad.csv", *fragments)
    assert "row 13" not in message


def test_repeated_names_agree_with_counting():
    rng = np.random.default_rng(0)
    for _ in range(50):
        names = [f"c{k}" for k in rng.integers(0, 30, size=rng.integers(1, 20))]
        naive = [c for c in names if names.count(c) > 1]
        assert _csv.repeated_name(names) == (
            min(naive, key=lambda c: [i for i, d in enumerate(names) if d == c][1])
            if naive
            else None
        )
