"""``venncal fit`` and ``venncal apply`` with K score columns (K-class calibrators)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import venncal
from tests.cli._helpers import expect_usage_error, run


def _data(K, n=300, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(K), n)
    y = np.array([rng.choice(K, p=row) for row in p])
    y[:K] = np.arange(K)
    return p, y


def _write(path, p, y, columns=None, labels=None):
    K = p.shape[1]
    columns = columns or [f"s{j}" for j in range(K)]
    frame = pd.DataFrame(p, columns=columns)
    frame["y"] = y if labels is None else np.asarray(labels)[y]
    frame.to_csv(path, index=False)
    return columns


@pytest.mark.parametrize("method", ["matrix-scaling", "multiclass-venn-abers"])
def test_ten_classes_apply_equals_predict_proba(tmp_path, method):
    p, y = _data(10)
    columns = _write(tmp_path / "cal.csv", p, y)
    model = tmp_path / "m.json"
    result = run("fit", tmp_path / "cal.csv", "--score", ",".join(columns), "--label", "y",
                 "--method", method, "-o", model)  # fmt: skip
    assert result.exit_code == 0, result.output
    p_test, _ = _data(10, n=200, seed=1)
    pd.DataFrame(p_test, columns=columns).to_csv(tmp_path / "test.csv", index=False)
    result = run("apply", model, tmp_path / "test.csv", "-o", tmp_path / "out.csv")
    assert result.exit_code == 0, result.output
    out = pd.read_csv(tmp_path / "out.csv")
    loaded = venncal.load(model)
    got = out[[f"p_{j}" for j in range(10)]].to_numpy()
    np.testing.assert_allclose(got, loaded.predict_proba(p_test), rtol=0, atol=1e-12)
    if method == "multiclass-venn-abers":
        iv = loaded.predict_interval(p_test)
        np.testing.assert_allclose(out["p_3_lower"], iv[:, 3, 0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(out["p_3_upper"], iv[:, 3, 1], rtol=0, atol=1e-12)


def test_the_fit_is_the_python_fit_on_labels_matched_to_columns(tmp_path):
    # columns p_dog, p_cat (not in sorted order) and text labels: the class of each column is
    # its name without the common prefix, whatever the sorted order of the labels
    p, y = _data(2)
    _write(tmp_path / "cal.csv", p, y, ["p_dog", "p_cat"], ["dog", "cat"])
    model = tmp_path / "m.json"
    result = run("fit", tmp_path / "cal.csv", "--score", "p_dog,p_cat", "--label", "y",
                 "--method", "temperature", "-o", model)  # fmt: skip
    assert result.exit_code == 0, result.output
    from venncal.persistence import read_model_state

    assert json.loads(read_model_state(model).metadata["classes"]) == ["dog", "cat"]
    want = venncal.TemperatureCalibrator().fit(p, y).predict_proba(p)
    result = run("apply", model, tmp_path / "cal.csv", "-o", tmp_path / "out.csv", "--prefix", "c_")
    assert result.exit_code == 0, result.output
    out = pd.read_csv(tmp_path / "out.csv")
    np.testing.assert_allclose(out[["c_p_dog", "c_p_cat"]].to_numpy(), want, atol=1e-12)


def test_labels_match_columns_after_the_prefix_the_labels_say(tmp_path):
    # p_cat and p_cow share "p_c"; the labels cat and cow say the prefix is "p_"
    p, y = _data(2)
    _write(tmp_path / "cal.csv", p, y, ["p_cow", "p_cat"], ["cow", "cat"])
    result = run("fit", tmp_path / "cal.csv", "--score", "p_cow,p_cat", "--label", "y",
                 "--method", "temperature", "-o", tmp_path / "m.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "classes: cow, cat" in result.output


def test_classes_option_names_the_columns(tmp_path):
    p, y = _data(3)
    _write(tmp_path / "cal.csv", p, y, ["a", "b", "c"], ["x", "y", "z"])
    args = ["fit", tmp_path / "cal.csv", "--score", "a,b,c", "--label", "y", "--method",
            "dirichlet", "-o", tmp_path / "m.json"]  # fmt: skip
    expect_usage_error(run(*args), "--classes")
    result = run(*args, "--classes", "x,y,z")
    assert result.exit_code == 0, result.output
    run("apply", tmp_path / "m.json", tmp_path / "cal.csv", "-o", tmp_path / "o.csv")
    assert list(pd.read_csv(tmp_path / "o.csv").columns[-3:]) == ["p_x", "p_y", "p_z"]
    expect_usage_error(run(*args[:-2], "-o", tmp_path / "n.json", "--classes", "x,y"), "3 columns")
    expect_usage_error(
        run(*args[:-2], "-o", tmp_path / "n.json", "--classes", "x,y,w"), "'z'", "not among"
    )


def test_bad_input_is_one_line(tmp_path):
    p, y = _data(3)
    _write(tmp_path / "cal.csv", p, y)
    base = ["fit", tmp_path / "cal.csv", "--label", "y", "-o", tmp_path / "m.json"]
    expect_usage_error(run(*base, "--score", "s0,s1,s9", "--method", "temperature"), "'s9'")
    expect_usage_error(run(*base, "--score", "s0", "--method", "matrix-scaling"), "K-class")
    expect_usage_error(run(*base, "--score", "s0,s1,s2", "--method", "platt"), "binary")
    expect_usage_error(run(*base, "--score", "s0,s0", "--method", "dirichlet"), "twice")
    frame = pd.read_csv(tmp_path / "cal.csv")
    frame.loc[5, "s1"] = np.nan
    frame.to_csv(tmp_path / "nan.csv", index=False)
    base[1] = tmp_path / "nan.csv"
    expect_usage_error(run(*base, "--score", "s0,s1,s2", "--method", "dirichlet"), "NaN")


def test_apply_refuses_clashing_and_missing_columns(tmp_path):
    p, y = _data(3)
    columns = _write(tmp_path / "cal.csv", p, y)
    model = tmp_path / "m.json"
    run("fit", tmp_path / "cal.csv", "--score", ",".join(columns), "--label", "y",
        "--method", "temperature", "-o", model)  # fmt: skip
    frame = pd.read_csv(tmp_path / "cal.csv").assign(p_1=0.0)
    frame.to_csv(tmp_path / "clash.csv", index=False)
    expect_usage_error(run("apply", model, tmp_path / "clash.csv", "-o", tmp_path / "o.csv"),
                       "p_1", "--prefix")  # fmt: skip
    frame.drop(columns="s2").to_csv(tmp_path / "missing.csv", index=False)
    expect_usage_error(run("apply", model, tmp_path / "missing.csv", "-o", tmp_path / "o.csv"),
                       "'s2'")  # fmt: skip
    assert not (tmp_path / "o.csv").exists()


def test_export_takes_the_k_score_columns(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    p, y = _data(3)
    columns = _write(tmp_path / "cal.csv", p, y)
    model = tmp_path / "m.json"
    run("fit", tmp_path / "cal.csv", "--score", ",".join(columns), "--label", "y",
        "--method", "matrix-scaling", "-o", model)  # fmt: skip
    result = run("export", model, "--to", "sql", "--table", "t", "--score-column",
                 ",".join(columns), "-o", tmp_path / "q.sql")  # fmt: skip
    assert result.exit_code == 0, result.output
    con = duckdb.connect()
    con.register("t", pd.DataFrame(p, columns=columns))
    got = con.execute((tmp_path / "q.sql").read_text()).df()[["p_0", "p_1", "p_2"]].to_numpy()
    want = venncal.load(model).predict_proba(p)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
    result = run("export", model, "--to", "sql", "--table", "t", "--score-column", "s0,,s2",
                 "-o", tmp_path / "r.sql")  # fmt: skip
    expect_usage_error(result, "empty column name")
    ort = pytest.importorskip("onnxruntime")
    result = run("export", model, "--to", "onnx", "-o", tmp_path / "m.onnx")
    assert result.exit_code == 0, result.output
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    out = session.run(None, {session.get_inputs()[0].name: p})[0]
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-9)


def test_compare_takes_k_columns_and_saves_a_model_apply_reads(tmp_path):
    p, y = _data(3, n=150)
    _write(tmp_path / "cal.csv", p, y, ["p_cat", "p_dog", "p_eel"], ["cat", "dog", "eel"])
    model = tmp_path / "best.json"
    result = run("compare", tmp_path / "cal.csv", "--score", "p_cat,p_dog,p_eel", "--label", "y",
                 "--cv", "3", "--n-boot", "20", "--method", "matrix-scaling", "--method",
                 "dirichlet", "--save-model", model, "--out-dir", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "3 classes" in result.output and (tmp_path / "out" / "reliability.png").exists()
    result = run("apply", model, tmp_path / "cal.csv", "-o", tmp_path / "o.csv", "--prefix", "c_")
    assert result.exit_code == 0, result.output
    got = pd.read_csv(tmp_path / "o.csv")[["c_p_cat", "c_p_dog", "c_p_eel"]].to_numpy()
    np.testing.assert_allclose(got, venncal.load(model).predict_proba(p), rtol=0, atol=1e-12)
    result = run("compare", tmp_path / "cal.csv", "--score", "p_cat,p_dog,p_eel", "--label", "y",
                 "--method", "platt")  # fmt: skip
    expect_usage_error(result, "binary")


def test_apply_refuses_rows_that_are_not_probabilities_in_one_line(tmp_path):
    p, y = _data(3)
    columns = _write(tmp_path / "cal.csv", p, y)
    model = tmp_path / "m.json"
    run("fit", tmp_path / "cal.csv", "--score", ",".join(columns), "--label", "y",
        "--method", "dirichlet", "-o", model)  # fmt: skip
    frame = pd.DataFrame(p, columns=columns)
    frame.loc[7, "s1"] = 3.0
    frame.to_csv(tmp_path / "bad.csv", index=False)
    result = run("apply", model, tmp_path / "bad.csv", "-o", tmp_path / "o.csv")
    expect_usage_error(result, "probabilities")
    assert not (tmp_path / "o.csv").exists()
