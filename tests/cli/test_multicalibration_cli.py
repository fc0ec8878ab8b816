"""``venncal fit --method multicalibration --segments ...`` and ``venncal apply`` of its model:
the library's numbers within segments, in chunks, and one-line errors for bad input."""

import numpy as np
import pandas as pd
import pytest

import venncal
from tests.cli._helpers import expect_usage_error, run
from venncal.cli import _stream


def _table(seed, n):
    """Scores blind to a segment ``g`` (too low in "b", too high in "a"), a numerical ``age``
    with missing values and an integer ``code``."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    age = rng.integers(18, 80, n).astype(float)
    age[rng.random(n) < 0.02] = np.nan
    s = np.round(rng.uniform(0.05, 0.95, n), 3)
    truth = np.clip(s + np.where(g == "b", 0.15, np.where(g == "a", -0.15, 0.0)), 0, 1)
    y = (rng.random(n) < truth).astype(np.int64)
    code = rng.integers(1, 4, n)
    return pd.DataFrame({"id": np.arange(n), "s": s, "y": y, "g": g, "age": age, "code": code})


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("multicalibration")
    cal, test = _table(0, 2500), _table(1, 1200)
    test.loc[:4, "g"] = ["new", "new", "other level", "a", "b"]  # unseen at fit: two rows
    for name, frame in (("cal", cal), ("test", test)):
        frame.to_csv(tmp / f"{name}.csv", index=False)
        frame.to_parquet(tmp / f"{name}.parquet", index=False)
    return tmp, cal, test


def _fit(tmp, *extra, cal="cal.csv", out="m.json"):
    return run("fit", tmp / cal, "--score", "s", "--label", "y", "-o", tmp / out, "--force",
               "--method", "multicalibration", *extra)  # fmt: skip


def _library(model, test, categorical):
    """``predict_proba`` and ``predict_interval`` of the loaded model on the test frame, its
    categorical columns as text (as the command line reads them)."""
    loaded = venncal.load(model)
    frame = test.astype({c: str for c in categorical})
    s = test["s"].to_numpy()
    interval = loaded.predict_interval(s, segments=frame)
    return np.column_stack([loaded.predict_proba(s, segments=frame)[:, 1], interval])


def test_fit_and_apply_on_csv_are_the_library(files):
    tmp, cal, test = files
    result = _fit(tmp, "--segments", "g,age,code")
    assert result.exit_code == 0, result.output
    assert "Fitted multicalibration on 2500 rows" in result.output
    loaded = venncal.load(tmp / "m.json")
    # the calibrator's own rule: columns the file stores as numbers are numerical
    assert loaded.categorical_ == ["g"] and loaded.numerical_ == ["age", "code"]
    want = venncal.MulticalibrationCalibrator(categorical=["g"], numerical=["age", "code"])
    want.fit(cal["s"], cal["y"], segments=cal)
    np.testing.assert_array_equal(
        loaded.predict_proba(test["s"], segments=test), want.predict_proba(test["s"], segments=test)
    )
    result = run("apply", tmp / "m.json", tmp / "test.csv", "-o", tmp / "out.csv", "--force")
    assert result.exit_code == 0, result.output
    assert "wrote p, p0, p1" in result.output
    out = pd.read_csv(tmp / "out.csv")
    # the input's rows, in order, with the new columns
    assert list(out.columns) == [*test.columns, "p", "p0", "p1"]
    pd.testing.assert_frame_equal(out[list(test.columns)], test)
    got = out[["p", "p0", "p1"]].to_numpy()
    np.testing.assert_allclose(got, _library(tmp / "m.json", test, ["g"]), rtol=0, atol=1e-12)
    assert (got[:, 1] <= got[:, 2]).all()


def test_fit_and_apply_on_parquet_in_chunks_are_the_library(files, monkeypatch):
    tmp, _, test = files
    result = _fit(tmp, "--segments", "g,age,code", "--categorical", "code",
                  "--merge", "mean", cal="cal.parquet", out="mp.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    loaded = venncal.load(tmp / "mp.json")
    assert loaded.categorical_ == ["g", "code"] and loaded.numerical_ == ["age"]
    # the integers of a categorical column are levels as Python prints them
    assert loaded.merge == "mean" and set(loaded.coding_.levels[1]) == {"1", "2", "3"}
    monkeypatch.setattr(_stream, "BATCH_ROWS", 97)  # many chunks
    out = tmp / "out.parquet"
    result = run("apply", tmp / "mp.json", tmp / "test.parquet", "-o", out, "--force")
    assert result.exit_code == 0, result.output
    written = pd.read_parquet(out)
    assert list(written.columns) == [*test.columns, "p", "p0", "p1"]
    pd.testing.assert_frame_equal(written[list(test.columns)], test)
    want = _library(tmp / "mp.json", test, ["g", "code"])
    np.testing.assert_allclose(written[["p", "p0", "p1"]].to_numpy(), want, rtol=0, atol=1e-12)


def test_unknown_categories_fall_back_to_other(files):
    # levels unseen at fit are "other" (every indicator 0): two such rows with the same score
    # and numerical segments get the same numbers
    tmp, _, test = files
    assert _fit(tmp, "--segments", "g,age", out="g.json").exit_code == 0
    frame = pd.DataFrame({"s": [0.5] * 3, "g": ["new", "never seen", "a"], "age": [40.0] * 3})
    frame.to_csv(tmp / "unseen.csv", index=False)
    result = run("apply", tmp / "g.json", tmp / "unseen.csv", "-o", tmp / "u.csv", "--force")
    assert result.exit_code == 0, result.output
    out = pd.read_csv(tmp / "u.csv")[["p", "p0", "p1"]].to_numpy()
    np.testing.assert_array_equal(out[0], out[1])
    np.testing.assert_allclose(out, _library(tmp / "g.json", frame, ["g"]), rtol=0, atol=1e-12)


def test_a_missing_categorical_value_is_a_level_of_its_own(files):
    tmp, cal, _ = files
    frame = cal.head(400).copy()
    frame["g"] = np.where(np.arange(400) % 4 == 0, "", frame["g"])  # empty fields: missing
    frame.to_csv(tmp / "holes.csv", index=False)
    assert _fit(tmp, "--segments", "g,age", out="g.json").exit_code == 0
    result = run("apply", tmp / "g.json", tmp / "holes.csv", "-o", tmp / "h.csv", "--force")
    assert result.exit_code == 0, result.output
    out = pd.read_csv(tmp / "h.csv")[["p", "p0", "p1"]].to_numpy()
    seg = frame.assign(g=frame["g"].replace("", None))
    np.testing.assert_allclose(out, _library(tmp / "g.json", seg, []), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--segments", "g,nope"], ["--segments 'nope': no such column"]),
        (["--method", "venn-abers", "--segments", "g"], ["--segments applies to --method"]),
        (["--method", "venn-abers", "--numerical", "age"], ["--numerical applies to --method"]),
        ([], ["needs --segments"]),
        (["--segments", "g", "--n-bins", "5"], ["--n-bins does not apply"]),
        (["--segments", "g", "--classes", "a,b"], ["--classes does not apply"]),
        (["--segments", "g", "--backend", "dask"], ["--backend dask does not apply"]),
        (["--segments", "g", "--categorical", "age"], ["--categorical names 'age'", "--segments"]),
        (["--segments", "g,age", "--categorical", "g", "--numerical", "g"], ["both"]),
        (["--segments", "g,,age"], ["empty column name"]),
        (["--segments", "g,y"], ["score, label or weight"]),
        (["--segments", "g", "--numerical", "g"], ["'g'", "row 0", "must hold numbers"]),
    ],
)
def test_bad_fit_options_are_one_line_and_write_nothing(files, args, fragments):
    tmp, _, _ = files
    model = tmp / "bad.json"
    result = run("fit", tmp / "cal.csv", "--score", "s", "--label", "y", "-o", model,
                 *(["--method", "multicalibration"] if "--method" not in args else []), *args)  # fmt: skip
    expect_usage_error(result, *fragments)
    assert not model.exists()


def test_a_text_value_in_a_numerical_column_names_its_column_and_row(files):
    tmp, _, test = files
    assert _fit(tmp, "--segments", "g,age", out="g.json").exit_code == 0
    bad = test.astype({"age": object})
    bad.loc[700, "age"] = "forty"
    bad.to_csv(tmp / "bad.csv", index=False)
    result = run("apply", tmp / "g.json", tmp / "bad.csv", "-o", tmp / "bad_out.csv")
    expect_usage_error(result, "'age'", "row 700", "'forty'")
    assert not (tmp / "bad_out.csv").exists()
    bad.astype({"age": str}).to_parquet(tmp / "bad.parquet", index=False)  # text in Parquet
    result = run("apply", tmp / "g.json", tmp / "bad.parquet", "-o", tmp / "bad_out.parquet")
    expect_usage_error(result, "'age'", "must hold numbers")
    assert not (tmp / "bad_out.parquet").exists()


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        ([], ["reads the segment column 'age': no such column"]),
        (["--backend", "dask"], ["--backend dask does not apply"]),
        (["--abstain-at", "0.1", "--abstain-data", "cal.csv"], ["--abstain-at does not apply"]),
        (["--score-interval", "s", "s"], ["--score-interval does not apply"]),
    ],
)
def test_bad_apply_is_one_line_and_writes_nothing(files, args, fragments):
    tmp, _, test = files
    assert _fit(tmp, "--segments", "g,age", out="g.json").exit_code == 0
    path = tmp / "test.csv"
    if not args:
        path = tmp / "no_age.csv"
        test.drop(columns="age").to_csv(path, index=False)
    args = [tmp / a if a == "cal.csv" else a for a in args]
    result = run("apply", tmp / "g.json", path, "-o", tmp / "never.csv", *args)
    expect_usage_error(result, *fragments)
    assert not (tmp / "never.csv").exists()
