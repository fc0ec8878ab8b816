"""``venncal fit --task regression`` and ``venncal apply`` of a predictive distribution:
the library's numbers, in chunks, and one-line errors for bad input."""

import json

import numpy as np
import pandas as pd
import pytest

import venncal
from tests.cli._helpers import expect_usage_error, run
from venncal.cli import _stream


def _data(seed, n):
    """A regressor's rounded predictions (ties) and real labels."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, n)
    pred = np.round(x + rng.normal(scale=0.1, size=n), 2)
    return pred, np.round(x + rng.normal(scale=0.2 + 0.3 * np.abs(x), size=n), 2)


@pytest.fixture
def files(tmp_path):
    pred, y = _data(0, 800)
    w = np.random.default_rng(1).integers(1, 4, 800).astype(float)
    cal = pd.DataFrame({"pred": pred, "y": y, "w": w})
    cal.to_csv(tmp_path / "cal.csv", index=False)
    cal.to_parquet(tmp_path / "cal.parquet", index=False)
    t, truth = _data(2, 1500)
    test = pd.DataFrame({"id": np.arange(1500), "pred": t, "truth": truth})
    test.to_csv(tmp_path / "test.csv", index=False)
    test.to_parquet(tmp_path / "test.parquet", index=False)
    return tmp_path, cal, test


def _fit(tmp, *extra, cal="cal.csv", out="dist.json"):
    args = ["fit", tmp / cal, "--score", "pred", "--label", "y", "-o", tmp / out, *extra]
    return run(*args)


@pytest.mark.parametrize(
    "how",
    [
        ("--task", "regression"),
        ("--method", "venn-abers-distribution"),
        ("--task", "regression", "--method", "venn-abers-distribution"),
    ],
)
def test_fit_is_the_library_distribution(files, how):
    tmp, cal, _ = files
    result = _fit(tmp, *how)
    assert result.exit_code == 0, result.output
    assert "Fitted venn-abers-distribution on 800 rows" in result.output
    model = venncal.persistence.read_model_file(tmp / "dist.json")
    assert model.metadata["task"] == "regression" and model.metadata["score"] == "pred"
    want = venncal.VennAbersDistribution().fit(cal["pred"], cal["y"])
    got = model.calibrator
    assert type(got) is venncal.VennAbersDistribution and got.get_params() == want.get_params()
    s = np.linspace(-3, 3, 101)
    np.testing.assert_array_equal(
        got.predict_cdf(s, [-1.0, 0.0, 1.0]), want.predict_cdf(s, [-1.0, 0.0, 1.0])
    )


@pytest.mark.parametrize("cal", ["cal.csv", "cal.parquet"])
def test_weights_and_merge_reach_the_fit(files, cal):
    tmp, frame, _ = files
    result = _fit(tmp, "--task", "regression", "--weight", "w", "--merge", "log", cal=cal)
    assert result.exit_code == 0, result.output
    want = venncal.VennAbersDistribution(merge="log").fit(frame["pred"], frame["y"], frame["w"])
    got = venncal.load(tmp / "dist.json")
    assert got.merge == "log"
    s = frame["pred"].to_numpy()[:200]
    np.testing.assert_array_equal(got.predict_interval(s), want.predict_interval(s))


@pytest.mark.parametrize("inp", ["test.csv", "test.parquet"])
@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
def test_apply_writes_the_median_and_the_interval_of_the_loaded_model(
    files, monkeypatch, inp, out_name
):
    tmp, _, test = files
    assert _fit(tmp, "--task", "regression").exit_code == 0
    monkeypatch.setattr(_stream, "BATCH_ROWS", 256)  # six chunks
    result = run(
        "apply", tmp / "dist.json", tmp / inp, "-o", tmp / out_name,
        "--confidence", "0.8", "--quantiles", "0.05,0.25,0.975",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "wrote median, lower, upper, q_0.05, q_0.25, q_0.975" in result.output
    out = (
        pd.read_csv(tmp / out_name)
        if out_name.endswith(".csv")
        else pd.read_parquet(tmp / out_name)
    )
    assert list(out.columns) == [
        "id", "pred", "truth", "median", "lower", "upper", "q_0.05", "q_0.25", "q_0.975",
    ]  # fmt: skip
    np.testing.assert_array_equal(out["id"].astype(int), test["id"])  # CSV text kept as text
    dist = venncal.load(tmp / "dist.json")
    s = test["pred"].to_numpy()
    interval = dist.predict_interval(s, confidence=0.8)
    q = dist.predict_quantiles(s, [0.5, 0.05, 0.25, 0.975])
    for column, want in [
        ("lower", interval[:, 0]),
        ("upper", interval[:, 1]),
        ("median", q[:, 0]),
        ("q_0.05", q[:, 1]),
        ("q_0.25", q[:, 2]),
        ("q_0.975", q[:, 3]),
    ]:
        np.testing.assert_allclose(out[column], want, rtol=0, atol=1e-12, err_msg=column)
    inside = (out["lower"] <= test["truth"]) & (test["truth"] <= out["upper"])
    assert 0.75 <= inside.mean() <= 0.85


def test_apply_defaults_keep_and_prefix(files):
    tmp, _, test = files
    assert _fit(tmp, "--method", "venn-abers-distribution").exit_code == 0
    result = run(
        "apply", tmp / "dist.json", tmp / "test.csv", "-o", tmp / "out.csv",
        "--keep", "id", "--prefix", "y_",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = pd.read_csv(tmp / "out.csv")
    assert list(out.columns) == ["id", "y_median", "y_lower", "y_upper"]
    want = venncal.load(tmp / "dist.json").predict_interval(test["pred"].to_numpy())
    np.testing.assert_allclose(out[["y_lower", "y_upper"]], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("inp", ["test.csv", "test.parquet"])
def test_apply_band_is_the_library_band_interval(files, monkeypatch, inp):
    tmp, cal, test = files
    few = cal.iloc[:30]  # thirty rows: some 5% tails cannot be bounded, ends are infinite
    few.to_csv(tmp / "few.csv", index=False)
    assert _fit(tmp, "--task", "regression", cal="few.csv").exit_code == 0
    monkeypatch.setattr(_stream, "BATCH_ROWS", 256)
    result = run("apply", tmp / "dist.json", tmp / inp, "-o", tmp / "band.parquet", "--band")
    assert result.exit_code == 0, result.output
    out = pd.read_parquet(tmp / "band.parquet")
    want = venncal.load(tmp / "dist.json").predict_interval(test["pred"].to_numpy(), kind="band")
    np.testing.assert_array_equal(out[["lower", "upper"]].to_numpy(), want)
    assert np.isinf(want).any() and np.isfinite(want).any()
    median = venncal.load(tmp / "dist.json").predict_quantiles(test["pred"].to_numpy(), 0.5)
    np.testing.assert_array_equal(out["median"], median[:, 0])


def test_band_is_refused_for_a_classifier_model(files):
    tmp, _, _ = files
    pd.DataFrame({"s": np.linspace(0, 1, 50), "y": np.arange(50) % 2}).to_csv(
        tmp / "bin.csv", index=False
    )
    assert (
        run("fit", tmp / "bin.csv", "--score", "s", "--label", "y", "-o", tmp / "b.json").exit_code
        == 0
    )
    result = run(
        "apply", tmp / "b.json", tmp / "bin.csv", "-o", tmp / "o.csv", "--score", "s", "--band"
    )
    assert result.exit_code == 2 and "--band" in result.output
    assert not (tmp / "o.csv").exists()


def test_apply_of_a_model_saved_in_python(files):
    tmp, cal, test = files
    dist = venncal.VennAbersDistribution(merge="square").fit(cal["pred"], cal["y"])
    venncal.save(dist, tmp / "py.json")
    result = run("apply", tmp / "py.json", tmp / "test.csv", "-o", tmp / "o.csv", "--score", "pred")
    assert result.exit_code == 0, result.output
    got = pd.read_csv(tmp / "o.csv")["upper"].to_numpy()
    np.testing.assert_allclose(got, dist.predict_interval(test["pred"])[:, 1], rtol=0, atol=1e-12)


def _write(tmp, name, text):
    path = tmp / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("labels", "said"),
    [
        ("1.5\n2\nnan\n", "column 'y' (--label) is missing or NaN at row 2"),
        ("1.5\n\n2\n", "column 'y' (--label) is missing or NaN at row 1"),
        ("1.5\ninf\n2\n", "column 'y' (--label) is infinite at row 1"),
        ("1.5\n-inf\n2\n", "column 'y' (--label) is infinite at row 1"),
        (
            "1.5\n2\nhigh\n",
            "must hold real numbers (the labels of a regression); row 2 holds 'high'",
        ),
    ],
)
def test_bad_labels_are_one_line(tmp_path, labels, said):
    values = labels.split("\n")[:3]
    text = "pred,y\n" + "".join(f"{0.1 * i},{v}\n" for i, v in enumerate(values))
    path = _write(tmp_path, "bad.csv", text)
    result = run("fit", path, "--score", "pred", "--label", "y", "--task", "regression",
                 "-o", tmp_path / "m.json")  # fmt: skip
    expect_usage_error(result, said)
    assert not (tmp_path / "m.json").exists()


def test_a_text_label_column_in_parquet_is_one_line(tmp_path):
    pd.DataFrame({"pred": [0.1, 0.2], "y": ["a", "b"]}).to_parquet(tmp_path / "t.parquet")
    result = run("fit", tmp_path / "t.parquet", "--score", "pred", "--label", "y",
                 "--task", "regression", "-o", tmp_path / "m.json")  # fmt: skip
    expect_usage_error(result, "column 'y' (--label) must hold numbers")


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (("--task", "regression", "--method", "platt"), "--method platt calibrates a classifier"),
        (
            ("--task", "classification", "--method", "venn-abers-distribution"),
            "pass --task regression",
        ),
        (("--task", "regression", "--positive", "1"), "--positive does not apply to --task"),
        (("--task", "regression", "--n-bins", "5"), "--n-bins does not apply to --task"),
        (("--task", "regression", "--backend", "dask"), "--backend dask does not apply"),
        (("--task", "regression", "--classes", "a,b"), "--classes does not apply"),
        (("--task", "regression", "--label", "nope"), "--label 'nope': no such column"),
    ],
)
def test_options_of_the_other_task_are_one_line(files, extra, said):
    tmp, _, _ = files
    expect_usage_error(_fit(tmp, *extra), said)


def test_apply_refuses_what_does_not_apply_to_a_distribution(files):
    tmp, cal, _ = files
    assert _fit(tmp, "--task", "regression").exit_code == 0
    model, test = tmp / "dist.json", tmp / "test.csv"
    cases = [
        (("--quantiles", "0.5,1.5"), "'1.5' is not strictly between 0 and 1"),
        (("--quantiles", "0.2,x"), "'x' is not a number"),
        (("--quantiles", "0.5,0.50"), "names a level twice"),
        (("--abstain-at", "0.1"), "--abstain-at does not apply to regression models"),
        (("--backend", "dask"), "--backend dask does not apply to regression models"),
        (("--score-interval", "pred", "pred"), "--score-interval does not apply to regression"),
        (("--score", "missing"), "--score 'missing': no such column"),
    ]
    for extra, said in cases:
        expect_usage_error(run("apply", model, test, "-o", tmp / "o.csv", *extra), said)
    expect_usage_error(
        run("apply", model, test, "-o", tmp / "o.csv", "--confidence", "1"), "--confidence"
    )
    # a distribution fitted within groups needs the groups: refused, not applied without them
    g = np.resize(["a", "b"], len(cal))
    grouped = venncal.VennAbersDistribution().fit(cal["pred"], cal["y"], groups=g)
    venncal.save(grouped, tmp / "grouped.json")
    expect_usage_error(
        run("apply", tmp / "grouped.json", test, "-o", tmp / "o.csv", "--score", "pred"),
        "fitted within groups",
    )
    assert not (tmp / "o.csv").exists()


def test_a_bad_prediction_at_apply_names_its_row(files, monkeypatch):
    tmp, _, _ = files
    assert _fit(tmp, "--task", "regression").exit_code == 0
    path = _write(
        tmp, "bad.csv", "id,pred\n" + "".join(f"{i},{i / 10}\n" for i in range(9)) + "9,nan\n"
    )
    monkeypatch.setattr(_stream, "BATCH_ROWS", 4)
    result = run("apply", tmp / "dist.json", path, "-o", tmp / "o.csv")
    expect_usage_error(result, "column 'pred' (--score) holds NaN values", "row 9")


def test_confidence_and_quantiles_are_refused_for_classification_models(files):
    tmp, cal, _ = files
    binary = venncal.VennAbersCalibrator().fit(cal["pred"], cal["y"] > 0)
    venncal.save(binary, tmp / "binary.json")
    for extra in (("--confidence", "0.8"), ("--quantiles", "0.5")):
        result = run("apply", tmp / "binary.json", tmp / "test.csv", "-o", tmp / "o.csv",
                     "--score", "pred", *extra)  # fmt: skip
        expect_usage_error(result, f"{extra[0]} applies to regression models only")


def test_the_model_file_names_its_columns(files):
    tmp, _, _ = files
    assert _fit(tmp, "--task", "regression", "--weight", "w").exit_code == 0
    doc = json.loads((tmp / "dist.json").read_text())
    assert doc["class"] == "VennAbersDistribution"
    assert doc["metadata"] == {
        "score": "pred", "label": "y", "method": "venn-abers-distribution",
        "task": "regression", "rows": 800, "weight": "w",
    }  # fmt: skip


_NO_SKLEARN = """
import sys
from venncal.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print("sklearn imported:", "sklearn" in sys.modules)
"""


def test_applying_a_distribution_needs_no_scikit_learn(files):
    """The model file's tables give the quantiles by themselves: the same numbers, sooner."""
    import subprocess
    import sys

    tmp, _, test = files
    assert _fit(tmp, "--task", "regression", "--merge", "square").exit_code == 0
    args = ["apply", tmp / "dist.json", tmp / "test.parquet", "-o", tmp / "o.parquet"]
    result = subprocess.run(
        [sys.executable, "-c", _NO_SKLEARN, *map(str, [*args, "--quantiles", "0.3"])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "sklearn imported: False" in result.stdout
    out = pd.read_parquet(tmp / "o.parquet")
    dist = venncal.load(tmp / "dist.json")
    s = test["pred"].to_numpy()
    np.testing.assert_array_equal(out[["lower", "upper"]].to_numpy(), dist.predict_interval(s))
    np.testing.assert_array_equal(out["q_0.3"], dist.predict_quantiles(s, 0.3)[:, 0])
